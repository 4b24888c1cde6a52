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

Random styles (:func:`random_styles`, ``random_styles=N`` in train.py): besides the named
styles, training can meet N heuristics whose betting knobs and card play are drawn at random
(domain randomisation: a policy that met many styles cannot lean on one style's tells).  They
respect the split: no draw lies within :func:`heldout_margin` of a held-out preset's betting,
and none saves its best cards as the trapper does (``cards=low`` is never drawn).
"""
from __future__ import annotations

import functools

import numpy as np

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


#: The betting knobs :func:`random_styles` draws, each uniformly in its range (the span of the
#: named presets, a little wider).  ``aggression`` (which moves every threshold at once) and
#: ``liar`` (señas) stay at their defaults.
RANDOM_RANGES: dict[str, tuple[float, float]] = {
    "bluff": (0.0, 0.4), "accept": (-0.15, 0.25), "call": (-0.12, 0.12),
    "raises": (-0.12, 0.20), "envido": (-0.10, 0.22), "envido_bluff": (0.0, 0.25),
    "raise_bluff": (0.0, 0.33),
}
#: How :func:`random_styles` plays its cards: (mode, probability).  ``low`` (saving the best
#: cards, the held-out ``trapper``'s card play) is never drawn; ``random`` is ``smart`` with a
#: random card at a probability drawn in [0.05, 0.4].
RANDOM_CARDS: tuple[tuple[str, float], ...] = (("smart", 0.5), ("high", 0.15), ("random", 0.35))


def _betting(knobs: dict) -> np.ndarray:
    """A style's betting knobs (every key of :data:`RANDOM_RANGES`) as a point of the unit cube
    of the ranges."""
    return np.array([(knobs[k] - lo) / (hi - lo) for k, (lo, hi) in RANDOM_RANGES.items()])


@functools.lru_cache(maxsize=None)
def _spec_betting(spec: str) -> np.ndarray:
    """:func:`_betting` of a spec's knobs as the agent resolves them (defaults, preset, spec);
    read-only and cached, since :func:`heldout_margin` and :func:`random_styles` both ask for
    the presets' points (each worker of a run draws its styles)."""
    import agents
    point = _betting(agents.load(spec, seed=0).knobs())
    point.setflags(write=False)
    return point


def heldout_margin() -> float:
    """How far (in the unit cube of :data:`RANDOM_RANGES`) every random style stays from every
    held-out preset's betting: half the distance from the held-out preset nearest to a named
    training opponent to that opponent, so that no random style is closer to a held-out style
    than the named training styles' nearest is, by a factor of two."""
    train = [_spec_betting(s) for s in train_specs()]
    return 0.5 * min(float(np.linalg.norm(_spec_betting(h) - t))
                     for h in HELDOUT_STYLES for t in train)


def random_styles(n: int, seed: int) -> list[str]:
    """``n`` heuristic specs with random betting knobs and card play (domain randomisation of
    the opponents: a policy that met many styles cannot lean on one style's tells).

    Each knob of :data:`RANDOM_RANGES` is uniform in its range (``raise_bluff`` is 0 in half
    of the styles: the plain family never re-raises on nothing), the card play is drawn from
    :data:`RANDOM_CARDS`.  The held-out set stays out: a draw whose betting lies within
    :func:`heldout_margin` of a held-out preset's is drawn again, and no style saves its best
    cards (``cards=low``, the trapper's).  The same ``(n, seed)`` gives the same specs, so a
    resumed run meets the styles it met."""
    if n < 0:
        raise ValueError(f"expected a number of random styles >= 0, got {n!r}")
    rng = np.random.default_rng([seed, 0x5717E5])
    held = [_spec_betting(h) for h in HELDOUT_STYLES]
    margin = heldout_margin()
    modes, probs = zip(*RANDOM_CARDS)
    out: list[str] = []
    while len(out) < n:
        # rounded as the spec writes them, so that the margin holds for the agent it loads
        knobs = {k: round(float(rng.uniform(lo, hi)), 3) for k, (lo, hi) in RANDOM_RANGES.items()}
        if rng.random() < 0.5:
            knobs["raise_bluff"] = 0.0
        mode = modes[rng.choice(len(modes), p=probs)]
        cards = f"{rng.uniform(0.05, 0.4):.3f}" if mode == "random" else mode
        if min(np.linalg.norm(_betting(knobs) - h) for h in held) < margin:
            continue
        out.append("heuristic:" + ",".join(f"{k}={v:.3f}" for k, v in knobs.items())
                   + f",cards={cards}")
    return out


def train_specs() -> list[str]:
    """Agent specs training draws opponents from: ``heuristic`` and :data:`TRAIN_STYLES`."""
    return ["heuristic", *TRAIN_STYLES]


def heldout_specs() -> list[str]:
    """Agent specs held out for evaluation (:data:`HELDOUT_STYLES`; evaluation adds ``random``)."""
    return list(HELDOUT_STYLES)
