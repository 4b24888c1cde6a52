"""What an average policy (``checkpoint:PATH,average=K``, :class:`agents.ppo_policy.
AveragePolicyAgent`) costs a player: ``act_batch`` on one rollout step of ``--games`` games for
the plain policy (one network) and averages of K networks, in the same process, one torch
thread, the default config's network (hidden 256, 128; the 1v1 game's live columns).  The peer
is a vector env step under random play, so the ratios say what share of a best response's
rollout (evaluate.py exploit) the opponent's forward passes take.

    python benchmarks/average_policy.py [--games 1024] [--k 1 4 8 16]

Read the ratios: shared machines make the milliseconds noisy.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

from agents.ppo_policy import AveragePolicyAgent, PolicyAgent, PolicyNet
from truco_env.observe import dead_pieces

from _timing import env_step_peer, ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--k", type=int, nargs="+", default=[1, 4, 8, 16],
                    help="networks averaged (1: the plain policy)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    env, o, base = env_step_peer(args.games, rng)
    obs, mask = o["observation"], o["action_mask"]
    skip = dead_pieces(env.rules, 2)
    nets = [PolicyNet(obs.shape[1], mask.shape[1], (256, 128), skip=skip) for _ in range(max(args.k))]
    plain = None
    for k in args.k:
        agent = PolicyAgent(nets[0], seed=0) if k == 1 else AveragePolicyAgent(nets[:k], seed=0)
        t = ms(lambda: agent.act_batch(obs, mask))
        plain = plain or t
        print(f"K={k:2d}: act_batch {t:6.2f} ms = {t / plain:5.2f}x the plain policy, "
              f"{t / base:5.2f}x an env step")


if __name__ == "__main__":
    main()
