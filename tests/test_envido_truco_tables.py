"""The envido and truco tables of docs/rules.md sections 3 and 5, row by row, and the illegal raises."""

import pytest

import truco_env
from helpers_rules import (
    ENVIDO_CALLS,
    done,
    legal,
    make,
    play_out,
    run,
    score,
    turn,
    view,
)

HI = ["7c", "6c", "4b"]  # envido 33
LO = ["1e", "2o", "5o"]  # envido 27
FALTA = "falta"

ENVIDO_TABLE = [
    # chain (A calls first, sides alternate), points if accepted, points if rejected
    (("envido",), 2, 1),
    (("real_envido",), 3, 1),
    (("falta_envido",), FALTA, 1),
    (("envido", "envido"), 4, 2),
    (("envido", "real_envido"), 5, 2),
    (("envido", "falta_envido"), FALTA, 2),
    (("real_envido", "falta_envido"), FALTA, 3),
    (("envido", "envido", "real_envido"), 7, 4),
    (("envido", "envido", "falta_envido"), FALTA, 4),
    (("envido", "real_envido", "falta_envido"), FALTA, 5),
    (("envido", "envido", "real_envido", "falta_envido"), FALTA, 7),
]
ROW_IDS = ["-".join(c[0].upper() for c in chain) for chain, _, _ in ENVIDO_TABLE]

START = [3, 5]  # both in malas (T=30): a falta is worth what the winner lacks
FALTA_FOR = {0: 27, 1: 25}


def chain_steps(chain, answer):
    """A opens, the sides alternate, and the side that did not call last answers."""
    steps = [f"{k % 2} {call}" for k, call in enumerate(chain)]
    steps.append(f"{len(chain) % 2} {answer}")
    return steps


def added(env, start):
    return [now - before for now, before in zip(score(env), start)]


@pytest.mark.parametrize("chain, accepted, rejected", ENVIDO_TABLE, ids=ROW_IDS)
@pytest.mark.parametrize("winner", [0, 1], ids=["A-wins", "B-wins"])
def test_envido_row_accepted(chain, accepted, rejected, winner):
    hands = [HI, LO] if winner == 0 else [LO, HI]
    env = make(hands=hands, score=START, target=30)
    run(env, *chain_steps(chain, "quiero"))
    points = FALTA_FOR[winner] if accepted == FALTA else accepted
    expected = [0, 0]
    expected[winner] = points
    assert added(env, START) == expected
    if accepted != FALTA:
        assert not done(env)
        assert turn(env) == 0  # the hand goes on with A, who was about to play


@pytest.mark.parametrize("chain, accepted, rejected", ENVIDO_TABLE, ids=ROW_IDS)
def test_envido_row_rejected(chain, accepted, rejected):
    env = make(hands=[LO, HI], score=START, target=30)  # the rejecter may hold the better envido
    run(env, *chain_steps(chain, "no_quiero"))
    last_caller = (len(chain) - 1) % 2
    expected = [0, 0]
    expected[last_caller] = rejected
    assert added(env, START) == expected
    assert not done(env)
    assert turn(env) == 0


@pytest.mark.parametrize(
    "target, start, winner, points",
    [
        (30, [10, 15], 0, 20),  # both in malas (15 = T/2 is malas): what the winner lacks
        (30, [10, 15], 1, 15),
        (30, [0, 0], 1, 30),
        (30, [16, 5], 0, 14),  # A in buenas: what the leader lacks
        (30, [16, 5], 1, 14),
        (30, [5, 16], 0, 14),
        (18, [9, 4], 0, 9),  # both in malas
        (18, [9, 4], 1, 14),
        (18, [10, 4], 0, 8),  # A in buenas
        (18, [10, 4], 1, 8),
        (15, [3, 7], 0, 8),  # no buenas: what the leader lacks
        (15, [3, 7], 1, 8),
        (9, [2, 1], 0, 7),
        (9, [2, 1], 1, 7),
    ],
)
def test_falta_envido_value(target, start, winner, points):
    hands = [HI, LO] if winner == 0 else [LO, HI]
    env = make(hands=hands, score=start, target=target)
    run(env, "0 falta_envido", "1 quiero")
    expected = [0, 0]
    expected[winner] = points
    assert added(env, start) == expected


