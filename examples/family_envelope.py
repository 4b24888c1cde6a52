"""Do the public reads tell the heuristic family from other opponents?

A policy that exploits the heuristic family could play safe against anyone else if it could
tell, within a match, that the opponent is not of the family (as ``adaptive_envido`` tells the
random player by his mazos).  This measures whether the opponent reads of the observation
(``reads``: envido and truco songs per hand, quiero rate, answers per hand, mazos per hand;
``truco_reads``: folds to our truco songs and those answers per hand) could do it::

    python examples/family_envelope.py POLICY --against heuristic:style=trapper random \\
        checkpoint:runs/br/checkpoints/latest.pt

POLICY plays seat 0 (1v1 argentino without flor, match to 30) against the training family
(``agents.zoo.train_specs()`` and ``--random-styles`` random styles), which gives, per stage of
the match (hands played), the family's envelope: each read's 0.5% and 99.5% quantiles at
POLICY's decisions.  Then against each ``--against`` opponent it prints, per stage, the share
of POLICY's decisions where some read lies outside the envelope (a detector that switched to a
safe policy there would fire that often) and the share for each read.
"""
from __future__ import annotations

import argparse

import numpy as np

import agents
from agents import zoo
from truco_env import VectorTrucoEnv
from truco_env import core as C
from truco_env.observe import O_READS, O_TREADS, READ_SIZE

READS = ("envido/hand", "truco/hand", "quiero", "answers/hand", "mazo/hand", "truco fold",
         "truco answers/hand")
STAGES = ((3, 5), (6, 9), (10, 99))


def opponent_reads(policy: str, opponents: list[str], steps: int, games: int = 256,
                   seed: int = 0) -> np.ndarray:
    """``float[D, 8]``: at each of ``policy``'s decisions (seat 0) the opponent's reads
    (:data:`READS`) and the hands dealt so far, the opponents spread over the games."""
    env = VectorTrucoEnv(games, flor=False, target=30, seed=seed)
    me = agents.load(policy, seed=seed)
    opps = [agents.load(s, seed=seed + 1 + i) for i, s in enumerate(opponents)]
    which = np.arange(games) % len(opps)
    obs, _ = env.reset()
    rows = []
    base = O_READS + READ_SIZE                  # relative seat 1: the opponent
    for _ in range(steps):
        o, m = obs["observation"], obs["action_mask"]
        mine = env.game.S[:, C.ACTOR] == 0
        a = np.zeros(games, np.int64)
        if mine.any():
            a[mine] = me.act_batch(o[mine], m[mine])
            hands = np.rint(o[mine, O_READS + 6 * READ_SIZE] * 20) + 1
            rows.append(np.column_stack([o[mine, base:base + 5],
                                         o[mine, O_TREADS + 2:O_TREADS + 4], hands]))
        for k, opp in enumerate(opps):
            r = ~mine & (which == k)
            if r.any():
                a[r] = opp.act_batch(o[r], m[r])
        obs, _, _, _ = env.step(a)
    return np.concatenate(rows)


def envelope(reads: np.ndarray, q: float = 0.005) -> dict:
    """Per stage of :data:`STAGES`: the ``(low, high)`` quantiles of each read."""
    out = {}
    for lo, hi in STAGES:
        x = reads[(reads[:, -1] >= lo) & (reads[:, -1] <= hi), :-1]
        out[(lo, hi)] = (np.quantile(x, q, axis=0), np.quantile(x, 1 - q, axis=0))
    return out


def outside(reads: np.ndarray, env: dict) -> dict:
    """Per stage: ``(share of decisions with any read outside, share per read, decisions)``."""
    out = {}
    for (lo, hi), (qlo, qhi) in env.items():
        x = reads[(reads[:, -1] >= lo) & (reads[:, -1] <= hi), :-1]
        off = (x < qlo) | (x > qhi)
        out[(lo, hi)] = (float(off.any(axis=1).mean()), off.mean(axis=0), len(x))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("policy", help="the agent spec at seat 0")
    ap.add_argument("--against", nargs="+", required=True, help="opponents to test")
    ap.add_argument("--random-styles", type=int, default=11,
                    help="random styles added to the training family (agents.zoo)")
    ap.add_argument("--steps", type=int, default=2500, help="env steps of 256 games each")
    args = ap.parse_args(argv)
    family = zoo.train_specs() + zoo.random_styles(args.random_styles, 0)
    env = envelope(opponent_reads(args.policy, family, args.steps))
    for (lo, hi), (qlo, qhi) in env.items():
        print(f"family, hands {lo}-{hi}: " + ", ".join(
            f"{n} [{a:.2f}, {b:.2f}]" for n, a, b in zip(READS, qlo, qhi)))
    for spec in args.against:
        res = outside(opponent_reads(args.policy, [spec], max(args.steps * 3 // 5, 1), seed=5),
                      env)
        print(f"{spec}:")
        for (lo, hi), (share, per, n) in res.items():
            worst = int(np.argmax(per))
            print(f"  hands {lo}-{hi}: outside {share:.1%} of {n} decisions "
                  f"(most: {READS[worst]} {per[worst]:.1%})")


if __name__ == "__main__":
    main()
