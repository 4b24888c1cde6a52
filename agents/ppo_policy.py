"""A PPO policy: the network trained by ``train.py``, its checkpoints, and a player over it.

Usage (not run as a doctest: it needs a trained run)::

    agent = PolicyAgent.load("runs/default")            # a run folder or a checkpoint file
    action = agent.act(obs_dict, view)                   # one game
    actions = agent.act_batch(obs, mask)                 # N games at once: [N, D], [N, A]

``agents.load("checkpoint:runs/default")`` gives the same agent (registered on import of
:mod:`agents`).  A checkpoint is one ``torch.save`` dict (see :func:`save_checkpoint`), written
to a temporary file and moved into place with ``os.replace`` so that a crash never leaves half
a file behind.
"""
from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from truco_env.observe import LAYOUT_VERSION, encoder_for_size, live_columns
from truco_env.rules import ENVIDO_CALL_IDS

from .base import Agent

#: Bumped when the checkpoint layout changes; older files are refused with a clear error.
CHECKPOINT_FORMAT = "truco_env.ppo/1"
LATEST = "latest.pt"


class CheckpointError(ValueError):
    """A checkpoint that cannot be read, or that does not fit what is asked of it."""


class PolicyNet(nn.Module):
    """Shared MLP trunk with a masked policy head and a value head.

    The observation already says where the player sits relative to the mano and which features
    are its team's, so one network plays every seat.  ``skip`` names observation pieces the
    network does not read (``truco_env.observe.dead_pieces``: those its training games never
    fill): the first layer sees the other columns only, so a 1v1 network does not pay for the
    señas, three-player and pica-pica pieces.  It still takes the whole observation
    (``obs_size`` floats) and plays any game; the skipped pieces mean nothing to it.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: tuple[int, ...] = (256, 128),
                 skip: tuple[str, ...] = ()):
        super().__init__()
        self.skip = tuple(skip)
        cols = None
        if self.skip:
            cols = torch.as_tensor(live_columns(encoder_for_size(obs_size), self.skip))
        self.register_buffer("cols", cols, persistent=False)
        layers, width = [], obs_size if cols is None else len(cols)
        for h in hidden:
            layers += [_init(nn.Linear(width, h)), nn.Tanh()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = _init(nn.Linear(width, num_actions), std=0.01)
        self.value = _init(nn.Linear(width, 1), std=1.0)
        self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, tuple(hidden)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's output for a batch of whole observations."""
        return self.trunk(self.select(obs))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at -1e9) and values, for a batch."""
        return self.heads(self.trunk(self.select(obs)), mask)

    def select(self, obs: torch.Tensor) -> torch.Tensor:
        """The columns of whole observations that the network reads (all without ``skip``)."""
        return obs if self.cols is None else obs.index_select(-1, self.cols)

    def heads(self, z: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values from the trunk's output ``z``."""
        return self.policy(z).masked_fill(~mask, -1e9), self.value(z).squeeze(-1)

    def get_value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.value(self.features(obs)).squeeze(-1)


def _init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


