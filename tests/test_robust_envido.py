"""The data-biased response in the envido (agents.solved_envido: observe, robust_solve,
robust_for, the ``robust_envido:`` spec and ``envido=robust``)."""
import numpy as np
import pytest

import agents
from agents.solved_envido import (MANO, PIE, ROBUST_DEFAULTS, EnvidoSubgame, _cfr, _walk,
                                  observe, robust_for, robust_name, robust_solve, solve,
                                  subgame_for, value_against)
from truco_env import VectorTrucoEnv
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.rules import get_rules
from truco_env.winprob import win_probability_table


@pytest.fixture(scope="module")
def game9():
    q = np.zeros((5, 5))
    q[1, 0] = q[0, 1] = 0.3
    q[2, 0] = q[0, 2] = 0.2
    return EnvidoSubgame(get_rules("argentino", target=9, flor=False),
                         win_probability_table(9, q))


def _layout(strategy):
    return [np.moveaxis(x, 2, 0) for x in strategy]


def _folder(game, fold=0.9):
    """A model opponent: uniform, but folding ``fold`` of the time to every chain."""
    out = []
    for n in game.nodes:
        x = np.full((len(n.actions), len(game.scores), game.K), 1.0 / len(n.actions))
        if "no_quiero" in n.actions:
            x[:] = (1.0 - fold) / (len(n.actions) - 1)
            x[n.actions.index("no_quiero")] = fold
        out.append(x)
    return out


def _confidence(game, c):
    return [np.full((len(game.scores), game.K), float(c)) for _ in game.nodes]


def test_no_confidence_is_the_equilibrium(game9):
    model = _folder(game9)
    robust = robust_solve(game9, model, _confidence(game9, 0.0), 60)
    eq = solve(game9, 60)
    for a, b in zip(robust.strategy, eq.strategy):
        assert np.allclose(a, b)


def test_full_confidence_is_the_best_response_to_the_model(game9):
    model = _folder(game9)
    robust = robust_solve(game9, model, _confidence(game9, 1.0), 200)
    ones = np.ones((len(game9.scores), game9.K))
    br_mano, _ = _walk(game9, 0, (ones, ones), model, br=MANO)
    _, br_pie = _walk(game9, 0, (ones, ones), model, br=PIE)
    best = br_mano.sum(axis=1) + br_pie.sum(axis=1)
    got = value_against(game9, _layout(robust.strategy), model)
    assert np.all(got <= best + 1e-9)
    assert np.abs(got - best).max() < 2e-3
    eq = value_against(game9, _layout(solve(game9, 200).strategy), model)
    assert (got - eq).mean() > 0.01           # the folder is worth exploiting


def test_confidence_trades_exploitation_for_exploitability(game9):
    model = _folder(game9, 0.6)
    gains, costs = [], []
    for p in (0.0, 0.5, 1.0):
        r = robust_solve(game9, model, _confidence(game9, p), 200)
        gains.append((value_against(game9, _layout(r.strategy), model) - 1.0).mean())
        costs.append(r.nash_conv.mean())
    assert gains[0] < gains[1] < gains[2]
    assert costs[0] < costs[1] < costs[2]
    assert costs[0] < 0.01 < costs[2]


def test_observe_counts_the_specs_decisions_only():
    """The heuristic never opens with 7 points or fewer; the opponent it plays (the
    equilibrium) does: the counts are the heuristic's alone."""
    obs = observe(("heuristic",), 96, 9, seed=3)
    g = subgame_for(9)
    assert obs.decisions == sum(int(c.sum()) for c in obs.counts) > 200
    for role in (MANO, PIE):
        i = g.index[("open", role, "")]
        c = obs.counts[i].sum(axis=0)                       # [types, actions]
        low, high = g.values <= 7, g.values >= 30
        assert g.nodes[i].actions[0] == "pass"
        assert c[low, 1:].sum() == 0 and c[low, 0].sum() > 0
        assert c[high, 1:].sum() > 0
    model, conf = obs.model(_layout(solve(g, 20).strategy), 0.5, 10.0)
    for m, c, n in zip(model, conf, g.nodes):
        assert np.allclose(m.sum(axis=0), 1.0)
        assert (c >= 0).all() and (c < 0.5).all()


