"""train.py's rollout storage: per-seat trajectories, their credit and GAE, and the transitions a
rollout cuts, which are carried into the next one.

In a Truco vector env one seat decides per game and step, while a reward (at a hand's or a
match's end) may reach any seat.  Each learner decision is a *transition*; the transitions of one
(game, seat) form a trajectory, linked by ``next`` (the same seat's following decision).  A
reward for a seat is added to that seat's latest transition, its *pending* one.

A transition is complete when its seat decides again (it bootstraps from that decision's value,
computed from an observation taken at the seat's own turn) or when its match ends (no bootstrap).
When a rollout ends, the transitions still pending are not trained: :meth:`SeatBuffer.begin`
moves them to the front of the next rollout, where they keep collecting rewards and get their
successor.  So every trained transition has its true successor (or a terminal), no reward is
dropped, and no value is ever taken from an observation made when it was not that seat's turn.
A transition whose successor is pending uses the successor's value and cuts the GAE sum there
(the usual truncation at a rollout's end, as in CleanRL).

>>> buf = SeatBuffer(num_envs=1, players=2, fields={"x": ((), "float32")}, capacity=8)
>>> buf.begin()
>>> i = buf.add(np.array([0]), np.array([0]), x=np.array([1.0]), value=np.array([0.5]))
>>> buf.reward(np.array([[1.0, -1.0]]))
>>> buf.end(np.array([0]))                       # the match ends: seat 0 won
>>> idx, adv, ret = buf.finish(gamma=1.0, lam=1.0)
>>> idx.tolist(), ret.tolist()
([0], [1.0])
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np


@nb.njit(cache=True)
def _gae(rew, val, nxt, done, pending, gamma, lam, adv):
    """Advantages over transitions in time order (a successor always has a larger index)."""
    for i in range(rew.shape[0] - 1, -1, -1):
        if pending[i]:
            adv[i] = 0.0          # not trained; cuts the GAE sum of its predecessor
        elif done[i]:
            adv[i] = rew[i] - val[i]
        else:
            j = nxt[i]
            adv[i] = rew[i] + gamma * val[j] - val[i] + gamma * lam * adv[j]


@dataclass
class Batch:
    """The trained transitions of a rollout (``data``: the trainer's fields; ``value``: the
    values they were taken with) with their advantages and returns: what a rollout worker sends
    the learner, and what :func:`training.ppo.ppo_update` reads."""

    data: dict[str, np.ndarray]
    value: np.ndarray
    adv: np.ndarray
    ret: np.ndarray

    def __len__(self) -> int:
        return len(self.adv)

    @classmethod
    def concat(cls, parts: list["Batch"]) -> "Batch":
        """The workers' batches one after the other (one batch is returned as it is, writable:
        the local backend copies nothing)."""
        if len(parts) == 1:
            b = parts[0]
            own = lambda a: a if a.flags.writeable else a.copy()  # noqa: E731 (Ray: read-only)
            return cls({k: own(v) for k, v in b.data.items()}, own(b.value), own(b.adv),
                       own(b.ret))
        cat = lambda xs: np.concatenate(list(xs))  # noqa: E731
        return cls({k: cat(p.data[k] for p in parts) for k in parts[0].data},
                   cat(p.value for p in parts), cat(p.adv for p in parts),
                   cat(p.ret for p in parts))


class SeatBuffer:
    """The learner's transitions of one rollout (module docstring), at most ``capacity``.

    ``fields``: name -> (shape per transition, dtype) of what the trainer stores with each
    decision (observation, mask, action, log-probability...); ``value`` and ``reward`` are kept
    by the buffer.  Arrays are ``buf.data[name][:buf.size]``.
    """

    def __init__(self, num_envs: int, players: int, fields: dict[str, tuple[tuple, Any]],
                 capacity: int):
        self.N, self.P = num_envs, players
        cap = capacity + num_envs * players          # room for the carried transitions
        self.data = {k: np.zeros((cap, *shape), dtype) for k, (shape, dtype) in fields.items()}
        self.value = np.zeros(cap, np.float32)
        self.reward_ = np.zeros(cap, np.float32)
        self.done = np.zeros(cap, np.bool_)
        self.next = np.full(cap, -1, np.int64)
        self.game = np.zeros(cap, np.int64)
        self.seat = np.zeros(cap, np.int64)
        self.last = np.full((num_envs, players), -1, np.int64)  # pending transition per seat
        self.size = 0
        self.carried = 0

    # ------------------------------------------------------------------ rollout
    def begin(self) -> None:
        """Start a rollout: the pending transitions of the last one move to the front."""
        src = self.last[self.last >= 0]
        src.sort()
        k = len(src)
        for arr in (*self.data.values(), self.value, self.reward_, self.game, self.seat):
            arr[:k] = arr[src]
        self.done[:k] = False
        self.next[:k] = -1
        self.last[self.game[:k], self.seat[:k]] = np.arange(k)
        self.size = self.carried = k

    def add(self, games: np.ndarray, seats: np.ndarray, value: np.ndarray,
            **fields: np.ndarray) -> np.ndarray:
        """Store one decision per row (``games`` distinct); returns their indices."""
        n = len(games)
        lo, hi = self.size, self.size + n
        if hi > len(self.value):
            raise ValueError(f"SeatBuffer is full ({len(self.value)} transitions)")
        idx = np.arange(lo, hi)
        for k, v in fields.items():
            self.data[k][lo:hi] = v
        self.value[lo:hi] = value
        self.reward_[lo:hi] = 0.0
        self.done[lo:hi] = False
        self.next[lo:hi] = -1
        self.game[lo:hi], self.seat[lo:hi] = games, seats
        prev = self.last[games, seats]
        linked = prev >= 0
        self.next[prev[linked]] = idx[linked]
        self.last[games, seats] = idx
        self.size = hi
        return idx

    def reward(self, rewards: np.ndarray) -> None:
        """``rewards[N, players]`` of a step, added to each seat's pending transition."""
        credit = (self.last >= 0) & (rewards != 0)
        np.add.at(self.reward_, self.last[credit], rewards[credit])

    def end(self, games: np.ndarray) -> None:
        """The matches of ``games`` ended (after this step's rewards): their pending transitions
        are terminal."""
        ended = self.last[games]
        self.done[ended[ended >= 0]] = True
        self.last[games] = -1

    # ------------------------------------------------------------------ GAE
    def pending_mask(self) -> np.ndarray:
        pend = np.zeros(self.size, np.bool_)
        live = self.last[self.last >= 0]
        pend[live] = True
        return pend

    def finish(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indices to train, advantages, returns)``: every complete transition."""
        B = self.size
        pend = self.pending_mask()
        adv = np.zeros(B, np.float32)
        _gae(self.reward_[:B], self.value[:B], self.next[:B], self.done[:B], pend,
             np.float32(gamma), np.float32(lam), adv)
        idx = np.flatnonzero(~pend)
        return idx, adv[idx], adv[idx] + self.value[idx]

    def batch(self, gamma: float, lam: float) -> Batch:
        """:meth:`finish`'s complete transitions, copied out with their fields."""
        idx, adv, ret = self.finish(gamma, lam)
        return Batch({k: v[idx] for k, v in self.data.items()}, self.value[idx], adv, ret)

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict:
        """The pending transitions (all a resumed run needs: the rest is trained)."""
        src = self.last[self.last >= 0]
        src.sort()
        return {"data": {k: v[src].copy() for k, v in self.data.items()},
                "value": self.value[src].copy(), "reward": self.reward_[src].copy(),
                "game": self.game[src].copy(), "seat": self.seat[src].copy()}

    def load_state(self, state: dict) -> None:
        k = len(state["game"])
        for name, v in state["data"].items():
            self.data[name][:k] = v
        self.value[:k], self.reward_[:k] = state["value"], state["reward"]
        self.game[:k], self.seat[:k] = state["game"], state["seat"]
        self.last[:] = -1
        self.last[self.game[:k], self.seat[:k]] = np.arange(k)
        self.size = k
