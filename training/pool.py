"""The opponents of train.py's non-self-play matches: past snapshots of the learner, chosen by
prioritised fictitious self-play (PFSP), the heuristic and random baselines, and an optional
fixed ``opponent`` spec.  The pool's state (snapshots and win counts) goes into checkpoints.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .config import Config, ConfigError


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
    """An opponent agent and the learner's results against it."""

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
        """Freeze a CPU copy of the learner's ``net`` into the pool (the oldest drops out)."""
        from agents.ppo_policy import PolicyAgent, PolicyNet
        snap = PolicyNet(net.obs_size, net.num_actions, tuple(net.hidden))
        snap.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
        self.count += 1
        seed = int(self.rng.integers(2**31))
        self.snapshots.append(Opponent(f"snapshot_{self.count}",
                                       PolicyAgent(snap, seed=seed, name=f"snapshot_{self.count}"),
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


def make_baselines(cfg: Config) -> dict[str, Any]:
    """``heuristic``, ``random`` and the ``opponent`` spec where one is set (a missing baseline
    is ``None``, with a warning; a bad ``opponent`` spec is a :class:`ConfigError`)."""
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
    return baselines
