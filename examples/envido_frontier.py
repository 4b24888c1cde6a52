"""What a static envido strategy can take from the heuristic family, and what it gives away.

The solved envido's subgame (``agents.solved_envido``: argentino 1v1 without flor, the envido
calls and answers of one hand, payoffs in match win probability at every score) prices any
strategy two ways: its NashConv (what a best response gains over it, as the mano plus as the
pie) and its value against the training family's observed envido (``observed_for``: the
heuristic and its training styles, full confidence).  This prints both for the data-biased
responses at each ``--n0`` (the frontier that ``robust_for`` traces: a smaller ``n0`` trusts
the family more) and for the equilibrium, at the score 0-0 and averaged over the scores::

    python examples/envido_frontier.py --target 30 --n0 20 15 10 5 2 --mixes

``--mixes`` adds strategies that take the boldest response (the last ``--n0``) at some nodes
and the first at the others (at our openings, at answers to the opening call, at every
answer): node-wise mixtures of two responses are not on the frontier, so a mixture that keeps
the bold openings does not keep the bold response's exploitability either.

``--kinds A B C`` (repeatable) adds one data-biased response solved with a confidence of its
own at each kind of the opponent's decision (``Node.calls``): ``n0`` A at his openings, B at
his answers to our opening call, C at his answers to our raises (``inf``: the equilibrium
there).  Unlike a mixture it is one consistent solve, so it asks whether trusting the family
at one kind of decision only is a better trade than one ``n0`` everywhere (session 38: no).

What a 30-minute best response wins in the full game at each point is measured in
docs/training.md (session 34); the subgame's figures rank strategies in minutes, not hours.
"""
from __future__ import annotations

import argparse

from agents import solved_envido as SE

#: The node-wise mixtures of ``--mixes``: a name and which nodes take the bold response.
MIXES = {
    "bold openings and first answers": lambda n: n.calls <= 1,
    "bold openings": lambda n: n.calls == 0,
    "bold first answers": lambda n: n.calls == 1,
    "bold answers": lambda n: n.calls >= 1,
}


def by_kind(target: int, n0s: tuple[float, float, float],
            matches: int = SE.ROBUST_DEFAULTS["matches"], iterations: int = 300) -> list:
    """The data-biased response (:func:`agents.solved_envido.robust_solve`) whose confidence
    in the family model is that of ``n0s[k]`` at the opponent's decisions with ``k`` calls
    pending (``Node.calls``, 2 or more counted as 2; ``inf``: no confidence, the equilibrium's
    play there), per node ``[A, S, K]``."""
    game = SE.subgame_for(target)
    eq = SE.solution_for(target).per_action()
    observed = SE.observed_for(target, matches)
    per_kind = [observed.model(eq, 0.0, 1.0) if n0 == float("inf")
                else observed.model(eq, 1.0, n0) for n0 in n0s]
    kind = [min(n.calls, 2) for n in game.nodes]
    model = [per_kind[k][0][i] for i, k in enumerate(kind)]
    conf = [per_kind[k][1][i] for i, k in enumerate(kind)]
    return SE.robust_solve(game, model, conf, iterations).per_action()


def kinds_name(n0s) -> str:
    """The row name of a :func:`by_kind` response."""
    return "n0 open/answer/raise=" + "/".join(f"{x:g}" for x in n0s)


def frontier(target: int, n0s: list[float], matches: int = SE.ROBUST_DEFAULTS["matches"],
             mixes: bool = False, kinds: list | None = None) -> list[dict]:
    """Rows ``{name, nash_conv_00, nash_conv_mean, family_00, family_mean}``: per strategy,
    its NashConv and its value against the family model (match win probability as the mano
    plus as the pie, minus 1: 0 is even) at 0-0 and averaged over the score states."""
    game = SE.subgame_for(target)
    eq = SE.solution_for(target).per_action()
    # The family's observed strategy itself (the equilibrium where it never acted); the
    # confidence that model() also returns is the data-biased solver's, not used here.
    family, _ = SE.observed_for(target, matches).model(eq, 1.0, 1.0)
    strategies = {"equilibrium": eq}
    for n0 in n0s:
        strategies[f"n0={n0:g}"] = SE.robust_for(target, n0=n0, matches=matches).per_action()
    if mixes and len(n0s) >= 2:
        safe, bold = strategies[f"n0={n0s[0]:g}"], strategies[f"n0={n0s[-1]:g}"]
        for name, rule in MIXES.items():
            strategies[name] = [b if rule(n) else s for n, b, s in zip(game.nodes, bold, safe)]
    for n0k in kinds or []:
        strategies[kinds_name(n0k)] = by_kind(target, tuple(n0k), matches)
    rows = []
    for name, strat in strategies.items():
        nc = SE.nash_conv(game, strat)
        fam = SE.value_against(game, strat, family) - 1.0
        rows.append({"name": name, "nash_conv_00": float(nc[0]),
                     "nash_conv_mean": float(nc.mean()), "family_00": float(fam[0]),
                     "family_mean": float(fam.mean())})
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", type=int, default=30, help="match target (default 30)")
    ap.add_argument("--n0", type=float, nargs="+", default=[20.0, 15.0, 10.0, 5.0, 2.0],
                    help="data-biased responses to price, safest first (default 20 15 10 5 2)")
    ap.add_argument("--matches", type=int, default=SE.ROBUST_DEFAULTS["matches"],
                    help="matches of the family observed (default %(default)s)")
    ap.add_argument("--mixes", action="store_true",
                    help="add node-wise mixtures of the first and last --n0 responses")
    ap.add_argument("--kinds", type=float, nargs=3, action="append", metavar=("OPEN", "ANSWER",
                    "RAISE"), help="add a response with its own n0 at the opponent's openings, "
                    "answers to our opening and answers to our raises (inf: the equilibrium "
                    "there); repeatable")
    args = ap.parse_args(argv)
    if any(n <= 0 for n in args.n0):
        ap.error(f"--n0 {args.n0}: expected positive numbers")
    for k in args.kinds or []:
        if any(not n > 0 for n in k):
            ap.error(f"--kinds {' '.join(f'{x:g}' for x in k)}: expected three positive "
                     f"numbers (or inf)")
    print(f"pricing the equilibrium and {len(args.n0)} responses"
          f"{' and their mixtures' if args.mixes else ''}"
          f"{f' and {len(args.kinds)} by kind' if args.kinds else ''} (solves are cached "
          f"on disk; an uncached one takes up to a minute)", flush=True)
    rows = frontier(args.target, args.n0, args.matches, args.mixes, args.kinds)
    print(f"{'strategy':34s} {'NashConv 0-0':>13s} {'mean':>8s} {'vs family 0-0':>14s} "
          f"{'mean':>8s}")
    for r in rows:
        print(f"{r['name']:34s} {r['nash_conv_00']:13.4f} {r['nash_conv_mean']:8.4f} "
              f"{r['family_00']:+14.4f} {r['family_mean']:+8.4f}")


if __name__ == "__main__":
    main()
