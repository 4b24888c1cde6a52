"""Gymnasium single-agent view: one seat learns, every other seat is a bot.

>>> import gymnasium as gym, agents     # importing agents registers the id
>>> env = gym.make("truco_env/Truco-v1", opponent="random", players=2)
>>> obs, info = env.reset(seed=3)
>>> obs.shape == env.observation_space.shape, info["action_mask"].dtype, info["seat"] in (0, 1)
(True, dtype('bool'), True)

* seats: by default every reset draws the learner's seat and the first mano of the match at
  random, so the learner plays every position; ``seat=k`` (or the reset option ``{"seat": k}``,
  for one episode) fixes the seat, the reset options ``mano`` / ``deals`` fix the first mano.
  Every info holds ``seat`` (the learner's) and ``mano`` (the current hand's), the reset's
  also ``first_mano``. The bots keep their roles around the drawn seat: seats of the learner's
  team (``seat % 2``) get ``partner``, the others ``opponent``. An ``opponent`` mapping
  ``{seat: bot}`` fixes the learner's seat to the one seat it leaves out;
* three-player modes (``players=3, rules="pata_de_gallo"`` or ``"destantado"``): the learner
  holds one seat and the other two are ``opponent`` bots (two copies; ``partner`` is refused:
  pata de gallo's pair changes every hand, with the gallo); the reward is the learner's
  (+1 for the match, -1/2 when another player wins it) and ``info["score"]`` lists the three
  players' scores (destantado: tantos left).  Pica-pica: while a duel the learner is not in
  is played, the bots play it, and the learner's next observation shows its cards;
* observation: the flat float32 observation of the learner's seat (``Box``); the legal actions
  come from :meth:`SingleAgentEnv.action_masks` (what sb3-contrib's ``MaskablePPO`` calls) and
  ``info["action_mask"]``;
* reward: the learner's own reward, summed over its step and every bot step up to its next
  decision (or the end), so a reward is never paired with another seat's observation. Rewards
  that reach the learner before its first decision of an episode (``reward="points"``: a hand
  that ends first, e.g. after a partner's mazo) are added to the reward of the episode's first
  ``step``, so the rewards of an episode add up to the learner's whole result. An episode that
  ends before the learner's first decision (a hand episode after a partner's mazo, a match that
  a partner's falta envido ends at once) has no transition: ``reset`` deals again and reports
  how many such episodes it skipped, and the learner's total reward in them, in
  ``info["redealt"]`` and ``info["redealt_reward"]`` (present in every reset's info);
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
  ``illegal="penalize"`` (default) the episode ends with reward -1 (only: rewards pending from
  before the learner's first decision are dropped) and ``info["illegal_move"]``; with
  ``illegal="raise"``, :class:`truco_env.IllegalActionError`.

Seeding: ``reset(seed=s)`` seeds the wrapper's ``np_random``, from which every reset draws the
deal seed, the bots' seeds, the learner's seat and the first mano (all of them on every reset,
whether or not fixed by arguments or options), so a seeded reset replays the same match for the
same actions.
"""
from __future__ import annotations

from typing import Any, Mapping, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from truco_env import core as C
from truco_env.env import raw_env
from truco_env.game import IllegalActionError, illegal_message
from truco_env.rules import NUM_ACTIONS

from .base import load

GYM_ID = "truco_env/Truco-v1"
#: The mask after an episode's end: every action, none of which is played (module docstring).
_END_MASK = np.ones(NUM_ACTIONS, dtype=bool)
BotSpec = Union[str, Any]  # a spec for agents.load, or an agents.Agent


