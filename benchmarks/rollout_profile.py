"""Where one rollout worker's time goes: the shares of a default-config rollout spent in the
heuristic family's ``act_many`` (the heuristic and the training styles, one vectorized call
per step for all of them), the policy's forward pass and sampling, the environment step
(rules core and encoder) and the transition buffer, measured with cProfile in one process.

    python benchmarks/rollout_profile.py [--config configs/default.yaml] [--rollouts 4]
                                         [--threads 2] [--top 0] [--rows 1024]

The shares are ratios of one run to itself; cProfile's overhead inflates the many small
Python calls a little, so read them against each other, not as absolute times.  ``--top N``
also prints cProfile's N most expensive functions.

Then, without the profiler, what ``act_many`` saves: the heuristic family's agents of the
config's pool on ``--rows`` rows of real 1v1 states, shared out as the pool draws them (by
``heuristic_weight`` and ``styles_weight``), each agent's ``act_batch`` on its rows (one call
per opponent, as the rollout did before) against one ``HeuristicAgent.act_many`` over the same
rows, printed as a ratio.
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
    ("heuristic family act_many", "agents/heuristic.py", "act_many"),
    ("random act_batch", "agents/base.py", "act_batch"),
    ("policy forward (learner)", "training/worker.py", "_sample"),
    ("environment step + encoder", "truco_env/vector.py", "step"),
    ("buffer add", "training/rollout.py", "add"),
    ("buffer batch (copy out, GAE)", "training/rollout.py", "batch"),
    ("opponent draws (pool.sample)", "training/pool.py", "sample"),
)


def separate_vs_act_many(cfg, rows: int, seconds: float = 2.0) -> None:
    """Print the time of the heuristic family's ``act_batch`` calls, one per agent, and of one
    ``act_many`` over the same rows, and their ratio (module docstring)."""
    from agents.heuristic import HeuristicAgent
    from training.pool import make_baselines, make_styles
    from truco_env import VectorTrucoEnv
    family = [("heuristic", make_baselines(cfg)["heuristic"], cfg.heuristic_weight)] + [
        (name, agent, cfg.styles_weight / len(styles))
        for styles in [make_styles(cfg)] for name, agent in sorted(styles.items())]
    venv = VectorTrucoEnv(rows, seed=0, check_actions=False)
    obs, _ = venv.reset()
    driver = HeuristicAgent(seed=0)
    for _ in range(12):                          # into the hands: trucos, envidos, bazas
        obs, *_ = venv.step(driver.act_batch(obs["observation"], obs["action_mask"]))
    o, m = obs["observation"], obs["action_mask"]
    w = np.array([x for _, _, x in family])
    who = np.random.default_rng(0).choice(len(family), size=rows, p=w / w.sum())
    parts = [(agent, np.flatnonzero(who == i)) for i, (_, agent, _) in enumerate(family)]

    def separate():
        for agent, idx in parts:
            agent.act_batch(o[idx], m[idx])

    def merged():
        HeuristicAgent.act_many(parts, o, m)

    best = {}
    for f in (separate, merged) * 3:             # interleaved, best of three rounds
        f()
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds / 6:
            f()
            n += 1
        best[f] = min(best.get(f, np.inf), (time.perf_counter() - t0) / n)
    mix = ", ".join(f"{name.split('=')[-1]} {len(idx)}" for (name, _, _), (_, idx)
                    in zip(family, parts))
    print(f"heuristic family on {rows} rows ({mix}): {len(parts)} act_batch calls "
          f"{1000 * best[separate]:.2f} ms, one act_many {1000 * best[merged]:.2f} ms: "
          f"{best[separate] / best[merged]:.2f}x")


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
    ap.add_argument("--rows", type=int, default=1024,
                    help="rows of the act_batch / act_many comparison (0: skip it)")
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
    if args.rows:
        separate_vs_act_many(cfg, args.rows)


if __name__ == "__main__":
    main()
