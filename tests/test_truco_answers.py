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


def test_fold_read_is_the_opponents_truco_read():
    """``fold_read``: the other side's ``(folds + 1) / (answers + 2)`` to our truco songs, from
    the ``truco_reads`` piece; 0.5 before any answer, 2/3 after one fold."""
    from agents.truco_answers import fold_read
    env = make(hands=[["7c", "6c", "4b"], ["1e", "2o", "5o"]], target=30, episode="match")
    o = env.observe("player_0")["observation"][None]
    assert fold_read(o)[0] == pytest.approx(0.5)
    run(env, "0 truco", "1 no_quiero")
    for seat, want in ((0, 2 / 3), (1, 0.5)):          # seat 1 folded; seat 0 never answered
        o = env.observe(f"player_{seat}")["observation"][None]
        assert fold_read(o)[0] == pytest.approx(want)
    # In a team game the opponents are the odd relative seats, averaged.
    from truco_env.observe import O_PLAYERS, O_TREADS, Encoder
    x = np.zeros((1, Encoder("compact").size), np.float32)
    x[0, O_PLAYERS + 3] = 1.0                           # four players
    x[0, O_TREADS:O_TREADS + 12:2] = [0.9, 0.2, 0.9, 0.6, 0.9, 0.9]   # rates by relative seat
    assert fold_read(x)[0] == pytest.approx(0.4)


def _singer(seed=0):
    """A network that sings truco-family songs whenever it may (a large bias on them)."""
    net = _net(seed)
    with torch.no_grad():
        net.policy.bias[[ACTION_ID[c] for c in ("truco", "retruco", "vale_cuatro")]] += 20.0
    return net


@pytest.mark.parametrize("gate", [0.0, 0.55, 1.0])
def test_the_gate_hands_our_songs_to_the_answerer_while_they_do_not_fold(gate):
    from agents.truco_answers import SONGS, fold_read, gated
    ungated = PolicyAgent(_singer(4), greedy=True, seed=0, truco_answers="robust")
    agent = PolicyAgent(_singer(4), greedy=True, seed=0, truco_answers="robust")
    agent.set_truco_answers("robust", gate=gate)
    robust = agents.load("pretrained:robust,greedy", seed=0)
    sampler = PolicyAgent(_singer(4), seed=0, truco_answers="robust")
    sampler.set_truco_answers("robust", gate=gate)
    env = VectorTrucoEnv(256, flor=False, target=30, seed=2)
    obs, _ = env.reset()
    rng = np.random.default_rng(2)
    vetoed = kept = 0
    for _ in range(300):
        o, m = obs["observation"], obs["action_mask"]
        own = ungated.act_batch(o, m)
        got = agent.act_batch(o, m)
        veto = gated(o, m, own, gate)
        assert np.array_equal(veto, np.isin(own, SONGS) & ~truco_answering(o, m)
                              & (fold_read(o) < gate))
        assert np.array_equal(got[~veto], own[~veto])
        if veto.any():
            assert np.array_equal(got[veto], robust.act_batch_net(o[veto], m[veto]))
            p = sampler.action_probs(o[veto], m[veto])
            pr = robust.probs(torch.as_tensor(o[veto]),     # its network (no solved envido)
                              torch.as_tensor(m[veto]).bool())[0].detach().numpy()
            po = ungated.action_probs(o[veto], m[veto], sampled=True)
            sung = po[:, SONGS].sum(axis=1, keepdims=True)
            po[:, SONGS] = 0.0
            np.testing.assert_allclose(p, po + sung * pr, atol=1e-6)
        vetoed += int(veto.sum())
        kept += int((np.isin(own, SONGS) & ~veto & ~truco_answering(o, m)).sum())
        a = (rng.random(m.shape) * m).argmax(axis=1)
        obs, _, _, _ = env.step(a)
    if gate == 0.0:
        assert vetoed == 0 and kept > 100
    elif gate == 1.0:
        assert vetoed > 100 and kept == 0
    else:
        assert vetoed > 20 and kept > 20          # random opponents fold about half the time


def test_the_gate_spec_and_its_errors(tmp_path):
    net = _net(5)
    path = tmp_path / "latest.pt"
    save_checkpoint(path, {"model": net.state_dict(), "obs_size": net.obs_size,
                           "num_actions": net.num_actions, "hidden": [16], "config": {}})
    agent = agents.load(f"truco_answers:robust,gate=0.4:checkpoint:{path}", seed=0)
    assert agent.truco_gate == 0.4 and agent.truco_answers == "robust"
    assert agent.name.startswith("truco_answers:robust,gate=0.4:checkpoint:")
    for bad in ("gate=1.5", "gate=x", "gait=0.4"):
        with pytest.raises(ValueError, match=f"bad option '{bad}'.*gate=G"):
            agents.load(f"truco_answers:robust,{bad}:checkpoint:{path}", seed=0)
    with pytest.raises(ValueError, match="needs an answerer"):
        PolicyAgent(net).set_truco_answers(None, gate=0.4)


def test_the_gate_in_training_and_through_checkpoints(tmp_path):
    """truco_gate=G in train.py: the worker hands the learner's own songs to the answerer
    while the opponent does not fold (gate 1: always), and keeps the network's song as its
    transition; the config, checkpoints and snapshots carry the gate."""
    from agents.truco_answers import SONGS
    from training.config import ConfigError, make_config
    from training.pool import Pool
    from training.worker import RolloutWorker
    with pytest.raises(ConfigError, match="truco_gate=0.4.*truco_answers=NAME"):
        make_config({"truco_gate": 0.4})
    with pytest.raises(ConfigError, match=r"truco_gate=1.5.*\[0, 1\]"):
        make_config({"truco_answers": "robust", "truco_gate": 1.5})
    cfg = make_config({"truco_answers": "robust", "truco_gate": 1.0, "target": 9,
                       "num_envs": 64, "num_steps": 16, "hidden": [32], "winprob_reward": 0.0,
                       "seed": 3, "self_play_frac": 1.0})
    worker = RolloutWorker(cfg, cfg.num_envs)
    net = worker.make_net()
    with torch.no_grad():
        net.policy.bias[SONGS] += 20.0
    worker.set_models(net)
    sync = {"pool": Pool(cfg, {}, np.random.default_rng(0)).sync_message(set()),
            "exploiter_born": 0}
    asked = []
    real = worker.answerer.act_batch_net
    worker.answerer.act_batch_net = lambda o, m: asked.append((o, m)) or real(o, m)
    sung = 0
    for _ in range(2):
        data = worker.rollout(sync).batch.data
        sung += int(np.isin(data["act"], SONGS).sum())
    gated_rows = [(o, m) for o, m in asked if not truco_answering(o, m).any()]
    assert sung > 20 and sum(len(o) for o, _ in gated_rows) >= sung // 2
    for o, m in gated_rows:                    # each row could sing: a song was legal there
        assert m[:, SONGS].any(axis=1).all()
    # checkpoints, snapshots and pretrained exports carry it
    path = tmp_path / "latest.pt"
    save_checkpoint(path, {"model": _net(6).state_dict(), "obs_size": net.obs_size,
                           "num_actions": net.num_actions, "hidden": [16],
                           "config": {"truco_answers": "robust", "truco_gate": 0.35}})
    agent = PolicyAgent.load(path, seed=0)
    assert agent.truco_gate == 0.35 and agent.truco_answers == "robust"
    pool = Pool(cfg, {}, np.random.default_rng(0))
    pool.add_snapshot(net)
    assert [o.agent.truco_gate for o in pool.all()] == [1.0]
