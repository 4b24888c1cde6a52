"""Any agent measured as a train.py run's final summary measures its policy: the same
opponents (``heuristic``, ``random``, the config's ``opponent`` if it has one, and
``agents.zoo``'s held-out styles), the same duplicate
deals and the same random streams (``training.win_rates.evaluate`` with ``FINAL_SEED``), so
its win rates pair with the summary's deal for deal::

    python examples/final_eval.py "checkpoint:runs/avg_s13,average=8" --config runs/avg_s13
    python examples/final_eval.py pretrained:default --matches 400

``--config`` takes the game (players, rules, target, flor...) from a run's ``config.yaml``
(default: the default config's game); ``--matches`` defaults to ``final_eval_games`` (800).
It prints the table of ``summary.md``.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import agents
from training.config import make_config, read_yaml
from training.logger import rate_table_lines
from training.pool import eval_agents, make_baselines, make_heldout
from training.win_rates import FINAL_SEED, evaluate, rate_table


def final_eval(spec: str, cfg, games: int) -> dict[str, tuple[float, float, float]]:
    """``name -> (win rate, low, high)`` of the agent ``spec`` against the final summary's
    opponents (``training.pool.eval_agents``), ``games`` matches each, on the summary's deals
    (``FINAL_SEED``)."""
    agent = agents.load(spec, seed=FINAL_SEED)
    heldout = make_heldout(cfg) if cfg.eval_heldout else {}
    return {name: evaluate(agent, opp, cfg, games, FINAL_SEED)
            for name, opp in eval_agents(make_baselines(cfg), heldout).items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", help="the agent (an agents.load spec)")
    ap.add_argument("--config", type=Path, default=None,
                    help="a run folder or config.yaml whose game to play (default: the "
                         "default config's)")
    ap.add_argument("--matches", type=int, default=None,
                    help="matches per opponent (default: the config's final_eval_games)")
    args = ap.parse_args(argv)
    values = {}
    if args.config is not None:
        path = args.config / "config.yaml" if args.config.is_dir() else args.config
        values = read_yaml(path)
    cfg = make_config({**values, **({"final_eval_games": args.matches} if args.matches else {})})
    rates = final_eval(args.spec, cfg, cfg.final_eval_games)
    print("\n".join([args.spec, "", *rate_table_lines(rate_table(rates, cfg))]))


if __name__ == "__main__":
    main()
