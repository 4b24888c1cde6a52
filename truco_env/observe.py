"""Observation encoders: flat float32 vectors built from named pieces.

Three encoders, all for any seat and never showing another player's hidden cards (tests swap
them and check that nothing the observer sees changes):

* ``compact``: what is on the table now, the betting state, the score and the seat relative
  to the mano (:data:`COMPACT_PIECES`);
* ``infostate``: the perfect-recall information state: the compact pieces plus every action of
  the hand in order (:data:`INFOSTATE_PIECES`, large: one 62-float slot per possible action);
* ``recall``: perfect recall kept small and fast: the compact pieces plus who played which card
  in which baza and the hand's calls in order (:data:`RECALL_PIECES`).  The encoder
  ``train.py`` uses for the trained policy.

:func:`encode_hidden` is different on purpose: privileged features for a centralized critic in
training (every seat's unplayed cards and points), never an observation and never given to a
policy.  :data:`LAYOUT_VERSION` numbers the layouts; :func:`encoder_for_size` names the encoder
of an input size.

The layout is data: each piece is ``(name, size, meaning)``; :class:`Encoder` gives offsets,
``piece(obs, name)`` views and :meth:`Encoder.layout_table` the Markdown table used in the docs.
Relative seats count from the observer (0 = me, 1 = the next player...), "mine/theirs" is by team.
The layout is the same for every player count (sized for six seats), so a policy can be shared.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from . import core as C
from .cards import NUM_CARDS
from .rules import (ACTIONS, K_BUENAS, K_MODE, K_SENAS, K_TARGET, MODE_DESTANTADO, MODE_TEAMS,
                    SENA_MAX)

#: The actions of the history and call pieces: the first 16 (play_0 .. mazo).  The discard
#: actions of pata de gallo (issue 12) are never in them: which card the gallo discards is his
#: secret, and his own discard is the ``fourth_card`` piece.
NUM_ACTIONS = 16

P6 = C.P_MAX
#: Truco ranks run 0..13 (4 .. 1e), piezas 14..18 (uruguayo); hand_rank = (rank + 1) / 19.
RANK_SCALE = float(C.NUM_RANKS)
#: Envido reaches 37 and flor 47 with piezas (uruguayo); points are scaled by 50.
POINTS_SCALE = 50.0
EVENT_SIZE = P6 + NUM_ACTIONS + NUM_CARDS
#: Actions of the hand kept in the infostate's history (a hand has fewer).
HISTORY_MAX = 64
#: Layout version of the encoders.  Bump it when any encoder's layout changes (a piece added,
#: removed, resized, reordered or given another meaning); checkpoints record it.
LAYOUT_VERSION = 7       # 3: the reads; 4: the pica_pica piece; 5: the three-player pieces (issue 12); 6: señas (issue 13); 7: the truco read
#: The non-card actions (play_0..2 excluded), the "calls" of the recall encoder, in id order:
#: call index = action id - 3.
CALL_ACTIONS = ACTIONS[3:NUM_ACTIONS]
NUM_CALLS = len(CALL_ACTIONS)
#: Calls of a hand kept by the recall encoder.  12 is the most a hand can hold: envido (four
#: calls and an answer, or one call then a flor contest of four), the truco ladder (three songs,
#: three answers) and a mazo; 800,000 random hands (2, 4, 6 players, flor, uruguayo) never
#: had more.  Were there more, the last CALLS_MAX are kept.
CALLS_MAX = 12
#: One call: relative seat one-hot (6), call one-hot (13), baza one-hot (3).
CALL_SIZE = P6 + NUM_CALLS + 3
#: Floats per relative seat of the ``reads`` piece (core.READS counters turned into rates).
READ_SIZE = 6
#: The prior mean of the envido points a player shows after calling envido (about the mean of
#: the hands that call), so that one showdown moves the read and none leaves it neutral.
READ_PRIOR_POINTS = 27.0
#: The ``reads`` piece's last float counts the hands played up to this many (then / this).
READ_HANDS_CAP = 20
#: Floats per relative seat and baza of the ``senas`` piece: the seña one-hot, then "caught".
SENA_SIZE = SENA_MAX + 1

COMPACT_PIECES: tuple[tuple[str, int, str], ...] = (
    ("seat_from_mano", P6, "one-hot: my seat counted from the mano (0 = I am mano)"),
    ("players", P6, "one-hot at index players-1"),
    ("to_act", 2, "[I am to act, I am answering a song]"),
    ("hand", 3 * NUM_CARDS, "per slot k: one-hot of my card in slot k, zero once played"),
    ("hand_rank", 3, "per slot: (truco rank + 1) / 19 of my card (ranks 0..13, piezas "
                     "14..18), zero once played"),
    ("my_envido", 1, "my envido points / 50"),
    ("my_flor", 1, "my flor points / 50 when my three cards make one (whether or not flor is "
                   "played), else zero"),
    ("baza", 3, "one-hot: the baza in progress"),
    ("baza_results", 9, "per baza: [won by my team, won by the other team, parda]"),
    ("current_baza", P6 * NUM_CARDS, "per relative seat: one-hot of the card played in this baza"),
    ("played_cards", NUM_CARDS, "every card played in this hand"),
    ("truco", 12, "accepted level one-hot (4), pending level one-hot (4), "
                  "[my team holds the quiero, they do], [pending song is mine, theirs]"),
    ("envido", 16, "chain one-hot (12, rules.ENVIDO_CHAIN), [pending, called by my team, "
                   "by theirs, closed]"),
    ("flor", 7, "flor contest state one-hot (4), [my team sang flor, theirs did, flor over]"),
    ("public_points", 2, "(best envido/flor points made public + 1) / 50: [my team, theirs]"),
    ("score", 5, "[my score / target, theirs / target, I am in buenas, they are, "
                 "points the leader lacks / target]"),
    ("muestra", NUM_CARDS, "one-hot of the muestra (uruguayo), zero without one"),
    ("match", 2, "[target / 30, the match has malas and buenas]"),
    ("reads", P6 * READ_SIZE + 1,
     "what each player did earlier in this match (public), per relative seat: [envido-family "
     "calls per hand, truco-family songs per hand, (quieros + 1) / (answers + 2), answers per "
     "hand (rates per hand capped at 1), mazos per hand, (points said after its own envido calls + 27) / (such calls + 1) "
     "/ 50]; then min(hands played, 20) / 20"),
    # --- pica-pica (issue 12, item 3); zero in every other hand ---
    ("pica_pica", 11, "[this hand is played as pica-pica duels, I play the duel in progress], "
                      "the duel in progress one-hot (3), per duel [won by my team, by theirs]. "
                      "In a duel the pieces above describe it as a 1v1 hand: players 2, my "
                      "rival at relative seat 1, its cards, calls and points only"),
) + (
    # ---- three-player modes (issue 12): zero in team games except mode
    ("mode", 3, "one-hot: teams, pata de gallo, destantado"),
    ("seat_scores", P6, "three-player modes, per relative seat: what it lacks to win / (2 x "
                        "target), at most 1 (destantado: its pile of tantos / 20)"),
    ("gallo", 2 + P6, "pata de gallo: [the gallo is discarding, I am the gallo], relative seat "
                      "one-hot of the gallo (6)"),
    ("fourth_card", NUM_CARDS, "pata de gallo, the gallo only: one-hot of his fourth card while "
                               "he discards, then of the card he discarded"),
    ("in_hand", P6, "destantado, per relative seat: still in the hand (did not reject a truco "
                    "song nor go to the mazo)"),
    ("answers", 2 * P6, "destantado, per relative seat: [still to answer the pending song, in "
                        "the envido (its caller or accepted it)]"),
) + (
    # ---- señas (issue 13): zero in games without them
    ("senas", 2 + 3 * P6 * SENA_SIZE,
     "[señas are traditional, learned]; then per baza (3) and relative seat (6) the seña I saw "
     "that seat make in that baza: one-hot of its number (16, rules.sena_vocabulary), and 1 "
     "when it is an opponent's that I caught. I see my own, my partners', and the opponents' "
     "that I caught; never whether mine were caught"),
) + (
    # ---- the truco read (layout 7)
    ("truco_reads", P6 * 2,
     "what each player did earlier in this match when the other side sang truco, retruco or "
     "vale cuatro (public), per relative seat: [(folds + 1) / (answers + 2), answers per hand "
     "(at most 1)]; a fold is a no quiero, an answer also a quiero or a raise"),
)
INFOSTATE_PIECES: tuple[tuple[str, int, str], ...] = COMPACT_PIECES + (
    ("history", HISTORY_MAX * EVENT_SIZE,
     f"per action of the hand, in order ({HISTORY_MAX} max): relative seat one-hot (6), action "
     f"one-hot ({NUM_ACTIONS}), card played one-hot (40)"),
)

RECALL_PIECES: tuple[tuple[str, int, str], ...] = COMPACT_PIECES + (
    ("bazas", 3 * P6 * NUM_CARDS, "per baza (0..2) and relative seat: one-hot of the card that "
                                  "seat played in that baza, zero if none"),
    ("calls", CALLS_MAX * CALL_SIZE,
     f"the hand's calls (every action but play_k) in order, oldest first, {CALLS_MAX} max (a "
     f"hand has no more; beyond, the last {CALLS_MAX}): per call relative seat one-hot (6), "
     f"call one-hot ({NUM_CALLS}: action id - 3), baza one-hot (3) it was said in; zero "
     f"after the last"),
)
#: Privileged features of :func:`encode_hidden` (not an observation).
HIDDEN_PIECES: tuple[tuple[str, int, str], ...] = (
    ("cards", P6 * NUM_CARDS, "per relative seat: the one-hots of its unplayed cards, summed"),
    ("envido", P6, "per relative seat: envido points / 50"),
    ("flor", P6, "per relative seat: flor points / 50, zero without flor"),
)


#: Named parts of pieces: ``piece -> ((sub-field, size), ...)`` in layout order, and the shape
#: a piece's view takes (after the batch axes).  ``Encoder.views(obs)`` returns them by name,
#: e.g. ``views["truco.level"]`` or ``views["hand"]`` of shape ``[..., 3, 40]``.  Sub-fields
#: split the last axis of a shaped piece: ``views["calls.seat"]`` is ``[..., CALLS_MAX, 6]``.
SUBFIELDS: dict[str, tuple[tuple[str, int], ...]] = {
    "to_act": (("acting", 1), ("answering", 1)),
    "truco": (("level", 4), ("pending", 4), ("owner", 2), ("caller", 2)),
    "envido": (("chain", 12), ("pending", 1), ("caller", 2), ("closed", 1)),
    "flor": (("state", 4), ("sung", 2), ("over", 1)),
    "public_points": (("mine", 1), ("theirs", 1)),
    "score": (("mine", 1), ("theirs", 1), ("mine_buenas", 1), ("theirs_buenas", 1),
              ("lacks", 1)),
    "match": (("target", 1), ("buenas", 1)),
    "pica_pica": (("on", 1), ("in_duel", 1), ("duel", 3), ("results", 6)),
    "calls": (("seat", P6), ("action", NUM_CALLS), ("baza", 3)),
    "gallo": (("discarding", 1), ("me", 1), ("seat", P6)),
    "answers": (("pending", 1), ("in_envido", 1)),
    "senas": (("kind", 2), ("seen", 3 * P6 * SENA_SIZE)),   # seen: reshape to [3, 6, 17]
}
SHAPES: dict[str, tuple[int, ...]] = {
    "hand": (3, NUM_CARDS),
    "baza_results": (3, 3),        # per baza: [mine, theirs, parda]
    "current_baza": (P6, NUM_CARDS),
    "bazas": (3, P6, NUM_CARDS),   # per baza, relative seat: the card it played
    "calls": (CALLS_MAX, CALL_SIZE),
    "answers": (P6, 2),            # per relative seat: [to answer, in the envido]
    "truco_reads": (P6, 2),        # per relative seat: [fold rate, answers per hand]
}


def _offsets(pieces):
    out, pos = {}, 0
    for name, size, _ in pieces:
        out[name] = (pos, size)
        pos += size
    return out, pos


_CO, COMPACT_SIZE = _offsets(COMPACT_PIECES)
_IO, INFOSTATE_SIZE = _offsets(INFOSTATE_PIECES)
_RO, RECALL_SIZE = _offsets(RECALL_PIECES)
_HO, HIDDEN_SIZE = _offsets(HIDDEN_PIECES)
O_SEAT = _CO["seat_from_mano"][0]; O_PLAYERS = _CO["players"][0]; O_TOACT = _CO["to_act"][0]
O_HAND = _CO["hand"][0]; O_HRANK = _CO["hand_rank"][0]; O_ENV = _CO["my_envido"][0]
O_FLOR = _CO["my_flor"][0]; O_BAZA = _CO["baza"][0]; O_RES = _CO["baza_results"][0]
O_CUR = _CO["current_baza"][0]; O_PLAYED = _CO["played_cards"][0]; O_TRUCO = _CO["truco"][0]
O_ENVIDO = _CO["envido"][0]; O_FLORS = _CO["flor"][0]; O_PUB = _CO["public_points"][0]
O_SCORE = _CO["score"][0]; O_MUESTRA = _CO["muestra"][0]; O_MATCH = _CO["match"][0]
O_READS = _CO["reads"][0]
O_PICA = _CO["pica_pica"][0]
O_HIST = _IO["history"][0]
O_MODE = _CO["mode"][0]; O_SEATSC = _CO["seat_scores"][0]; O_GALLO = _CO["gallo"][0]
O_FOURTH = _CO["fourth_card"][0]; O_INHAND = _CO["in_hand"][0]; O_ANS = _CO["answers"][0]
O_SENAS = _CO["senas"][0]; O_TREADS = _CO["truco_reads"][0]
O_BAZAS = _RO["bazas"][0]; O_CALLS = _RO["calls"][0]
H_CARDS = _HO["cards"][0]; H_ENV = _HO["envido"][0]; H_FLOR = _HO["flor"][0]
#: Encoder kinds and the kernel's mode for each.
KINDS = ("compact", "infostate", "recall")
M_COMPACT, M_INFOSTATE, M_RECALL = range(3)
_SIZES = {"compact": COMPACT_SIZE, "infostate": INFOSTATE_SIZE, "recall": RECALL_SIZE}


#: Pieces added by each layout version (3: the reads, issue 11; 4: pica-pica and 5: the
#: three-player modes, issue 12; 6: señas, issue 13; 7: the truco read), for migrating
#: networks trained on an older layout
#: (:func:`legacy_columns`).
ADDED_PIECES: dict[int, tuple[str, ...]] = {
    3: ("reads",),
    4: ("pica_pica",),
    5: ("mode", "seat_scores", "gallo", "fourth_card", "in_hand", "answers"),
    6: ("senas",),
    7: ("truco_reads",),
}


def legacy_columns(kind: str, version: int) -> np.ndarray:
    """Where the columns of layout ``version``'s ``kind`` observation sit in this layout's.

    Every later version only added pieces (:data:`ADDED_PIECES`), so an older observation is
    this one without them: ``obs[..., legacy_columns(kind, 2)]`` is the version-2 observation
    (in team games; the added pieces hold nothing the old ones did).
    """
    return live_columns(kind, [n for v, names in ADDED_PIECES.items() if v > version
                               for n in names])


#: The pieces of the three-player modes, zero in team games (:func:`dead_pieces`; ``mode`` is
#: not one: its team one-hot is set in team games).
THREE_PLAYER_PIECES = ("seat_scores", "gallo", "fourth_card", "in_hand", "answers")


def dead_pieces(rules, players: int) -> tuple[str, ...]:
    """The pieces that are zero in every observation of a ``players`` match under ``rules``
    (a :class:`truco_env.rules.RuleSet`), in layout order.

    The layout is the same for every game so that one network can play them all, but most of
    it is a variant's: a 1v1 argentino match never fills ``muestra``, ``pica_pica``, the
    three-player pieces nor ``senas`` (431 of the compact observation's 946 floats).  A
    network reads only the other columns (``PolicyNet(skip=...)``): a zero input teaches
    nothing and costs a full column of the first layer's product.  ``mode`` is never
    dead (its team one-hot is 1 in team games), nor ``flor`` (its state one-hot), nor
    ``my_flor`` (a hand's flor points are shown whether or not flor is played).

    >>> from truco_env.rules import get_rules
    >>> dead_pieces(get_rules("argentino"), 2)
    ('muestra', 'pica_pica', 'seat_scores', 'gallo', 'fourth_card', 'in_hand', 'answers', 'senas')
    >>> dead_pieces(get_rules("uruguayo", flor=True), 4)
    ('pica_pica', 'seat_scores', 'gallo', 'fourth_card', 'in_hand', 'answers', 'senas')
    """
    from .rules import plays_pica_pica
    dead = []
    if not rules.muestra:
        dead.append("muestra")
    if not plays_pica_pica(rules, players):
        dead.append("pica_pica")
    if rules.mode == "teams":
        dead.extend(THREE_PLAYER_PIECES)
    if rules.senas == "off":
        dead.append("senas")
    return tuple(dead)


def live_columns(kind: str, skip: tuple[str, ...] | list[str] = ()) -> np.ndarray:
    """Indices of the columns of a ``kind`` observation outside the pieces ``skip``."""
    enc = Encoder(kind)
    unknown = set(skip) - set(enc.offsets)
    if unknown:
        raise ValueError(f"unknown pieces {sorted(unknown)} to skip; the pieces of {kind!r} "
                         f"are {list(enc.offsets)}")
    cols = [np.arange(start, start + size) for name, (start, size) in enc.offsets.items()
            if name not in skip]
    return np.concatenate(cols)


def encoder_for_size(n: int) -> str:
    """The encoder kind whose observations have ``n`` floats (a network's input size).

    >>> encoder_for_size(COMPACT_SIZE), encoder_for_size(RECALL_SIZE)
    ('compact', 'recall')
    """
    for kind, size in _SIZES.items():
        if n == size:
            return kind
    known = ", ".join(f"{size} ({kind})" for kind, size in _SIZES.items())
    raise ValueError(f"no encoder has observations of size {n}; the sizes of layout version "
                     f"{LAYOUT_VERSION} are {known} (trained on an older layout?)")


@nb.njit(cache=True, inline="always")
def _rel(p, seat, P, pica, da, db, rival):
    """Relative seat of ``p`` from ``seat`` (0 = me); in a pica-pica duel only its two seats
    count (-1 for the others), and a player of the duel has his rival at 1."""
    if pica:
        if p != da and p != db:
            return -1
        if rival >= 0:
            return 0 if p == seat else 1
    return (p - seat) % P


@nb.njit(cache=True)
def _encode_three(S, g, seat, o, mode, T):
    """The three_player pieces (issue 12) of a three-player mode game."""
    P = S[g, C.NPLAYERS]
    o[O_MODE + mode] = 1.0
    for p in range(P):
        r = (p - seat) % P
        o[O_SEATSC + r] = min(1.0, max(0.0, (T - S[g, C.SCORE + p]) / (2.0 * T)))
        if mode == MODE_DESTANTADO:
            o[O_INHAND + r] = 1.0 - S[g, C.OUT + p]
            if ((S[g, C.ENV_LEFT] >> p) & 1) == 1 or (S[g, C.TRUCO_PENDING] > 0 and
                                                      ((S[g, C.TRU_LEFT] >> p) & 1) == 1):
                o[O_ANS + 2 * r] = 1.0
            if ((S[g, C.ENV_IN] >> p) & 1) == 1:
                o[O_ANS + 2 * r + 1] = 1.0
    gallo = S[g, C.GALLO]
    if gallo >= 0:
        o[O_GALLO] = S[g, C.DISCARDING]
        o[O_GALLO + 1] = 1.0 if gallo == seat else 0.0
        o[O_GALLO + 2 + (gallo - seat) % P] = 1.0
        if gallo == seat:
            c = S[g, C.FOURTH] if S[g, C.DISCARDING] == 1 else S[g, C.DISCARD]
            if c >= 0:
                o[O_FOURTH + c] = 1.0


@nb.njit(cache=True)
def _encode_senas(S, K, g, seat, o):
    """The ``senas`` piece: what ``seat`` saw of the hand's señas (core.sees_sena decides)."""
    P = S[g, C.NPLAYERS]
    o[O_SENAS + K[K_SENAS] - 1] = 1.0
    for b in range(S[g, C.BAZA] + 1):
        for p in range(P):
            i = b * C.P_MAX + p
            k = S[g, C.SENA + i]
            if k < 0:
                continue
            caught = S[g, C.SENA_CAUGHT + i]
            if not C.sees_sena(S, g, seat, p, caught):
                continue
            base = O_SENAS + 2 + SENA_SIZE * (b * P6 + (p - seat) % P)
            o[base + k] = 1.0
            if S[g, C.TEAM + p] != S[g, C.TEAM + seat]:
                o[base + SENA_MAX] = 1.0


@nb.njit(cache=True)
def _encode(S, K, g, seat, o, mode):
    for i in range(o.shape[0]):
        o[i] = 0.0
    P = S[g, C.NPLAYERS]
    me = S[g, C.TEAM + seat]
    # Pica-pica: only the duel in progress is on the table (its two seats); a player of it sees
    # it as a 1v1 hand (rival at relative seat 1), anyone else from his own seat.
    pica = S[g, C.PICA] == 1
    da = -1
    db = -1
    rival = -1
    if pica:
        d = S[g, C.DUEL]
        da = S[g, C.DUEL_SEAT + 2 * d]
        db = S[g, C.DUEL_SEAT + 2 * d + 1]
        if seat == da:
            rival = db
        elif seat == db:
            rival = da
    if rival >= 0:
        o[O_SEAT + (0 if seat == S[g, C.MANO] else 1)] = 1.0
        o[O_PLAYERS + 1] = 1.0
    else:
        o[O_SEAT + (seat - S[g, C.MANO]) % P] = 1.0
        o[O_PLAYERS + P - 1] = 1.0
    over = S[g, C.HAND_OVER] == 1
    if not over and S[g, C.ACTOR] == seat:
        o[O_TOACT] = 1.0
        if S[g, C.TURN] != seat or S[g, C.TRUCO_PENDING] > 0 or S[g, C.ENVIDO_PENDING] == 1 \
                or S[g, C.FLOR_STATE] != 0:
            o[O_TOACT + 1] = 1.0
    for k in range(3):
        if S[g, C.PLAYED + 3 * seat + k] < 0:
            o[O_HAND + 40 * k + S[g, C.HAND + 3 * seat + k]] = 1.0
            o[O_HRANK + k] = (S[g, C.HRANK + 3 * seat + k] + 1) / RANK_SCALE
    o[O_ENV] = S[g, C.ENVIDO_PTS + seat] / POINTS_SCALE
    if S[g, C.FLOR_PTS + seat] >= 0:
        o[O_FLOR] = S[g, C.FLOR_PTS + seat] / POINTS_SCALE
    b = S[g, C.BAZA]
    o[O_BAZA + b] = 1.0
    for bb in range(3):
        r = S[g, C.RESULT + bb]
        if r == -1:
            o[O_RES + 3 * bb + 2] = 1.0
        elif r >= 0:
            o[O_RES + 3 * bb + (0 if r == me else 1)] = 1.0
        for p in range(P):
            c = S[g, C.BAZA_CARD + bb * C.P_MAX + p]
            if c >= 0:
                o[O_PLAYED + c] = 1.0     # every card of the hand (all duels: on the table)
                r = _rel(p, seat, P, pica, da, db, rival)
                if r < 0:
                    continue
                if bb == b:
                    o[O_CUR + 40 * r + c] = 1.0
                if mode == M_RECALL:
                    o[O_BAZAS + 40 * (bb * P6 + r) + c] = 1.0
    o[O_TRUCO + S[g, C.TRUCO_LEVEL]] = 1.0
    o[O_TRUCO + 4 + S[g, C.TRUCO_PENDING]] = 1.0
    if S[g, C.TRUCO_OWNER] >= 0:
        o[O_TRUCO + (8 if S[g, C.TRUCO_OWNER] == me else 9)] = 1.0
    if S[g, C.TRUCO_PENDING] > 0:
        o[O_TRUCO + (10 if S[g, C.TEAM + S[g, C.TRUCO_CALLER]] == me else 11)] = 1.0
    o[O_ENVIDO + S[g, C.ENVIDO_CHAIN_ID]] = 1.0
    if S[g, C.ENVIDO_PENDING] == 1:
        o[O_ENVIDO + 12] = 1.0
    if S[g, C.ENVIDO_CALLER] >= 0:
        o[O_ENVIDO + (13 if S[g, C.TEAM + S[g, C.ENVIDO_CALLER]] == me else 14)] = 1.0
    o[O_ENVIDO + 15] = S[g, C.ENVIDO_CLOSED]
    o[O_FLORS + S[g, C.FLOR_STATE]] = 1.0
    best_mine = -1
    best_theirs = -1
    for p in range(P):
        if pica and p != da and p != db:
            continue
        if S[g, C.SUNG + p] == 1:
            o[O_FLORS + (4 if S[g, C.TEAM + p] == me else 5)] = 1.0
        v = S[g, C.PUBLIC + p]
        if S[g, C.TEAM + p] == me:
            if v > best_mine:
                best_mine = v
        elif v > best_theirs:
            best_theirs = v
    o[O_FLORS + 6] = S[g, C.FLOR_DONE]
    o[O_PUB] = (best_mine + 1) / POINTS_SCALE
    o[O_PUB + 1] = (best_theirs + 1) / POINTS_SCALE
    T = K[K_TARGET]
    gmode = K[K_MODE]
    if gmode == MODE_TEAMS:
        mine = S[g, C.SCORE + me]
        theirs = 0
        for t in range(S[g, C.NTEAMS]):
            if t != me and S[g, C.SCORE + t] > theirs:
                theirs = S[g, C.SCORE + t]
    else:       # three-player modes: scores per seat (destantado: tantos shed, maybe < 0)
        mine = max(0, S[g, C.SCORE + seat])
        theirs = 0
        for p in range(P):
            if p != seat and S[g, C.SCORE + p] > theirs:
                theirs = S[g, C.SCORE + p]
        _encode_three(S, g, seat, o, gmode, T)
    o[O_SCORE] = min(mine, T) / T        # scores are not capped; the feature is
    o[O_SCORE + 1] = min(theirs, T) / T
    o[O_SCORE + 2] = 1.0 if mine > T // 2 else 0.0
    o[O_SCORE + 3] = 1.0 if theirs > T // 2 else 0.0
    o[O_SCORE + 4] = max(0, T - max(mine, theirs)) / T
    if S[g, C.MUESTRA] >= 0:
        o[O_MUESTRA + S[g, C.MUESTRA]] = 1.0
    o[O_MATCH] = T / 30.0
    o[O_MATCH + 1] = K[K_BUENAS]
    if gmode == MODE_TEAMS:
        o[O_MODE] = 1.0
    hands = max(S[g, C.HAND_NO], 1)
    for p in range(P):
        rel = _rel(p, seat, P, pica, da, db, rival)
        if rel < 0:                # a duel shows its two players only
            continue
        r = C.READS + C.READ_N * p
        base = O_READS + READ_SIZE * rel
        yes = S[g, r + C.READ_QUIERO]
        answers = yes + S[g, r + C.READ_NO_QUIERO]
        o[base] = min(S[g, r + C.READ_ENVIDO] / hands, 1.0)
        o[base + 1] = min(S[g, r + C.READ_TRUCO] / hands, 1.0)
        o[base + 2] = (yes + 1.0) / (answers + 2.0)
        o[base + 3] = min(answers / hands, 1.0)
        o[base + 4] = S[g, r + C.READ_MAZO] / hands
        o[base + 5] = (S[g, r + C.READ_SHOWN_PTS] + READ_PRIOR_POINTS) \
            / (S[g, r + C.READ_SHOWN] + 1.0) / POINTS_SCALE
        tans = S[g, r + C.READ_TRUCO_ANS]
        o[O_TREADS + 2 * rel] = (S[g, r + C.READ_TRUCO_FOLD] + 1.0) / (tans + 2.0)
        o[O_TREADS + 2 * rel + 1] = min(tans / hands, 1.0)
    o[O_READS + P6 * READ_SIZE] = min(max(S[g, C.HAND_NO] - 1, 0), READ_HANDS_CAP) \
        / float(READ_HANDS_CAP)
    if K[K_SENAS] != 0:
        _encode_senas(S, K, g, seat, o)
    first = 0                      # pica-pica: the history starts with the duel in progress
    if pica:
        o[O_PICA] = 1.0
        o[O_PICA + 1] = 1.0 if rival >= 0 else 0.0
        o[O_PICA + 2 + S[g, C.DUEL]] = 1.0
        for dd in range(3):
            w = S[g, C.DUEL_WINNER + dd]
            if w >= 0:
                o[O_PICA + 5 + 2 * dd + (0 if w == me else 1)] = 1.0
        for i in range(S[g, C.LOG_LEN]):
            kind, _, _, a, _ = C.unpack_event(S[g, C.LOG + i])
            if kind == C.EV_DUEL and a == 0:
                first = i
    if mode == M_RECALL:
        e = 0
        cur = 0                    # the baza in progress when the event happened
        for i in range(first, S[g, C.LOG_LEN]):
            kind, q, _, a, _ = C.unpack_event(S[g, C.LOG + i])
            if kind == C.EV_BAZA:
                cur = min(a + 1, 2)
                continue
            if kind != C.EV_ACTION or a <= C.A_PLAY2:
                continue
            if e == CALLS_MAX:     # never in a legal hand: keep the last CALLS_MAX
                for j in range(O_CALLS + CALL_SIZE, O_CALLS + CALLS_MAX * CALL_SIZE):
                    o[j - CALL_SIZE] = o[j]
                e -= 1
                for j in range(CALL_SIZE):
                    o[O_CALLS + e * CALL_SIZE + j] = 0.0
            base = O_CALLS + e * CALL_SIZE
            o[base + _rel(q, seat, P, pica, da, db, rival)] = 1.0
            o[base + P6 + a - 3] = 1.0
            o[base + P6 + NUM_CALLS + cur] = 1.0
            e += 1
    elif mode == M_INFOSTATE:
        e = 0
        for i in range(first, S[g, C.LOG_LEN]):
            kind, q, _, a, card = C.unpack_event(S[g, C.LOG + i])
            if kind != C.EV_ACTION or e >= HISTORY_MAX:
                continue
            base = O_HIST + e * EVENT_SIZE
            o[base + _rel(q, seat, P, pica, da, db, rival)] = 1.0
            o[base + P6 + a] = 1.0
            if a <= 2:
                o[base + P6 + NUM_ACTIONS + card] = 1.0
            e += 1


@nb.njit(cache=True)
def _encode_batch(S, K, seats, out, mode):
    for g in range(S.shape[0]):
        _encode(S, K, g, seats[g], out[g], mode)


@nb.njit(cache=True)
def _encode_hidden_batch(S, seats, out):
    for g in range(S.shape[0]):
        o = out[g]
        for i in range(o.shape[0]):
            o[i] = 0.0
        P = S[g, C.NPLAYERS]
        seat = seats[g]
        for p in range(P):
            r = (p - seat) % P
            for k in range(3):
                c = S[g, C.HAND + 3 * p + k]
                if c >= 0 and S[g, C.PLAYED + 3 * p + k] < 0:
                    o[H_CARDS + 40 * r + c] += 1.0
            o[H_ENV + r] = S[g, C.ENVIDO_PTS + p] / POINTS_SCALE
            if S[g, C.FLOR_PTS + p] >= 0:
                o[H_FLOR + r] = S[g, C.FLOR_PTS + p] / POINTS_SCALE


def encode_hidden(S: np.ndarray, tables, seats: np.ndarray,
                  out: np.ndarray | None = None) -> np.ndarray:
    """Privileged features ``float32[N, HIDDEN_SIZE]`` of game g from ``seats[g]``'s seat.

    :data:`HIDDEN_PIECES`: per relative seat (0 = ``seats[g]``, as the encoders count) the
    cards still in that seat's hand and its envido and flor points.  It reveals every hand: for
    centralized critics in training only, never an observation and never given to a policy
    (the encoders never show hidden cards; this does, on purpose).  ``tables`` is accepted for
    the encoders' signature and not read.
    """
    if out is None:
        out = np.empty((S.shape[0], HIDDEN_SIZE), dtype=np.float32)
    _encode_hidden_batch(S, np.asarray(seats, dtype=np.int32), out)
    return out


class Encoder:
    """A named-piece observation layout.

    >>> enc = Encoder("compact")
    >>> enc.size == sum(size for _, size, _ in COMPACT_PIECES)
    True
    """

    def __init__(self, kind: str = "compact"):
        if kind not in KINDS:
            raise ValueError(f"unknown observation {kind!r}; expected one of {list(KINDS)}")
        self.kind = kind
        self.pieces = {"compact": COMPACT_PIECES, "infostate": INFOSTATE_PIECES,
                       "recall": RECALL_PIECES}[kind]
        self.offsets, self.size = _offsets(self.pieces)
        self._mode = KINDS.index(kind)

    def piece(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The slice of ``obs`` (last axis) that holds piece ``name``."""
        if name not in self.offsets:
            raise ValueError(f"unknown piece {name!r}; pieces: {list(self.offsets)}")
        start, size = self.offsets[name]
        return obs[..., start:start + size]

    def views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Every piece and sub-field of ``obs`` (any leading batch axes) by name, as views.

        Pieces of :data:`SHAPES` are reshaped (``"hand"``: ``[..., 3, 40]``); sub-fields of
        :data:`SUBFIELDS` are ``"piece.sub"``, slices of the piece's last axis (size-1
        sub-fields drop it).

        >>> v = Encoder("recall").views(np.zeros((2, RECALL_SIZE), np.float32))
        >>> v["bazas"].shape, v["calls"].shape, v["calls.action"].shape
        ((2, 3, 6, 40), (2, 12, 22), (2, 12, 13))

        >>> enc = Encoder("compact")
        >>> v = enc.views(np.zeros((4, enc.size), np.float32))
        >>> v["hand"].shape, v["truco.level"].shape, v["score.lacks"].shape
        ((4, 3, 40), (4, 4), (4,))
        """
        lead = obs.shape[:-1]
        out: dict[str, np.ndarray] = {}
        for name, (start, size) in self.offsets.items():
            part = obs[..., start:start + size]
            part = part.reshape(lead + SHAPES[name]) if name in SHAPES else part
            out[name] = part
            pos = 0
            for sub, n in SUBFIELDS.get(name, ()):
                out[f"{name}.{sub}"] = part[..., pos] if n == 1 else part[..., pos:pos + n]
                pos += n
        return out

    def encode(self, S: np.ndarray, tables: dict, seats: np.ndarray,
               out: np.ndarray | None = None) -> np.ndarray:
        """Observations ``float32[N, size]`` of ``seats[g]`` in every game g."""
        if out is None:
            out = np.empty((S.shape[0], self.size), dtype=np.float32)
        _encode_batch(S, tables.knobs, np.asarray(seats, dtype=np.int32), out, self._mode)
        return out

    def encode_one(self, S: np.ndarray, tables: dict, g: int, seat: int,
                   out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        _encode(S, tables.knobs, g, seat, out, self._mode)
        return out

    def layout_table(self, names: list[str] | None = None) -> str:
        """The layout as a Markdown table (index range, piece, meaning); ``names``: only
        those pieces (e.g. what an encoder adds to the compact one)."""
        rows = ["| index | piece | meaning |", "|---|---|---|"]
        for name, size, meaning in self.pieces:
            if names is not None and name not in names:
                continue
            start, _ = self.offsets[name]
            rows.append(f"| {start}..{start + size - 1} | `{name}` | {meaning} |")
        return "\n".join(rows)


for _name, _subs in SUBFIELDS.items():   # the sub-fields tile their piece's last axis exactly
    assert sum(n for _, n in _subs) == (SHAPES[_name][-1] if _name in SHAPES
                                        else _RO[_name][1]), _name
for _name, _shape in SHAPES.items():
    assert int(np.prod(_shape)) == _RO[_name][1], _name

__all__ = ["Encoder", "SUBFIELDS", "SHAPES", "COMPACT_PIECES", "INFOSTATE_PIECES", "RECALL_PIECES",
           "HIDDEN_PIECES", "COMPACT_SIZE", "INFOSTATE_SIZE", "RECALL_SIZE", "HIDDEN_SIZE",
           "CALLS_MAX", "CALL_ACTIONS", "LAYOUT_VERSION", "KINDS", "encoder_for_size",
           "dead_pieces", "live_columns",
           "encode_hidden", "ACTIONS"]
