"""The learner's win rate against a fixed opponent: :func:`evaluation.tournament.head_to_head`
(whole matches through the one match loop, the learner's team alternating by game, the 95%
Wilson interval of :mod:`evaluation.stats`).
"""
from __future__ import annotations

import copy

from .config import Config


def evaluate(net, opponent, cfg: Config, games: int, seed: int) -> tuple[float, float, float]:
    """``(rate, low, high)`` of ``net`` (sampling, or argmax with ``eval_greedy``) over ``games``
    matches against the agent ``opponent``; the learner plays team 0 in even games and team 1
    in odd ones.  Plays a CPU copy of ``net``; touches neither ``net`` nor torch's global
    random stream."""
    from agents.ppo_policy import PolicyAgent
    from evaluation.tournament import GameConfig, head_to_head

    learner = PolicyAgent(copy.deepcopy(net).cpu(), greedy=cfg.eval_greedy, seed=seed,
                          name="learner")
    r = head_to_head(learner, opponent, games,
                     GameConfig(players=cfg.players, rules=cfg.rules, target=cfg.target,
                                flor=cfg.flor), seed=seed)
    return r.rate, r.lo, r.hi