@pytest.mark.parametrize(
    "chain, raises",
    [
        ((), ENVIDO_CALLS),
        (("envido",), ENVIDO_CALLS),
        (("envido", "envido"), {"real_envido", "falta_envido"}),
        (("real_envido",), {"falta_envido"}),
        (("envido", "real_envido"), {"falta_envido"}),
        (("envido", "envido", "real_envido"), {"falta_envido"}),
        (("falta_envido",), set()),
        (("envido", "falta_envido"), set()),
        (("envido", "envido", "real_envido", "falta_envido"), set()),
    ],
    ids=["open", "E", "E-E", "R", "E-R", "E-E-R", "F", "E-F", "E-E-R-F"],
)
def test_envido_raises_allowed(chain, raises):
    env = make(hands=[HI, LO])
    run(env, *[f"{k % 2} {call}" for k, call in enumerate(chain)])
    assert turn(env) == len(chain) % 2
    if chain:
        # An unanswered song: only answers, no card, no truco, no mazo.
        assert legal(env) == raises | {"quiero", "no_quiero"}
    else:
        assert legal(env) == ENVIDO_CALLS | {"play_0", "play_1", "play_2", "truco", "mazo"}
    for call in ENVIDO_CALLS - raises:
        with pytest.raises(truco_env.IllegalActionError):
            env.step(truco_env.ACTIONS.index(call))


def test_illegal_action_error_is_a_value_error():
    assert issubclass(truco_env.IllegalActionError, ValueError)
    env = make(hands=[HI, LO])
    with pytest.raises(ValueError):
        env.step(truco_env.ACTIONS.index("quiero"))  # nothing to answer


def test_envido_illegal_after_truco_accepted():
    env = make(hands=[HI, LO])
    run(env, "0 truco", "1 quiero")
    assert legal(env) == {"play_0", "play_1", "play_2", "mazo"}


def test_envido_illegal_after_both_first_cards():
    env = make(hands=[HI, LO])
    run(env, "0 4b", "1 1e")  # B wins baza 1 and leads
    assert turn(env) == 1
    assert not legal(env) & ENVIDO_CALLS
    run(env, "1 2o")
    assert not legal(env) & ENVIDO_CALLS


def test_envido_illegal_after_a_resolved_envido():
    env = make(hands=[HI, LO])
    run(env, "0 envido", "1 no_quiero")
    assert not legal(env) & ENVIDO_CALLS
    run(env, "0 4b")
    assert not legal(env) & ENVIDO_CALLS


def test_truco_answer_at_start_may_be_envido():
    env = make(hands=[HI, LO])
    run(env, "0 truco")
    assert legal(env) == {"quiero", "no_quiero", "retruco"} | ENVIDO_CALLS


def test_truco_answer_after_own_card_has_no_envido():
    env = make(hands=[HI, LO])
    run(env, "0 4b", "1 truco")
    assert turn(env) == 0
    assert legal(env) == {"quiero", "no_quiero", "retruco"}


@pytest.mark.parametrize("call", ["envido", "real_envido", "falta_envido"])
def test_envido_va_primero_any_envido_call(call):
    env = make(hands=[HI, LO], score=[3, 5])
    run(env, "0 truco", f"1 {call}", "0 no_quiero")
    assert score(env) == [3, 6]
    assert turn(env) == 1
    assert legal(env) == {"quiero", "no_quiero", "retruco"}
    run(env, "1 no_quiero")
    assert done(env)
    assert score(env) == [4, 6]


def test_envido_envido_raise_after_truco_then_truco_answer():
    env = make(hands=[HI, LO])
    run(env, "0 truco", "1 envido", "0 envido", "1 quiero")
    assert score(env) == [4, 0]
    assert turn(env) == 1
    run(env, "1 retruco", "0 quiero")
    assert turn(env) == 0


@pytest.mark.parametrize(
    "hand, points",
    [
        (["7c", "6c", "4b"], 33),
        (["1e", "2o", "5o"], 27),
        (["7e", "10e", "3o"], 27),
        (["10e", "11e", "3o"], 20),
        (["4e", "5o", "6c"], 6),
        (["10e", "11o", "12c"], 0),
        (["7o", "6o", "5o"], 33),  # flor off: the best two of the suit
        (["1c", "2c", "12c"], 23),
    ],
)
def test_envido_points_of_the_winner_made_public(hand, points):
    env = make(hands=[hand, ["10b", "11c", "12o"]])  # opponent 0; a tie goes to A, the mano
    run(env, "0 envido", "1 quiero")
    assert score(env) == [2, 0]
    shown = view(env, 1)["envido_points"]
    assert shown.get(0) == points
    assert 1 not in shown  # the loser, speaking after the winner, says "son buenas"


