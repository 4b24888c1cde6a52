"""Flor (docs/rules.md section 4, argentino with flor=True) and the trucoshi preset's flor
values."""

import pytest

from helpers_rules import (
    ENVIDO_CALLS,
    FLOR_ANSWERS,
    act,
    assert_score,
    books,
    done,
    legal,
    make,
    run,
    turn,
    view,
)

FLOR_38 = ["7c", "6c", "5c"]
FLOR_38_E = ["7e", "6e", "5e"]
FLOR_29 = ["4c", "3c", "2c"]
FLOR_29_E = ["4e", "3e", "2e"]
NO_FLOR = ["1e", "2o", "4b"]
NO_FLOR_2 = ["1b", "2b", "4o"]


def arg(hands, **kw):
    return make(hands=hands, rules="argentino", flor=True, **kw)


def test_flor_is_the_only_action_of_a_flor_holder_at_his_first_action():
    env = arg([FLOR_38, NO_FLOR])
    assert legal(env) == {"flor"}


def test_unopposed_flor_scores_three_and_the_singer_keeps_his_turn():
    env = arg([FLOR_38, NO_FLOR])
    run(env, "0 flor")
    assert_score(env, [3, 0])
    assert turn(env) == 0
    assert legal(env) == {"play_0", "play_1", "play_2", "truco", "mazo"}
    assert view(env, 1)["envido_points"].get(0) in (None, 38)


def test_sung_flor_makes_envido_illegal_for_the_rival():
    env = arg([FLOR_38, NO_FLOR])
    run(env, "0 flor", "0 5c")
    assert turn(env) == 1
    assert not legal(env) & ENVIDO_CALLS
    assert "truco" in legal(env)


def test_pie_with_flor_sings_it_after_the_mano_played():
    env = arg([NO_FLOR, FLOR_38])
    run(env, "0 4b")
    assert legal(env) == {"flor"}
    run(env, "1 flor")
    assert_score(env, [0, 3])
    assert turn(env) == 1
    assert not legal(env) & ENVIDO_CALLS


def test_flor_before_answering_truco_then_the_truco_answer_is_due():
    env = arg([NO_FLOR, FLOR_38])
    run(env, "0 truco")
    assert legal(env) == {"flor"}
    run(env, "1 flor")
    assert_score(env, [0, 3])
    assert turn(env) == 1
    assert legal(env) == {"quiero", "no_quiero", "retruco"}
    run(env, "1 no_quiero")
    assert done(env)
    assert_score(env, [1, 3])


def test_flor_cancels_an_envido_and_the_turn_returns_to_the_player_to_play():
    env = arg([NO_FLOR, FLOR_38])
    run(env, "0 envido")
    assert legal(env) == {"flor"}
    run(env, "1 flor")
    assert_score(env, [0, 3])
    assert turn(env) == 0
    assert legal(env) == {"play_0", "play_1", "play_2", "truco", "mazo"}


def test_flor_holder_must_answer_with_the_four_flor_answers():
    env = arg([FLOR_38, FLOR_29_E])
    run(env, "0 flor")
    assert turn(env) == 1
    assert legal(env) == FLOR_ANSWERS
    assert_score(env, [0, 0])  # opposed: nothing is scored before the answer


BEST = {  # best side -> hands
    0: [FLOR_38, FLOR_29_E],
    1: [FLOR_29, FLOR_38_E],
}


def gains(best, points):
    out = [0, 0]
    out[best] = points
    return out


@pytest.mark.parametrize("best", [0, 1], ids=["A-best", "B-best"])
def test_flor_against_flor_best_takes_three(best):
    env = arg(BEST[best])
    run(env, "0 flor", "1 flor")
    assert_score(env, gains(best, 3))
    assert turn(env) == 0  # A was about to play
    assert not legal(env) & ENVIDO_CALLS
    assert "play_0" in legal(env)


@pytest.mark.parametrize("mano", [0, 1])
def test_flor_tie_goes_to_the_mano(mano):
    env = arg([FLOR_38, FLOR_38_E], mano=mano)
    run(env, f"{mano} flor", f"{1 - mano} flor")
    assert_score(env, gains(mano, 3))


