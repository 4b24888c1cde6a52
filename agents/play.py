"""Play Truco in the terminal against any agent: ``python -m agents.play``.

    python -m agents.play --opponent heuristic:bluff=0.2 --players 2 --target 30
    python -m agents.play --players 4 --partner heuristic --opponent random --seat 1
    python -m agents.play --players 4 --senas traditional   # señas: type one by name ("tres")

You see your cards, the table, the calls and the score (with malas and buenas), and the legal
actions by number and name; type a number, a name (or a unique start of one) or a card of your
hand.  Bad input is explained and asked again; ``quit``, ctrl-d or ctrl-c leave cleanly.  After
every hand a summary says who won each baza, the envido points shown and the points scored.

For tests and embedding, :func:`main` takes ``argv``, ``input_fn`` and ``print_fn``.
"""
from __future__ import annotations

import argparse
from typing import Callable, Sequence

import numpy as np

from truco_env.core import A_SENA0, ACTOR, TEAM
from truco_env.game import Matches, table_match
from truco_env.loop import play
from truco_env.rules import PRESETS
from truco_env.view import (action_text, decode_view, hand_summary, score_line, score_text,
                            seat_name)

from .base import load
from .human import HumanAgent, QuitGame

InputFn = Callable[[str], str]
PrintFn = Callable[..., None]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m agents.play",
                                 description="Play Truco in the terminal against bots.")
    ap.add_argument("--opponent", default="heuristic",
                    help="agent spec of the opponents: random, heuristic, heuristic:bluff=0.2, "
                         "checkpoint:PATH (default: heuristic)")
    ap.add_argument("--partner", default=None,
                    help="agent spec of your partners in team games (default: --opponent)")
    ap.add_argument("--players", type=int, default=None, choices=(2, 3, 4, 6),
                    help="2 (1v1), 4 or 6 (teams of seat %% 2); 3 for --rules pata_de_gallo "
                         "or destantado (their default)")
    ap.add_argument("--rules", default="argentino", choices=PRESETS, help="rule preset")
    ap.add_argument("--target", type=int, default=None,
                    help="points a side needs to win (default: the preset's)")
    ap.add_argument("--flor", action=argparse.BooleanOptionalAction, default=None,
                    help="play with flor (default: the preset's)")
    ap.add_argument("--pica-pica", dest="pica_pica", action=argparse.BooleanOptionalAction,
                    default=None, help="pica-pica duels, 4 or 6 players (default: the preset's; "
                                       "docs/rules.md section 11)")
    ap.add_argument("--senas", default=None, choices=("off", "traditional", "learned"),
                    help="señas between partners (team games; docs/rules.md section 13)")
    ap.add_argument("--seat", type=int, default=0, help="your seat (0 .. players-1)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the deals and the bots")
    return ap


def _score_line(score: Sequence[int], target: int, buenas: bool, me: int) -> str:
    return "Score: " + " | ".join(
        f"{'you' if t == me % 2 else 'them'} {score_text(score[t], target, buenas)}"
        for t in range(2))


def main(argv: Sequence[str] | None = None, input_fn: InputFn = input,
         print_fn: PrintFn = print) -> int:
    """Run one match; returns the exit status (0 also when the person quits)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        game = table_match(args.rules, args.players, target=args.target, flor=args.flor,
                           pica_pica=args.pica_pica, senas=args.senas)
        rules, args.players = game.rules, game.players
        if not 0 <= args.seat < args.players:
            ap.error(f"--seat must be in 0..{args.players - 1}")
        seeds = np.random.SeedSequence(args.seed).generate_state(args.players)
        me = args.seat
        players: list = []
        for s in range(args.players):
            if s == me:
                players.append(HumanAgent(input_fn=input_fn, print_fn=print_fn))
                continue
            spec = args.partner if (s % 2 == me % 2 and args.partner) else args.opponent
            players.append(load(spec, seed=int(seeds[s])))
    except ValueError as e:
        ap.error(str(e))
    game.reset(seed=args.seed)
    print_fn(f"Truco {rules.name} · {args.players} players · match to {rules.target}"
             + (" (malas y buenas)" if rules.has_buenas else "")
             + (" · con flor" if rules.flor else "") + f" · you are player_{me}"
             + (f", team {me % 2}" if args.players > 2 and not game.per_seat else ""))

    def on_decision(game: Matches, rows, actions, mask) -> None:
        seat = int(game.S[0, ACTOR])
        if actions[0] >= A_SENA0 and game.S[0, TEAM + seat] != game.S[0, TEAM + me]:
            return   # a rival's seña: the person sees it only if he catches it (his view)
        if seat != me:
            view = decode_view(game, 0, seat)
            print_fn(f"  {seat_name(seat, me, args.players, view.get('teams'))}: "
                     f"{action_text(int(actions[0]), view)}")

    def on_hand_end(game: Matches, games) -> None:
        view = decode_view(game, 0, me)        # the finished hand, before the next deal
        print_fn(hand_summary(view, me))
        print_fn(score_line(view, me) if game.per_seat else
                 _score_line(view["score"], rules.target, rules.has_buenas, me))

    try:
        play(game, players, on_decision=on_decision, on_hand_end=on_hand_end)
    except QuitGame:
        print_fn("\nBye.")
        return 0
    final = decode_view(game, 0, me)
    if game.per_seat:        # three single players: the winner is a seat
        print_fn(("You win" if final["winner"] == me else f"player_{final['winner']} wins")
                 + " the match: " + score_line(final, me))
        return 0
    won = final["winner"] == me % 2
    print_fn(("You win" if won else "You lose") + " the match "
             f"{final['score'][me % 2]}-{final['score'][1 - me % 2]}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
