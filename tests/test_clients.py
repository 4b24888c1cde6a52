"""What third-party clients rely on: arrays that are theirs to keep, the mask in the observation
only, quiet API-test probes, pictures, and a mask to draw from after the end.

(The clients themselves run in ``tests/compat/``.)
"""
from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import agents  # noqa: F401  (registers the Gymnasium id)
import truco_env
from agents.single_agent import GYM_ID, SingleAgentEnv
from truco_env import ACTIONS, IllegalActionError, core

QUIERO = ACTIONS.index("quiero")
HANDS = {"hands": [["7c", "6c", "4b"], ["1e", "2o", "5o"]]}


def _scribble(x) -> None:
    """Overwrite every array and list inside ``x`` in place (what a careless client does)."""
    if isinstance(x, np.ndarray):
        x[...] = 1
    elif isinstance(x, dict):
        for v in x.values():
            _scribble(v)
    elif isinstance(x, list):
        for i in range(len(x)):
            if isinstance(x[i], (np.ndarray, dict, list)):
                _scribble(x[i])
            else:
                x[i] = 99


def test_aec_env_is_unaffected_by_changes_to_what_it_returned():
    env = truco_env.env()
    env.reset(seed=0, options=HANDS)
    obs, _, _, _, info = env.last()
    before = env.observe("player_0")["observation"].copy()
    _scribble(obs)
    _scribble(info)
    for a in env.agents:
        _scribble(env.observe(a))
        _scribble(env.unwrapped.action_mask(a))
    _scribble(env.infos)
    assert np.array_equal(env.observe("player_0")["observation"], before)
    assert not env.observe("player_1")["action_mask"].any(), "the waiting agent's mask"
    with pytest.raises(IllegalActionError, match="quiero"):
        env.step(QUIERO)     # nothing is pending: still illegal
    env.step(ACTIONS.index("truco"))
    assert env.infos["player_0"]["score"] == [0, 0], "the score comes from the game"
    assert env.observe("player_1")["action_mask"][QUIERO] == 1


def test_waiting_agents_masks_are_not_one_shared_array():
    env = truco_env.env(players=4)
    env.reset(seed=0)
    m1, m2 = env.observe("player_1")["action_mask"], env.observe("player_2")["action_mask"]
    m1[:] = 1
    assert not m2.any() and not env.observe("player_1")["action_mask"].any()


def test_vector_env_is_unaffected_by_changes_to_what_it_returned():
    venv = truco_env.VectorTrucoEnv(4, seed=0)
    obs, info = venv.reset()
    legal = obs["action_mask"].copy()
    _scribble(obs)
    _scribble(info)
    bad = np.where(legal[:, QUIERO] == 0)[0]
    assert len(bad), "some game has nothing pending"
    actions = legal.argmax(axis=1)
    actions[bad[0]] = QUIERO
    with pytest.raises(IllegalActionError, match="quiero"):
        venv.step(actions)
    obs, rewards, dones, info = venv.step(legal.argmax(axis=1))
    keep = {k: v.copy() for k, v in obs.items()}
    _scribble([rewards, dones])
    _scribble(info)
    assert np.array_equal(venv.observe_seat(venv.state[:, core.ACTOR]), keep["observation"])
    assert np.array_equal(venv.game.legal_mask().astype(np.int8), keep["action_mask"])


def test_wrapper_is_unaffected_by_changes_to_what_it_returned():
    env = SingleAgentEnv("random", players=2, illegal="raise")
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    legal = mask.copy()
    _scribble(obs)
    _scribble(info)
    mask[:] = True
    assert np.array_equal(env.action_masks(), legal)
    bad = int(np.flatnonzero(~legal)[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)


def test_mask_is_in_the_observation_only():
    env = truco_env.env(players=4)
    env.reset(seed=1)
    for agent in env.agent_iter(40):
        obs, _, term, trunc, info = env.last()
        assert set(info) == {"score"} and len(info["score"]) == 2
        assert np.array_equal(obs["action_mask"], env.unwrapped.action_mask(agent))
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def test_api_test_probe_is_quiet_and_user_mistakes_warn():
    env = truco_env.env()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={"options": 1})     # what PettingZoo's api_test passes
    with pytest.warns(UserWarning, match="'options'"):
        env.reset(seed=0, options={"options": {"mano": 1}})   # nested by mistake
    with pytest.warns(UserWarning, match="colour"):
        env.reset(seed=0, options={"colour": "red"})


@pytest.mark.parametrize("players", [2, 6])
def test_rgb_array_picture(players):
    pytest.importorskip("PIL")
    env = truco_env.env(players=players, render_mode="rgb_array")
    env.reset(seed=0)
    env.step(ACTIONS.index("truco"))
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[0] > 100 and img.shape[1] > 100 and img.std() > 10
    env.unwrapped.render_seat = 0
    assert not np.array_equal(env.render(), img), "a seat's view hides the other hands"


def test_wrapper_accepts_what_sb3_make_vec_env_passes():
    pytest.importorskip("PIL")
    env = gymnasium.make(GYM_ID, opponent="random", render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape[2] == 3


def test_wrapper_mask_after_the_end_is_drawable():
    env = SingleAgentEnv("random", players=2, target=9, episode="hand")
    env.reset(seed=0)
    term = False
    while not term:
        _, _, term, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.action_masks().all() and info["action_mask"].all()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gymnasium_vector_next_step_autoreset_with_masks():
    """Gymnasium 1.x's SyncVectorEnv (next-step autoreset) with a masked sampler."""
    venv = gymnasium.make_vec("truco_env/Truco-v1", num_envs=2, vectorization_mode="sync",
                              opponent="random", target=9, episode="hand")
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        masks = np.stack(venv.call("action_masks"))
        assert masks.any(axis=1).all()
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        _, _, term, trunc, _ = venv.step(actions)
        ends += int(term.sum())
    assert ends > 2
    venv.close()
