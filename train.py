"""Self-play PPO for Truco, from the command line.

    python train.py                                     # configs/default.yaml
    python train.py --config configs/2v2.yaml total_steps=2e6 seed=3
    python train.py --resume runs/default total_steps=2e7
    python train.py backend=ray workers=2               # rollouts on Ray actors (a cluster:
                                                        #   ray_address=auto)
    python train.py --help                              # every config key, with its help

One policy plays every seat (the observation encodes the seat relative to the mano and team-
relative features, so partners in 2v2 and 3v3 share it); it reads the ``observation`` encoder
(default ``compact``; ``recall`` adds who played which card and the calls in order). Each game
of the vector environment is either a self-play game (every seat is the learner and every
transition is trained) or a game against an opponent: a past snapshot (a population spanning the
whole run, chosen by PFSP), the heuristic, a training style of :mod:`agents.zoo`, random, or the
exploiter (:mod:`training.pool`); there only the learner's team is trained. The exploiter
(``exploiter_weight > 0``) is a second network trained by the same PPO update on its own seats
of its matches against the learner: it looks for the learner's holes while the learner closes
them, and retires into the pool every ``exploiter_reset_every`` iterations. With
``exploiter_hunt`` each exploiter after the first starts with a hunt: that many iterations in
which every new match is against it and only it trains, the learner frozen (a best response
to the learner of the moment, found inside the run; the learner then meets it at
``exploiter_weight`` for the rest of its life and as a snapshot after); ``hunt_rollouts`` and
``hunt_epochs`` give a hunt's updates the shape of ``evaluate.py exploit``'s best response. An
exploiter starts as a copy of the learner, with ``exploiter_init=scratch`` as a new network, or
with ``exploiter_init=continue`` as its predecessor (one network that goes on learning).

Credit goes to the seat that acted (:mod:`training.rollout`): a reward for a seat is added to
its latest transition, GAE runs along each (game, seat) trajectory, and the transitions a
rollout cuts are carried into the next rollout instead of being bootstrapped from another
seat's turn.  Values come from the policy's own head (default) or from a
privileged critic that also sees every hand (``critic=privileged``, :mod:`training.critic`;
training only).

The games are stepped by rollout workers (:mod:`training.worker`), one class for both backends:
``backend=local`` has one in this process with every game and the learner's own networks;
``backend=ray`` has ``workers`` Ray actors with ``num_envs / workers`` games each and CPU copies
of the networks (:mod:`training.ray_backend`; a dead actor is replaced and its rollout redone).
Each returns its trained transitions with their advantages and its matches' results; this file
keeps the learner: the networks, the update, the pool (snapshots, PFSP), evaluations and logs.

Checkpoints hold everything the run needs to continue as if never stopped: networks, optimizer,
pool, every random stream, the matches in flight and the carried transitions (each worker's
state); ``--resume``
after a kill redoes the iterations since the last checkpoint and drops their metrics rows
first.  Periodic evaluations play duplicate pairs on fixed deals against the baselines, the
held-out styles of :mod:`agents.zoo` and the policy of the previous evaluation.  The final
summary plays the last policy against the baselines and held-out styles; with
``final_average=K`` (and ``keep_every``) also the run's average policy, the mean of K of its
late checkpoints (:class:`agents.ppo_policy.AveragePolicyAgent`), on the same deals.

Outputs go to ``runs/<run_name>/`` (printed at the start): ``config.yaml`` (resolved),
``checkpoints/latest.pt`` (atomic), ``metrics.csv``, TensorBoard events, ``summary.json`` and
``summary.md``.  The config (:mod:`training.config`), the opponent pool (:mod:`training.pool`),
the reward shaping (:mod:`training.shaping`), the evaluation matches (:mod:`training.win_rates`),
the output files (:mod:`training.logger`), the PPO update (:mod:`training.ppo`) and the rollout
(:mod:`training.worker`) are small modules; the learner's loop is here.
"""
from __future__ import annotations

import copy
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
from training.logger import (Logger, eval_line, outputs_line, rates_line, write_atomic,
                             write_summary)
from training.logger import eval_names as logger_eval_names
from training.pool import (Opponent, Pool, eval_agents, frozen_copy, make_baselines,
                           make_heldout)
from training.ppo import ppo_update
from training.rollout import Batch
from training.shaping import win_potential
from training.worker import make_backend, make_env, net_args
from training.win_rates import (EVAL_SEED, FINAL_SEED, evaluate, evaluate_all, game_config,
                                rate_table)


