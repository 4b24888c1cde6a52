"""Team games, 2v2 and 3v3 (docs/rules.md section 2): who answers, team bazas, envido ties, mazo."""

import pytest

from helpers_rules import (
    ENVIDO_CALLS,
    assert_score,
    done,
    legal,
    make,
    rewards,
    run,
    table,
    turn,
    view,
)

# 2v2: A1 = 0, B1 = 1, A2 = 2, B2 = 3; the mano is seat 0 unless said.
H4 = [["4e", "5e", "6e"], ["3o", "5o", "6o"], ["3e", "7c", "12e"], ["4o", "7b", "12o"]]
# 3v3: team A = seats 0, 2, 4; team B = seats 1, 3, 5.
H6 = [
    ["4e", "5e", "6e"],
    ["5o", "6o", "7o"],
    ["6c", "12e", "11e"],
    ["7c", "12o", "11o"],
    ["1e", "10e", "10o"],
    ["4b", "5b", "6b"],
]


def test_2v2_truco_ladder_answered_by_next_player_of_the_other_team():
    env = make(players=4, hands=H4)
    run(env, "0 truco", "1 retruco", "2 vale_cuatro", "3 quiero")
    assert turn(env) == 0  # the turn returns to A1, who was about to play


def test_2v2_truco_sung_mid_baza_returns_to_the_singer():
    env = make(players=4, hands=H4)
    run(env, "0 4e", "1 truco")
    assert turn(env) == 2
    run(env, "2 quiero")
    assert turn(env) == 1
    assert "retruco" not in legal(env)


def test_2v2_raise_later_by_the_team_mate_of_the_accepter():
    env = make(players=4, hands=H4)
    run(env, "0 truco", "1 quiero", "0 4e", "1 3o")
    assert turn(env) == 2
    assert "retruco" not in legal(env)  # team A sang the truco
    run(env, "2 3e", "3 4o")  # parda: A1 leads baza 2
    assert turn(env) == 0
    run(env, "0 5e")
    assert "retruco" in legal(env)
    run(env, "1 retruco")
    assert turn(env) == 2  # next player of team A after B1
    run(env, "2 no_quiero")
    assert done(env)
    assert_score(env, [0, 2])


def test_2v2_envido_chain_answers_alternate_and_a_player_who_played_may_answer():
    hands = [["1o", "10b", "11c"], ["7c", "6c", "4b"], ["7e", "6e", "4o"], ["1b", "10o", "11e"]]
    env = make(players=4, hands=hands)
    run(env, "0 1o", "1 7c")
    assert turn(env) == 2
    run(env, "2 envido")
    assert turn(env) == 3
    run(env, "3 envido")
    assert turn(env) == 0  # A1 already played: he may answer and raise, not open
    assert {"quiero", "no_quiero", "real_envido", "falta_envido"} <= legal(env)
    run(env, "0 real_envido")
    assert turn(env) == 1
    run(env, "1 quiero")
    # Team A best 33 (A2, seat 2) vs team B best 33 (B1, seat 1): B1 is nearer the mano.
    assert_score(env, [0, 7])
    assert turn(env) == 2  # A2 was about to play


def test_2v2_envido_called_mid_baza_turn_returns_to_caller():
    hands = [["1o", "10b", "11c"], ["7c", "6c", "4b"], ["7e", "6e", "4o"], ["1b", "10o", "11e"]]
    env = make(players=4, hands=hands)
    run(env, "0 1o", "1 envido")
    assert turn(env) == 2
    run(env, "2 no_quiero")
    assert_score(env, [0, 1])
    assert turn(env) == 1
    assert not legal(env) & ENVIDO_CALLS


def test_2v2_player_who_played_cannot_open_envido():
    env = make(players=4, hands=H4)
    run(env, "0 4e", "1 3o", "2 3e", "3 4o")  # parda, A1 leads baza 2
    assert turn(env) == 0
    assert not legal(env) & ENVIDO_CALLS


@pytest.mark.parametrize(
    "cards, leader",
    [
        (["0 4e", "1 5o", "2 3e", "3 7b"], 2),  # A2's card wins: A2 leads
        (["0 4e", "1 5o", "2 7c", "3 12o"], 3),  # B2's card wins: B2 leads
        (["0 4e", "1 3o", "2 3e", "3 4o"], 0),  # parda: the opener leads
        (["0 6e", "1 6o", "2 7c", "3 7b"], 0),  # 7c/7b equal: parda
    ],
)
def test_2v2_team_baza_leader(cards, leader):
    env = make(players=4, hands=H4)
    run(env, *cards)
    assert turn(env) == leader
    assert len(table(env)[0]) == 4


def test_2v2_equal_top_cards_of_one_team_first_played_leads():
    hands = [["5e", "4e", "6e"], ["3e", "5o", "6o"], ["7c", "12e", "11e"], ["3o", "7b", "12o"]]
    env = make(players=4, hands=hands)
    run(env, "0 5e", "1 3e", "2 7c", "3 3o")
    assert turn(env) == 1  # team B won with two 3s; B1 played the first


def test_2v2_hand_won_by_team():
    env = make(players=4, hands=H4)
    run(env, "0 4e", "1 5o", "2 3e", "3 7b")  # A2 wins baza 1
    run(env, "2 12e", "3 12o", "0 5e", "1 6o")  # parda in baza 2: team A wins the hand
    assert done(env)
    assert_score(env, [1, 0])


