"""docs/rules.md section 9, "Cases that must hold": one test per case (argentino, A = player_0 mano)."""

import pytest

import truco_env
from helpers_rules import (
    ENVIDO_CALLS,
    act,
    done,
    legal,
    make,
    play,
    rewards,
    run,
    score,
    table,
    terminated,
    turn,
    view,
)

A33 = ["7c", "6c", "4b"]  # envido 33
B27 = ["1e", "2o", "5o"]  # envido 27


def test_case_01a_mazo_at_once_gives_rival_one():
    env = make(hands=[A33, B27])
    run(env, "0 mazo")
    assert done(env)
    assert score(env) == [0, 1]
    assert rewards(env) == {"player_0": -1, "player_1": 1}


def test_case_01b_mazo_after_rival_played_gives_one():
    env = make(hands=[A33, B27])
    run(env, "0 7c", "1 mazo")
    assert done(env)
    assert score(env) == [1, 0]


def test_case_01c_caller_mazo_after_accepted_truco_gives_two():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 quiero", "0 mazo")
    assert done(env)
    assert score(env) == [0, 2]


def test_case_02a_truco_no_quiero_gives_one_and_no_card_is_played():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 no_quiero")
    assert done(env)
    assert score(env) == [1, 0]
    assert sum(len(baza) for baza in table(env)) == 0


def test_case_02b_retruco_no_quiero_gives_two_to_retruco_side():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 retruco", "0 no_quiero")
    assert done(env)
    assert score(env) == [0, 2]


def test_case_03_vale_cuatro_no_quiero_gives_three():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 quiero", "0 7c", "1 retruco", "0 vale_cuatro", "1 no_quiero")
    assert done(env)
    assert score(env) == [3, 0]


def test_case_04_retruco_illegal_for_caller_legal_for_rival():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 quiero")
    assert turn(env) == 0
    assert "retruco" not in legal(env)
    with pytest.raises(truco_env.IllegalActionError):
        env.step(truco_env.ACTIONS.index("retruco"))
    run(env, "0 7c")
    assert turn(env) == 1
    assert "retruco" in legal(env)


def test_case_05_envido_va_primero_then_truco_answer_due_again():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 envido", "0 quiero")
    assert score(env) == [2, 0]
    assert view(env, 0)["envido_points"].get(0) == 33
    assert turn(env) == 1
    assert {"quiero", "no_quiero"} <= legal(env)
    assert not legal(env) & ENVIDO_CALLS
    run(env, "1 quiero")
    assert turn(env) == 0  # A was about to play his first card


def test_case_06a_truco_caller_cannot_open_envido_while_pending():
    env = make(hands=[A33, B27])
    run(env, "0 truco")
    assert turn(env) == 1
    assert not legal(env, 0) & ENVIDO_CALLS
    assert "envido" in legal(env, 1)


def test_case_06b_no_envido_after_truco_accepted():
    env = make(hands=[A33, B27])
    run(env, "0 truco", "1 quiero")
    assert turn(env) == 0
    assert not legal(env) & ENVIDO_CALLS
    run(env, "0 7c")
    assert turn(env) == 1
    assert not legal(env) & ENVIDO_CALLS  # B has not played, but the truco is accepted


def test_case_07_pie_may_call_envido_after_mano_played_not_after_both():
    env = make(hands=[A33, B27])
    run(env, "0 4b")
    assert ENVIDO_CALLS <= legal(env)
    run(env, "1 5o")
    assert not legal(env) & ENVIDO_CALLS


def test_case_08a_third_envido_illegal():
    env = make(hands=[A33, B27])
    run(env, "0 envido", "1 envido")
    assert "envido" not in legal(env)
    assert {"real_envido", "falta_envido", "quiero", "no_quiero"} <= legal(env)
    with pytest.raises(truco_env.IllegalActionError):
        env.step(truco_env.ACTIONS.index("envido"))


def test_case_08b_after_real_envido_only_falta():
    env = make(hands=[A33, B27])
    run(env, "0 real_envido")
    assert legal(env) & ENVIDO_CALLS == {"falta_envido"}


def test_case_08c_envido_envido_real_no_quiero_gives_caller_four():
    env = make(hands=[A33, B27])
    run(env, "0 envido", "1 envido", "0 real_envido", "1 no_quiero")
    assert score(env) == [4, 0]
    assert not done(env)


