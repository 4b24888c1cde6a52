"""Where one rollout worker's time goes: the shares of a default-config rollout spent in the
heuristic family's ``act_batch`` (the heuristic and the training styles, one call per
opponent per step), the policy's forward pass and sampling, the environment step (rules core
and encoder) and the transition buffer, measured with cProfile in one process.

    python benchmarks/rollout_profile.py [--config configs/default.yaml] [--rollouts 4]
                                         [--threads 2] [--top 0]

The shares are ratios of one run to itself; cProfile's overhead inflates the many small
Python calls a little, so read them against each other, not as absolute times.  ``--top N``
also prints cProfile's N most expensive functions.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

from training.config import DEFAULT_CONFIG, make_config, read_yaml

#: (label, file suffix, function name) of the parts reported, by cumulative time.
PARTS = (
    ("heuristic family act_batch", "agents/heuristic.py", "act_batch"),
    ("random act_batch", "agents/base.py", "act_batch"),
    ("policy forward (learner)", "training/worker.py", "_sample"),
    ("environment step + encoder", "truco_env/vector.py", "step"),
    ("buffer add", "training/rollout.py", "add"),
    ("buffer batch (copy out, GAE)", "training/rollout.py", "batch"),
    ("opponent draws (pool.sample)", "training/pool.py", "sample"),
)


def main() -> None:
    import torch
    from training.pool import Pool, make_baselines
    from training.shaping import win_potential
    from training.worker import RolloutWorker
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default=str(DEFAULT_CONFIG))
    ap.add_argument("--rollouts", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--top", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg = make_config(read_yaml(args.config))
    potential = (win_potential(cfg, make_baselines(cfg).get("heuristic"))
                 if cfg.winprob_reward else None)
    worker = RolloutWorker(cfg, cfg.num_envs, potential=potential)
    worker.set_models(worker.make_net())
    sync = {"pool": Pool(cfg, {}, np.random.default_rng(0)).sync_message(set()),
            "exploiter_born": 0}
    worker.rollout(sync)                     # warm-up: numba, carried transitions
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for _ in range(args.rollouts):
        worker.rollout(sync)
    prof.disable()
    wall = time.perf_counter() - t0
    steps = cfg.num_envs * cfg.num_steps * args.rollouts
    stats = pstats.Stats(prof)
    total = max(v[3] for (f, _, name), v in stats.stats.items() if name == "rollout")
    print(f"{args.config}: {cfg.num_envs} games, {args.rollouts} rollouts of {cfg.num_steps} "
          f"steps, {args.threads} torch threads: {steps / wall:,.0f} steps/s under cProfile")
    for label, suffix, func in PARTS:
        cum = sum(v[3] for (f, _, name), v in stats.stats.items()
                  if name == func and f.replace("\\", "/").endswith(suffix))
        calls = sum(v[1] for (f, _, name), v in stats.stats.items()
                    if name == func and f.replace("\\", "/").endswith(suffix))
        print(f"  {label:<32} {cum / total:6.1%} of the rollout  ({calls} calls, "
              f"{1000 * cum / max(calls, 1):.2f} ms a call)")
    if args.top:
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