def test_envido_points_after_a_card_was_played():
    env = make(hands=[["7c", "6c", "4b"], ["1e", "2o", "5o"]])
    run(env, "0 7c", "1 envido", "0 quiero")  # A's envido is counted on the 3 cards dealt
    assert score(env) == [2, 0]
    assert view(env, 1)["envido_points"].get(0) == 33


def test_envido_points_stay_private_when_rejected():
    env = make(hands=[HI, LO])
    run(env, "0 envido", "1 no_quiero")
    assert not view(env, 1)["envido_points"]


# ----------------------------------------------------------------------------- truco

STRONG = ["1e", "1b", "7e"]
WEAK = ["4o", "5c", "6b"]


@pytest.mark.parametrize(
    "chain, points",
    [
        ((), 1),
        (("truco", "quiero"), 2),
        (("truco", "retruco", "quiero"), 3),
        (("truco", "retruco", "vale_cuatro", "quiero"), 4),
    ],
    ids=["none", "truco", "retruco", "vale_cuatro"],
)
@pytest.mark.parametrize("winner", [0, 1], ids=["A-wins", "B-wins"])
def test_truco_row_accepted(chain, points, winner):
    hands = [STRONG, WEAK] if winner == 0 else [WEAK, STRONG]
    env = make(hands=hands)
    run(env, *[f"{k % 2} {call}" for k, call in enumerate(chain)])
    assert turn(env) == 0
    assert score(env) == [0, 0]
    play_out(env)
    expected = [0, 0]
    expected[winner] = points
    assert score(env) == expected


@pytest.mark.parametrize(
    "chain, points",
    [
        (("truco",), 1),
        (("truco", "retruco"), 2),
        (("truco", "retruco", "vale_cuatro"), 3),
    ],
    ids=["truco", "retruco", "vale_cuatro"],
)
def test_truco_row_rejected(chain, points):
    env = make(hands=[WEAK, STRONG])
    steps = [f"{k % 2} {call}" for k, call in enumerate(chain)]
    run(env, *steps, f"{len(chain) % 2} no_quiero")
    assert done(env)
    last_caller = (len(chain) - 1) % 2
    expected = [0, 0]
    expected[last_caller] = points
    assert score(env) == expected


def test_truco_raises_later_in_the_hand_by_the_side_holding_the_quiero():
    env = make(hands=[STRONG, WEAK])
    run(env, "0 truco", "1 quiero")
    assert "retruco" not in legal(env)
    run(env, "0 7e")
    assert legal(env) == {"play_0", "play_1", "play_2", "retruco", "mazo"}
    run(env, "1 retruco")
    assert legal(env) == {"quiero", "no_quiero", "vale_cuatro"}
    run(env, "0 quiero")
    assert turn(env) == 1  # B was about to play
    assert "vale_cuatro" not in legal(env)  # B sang the retruco
    run(env, "1 4o")  # A wins baza 1 and leads
    assert "vale_cuatro" in legal(env)
    run(env, "0 vale_cuatro", "1 quiero", "0 1e", "1 5c")
    assert done(env)
    assert score(env) == [4, 0]


def test_no_raise_after_vale_cuatro():
    env = make(hands=[STRONG, WEAK])
    run(env, "0 truco", "1 retruco", "0 vale_cuatro")
    assert legal(env) == {"quiero", "no_quiero"}
    run(env, "1 quiero")
    assert legal(env) == {"play_0", "play_1", "play_2", "mazo"}
    run(env, "0 7e")
    assert legal(env) == {"play_0", "play_1", "play_2", "mazo"}


def test_truco_cannot_be_sung_twice():
    env = make(hands=[STRONG, WEAK])
    run(env, "0 truco", "1 quiero", "0 7e")
    assert "truco" not in legal(env)


def test_pie_may_sing_truco_after_the_mano_played():
    env = make(hands=[STRONG, WEAK])
    run(env, "0 7e")
    assert "truco" in legal(env)
    run(env, "1 truco", "0 quiero")
    assert turn(env) == 1
    assert "retruco" not in legal(env)


@pytest.mark.parametrize("winner", [0, 1], ids=["A-wins", "B-wins"])
def test_trucoshi_falta_is_what_the_leader_lacks_even_in_malas(winner):
    hands = [HI, LO] if winner == 0 else [LO, HI]
    env = make(hands=hands, rules="trucoshi", score=[2, 5])  # target 18 by default
    run(env, "0 falta_envido", "1 quiero")
    expected = [0, 0]
    expected[winner] = 13
    assert added(env, [2, 5]) == expected
