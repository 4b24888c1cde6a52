"""``backend=ray``: train.py's rollouts on Ray actors, one :class:`training.worker.RolloutWorker`
each, while the learner (train.py's process, CUDA when there is one) runs the same PPO update.

    ray start --head                                   # once, on the head node of a cluster
    python train.py backend=ray workers=8 ray_address=auto
    python train.py backend=ray workers=2              # a local Ray instance for this run

Every iteration the learner puts the networks' weights (CPU state dicts) in Ray's object store
once, and each actor receives them with its pool message (the population, PFSP results, and the
weights of snapshots it has not been sent yet); each actor steps its ``num_envs // workers``
games for ``num_steps`` steps with one torch thread and returns its trained transitions with
their advantages (GAE on the worker, over the trajectories it owns) and its matches' results.
The learner concatenates the batches in slot order and updates.  The pool stays with the
learner: only its decisions (membership, snapshot seeds, results) are sent.

Faults: an actor that dies (a crash, a lost node, ``ray.kill``) surfaces as
:class:`ray.exceptions.RayActorError` when its rollout is collected.  Its slot gets a new actor
(the slot's next *generation*: new seeds from :func:`training.worker.slot_seed`, fresh matches;
the dead actor's matches in flight and its carried transitions, never trained, are lost), which
is sent every snapshot and the same weights and redoes the slot's rollout.  The other slots'
rollouts stand, the batch has its full size, and the iteration and the learner's update count
neither skip nor repeat.  A slot whose actor dies three times in one iteration stops the run
(a fault that follows the work is a bug, not bad luck).  Checkpoints hold each actor's state
(:meth:`training.worker.RolloutWorker.state`), fetched at checkpoint time, so ``--resume``
with the same ``workers`` continues as if never stopped; a different ``workers`` is refused.

Every node needs the project installed (``pip install -e ".[ray]"``, the same version): actors
import ``training`` and ``truco_env`` there.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from .config import Config
from .worker import RolloutWorker, Rollout

#: Replacements of one slot's actor within one iteration before the run gives up.
MAX_REPLACEMENTS = 3


def cpu_weights(models: tuple) -> dict:
    """The (net, critic, exploiter) networks as CPU state dicts (``None`` where absent)."""
    def sd(m):
        return None if m is None else {k: v.detach().cpu() for k, v in m.state_dict().items()}
    net, critic, exploiter = models
    return {"net": sd(net), "critic": sd(critic), "exploiter": sd(exploiter)}


class RayBackend:
    """``workers`` rollout actors (module docstring).

    ``on_rollout(backend)`` (a test's hook) is called once the rollouts are under way, before
    they are collected: a test kills an actor there.
    """

    on_rollout = None

    def __init__(self, cfg: Config, potential: np.ndarray | None):
        # one way to start or join Ray for the project (the same as evaluate.py --backend ray:
        # a local instance's workers run at this process's priority, a dead address is an error)
        from evaluation.backends import init_ray
        ray = sys.modules.get("ray")
        self.owns_ray = ray is None or not ray.is_initialized()
        ray = self.ray = init_ray(cfg.ray_address,
                                  num_cpus=max(cfg.workers, os.cpu_count() or 1))
        self.cfg, self.potential = cfg, potential
        self.remote = ray.remote(num_cpus=1, max_restarts=0)(RolloutWorker)
        self.generation = [0] * cfg.workers
        self.actors = [self._start(k) for k in range(cfg.workers)]
        ray.get([a.ready.remote() for a in self.actors])  # started before the clock starts
        self.known: list[set[str]] = [set() for _ in self.actors]
        self.replaced = 0

    def _start(self, slot: int):
        return self.remote.remote(self.cfg, self.cfg.num_envs // self.cfg.workers, slot,
                                  self.generation[slot], self.potential, threads=1)

    def _replace(self, slot: int, exc: Exception, what: str) -> None:
        self.generation[slot] += 1
        self.replaced += 1
        print(f"worker {slot} died during its {what} ({type(exc).__name__}); replaced by a new "
              f"actor (generation {self.generation[slot]}) with fresh matches", flush=True)
        try:
            self.ray.kill(self.actors[slot])
        except Exception:  # noqa: BLE001 (already gone)
            pass
        self.actors[slot] = self._start(slot)
        self.known[slot] = set()

    def rollout(self, models: tuple, sync) -> list[Rollout]:
        """Every slot's rollout, in slot order; a dead actor's slot is redone by a new one."""
        ray = self.ray
        weights = ray.put(cpu_weights(models))

        def launch(k: int):
            msg = sync(self.known[k])
            return msg, self.actors[k].rollout.remote(msg, weights)

        calls = [launch(k) for k in range(len(self.actors))]
        if self.on_rollout is not None:
            self.on_rollout(self)
        out = []
        for k in range(len(self.actors)):
            for attempt in range(MAX_REPLACEMENTS + 1):
                msg, ref = calls[k]
                try:
                    out.append(ray.get(ref))
                    break
                except ray.exceptions.RayActorError as exc:
                    if attempt == MAX_REPLACEMENTS:
                        raise RuntimeError(f"worker {k} died {attempt + 1} times in one "
                                           f"iteration ({type(exc).__name__}: {exc})") from exc
                    self._replace(k, exc, "rollout")
                    calls[k] = launch(k)
            self.known[k] |= set(calls[k][0]["pool"]["new"])
        return out

    def state(self) -> list[dict]:
        """Each actor's state, in slot order (a dead actor's slot: its replacement's)."""
        out = []
        for k in range(len(self.actors)):
            for attempt in range(MAX_REPLACEMENTS + 1):
                try:
                    out.append(self.ray.get(self.actors[k].state.remote()))
                    break
                except self.ray.exceptions.RayActorError as exc:
                    if attempt == MAX_REPLACEMENTS:
                        raise
                    self._replace(k, exc, "checkpoint")
        return out

    def load_state(self, states: list[dict]) -> None:
        if len(states) != len(self.actors):
            raise ValueError(f"the checkpoint holds {len(states)} workers' states; the run has "
                             f"workers={len(self.actors)}")
        self.ray.get([a.load_state.remote(s) for a, s in zip(self.actors, states)])

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
        if self.owns_ray:
            self.ray.shutdown()