class SingleAgentEnv(gymnasium.Env):
    """One seat of a Truco match as a Gymnasium environment.

    Args:
        opponent: every other seat's bot: an ``agents.load`` spec (``"heuristic"``,
            ``"random"``, ``"heuristic:bluff=0.2"``...), an ``Agent``, or a mapping
            ``{seat: spec or Agent}`` covering every other seat (this fixes the learner's seat
            to the one seat the mapping leaves out).
        partner: in team games, the learner's partners (default: ``opponent``); ignored when
            ``opponent`` is a mapping.
        seat: the learner's seat, fixed; ``None`` or ``"random"`` (default): drawn on every
            reset from the wrapper's ``np_random`` (the reset option ``{"seat": k}`` fixes it
            for one episode).
        illegal: ``"penalize"`` or ``"raise"`` (module docstring).
        render_mode: ``"ansi"``, ``"human"`` (the AEC env's text), ``"rgb_array"`` (its
            picture) or ``None``.
        **env_kwargs: arguments of :func:`truco_env.env` (``players``, ``rules``, ``target``,
            ``flor``, ``episode``, ``reward``, ``observation``...).

    Attributes: ``seat`` / ``agent`` (the learner's seat and AEC agent name in the current
    episode; ``seat`` is ``None`` before the first reset when drawn), ``fixed_seat`` (``None``
    when drawn), ``bots`` (AEC agent name -> bot, for the current episode).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    #: How many episodes in a row ``reset`` deals again when each ends before the learner acts.
    MAX_REDEALS = 1000

    def __init__(self, opponent: BotSpec | Mapping[int, BotSpec] = "heuristic",
                 seat: int | str | None = None, partner: BotSpec | None = None,
                 illegal: str = "penalize", render_mode: str | None = None, **env_kwargs: Any):
        if illegal not in ("penalize", "raise"):
            raise ValueError(f"bad value illegal={illegal!r}; expected 'penalize' or 'raise'")
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"bad value render_mode={render_mode!r}; expected 'ansi', 'human', "
                             f"'rgb_array' or None")
        if "illegal" in env_kwargs:
            raise ValueError("pass illegal= to SingleAgentEnv itself")
        self.aec = raw_env(render_mode=render_mode, **env_kwargs)
        players = self.aec.players
        if seat is None or (isinstance(seat, str) and seat == "random"):
            fixed = None
        else:
            fixed = self._check_seat(seat, "seat")
        if isinstance(opponent, Mapping) and fixed is None:
            left = [s for s in range(players) if s not in opponent]
            if len(left) != 1:
                raise ValueError(f"opponent mapping must name every seat but the learner's "
                                 f"(or pass seat=): it leaves out seats {left}, missing "
                                 f"all but one of them")
            fixed = left[0]
        #: The learner's seat when fixed (``seat=`` or an ``opponent`` mapping), else ``None``.
        self.fixed_seat: int | None = fixed
        self.seat: int | None = fixed
        self.agent: str | None = None if fixed is None else self.aec.possible_agents[fixed]
        self.illegal = illegal
        self.render_mode = render_mode
        self._mapping = isinstance(opponent, Mapping)
        self._seat_bots = self._make_bots(opponent, partner)
        self.bots: dict[str, Any] = {}
        if fixed is not None:
            self._seat_learner(fixed)
        size = self.aec.encoder.size
        self.observation_space = spaces.Box(0.0, 1.0, (size,), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._mask = _END_MASK.copy()
        self._done = True
        self._pending = 0.0

    def _check_seat(self, seat: Any, what: str) -> int:
        players = self.aec.players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= seat < players:
            raise ValueError(f"bad value {what}={seat!r}; expected a seat in 0..{players - 1}"
                             + (" or None / 'random' (drawn on every reset)"
                                if what == "seat" else ""))
        return int(seat)

    def _make_bots(self, opponent, partner) -> Any:
        """The bots: a function of the learner's seat, ``seat -> {other seat: bot}``."""
        players = self.aec.players
        if isinstance(opponent, Mapping):
            others = [s for s in range(players) if s != self.fixed_seat]
            missing = sorted(set(others) - set(opponent))
            extra = sorted(set(opponent) - set(others), key=repr)
            if missing or extra:
                raise ValueError(f"opponent mapping must name every seat but the learner's: "
                                 f"missing {missing}, unexpected {extra}")
            fixed = {s: self._load(opponent[s]) for s in others}
            return lambda seat: fixed
        if self.aec.rules.mode != "teams":
            if partner is not None:
                raise ValueError(f"bad value partner={partner!r}: mode "
                                 f"{self.aec.rules.mode!r} has no fixed partner (every other "
                                 f"seat is an opponent; pata de gallo's pair changes every "
                                 f"hand); pass opponent= only")
            mate = opponent
        else:
            mate = opponent if partner is None else partner
        # One bot per position relative to the learner (k = 1 .. players-1 seats after it):
        # odd k an opponent, even k a partner, whatever seat the learner gets (three-player
        # modes: both others are opponents, each its own copy of the bot).
        by_offset = {k: self._load(mate if k % 2 == 0 else opponent) for k in range(1, players)}
        return lambda seat: {(seat + k) % players: bot for k, bot in by_offset.items()}

    @staticmethod
    def _load(spec) -> Any:
        bot = load(spec)
        if bot.name == "human":
            raise ValueError("a human cannot sit at a bot seat of SingleAgentEnv")
        return bot

    def _seat_learner(self, seat: int) -> None:
        names = self.aec.possible_agents
        self.seat = seat
        self.agent = names[seat]
        self.aec.render_seat = seat       # render the learner's view, not every hand
        bots = self._seat_bots(seat)
        self.bots = {names[s]: bots[s] for s in sorted(bots)}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        players = self.aec.players
        seat_option = None
        if isinstance(options, dict) and "seat" in options:
            options = dict(options)
            seat_option = self._check_seat(options.pop("seat"), "option seat")
            if self._mapping and seat_option != self.fixed_seat:
                raise ValueError(f"bad value for option 'seat': {seat_option}; the opponent "
                                 f"mapping fixes the learner's seat to {self.fixed_seat}")
        redealt, redealt_reward = 0, 0.0
        while True:
            # Every draw on every attempt, used or not: the stream depends on the seed only.
            seeds = self.np_random.integers(0, 2**31 - 1, size=players)
            drawn_seat, drawn_mano = (int(x) for x in self.np_random.integers(0, players, 2))
            seat = seat_option if seat_option is not None else (
                self.fixed_seat if self.fixed_seat is not None else drawn_seat)
            self._seat_learner(seat)
            opts = options
            if options is None or (isinstance(options, dict) and "mano" not in options
                                   and "deals" not in options):
                opts = {**(options or {}), "mano": drawn_mano}
            self.aec.reset(seed=int(seeds[0]), options=opts)
            first_mano = int(self.aec.game.S[0, C.MANO])
            for bot, s in zip(self.bots.values(), seeds[1:]):
                bot.reseed(int(s))
            self._done = False
            self._pending = self._advance()
            if not self._done:
                break
            # The episode ended before the learner acted (a hand episode after a partner's
            # mazo...): no transition to return, so deal again (module docstring).
            redealt += 1
            redealt_reward += self._pending
            if redealt >= self.MAX_REDEALS:
                raise RuntimeError(f"{redealt} episodes in a row ended before the learner's "
                                   f"first decision (reset options {options!r}); the learner "
                                   f"never acts")
        info = self._info()
        info["first_mano"] = first_mano
        info["redealt"] = redealt
        info["redealt_reward"] = redealt_reward
        return self._observation(), info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("step() called after the episode ended; call reset()")
        a = int(action)
        if not (0 <= a < NUM_ACTIONS and self._mask[a]):
            msg = illegal_message(action, self._mask, self.agent)
            if self.illegal == "raise":
                raise IllegalActionError(msg)
            self._done = True
            self._pending = 0.0
            self._mask = _END_MASK.copy()
            info = self._info()
            info["illegal_move"] = msg
            return self._observation(), -1.0, True, False, info
        self.aec.step(a)
        # The rewards that came before the learner's first decision go with its first step.
        reward, self._pending = self._pending, 0.0
        reward += float(self.aec.rewards[self.agent])
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
                "score": list(self.aec.infos[self.agent].get("score", [0, 0])),
                "seat": self.seat,
                "mano": int(self.aec.game.S[0, C.MANO])}


def _register() -> None:
    """Register :data:`GYM_ID` with Gymnasium (once)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="agents.single_agent:SingleAgentEnv")


_register()
