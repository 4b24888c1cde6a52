"""The vector environment: shapes, auto-reset, per-seat rewards, agreement with the AEC env."""
import numpy as np
import pytest

import truco_env
from truco_env import ACTIONS, VectorTrucoEnv


def random_actions(rng, mask):
    return (rng.random(mask.shape) + mask).argmax(axis=1)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_vector_runs_matches_and_autoresets(players):
    venv = VectorTrucoEnv(64, players=players, seed=0, flor=True)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(3000):
        assert (obs["action_mask"].sum(axis=1) > 0).all(), "every game has a player to act"
        obs, rewards, dones, info = venv.step(random_actions(rng, obs["action_mask"]))
        assert rewards.shape == (64, players)
        assert np.all(rewards.sum(axis=1) == 0), "zero-sum"
        if dones.any():
            finished += dones.sum()
            assert (np.abs(rewards[dones]) == 1).all()
            assert (info["winner"][dones] >= 0).all()
            team = np.arange(players) % 2
            won = rewards[dones] > 0
            assert (won == (team[None, :] == info["winner"][dones][:, None])).all()
            assert (info["score"][dones].max(axis=1) >= 30).all()
        assert not rewards[~dones].any()
    assert finished > 20


def test_vector_points_reward_per_hand():
    venv = VectorTrucoEnv(32, players=2, episode="hand", seed=1)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    total = np.zeros(32)
    for _ in range(200):
        obs, rewards, dones, info = venv.step(random_actions(rng, obs["action_mask"]))
        assert (dones == info["hand_ended"]).all()
        assert (rewards[:, 0] == -rewards[:, 1]).all()
        total += rewards[:, 0]
        assert not rewards[~dones].any()
    assert np.abs(total).sum() > 0


def test_vector_rejects_illegal_actions():
    venv = VectorTrucoEnv(4, seed=0)
    obs, _ = venv.reset()
    with pytest.raises(truco_env.IllegalActionError, match="quiero"):
        venv.step(np.full(4, ACTIONS.index("quiero")))
    with pytest.raises(ValueError, match="num_envs"):
        VectorTrucoEnv(0)


def test_vector_and_aec_observations_agree():
    venv = VectorTrucoEnv(1, players=2, seed=0)
    obs, info = venv.reset()
    S = venv.state
    env = truco_env.env(players=2)
    mano = int(S[0, truco_env.core.MANO])
    hands = [[truco_env.card_str(c) for c in S[0, truco_env.core.HAND + 3 * p:
                                                truco_env.core.HAND + 3 * p + 3]] for p in range(2)]
    env.reset(seed=0, options={"hands": hands, "mano": mano})
    rng = np.random.default_rng(0)
    for _ in range(6):
        o = env.observe(env.agent_selection)
        assert np.array_equal(o["observation"], obs["observation"][0])
        assert np.array_equal(o["action_mask"], obs["action_mask"][0])
        a = random_actions(rng, obs["action_mask"])
        obs, r, d, info = venv.step(a)
        env.step(int(a[0]))
        if d[0] or info["hand_ended"][0]:
            break