def test_the_robust_agent_plays_legally():
    bot = agents.load("robust_envido:p=0.8,n0=10,matches=48:random", seed=1)
    assert bot.name == "robust_envido(random)"
    assert bot.solver.robust == {"p": 0.8, "n0": 10.0, "matches": 48}
    game = Matches(24, 2, get_rules("argentino", target=9, flor=False), random_mano=True)
    game.reset(seed=4)
    result = play(game, [bot, agents.load("random", seed=3)])   # an illegal action raises
    assert (result.winner >= 0).all()
    sol = robust_for(9, 0.8, 10.0, 48)
    assert sol.nash_conv.shape == (81,)


@pytest.mark.parametrize("spec, match", [
    ("robust_envido:p=2:heuristic", "probability"),
    ("robust_envido:q=1:heuristic", "unknown parameter 'q'"),
    ("robust_envido:n0=0:heuristic", "positive"),
    ("robust_envido:p=0.5", "unknown agent spec|expected a base agent"),
    ("robust_envido:", "expected a base agent"),
])
def test_bad_robust_specs_are_named_errors(spec, match):
    with pytest.raises(ValueError, match=match):
        agents.load(spec)


def test_envido_robust_is_a_policy_and_a_config_choice():
    from agents.ppo_policy import CheckpointError, envido_solver
    from training.config import ConfigError, make_config
    solver = envido_solver("robust")
    assert solver.robust == ROBUST_DEFAULTS and envido_solver("solved").robust is None
    assert envido_solver("robust:p=0.5,n0=3").robust == {**ROBUST_DEFAULTS, "p": 0.5, "n0": 3.0}
    with pytest.raises(CheckpointError, match="'robust'"):
        envido_solver("exact")
    with pytest.raises(CheckpointError, match="unknown parameter 'x'"):
        envido_solver("robust:x=1")
    # a run records every setting, so its policy plays the same envido whatever the defaults
    cfg = make_config({"envido": "robust", "flor": False})
    assert cfg.envido == robust_name(ROBUST_DEFAULTS)
    assert envido_solver(cfg.envido).robust == ROBUST_DEFAULTS
    assert make_config({"envido": "robust:n0=7", "flor": False}).envido == robust_name(
        {**ROBUST_DEFAULTS, "n0": 7})
    assert make_config({"envido": cfg.envido, "flor": False}).envido == cfg.envido
    with pytest.raises(ConfigError, match="envido='robust.*does not fit this game"):
        make_config({"envido": "robust", "flor": True})
    with pytest.raises(ConfigError, match="bad value envido='robust:p=3'"):
        make_config({"envido": "robust:p=3", "flor": False})
    with pytest.raises(ConfigError, match="unknown envido .exact."):
        make_config({"envido": "exact", "flor": False})


def test_cfr_mixed_with_a_zero_model_keeps_its_shape(game9):
    strategy = _cfr(game9, 5, mixed=(PIE, _folder(game9), _confidence(game9, 0.3)))
    for x, n in zip(strategy, game9.nodes):
        assert x.shape == (len(n.actions), len(game9.scores), game9.K)
        assert np.allclose(x.sum(axis=0), 1.0)


def test_export_replaces_the_envido_of_a_run(tmp_path):
    from agents.ppo_policy import PolicyNet, load_checkpoint, save_checkpoint
    from agents.pretrained import export

    size = VectorTrucoEnv(1).observation_size
    net = PolicyNet(size, 16 + 4 + 16, (8,))
    game = {"players": 2, "rules": "argentino", "target": 30, "flor": False,
            "observation": "compact"}
    for was in ("solved", "learned"):
        run = tmp_path / was
        run.mkdir()
        save_checkpoint(run / "latest.pt", {"model": net.state_dict(), "obs_size": size,
                                            "num_actions": net.num_actions, "hidden": [8],
                                            "config": {**game, "envido": was},
                                            "global_step": 1})
    out = export(tmp_path / "solved", "x", out_dir=tmp_path, envido="robust")
    assert load_checkpoint(out)["game"]["envido"] == robust_name(ROBUST_DEFAULTS)
    assert load_checkpoint(export(tmp_path / "solved", "y", out_dir=tmp_path))["game"][
        "envido"] == "solved"
    with pytest.raises(ValueError, match="never took an envido decision"):
        export(tmp_path / "solved", "z", out_dir=tmp_path, envido="learned")
    out = export(tmp_path / "learned", "w", out_dir=tmp_path, envido="robust:p=0.5")
    assert load_checkpoint(out)["game"]["envido"] == robust_name({**ROBUST_DEFAULTS, "p": 0.5})