@pytest.mark.parametrize(
    "mano, tied_seats, winner_team",
    [
        (0, (1, 2), 1),  # case 15
        (0, (2, 3), 0),
        (2, (3, 0), 1),
        (2, (0, 1), 0),
        (1, (1, 2), 1),  # the mano himself
        (3, (2, 3), 1),
    ],
)
def test_2v2_envido_tie_goes_to_the_player_nearest_the_mano(mano, tied_seats, winner_team):
    hi = iter([["7c", "6c", "4b"], ["7e", "6e", "4o"]])
    lo = iter([["1o", "10b", "11c"], ["1b", "10o", "11e"]])
    hands = [next(hi) if s in tied_seats else next(lo) for s in range(4)]
    env = make(players=4, hands=hands, mano=mano)
    run(env, f"{mano} envido", f"{(mano + 1) % 4} quiero")
    expected = [0, 0]
    expected[winner_team] = 2
    assert_score(env, expected)
    winner_seat = min(tied_seats, key=lambda s: (s - mano) % 4)
    assert view(env, 0)["envido_points"].get(winner_seat) == 33


@pytest.mark.parametrize(
    "hands, winner_team, winner_seat",
    [
        # A1 25, B1 1, A2 33, B2 30: A2's 33 beats B2's 30 though A1 spoke first for team A.
        ([["5e", "10e", "10b"], ["1b", "10o", "11c"], ["7c", "6c", "4b"], ["7o", "3o", "12o"]],
         0, 2),
        # A1 5, B1 20, A2 30, B2 25.
        ([["5e", "10b", "11c"], ["10o", "11o", "4b"], ["7c", "3c", "12e"], ["5b", "12b", "1o"]],
         0, 2),
        # A1 20, B1 21, A2 1, B2 33: team B wins (B2 need not show his 33).
        ([["10e", "11e", "4b"], ["1o", "12o", "3c"], ["1b", "10c", "11o"], ["7c", "6c", "5o"]],
         1, None),
    ],
)
def test_2v2_envido_the_best_of_each_side_counts(hands, winner_team, winner_seat):
    env = make(players=4, hands=hands)
    run(env, "0 envido", "1 quiero")
    expected = [0, 0]
    expected[winner_team] = 2
    assert_score(env, expected)
    if winner_seat is not None:  # he had to speak to beat the other side
        assert winner_seat in view(env, 0)["envido_points"]


def test_2v2_mazo_gives_up_for_the_whole_side():
    env = make(players=4, hands=H4)
    run(env, "0 truco", "1 quiero", "0 4e", "1 mazo")
    assert done(env)
    assert_score(env, [2, 0])
    assert rewards(env) == {"player_0": 2, "player_1": -2, "player_2": 2, "player_3": -2}


def test_2v2_mazo_by_the_partner_of_the_leader():
    env = make(players=4, hands=H4)
    run(env, "0 4e", "1 5o", "2 mazo")
    assert done(env)
    assert_score(env, [0, 1])


# ----------------------------------------------------------------------------- 3v3

def test_3v3_truco_ladder_answers():
    env = make(players=6, hands=H6)
    run(env, "0 truco", "1 retruco", "2 vale_cuatro", "3 quiero")
    assert turn(env) == 0


def test_3v3_song_of_the_last_seat_is_answered_by_seat_0():
    env = make(players=6, hands=H6)
    run(env, "0 4e", "1 5o", "2 6c", "3 7c", "4 10e", "5 truco")
    assert turn(env) == 0
    run(env, "0 quiero")
    assert turn(env) == 5


def test_3v3_answer_mid_baza():
    env = make(players=6, hands=H6)
    run(env, "0 4e", "1 5o", "2 6c", "3 truco")
    assert turn(env) == 4
    run(env, "4 retruco")
    assert turn(env) == 5
    run(env, "5 quiero")
    assert turn(env) == 3


@pytest.mark.parametrize(
    "cards, leader",
    [
        (["0 4e", "1 5o", "2 6c", "3 7c", "4 1e", "5 4b"], 4),
        (["0 4e", "1 7o", "2 6c", "3 7c", "4 10e", "5 4b"], 1),
        (["0 5e", "1 5o", "2 11e", "3 11o", "4 10o", "5 4b"], 0),
    ],
    ids=["A3-wins", "B1-wins", "parda"],
)
def test_3v3_team_baza_leader(cards, leader):
    env = make(players=6, hands=H6)
    run(env, *cards)
    assert turn(env) == leader


@pytest.mark.parametrize(
    "tied_seats, winner_team",
    [((2, 3), 0), ((1, 4), 1), ((5, 4), 0), ((1, 2), 1)],
)
def test_3v3_envido_tie_goes_to_the_player_nearest_the_mano(tied_seats, winner_team):
    hi = iter([["7c", "6c", "4b"], ["7e", "6e", "4o"]])
    lo = iter([["1o", "10b", "11c"], ["1b", "10o", "11e"], ["12e", "11b", "3o"],
               ["12o", "10e", "2b"]])
    hands = [next(hi) if s in tied_seats else next(lo) for s in range(6)]
    env = make(players=6, hands=hands)
    run(env, "0 envido", "1 quiero")
    expected = [0, 0]
    expected[winner_team] = 2
    assert_score(env, expected)


def test_3v3_mazo_gives_up_for_the_whole_side():
    env = make(players=6, hands=H6)
    run(env, "0 4e", "1 mazo")
    assert done(env)
    assert_score(env, [1, 0])
    r = rewards(env)
    assert [r[f"player_{s}"] for s in range(6)] == [1, -1, 1, -1, 1, -1]


def test_3v3_hand_won_by_team():
    env = make(players=6, hands=H6)
    run(env, "0 4e", "1 5o", "2 6c", "3 7c", "4 1e", "5 4b")  # A3 (seat 4) wins baza 1
    run(env, "4 10e", "5 5b", "0 5e", "1 6o", "2 12e", "3 12o")  # 12e/12o: parda
    assert done(env)
    assert_score(env, [1, 0])
