"""Gymnasium single-agent view: one seat learns, every other seat is a bot.

>>> import gymnasium as gym, agents     # importing agents registers the id
>>> env = gym.make("truco_env/Truco-v0", opponent="random", seat=0, players=2)
>>> obs, info = env.reset(seed=3)
>>> obs.shape == env.observation_space.shape, info["action_mask"].dtype
(True, dtype('bool'))

* observation: the flat float32 observation of the learner's seat (``Box``); the legal actions
  come from :meth:`SingleAgentEnv.action_masks` (what sb3-contrib's ``MaskablePPO`` calls) and
  ``info["action_mask"]``;
* reward: the learner's own reward, summed over its step and every bot step up to its next
  decision (or the end), so a reward is never paired with another seat's observation
  (``reward="points"``: points of hands that end before the learner's first decision of an
  episode, e.g. after a partner's mazo, reach no transition and are not seen);
* termination: the AEC episode's end (``episode="match"`` or ``"hand"``);
* after the end (the terminal step, or a penalized illegal action) the mask is **all True**: no
  action follows, ``step`` raises until ``reset``, and a sampler always has something to draw
  (Gymnasium 1.x vector envs' next-step autoreset calls ``step`` once more with an action that
  it discards while resetting; SB3's vector envs reset in the same step and never ask);
* rendering: ``render_mode="ansi"`` / ``"human"`` (text) or ``"rgb_array"`` (a picture
  ``uint8[H, W, 3]`` of the learner's view, what SB3's ``make_vec_env`` asks for; needs Pillow);
* every array returned (observation, ``action_masks()``, ``info["action_mask"]``) is a fresh
  copy that the caller may change;
* an action outside the mask (Gymnasium's API lets ``step`` get any action of the space): with
  ``illegal="penalize"`` (default) the episode ends with reward -1 and ``info["illegal_move"]``;
  with ``illegal="raise"``, :class:`truco_env.IllegalActionError`.

Seeding: ``reset(seed=s)`` seeds the wrapper's ``np_random``, from which every reset draws the
deal seed and the bots' seeds, so a seeded reset replays the same match for the same actions.
"""
from __future__ import annotations

from typing import Any, Mapping, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from truco_env.env import raw_env
from truco_env.game import IllegalActionError, illegal_message
from truco_env.rules import NUM_ACTIONS

from .base import load

GYM_ID = "truco_env/Truco-v0"
#: The mask after an episode's end: every action, none of which is played (module docstring).
_END_MASK = np.ones(NUM_ACTIONS, dtype=bool)
BotSpec = Union[str, Any]  # a spec for agents.load, or an agents.Agent


