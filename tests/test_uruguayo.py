"""Uruguayan truco: muestra and piezas (docs/rules.md section 8, sources 004 then 001)."""
import numpy as np
import pytest

import truco_env
from truco_env import ACTIONS
from truco_env.game import evaluate_hand

# (hand, muestra, envido, flor or None, why)
HANDS = [
    ("4o 1b 1o", "3o", 30, None, "seed 004: pieza 4 (29) + as"),
    ("7e 3e 6o", "3o", 30, None, "seed 004: two of a suit, no pieza"),
    ("6b 3o 12e", "1o", 6, None, "seed 004: no pair, no pieza: the highest card"),
    ("2o 10o 12c", "1o", 30, 36, "seed 004 flor: two piezas, 20 + 10 + 6 + 0"),
    ("7b 6b 3b", "1o", 33, 36, "seed 004 flor: three of a suit"),
    ("2o 4o 5o", "1o", 35, 47, "seed 001: the biggest flor, 30 + 9 + 8"),
    ("2o 7c 1e", "1o", 37, None, "seed 001: the biggest envido, 30 + 7"),
    ("4o 7c 1e", "1o", 36, None, "pieza 4 = 29"),
    ("5o 6c 1e", "1o", 34, None, "pieza 5 = 28"),
    ("11o 6c 1e", "1o", 33, None, "pieza caballo = 27"),
    ("10o 6c 1e", "1o", 32, None, "pieza sota = 26 (seed 004)"),
    ("12o 3c 4e", "2o", 34, None, "muestra 2: the 12 takes its place and value (30)"),
    ("12o 3c 4c", "2o", 34, 37, "12 as pieza 2 + two of a suit is flor: 20 + 10 + 3 + 4"),
    ("12o 6e 5b", "4o", 35, None, "muestra 4: the 12 is worth 29"),
    ("12o 7e 1b", "11o", 34, None, "muestra caballo: the 12 is worth 27"),
    ("12o 1e 1b", "10o", 27, None, "muestra sota: the 12 is worth 26"),
    ("12o 6c 1e", "1o", 6, None, "the 12 of the muestra suit is no pieza when the muestra is not"),
    ("7o 6o 1e", "5o", 33, None, "a mata of the muestra suit (7o) is no pieza"),
    ("3o 1o 12b", "7o", 24, None, "3 and 1 of the muestra suit are no piezas: a pair"),
    ("7c 6c 5c", "1o", 33, 38, "three of a suit, no pieza"),
    ("4c 11c 7e", "7c", 36, 43, "two piezas and another card: flor 20 + 9 + 7 + 7"),
    ("5c 6e 7e", "7c", 35, 41, "a pieza and two of one suit: flor 20 + 8 + 6 + 7"),
    ("5c 6c 7e", "7c", 35, None, "a pieza and one of its suit only: no flor"),
    ("10b 11e 12c", "7c", 0, None, "three figures of different suits"),
    ("4e 5b 6o", "7c", 6, None, "no pair, no pieza"),
]


@pytest.mark.parametrize("hand, muestra, envido, flor, why", HANDS, ids=[h[0] for h in HANDS])
def test_envido_and_flor_values(hand, muestra, envido, flor, why):
    got = evaluate_hand(hand, muestra=muestra, rules="uruguayo")
    assert (got["envido"], got["flor"]) == (envido, flor), why


def test_sota_value_is_a_knob():
    rules = truco_env.get_rules("uruguayo", pieza_envido=(30, 29, 28, 27, 27))
    assert evaluate_hand("10o 6c 1e", "1o", rules)["envido"] == 33
    with pytest.raises(ValueError, match="pieza_envido"):
        truco_env.get_rules("uruguayo", pieza_envido=(30, 29))


def rank(card, muestra):
    return evaluate_hand([card, "4e" if card != "4e" else "4b", "5b" if card != "5b" else "5e"],
                         muestra=muestra, rules="uruguayo")["ranks"][0]


ORDER_ORO = ["2o", "4o", "5o", "11o", "10o", "1e", "1b", "7e", "7o", "3e", "2c", "1c", "12c",
             "11c", "10c", "7c", "6c", "5c", "4c"]


def test_rank_order_with_muestra_oro():
    ranks = [rank(c, "3o") for c in ORDER_ORO]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(ranks)
    assert rank("1o", "3o") == rank("1c", "3o"), "1o is no pieza: a false ace"
    assert rank("12o", "3o") == rank("12e", "3o")


