"""Probability of winning a match from a score: a table for reward shaping and analysis.

A match is modelled as a sequence of independent hands whose points for the two sides are drawn
from a joint distribution ``q[x, y]`` (x points to my side, y to theirs, in one hand), which
:func:`hand_points_distribution` measures from played hands.  Then

    W(a, b) = sum_xy q[x, y] * W(a + x, b + y),   W = 1 once a >= T, 0 once b >= T

(when both reach the target in one hand, my side wins if it got there with more points — a
rare case that the model settles by a coin flip).  The table is solved backwards from the
target, exactly for the model.  Falta envido's score-dependent value is not modelled: the table
is a potential for shaping (any potential keeps the optimal policy), not a rule.

>>> q = np.zeros((5, 5)); q[1, 0] = q[0, 1] = 0.5     # every hand: 1 point to a random side
>>> W = win_probability_table(3, q)
>>> float(W[0, 0]), float(W[2, 0])
(0.5, 0.875)
"""
from __future__ import annotations

import numpy as np


def win_probability_table(target: int, q: np.ndarray) -> np.ndarray:
    """``W[a, b]``, a, b in 0..target-1: P(the side with ``a`` wins) under hand points ``q``."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] != q.shape[1] or q[0, 0] > 0 or not np.isclose(q.sum(), 1):
        raise ValueError("q must be a square joint distribution of hand points with q[0, 0] = 0")
    m = q.shape[0] - 1
    size = target + m + 1
    W = np.zeros((size, size))
    W[target:, :target] = 1.0
    W[target:, target:] = 0.5
    xs, ys = np.nonzero(q)
    ps = q[xs, ys]
    for s in range(2 * target - 2, -1, -1):       # a + b = s, decreasing
        for a in range(max(0, s - target + 1), min(s, target - 1) + 1):
            b = s - a
            W[a, b] = float((ps * W[a + xs, b + ys]).sum())
    return W[:target, :target]


def hand_points_distribution(points: np.ndarray, max_points: int = 8,
                             symmetric: bool = True) -> np.ndarray:
    """Joint distribution ``q[x, y]`` from hand results ``points[n, 2]`` (clipped; symmetrised
    unless ``symmetric=False``: then ``x`` is the first column's side, e.g. a stronger
    player's)."""
    p = np.clip(np.asarray(points, dtype=np.int64), 0, max_points)
    p = p[p.sum(axis=1) > 0]
    q = np.zeros((max_points + 1, max_points + 1))
    np.add.at(q, (p[:, 0], p[:, 1]), 1.0)
    if symmetric:
        np.add.at(q, (p[:, 1], p[:, 0]), 1.0)
    return q / q.sum()


def played_win_table(venv, policy=None, hands: int = 4096, seed: int = 0) -> np.ndarray:
    """``W[a, b]`` (:func:`win_probability_table`) from the points of ``hands`` hands that
    ``policy`` plays against itself in ``venv`` (a :class:`truco_env.VectorTrucoEnv` made with
    ``episode="hand"``); ``policy`` is any object with ``act_batch(obs, mask)`` (an agent), or
    ``None`` for uniformly random legal actions.  The one measurement behind train.py's
    win-probability shaping and the envido solver's payoffs (:mod:`agents.solved_envido`)."""
    rng = np.random.default_rng(seed)
    obs, info = venv.reset()
    points: list = []
    while len(points) < hands:
        mask = obs["action_mask"]
        act = (policy.act_batch(obs["observation"], mask) if policy is not None
               else (rng.random(mask.shape) + mask).argmax(1))
        obs, _, dones, info = venv.step(act)
        points.extend(info["hand_points"][dones].tolist())
    return win_probability_table(venv.rules.target, hand_points_distribution(np.array(points)))
