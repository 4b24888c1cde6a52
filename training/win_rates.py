"""The learner's win rate against a fixed opponent, over whole matches played through the one
match loop (:func:`truco_env.loop.play`), with the project's one estimator
(:func:`evaluation.stats.win_rate`: 95% Wilson interval).
"""
from __future__ import annotations

import copy

import numpy as np

from .config import Config


def evaluate(net, opponent, cfg: Config, games: int, seed: int) -> tuple[float, float, float]:
    """``(rate, low, high)`` of ``net`` (sampling, or argmax with ``eval_greedy``) over ``games``
    matches against the agent ``opponent``; the learner plays team 0 in even games and team 1
    in odd ones.  Plays a CPU copy of ``net``; touches neither ``net`` nor torch's global
    random stream."""
    from agents.ppo_policy import PolicyAgent
    from evaluation.stats import win_rate
    from truco_env.game import Matches
    from truco_env.loop import play
    from truco_env.rules import get_rules

    learner = PolicyAgent(copy.deepcopy(net).cpu(), greedy=cfg.eval_greedy, seed=seed,
                          name="learner")
    game = Matches(games, cfg.players, get_rules(cfg.rules, target=cfg.target, flor=cfg.flor),
                   random_mano=True)
    game.reset(seed=seed)
    learner_team = np.arange(games) % 2
    seat_team = np.arange(cfg.players) % 2
    seating = (seat_team[None, :] != learner_team[:, None]).astype(np.int64)  # 0: the learner
    result = play(game, [learner, opponent], seating)
    return win_rate(float((result.winner == learner_team).sum()), games)
