"""The solved envido (agents.solved_envido): the model's chance, tree and payoffs against the
core's rules, CFR+'s convergence, and the agent that plays the solution."""
import itertools

import numpy as np
import pytest

import agents
from agents.solved_envido import (MANO, PASS, PIE, EnvidoSubgame, SolvedEnvidoAgent, _matching,
                                  _walk, nash_conv, solution_for, solve)
from truco_env import VectorTrucoEnv, core as C
from truco_env.cards import NUM_CARDS
from truco_env.rules import ACTION_ID, get_rules
from truco_env.winprob import win_probability_table

from helpers_rules import make, run, score

A33, B27 = ["7c", "6c", "4b"], ["1e", "2o", "5o"]


def _game(target=30):
    q = np.zeros((5, 5))
    q[1, 0] = q[0, 1] = 0.3
    q[2, 0] = q[0, 2] = 0.2
    return EnvidoSubgame(get_rules("argentino", target=target, flor=False),
                         win_probability_table(target, q))


@pytest.fixture(scope="module")
def game30():
    return _game(30)


def test_chance_is_the_deal(game30):
    g = game30
    assert np.isclose(g.joint.sum(), 1.0) and np.allclose(g.joint, g.joint.T)
    # every hand has C(37, 3) disjoint partners, so the joint's marginal is the hands' histogram
    hands = np.array(list(itertools.combinations(range(NUM_CARDS), 3)))
    _, pts, _ = C.hand_points(hands, get_rules("argentino").tables())
    hist = np.array([(pts == v).sum() for v in g.values]) / len(hands)
    assert np.allclose(g.joint.sum(axis=1), hist)
    assert g.values.tolist() == list(range(8)) + list(range(20, 34))
    # the points of the two hands are not independent (cards are drawn without replacement)
    assert not np.allclose(g.joint, np.outer(hist, hist), atol=1e-5)


def _paths(g, i=0, path=()):
    """Every (actions, terminal) of the public tree."""
    node = g.nodes[i]
    for a, kid in zip(node.actions, node.children):
        step = path + ((node.actor, a),)
        if isinstance(kid, int):
            yield from _paths(g, kid, step)
        else:
            yield step, kid


def test_tree_is_the_rules_chain(game30):
    chains = {c for c, _, _ in get_rules("argentino").envido_chain if c}
    answered = {n.key[2] for n in game30.nodes if n.key[0] == "answer"}
    assert answered == chains
    # an answer node for each chain and each caller, and the two openings
    assert len(game30.nodes) == 2 * len(chains) + 2
    assert len(list(_paths(game30))) == 1 + 2 * 2 * len(chains)


@pytest.mark.parametrize("scores", [(0, 0), (8, 3), (20, 10), (10, 20), (14, 16), (27, 28)])
@pytest.mark.parametrize("mano_hand", ["33", "27"])
def test_terminals_pay_what_the_core_scores(game30, scores, mano_hand):
    """Every path of the tree, played in the real game from this score: the core's points equal
    the model's (no quiero to the last caller, an accepted chain to the higher points, a falta
    by the core's rule)."""
    g = game30
    hands = [A33, B27] if mano_hand == "33" else [B27, A33]
    mano_pts, pie_pts = (33, 27) if mano_hand == "33" else (27, 33)
    s = scores[0] * g.target + scores[1]
    for path, term in _paths(g):
        env = make(hands=hands, score=list(scores), target=30, episode="match",
                   reward="match")
        steps = [f"{actor} {'play_0' if a == PASS else a}" for actor, a in path]
        run(env, *steps)
        got = np.array(score(env)) - np.array(scores)
        if term[0] == "fixed":
            want = term[1:]
        else:
            mano_wins = mano_pts >= pie_pts
            q = dict((c, v) for c, v, _ in g.rules.envido_chain)[term[1]]
            gain = g.falta[s, 0 if mano_wins else 1] if q < 0 else q
            want = (gain, 0) if mano_wins else (0, gain)
        assert tuple(got) == tuple(want), (scores, steps, term)


