"""train.py's rollout: a :class:`RolloutWorker` steps its share of the games with the current
policy and the opponents it drew, and hands the learner a :class:`Rollout` (the trained
transitions with their advantages, and what happened in the matches).

One class serves both backends, so that the algorithm cannot differ between them:

* ``backend=local`` (:class:`LocalBackend`): one worker in train.py's process owns all
  ``num_envs`` games and plays with the learner's own networks (on the learner's device);
* ``backend=ray`` (:mod:`training.ray_backend`): each of ``workers`` Ray actors is a worker
  that owns ``num_envs // workers`` games and plays with a CPU copy of the networks, whose
  weights the learner sends before every rollout.

A worker keeps everything its games need between rollouts: the vector environment and its
matches in flight, each game's opponent and learner team, the shaping state, the transitions
the last rollout cut (:class:`training.rollout.SeatBuffer`; the exploiter's too), its random
streams (numpy for the draws of opponents and teams, a torch generator for the actions) and a
replica of the opponent pool (:meth:`training.pool.Pool.apply_sync`: the learner's membership
and PFSP results, with baselines and styles of its own).  GAE runs on the worker, over the
trajectories it owns, with the same code for either backend; the learner concatenates the
workers' batches and runs the PPO update.

Seeds: worker ``slot`` of generation ``g`` (a replaced worker is the next generation) uses
:func:`slot_seed`; slot 0 of generation 0 uses the run's seed itself, so a Ray run with one
worker draws exactly the numbers of the local run and learns the same way (the tests compare
them).  Nothing a worker does draws from the learner's random streams.

>>> slot_seed(7, 0), slot_seed(7, 1) == slot_seed(7, 1), slot_seed(7, 1) != slot_seed(7, 0, 1)
(7, True, True)
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from .config import Config
from .pool import Opponent, Pool, make_baselines, make_styles
from .rollout import Batch, SeatBuffer
from .shaping import Shaper


def slot_seed(seed: int, slot: int, generation: int = 0) -> int:
    """The seed of a worker slot's ``generation``-th worker (the run's own for slot 0's first;
    the others hashed apart by :class:`numpy.random.SeedSequence`)."""
    if slot == 0 and generation == 0:
        return seed
    return int(np.random.SeedSequence([seed, slot, generation]).generate_state(1)[0] >> 1)


def make_env(cfg: Config, num_envs: int, seed: int):
    """The config's vector environment."""
    from truco_env import VectorTrucoEnv
    return VectorTrucoEnv(num_envs, players=cfg.players, rules=cfg.rules, target=cfg.target,
                          flor=cfg.flor, pica_pica=cfg.pica_pica, observation=cfg.observation,
                          **cfg.sena_knobs(), episode=cfg.episode, deck=cfg.deck,
                          calls=cfg.calls, check_actions=False, seed=seed)


def net_args(cfg: Config, env) -> tuple:
    """``PolicyNet``'s arguments for the run's policy in ``env`` (one of the config's vector
    envs): observation size, actions, hidden widths, and the observation pieces its games never
    fill (``truco_env.observe.dead_pieces``), which the network does not read."""
    from truco_env.observe import dead_pieces
    return (env.observation_size, env.num_actions, tuple(cfg.hidden),
            dead_pieces(env.rules, env.players))


@dataclass
class Rollout:
    """One worker's rollout, as the learner receives it."""

    batch: Batch                     # the learner's trained transitions
    x_batch: Batch | None            # the exploiter's (exploiter_weight > 0)
    carried: int                     # transitions carried into this rollout
    match_len: list[int]             # length (steps) of every match that ended
    results: dict[str, list[float]]  # the learner's wins (1/0) per kind of opponent
    snapshot_results: list[tuple[str, float]] = field(default_factory=list)  # for PFSP


