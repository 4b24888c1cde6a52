"""Self-play PPO for Truco, from the command line.

    python train.py                                     # configs/default.yaml
    python train.py --config configs/2v2.yaml total_steps=2e6 seed=3
    python train.py --resume runs/default total_steps=2e7
    python train.py --help                              # every config key, with its help

One policy plays every seat (the observation encodes the seat relative to the mano and
team-relative features, so partners in 2v2 and 3v3 share it).  Each game of the vector
environment is either a self-play game (every seat is the learner and every transition is
trained) or a game against an opponent from the pool (past snapshots of the learner, picked by
prioritised fictitious self-play, or the baselines); there only the learner's team is trained.

Credit goes to the seat that acted: per game and seat we keep that seat's last transition; a
reward for a seat (``rewards[N, players]``, at hand or match end) is added to it, and GAE runs
along each (game, seat) trajectory.  Trajectories still open when the rollout ends bootstrap from
the value of that seat's current observation (``VectorTrucoEnv.observe_seat``).

Outputs go to ``runs/<run_name>/`` (printed at the start): ``config.yaml`` (resolved),
``checkpoints/latest.pt`` (atomic), ``metrics.csv``, TensorBoard events, ``summary.json`` and
``summary.md``.  The config (:mod:`training.config`), the opponent pool (:mod:`training.pool`),
the reward shaping (:mod:`training.shaping`), the evaluation matches (:mod:`training.win_rates`)
and the output files (:mod:`training.logger`) are small modules; the PPO loop is here.
"""
from __future__ import annotations

import dataclasses
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np
import yaml

from training.config import Config, parse_args, pick_device
from training.logger import Logger, eval_line, outputs_line, write_atomic, write_summary
from training.pool import Pool, make_baselines
from training.shaping import Shaper, win_potential
from training.win_rates import evaluate


