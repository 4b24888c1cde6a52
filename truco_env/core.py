"""The batched rules core: the state of N games as one int32 array, legal masks and steps.

This module is the only place where a rule of Truco is decided.  It imports neither gymnasium
nor pettingzoo.  The state of a batch is ``S[N, STATE_SIZE]`` (one row a game, fields at the
offsets below, sized for up to ``P_MAX`` players); the rules are the int arrays of
:meth:`truco_env.rules.RuleSet.tables`.  The kernels are compiled with numba and loop over the
games of the batch, so one call costs about the same for a batch of one (the PettingZoo env) and
is fast for thousands (the vector env).

Public functions (all act on the whole batch in place):

* :func:`new_state` -> ``S`` of N empty games;
* :func:`start_hand` deals a hand from a card permutation per game;
* :func:`legal_mask` -> ``bool[N, A]`` for the player to act in each game;
* :func:`step` plays one action per game and returns the points scored by each team.

Flow of a hand (docs/rules.md): the player to act (``ACTOR``) is either the player about to play a
card (``TURN``) or the one who must answer the innermost pending song: a flor contest, else an
envido, else a truco.  When a song is resolved the turn goes back (:func:`_resume`).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from .cards import ENVIDO_VALUE, TRUCO_RANK
from .rules import (
    RuleTables, K_ACHICO, K_BUENAS, K_CF_NQ, K_CF_Q, K_FALTA, K_FLOR, K_FLOR_EACH, K_FLOR_PTS, K_FLOR_VS,
    K_MUESTRA, K_PIEZA_ENV, K_RESTO, K_RESTO_NQ, K_TARGET, NUM_ACTIONS,
    K_FALTA_POINTS, K_MODE, MODE_DESTANTADO, MODE_PATA, MODE_TEAMS, K_SENAS, K_SENA_N,
)
from .rules import K_PICA, K_PICA_PLAYERS

P_MAX = 6          # seats
T_MAX = 3          # teams (three-player modes need three)
LOG_MAX = 128      # events recorded per hand (a hand has at most about 80)
# An event is (kind, seat, team, value, detail), packed in one int32 (see pack_event) so that
# the log costs a state row 128 ints, not 640: rows stay short, which column reads over a
# batch (S[:, SCORE]...) feel in every step.

# Action ids (same order as rules.ACTIONS).
A_PLAY0, A_PLAY1, A_PLAY2, A_ENVIDO, A_REAL, A_FALTA, A_FLOR, A_CONTRAFLOR, A_RESTO, A_ACHICO, \
    A_TRUCO, A_RETRUCO, A_VALE4, A_QUIERO, A_NO_QUIERO, A_MAZO = range(16)
# Three-player modes (issue 12): pata de gallo's discard of slot 0..3 of the gallo's four cards.
A_DISCARD0 = 16
# Señas (issue 13): sena_k is action A_SENA0 + k (k < the vocabulary's size, knob K_SENA_N).
A_SENA0 = 20

# Flor contest states.
FLOR_NONE, FLOR_SUNG, FLOR_CONTRA, FLOR_RESTO = 0, 1, 2, 3

# Events (rows of the hand's LOG; ``-1`` where a column does not apply):
#   EV_ACTION    seat acted: value = action id, detail = card id played (-1 for a call)
#   EV_BAZA      a baza was completed: seat = its winner (-1 parda), team = winning team
#                (-1 parda), value = baza index 0..2
#   EV_DECLARE   envido or flor points in a comparison: value = points said aloud, or -1 for
#                "son buenas" (kept private); detail = 0 envido, 1 flor
#   EV_POINTS    a team scored: value = points, detail = source (SRC_*)
#   EV_HAND_END  the hand is over: team = the team that won the hand (-1 when a match point
#                scored from a song ended it), value = reason (END_*)
#   EV_MATCH_END team reached the target: value = its score
#   EV_DUEL      (pica-pica) a duel starts (value 0) or ends (value = END_* reason, team = the
#                team that won it): seat = the duel's mano, detail = the duel's index
#   EV_PASS      destantado: seat passed value points (tantos) to the player ``team`` (a seat
#                here), detail = source (SRC_*)
#   In the three-player modes EV_POINTS has seat = the player who scored (pata de gallo: one
#   event per player of the side; destantado: points shed to the pot), team = his side.
#   EV_DISCARD   pata de gallo: seat (the gallo) discarded a card face down (which one is not
#                logged: the log is public)
#   EV_SENA      (señas, issue 13) seat made seña number value (its team: team); detail = the
#                bit mask of the opponents who caught it.  NOT public: the signer and his
#                partners saw it, an opponent only if his bit is set (view.hand_events(viewer=),
#                and the encoders read SENA/SENA_CAUGHT with the same rule, _sees_sena)
EV_ACTION, EV_BAZA, EV_DECLARE, EV_POINTS, EV_HAND_END, EV_MATCH_END = range(6)
EV_DUEL = 6
EV_PASS, EV_DISCARD = 7, 8
EV_SENA = 9                    # ten kinds: the packed kind has 4 bits (pack_event)
EVENT_NAMES = ("action", "baza", "declare", "points", "hand_end", "match_end", "duel", "pass",
               "discard", "sena")
SRC_ENVIDO, SRC_FLOR, SRC_TRUCO = range(3)
SOURCE_NAMES = ("envido", "flor", "truco")
END_BAZAS, END_NO_QUIERO, END_MAZO, END_MATCH_POINT = 1, 2, 3, 4
END_DUELS = 5      # pica-pica: every duel of the hand was played
END_NAMES = ("", "bazas", "no_quiero", "mazo", "match_point", "duels")
# Pica-pica schedules (K_PICA values; rules.PICA_SCHEDULES).
PICA_OFF, PICA_BUENAS, PICA_ALTERNATE = 0, 1, 2
# Reads: what each seat has done over the match so far, counters that every player saw (the
# table talk a player keeps in his head: "este canta todo", "este se va al mazo").  Per seat:
# envido-family calls, truco-family songs, quieros, no quieros, mazos, envidos it called whose
# points it then said aloud, the sum of those points, its answers to the other side's
# truco-family songs (quiero, no quiero or a raise, while no envido nor flor is pending over
# the song; the mazo is not an answer) and how many of those were no quieros.  Cleared when a match
# starts.
READ_ENVIDO, READ_TRUCO, READ_QUIERO, READ_NO_QUIERO, READ_MAZO, READ_SHOWN, READ_SHOWN_PTS, \
    READ_TRUCO_ANS, READ_TRUCO_FOLD = range(9)
READ_N = 9

#: The state of one game: ``(name, size, meaning and sentinels)``.  Seats are 0..P-1 in play
#: order, teams 0..T-1; ``-1`` means "none" unless a line says otherwise.
FIELDS: tuple[tuple[str, int, str], ...] = (
    ("NPLAYERS", 1, "seats in play, 2..6"),
    ("NTEAMS", 1, "teams in play (2)"),
    ("MANO", 1, "seat of the mano of this hand"),
    ("TURN", 1, "seat to play the next card"),
    ("ACTOR", 1, "seat to act now: TURN, or the seat that owes an answer to a song"),
    ("BAZA", 1, "baza in progress, 0..2"),
    ("NCARDS", 1, "cards played in the baza in progress"),
    ("LEAD", 1, "seat that opened the baza in progress"),
    ("BEST_SEAT", 1, "seat holding the baza in progress (-1 before its first card)"),
    ("BEST_RANK", 1, "truco rank of the best card of the baza in progress (-1 none)"),
    ("BEST_TIE", 1, "1 when a card of another team ties the best card (parda so far)"),
    ("RESULT", 3, "per baza: winning team, -1 parda, -2 not finished"),
    ("BAZA_LEAD", 3, "per baza: the seat that opened it (-1 not started)"),
    ("TRUCO_LEVEL", 1, "accepted truco level: 0 none, 1 truco, 2 retruco, 3 vale cuatro"),
    ("TRUCO_OWNER", 1, "team that holds the quiero (may raise next), -1 none"),
    ("TRUCO_PENDING", 1, "level sung and not yet answered, 0 none"),
    ("TRUCO_CALLER", 1, "seat that sang the pending level"),
    ("TRUCO_ANSWERER", 1, "seat that must answer it"),
    ("ENVIDO_CHAIN_ID", 1, "index of the envido chain so far in rules.ENVIDO_CHAIN (0 none)"),
    ("ENVIDO_PENDING", 1, "1 while an envido call waits for an answer"),
    ("ENVIDO_CLOSED", 1, "1 once envido can no longer be opened in this hand"),
    ("ENVIDO_CALLER", 1, "seat of the last envido call"),
    ("ENVIDO_ANSWERER", 1, "seat that must answer it"),
    ("ENVIDO_WINNER", 1, "seat that won an accepted envido"),
    ("FLOR_STATE", 1, "flor contest: FLOR_NONE, FLOR_SUNG, FLOR_CONTRA, FLOR_RESTO"),
    ("FLOR_FIRST", 1, "seat that sang the flor answered in the contest"),
    ("FLOR_OPP", 1, "seat of the other side that answers it"),
    ("FLOR_CALLER", 1, "seat of the last flor song (its side gets a rejection's points)"),
    ("FLOR_DONE", 1, "1 once the flor is settled for the hand"),
    ("FLOR_SCORED", T_MAX, "per team: unopposed flores scored"),
    ("ACTED", P_MAX, "per seat: 1 once it acted in this hand"),
    ("SUNG", P_MAX, "per seat: 1 once it sang flor (or a flor raise)"),
    ("TEAM", P_MAX, "per seat: its team"),
    ("HAND", P_MAX * 3, "per seat and slot: card id dealt (-1 none)"),
    ("PLAYED", P_MAX * 3, "per seat and slot: the baza it was played in, -1 not played"),
    ("HRANK", P_MAX * 3, "per seat and slot: truco rank of the card (piezas included)"),
    ("ENVIDO_PTS", P_MAX, "per seat: envido points (private until declared)"),
    ("FLOR_PTS", P_MAX, "per seat: flor points, -1 without flor"),
    ("PUBLIC", P_MAX, "per seat: envido/flor points said aloud in this hand, -1 none"),
    ("BAZA_CARD", 3 * P_MAX, "per baza and seat: card id played, -1 none"),
    ("SCORE", T_MAX, "per team: match score (not capped at the target)"),
    ("HAND_PTS", T_MAX, "per team: points scored in this hand"),
    ("HAND_OVER", 1, "1 once the hand is over (until the next deal)"),
    ("END_REASON", 1, "why the hand ended: END_* (0 while it goes on)"),
    ("DONE", 1, "1 once the match is over"),
    ("WINNER", 1, "team that won the match, -1 while it goes on"),
    ("HAND_NO", 1, "hands dealt in this match (1 = the first hand)"),
    ("MUESTRA", 1, "card id turned up (uruguayo), -1 without muestra"),
    ("LOG_LEN", 1, "events in LOG (the hand's events stop at LOG_MAX)"),
    ("LOG", LOG_MAX, "the hand's events in order, one packed int32 each (unpack_event)"),
    ("READS", P_MAX * READ_N, "per seat, counted over the match so far (public: every player "
                              "saw it): READ_* counters, READ_N per seat"),
    # --- pica-pica (issue 12, item 3): a hand played as 1v1 duels, one after another ---
    ("PICA", 1, "1 while this hand is played as pica-pica duels, else 0"),
    ("PICA_FROM", 1, "alternate schedule: HAND_NO of the first pica-pica hand, -1 not yet"),
    ("HAND_MANO", 1, "seat of the hand's mano (MANO is the duel's mano during a duel)"),
    ("HAND_SEATS", 1, "seats in the hand or duel in progress: NPLAYERS, or 2 in a duel"),
    ("NEXT", P_MAX, "per seat: the next seat of the hand or duel in play order"),
    ("DUEL", 1, "duel in progress, 0..NDUELS-1 (-1 outside pica-pica)"),
    ("NDUELS", 1, "duels of this hand (players // 2), 0 outside pica-pica"),
    ("DUEL_SEAT", 6, "per duel: its mano, then its rival (-1 none)"),
    ("DUEL_WINNER", 3, "per duel: the team that won it, -1 not finished"),
    ("DUEL_END", 3, "per duel: why it ended (END_*), 0 not finished"),
) + (
    # ---- three-player modes (issue 12).  In them SCORE and HAND_PTS are per seat (pata de
    # gallo: points won; destantado: tantos shed, 10 - the player's pile) and WINNER is a seat.
    ("GALLO", 1, "pata de gallo: seat of the gallo (the dealer, alone), -1 otherwise"),
    ("DISCARDING", 1, "pata de gallo: 1 while the gallo must discard (nobody else acts)"),
    ("FOURTH", 1, "pata de gallo: the gallo's fourth card while he discards, -1 otherwise"),
    ("DISCARD", 1, "pata de gallo: the card the gallo discarded (known to him only), -1 none"),
    ("OUT", P_MAX, "destantado, per seat: 1 once it left the hand (no quiero to a truco, mazo)"),
    ("NOUT", 1, "destantado: seats out of the hand"),
    ("ENV_LEFT", 1, "destantado: bit mask of the seats still to answer the pending envido"),
    ("ENV_IN", 1, "destantado: bit mask of the seats in the envido (the caller, who accepted)"),
    ("TRU_LEFT", 1, "destantado: bit mask of the seats still to answer the pending truco song"),
    ("NEXT_MANO", 1, "seat of the next hand's mano, set when the hand ends (-1 before)"),
) + (
    # ---- señas (issue 13): who sees each seña is decided by _sees_sena
    ("SENA", 3 * P_MAX, "per baza and seat: the seña it made in that baza (A_SENA0 offset: "
                        "0..K_SENA_N-1), -1 none"),
    ("SENA_CAUGHT", 3 * P_MAX, "per baza and seat: bit mask of the opponents who caught its "
                               "seña (private to each of them)"),
)


def _layout():
    offsets, pos = {}, 0
    for name, size, _ in FIELDS:
        offsets[name] = pos
        pos += size
    return offsets, pos


OFFSETS, STATE_SIZE = _layout()
# Field offsets as module constants (numba reads them as compile-time constants).
NPLAYERS = OFFSETS["NPLAYERS"]; NTEAMS = OFFSETS["NTEAMS"]; MANO = OFFSETS["MANO"]
TURN = OFFSETS["TURN"]; ACTOR = OFFSETS["ACTOR"]; BAZA = OFFSETS["BAZA"]
NCARDS = OFFSETS["NCARDS"]; LEAD = OFFSETS["LEAD"]; BEST_SEAT = OFFSETS["BEST_SEAT"]
BEST_RANK = OFFSETS["BEST_RANK"]; BEST_TIE = OFFSETS["BEST_TIE"]; RESULT = OFFSETS["RESULT"]
BAZA_LEAD = OFFSETS["BAZA_LEAD"]; TRUCO_LEVEL = OFFSETS["TRUCO_LEVEL"]
TRUCO_OWNER = OFFSETS["TRUCO_OWNER"]; TRUCO_PENDING = OFFSETS["TRUCO_PENDING"]
TRUCO_CALLER = OFFSETS["TRUCO_CALLER"]; TRUCO_ANSWERER = OFFSETS["TRUCO_ANSWERER"]
ENVIDO_CHAIN_ID = OFFSETS["ENVIDO_CHAIN_ID"]; ENVIDO_PENDING = OFFSETS["ENVIDO_PENDING"]
ENVIDO_CLOSED = OFFSETS["ENVIDO_CLOSED"]; ENVIDO_CALLER = OFFSETS["ENVIDO_CALLER"]
ENVIDO_ANSWERER = OFFSETS["ENVIDO_ANSWERER"]; ENVIDO_WINNER = OFFSETS["ENVIDO_WINNER"]
FLOR_STATE = OFFSETS["FLOR_STATE"]; FLOR_FIRST = OFFSETS["FLOR_FIRST"]
FLOR_OPP = OFFSETS["FLOR_OPP"]; FLOR_CALLER = OFFSETS["FLOR_CALLER"]
FLOR_DONE = OFFSETS["FLOR_DONE"]; FLOR_SCORED = OFFSETS["FLOR_SCORED"]
ACTED = OFFSETS["ACTED"]; SUNG = OFFSETS["SUNG"]; TEAM = OFFSETS["TEAM"]
HAND = OFFSETS["HAND"]; PLAYED = OFFSETS["PLAYED"]; HRANK = OFFSETS["HRANK"]
ENVIDO_PTS = OFFSETS["ENVIDO_PTS"]; FLOR_PTS = OFFSETS["FLOR_PTS"]; PUBLIC = OFFSETS["PUBLIC"]
BAZA_CARD = OFFSETS["BAZA_CARD"]; SCORE = OFFSETS["SCORE"]; HAND_PTS = OFFSETS["HAND_PTS"]
HAND_OVER = OFFSETS["HAND_OVER"]; END_REASON = OFFSETS["END_REASON"]; DONE = OFFSETS["DONE"]
WINNER = OFFSETS["WINNER"]; HAND_NO = OFFSETS["HAND_NO"]; MUESTRA = OFFSETS["MUESTRA"]
LOG_LEN = OFFSETS["LOG_LEN"]; LOG = OFFSETS["LOG"]; READS = OFFSETS["READS"]
PICA = OFFSETS["PICA"]; PICA_FROM = OFFSETS["PICA_FROM"]; HAND_MANO = OFFSETS["HAND_MANO"]
HAND_SEATS = OFFSETS["HAND_SEATS"]; NEXT = OFFSETS["NEXT"]; DUEL = OFFSETS["DUEL"]
NDUELS = OFFSETS["NDUELS"]; DUEL_SEAT = OFFSETS["DUEL_SEAT"]
DUEL_WINNER = OFFSETS["DUEL_WINNER"]; DUEL_END = OFFSETS["DUEL_END"]
GALLO = OFFSETS["GALLO"]; DISCARDING = OFFSETS["DISCARDING"]; FOURTH = OFFSETS["FOURTH"]
DISCARD = OFFSETS["DISCARD"]; OUT = OFFSETS["OUT"]; NOUT = OFFSETS["NOUT"]
ENV_LEFT = OFFSETS["ENV_LEFT"]; ENV_IN = OFFSETS["ENV_IN"]; TRU_LEFT = OFFSETS["TRU_LEFT"]
NEXT_MANO = OFFSETS["NEXT_MANO"]
SENA = OFFSETS["SENA"]; SENA_CAUGHT = OFFSETS["SENA_CAUGHT"]

_RANK = TRUCO_RANK.astype(np.int32)
_ENVIDO_VALUE = ENVIDO_VALUE.astype(np.int32)


def new_state(n: int, players: int, score: np.ndarray | None = None) -> np.ndarray:
    """``S[n, STATE_SIZE]`` for n matches of ``players`` seats (teams seat % 2), at 0-0."""
    S = np.zeros((n, STATE_SIZE), dtype=np.int32)
    S[:, NPLAYERS] = players
    S[:, NTEAMS] = 2
    S[:, TEAM:TEAM + P_MAX] = np.arange(P_MAX) % 2
    S[:, WINNER] = -1
    if score is not None:
        score = np.asarray(score)
        S[:, SCORE:SCORE + score.shape[-1]] = score   # by team; by seat in three-player modes
    S[:, NEXT_MANO] = -1
    S[:, PICA_FROM] = -1
    S[:, HAND_SEATS] = players
    S[:, NEXT:NEXT + P_MAX] = (np.arange(P_MAX) + 1) % players
    S[:, DUEL] = -1
    return S


# ----------------------------------------------------------------------------------------------
# Dealing


PIEZA_NUMBERS = np.array([1, 3, 4, 8, 7], dtype=np.int32)  # number indices of 2, 4, 5, 11, 10
REY_INDEX = 9                                              # number index of the 12
PLAIN_RANKS = int(TRUCO_RANK.max()) + 1                    # 14 truco rank tiers, 4 .. 1e
PIEZA_RANK0 = PLAIN_RANKS                                  # piezas rank above every other card
NUM_RANKS = PIEZA_RANK0 + 5                                # 19 tiers with the 5 piezas: the
                                                           # one rank count of the package


@nb.njit(cache=True)
def _pieza_index(muestra, c):
    """Pieza order of card ``c`` under ``muestra`` (0 = the 2 ... 4 = the 10), or -1."""
    if muestra < 0 or c // 10 != muestra // 10:
        return -1
    n = c % 10
    for i in range(5):
        p = PIEZA_NUMBERS[i]
        if p == muestra % 10:
            p = REY_INDEX          # the 12 takes the place and value of the muestra
        if n == p:
            return i
    return -1


@nb.njit(cache=True)
def card_rank(muestra, c):
    """Truco rank of card ``c`` under ``muestra`` (-1: none): 0..13 plain, 14..18 piezas.

    The one place a card's rank is decided; every table of ranks is built from it.
    """
    pi = _pieza_index(muestra, c)
    if pi >= 0:
        return PIEZA_RANK0 + 4 - pi
    return _RANK[c]


@nb.njit(cache=True)
def _hand_values(S, K, g):
    """Truco ranks of the dealt cards, envido and flor points of every seat.

    Without a muestra: the argentino tables.  With one (uruguayo): piezas rank above the matas,
    envido with a pieza = its value + the highest other card, flor = three of a suit, two
    piezas, or a pieza and two of a suit, worth 20 + (piezas - 20) + the other cards.
    """
    P = S[g, NPLAYERS]
    muestra = S[g, MUESTRA]
    for p in range(P):
        best_single = 0
        best_pair = -1
        best_pieza = -1
        npiezas = 0
        flor_sum = 20
        for k in range(3):
            c = S[g, HAND + 3 * p + k]
            pi = _pieza_index(muestra, c)
            v = _ENVIDO_VALUE[c]
            if pi >= 0:
                npiezas += 1
                pv = K[K_PIEZA_ENV + pi]
                S[g, HRANK + 3 * p + k] = card_rank(muestra, c)
                flor_sum += pv - 20
                if pv > best_pieza:
                    best_pieza = pv
                # Envido with a pieza: its value + the highest other card.
                other = 0
                for j in range(3):
                    if j != k and _ENVIDO_VALUE[S[g, HAND + 3 * p + j]] > other:
                        other = _ENVIDO_VALUE[S[g, HAND + 3 * p + j]]
                if pv + other > best_pair:
                    best_pair = pv + other
            else:
                S[g, HRANK + 3 * p + k] = card_rank(muestra, c)
                flor_sum += v
            if v > best_single:
                best_single = v
            for j in range(k + 1, 3):
                c2 = S[g, HAND + 3 * p + j]
                if c2 // 10 == c // 10:
                    pair = 20 + v + _ENVIDO_VALUE[c2]
                    if pair > best_pair:
                        best_pair = pair
        S[g, ENVIDO_PTS + p] = best_pair if best_pair > best_single else best_single
        c0 = S[g, HAND + 3 * p]
        c1 = S[g, HAND + 3 * p + 1]
        c2 = S[g, HAND + 3 * p + 2]
        same = c0 // 10 == c1 // 10 and c1 // 10 == c2 // 10
        if npiezas == 1:
            # A pieza and two of one suit: the two other cards share a suit.
            o0 = -1
            o1 = -1
            for k in range(3):
                c = S[g, HAND + 3 * p + k]
                if _pieza_index(muestra, c) < 0:
                    if o0 < 0:
                        o0 = c
                    else:
                        o1 = c
            same = same or o0 // 10 == o1 // 10
        if same or npiezas >= 2:
            S[g, FLOR_PTS + p] = flor_sum
        else:
            S[g, FLOR_PTS + p] = -1


@nb.njit(cache=True)
def _hand_values_batch(S, K):
    for g in range(S.shape[0]):
        _hand_values(S, K, g)


def hand_points(hands: np.ndarray, tables: RuleTables, muestra: int = -1
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truco ranks ``[n, 3]``, envido ``[n]`` and flor ``[n]`` (-1 = none) of ``hands[n, 3]``.

    The same kernel as the deal, so every table of hand values (strength tables, the heuristic's
    envido odds, :func:`truco_env.game.evaluate_hand`) agrees with the rules.
    """
    hands = np.asarray(hands, dtype=np.int32).reshape(-1, 3)
    S = new_state(len(hands), 1)
    S[:, HAND:HAND + 3] = hands
    S[:, MUESTRA] = muestra
    _hand_values_batch(S, tables.knobs)
    return S[:, HRANK:HRANK + 3].copy(), S[:, ENVIDO_PTS].copy(), S[:, FLOR_PTS].copy()


