"""Answers to the truco taken from another policy's network (issue 11, session 23).

A policy played with ``truco_answers=NAME`` (``python train.py truco_answers=robust``, or the
agent spec ``truco_answers:NAME:BASE``) takes every answer to a truco-family song of the
opponent (quiero, no quiero, or the raise, to his truco, retruco or vale cuatro) from the
network of the shipped policy ``pretrained:NAME``, and every other decision from its own
network.  Its envido (learned or solved) decides first where the envido is still open at such
an answer (the envido goes first); a pass leaves the answer to ``NAME``'s network with the
envido calls masked out.  In training, those answers are part of the game for the learner, as
the solved envido's decisions are: not its transitions.

Why: a network trained against the heuristic family only learns the family's truco, which is
honest, and so believes every truco and retruco; a best response bluffs it (docs/training.md,
session 20: +1.13 points a hand).  A network trained with a share of self-play answers the
truco honestly (its best responses lose points in the truco).  The composite keeps the family
network's calls and card play and takes the self-play network's answers.  The answerer reads
the compact observation (its first columns of any encoder's).  Meant for argentino 1v1
without flor, the game the shipped ``robust`` policy was trained for.
"""
from __future__ import annotations

import numpy as np

from truco_env.observe import COMPACT_SIZE, O_ENVIDO, O_PLAYERS, O_TREADS, O_TRUCO
from truco_env.rules import ACTION_ID

from .base import Agent, load

_QUIERO = ACTION_ID["quiero"]
#: The truco-family songs: a call on one's own initiative, or a raise when answering.
SONGS = np.array([ACTION_ID["truco"], ACTION_ID["retruco"], ACTION_ID["vale_cuatro"]])


def truco_answering(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``bool[N]``: the rows that answer the opponent's truco, retruco or vale cuatro (the
    song pending is theirs and no envido is pending over it), from the compact columns."""
    obs = np.asarray(obs)
    pending = obs[:, O_TRUCO + 5:O_TRUCO + 8].max(axis=1) > 0.5      # truco .. vale cuatro
    theirs = obs[:, O_TRUCO + 11] > 0.5
    envido_pending = obs[:, O_ENVIDO + 12] > 0.5
    return np.asarray(mask, bool)[:, _QUIERO] & pending & theirs & ~envido_pending


def answer_with(answerer, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`truco_answering` and ``answerer``'s actions for them (its network
    reads the compact columns): the one routing of the training worker and the player."""
    mask = np.asarray(mask)
    ans = truco_answering(obs, mask)
    if not ans.any():
        return ans, np.zeros(0, np.int64)
    return ans, answerer.act_batch_net(np.ascontiguousarray(obs[ans, :COMPACT_SIZE]), mask[ans])


def fold_read(obs: np.ndarray) -> np.ndarray:
    """``float[N]``: how often the other side folded to our truco-family songs earlier in the
    match, ``(folds + 1) / (answers + 2)`` of the ``truco_reads`` piece (layout 7), averaged
    over the opponents (the odd relative seats of a team game); 0.5 before any answer."""
    obs = np.asarray(obs)
    players = obs[:, O_PLAYERS:O_PLAYERS + 6].argmax(axis=1) + 1
    rates = obs[:, O_TREADS:O_TREADS + 12].reshape(len(obs), 6, 2)[:, :, 0]
    opp = (np.arange(6)[None, :] % 2 == 1) & (np.arange(6)[None, :] < players[:, None])
    return (rates * opp).sum(axis=1) / np.maximum(opp.sum(axis=1), 1)


def gated(obs: np.ndarray, mask: np.ndarray, actions: np.ndarray, gate: float) -> np.ndarray:
    """``bool[N]``: the rows where ``actions`` sings truco, retruco or vale cuatro on its own
    initiative (not answering the opponent's song) while the opponents' :func:`fold_read` is
    under ``gate``: the calls a truco gate hands to the answerer's network."""
    return (np.isin(actions, SONGS) & ~truco_answering(obs, mask)
            & (fold_read(obs) < gate))


def _factory(args: str, seed: int | None) -> Agent:
    """``truco_answers:NAME:BASE``: ``BASE`` (a trained policy) with the answers to the truco
    from ``pretrained:NAME``'s network."""
    name, _, base = args.partition(":")
    name, _, opt = name.partition(",")
    if not name.strip() or not base.strip():
        raise ValueError(f"agent spec 'truco_answers:{args}': expected a shipped policy's name "
                         f"and a trained base, e.g. 'truco_answers:robust:checkpoint:runs/x' "
                         f"or 'truco_answers:robust,gate=0.4:checkpoint:runs/x'")
    gate = None
    if opt.strip():
        key, _, val = opt.partition("=")
        try:
            gate = float(val) if key.strip() == "gate" else None
        except ValueError:
            gate = None
        if gate is None or not 0.0 <= gate <= 1.0:
            raise ValueError(f"agent spec 'truco_answers:{args}': bad option {opt.strip()!r}; "
                             f"expected gate=G with G a fold rate in [0, 1]")
    agent = load(base.strip(), seed)
    if not hasattr(agent, "set_truco_answers"):
        raise ValueError(f"agent spec 'truco_answers:{args}': the base {agent.name!r} is not a "
                         f"trained policy (checkpoint:PATH or pretrained:NAME)")
    agent.set_truco_answers(name.strip(), gate=gate)
    agent.name = f"truco_answers:{name.strip()}{'' if gate is None else f',gate={gate:g}'}:{agent.name}"
    return agent
