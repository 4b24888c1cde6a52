"""End-to-end training speed: environment steps per second of ``train.py`` (rollout plus PPO
update) on a config, against a peer measured in the same process: the same vector env stepped
by uniform random play (no network, no learning).

    python benchmarks/train_speed.py [--config configs/default.yaml] [--steps 2e6] [--threads 1 2]

The training figure is ``train.py``'s own ``SPS`` (every step of every game divided by the wall
time of the loop, evaluation and final summary switched off), read from the ``summary.json`` of
a ``python train.py`` subprocess.  Shared machines make both
figures noisy: run it twice and read the ratio more than the absolute numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from training.config import DEFAULT_CONFIG, make_config, parse_overrides, read_yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env_only_steps_per_second(cfg, seconds: float) -> float:
    """The peer: the config's vector env under random legal play."""
    from truco_env import VectorTrucoEnv

    venv = VectorTrucoEnv(cfg.num_envs, players=cfg.players, rules=cfg.rules, target=cfg.target,
                          flor=cfg.flor, check_actions=False, seed=cfg.seed)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        mask = obs["action_mask"]
        obs, *_ = venv.step((rng.random(mask.shape, dtype=np.float32) + mask).argmax(axis=1))
        steps += cfg.num_envs
    return steps / (time.perf_counter() - t0)


def train_steps_per_second(config: str, values: dict, steps: int, threads: int) -> float:
    """``train.py``'s SPS on ``config`` with ``values`` on top, in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        values = {**values, "total_steps": steps, "threads": threads, "runs_dir": tmp,
                  "run_name": "bench", "eval_every": 0, "final_eval_games": 0,
                  "progress": False, "tensorboard": False, "checkpoint_every": 10**9}
        subprocess.run([sys.executable, "train.py", "--config", config,
                        *(f"{k}={json.dumps(v)}" for k, v in values.items())],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "bench", "summary.json")) as f:
            return json.load(f)["SPS"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(DEFAULT_CONFIG))
    ap.add_argument("--steps", type=float, default=2e6, help="training steps per measurement")
    ap.add_argument("--threads", type=int, nargs="+", default=[os.cpu_count() or 1],
                    help="torch thread counts to compare")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    ap.add_argument("overrides", nargs="*", metavar="key=value")
    args = ap.parse_args()

    config = os.path.abspath(args.config)
    values = {**parse_overrides(args.overrides), "device": args.device}
    cfg = make_config({**read_yaml(config), **values})
    # warm-up (numba's cache, the file system)
    train_steps_per_second(config, values, cfg.num_envs * cfg.num_steps * 2, args.threads[0])
    results = [(t, train_steps_per_second(config, values, int(args.steps), t))
               for t in args.threads]
    peer = env_only_steps_per_second(cfg, 3.0)

    print(f"config {os.path.relpath(args.config, ROOT)}: {cfg.players} players, {cfg.rules}, "
          f"num_envs {cfg.num_envs}, num_steps {cfg.num_steps}, hidden {cfg.hidden}, "
          f"device {args.device}, {os.cpu_count()} cores")
    print(f"{'measurement':<44}{'env steps/s':>14}{'x peer':>9}")
    print(f"{'vector env, random play (peer)':<44}{peer:>14,.0f}{1.0:>9.3f}")
    for t, sps in results:
        label = f"train.py end-to-end, {t} torch thread(s)"
        print(f"{label:<44}{sps:>14,.0f}{sps / peer:>9.3f}")


if __name__ == "__main__":
    main()