@nb.njit(cache=True)
def _fresh_play(S, g, mano):
    """The play of a new hand (or pica-pica duel) led by ``mano``: no baza played, no truco,
    envido or flor sung.  The one place that says what a hand starts from."""
    S[g, MANO] = mano
    S[g, TURN] = mano
    S[g, ACTOR] = mano
    S[g, LEAD] = mano
    S[g, BAZA] = 0
    S[g, NCARDS] = 0
    S[g, BEST_SEAT] = -1
    S[g, BEST_RANK] = -1
    S[g, BEST_TIE] = 0
    for b in range(3):
        S[g, RESULT + b] = -2
        S[g, BAZA_LEAD + b] = -1
    S[g, BAZA_LEAD] = mano
    S[g, TRUCO_LEVEL] = 0
    S[g, TRUCO_OWNER] = -1
    S[g, TRUCO_PENDING] = 0
    S[g, TRUCO_CALLER] = -1
    S[g, TRUCO_ANSWERER] = -1
    S[g, ENVIDO_CHAIN_ID] = 0
    S[g, ENVIDO_PENDING] = 0
    S[g, ENVIDO_CLOSED] = 0
    S[g, ENVIDO_CALLER] = -1
    S[g, ENVIDO_ANSWERER] = -1
    S[g, ENVIDO_WINNER] = -1
    S[g, FLOR_STATE] = 0
    S[g, FLOR_FIRST] = -1
    S[g, FLOR_OPP] = -1
    S[g, FLOR_CALLER] = -1
    S[g, FLOR_DONE] = 0
    for t in range(T_MAX):
        S[g, FLOR_SCORED + t] = 0


