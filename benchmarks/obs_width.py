"""What the compact observation's width costs the learner: the policy's forward pass (one
rollout step of ``--games`` games) and one PPO minibatch update (``--minibatch`` rows) of three
networks in the same process, one torch thread: one reading every column of this layout, one
skipping the pieces a 1v1 game never fills (``PolicyNet(skip=dead_pieces(...))``, what
``train.py`` builds), and one of an older layout's width (``--layout``, default 3: before the
pica-pica, three-player and señas pieces).  The peers
are printed too: a vector env step under random play and the heuristic's ``act_batch``.

    python benchmarks/obs_width.py [--layout 3] [--games 1024] [--minibatch 4096]

Read the ratios: shared machines make the milliseconds noisy.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import truco_env
from agents.heuristic import HeuristicAgent
from agents.ppo_policy import PolicyNet
from truco_env.observe import LAYOUT_VERSION, dead_pieces, legacy_columns


def ms(f, n: int = 30) -> float:
    f()
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layout", type=int, default=3, help="the older layout version to compare")
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--minibatch", type=int, default=4096)
    args = ap.parse_args()
    torch.set_num_threads(1)
    venv = truco_env.VectorTrucoEnv(args.games, seed=0, check_actions=False)
    obs, _ = venv.reset()
    o, m = obs["observation"], obs["action_mask"]
    rng = np.random.default_rng(0)

    def env_step() -> None:
        mask = venv_obs[0]["action_mask"]
        venv_obs[0], *_ = venv.step((rng.random(mask.shape, dtype=np.float32) + mask).argmax(1))

    venv_obs = [obs]
    print(f"vector env step, random play, {args.games} games: {ms(env_step):.2f} ms")
    heuristic = HeuristicAgent(seed=0)
    print(f"heuristic act_batch, {args.games} rows: {ms(lambda: heuristic.act_batch(o, m)):.2f} ms")
    cols = legacy_columns("compact", args.layout)
    skip = dead_pieces(venv.rules, venv.players)
    nets = {  # name -> (network, the observations it is given)
        f"layout {LAYOUT_VERSION}, every column": (PolicyNet(o.shape[1], m.shape[1]), o),
        f"layout {LAYOUT_VERSION}, live columns": (PolicyNet(o.shape[1], m.shape[1], skip=skip), o),
        f"layout {args.layout}": (PolicyNet(len(cols), m.shape[1]), np.ascontiguousarray(o[:, cols])),
    }
    out = {}
    for name, (net, x) in nets.items():
        xt, mt = torch.from_numpy(x), torch.from_numpy(m.astype(bool))
        with torch.no_grad():
            fwd = ms(lambda: net(xt, mt))
        opt = torch.optim.Adam(net.parameters())
        xb = torch.randn(args.minibatch, x.shape[1])
        mb = torch.ones(args.minibatch, m.shape[1], dtype=torch.bool)

        def update() -> None:
            logits, value = net(xb, mb)
            (logits.logsumexp(-1).mean() + value.mean()).backward()
            opt.step()
            opt.zero_grad()

        out[name] = (net.trunk[0].in_features, fwd, ms(update, 10))
    _, f0, u0 = out[f"layout {args.layout}"]
    print(f"policy forward ({args.games} rows) and PPO minibatch update ({args.minibatch} rows), "
          f"ratios to layout {args.layout}'s width:")
    for name, (inputs, fwd, upd) in out.items():
        print(f"  {name:<32} {inputs:>4} inputs  forward {fwd:6.2f} ms ({fwd / f0:.2f})  "
              f"update {upd:6.2f} ms ({upd / u0:.2f})")


if __name__ == "__main__":
    main()
