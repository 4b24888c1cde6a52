"""Match records: export a match as JSON-serialisable data and replay it exactly.

A record is the rules, the deals and the actions (``format: truco_env.record/1``).  Replaying
runs the same match driver with the recorded deals as its deal source
(:class:`truco_env.game.RecordedDeals`) and plays the recorded actions, each checked for
legality: nothing reaches into the driver.

>>> import truco_env
>>> env = truco_env.env(); env.reset(seed=3)
>>> for _ in range(5): env.step(int(env.last()[0]["action_mask"].nonzero()[0][0]))
>>> again = replay(env.unwrapped.record())
>>> again.unwrapped.game.S.tolist() == env.unwrapped.game.S.tolist()
True
"""
from __future__ import annotations

import json
from typing import Any, Iterator

import numpy as np

from .game import Matches, RecordedDeals, rules_from_dict
from .rules import ACTION_ID

RECORD_FORMAT = "truco_env.record/1"


def load_record(record: dict | str) -> dict:
    """A record dict from a dict or its JSON text, its format checked."""
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as e:
            raise ValueError(f"not a truco_env record: the text is not JSON ({e})") from None
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a truco_env record: expected a dict with format {RECORD_FORMAT!r}")
    for key in ("players", "rules", "hands"):
        if key not in record:
            raise ValueError(f"truco_env record without {key!r}")
    return record


def replay(record: dict | str, **env_kwargs: Any):
    """Rebuild the environment of a record and play its deals and actions.

    Accepts a record dict or its JSON text.  Every hand is dealt as recorded and every action
    is checked for legality, so a record that does not replay raises ``ValueError``.  Returns
    the (wrapped) environment in the final position.
    """
    from .env import env as make_env

    record = load_record(record)
    rules = rules_from_dict(record["rules"])
    e = make_env(players=record["players"], rules=rules, episode=record.get("episode", "match"),
                 reward=record.get("reward"), **env_kwargs)
    hands = record["hands"]
    if not hands:
        return e
    e.reset(seed=record.get("seed"), options={"deals": hands,
                                              "score": record.get("start_score", [0, 0])})
    for i, h in enumerate(hands):
        for name in h["actions"]:
            if name not in ACTION_ID:
                raise ValueError(f"record hand {i}: unknown action {name!r}")
            e.step(ACTION_ID[name])
    return e


def replay_steps(record: dict | str) -> Iterator[tuple[Matches, int, int | None]]:
    """Step through a record in the match driver: yields ``(matches, hand, action)`` once as
    each hand is dealt (``action`` ``None``) and once after each action, every action checked
    for legality (a ``ValueError`` naming the hand otherwise).  ``matches`` is the same
    :class:`truco_env.game.Matches` (N = 1) each time: copy ``matches.S`` to keep a position.

    >>> import truco_env
    >>> env = truco_env.env(); env.reset(seed=3); env.step(0)
    >>> [(h, a) for _, h, a in replay_steps(env.unwrapped.record())]
    [(0, None), (0, 0)]
    """
    record = load_record(record)
    hands = record["hands"]
    game = Matches(1, record["players"], rules_from_dict(record["rules"]),
                   episode=record.get("episode", "match"), reward=record.get("reward"))
    if not hands:
        return
    game.reset(score=record.get("start_score"), deals=RecordedDeals(hands, record["players"]))
    for i, h in enumerate(hands):
        if i:
            if not game.next_hand(np.array([0])).size:
                raise ValueError(f"record hand {i}: the match was over after hand {i - 1}")
        yield game, i, None
        for name in h["actions"]:
            if name not in ACTION_ID:
                raise ValueError(f"record hand {i}: unknown action {name!r}")
            game.legal_mask()
            try:
                game.check_actions(np.array([ACTION_ID[name]]))
            except ValueError as e:
                raise ValueError(f"record hand {i}: {e}") from None
            game.step(np.array([ACTION_ID[name]], dtype=np.int32))
            yield game, i, ACTION_ID[name]