@nb.njit(cache=True)
def _start_hand(S, K, games, decks, manos):
    for i in range(games.shape[0]):
        g = games[i]
        P = S[g, NPLAYERS]
        _update_reads(S, g)
        mano = manos[i]
        _fresh_play(S, g, mano)
        for t in range(T_MAX):
            S[g, HAND_PTS + t] = 0
        for p in range(P_MAX):
            S[g, ACTED + p] = 0
            S[g, SUNG + p] = 0
            S[g, PUBLIC + p] = -1
            S[g, ENVIDO_PTS + p] = -1
            S[g, FLOR_PTS + p] = -1
            for k in range(3):
                S[g, HAND + 3 * p + k] = -1
                S[g, PLAYED + 3 * p + k] = -1
                S[g, HRANK + 3 * p + k] = -1
                S[g, BAZA_CARD + k * P_MAX + p] = -1
                S[g, SENA + k * P_MAX + p] = -1
                S[g, SENA_CAUGHT + k * P_MAX + p] = 0
        # Deal: the deck row lists cards in dealing order; seat p gets cards 3p..3p+2.
        for p in range(P):
            for k in range(3):
                S[g, HAND + 3 * p + k] = decks[i, 3 * p + k]
        # The muestra is the next card of the deck, turned up (uruguayo).
        S[g, MUESTRA] = decks[i, 3 * P] if K[K_MUESTRA] == 1 else -1
        S[g, HAND_OVER] = 0
        S[g, END_REASON] = 0
        S[g, LOG_LEN] = 0
        S[g, HAND_NO] += 1
        # ---- three-player modes (issue 12)
        S[g, GALLO] = -1
        S[g, DISCARDING] = 0
        S[g, FOURTH] = -1
        S[g, DISCARD] = -1
        S[g, NOUT] = 0
        S[g, ENV_LEFT] = 0
        S[g, ENV_IN] = 0
        S[g, TRU_LEFT] = 0
        S[g, NEXT_MANO] = -1
        for p in range(P_MAX):
            S[g, OUT + p] = 0
        mode = K[K_MODE]
        if mode == MODE_PATA:
            # The dealer (the seat before the mano) is the gallo: alone against the other two,
            # dealt a fourth card (the next of the deck) that he discards before anyone acts.
            gallo = (mano + P - 1) % P
            S[g, GALLO] = gallo
            S[g, NTEAMS] = 2
            for p in range(P):
                S[g, TEAM + p] = 0 if p == gallo else 1
            S[g, FOURTH] = decks[i, 3 * P]
            S[g, DISCARDING] = 1
            S[g, ACTOR] = gallo
        elif mode == MODE_DESTANTADO:
            S[g, NTEAMS] = P      # each alone: his seat is his side
            for p in range(P):
                S[g, TEAM + p] = p
        _hand_values(S, K, g)
        S[g, HAND_MANO] = mano
        S[g, HAND_SEATS] = P
        for p in range(P):
            S[g, NEXT + p] = (p + 1) % P
        S[g, PICA] = 0
        S[g, DUEL] = -1
        S[g, NDUELS] = 0
        for d in range(3):
            S[g, DUEL_SEAT + 2 * d] = -1
            S[g, DUEL_SEAT + 2 * d + 1] = -1
            S[g, DUEL_WINNER + d] = -1
            S[g, DUEL_END + d] = 0
        if _pica_hand(S, K, g):
            _start_pica(S, g)


