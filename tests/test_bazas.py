"""Bazas (docs/rules.md sections 1, 2 and 6): card ranks, pardas, who leads, when the hand
stops, mazo."""

import pytest

from helpers_rules import (
    assert_score,
    books,
    done,
    legal,
    make,
    rewards,
    run,
    table,
    turn,
    view,
)

# Each row: hands (A, B), the cards in play order as "<seat> <card>", the hand's winner.
# A (player_0) is the mano. The run asserts who leads each baza.
PARDA_TABLE = [
    ("A, A", [["1e", "1b", "4e"], ["5o", "6o", "7c"]],
     ["0 1e", "1 5o", "0 1b", "1 6o"], 0),
    ("A, B, A", [["1e", "4e", "7e"], ["5o", "1b", "6o"]],
     ["0 1e", "1 5o", "0 4e", "1 1b", "1 6o", "0 7e"], 0),
    ("A, B, B", [["1e", "4e", "5e"], ["6o", "1b", "7o"]],
     ["0 1e", "1 6o", "0 4e", "1 1b", "1 7o", "0 5e"], 1),
    ("A, parda", [["1e", "3e", "4e"], ["5o", "3o", "4o"]],
     ["0 1e", "1 5o", "0 3e", "1 3o"], 0),
    ("A, B, parda", [["1e", "4e", "3e"], ["5o", "1b", "3o"]],
     ["0 1e", "1 5o", "0 4e", "1 1b", "1 3o", "0 3e"], 0),
    ("B, parda", [["4e", "3e", "5e"], ["1b", "3o", "6o"]],
     ["0 4e", "1 1b", "1 3o", "0 3e"], 1),
    ("B, A, parda", [["4e", "1e", "3e"], ["1b", "5o", "3o"]],
     ["0 4e", "1 1b", "1 5o", "0 1e", "0 3e", "1 3o"], 1),
    ("parda, B", [["3e", "4e", "5e"], ["3o", "1b", "6o"]],
     ["0 3e", "1 3o", "0 4e", "1 1b"], 1),
    ("parda, A", [["3e", "1e", "5e"], ["3o", "4o", "6o"]],
     ["0 3e", "1 3o", "0 1e", "1 4o"], 0),
    ("parda, parda, B", [["3e", "2e", "4e"], ["3o", "2o", "5o"]],
     ["0 3e", "1 3o", "0 2e", "1 2o", "0 4e", "1 5o"], 1),
    ("parda, parda, A", [["1o", "7c", "1e"], ["1c", "7b", "4o"]],
     ["0 1o", "1 1c", "0 7c", "1 7b", "0 1e", "1 4o"], 0),
    ("parda x3", [["3e", "2e", "4e"], ["3o", "2o", "4o"]],
     ["0 3e", "1 3o", "0 2e", "1 2o", "0 4e", "1 4o"], 0),
]


@pytest.mark.parametrize("hands, cards, winner", [r[1:] for r in PARDA_TABLE],
                         ids=[r[0] for r in PARDA_TABLE])
def test_hand_winner_table(hands, cards, winner):
    env = make(hands=hands)
    run(env, *cards[:-1])
    assert not done(env), "the hand ended before the bazas decided it"
    run(env, cards[-1])
    assert done(env), "the bazas decided the hand, but it goes on"
    expected = [0, 0]
    expected[winner] = 1
    assert_score(env, expected)


def test_parda_with_b_mano_b_leads_and_three_pardas_go_to_b():
    env = make(hands=[["3e", "2e", "4e"], ["3o", "2o", "4o"]], mano=1)
    run(env, "1 3o", "0 3e", "1 2o", "0 2e", "1 4o", "0 4e")
    assert done(env)
    assert_score(env, [0, 1])


def test_parda_in_first_with_b_mano_then_a_wins():
    env = make(hands=[["3e", "1e", "4e"], ["3o", "5o", "6o"]], mano=1)
    run(env, "1 3o", "0 3e", "1 5o", "0 1e")
    assert done(env)
    assert_score(env, [1, 0])


RANK_PAIRS = [  # (higher, lower) neighbours in the truco ranking
    ("1e", "1b"), ("1b", "7e"), ("7e", "7o"), ("7o", "3c"), ("3c", "2b"), ("2b", "1o"),
    ("1c", "12e"), ("12e", "11o"), ("11b", "10c"), ("10e", "7c"), ("7b", "6e"), ("6o", "5c"),
    ("5b", "4o"),
]


