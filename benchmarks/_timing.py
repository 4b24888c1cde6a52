"""Shared by the benchmark scripts (a module, not a script): best-of-three timings and the
usual peer, a vector env step under random play."""
from __future__ import annotations

import timeit

import numpy as np

from agents.base import sample_legal
from truco_env import VectorTrucoEnv


def ms(f, n: int = 10) -> float:
    """The best of three timings of ``n`` calls of ``f``, in milliseconds a call."""
    f()
    return min(timeit.repeat(f, number=n, repeat=3)) / n * 1000


def env_step_peer(games: int, rng: np.random.Generator) -> tuple[VectorTrucoEnv, dict, float]:
    """A 1v1 match-to-30 env of ``games`` games (no flor), its first observation, and the
    milliseconds of one of its steps under random actions (printed: the peer)."""
    env = VectorTrucoEnv(games, players=2, target=30, flor=False, seed=0)
    o, _ = env.reset(seed=0)
    first = {k: v.copy() for k, v in o.items()}
    state = {"o": o}

    def env_step():
        state["o"] = env.step(sample_legal(state["o"]["action_mask"], rng))[0]

    base = ms(env_step)
    print(f"vector env step, {games} games, random actions: {base:.2f} ms (the peer)")
    return env, first, base
