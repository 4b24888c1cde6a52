"""What the traditional señas say: which seña is true of which hand (issue 13).

The rules core decides when a seña may be made and who sees it (``core._may_sena``,
``core.sees_sena``); a seña's number means nothing to it.  This module gives the traditional
vocabularies of seed 001 (:func:`truco_env.rules.sena_vocabulary`) their meaning, as tables:

* :func:`card_sena_table`: ``[41, 40]``, the seña of each card under each muestra (row 40: no
  muestra), ``-1`` for a card no seña names; the señas are numbered best card first, so the
  truthful seña of a hand's best card is the lowest number among its cards';
* :func:`truthful`: ``bool[N, K]``, whether each seña is true of each hand (a card seña: the hand
  holds such a card; ``envido_alto``: envido of 28 or more; ``sin_envido``: no two cards of a
  suit, envido under 20; uruguayo's ``nada``: no card that a seña names).

Learned tokens have no meaning here (``truthful`` is all ``False``): training gives them one,
and ``evaluate.py senas`` measures it (mutual information with the hand).

>>> from truco_env.rules import get_rules
>>> from truco_env.cards import parse_cards
>>> r = get_rules("argentino", senas="traditional")
>>> truthful(r, [parse_cards("1e 7c 6c")])[0].nonzero()[0].tolist()   # ancho de espada, envido 33
[0, 7]
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from . import core as C
from .cards import NUM_CARDS, parse_card
from .rules import RuleSet, SENAS_ARGENTINO, SENAS_URUGUAYO, sena_vocabulary

#: Envido thresholds of "con mucho puntaje" and "sin puntaje" (seed 001 gives no number: 28 is
#: a hand that usually wins the envido; without two cards of a suit the envido is under 20).
ENVIDO_ALTO, SIN_ENVIDO = 28, 20

_ARG_CARDS = {"ancho_de_espada": ("1e",), "ancho_de_basto": ("1b",),
              "siete_de_espada": ("7e",), "siete_de_oro": ("7o",),
              "tres": ("3e", "3b", "3o", "3c"), "dos": ("2e", "2b", "2o", "2c"),
              "ancho_falso": ("1o", "1c")}
_URU_CARDS = {"anchos_matas": ("1e", "1b"), "sietes_matas": ("7e", "7o"),
              "tres": ("3e", "3b", "3o", "3c"), "dos": ("2e", "2b", "2o", "2c"),
              "ancho_falso": ("1o", "1c")}


@lru_cache(maxsize=None)
def card_sena_table(uruguayo: bool) -> np.ndarray:
    """``int32[41, 40]``: the seña number of each card under each muestra (row 40: none)."""
    vocab = SENAS_URUGUAYO if uruguayo else SENAS_ARGENTINO
    names = _URU_CARDS if uruguayo else _ARG_CARDS
    out = np.full((NUM_CARDS + 1, NUM_CARDS), -1, dtype=np.int32)
    for mu in range(NUM_CARDS + 1):
        m = mu if (mu < NUM_CARDS and uruguayo) else -1
        for c in range(NUM_CARDS):
            pi = C._pieza_index(m, c) if m >= 0 else -1
            if pi >= 0:                  # the piezas first: dos .. diez de la muestra
                out[mu, c] = pi
                continue
            for name, cards in names.items():
                if c in [parse_card(x) for x in cards]:
                    out[mu, c] = vocab.index(name)
    out.setflags(write=False)
    return out


def truthful(rules: RuleSet, hands: Sequence, muestra: int | Sequence[int] = -1) -> np.ndarray:
    """``bool[N, K]``: whether seña k of ``rules``' vocabulary is true of each dealt hand
    (``hands[N, 3]`` card ids; ``muestra`` a card id per hand, -1 none)."""
    hands = np.asarray(hands, dtype=np.int64).reshape(-1, 3)
    vocab = sena_vocabulary(rules)
    out = np.zeros((len(hands), len(vocab)), dtype=bool)
    if rules.senas != "traditional":
        return out
    mu = np.broadcast_to(np.asarray(muestra, dtype=np.int64), (len(hands),))
    table = card_sena_table(rules.muestra)
    tok = table[np.where(mu >= 0, mu, NUM_CARDS)[:, None], hands]           # [N, 3]
    rows = np.arange(len(hands))
    for j in range(3):
        ok = tok[:, j] >= 0
        out[rows[ok], tok[ok, j]] = True
    if rules.muestra:
        out[:, vocab.index("nada")] = (tok < 0).all(axis=1)
    else:
        env = C.hand_points(hands, rules.tables())[1]
        out[:, vocab.index("envido_alto")] = env >= ENVIDO_ALTO
        out[:, vocab.index("sin_envido")] = env < SIN_ENVIDO
    return out
