"""Spanish 40-card deck: card ids, parsing and the base rank/envido tables.

Hand values (envido, flor, piezas) are computed by the rules core only:
:func:`truco_env.core.hand_points`, :func:`truco_env.game.evaluate_hand`.

A card id is ``suit * 10 + index`` where suits are ``e b o c`` (espada, basto, oro, copa) and
``index`` runs over the numbers ``1 2 3 4 5 6 7 10 11 12``. So ``1e`` is 0, ``12c`` is 39.

>>> parse_card("7O"), card_str(26)
(26, '7o')
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

SUITS = "eboc"  # espada, basto, oro, copa
NUMBERS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
NUM_CARDS = 40
CARD_STRS = tuple(f"{n}{s}" for s in SUITS for n in NUMBERS)
_BY_STR = {c: i for i, c in enumerate(CARD_STRS)}


def card_id(number: int, suit: str) -> int:
    """Id of a card given its number and suit letter."""
    return SUITS.index(suit) * 10 + NUMBERS.index(number)


def card_str(card: int) -> str:
    """Notation of a card id (``0 -> '1e'``)."""
    return CARD_STRS[int(card)]


def card_number(card: int) -> int:
    return NUMBERS[int(card) % 10]


def card_suit(card: int) -> int:
    return int(card) // 10


def parse_card(text: str) -> int:
    """Parse ``'1e'``, ``'12C'``... into a card id; anything else raises ``ValueError``."""
    if not isinstance(text, str):
        raise ValueError(f"card {text!r}: expected a string such as '1e', '7o' or '12c'")
    key = text.strip().lower()
    if key not in _BY_STR:
        raise ValueError(
            f"malformed card {text!r}: expected a number in {list(NUMBERS)} followed by a suit "
            f"letter e (espada), b (basto), o (oro) or c (copa), e.g. '1e', '7o', '12c'"
        )
    return _BY_STR[key]


def parse_cards(cards: Iterable[str] | str) -> list[int]:
    """Parse a list of cards or a space-separated string (``"1e 7o 3b"``)."""
    if isinstance(cards, str):
        cards = cards.split()
    return [parse_card(c) for c in cards]


def _tier_table(order: Sequence[Sequence[str]]) -> np.ndarray:
    """Rank table from tiers listed highest first (each tier a list of patterns)."""
    rank = np.full(NUM_CARDS, -1, dtype=np.int8)
    for level, tier in enumerate(reversed(order)):
        for pattern in tier:
            for card in range(NUM_CARDS):
                s = CARD_STRS[card]
                if pattern == s or (pattern.isdigit() and card_number(card) == int(pattern)):
                    if rank[card] < 0:
                        rank[card] = level
    assert (rank >= 0).all()
    return rank


#: Argentine truco rank, highest first; equal tier = parda (docs/rules.md section 1).
ARGENTINE_ORDER = (
    ("1e",), ("1b",), ("7e",), ("7o",), ("3",), ("2",), ("1o", "1c"),
    ("12",), ("11",), ("10",), ("7c", "7b"), ("6",), ("5",), ("4",),
)
TRUCO_RANK = _tier_table(ARGENTINE_ORDER)
TRUCO_RANK.setflags(write=False)

#: Envido value of a card: its number for 1-7, zero for 10, 11, 12.
ENVIDO_VALUE = np.array([n if n <= 7 else 0 for _ in SUITS for n in NUMBERS], dtype=np.int8)
ENVIDO_VALUE.setflags(write=False)
