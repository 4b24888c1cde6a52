"""Reads (issue 11): what each player did earlier in the match, counted in the core
(``core.READS``) and shown to every player by the ``reads`` piece of every encoder.  They are
public (everyone saw the calls), cleared when a match starts, kept across hands."""
import numpy as np
import pytest

from truco_env import core as C
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.observe import POINTS_SCALE, READ_PRIOR_POINTS, READ_SIZE, Encoder
from truco_env.rules import get_rules

from helpers_rules import make, run

ENC = Encoder("compact")


def reads(S, g, seat):
    r = C.READS + C.READ_N * seat
    return S[g, r:r + C.READ_N].tolist()


def read_piece(env, observer):
    obs = env.observe(f"player_{observer}")["observation"]
    return ENC.piece(obs, "reads")


def test_scripted_match_counts_and_encodes():
    env = make(players=2, hands=[["7e", "6e", "4c"], ["1b", "5o", "4o"]], mano=0,
               episode="match")
    S = env.unwrapped.game.S
    run(env, "0 envido", "1 real_envido", "0 quiero")   # 33 against 29: seat 0 says 33
    public = [int(S[0, C.PUBLIC + p]) for p in range(2)]
    assert public[0] == 33
    run(env, "0 7e", "1 truco", "0 no_quiero")
    assert reads(S, 0, 0)[:5] == [1, 0, 1, 1, 0]
    assert reads(S, 0, 1)[:5] == [1, 1, 0, 0, 0]
    # The showdown is added when the next hand is dealt: seat 0 called envido and said 33;
    # seat 1 called too, and counts only if it said its points aloud (not "son buenas").
    after = reads(S, 0, 0)
    assert after[C.READ_SHOWN] == 1 and after[C.READ_SHOWN_PTS] == 33
    shown1 = reads(S, 0, 1)[C.READ_SHOWN]
    assert shown1 == (1 if public[1] >= 0 else 0)
    # Encoded from seat 1's view: relative seat 0 is seat 1 itself, 1 is seat 0.
    hands = int(S[0, C.HAND_NO])
    assert hands == 2
    piece = read_piece(env, 1)
    me, rival = piece[:READ_SIZE], piece[READ_SIZE:2 * READ_SIZE]
    assert rival.tolist() == pytest.approx([1 / 2, 0.0, 1 / 2, 1.0, 0.0,
                                            (33 + READ_PRIOR_POINTS) / 2 / POINTS_SCALE])
    assert me[:5].tolist() == pytest.approx([1 / 2, 1 / 2, 1 / 2, 0.0, 0.0])
    assert piece[-1] == pytest.approx(1 / 20)          # one hand played before this one
    # Seat 0 sees the same numbers the other way round.
    assert read_piece(env, 0)[READ_SIZE:2 * READ_SIZE].tolist() == pytest.approx(me.tolist())
    # A mazo is counted for the seat that goes.
    seat = int(S[0, C.ACTOR])
    run(env, f"{seat} mazo")
    assert reads(S, 0, seat)[C.READ_MAZO] == 1


def test_reads_match_the_action_log_and_clear_each_match():
    """Random matches: the core's counters equal a count of every action since the match
    began, for every seat, at every decision; a new match starts from zero."""
    rules = get_rules("argentino", target=9, flor=True)
    game = Matches(64, 4, rules)
    game.reset(seed=3)
    counts = np.zeros((64, C.P_MAX, 5), np.int64)
    kinds = {C.A_ENVIDO: 0, C.A_REAL: 0, C.A_FALTA: 0, C.A_TRUCO: 1, C.A_RETRUCO: 1,
             C.A_VALE4: 1, C.A_QUIERO: 2, C.A_NO_QUIERO: 3, C.A_MAZO: 4}
    rng = np.random.default_rng(0)
    checked = 0

    class Random:
        batched = True

        def act_batch(self, obs, mask):
            return (rng.random(mask.shape) + mask).argmax(axis=1)

    def on_decision(g, rows, actions, mask):
        nonlocal checked
        S = g.S
        for row in rows:
            got = S[row, C.READS:C.READS + C.P_MAX * C.READ_N].reshape(C.P_MAX, C.READ_N)
            assert (got[:, :5] == counts[row]).all()
            seat = S[row, C.ACTOR]
            if int(actions[row]) in kinds:
                counts[row, seat, kinds[int(actions[row])]] += 1
            checked += 1
        obs = ENC.encode(S[rows], g.tables, S[rows, C.ACTOR])
        assert obs.min() >= 0.0 and obs.max() <= 1.0

    play(game, [Random()], on_decision=on_decision)
    assert checked > 1000 and counts.sum() > 500
    # A new match clears them: restart every finished game (the vector env's auto-reset).
    game.restart(np.arange(64))
    assert (game.S[:, C.READS:C.READS + C.P_MAX * C.READ_N] == 0).all()
    assert (game.S[:, C.HAND_NO] == 1).all()