# --- pica-pica (issue 12, item 3) -------------------------------------------------------------


@nb.njit(cache=True)
def _pica_hand(S, K, g):
    """Whether the hand just dealt is played as pica-pica duels (docs/rules.md section 11).

    ``PICA_BUENAS`` (argentino): from the second round (hand number > players) while every side
    is in malas (score <= target // 2).  ``PICA_ALTERNATE`` (trucoshi): once a side has half of
    the half target rounded up (5 of 18), that hand and every other hand after it.
    """
    mode = K[K_PICA]
    P = S[g, NPLAYERS]
    if mode == PICA_OFF or (K[K_PICA_PLAYERS] >> P) & 1 == 0:
        return False
    half = K[K_TARGET] // 2
    if mode == PICA_BUENAS:
        if S[g, HAND_NO] <= P:
            return False
        for t in range(S[g, NTEAMS]):
            if S[g, SCORE + t] > half:
                return False
        return True
    if S[g, PICA_FROM] < 0:
        for t in range(S[g, NTEAMS]):
            if S[g, SCORE + t] >= (half + 1) // 2:
                S[g, PICA_FROM] = S[g, HAND_NO]
        if S[g, PICA_FROM] < 0:
            return False
    return (S[g, HAND_NO] - S[g, PICA_FROM]) % 2 == 0


@nb.njit(cache=True)
def _start_pica(S, g):
    """Pair the seats for the duels and start the first.  6 players: seat m + i against
    m + i + 3 (i = 0, 1, 2; m the hand's mano); 4 players: m against m + 1, m + 2 against
    m + 3.  Each duel's mano is its seat nearer the hand's mano; duels go in that order."""
    P = S[g, NPLAYERS]
    m = S[g, MANO]
    n = P // 2
    S[g, PICA] = 1
    S[g, NDUELS] = n
    for d in range(n):
        if P == 6:
            a = (m + d) % P
            b = (m + d + 3) % P
        else:
            a = (m + 2 * d) % P
            b = (m + 2 * d + 1) % P
        S[g, DUEL_SEAT + 2 * d] = a
        S[g, DUEL_SEAT + 2 * d + 1] = b
    _start_duel(S, g, 0)


@nb.njit(cache=True)
def _start_duel(S, g, d):
    """Duel ``d`` starts: a fresh 1v1 hand (bazas, truco, envido, flor) between its two seats,
    with the cards they were dealt; the others wait (their cards stay where they are)."""
    a = S[g, DUEL_SEAT + 2 * d]
    b = S[g, DUEL_SEAT + 2 * d + 1]
    S[g, DUEL] = d
    S[g, HAND_SEATS] = 2
    S[g, NEXT + a] = b
    S[g, NEXT + b] = a
    _fresh_play(S, g, a)
    _log(S, g, EV_DUEL, a, -1, 0, d)


@nb.njit(cache=True)
def _end_duel(S, T, g, team, pts, reason):
    """A duel is over: ``team`` scores ``pts`` (its truco's worth) at once, as in any hand;
    the next duel starts, or the hand ends after the last (``END_DUELS``).  A no quiero or a
    mazo ends only the duel; the match may end inside any duel."""
    d = S[g, DUEL]
    S[g, DUEL_WINNER + d] = team
    S[g, DUEL_END + d] = reason
    _log(S, g, EV_DUEL, S[g, MANO], team, reason, d)
    last = d + 1 >= S[g, NDUELS]
    if last:
        S[g, MANO] = S[g, HAND_MANO]
        S[g, HAND_OVER] = 1
        S[g, END_REASON] = END_DUELS
    _award(S, T.knobs, g, team, pts, SRC_TRUCO)
    if last:
        w = -1
        if S[g, HAND_PTS] != S[g, HAND_PTS + 1]:
            w = 0 if S[g, HAND_PTS] > S[g, HAND_PTS + 1] else 1
        _log(S, g, EV_HAND_END, -1, w, END_DUELS, -1)
        if S[g, DONE] == 1:
            _log(S, g, EV_MATCH_END, -1, S[g, WINNER], S[g, SCORE + S[g, WINNER]], -1)
    elif S[g, DONE] == 0:
        _start_duel(S, g, d + 1)


@nb.njit(cache=True)
def _update_reads(S, g):
    """Before a deal: clear the reads when a match starts (``HAND_NO`` 0), else add the ended
    hand's showdowns (who called envido and then said its points aloud)."""
    if S[g, HAND_NO] == 0:
        for j in range(P_MAX * READ_N):
            S[g, READS + j] = 0
        return
    for p in range(S[g, NPLAYERS]):
        if S[g, PUBLIC + p] < 0:
            continue
        for i in range(S[g, LOG_LEN]):
            kind, q, _, a, _ = unpack_event(S[g, LOG + i])
            if kind == EV_ACTION and q == p and a >= A_ENVIDO and a <= A_FALTA:
                S[g, READS + READ_N * p + READ_SHOWN] += 1
                S[g, READS + READ_N * p + READ_SHOWN_PTS] += S[g, PUBLIC + p]
                break


def start_hand(S: np.ndarray, tables: RuleTables, games: np.ndarray, decks: np.ndarray,
               manos: np.ndarray) -> None:
    """Deal a new hand in ``games``: ``decks[i]`` is a card order (seat p gets cards 3p..3p+2,
    the next card is the muestra where the rules have one), ``manos[i]`` the mano seat."""
    _start_hand(S, tables.knobs, np.asarray(games, dtype=np.int64),
                np.asarray(decks, dtype=np.int32), np.asarray(manos, dtype=np.int32))


# ----------------------------------------------------------------------------------------------
# Helpers


@nb.njit(cache=True, inline="always")
def _next_opponent(S, g, seat):
    """The next player of another team after ``seat`` in play order."""
    P = S[g, NPLAYERS]
    t = S[g, TEAM + seat]
    q = seat
    for i in range(1, P):
        q = S[g, NEXT + q]
        if S[g, TEAM + q] != t:
            return q
    return seat


@nb.njit(cache=True, inline="always")
def _has_played_first(S, g, seat):
    return S[g, BAZA_CARD + seat] >= 0  # baza 0 column of this seat


@nb.njit(cache=True)
def _resume(S, g):
    """After a song is resolved: the innermost pending answer, else the player to play."""
    if S[g, FLOR_STATE] != FLOR_NONE:
        return
    if S[g, ENVIDO_PENDING] == 1:
        S[g, ACTOR] = S[g, ENVIDO_ANSWERER]
    elif S[g, TRUCO_PENDING] > 0:
        S[g, ACTOR] = S[g, TRUCO_ANSWERER]
    else:
        S[g, ACTOR] = S[g, TURN]


@nb.njit(cache=True, inline="always")
def pack_event(kind, seat, team, value, detail):
    """One event as an int32: kind 4 bits, seat+1 4, team+1 3, value+1 8, detail+1 6 bits
    (seat, team, value, detail may be -1; value < 255, detail < 63)."""
    return (kind | ((seat + 1) << 4) | ((team + 1) << 8) | ((value + 1) << 11)
            | ((detail + 1) << 19))


@nb.njit(cache=True, inline="always")
def unpack_event(x):
    """``(kind, seat, team, value, detail)`` of a packed event (the inverse of pack_event).

    >>> [int(v) for v in unpack_event(pack_event(EV_ACTION, 3, 1, 13, -1))]
    [0, 3, 1, 13, -1]
    """
    return (x & 15, ((x >> 4) & 15) - 1, ((x >> 8) & 7) - 1, ((x >> 11) & 255) - 1,
            ((x >> 19) & 63) - 1)


@nb.njit(cache=True)
def _log(S, g, kind, seat, team, value, detail):
    """Append an event to the hand's LOG (see EV_*); events past LOG_MAX are dropped."""
    h = S[g, LOG_LEN]
    if h < LOG_MAX:
        S[g, LOG + h] = pack_event(kind, seat, team, value, detail)
        S[g, LOG_LEN] = h + 1


@nb.njit(cache=True)
def _award(S, K, g, team, pts, source):
    """Score points for a team; the match ends the moment a side reaches the target.

    Points from a song that reach the target end the hand there (``END_MATCH_POINT``).  In the
    three-player modes every player of the side scores them (:func:`_award_seats`).
    """
    if pts <= 0 or S[g, DONE] == 1:
        return
    if K[K_MODE] != MODE_TEAMS:
        _award_seats(S, K, g, team, pts, source)
        return
    S[g, SCORE + team] += pts
    S[g, HAND_PTS + team] += pts
    _log(S, g, EV_POINTS, -1, team, pts, source)
    if S[g, SCORE + team] >= K[K_TARGET]:
        S[g, DONE] = 1
        S[g, WINNER] = team
        S[g, MANO] = S[g, HAND_MANO]     # a pica-pica duel's mano gives the hand's back
        if S[g, HAND_OVER] == 0:
            S[g, HAND_OVER] = 1
            S[g, END_REASON] = END_MATCH_POINT
            _log(S, g, EV_HAND_END, -1, -1, END_MATCH_POINT, -1)
            _log(S, g, EV_MATCH_END, -1, team, S[g, SCORE + team], -1)


