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

Outputs go to ``runs/<run_name>/``: ``config.yaml`` (resolved), ``checkpoints/latest.pt``
(atomic), ``metrics.csv``, TensorBoard events, ``summary.json`` and ``summary.md``.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import os
import random
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent
DEFAULT_CONFIG = ROOT / "configs" / "default.yaml"


def _f(default: Any, help: str, **meta: Any) -> Any:
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help, **meta})
    return field(default=default, metadata={"help": help, **meta})


# ============================================================================ configuration
@dataclass
class Config:
    # --- run
    run_name: str = _f("default", "output folder name under runs_dir")
    seed: int = _f(1, "seed of the environment, the network and the opponent sampling")
    total_steps: int = _f(30_000_000, "environment steps to train for (all seats, all games)")
    time_budget: float = _f(0.0, "stop after this many seconds of training (0 = no limit); "
                                 "the learning rate then anneals over the budget")
    runs_dir: str = _f("runs", "parent folder of run folders")
    device: str = _f("auto", "learner device", choices=("auto", "cpu", "cuda"))
    threads: int = _f(0, "torch CPU threads (0 = every core)")
    progress: bool = _f(True, "show a progress bar")
    tensorboard: bool = _f(True, "write TensorBoard events next to metrics.csv")
    # --- game
    players: int = _f(2, "seats (2, 4 or 6; teams alternate seats)", choices=(2, 4, 6))
    rules: str = _f("argentino", "rule preset", choices=("argentino", "trucoshi", "uruguayo"))
    target: Optional[int] = _f(30, "points to win the match (null = the preset's default)")
    flor: Optional[bool] = _f(None, "play with flor (null = the preset's default)")
    winprob_reward: float = _f(1.0, "shaping: add this times the change of the team's match "
                                    "win potential 2*W(score)-1 (truco_env.winprob, W measured "
                                    "from heuristic hands; 0 at the end, so it telescopes)")
    score_reward: float = _f(0.0, "shaping: add this times (points won - points conceded) / "
                                  "target to the match reward of +1/-1")
    # --- PPO
    num_envs: int = _f(1024, "games stepped together")
    num_steps: int = _f(32, "environment steps per game per rollout")
    hidden: list = _f([256, 128], "hidden layer widths of the MLP (shared trunk)")
    learning_rate: float = _f(1e-3, "Adam learning rate")
    anneal_lr: bool = _f(True, "decay the learning rate linearly to zero")
    gamma: float = _f(0.999, "discount per decision of a seat")
    gae_lambda: float = _f(0.95, "GAE lambda")
    minibatch_size: int = _f(4096, "learner transitions per gradient step")
    update_epochs: int = _f(3, "passes over the rollout per update")
    norm_adv: bool = _f(True, "normalise advantages per minibatch")
    clip_coef: float = _f(0.2, "PPO surrogate clipping")
    clip_vloss: bool = _f(False, "clip the value loss too")
    ent_coef: float = _f(0.01, "entropy bonus coefficient")
    vf_coef: float = _f(0.5, "value loss coefficient")
    max_grad_norm: float = _f(0.5, "gradient norm clip")
    target_kl: Optional[float] = _f(None, "stop the epoch loop early above this KL (null = off)")
    # --- opponents
    self_play_frac: float = _f(0.3, "fraction of matches where every seat is the learner")
    pool_weight: float = _f(0.3, "weight of past snapshots among the other matches")
    heuristic_weight: float = _f(0.6, "weight of the heuristic baseline among the other matches")
    random_weight: float = _f(0.1, "weight of the random baseline among the other matches")
    opponent: str = _f("", "an extra fixed opponent, an agents.load spec (e.g. "
                           "checkpoint:runs/x or heuristic:bluff=0.3); '' = none")
    opponent_weight: float = _f(0.0, "weight of `opponent` among the other matches (with "
                                     "self_play_frac=0 and the other weights 0 this trains a "
                                     "best response: evaluate.py exploit)")
    pool_size: int = _f(8, "past snapshots kept in the pool (oldest dropped)")
    snapshot_every: int = _f(10, "iterations between snapshots added to the pool")
    pfsp_power: float = _f(1.0, "prioritised fictitious self-play: snapshot weight "
                                "(1 - win rate)^p (0 = uniform)")
    # --- evaluation, checkpoints
    eval_every: int = _f(10, "iterations between evaluations (0 = only at the end)")
    eval_games: int = _f(256, "matches per opponent in a periodic evaluation")
    final_eval_games: int = _f(1000, "matches per opponent in the final summary")
    eval_greedy: bool = _f(False, "evaluate the argmax policy instead of sampling")
    checkpoint_every: int = _f(10, "iterations between checkpoints (and at the end)")

    # --- derived
    @property
    def batch_env_steps(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_iterations(self) -> int:
        return max(1, math.ceil(self.total_steps / self.batch_env_steps))


class ConfigError(ValueError):
    """A config key that does not exist or a value that does not fit it."""


FIELDS = {f.name: f for f in dataclasses.fields(Config)}
HINTS = typing.get_type_hints(Config)


def _coerce(key: str, value: Any) -> Any:
    """``value`` as the type of ``key`` (strings from the command line are YAML-parsed first)."""
    hint = HINTS[key]
    optional = typing.get_origin(hint) is typing.Union and type(None) in typing.get_args(hint)
    base = [a for a in typing.get_args(hint) if a is not type(None)][0] if optional else hint

    def bad(expected: str) -> ConfigError:
        return ConfigError(f"bad value {key}={value!r}: expected {expected}")

    if value is None or (isinstance(value, str) and value.lower() in ("null", "none", "~")):
        if optional:
            return None
        raise bad(f"a value of type {getattr(base, '__name__', base)}")
    if base is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no"):
            return value.lower() in ("true", "yes")
        raise bad("true or false")
    if base is int:
        if isinstance(value, str):
            try:
                value = float(value.replace("_", ""))
            except ValueError:
                raise bad("an integer") from None
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise bad("an integer")
    if base is float:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                raise bad("a number") from None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise bad("a number")
    if base is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise bad("a string")
    if base is list:  # list of positive ints ("256,128" on the command line)
        if isinstance(value, str):
            value = [v for v in value.replace("[", "").replace("]", "").split(",") if v.strip()]
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        try:
            out = [int(v) for v in value]
        except (TypeError, ValueError):
            raise bad("a list of positive integers such as [256, 128]") from None
        if not out or min(out) < 1:
            raise bad("a list of positive integers such as [256, 128]")
        return out
    raise bad(str(hint))  # pragma: no cover


def _check(cfg: Config) -> None:
    """Range and cross-key checks; raises :class:`ConfigError` naming the key."""
    for key, f in FIELDS.items():
        choices = f.metadata.get("choices")
        if choices and getattr(cfg, key) not in choices:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected one of "
                              f"{list(choices)}")
    positive = ("total_steps", "num_envs", "num_steps", "minibatch_size", "update_epochs",
                "pool_size", "snapshot_every", "eval_games", "checkpoint_every", "learning_rate",
                "max_grad_norm")
    for key in positive:
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected a positive number")
    for key in ("threads", "eval_every", "final_eval_games", "ent_coef", "vf_coef", "clip_coef",
                "pool_weight", "heuristic_weight", "random_weight", "pfsp_power", "score_reward",
                "winprob_reward",
                "opponent_weight", "time_budget"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected >= 0")
    for key in ("gamma", "gae_lambda", "self_play_frac"):
        if not 0.0 <= getattr(cfg, key) <= 1.0:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected 0..1")
    weights = cfg.pool_weight + cfg.heuristic_weight + cfg.random_weight + cfg.opponent_weight
    if cfg.self_play_frac < 1 and weights <= 0:
        raise ConfigError("pool_weight, heuristic_weight, random_weight and opponent_weight are "
                          "all 0 while self_play_frac < 1: no opponent to play")
    if cfg.opponent_weight > 0 and not cfg.opponent:
        raise ConfigError("opponent_weight > 0 needs an `opponent` spec")
    if not cfg.run_name or "/" in cfg.run_name or cfg.run_name in (".", ".."):
        raise ConfigError(f"bad value run_name={cfg.run_name!r}: expected a plain folder name")
    from truco_env import get_rules
    try:
        rules = get_rules(cfg.rules, target=cfg.target, flor=cfg.flor)
    except ValueError as exc:
        raise ConfigError(f"bad game settings (rules/target/flor): {exc}") from None
    if cfg.players not in rules.players_allowed:
        raise ConfigError(f"bad value players={cfg.players}: rules {cfg.rules!r} allow "
                          f"{list(rules.players_allowed)}")


def make_config(values: dict[str, Any]) -> Config:
    cfg = Config()
    for key, value in values.items():
        if key not in FIELDS:
            near = [k for k in FIELDS if k.split("_")[0] == key.split("_")[0]]
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise ConfigError(f"unknown config key {key!r}{hint}; `python train.py --help` "
                              f"lists the keys")
        setattr(cfg, key, _coerce(key, value))
    _check(cfg)
    return cfg


def read_yaml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must be a mapping of key: value")
    return _flatten(data)


def _flatten(data: dict, prefix: str = "") -> dict[str, Any]:
    """Nested mappings become dotted keys (so a nested YAML section is an unknown key)."""
    out = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def parse_overrides(items: list[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"bad override {item!r}: expected key=value")
        key, text = item.split("=", 1)
        try:
            value = yaml.safe_load(text) if text else ""
        except yaml.YAMLError:
            value = text
        out[key.strip()] = value
    return out


def config_help() -> str:
    lines = ["config keys (set in the YAML file or as key=value):"]
    for key, f in FIELDS.items():
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        choices = f.metadata.get("choices")
        extra = f"; one of {list(choices)}" if choices else ""
        lines.append(f"  {key:<18} {f.metadata['help']} (default: {default!r}{extra})")
    return "\n".join(lines)


# ============================================================================ opponents
def load_baseline(name: str, seed: int):
    """A baseline agent (``agents.load``) with ``act_batch``; ``None`` if it is not available."""
    try:
        import agents
        return agents.load(name, seed=seed)
    except (ImportError, AttributeError, ValueError) as exc:
        print(f"warning: agents.load({name!r}) failed ({type(exc).__name__}: {exc})",
              file=sys.stderr)
        return None


@dataclass
class Opponent:
    name: str
    agent: Any
    snapshot: bool
    wins: float = 0.0
    games: float = 0.0

    @property
    def win_rate(self) -> float:  # the learner's, with a weak prior at 1/2
        return (self.wins + 1.0) / (self.games + 2.0)


class Pool:
    """Opponents of the non-self-play matches: snapshots (chosen by PFSP) and baselines."""

    def __init__(self, cfg: Config, baselines: dict[str, Any], rng: np.random.Generator):
        self.cfg, self.rng = cfg, rng
        self.baselines = {n: Opponent(n, a, False) for n, a in baselines.items() if a is not None}
        self.snapshots: list[Opponent] = []
        self.count = 0  # snapshots ever taken (names them)

    def all(self) -> list[Opponent]:
        return list(self.baselines.values()) + self.snapshots

    def add_snapshot(self, net) -> None:
        from agents.ppo_policy import PolicyAgent
        self.count += 1
        seed = int(self.rng.integers(2**31))
        self.snapshots.append(Opponent(f"snapshot_{self.count}",
                                       PolicyAgent(net, seed=seed, name=f"snapshot_{self.count}"),
                                       True))
        del self.snapshots[:-self.cfg.pool_size]

    def sample(self, k: int) -> list[Opponent | None]:
        """``k`` draws: ``None`` = self-play, else an opponent."""
        cfg = self.cfg
        kinds = [("pool", cfg.pool_weight if self.snapshots else 0.0),
                 ("heuristic", cfg.heuristic_weight if "heuristic" in self.baselines else 0.0),
                 ("random", cfg.random_weight if "random" in self.baselines else 0.0),
                 ("opponent", cfg.opponent_weight if "opponent" in self.baselines else 0.0)]
        w = np.array([x for _, x in kinds])
        out: list[Opponent | None] = []
        for _ in range(k):
            if w.sum() == 0 or self.rng.random() < cfg.self_play_frac:
                out.append(None)
                continue
            kind = kinds[self.rng.choice(len(kinds), p=w / w.sum())][0]
            if kind != "pool":
                out.append(self.baselines[kind])
                continue
            pw = np.array([(1.0 - s.win_rate) ** cfg.pfsp_power + 1e-3 for s in self.snapshots])
            out.append(self.snapshots[self.rng.choice(len(pw), p=pw / pw.sum())])
        return out

    def state(self) -> dict:
        return {"count": self.count,
                "snapshots": [{"name": s.name, "model": s.agent.net.state_dict(),
                               "wins": s.wins, "games": s.games} for s in self.snapshots],
                "baselines": {n: {"wins": b.wins, "games": b.games}
                              for n, b in self.baselines.items()}}

    def load_state(self, state: dict, make_net) -> None:
        from agents.ppo_policy import PolicyAgent
        self.count = state["count"]
        self.snapshots = []
        for s in state["snapshots"]:
            net = make_net()
            net.load_state_dict(s["model"])
            self.snapshots.append(Opponent(s["name"], PolicyAgent(
                net, seed=int(self.rng.integers(2**31)), name=s["name"]), True,
                s["wins"], s["games"]))
        for n, b in state["baselines"].items():
            if n in self.baselines:
                self.baselines[n].wins, self.baselines[n].games = b["wins"], b["games"]


# ============================================================================ evaluation
def evaluate(net, opponent, cfg: Config, games: int, seed: int, device) -> float:
    """Win rate of ``net`` over ``games`` matches against ``opponent`` (half of them on each
    team; each game slot counts its first finished match)."""
    import torch
    from truco_env import VectorTrucoEnv

    venv = VectorTrucoEnv(games, players=cfg.players, rules=cfg.rules, target=cfg.target,
                          flor=cfg.flor, check_actions=False, seed=seed)
    obs, info = venv.reset()
    learner_team = np.arange(games) % 2
    result = np.full(games, -1.0)
    gen = torch.Generator(device=device).manual_seed(seed)
    while (result < 0).any():
        o, m = obs["observation"], obs["action_mask"]
        mine = (info["actor"] % 2) == learner_team
        actions = np.zeros(games, dtype=np.int64)
        L, R = np.flatnonzero(mine), np.flatnonzero(~mine)
        if len(L):
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(o[L]).to(device),
                                torch.from_numpy(m[L]).to(device).bool())
                a = logits.argmax(1) if cfg.eval_greedy else torch.multinomial(
                    torch.softmax(logits, 1), 1, generator=gen).squeeze(1)
            actions[L] = a.cpu().numpy()
        if len(R):
            actions[R] = opponent.act_batch(o[R], m[R])
        obs, rewards, dones, info = venv.step(actions)
        first = dones & (result < 0)
        result[first] = (info["winner"][first] == learner_team[first]).astype(float)
    return float(result.mean())


# ============================================================================ logging
class Logger:
    """metrics.csv (one row per iteration, a fixed set of columns) and TensorBoard."""

    COLUMNS = ("global_step", "iteration", "time", "charts/SPS", "charts/rollout_SPS",
               "charts/learning_rate", "charts/pool_size", "charts/match_length",
               "charts/train_win_rate_pool", "charts/train_win_rate_heuristic",
               "charts/train_win_rate_random", "charts/learner_fraction",
               "losses/value_loss", "losses/policy_loss", "losses/entropy",
               "losses/old_approx_kl", "losses/approx_kl", "losses/clipfrac",
               "losses/explained_variance", "eval/win_rate_random", "eval/win_rate_heuristic",
               "charts/train_win_rate_opponent", "eval/win_rate_opponent")

    def __init__(self, run_dir: Path, cfg: Config, resume: bool):
        self.path = run_dir / "metrics.csv"
        new = not (resume and self.path.exists())
        self.file = open(self.path, "a" if not new else "w", newline="")
        self.csv = csv.DictWriter(self.file, fieldnames=self.COLUMNS, extrasaction="ignore")
        if new:
            self.csv.writeheader()
        self.tb = None
        if cfg.tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self.tb = SummaryWriter(str(run_dir))
                if new:
                    self.tb.add_text("config", "\n".join(
                        f"    {k}: {v}" for k, v in dataclasses.asdict(cfg).items()))
            except ImportError:
                print("tensorboard is not installed: metrics go to metrics.csv only",
                      file=sys.stderr)

    def log(self, row: dict[str, Any]) -> None:
        self.csv.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                           for k, v in row.items()})
        self.file.flush()
        if self.tb is not None:
            for k, v in row.items():
                if "/" in k and v is not None and not (isinstance(v, float) and math.isnan(v)):
                    self.tb.add_scalar(k, v, row["global_step"])

    def close(self) -> None:
        self.file.close()
        if self.tb is not None:
            self.tb.close()


