"""Gymnasium single-agent view: env checker, masks, rewards against a direct AEC play."""
from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils import seeding
from gymnasium.utils.env_checker import check_env

import agents
import truco_env
from agents.single_agent import GYM_ID, SingleAgentEnv


@pytest.mark.parametrize("kwargs", [dict(opponent="heuristic"),
                                    dict(opponent="random", players=4, seat=3, flor=True),
                                    dict(opponent="random", episode="hand")])
def test_check_env(kwargs):
    env = gymnasium.make(GYM_ID, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)


def test_spaces_and_masks():
    env = SingleAgentEnv("heuristic", seat=1, players=2)
    obs, info = env.reset(seed=0)
    assert obs in env.observation_space and obs.dtype == np.float32
    assert env.action_space.n == len(truco_env.ACTIONS)
    for _ in range(200):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert (mask == info["action_mask"]).all()
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        assert obs in env.observation_space
        if term:   # after the end: all True, so a sampler always has an action to draw
            assert info["action_mask"].all() and env.action_masks().all()
            obs, info = env.reset()


def _learner_run(seed, learner_seed, **kw):
    """Play a SingleAgentEnv episode with a seeded learner; (actions, per-step rewards)."""
    env = SingleAgentEnv(**kw)
    learner = agents.load("heuristic:bluff=0.3", seed=learner_seed)
    obs, info = env.reset(seed=seed)
    actions, rewards = [], []
    term = False
    while not term:
        a = learner.act_batch(obs[None], info["action_mask"][None])[0]
        obs, r, term, _, info = env.step(int(a))
        actions.append(int(a))
        rewards.append(r)
    return actions, rewards, env


def _direct_run(seed, learner_actions, opponent, partner, seat, **env_kwargs):
    """The same match played directly on the AEC env; learner reward per own transition.

    Seeds, the (unused) seat draw and the first mano are drawn as SingleAgentEnv draws them,
    including its re-deal when an episode ends before the learner acts (a partner's falta
    envido can end a match at once); rewards before the learner's first decision go with its
    first transition.
    """
    rng, _ = seeding.np_random(seed)
    players = env_kwargs.get("players", 2)
    others = [s for s in range(players) if s != seat]
    me = f"player_{seat}"
    while True:
        seeds = rng.integers(0, 2**31 - 1, size=1 + len(others))
        _, mano = rng.integers(0, players, 2)
        env = truco_env.env(**env_kwargs)
        env.reset(seed=int(seeds[0]), options={"mano": int(mano)})
        bots = {f"player_{s}": agents.load(partner if s % 2 == seat % 2 else opponent,
                                           seed=int(bs)) for s, bs in zip(others, seeds[1:])}
        rewards: list[float] = []
        before = 0.0   # the learner's rewards before its first decision
        it = iter(learner_actions)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if name == me:
                rewards.append(before if not rewards else 0.0)
                env.step(next(it))
            else:
                env.step(bots[name].act(obs, env.unwrapped.view(name)))
            if rewards:  # every step's reward of the learner goes to its latest transition
                rewards[-1] += env.unwrapped.rewards[me]
            else:
                before += env.unwrapped.rewards[me]
        if rewards:
            return rewards, env


@pytest.mark.parametrize("players, seat, reward", [(2, 1, "points"), (4, 2, "points"),
                                                   (4, 1, "match"), (6, 5, "points")])
def test_rewards_match_a_direct_play(players, seat, reward):
    kw = dict(players=players, target=15, reward=reward)
    actions, rewards, env = _learner_run(7, 3, opponent="heuristic", partner="random",
                                         seat=seat, **kw)
    direct, aec = _direct_run(7, actions, "heuristic", "random", seat, **kw)
    assert rewards == pytest.approx(direct)
    assert np.count_nonzero(rewards) >= (1 if reward == "match" else 3)
    # The learner's final score and the direct play's agree, and so does the match result.
    score = aec.unwrapped.view(f"player_{seat}")["score"]
    assert env.aec.view(f"player_{seat}")["score"] == score
    if reward == "match":
        mine, theirs = score[seat % 2], score[1 - seat % 2]
        assert rewards[-1] == (1.0 if mine > theirs else -1.0)
    else:
        # Every hand's points reach the learner (those before its first decision with its
        # first step), so its points rewards add up to the final score difference.
        assert sum(rewards) == score[seat % 2] - score[1 - seat % 2]


def test_seeded_reset_replays_the_match():
    a1, r1, _ = _learner_run(11, 0, opponent="random", players=4)
    a2, r2, _ = _learner_run(11, 0, opponent="random", players=4)
    assert a1 == a2 and r1 == r2


def test_illegal_actions():
    env = SingleAgentEnv("random", players=2)
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    obs, r, term, trunc, info = env.step(bad)
    assert term and r == -1.0 and "illegal_move" in info
    with pytest.raises(RuntimeError):
        env.step(0)
    env = SingleAgentEnv("random", players=2, illegal="raise")
    obs, info = env.reset(seed=0)
    with pytest.raises(truco_env.IllegalActionError):
        env.step(bad)


def test_bad_arguments():
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("random", seat=2, players=2)
    with pytest.raises(ValueError, match="missing"):
        SingleAgentEnv({1: "random"}, seat=0, players=4)
    with pytest.raises(ValueError, match="unknown agent spec"):
        SingleAgentEnv("nobody")
    with pytest.raises(ValueError):
        SingleAgentEnv("random", colour="red")
    env = SingleAgentEnv({1: "random", 2: agents.RandomAgent(), 3: "heuristic"}, players=4)
    env.reset(seed=1)


def test_maskable_ppo_runs():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = SingleAgentEnv("random", players=2, target=9)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1,
                                    seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=256)
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
