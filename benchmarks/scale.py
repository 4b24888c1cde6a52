"""How far train.py's Ray backend scales on this machine: the rollout throughput of one worker,
the learner's update throughput on its own, end-to-end runs of the local backend and of Ray with
1 and 2 workers, and the worker count at which the learner saturates.

    python benchmarks/scale.py                         # configs/default.yaml, 3M steps a run
    python benchmarks/scale.py --device cuda           # the learner's update on a GPU
    python benchmarks/scale.py --steps 0               # the two throughputs only

(a) one :class:`training.worker.RolloutWorker` with ``num_envs / 2`` games (a worker's share at
``workers=2``), one torch thread, the config's network with random weights: environment steps
per second and learner transitions per second (a transition is a learner decision; opponents'
decisions are not trained).  (b) :func:`training.ppo.ppo_update` on ``--device`` on a synthetic
batch as large as a rollout of the config gives (``num_envs * num_steps`` times the learner
fraction measured in (a)): transitions per second of update.  (c) ``python train.py`` (a
fresh process each, one after the other), the same config, steps and ``device`` for each
backend (no evaluation, checkpoints as configured); SPS as train.py reports it, and as a ratio
to the local backend.  (d) The model: a synchronous
iteration is a rollout (the workers in parallel) then an update, so ``w`` workers give
``1 / (1 / (w * r) + 1 / u)`` transitions per second, with ``r`` a worker's and ``u`` the
learner's rate; the learner saturates (the update takes as long as the rollout, and more workers
can at most halve the iteration) at ``w = u / r``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from training.config import DEFAULT_CONFIG, make_config, parse_overrides, read_yaml

ROOT = Path(__file__).resolve().parents[1]


def rollout_rate(cfg, envs: int, rollouts: int) -> tuple[float, float]:
    """(env steps/s, learner transitions per env step) of one worker with ``envs`` games."""
    import torch
    from training.pool import Pool, make_baselines
    from training.shaping import win_potential
    from training.worker import RolloutWorker
    torch.set_num_threads(1)
    potential = (win_potential(cfg, make_baselines(cfg).get("heuristic"))
                 if cfg.winprob_reward else None)
    worker = RolloutWorker(cfg, envs, potential=potential)
    worker.set_models(worker.make_net())
    sync = {"pool": Pool(cfg, {}, np.random.default_rng(0)).sync_message(set()),
            "exploiter_born": 0}
    worker.rollout(sync)                           # warm-up: numba, carried transitions
    t0, trained = time.perf_counter(), 0
    for _ in range(rollouts):
        trained += len(worker.rollout(sync).batch)
    steps = envs * cfg.num_steps * rollouts
    return steps / (time.perf_counter() - t0), trained / steps


def update_rate(cfg, batch_size: int, device: str, updates: int, threads: int) -> float:
    """Transitions per second of ``ppo_update`` on a synthetic batch of ``batch_size``."""
    import torch
    from agents.ppo_policy import PolicyNet
    from training.ppo import ppo_update
    from training.rollout import Batch
    from training.worker import make_env, net_args
    torch.set_num_threads(threads)
    probe = make_env(cfg, 1, 0)
    D, A = probe.observation_size, probe.num_actions
    rng = np.random.default_rng(0)
    mask = rng.random((batch_size, A)) < 0.5
    mask[:, 0] = True
    batch = Batch({"obs": rng.random((batch_size, D), dtype=np.float32), "mask": mask,
                   "act": np.zeros(batch_size, np.int64),
                   "logp": np.full(batch_size, -1.0, np.float32),
                   "hid": np.zeros((batch_size, 0), np.float32)},
                  rng.standard_normal(batch_size).astype(np.float32),
                  rng.standard_normal(batch_size).astype(np.float32),
                  rng.standard_normal(batch_size).astype(np.float32))
    net = PolicyNet(*net_args(cfg, probe)).to(device)
    params = list(net.parameters())
    opt = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
    ppo_update(cfg, net, None, opt, params, batch)          # warm-up
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    sync()
    t0 = time.perf_counter()
    for _ in range(updates):
        ppo_update(cfg, net, None, opt, params, batch)
    sync()
    return batch_size * updates / (time.perf_counter() - t0)


def end_to_end(config: str, values: dict, steps: int) -> float:
    """train.py's SPS (its ``summary.json``) for ``config`` with ``values`` on top (a fresh
    process, as a user runs it; scripts do not import scripts)."""
    with tempfile.TemporaryDirectory() as tmp:
        values = {**values, "total_steps": steps, "runs_dir": tmp, "run_name": "b",
                  "eval_every": 0, "final_eval_games": 0, "progress": False,
                  "tensorboard": False}
        cmd = [sys.executable, "train.py", "--config", config]
        subprocess.run(cmd + [f"{k}={json.dumps(v)}" for k, v in values.items()], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL)
        return float(json.loads(Path(tmp, "b", "summary.json").read_text())["SPS"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(DEFAULT_CONFIG))
    ap.add_argument("--device", default="cpu", help="the learner's device in (b) and (c): "
                                                    "cpu, cuda")
    ap.add_argument("--steps", type=float, default=3e6,
                    help="environment steps of each end-to-end run (0 = skip (c))")
    ap.add_argument("--rollouts", type=int, default=5, help="timed rollouts in (a)")
    ap.add_argument("--updates", type=int, default=3, help="timed updates in (b)")
    ap.add_argument("overrides", nargs="*", metavar="key=value")
    args = ap.parse_args()
    values = {**read_yaml(args.config), **parse_overrides(args.overrides)}
    cfg = make_config(values)
    threads = cfg.threads or os.cpu_count() or 1

    envs = cfg.num_envs // 2
    steps_r, fraction = rollout_rate(cfg, envs, args.rollouts)
    r = steps_r * fraction
    batch = int(cfg.num_envs * cfg.num_steps * fraction)
    u = update_rate(cfg, batch, args.device, args.updates, threads)
    print(f"config {os.path.relpath(args.config)}: num_envs {cfg.num_envs}, num_steps "
          f"{cfg.num_steps}, hidden {cfg.hidden}, update_epochs {cfg.update_epochs}, "
          f"minibatch {cfg.minibatch_size}; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.2f}")
    print(f"(a) one worker, {envs} games, 1 thread: {steps_r:,.0f} env steps/s, "
          f"{r:,.0f} learner transitions/s (learner fraction {fraction:.2f})")
    print(f"(b) learner update on {args.device} ({threads} threads on a CPU), batch of "
          f"{batch:,} transitions x {cfg.update_epochs} epochs: {u:,.0f} transitions/s")
    if args.steps > 0:
        config = os.path.abspath(args.config)
        extra_values = {**parse_overrides(args.overrides), "device": args.device}
        runs = [("local", {}), ("ray, 1 worker", {"backend": "ray", "workers": 1}),
                ("ray, 2 workers", {"backend": "ray", "workers": 2})]
        sps = [(name, end_to_end(config, {**extra_values, **extra}, int(args.steps)))
               for name, extra in runs]
        print(f"(c) end to end, {args.steps:,.0f} steps a run (SPS; ratio to local):")
        for name, s in sps:
            print(f"    {name:<16}{s:>10,.0f} env steps/s{s / sps[0][1]:>8.2f}")
    print(f"(d) model: an iteration is a rollout on w workers in parallel, then the update, so "
          f"w workers train 1 / (1/(w*r) + 1/u) transitions/s (r = {r:,.0f} a worker, u = "
          f"{u:,.0f} the learner); the learner saturates (its update takes as long as the "
          f"rollout; past it more workers at most halve an iteration) at w = u / r = "
          f"{u / r:.1f} workers")


if __name__ == "__main__":
    main()