def test_the_12_replaces_a_pieza_that_is_the_muestra():
    for muestra, replaced in [("2o", "2o"), ("4o", "4o"), ("5o", "5o"), ("11o", "11o"),
                              ("10o", "10o")]:
        ranks = {c: rank(c, muestra) for c in ("2o", "4o", "5o", "11o", "10o", "12o")
                 if c != muestra}
        assert ranks["12o"] == rank(replaced, "1o")
        assert ranks["12o"] > rank("1e", muestra)


def test_piezas_of_other_suits_are_plain_cards():
    assert rank("2c", "1o") == rank("2e", "1o") < rank("3b", "1o")
    assert rank("10c", "1o") < rank("11c", "1o") < rank("12c", "1o")


# ---------------------------------------------------------------- whole hands through the env
def make(hands, muestra, **options):
    env = truco_env.env(rules="uruguayo", episode="hand")
    env.reset(seed=0, options={"hands": hands, "muestra": muestra, "mano": 0, **options})
    return env


def act(env, name):
    mask = env.last()[0]["action_mask"]
    assert mask[ACTIONS.index(name)], (name, [ACTIONS[i] for i in np.flatnonzero(mask)])
    env.step(ACTIONS.index(name))


def score(env):
    return env.unwrapped.infos["player_0"]["score"]


def test_muestra_is_in_every_view_and_observation():
    env = make([["4e", "4c", "6b"], ["1e", "7e", "3b"]], "1o")
    for agent in env.agents:
        assert env.unwrapped.view(agent)["muestra"] == "1o"
    env2 = make([["4e", "4c", "6b"], ["1e", "7e", "3b"]], "1c")
    assert not np.array_equal(env.observe("player_1")["observation"],
                              env2.observe("player_1")["observation"])


def test_lowest_pieza_beats_the_ancho_de_espada():
    env = make([["10o", "4e", "4c"], ["1e", "7b", "3b"]], "1o")
    act(env, "play_0")
    act(env, "play_0")
    assert env.unwrapped.view("player_0")["baza_results"][0] == 0
    assert env.agent_selection == "player_0", "the winner of the baza leads"


def test_envido_with_piezas_through_the_env():
    env = make([["2o", "7c", "1e"], ["7e", "6e", "3b"]], "1o")   # 37 vs 33
    act(env, "envido")
    act(env, "quiero")
    assert score(env) == [2, 0]
    assert env.unwrapped.view("player_1")["envido_points"] == {0: 37}


def test_flor_of_two_piezas_is_compulsory_and_scores_three():
    env = make([["2o", "10o", "12c"], ["7e", "6e", "3b"]], "1o")
    assert [ACTIONS[i] for i in np.flatnonzero(env.last()[0]["action_mask"])] == ["flor"]
    act(env, "flor")
    assert score(env) == [3, 0]
    act(env, "play_0")
    assert not env.last()[0]["action_mask"][ACTIONS.index("envido")], "flor cancels envido"


def test_con_flor_envido_is_contraflor():
    env = make([["2o", "4o", "12c"], ["7c", "6c", "5c"]], "1o")   # 20+10+9 = 39 vs 38
    act(env, "flor")
    act(env, "contraflor")
    act(env, "quiero")
    assert score(env) == [6, 0]


@pytest.mark.parametrize("start, gain", [([20, 10], [0, 10]), ([8, 3], [0, 22])])
def test_falta_envido_is_what_the_leader_lacks(start, gain):
    env = make([["4e", "5b", "6o"], ["7e", "6e", "3b"]], "1c", score=start)
    act(env, "falta_envido")
    act(env, "quiero")
    assert score(env) == [start[0] + gain[0], start[1] + gain[1]]


def test_muestra_option_errors():
    env = truco_env.env(rules="uruguayo")
    with pytest.raises(ValueError, match="muestra"):
        env.reset(seed=0, options={"hands": [["1o", "2o", "3o"], ["1e", "2e", "3e"]],
                                   "muestra": "1o"})
    with pytest.raises(ValueError, match="'9o'"):
        env.reset(seed=0, options={"muestra": "9o"})


@pytest.mark.parametrize("players", [2, 4, 6])
def test_uruguayo_random_matches(players):
    from pettingzoo.test import api_test
    api_test(truco_env.env(rules="uruguayo", players=players), num_cycles=200)
    env = truco_env.env(rules="uruguayo", players=players)
    rng = np.random.default_rng(0)
    for m in range(40):
        env.reset(seed=m)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    record = env.unwrapped.record()
    assert record["hands"][0]["muestra"] is not None
    again = truco_env.replay(record)
    assert np.array_equal(again.unwrapped.game.S, env.unwrapped.game.S)
