"""evaluation.bluff.envido_sources: where a side's envido points come from, by who opened the
envido, the chain and how it ended."""
from __future__ import annotations

import numpy as np
import pytest

import agents
from evaluation import bluff, report
from truco_env import core as C
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.rules import ACTION_ID, get_rules

RULES = get_rules("argentino", target=30, flor=False)


def _scripted_hand(script: list[str]) -> tuple[dict, dict]:
    """One hand of a 1v1 game (agent 0 at seat 0, the mano): the named actions, then the
    first legal action until the hand ends."""
    game = Matches(1, 2, RULES)
    game.reset(seed=3)
    assert game.S[0, C.MANO] == 0
    log = bluff.EventLog()
    watch = log.watch(np.array([0]), np.array([[0, 1]]))
    rows = np.array([0])
    script = list(script)
    while game.S[0, C.HAND_OVER] == 0:
        mask = game.legal_mask().copy()
        a = ACTION_ID[script.pop(0)] if script else int(np.flatnonzero(mask[0])[0])
        assert mask[0, a], f"action {a} is not legal"
        actions = np.array([a])
        watch.on_decision(game, rows, actions, mask)
        game.step(actions.astype(np.int32))
    watch.on_hand_end(game, rows)
    return log.tables()


def test_a_falta_over_our_envido_folded_is_two_points_to_the_rival():
    ev, hands = _scripted_hand(["envido", "falta_envido", "no_quiero"])
    assert hands["env0"].tolist() == [0] and hands["env1"].tolist() == [2]
    assert hands["side0"].tolist() == [0] and hands["side1"].tolist() == [1]
    src = bluff.envido_sources(ev, hands, ["us", "them"])
    (ours,), (theirs,) = src["us"]["rows"], src["them"]["rows"]
    assert (ours["opener"], ours["position"], ours["chain"], ours["end"]) == \
        ("it", "mano", "EF", "no quiero")
    assert (ours["share"], ours["mine"], ours["theirs"], ours["net"]) == (1.0, 0.0, 2.0, -2.0)
    assert (theirs["opener"], theirs["chain"], theirs["net"]) == ("rival", "EF", 2.0)


def test_an_accepted_envido_is_a_showdown_row_and_no_envido_is_its_own():
    ev, hands = _scripted_hand(["envido", "quiero"])
    (row,) = bluff.envido_sources(ev, hands, ["us", "them"])["us"]["rows"]
    assert (row["chain"], row["end"]) == ("E", "quiero")
    assert row["mine"] + row["theirs"] == 2.0
    ev, hands = _scripted_hand([])          # the first legal action is a card: no envido
    (row,) = bluff.envido_sources(ev, hands, ["us", "them"])["us"]["rows"]
    assert (row["opener"], row["mine"], row["theirs"]) == ("none", 0.0, 0.0)


@pytest.mark.parametrize("players", [2, 4])
def test_the_rows_add_up_to_each_sides_envido_points(players):
    """Over played matches the rows' shares add up to one and their points to the envido
    points the side scored (counted from the hands' logs), and those are part of the hand's
    points."""
    n = 6
    game = Matches(n, players, get_rules("argentino", target=15, flor=False), random_mano=True)
    game.reset(seed=5)
    seating = np.tile(np.arange(players) % 2, (n, 1))
    seating[::2] = 1 - seating[::2]
    log = bluff.EventLog()
    watch = log.watch(np.arange(n), seating)
    play(game, [agents.load("heuristic", seed=1), agents.load("random", seed=2)], seating,
         on_decision=watch.on_decision, on_hand_end=watch.on_hand_end)
    ev, hands = log.tables()
    assert (hands["env0"] <= hands["pts0"]).all() and (hands["env1"] <= hands["pts1"]).all()
    assert hands["env0"].sum() + hands["env1"].sum() > 0
    src = bluff.envido_sources(ev, hands, ["heuristic", "random"])
    for a, name in enumerate(("heuristic", "random")):
        rows = src[name]["rows"]
        assert sum(r["share"] for r in rows) == pytest.approx(1.0)
        side = np.where(hands["side0"] == a, 0, 1)
        mine = np.where(side == 0, hands["env0"], hands["env1"]).mean()
        theirs = np.where(side == 0, hands["env1"], hands["env0"]).mean()
        assert src[name]["mine"] == pytest.approx(mine)
        assert src[name]["theirs"] == pytest.approx(theirs)
        assert src[name]["hands"] == len(hands["gid"])
    b = bluff.bluff_analytics(ev, hands, ["heuristic", "random"])
    text = report.bluff_markdown(b)
    assert "Where the envido points of heuristic's side come from" in text
    assert "| **all** |" in text
