"""Evaluate Truco agents: duplicate tournaments, ratings, bluff analytics, probes, exploitability.

    python evaluate.py heuristic random --matches 200              # tournament, every pair
    python evaluate.py heuristic random checkpoint:runs/default --matches 500 --bluff
    python evaluate.py bluff heuristic --vs random --matches 300    # bluff analytics only
    python evaluate.py bluff checkpoint:runs/x --against heuristic random  # per opponent
    python evaluate.py bluff --records games/*.json                 # ... from match records
    python evaluate.py probe heuristic --hand "1e 7o 3b" --score 20,10 --mano 1
    python evaluate.py exploit heuristic --budget 20m               # approximate exploitability
    python evaluate.py senas heuristic --players 4 --senas traditional  # señas (issue 13)
    python evaluate.py nashconv cfr checkpoint:runs/small_truco     # exact, on small Truco

Every command writes one folder (default ``outputs/<command>-<timestamp>/``): ``report.md``
(also printed), CSV and JSON files, PNG plots; its path is the last line printed.  This script
only parses arguments; the work is done by the :mod:`evaluation` package (methods in
``docs/evaluation.md``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from evaluation import bluff, exploit, probe, report, senas, tournament
from evaluation.backends import BACKENDS
from evaluation.tournament import GameConfig
from truco_env.rules import PRESETS

COMMANDS = ("tournament", "bluff", "probe", "exploit", "senas", "nashconv")


def _game_args(ap: argparse.ArgumentParser) -> None:
    """The game's settings; unset ones come from the checkpoints' configs (the game they were
    trained for), else the defaults (2 players, argentino; 3 players for the three-player
    modes)."""
    src = " (default: the checkpoints' game, else %s)"
    ap.add_argument("--players", type=int, default=None, choices=(2, 3, 4, 6),
                    help="seats" + src % "2; 3 for the three-player modes")
    ap.add_argument("--rules", default=None, choices=PRESETS, help="preset" + src % "argentino")
    ap.add_argument("--target", type=int, default=None, help="points to win (preset default)")
    ap.add_argument("--flor", action=argparse.BooleanOptionalAction, default=None,
                    help="play with flor (preset default)")
    ap.add_argument("--pica-pica", dest="pica_pica", action=argparse.BooleanOptionalAction,
                    default=None, help="pica-pica hands (docs/rules.md section 11; preset "
                                       "default)")
    ap.add_argument("--any-game", dest="any_game", action="store_true",
                    help="let checkpoints play a game of another mode than the one they "
                         "were trained for, or agents of different games play together")


def _run_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--matches", type=int, default=200,
                    help="duplicate pairs per pairing (each is two matches)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    ap.add_argument("--out", default=None, help="output folder (default outputs/<command>-<time>/)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


def _backend_args(ap: argparse.ArgumentParser, what: str = "the duplicate pairs") -> None:
    ap.add_argument("--backend", default="local", choices=BACKENDS,
                    help=f"where {what} are played: local processes (default), or Ray "
                         f"tasks (needs the ray extra; --workers then defaults to Ray's CPUs); "
                         f"the same --seed and --workers give the same results on both")
    ap.add_argument("--ray-address", dest="ray_address", default=None,
                    help="with --backend ray: a Ray cluster to join ('auto' finds a running "
                         "one, or ray://HOST:10001; default: start a local Ray with --workers "
                         "CPUs)")


def _cfg(args, specs: Sequence[str]) -> GameConfig:
    """The game of the command: the agents' trained game unless told otherwise; agents trained
    for different games, or told to play a game of another mode (team game or three-player
    mode), are refused (:class:`evaluation.tournament.GameMismatchError`) unless
    ``--any-game``."""
    return tournament.resolve_game(specs, {k: getattr(args, k) for k in tournament.GAME_KEYS},
                                   any_game=args.any_game)


def _labels(specs: Sequence[str]) -> list[tuple[str, str]]:
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append((s if seen[s] == 1 else f"{s}#{seen[s]}", s))
    return out


def cmd_tournament(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py", description="Duplicate round-robin "
                                 "tournament of agent specs (agents.load): every pair plays "
                                 "--matches duplicate pairs.")
    ap.add_argument("specs", nargs="+", help="agent specs, e.g. heuristic random "
                                             "checkpoint:runs/default")
    _run_args(ap)
    _game_args(ap)
    ap.add_argument("--bluff", action="store_true", help="add the bluff analytics to the report")
    _backend_args(ap)
    args = ap.parse_args(argv)
    res = tournament.run_tournament(_labels(args.specs), args.matches, _cfg(args, args.specs),
                                    seed=args.seed,
                                    workers=args.workers, bluff=args.bluff,
                                    progress=not args.no_progress, backend=args.backend,
                                    ray_address=args.ray_address)
    folder = report.out_dir(args.out)
    print(report.write_tournament(res, folder))
    print(folder)
    return 0


def cmd_bluff(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py bluff", description="Bluff analytics of an "
                                 "agent from played matches, or of match records.  The report "
                                 "opens with the three claims: envido acceptance by envido "
                                 "points, truco and retruco call rates by hand strength (the "
                                 "bluff rate), and the points and folds bluffs win against each "
                                 "opponent (tables with 95% intervals, one plot each).")
    ap.add_argument("spec", nargs="?", help="agent spec (omit with --records)")
    ap.add_argument("--against", nargs="+", default=[], metavar="SPEC",
                    help="opponent specs: the agent plays --matches duplicate pairs against "
                         "each (same deals), tables per opponent and over all (default: the "
                         "agent itself)")
    ap.add_argument("--vs", default=None, metavar="SPEC", help="one opponent (same as "
                                                                "--against SPEC)")
    ap.add_argument("--records", nargs="+", help="match record files (JSON, JSON lines) or "
                                                 "folders, instead of playing")
    _run_args(ap)
    _game_args(ap)
    _backend_args(ap)
    args = ap.parse_args(argv)
    if args.records:
        b, n = bluff.analyse_records(args.records)
        header = f"# Bluff analytics from {n} match records"
    elif not args.spec:
        ap.error("give an agent spec or --records")
    else:
        against = ([args.vs] if args.vs else []) + args.against
        cfg = _cfg(args, [args.spec] + against)
        b = bluff.play_against(args.spec, against, args.matches, cfg, seed=args.seed,
                               workers=args.workers, progress=not args.no_progress,
                               backend=args.backend, ray_address=args.ray_address)
        c = b["config"]
        unit = ("deal sequences per opponent, each a three-way duplicate (every seat "
                "rotation) against two copies of it" if c["mode"] != "teams"
                else "duplicate pairs per opponent")
        header = (f"# Bluff analytics: {args.spec} against {', '.join(c['opponents'])}\n\n"
                  f"{args.matches} {unit}, {cfg.players} players, "
                  f"{cfg.rules}, match to {c['target']}, seed {args.seed}.")
    folder = report.out_dir(args.out, "bluff")
    print(report.write_bluff(b, folder, header))
    for f in report.CLAIM_PLOTS:
        print(f"plot: {folder / f}")
    print(folder)
    return 0


def cmd_probe(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py probe", description="An agent's action "
                                 "probabilities in a situation: the probed player holds --hand "
                                 "and is the one to act after the given actions.")
    ap.add_argument("spec")
    ap.add_argument("--hand", required=True, help='three cards, e.g. "1e 7o 3b" (pata de '
                                                  'gallo\'s gallo, the seat before the mano: four)')
    ap.add_argument("--seat", type=int, default=None, help="the probed seat (default: whoever "
                                                           "is to act after the actions)")
    ap.add_argument("--score", default=None, help="score as MINE,THEIRS (the probed player's "
                                                  "team first), e.g. 20,10; three-player "
                                                  "modes: MINE,NEXT,AFTER (seats in play "
                                                  "order; destantado: tantos left)")
    ap.add_argument("--mano", type=int, default=0, help="seat of the mano (default 0)")
    ap.add_argument("--muestra", default=None, help="muestra card (uruguayo)")
    ap.add_argument("--played", default="", help="cards played before, in order, by whoever "
                                                 "is to play (others' cards are dealt to them)")
    ap.add_argument("--calls", default="", help="songs and answers after the cards, in order, "
                                                "e.g. 'truco' or 'envido quiero'")
    ap.add_argument("--actions", default="", help="the general form: cards and action names in "
                                                  "order (after --played and --calls)")
    ap.add_argument("--samples", type=int, default=2000, help="decisions sampled when the agent "
                                                              "has no action_probs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="also write report.md and probe.json there")
    _game_args(ap)
    args = ap.parse_args(argv)
    try:
        score = tuple(int(x) for x in args.score.split(",")) if args.score else None
    except ValueError:
        score = None
    cfg = _cfg(args, [args.spec])       # a checkpoint is probed in the game it was trained for
    want = 2 if cfg.ruleset().mode == "teams" else 3
    if args.score and (score is None or len(score) != want):
        ap.error(f"--score {args.score!r}: expected MINE,THEIRS, e.g. 20,10" if want == 2 else
                 f"--score {args.score!r}: expected MINE,NEXT,AFTER (three players, from the "
                 f"probed one in play order), e.g. 8,10,6")
    sit = probe.ProbeSituation(hand=args.hand.split(), players=cfg.players, rules=cfg.rules,
                               target=cfg.target, flor=cfg.flor, pica_pica=cfg.pica_pica,
                               mano=args.mano, score=score,
                               muestra=args.muestra, seed=args.seed, seat=args.seat,
                               actions=(args.played.split() + args.calls.split()
                                        + args.actions.split()))
    agent = tournament.load_agent(args.spec, args.seed)
    result = probe.probe(agent, sit, samples=args.samples)
    print(report.probe_markdown(args.spec, result, args.samples))
    if args.out:
        folder = report.out_dir(args.out, "probe")
        report.write_probe(args.spec, result, vars(sit), args.samples, folder)
        print(folder)
    return 0


def cmd_exploit(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py exploit", description="Approximate "
                                 "exploitability: train a PPO best response against a frozen "
                                 "agent (train.py, run as a subprocess) and measure it "
                                 "(Timbers et al. 2020).")
    ap.add_argument("spec")
    ap.add_argument("--budget", default="20m", help="training time, e.g. 20m, 90s, 1h")
    ap.add_argument("--eval-matches", type=int, default=500,
                    help="duplicate pairs of the final measurement")
    ap.add_argument("--num-envs", type=int, default=256)
    ap.add_argument("--num-steps", type=int, default=32)
    ap.add_argument("--eval-every", type=int, default=5,
                    help="training iterations between learning-curve evaluations")
    ap.add_argument("--eval-games", type=int, default=128,
                    help="matches per learning-curve evaluation")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="more train.py config overrides for the best response")
    _run_args(ap)
    _game_args(ap)
    _backend_args(ap, "the final measurement's duplicate pairs (the training runs here)")
    args = ap.parse_args(argv)
    budget = exploit.parse_budget(args.budget)
    folder = report.out_dir(args.out, "exploit")
    res = exploit.run_exploit(args.spec, _cfg(args, [args.spec]), folder, budget,
                              eval_matches=args.eval_matches, seed=args.seed,
                              workers=args.workers, progress=not args.no_progress,
                              eval_games=args.eval_games, num_envs=args.num_envs,
                              num_steps=args.num_steps, eval_every=args.eval_every,
                              overrides=args.set, backend=args.backend,
                              ray_address=args.ray_address,
                              script=Path(__file__).resolve().parent / "train.py")
    print(report.write_exploit(args.spec, res["curve"], res["run"], res["final"], folder, budget))
    print(folder)
    return 0


def cmd_senas(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py senas", description="Señas (issue 13) on "
                                 "duplicate deals: the value of the channel (the same policy "
                                 "with and without it), what catching is worth to the rivals, "
                                 "and the señas' honesty (truthful share; mutual information "
                                 "with the hand), with plots.")
    ap.add_argument("spec", nargs="?", default="heuristic")
    ap.add_argument("--senas", default=None, choices=("traditional", "learned"),
                    help="the señas played (default: the checkpoint's, else traditional)")
    ap.add_argument("--sena-tokens", dest="sena_tokens", type=int, default=None)
    ap.add_argument("--sena-catch", dest="sena_catch", type=float, default=None)
    ap.add_argument("--honesty-matches", type=int, default=None,
                    help="self-play matches whose señas are collected (default matches / 4)")
    _run_args(ap)
    _game_args(ap)
    args = ap.parse_args(argv)
    import dataclasses
    cfg = _cfg(args, [args.spec])
    if args.players is None and tournament.trained_game(args.spec) is None:
        cfg = dataclasses.replace(cfg, players=4)
    knobs = {k: getattr(args, k) for k in ("senas", "sena_tokens", "sena_catch")
             if getattr(args, k) is not None}
    if cfg.senas == "off" and "senas" not in knobs:
        knobs["senas"] = "traditional"
    cfg = dataclasses.replace(cfg, **knobs)
    folder = report.out_dir(args.out, "senas")
    res = senas.senas_report(args.spec, cfg, matches=args.matches, seed=args.seed,
                             honesty_matches=args.honesty_matches)
    import json
    (folder / "senas.json").write_text(json.dumps(res, indent=1))
    text = senas.report_text(res)
    plots = senas.plot(res, folder)
    (folder / "report.md").write_text(text + "\n\n" + "\n".join(
        f"![{Path(p).stem}]({Path(p).name})" for p in plots) + "\n")
    print(text)
    print("wrote: " + ", ".join([str(folder / "senas.json"), str(folder / "report.md"), *plots]))
    print(folder)
    return 0


def cmd_nashconv(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py nashconv", description="Exact "
                                 "exploitability (NashConv, points per hand) on small Truco "
                                 "through OpenSpiel (needs the openspiel extra); the spec cfr "
                                 "is OpenSpiel's CFR+ equilibrium, reported over iterations.")
    ap.add_argument("specs", nargs="*", help="agent specs (checkpoint:PATH, heuristic, "
                                             "random...) or cfr")
    ap.add_argument("--curve", nargs="+", default=(), metavar="RUN",
                    help="train.py run folders: NashConv of each kept checkpoint (train.py "
                         "keep_every=K), plotted against seconds next to CFR+'s curve")
    ap.add_argument("--deck", default="7", help="a small deck name (7, 8) or cards")
    ap.add_argument("--calls", default=None, help="calls in play, e.g. 'envido truco' "
                                                  "(default: small Truco's)")
    ap.add_argument("--iterations", type=int, default=200, help="CFR+ iterations")
    ap.add_argument("--every", type=int, default=20, help="CFR+ iterations between NashConvs")
    ap.add_argument("--out", default=None, help="output folder (default outputs/nashconv-<time>/)")
    args = ap.parse_args(argv)
    if not args.specs and not args.curve:
        ap.error("give agent specs, cfr or --curve RUN")
    from evaluation import nashconv
    folder = report.out_dir(args.out, "nashconv")
    calls = None if args.calls is None else tuple(args.calls.replace("+", " ").split())
    print(nashconv.run(args.specs, folder, deck=args.deck, calls=calls,
                       iterations=args.iterations, every=args.every, log=print,
                       curves=args.curve))
    print(folder)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv.pop(0) if argv and argv[0] in COMMANDS else "tournament"
    run = {"tournament": cmd_tournament, "bluff": cmd_bluff, "probe": cmd_probe,
           "exploit": cmd_exploit, "senas": cmd_senas, "nashconv": cmd_nashconv}[command]
    try:
        return run(argv)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