# ============================================================================ training
def win_potential(cfg: Config, heuristic, hands: int = 4096) -> np.ndarray:
    """``2 * W[a, b] - 1``: the win-probability table (:mod:`truco_env.winprob`) of a side with
    ``a`` points against ``b``, from the points of ``hands`` heuristic-vs-heuristic hands."""
    from truco_env import VectorTrucoEnv
    from truco_env.winprob import hand_points_distribution, win_probability_table
    venv = VectorTrucoEnv(256, players=cfg.players, rules=cfg.rules, target=cfg.target,
                          flor=cfg.flor, episode="hand", check_actions=False, seed=cfg.seed + 17)
    obs, info = venv.reset()
    prev = np.zeros((256, 2), np.int64)
    points = []
    while len(points) < hands:
        act = (heuristic.act_batch(obs["observation"], obs["action_mask"]) if heuristic
               else (np.random.default_rng(0).random(obs["action_mask"].shape)
                     + obs["action_mask"]).argmax(1))
        obs, _, dones, info = venv.step(act)
        G = np.flatnonzero(dones)
        points.extend((info["score"][G] - prev[G]).tolist())
        prev[G] = info["score"][G]
        prev[G[info["winner"][G] >= 0]] = 0
    W = win_probability_table(venv.rules.target, hand_points_distribution(np.array(points)))
    return 2.0 * W - 1.0