def tensors(x):
    """numpy arrays -> torch tensors, recursively (checkpoints load with ``weights_only``)."""
    import torch
    if isinstance(x, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(x))
    if isinstance(x, dict):
        return {k: tensors(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(tensors(v) for v in x)
    return x


def arrays(x):
    """The inverse of :func:`tensors`."""
    import torch
    if isinstance(x, torch.Tensor):
        return x.numpy()
    if isinstance(x, dict):
        return {k: arrays(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(arrays(v) for v in x)
    return x


class RolloutWorker:
    """Steps ``num_envs`` games for train.py (module docstring).

    ``potential``: the shaping's win-potential table (computed once, by the learner);
    ``threads``: torch threads to set (a Ray actor's 1; ``None`` leaves the process's).
    """

    def __init__(self, cfg: Config, num_envs: int, slot: int = 0, generation: int = 0,
                 potential: np.ndarray | None = None, threads: int | None = None):
        import torch
        from truco_env.observe import HIDDEN_SIZE
        if threads:
            torch.set_num_threads(threads)
        self.cfg, self.N, self.slot, self.generation = cfg, num_envs, slot, generation
        seed = slot_seed(cfg.seed, slot, generation)
        self.rng = np.random.default_rng([seed, 1])   # opponents and teams
        self.gen = torch.Generator().manual_seed(seed)  # the learner's and exploiter's actions
        # envido=solved: the learner's envido decisions (agents.solved_envido), its own stream
        from agents.ppo_policy import envido_solver
        self.solver = envido_solver(cfg.envido)
        #: envido=anchored: the solution as each stored transition's target (training.ppo)
        self.anchor = None
        if cfg.envido == "anchored":
            from agents.solved_envido import EnvidoSolver
            self.anchor = EnvidoSolver()
        self.envido_rng = np.random.default_rng([seed, 3])
        #: truco_answers=NAME: the shipped policy that answers the learner's truco
        from agents.ppo_policy import truco_answerer
        self.answerer = truco_answerer(cfg.truco_answers, seed + 4)
        self.truco_gate = cfg.truco_gate
        self.venv = make_env(cfg, num_envs, seed)
        self.obs, self.info = self.venv.reset()
        N, P, D, A = num_envs, cfg.players, self.venv.observation_size, self.venv.num_actions
        self.net_args = net_args(cfg, self.venv)   # the policy network's shape
        own = dataclasses.replace(cfg, seed=seed)     # this worker's baselines and styles
        self.pool = Pool(cfg, make_baselines(own), self.rng, make_styles(own, cfg.seed))
        self.shaper = Shaper(cfg, N, self.venv.rules.target, potential)
        self.privileged = cfg.critic == "privileged"
        fields = {"obs": ((D,), np.float32), "mask": ((A,), np.bool_), "act": ((), np.int64),
                  "logp": ((), np.float32)}
        anchor = ({"anchor": ((A,), np.float32), "anchor_pass": ((), np.float32)}
                  if cfg.envido == "anchored" else {})
        self.buf = SeatBuffer(N, P, {**fields, **anchor,
                                     "hid": ((HIDDEN_SIZE if self.privileged else 0,),
                                             np.float32)}, N * cfg.num_steps)
        self.xbuf, self.x_born = None, 0
        if cfg.exploiter_weight > 0:
            self.xbuf = SeatBuffer(N, P, fields, N * cfg.num_steps)
            self.pool.exploiter = Opponent("exploiter", None, "exploiter")
        # opponents per game: None = self-play; learner_team = the team the learner plays.
        # Three-player modes (issue 12): every seat is its own side; the learner holds one.
        self.opponents: list = self.pool.sample(N)
        per_seat = self.venv.game.per_seat
        self.sides = P if per_seat else 2
        self.learner_team = self.rng.integers(0, self.sides, N)
        self.seat_team = np.arange(P) if per_seat else np.arange(P) % 2
        self.step_in_match = np.zeros(N, np.int64)
        self.net = self.critic = self.exploiter = None
        self._own = None              # CPU networks that load_weights fills (a Ray actor's)

    def ready(self) -> bool:
        """(A Ray actor's constructor runs in the background: this waits for it.)"""
        return True

    # ------------------------------------------------------------------ networks
    def make_net(self):
        """A policy network of the run's shape; building it draws no number from any stream
        (its weights are always loaded)."""
        import torch
        from agents.ppo_policy import PolicyNet
        with torch.random.fork_rng(devices=[]):
            return PolicyNet(*self.net_args)

    def set_models(self, net, critic=None, exploiter=None) -> None:
        """Play with these networks (the local backend passes the learner's own)."""
        self.net, self.critic, self.exploiter = net, critic, exploiter

    def load_weights(self, weights: dict) -> None:
        """Play with CPU networks holding ``weights`` (``net``, ``critic``, ``exploiter``
        state dicts, ``None`` where the run has no such network)."""
        import torch
        if self._own is None:
            from training.critic import Critic
            from truco_env.observe import COMPACT_SIZE, HIDDEN_SIZE
            with torch.random.fork_rng(devices=[]):
                self._own = {"net": self.make_net(), "exploiter": self.make_net(),
                             "critic": Critic(COMPACT_SIZE + HIDDEN_SIZE,
                                              tuple(self.cfg.critic_hidden))
                             if self.privileged else None}
        for k, sd in weights.items():
            if sd is not None:
                self._own[k].load_state_dict(sd)
        self.set_models(self._own["net"], self._own["critic"] if self.privileged else None,
                        self._own["exploiter"] if weights.get("exploiter") is not None
                        else None)

    def _sample(self, model, o_t, mask: np.ndarray):
        """One sampled action per row from ``model``: ``(actions, log-probabilities, the
        model's own values)`` as numpy arrays (sampled on the CPU, with this worker's
        generator, wherever the model runs)."""
        import torch
        with torch.no_grad():
            logits, v = model(o_t, torch.from_numpy(mask).to(o_t.device).bool())
            logprobs = torch.log_softmax(logits, 1).cpu()
            a = torch.multinomial(logprobs.exp(), 1, generator=self.gen)
            return (a.squeeze(1).numpy(), logprobs.gather(1, a).squeeze(1).numpy(),
                    v.cpu().numpy())

    # ------------------------------------------------------------------ the rollout
    def rollout(self, sync: dict, weights: dict | None = None) -> Rollout:
        """``num_steps`` steps of every game.  ``sync``: the learner's pool
        (:meth:`training.pool.Pool.sync_message`), the exploiter's birth iteration (a new
        exploiter does not train its predecessor's pending transitions) and optionally
        ``num_steps``, fewer steps than the config's (a hunt's shorter rollouts)."""
        import torch
        from agents.truco_answers import answer_with
        from truco_env.observe import COMPACT_SIZE
        if weights is not None:
            self.load_weights(weights)
        cfg, N, venv, pool, rng = self.cfg, self.N, self.venv, self.pool, self.rng
        buf, xbuf, seat_team = self.buf, self.xbuf, self.seat_team
        opponents, learner_team, step_in_match = (self.opponents, self.learner_team,
                                                  self.step_in_match)
        pool.apply_sync(sync["pool"], self.make_net,
                        lambda s: slot_seed(s, self.slot, self.generation))
        if xbuf is not None and sync["exploiter_born"] != self.x_born:
            xbuf.last[:] = -1       # drawn by the retired exploiter's weights
            self.x_born = sync["exploiter_born"]
        net, critic, exploiter = self.net, self.critic, self.exploiter
        device = next(net.parameters()).device
        buf.begin()           # the transitions the last rollout cut come first
        if xbuf is not None:
            xbuf.begin()
        carried = buf.carried
        is_opp = np.array([o is not None for o in opponents])
        opp_ids = np.array([id(o) for o in opponents])
        by_id = {id(o): o for o in opponents}
        match_len: list[int] = []
        results: dict[str, list[float]] = {k: [] for k in Pool.KINDS}
        snapshot_results: list[tuple[str, float]] = []
        obs, info = self.obs, self.info
        for _ in range(sync.get("num_steps", cfg.num_steps)):
            o, m, actor = obs["observation"], obs["action_mask"], info["actor"]
            learner = ~is_opp | (seat_team[actor] == learner_team)
            L = np.flatnonzero(learner)
            actions = np.zeros(N, np.int64)
            if len(L) and self.solver is not None:
                # the solved envido decides for the learner like a part of the game: its
                # decisions are not the network's transitions, and a "pass" leaves the network
                # the other actions (the envido calls masked out, in the stored mask too)
                solved, m_l = self.solver.decide(o[L], m[L], self.envido_rng)
                actions[L[solved >= 0]] = solved[solved >= 0]
                keep = solved < 0
                L, m_l = L[keep], m_l[keep]
            else:
                m_l = m[L]
            if len(L) and self.answerer is not None:
                # the answers to the opponent's truco: another policy's, a part of the game
                ans, actions[L[ans]] = answer_with(self.answerer, o[L], m_l)
                L, m_l = L[~ans], m_l[~ans]
            if len(L):
                hid = venv.hidden()[L] if self.privileged else np.zeros((len(L), 0), np.float32)
                o_t = torch.from_numpy(o[L]).to(device)
                a, logp, value = self._sample(net, o_t, m_l)
                if critic is not None:
                    with torch.no_grad():
                        value = critic(o_t[:, :COMPACT_SIZE],
                                       torch.from_numpy(hid).to(device)).cpu().numpy()
                actions[L] = a
                if self.truco_gate is not None:
                    # truco_gate: a song the network sang while the opponent does not fold is
                    # the answerer's decision; the network's transition keeps its song (the
                    # gate is a part of the game that follows it)
                    from agents.truco_answers import gated
                    veto = gated(o[L], m_l, a, self.truco_gate)
                    if veto.any():
                        actions[L[veto]] = self.answerer.act_batch_net(
                            np.ascontiguousarray(o[L[veto], :COMPACT_SIZE]), m_l[veto])
                extra = {}
                if self.anchor is not None:
                    extra["anchor"], extra["anchor_pass"] = self.anchor.targets(o[L], m_l,
                                                                                m.shape[1])
                buf.add(L, actor[L], value, obs=o[L], mask=m_l, act=a, logp=logp, hid=hid,
                        **extra)
            R = np.flatnonzero(~learner)
            if len(R):
                by_type: dict[type, list] = {}   # one act_many per class of agent
                for oid in np.unique(opp_ids[R]):
                    rows = R[opp_ids[R] == oid]
                    if by_id[oid].kind != "exploiter":
                        agent = by_id[oid].agent
                        by_type.setdefault(type(agent), []).append((agent, rows))
                        continue
                    # the exploiter samples and keeps its transitions
                    a, logp, x_value = self._sample(
                        exploiter, torch.from_numpy(o[rows]).to(device), m[rows])
                    actions[rows] = a
                    xbuf.add(rows, actor[rows], x_value, obs=o[rows], mask=m[rows], act=a,
                             logp=logp)
                for cls, parts in by_type.items():
                    a = cls.act_many(parts, o, m)
                    for _, rows in parts:
                        actions[rows] = a[rows]

            obs, rewards, dones, info = venv.step(actions)
            step_in_match += 1
            if self.shaper.active:  # a team's shaping goes to every seat of the team
                rewards = rewards + self.shaper(info["score"], dones)[:, seat_team]
            buf.reward(rewards)
            if xbuf is not None:
                xbuf.reward(rewards)
            if dones.any():
                G = np.flatnonzero(dones)
                buf.end(G)
                if xbuf is not None:
                    xbuf.end(G)
                match_len.extend(step_in_match[G].tolist())
                step_in_match[G] = 0
                for g in G:
                    opp = opponents[g]
                    if opp is not None:
                        won = float(info["winner"][g] == learner_team[g])
                        opp.wins += won
                        opp.games += 1
                        results[opp.kind].append(won)
                        if opp.snapshot:
                            snapshot_results.append((opp.name, won))
                for g, opp in zip(G, pool.sample(len(G))):
                    opponents[g] = opp
                    by_id[id(opp)] = opp
                is_opp[G] = [opponents[g] is not None for g in G]
                opp_ids[G] = [id(opponents[g]) for g in G]
                learner_team[G] = rng.integers(0, self.sides, len(G))
        self.obs, self.info = obs, info
        return Rollout(buf.batch(cfg.gamma, cfg.gae_lambda),
                       xbuf.batch(cfg.gamma, cfg.gae_lambda) if xbuf is not None else None,
                       carried, match_len, results, snapshot_results)

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict:
        """Everything to continue as if never stopped, ready for a checkpoint: the matches in
        flight with their opponents (the replica pool, snapshots that left the population
        included), teams and shaping, the carried transitions and the random streams."""
        return {"run": tensors({
            "env": self.venv.state_dict(), "learner_team": self.learner_team.copy(),
            "opponents": [None if o is None else (o.kind, o.name) for o in self.opponents],
            "step_in_match": self.step_in_match.copy(),
            "shaper": (self.shaper.prev_score.copy(), self.shaper.prev_phi.copy()),
            "buffer": self.buf.state(),
            "xbuffer": self.xbuf.state() if self.xbuf is not None else None}),
            "pool": self.pool.state(self.opponents), "x_born": self.x_born,
            "rng": self.rng.bit_generator.state, "gen": self.gen.get_state(),
            "envido_rng": self.envido_rng.bit_generator.state,
            "answerer_gen": (self.answerer.gen.get_state() if self.answerer is not None
                             else None)}

    def load_state(self, state: dict) -> None:
        run = arrays(state["run"])
        self.pool.load_state(state["pool"], self.make_net)
        self.venv.load_state(run["env"])
        self.obs, self.info = self.venv.observe()
        names = self.pool.by_name()
        self.opponents = [None if n is None else names[tuple(n)] for n in run["opponents"]]
        self.learner_team, self.step_in_match = run["learner_team"], run["step_in_match"]
        self.shaper.prev_score[:], self.shaper.prev_phi[:] = run["shaper"]
        self.buf.load_state(run["buffer"])
        if self.xbuf is not None and run["xbuffer"] is not None:
            self.xbuf.load_state(run["xbuffer"])
        self.x_born = int(state["x_born"])
        self.rng.bit_generator.state = state["rng"]
        self.gen.set_state(state["gen"])
        if "envido_rng" in state:       # checkpoints from before the envido key have none
            self.envido_rng.bit_generator.state = state["envido_rng"]
        if self.answerer is not None and state.get("answerer_gen") is not None:
            self.answerer.gen.set_state(state["answerer_gen"])


class LocalBackend:
    """``backend=local``: one in-process :class:`RolloutWorker` with every game, playing with
    the learner's own networks."""

    def __init__(self, cfg: Config, potential: np.ndarray | None):
        self.worker = RolloutWorker(cfg, cfg.num_envs, potential=potential)
        self.known: set[str] = set()

    def rollout(self, models: tuple, sync) -> list[Rollout]:
        """``models``: the learner's (net, critic, exploiter); ``sync(known)``: the message
        for a worker that holds the snapshots ``known``."""
        self.worker.set_models(*models)
        msg = sync(self.known)
        out = self.worker.rollout(msg)
        self.known |= set(msg["pool"]["new"])
        return [out]

    def state(self) -> list[dict]:
        return [self.worker.state()]

    def load_state(self, states: list[dict]) -> None:
        (state,) = states
        self.worker.load_state(state)

    def close(self) -> None:
        pass


def make_backend(cfg: Config, potential: np.ndarray | None):
    """The backend of ``cfg.backend`` (Ray is imported only for ``ray``)."""
    if cfg.backend == "ray":
        from .ray_backend import RayBackend
        return RayBackend(cfg, potential)
    return LocalBackend(cfg, potential)
