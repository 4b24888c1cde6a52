"""Rule sets: the frozen ``RuleSet`` of tables and knobs, and the named presets.

Every point on which Truco sources disagree is a knob here, with the preset's value as its
default (``docs/rules.md``: the rules of each preset; its section 8 tabulates the knobs).  The
rules core reads nothing but the arrays that :meth:`RuleSet.tables` builds, so a variant
changes data, not code paths.

>>> r = get_rules("argentino", target=15)
>>> r.target, r.has_buenas, r.flor
(15, False, False)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from .cards import NUM_CARDS, card_str, parse_card

#: Action names; the action id is the index.  Stable across every configuration.
ACTIONS: tuple[str, ...] = (
    "play_0", "play_1", "play_2",
    "envido", "real_envido", "falta_envido",
    "flor", "contraflor", "contraflor_al_resto", "con_flor_me_achico",
    "truco", "retruco", "vale_cuatro",
    "quiero", "no_quiero", "mazo",
) + (
    # ---- three-player modes (issue 12): pata de gallo's discard, appended after mazo so that
    # the ids above keep their meaning.  discard_k discards the card in slot k of the gallo's
    # four (slot 3 is the fourth card dealt).
    "discard_0", "discard_1", "discard_2", "discard_3",
) + (
    # ---- señas (issue 13), appended after the discards: sena_k makes seña k of the game's
    # vocabulary (sena_vocabulary: the traditional gestures of seed 001, or learned tokens).
    *(f"sena_{k}" for k in range(16)),
)
ACTION_ID = {name: i for i, name in enumerate(ACTIONS)}
NUM_ACTIONS = len(ACTIONS)

#: The envido chain as a table: each reachable chain of calls (E envido, R real envido,
#: F falta envido) with its value if accepted (-1 = falta envido) and if rejected.  A call is
#: legal exactly when appending it gives a chain of this table (docs/rules.md section 3).
ENVIDO_CHAIN: tuple[tuple[str, int, int], ...] = (
    ("", 0, 0),
    ("E", 2, 1), ("R", 3, 1), ("F", -1, 1),
    ("EE", 4, 2), ("ER", 5, 2), ("EF", -1, 2), ("RF", -1, 3),
    ("EER", 7, 4), ("EEF", -1, 4), ("ERF", -1, 5),
    ("EERF", -1, 7),
)
ENVIDO_CALLS = ("envido", "real_envido", "falta_envido")  # letters E, R, F
#: Their action ids.
ENVIDO_CALL_IDS = tuple(ACTION_ID[c] for c in ENVIDO_CALLS)

#: Truco ladder: index = level (0 no truco, 1 truco, 2 retruco, 3 vale cuatro);
#: points of the hand once that level is accepted, and points to the caller if rejected.
TRUCO_QUIERO = (1, 2, 3, 4)
TRUCO_NO_QUIERO = (0, 1, 2, 3)

#: Señas (issue 13): the knob's values, and the most tokens a vocabulary has (action slots).
SENAS_MODES = ("off", "traditional", "learned")
SENA_MAX = 16

PRESETS = ("argentino", "trucoshi", "uruguayo", "pata_de_gallo", "destantado")

#: Modes of play (knob ``mode``): two or three teams of partners (``"teams"``), or a
#: three-player mode of seed 000 (docs/rules.md section 12).
MODES = ("teams", "pata_de_gallo", "destantado")
MODE_TEAMS, MODE_PATA, MODE_DESTANTADO = range(3)
THREE_PLAYER_MODES = ("pata_de_gallo", "destantado")


class ConfigurationError(ValueError):
    """A game that cannot be played as configured (a player count, mode or knob that does not
    go with the others); the message names the value and what was expected."""


class RuleTables(NamedTuple):
    """What the rules core reads of a :class:`RuleSet`: one named structure of int32 arrays
    (numba compiles a named tuple as a record, so the kernels read ``T.envido_next[...]``)."""

    knobs: np.ndarray             # [K]: the knob vector, indexed by the K_* constants below
    envido_next: np.ndarray       # [chains, 3]: chain after envido / real / falta, -1 illegal
    envido_quiero: np.ndarray     # [chains]: points of an accepted chain (-1: a falta envido)
    envido_no_quiero: np.ndarray  # [chains]: points to the caller when it is rejected
    truco_quiero: np.ndarray      # [4]: points of the hand at each accepted truco level
    truco_no_quiero: np.ndarray   # [4]: points to the caller when that level is rejected
_FALTA_RULES = ("malas", "leader")
_RESTO_RULES = ("leader", "match")
# --- pica-pica (issue 12, item 3) ---
#: Pica-pica schedules; the index + 1 is the core's K_PICA value (0: pica-pica off).
PICA_SCHEDULES = ("buenas", "alternate")


@dataclass(frozen=True)
class RuleSet:
    """A Truco rule set: one preset's tables and knobs (all validated).

    Attributes:
        name: preset name.
        players_allowed: player counts this preset supports.
        targets_allowed: match lengths allowed (the total a side needs to win).
        target: the total a side needs to win.
        buenas: whether the match is split in malas and buenas; ``None`` = the preset decides
            from the target (argentino: 18 and 30 have buenas, 9 and 15 do not).
        flor: whether flor is played.
        falta_rule: ``"malas"``: an accepted falta envido is worth what the winner lacks when
            both sides are in malas, else what the leader lacks; ``"leader"``: always what the
            leader lacks.
        flor_points: points of an unopposed flor.
        flor_each: in team games, whether every unopposed flor of a side scores
            (argentino) or a side scores ``flor_points`` once whatever its number (trucoshi).
        flor_vs_flor: points to the best flor when the opponent answers ``flor``.
        contraflor_quiero / contraflor_no_quiero: values of an accepted / rejected contraflor.
        contraflor_resto: ``"leader"``: an accepted contraflor al resto is worth what the leader
            lacks; ``"match"``: what the winner lacks (it wins the match).
        contraflor_resto_no_quiero: points to the caller when it is rejected.
        achico: points to the first singer on ``con_flor_me_achico``.
        muestra: a card is turned up after the deal (uruguayo); the piezas of its suit (2, 4, 5,
            11, 10; the 12 replaces a pieza that is the muestra) outrank every other card.
        pieza_envido: envido values of the piezas 2, 4, 5, 11, 10 (uruguayo; the sota's 26
            follows seed 004, seed 001 gives 27).
        envido_chain / truco_quiero / truco_no_quiero: the betting tables (module constants).
        pica_pica: team games where some hands are played as 1v1 duels between opposite
            players (docs/rules.md section 11): ``False`` off, ``True`` on (the player count
            must be one of ``pica_pica_players``, else the match is a ``ValueError``), ``None``
            on exactly when the player count is one of ``pica_pica_players`` (trucoshi).
            Pica-pica is a team game: ``True`` with a three-player mode is a
            :class:`ConfigurationError`.
        pica_pica_players: player counts that play pica-pica (argentino 4 and 6, trucoshi 6).
        pica_pica_schedule: which hands are duels: ``"buenas"`` (argentino, seed 000: "a partir
            de la segunda ronda y hasta llegar a las buenas": every hand after the first round,
            while no side has passed half the target) or ``"alternate"`` (trucoshi: once a side
            has half of the half target rounded up, every other hand, the first one at once).
        mode: ``"teams"`` (2, 4 or 6 players in two teams), ``"pata_de_gallo"`` (3 players: the
            dealer, the gallo, alone against the other two; points per player) or
            ``"destantado"`` (3 players each alone, from 10 down to 0); docs/rules.md section 12.
        falta_points: a fixed value of an accepted falta envido (destantado: 6); 0 = the
            ``falta_rule``.
        senas: signals between partners (docs/rules.md section 13): ``"off"``,
            ``"traditional"`` (the gestures of seed 001: argentino's, or uruguayo's piezas
            with a muestra) or ``"learned"`` (``sena_tokens`` abstract tokens).  Team games
            only: a game without partners is a :class:`ConfigurationError`
            (:func:`check_senas`).
        sena_tokens: tokens of the ``"learned"`` vocabulary, 1..``SENA_MAX``.
        sena_catch: probability that each opponent catches each seña (drawn by the match
            driver from its seeded generator).
        deck: the cards in play, as card strings (``("1e", "1b", "7e", ...)``); ``None``: the
            40 cards.  Small decks make small games (issue 14: small Truco, solved exactly in
            :mod:`truco_env.openspiel`); the deal draws from these cards only.
        calls: the actions other than ``play_k`` that may be played (names of ``ACTIONS``;
            ``None``: all).  Small games leave some out (small Truco: no mazo, a short envido
            chain and truco ladder); ``quiero`` and ``no_quiero`` always stay, and ``flor``
            when flor is played (it must be sung).  Applied to
            the legal mask by the match driver (:meth:`truco_env.game.Matches.legal_mask`).
    """

    name: str = "argentino"
    players_allowed: tuple[int, ...] = (2, 4, 6)
    targets_allowed: tuple[int, ...] = (9, 15, 18, 30)
    target: int = 30
    buenas: bool | None = None
    flor: bool = False
    falta_rule: str = "malas"
    flor_points: int = 3
    flor_each: bool = True
    flor_vs_flor: int = 3
    contraflor_quiero: int = 6
    contraflor_no_quiero: int = 3
    contraflor_resto: str = "leader"
    contraflor_resto_no_quiero: int = 3
    achico: int = 3
    muestra: bool = False
    pieza_envido: tuple[int, ...] = (30, 29, 28, 27, 26)
    # --- pica-pica (issue 12, item 3) ---
    pica_pica: bool | None = False
    pica_pica_players: tuple[int, ...] = (4, 6)
    pica_pica_schedule: str = "buenas"
    # ---- three-player modes (issue 12, items 1-2)
    mode: str = "teams"
    falta_points: int = 0
    # ---- señas (issue 13)
    senas: str = "off"
    sena_tokens: int = 8
    sena_catch: float = 0.25
    # ---- small games (issue 14)
    deck: tuple[str, ...] | None = None
    calls: tuple[str, ...] | None = None
    envido_chain: tuple[tuple[str, int, int], ...] = field(default=ENVIDO_CHAIN, repr=False)
    truco_quiero: tuple[int, ...] = field(default=TRUCO_QUIERO, repr=False)
    truco_no_quiero: tuple[int, ...] = field(default=TRUCO_NO_QUIERO, repr=False)

    def __post_init__(self) -> None:
        def bad(knob: str, value: Any, expected: str) -> ValueError:
            return ValueError(f"rules {self.name!r}: bad value {knob}={value!r}; expected {expected}")

        if self.target not in self.targets_allowed:
            raise bad("target", self.target, f"one of {list(self.targets_allowed)}")
        if self.buenas not in (None, True, False):
            raise bad("buenas", self.buenas, "True, False or None")
        if not isinstance(self.flor, bool):
            raise bad("flor", self.flor, "True or False")
        if self.falta_rule not in _FALTA_RULES:
            raise bad("falta_rule", self.falta_rule, f"one of {list(_FALTA_RULES)}")
        if self.contraflor_resto not in _RESTO_RULES:
            raise bad("contraflor_resto", self.contraflor_resto, f"one of {list(_RESTO_RULES)}")
        if not isinstance(self.flor_each, bool):
            raise bad("flor_each", self.flor_each, "True or False")
        if not isinstance(self.muestra, bool):
            raise bad("muestra", self.muestra, "True or False")
        pe = self.pieza_envido
        if not (isinstance(pe, tuple) and len(pe) == 5 and all(
                isinstance(v, int) and not isinstance(v, bool) and 20 <= v <= 40 for v in pe)):
            raise bad("pieza_envido", pe, "a tuple of 5 integers in 20..40 (for 2, 4, 5, 11, 10)")
        if self.pica_pica not in (None, True, False):
            raise bad("pica_pica", self.pica_pica, "True, False or None")
        pp = self.pica_pica_players
        if not (isinstance(pp, tuple) and pp and all(p in (4, 6) for p in pp)):
            raise bad("pica_pica_players", pp, "a non-empty tuple of 4 and/or 6 (team games "
                      "with players facing each other)")
        if self.pica_pica_schedule not in PICA_SCHEDULES:
            raise bad("pica_pica_schedule", self.pica_pica_schedule,
                      f"one of {list(PICA_SCHEDULES)}")
        if self.mode not in MODES:
            raise ConfigurationError(f"rules {self.name!r}: bad value mode={self.mode!r}; "
                                     f"expected one of {list(MODES)}")
        if self.mode in THREE_PLAYER_MODES:
            if tuple(self.players_allowed) != (3,):
                raise ConfigurationError(
                    f"rules {self.name!r}: bad value players_allowed={self.players_allowed!r} "
                    f"for mode {self.mode!r}; expected (3,): it is a three-player mode")
            if self.muestra:
                raise ConfigurationError(f"rules {self.name!r}: bad value muestra=True for mode "
                                         f"{self.mode!r}; expected False (no muestra)")
            if self.pica_pica is True:
                raise ConfigurationError(
                    f"rules {self.name!r}: bad value pica_pica=True for mode {self.mode!r}; "
                    f"expected False: pica-pica pairs the players of two teams in duels "
                    f"(4 or 6 players), the three-player modes have no teams of partners")
        elif 3 in self.players_allowed:
            raise ConfigurationError(f"rules {self.name!r}: bad value players_allowed="
                                     f"{self.players_allowed!r} for mode 'teams'; three players "
                                     f"need a three-player mode {list(THREE_PLAYER_MODES)}")
        if self.mode == "destantado" and self.flor:
            raise ConfigurationError(f"rules {self.name!r}: bad value flor=True for mode "
                                     f"'destantado'; expected False (seed 000's destantado "
                                     f"sings envido and truco only)")
        if self.senas not in SENAS_MODES:
            raise ConfigurationError(f"rules {self.name!r}: bad value senas={self.senas!r}; "
                                     f"expected one of {list(SENAS_MODES)}")
        st = self.sena_tokens
        if isinstance(st, bool) or not isinstance(st, int) or not 1 <= st <= SENA_MAX:
            raise bad("sena_tokens", st, f"an integer in 1..{SENA_MAX}")
        sc = self.sena_catch
        if isinstance(sc, bool) or not isinstance(sc, (int, float)) or not 0.0 <= sc <= 1.0:
            raise bad("sena_catch", sc, "a probability in [0, 1]")
        if self.senas != "off" and self.mode == "destantado":
            raise ConfigurationError(f"rules {self.name!r}: bad value senas={self.senas!r} for "
                                     f"mode 'destantado'; expected 'off': señas pass between "
                                     f"partners, and in destantado everybody plays alone")
        if self.deck is not None:
            object.__setattr__(self, "deck", _parse_deck(self.deck, self.name))
        if self.calls is not None:
            calls = self.calls.replace(",", " ").replace("+", " ").split() \
                if isinstance(self.calls, str) else list(self.calls)
            bad_calls = [c for c in calls if c not in ACTIONS[3:]]
            if bad_calls:
                raise bad("calls", self.calls, f"names of actions from {list(ACTIONS[3:])}")
            # The answers stay, and so does flor where it is played: it must be sung.
            calls = set(calls) | {"quiero", "no_quiero"} | ({"flor"} if self.flor else set())
            object.__setattr__(self, "calls", tuple(a for a in ACTIONS[3:] if a in calls))
        for knob in ("flor_points", "flor_vs_flor", "contraflor_quiero", "contraflor_no_quiero",
                     "contraflor_resto_no_quiero", "achico", "falta_points"):
            v = getattr(self, knob)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise bad(knob, v, "a non-negative integer")

    @property
    def allowed(self) -> np.ndarray | None:
        """``bool[NUM_ACTIONS]``: the actions the ``calls`` knob leaves in (``None``: all)."""
        if self.calls is None:
            return None
        return np.array([i < 3 or a in self.calls for i, a in enumerate(ACTIONS)])

    @property
    def deck_ids(self) -> tuple[int, ...]:
        """Card ids in play, ascending (the 40 without a ``deck``)."""
        if self.deck is None:
            return tuple(range(NUM_CARDS))
        return tuple(sorted(parse_card(c) for c in self.deck))

    @property
    def has_buenas(self) -> bool:
        """Whether the match has malas and buenas (halves of ``target // 2``)."""
        if self.buenas is not None:
            return self.buenas
        return self.target in (18, 24, 30)

    def replace(self, **knobs: Any) -> "RuleSet":
        """A copy with some knobs changed; unknown knobs raise ``ValueError``."""
        names = {f.name for f in dataclasses.fields(self)}
        for k in knobs:
            if k not in names:
                raise ValueError(f"unknown rule knob {k!r}; known knobs: {sorted(names)}")
        return dataclasses.replace(self, **knobs)

    def tables(self) -> "RuleTables":
        """The int arrays the rules core reads (knobs as a vector, the betting tables)."""
        chains = [c for c, _, _ in self.envido_chain]
        nxt = np.full((len(chains), 3), -1, dtype=np.int32)
        for i, c in enumerate(chains):
            for j, letter in enumerate("ERF"):
                if c + letter in chains:
                    nxt[i, j] = chains.index(c + letter)
        knobs = np.array([
            self.target, int(self.has_buenas), int(self.flor),
            _FALTA_RULES.index(self.falta_rule), self.flor_points, int(self.flor_each),
            self.flor_vs_flor, self.contraflor_quiero, self.contraflor_no_quiero,
            _RESTO_RULES.index(self.contraflor_resto), self.contraflor_resto_no_quiero,
            self.achico, int(self.muestra), *self.pieza_envido,
            # pica-pica: schedule (0 off) and the player counts that play it, as a bit mask
            0 if self.pica_pica is False else PICA_SCHEDULES.index(self.pica_pica_schedule) + 1,
            sum(1 << p for p in self.pica_pica_players),
            # three-player modes
            MODES.index(self.mode), self.falta_points,
            # señas: the mode (0 off) and the tokens a player may make
            SENAS_MODES.index(self.senas), sena_count(self),
        ], dtype=np.int32)
        return RuleTables(
            knobs=knobs,
            envido_next=nxt,
            envido_quiero=np.array([q for _, q, _ in self.envido_chain], dtype=np.int32),
            envido_no_quiero=np.array([n for _, _, n in self.envido_chain], dtype=np.int32),
            truco_quiero=np.array(self.truco_quiero, dtype=np.int32),
            truco_no_quiero=np.array(self.truco_no_quiero, dtype=np.int32),
        )


def _parse_deck(deck: Any, name: str) -> tuple[str, ...]:
    """A ``deck`` knob as a tuple of distinct card strings in card-id order (a string of cards
    separated by spaces, commas or ``+`` is accepted too); a bad one is a ``ValueError``."""
    if isinstance(deck, str):
        deck = deck.replace(",", " ").replace("+", " ").split()
    if not isinstance(deck, (list, tuple)):
        raise ValueError(f"rules {name!r}: bad value deck={deck!r}; expected a list of cards "
                         f"such as ['1e', '7o', '3b', ...]")
    ids = [parse_card(c) for c in deck]
    if len(set(ids)) != len(ids):
        raise ValueError(f"rules {name!r}: bad value deck={deck!r}; a card is repeated")
    if len(ids) < 6:
        raise ValueError(f"rules {name!r}: bad value deck={deck!r}; expected at least 6 cards "
                         f"(two hands of 3)")
    return tuple(card_str(c) for c in sorted(ids))


# Indices into the knob vector of RuleSet.tables() (read by the core).
K_TARGET, K_BUENAS, K_FLOR, K_FALTA, K_FLOR_PTS, K_FLOR_EACH, K_FLOR_VS, K_CF_Q, K_CF_NQ, \
    K_RESTO, K_RESTO_NQ, K_ACHICO, K_MUESTRA, K_PIEZA_ENV = range(14)  # K_PIEZA_ENV: 5 values
# --- pica-pica (issue 12, item 3): after the 5 pieza values ---
K_PICA, K_PICA_PLAYERS = K_PIEZA_ENV + 5, K_PIEZA_ENV + 6
# Three-player modes (issue 12, items 1-2), after pica-pica's.
K_MODE, K_FALTA_POINTS = K_PIEZA_ENV + 7, K_PIEZA_ENV + 8
# Señas (issue 13): SENAS_MODES index (0 off) and the vocabulary's size.
K_SENAS, K_SENA_N = K_PIEZA_ENV + 9, K_PIEZA_ENV + 10

_PRESETS: dict[str, RuleSet] = {
    "argentino": RuleSet(),
    "trucoshi": RuleSet(
        name="trucoshi", targets_allowed=(18, 24, 30), target=18, buenas=True, flor=True,
        falta_rule="leader", flor_each=False, flor_vs_flor=4, contraflor_no_quiero=4,
        contraflor_resto="match", contraflor_resto_no_quiero=6,
        pica_pica=None, pica_pica_players=(6,), pica_pica_schedule="alternate",
    ),
    # Seed 004 (then 001): muestra and piezas, flor on, "con flor envido" = contraflor,
    # "con flor envido la falta" = contraflor_al_resto, chico of 30, falta = leader lacks.
    "uruguayo": RuleSet(
        name="uruguayo", targets_allowed=(30,), target=30, buenas=False, flor=True,
        falta_rule="leader", muestra=True,
    ),
    # ---- three-player modes of seed 000 "Modos Especiales" (docs/rules.md section 12).
    # Pata de gallo: argentino's betting, targets and malas/buenas, points per player.
    "pata_de_gallo": RuleSet(name="pata_de_gallo", players_allowed=(3,), mode="pata_de_gallo"),
    # Destantado: everybody starts at 10 ("inician con 10 puntos"), the first to 0 wins; the
    # target is the 10 tantos to shed; falta envido "solo vale seis (6) puntos"; no flor.
    "destantado": RuleSet(name="destantado", players_allowed=(3,), targets_allowed=(10,),
                          target=10, buenas=False, mode="destantado", falta_points=6),
}


def get_rules(rules: str | RuleSet = "argentino", **knobs: Any) -> RuleSet:
    """Resolve a preset name (or a ``RuleSet``) and apply knob overrides."""
    if isinstance(rules, RuleSet):
        base = rules
    elif isinstance(rules, str) and rules in _PRESETS:
        base = _PRESETS[rules]
    else:
        raise ValueError(f"unknown rules {rules!r}; expected a RuleSet or one of {list(_PRESETS)}")
    knobs = {k: v for k, v in knobs.items() if v is not None}
    if "mode" in knobs and knobs["mode"] != base.mode:
        # A mode knob on a preset: the preset's tables with that mode's seats and scoring.
        mode = knobs["mode"]
        if mode not in MODES:
            raise ConfigurationError(f"bad value mode={mode!r}; expected one of {list(MODES)}")
        if mode == "pata_de_gallo":   # keeps the preset's flor tables
            base = _PRESETS[mode].replace(**{k: getattr(base, k) for k in (
                "flor", "flor_points", "flor_each", "flor_vs_flor", "contraflor_quiero",
                "contraflor_no_quiero", "contraflor_resto", "contraflor_resto_no_quiero",
                "achico")})
        else:
            base = _PRESETS["argentino" if mode == "teams" else mode]
    if "target" in knobs and knobs["target"] not in base.targets_allowed:
        raise ValueError(f"bad value target={knobs['target']!r} for rules {base.name!r}; "
                         f"expected one of {list(base.targets_allowed)}")
    return base.replace(**knobs) if knobs else base


def plays_pica_pica(rules: RuleSet, players: int) -> bool:
    """Whether a match of ``players`` under ``rules`` has pica-pica hands; ``pica_pica=True``
    with a player count outside ``pica_pica_players`` is a ``ValueError`` naming both.

    >>> plays_pica_pica(get_rules("trucoshi"), 6), plays_pica_pica(get_rules("trucoshi"), 4)
    (True, False)
    """
    if rules.pica_pica is True and players not in rules.pica_pica_players:
        raise ValueError(f"bad value pica_pica=True with players={players!r} (rules "
                         f"{rules.name!r}); pica-pica is played by teams facing each other: "
                         f"expected players in {list(rules.pica_pica_players)}")
    return rules.pica_pica is not False and players in rules.pica_pica_players


# ---- señas (issue 13) --------------------------------------------------------------------------
#: The traditional vocabularies of seed 001 ("Las señas"): argentino's first list (cards, then
#: the envido), and Uruguay's with a muestra (the piezas, the matas in their two pairs, the
#: threes and twos, the false aces, and "al resto de las cartas, se cierra los ojos").
SENAS_ARGENTINO: tuple[str, ...] = (
    "ancho_de_espada", "ancho_de_basto", "siete_de_espada", "siete_de_oro", "tres", "dos",
    "ancho_falso", "envido_alto", "sin_envido")
SENAS_URUGUAYO: tuple[str, ...] = (
    "dos_de_la_muestra", "cuatro_de_la_muestra", "cinco_de_la_muestra", "once_de_la_muestra",
    "diez_de_la_muestra", "anchos_matas", "sietes_matas", "tres", "dos", "ancho_falso", "nada")


def sena_vocabulary(rules: RuleSet) -> tuple[str, ...]:
    """The names of the señas ``sena_0``, ``sena_1``... make under ``rules`` (empty when off).

    >>> sena_vocabulary(get_rules("argentino", senas="learned", sena_tokens=3))
    ('token_0', 'token_1', 'token_2')
    """
    if rules.senas == "off":
        return ()
    if rules.senas == "learned":
        return tuple(f"token_{k}" for k in range(rules.sena_tokens))
    return SENAS_URUGUAYO if rules.muestra else SENAS_ARGENTINO


def sena_count(rules: RuleSet) -> int:
    """How many seña actions are legal under ``rules`` (0 when off)."""
    return len(sena_vocabulary(rules))


def check_senas(rules: RuleSet, players: int) -> bool:
    """Whether a match of ``players`` under ``rules`` has señas; señas without partners (1v1,
    destantado) are a :class:`ConfigurationError` naming the value.

    >>> check_senas(get_rules("argentino", senas="traditional"), 4)
    True
    """
    if rules.senas == "off":
        return False
    if players == 2:
        raise ConfigurationError(f"bad value senas={rules.senas!r} with players=2 (rules "
                                 f"{rules.name!r}): señas pass between partners; expected a "
                                 f"team game (players 4 or 6, or pata de gallo's pair)")
    return True