def init_network(cfg: Config, net):
    """The network of ``init=`` (``pretrained:NAME`` or ``checkpoint:PATH``), checked to have
    ``net``'s input size, hidden widths and skipped observation pieces; a
    :class:`agents.ppo_policy.CheckpointError` names what differs."""
    from agents.ppo_policy import (CheckpointError, load_checkpoint, net_from_checkpoint,
                                   resolve_checkpoint)
    kind, _, what = cfg.init.partition(":")
    if kind == "pretrained":
        from agents.pretrained import load_net
        src, _ = load_net(what.strip())
    else:
        src = net_from_checkpoint(load_checkpoint(resolve_checkpoint(what.strip())))
    for key in ("obs_size", "num_actions", "hidden", "skip"):
        if getattr(src, key) != getattr(net, key):   # ints and tuples (PolicyNet)
            raise CheckpointError(f"init={cfg.init!r} has {key}={getattr(src, key)!r}; this "
                                  f"config's network has {key}={getattr(net, key)!r}")
    return src


def train(cfg: Config, resume_from: Path | None = None) -> Path:
    import torch
    from agents.ppo_policy import (CheckpointError, PolicyNet, load_checkpoint,
                                   net_from_checkpoint, save_checkpoint)
    from training.critic import Critic
    from truco_env.observe import COMPACT_SIZE, HIDDEN_SIZE, LAYOUT_VERSION

    # ---- set-up: folders, seeds, threads, device
    device = pick_device(cfg.device)
    torch.set_num_threads(cfg.threads or os.cpu_count() or 1)
    run_dir = Path(cfg.runs_dir) / cfg.run_name
    if resume_from is None:  # never overwrite a run: runs/default-1, -2, ...
        base, i = run_dir, 1
        while (run_dir / "config.yaml").exists():
            run_dir = base.with_name(f"{base.name}-{i}")
            i += 1
    ckpt_dir = run_dir / "checkpoints"

    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)

    probe = make_env(cfg, 1, cfg.seed)   # the sizes; the games are the workers'
    N, D, A = cfg.num_envs, probe.observation_size, probe.num_actions
    target = probe.rules.target
    shape = net_args(cfg, probe)         # sizes, hidden widths, the pieces it does not read
    net = PolicyNet(*shape).to(device)
    privileged = cfg.critic == "privileged"
    critic = Critic(COMPACT_SIZE + HIDDEN_SIZE, tuple(cfg.critic_hidden)).to(device) \
        if privileged else None
    params = list(net.parameters()) + (list(critic.parameters()) if critic else [])
    optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
    baselines = make_baselines(cfg)      # evaluated against; the workers train with their own
    pool = Pool(cfg, baselines, rng)     # the population and PFSP results; workers draw from it
    heldout = make_heldout(cfg) if cfg.eval_heldout else {}
    potential = win_potential(cfg, baselines.get("heuristic")) if cfg.winprob_reward else None
    # ---- the exploiter (exploiter_weight > 0): a second network that plays only against the
    # learner and is trained to beat it; it starts as a copy of the learner and, after
    # exploiter_reset_every iterations, joins the pool as a snapshot and starts again.
    exploiter = x_optimizer = None
    exploiter_born = 0

    def new_exploiter(born: int) -> None:
        """The exploiter starts again as a copy of the learner or (exploiter_init=scratch) as
        a new network seeded by the run's seed and its birth: no number is drawn from the
        run's random streams either way.  With exploiter_init=continue the first is a new
        network and every later one is its predecessor, going on with its weights and
        optimizer (only its birth, hence its hunt, is new)."""
        nonlocal exploiter, x_optimizer, exploiter_born
        if cfg.exploiter_init == "continue" and exploiter is not None:
            exploiter_born = born
            pool.exploiter.wins = pool.exploiter.games = 0.0
            return
        if cfg.exploiter_init in ("scratch", "continue"):
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(cfg.seed * 1_000_003 + born)
                exploiter = PolicyNet(*shape).to(device)
        else:
            exploiter = copy.deepcopy(net)
        for p in exploiter.parameters():
            p.grad = None
        x_optimizer = torch.optim.Adam(exploiter.parameters(), lr=cfg.learning_rate, eps=1e-5)
        exploiter_born = born
        pool.exploiter.wins = pool.exploiter.games = 0.0

    def retire_exploiter() -> None:  # (the workers drop its pending transitions if it is replaced)
        pool.add_snapshot(exploiter, prefix="exploiter")
        new_exploiter(iteration)

    if cfg.exploiter_weight > 0:
        pool.exploiter = Opponent("exploiter", None, "exploiter")  # acts in the workers' games
        new_exploiter(0)
    past = None          # the policy of the previous evaluation (evaluated against)
    if cfg.init and resume_from is None:   # (a resumed run has its own weights)
        net.load_state_dict(init_network(cfg, net).state_dict())
    # ---- the magnet (magnet_coef > 0): a frozen copy of the learner, refreshed every
    # magnet_every iterations (magnet=learner) or never (magnet=init: the network of init=),
    # that the PPO loss pulls the policy toward (training.ppo)
    magnet = frozen_copy(net).to(device) if cfg.magnet_coef > 0 else None
    global_step, iteration, elapsed_before = 0, 0, 0.0
    # ---- the rollout workers (training.worker): the games, their opponents, the carried
    # transitions; local = one in this process, ray = `workers` Ray actors
    backend = make_backend(cfg, potential)

    if resume_from is not None:  # the run folder is not touched until the checkpoint loads
        ckpt = load_checkpoint(resume_from, map_location=device)
        for key in ("hidden", "critic_hidden", "observation", "critic", "players", "rules",
                    "num_envs", "workers"):
            if ckpt["config"].get(key, 1 if key == "workers" else None) != getattr(cfg, key):
                backend.close()
                raise CheckpointError(f"checkpoint {str(resume_from)!r} has {key}="
                                      f"{ckpt['config'].get(key)!r}; the config asks for "
                                      f"{key}={getattr(cfg, key)!r} (it cannot change on resume)")
        if tuple(ckpt.get("skip", ())) != net.skip:   # a run of a release before the skip
            backend.close()
            raise CheckpointError(f"checkpoint {str(resume_from)!r} has a network that reads "
                                  f"the observation pieces {ckpt.get('skip', [])!r} do not; "
                                  f"this release's skips {list(net.skip)!r}: resume it with the "
                                  f"release that wrote it")
        try:
            net = net_from_checkpoint(ckpt, D, A).to(device).train()
            if critic is not None:
                critic.load_state_dict(ckpt["critic"])
            params = list(net.parameters()) + (list(critic.parameters()) if critic else [])
            optimizer = torch.optim.Adam(params, lr=cfg.learning_rate, eps=1e-5)
            optimizer.load_state_dict(ckpt["optimizer"])
            global_step, iteration = int(ckpt["global_step"]), int(ckpt["iteration"])
            elapsed_before = float(ckpt["elapsed"])
            rng.bit_generator.state = ckpt["rng"]["numpy"]
            pool.load_state(ckpt["pool"], lambda: PolicyNet(*shape))
            backend.load_state(ckpt["workers"])  # the matches in flight, carried transitions
            if ckpt["past"] is not None:
                past = PolicyNet(*shape)
                past.load_state_dict(ckpt["past"])
            if magnet is not None:   # (a run that had none starts it from the learner)
                magnet.load_state_dict(ckpt.get("magnet") or net.state_dict())
            if exploiter is not None and ckpt.get("exploiter") is not None:
                x = ckpt["exploiter"]
                exploiter.load_state_dict(x["model"])
                x_optimizer.load_state_dict(x["optimizer"])
                exploiter_born = int(x["born"])
            torch.set_rng_state(ckpt["rng"]["torch"].cpu())  # last: building nets draws from it
        except (KeyError, ValueError, RuntimeError, TypeError) as exc:
            backend.close()
            raise CheckpointError(f"checkpoint {str(resume_from)!r} cannot be resumed: "
                                  f"{type(exc).__name__}: {exc}") from None
        print(f"resuming {run_dir} from step {global_step:,} (iteration {iteration})")
    run_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(run_dir / "config.yaml", yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    eval_names = logger_eval_names(cfg, list(heldout))
    logger = Logger(run_dir, cfg, eval_names, resume_iteration=iteration if resume_from else None,
                    resume_step=global_step)
    print(outputs_line(run_dir, cfg), flush=True)

    def checkpoint() -> None:
        payload = {
            "model": net.state_dict(), "critic": critic.state_dict() if critic else None,
            "optimizer": optimizer.state_dict(), "obs_size": D, "num_actions": A,
            "hidden": list(cfg.hidden), "skip": list(net.skip), "observation": cfg.observation,
            "layout_version": LAYOUT_VERSION, "config": dataclasses.asdict(cfg),
            "global_step": global_step, "iteration": iteration,
            "elapsed": time.time() - start_time, "pool": pool.state(),
            "rng": {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state()},
            "workers": backend.state(),
            "past": None if past is None else past.state_dict(),
            "magnet": None if magnet is None else magnet.state_dict(),
            "exploiter": None if exploiter is None else {
                "model": exploiter.state_dict(), "optimizer": x_optimizer.state_dict(),
                "born": exploiter_born}}
        save_checkpoint(ckpt_dir / "latest.pt", payload)
        if cfg.keep_every and iteration % cfg.keep_every == 0:  # a curve's points
            kept = ckpt_dir / f"step_{global_step}.pt"
            try:  # latest.pt's file under a second name (the next save replaces, not rewrites)
                kept.unlink(missing_ok=True)
                os.link(ckpt_dir / "latest.pt", kept)
            except OSError:  # a file system without hard links: serialise it again
                save_checkpoint(kept, payload)

    start_step, start_time = global_step, time.time() - elapsed_before
    win_h = float("nan")
    bar = None
    if cfg.progress and sys.stdout.isatty() and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=cfg.total_steps, initial=min(global_step, cfg.total_steps),
                   unit="step", unit_scale=True, dynamic_ncols=True)

    def finished() -> bool:
        return global_step >= cfg.total_steps or (
            cfg.time_budget > 0 and time.time() - start_time >= cfg.time_budget)

    hunt_cfg = dataclasses.replace(cfg, update_epochs=cfg.hunt_epochs or cfg.update_epochs)

    def update_exploiter(parts: list) -> None:
        """The exploiter learns from its own seats' transitions (with hunt_epochs in a hunt)."""
        ppo_update(hunt_cfg if pool.hunting else cfg, exploiter, None, x_optimizer,
                   list(exploiter.parameters()), Batch.concat([p.x_batch for p in parts]))

    def hunting() -> bool:
        """This iteration is in an exploiter's hunt (not the first exploiter's: it is born
        with an untrained learner)."""
        return (exploiter is not None and exploiter_born > 0
                and iteration - exploiter_born <= cfg.exploiter_hunt)

    while not finished():
        iteration += 1
        pool.hunting = hunting()   # every new match is against the exploiter; the learner waits
        frac = 1.0 - (global_step / cfg.total_steps)
        if cfg.time_budget > 0:
            frac = min(frac, 1.0 - (time.time() - start_time) / cfg.time_budget)
        lr = cfg.learning_rate * frac if cfg.anneal_lr else cfg.learning_rate
        optimizer.param_groups[0]["lr"] = lr
        # ---------------------------------------------------------------- rollout
        # (a hunt cuts it into hunt_rollouts shorter ones, each followed by the exploiter's
        # update with hunt_epochs: the best response's shape, evaluation.exploit)
        cuts = cfg.hunt_rollouts if pool.hunting else 1
        parts, rollout_time = [], 0.0
        for cut in range(cuts):
            t_rollout = time.time()
            cut_parts = backend.rollout((net, critic, exploiter), lambda known: {
                "pool": pool.sync_message(known), "num_steps": cfg.num_steps // cuts,
                # the birth of the exploiter's network: the workers drop the pending
                # transitions of a replaced one (a continuing exploiter is never replaced)
                "exploiter_born": 0 if cfg.exploiter_init == "continue" else exploiter_born})
            rollout_time += time.time() - t_rollout
            parts += cut_parts
            if cut < cuts - 1:     # (the last cut's update comes after the learner's, below)
                update_exploiter(cut_parts)
        global_step += N * cfg.num_steps
        pool.record([p.snapshot_results for p in parts])  # PFSP
        batch = Batch.concat([p.batch for p in parts])

        # ---------------------------------------------------------------- PPO update
        # (in a hunt the learner's transitions are dropped: it is the exploiter's fixed target)
        stats = {} if pool.hunting else ppo_update(cfg, net, critic, optimizer, params, batch,
                                                    magnet)
        if magnet is not None and cfg.magnet == "learner" and iteration % cfg.magnet_every == 0:
            magnet.load_state_dict(net.state_dict())
        if exploiter is not None:
            update_exploiter(cut_parts)
            if iteration - exploiter_born >= cfg.exploiter_reset_every:
                retire_exploiter()

        # ---------------------------------------------------------------- pool, eval, logs
        pool.decay()
        if (iteration % cfg.snapshot_every == 0 and not pool.hunting) or not pool.snapshots:
            pool.add_snapshot(net)
        sps = int((global_step - start_step) / max(time.time() - start_time - elapsed_before,
                                                   1e-9))
        row = {"global_step": global_step, "iteration": iteration,
               "time": round(time.time() - start_time, 2), "charts/SPS": sps,
               "charts/rollout_SPS": int(N * cfg.num_steps / rollout_time),
               "charts/learning_rate": lr, "charts/pool_size": len(pool.snapshots),
               "charts/match_length": mean([n for p in parts for n in p.match_len]),
               "charts/learner_fraction": len(batch) / (N * cfg.num_steps),
               "charts/carried": sum(p.carried for p in parts), **stats}
        for k in Pool.KINDS:
            row[f"charts/train_win_rate_{k}"] = mean([w for p in parts for w in p.results[k]])
        done_training = finished()
        if cfg.eval_every and iteration % cfg.eval_every == 0 and not done_training:
            rates = evaluate_all(net, eval_opponents(pool, heldout, past, EVAL_SEED), cfg,
                                 cfg.eval_games, EVAL_SEED)
            past = frozen_copy(net) if cfg.eval_heldout else None
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
    backend.close()

    # ---- summary: final win rates (duplicate pairs) and, on request, a best response
    train_seconds = time.time() - start_time
    summary = {"run_dir": str(run_dir), "global_step": global_step, "iterations": iteration,
               "train_seconds": round(train_seconds, 1),
               "SPS": int((global_step - start_step) / max(train_seconds - elapsed_before, 1e-9)),
               "checkpoint": str(ckpt_dir / "latest.pt"), "win_rate": {}}
    if cfg.final_eval_games:
        opponents = eval_opponents(pool, heldout, None, FINAL_SEED)
        summary["win_rate"] = rate_table(evaluate_all(net, opponents, cfg,
                                                      cfg.final_eval_games, FINAL_SEED), cfg)
    if cfg.final_average:   # the run's average policy, on the same deals (agents.ppo_policy)
        from agents.ppo_policy import AveragePolicyAgent
        avg = AveragePolicyAgent.from_run(run_dir, cfg.final_average, greedy=cfg.eval_greedy,
                                          seed=FINAL_SEED)
        summary["average"] = {
            "spec": f"checkpoint:{run_dir},average={cfg.final_average}",
            "checkpoints": [f.name for f in avg.sources],
            "win_rate": rate_table({name: evaluate(avg, agent, cfg, cfg.final_eval_games,
                                                   FINAL_SEED)
                                    for name, agent in opponents.items()}, cfg)}
    if cfg.exploit_budget:
        summary["exploit"] = exploitability(run_dir, cfg)
    write_summary(run_dir, cfg, target, summary)
    logger.close()
    print(f"final win rate: {rates_line(summary['win_rate']) or 'not evaluated'}")
    if "average" in summary:
        print(f"average policy's win rate: {rates_line(summary['average']['win_rate'])}")
    print(f"outputs in {run_dir}/ (config.yaml, checkpoints/latest.pt, metrics.csv, "
          f"summary.json, summary.md)")
    return run_dir


