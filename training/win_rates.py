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
    return GameConfig(players=cfg.players, rules=cfg.rules, target=cfg.target, flor=cfg.flor,
                      pica_pica=cfg.pica_pica, **cfg.sena_knobs())


def evaluate(learner, opponent, cfg: Config, games: int, seed: int) -> tuple[float, float, float]:
    """``(rate, low, high)`` of the agent ``learner`` over ``games`` matches (``games // 2``
    duplicate pairs, at least one) against the agent ``opponent``, on the deals of ``seed``.
    Both play reseeded copies: no caller's random stream moves."""
    from evaluation.tournament import play_duplicate, summarize_pair

    me, opp = copy.deepcopy(learner), copy.deepcopy(opponent)
    me.reseed(seed)
    opp.reseed(seed + 1)
    gc = game_config(cfg)
    if gc.ruleset().mode != "teams":
        # Three single players: the learner against two copies of the opponent, every deal
        # in the three seat rotations (evaluation.tournament.play_three_way).
        import numpy as np
        from evaluation.stats import duplicate_win_interval
        from evaluation.tournament import play_three_way
        opp2 = copy.deepcopy(opponent)
        opp2.reseed(seed + 2)
        r = play_three_way([me, opp, opp2], range(max(1, games // 3)), gc, seed=seed)
        return duplicate_win_interval((r["winner"].reshape(-1, 3) == 0).mean(axis=1))
    res = play_duplicate(me, opp, range(max(1, games // 2)), game_config(cfg), seed=seed)
    s = summarize_pair(res)
    return s["win_rate"], s["win_lo"], s["win_hi"]


def evaluate_all(net, opponents: dict, cfg: Config, games: int,
                 seed: int) -> dict[str, tuple[float, float, float]]:
    """:func:`evaluate` of ``net`` (sampling, or argmax with ``eval_greedy``; one CPU copy,
    ``net`` untouched) against every agent of ``opponents`` (name -> agent)."""
    from agents.ppo_policy import PolicyAgent
    from .pool import frozen_copy

    learner = PolicyAgent(frozen_copy(net), greedy=cfg.eval_greedy, seed=seed, name="learner",
                          envido=cfg.envido, truco_answers=cfg.truco_answers,
                          truco_gate=cfg.truco_gate)
    return {name: evaluate(learner, agent, cfg, games, seed) for name, agent in opponents.items()}


def rate_table(rates: dict[str, tuple[float, float, float]], cfg: Config) -> dict[str, dict]:
    """``name -> (rate, low, high)`` as the summary's rows (``training.logger.write_summary``):
    ``win_rate``, ``ci95`` (half the interval's width), ``low``, ``high``, ``matches``."""
    return {name: {"win_rate": round(wr, 4), "ci95": round((hi - lo) / 2, 4),
                   "low": round(lo, 4), "high": round(hi, 4), "matches": cfg.final_eval_games}
            for name, (wr, lo, hi) in rates.items()}
