"""Pica-pica (docs/rules.md section 11; seed 000 "Pica Pica", seed 002 "Pica-pica"): hands played
as 1v1 duels between opposite players, each a full hand, the points to the teams."""
import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import truco_env
from truco_env import core as C
from truco_env.game import Matches
from truco_env.observe import Encoder
from truco_env.rules import get_rules

from helpers_rules import (act, assert_hidden_cards_do_not_leak, assert_score, done, legal, make,
                           run, score, turn, view)
from test_invariants import CONFIGS as _UNUSED, hand_books, play_random  # noqa: F401

# argentino with pica-pica from the first hand: the alternate schedule starts once a side has
# 8 (half of 15 rounded up, target 30), so a score of 8 makes hand 1 a pica-pica hand.
PICA = dict(pica_pica=True, pica_pica_schedule="alternate")
# 3v3, team 0 = seats 0, 2, 4; duels (mano 0): 0-3, 1-4, 2-5.
H6 = [
    ["7c", "6c", "4b"],     # 0: envido 33
    ["4e", "5o", "6b"],     # 1
    ["1e", "1b", "7e"],     # 2: the two best cards
    ["1c", "2c", "5e"],     # 3: envido 23
    ["4c", "5c", "6o"],     # 4
    ["4o", "5b", "6e"],     # 5
]


def test_bad_configurations_are_named_errors():
    with pytest.raises(ValueError, match=r"pica_pica=True with players=2.*\[4, 6\]"):
        truco_env.env(players=2, pica_pica=True)
    with pytest.raises(ValueError, match=r"pica_pica=True with players=4.*\[6\]"):
        truco_env.env(players=4, rules="trucoshi", pica_pica=True)
    with pytest.raises(ValueError, match="pica_pica_schedule='sometimes'"):
        truco_env.env(players=4, pica_pica=True, pica_pica_schedule="sometimes")
    with pytest.raises(ValueError, match="pica_pica_players"):
        truco_env.env(players=4, pica_pica=True, pica_pica_players=(2,))
    with pytest.raises(ValueError, match="pica_pica=True with players=2"):
        truco_env.VectorTrucoEnv(4, players=2, pica_pica=True)
    # trucoshi plays it in 6-player matches only ("existe solo en partidas de 6 jugadores")
    assert Matches(1, 6, get_rules("trucoshi")).pica_pica
    assert not Matches(1, 4, get_rules("trucoshi")).pica_pica
    assert not Matches(1, 2, get_rules("trucoshi")).pica_pica
    assert not Matches(1, 6, get_rules("argentino")).pica_pica


def test_three_duels_each_a_full_hand_points_to_the_teams():
    """000: "Cada duelo reparte sus puntos normalmente, incluyendo truco, envido"; a no quiero
    or a mazo ends only that duel; the points go to the team."""
    env = make(players=6, hands=H6, score=[8, 0], **PICA)
    v = view(env)
    assert v["pica_pica"] and v["duel"] == 0
    assert [d["seats"] for d in v["duels"]] == [[0, 3], [1, 4], [2, 5]]
    # Duel 1, 0 v 3: envido 33 v 23 -> team 0 +2; truco no quiero -> team 0 +1 (duel over).
    run(env, "0 envido", "3 quiero", "0 truco", "3 no_quiero")
    assert score(env) == [8 + 3, 0] and not done(env)
    # Duel 2, 1 v 4 (1 is its mano): 1 goes to the mazo -> team 0 (seat 4) +1, duel over.
    assert turn(env) == 1 and view(env)["duel"] == 1 and view(env)["mano"] == 1
    run(env, "1 mazo")
    assert score(env) == [12, 0]
    # Duel 3, 2 v 5: truco accepted, 2 wins two bazas -> team 0 +2 and the hand is over.
    run(env, "2 truco", "5 quiero", "2 1e", "5 4o", "2 1b", "5 5b")
    assert done(env)
    assert_score(env, [14, 0])       # 8 + (2 + 1) + 1 + 2; books: hand points = events
    hand = env.unwrapped.last_hand("player_0")
    assert hand["end_reason"] == "duels" and hand["hand_points"] == [6, 0]
    assert [(d["winner"], d["end_reason"]) for d in hand["duels"]] == [
        (0, "no_quiero"), (0, "mazo"), (0, "bazas")]
    assert hand["duels"][2]["table"] == [[(2, "1e"), (5, "4o")], [(2, "1b"), (5, "5b")]]


