"""The learner's win rate against a fixed opponent, in the duplicate format on fixed deals:
:func:`evaluation.tournament.play_duplicate` (every deal is played twice, the learner on each
side; the same match ids and seed at every evaluation, so two evaluations differ only by the
policies) and :func:`evaluation.tournament.summarize_pair` (the pair-level 95% interval of
:mod:`evaluation.stats`).
"""
from __future__ import annotations

import copy

from .config import Config

#: Match ids of the periodic evaluations' fixed deals (the final summary uses other ones).
EVAL_SEED, FINAL_SEED = 20261, 20262


def game_config(cfg: Config):
    from evaluation.tournament import GameConfig
    return GameConfig(players=cfg.players, rules=cfg.rules, target=cfg.target, flor=cfg.flor)


def evaluate(net, opponent, cfg: Config, games: int, seed: int) -> tuple[float, float, float]:
    """``(rate, low, high)`` of ``net`` (sampling, or argmax with ``eval_greedy``) over ``games``
    matches (``games // 2`` duplicate pairs, at least one) against the agent ``opponent``, on
    the deals of ``seed``.  Plays a CPU copy of ``net``; touches neither ``net``, torch's global
    random stream nor the opponent's random stream (it plays a reseeded copy)."""
    from agents.ppo_policy import PolicyAgent
    from evaluation.tournament import play_duplicate, summarize_pair

    learner = PolicyAgent(copy.deepcopy(net).cpu(), greedy=cfg.eval_greedy, seed=seed,
                          name="learner")
    opp = copy.deepcopy(opponent)
    opp.reseed(seed + 1)
    res = play_duplicate(learner, opp, range(max(1, games // 2)), game_config(cfg), seed=seed)
    s = summarize_pair(res)
    return s["win_rate"], s["win_lo"], s["win_hi"]