def train(cfg: Config, resume_from: Path | None = None) -> Path:
    import torch
    import torch.nn as nn
    from agents.ppo_policy import (CheckpointError, PolicyNet, load_checkpoint,
                                   net_from_checkpoint, save_checkpoint)
    from truco_env import VectorTrucoEnv

    # ---- set-up: folders, seeds, threads, device
    device = pick_device(cfg.device)
    torch.set_num_threads(cfg.threads or os.cpu_count() or 1)
    run_dir = Path(cfg.runs_dir) / cfg.run_name
    if resume_from is None:  # never overwrite a run: runs/default-1, -2, ...
        base, i = run_dir, 1
        while (run_dir / "config.yaml").exists():
            run_dir = base.with_name(f"{base.name}-{i}")
            i += 1
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_dir = run_dir / "checkpoints"
    write_atomic(run_dir / "config.yaml", yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)

    venv = VectorTrucoEnv(cfg.num_envs, players=cfg.players, rules=cfg.rules, target=cfg.target,
                          flor=cfg.flor, check_actions=False, seed=cfg.seed)
    obs, info = venv.reset()
    N, P, D, A = cfg.num_envs, cfg.players, venv.observation_size, venv.num_actions
    target = venv.rules.target
    net = PolicyNet(D, A, tuple(cfg.hidden)).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    baselines = make_baselines(cfg)
    pool = Pool(cfg, baselines, rng)
    global_step, iteration = 0, 0

    if resume_from is not None:
        ckpt = load_checkpoint(resume_from, map_location=device)
        if list(ckpt["hidden"]) != list(cfg.hidden):
            raise CheckpointError(f"checkpoint {str(resume_from)!r} has hidden={ckpt['hidden']}; "
                                  f"the config asks for hidden={cfg.hidden}")
        net = net_from_checkpoint(ckpt, D, A).to(device).train()
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        try:
            optimizer.load_state_dict(ckpt["optimizer"])
            global_step, iteration = int(ckpt["global_step"]), int(ckpt["iteration"])
            rng.bit_generator.state = ckpt["rng"]["numpy"]
            venv.game.rng.bit_generator.state = ckpt["rng"]["env"]
            torch.set_rng_state(ckpt["rng"]["torch"].cpu())
            pool.load_state(ckpt["pool"], lambda: PolicyNet(D, A, tuple(cfg.hidden)))
            obs, info = venv.reset()  # fresh matches, dealt from the restored generator
        except (KeyError, ValueError, RuntimeError, TypeError) as exc:
            raise CheckpointError(f"checkpoint {str(resume_from)!r} cannot be resumed: "
                                  f"{type(exc).__name__}: {exc}") from None
        print(f"resuming {run_dir} from step {global_step:,} (iteration {iteration})")
    logger = Logger(run_dir, cfg, resume=resume_from is not None)
    print(outputs_line(run_dir, cfg), flush=True)

    def checkpoint() -> None:
        save_checkpoint(ckpt_dir / "latest.pt", {
            "model": net.state_dict(), "optimizer": optimizer.state_dict(),
            "obs_size": D, "num_actions": A, "hidden": list(cfg.hidden),
            "config": dataclasses.asdict(cfg), "global_step": global_step,
            "iteration": iteration, "pool": pool.state(),
            "rng": {"numpy": rng.bit_generator.state, "env": venv.game.rng.bit_generator.state,
                    "torch": torch.get_rng_state()}})

    # ---- storage: learner transitions in the order they happen (at most N per step)
    cap = N * cfg.num_steps
    b_obs = np.zeros((cap, D), np.float32)
    b_mask = np.zeros((cap, A), np.bool_)
    b_act = np.zeros(cap, np.int64)
    b_logp = np.zeros(cap, np.float32)
    b_val = np.zeros(cap, np.float32)
    b_rew = np.zeros(cap, np.float32)
    b_done = np.zeros(cap, np.bool_)
    b_next = np.zeros(cap, np.int64)      # index of the same seat's next transition, -1 = none
    b_boot = np.zeros(cap, np.float32)    # value to bootstrap from when the rollout cut it
    last = np.full((N, P), -1, np.int64)  # each seat's pending transition per game

    # ---- opponents per game: None = self-play; learner_team = the team the learner plays
    opponents: list = pool.sample(N)
    learner_team = rng.integers(0, 2, N)
    seat_team = np.arange(P) % 2
    potential = win_potential(cfg, baselines.get("heuristic")) if cfg.winprob_reward else None
    shaper = Shaper(cfg, N, target, potential)
    step_in_match = np.zeros(N, np.int64)

    start_step, start_time = global_step, time.time()
    win_h = float("nan")
    bar = None
    if cfg.progress and sys.stdout.isatty() and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=cfg.total_steps, initial=min(global_step, cfg.total_steps),
                   unit="step", unit_scale=True, dynamic_ncols=True)

    def finished() -> bool:
        return global_step >= cfg.total_steps or (
            cfg.time_budget > 0 and time.time() - start_time >= cfg.time_budget)

    while not finished():
        iteration += 1
        frac = 1.0 - (global_step / cfg.total_steps)
        if cfg.time_budget > 0:
            frac = min(frac, 1.0 - (time.time() - start_time) / cfg.time_budget)
        lr = cfg.learning_rate * frac if cfg.anneal_lr else cfg.learning_rate
        optimizer.param_groups[0]["lr"] = lr
        t_rollout = time.time()
        is_opp = np.array([o is not None for o in opponents])
        opp_ids = np.array([id(o) for o in opponents])
        by_id = {id(o): o for o in opponents if o is not None}
        ptr, starts = 0, []
        last[:] = -1
        match_len = []
        results: dict[str, list[float]] = {"pool": [], "heuristic": [], "random": [],
                                           "opponent": []}

        # ---------------------------------------------------------------- rollout
        for _ in range(cfg.num_steps):
            starts.append(ptr)
            o, m, actor = obs["observation"], obs["action_mask"], info["actor"]
            learner = ~is_opp | (seat_team[actor] == learner_team)
            L = np.flatnonzero(learner)
            actions = np.zeros(N, np.int64)
            n = len(L)
            if n:
                with torch.no_grad():
                    logits, value = net(torch.from_numpy(o[L]).to(device),
                                        torch.from_numpy(m[L]).to(device).bool())
                    a = torch.multinomial(torch.softmax(logits, 1), 1).squeeze(1)
                    logp = torch.log_softmax(logits, 1).gather(1, a[:, None]).squeeze(1)
                a = a.cpu().numpy()
                actions[L] = a
                sl = slice(ptr, ptr + n)
                b_obs[sl], b_mask[sl], b_act[sl] = o[L], m[L], a
                b_logp[sl], b_val[sl] = logp.cpu().numpy(), value.cpu().numpy()
                b_rew[sl], b_done[sl], b_next[sl] = 0.0, False, -1
                seats = actor[L]
                prev = last[L, seats]
                linked = prev >= 0
                b_next[prev[linked]] = ptr + np.flatnonzero(linked)
                last[L, seats] = ptr + np.arange(n)
                ptr += n
            R = np.flatnonzero(~learner)
            if len(R):
                for oid in np.unique(opp_ids[R]):
                    rows = R[opp_ids[R] == oid]
                    actions[rows] = by_id[oid].agent.act_batch(o[rows], m[rows])

            obs, rewards, dones, info = venv.step(actions)
            step_in_match += 1
            if shaper.active:  # a team's shaping goes to every seat of the team
                rewards = rewards + shaper(info["score"], dones)[:, seat_team]
            pending = last >= 0
            credit = pending & (rewards != 0)
            b_rew[last[credit]] += rewards[credit]
            if dones.any():
                G = np.flatnonzero(dones)
                ended = last[G]
                b_done[ended[ended >= 0]] = True
                last[G] = -1
                match_len.extend(step_in_match[G].tolist())
                step_in_match[G] = 0
                for g in G:
                    opp = opponents[g]
                    if opp is not None:
                        won = float(info["winner"][g] == learner_team[g])
                        opp.wins += won
                        opp.games += 1
                        results["pool" if opp.snapshot else opp.name].append(won)
                new = pool.sample(len(G))
                for g, opp in zip(G, new):
                    opponents[g] = opp
                    if opp is not None:
                        by_id[id(opp)] = opp
                is_opp[G] = [x is not None for x in new]
                opp_ids[G] = [id(x) for x in new]
                learner_team[G] = rng.integers(0, 2, len(G))
        global_step += N * cfg.num_steps
        starts.append(ptr)

        # bootstrap the trajectories the rollout cut: value of each seat's current observation
        with torch.no_grad():
            for s in range(P):
                G = np.flatnonzero(last[:, s] >= 0)
                if len(G):
                    seat_obs = venv.observe_seat(np.full(N, s, np.int32))[G]
                    b_boot[last[G, s]] = net.get_value(
                        torch.from_numpy(seat_obs).to(device)).cpu().numpy()
        B = ptr
        rollout_time = time.time() - t_rollout

        # ---------------------------------------------------------------- GAE per (game, seat)
        nxt = b_next[:B]
        has_next = nxt >= 0
        next_val = np.where(has_next, b_val[np.maximum(nxt, 0)], b_boot[:B])
        next_val[b_done[:B]] = 0.0
        delta = b_rew[:B] + cfg.gamma * next_val - b_val[:B]
        cont = has_next & ~b_done[:B]
        adv = np.zeros(B + 1, np.float32)   # adv[B] = 0 is the "no next" sentinel
        nx = np.where(cont, nxt, B)
        for t in reversed(range(cfg.num_steps)):  # a seat's next transition is in a later step
            lo, hi = starts[t], starts[t + 1]
            adv[lo:hi] = delta[lo:hi] + cfg.gamma * cfg.gae_lambda * adv[nx[lo:hi]]
        adv = adv[:B]
        ret = adv + b_val[:B]

        # ---------------------------------------------------------------- PPO update
        T_obs = torch.from_numpy(b_obs[:B]).to(device)
        T_mask = torch.from_numpy(b_mask[:B]).to(device)
        T_act = torch.from_numpy(b_act[:B]).to(device)
        T_logp = torch.from_numpy(b_logp[:B]).to(device)
        T_val = torch.from_numpy(b_val[:B]).to(device)
        T_adv = torch.from_numpy(adv).to(device)
        T_ret = torch.from_numpy(ret).to(device)
        clipfracs, approx_kl, old_approx_kl = [], torch.zeros(()), torch.zeros(())
        pg_loss = v_loss = entropy_loss = torch.zeros(())
        n_mb = max(1, round(B / cfg.minibatch_size))
        for epoch in range(cfg.update_epochs):
            perm = torch.randperm(B, device=device)
            for mb in perm.tensor_split(n_mb):
                logits, newvalue = net(T_obs[mb], T_mask[mb])
                logprobs = torch.log_softmax(logits, 1)
                newlogp = logprobs.gather(1, T_act[mb, None]).squeeze(1)
                entropy = -(logprobs.exp() * logprobs).sum(1)
                logratio = newlogp - T_logp[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
                mb_adv = T_adv[mb]
                if cfg.norm_adv:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                    ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                if cfg.clip_vloss:
                    v_clipped = T_val[mb] + torch.clamp(newvalue - T_val[mb], -cfg.clip_coef,
                                                        cfg.clip_coef)
                    v_loss = 0.5 * torch.max((newvalue - T_ret[mb]) ** 2,
                                             (v_clipped - T_ret[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((newvalue - T_ret[mb]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                optimizer.step()
            if cfg.target_kl is not None and approx_kl > cfg.target_kl:
                break
        var_y = np.var(ret)
        explained_var = float("nan") if var_y == 0 else float(1 - np.var(ret - b_val[:B]) / var_y)

        # ---------------------------------------------------------------- pool, eval, logs
        if iteration % cfg.snapshot_every == 0 or not pool.snapshots:
            pool.add_snapshot(net)
        sps = int((global_step - start_step) / (time.time() - start_time))
        row = {"global_step": global_step, "iteration": iteration,
               "time": round(time.time() - start_time, 2), "charts/SPS": sps,
               "charts/rollout_SPS": int(N * cfg.num_steps / rollout_time),
               "charts/learning_rate": lr, "charts/pool_size": len(pool.snapshots),
               "charts/match_length": float(np.mean(match_len)) if match_len else float("nan"),
               "charts/learner_fraction": B / (N * cfg.num_steps),
               "losses/value_loss": v_loss.item(), "losses/policy_loss": pg_loss.item(),
               "losses/entropy": entropy_loss.item(), "losses/old_approx_kl":
               old_approx_kl.item(), "losses/approx_kl": approx_kl.item(),
               "losses/clipfrac": float(np.mean(clipfracs)),
               "losses/explained_variance": explained_var}
        for k, v in results.items():
            row[f"charts/train_win_rate_{k}"] = float(np.mean(v)) if v else float("nan")
        done_training = finished()
        if cfg.eval_every and iteration % cfg.eval_every == 0 and not done_training:
            rates = {name: evaluate(net, opp.agent, cfg, cfg.eval_games,
                                    cfg.seed + 1000 + iteration)
                     for name, opp in pool.baselines.items()}
            row.update({f"eval/win_rate_{name}": r[0] for name, r in rates.items()})
            win_h = row.get("eval/win_rate_heuristic", win_h)
            if bar is None:
                print(eval_line(global_step, sps, time.time() - start_time, rates), flush=True)
        logger.log(row)
        if iteration % cfg.checkpoint_every == 0 or done_training:
            checkpoint()
        if bar is not None:
            bar.update(min(global_step, cfg.total_steps) - bar.n)
            bar.set_postfix(SPS=sps, pool=len(pool.snapshots),
                            win_h=f"{win_h:.2f}" if not math.isnan(win_h) else "-")

    if bar is not None:
        bar.close()
    checkpoint()

    # ---- summary: final win rates against the baselines
    train_seconds = time.time() - start_time
    summary = {"run_dir": str(run_dir), "global_step": global_step, "iterations": iteration,
               "train_seconds": round(train_seconds, 1),
               "SPS": int((global_step - start_step) / max(train_seconds, 1e-9)),
               "checkpoint": str(ckpt_dir / "latest.pt"), "win_rate": {}}
    if cfg.final_eval_games:
        for name, opp in pool.baselines.items():
            wr, lo, hi = evaluate(net, opp.agent, cfg, cfg.final_eval_games, cfg.seed + 7)
            summary["win_rate"][name] = {"win_rate": round(wr, 4),
                                         "ci95": round((hi - lo) / 2, 4), "low": round(lo, 4),
                                         "high": round(hi, 4), "matches": cfg.final_eval_games}
    write_summary(run_dir, cfg, target, summary)
    logger.close()
    wr = ", ".join(f"{k} {v['win_rate']:.3f}" for k, v in summary["win_rate"].items())
    print(f"final win rate: {wr or 'not evaluated'}")
    print(f"outputs in {run_dir}/ (config.yaml, checkpoints/latest.pt, metrics.csv, "
          f"summary.json, summary.md)")
    return run_dir


def main(argv: list[str] | None = None) -> int:
    try:
        cfg, resume = parse_args(argv)
        train(cfg, resume)
    except ValueError as exc:  # ConfigError, CheckpointError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