@pytest.mark.parametrize(
    "mano, steps",
    [
        (0, ["0 envido", "1 quiero"]),
        (0, ["0 10b", "1 envido", "0 quiero"]),
        (1, ["1 envido", "0 quiero"]),
        (1, ["1 11c", "0 envido", "1 quiero"]),
    ],
    ids=["A-mano-A-calls", "A-mano-B-calls", "B-mano-B-calls", "B-mano-A-calls"],
)
def test_case_09_envido_tie_goes_to_the_mano(mano, steps):
    env = make(hands=[["2o", "5o", "10b"], ["3e", "4e", "11c"]], mano=mano)  # 27 vs 27
    run(env, *steps)
    expected = [0, 0]
    expected[mano] = 2
    assert score(env) == expected


def test_case_10_falta_in_buenas_worth_what_leader_lacks_match_ends_mid_hand():
    env = make(hands=[A33, B27], score=[20, 10], target=30, episode="match", reward="match")
    run(env, "0 falta_envido", "1 quiero")
    assert score(env) == [30, 10]
    assert terminated(env)
    assert rewards(env) == {"player_0": 1, "player_1": -1}


def test_case_10b_falta_won_by_trailer_in_buenas_worth_what_leader_lacks():
    env = make(hands=[B27, A33], score=[20, 10], target=30, episode="match", reward="match")
    run(env, "0 falta_envido", "1 quiero")
    assert score(env) == [20, 20]
    assert not terminated(env)
    assert turn(env) == 0


def test_case_11_falta_in_malas_worth_what_winner_lacks():
    env = make(hands=[B27, A33], score=[8, 3], target=30, episode="match", reward="match")
    run(env, "0 falta_envido", "1 quiero")
    assert score(env) == [8, 30]
    assert terminated(env)
    assert rewards(env) == {"player_0": -1, "player_1": 1}


def test_case_12a_parda_parda_then_b_wins_third():
    env = make(hands=[["3e", "2e", "4e"], ["3o", "2o", "5o"]])
    run(env, "0 3e", "1 3o", "0 2e", "1 2o", "0 4e")
    assert not done(env)
    run(env, "1 5o")
    assert done(env)
    assert score(env) == [0, 1]


@pytest.mark.parametrize("mano", [0, 1])
def test_case_12b_three_pardas_go_to_the_mano(mano):
    env = make(hands=[["3e", "1o", "7c"], ["3o", "1c", "7b"]], mano=mano)
    first, second = mano, 1 - mano
    cards = {0: ["3e", "1o", "7c"], 1: ["3o", "1c", "7b"]}
    for k in range(3):
        run(env, f"{first} {cards[first][k]}", f"{second} {cards[second][k]}")
    assert done(env)
    expected = [0, 0]
    expected[mano] = 1
    assert score(env) == expected


def test_case_12c_a_wins_b_wins_parda_goes_to_a():
    env = make(hands=[["1e", "4e", "3e"], ["5o", "1b", "3o"]])
    run(env, "0 1e", "1 5o", "0 4e", "1 1b", "1 3o")
    assert not done(env)
    run(env, "0 3e")
    assert done(env)
    assert score(env) == [1, 0]


def test_case_12d_a_wins_then_parda_ends_after_two_bazas():
    env = make(hands=[["1e", "3e", "4e"], ["5o", "3o", "4o"]])
    run(env, "0 1e", "1 5o", "0 3e", "1 3o")
    assert done(env)
    assert score(env) == [1, 0]


HANDS_13 = [["4e", "5e", "6e"], ["3o", "5o", "6o"], ["3e", "7c", "12e"], ["4o", "7b", "12o"]]
HANDS_14 = [["3e", "5e", "6e"], ["4c", "5o", "6o"], ["3o", "7c", "12e"], ["4o", "7b", "12o"]]


def test_case_13_team_parda_opener_leads():
    env = make(players=4, hands=HANDS_13)
    run(env, "0 4e", "1 3o", "2 3e", "3 4o")
    assert table(env)[0] == [(0, "4e"), (1, "3o"), (2, "3e"), (3, "4o")]
    assert not done(env)
    assert turn(env) == 0


def test_case_14_equal_top_cards_of_one_team_are_no_parda():
    env = make(players=4, hands=HANDS_14)
    run(env, "0 3e", "1 4c", "2 3o", "3 4o")
    assert turn(env) == 0  # team A won the baza; A1 played the first of the equal 3s
    run(env, "0 6e", "1 5o", "2 12e", "3 7b")  # team A wins baza 2 too
    assert done(env)
    assert score(env) == [1, 0]


def test_case_15_team_envido_tie_goes_to_player_nearest_the_mano():
    hands = [["1o", "10b", "11c"], ["7c", "6c", "4b"], ["7e", "6e", "4o"], ["1b", "10o", "11e"]]
    env = make(players=4, hands=hands)
    run(env, "0 envido", "1 quiero")
    assert score(env) == [0, 2]
    assert view(env, 0)["envido_points"].get(1) == 33
