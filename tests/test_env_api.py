"""The PettingZoo contract: api_test, seed_test, options, bad input, rendering, views."""
import json
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import truco_env
from truco_env import ACTIONS, IllegalActionError


def seeded(env, seed):
    """Seed the spaces that PettingZoo's tests sample actions from.

    ``api_test`` draws its actions with ``env.action_space(agent).sample(mask)`` and resets
    the env with ``seed=0`` first (later resets without a seed go on with that generator), so
    with seeded spaces a failure on a rare deal or action sequence reproduces from its test id.
    """
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
        env.observation_space(agent).seed(seed + i)
    return env


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("flor", [False, True])
def test_pettingzoo_api_test(players, flor, seed):
    api_test(seeded(truco_env.env(players=players, flor=flor), seed), num_cycles=300)


def test_pettingzoo_api_test_is_reproducible():
    """Two api_test runs with the same seeds end in the same match: nothing is left unseeded."""
    records = []
    for _ in range(2):
        env = seeded(truco_env.env(players=4, flor=True), 7)
        api_test(env, num_cycles=100)
        records.append(env.unwrapped.record())
    assert records[0] == records[1]
    assert sum(len(h["actions"]) for h in records[0]["hands"]) > 0


@pytest.mark.parametrize("players", [2, 4, 6])
def test_pettingzoo_seed_test(players):
    # seed_test resets with seed=42 and seeds the action spaces itself.
    seed_test(lambda: truco_env.env(players=players), num_cycles=200)


def play_sampled(env, seed, limit=2000):
    """Reset with ``seed``, play actions sampled from the seeded spaces (as PettingZoo's tests
    do) to the end of the match; returns every step's (agent, observation, mask, reward,
    action) and the record."""
    env.reset(seed=seed)
    seeded(env, seed)
    trace = []
    for agent in env.agent_iter(limit):
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else int(env.action_space(agent).sample(
            obs["action_mask"]))
        trace.append((agent, obs["observation"].copy(), obs["action_mask"].copy(), rew,
                      json.dumps(info, sort_keys=True, default=str), action))
        env.step(action)
    return trace, env.unwrapped.record()


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_same_seed_same_match_for_other_seeds(players, seed):
    """seed_test with seeds other than 42: deals and sampled actions are reproducible."""
    a, rec_a = play_sampled(truco_env.env(players=players, flor=True), seed)
    b, rec_b = play_sampled(truco_env.env(players=players, flor=True), seed)
    assert len(a) == len(b) > players
    for x, y in zip(a, b):
        assert x[0] == y[0] and x[3] == y[3] and x[4] == y[4] and x[5] == y[5]
        assert np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2])
    assert rec_a == rec_b and rec_a["seed"] == seed
    _, rec_c = play_sampled(truco_env.env(players=players, flor=True), seed + 100)
    assert rec_c["hands"][0]["deal"] != rec_a["hands"][0]["deal"], "the seed changes the deal"


def test_action_names_are_the_contract():
    assert ACTIONS[:16] == (
        "play_0", "play_1", "play_2", "envido", "real_envido", "falta_envido", "flor",
        "contraflor", "contraflor_al_resto", "con_flor_me_achico", "truco", "retruco",
        "vale_cuatro", "quiero", "no_quiero", "mazo")


def test_observation_dict_and_masks():
    env = truco_env.env(players=4)
    env.reset(seed=1)
    obs, _, _, _, info = env.last()
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].dtype == np.int8
    assert "action_mask" not in info, "the mask is in the observation only (TorchRL, Tianshou)"
    for agent in env.agents:
        m = env.observe(agent)["action_mask"]
        assert (m.sum() > 0) == (agent == env.agent_selection)
    assert info["score"] == [0, 0]


@pytest.mark.parametrize("kwargs, name", [
    ({"players": 3}, "players"), ({"rules": "chileno"}, "chileno"), ({"target": 21}, "target"),
    ({"episode": "forever"}, "episode"), ({"reward": "money"}, "reward"),
    ({"render_mode": "gif"}, "render_mode"), ({"bogus": 1}, "bogus"),
    ({"illegal": "ignore"}, "illegal"), ({"falta_rule": "x"}, "falta_rule"),
    ({"observation": "pixels"}, "pixels"),
])
def test_bad_keyword_names_it(kwargs, name):
    with pytest.raises(ValueError, match=name):
        truco_env.env(**kwargs)