def test_only_the_duel_players_act_and_answer():
    env = make(players=6, hands=H6, score=[8, 0], **PICA)
    run(env, "0 truco")
    assert turn(env) == 3                 # the rival in front answers, not seat 1
    run(env, "3 quiero", "0 7c")
    assert turn(env) == 3                 # the baza is the duel's: 3 plays next
    raw = env.unwrapped
    for a in raw.agents:
        assert (raw.action_mask(a).sum() > 0) == (a == "player_3")
    run(env, "3 1c")                      # 1c > 7c: 3 leads baza 2
    assert turn(env) == 3


def test_duel_envido_tie_goes_to_the_duel_mano_and_flor_is_the_duels():
    # Duel 2 (1 v 4): both 25 -> seat 1, the duel's mano, wins (section 3 ties).
    hands = [["7c", "6b", "4b"], ["5e", "10e", "3o"], ["1e", "1b", "7e"], ["1c", "2c", "4e"],
             ["5c", "12c", "2o"], ["4o", "5b", "6e"]]
    env = make(players=6, hands=hands, score=[8, 0], **PICA)
    run(env, "0 mazo")                     # duel 1: team 1 +1
    run(env, "1 envido", "4 quiero")      # tie 25-25: the duel mano's team (1) +2
    assert score(env) == [8, 3]
    assert view(env)["envido_points"][1] == 25
    # flor (argentino flor=True): seat 5's flor belongs to duel 3 only
    hands = [["7c", "6c", "4c"], ["4e", "5o", "6b"], ["1e", "1b", "7e"], ["1c", "2e", "5e"],
             ["4b", "5c", "6o"], ["3o", "7o", "12o"]]
    env = make(players=6, hands=hands, score=[8, 0], flor=True, **PICA)
    assert legal(env) == {"flor"}
    run(env, "0 flor")                    # unopposed in its duel although 5 has flor: +3
    assert score(env) == [11, 0]
    run(env, "0 mazo", "1 mazo")          # duels 1, 2 (team 1 +1, team 0 +1)
    assert turn(env) == 2 and "flor" not in legal(env)
    run(env, "2 1e")
    assert legal(env) == {"flor"}         # 5 must sing its flor in its duel
    run(env, "5 flor")
    assert score(env) == [12, 1 + 3]


def test_match_ends_inside_a_duel():
    env = make(players=6, hands=H6, score=[29, 0], episode="match", **PICA)
    run(env, "0 mazo")                    # duel 1: team 1 +1
    assert score(env) == [29, 1] and not done(env)
    run(env, "1 mazo")                    # duel 2: team 0 +1 = 30, the match is over
    assert done(env) and score(env) == [30, 1]
    hand = env.unwrapped.last_hand("player_0")
    assert hand["end_reason"] == "match_point" and hand["winner"] == 0
    assert hand["duels"][2]["end_reason"] is None and hand["duels"][2]["table"] == []
    assert hand["mano"] == 0              # the hand's mano again


def test_4_player_pairing_and_mano_rotation():
    """4 players: m v m+1, m+2 v m+3; the mano rotates as after any hand."""
    env = make(players=4, mano=1, score=[8, 0], episode="match", **PICA)
    v = view(env)
    assert [d["seats"] for d in v["duels"]] == [[1, 2], [3, 0]]
    run(env, "1 mazo", "3 mazo")          # the rivals of 1 (seat 2) and of 3 (seat 0): team 0
    assert score(env) == [10, 0]
    v = view(env)
    assert v["hand_number"] == 2 and v["mano"] == 2 and not v["pica_pica"]   # alternate


