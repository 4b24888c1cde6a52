"""Hand strength: the probability that a hand wins against a random hand, computed exactly.

One measure shared by the heuristic agent and the bluff analytics of ``evaluate.py``:

    strength(hand) = P(win the hand) + 1/2 P(three pardas)

for a 1v1 hand in which the bazas pair the cards best-vs-best, middle-vs-middle and
worst-vs-worst, against an opponent hand drawn uniformly from the other cards (the muestra
excluded).  It is enumerated over multisets of truco ranks with their card multiplicities, so it
is exact for that model, per muestra (piezas rank 14..18 as in the core).  Who wins a hand from
its baza results is read from the rules core itself (:func:`hand_outcome`), never re-decided.

>>> s, pct = hand_strength("1e 1b 7e"); round(s, 3), round(pct, 3) > 0.99
(1.0, True)
"""
from __future__ import annotations

import itertools
from math import comb
from typing import Sequence

import numpy as np

from . import core as C
from .cards import NUM_CARDS, parse_card

#: Baza outcome codes, from my team's side.
WIN, LOSE, PARDA = 0, 1, 2
R_ALL = C.NUM_RANKS                  # 19 rank tiers: 14 plain + 5 piezas


def hand_outcome(outcomes: Sequence[int]) -> float:
    """Who wins a hand whose bazas end ``outcomes`` (WIN/LOSE/PARDA for team 0, in order).

    Returns 1.0 (team 0), 0.0 (team 1) or -1.0 (three pardas: the mano's team).  Asks the
    rules core (``core._hand_winner``) after each baza, so the rule lives in one place.
    """
    winners = []
    for mano in (0, 1):
        S = C.new_state(1, 2)
        S[0, C.MANO] = mano
        w = -1
        for b, o in enumerate(outcomes):
            S[0, C.RESULT + b] = (0, 1, -1)[o]
            S[0, C.BAZA] = b
            w = C._hand_winner(S, 0)
            if w >= 0:
                break
        winners.append(w)
    if winners[0] != winners[1]:
        return -1.0
    return 1.0 if winners[0] == 0 else 0.0


#: All 27 sequences of three baza outcomes (code = o0 * 9 + o1 * 3 + o2) and who wins them.
OUTCOME_CODES = np.array(list(itertools.product(range(3), repeat=3)), dtype=np.int64)
_RESULT = np.array([hand_outcome(tuple(o)) for o in OUTCOME_CODES])
#: 1 where my team wins outright, and 1 where the mano's team wins (three pardas).
OUTCOME_MINE = (_RESULT == 1.0).astype(np.float64)
OUTCOME_MANO = (_RESULT == -1.0).astype(np.float64)


def card_ranks(muestra: int = -1) -> np.ndarray:
    """Truco rank of every card id (piezas of ``muestra`` ranked 14..18, as in the core)."""
    return np.array([C.card_rank(muestra, c) for c in range(NUM_CARDS)], dtype=np.int64)


_COMB = np.array([[comb(n, k) for k in range(4)] for n in range(5)], dtype=np.float64)
_TRIPLES = np.array([t for t in itertools.product(range(R_ALL), repeat=3)
                     if t[0] >= t[1] >= t[2]], dtype=np.int64)          # sorted, best first
_TRIPLE_K = np.zeros((len(_TRIPLES), R_ALL), dtype=np.int64)
for _i, _t in enumerate(_TRIPLES):
    for _r in _t:
        _TRIPLE_K[_i, _r] += 1
_KEY = _TRIPLES[:, 0] * R_ALL * R_ALL + _TRIPLES[:, 1] * R_ALL + _TRIPLES[:, 2]
_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def strength_table(muestra: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """``(strength, percentile)``, each ``float[19**3]`` indexed by :func:`rank_key`.

    ``percentile`` is the share of dealt hands that are weaker (ties count half).  Hands that
    cannot be dealt are NaN.  Cached per muestra (-1 = none).
    """
    if muestra in _CACHE:
        return _CACHE[muestra]
    rank = card_ranks(muestra)
    cards = [c for c in range(NUM_CARDS) if c != muestra]
    counts = np.bincount(rank[cards], minlength=R_ALL)
    K = _TRIPLE_K
    own = np.prod(_COMB[counts[None, :], K], axis=1) * (K <= counts[None, :]).all(axis=1)
    ok = own > 0
    Kv, T = K[ok], _TRIPLES[ok]
    avail = counts[None, :] - Kv                                        # [m, R]
    # weight[i, j] = number of opponent hands of multiset j given my multiset i
    fits = (Kv[None, :, :] <= avail[:, None, :]).all(axis=2)
    w = np.prod(_COMB[np.clip(avail[:, None, :], 0, 4), Kv[None, :, :]], axis=2) * fits
    out = np.where(T[:, None, :] > T[None, :, :], WIN,
                   np.where(T[:, None, :] < T[None, :, :], LOSE, PARDA))
    code = out[..., 0] * 9 + out[..., 1] * 3 + out[..., 2]
    value = (w * (OUTCOME_MINE + 0.5 * OUTCOME_MANO)[code]).sum(axis=1) / w.sum(axis=1)
    strength = np.full(R_ALL ** 3, np.nan)
    strength[_KEY[ok]] = value
    p = own[ok] / own[ok].sum()
    order = np.argsort(value)
    sv, sp = value[order], p[order]
    below = np.array([sp[sv < v - 1e-12].sum() + sp[np.abs(sv - v) <= 1e-12].sum() / 2
                      for v in value])
    pct = np.full(R_ALL ** 3, np.nan)
    pct[_KEY[ok]] = below
    for a in (strength, pct):
        a.setflags(write=False)
    _CACHE[muestra] = (strength, pct)
    return strength, pct


def rank_key(ranks: np.ndarray) -> np.ndarray:
    """Index into :func:`strength_table` of hands ``ranks[..., 3]`` (any order)."""
    r = -np.sort(-np.asarray(ranks, dtype=np.int64), axis=-1)
    return r[..., 0] * R_ALL * R_ALL + r[..., 1] * R_ALL + r[..., 2]


#: Every hand of 3 distinct cards (9880 rows), for exact distributions over dealt hands.
ALL_HANDS = np.array(list(itertools.combinations(range(NUM_CARDS), 3)), dtype=np.int32)


def points_distributions() -> tuple[np.ndarray, np.ndarray]:
    """Exact distributions over all 9880 hands (argentino, from the rules core): envido points
    ``pmf[0..33]`` and, among hands with flor, flor points ``pmf[0..38]``."""
    from .rules import get_rules
    _, envido, flor = C.hand_points(ALL_HANDS, get_rules("argentino").tables())
    return (np.bincount(envido, minlength=34) / len(ALL_HANDS),
            np.bincount(flor[flor >= 0], minlength=39) / (flor >= 0).sum())


def hand_strength(cards: Sequence[str] | str, muestra: str | None = None) -> tuple[float, float]:
    """``(strength, percentile)`` of a hand given as card strings."""
    ids = [parse_card(c) for c in (cards.split() if isinstance(cards, str) else cards)]
    mu = parse_card(muestra) if muestra else -1
    k = int(rank_key(card_ranks(mu)[ids]))
    s, pct = strength_table(mu)
    return float(s[k]), float(pct[k])
