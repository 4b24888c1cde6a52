"""The opponents of train.py's non-self-play matches: a population of the learner's past
snapshots that spans the whole run, chosen by prioritised fictitious self-play (PFSP) on
decayed win rates, and fixed baselines (the heuristic, the training styles of
:mod:`agents.zoo`, random and an optional ``opponent`` spec) as a minority of the matches.

The population (``pool_size`` snapshots): the ``pool_recent`` newest are always kept; every older
snapshot competes for the other places by reservoir sampling (Vitter's algorithm R), so the
kept ones are a uniform sample of the whole run's history, from its first minutes to now.  A
learner that forgets how to beat an old strategy meets it again (the usual guard against
cycling in self-play; AlphaStar's league and OpenAI Five keep opponents from the whole run).

PFSP: a snapshot is drawn with weight ``(1 - p)^pfsp_power + 0.001``, ``p`` the learner's
recent win rate against it (wins and games decay by ``pfsp_decay`` per iteration, with a prior
of one win and one loss), so the opponents it still loses to come back most often.

The exploiter (``exploiter_weight``, AlphaStar's *main exploiter*): a second network that only
ever plays the learner and is trained to beat it (train.py owns and trains it; here it is the
``exploiter`` kind of opponent).  It starts as a copy of the learner and, every
``exploiter_reset_every`` iterations, retires into the population as a snapshot
(``exploiter_N``) and starts again from the learner, so the holes it found stay in the pool.
With ``exploiter_hunt`` every exploiter but the first begins with a hunt: for that many
iterations :attr:`Pool.hunting` is set, every new match is the learner against the exploiter
(no self-play, no other opponent) and train.py trains the exploiter only, against a frozen
learner: a best-response phase (PSRO's oracle step) inside the run.

Everything here (the snapshots, their statistics, every opponent's random stream) is in
:meth:`Pool.state`, which train.py puts into its checkpoints.

One pool decides, the learner's: which snapshots are in the population (its ``rng`` runs the
reservoir and seeds each snapshot's sampling stream) and their PFSP results.  Each rollout
worker (:mod:`training.worker`) draws its matches' opponents from a replica of its own (its
own baselines, styles and random stream), brought up to date before every rollout by
:meth:`Pool.sync_message` and :meth:`Pool.apply_sync`: the membership, the results, and the
weights of the snapshots that worker has not been sent yet (a snapshot is sent once).  The
workers' results come back with their rollouts (:meth:`Pool.record`).
"""
from __future__ import annotations

import copy
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
    """An opponent agent, the kind of match it stands for, and the learner's results."""

    name: str
    agent: Any
    kind: str          # "pool", "heuristic", "styles", "random", "opponent"
    wins: float = 0.0
    games: float = 0.0
    seed: int = 0      # a snapshot's sampling seed (a worker's copy derives its own from it)

    @property
    def snapshot(self) -> bool:
        return self.kind == "pool"

    @property
    def win_rate(self) -> float:  # the learner's, with a weak prior at 1/2
        return (self.wins + 1.0) / (self.games + 2.0)


def agent_rng_state(agent) -> dict:
    """The random streams of an agent (numpy ``rng``, and a policy's torch generator)."""
    out = {"rng": agent.rng.bit_generator.state}
    if hasattr(agent, "gen"):
        out["gen"] = agent.gen.get_state()
    if getattr(agent, "answerer", None) is not None:       # truco_answers=NAME
        out["answerer"] = agent_rng_state(agent.answerer)
    return out


def set_agent_rng_state(agent, state: dict) -> None:
    agent.rng.bit_generator.state = state["rng"]
    if "gen" in state:
        agent.gen.set_state(state["gen"])
    if "answerer" in state and getattr(agent, "answerer", None) is not None:
        set_agent_rng_state(agent.answerer, state["answerer"])


