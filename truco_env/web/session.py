"""The games and replays the browser plays and watches, without any web framework.

A :class:`GameSession` is one match: the person's seat, bots at the other seats (built by the
agent factory that :mod:`truco_env.web` was given) and the match driver.  Everything it hands
out is built from :func:`truco_env.view.decode_view` of the person's seat plus the legal actions
with :func:`truco_env.view.action_text`: never from the state array, so no hidden card can
reach the browser.  A :class:`ReplaySession` is a match record stepped through the driver
(:func:`truco_env.records.replay_steps`), every position kept.

>>> import numpy as np
>>> class First:                             # a bot that plays the first legal action
...     def act(self, observation, view):
...         return int(np.flatnonzero(observation["action_mask"])[0])
>>> s = GameSession(lambda spec, seed=None: First(), opponent="first", seed=1)
>>> state = s.state()
>>> state["view"]["seat"], len(state["view"]["hand"]), state["legal"][0]["name"]
(0, 3, 'play_0')
"""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from .. import core as C
from ..cards import card_str
from ..game import illegal_message, table_match
from ..observe import Encoder
from ..records import load_record, replay_steps
from ..rules import ACTIONS, PRESETS
from ..view import action_text, decode_view, hand_events

#: ``factory(spec, seed=...) -> bot``: a bot has ``act(observation, view) -> int``, maybe
#: ``observation`` (the encoder it reads) and ``advice(observation) -> dict | None``.
AgentFactory = Callable[..., Any]

#: Replays longer than this many actions are refused (every position is kept in memory).
MAX_REPLAY_STEPS = 5000