def _hand_kinds(env, hands, mazo_until_over=True):
    """Play ``hands`` hands by going to the mazo at once; their pica-pica flags."""
    kinds = []
    for _ in range(hands):
        v = view(env)
        kinds.append(v["pica_pica"])
        n = v["hand_number"]
        while view(env)["hand_number"] == n and not done(env):
            act(env, "mazo")
    return kinds


def test_argentino_schedule_from_the_second_round_until_buenas():
    """000: "Se hace a partir de la segunda ronda y hasta llegar a 'las buenas'"."""
    env = make(players=4, episode="match", pica_pica=True, seed=1)
    kinds = _hand_kinds(env, 7)
    assert kinds == [False] * 4 + [True] * 3    # the first round (4 hands) is normal
    # 10-3: six normal hands (one mazo each) -> 13-6; hand 7 (duels 0-3, 1-4, 2-5, each
    # duel mano to the mazo) -> 14-8; hand 8 (1-4, 2-5, 3-0) -> 16-9: buenas, no more duels.
    env = make(players=6, episode="match", pica_pica=True, score=[10, 3], seed=1)
    assert _hand_kinds(env, 9) == [False] * 6 + [True, True, False]
    assert score(env) == [16, 10]        # hand 9 (mano 2) to the mazo: team 1 +1
    # A side in buenas from the start: never.
    env = make(players=6, episode="match", pica_pica=True, score=[16, 0])
    assert not any(_hand_kinds(env, 8))


@pytest.mark.parametrize("target, start", [(18, 5), (24, 6), (30, 8)])
def test_trucoshi_schedule_half_of_the_number_then_alternating(target, start):
    """002: "Empieza cuando algún equipo llega a la mitad del puntaje objetivo, redondeada hacia
    arriba. Desde ahí, las manos alternan entre pica-pica y manos normales." (RULES.md: 5 of
    18, Trucoshi's 9.)"""
    env = make(players=6, rules="trucoshi", target=target, episode="match",
               score=[start - 1, 0])
    kinds = _hand_kinds(env, 6)
    # hand 1: mazo by seat 0 -> team 1 +1: start-1 v 1; hand 2 (mano 1) -> team 0 +1 = start
    assert kinds == [False, False, True, False, True, False]
    env = make(players=4, rules="trucoshi", target=target, episode="match", score=[start, 0])
    assert not any(_hand_kinds(env, 4))


def test_a_duel_is_observed_as_a_1v1_hand():
    env = make(players=6, hands=H6, score=[8, 0], **PICA)
    run(env, "0 truco", "3 quiero", "0 7c")
    enc = Encoder("compact")
    raw = env.unwrapped
    v = enc.views(raw.observe("player_3")["observation"])
    assert v["players"][1] == 1 and v["seat_from_mano"][1] == 1
    assert v["current_baza"][1].argmax() == 36 + 0 or v["current_baza"][1].sum() == 1
    assert v["pica_pica.on"] == 1 and v["pica_pica.in_duel"] == 1 and v["pica_pica.duel"][0] == 1
    v1 = enc.views(raw.observe("player_1")["observation"])   # not in the duel: his own seat
    assert v1["pica_pica.in_duel"] == 0 and v1["players"][5] == 1
    run(env, "3 1c", "3 mazo")            # duel 1 over: team 0 (seat 0) +2
    v4 = enc.views(raw.observe("player_4")["observation"])
    assert list(v4["pica_pica.results"][:2]) == [1, 0]   # my team won duel 1
    assert v4["played_cards"].sum() == 2                 # the cards on the table
    assert v4["current_baza"].sum() == 0 and v4["truco.level"][0] == 1


def test_render_shows_the_duels():
    env = make(players=6, hands=H6, score=[8, 0], render_mode="ansi", **PICA)
    run(env, "0 mazo")
    text = env.render()
    assert "Pica-pica duel 1: player_0 vs player_3, team 1 won it (mazo)" in text
    assert "Pica-pica duel 2: player_1 vs player_4, in progress" in text