def test_cfr_converges_and_beats_uniform():
    g = _game(9)
    S = len(g.scores)
    uniform = [_matching(np.zeros((len(n.actions), S, g.K))) for n in g.nodes]
    nc_uniform = nash_conv(g, uniform)
    sol = solve(g, 300)
    assert sol.nash_conv.min() > -1e-9                 # a best response never loses value
    assert sol.nash_conv.max() < 2e-3 < nc_uniform.min()
    assert solve(g, 30).nash_conv.mean() > sol.nash_conv.mean()


def test_values_match_a_simulation():
    """The tree walk's value of a strategy equals the average of sampled plays of it."""
    g = _game(9)
    sol = solve(g, 50)
    rng = np.random.default_rng(0)
    s = 3 * 9 + 2
    ones = np.ones((len(g.scores), g.K))
    internal = [np.moveaxis(x, 2, 0) for x in sol.strategy]
    value = _walk(g, 0, (ones, ones), internal)[0].sum(axis=1)[s]
    n = 20000
    flat = rng.choice(g.K * g.K, size=n, p=g.joint.ravel())
    total = 0.0
    for ti, tj in zip(flat // g.K, flat % g.K):
        i = 0
        while isinstance(i, int):
            node = g.nodes[i]
            t = ti if node.actor == MANO else tj
            k = rng.choice(len(node.actions), p=sol.strategy[i][s, t])
            i = node.children[k]
        uw, ul = g.terminal_payoffs(i)
        total += uw[s] if (i[0] == "fixed" or g.values[ti] >= g.values[tj]) else ul[s]
    assert abs(total / n - value) < 4 * 0.5 / np.sqrt(n)


def test_solution_calls_and_folds_by_points():
    sol = solution_for(9, 200)
    g = sol.game
    for key in [("answer", PIE, "F"), ("answer", MANO, "F")]:
        node = g.nodes[g.index[key]]
        q = node.actions.index("quiero")
        p = sol.strategy[g.index[key]][:, :, q]          # [scores, points]
        # early in a match to 9 (no fold can end it): 33 calls a falta, 0 folds it.  Near the
        # end some answers are indifferent (a caller at 8 wins by a fold or by the showdown
        # against 0 points) and some states are never reached (the average is arbitrary).
        early = g.scores.max(axis=1) <= 4
        assert (p[early, -1] > 0.95).all()
        assert (p[early, 0] < 0.05).all()
    with pytest.raises(ValueError, match="envido points"):
        sol.probs(("open", MANO, ""), [0], [0], [15])


def test_agent_is_legal_and_plays_the_solution():
    """solved_envido:random against random: every action legal (the env checks), and the
    falta answers are the solution's."""
    bot = SolvedEnvidoAgent(agents.load("random", seed=1), seed=2, iterations=200)
    sol = solution_for(9, 200)
    foe = agents.load("random", seed=3)
    venv = VectorTrucoEnv(64, players=2, target=9, flor=False, check_actions=True, seed=4)
    obs, info = venv.reset()
    from truco_env.observe import O_ENV, O_ENVIDO, POINTS_SCALE
    answers = {True: [0, 0], False: [0, 0]}          # strong (>= 31) / weak (<= 7): [calls, n]
    for _ in range(400):
        o, m = obs["observation"], obs["action_mask"]
        mine = info["actor"] == 0
        act = np.zeros(len(o), np.int64)
        act[mine] = bot.act_batch(o[mine], m[mine])
        act[~mine] = foe.act_batch(o[~mine], m[~mine])
        falta = mine & (o[:, O_ENVIDO + 12] > 0.5) & (o[:, O_ENVIDO + 3] > 0.5)   # chain "F"
        for g_ in np.flatnonzero(falta):
            pts = round(o[g_, O_ENV] * POINTS_SCALE)
            if pts >= 31 or pts <= 7:
                answers[pts >= 31][0] += act[g_] == ACTION_ID["quiero"]
                answers[pts >= 31][1] += 1
        obs, _, _, info = venv.step(act)
    assert answers[True][1] > 10 and answers[False][1] > 10
    assert answers[True][0] / answers[True][1] > 0.95
    assert answers[False][0] / answers[False][1] < 0.1
    assert sol.nash_conv.max() < 5e-3


def test_bad_specs_and_games_are_named_errors():
    with pytest.raises(ValueError, match="expected a base agent"):
        agents.load("solved_envido")
    with pytest.raises(ValueError, match="act_batch"):
        agents.load("solved_envido:human")
    bot = agents.load("solved_envido:random", seed=0)
    venv = VectorTrucoEnv(8, players=4, target=9, flor=False, seed=0)
    obs, _ = venv.reset()
    with pytest.raises(ValueError, match="1v1 without flor"):
        bot.act_batch(obs["observation"], obs["action_mask"])
    with pytest.raises(ValueError, match="expected 1v1 envido"):
        EnvidoSubgame(get_rules("argentino", target=30, flor=True), np.zeros((30, 30)))


# ---------------------------------------------------------------------------------------------
# train.py's envido=solved: the learner, its snapshots and the saved policy


def _solved_config(**kw):
    from training.config import make_config
    return make_config({"envido": "solved", "target": 9, "num_envs": 64, "num_steps": 16,
                        "hidden": [32], "winprob_reward": 0.0, "seed": 3, **kw})


def _self_play_worker(cfg):
    """A rollout worker of ``cfg`` in self-play with a fresh network, and its sync message."""
    import torch
    from training.pool import Pool
    from training.worker import RolloutWorker
    worker = RolloutWorker(cfg, cfg.num_envs)
    torch.manual_seed(0)
    worker.set_models(worker.make_net())
    return worker, {"pool": Pool(cfg, {}, np.random.default_rng(0)).sync_message(set()),
                    "exploiter_born": 0}


def test_the_learner_never_trains_on_an_envido_decision(monkeypatch):
    """With envido=solved the solver takes every envido decision of the learner: no stored
    transition answers a pending envido or may call one (the stored mask is the one the
    network sampled from), and the solver did decide (so the test is not empty)."""
    from agents.solved_envido import EnvidoSolver
    from truco_env.observe import Encoder

    decided = []
    real = EnvidoSolver.decide

    def spy(self, obs, mask, rng):
        out = real(self, obs, mask, rng)
        decided.append(int((out[0] >= 0).sum()))
        return out

    monkeypatch.setattr(EnvidoSolver, "decide", spy)
    cfg = _solved_config(self_play_frac=1.0)
    worker, sync = _self_play_worker(cfg)
    env_off = Encoder("compact").offsets["envido"][0]
    stored = 0
    for _ in range(3):
        data = worker.rollout(sync).batch.data
        assert not data["mask"][:, list(ACTION_ID[c] for c in
                                        ("envido", "real_envido", "falta_envido"))].any()
        assert not (data["obs"][:, env_off + 12] > 0.5).any()      # no pending envido
        assert data["mask"][np.arange(len(data["act"])), data["act"]].all()
        stored += len(data["act"])
    assert stored > 0 and sum(decided) > 20


def test_snapshots_and_the_saved_policy_play_the_solved_envido(tmp_path):
    import torch
    from agents.ppo_policy import PolicyAgent, PolicyNet, save_checkpoint
    from training.pool import Pool

    cfg = _solved_config()
    pool = Pool(cfg, {}, np.random.default_rng(0))
    net = PolicyNet(COMPACT := VectorTrucoEnv(1).observation_size, 16 + 4 + 16, (8,))
    pool.add_snapshot(net)
    pool.add_snapshot(net, prefix="exploiter")
    envidos = {o.name: o.agent.envido for o in pool.all()}
    assert envidos == {"snapshot_1": "solved", "exploiter_2": "learned"}
    # a checkpoint of an envido=solved run loads as a policy that plays the solution
    path = tmp_path / "latest.pt"
    save_checkpoint(path, {"model": net.state_dict(), "obs_size": COMPACT,
                           "num_actions": net.num_actions, "hidden": [8],
                           "config": {"envido": "solved"}})
    agent = PolicyAgent.load(path, seed=0)
    assert agent.envido == "solved" and agent.envido_solver is not None
    # its falta answers are the solution's, whatever its (untrained) network says
    env = make(hands=[["1e", "1b", "7e"], A33], score=[1, 2], target=9, episode="match")
    run(env, "0 falta_envido")
    obs = env.observe("player_1")
    answers = [agent.act(obs) for _ in range(50)]
    assert answers == [ACTION_ID["quiero"]] * 50           # 33 points always call
    # what evaluate.py probe and the browser's advice read is that distribution
    p = agent.action_probs(obs["observation"][None], obs["action_mask"][None])[0]
    assert abs(p.sum() - 1) < 1e-6 and p[ACTION_ID["quiero"]] > 0.95
    assert agent.advice(obs)["probs"][ACTION_ID["quiero"]] == pytest.approx(p[ACTION_ID["quiero"]])
    # an opening: the solution's calls, and its "pass" spread by the network over the rest
    env = make(hands=[A33, B27], score=[1, 2], target=9, episode="match")
    obs0 = env.observe("player_0")
    p = agent.action_probs(obs0["observation"][None], obs0["action_mask"][None])[0]
    calls = [ACTION_ID[c] for c in ("envido", "real_envido", "falta_envido")]
    sol = solution_for(9, 300)
    want = sol.probs(("open", MANO, ""), [1], [2], [33])[0]
    assert np.allclose(p[calls], want[1:], atol=1e-6) and abs(p.sum() - 1) < 1e-6
    torch.manual_seed(0)
    learned = PolicyAgent(net, seed=0)
    assert learned.envido_solver is None


def test_envido_solved_is_checked_against_the_game():
    from training.config import ConfigError
    with pytest.raises(ConfigError, match="envido"):
        _solved_config(players=4)
    with pytest.raises(ConfigError, match="envido"):
        _solved_config(flor=True)
    with pytest.raises(ConfigError, match="envido"):
        _solved_config(envido="exact")


def test_the_anchor_is_the_kl_from_the_solution_to_the_policy():
    import torch
    from training.ppo import anchor_divergence
    A = 16
    probs = torch.full((3, A), 1e-12)
    target = torch.zeros((3, A))
    pass_mass = torch.zeros(3)
    q, nq, E, R = (ACTION_ID[a] for a in ("quiero", "no_quiero", "envido", "real_envido"))
    probs[0, [q, nq]] = torch.tensor([0.5, 0.5])          # an answer: quiero / no quiero
    target[0, [q, nq]] = torch.tensor([0.7, 0.3])
    probs[1, [E, R, 0]] = torch.tensor([0.1, 0.1, 0.8])   # an opening: E, R, or a card
    target[1, E], pass_mass[1] = 0.2, 0.8                 # the solution: E 0.2, pass 0.8
    probs[2, 0] = 1.0                                     # no envido decision: no term
    got = anchor_divergence(torch.log(probs / probs.sum(1, keepdim=True)), target, pass_mass)
    want = ((0.7 * np.log(0.7 / 0.5) + 0.3 * np.log(0.3 / 0.5))
            + (0.2 * np.log(0.2 / 0.1) + 0.8 * np.log(0.8 / 0.8))) / 2
    assert abs(float(got) - want) < 1e-5


def test_anchored_rollouts_carry_the_solution_as_a_target():
    from truco_env.observe import Encoder

    cfg = _solved_config(envido="anchored", self_play_frac=1.0)
    worker, sync = _self_play_worker(cfg)
    env_off = Encoder("compact").offsets["envido"][0]
    data = worker.rollout(sync).batch.data
    total = data["anchor"].sum(1) + data["anchor_pass"]
    pending = data["obs"][:, env_off + 12] > 0.5
    calls = data["mask"][:, [ACTION_ID[c] for c in ("envido", "real_envido", "falta_envido")]]
    decision = pending | calls.any(1)
    assert decision.sum() > 10 and np.allclose(total[decision], 1.0, atol=1e-5)
    assert (total[~decision] == 0).all()
    assert (data["anchor_pass"][pending] == 0).all()      # an answer has no "pass"
    # the network, not the solver, took these decisions (they are its transitions)
    assert (data["act"][pending] >= 0).all() and worker.solver is None