class RequestError(ValueError):
    """A request that cannot be served; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _sena_count(game, seat: int) -> int:
    return sum(e["event"] == "sena" for e in hand_events(game.S, 0, viewer=seat))


class GameSession:
    """One match in the browser: the person at ``seat``, bots elsewhere.

    ``opponent``/``partner``/``advisor`` are agent specs for ``factory``; partners are the
    person's team mates in team games (default: ``opponent``); the advisor (default: the first
    bot that can give advice) answers :meth:`advice`.  Bad values raise ``ValueError`` naming
    them (the game's own messages).
    """

    def __init__(self, factory: AgentFactory, rules: str = "argentino",
                 players: int | None = None, opponent: str = "heuristic",
                 partner: str | None = None, seat: int = 0, target: int | None = None,
                 flor: bool | None = None, pica_pica: bool | None = None,
                 senas: str | None = None, seed: int | None = None,
                 advisor: str | None = None):
        if rules not in PRESETS:
            raise ValueError(f"unknown rules {rules!r}; expected one of {list(PRESETS)}")
        self.game = table_match(rules, players, target=target, flor=flor, pica_pica=pica_pica,
                                senas=senas)
        P = self.game.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < P:
            raise ValueError(f"bad value seat={seat!r}; expected a seat in 0..{P - 1}")
        self.me = seat
        seeds = np.random.SeedSequence(seed).generate_state(P + 1)
        self.specs: dict[int, str] = {}
        self.bots: dict[int, Any] = {}
        for s in range(P):
            if s == seat:
                continue
            team_mate = not self.game.per_seat and s % 2 == seat % 2
            spec = partner if team_mate and partner else opponent
            self.specs[s] = spec
            self.bots[s] = _make_bot(factory, spec, int(seeds[s]))
        if advisor:
            self.advisor = _make_bot(factory, advisor, int(seeds[P]))
            if not callable(getattr(self.advisor, "advice", None)):
                raise ValueError(f"bad value advisor={advisor!r}: that agent gives no advice; "
                                 f"expected a trained policy (checkpoint:PATH, pretrained:NAME)")
        else:
            self.advisor = next((b for b in self.bots.values()
                                 if callable(getattr(b, "advice", None))), None)
        self.advisor_spec = advisor or next((self.specs[s] for s, b in self.bots.items()
                                             if b is self.advisor), None)
        self.encoders: dict[str, Encoder] = {}
        self.lock = threading.Lock()
        self.game.reset(seed=seed)
        self.moves: list[dict] = []
        self.last_hand: dict | None = None
        self.advance()

    # ------------------------------------------------------------------ playing
    def _observation(self, agent: Any, seat: int) -> dict:
        kind = getattr(agent, "observation", "compact")
        enc = self.encoders.setdefault(kind, Encoder(kind))
        S = self.game.S
        mask = self.game.legal_mask()
        return {"observation": enc.encode(S[[0]], self.game.tables, np.array([seat]))[0],
                "action_mask": mask[0].astype(np.int8)}

    def _step(self, seat: int, action: int, view: dict, ms: float | None) -> None:
        """Play ``action`` (already checked) of ``seat``; log what the person may see of it."""
        game = self.game
        hand = int(game.S[0, C.HAND_NO])
        sena = action >= C.A_SENA0
        before = _sena_count(game, self.me) if sena else 0
        _, ended, done, _ = game.step(np.array([action], dtype=np.int32))
        if not sena or _sena_count(game, self.me) > before:   # a rival's seña: if caught
            move = {"hand": hand, "seat": seat, "action": action, "name": ACTIONS[action],
                    "text": action_text(action, view)}
            if ms is not None:
                move["ms"] = round(ms, 2)
            self.moves.append(move)
        if ended[0]:
            self.last_hand = self.public_view()
            self.moves.append({"hand": hand, "hand_end": self.last_hand})
            if not done[0]:
                game.next_hand()

    def advance(self) -> None:
        """Let the bots play until it is the person's turn or the match is over."""
        S = self.game.S
        for _ in range(10_000):
            if S[0, C.DONE] == 1 or int(S[0, C.ACTOR]) == self.me:
                return
            seat = int(S[0, C.ACTOR])
            bot = self.bots[seat]
            ob = self._observation(bot, seat)
            view = decode_view(self.game, 0, seat)
            t0 = time.perf_counter()
            action = int(bot.act(ob, view))
            ms = 1000 * (time.perf_counter() - t0)
            self.game.check_actions(np.array([action]),
                                    who=lambda g: f"bot {self.specs[seat]!r} at seat {seat}")
            self._step(seat, action, view, ms)
        raise RuntimeError("the bots did not give the turn back in 10000 moves")

    def act(self, action: Any) -> dict:
        """The person plays ``action`` (an id); the bots answer.  Returns :meth:`state` with
        ``"moves"``: what happened since (the person's move, the bots', hands that ended)."""
        S = self.game.S
        if S[0, C.DONE] == 1:
            raise RequestError("the match is over; start a new game", 409)
        mask = self.game.legal_mask()
        ok = (isinstance(action, int) and not isinstance(action, bool)
              and 0 <= action < len(ACTIONS) and mask[0, action])
        if not ok:
            raise RequestError(illegal_message(action, mask[0], f"you (seat {self.me})"), 400)
        self.moves = []
        self._step(self.me, action, decode_view(self.game, 0, self.me), None)
        self.advance()
        return {**self.state(), "moves": self.moves}

    # ------------------------------------------------------------------ what the person sees
    def public_view(self) -> dict:
        """:func:`decode_view` of the person's seat: everything the browser is told of the game."""
        return decode_view(self.game, 0, self.me)

    def legal(self, view: dict) -> list[dict]:
        if self.game.S[0, C.DONE] == 1 or view["to_act"] != self.me:
            return []
        mask = self.game.legal_mask()[0]
        return [{"id": int(a), "name": ACTIONS[a], "text": action_text(int(a), view)}
                for a in np.flatnonzero(mask)]

    def state(self) -> dict:
        view = self.public_view()
        return {"view": view, "legal": self.legal(view), "last_hand": self.last_hand,
                "seats": [{"seat": s, "agent": "you" if s == self.me else self.specs[s]}
                          for s in range(self.game.players)],
                "advice": self.advisor is not None, "advisor": self.advisor_spec,
                "per_seat": self.game.per_seat}

    def advice(self) -> dict:
        """The advisor's probabilities of the person's legal actions and its value of the
        position (a trained policy's; see ``PolicyAgent.advice``)."""
        if self.advisor is None:
            raise RequestError("no advice in this game: the bots cannot give it (advice "
                               "comes from a trained policy: checkpoint:PATH or "
                               "pretrained:NAME, as an opponent or as 'advisor')", 409)
        view = self.public_view()
        if self.game.S[0, C.DONE] == 1 or view["to_act"] != self.me:
            raise RequestError("it is not your turn: advice is for your decisions", 409)
        out = self.advisor.advice(self._observation(self.advisor, self.me))
        if out is None:
            raise RequestError(f"the advisor {self.advisor_spec!r} gave no advice here", 409)
        return {"advisor": self.advisor_spec, "value": out.get("value"),
                "actions": [{"id": a, "name": ACTIONS[a], "text": action_text(a, view),
                             "prob": float(p)} for a, p in sorted(out["probs"].items())]}


def _make_bot(factory: AgentFactory, spec: Any, seed: int) -> Any:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"bad agent spec {spec!r}: expected a string such as 'heuristic', "
                         f"'random' or 'pretrained:default'")
    if spec.strip().partition(":")[0].strip() == "human":
        raise ValueError(f"bad agent spec {spec!r}: the browser's person is the only human "
                         f"at the table; bots are 'random', 'heuristic', 'checkpoint:PATH'...")
    bot = factory(spec, seed=seed)
    if not callable(getattr(bot, "act", None)):
        raise ValueError(f"agent spec {spec!r} gave {type(bot).__name__}, which has no act()")
    return bot


