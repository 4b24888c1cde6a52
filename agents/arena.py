"""Head-to-head matches between two batched agents over :class:`truco_env.VectorTrucoEnv`.

>>> from agents import load
>>> r = head_to_head(load("heuristic", seed=0), load("random", seed=1), matches=20, seed=0)
>>> r.matches
20
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from truco_env import VectorTrucoEnv

from .base import Agent


@dataclass(frozen=True)
class MatchResult:
    """Matches won by agent A against agent B, with a 95% normal-approximation interval."""

    wins: int
    matches: int

    @property
    def rate(self) -> float:
        return self.wins / self.matches

    @property
    def ci95(self) -> float:
        p = self.rate
        return 1.96 * float(np.sqrt(max(p * (1 - p), 1e-12) / self.matches))

    def __str__(self) -> str:
        return f"{self.wins}/{self.matches} = {self.rate:.1%} ± {self.ci95:.1%}"


def head_to_head(agent_a: Agent, agent_b: Agent, matches: int = 1000, players: int = 2,
                 seed: int | None = 0, max_steps: int = 100_000, **env_kwargs: Any) -> MatchResult:
    """Play ``matches`` matches, A's team against B's team (partners are copies of each).

    Game ``g`` seats A in team ``g % 2``, so A is team 0 in half the matches; the first mano of
    every match is random (the vector env's rule).  Each game counts its first match only, so
    short matches are not over-represented.
    """
    venv = VectorTrucoEnv(matches, players=players, seed=seed, **env_kwargs)
    obs, info = venv.reset()
    a_team = np.arange(matches) % 2
    result = np.full(matches, -1)
    actions = np.zeros(matches, dtype=np.int64)
    for _ in range(max_steps):
        use_a = (info["actor"] % 2) == a_team
        for agent, sel in ((agent_a, use_a), (agent_b, ~use_a)):
            if sel.any():
                actions[sel] = agent.act_batch(obs["observation"][sel], obs["action_mask"][sel])
        obs, _, dones, info = venv.step(actions)
        first = dones & (result < 0)
        result[first] = (info["winner"][first] == a_team[first]).astype(int)
        if (result >= 0).all():
            break
    else:
        raise RuntimeError(f"matches not finished after {max_steps} steps")
    return MatchResult(int(result.sum()), matches)