class SingleAgentEnv(gymnasium.Env):
    """One seat of a Truco match as a Gymnasium environment.

    Args:
        opponent: every other seat's bot: an ``agents.load`` spec (``"heuristic"``,
            ``"random"``, ``"heuristic:bluff=0.2"``...), an ``Agent``, or a mapping
            ``{seat: spec or Agent}`` covering every other seat.
        partner: in team games, the learner's partners (default: ``opponent``); ignored when
            ``opponent`` is a mapping.
        seat: the learner's seat.
        illegal: ``"penalize"`` or ``"raise"`` (module docstring).
        render_mode: ``"ansi"``, ``"human"`` (the AEC env's text), ``"rgb_array"`` (its
            picture) or ``None``.
        **env_kwargs: arguments of :func:`truco_env.env` (``players``, ``rules``, ``target``,
            ``flor``, ``episode``, ``reward``, ``observation``...).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, opponent: BotSpec | Mapping[int, BotSpec] = "heuristic",
                 seat: int = 0, partner: BotSpec | None = None, illegal: str = "penalize",
                 render_mode: str | None = None, **env_kwargs: Any):
        if illegal not in ("penalize", "raise"):
            raise ValueError(f"bad value illegal={illegal!r}; expected 'penalize' or 'raise'")
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"bad value render_mode={render_mode!r}; expected 'ansi', 'human', "
                             f"'rgb_array' or None")
        if "illegal" in env_kwargs:
            raise ValueError("pass illegal= to SingleAgentEnv itself")
        self.aec = raw_env(render_mode=render_mode, **env_kwargs)
        players = self.aec.players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= seat < players:
            raise ValueError(f"bad value seat={seat!r}; expected a seat in 0..{players - 1}")
        self.seat = int(seat)
        self.agent = self.aec.possible_agents[self.seat]
        self.aec.render_seat = self.seat       # render the learner's view, not every hand
        self.illegal = illegal
        self.render_mode = render_mode
        self.bots = self._make_bots(opponent, partner)
        size = self.aec.encoder.size
        self.observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._mask = _END_MASK.copy()
        self._done = True

    def _make_bots(self, opponent, partner) -> dict[str, Any]:
        players = self.aec.players
        others = [s for s in range(players) if s != self.seat]
        if isinstance(opponent, Mapping):
            missing = sorted(set(others) - set(opponent))
            extra = sorted(set(opponent) - set(others))
            if missing or extra:
                raise ValueError(f"opponent mapping must name every seat but the learner's: "
                                 f"missing {missing}, unexpected {extra}")
            specs = {s: opponent[s] for s in others}
        else:
            mate = opponent if partner is None else partner
            specs = {s: (mate if s % 2 == self.seat % 2 else opponent) for s in others}
        bots = {}
        for s, spec in specs.items():
            bot = load(spec)
            if bot.name == "human":
                raise ValueError("a human cannot sit at a bot seat of SingleAgentEnv")
            bots[self.aec.possible_agents[s]] = bot
        return bots

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        while True:
            seeds = self.np_random.integers(0, 2**31 - 1, size=1 + len(self.bots))
            self.aec.reset(seed=int(seeds[0]), options=options)
            for bot, s in zip(self.bots.values(), seeds[1:]):
                bot.reseed(int(s))
            self._done = False
            self._advance()
            # A hand episode can end before the learner acts (a partner went to the mazo):
            # nothing to learn from it, so deal again.
            if not self._done:
                break
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        a = int(action)
        if not (0 <= a < NUM_ACTIONS and self._mask[a]):
            msg = illegal_message(action, self._mask, self.agent)
            if self.illegal == "raise":
                raise IllegalActionError(msg)
            self._done = True
            self._mask = _END_MASK.copy()
            info = self._info()
            info["illegal_move"] = msg
            return self._observation(), -1.0, True, False, info
        self.aec.step(a)
        reward = float(self.aec.rewards[self.agent])
        reward += self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (``bool[A]``, a copy), for sb3-contrib's
        MaskablePPO; after the episode's end all True (see the module docstring)."""
        return self._mask.copy()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without render_mode")
            return None
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------------ internals
    def _advance(self) -> float:
        """Let the bots play until the learner must act or the episode ends.

        Returns the learner's rewards collected on the way (the AEC env's per-step rewards).
        """
        aec = self.aec
        total = 0.0
        while True:
            if aec.terminations[self.agent] or aec.truncations[self.agent]:
                self._done = True
                self._mask = _END_MASK.copy()
                return total
            actor = aec.agent_selection
            if actor == self.agent:
                self._mask = aec.action_mask(actor).astype(bool)
                return total
            bot = self.bots[actor]
            action = bot.act(aec.observe(actor), aec.view(actor))
            aec.step(action)
            total += float(aec.rewards[self.agent])

    def _observation(self) -> np.ndarray:
        return np.array(self.aec.observe(self.agent)["observation"], dtype=np.float32)

    def _info(self) -> dict:
        return {"action_mask": self._mask.copy(),
                "score": list(self.aec.infos[self.agent].get("score", [0, 0]))}


def _register() -> None:
    """Register :data:`GYM_ID` with Gymnasium (once)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="agents.single_agent:SingleAgentEnv")


_register()