def pick_device(name: str):
    import torch
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("bad value device='cuda': no CUDA device is available")
    return torch.device(name)


def rng_state(rng: np.random.Generator) -> dict:
    return rng.bit_generator.state


def train(cfg: Config, resume_from: Path | None = None) -> Path:
    import torch
    import torch.nn as nn
    from agents.ppo_policy import (PolicyNet, load_checkpoint, net_from_checkpoint,
                                   save_checkpoint, CheckpointError)
    from truco_env import VectorTrucoEnv

    # ---- set-up: folders, seeds, threads, device
    device = pick_device(cfg.device)
    torch.set_num_threads(cfg.threads or os.cpu_count() or 1)
    run_dir = Path(cfg.runs_dir) / cfg.run_name
    if resume_from is None:
        base, i = run_dir, 1
        while (run_dir / "config.yaml").exists():
            run_dir = base.with_name(f"{base.name}-{i}")
            i += 1
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_dir = run_dir / "checkpoints"
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))

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
    baselines = {"heuristic": load_baseline("heuristic", cfg.seed),
                 "random": load_baseline("random", cfg.seed)}
    if cfg.opponent:
        import agents
        try:
            baselines["opponent"] = agents.load(cfg.opponent, seed=cfg.seed)
        except (ValueError, OSError) as exc:
            raise ConfigError(f"bad value opponent={cfg.opponent!r}: {exc}") from None
    for name, agent in baselines.items():
        if agent is None:
            print(f"warning: training and evaluating without the {name} baseline",
                  file=sys.stderr)
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

    def checkpoint() -> None:
        save_checkpoint(ckpt_dir / "latest.pt", {
            "model": net.state_dict(), "optimizer": optimizer.state_dict(),
            "obs_size": D, "num_actions": A, "hidden": list(cfg.hidden),
            "config": dataclasses.asdict(cfg), "global_step": global_step,
            "iteration": iteration, "pool": pool.state(),
            "rng": {"numpy": rng_state(rng), "env": rng_state(venv.game.rng),
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
    prev_score = np.zeros((N, 2), np.int64)
    prev_phi = np.zeros((N, 2))
    potential = win_potential(cfg, baselines.get("heuristic")) if cfg.winprob_reward else None
    step_in_match = np.zeros(N, np.int64)

    start_step, start_time = global_step, time.time()
    win_h = float("nan")
    bar = None
    if cfg.progress:
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

            if cfg.score_reward or cfg.winprob_reward:  # shaping, to every seat of a team
                score = info["score"]
                delta = score - prev_score
                team_gain = cfg.score_reward * (delta - delta[:, ::-1]) / target
                if cfg.winprob_reward:
                    s_ = np.minimum(score, target - 1)
                    phi = np.stack([potential[s_[:, 0], s_[:, 1]],
                                    potential[s_[:, 1], s_[:, 0]]], axis=1)
                    phi[dones] = 0.0      # the match reward takes over: the sum telescopes
                    team_gain = team_gain + cfg.winprob_reward * (phi - prev_phi)
                    prev_phi[:] = phi
                prev_score[:] = score
                prev_score[dones] = 0
                rewards = rewards + team_gain[:, seat_team]
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
            snap = PolicyNet(D, A, tuple(cfg.hidden))
            snap.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
            pool.add_snapshot(snap)
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
            net.eval()
            for name, opp in pool.baselines.items():
                row[f"eval/win_rate_{name}"] = evaluate(
                    net, opp.agent, cfg, cfg.eval_games, cfg.seed + 1000 + iteration, device)
            net.train()
            win_h = row.get("eval/win_rate_heuristic", win_h)
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
    summary = {"run_dir": str(run_dir), "global_step": global_step, "iterations": iteration,
               "train_seconds": round(time.time() - start_time, 1),
               "SPS": int((global_step - start_step) / max(time.time() - start_time, 1e-9)),
               "checkpoint": str(ckpt_dir / "latest.pt"), "win_rate": {}}
    net.eval()
    if cfg.final_eval_games:
        for name, opp in pool.baselines.items():
            wr = evaluate(net, opp.agent, cfg, cfg.final_eval_games, cfg.seed + 7, device)
            half = 1.96 * math.sqrt(max(wr * (1 - wr), 1e-4) / cfg.final_eval_games)
            summary["win_rate"][name] = {"win_rate": round(wr, 4), "ci95": round(half, 4),
                                         "matches": cfg.final_eval_games}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [f"# {cfg.run_name}", "",
             f"{cfg.players} players, {cfg.rules}, match to {target}; {global_step:,} steps in "
             f"{summary['train_seconds']} s ({summary['SPS']:,} steps/s).", "",
             "| opponent | win rate | 95% CI | matches |", "|---|---|---|---|"]
    for name, r in summary["win_rate"].items():
        lines.append(f"| {name} | {r['win_rate']:.3f} | ±{r['ci95']:.3f} | {r['matches']} |")
    (run_dir / "summary.md").write_text("\n".join(lines) + "\n")
    logger.close()
    wr = ", ".join(f"{k} {v['win_rate']:.3f}" for k, v in summary["win_rate"].items())
    print(f"final win rate: {wr or 'not evaluated'}")
    print(f"outputs in {run_dir}/ (config.yaml, checkpoints/latest.pt, metrics.csv, "
          f"summary.json, summary.md)")
    return run_dir


# ============================================================================ command line
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Self-play PPO for Truco.", epilog=config_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="YAML config (default: configs/default.yaml)")
    ap.add_argument("--resume", metavar="RUN_DIR",
                    help="continue runs/<name> from its last checkpoint (its config.yaml is the "
                         "base; overrides such as total_steps=... apply on top)")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), help="overrides the device key")
    ap.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    args = ap.parse_args(argv)
    try:
        resume = None
        if args.resume:
            resume = Path(args.resume)
            if not (resume / "config.yaml").is_file():
                raise ConfigError(f"--resume {args.resume!r}: no config.yaml there (expected a "
                                  f"run folder such as runs/default)")
            values = read_yaml(resume / "config.yaml")
            values["run_name"], values["runs_dir"] = resume.name, str(resume.parent)
            if args.config:
                values.update(read_yaml(args.config))
        else:
            values = read_yaml(args.config or DEFAULT_CONFIG)
        values.update(parse_overrides(args.overrides))
        if args.device:
            values["device"] = args.device
        cfg = make_config(values)
        if resume is not None and ("run_name" in parse_overrides(args.overrides)):
            raise ConfigError("run_name cannot change on --resume")
        train(cfg, resume)
    except ValueError as exc:  # ConfigError, CheckpointError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
