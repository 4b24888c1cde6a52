"""How often an opponent folds to an agent's truco songs, read as the match goes on.

The truco read (``truco_reads``, layout 7) shows every player how often each other player folded
(no quiero) when the other side sang truco, retruco or vale cuatro earlier in the
match.  A truco gate (``truco_answers:NAME,gate=G:BASE``, :mod:`agents.truco_answers`) hands the
agent's own songs to the answerer's network while the opponents' read is under ``G``.  This
measures what such a gate sees, by opponent::

    python examples/truco_reads.py checkpoint:runs/fam.pt heuristic random \\
        heuristic:style=trapper --matches 200

The agent plays ``--matches`` matches from each seat against each opponent (1v1 argentino
without flor, match to 30).  Per opponent it prints the opponent's fold rate over the whole
match (pooled over matches, with a 95% Wilson interval), the read ``(folds + 1) / (answers + 2)``
at the end of the matches (quartiles), and, at the agent's own songs (not answers), the share
made while the read was under each gate in ``--gates``, with the mean read there.
"""
from __future__ import annotations

import argparse

import numpy as np

import agents
from agents.truco_answers import SONGS, fold_read, truco_answering
from evaluation.stats import wilson
from truco_env import core as C
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.observe import Encoder
from truco_env.rules import get_rules

ENC = Encoder("compact")


def truco_reads(spec: str, opponent: str, matches: int, seed: int = 0) -> dict:
    """``{"answers", "folds", "final_reads": float[...], "song_reads": float[...]}``: the
    opponent's answers to the agent's truco songs and folds among them (whole matches, both
    seatings), its read at each match's end, and the read at each of the agent's own songs."""
    rules = get_rules("argentino", target=30, flor=False)
    me, opp = agents.load(spec, seed=seed + 1), agents.load(opponent, seed=seed + 2)
    answers = folds = 0
    final, songs = [], []
    for half in (0, 1):                          # the agent in seat 0, then in seat 1
        game = Matches(matches, 2, rules)
        game.reset(seed=seed + 100 + half)
        mine = half                              # the agent's seat in every game

        def on_decision(g, rows, actions, mask):
            rows = rows[g.S[rows, C.ACTOR] == mine]
            if len(rows):
                obs = ENC.encode(g.S[rows], g.tables, g.S[rows, C.ACTOR])
                sing = np.isin(actions[rows], SONGS) & ~truco_answering(obs, mask[rows])
                songs.extend(fold_read(obs[sing]).tolist())

        players = [me, opp] if half == 0 else [opp, me]
        play(game, players, on_decision=on_decision)
        r = C.READS + C.READ_N * (1 - mine)
        a = game.S[:, r + C.READ_TRUCO_ANS].astype(np.int64)
        f = game.S[:, r + C.READ_TRUCO_FOLD].astype(np.int64)
        answers += int(a.sum())
        folds += int(f.sum())
        final.extend(((f + 1) / (a + 2)).tolist())
    return {"answers": answers, "folds": folds, "final_reads": np.array(final),
            "song_reads": np.array(songs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="agent spec (agents.load)")
    ap.add_argument("opponents", nargs="+", help="opponent specs")
    ap.add_argument("--matches", type=int, default=200, help="matches per seat and opponent")
    ap.add_argument("--gates", type=float, nargs="+", default=[0.3, 0.4, 0.5],
                    help="gates to report the share of songs under")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for opp in args.opponents:
        r = truco_reads(args.agent, opp, args.matches, args.seed)
        n = max(r["answers"], 1)
        lo, hi = wilson(r["folds"] / n, n)
        q = np.percentile(r["final_reads"], [25, 50, 75])
        s = r["song_reads"]
        under = "  ".join(f"<{g:g}: {np.mean(s < g):.0%}" for g in args.gates) if len(s) else "-"
        print(f"{opp}: folds {r['folds']}/{r['answers']} = "
              f"{r['folds'] / max(r['answers'], 1):.1%} ({lo:.1%}-{hi:.1%}); final read "
              f"quartiles {q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}; {len(s)} songs, mean read "
              f"{s.mean() if len(s) else float('nan'):.2f}, under gate {under}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
