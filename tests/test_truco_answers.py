"""Answers to the truco from another policy's network (agents.truco_answers, truco_answers=)."""
import numpy as np
import pytest
import torch

import agents
from agents.ppo_policy import PolicyAgent, PolicyNet, save_checkpoint
from agents.truco_answers import truco_answering
from truco_env import VectorTrucoEnv
from truco_env.rules import ACTION_ID

from helpers_rules import make, run

Q, NQ = ACTION_ID["quiero"], ACTION_ID["no_quiero"]
RAISES = [ACTION_ID[c] for c in ("retruco", "vale_cuatro")]
ENVIDO = [ACTION_ID[c] for c in ("envido", "real_envido", "falta_envido")]


def _net(seed=0):
    torch.manual_seed(seed)
    size = VectorTrucoEnv(1).observation_size
    return PolicyNet(size, VectorTrucoEnv(1).num_actions, (16,))


def test_answering_rows_are_the_answers_to_their_truco():
    """Over random play, a row is an answer to the truco exactly when the core's decoded
    state says a truco-family song of the other side is pending with no envido over it."""
    env = VectorTrucoEnv(256, flor=False, target=30, seed=0)
    views = env.encoder.views
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    seen = {True: 0, False: 0}
    for _ in range(300):
        o, m = obs["observation"], obs["action_mask"].astype(bool)
        v = views(o)
        want = ((v["truco.pending"][:, 1:].max(axis=1) > 0.5) & (v["truco.caller"][:, 1] > 0.5)
                & (v["envido.pending"] < 0.5))
        got = truco_answering(o, m)
        assert np.array_equal(got, want & m[:, Q])
        # an answer can always accept or reject; a non-answer with quiero legal is the envido's
        assert m[got][:, [Q, NQ]].all()
        other = m[:, Q] & ~got
        assert (v["envido.pending"][other] > 0.5).all()
        seen[True] += int(got.sum())
        seen[False] += int((m[:, Q] & ~got).sum())
        a = (rng.random(m.shape) * m).argmax(axis=1)
        obs, _, _, _ = env.step(a)
    assert seen[True] > 100 and seen[False] > 100


def test_answers_come_from_the_answerer_and_the_rest_from_the_network():
    base = PolicyAgent(_net(1), greedy=True, seed=0)
    with_answers = PolicyAgent(_net(1), greedy=True, seed=0, truco_answers="robust")
    robust = agents.load("pretrained:robust,greedy", seed=0)
    env = VectorTrucoEnv(512, flor=False, target=30, seed=1)
    obs, _ = env.reset()
    rng = np.random.default_rng(1)
    answered = 0
    for _ in range(200):
        o, m = obs["observation"], obs["action_mask"]
        ans = truco_answering(o, m)
        got = with_answers.act_batch(o, m)
        assert np.array_equal(got[~ans], base.act_batch(o[~ans], m[~ans]))
        if ans.any():
            assert np.array_equal(got[ans], robust.act_batch_net(o[ans], m[ans]))
            p = with_answers.action_probs(o[ans], m[ans])
            assert np.array_equal(p.argmax(axis=1), got[ans])
        answered += int(ans.sum())
        a = (rng.random(m.shape) * m).argmax(axis=1)
        obs, _, _, _ = env.step(a)
    assert answered > 100


def test_the_envido_goes_first_at_an_answer():
    """Facing a truco in the first baza with the envido open, a policy with the solved envido
    and truco_answers calls envido as the solution says, and passes to the answerer with the
    envido calls masked out."""
    agent = PolicyAgent(_net(2), seed=0, envido="solved", truco_answers="robust")
    env = make(hands=[["7c", "6c", "4b"], ["1e", "2o", "5o"]], target=30, episode="match")
    run(env, "0 truco")
    obs = env.observe("player_1")
    assert truco_answering(obs["observation"][None], obs["action_mask"][None])[0]
    acts = [agent.act(obs) for _ in range(200)]
    assert set(acts) <= set(ENVIDO + [Q, NQ] + RAISES)
    p = agent.action_probs(obs["observation"][None], obs["action_mask"][None])[0]
    assert abs(p.sum() - 1) < 1e-6 and p[ENVIDO].sum() > 0 and p[[Q, NQ] + RAISES].sum() > 0


def test_checkpoints_snapshots_and_specs_carry_the_answerer(tmp_path):
    from training.config import make_config
    from training.pool import Pool
    net = _net(3)
    path = tmp_path / "latest.pt"
    save_checkpoint(path, {"model": net.state_dict(), "obs_size": net.obs_size,
                           "num_actions": net.num_actions, "hidden": [16],
                           "config": {"truco_answers": "robust"}})
    agent = PolicyAgent.load(path, seed=0)
    assert agent.truco_answers == "robust" and agent.answerer is not None
    spec = agents.load(f"truco_answers:robust:checkpoint:{path}", seed=0)
    assert spec.answerer is not None and spec.name.startswith("truco_answers:robust:")
    cfg = make_config({"truco_answers": "robust", "target": 9, "num_envs": 8, "num_steps": 4,
                       "hidden": [16]})
    pool = Pool(cfg, {}, np.random.default_rng(0))
    pool.add_snapshot(net)
    pool.add_snapshot(net, prefix="exploiter")
    answers = {o.name: o.agent.truco_answers for o in pool.all()}
    assert answers == {"snapshot_1": "robust", "exploiter_2": None}


def test_bad_answerers_are_named_errors():
    from training.config import ConfigError, make_config
    with pytest.raises(ConfigError, match="truco_answers='nobody'.*robust"):
        make_config({"truco_answers": "nobody"})
    with pytest.raises(ConfigError, match="truco_answers='robust'.*flor"):
        make_config({"truco_answers": "robust", "flor": True})
    with pytest.raises(ValueError, match="truco_answers:robust"):
        agents.load("truco_answers:robust", seed=0)
    with pytest.raises(ValueError, match="not a trained policy"):
        agents.load("truco_answers:robust:heuristic", seed=0)


def test_the_learner_never_trains_on_an_answer_to_the_truco():
    """With truco_answers the answerer takes every answer of the learner to the truco: no
    stored transition is one, and there were answers to take (the test is not empty)."""
    from training.config import make_config
    from training.pool import Pool
    from training.worker import RolloutWorker
    cfg = make_config({"truco_answers": "robust", "target": 9, "num_envs": 64, "num_steps": 16,
                       "hidden": [32], "winprob_reward": 0.0, "seed": 3,
                       "self_play_frac": 1.0})
    worker = RolloutWorker(cfg, cfg.num_envs)
    torch.manual_seed(0)
    worker.set_models(worker.make_net())
    sync = {"pool": Pool(cfg, {}, np.random.default_rng(0)).sync_message(set()),
            "exploiter_born": 0}
    calls = []
    real = worker.answerer.act_batch_net
    worker.answerer.act_batch_net = lambda o, m: calls.append(len(o)) or real(o, m)
    stored = 0
    for _ in range(4):
        data = worker.rollout(sync).batch.data
        assert not truco_answering(data["obs"], data["mask"]).any()
        stored += len(data["act"])
    assert stored > 0 and sum(calls) > 10