# ---- three-player modes (issue 12): scores per seat.
@nb.njit(cache=True)
def _check_winner(S, g, target):
    """Per-seat scores: the player who reached the target wins the match (two at once: the
    higher score, then the one nearer the mano); a song's points end the hand there."""
    P = S[g, NPLAYERS]
    mano = S[g, MANO]
    best = -1
    for i in range(P):
        p = (mano + i) % P
        if S[g, SCORE + p] >= target and (best < 0 or S[g, SCORE + p] > S[g, SCORE + best]):
            best = p
    if best < 0:
        return
    S[g, DONE] = 1
    S[g, WINNER] = best
    if S[g, HAND_OVER] == 0:
        S[g, HAND_OVER] = 1
        S[g, END_REASON] = END_MATCH_POINT
        _log(S, g, EV_HAND_END, -1, -1, END_MATCH_POINT, -1)
        _log(S, g, EV_MATCH_END, -1, best, S[g, SCORE + best], -1)


@nb.njit(cache=True)
def _award_seats(S, K, g, team, pts, source):
    """Per-seat scores: every player of side ``team`` scores ``pts`` (pata de gallo: "los
    puntos que obtengan se anotan individualmente para cada uno"; destantado: the player sheds
    them to the pot, nobody receives them)."""
    P = S[g, NPLAYERS]
    mano = S[g, MANO]
    for i in range(P):
        p = (mano + i) % P
        if S[g, TEAM + p] == team:
            S[g, SCORE + p] += pts
            S[g, HAND_PTS + p] += pts
            _log(S, g, EV_POINTS, p, team, pts, source)
    _check_winner(S, g, K[K_TARGET])


@nb.njit(cache=True)
def _pass(S, K, g, giver, taker, pts, source):
    """Destantado: ``giver`` passes ``pts`` tantos of his pile to ``taker``."""
    if pts <= 0 or S[g, DONE] == 1:
        return
    S[g, SCORE + giver] += pts
    S[g, HAND_PTS + giver] += pts
    S[g, SCORE + taker] -= pts
    S[g, HAND_PTS + taker] -= pts
    _log(S, g, EV_PASS, giver, taker, pts, source)
    _check_winner(S, g, K[K_TARGET])


FALTA_MALAS, FALTA_MATCH, FALTA_LEADER = 0, 1, 2


@nb.njit(cache=True)
def _falta_value(S, K, g, winner_team, rule):
    """Value of a falta envido / contraflor al resto won by ``winner_team``.

    ``FALTA_MALAS``: what the winner lacks if every side is in malas (the match), else what the
    leader lacks; ``FALTA_MATCH``: what the winner lacks; ``FALTA_LEADER``: what the leader lacks.
    """
    target = K[K_TARGET]
    # Scores by team, or by seat in the three-player modes (then the winning side's score is
    # its best player's).
    per_seat = K[K_MODE] != MODE_TEAMS
    n = S[g, NPLAYERS] if per_seat else S[g, NTEAMS]
    lead = S[g, SCORE]
    won = -1000000
    in_malas = True
    for t in range(n):
        if S[g, SCORE + t] > lead:
            lead = S[g, SCORE + t]
        if S[g, SCORE + t] > target // 2:
            in_malas = False
        if (S[g, TEAM + t] if per_seat else t) == winner_team and S[g, SCORE + t] > won:
            won = S[g, SCORE + t]
    if rule == FALTA_MATCH or (rule == FALTA_MALAS and K[K_BUENAS] == 1 and in_malas):
        return target - won
    return target - lead


@nb.njit(cache=True)
def _falta_envido_points(S, K, g, winner_team):
    """Points of an accepted falta envido won by ``winner_team``: the knob ``falta_points``
    when set (destantado: 6), else :func:`_falta_value` under the preset's ``falta_rule``."""
    if K[K_FALTA_POINTS] > 0:
        return K[K_FALTA_POINTS]
    return _falta_value(S, K, g, winner_team, FALTA_MALAS if K[K_FALTA] == 0 else FALTA_LEADER)


def falta_envido_points(tables: RuleTables, scores: np.ndarray) -> np.ndarray:
    """``int[n, 2]``: what an accepted falta envido is worth to team 0 / team 1 if it wins
    it, at team scores ``scores[n, 2]`` of a two-team game (the rule of :func:`_resolve_envido`,
    for tables and solvers such as :mod:`agents.solved_envido`)."""
    scores = np.asarray(scores, dtype=np.int32).reshape(-1, 2)
    S = new_state(len(scores), 2, scores)
    out = np.zeros((len(scores), 2), dtype=np.int32)
    for g in range(len(scores)):
        for t in range(2):
            out[g, t] = _falta_envido_points(S, tables.knobs, g, t)
    return out


@nb.njit(cache=True, inline="always")
def _beats(S, g, p, v, best, best_v):
    """Whether points ``v`` of seat ``p`` beat ``best_v`` of seat ``best`` (ties: nearer the mano)."""
    if v != best_v:
        return v > best_v
    P = S[g, NPLAYERS]
    mano = S[g, MANO]
    return (p - mano) % P < (best - mano) % P


@nb.njit(cache=True)
def _declare(S, g, pts_off, reveal, members):
    """Declare points around the table from the mano; returns the winning seat.

    The highest points win, ties going to the player nearer the mano.  A player speaks when his
    side is not winning so far and he beats the best declared; the others say "son buenas" and
    stay private.  Rounds repeat until nobody can speak, so a side's best hand always counts.
    Players with negative points (no flor) take no part, nor seats outside the bit mask
    ``members`` (destantado: who is in the envido).
    """
    HS = S[g, HAND_SEATS]
    mano = S[g, MANO]
    kind = 0 if pts_off == ENVIDO_PTS else 1
    best = -1
    best_v = -1
    spoke = 0
    changed = True
    while changed:
        changed = False
        p = mano
        for i in range(HS):
            p = mano if i == 0 else S[g, NEXT + p]
            v = S[g, pts_off + p]
            if v < 0 or p == best or (members >> p) & 1 == 0:
                continue
            if best < 0 or (S[g, TEAM + p] != S[g, TEAM + best] and _beats(S, g, p, v, best, best_v)):
                best = p
                best_v = v
                changed = True
                spoke |= 1 << p
                if reveal:
                    S[g, PUBLIC + p] = v
                    _log(S, g, EV_DECLARE, p, S[g, TEAM + p], v, kind)
    if reveal:
        p = mano
        for i in range(HS):      # the others said "son buenas": their points stay private
            p = mano if i == 0 else S[g, NEXT + p]
            if S[g, pts_off + p] >= 0 and (spoke >> p) & 1 == 0 and (members >> p) & 1 == 1:
                _log(S, g, EV_DECLARE, p, S[g, TEAM + p], -1, kind)
    return best


ALL_SEATS = (1 << P_MAX) - 1


@nb.njit(cache=True)
def _any_unsung_flor(S, K, g, team, exclude_team):
    """First seat (play order from mano) of the given team (-1 any) with a flor not yet sung."""
    if K[K_FLOR] == 0 or S[g, FLOR_DONE] == 1:
        return -1
    p = S[g, MANO]
    for i in range(S[g, HAND_SEATS]):
        p = S[g, MANO] if i == 0 else S[g, NEXT + p]
        t = S[g, TEAM + p]
        if S[g, FLOR_PTS + p] >= 0 and S[g, SUNG + p] == 0 and (team < 0 or t == team) \
                and t != exclude_team:
            return p
    return -1


@nb.njit(cache=True)
def _must_sing_flor(S, K, g, seat):
    """A player with flor sings it at his first action (unless a flor contest is on)."""
    return (K[K_FLOR] == 1 and S[g, FLOR_DONE] == 0 and S[g, FLOR_PTS + seat] >= 0
            and S[g, SUNG + seat] == 0 and S[g, ACTED + seat] == 0)


@nb.njit(cache=True)
def _can_open_envido(S, K, g, seat):
    if S[g, ENVIDO_CLOSED] == 1 or S[g, BAZA] != 0 or S[g, TRUCO_LEVEL] != 0:
        return False
    if _has_played_first(S, g, seat):
        return False
    if K[K_FLOR] == 1 and S[g, FLOR_PTS + seat] >= 0 and S[g, FLOR_DONE] == 0:
        return False  # a player with flor sings flor, never envido
    if S[g, TRUCO_PENDING] > 0:
        # El envido va primero: only the answerer of a first-level truco.
        return S[g, TRUCO_PENDING] == 1 and S[g, TRUCO_ANSWERER] == seat
    return S[g, TURN] == seat


# ----------------------------------------------------------------------------------------------
# Señas (issue 13; docs/rules.md section 13)


@nb.njit(cache=True)
def _may_sena(S, g, seat):
    """The seña window, for the player about to play a card (no song waiting for his answer):
    one seña per baza, before his card of that baza (he has not played in it: it is his
    turn), in a hand played by teams (not during a pica-pica duel), and only with a partner in
    the hand (pata de gallo: the pair, not the gallo)."""
    if S[g, PICA] == 1 or S[g, SENA + S[g, BAZA] * P_MAX + seat] >= 0:
        return False
    for q in range(S[g, NPLAYERS]):
        if q != seat and S[g, TEAM + q] == S[g, TEAM + seat]:
            return True
    return False