def test_reads_are_kept_across_hands():
    game = Matches(8, 2, get_rules("argentino", target=30))
    game.reset(seed=1)
    S = game.S
    mazo = np.full(8, C.A_MAZO, np.int32)
    game.step(mazo)                       # the mano of every game goes to the mazo
    game.next_hand()
    game.step(mazo)                       # and the next mano too
    game.next_hand()
    per_seat = S[:, C.READS + C.READ_MAZO:C.READS + C.READ_N * 2:C.READ_N]
    assert (per_seat == 1).all(), per_seat
    assert (S[:, C.HAND_NO] == 3).all()


def truco_read(S, g, seat):
    r = C.READS + C.READ_N * seat
    return [int(S[g, r + C.READ_TRUCO_ANS]), int(S[g, r + C.READ_TRUCO_FOLD])]


def test_truco_read_counts_answers_to_the_other_sides_truco_only():
    """Layout 7's truco read: answers to the other side's truco-family songs and the folds
    among them; an envido sung over a pending truco (the envido goes first) and the answers to
    it are not truco answers."""
    env = make(players=2, hands=[["7e", "6e", "4c"], ["1b", "5o", "4o"]], mano=0,
               episode="match")
    S = env.unwrapped.game.S
    run(env, "0 truco", "1 envido", "0 quiero")           # envido over the truco: not answers
    assert truco_read(S, 0, 0) == [0, 0] and truco_read(S, 0, 1) == [0, 0]
    run(env, "1 retruco")                                  # seat 1 answers raising
    assert truco_read(S, 0, 1) == [1, 0]
    run(env, "0 quiero")                                   # seat 0 answers the retruco
    assert truco_read(S, 0, 0) == [1, 0]
    run(env, "0 7e", "1 1b", "1 5o")                       # seat 1 won the baza, leads
    seat = int(S[0, C.ACTOR])
    assert seat == 0
    run(env, "0 vale_cuatro", "1 no_quiero")               # a fold: the hand ends
    assert truco_read(S, 0, 1) == [2, 1] and truco_read(S, 0, 0) == [1, 0]
    # The encoder: seat 0 sees seat 1 (relative seat 1) at [(1 + 1) / (2 + 2), 2 / hands].
    obs = env.observe("player_0")["observation"]
    piece = ENC.piece(obs, "truco_reads").reshape(-1, 2)
    hands = int(S[0, C.HAND_NO])
    assert piece[1].tolist() == pytest.approx([2 / 4, min(2 / hands, 1.0)])
    assert piece[0].tolist() == pytest.approx([1 / 3, min(1 / hands, 1.0)])
    assert (piece[2:] == 0).all()


@pytest.mark.parametrize("players,flor", [(2, False), (4, True)])
def test_truco_read_matches_the_decisions(players, flor):
    """Random matches: the truco read equals a count, from each decision's observation
    (``agents.truco_answers.truco_answering``, flor not in contest), of the answers to the
    other side's truco songs and of the folds among them."""
    from agents.truco_answers import truco_answering
    from truco_env.observe import O_FLORS
    game = Matches(48, players, get_rules("argentino", target=15, flor=flor))
    game.reset(seed=5)
    counts = np.zeros((48, C.P_MAX, 2), np.int64)
    answer = {C.A_QUIERO, C.A_NO_QUIERO, C.A_TRUCO, C.A_RETRUCO, C.A_VALE4}
    rng = np.random.default_rng(1)

    class Random:
        batched = True

        def act_batch(self, obs, mask):
            return (rng.random(mask.shape) + mask).argmax(axis=1)

    def on_decision(g, rows, actions, mask):
        S = g.S
        got = S[rows, C.READS:C.READS + C.P_MAX * C.READ_N].reshape(len(rows), C.P_MAX, C.READ_N)
        assert (got[:, :, C.READ_TRUCO_ANS:C.READ_TRUCO_FOLD + 1] == counts[rows]).all()
        obs = ENC.encode(S[rows], g.tables, S[rows, C.ACTOR])
        answering = truco_answering(obs, mask[rows]) & (obs[:, O_FLORS] > 0.5)
        for i, row in enumerate(rows):
            a = int(actions[row])
            if answering[i] and a in answer:
                seat = S[row, C.ACTOR]
                counts[row, seat, 0] += 1
                counts[row, seat, 1] += a == C.A_NO_QUIERO

    play(game, [Random()], on_decision=on_decision)
    assert counts[:, :, 0].sum() > 100 and 0 < counts[:, :, 1].sum() < counts[:, :, 0].sum()