@pytest.mark.parametrize("options, name", [
    ({"hands": [["7c", "6c", "4x"], ["1e", "2o", "5o"]]}, "4x"),
    ({"hands": [["7c", "6c", "8b"], ["1e", "2o", "5o"]]}, "8b"),
    ({"hands": [["7c", "6c", "1e"], ["1e", "2o", "5o"]]}, "repeated"),
    ({"hands": [["7c", "6c"], ["1e", "2o", "5o"]]}, "3 cards"),
    ({"hands": [["7c", "6c", "4b"]]}, "2 hands"),
    ({"mano": 2}, "mano"), ({"mano": -1}, "mano"),
    ({"score": [30, 0]}, "score"), ({"score": [1]}, "score"),
    ({"muestra": "3b"}, "muestra"),
])
def test_bad_reset_option_names_it(options, name):
    env = truco_env.env()
    with pytest.raises(ValueError, match=name):
        env.reset(seed=0, options=options)


def test_card_parsing_is_case_insensitive_and_strict():
    assert truco_env.parse_card("12C") == truco_env.parse_card("12c")
    with pytest.raises(ValueError, match="'13e'"):
        truco_env.parse_card("13e")


def test_unknown_option_warns_and_is_ignored():
    env = truco_env.env()
    with pytest.warns(UserWarning, match="colour"):
        env.reset(seed=0, options={"colour": "red"})
    assert env.agent_selection == "player_0"


def test_illegal_action_raises_naming_action_and_legal_ones():
    env = truco_env.env()
    env.reset(seed=0, options={"hands": [["7c", "6c", "4b"], ["1e", "2o", "5o"]]})
    with pytest.raises(IllegalActionError, match=r"quiero.*legal actions.*play_0"):
        env.step(ACTIONS.index("quiero"))
    with pytest.raises(IllegalActionError, match="99"):
        env.step(99)
    assert issubclass(IllegalActionError, ValueError)


def test_illegal_penalize_terminates_with_minus_one():
    env = truco_env.env(illegal="penalize")
    env.reset(seed=0)
    env.step(ACTIONS.index("quiero"))
    assert env.terminations["player_0"] and env.terminations["player_1"]
    assert env.rewards["player_0"] == -1 and env.rewards["player_1"] == 0


def test_view_never_shows_other_hands_and_tracks_table_and_calls():
    env = truco_env.env()
    env.reset(seed=0, options={"hands": [["7c", "6c", "4b"], ["1e", "2o", "5o"]]})
    env.step(ACTIONS.index("truco"))
    env.step(ACTIONS.index("quiero"))
    env.step(ACTIONS.index("play_2"))
    v0, v1 = env.unwrapped.view("player_0"), env.unwrapped.view("player_1")
    assert v0["hand"] == ["7c", "6c", None] and v1["hand"] == ["1e", "2o", "5o"]
    for card in ("1e", "2o", "5o"):
        assert card not in json.dumps(v0)
    assert v0["table"] == [[(0, "4b")]]
    assert v0["calls"] == [(0, "truco"), (1, "quiero")]
    assert (v0["seat"], v0["team"], v0["players"], v0["mano"]) == (0, 0, 2, 0)
    assert v0["rules"] == "argentino" and v0["target"] == 30 and v0["muestra"] is None


def test_render_ansi_shows_score_bazas_calls_and_turn():
    env = truco_env.env(render_mode="ansi")
    env.reset(seed=0, options={"hands": [["7c", "6c", "4b"], ["1e", "2o", "5o"]],
                               "score": [17, 3]})
    env.step(ACTIONS.index("truco"))
    text = env.render()
    assert "17 (buenas 2)" in text and "3 (malas)" in text
    assert "player_0 truco" in text and "To act: player_1" in text


def test_points_reward_and_hand_episode():
    env = truco_env.env(episode="hand")
    env.reset(seed=0, options={"hands": [["7c", "6c", "4b"], ["1e", "2o", "5o"]]})
    env.step(ACTIONS.index("truco"))
    env.step(ACTIONS.index("no_quiero"))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_registered_with_pettingzoo():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo version has no registry")
    env = pettingzoo.make("aec", "truco_env/Truco-v1", players=4)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]


def test_unopposed_flor_keeps_points_private():
    env = truco_env.env(flor=True, episode="hand")
    env.reset(seed=0, options={"hands": [["1e", "2e", "3e"], ["1o", "2c", "5b"]]})
    env.step(ACTIONS.index("flor"))
    assert env.infos["player_0"]["score"] == [3, 0]
    assert env.unwrapped.view("player_1")["envido_points"] == {}
    assert env.agent_selection == "player_0", "the singer keeps his turn"


def test_render_from_a_seat_hides_the_other_hands():
    env = truco_env.env(render_mode="ansi")
    env.reset(seed=0, options={"hands": [["7c", "6c", "4b"], ["1e", "2o", "5o"]]})
    env.unwrapped.render_seat = 0
    text = env.render()
    assert "7c 6c 4b" in text and "1e" not in text and "?? ?? ??" in text
    env.unwrapped.render_seat = None
    assert "1e 2o 5o" in env.render()