@nb.njit(cache=True, inline="always")
def sees_sena(S, g, viewer, signer, caught):
    """Whether ``viewer`` saw a seña of ``signer`` that the opponents of ``caught`` (a bit mask)
    caught: the signer and his partners always, an opponent when he caught it.  The one rule
    of who sees a seña (the encoders and :func:`truco_env.view.hand_events` ask it)."""
    return S[g, TEAM + viewer] == S[g, TEAM + signer] or ((caught >> viewer) & 1) == 1


@nb.njit(cache=True)
def _make_sena(S, g, seat, k, catch):
    """``seat`` makes seña ``k`` and keeps the turn; ``catch`` is the driver's draw (a bit per
    seat, from its seeded generator): the opponents among them caught it.  Nothing public
    changes (not ACTED, not the reads): an uncaught seña is invisible to the opponents."""
    caught = 0
    for q in range(S[g, NPLAYERS]):
        if S[g, TEAM + q] != S[g, TEAM + seat] and ((catch >> q) & 1) == 1:
            caught |= 1 << q
    i = S[g, BAZA] * P_MAX + seat
    S[g, SENA + i] = k
    S[g, SENA_CAUGHT + i] = caught
    _log(S, g, EV_SENA, seat, S[g, TEAM + seat], k, caught)


# ----------------------------------------------------------------------------------------------
# Legal actions


@nb.njit(cache=True, inline="always")
def _mask_one(S, K, envido_next, g, m):
    for a in range(NUM_ACTIONS):
        m[a] = False
    if S[g, HAND_OVER] == 1 or S[g, DONE] == 1:
        return
    if S[g, DISCARDING] == 1:      # pata de gallo: the gallo discards one of his four cards
        for k in range(4):
            m[A_DISCARD0 + k] = True
        return
    seat = S[g, ACTOR]
    fs = S[g, FLOR_STATE]
    if fs == FLOR_SUNG:            # the opponent with flor answers the flor
        m[A_FLOR] = True
        m[A_CONTRAFLOR] = True
        m[A_RESTO] = True
        m[A_ACHICO] = True
        return
    if fs == FLOR_CONTRA:
        m[A_QUIERO] = True
        m[A_NO_QUIERO] = True
        m[A_RESTO] = True
        return
    if fs == FLOR_RESTO:
        m[A_QUIERO] = True
        m[A_NO_QUIERO] = True
        return
    if _must_sing_flor(S, K, g, seat):
        m[A_FLOR] = True
        return
    alone = K[K_MODE] == MODE_DESTANTADO   # each answers for himself: no raise in an answer
    if S[g, ENVIDO_PENDING] == 1:
        m[A_QUIERO] = True
        m[A_NO_QUIERO] = True
        if alone:
            return
        chain = S[g, ENVIDO_CHAIN_ID]
        for j in range(3):
            if envido_next[chain, j] >= 0:
                m[A_ENVIDO + j] = True
        return
    if _can_open_envido(S, K, g, seat):
        m[A_ENVIDO] = True
        m[A_REAL] = True
        m[A_FALTA] = True
    pending = S[g, TRUCO_PENDING]
    if pending > 0:
        m[A_QUIERO] = True
        m[A_NO_QUIERO] = True
        if pending < 3 and not alone:
            m[A_TRUCO + pending] = True
        return
    # The player about to play a card.
    for k in range(3):
        if S[g, PLAYED + 3 * seat + k] < 0:
            m[A_PLAY0 + k] = True
    level = S[g, TRUCO_LEVEL]
    if level == 0:
        m[A_TRUCO] = True
    elif level < 3 and (S[g, TRUCO_CALLER] != seat if alone
                        else S[g, TRUCO_OWNER] == S[g, TEAM + seat]):
        m[A_TRUCO + level] = True
    m[A_MAZO] = True
    if K[K_SENAS] != 0 and _may_sena(S, g, seat):
        for k in range(K[K_SENA_N]):
            m[A_SENA0 + k] = True


@nb.njit(cache=True)
def _legal_mask(S, T, out):
    # The tables are unpacked once: per-game helpers take the arrays they read (a named tuple
    # passed per game costs about half the kernel's time).
    K = T.knobs
    envido_next = T.envido_next
    for g in range(S.shape[0]):
        _mask_one(S, K, envido_next, g, out[g])


def legal_mask(S: np.ndarray, tables: RuleTables, out: np.ndarray | None = None) -> np.ndarray:
    """``bool[N, A]``: the legal actions of the player to act in each game (none when over)."""
    if out is None:
        out = np.zeros((S.shape[0], NUM_ACTIONS), dtype=np.bool_)
    _legal_mask(S, tables, out)
    return out


# ----------------------------------------------------------------------------------------------
# Step


@nb.njit(cache=True)
def _hand_winner(S, g):
    """Team that has won the hand from the finished bazas, or -1 while undecided."""
    nb_ = S[g, BAZA] + 1
    wins0 = 0
    wins1 = 0
    parda = False
    first = -1
    for b in range(nb_):
        r = S[g, RESULT + b]
        if r == -1:
            parda = True
        elif r >= 0:
            if first < 0:
                first = r
            if r == 0:
                wins0 += 1
            else:
                wins1 += 1
    if wins0 >= 2:
        return 0
    if wins1 >= 2:
        return 1
    if parda and first >= 0:
        return first
    if nb_ == 3:  # three pardas
        return S[g, TEAM + S[g, MANO]]
    return -1


@nb.njit(cache=True)
def _first_in_hand(S, g, seat):
    """``seat``, or the next seat after it still in the hand (destantado)."""
    P = S[g, NPLAYERS]
    while S[g, OUT + seat] == 1:
        seat = (seat + 1) % P
    return seat


@nb.njit(cache=True)
def _hand_winner_alone(S, g):
    """Destantado (each alone): the seat that has won the hand from the finished bazas, or -1.

    As section 2 with seats for teams: two bazas; the first baza and then a parda; a parda and
    then the next decided baza; and, among three, three bazas won by three players: the winner
    of the first ("la primera baza ... es la que vale más").  Three pardas: the mano, or the
    first player after him still in the hand.
    """
    P = S[g, NPLAYERS]
    first = -1
    parda = False
    finished = 0
    for b in range(3):
        r = S[g, RESULT + b]
        if r == -2:
            break
        finished += 1
        if r == -1:
            parda = True
            continue
        if first < 0:
            first = r
        for bb in range(b):
            if S[g, RESULT + bb] == r:
                return r
    if parda and first >= 0:
        return first
    if finished == 3:
        if first >= 0:
            return first
        return _first_in_hand(S, g, S[g, MANO])
    return -1


@nb.njit(cache=True)
def _end_hand(S, T, g, team, pts, reason):
    """The hand is over: ``team`` wins it and scores ``pts`` (the truco's worth).

    Destantado: ``team`` is the winner's seat; he passes ``pts`` to each player still in the
    hand, or sheds them to the pot when nobody else is (docs/rules.md section 12).
    """
    if S[g, PICA] == 1:
        _end_duel(S, T, g, team, pts, reason)
        return
    S[g, HAND_OVER] = 1
    S[g, END_REASON] = reason
    P = S[g, NPLAYERS]
    if T.knobs[K_MODE] == MODE_DESTANTADO:
        S[g, NEXT_MANO] = team        # "el jugador que gana la mano es el que empieza"
        if S[g, NOUT] == P - 1:
            _award(S, T.knobs, g, team, pts, SRC_TRUCO)
        else:
            for i in range(1, P):
                q = (team + i) % P
                if S[g, OUT + q] == 0:
                    _pass(S, T.knobs, g, team, q, pts, SRC_TRUCO)
    else:
        S[g, NEXT_MANO] = (S[g, MANO] + 1) % P
        _award(S, T.knobs, g, team, pts, SRC_TRUCO)
    _log(S, g, EV_HAND_END, -1, team, reason, -1)
    if S[g, DONE] == 1:
        _log(S, g, EV_MATCH_END, -1, S[g, WINNER], S[g, SCORE + S[g, WINNER]], -1)


@nb.njit(cache=True)
def _play_card(S, T, g, seat, k):
    b = S[g, BAZA]
    c = S[g, HAND + 3 * seat + k]
    r = S[g, HRANK + 3 * seat + k]
    S[g, PLAYED + 3 * seat + k] = b
    S[g, BAZA_CARD + b * P_MAX + seat] = c
    best = S[g, BEST_SEAT]
    if best < 0 or r > S[g, BEST_RANK]:
        S[g, BEST_SEAT] = seat
        S[g, BEST_RANK] = r
        S[g, BEST_TIE] = 0
    elif r == S[g, BEST_RANK] and S[g, TEAM + seat] != S[g, TEAM + best]:
        S[g, BEST_TIE] = 1
    S[g, NCARDS] += 1
    if S[g, NCARDS] < S[g, HAND_SEATS] - S[g, NOUT]:
        nxt = S[g, NEXT + seat]
        while S[g, OUT + nxt] == 1:   # destantado: seats out of the hand are skipped
            nxt = S[g, NEXT + nxt]
        S[g, TURN] = nxt
        S[g, ACTOR] = nxt
        return
    _complete_baza(S, T, g)


