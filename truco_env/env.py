"""# Truco (PettingZoo AEC)

Truco, the Spanish-deck bluffing card game of Argentina and Uruguay, as a turn-based
PettingZoo environment over the batched rules core (a batch of one).

| Import | `import truco_env; env = truco_env.env(players=2)` |
|---|---|
| Actions | Discrete({num_actions}) with an action mask |
| Parallel API | no (one agent acts at a time) |
| Agents | `player_0` .. `player_{{n-1}}`, n = 2, 4 or 6 (teams: seat % 2), or 3 (pata de gallo, destantado) |
| Observation | `{{"observation": float32[{compact_size}], "action_mask": int8[{num_actions}]}}` (compact) |
| Recall | `observation="recall"`: float32[{recall_size}] (perfect recall, small: compact + bazas + calls) |
| Infostate | `observation="infostate"`: float32[{infostate_size}] (perfect recall, every action in a slot) |
| Reward | match: +1 / -1 at the end; points: per hand, won minus conceded |

## Arguments

| argument | values | meaning |
|---|---|---|
| `players` | 2, 4, 6; 3 | seats in play order, teams alternate (seat % 2); 3 for the three-player modes |
| `rules` | `"argentino"`, `"trucoshi"`, `"uruguayo"`, `"pata_de_gallo"`, `"destantado"` or a `RuleSet` | the preset (see `truco_env.rules`) |
| `mode` | `"teams"`, `"pata_de_gallo"`, `"destantado"` | a rule knob: the three-player modes of seed 000 (docs/rules.md section 12) |
| `target` | argentino 9, 15, 18, 30; trucoshi 18, 24, 30; uruguayo 30; destantado 10 | the total a side needs to win (destantado: the tantos to shed) |
| `flor` | bool | play with flor (argentino: off by default) |
| `episode` | `"match"` (default), `"hand"` | an episode is a whole match or one hand |
| `reward` | `"match"`, `"points"` | default: match for match episodes, points for hands |
| `observation` | `"compact"` (default), `"recall"`, `"infostate"` | the encoder (`truco_env.observe`) |
| `illegal` | `"raise"` (default), `"penalize"` | illegal action: `IllegalActionError`, or -1 and the end of the episode |
| `render_mode` | `"ansi"`, `"human"`, `"rgb_array"`, `None` | text, printed text, or a picture (`uint8[H, W, 3]`, needs Pillow) |
| any `RuleSet` knob | | overrides the preset (an unknown keyword is a `ValueError`) |

Reset options (all optional): `hands` (the first hand's deal by seat, e.g.
`[["7c", "6c", "4b"], ["1e", "2o", "5o"]]`), `mano` (seat of the first mano, default 0),
`score` (starting score by team), `muestra` (uruguayo: the card turned up, e.g. `"3b"`),
`deals` (every hand of the match, as in a record's `hands`: replay and scripted scenarios).
An unknown option key warns and is ignored, except `{{"options": <not a dict>}}`: the probe that
PettingZoo's `api_test` and `parallel_api_test` pass, ignored silently (`{{"options": {{...}}}}`,
options nested by mistake, still warns).

## Actions

{action_table}

`play_k` plays the card dealt in slot k (`view(agent)["hand"][k]`).  Agents not to act have an
all-zero mask.  The mask is in the observation only, as in PettingZoo's classic games (TorchRL's
and Tianshou's wrappers expect that); `infos[agent]` holds `score` (by team) after every step.
The observation, its mask and `action_mask(agent)` are fresh copies every call, and `infos` is
rewritten from the game after every step: a client may change any of them in place without
changing what the env accepts.

## Rendering

`render_mode="ansi"` returns the table as text, `"human"` prints it after every step and
`"rgb_array"` returns it as a picture, `uint8[H, W, 3]` (score, the hand's calls, each seat's
cards as labelled rectangles, the bazas, who acts; drawn with Pillow, `pip install pillow`).
Both show the cards of `env.unwrapped.render_seat` only (default `None`: a spectator sees every
hand).  Three-player modes: the score by player (destantado: tantos left) and each seat's side
(gallo, pair; alone, out); during pata de gallo's discard the gallo's fourth card, face up for
him (and a spectator) and face down for the pair; after it the card he discarded, to him only.

## Observation (compact)

{layout_table}

The other encoders start with the same pieces.  `"recall"` (perfect recall, small and fast;
the encoder `train.py` uses for the trained policy) adds who played which card in which baza
and the hand's calls in order:

{recall_table}

`"infostate"` adds `history` instead (every action of the hand in order, one
{event_size}-float slot each, {history_max} slots).  Read a piece by name with
`truco_env.observe.Encoder("compact").piece(obs, "hand")`, or every piece and sub-field as
shaped views with `Encoder("recall").views(obs)` (`views["bazas"]`: `[..., 3, 6, 40]`,
`views["calls"]`: `[..., {calls_max}, {call_size}]`, `views["calls.action"]`: `[..., {calls_max}, {num_calls}]`).

## Three-player modes

`rules="pata_de_gallo"` (or `mode="pata_de_gallo"`) and `rules="destantado"` play 3 players.
Scores are per player (`infos[agent]["score"]` and `view["score"]` have three entries; in
destantado each is the player's pile of tantos, from 10 down to 0).  Match rewards: +1 to the
winner, -1/2 to each of the others.  In pata de gallo the gallo (the dealer) first discards
one of four cards (`discard_0`..`discard_3`; his view's `hand` has four cards until then).
The rules, and every decision where seed 000 is silent: docs/rules.md section 12.

## Señas

`senas="traditional"` (seed 001's gestures) or `senas="learned"` (`sena_tokens` tokens) in a
team game: on his turn to play a card, once a baza, a player may make a seña (`sena_k`, the
k-th of `truco_env.rules.sena_vocabulary(rules)`) and keeps the turn.  His partners see it;
each opponent catches it with probability `sena_catch`.  Each player's observation (`senas`
piece), `view(agent)["senas"]`, `render()` from his seat and a replayed record show him the
señas he saw, and no others.  docs/rules.md section 13.

## Version history
The name (`truco_v1`, Gymnasium/PettingZoo id `truco_env/Truco-v1`) is bumped whenever a change
can alter what an agent learns (observations, actions, rules, rewards);
`truco_env.observe.LAYOUT_VERSION` is bumped with any observation layout change, and a
checkpoint of another layout version is refused by name.

* v0 (layout versions 1-2): first release (argentino, trucoshi and uruguayo; 2/4/6 players,
  flor, malas and buenas, muestra and piezas); layout 2 added the `recall` encoder.
* v1 (layout version 7), five changes:
  - the reads (issue 11, layout 3): every encoder gains the `reads` piece, what each player did
    earlier in the match (calls, answers and mazos per hand, envido points shown after its own
    calls), counted in the core (`core.READS`);
  - pica-pica (issue 12, layout 4): knobs `pica_pica`, `pica_pica_players`,
    `pica_pica_schedule` (docs/rules.md section 11; trucoshi plays it in 6-player matches); a
    pica-pica hand is its duels one after another, only the two players of the duel in
    progress act; the observation layout gains the `pica_pica` piece (zero outside
    pica-pica); `view()` gains `pica_pica`, `hand_mano`, `duel`, `duels`; events gain `duel`,
    hands the end reason `duels`;
  - the three-player modes of seed 000 (issue 12, layout 5), pata de gallo and destantado
    (`players=3`; knobs `mode` and `falta_points`, presets `pata_de_gallo` and `destantado`,
    docs/rules.md section 12): actions 16..19 (`discard_0`..`discard_3`) appended after
    `mazo`, the ids 0..15 keep their meaning; the observation layout gains the six
    three-player pieces after `pica_pica` (`observe.ADDED_PIECES`; zero in the team games),
    every other piece keeps its meaning; events gain `pass` and `discard`;
  - señas (issue 13, layout 6; docs/rules.md section 13): knobs `senas` (`"off"` default,
    `"traditional"`, `"learned"`), `sena_tokens` (8) and `sena_catch` (0.25) for the team
    games (4 and 6 players, pata de gallo's pair; señas with 2 players or in destantado are a
    `ConfigurationError`); actions 20..35 (`sena_0`..`sena_15`) appended after the discards,
    the ids 0..19 keep their meaning; a seña keeps the turn, one per player per baza before
    his card; partners see it, each opponent catches it with probability `sena_catch` (the
    env's seeded generator) and the signer never learns it; the observation layout gains the
    `senas` piece after `answers` (zero without señas); `view()` gains `senas` and
    `sena_names`, events gain `sena` (shown only to the players who saw it), records gain
    `caught` per hand.
  - the truco read (issue 11, layout 7): every encoder gains the `truco_reads` piece after
    `senas`, per relative seat how often it folded to the other side's truco-family songs
    earlier in the match and how often it answered one (`core.READ_TRUCO_ANS`,
    `READ_TRUCO_FOLD`).
  Shipped policies of layout 5 are carried to layout 6, and of 6 to 7, with zero weights for
  the new inputs and never-chosen señas (`python -m agents.pretrained migrate NAME`). Compact
  observations have 958 floats, recall 1,942, infostate 4,926; the mask has 36 actions.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from types import SimpleNamespace

from . import core as C
from .game import IllegalActionError, Matches, RecordedDeals, illegal_message
from .observe import (CALL_SIZE, CALLS_MAX, COMPACT_SIZE, EVENT_SIZE, HISTORY_MAX,
                      INFOSTATE_SIZE, NUM_CALLS, RECALL_SIZE, Encoder)
from .rules import ACTIONS, NUM_ACTIONS, SENA_MAX, RuleSet, get_rules
from .cards import card_str
from .view import decode_view, render_text, score_text

_ACTION_MEANING = {
    "play_0": "play the card dealt in slot 0", "play_1": "play the card in slot 1",
    "play_2": "play the card in slot 2", "envido": "sing or raise envido (+2)",
    "real_envido": "sing or raise real envido (+3)", "falta_envido": "sing or raise falta envido",
    "flor": "sing flor (compulsory with flor), or answer a flor by comparing",
    "contraflor": "answer a flor raising to contraflor", "contraflor_al_resto":
    "raise the flor to what the leader lacks", "con_flor_me_achico": "give up the flor contest",
    "truco": "sing truco", "retruco": "raise to retruco", "vale_cuatro": "raise to vale cuatro",
    "quiero": "accept the pending song", "no_quiero": "reject the pending song",
    "mazo": "give up the hand (the whole side)",
    # ---- three-player modes (issue 12)
    "discard_0": "pata de gallo: the gallo discards the card in slot 0 of his four",
    "discard_1": "pata de gallo: the gallo discards slot 1", "discard_2":
    "pata de gallo: the gallo discards slot 2", "discard_3":
    "pata de gallo: the gallo discards slot 3 (the fourth card dealt)",
    # ---- señas (issue 13)
    **{f"sena_{k}": f"make seña {k} of the game's vocabulary (`rules.sena_vocabulary`; "
                    f"keeps the turn)" for k in range(SENA_MAX)},
}
_OPTIONS = ("hands", "mano", "score", "muestra", "deals")
_ENV_ARGS = ("players", "rules", "target", "flor", "episode", "reward", "observation",
             "illegal", "render_mode")


def _action_table() -> str:
    rows = ["| id | name | meaning |", "|---|---|---|"]
    rows += [f"| {i} | `{a}` | {_ACTION_MEANING[a]} |" for i, a in enumerate(ACTIONS)]
    return "\n".join(rows)


__doc__ = __doc__.format(
    num_actions=NUM_ACTIONS, compact_size=COMPACT_SIZE, infostate_size=INFOSTATE_SIZE,
    recall_size=RECALL_SIZE, action_table=_action_table(),
    layout_table=Encoder("compact").layout_table(),
    recall_table=Encoder("recall").layout_table(["bazas", "calls"]), event_size=EVENT_SIZE,
    history_max=HISTORY_MAX, calls_max=CALLS_MAX, call_size=CALL_SIZE, num_calls=NUM_CALLS)


def env(**kwargs: Any) -> AECEnv:
    """The Truco AEC environment with PettingZoo's order-enforcing wrapper.

    Illegal and out-of-range actions are checked by the environment itself (``illegal=``), so
    the assert/terminate wrappers of PettingZoo's classic games are not needed.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "truco_v1",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, players: int = 2, rules: str | RuleSet = "argentino",
                 target: int | None = None, flor: bool | None = None, episode: str = "match",
                 reward: str | None = None, observation: str = "compact",
                 illegal: str = "raise", render_mode: str | None = None, **knobs: Any):
        super().__init__()
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise ValueError(f"bad value players={players!r}; expected 2, 4 or 6 (3 for the "
                             f"three-player modes)")
        if illegal not in ("raise", "penalize"):
            raise ValueError(f"bad value illegal={illegal!r}; expected 'raise' or 'penalize'")
        if render_mode not in (None, "human", "ansi", "rgb_array"):
            raise ValueError(f"bad value render_mode={render_mode!r}; expected 'human', 'ansi', "
                             f"'rgb_array' or None")
        bad = [k for k in knobs if k not in RuleSet.__dataclass_fields__]
        if bad:
            raise ValueError(f"unknown keyword {bad[0]!r}; expected one of {list(_ENV_ARGS)} "
                             f"or a rule knob {sorted(RuleSet.__dataclass_fields__)}")
        self.rules = get_rules(rules, target=target, flor=flor, **knobs)
        self.game = Matches(1, int(players), self.rules, episode=episode, reward=reward)
        self.encoder = Encoder(observation)
        self.illegal = illegal
        self.render_mode = render_mode
        self.players = int(players)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        # The env's own legal mask (never handed out: observe() and action_mask() copy it).
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._actor = -1
        self._seat = np.zeros(1, dtype=np.int32)
        self._action = np.zeros(1, dtype=np.int32)
        self._seed = None
        self._last_hand: np.ndarray | None = None
        #: Seat whose cards ``render()`` shows (``None``: a spectator sees every hand).
        self.render_seat: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        opts: dict = {}
        if options is not None:
            if not isinstance(options, dict):
                warnings.warn(f"reset options {options!r} ignored: expected a dict with keys "
                              f"{list(_OPTIONS)}", stacklevel=2)
            else:
                for k, v in options.items():
                    if k == "options" and not isinstance(v, dict):
                        continue   # PettingZoo's api_test probe {"options": 1}: quietly ignored
                    if k not in _OPTIONS:
                        warnings.warn(f"unknown reset option {k!r} ignored; known options: "
                                      f"{list(_OPTIONS)}", stacklevel=2)
                    else:
                        opts[k] = v
        self._seed = seed
        deals = opts.get("deals")
        if deals is not None:
            if not isinstance(deals, (list, tuple)) or not deals or any(
                    not isinstance(h, dict) or "deal" not in h or "mano" not in h for h in deals):
                raise ValueError(f"bad value for option 'deals': {deals!r}; expected a list of "
                                 f"hands, each {{'mano': seat, 'deal': [[cards of seat 0], ...], "
                                 f"'muestra': card or None}} as in a record")
            if any(k in opts for k in ("hands", "mano", "muestra")):
                raise ValueError("option 'deals' gives every hand; do not combine it with "
                                 "'hands', 'mano' or 'muestra'")
            deals = RecordedDeals(deals, self.players)
        self.game.reset(seed=seed, hands=opts.get("hands"), mano=opts.get("mano"),
                        score=opts.get("score"), muestra=opts.get("muestra"), deals=deals)
        self._last_hand = None
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._update()

    def _update(self) -> None:
        """Refresh the selected agent, the mask and the infos from the core state."""
        S = self.game.S
        actor = int(S[0, C.ACTOR])
        self.agent_selection = self.possible_agents[actor]
        self._actor = -1 if S[0, C.HAND_OVER] == 1 else actor
        self._mask = self.game.legal_mask()[0].astype(np.int8)
        score = [int(x) for x in self.game.user_score(S[0, C.SCORE:C.SCORE + C.T_MAX])]
        for a in self.possible_agents:
            info = self.infos.get(a)
            if info is not None:
                info["score"] = list(score)

    # ------------------------------------------------------------------ step
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._mask
        valid = isinstance(action, (int, np.integer)) and not isinstance(action, bool) \
            and 0 <= action < NUM_ACTIONS and legal[action]
        if not valid:
            msg = illegal_message(action, legal, agent)
            if self.illegal == "raise":
                raise IllegalActionError(msg)
            self._cumulative_rewards[agent] = 0.0
            for a in self.agents:
                self.rewards[a] = -1.0 if a == agent else 0.0
                self.terminations[a] = True
                self.infos[a]["illegal_move"] = msg
            self._accumulate_rewards()
            return
        self._cumulative_rewards[agent] = 0.0
        self._action[0] = action
        rewards, hand_ended, done, _ = self.game.step(self._action)
        r = rewards[0]
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(r[i])
        if hand_ended[0]:
            # The finished hand stays readable (last_hand) after the next deal.
            self._last_hand = self.game.S[0:1].copy()
            if done[0]:
                for a in self.agents:
                    self.terminations[a] = True
            else:
                self.game.next_hand()
        self._update()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict:
        seat = self.agent_name_mapping[agent]
        obs = self.encoder.encode_one(self.game.S, self.game.tables, 0, seat)
        return {"observation": obs, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """``int8[A]``, a fresh copy: the legal actions of ``agent`` now (all zero unless it is
        to act).  The observation's ``action_mask`` without encoding the observation."""
        if self.agent_name_mapping[agent] == self._actor:
            return self._mask.copy()
        return np.zeros(NUM_ACTIONS, dtype=np.int8)

    def view(self, agent: str) -> dict:
        """What ``agent`` may know, decoded (never another player's hidden cards)."""
        seat = self.agent_name_mapping[agent]
        return decode_view(self.game, 0, seat)

    def last_hand(self, agent: str) -> dict | None:
        """The view of ``agent`` of the last finished hand, as it stood at its end (bazas,
        calls, events, points), or ``None`` before the first hand ends."""
        if self._last_hand is None:
            return None
        game = SimpleNamespace(S=self._last_hand, rules=self.rules)
        return decode_view(game, 0, self.agent_name_mapping[agent])

    def record(self, agents: list[str] | None = None) -> dict:
        """A JSON-serialisable record of the episode so far (see :func:`truco_env.replay`).

        ``agents`` (one name per seat, e.g. agent specs) is stored as ``record["agents"]`` so
        that analyses of saved records (``evaluate.py bluff --records``) know who sat where.
        """
        rec = self.game.record(seed=self._seed)
        if agents is not None:
            if len(agents) != self.players:
                raise ValueError(f"bad value agents={agents!r}: expected {self.players} names, "
                                 f"one per seat")
            rec["agents"] = [str(a) for a in agents]
        return rec

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            warnings.warn("render() called without render_mode; use render_mode='ansi', "
                          "'human' or 'rgb_array'", stacklevel=2)
            return None
        if self.render_mode == "rgb_array":
            return render_picture(self.game, 0, self.render_seat)
        text = render_text(self.game, 0, self.render_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------- picture
_SUIT = {"e": ("espadas", (40, 80, 170)), "b": ("bastos", (30, 120, 50)),
         "o": ("oros", (190, 140, 10)), "c": ("copas", (180, 30, 40))}
_FELT, _INK, _BACK = (24, 92, 52), (245, 245, 235), (120, 30, 40)
_CARD_W, _CARD_H, _ROW_H = 56, 64, 78


def render_picture(game: Any, g: int, seat: int | None = None) -> np.ndarray:
    """Game ``g`` as a picture ``uint8[H, W, 3]`` (``render_mode="rgb_array"``).

    Header: preset, score by team (three-player modes: by player; destantado: tantos left),
    hand number, truco level, muestra.  One row per seat: its three cards as labelled
    rectangles in slot order (a card played is drawn grey with the baza it went to; with
    ``seat`` given, the other seats' unplayed cards face down), then the points it showed.  In
    pata de gallo's discard phase the gallo's row has a fourth card, face up for the gallo
    (and with no ``seat``), face down for the others; after it the gallo sees the card he
    discarded under his name.  Right column: the hand's calls, and who is to act.  Needs
    Pillow.
    """
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:  # pragma: no cover - Pillow comes with matplotlib ([train])
        raise ImportError("render_mode='rgb_array' draws with Pillow: pip install pillow"
                          ) from exc
    S = game.S
    P = int(S[g, C.NPLAYERS])
    v = decode_view(game, g, 0 if seat is None else seat)
    try:
        font, small = ImageFont.load_default(size=15), ImageFont.load_default(size=12)
    except TypeError:  # Pillow < 10.1: one bitmap font
        font = small = ImageFont.load_default()
    width, top = 640, 64
    height = top + P * _ROW_H + 28
    img = Image.new("RGB", (width, height), _FELT)
    d = ImageDraw.Draw(img)
    rules = game.rules
    d.text((10, 6), f"Truco {rules.name} - {P} players - match to {rules.target}"
           + (" (malas y buenas)" if rules.has_buenas else "")
           + (" - con flor" if rules.flor else ""), fill=_INK, font=font)
    if rules.mode == "teams":
        score_row = "   ".join(f"team {t}: {score_text(v['score'][t], rules.target, rules.has_buenas)}"
                               for t in range(2))
    else:   # three-player modes: by player (destantado: tantos left)
        score_row = "   ".join(f"player_{p}: {v['score'][p]}" for p in range(P)) + (
            "  (tantos left)" if rules.mode == "destantado" else "")
    d.text((10, 26), score_row, fill=(255, 230, 120), font=font)
    truco = ("no truco", "truco", "retruco", "vale cuatro")[min(v["truco_level"], 3)]
    d.text((10, 44), f"hand {v['hand_number']} - mano player_{v['mano']} - {truco}"
           + (f" - muestra {v['muestra']}" if v["muestra"] else ""), fill=_INK, font=small)
    baza_of = {}
    for b, row in enumerate(v["table"]):
        for p, c in row:
            baza_of[(p, c)] = b + 1
    for p in range(P):
        y = top + p * _ROW_H
        me = " (you)" if seat == p else ""
        label = f"player_{p}{me}" + (" *" if v["to_act"] == p else "")
        d.text((10, y + 4), label, fill=_INK, font=small)
        side = (f"team {p % 2}" if rules.mode == "teams" else
                ("gallo" if v.get("gallo") == p else "pair") if rules.mode == "pata_de_gallo"
                else ("out" if p in v.get("out", []) else "alone"))
        d.text((10, y + 20), side + (" - mano" if v["mano"] == p else ""),
               fill=(200, 220, 200), font=small)
        if p in v["envido_points"]:
            d.text((10, y + 36), f"shows {v['envido_points'][p]}", fill=(255, 230, 120),
                   font=small)
        fourth = S[g, C.DISCARDING] == 1 and p == S[g, C.GALLO]   # pata de gallo's discard
        if seat == p and v.get("discarded"):
            d.text((10, y + 52), f"discarded {v['discarded']}", fill=(200, 220, 200),
                   font=small)
        for k in range(4 if fourth else 3):
            x = 140 + k * (_CARD_W + 8)
            box = (x, y + 4, x + _CARD_W, y + 4 + _CARD_H)
            code = int(S[g, C.HAND + 3 * p + k] if k < 3 else S[g, C.FOURTH])
            played = k < 3 and S[g, C.PLAYED + 3 * p + k] >= 0
            if code < 0:
                continue
            card = card_str(code)
            if not played and seat is not None and p != seat:
                d.rounded_rectangle(box, 5, fill=_BACK, outline=_INK, width=2)
                continue
            colour = _SUIT[card[-1]][1]
            d.rounded_rectangle(box, 5, fill=(170, 170, 160) if played else (250, 248, 240),
                                outline=colour, width=3)
            d.text((x + 6, y + 10), card[:-1], fill=colour, font=font)
            d.text((x + 6, y + 30), _SUIT[card[-1]][0], fill=colour, font=small)
            if played:
                d.text((x + 4, y + 48), f"baza {baza_of.get((p, card), '?')}",
                       fill=(40, 40, 40), font=small)
    x0 = 140 + 4 * (_CARD_W + 8) + 10      # right of a fourth card
    d.text((x0, top), "calls", fill=(255, 230, 120), font=font)
    rows = max(1, (P * _ROW_H - 24) // 16)
    calls = [f"player_{p} {a}" for p, a in v["calls"]]
    if seat is None:        # señas (issue 13): a spectator sees all, a seat those it saw
        from .view import hand_events
        v["senas"] = [{**e, "sena": v["sena_names"][e["sena"]]} for e in hand_events(S, g)
                      if e["event"] == "sena"]
    calls += [f"player_{x['seat']} seña {x['sena']}" + (" (caught)" if x["caught"] else "")
              for x in v["senas"]]
    if len(calls) > rows:
        calls = ["..."] + calls[-(rows - 1):]
    for i, line in enumerate(calls):
        d.text((x0, top + 22 + 16 * i), line, fill=_INK, font=small)
    if v["done"]:
        status = (f"match over: team {v['winner']} wins" if rules.mode == "teams"
                  else f"match over: player_{v['winner']} wins")
    elif v["hand_over"]:
        status = f"hand over ({v['end_reason']})"
    else:
        status = f"to act: player_{v['to_act']}" + (
            f" (answering {v['pending']})" if v["pending"] else "")
    d.text((10, height - 22), status, fill=_INK, font=font)
    return np.asarray(img, dtype=np.uint8).copy()