@pytest.mark.parametrize("best", [0, 1], ids=["A-best", "B-best"])
def test_contraflor_quiero_six_to_the_best(best):
    env = arg(BEST[best])
    run(env, "0 flor", "1 contraflor")
    assert legal(env) == {"quiero", "no_quiero", "contraflor_al_resto"}
    run(env, "0 quiero")
    assert_score(env, gains(best, 6))


def test_contraflor_no_quiero_three_to_the_contraflor_side():
    env = arg(BEST[0])
    run(env, "0 flor", "1 contraflor", "0 no_quiero")
    assert_score(env, [0, 3])


@pytest.mark.parametrize("best, points", [(0, 18), (1, 18)], ids=["A-best", "B-best"])
def test_contraflor_al_resto_quiero_what_the_leader_lacks(best, points):
    # Both in malas, yet al resto is what the leader (B, 12) lacks, not what the winner lacks.
    env = arg(BEST[best], score=[5, 12], target=30)
    run(env, "0 flor", "1 contraflor_al_resto")
    assert legal(env) == {"quiero", "no_quiero"}
    run(env, "0 quiero")
    assert books(env) == gains(best, points)


def test_contraflor_al_resto_no_quiero_three_to_the_caller():
    env = arg(BEST[0], score=[5, 12], target=30)
    run(env, "0 flor", "1 contraflor_al_resto", "0 no_quiero")
    assert_score(env, [5, 15])


def test_contraflor_then_al_resto_no_quiero_three_to_the_caller():
    env = arg(BEST[1], score=[5, 12], target=30)
    run(env, "0 flor", "1 contraflor", "0 contraflor_al_resto")
    assert turn(env) == 1
    assert legal(env) == {"quiero", "no_quiero"}
    run(env, "1 no_quiero")
    assert_score(env, [8, 12])


def test_contraflor_then_al_resto_quiero():
    env = arg(BEST[1], score=[5, 12], target=30)
    run(env, "0 flor", "1 contraflor", "0 contraflor_al_resto", "1 quiero")
    assert_score(env, [5, 30])


@pytest.mark.parametrize("best", [0, 1], ids=["A-best", "B-best"])
def test_con_flor_me_achico_three_to_the_first_singer(best):
    env = arg(BEST[best])
    run(env, "0 flor", "1 con_flor_me_achico")
    assert_score(env, [3, 0])
    assert turn(env) == 0


def test_flor_is_off_by_default_in_argentino():
    env = make(hands=[FLOR_38, NO_FLOR])
    assert "flor" not in legal(env)
    assert ENVIDO_CALLS <= legal(env)


def test_team_flor_every_flor_of_a_side_is_sung_and_scores():
    hands = [FLOR_38, NO_FLOR, FLOR_29_E, NO_FLOR_2]
    env = make(players=4, hands=hands, rules="argentino", flor=True)
    run(env, "0 flor")
    assert_score(env, [3, 0])
    run(env, "0 5c", "1 4b")
    assert legal(env) == {"flor"}
    run(env, "2 flor")
    assert_score(env, [6, 0])


def test_team_flor_contest_compares_the_best_flor_of_each_side():
    # A1 flor 25, A2 flor 38, B2 flor 37: team A's best (A2) beats B2.
    hands = [["4c", "1c", "10c"], NO_FLOR, FLOR_38_E, ["7o", "6o", "4o"]]
    env = make(players=4, hands=hands, rules="argentino", flor=True)
    run(env, "0 flor")
    assert turn(env) == 3  # the opponent with flor answers
    act(env, "flor")
    # The contest is resolved (A2's 38 beats B2's 37): nobody else sings, the mano plays.
    assert_score(env, [3, 0])
    assert turn(env) == 0
    assert "flor" not in legal(env)
    # Declared from the mano: A1 25, B2 37 beats it, A2 38 beats B2.
    assert view(env, 0)["envido_points"] == {0: 25, 3: 37, 2: 38}


# ----------------------------------------------------------------------------- trucoshi

