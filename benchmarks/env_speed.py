"""Agent-steps per second of random legal play: our AEC env, PettingZoo's leduc_holdem_v4
(the peer, measured in the same process) and the vector env at several batch sizes.

    python benchmarks/env_speed.py [--seconds 3] [--sizes 1 64 1024 4096] [--recall-size 1024]
                                   [--mode-size 1024]

Every figure is printed as a ratio to the peer; the vector env with ``observation="recall"``
(one size, next to the compact row of that size) also as a ratio to compact.  The random agent is the same cheap
mask-sampling loop for every environment.  The modes of issue 12 (pica-pica 2v2 and 3v3, pata
de gallo, destantado) get a row each at ``--mode-size``, also as a ratio to the argentino 1v1
row of that size.  Señas (issue 13) get two rows at ``--mode-size``, 2v2 argentino with
``senas="traditional"``: random play that makes señas like any other action, and random play
that never makes one (the channel's fixed cost: the mask, the observation piece), each as a
ratio to 2v2 argentino without señas (a row of its own, same rounds).  The peer needs
``pip install rlcard pygame``.
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
                            observation: str = "compact", make_senas: bool = True,
                            **game) -> float:
    from truco_env import VectorTrucoEnv

    venv = VectorTrucoEnv(n, players=players, seed=seed, check_actions=False,
                          observation=observation, **game)
    obs, info = venv.reset()
    rng = np.random.default_rng(seed)
    steps = 0
    # Warm up (numba dispatch) then time.
    t0 = time.perf_counter()
    while True:
        mask = obs["action_mask"]
        if not make_senas:                   # señas legal but never made (issue 13)
            mask = mask.copy()
            mask[:, 20:] = 0
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
    ap.add_argument("--mode-size", type=int, default=1024,
                    help="batch size of the rows of the other modes (pica-pica, the three-player modes; "
                         "0: none)")
    args = ap.parse_args()
    sizes = sorted(set(args.sizes) | ({args.recall_size} if args.recall_size > 0 else set()))

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

    recall = f"truco_env vector N={args.recall_size} recall"
    names = ["truco_env AEC"]
    for n in sizes:
        names += [f"truco_env vector N={n}"] + ([recall] if n == args.recall_size else [])
    # The modes of issue 12, one row each at --mode-size, against the argentino 1v1 row of the
    # same size (measured in the same rounds when that size is in --sizes).
    modes = {} if args.mode_size <= 0 else {
        f"pica-pica 2v2 argentino N={args.mode_size}": dict(players=4, pica_pica=True,
                                                            pica_pica_schedule="alternate"),
        f"pica-pica 3v3 trucoshi N={args.mode_size}": dict(players=6, rules="trucoshi"),
        f"pata de gallo 3p N={args.mode_size}": dict(players=3, rules="pata_de_gallo"),
        f"destantado 3p N={args.mode_size}": dict(players=3, rules="destantado"),
    }
    # Señas (issue 13): 2v2 argentino with and without them, same size, same rounds.
    plain = f"2v2 argentino N={args.mode_size}"
    senas = {} if args.mode_size <= 0 else {
        plain: dict(players=4),
        f"2v2 senas traditional N={args.mode_size}": dict(players=4, senas="traditional"),
        f"2v2 senas, none made N={args.mode_size}": dict(players=4, senas="traditional",
                                                        make_senas=False),
    }
    modes.update(senas)
    names += list(modes)
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
        for k, game in modes.items():
            ours[k].append(vector_steps_per_second(args.mode_size, args.seconds, **game))
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
        base = f"truco_env vector N={args.mode_size}"
        if k in modes and base in ours:
            extra = f"   x argentino 1v1 {v / float(np.median(ours[base])):.2f}"
        if k in senas and k != plain:
            extra += f"   x 2v2 without senas {v / float(np.median(ours[plain])):.2f}"
        print(f"{k:<40}{v:>16,.0f}{v / p:>10.2f}{extra}")


if __name__ == "__main__":
    main()