class Pool:
    """Opponents of the non-self-play matches (module docstring)."""

    KINDS = ("pool", "heuristic", "styles", "random", "opponent", "exploiter")

    def __init__(self, cfg: Config, baselines: dict[str, Any], rng: np.random.Generator,
                 styles: dict[str, Any] | None = None):
        self.cfg, self.rng = cfg, rng
        self.baselines = {n: Opponent(n, a, n) for n, a in baselines.items() if a is not None}
        self.styles = {n: Opponent(n, a, "styles") for n, a in (styles or {}).items()}
        self.recent: list[Opponent] = []     # the pool_recent newest snapshots
        self.reservoir: list[Opponent] = []  # a uniform sample of the older ones
        self.detached: list[Opponent] = []   # left the pool, still in a match (on resume)
        self.count = 0                       # snapshots ever taken (names them)
        self.aged = 0                        # snapshots that left the recent window
        self.exploiter: Opponent | None = None  # the learning exploiter (train.py's)
        self.hunting = False                 # the exploiter's hunt: it plays every new match

    @property
    def snapshots(self) -> list[Opponent]:
        return self.reservoir + self.recent

    def all(self) -> list[Opponent]:
        return list(self.baselines.values()) + list(self.styles.values()) + self.snapshots \
            + ([self.exploiter] if self.exploiter is not None else [])

    def by_name(self) -> dict[tuple[str, str], Opponent]:
        """Every opponent by ``(kind, name)`` (a training style may be named ``heuristic``)."""
        return {(o.kind, o.name): o for o in self.detached + self.all()}

    # ------------------------------------------------------------------ snapshots
    def add_snapshot(self, net, prefix: str = "snapshot") -> None:
        """Freeze a CPU copy of ``net`` (the learner's, or a retiring exploiter's) into the
        population, named ``{prefix}_{count}``."""
        from agents.ppo_policy import PolicyAgent
        snap = frozen_copy(net)
        self.count += 1
        name = f"{prefix}_{self.count}"
        seed = int(self.rng.integers(2**31))
        self.recent.append(Opponent(name, PolicyAgent(snap, seed=seed, name=name,
                                                      **self.play_of(name)), "pool",
                                    seed=seed))
        recent = max(1, min(self.cfg.pool_recent, self.cfg.pool_size))
        while len(self.recent) > recent:
            self._age(self.recent.pop(0))

    def envido_of(self, name: str) -> str:
        """How snapshot ``name`` plays the envido: the learner's snapshots as the learner
        (``cfg.envido``), a retired exploiter's (``exploiter_N``, never given the solved
        envido) by its network."""
        return self.cfg.envido if name.startswith("snapshot") else "learned"

    def play_of(self, name: str) -> dict:
        """How snapshot ``name`` plays what its network does not: ``envido``
        (:meth:`envido_of`) and ``truco_answers`` (the learner's snapshots as the learner, a
        retired exploiter's by its network)."""
        mine = name.startswith("snapshot")
        return {"envido": self.envido_of(name),
                "truco_answers": self.cfg.truco_answers if mine else None,
                "truco_gate": self.cfg.truco_gate if mine else None}

    def _age(self, snap: Opponent) -> None:
        """Algorithm R over the snapshots that left the recent window."""
        room = self.cfg.pool_size - max(1, min(self.cfg.pool_recent, self.cfg.pool_size))
        self.aged += 1
        if room <= 0:
            return
        if len(self.reservoir) < room:
            self.reservoir.append(snap)
            return
        j = int(self.rng.integers(self.aged))
        if j < room:
            self.reservoir[j] = snap

    def record(self, results: list[list[tuple[str, float]]]) -> None:
        """The learner's results against snapshots in the workers' rollouts (per worker, in
        match order: ``(name, won)``), added as the worker added them to its replica."""
        names = {s.name: s for s in self.snapshots}
        for part in results:
            for name, won in part:
                if name in names:       # a snapshot that left the pool keeps no results
                    names[name].wins += won
                    names[name].games += 1

    def decay(self) -> None:
        """Once per iteration: older results count less (``pfsp_decay``)."""
        for o in self.all():
            o.wins *= self.cfg.pfsp_decay
            o.games *= self.cfg.pfsp_decay

    # ------------------------------------------------------------------ draws
    def weights(self) -> dict[str, float]:
        cfg = self.cfg
        return {"pool": cfg.pool_weight if self.snapshots else 0.0,
                "heuristic": cfg.heuristic_weight if "heuristic" in self.baselines else 0.0,
                "styles": cfg.styles_weight if self.styles else 0.0,
                "random": cfg.random_weight if "random" in self.baselines else 0.0,
                "opponent": cfg.opponent_weight if "opponent" in self.baselines else 0.0,
                "exploiter": cfg.exploiter_weight if self.exploiter is not None else 0.0}

    def sample(self, k: int) -> list[Opponent | None]:
        """``k`` draws: ``None`` = self-play, else an opponent."""
        cfg = self.cfg
        if self.hunting:
            return [self.exploiter] * k
        wd = self.weights()
        w = np.array([wd[x] for x in self.KINDS])
        out: list[Opponent | None] = []
        for _ in range(k):
            if w.sum() == 0 or self.rng.random() < cfg.self_play_frac:
                out.append(None)
                continue
            kind = self.KINDS[self.rng.choice(len(w), p=w / w.sum())]
            if kind == "pool":
                snaps = self.snapshots
                pw = np.array([(1.0 - s.win_rate) ** cfg.pfsp_power + 1e-3 for s in snaps])
                out.append(snaps[self.rng.choice(len(pw), p=pw / pw.sum())])
            elif kind == "exploiter":
                out.append(self.exploiter)
            elif kind == "styles":
                names = sorted(self.styles)
                out.append(self.styles[names[self.rng.integers(len(names))]])
            else:
                out.append(self.baselines[kind])
        return out

    # ------------------------------------------------------------------ checkpoints
    def state(self, in_use: list = ()) -> dict:
        """Everything to rebuild the pool; ``in_use``: the opponents of the matches in flight
        (snapshots among them that left the pool are saved too, to finish their matches)."""
        kept = {id(s) for s in self.snapshots}
        detached = {s.name: s for s in in_use if s is not None and s.snapshot
                    and id(s) not in kept}
        snap = lambda s: {"name": s.name, "model": s.agent.net.state_dict(), "wins": s.wins,  # noqa: E731
                          "games": s.games, "seed": s.seed, "random": agent_rng_state(s.agent)}
        fixed = lambda d: {n: {"wins": b.wins, "games": b.games,  # noqa: E731
                               "random": agent_rng_state(b.agent)} for n, b in d.items()}
        return {"count": self.count, "aged": self.aged,
                "recent": [snap(s) for s in self.recent],
                "reservoir": [snap(s) for s in self.reservoir],
                "detached": [snap(s) for s in detached.values()],
                "baselines": fixed(self.baselines), "styles": fixed(self.styles),
                "exploiter": None if self.exploiter is None else
                {"wins": self.exploiter.wins, "games": self.exploiter.games}}

    def load_state(self, state: dict, make_net) -> None:
        def snap(s: dict) -> Opponent:
            o = snapshot_opponent(s["name"], s["model"], s.get("seed", 0), make_net,
                                  **self.play_of(s["name"]))
            o.wins, o.games = s["wins"], s["games"]
            set_agent_rng_state(o.agent, s["random"])
            return o

        self.count, self.aged = state["count"], state["aged"]
        self.recent = [snap(s) for s in state["recent"]]
        self.reservoir = [snap(s) for s in state["reservoir"]]
        self.detached = [snap(s) for s in state["detached"]]
        if self.exploiter is not None and state.get("exploiter") is not None:
            self.exploiter.wins = state["exploiter"]["wins"]
            self.exploiter.games = state["exploiter"]["games"]
        for kind, mine in (("baselines", self.baselines), ("styles", self.styles)):
            for n, b in state[kind].items():
                if n in mine:
                    mine[n].wins, mine[n].games = b["wins"], b["games"]
                    set_agent_rng_state(mine[n].agent, b["random"])

    # ------------------------------------------------------------------ replicas
    def sync_message(self, known: set[str]) -> dict:
        """What a worker's replica needs to match this pool: the membership in order, the
        snapshots' results, and the weights (with seeds) of those not in ``known``."""
        return {"recent": [s.name for s in self.recent], "hunting": self.hunting,
                "reservoir": [s.name for s in self.reservoir],
                "results": {s.name: (s.wins, s.games) for s in self.snapshots},
                "new": {s.name: (s.agent.net.state_dict(), s.seed) for s in self.snapshots
                        if s.name not in known}}

    def apply_sync(self, msg: dict, make_net, seed_of) -> None:
        """Make this replica's population :meth:`sync_message`'s; a new snapshot samples with
        ``seed_of(its seed)``.  Snapshots that left keep playing the matches they are in."""
        have = {s.name: s for s in self.snapshots + self.detached}
        for name, (weights, seed) in msg["new"].items():
            if name not in have:
                have[name] = snapshot_opponent(name, weights, seed, make_net, seed_of(seed),
                                               **self.play_of(name))
        self.recent = [have[n] for n in msg["recent"]]
        self.hunting = msg["hunting"]
        self.reservoir = [have[n] for n in msg["reservoir"]]
        for s in self.snapshots:
            s.wins, s.games = msg["results"][s.name]


