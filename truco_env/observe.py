"""Observation encoders: flat float32 vectors built from named pieces.

Two encoders, both for any seat and never showing another player's hidden cards:

* ``compact``: what is on the table now, the betting state, the score and the seat relative
  to the mano (:data:`COMPACT_PIECES`);
* ``infostate``: the perfect-recall information state: the compact pieces plus every event of
  the hand in order (:data:`INFOSTATE_PIECES`).

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
from .rules import ACTIONS, K_BUENAS, K_TARGET, NUM_ACTIONS

P6 = C.P_MAX
#: Truco ranks run 0..13 (4 .. 1e), piezas 14..18 (uruguayo); hand_rank = (rank + 1) / 19.
RANK_SCALE = float(C.NUM_RANKS)
#: Envido reaches 37 and flor 47 with piezas (uruguayo); points are scaled by 50.
POINTS_SCALE = 50.0
EVENT_SIZE = P6 + NUM_ACTIONS + NUM_CARDS
#: Actions of the hand kept in the infostate's history (a hand has fewer).
HISTORY_MAX = 64

COMPACT_PIECES: tuple[tuple[str, int, str], ...] = (
    ("seat_from_mano", P6, "one-hot: my seat counted from the mano (0 = I am mano)"),
    ("players", P6, "one-hot at index players-1"),
    ("to_act", 2, "[I am to act, I am answering a song]"),
    ("hand", 3 * NUM_CARDS, "per slot k: one-hot of my card in slot k, zero once played"),
    ("hand_rank", 3, "per slot: (truco rank + 1) / 19 of my card (ranks 0..13, piezas "
                     "14..18), zero once played"),
    ("my_envido", 1, "my envido points / 50"),
    ("my_flor", 1, "my flor points / 50, zero without flor"),
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
)
INFOSTATE_PIECES: tuple[tuple[str, int, str], ...] = COMPACT_PIECES + (
    ("history", HISTORY_MAX * EVENT_SIZE,
     f"per action of the hand, in order ({HISTORY_MAX} max): relative seat one-hot (6), action "
     f"one-hot ({NUM_ACTIONS}), card played one-hot (40)"),
)


#: Named parts of pieces: ``piece -> ((sub-field, size), ...)`` in layout order, and the shape
#: a piece's view takes (after the batch axes).  ``Encoder.views(obs)`` returns them by name,
#: e.g. ``views["truco.level"]`` or ``views["hand"]`` of shape ``[..., 3, 40]``.
SUBFIELDS: dict[str, tuple[tuple[str, int], ...]] = {
    "to_act": (("acting", 1), ("answering", 1)),
    "truco": (("level", 4), ("pending", 4), ("owner", 2), ("caller", 2)),
    "envido": (("chain", 12), ("pending", 1), ("caller", 2), ("closed", 1)),
    "flor": (("state", 4), ("sung", 2), ("over", 1)),
    "public_points": (("mine", 1), ("theirs", 1)),
    "score": (("mine", 1), ("theirs", 1), ("mine_buenas", 1), ("theirs_buenas", 1),
              ("lacks", 1)),
    "match": (("target", 1), ("buenas", 1)),
}
SHAPES: dict[str, tuple[int, ...]] = {
    "hand": (3, NUM_CARDS),
    "baza_results": (3, 3),        # per baza: [mine, theirs, parda]
    "current_baza": (P6, NUM_CARDS),
}


def _offsets(pieces):
    out, pos = {}, 0
    for name, size, _ in pieces:
        out[name] = (pos, size)
        pos += size
    return out, pos


_CO, COMPACT_SIZE = _offsets(COMPACT_PIECES)
_IO, INFOSTATE_SIZE = _offsets(INFOSTATE_PIECES)
O_SEAT = _CO["seat_from_mano"][0]; O_PLAYERS = _CO["players"][0]; O_TOACT = _CO["to_act"][0]
O_HAND = _CO["hand"][0]; O_HRANK = _CO["hand_rank"][0]; O_ENV = _CO["my_envido"][0]
O_FLOR = _CO["my_flor"][0]; O_BAZA = _CO["baza"][0]; O_RES = _CO["baza_results"][0]
O_CUR = _CO["current_baza"][0]; O_PLAYED = _CO["played_cards"][0]; O_TRUCO = _CO["truco"][0]
O_ENVIDO = _CO["envido"][0]; O_FLORS = _CO["flor"][0]; O_PUB = _CO["public_points"][0]
O_SCORE = _CO["score"][0]; O_MUESTRA = _CO["muestra"][0]; O_MATCH = _CO["match"][0]
O_HIST = _IO["history"][0]


@nb.njit(cache=True)
def _encode(S, K, g, seat, o, history):
    for i in range(o.shape[0]):
        o[i] = 0.0
    P = S[g, C.NPLAYERS]
    me = S[g, C.TEAM + seat]
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
                o[O_PLAYED + c] = 1.0
                if bb == b:
                    o[O_CUR + 40 * ((p - seat) % P) + c] = 1.0
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
    mine = S[g, C.SCORE + me]
    theirs = 0
    for t in range(S[g, C.NTEAMS]):
        if t != me and S[g, C.SCORE + t] > theirs:
            theirs = S[g, C.SCORE + t]
    o[O_SCORE] = min(mine, T) / T        # scores are not capped; the feature is
    o[O_SCORE + 1] = min(theirs, T) / T
    o[O_SCORE + 2] = 1.0 if mine > T // 2 else 0.0
    o[O_SCORE + 3] = 1.0 if theirs > T // 2 else 0.0
    o[O_SCORE + 4] = max(0, T - max(mine, theirs)) / T
    if S[g, C.MUESTRA] >= 0:
        o[O_MUESTRA + S[g, C.MUESTRA]] = 1.0
    o[O_MATCH] = T / 30.0
    o[O_MATCH + 1] = K[K_BUENAS]
    if history:
        e = 0
        for i in range(S[g, C.LOG_LEN]):
            kind, q, _, a, card = C.unpack_event(S[g, C.LOG + i])
            if kind != C.EV_ACTION or e >= HISTORY_MAX:
                continue
            base = O_HIST + e * EVENT_SIZE
            o[base + (q - seat) % P] = 1.0
            o[base + P6 + a] = 1.0
            if a <= 2:
                o[base + P6 + NUM_ACTIONS + card] = 1.0
            e += 1


@nb.njit(cache=True)
def _encode_batch(S, K, seats, out, history):
    for g in range(S.shape[0]):
        _encode(S, K, g, seats[g], out[g], history)


class Encoder:
    """A named-piece observation layout.

    >>> enc = Encoder("compact")
    >>> enc.size == sum(size for _, size, _ in COMPACT_PIECES)
    True
    """

    def __init__(self, kind: str = "compact"):
        if kind not in ("compact", "infostate"):
            raise ValueError(f"unknown observation {kind!r}; expected 'compact' or 'infostate'")
        self.kind = kind
        self.pieces = COMPACT_PIECES if kind == "compact" else INFOSTATE_PIECES
        self.offsets, self.size = _offsets(self.pieces)
        self._history = kind == "infostate"

    def piece(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The slice of ``obs`` (last axis) that holds piece ``name``."""
        if name not in self.offsets:
            raise ValueError(f"unknown piece {name!r}; pieces: {list(self.offsets)}")
        start, size = self.offsets[name]
        return obs[..., start:start + size]

    def views(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Every piece and sub-field of ``obs`` (any leading batch axes) by name, as views.

        Pieces of :data:`SHAPES` are reshaped (``"hand"``: ``[..., 3, 40]``); sub-fields of
        :data:`SUBFIELDS` are ``"piece.sub"`` (size-1 sub-fields drop their last axis).

        >>> enc = Encoder("compact")
        >>> v = enc.views(np.zeros((4, enc.size), np.float32))
        >>> v["hand"].shape, v["truco.level"].shape, v["score.lacks"].shape
        ((4, 3, 40), (4, 4), (4,))
        """
        lead = obs.shape[:-1]
        out: dict[str, np.ndarray] = {}
        for name, (start, size) in self.offsets.items():
            part = obs[..., start:start + size]
            out[name] = part.reshape(lead + SHAPES[name]) if name in SHAPES else part
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
        _encode_batch(S, tables.knobs, np.asarray(seats, dtype=np.int32), out, self._history)
        return out

    def encode_one(self, S: np.ndarray, tables: dict, g: int, seat: int,
                   out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.zeros(self.size, dtype=np.float32)
        _encode(S, tables.knobs, g, seat, out, self._history)
        return out

    def layout_table(self) -> str:
        """The layout as a Markdown table (index range, piece, meaning)."""
        rows = ["| index | piece | meaning |", "|---|---|---|"]
        for name, size, meaning in self.pieces:
            start, _ = self.offsets[name]
            rows.append(f"| {start}..{start + size - 1} | `{name}` | {meaning} |")
        return "\n".join(rows)


for _name, _subs in SUBFIELDS.items():   # the sub-fields tile their piece exactly
    assert sum(n for _, n in _subs) == _CO[_name][1], _name

__all__ = ["Encoder", "SUBFIELDS", "SHAPES", "COMPACT_PIECES", "INFOSTATE_PIECES", "COMPACT_SIZE", "INFOSTATE_SIZE",
           "ACTIONS"]
