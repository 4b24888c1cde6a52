"""Match win rates of the heuristic agent: against ``random`` and against itself.

    python benchmarks/heuristic_strength.py [--matches 1000] [--seed 0] [--players 2]
        [--rules argentino] [--target 30] [--flor] [--bluffs 0.0 0.1 0.3]
    python benchmarks/heuristic_strength.py --styles [--matches 400] [--target 30] ...

Every match is a full match to the target, all matches at once through the match loop
(:func:`evaluation.tournament.head_to_head`, the heuristic acting on the whole batch); A is team
0 in half the games, and the first mano is random.  Each line prints wins / matches, the rate
and its 95% Wilson interval.

``--styles``: every style of :data:`agents.heuristic.STYLES` (marked train / held-out by
:mod:`agents.zoo`) against ``heuristic`` and ``random`` in duplicate matches
(:func:`evaluation.tournament.play_duplicate`: ``--matches`` matches = half as many pairs of
the same deals with the seats swapped); the rate is the style's, with its 95% Wilson interval
over pairs (:func:`evaluation.tournament.summarize_pair`), and the net points per hand.
"""
from __future__ import annotations

import argparse
import time

from agents import load, zoo
from agents.heuristic import STYLES
from evaluation.tournament import GameConfig, head_to_head, play_duplicate, summarize_pair


def style_table(matches: int, cfg: GameConfig, seed: int) -> None:
    """Each style's duplicate win rate against ``heuristic`` and ``random`` (one line each)."""
    split = {**{s: "train" for s in zoo.train_specs()},
             **{s: "held-out" for s in zoo.heldout_specs()}}
    pairs = range(max(1, matches // 2))
    print(f"{'style':<34} {'set':<8} {'vs heuristic':<27} {'vs random':<27}")
    for name in ["heuristic", *STYLES]:
        spec = name if name == "heuristic" else f"heuristic:style={name}"
        t0 = time.perf_counter()
        cells = []
        for k, opp in enumerate(("heuristic", "random")):
            r = summarize_pair(play_duplicate(load(spec, seed=seed), load(opp, seed=seed + 1),
                                              pairs, cfg, seed=seed + k))
            cells.append(f"{r['win_rate']:.3f} [{r['win_lo']:.3f}, {r['win_hi']:.3f}]"
                         f" {r['net_per_hand']:+.2f}")
        print(f"{spec:<34} {split.get(spec, '-'):<8} {cells[0]:<27} {cells[1]:<27}"
              f" ({time.perf_counter() - t0:.1f} s)")
    print(f"rate [95% Wilson interval over {len(pairs)} duplicate pairs] net points per hand")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=1000, help="matches per pairing")
    ap.add_argument("--seed", type=int, default=0, help="seed of deals and agents")
    ap.add_argument("--players", type=int, default=2, choices=(2, 4, 6))
    ap.add_argument("--rules", default="argentino")
    ap.add_argument("--target", type=int, default=None)
    ap.add_argument("--flor", action=argparse.BooleanOptionalAction, default=None)
    ap.add_argument("--bluffs", type=float, nargs="+", default=[0.0, 0.1, 0.3],
                    help="bluff rates; the first is played against each of the others")
    ap.add_argument("--styles", action="store_true",
                    help="the style zoo against heuristic and random (duplicate matches)")
    args = ap.parse_args(argv)
    cfg = GameConfig(players=args.players, rules=args.rules, target=args.target, flor=args.flor)
    print(f"{args.matches} matches per line · {args.players} players · rules {args.rules}"
          f" · target {args.target or 'default'} · flor {args.flor} · seed {args.seed}")
    if args.styles:
        style_table(args.matches, cfg, args.seed)
        return
    pairings = [("heuristic", "random")]
    pairings += [(f"heuristic:bluff={b}", "random") for b in args.bluffs]
    pairings += [(f"heuristic:bluff={args.bluffs[0]}", f"heuristic:bluff={b}")
                 for b in args.bluffs[1:]]
    for i, (a, b) in enumerate(pairings):
        t0 = time.perf_counter()
        result = head_to_head(load(a, seed=args.seed), load(b, seed=args.seed + 1),
                              matches=args.matches, cfg=cfg, seed=args.seed + i)
        print(f"{a:>22} vs {b:<22} {result}   ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