def snapshot_opponent(name: str, weights: dict, seed: int, make_net,
                      agent_seed: int | None = None, envido: str = "learned",
                      truco_answers: str | None = None, truco_gate: float | None = None
                      ) -> Opponent:
    """A snapshot from its weights: a frozen network in ``make_net()``'s shape, sampling with
    ``agent_seed`` (default ``seed``), playing the envido as ``envido`` says."""
    from agents.ppo_policy import PolicyAgent
    net = make_net()
    net.load_state_dict(weights)
    net.eval().requires_grad_(False)
    agent = PolicyAgent(net, seed=seed if agent_seed is None else agent_seed, name=name,
                        envido=envido, truco_answers=truco_answers, truco_gate=truco_gate)
    return Opponent(name, agent, "pool", seed=seed)


def frozen_copy(net):
    """A CPU copy of a policy network, in eval mode, without gradients (draws no random
    number: copying is not initialising)."""
    snap = copy.deepcopy(net).cpu().eval()
    for p in snap.parameters():
        p.grad = None
        p.requires_grad_(False)
    return snap


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


def make_styles(cfg: Config, run_seed: int | None = None) -> dict[str, Any]:
    """:data:`agents.zoo.TRAIN_STYLES` and ``random_styles`` styles of
    :func:`agents.zoo.random_styles` (empty when ``styles_weight`` is 0; the plain heuristic
    has its own weight).  The agents sample with ``cfg.seed`` (a worker's own); the random
    styles' knobs are drawn with ``run_seed`` (default ``cfg.seed``), the run's seed, so that
    every worker, and every worker of a resumed run, meets the same styles."""
    if not cfg.styles_weight:
        return {}
    from agents import zoo
    knobs_seed = cfg.seed if run_seed is None else run_seed
    specs = [*zoo.TRAIN_STYLES, *zoo.random_styles(cfg.random_styles, knobs_seed)]
    return {spec: load_baseline(spec, cfg.seed + 11 + i) for i, spec in enumerate(specs)}


def make_heldout(cfg: Config) -> dict[str, Any]:
    """The evaluation set: :mod:`agents.zoo`'s held-out styles and random (never trained
    against, except random at ``random_weight``)."""
    from agents import zoo
    out = {spec: load_baseline(spec, cfg.seed + 101 + i)
           for i, spec in enumerate(zoo.heldout_specs())}
    return {k: v for k, v in out.items() if v is not None}


def eval_agents(baselines: dict[str, Any], heldout: dict[str, Any]) -> dict[str, Any]:
    """The opponents of an evaluation by display name: the baselines (:func:`make_baselines`,
    those that loaded) and the held-out styles (:func:`make_heldout`) under their short names
    (``training.logger.short_name``)."""
    from .logger import short_name
    out = {name: agent for name, agent in baselines.items() if agent is not None}
    out.update({short_name(spec): agent for spec, agent in heldout.items()})
    return out
