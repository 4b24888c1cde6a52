"""How an agent answers the falta envidos an opponent sings at it, by its own envido points.

The best responses of ``evaluate.py exploit`` win their points by singing falta envido on
anything at a policy that folds it (docs/training.md); this measures that hole directly::

    python examples/falta_answers.py checkpoint:runs/hunt_s9 \\
        checkpoint:runs/exploit_hunt_s9/best_response/checkpoints/latest.pt --matches 200

Both agents play ``--matches`` matches from each seat (1v1 argentino without flor, match to
30, the games the default config trains on); every envido decision of the agent in which the
chain holds a falta (opened or raised) is counted, with the share it accepted (95% Wilson
intervals), by the match score when it was sung: both sides in malas (15 or less: the
falta is the match), the agent ahead in buenas, the agent behind (or level) in buenas, and by
the singer's own envido points (the range it sings falta with: value or bluff).  It
reads :class:`evaluation.bluff.EventLog`, the log of ``evaluate.py bluff``, and the score of
each decision alongside it.
"""
from __future__ import annotations

import argparse

import numpy as np

import agents
from evaluation.bluff import CTX_ENVIDO, EventLog
from evaluation.stats import wilson
from truco_env import core as C
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.rules import ACTION_ID, ENVIDO_CHAIN, get_rules

BANDS = ((0, 23), (24, 26), (27, 29), (30, 33))
#: The score situations of a falta (rules: both in malas, the falta is the match; else it is
#: worth what the leader lacks).
SITUATIONS = ("both in malas", "ahead in buenas", "behind or level in buenas")


def falta_answers(spec: str, opponent: str, matches: int, seed: int = 0) -> dict:
    """``{"hands", "won", "faced", "accepted", "bands": {(lo, hi): (faced, accepted)},
    "situations": {name: (faced, accepted)} (:data:`SITUATIONS`),
    "singer_bands": {(lo, hi): (faced, accepted)} (by the singer's points, :data:`BANDS`),
    "opponent_faced", "opponent_accepted"}`` of ``spec`` against ``opponent``."""
    rules = get_rules("argentino", target=30, flor=False)
    me, opp = agents.load(spec, seed=seed + 1), agents.load(opponent, seed=seed + 2)
    log, won, scores = EventLog(), 0, []
    target = int(rules.target)
    for half in (0, 1):                         # the agent in seat 0, then in seat 1
        game = Matches(matches, 2, rules)
        game.reset(seed=seed + 100 + half)
        seat_agent = np.tile([half, 1 - half], (matches, 1))   # 0 = the agent
        watch = log.watch(np.arange(matches) + half * matches, seat_agent)

        def on_decision(g, rows, actions, mask, watch=watch):
            watch.on_decision(g, rows, actions, mask)
            if len(rows):     # per log row: the decider's score, its rival's, the rival's points
                actor = g.S[rows, C.ACTOR]
                team = g.S[rows, C.TEAM + actor]      # the core's seat table
                scores.append(np.stack([g.S[rows, C.SCORE + team],
                                        g.S[rows, C.SCORE + 1 - team],
                                        g.S[rows, C.ENVIDO_PTS + 1 - actor]], axis=1))

        result = play(game, [me, opp] if half == 0 else [opp, me],
                      on_decision=on_decision, on_hand_end=watch.on_hand_end)
        won += int((result.winner == half).sum())
    ev, _ = log.tables()
    falta = np.array([q < 0 for _, q, _ in ENVIDO_CHAIN])[ev["chain"]]   # the table's falta
    answer = (ev["ctx"] == CTX_ENVIDO) & falta
    accept = ev["action"] == ACTION_ID["quiero"]
    mine, theirs = answer & (ev["agent"] == 0), answer & (ev["agent"] == 1)
    pts = ev["envido"]

    def split(groups: dict) -> dict:
        """``{key: (faced, accepted)}`` of the agent's faltas in each group (a row mask)."""
        return {k: (int((mine & m).sum()), int((mine & accept & m).sum()))
                for k, m in groups.items()}

    def in_bands(points: np.ndarray) -> dict:
        """``{(lo, hi): row mask}`` of :data:`BANDS` over a column of envido points."""
        return {b: (points >= b[0]) & (points <= b[1]) for b in BANDS}

    bands = split(in_bands(pts))
    logged = np.concatenate(scores) if scores else np.zeros((0, 3), np.int64)
    sc, rival = logged[:, :2], logged[:, 2]            # 1v1: the rival seat sang the falta
    malas = (sc <= target // 2).all(axis=1)     # halves of target // 2 (RuleSet.has_buenas)
    where = np.where(malas, 0, np.where(sc[:, 0] > sc[:, 1], 1, 2))
    situations = split({name: where == i for i, name in enumerate(SITUATIONS)})
    singer = split(in_bands(rival))
    return {"hands": len(np.unique(ev["gid"] * 1000 + ev["hand_no"])), "won": won / (2 * matches),
            "faced": int(mine.sum()), "accepted": int((mine & accept).sum()), "bands": bands,
            "situations": situations, "singer_bands": singer,
            "opponent_faced": int(theirs.sum()), "opponent_accepted": int((theirs & accept).sum())}


def _rate(k: int, n: int) -> str:
    if n == 0:
        return "-"
    lo, hi = wilson(k / n, n)
    return f"{k / n:.1%} ({lo:.1%}-{hi:.1%})"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", help="the agent (an agents.load spec)")
    ap.add_argument("opponent", help="who sings at it (an agents.load spec)")
    ap.add_argument("--matches", type=int, default=200, help="matches from each seat")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    r = falta_answers(a.spec, a.opponent, a.matches, a.seed)
    print(f"{a.spec} against {a.opponent}: {2 * a.matches} matches, {r['hands']} hands, "
          f"the agent won {r['won']:.1%}")
    print(f"falta envidos the agent faced: {r['faced']} ({r['faced'] / r['hands']:.3f} a hand), "
          f"accepted {_rate(r['accepted'], r['faced'])}")
    for (lo, hi), (n, k) in r["bands"].items():
        print(f"  with {lo}-{hi} envido points: {n} faced, accepted {_rate(k, n)}")
    for name, (n, k) in r["situations"].items():
        print(f"  {name}: {n} faced, accepted {_rate(k, n)}")
    for (lo, hi), (n, k) in r["singer_bands"].items():
        print(f"  sung with {lo}-{hi} points: {n} faced, accepted {_rate(k, n)}")
    print(f"falta envidos the opponent faced: {r['opponent_faced']}, accepted "
          f"{_rate(r['opponent_accepted'], r['opponent_faced'])}")


if __name__ == "__main__":
    main()
