"""Truco in OpenSpiel: ``python_truco`` over the same rules core, and small Truco.

Importing this module registers ``python_truco`` with ``pyspiel`` (``open_spiel`` is the
``openspiel`` extra)::

    >>> import pyspiel, truco_env.openspiel
    >>> game = pyspiel.load_game("python_truco(players=2,rules=argentino,episode=hand)")
    >>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
    (2, 16, 40)

It is the project's rules core (:mod:`truco_env.core`) behind OpenSpiel's API: the same action
ids and masks (:data:`truco_env.ACTIONS`, the 16 of the two-team game), the deal as explicit
chance nodes, returns, serialisation (the action history) and observers built from the
project's encoders: the information-state tensor is the perfect-recall ``recall`` encoder, the
observation tensor the ``compact`` one (:mod:`truco_env.observe`).

| parameter | default | meaning |
|---|---|---|
| `players` | 2 | 2, 4 or 6 (teams alternate seats) |
| `rules` | `argentino` | a preset with two teams: argentino, trucoshi, uruguayo |
| `target` | 0 | points to win the match (0: the preset's) |
| `flor` | `preset` | `on`, `off` or `preset` |
| `episode` | `hand` | `hand` (one hand; returns: points won minus points conceded by the player's team) or `match` (to the target; +1/-1) |
| `deck` | (empty) | the cards in play, e.g. `1e 1b 7e 7o 3e 2e 12c` (spaces or `+`); empty: the 40 |
| `calls` | (empty) | the actions besides `play_k` that may be played, e.g. `envido+truco` (`quiero`, `no_quiero` always); empty: all; `none`: card plays only |
| `mano` | 0 | seat of the first mano |

**The deal.** Seat 0's three cards, then seat 1's, ... (then the muestra), one chance node per
card.  The cards of a hand are dealt in ascending card id, each card with the probability that
makes every set of three equally likely: a hand's slot order carries no information (``play_k``
plays slot k), and dealing sets rather than sequences makes the tree 36 times smaller in 1v1.

**Small Truco** (:func:`small_truco`): one hand, 1v1, argentino betting (envido chain and truco
ladder as in the full game), flor off, a small ``deck`` (:data:`SMALL_DECKS`); ``python -m
truco_env.openspiel size`` prints its size.  docs/small_truco.md has its equilibrium.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from . import core as C
from .cards import NUM_CARDS, card_str
from .game import deck_order
from .observe import Encoder
from .rules import ACTIONS, ConfigurationError, RuleSet, get_rules

#: The actions of the two-team game: ``play_0`` .. ``mazo`` (ids as :data:`truco_env.ACTIONS`).
NUM_ACTIONS = 16
#: Decks of small Truco by name.  ``"7"``: the smallest with hidden cards (each player sees 3
#: of the 7 and does not know which of the other 4 the rival holds); ``"8"`` the default: two
#: suits so that envido has pairs (20+), the four matas, threes, a parda pair (7c, 7b are not
#: in it; 12e/12c are) and one low card.
SMALL_DECKS: dict[str, tuple[str, ...]] = {
    "7": ("1e", "7e", "3e", "12e", "1b", "3b", "12b"),
    "8": ("1e", "7e", "3e", "12e", "4e", "1b", "3b", "12b"),
}
SMALL_DEFAULT = "7"
#: The calls of small Truco: envido (and its raise envido-envido) and truco (not raised); the
#: full ladders and the mazo multiply the tree by about 30 (docs/small_truco.md).
SMALL_CALLS = ("envido", "truco")

_DEFAULTS = {"players": 2, "rules": "argentino", "target": 0, "flor": "preset",
             "episode": "hand", "deck": "", "calls": "", "mano": 0}

_GAME_TYPE = pyspiel.GameType(
    short_name="python_truco",
    long_name="Python Truco (truco_env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS)


def game_string(**params: Any) -> str:
    """The ``pyspiel.load_game`` string of ``python_truco`` with these parameters.

    >>> game_string(players=2, deck="1e 7e 3e")
    'python_truco(deck=1e+7e+3e,players=2)'
    """
    def value(v):
        if isinstance(v, bool):
            return "on" if v else "off"
        if isinstance(v, (list, tuple)):
            return "+".join(v) or "none"
        return str(v).replace(" ", "+")
    return "python_truco(" + ",".join(f"{k}={value(v)}" for k, v in sorted(params.items())) + ")"


def small_truco(deck: str | tuple[str, ...] = SMALL_DEFAULT, flor: bool = False,
                calls: tuple[str, ...] | None = SMALL_CALLS, target: int = 0,
                mano: int = 0) -> pyspiel.Game:
    """Small Truco: one hand, 1v1, argentino's betting with ``calls`` (``None``: all), ``deck``
    a name of :data:`SMALL_DECKS` or a list of cards."""
    cards = SMALL_DECKS[deck] if isinstance(deck, str) and deck in SMALL_DECKS else deck
    params = {"players": 2, "episode": "hand", "deck": cards, "flor": flor, "mano": mano}
    if calls is not None:
        params["calls"] = tuple(calls)
    if target:
        params["target"] = target
    return pyspiel.load_game(game_string(**params))


def _calls(text: str) -> tuple[str, ...] | None:
    """The ``calls`` parameter: empty = every action, ``none`` = card plays only."""
    if text == "none":
        return ()
    return tuple(text.replace("+", " ").split()) or None


class _Spec:
    """What every state of one game shares (rules, tables, encoders); never copied."""

    def __init__(self, params: dict):
        P = int(params["players"])
        flor = {"preset": None, "on": True, "off": False}.get(str(params["flor"]), "?")
        if flor == "?":
            raise ValueError(f"python_truco: bad value flor={params['flor']!r}; expected on, "
                             f"off or preset")
        knobs = {"flor": flor, "target": int(params["target"]) or None,
                 "deck": str(params["deck"]).replace("+", " ") or None,
                 "calls": _calls(str(params["calls"]))}
        self.rules: RuleSet = get_rules(str(params["rules"]), **knobs)
        if self.rules.mode != "teams" or P not in self.rules.players_allowed:
            raise ConfigurationError(f"python_truco: bad value players={P} for rules "
                                     f"{self.rules.name!r}; expected one of 2, 4, 6 with a "
                                     f"preset of two teams (argentino, trucoshi, uruguayo)")
        self.episode = str(params["episode"])
        if self.episode not in ("hand", "match"):
            raise ValueError(f"python_truco: bad value episode={self.episode!r}; expected "
                             f"hand or match")
        self.players = P
        self.mano = int(params["mano"])
        if not 0 <= self.mano < P:
            raise ValueError(f"python_truco: bad value mano={self.mano}; expected a seat in "
                             f"0..{P - 1}")
        self.tables = self.rules.tables()
        self.deck = np.array(self.rules.deck_ids, dtype=np.int32)
        self.dealt = 3 * P + int(self.rules.muestra)
        if len(self.deck) < self.dealt:
            raise ConfigurationError(f"python_truco: bad value deck={self.rules.deck} for "
                                     f"players={P}: a deal needs {self.dealt} cards")
        self.allowed = None if self.rules.allowed is None else self.rules.allowed[:NUM_ACTIONS]
        self.sign = np.where(np.arange(P) % 2 == 0, 1.0, -1.0)
        T = self.rules.target
        # A hand: every card, at most 12 calls (observe.CALLS_MAX) per hand or pica-pica duel
        # and the flor songs; a match: at most 2T - 1 hands (every hand scores at least 1).
        hand_len = 3 * P + 12 * max(1, P // 2) + 2 * P
        self.max_length = hand_len * (1 if self.episode == "hand" else 2 * T - 1)
        self.utility = 2.0 * T if self.episode == "hand" else 1.0

    def __deepcopy__(self, memo):
        return self


class TrucoGame(pyspiel.Game):
    """``python_truco``: Truco over :mod:`truco_env.core` (parameters in the module doc)."""

    def __init__(self, params: dict | None = None):
        params = {**_DEFAULTS, **(params or {})}
        self.spec = _Spec(params)
        s = self.spec
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_CARDS,
            num_players=s.players, min_utility=-s.utility, max_utility=s.utility,
            utility_sum=0.0, max_game_length=s.max_length)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> "TrucoState":
        return TrucoState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "TrucoObserver":
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return TrucoObserver(self.spec, iig_obs_type, params)


class Position:
    """One position of ``python_truco`` as a plain object (what :class:`TrucoState` wraps; the
    tree walkers copy it directly, much faster than ``State.child``): the core state of one game
    (``S[1, STATE_SIZE]``), the deal in progress and the public record of the match."""

    def __init__(self, spec: _Spec):
        self.spec = spec
        self.S = C.new_state(1, spec.players)
        self.cards: list[int] = []              # the deal in progress, in dealing order
        self.next_mano = spec.mano
        self.points = np.zeros(2, dtype=np.int64)   # by team, over the episode
        self.record: list[str] = []             # public: every call, card and declaration
        self.hands: list[list[int]] = []        # per hand: the cards dealt, seat by seat
        self.over = False

    def copy(self) -> "Position":
        new = Position.__new__(Position)
        new.spec, new.S, new.cards = self.spec, self.S.copy(), list(self.cards)
        new.next_mano, new.points, new.record = self.next_mano, self.points.copy(), list(self.record)
        new.hands, new.over = self.hands[:], self.over
        return new

    def player(self) -> int:
        if self.over:
            return pyspiel.PlayerId.TERMINAL
        if len(self.cards) < self.spec.dealt:
            return pyspiel.PlayerId.CHANCE
        return int(self.S[0, C.ACTOR])

    def legal(self) -> list[int]:
        mask = C.legal_mask(self.S, self.spec.tables)[0, :NUM_ACTIONS]
        if self.spec.allowed is not None:
            mask &= self.spec.allowed
        return np.flatnonzero(mask).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next card, uniform over the sets of three (see the module doc)."""
        i = len(self.cards)
        taken = set(self.cards)
        rest = [int(c) for c in self.spec.deck if c not in taken]
        if i >= 3 * self.spec.players:           # the muestra: any card left
            return [(c, 1.0 / len(rest)) for c in rest]
        k = i % 3
        low = self.cards[-1] if k > 0 else -1
        above = [c for c in rest if c > low]
        need = 3 - k
        total = math.comb(len(above), need)
        out = []
        for j, c in enumerate(above):
            w = math.comb(len(above) - j - 1, need - 1)
            if w:
                out.append((c, w / total))
        return out

    def apply(self, action: int) -> None:
        if len(self.cards) < self.spec.dealt:
            self.cards.append(int(action))
            if len(self.cards) == self.spec.dealt:
                self._deal()
            return
        S = self.S
        start = int(S[0, C.LOG_LEN])
        pts = C.step(S, self.spec.tables, np.array([action], dtype=np.int32))
        self.points += pts[0, :2]
        self._record(start)
        if S[0, C.HAND_OVER] == 1 or S[0, C.DONE] == 1:
            if self.spec.episode == "hand" or S[0, C.DONE] == 1:
                self.over = True
            else:
                self.next_mano = (int(S[0, C.MANO]) + 1) % self.spec.players
                self.cards = []

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.spec.players
        if self.spec.episode == "hand":
            d = float(self.points[0] - self.points[1])
        else:
            d = 1.0 if self.S[0, C.WINNER] == 0 else -1.0
        return (self.spec.sign * d).tolist()

    def infostate(self, player: int) -> str:
        """The perfect-recall information state string: my cards of every hand, then the
        public record (deals' manos, calls, cards, envido and flor points said aloud)."""
        mine = [" ".join(card_str(c) for c in h[3 * player:3 * player + 3]) for h in self.hands]
        if 3 * player < len(self.cards) < self.spec.dealt:
            mine.append(" ".join(card_str(c) for c in self.cards[3 * player:3 * player + 3]))
        return f"p{player} mine:[{' / '.join(mine)}] " + " ".join(self.record)

    def __str__(self) -> str:
        hands = " / ".join(" ".join(card_str(c) for c in self.cards[3 * p:3 * p + 3])
                           for p in range((len(self.cards) + 2) // 3))
        return f"[{hands}] {' '.join(self.record[-40:])}"

    def _deal(self) -> None:
        P = self.spec.players
        given = self.cards[:3 * P]
        muestra = self.cards[3 * P] if self.spec.rules.muestra else None
        order = deck_order(given, muestra, range(NUM_CARDS))
        C.start_hand(self.S, self.spec.tables, np.zeros(1, np.int64), order[None],
                     np.array([self.next_mano], dtype=np.int32))
        self.hands.append(list(given))
        self.record.append(f"|hand{len(self.hands)} mano:{self.next_mano}"
                           + (f" muestra:{card_str(muestra)}" if muestra is not None else ""))

    def _record(self, start: int) -> None:
        """Append the public events of the last step (calls, cards, points said aloud)."""
        S = self.S
        for i in range(start, int(S[0, C.LOG_LEN])):
            kind, seat, _, value, detail = C.unpack_event(S[0, C.LOG + i])
            if kind == C.EV_ACTION:
                what = ACTIONS[value] + (f"={card_str(detail)}" if detail >= 0 else "")
                self.record.append(f"s{seat}:{what}")
            elif kind == C.EV_DECLARE:
                said = "buenas" if value < 0 else str(value)
                self.record.append(f"s{seat}:{('envido', 'flor')[detail]}_points={said}")


class TrucoState(pyspiel.State):
    """``python_truco``'s state: OpenSpiel's API over a :class:`Position`."""

    def __init__(self, game: TrucoGame):
        super().__init__(game)
        self.pos = Position(game.spec)

    def current_player(self) -> int:
        return self.pos.player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.pos.legal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.pos.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.pos.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{card_str(action)}"
        return ACTIONS[action]

    def is_terminal(self) -> bool:
        return self.pos.over

    def returns(self) -> list[float]:
        return self.pos.returns()

    def __str__(self) -> str:
        return str(self.pos)


class TrucoObserver:
    """An OpenSpiel observer from the project's encoders: ``recall`` (perfect recall: the
    information state) or ``compact`` (the observation).  ``tensor`` is the encoder's vector,
    ``dict`` its named pieces (:attr:`truco_env.observe.Encoder.pieces`)."""

    def __init__(self, spec: _Spec, iig_obs_type, params):
        if params:
            raise ValueError(f"python_truco observers take no parameters; got {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER \
                or not iig_obs_type.public_info:
            raise ValueError("python_truco observes for one player (private_info="
                             "SINGLE_PLAYER, public_info=True)")
        self.spec = spec
        self.recall = bool(iig_obs_type.perfect_recall)
        self.encoder = Encoder("recall" if self.recall else "compact")
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {name: self.encoder.piece(self.tensor, name)
                     for name, _, _ in self.encoder.pieces}

    def set_from(self, state: TrucoState, player: int) -> None:
        pos = state.pos
        if not pos.hands:            # nothing dealt yet
            self.tensor.fill(0.0)
            return
        self.encoder.encode_one(pos.S, self.spec.tables, 0, player, out=self.tensor)

    def string_from(self, state: TrucoState, player: int) -> str:
        if self.recall:
            return state.pos.infostate(player)
        return _compact_string(state.pos, player)


def _compact_string(state: Position, player: int) -> str:
    """What is on the table now, from ``player``'s seat (no hidden card of another player)."""
    S = state.S[0]
    if not state.hands:
        return f"p{player} dealing"
    hand = " ".join(card_str(S[C.HAND + 3 * player + k]) if S[C.PLAYED + 3 * player + k] < 0
                    else "--" for k in range(3))
    bazas = []
    for b in range(3):
        cards = [f"s{p}:{card_str(S[C.BAZA_CARD + b * C.P_MAX + p])}"
                 for p in range(state.spec.players) if S[C.BAZA_CARD + b * C.P_MAX + p] >= 0]
        if cards:
            bazas.append(f"b{b + 1}(" + " ".join(cards) + ")")
    chain = state.spec.rules.envido_chain[S[C.ENVIDO_CHAIN_ID]][0] or "-"
    public = " ".join(f"s{p}={S[C.PUBLIC + p]}" for p in range(state.spec.players)
                      if S[C.PUBLIC + p] >= 0)
    return (f"p{player} mano:s{S[C.MANO]} act:s{S[C.ACTOR]} hand:[{hand}] "
            f"{' '.join(bazas)} truco:{S[C.TRUCO_LEVEL]}/{S[C.TRUCO_PENDING]} "
            f"envido:{chain}{'?' if S[C.ENVIDO_PENDING] else ''} points:[{public}] "
            f"score:{S[C.SCORE]}-{S[C.SCORE + 1]}")


pyspiel.register_game(_GAME_TYPE, TrucoGame)


# -------------------------------------------------------------------------------- the tree


def tree_size(game: pyspiel.Game) -> dict[str, int]:
    """Histories (every node: chance, decision, terminal), decision nodes, terminal nodes and
    information states of each player, by walking the whole tree (small games only)."""
    counts = {"histories": 0, "chance": 0, "decisions": 0, "terminals": 0}
    infosets: list[set] = [set() for _ in range(game.num_players())]

    def walk(pos):
        counts["histories"] += 1
        p = pos.player()
        if p == pyspiel.PlayerId.TERMINAL:
            counts["terminals"] += 1
            return
        if p == pyspiel.PlayerId.CHANCE:
            counts["chance"] += 1
            actions = [a for a, _ in pos.chance_outcomes()]
        else:
            counts["decisions"] += 1
            infosets[p].add(pos.infostate(p))
            actions = pos.legal()
        for a in actions:
            child = pos.copy()
            child.apply(a)
            walk(child)

    walk(game.new_initial_state().pos)
    for p, s in enumerate(infosets):
        counts[f"infostates_p{p}"] = len(s)
    counts["infostates"] = sum(len(s) for s in infosets)
    return counts


@dataclass
class Efg:
    """A small game's tree exported in Gambit's EFG format, for OpenSpiel's C++ algorithms
    (``pyspiel.load_efg_game``: CFR+ and exact best responses at C++ speed on the same tree).

    ``infostates[p][i]`` is player p's information state string (``python_truco``'s) of EFG
    infoset ``i + 1`` and ``legal[p][i]`` its legal action ids; ``actions`` the action names
    in the order the EFG game numbers them.
    """

    text: str
    infostates: list[list[str]]
    legal: list[list[list[int]]]
    actions: list[str]

    def __post_init__(self):
        self.number = [{s: i + 1 for i, s in enumerate(names)} for names in self.infostates]
        self.action_id = {a: i for i, a in enumerate(self.actions)}

    def key(self, player: int, infostate: str) -> str:
        """The EFG game's information state string of ``python_truco``'s ``infostate``
        (OpenSpiel's efg_game: owner-observer-number-name)."""
        return f"{player}-{player}-{self.number[player][infostate]}-"

    def load(self) -> pyspiel.Game:
        return pyspiel.load_efg_game(self.text)


def export_efg(game: pyspiel.Game) -> Efg:
    """Walk ``game`` (a small ``python_truco``) once and write its tree as EFG text."""
    lines = [f'EFG 2 R "{game}" {{ ' + " ".join(f'"Pl{p}"' for p in range(game.num_players()))
             + " }"]
    numbers: list[dict[str, int]] = [{} for _ in range(game.num_players())]
    legal: list[list[list[int]]] = [[] for _ in range(game.num_players())]
    label_ids: dict[str, int] = {}
    counter = {"t": 0, "c": 0}

    def walk(pos):
        p = pos.player()
        if p == pyspiel.PlayerId.TERMINAL:
            counter["t"] += 1
            lines.append(f't "" {counter["t"]} "" {{ ' + " ".join(map(repr, pos.returns()))
                         + " }")
            return
        if p == pyspiel.PlayerId.CHANCE:
            counter["c"] += 1
            outcomes = pos.chance_outcomes()
            lines.append(f'c "" {counter["c"]} "" {{ ' + " ".join(
                f'"deal:{card_str(a)}" {pr!r}' for a, pr in outcomes) + " } 0")
            actions = [a for a, _ in outcomes]
        else:
            info = pos.infostate(p)
            actions = pos.legal()
            num = numbers[p].get(info)
            if num is None:
                num = numbers[p][info] = len(numbers[p]) + 1
                legal[p].append(actions)
            for a in actions:
                label_ids.setdefault(ACTIONS[a], len(label_ids))
            lines.append(f'p "" {p + 1} {num} "" {{ '
                         + " ".join(f'"{ACTIONS[a]}"' for a in actions) + " } 0")
        for a in actions:
            child = pos.copy()
            child.apply(a)
            walk(child)

    walk(game.new_initial_state().pos)
    infostates = [sorted(d, key=d.get) for d in numbers]
    return Efg("\n".join(lines) + "\n", infostates, legal,
               sorted(label_ids, key=label_ids.get))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m truco_env.openspiel",
                                 description="Small Truco in OpenSpiel")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sz = sub.add_parser("size", help="print the size of small Truco's tree")
    sz.add_argument("--deck", default=SMALL_DEFAULT,
                    help=f"a deck name {list(SMALL_DECKS)} or cards separated by spaces")
    sz.add_argument("--flor", action="store_true", help="play with flor")
    args = ap.parse_args(argv)
    if args.cmd == "size":
        deck = args.deck if args.deck in SMALL_DECKS else tuple(args.deck.split())
        game = small_truco(deck, flor=args.flor)
        print(game)
        for k, v in tree_size(game).items():
            print(f"{k:>16}: {v:,}")


if __name__ == "__main__":
    main()