@pytest.mark.parametrize("high, low", RANK_PAIRS)
@pytest.mark.parametrize("a_plays_high", [True, False], ids=["A-high", "A-low"])
def test_baza_winner_leads_next(high, low, a_plays_high):
    a, b = (high, low) if a_plays_high else (low, high)
    fillers = [c for c in ["4c", "4b", "5e", "5o", "6c", "6b"] if c not in (a, b)]
    env = make(hands=[[a, fillers[0], fillers[1]], [b, fillers[2], fillers[3]]])
    run(env, f"0 {a}", f"1 {b}")
    assert not done(env)
    assert turn(env) == (0 if a_plays_high else 1)
    assert table(env)[0] == [(0, a), (1, b)]


@pytest.mark.parametrize("a, b", [("3e", "3o"), ("2c", "2b"), ("1o", "1c"), ("12e", "12b"),
                                  ("11o", "11c"), ("10e", "10b"), ("7c", "7b"), ("6e", "6o"),
                                  ("5c", "5b"), ("4e", "4o")])
def test_equal_tier_is_a_parda_and_the_opener_leads(a, b):
    fillers = [c for c in ["1e", "1b", "7e", "7o"] if c not in (a, b)]
    env = make(hands=[[a, fillers[0], fillers[1]], [b, fillers[2], fillers[3]]])
    run(env, f"0 {a}", f"1 {b}")
    assert not done(env)
    assert turn(env) == 0


def test_no_early_end_when_the_last_card_cannot_be_beaten():
    env = make(hands=[["1b", "1e", "4e"], ["5o", "6o", "7c"]])
    run(env, "0 1b", "1 5o", "0 1e")
    assert not done(env)  # B must still play his card to baza 2
    assert turn(env) == 1
    run(env, "1 6o")
    assert done(env)
    assert_score(env, [1, 0])


def test_a_baza_each_goes_to_the_third():
    env = make(hands=[["1e", "4e", "7e"], ["5o", "1b", "6o"]])
    run(env, "0 1e", "1 5o", "0 4e", "1 1b")
    assert not done(env)
    assert turn(env) == 1  # B won baza 2
    assert [len(b) for b in table(env)] == [2, 2]  # baza 3 has no card yet


def test_played_card_slot_is_no_longer_legal():
    env = make(hands=[["1e", "4e", "7e"], ["5o", "1b", "6o"]])
    run(env, "0 4e", "1 1b")
    assert turn(env) == 1
    run(env, "1 5o")
    assert {"play_0", "play_2"} <= legal(env)
    assert "play_1" not in legal(env)


# ----------------------------------------------------------------------------- mazo

@pytest.mark.parametrize(
    "steps, expected",
    [
        (["0 mazo"], [0, 1]),
        (["0 4e", "1 mazo"], [1, 0]),
        (["0 truco", "1 quiero", "0 mazo"], [0, 2]),
        (["0 truco", "1 quiero", "0 4e", "1 mazo"], [2, 0]),
        (["0 truco", "1 retruco", "0 quiero", "0 mazo"], [0, 3]),
        (["0 truco", "1 retruco", "0 vale_cuatro", "1 quiero", "0 4e", "1 mazo"], [4, 0]),
        (["0 1e", "1 5o", "0 mazo"], [0, 1]),  # winning baza 1 gives nothing on a mazo
    ],
    ids=["mano-at-once", "pie", "truco", "truco-rival", "retruco", "vale_cuatro", "after-baza"],
)
def test_mazo_gives_the_hand_value(steps, expected):
    env = make(hands=[["1e", "4e", "7e"], ["5o", "1b", "6o"]])
    run(env, *steps)
    assert done(env)
    assert_score(env, expected)


def test_mazo_after_envido_adds_no_extra_point():
    env = make(hands=[["7c", "6c", "4b"], ["1e", "2o", "5o"]])
    run(env, "0 envido", "1 quiero")
    assert_score(env, [2, 0])
    run(env, "0 mazo")
    assert done(env)
    assert_score(env, [2, 1])
    assert rewards(env) == {"player_0": 1, "player_1": -1}  # points won minus conceded


def test_the_mano_moves_one_seat_on_after_the_hand():
    env = make(hands=[["1e", "4e", "7e"], ["5o", "1b", "6o"]], episode="match")
    run(env, "0 mazo")
    assert not done(env)
    assert_score(env, [0, 1])
    assert turn(env) == 1
    assert view(env, 0)["mano"] == 1
    assert view(env, 0)["hand_number"] == 2
    assert view(env, 0)["table"] == []  # the new hand: no card played yet
    assert books(env) == [0, 1]  # the first hand's points, counted three ways


@pytest.mark.parametrize("song", ["truco", "envido"])
def test_no_mazo_while_an_answer_is_pending(song):
    env = make(hands=[["7c", "6c", "4b"], ["1e", "2o", "5o"]])
    run(env, f"0 {song}")
    assert "mazo" not in legal(env)
    assert not legal(env) & {"play_0", "play_1", "play_2"}
