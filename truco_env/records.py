"""Match records: export a match as JSON-serialisable data and replay it exactly.

>>> import truco_env
>>> env = truco_env.env(); env.reset(seed=3)
>>> for _ in range(5): env.step(int(env.last()[0]["action_mask"].nonzero()[0][0]))
>>> again = replay(env.unwrapped.record())
>>> again.unwrapped.game.S.tolist() == env.unwrapped.game.S.tolist()
True
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from .cards import parse_card
from .game import rules_from_dict
from .rules import ACTION_ID


def replay(record: dict | str, **env_kwargs: Any):
    """Rebuild the environment of a record and play its deals and actions.

    Accepts a record dict or its JSON text.  Every hand is dealt as recorded and every action
    is checked for legality, so a record that does not replay raises ``ValueError``.  Returns
    the (wrapped) environment in the final position.
    """
    from .env import env as make_env

    if isinstance(record, str):
        record = json.loads(record)
    if not isinstance(record, dict) or record.get("format") != "truco_env.record/1":
        raise ValueError("not a truco_env record: expected a dict with format "
                         "'truco_env.record/1'")
    rules = rules_from_dict(record["rules"])
    e = make_env(players=record["players"], rules=rules, episode=record["episode"],
                 reward=record["reward"], **env_kwargs)
    raw = e.unwrapped
    hands = record["hands"]
    if not hands:
        return e
    first = hands[0]
    e.reset(seed=record.get("seed"), options={"hands": first["deal"], "mano": first["mano"],
                                              "score": record.get("start_score", [0, 0]),
                                              "muestra": first.get("muestra")})
    for i, h in enumerate(hands):
        if i > 0:
            # The core dealt a random next hand: overwrite it with the recorded one.
            raw.game.deals.pop()
            deck = [parse_card(c) for hand in h["deal"] for c in hand]
            if h.get("muestra") is not None:
                deck.append(parse_card(h["muestra"]))
            rest = [c for c in range(40) if c not in deck]
            from . import core as C
            games = np.array([0])
            S = raw.game.S
            if int(S[0, C.MANO]) != h["mano"]:
                raise ValueError(f"record hand {i}: mano {h['mano']} but the match gives "
                                 f"{int(S[0, C.MANO])}")
            S[0, C.HAND_NO] -= 1
            raw.game._deal(games, np.array([h["mano"]], dtype=np.int32),
                           np.array([deck + rest], dtype=np.int32))
            raw._update()
        for name in h["actions"]:
            if name not in ACTION_ID:
                raise ValueError(f"record hand {i}: unknown action {name!r}")
            e.step(ACTION_ID[name])
    return e
