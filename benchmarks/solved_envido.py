"""What the solved envido (:mod:`agents.solved_envido`, train.py's ``envido=solved``) costs:
solving (CFR+ on every score state of a match to 30, once per process) against the time of a
vector env step, the robust envido's extra work (``envido=robust``: observing the training
opponents' envido, then two solves against the data-biased opponent), the adaptive envido's
on top of it (``envido=adaptive``: the response to a random player), all of it again from the
disk cache (:mod:`agents.disk_cache`: what every later process on the machine pays), and a
policy's
``act_batch`` with the solved envido against the plain policy's,
in the same process, one torch thread, the default config's network.  The batches are real
decisions: ``--games`` games after ``--steps`` random steps from the deal (the first steps hold
the envido decisions; later ones hold none, so the mix matters).

    python benchmarks/solved_envido.py [--games 1024] [--iterations 300]

Read the ratios: shared machines make the milliseconds noisy.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import torch

from agents.base import sample_legal
from agents.ppo_policy import PolicyAgent, PolicyNet
from agents import solved_envido as se
from agents.solved_envido import (ADAPTIVE_DEFAULTS, ROBUST_DEFAULTS, EnvidoSolver, observed_for,
                                  solution_for)
from truco_env.observe import dead_pieces

from _timing import env_step_peer, ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1024)
    ap.add_argument("--iterations", type=int, default=300, help="CFR+ iterations")
    args = ap.parse_args()
    torch.set_num_threads(1)
    cache = tempfile.TemporaryDirectory(prefix="truco_env_cache_")
    os.environ["TRUCO_ENV_CACHE"] = cache.name          # solve here; never read a user's cache
    rng = np.random.default_rng(0)
    env, _, base = env_step_peer(args.games, rng)
    t0 = time.perf_counter()
    sol = solution_for(30, args.iterations)
    t = time.perf_counter() - t0
    print(f"solve (match to 30, {len(sol.game.scores)} score states, {args.iterations} "
          f"iterations, with W): {t:.1f} s = {t * 1000 / base:,.0f} env steps; NashConv max "
          f"{sol.nash_conv.max():.5f}, mean {sol.nash_conv.mean():.6f} (match win probability)")
    t0 = time.perf_counter()
    observed = observed_for(30, ROBUST_DEFAULTS["matches"])
    t_obs = time.perf_counter() - t0
    t0 = time.perf_counter()
    rob = EnvidoSolver(args.iterations, robust=dict(ROBUST_DEFAULTS)).solution(30)  # as agents
    t_rob = time.perf_counter() - t0
    print(f"robust envido ({ROBUST_DEFAULTS}): observe {observed.decisions:,} decisions "
          f"{t_obs:.1f} s, solve {t_rob:.1f} s; together {(t_obs + t_rob) / t:.1f}x the "
          f"equilibrium's solve; NashConv mean {rob.nash_conv.mean():.4f}, max "
          f"{rob.nash_conv.max():.4f}")
    t0 = time.perf_counter()
    adaptive = EnvidoSolver(args.iterations, adaptive=dict(ADAPTIVE_DEFAULTS)).solutions(30)
    t_ad = time.perf_counter() - t0
    print(f"adaptive envido ({ADAPTIVE_DEFAULTS}): the random player's response (observe, "
          f"edge table, two solves) {t_ad:.1f} s on top of the robust one = {t_ad / t:.1f}x the "
          f"equilibrium's solve; its NashConv (in the edge table's game) mean "
          f"{adaptive[-1].nash_conv.mean():.4f}")
    for f in (se.subgame_for, solution_for, observed_for, se.robust_for, se.edge_table,
              se.random_response_for):
        f.cache_clear()                                 # as a new process: only the disk left
    t0 = time.perf_counter()
    EnvidoSolver(args.iterations, adaptive=dict(ADAPTIVE_DEFAULTS)).solutions(30)
    t_disk = time.perf_counter() - t0
    t_all = t + t_obs + t_rob + t_ad
    print(f"all of the above from the disk cache: {t_disk:.2f} s against {t_all:.1f} s computed "
          f"= {t_all / t_disk:.0f}x faster")
    skip = dead_pieces(env.rules, 2)
    net = PolicyNet(env.observation_size, env.num_actions, (256, 128), skip=skip)
    plain, solved = PolicyAgent(net, seed=0), PolicyAgent(net, seed=0, envido="solved")
    solver, srng = EnvidoSolver(args.iterations), np.random.default_rng(1)
    for steps in (0, 1, 4):
        o, _ = env.reset(seed=steps)
        for _ in range(steps):
            o = env.step(sample_legal(o["action_mask"], rng))[0]
        obs, mask = o["observation"].copy(), o["action_mask"].copy()
        n_solved = int((solver.decide(obs, mask, srng)[0] >= 0).sum())
        tp = ms(lambda: plain.act_batch(obs, mask))
        ts = ms(lambda: solved.act_batch(obs, mask))
        print(f"after {steps} random steps ({n_solved:4d} of {args.games} decisions solved): "
              f"plain {tp:6.2f} ms, solved envido {ts:6.2f} ms = {ts / tp:4.2f}x the plain "
              f"policy, {ts / base:4.2f}x an env step")


if __name__ == "__main__":
    main()