# ---------------------------------------------------------------------------- checkpoints
def save_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> None:
    """Write ``payload`` (plus the format tag and the observation layout version,
    :data:`truco_env.observe.LAYOUT_VERSION`) atomically: temp file in the same folder, then
    ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save({"format": CHECKPOINT_FORMAT, "layout_version": LAYOUT_VERSION,
                        **payload}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def resolve_checkpoint(path: str | os.PathLike) -> Path:
    """A checkpoint file from a file path or a run folder (``<run>/checkpoints/latest.pt``)."""
    p = Path(path)
    if p.is_dir():
        for cand in (p / "checkpoints" / LATEST, p / LATEST):
            if cand.is_file():
                return cand
        raise CheckpointError(f"no checkpoint in run folder {str(p)!r} "
                              f"(looked for checkpoints/{LATEST})")
    if not p.is_file():
        raise CheckpointError(f"checkpoint {str(p)!r} does not exist")
    return p


def load_checkpoint(path: str | os.PathLike, map_location: str | torch.device = "cpu") -> dict:
    """Read and check a checkpoint; a corrupt or foreign file raises :class:`CheckpointError`."""
    p = resolve_checkpoint(path)
    try:
        ckpt = torch.load(p, map_location=map_location, weights_only=True)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {str(p)!r} is corrupt or not a torch file "
                              f"({type(exc).__name__}: {str(exc).splitlines()[0][:200]})") from None
    if not isinstance(ckpt, dict) or "format" not in ckpt:
        raise CheckpointError(f"{str(p)!r} is not a truco_env PPO checkpoint (no format tag)")
    if ckpt["format"] != CHECKPOINT_FORMAT:
        raise CheckpointError(f"checkpoint {str(p)!r} has format {ckpt['format']!r}; this code "
                              f"reads {CHECKPOINT_FORMAT!r}")
    version = ckpt.get("layout_version", 1)
    if version != LAYOUT_VERSION:
        raise CheckpointError(f"checkpoint {str(p)!r} was trained on observation layout version "
                              f"{version}; this code's layout is version {LAYOUT_VERSION} "
                              f"(truco_env.observe.LAYOUT_VERSION): retrain it, or load it with "
                              f"the release that wrote it")
    for key in ("model", "obs_size", "num_actions", "hidden"):
        if key not in ckpt:
            raise CheckpointError(f"checkpoint {str(p)!r} lacks {key!r}")
    return ckpt


def net_from_checkpoint(ckpt: dict, obs_size: int | None = None,
                        num_actions: int | None = None) -> PolicyNet:
    """Rebuild the network of a loaded checkpoint, checking it fits the environment."""
    if obs_size is not None and ckpt["obs_size"] != obs_size:
        raise CheckpointError(f"checkpoint observation size {ckpt['obs_size']} does not match the "
                              f"environment's {obs_size}")
    if num_actions is not None and ckpt["num_actions"] != num_actions:
        raise CheckpointError(f"checkpoint has {ckpt['num_actions']} actions; the environment "
                              f"has {num_actions}")
    try:
        net = PolicyNet(ckpt["obs_size"], ckpt["num_actions"], tuple(ckpt["hidden"]),
                        skip=tuple(ckpt.get("skip", ())))
    except ValueError as exc:
        raise CheckpointError(f"checkpoint does not describe a network: {exc}") from None
    try:
        net.load_state_dict(ckpt["model"])
    except RuntimeError as exc:
        raise CheckpointError(f"checkpoint weights do not fit the network: "
                              f"{str(exc).splitlines()[0]}") from None
    return net.eval()


# ---------------------------------------------------------------------------- the player
def envido_solver(envido: str):
    """The :class:`agents.solved_envido.EnvidoSolver` of ``envido="solved"`` (the
    equilibrium) or ``"robust"`` / ``"robust:p=1,n0=5,matches=2000"`` (the data-biased
    response to the training opponents' envido, :func:`agents.solved_envido.robust_for`) or
    ``"adaptive[:settings]"`` (one per opponent class, :func:`agents.solved_envido.adaptive_for`);
    ``None`` for ``"learned"`` and ``"anchored"``: what a policy of a run trained with
    ``envido=...`` plays its envido with, in training (the learner, its snapshots) and after
    (this module's agents)."""
    from .solved_envido import (NETWORK_ENVIDO, EnvidoSolver, adaptive_settings,
                                canonical_envido, robust_settings)
    try:
        envido = canonical_envido(envido)
    except ValueError as exc:
        raise CheckpointError(str(exc)) from None
    if envido in NETWORK_ENVIDO:              # anchored: the network plays (trained toward
        return None                           # the solution)
    return EnvidoSolver(robust=robust_settings(envido), adaptive=adaptive_settings(envido))


@functools.lru_cache(maxsize=None)
def _answerer_net(name: str) -> "PolicyNet":
    from . import pretrained
    from truco_env.observe import COMPACT_SIZE
    net, _ = pretrained.load_net(name)
    if net.obs_size != COMPACT_SIZE:
        raise CheckpointError(f"truco_answers={name!r}: pretrained:{name} reads "
                              f"{encoder_for_size(net.obs_size)!r} observations; expected "
                              f"'compact'")
    return net.requires_grad_(False)


def truco_answerer(name: str | None, seed: int | None = None) -> "PolicyAgent | None":
    """The player whose network answers a policy's truco (:mod:`agents.truco_answers`):
    ``pretrained:NAME``'s network (loaded once per process), sampling with its own stream;
    ``None`` for ``None``.  An unknown name is a ``ValueError`` naming the shipped ones."""
    if not name:
        return None
    return PolicyAgent(_answerer_net(name), seed=seed, name=f"pretrained:{name}")


def checkpoint_truco_answers(ckpt: dict) -> str | None:
    """Whose network answers the checkpoint's policy's truco: its run's ``truco_answers`` key
    (``None``: its own)."""
    return (ckpt.get("config") or {}).get("truco_answers")


def checkpoint_truco_gate(ckpt: dict) -> float | None:
    """The checkpoint's policy's truco gate: its run's ``truco_gate`` key (``None``: none)."""
    return (ckpt.get("config") or {}).get("truco_gate")


def checkpoint_envido(ckpt: dict) -> str:
    """How the checkpoint's policy plays the envido: its run's ``envido`` key (``"learned"``
    for runs before the key existed)."""
    return (ckpt.get("config") or {}).get("envido", "learned")


class PolicyAgent(Agent):
    """Plays a trained policy: samples from it (``greedy=False``) or takes its best action.

    An :class:`agents.Agent`: batched, reads the encoder its network was trained on
    (``observation``: ``"compact"``, ``"recall"`` or ``"infostate"``, from the network's input
    size: :func:`truco_env.observe.encoder_for_size`, a ``ValueError`` for a size no encoder
    has).
    """

    def __init__(self, net: PolicyNet, greedy: bool = False, seed: int | None = None,
                 name: str = "checkpoint", value_trained: bool = True,
                 envido: str = "learned", truco_answers: str | None = None,
                 truco_gate: float | None = None):
        super().__init__(seed)
        #: ``"solved"`` / ``"robust"``: every envido decision is the solved envido's
        #: (:class:`agents.solved_envido.EnvidoSolver`), as in a run trained with
        #: ``envido=solved`` / ``robust``; the network takes the others.
        self.envido = envido
        self.envido_solver = envido_solver(envido)
        #: Whether the value head is the critic that was trained (not with critic=privileged).
        self.value_trained = value_trained
        self.net = net.eval()
        self.greedy = greedy
        self.name = name
        self.obs_size = net.obs_size
        self.observation = encoder_for_size(net.obs_size)
        self.gen = torch.Generator()
        #: ``pretrained:NAME``'s player that answers the opponent's truco songs
        #: (:mod:`agents.truco_answers`), or ``None``: the network answers.
        self.truco_answers, self.answerer, self.truco_gate = None, None, None
        self.reseed(seed)
        if truco_answers:
            self.set_truco_answers(truco_answers, gate=truco_gate)
        elif truco_gate is not None:
            raise ValueError(f"truco_gate={truco_gate!r} needs an answerer (truco_answers=NAME)")

    def set_truco_answers(self, name: str | None, gate: float | None = None) -> None:
        """Take the answers to the opponent's truco from ``pretrained:NAME``'s network
        (``None``: from this policy's own).  ``gate``: also hand it the decisions where this
        policy's network sings a truco-family song on its own initiative while the opponents
        folded to our songs less often than ``gate`` in this match
        (:func:`agents.truco_answers.gated`)."""
        if gate is not None and not name:
            raise ValueError(f"gate={gate!r} needs an answerer (truco_answers=NAME)")
        self.truco_answers = name or None
        self.truco_gate = gate
        seed = getattr(self, "seed", None)
        self.answerer = truco_answerer(name, None if seed is None else seed + 2)
        if self.answerer is not None:
            self.answerer.greedy = self.greedy

    def reseed(self, seed: int | None) -> None:
        """Restart the policy's sampling stream (``None``: fresh entropy)."""
        super().reseed(seed)
        self.seed = seed
        self.gen.manual_seed(seed if seed is not None
                             else int(np.random.SeedSequence().entropy % 2**63))
        if getattr(self, "answerer", None) is not None:
            self.answerer.reseed(None if seed is None else seed + 2)

    @classmethod
    def load(cls, path: str | os.PathLike, greedy: bool = False,
             seed: int | None = None) -> "PolicyAgent":
        ckpt = load_checkpoint(path)
        shared = (ckpt.get("config") or {}).get("critic", "shared") == "shared"
        return cls(net_from_checkpoint(ckpt), greedy=greedy, seed=seed, name=f"checkpoint:{path}",
                   value_trained=shared, envido=checkpoint_envido(ckpt),
                   truco_answers=checkpoint_truco_answers(ckpt),
                   truco_gate=checkpoint_truco_gate(ckpt))

    @torch.no_grad()
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row; rows with an all-zero mask get action 0 (they are not to act)."""
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"{self.name} reads {self.observation!r} observations of size "
                             f"{self.obs_size}; got shape {obs.shape} (make the env with "
                             f"observation={self.observation!r})")
        if self.envido_solver is not None:
            return self.envido_solver.act(obs, mask, self.rng, self.act_networks)
        return self.act_networks(obs, mask)

    def act_networks(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`act_batch` without the solved envido: the network's actions, and the
        answerer's at the answers to the opponent's truco where one is set."""
        if self.answerer is None:
            return self.act_batch_net(obs, mask)
        from .truco_answers import answer_with
        mask = np.asarray(mask)
        out = np.zeros(len(obs), np.int64)
        ans, out[ans] = answer_with(self.answerer, obs, mask)
        if not ans.all():
            out[~ans] = self.act_batch_net(obs[~ans], mask[~ans])
        if self.truco_gate is not None:
            from truco_env.observe import COMPACT_SIZE
            from .truco_answers import gated
            veto = gated(obs, mask, out, self.truco_gate)
            if veto.any():
                out[veto] = self.answerer.act_batch_net(
                    np.ascontiguousarray(obs[veto, :COMPACT_SIZE]), mask[veto])
        return out

    @torch.no_grad()
    def act_batch_net(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:meth:`act_batch` by the network alone (no solved envido)."""
        o = torch.as_tensor(obs)
        m = torch.as_tensor(np.asarray(mask)).bool()
        empty = ~m.any(dim=1)
        m[empty, 0] = True
        probs, _ = self.probs(o, m)
        if self.greedy:
            a = probs.argmax(dim=1)
        else:
            a = torch.multinomial(probs, 1, generator=self.gen).squeeze(1)
        return a.numpy()

    def probs(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy's action probabilities (0 on illegal actions) and the value head's
        estimate, for a batch of observations and boolean masks."""
        logits, value = self.net(obs, mask)
        return torch.softmax(logits, dim=1), value

    def act(self, observation: dict, view: dict | None = None) -> int:
        return int(self.act_batch(observation["observation"][None],
                                  observation["action_mask"][None])[0])

    @torch.no_grad()
    def advice(self, observation: dict) -> dict | None:
        """The policy's probability of each legal action (softmax over the masked logits) and
        the value head's estimate of the position: the return the critic was trained on
        (train.py: +1 a won match, -1 a lost one, plus ``winprob_reward`` times the change of
        the side's match-win probability), so about ``2 P(win) - 1``; ``None`` when the value
        head was not trained (``critic=privileged`` runs train a separate critic).  ``None``
        altogether when no action is legal."""
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if not mask.any():
            return None
        obs = np.asarray(observation["observation"], dtype=np.float32)[None]
        if obs.shape[1] != self.obs_size:
            raise ValueError(f"{self.name} reads {self.observation!r} observations of size "
                             f"{self.obs_size}; got {obs.shape[1]}")
        _, value = self.probs(torch.as_tensor(obs), torch.as_tensor(mask)[None])
        p = self.action_probs(obs, mask[None], sampled=True)[0]
        return {"probs": {int(a): float(p[a]) for a in np.flatnonzero(mask)},
                "value": float(value[0]) if self.value_trained else None}

    @torch.no_grad()
    def action_probs(self, obs: np.ndarray, mask: np.ndarray, sampled: bool = False
                     ) -> np.ndarray:
        """The distribution :meth:`act_batch` draws from, ``[n, actions]`` (``greedy``: the
        network's argmax, unless ``sampled``).  With the solved envido an envido decision's
        row is the solution's: its calls and answers, and its "pass" mass spread by the network
        over the other actions (what :meth:`act_batch` does).  Read by ``evaluate.py probe``
        and the browser's advice."""
        obs = np.asarray(obs, dtype=np.float32)
        m = np.asarray(mask).astype(bool)

        def net_probs(mk):
            p = self.probs(torch.as_tensor(obs), torch.as_tensor(mk))[0].numpy()
            if self.answerer is not None:
                from truco_env.observe import COMPACT_SIZE
                from .truco_answers import truco_answering
                ans = truco_answering(obs, mk)
                if ans.any():
                    p[ans] = self.answerer.probs(
                        torch.as_tensor(np.ascontiguousarray(obs[ans, :COMPACT_SIZE])),
                        torch.as_tensor(mk[ans]))[0].numpy()
                if self.truco_gate is not None:    # the songs' mass goes to the answerer
                    from .truco_answers import SONGS, fold_read
                    rows = ~ans & (fold_read(obs) < self.truco_gate) & (p[:, SONGS].sum(1) > 0)
                    if rows.any():
                        sung = p[rows][:, SONGS].sum(axis=1, keepdims=True)
                        pa = self.answerer.probs(
                            torch.as_tensor(np.ascontiguousarray(obs[rows, :COMPACT_SIZE])),
                            torch.as_tensor(mk[rows]))[0].numpy()
                        own = p[rows].copy()
                        own[:, SONGS] = 0.0
                        p[rows] = own + sung * pa
            if self.greedy and not sampled:
                p = np.eye(p.shape[1], dtype=p.dtype)[p.argmax(axis=1)]
            return p.astype(np.float64)

        out = net_probs(m)
        if self.envido_solver is not None:
            target, pass_mass = self.envido_solver.targets(obs, m, m.shape[1])
            rows = np.flatnonzero(target.sum(axis=1) + pass_mass > 0)
            if len(rows):
                deferred = m.copy()
                deferred[:, list(ENVIDO_CALL_IDS)] = False
                deferred[~deferred.any(axis=1), 0] = True   # rows the network never answers
                out[rows] = target[rows] + pass_mass[rows, None] * net_probs(deferred)[rows]
        return out

    def __repr__(self) -> str:
        return f"PolicyAgent({self.name!r}, greedy={self.greedy})"


class AveragePolicyAgent(PolicyAgent):
    """The average of several trained policies: at every decision, the mean of their action
    probabilities (and of their values), sampled or, with ``greedy``, its argmax.

    Built by :meth:`from_run` from one run's late checkpoints (``checkpoint:PATH,average=K``),
    it is the run's *average policy*, the object that fictitious play and NFSP return, rather
    than its last iterate: where self-play cycles (a policy that folds to falta envido re-raises
    until an exploiter punishes it, then calls them until it is punished the other way), the
    average mixes the iterates, and a best response has to beat all of them at once.  The mix
    is per decision (a behavioural average with equal weights), not per match: it needs no
    state, so the agent plays batched like any other; fictitious play's average would weight
    each iterate's action by how often that iterate reaches the decision.  Cost: one forward
    pass per network.
    """

    def __init__(self, nets: list[PolicyNet], greedy: bool = False, seed: int | None = None,
                 name: str = "average", value_trained: bool = True, envido: str = "learned"):
        if not nets:
            raise ValueError("an average policy needs at least one network")
        sizes = {(n.obs_size, n.num_actions) for n in nets}
        if len(sizes) != 1:
            raise CheckpointError(f"the networks of an average policy read different games "
                                  f"(observation size, actions): {sorted(sizes)}")
        super().__init__(nets[-1], greedy=greedy, seed=seed, name=name,
                         value_trained=value_trained, envido=envido)
        self.nets = [n.eval() for n in nets]
        cols = [n.cols for n in nets]
        #: Every network reads the same columns (one run's checkpoints): select them once.
        self.same_columns = all(c is None for c in cols) or (
            all(c is not None for c in cols) and all(torch.equal(c, cols[0]) for c in cols))
        #: The checkpoint files of the networks, oldest first (set by :meth:`from_run`).
        self.sources: list[Path] = []

    def probs(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        total, value = None, None
        x = self.nets[0].select(obs) if self.same_columns else None   # selected once
        for net in self.nets:
            logits, v = net.heads(net.trunk(x), mask) if x is not None else net(obs, mask)
            p = torch.softmax(logits, dim=1)
            total, value = (p, v) if total is None else (total + p, value + v)
        k = float(len(self.nets))
        return total / k, value / k

    @classmethod
    def from_run(cls, path: str | os.PathLike, k: int, last: float = 0.5, greedy: bool = False,
                 seed: int | None = None) -> "AveragePolicyAgent":
        """The average of ``k`` checkpoints of a run: its latest one and the checkpoints it
        kept (``checkpoints/step_<global step>.pt``, train.py's ``keep_every``) from the last
        ``last`` fraction of its steps, ``k`` of them evenly spaced by step (fewer when the
        run kept fewer)."""
        if k < 1:
            raise ValueError(f"average={k}: expected a number of checkpoints >= 1")
        if not 0.0 < last <= 1.0:
            raise ValueError(f"last={last}: expected a fraction of the run's steps in (0, 1]")
        latest_file = resolve_checkpoint(path)
        latest = load_checkpoint(latest_file)
        end = int(latest.get("global_step", 0))
        kept = []
        for f in latest_file.parent.glob("step_*.pt"):
            try:
                step = int(f.stem[len("step_"):])
            except ValueError:
                continue
            if (1.0 - last) * end <= step < end:
                kept.append((step, f))
        if k > 1 and not kept:
            raise CheckpointError(
                f"run {str(path)!r} kept no checkpoints (checkpoints/step_*.pt) in the last "
                f"{last:g} of its {end} steps: train it with keep_every=N to average it")
        kept.sort()
        chosen = [kept[int(round(i))][1] for i in
                  np.linspace(0, len(kept) - 1, min(k - 1, len(kept)))] if k > 1 else []
        shared = (latest.get("config") or {}).get("critic", "shared") == "shared"
        chosen = list(dict.fromkeys(chosen))
        nets = [net_from_checkpoint(load_checkpoint(f)) for f in chosen]
        nets.append(net_from_checkpoint(latest))
        agent = cls(nets, greedy=greedy, seed=seed, value_trained=shared,
                    envido=checkpoint_envido(latest),
                    name=f"checkpoint:{path},average={k}" + (f",last={last:g}"
                                                             if last != 0.5 else ""))
        if checkpoint_truco_answers(latest):
            agent.set_truco_answers(checkpoint_truco_answers(latest),
                                    gate=checkpoint_truco_gate(latest))
        agent.sources = chosen + [latest_file]
        return agent

    def __repr__(self) -> str:
        return f"AveragePolicyAgent({self.name!r}, nets={len(self.nets)}, greedy={self.greedy})"


def from_spec(args: str, seed: int | None = None) -> PolicyAgent:
    """The ``checkpoint`` factory of :func:`agents.register`: ``args`` is ``PATH`` (a run folder
    or a checkpoint file), optionally followed by options after commas: ``greedy`` plays the
    argmax action; ``average=K`` (and ``last=F``, default 0.5) plays the average of K of the
    run's checkpoints from the last fraction F of its steps (:class:`AveragePolicyAgent`)."""
    path, *items = [x.strip() for x in args.split(",")]
    greedy = "greedy" in items
    items = [x for x in items if x != "greedy"]
    if not path:
        raise ValueError("agent spec 'checkpoint:': expected checkpoint:PATH (a run folder or "
                         "a checkpoint file)")
    from .base import parse_params
    opts = parse_params(",".join(items), {"average": int, "last": float},
                        f"checkpoint:{args}")
    if "last" in opts and "average" not in opts:
        raise ValueError(f"agent spec 'checkpoint:{args}': last= needs average=K")
    if "average" in opts:
        return AveragePolicyAgent.from_run(path, opts["average"], opts.get("last", 0.5),
                                           greedy=greedy, seed=seed)
    return PolicyAgent.load(path, greedy=greedy, seed=seed)


def _register() -> None:
    """Make ``agents.load("checkpoint:PATH")`` build a :class:`PolicyAgent`."""
    try:
        from agents.base import register
    except ImportError:  # pragma: no cover - the registry is not there
        return
    register("checkpoint", from_spec, replace=True)


_register()

__all__ = ["PolicyNet", "PolicyAgent", "AveragePolicyAgent", "CheckpointError", "save_checkpoint", "load_checkpoint",
           "net_from_checkpoint", "resolve_checkpoint", "from_spec", "CHECKPOINT_FORMAT"]
