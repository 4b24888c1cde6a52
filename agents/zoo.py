"""The style zoo: which heuristic styles training plays against and which evaluation holds out.

This module is the one place that draws the line.  Training draws its opponents from
:func:`train_specs` (:data:`TRAIN_STYLES` plus the plain ``heuristic``); evaluation measures
generalisation against :func:`heldout_specs` (:data:`HELDOUT_STYLES`) plus ``random``.  The
styles themselves are the presets of :data:`agents.heuristic.STYLES`.

Why this split.  A held-out set is an honest test only if beating it needs more than having
memorised the training opponents, and if no held-out style is a near copy of a training one:

* ``tight_passive`` is held out, ``calling_station`` and ``maniac`` are trained on.  The two
  trained styles are the extremes that teach the two basic exploits (value-bet a station that
  accepts everything and never bluff it; call down a maniac's bluffs).  The tight-passive
  player is the mirror image of the station on the accepting axis: beating it means bluffing
  more and folding to its rare calls, which no training style rewards directly (the plain
  heuristic sits between), so a policy has to generalise along that axis rather than recall it.
* ``loose_aggressive`` is held out: on every betting knob it lies between the trained
  ``heuristic`` and ``maniac`` without being either, an interpolation test (does the policy
  handle an opponent between the ones it met?).
* ``trapper`` is held out: it slow-plays (few calls of its own, many raises) and keeps its
  best cards for the later bazas (``cards=low``).  No training style does either, so it tests
  whether the policy's reads (no call means a weak hand, a weak first card means a weak hand)
  are robust rather than tuned to the training opponents.
* ``envido_hunter`` and ``card_dumper`` are trained on: each moves one axis (envido, card
  play) that the held-out styles do not lean on, so training still covers every knob.
* ``bluff_raiser`` is in neither set (:data:`OTHER_STYLES`): the only style that re-raises
  without the hand (falta envido over an envido, retruco over a truco) and whose card order is
  partly random, built against the hole a best response found (a policy that learns that a
  re-raise means strength).  Trained on as a fifth training style for 30 minutes it cost about
  five points against the heuristic at equal steps and left a best response's win rate near
  where exploiters had brought it (docs/training.md), so the default training does not draw
  it; ``opponent=heuristic:style=bluff_raiser`` trains against it.
"""
from __future__ import annotations

#: Opponent styles for training (``heuristic`` itself is added by :func:`train_specs`).
TRAIN_STYLES: tuple[str, ...] = (
    "heuristic:style=calling_station",
    "heuristic:style=maniac",
    "heuristic:style=envido_hunter",
    "heuristic:style=card_dumper",
)

#: Styles evaluation holds out: never drawn by training (``random`` is added by evaluation).
HELDOUT_STYLES: tuple[str, ...] = (
    "heuristic:style=tight_passive",
    "heuristic:style=loose_aggressive",
    "heuristic:style=trapper",
)

#: Styles in neither set: opponents for experiments (``opponent=`` in train.py), not drawn by
#: the default training and not part of the evaluation.
OTHER_STYLES: tuple[str, ...] = (
    "heuristic:style=bluff_raiser",
)

assert not set(TRAIN_STYLES) & set(HELDOUT_STYLES), "train and held-out styles overlap"
assert not set(OTHER_STYLES) & set(TRAIN_STYLES + HELDOUT_STYLES), "other styles overlap"


def train_specs() -> list[str]:
    """Agent specs training draws opponents from: ``heuristic`` and :data:`TRAIN_STYLES`."""
    return ["heuristic", *TRAIN_STYLES]


def heldout_specs() -> list[str]:
    """Agent specs held out for evaluation (:data:`HELDOUT_STYLES`; evaluation adds ``random``)."""
    return list(HELDOUT_STYLES)
