"""The match loop: seated players play batches of matches through the match driver.

Every consumer that plays whole matches with players (tournaments, the terminal player, the
probe, train.py's evaluation) runs :func:`play`; the environments (PettingZoo, vector) expose
the same driver step by step.  One pass of the loop is the data flow of the package::

    deal -> state -> mask -> players act -> step -> events -> (hooks) -> next deal

A player is anything with ``act(observation, view) -> int``; one with ``act_batch(obs, mask)``
and a true ``batched`` attribute is asked for all its decisions of a pass at once (from the
observation only).  ``observation`` names the encoder it reads (``"compact"`` default, or
``"infostate"``).  :class:`agents.Agent` implements all of it.

>>> from truco_env.game import Matches
>>> from truco_env.rules import get_rules
>>> class First:                       # plays the first legal action
...     def act(self, observation, view):
...         return int(observation["action_mask"].argmax())
>>> game = Matches(3, 2, get_rules("argentino", target=9))
>>> game.reset(seed=0)
>>> result = play(game, [First(), First()])
>>> result.winner.shape, bool((result.winner >= 0).all())
((3,), True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from . import core as C
from .game import Matches
from .observe import Encoder
from .view import decode_view

#: ``on_decision(game, rows, actions, mask)``: before the step, for the games ``rows`` that act.
DecisionHook = Callable[[Matches, np.ndarray, np.ndarray, np.ndarray], None]
#: ``on_hand_end(game, games)``: hands just ended in ``games``, before the next deal.
HandHook = Callable[[Matches, np.ndarray], None]


@dataclass
class LoopResult:
    """Per game: the winning team (a seat in the three-player modes; -1: the episode was a
    hand), final score by team (by player in the three-player modes), hands played and
    decisions taken."""

    winner: np.ndarray
    score: np.ndarray
    hands: np.ndarray
    steps: np.ndarray


def team_seating(a_team: np.ndarray, players: int) -> np.ndarray:
    """``seating`` for two players by team: 0 (player A) at the seats of team ``a_team[g]`` in
    game g, 1 (player B) at the others.

    >>> team_seating(np.array([0, 1]), 4).tolist()
    [[0, 1, 0, 1], [1, 0, 1, 0]]
    """
    return (np.arange(players)[None, :] % 2 != np.asarray(a_team)[:, None]).astype(np.int64)


def _name(player: Any) -> str:
    return getattr(player, "name", type(player).__name__)


def is_batched(player: Any) -> bool:
    return bool(getattr(player, "batched", False)) and hasattr(player, "act_batch")


def play(game: Matches, players: Sequence[Any], seating: np.ndarray | None = None, *,
         on_decision: DecisionHook | None = None, on_hand_end: HandHook | None = None,
         max_steps: int = 1_000_000) -> LoopResult:
    """Play the episodes of every game of ``game`` (already :meth:`~Matches.reset`) to the end.

    ``seating[g, seat]`` is the index in ``players`` of who sits at ``seat`` in game ``g``
    (default: seat p is ``players[p % len(players)]`` in every game).  Hands are dealt by the
    driver's deal source.  An illegal action raises :class:`IllegalActionError` naming the
    player.
    """
    N, P = game.n, game.players
    if seating is None:
        seating = np.tile(np.arange(P) % len(players), (N, 1))
    seating = np.asarray(seating, dtype=np.int64)
    if seating.shape != (N, P) or seating.min() < 0 or seating.max() >= len(players):
        raise ValueError(f"bad seating of shape {seating.shape}: expected ({N}, {P}) indices "
                         f"into {len(players)} players")
    kinds = [getattr(p, "observation", "compact") for p in players]
    encoders = {k: Encoder(k) for k in set(kinds)}
    batched = [is_batched(p) for p in players]
    S = game.S
    done = np.zeros(N, bool)
    hands = np.zeros(N, np.int64)
    steps = np.zeros(N, np.int64)
    rows_all = np.arange(N)
    for _ in range(max_steps):
        live = np.flatnonzero(~done)
        if len(live) == 0:
            break
        mask = game.legal_mask().copy()
        actor = S[:, C.ACTOR]
        who = seating[rows_all, actor]
        actions = np.full(N, -1, np.int64)
        for k, player in enumerate(players):
            rows = live[who[live] == k]
            if len(rows) == 0:
                continue
            obs = encoders[kinds[k]].encode(S[rows], game.tables, actor[rows])
            if batched[k]:
                actions[rows] = np.asarray(player.act_batch(obs, mask[rows]), dtype=np.int64)
            else:
                for i, g in enumerate(rows):
                    ob = {"observation": obs[i], "action_mask": mask[g].astype(np.int8)}
                    actions[g] = int(player.act(ob, decode_view(game, int(g), int(actor[g]))))
        game.check_actions(actions, live, who=lambda g: f"{_name(players[who[g]])} in game {g}")
        if on_decision is not None:
            on_decision(game, live, actions, mask)
        steps[live] += 1
        _, hand_ended, episode_done, _ = game.step(actions.astype(np.int32))
        ended = live[hand_ended[live]]
        if len(ended) == 0:
            continue
        hands[ended] += 1
        if on_hand_end is not None:
            on_hand_end(game, ended)
        done[ended[episode_done[ended]]] = True
        game.next_hand(ended[~episode_done[ended]])
    else:
        raise RuntimeError(f"matches not finished after {max_steps} steps")
    winner = np.where(S[:, C.DONE] == 1, S[:, C.WINNER], -1)
    return LoopResult(winner=winner, score=game.scores(), hands=hands,
                      steps=steps)