@nb.njit(cache=True)
def _complete_baza(S, T, g):
    """Every player in the hand has played in the baza in progress: its result, the hand's
    end if the bazas decide it, else the next baza."""
    P = S[g, NPLAYERS]
    b = S[g, BAZA]
    if S[g, BEST_TIE] == 1:
        S[g, RESULT + b] = -1
        leader = S[g, LEAD]          # parda: who opened the tied baza leads again
        while S[g, OUT + leader] == 1:   # destantado: ... or the next still in the hand
            leader = (leader + 1) % P
        _log(S, g, EV_BAZA, -1, -1, b, -1)
    else:
        S[g, RESULT + b] = S[g, TEAM + S[g, BEST_SEAT]]
        leader = S[g, BEST_SEAT]
        _log(S, g, EV_BAZA, leader, S[g, RESULT + b], b, -1)
    w = _hand_winner_alone(S, g) if T.knobs[K_MODE] == MODE_DESTANTADO else _hand_winner(S, g)
    if w >= 0:
        _end_hand(S, T, g, w, T.truco_quiero[S[g, TRUCO_LEVEL]], END_BAZAS)
        return
    S[g, BAZA] = b + 1
    S[g, BAZA_LEAD + b + 1] = leader
    S[g, LEAD] = leader
    S[g, TURN] = leader
    S[g, ACTOR] = leader
    S[g, NCARDS] = 0
    S[g, BEST_SEAT] = -1
    S[g, BEST_RANK] = -1
    S[g, BEST_TIE] = 0


@nb.njit(cache=True)
def _resolve_envido(S, T, g):
    K = T.knobs
    winner = _declare(S, g, ENVIDO_PTS, True, ALL_SEATS)
    team = S[g, TEAM + winner]
    S[g, ENVIDO_WINNER] = winner
    pts = T.envido_quiero[S[g, ENVIDO_CHAIN_ID]]
    if pts < 0:
        pts = _falta_envido_points(S, K, g, team)
    S[g, ENVIDO_PENDING] = 0
    _award(S, K, g, team, pts, SRC_ENVIDO)


@nb.njit(cache=True)
def _flor_winner_team(S, g):
    return S[g, TEAM + _declare(S, g, FLOR_PTS, True, ALL_SEATS)]


@nb.njit(cache=True)
def _end_flor(S, g):
    S[g, FLOR_STATE] = FLOR_NONE
    S[g, FLOR_DONE] = 1
    _resume(S, g)


@nb.njit(cache=True)
def _sing_flor(S, K, g, seat):
    S[g, SUNG + seat] = 1
    S[g, ENVIDO_CLOSED] = 1
    if S[g, ENVIDO_PENDING] == 1:       # a sung flor cancels the envido
        S[g, ENVIDO_PENDING] = 0
        S[g, ENVIDO_CHAIN_ID] = 0
    team = S[g, TEAM + seat]
    if S[g, FLOR_STATE] == FLOR_SUNG:  # answering flor with flor: compare, best takes it
        _award(S, K, g, _flor_winner_team(S, g), K[K_FLOR_VS], SRC_FLOR)
        _end_flor(S, g)
        return
    opp = _any_unsung_flor(S, K, g, -1, team)
    if opp < 0:
        # Also an opponent who already sang (only possible after a contest, which ends flor).
        if K[K_FLOR_EACH] == 1 or S[g, FLOR_SCORED + team] == 0:
            _award(S, K, g, team, K[K_FLOR_PTS], SRC_FLOR)
        S[g, FLOR_SCORED + team] += 1
        _resume(S, g)
        return
    # The nearest opponent with flor after the singer answers.
    q = seat
    for i in range(1, S[g, HAND_SEATS]):
        q = S[g, NEXT + q]
        if S[g, TEAM + q] != team and S[g, FLOR_PTS + q] >= 0:
            opp = q
            break
    S[g, FLOR_STATE] = FLOR_SUNG
    S[g, FLOR_FIRST] = seat
    S[g, FLOR_OPP] = opp
    S[g, FLOR_CALLER] = seat
    S[g, ACTOR] = opp


# ---- three-player modes (issue 12)
@nb.njit(cache=True)
def _discard(S, K, g, seat, k):
    """Pata de gallo: the gallo discards slot ``k`` of his four cards (3 = the fourth); the
    three he keeps stay in their order in slots 0..2, and the hand begins with the mano."""
    if k == 3:
        S[g, DISCARD] = S[g, FOURTH]
    else:
        S[g, DISCARD] = S[g, HAND + 3 * seat + k]
        for i in range(k, 2):
            S[g, HAND + 3 * seat + i] = S[g, HAND + 3 * seat + i + 1]
        S[g, HAND + 3 * seat + 2] = S[g, FOURTH]
    S[g, FOURTH] = -1
    S[g, DISCARDING] = 0
    S[g, ACTED + seat] = 0        # discarding is not acting in the hand (flor is still due)
    _hand_values(S, K, g)
    S[g, ACTOR] = S[g, TURN]


@nb.njit(cache=True, inline="always")
def _next_in(S, g, seat, mask):
    """The next seat after ``seat`` in play order whose bit is set in ``mask`` (-1 none)."""
    P = S[g, NPLAYERS]
    for i in range(1, P):
        q = (seat + i) % P
        if (mask >> q) & 1 == 1:
            return q
    return -1


@nb.njit(cache=True)
def _others_in_hand(S, g, seat):
    P = S[g, NPLAYERS]
    mask = 0
    for p in range(P):
        if p != seat and S[g, OUT + p] == 0:
            mask |= 1 << p
    return mask


@nb.njit(cache=True)
def _resolve_envido_alone(S, T, g):
    """Destantado: the envido has been answered by everyone.  Nobody accepted: the caller
    sheds the no quiero points to the pot.  Else the best envido among the caller and those
    who accepted passes the points to each of the others (falta envido: ``falta_points``)."""
    K = T.knobs
    caller = S[g, ENVIDO_CALLER]
    chain = S[g, ENVIDO_CHAIN_ID]
    members = S[g, ENV_IN]
    S[g, ENVIDO_PENDING] = 0
    if members == 1 << caller:
        _award(S, K, g, S[g, TEAM + caller], T.envido_no_quiero[chain], SRC_ENVIDO)
        return
    winner = _declare(S, g, ENVIDO_PTS, True, members)
    S[g, ENVIDO_WINNER] = winner
    pts = T.envido_quiero[chain]
    if pts < 0:
        pts = _falta_envido_points(S, K, g, S[g, TEAM + winner])
    P = S[g, NPLAYERS]
    for i in range(1, P):
        q = (winner + i) % P
        if (members >> q) & 1 == 1:
            _pass(S, K, g, winner, q, pts, SRC_ENVIDO)


@nb.njit(cache=True)
def _settle_alone(S, T, g):
    """Destantado, after a player left the hand: every baza is judged again among the players
    still in it (the cards of who left no longer count); the hand ends if that decides it,
    the baza in progress completes if everyone in the hand has played in it, else the turn
    passes to the next player still in the hand."""
    P = S[g, NPLAYERS]
    cur = S[g, BAZA]
    for b in range(cur + 1):
        best = -1
        rank = -1
        tie = 0
        n = 0
        lead = S[g, BAZA_LEAD + b]
        for i in range(P):
            p = (lead + i) % P
            if S[g, OUT + p] == 1 or S[g, BAZA_CARD + b * P_MAX + p] < 0:
                continue
            r = -1
            for k in range(3):
                if S[g, PLAYED + 3 * p + k] == b:
                    r = S[g, HRANK + 3 * p + k]
            n += 1
            if best < 0 or r > rank:
                best = p
                rank = r
                tie = 0
            elif r == rank:
                tie = 1
        if b < cur:
            S[g, RESULT + b] = -1 if tie == 1 else S[g, TEAM + best]
        else:
            S[g, NCARDS] = n
            S[g, BEST_SEAT] = best
            S[g, BEST_RANK] = rank
            S[g, BEST_TIE] = tie
    w = _hand_winner_alone(S, g)
    if w >= 0:
        _end_hand(S, T, g, w, T.truco_quiero[S[g, TRUCO_LEVEL]], END_BAZAS)
        return
    if S[g, NCARDS] == P - S[g, NOUT]:
        _complete_baza(S, T, g)
        return
    S[g, TURN] = _first_in_hand(S, g, S[g, TURN])
    _resume(S, g)