def shi(hands, **kw):
    return make(hands=hands, rules="trucoshi", **kw)


def test_trucoshi_defaults_flor_on_and_target_18():
    env = shi([FLOR_38, NO_FLOR])
    v = view(env, 0)
    assert v["target"] == 18
    assert v["rules"] == "trucoshi"
    assert legal(env) == {"flor"}
    run(env, "0 flor")
    assert_score(env, [3, 0])


@pytest.mark.parametrize("best", [0, 1], ids=["A-best", "B-best"])
def test_trucoshi_flor_against_flor_four(best):
    env = shi(BEST[best])
    run(env, "0 flor", "1 flor")
    assert_score(env, gains(best, 4))


@pytest.mark.parametrize("answer, expected", [("quiero", [6, 0]), ("no_quiero", [0, 4])])
def test_trucoshi_contraflor(answer, expected):
    env = shi(BEST[0])
    run(env, "0 flor", "1 contraflor", f"0 {answer}")
    assert_score(env, expected)


def test_trucoshi_contraflor_al_resto_no_quiero_six():
    env = shi(BEST[0])
    run(env, "0 flor", "1 contraflor_al_resto", "0 no_quiero")
    assert_score(env, [0, 6])


@pytest.mark.parametrize("start, best, expected", [
    ([10, 4], 1, [10, 18]),  # B wins: 14, what B lacks (the leader's rule would give 8)
    ([4, 10], 0, [18, 10]),  # A wins: 14, what A lacks (the leader's rule would give 8)
    ([4, 10], 1, [4, 18]),   # the leader wins: both rules give 8
], ids=["trailer-B-wins", "trailer-A-wins", "leader-wins"])
def test_trucoshi_contraflor_al_resto_quiero_is_what_the_winner_lacks(start, best, expected):
    # contraflor_resto="match" (docs/rules.md section 8): the winner of the contest wins the match.
    env = shi(BEST[best], score=start)
    run(env, "0 flor", "1 contraflor_al_resto", "0 quiero")
    assert_score(env, expected)
    assert done(env)
    assert env.unwrapped.view("player_0")["winner"] == best


@pytest.mark.parametrize("rules, resto, expected", [
    ("argentino", "leader", [5, 12 + 18]),  # B (12) leads: he lacks 18 of 30
    ("argentino", "match", [5, 12 + 18]),
    ("trucoshi", "match", [5 + 13, 12]),    # A wins from 5: he lacks 13 of 18
    ("trucoshi", "leader", [5 + 6, 12]),    # B (12) leads: he lacks 6 of 18
    ("argentino", "leader", [5 + 18, 12]),
    ("argentino", "match", [5 + 25, 12]),
], ids=["arg-leader-B", "arg-match-B", "shi-match-A", "shi-leader-A", "arg-leader-A",
        "arg-match-A"])
def test_contraflor_resto_knob_decides_leader_or_match(rules, resto, expected):
    best = 0 if expected[0] > 5 else 1
    env = make(hands=BEST[best], rules=rules, flor=True, contraflor_resto=resto, score=[5, 12])
    run(env, "0 flor", "1 contraflor_al_resto", "0 quiero")
    assert_score(env, expected)


def test_presets_contraflor_resto_values():
    from truco_env.rules import get_rules
    assert get_rules("trucoshi").contraflor_resto == "match"
    assert get_rules("argentino").contraflor_resto == "leader"
    assert get_rules("uruguayo").contraflor_resto == "leader"


def test_trucoshi_achico_three_to_the_rival():
    env = shi(BEST[1])
    run(env, "0 flor", "1 con_flor_me_achico")
    assert_score(env, [3, 0])


def test_trucoshi_unopposed_side_scores_three_whatever_its_flores():
    hands = [FLOR_38, NO_FLOR, FLOR_29_E, NO_FLOR_2]
    env = make(players=4, hands=hands, rules="trucoshi")
    run(env, "0 flor", "0 5c", "1 4b")
    assert legal(env) == {"flor"}
    run(env, "2 flor")
    assert_score(env, [3, 0])
