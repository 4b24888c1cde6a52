"""The vector environment: N games stepped together for trainers.

>>> venv = VectorTrucoEnv(num_envs=4, players=2, seed=0)
>>> obs, info = venv.reset()
>>> obs["observation"].shape, obs["action_mask"].shape, info["actor"].shape
((4, 958), (4, 36), (4,))

``step(actions)`` takes one action per game, for the player to act in it (``info["actor"]``),
and returns ``(obs, rewards, dones, info)``:

* ``obs``: ``{"observation": float32[N, D], "action_mask": int8[N, A]}`` of the player to act
  next in each game (after an auto-reset: the first player of the new episode);
* ``rewards``: ``float32[N, players]``, the reward of every seat for this step (rewards arrive
  at the end of a hand or match, so a trainer credits each seat's last transition);
* ``dones``: ``bool[N]``, the episode of that game ended at this step; it has already been
  reset (same-step auto-reset: the terminal observation is not returned, as nothing follows it);
* ``info``: ``actor`` (int[N], seat to act next), ``score`` (int[N, 2] before auto-reset; in
  the three-player modes int[N, 3] by player, destantado: the piles),
  ``hand_ended`` (bool[N]), ``hand_points`` (int[N, 2], points each team scored in the hand
  that ended, zero elsewhere), ``end_reason`` (int[N], ``core.END_*`` of the hand that ended, 0
  elsewhere), ``winner`` (int[N], winning team of a finished match, else -1) and
  ``final_state`` (the core state rows of the games whose hand ended, before the next deal:
  ``truco_env.view.hand_events(info["final_state"], i)`` lists what happened in the i-th one,
  in the order of ``np.flatnonzero(info["hand_ended"])``).

``obs["observation"]`` and ``obs["action_mask"]`` are buffers of the env, overwritten by the
next ``step`` (as Gymnasium's vector envs with ``copy=False``; trainers copy them into their
storage anyway): copy them to keep them.  Writing into them never changes what the env accepts:
legality is checked against the env's own mask.  The ``info`` arrays and ``rewards`` are fresh
every step.

The first mano of every match is random (seeded), so every seat is mano and pie equally.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import core as C
from .game import Matches
from .observe import Encoder, encode_hidden
from .rules import NUM_ACTIONS, RuleSet, get_rules


class VectorTrucoEnv:
    """``num_envs`` Truco games over one batched core (see the module docstring)."""

    def __init__(self, num_envs: int, players: int = 2, rules: str | RuleSet = "argentino",
                 target: int | None = None, flor: bool | None = None, episode: str = "match",
                 reward: str | None = None, observation: str = "compact",
                 check_actions: bool = True, seed: int | None = None, **knobs: Any):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"bad value num_envs={num_envs!r}; expected a positive integer")
        self.rules = get_rules(rules, target=target, flor=flor, **knobs)
        self.num_envs = int(num_envs)
        self.players = int(players)
        self.game = Matches(self.num_envs, self.players, self.rules, episode=episode,
                            reward=reward, random_mano=True)
        self.game.record_deals = False
        self.encoder = Encoder(observation)
        self.check_actions = check_actions
        self.num_actions = NUM_ACTIONS
        self.observation_size = self.encoder.size
        self._obs = np.zeros((self.num_envs, self.encoder.size), dtype=np.float32)
        self._mask_out = np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8)
        self._seed = seed

    @property
    def state(self) -> np.ndarray:
        """The core state ``int32[N, core.STATE_SIZE]`` (read it, do not write it)."""
        return self.game.S

    def reset(self, seed: int | None = None) -> tuple[dict, dict]:
        self.game.reset(seed=seed if seed is not None else self._seed)
        self._seed = None
        return self.observe()

    def _observe(self) -> dict:
        S = self.game.S
        self.encoder.encode(S, self.game.tables, S[:, C.ACTOR], self._obs)
        mask = self.game.legal_mask()              # the driver's own: what step() checks
        np.copyto(self._mask_out, mask.view(np.int8))
        return {"observation": self._obs, "action_mask": self._mask_out}

    def _info(self, hand_ended, hand_points, end_reason, score, winner, final_state) -> dict:
        return {"actor": self.game.S[:, C.ACTOR].copy(), "score": score,
                "hand_ended": hand_ended, "hand_points": hand_points, "end_reason": end_reason,
                "winner": winner, "final_state": final_state}

    def step(self, actions: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray, dict]:
        actions = np.asarray(actions, dtype=np.int32)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions of shape {actions.shape}; expected ({self.num_envs},)")
        if self.check_actions:
            self.game.check_actions(actions)
        rewards, hand_ended, dones, _ = self.game.step(actions)
        S = self.game.S
        rewards = rewards.copy()                 # the driver's buffer; the masks are fresh
        score = self.game.scores()
        ended = np.flatnonzero(hand_ended)
        final_state = S[ended]                   # fancy indexing: a copy of the ended rows
        ns = self.game.num_scores
        hand_points = np.zeros((self.num_envs, ns), np.int32)
        end_reason = np.zeros(self.num_envs, np.int32)
        if len(ended):
            hand_points[ended] = final_state[:, C.HAND_PTS:C.HAND_PTS + ns]
            end_reason[ended] = final_state[:, C.END_REASON]
        winner = np.where(S[:, C.DONE] == 1, S[:, C.WINNER], -1).astype(np.int32)
        self.game.restart(np.flatnonzero(dones))
        self.game.next_hand(ended[~dones[ended]])
        return self._observe(), rewards, dones, self._info(hand_ended, hand_points, end_reason,
                                                           score, winner, final_state)

    def observe_seat(self, seats: np.ndarray) -> np.ndarray:
        """Observations of arbitrary seats (for example a critic of every seat)."""
        return self.encoder.encode(self.game.S, self.game.tables, seats)

    def hidden(self, seats: np.ndarray | None = None) -> np.ndarray:
        """Privileged features ``float32[N, observe.HIDDEN_SIZE]`` (a fresh array) of every
        game, counted from the seat to act (``info["actor"]``, default) or from ``seats[g]``.

        It reveals every hand (:func:`truco_env.observe.encode_hidden`: each seat's unplayed
        cards, envido and flor points): for centralized critics in training only.  Never feed
        it to a policy, nor to anything that plays.
        """
        S = self.game.S
        return encode_hidden(S, self.game.tables, S[:, C.ACTOR] if seats is None else seats)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        """Everything that decides the games from here on: the core state of every game in
        flight and the deal generator (a trainer's checkpoint; :meth:`load_state`)."""
        return {"S": self.game.S.copy(), "rng": self.game.rng.bit_generator.state,
                "rules": self.rules.name, "players": self.players}

    def load_state(self, state: dict) -> None:
        """Continue the games of :meth:`state_dict` (same ``num_envs``, players and rules)."""
        S = np.asarray(state["S"])
        if S.shape != self.game.S.shape or state["players"] != self.players \
                or state["rules"] != self.rules.name:
            raise ValueError(f"env state of {S.shape[0]} games, {state['players']} players, "
                             f"rules {state['rules']!r} does not fit this env "
                             f"({self.num_envs} games, {self.players} players, "
                             f"rules {self.rules.name!r})")
        self.game.S[:] = S
        self.game.rng.bit_generator.state = state["rng"]
        self.game._seeded = True
        self._seed = None

    def observe(self) -> tuple[dict, dict]:
        """The observation and ``info["actor"]`` of the current state (after :meth:`load_state`);
        the other ``info`` entries describe no step."""
        N = self.num_envs
        return self._observe(), self._info(np.zeros(N, bool),
                                           np.zeros((N, self.game.num_scores), np.int32),
                                           np.zeros(N, np.int32), self.game.scores(),
                                           np.full(N, -1, np.int32), self.game.S[:0].copy())