def mean(values: list) -> float:
    return float(np.mean(values)) if values else float("nan")


def eval_opponents(pool: Pool, heldout: dict, past, seed: int) -> dict:
    """The agents of an evaluation: the baselines, the held-out styles and ``past`` if given."""
    from agents.ppo_policy import PolicyAgent
    opps = eval_agents({name: o.agent for name, o in pool.baselines.items()}, heldout)
    if past is not None:
        opps["past"] = PolicyAgent(past, seed=seed, name="past", envido=pool.cfg.envido,
                                   truco_answers=pool.cfg.truco_answers,
                                   truco_gate=pool.cfg.truco_gate)
    return opps


def exploitability(run_dir: Path, cfg: Config) -> dict:
    """A best response trained for ``exploit_budget`` seconds against the final policy
    (:func:`evaluation.exploit.run_exploit`): its win rate, a lower bound of exploitability."""
    from evaluation.exploit import run_exploit
    out = run_exploit(f"checkpoint:{run_dir / 'checkpoints' / 'latest.pt'}", game_config(cfg),
                      run_dir / "exploit", cfg.exploit_budget,
                      eval_matches=max(1, cfg.final_eval_games // 2),
                      seed=cfg.seed, progress=False)
    pair = out["final"]["pairs"][0] if "pairs" in out["final"] else out["final"]
    return {"budget": cfg.exploit_budget, "steps": out["run"]["global_step"], "result": pair}


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