PICA_CONFIGS = [dict(players=6, pica_pica=True), dict(players=4, pica_pica=True, flor=True),
                dict(players=6, rules="trucoshi"), dict(players=4, **PICA, target=15)]


@pytest.mark.parametrize("cfg", PICA_CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_random_pica_matches_keep_invariants(cfg):
    """The multi-match random fuzz: books of every hand, scores, one actor, logs in bounds."""
    env = truco_env.env(**cfg)
    target = env.unwrapped.rules.target
    rng = np.random.default_rng(0)
    pica_hands = 0
    for match in range(40):
        env.reset(seed=match)
        state = {"hand": 1, "start": [0, 0]}

        def settle():
            nonlocal pica_hands
            hand = env.unwrapped.last_hand("player_0")
            assert hand["hand_number"] == state["hand"]
            state["start"] = hand_books(hand, state["start"])
            if hand["pica_pica"]:
                pica_hands += 1
                ended = [d for d in hand["duels"] if d["end_reason"]]
                assert len(ended) == len(hand["duels"]) or hand["done"]
                for d in hand["duels"]:   # every card in a duel's table is its seats'
                    assert all(p in d["seats"] for row in d["table"] for p, _ in row)

        def check(env, agent, obs):
            raw = env.unwrapped
            S = raw.game.S
            assert S[0, C.LOG_LEN] < C.LOG_MAX
            if S[0, C.PICA]:
                d = S[0, C.DUEL]
                assert raw.agent_name_mapping[agent] in S[0, C.DUEL_SEAT + 2 * d:C.DUEL_SEAT + 2 * d + 2]
            assert max(raw.infos[agent]["score"]) < target
            now = int(S[0, C.HAND_NO])
            if now != state["hand"]:
                settle()
                state["hand"] = now

        rewards = play_random(env, rng, check)
        settle()
        final = env.unwrapped.game.S[0, C.SCORE:C.SCORE + 2]
        assert list(final) == state["start"] and (final >= target).sum() == 1
        assert sum(rewards.values()) == 0
        if match % 4 == 0:          # the record of a whole match replays it exactly
            again = truco_env.replay(json.dumps(env.unwrapped.record()))
            assert np.array_equal(again.unwrapped.game.S, env.unwrapped.game.S)
    assert pica_hands > 10


@pytest.mark.parametrize("kind", ["compact", "recall", "infostate"])
def test_no_leak_in_duels(kind):
    """Swap every other player's unplayed cards: no observation or view changes."""
    env = truco_env.env(players=6, observation=kind, flor=True, **PICA)
    compared = assert_hidden_cards_do_not_leak(env, 12, np.random.default_rng(5), 14,
                                               options={"score": [8, 0]})
    assert compared >= 40


def test_record_replays_exactly():
    env = truco_env.env(players=6, rules="trucoshi")
    env.reset(seed=11, options={"score": [5, 0]})
    play_random(env, np.random.default_rng(3))
    record = env.unwrapped.record()
    assert record["rules"]["pica_pica"] is None
    again = truco_env.replay(json.dumps(record))
    assert np.array_equal(again.unwrapped.game.S, env.unwrapped.game.S)


@pytest.mark.parametrize("players", [4, 6])
def test_pettingzoo_api_and_seed_tests(players):
    env = truco_env.env(players=players, pica_pica=True, target=9)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    api_test(env, num_cycles=400)
    seed_test(lambda: truco_env.env(players=players, pica_pica=True, target=9), num_cycles=300)
    seed_test(lambda: truco_env.env(players=6, rules="trucoshi"), num_cycles=300)


def test_vector_env_plays_pica_pica():
    venv = truco_env.VectorTrucoEnv(64, players=6, rules="trucoshi", seed=0)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(600):
        m = obs["action_mask"].astype(bool)
        a = np.array([rng.choice(np.flatnonzero(r)) for r in m])
        obs, rew, done, info = venv.step(a)
        seen += int(venv.game.S[:, C.PICA].sum())
    assert seen > 0
