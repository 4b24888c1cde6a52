"""The policies shipped with the package: they load by name, play legal actions in the game
they were trained for, beat random, and a file of another observation layout is refused."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import agents  # noqa: E402
from agents import pretrained  # noqa: E402
from agents.ppo_policy import CheckpointError, load_checkpoint, save_checkpoint  # noqa: E402
from truco_env import VectorTrucoEnv  # noqa: E402
from truco_env.observe import LAYOUT_VERSION  # noqa: E402


def test_the_default_policy_ships_and_plays_legal_actions():
    assert "default" in pretrained.names()
    info = pretrained.info("default")
    assert info["players"] == 2 and info["observation"] in ("compact", "recall")
    bot = agents.load("pretrained:default", seed=0)
    assert bot.observation == info["observation"]
    venv = VectorTrucoEnv(64, observation=bot.observation, seed=1, target=info["target"],
                          flor=info["flor"])
    obs, _ = venv.reset()
    for _ in range(50):
        a = bot.act_batch(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][np.arange(64), a].all()
        obs, *_ = venv.step(a)
    greedy = agents.load("pretrained:default,greedy")
    assert greedy.greedy


def test_the_shipped_policy_beats_random():
    from evaluation.tournament import GameConfig, head_to_head
    info = pretrained.info("default")
    r = head_to_head("pretrained:default", "random", 60,
                     GameConfig(players=2, rules=info["rules"], target=info["target"],
                                flor=info["flor"]), seed=3)
    assert r.rate > 0.7, str(r)


def test_unknown_names_and_other_layouts_are_named_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown pretrained policy 'nope'.*default"):
        agents.load("pretrained:nope")
    ckpt = load_checkpoint(pretrained.path_of("default"))
    save_checkpoint(tmp_path / "old.pt", {**ckpt, "layout_version": LAYOUT_VERSION - 1})
    with pytest.raises(CheckpointError, match=f"layout version {LAYOUT_VERSION - 1}"):
        load_checkpoint(tmp_path / "old.pt")


def test_the_robust_policy_records_its_envido():
    """pretrained:robust plays the data-biased envido with the settings it trained with."""
    from agents.solved_envido import robust_name, robust_settings
    envido = pretrained.info("robust")["envido"]
    settings = robust_settings(envido)
    assert settings is not None and robust_name(settings) == envido
    bot = agents.load("pretrained:robust", seed=0)
    assert bot.envido == envido and bot.envido_solver.robust == settings


def test_the_rnr_policy_records_its_adaptive_envido_and_robust_shape():
    """pretrained:rnr (session 26's fixed-magnet run from robust) plays the adaptive envido it
    trained with, on a network of robust's shape (it started from robust's weights)."""
    from agents.solved_envido import adaptive_settings, settings_name
    info = pretrained.info("rnr")
    settings = adaptive_settings(info["envido"])
    assert settings is not None and settings_name("adaptive", settings) == info["envido"]
    assert (info["players"], info["target"], info["flor"]) == (2, 30, False)
    bot = agents.load("pretrained:rnr", seed=0)
    assert bot.envido == info["envido"] and bot.envido_solver.adaptive == settings
    net, _ = pretrained.load_net("rnr")
    robust, _ = pretrained.load_net("robust")
    assert (net.obs_size, net.hidden, net.skip) == (robust.obs_size, robust.hidden, robust.skip)
    assert any((a != b).any() for a, b in zip(net.state_dict().values(),
                                              robust.state_dict().values()))