class ReplaySession:
    """A match record, every position of it kept, to step through.

    ``record``: a record dict (``env.unwrapped.record()``), or a list of them (a file that
    ``evaluate.py bluff --records`` reads), of which ``index`` is taken.
    """

    def __init__(self, record: Any, index: int = 0):
        if isinstance(record, list):
            if not record:
                raise ValueError("the upload is an empty list; expected match records")
            if not 0 <= index < len(record):
                raise ValueError(f"bad value match={index}: the upload has {len(record)} "
                                 f"records (0..{len(record) - 1})")
            self.count = len(record)
            record = record[index]
        else:
            self.count = 1
        self.record = load_record(record)
        steps = sum(len(h.get("actions", ())) for h in self.record["hands"]
                    if isinstance(h, dict))
        if steps > MAX_REPLAY_STEPS:
            raise RequestError(f"the record has {steps} actions; the replay viewer takes at "
                               f"most {MAX_REPLAY_STEPS}", 413)
        self.frames: list[np.ndarray] = []
        self.moves: list[dict | None] = []
        self.rules = None
        try:
            for game, hand, action in replay_steps(self.record):
                self.rules = game.rules
                self.frames.append(game.S[0].copy())
                self.moves.append(None if action is None else
                                  {"hand": hand, "action": action, "name": ACTIONS[action]})
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError(f"malformed record: {type(e).__name__} {e}") from None
        if not self.frames:
            raise ValueError("the record has no hands")
        self.players = int(self.record["players"])

    def position(self, step: int, show: str | int = "all") -> dict:
        """Position ``step`` (0 .. steps-1): the view of a seat (``show`` a seat: his cards only)
        or of a spectator who sees every hand (``show="all"``: replays are public records)."""
        n = len(self.frames)
        if not 0 <= step < n:
            raise RequestError(f"bad value step={step}: expected 0..{n - 1}", 400)
        if show != "all" and not (isinstance(show, int) and 0 <= show < self.players):
            raise RequestError(f"bad value show={show!r}: expected 'all' or a seat in "
                               f"0..{self.players - 1}", 400)
        S = self.frames[step][None]
        game = SimpleNamespace(S=S, rules=self.rules)
        seat = 0 if show == "all" else show
        view = decode_view(game, 0, seat)
        hands = None
        if show == "all":
            hands = [[card_str(S[0, C.HAND + 3 * p + k]) for k in range(3)]
                     for p in range(self.players)]
            played = [[bool(S[0, C.PLAYED + 3 * p + k] >= 0) for k in range(3)]
                      for p in range(self.players)]
            vocab = view["sena_names"]
            view["senas"] = [{"seat": e["seat"], "baza": e["baza"], "sena": vocab[e["sena"]],
                              "caught": e["caught"]}
                             for e in hand_events(S, 0) if e["event"] == "sena"]
            view["events"] = hand_events(S, 0)
            if S[0, C.DISCARDING] == 1:   # pata de gallo: the gallo holds four until he discards
                hands[int(S[0, C.GALLO])].append(card_str(S[0, C.FOURTH]))
                played[int(S[0, C.GALLO])].append(False)
            hands = [{"cards": h, "played": pl} for h, pl in zip(hands, played)]
        move = self.moves[step]
        if move is not None:
            prev = self.frames[step - 1][None]
            seat_moved = int(prev[0, C.ACTOR])
            move = {**move, "seat": seat_moved,
                    "text": action_text(move["action"], decode_view(
                        SimpleNamespace(S=prev, rules=self.rules), 0, seat_moved))}
            if move["action"] >= C.A_SENA0 and show != "all" and not C.sees_sena(
                    S, 0, show, seat_moved, int(S[0, C.SENA_CAUGHT + int(prev[0, C.BAZA])
                                                  * C.P_MAX + seat_moved])):
                move = {"hand": move["hand"], "seat": seat_moved, "hidden": True}
        return {"step": step, "steps": n, "show": show, "view": view, "hands": hands,
                "move": move, "agents": self.record.get("agents"), "records": self.count,
                "players": self.players}
