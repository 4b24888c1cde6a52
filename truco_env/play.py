"""Play Truco in the terminal against any agent: ``python -m truco_env.play``.

    python -m truco_env.play --opponent heuristic:bluff=0.2 --players 2 --target 30
    python -m truco_env.play --players 4 --partner heuristic --opponent random --seat 1

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

from .env import env as make_env
from .env import raw_env, score_text
from .rules import ACTIONS, PRESETS

InputFn = Callable[[str], str]
PrintFn = Callable[..., None]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m truco_env.play",
                                 description="Play Truco in the terminal against bots.")
    ap.add_argument("--opponent", default="heuristic",
                    help="agent spec of the opponents: random, heuristic, heuristic:bluff=0.2, "
                         "checkpoint:PATH (default: heuristic)")
    ap.add_argument("--partner", default=None,
                    help="agent spec of your partners in team games (default: --opponent)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 4, 6),
                    help="2 (1v1), 4 or 6 (teams of seat %% 2)")
    ap.add_argument("--rules", default="argentino", choices=PRESETS, help="rule preset")
    ap.add_argument("--target", type=int, default=None,
                    help="points a side needs to win (default: the preset's)")
    ap.add_argument("--flor", action=argparse.BooleanOptionalAction, default=None,
                    help="play with flor (default: the preset's)")
    ap.add_argument("--seat", type=int, default=0, help="your seat (0 .. players-1)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the deals and the bots")
    return ap


def hand_summary(aec: raw_env, hand_index: int, start_score: Sequence[int], me: int) -> str:
    """What happened in hand ``hand_index`` (0-based), from the env's record.

    The hand is replayed on a one-hand copy of the environment that stops at its end (the
    match env deals the next hand at once), so the summary shows the last baza and the points
    exactly as the rules core decided them, and nothing that the seat could not see.
    """
    from agents.human import baza_result_text, seat_name

    record = aec.record()
    hand = record["hands"][hand_index]
    shadow = raw_env(players=aec.players, rules=aec.rules, episode="hand")
    options = {"hands": hand["deal"], "mano": hand["mano"], "score": list(start_score)}
    if hand.get("muestra"):
        options["muestra"] = hand["muestra"]
    shadow.reset(options=options)
    for name in hand["actions"]:
        shadow.step(ACTIONS.index(name))
    v = shadow.view(shadow.possible_agents[me])
    P = aec.players
    lines = [f"--- Hand {hand_index + 1} over ---"]
    for b, row in enumerate(v["table"]):
        lines.append(f"  baza {b + 1}: " + ", ".join(f"{seat_name(p, me, P)} {c}" for p, c in row)
                     + baza_result_text(v["baza_results"][b], me))
    if v["calls"]:
        lines.append("  calls: " + ", ".join(f"{seat_name(p, me, P)} {a}" for p, a in v["calls"]))
    if v["envido_points"]:
        lines.append("  points shown: " + ", ".join(f"{seat_name(p, me, P)} {x}"
                                                    for p, x in v["envido_points"].items()))
    gained = [v["score"][t] - start_score[t] for t in range(2)]
    lines.append("  points: " + ", ".join(
        f"{'your team' if t == me % 2 else 'their team'} +{gained[t]}" for t in range(2)))
    return "\n".join(lines)


def _score_line(score: Sequence[int], target: int, buenas: bool, me: int) -> str:
    return "Score: " + " | ".join(
        f"{'you' if t == me % 2 else 'them'} {score_text(score[t], target, buenas)}"
        for t in range(2))


def main(argv: Sequence[str] | None = None, input_fn: InputFn = input,
         print_fn: PrintFn = print) -> int:
    """Run one match; returns the exit status (0 also when the person quits)."""
    import agents
    from agents.human import HumanAgent, QuitGame, describe_action, seat_name

    ap = build_parser()
    args = ap.parse_args(argv)
    if not 0 <= args.seat < args.players:
        ap.error(f"--seat must be in 0..{args.players - 1}")
    try:
        env = make_env(players=args.players, rules=args.rules, target=args.target, flor=args.flor)
        seeds = np.random.SeedSequence(args.seed).generate_state(args.players)
        bots = {}
        for s in range(args.players):
            if s == args.seat:
                continue
            spec = args.partner if (s % 2 == args.seat % 2 and args.partner) else args.opponent
            bots[f"player_{s}"] = agents.load(spec, seed=int(seeds[s]))
    except ValueError as e:
        ap.error(str(e))
    aec = env.unwrapped
    rules = aec.rules
    me = args.seat
    human_name = f"player_{me}"
    human = HumanAgent(input_fn=input_fn, print_fn=print_fn)
    env.reset(seed=args.seed)
    print_fn(f"Truco {rules.name} · {args.players} players · match to {rules.target}"
             + (" (malas y buenas)" if rules.has_buenas else "")
             + (" · con flor" if rules.flor else "") + f" · you are {human_name}"
             + (f", team {me % 2}" if args.players > 2 else ""))
    hand_index = 0
    start_score = [0, 0]
    try:
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs = env.observe(agent)
            view = aec.view(agent)
            if agent == human_name:
                action = human.act(obs, view)
            else:
                action = bots[agent].act(obs, view)
                seat = aec.agent_name_mapping[agent]
                print_fn(f"  {seat_name(seat, me, args.players)}: "
                         f"{describe_action(action, view)}")
            env.step(action)
            after = aec.view(human_name)
            if after["hand_number"] != hand_index + 1 or after["done"]:
                print_fn(hand_summary(aec, hand_index, start_score, me))
                print_fn(_score_line(after["score"], rules.target, rules.has_buenas, me))
                hand_index = after["hand_number"] - 1
                start_score = list(after["score"])
    except QuitGame:
        print_fn("\nBye.")
        return 0
    final = aec.view(human_name)
    won = final["score"][me % 2] > final["score"][1 - me % 2]
    print_fn(("You win" if won else "You lose") + " the match "
             f"{final['score'][me % 2]}-{final['score'][1 - me % 2]}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
