"""Reward shaping of train.py: the change of a team's match win potential ``2 W(score) - 1``
(``winprob_reward``) and of its point difference (``score_reward``), given to every seat of
the team.  The potential is 0 when a match ends, where the +1/-1 takes over, so the shaping of
a match telescopes to a constant (potential-based shaping keeps the match objective).
"""
from __future__ import annotations

import numpy as np

from .config import Config


def win_potential(cfg: Config, heuristic, hands: int = 4096) -> np.ndarray:
    """``2 * W[a, b] - 1``: the win-probability table (:mod:`truco_env.winprob`) of a side with
    ``a`` points against ``b``, from the points of ``hands`` heuristic-vs-heuristic hands."""
    from truco_env import VectorTrucoEnv
    from truco_env.winprob import played_win_table
    venv = VectorTrucoEnv(256, players=cfg.players, rules=cfg.rules, target=cfg.target,
                          flor=cfg.flor, pica_pica=cfg.pica_pica, episode="hand",
                          **cfg.sena_knobs(),
                          check_actions=False, seed=cfg.seed + 17)
    W = played_win_table(venv, heuristic, hands)
    return 2.0 * W - 1.0


class Shaper:
    """Per game, the shaped reward of each team for a step (``float[N, 2]``).

    ``potential`` is :func:`win_potential`'s table (``None`` when ``winprob_reward`` is 0).
    """

    def __init__(self, cfg: Config, num_envs: int, target: int, potential: np.ndarray | None):
        self.cfg, self.target, self.potential = cfg, target, potential
        self.prev_score = np.zeros((num_envs, 2), np.int64)
        self.prev_phi = np.zeros((num_envs, 2))

    @property
    def active(self) -> bool:
        return bool(self.cfg.score_reward or self.cfg.winprob_reward)

    def __call__(self, score: np.ndarray, dones: np.ndarray) -> np.ndarray:
        """``score``: by team after the step (before auto-reset); ``dones``: matches ended."""
        cfg, target = self.cfg, self.target
        delta = score - self.prev_score
        team_gain = cfg.score_reward * (delta - delta[:, ::-1]) / target
        if cfg.winprob_reward:
            s_ = np.minimum(score, target - 1)
            phi = np.stack([self.potential[s_[:, 0], s_[:, 1]],
                            self.potential[s_[:, 1], s_[:, 0]]], axis=1)
            phi[dones] = 0.0      # the match reward takes over: the sum telescopes
            team_gain = team_gain + cfg.winprob_reward * (phi - self.prev_phi)
            self.prev_phi[:] = phi
        self.prev_score[:] = score
        self.prev_score[dones] = 0
        return team_gain
