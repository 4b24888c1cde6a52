"""Agent-steps per second of random legal play: our AEC env, PettingZoo's leduc_holdem_v4
(the peer, measured in the same process) and the vector env at several batch sizes.

    python benchmarks/env_speed.py [--seconds 3] [--sizes 1 64 1024 4096] [--recall-size 1024]
                                   [--modes-size 1024]

Every figure is printed as a ratio to the peer; the vector env with ``observation="recall"``
(one size, next to the compact row of that size) also as a ratio to compact.  The random agent is the same cheap
mask-sampling loop for every environment.  The three-player modes (pata de gallo, destantado;
issue 12) get a row each at ``--modes-size``, also as a ratio to the argentino 1v1 row of that
size.  The peer needs ``pip install rlcard pygame``.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np



def aec_steps_per_second(make, seconds: float, seed: int = 0) -> float:
    env = make()
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=episode)
        episode += 1
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - t0)


def vector_steps_per_second(n: int, seconds: float, players: int = 2, seed: int = 0,
                            observation: str = "compact", rules: str = "argentino") -> float:
    from truco_env import VectorTrucoEnv

    venv = VectorTrucoEnv(n, players=players, seed=seed, check_actions=False,
                          observation=observation, rules=rules)
    obs, info = venv.reset()
    rng = np.random.default_rng(seed)
    steps = 0
    # Warm up (numba dispatch) then time.
    t0 = time.perf_counter()
    while True:
        mask = obs["action_mask"]
        # Uniform over legal actions: argmax of random keys on legal entries.
        keys = rng.random(mask.shape, dtype=np.float32) + mask
        actions = keys.argmax(axis=1)
        obs, rewards, dones, info = venv.step(actions)
        steps += n
        if time.perf_counter() - t0 >= seconds:
            break
    return steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds; each measures the peer and every env of ours once, in turn, so "
                         "that a load from another process hits both alike (medians shown)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096],
                    help="vector env batch sizes")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--recall-size", type=int, default=1024,
                    help="batch size of the vector env row with observation='recall' (0: none)")
    ap.add_argument("--modes-size", type=int, default=1024,
                    help="batch size of the three-player mode rows (0: none)")
    args = ap.parse_args()
    modes = ("pata_de_gallo", "destantado") if args.modes_size > 0 else ()
    sizes = sorted(set(args.sizes) | ({args.recall_size} if args.recall_size > 0 else set())
                   | ({args.modes_size} if modes else set()))

    import truco_env

    try:
        from pettingzoo.classic import leduc_holdem_v4
    except Exception as exc:  # the peer is an optional benchmark dependency
        sys.exit(f"peer leduc_holdem_v4 unavailable ({exc}); pip install -e '.[bench]'")
    # Compile (numba cache) and warm up outside the timings.
    aec_steps_per_second(lambda: truco_env.env(players=args.players), 0.5)
    vector_steps_per_second(8, 0.2, args.players)
    if args.recall_size > 0:
        vector_steps_per_second(8, 0.2, args.players, observation="recall")
    aec_steps_per_second(leduc_holdem_v4.env, 0.3)
    for mode in modes:
        vector_steps_per_second(8, 0.2, 3, rules=mode)
    one = None                     # the argentino 1v1 row the modes are compared with
    if modes:
        one = f"truco_env vector N={args.modes_size} 1v1"

    recall = f"truco_env vector N={args.recall_size} recall"
    names = ["truco_env AEC"]
    mode_rows = {f"truco_env vector N={args.modes_size} {m}": m for m in modes}
    for n in sizes:
        names += [f"truco_env vector N={n}"] + ([recall] if n == args.recall_size else [])
        if modes and n == args.modes_size:
            names += ([one] if args.players != 2 else []) + list(mode_rows)
    peer, ours = [], {k: [] for k in names}
    for _ in range(args.rounds):
        peer.append(aec_steps_per_second(leduc_holdem_v4.env, args.seconds))
        ours["truco_env AEC"].append(
            aec_steps_per_second(lambda: truco_env.env(players=args.players), args.seconds))
        for n in sizes:
            ours[f"truco_env vector N={n}"].append(
                vector_steps_per_second(n, args.seconds, args.players))
            if n == args.recall_size:
                ours[recall].append(vector_steps_per_second(n, args.seconds, args.players,
                                                            observation="recall"))
            if modes and n == args.modes_size:
                if args.players != 2:
                    ours[one].append(vector_steps_per_second(n, args.seconds, 2))
                for k, m in mode_rows.items():
                    ours[k].append(vector_steps_per_second(n, args.seconds, 3, rules=m))
    p = float(np.median(peer))
    print(f"{'environment':<40}{'agent-steps/s':>16}{'x peer':>10}   ({args.rounds} rounds, "
          f"medians)")
    print(f"{'pettingzoo leduc_holdem_v4 (peer)':<40}{p:>16,.0f}{1.0:>10.2f}")
    for k in names:
        v = float(np.median(ours[k]))
        extra = ""
        if k == recall:   # the same batch size with the compact encoder, same rounds
            c = float(np.median(ours[f"truco_env vector N={args.recall_size}"]))
            extra = f"   x compact {v / c:.2f}"
        if k in mode_rows:   # against argentino 1v1 at the same size (must be >= 0.5)
            c = float(np.median(ours[one if args.players != 2 else
                                     f"truco_env vector N={args.modes_size}"]))
            extra = f"   x argentino 1v1 {v / c:.2f}"
        print(f"{k:<40}{v:>16,.0f}{v / p:>10.2f}{extra}")


if __name__ == "__main__":
    main()