@nb.njit(cache=True)
def _step_alone(S, T, g, seat, a):
    """Destantado's songs, answers and mazo (each player alone, docs/rules.md section 12).

    A song is answered by each other player still in the hand, in play order, each for
    himself (``quiero`` or ``no_quiero``, no raise in an answer).  Who rejects a truco song,
    or goes to the mazo, leaves the hand.
    """
    P = S[g, NPLAYERS]
    if a >= A_ENVIDO and a <= A_FALTA:
        S[g, ENVIDO_CHAIN_ID] = T.envido_next[0, a - A_ENVIDO]
        S[g, ENVIDO_CALLER] = seat
        S[g, ENVIDO_PENDING] = 1
        S[g, ENVIDO_CLOSED] = 1
        S[g, ENV_IN] = 1 << seat
        S[g, ENV_LEFT] = _others_in_hand(S, g, seat)
        S[g, ENVIDO_ANSWERER] = _next_in(S, g, seat, S[g, ENV_LEFT])
        S[g, ACTOR] = S[g, ENVIDO_ANSWERER]
    elif a >= A_TRUCO and a <= A_VALE4:
        S[g, TRUCO_PENDING] = a - A_TRUCO + 1
        S[g, TRUCO_CALLER] = seat
        S[g, TRU_LEFT] = _others_in_hand(S, g, seat)
        S[g, TRUCO_ANSWERER] = _next_in(S, g, seat, S[g, TRU_LEFT])
        S[g, ACTOR] = S[g, TRUCO_ANSWERER]
    elif a == A_QUIERO or a == A_NO_QUIERO:
        if S[g, ENVIDO_PENDING] == 1:
            S[g, ENV_LEFT] &= ~(1 << seat)
            if a == A_QUIERO:
                S[g, ENV_IN] |= 1 << seat
            if S[g, ENV_LEFT] != 0:
                S[g, ENVIDO_ANSWERER] = _next_in(S, g, seat, S[g, ENV_LEFT])
                S[g, ACTOR] = S[g, ENVIDO_ANSWERER]
            else:
                _resolve_envido_alone(S, T, g)
                _resume(S, g)
        else:
            S[g, TRU_LEFT] &= ~(1 << seat)
            if a == A_NO_QUIERO:
                S[g, OUT + seat] = 1
                S[g, NOUT] += 1
            if S[g, TRU_LEFT] != 0:
                S[g, TRUCO_ANSWERER] = _next_in(S, g, seat, S[g, TRU_LEFT])
                S[g, ACTOR] = S[g, TRUCO_ANSWERER]
            else:
                pending = S[g, TRUCO_PENDING]
                S[g, TRUCO_PENDING] = 0
                if S[g, NOUT] == P - 1:     # nobody accepted: the song's winner sheds to the pot
                    _end_hand(S, T, g, S[g, TRUCO_CALLER], T.truco_no_quiero[pending],
                              END_NO_QUIERO)
                else:
                    S[g, TRUCO_LEVEL] = pending
                    _settle_alone(S, T, g)
    elif a == A_MAZO:
        S[g, OUT + seat] = 1
        S[g, NOUT] += 1
        if S[g, NOUT] == P - 1:
            _end_hand(S, T, g, _first_in_hand(S, g, seat), T.truco_quiero[S[g, TRUCO_LEVEL]],
                      END_MAZO)
        else:
            _settle_alone(S, T, g)


@nb.njit(cache=True, inline="always")
def _step_one(S, T, g, a, pts_out, catch):
    K = T.knobs
    seat = S[g, ACTOR]
    team = S[g, TEAM + seat]
    if a >= A_SENA0:
        _make_sena(S, g, seat, a - A_SENA0, catch)
        for t in range(T_MAX):
            pts_out[t] = 0
        return
    for t in range(T_MAX):
        pts_out[t] = S[g, SCORE + t]
    if a >= A_DISCARD0:
        _log(S, g, EV_DISCARD, seat, team, -1, -1)
    else:
        _log(S, g, EV_ACTION, seat, team, a, S[g, HAND + 3 * seat + a] if a <= A_PLAY2 else -1)
    S[g, ACTED + seat] = 1
    r = READS + READ_N * seat
    if (S[g, TRUCO_PENDING] > 0 and S[g, ENVIDO_PENDING] == 0 and S[g, FLOR_STATE] == FLOR_NONE
            and team != S[g, TEAM + S[g, TRUCO_CALLER]]
            and (a == A_QUIERO or a == A_NO_QUIERO or (a >= A_TRUCO and a <= A_VALE4))):
        S[g, r + READ_TRUCO_ANS] += 1      # an answer to the other side's truco-family song
        if a == A_NO_QUIERO:
            S[g, r + READ_TRUCO_FOLD] += 1
    if a >= A_ENVIDO and a <= A_FALTA:
        S[g, r + READ_ENVIDO] += 1
    elif a >= A_TRUCO and a <= A_VALE4:
        S[g, r + READ_TRUCO] += 1
    elif a == A_QUIERO:
        S[g, r + READ_QUIERO] += 1
    elif a == A_NO_QUIERO:
        S[g, r + READ_NO_QUIERO] += 1
    elif a == A_MAZO:
        S[g, r + READ_MAZO] += 1
    fs = S[g, FLOR_STATE]

    if a >= A_DISCARD0:
        _discard(S, K, g, seat, a - A_DISCARD0)

    elif a >= A_ENVIDO and K[K_MODE] == MODE_DESTANTADO:
        _step_alone(S, T, g, seat, a)

    elif a <= A_PLAY2:
        _play_card(S, T, g, seat, a - A_PLAY0)

    elif a == A_FLOR:
        _sing_flor(S, K, g, seat)

    elif a == A_CONTRAFLOR:
        S[g, SUNG + seat] = 1
        S[g, FLOR_STATE] = FLOR_CONTRA
        S[g, FLOR_CALLER] = seat
        S[g, ACTOR] = S[g, FLOR_FIRST]

    elif a == A_RESTO:
        S[g, SUNG + seat] = 1
        S[g, FLOR_STATE] = FLOR_RESTO
        S[g, FLOR_CALLER] = seat
        S[g, ACTOR] = S[g, FLOR_OPP] if seat == S[g, FLOR_FIRST] else S[g, FLOR_FIRST]

    elif a == A_ACHICO:
        S[g, SUNG + seat] = 1
        _award(S, K, g, S[g, TEAM + S[g, FLOR_FIRST]], K[K_ACHICO], SRC_FLOR)
        _end_flor(S, g)

    elif a >= A_ENVIDO and a <= A_FALTA:
        j = a - A_ENVIDO
        S[g, ENVIDO_CHAIN_ID] = T.envido_next[S[g, ENVIDO_CHAIN_ID], j]
        S[g, ENVIDO_CALLER] = seat
        opening = S[g, ENVIDO_PENDING] == 0
        S[g, ENVIDO_PENDING] = 1
        S[g, ENVIDO_CLOSED] = 1
        S[g, ENVIDO_ANSWERER] = _next_opponent(S, g, seat)
        S[g, ACTOR] = S[g, ENVIDO_ANSWERER]
        if opening:
            # Flor goes before envido: anyone holding an unsung flor sings it now.
            p = _any_unsung_flor(S, K, g, -1, -1)
            if p >= 0:
                S[g, ACTOR] = p

    elif a >= A_TRUCO and a <= A_VALE4:
        level = a - A_TRUCO + 1
        if S[g, TRUCO_PENDING] > 0:   # raising accepts the pending level
            S[g, TRUCO_LEVEL] = S[g, TRUCO_PENDING]
        S[g, TRUCO_PENDING] = level
        S[g, TRUCO_CALLER] = seat
        S[g, TRUCO_ANSWERER] = _next_opponent(S, g, seat)
        S[g, ACTOR] = S[g, TRUCO_ANSWERER]

    elif a == A_QUIERO or a == A_NO_QUIERO:
        accept = a == A_QUIERO
        if fs == FLOR_CONTRA or fs == FLOR_RESTO:
            if accept:
                w = _flor_winner_team(S, g)
                if fs == FLOR_CONTRA:
                    pts = K[K_CF_Q]
                else:
                    pts = _falta_value(S, K, g, w, FALTA_MATCH if K[K_RESTO] == 1 else FALTA_LEADER)
                _award(S, K, g, w, pts, SRC_FLOR)
            else:
                pts = K[K_CF_NQ] if fs == FLOR_CONTRA else K[K_RESTO_NQ]
                _award(S, K, g, S[g, TEAM + S[g, FLOR_CALLER]], pts, SRC_FLOR)
            _end_flor(S, g)
        elif S[g, ENVIDO_PENDING] == 1:
            if accept:
                _resolve_envido(S, T, g)
            else:
                S[g, ENVIDO_PENDING] = 0
                _award(S, K, g, S[g, TEAM + S[g, ENVIDO_CALLER]],
                       T.envido_no_quiero[S[g, ENVIDO_CHAIN_ID]], SRC_ENVIDO)
            _resume(S, g)
        else:  # truco ladder
            pending = S[g, TRUCO_PENDING]
            S[g, TRUCO_PENDING] = 0
            if accept:
                S[g, TRUCO_LEVEL] = pending
                S[g, TRUCO_OWNER] = team
                _resume(S, g)
            else:
                _end_hand(S, T, g, S[g, TEAM + S[g, TRUCO_CALLER]], T.truco_no_quiero[pending],
                          END_NO_QUIERO)

    elif a == A_MAZO:
        # The whole side gives up; the other side scores the hand's current value.
        _end_hand(S, T, g, S[g, TEAM + _next_opponent(S, g, seat)],
                  T.truco_quiero[S[g, TRUCO_LEVEL]], END_MAZO)

    for t in range(T_MAX):
        pts_out[t] = S[g, SCORE + t] - pts_out[t]


@nb.njit(cache=True)
def _step(S, T, actions, pts, catches):
    for g in range(S.shape[0]):
        a = actions[g]
        if a < 0 or S[g, HAND_OVER] == 1:
            for t in range(T_MAX):
                pts[g, t] = 0
            continue
        _step_one(S, T, g, a, pts[g], catches[g])


def step(S: np.ndarray, tables: RuleTables, actions: np.ndarray, pts: np.ndarray | None = None,
         catches: np.ndarray | None = None) -> np.ndarray:
    """Play ``actions[g]`` (assumed legal; -1 skips a game) in every game.

    ``catches[g]`` (señas, issue 13): where ``actions[g]`` is a seña, a bit per seat drawn by
    the driver (seat q's bit: q would catch it); the core keeps the opponents' bits.  ``None``:
    nobody catches anything.

    Returns ``int32[N, T_MAX]``: the points each team scored in this step.  Afterwards
    ``S[:, HAND_OVER]`` flags games whose hand ended (the caller deals the next hand) and
    ``S[:, DONE]`` games whose match ended.
    """
    if pts is None:
        pts = np.zeros((S.shape[0], T_MAX), dtype=np.int32)
    if catches is None:
        catches = np.zeros(S.shape[0], dtype=np.int32)
    _step(S, tables, np.asarray(actions, dtype=np.int32), pts,
          np.asarray(catches, dtype=np.int32))
    return pts
