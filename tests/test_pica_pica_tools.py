"""Pica-pica through the tools: train.py config, a short training run, evaluate.py's game (the
one a checkpoint was trained for unless told otherwise; mismatched agents refused), the
heuristic in duels."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from evaluation.tournament import (GameConfig, GameMismatchError, head_to_head,  # noqa: E402
                                   resolve_game)
from training.config import ConfigError, make_config, read_yaml  # noqa: E402

from test_train import ROOT, run, summary  # noqa: E402


def test_pica_pica_config_and_bad_combinations():
    cfg = make_config(read_yaml(ROOT / "configs" / "2v2_pica_pica.yaml"))
    assert cfg.pica_pica is True and cfg.players == 4
    # the issue's name: seed 002's form, 6-player trucoshi (pica-pica on by default there)
    cfg = make_config(read_yaml(ROOT / "configs" / "pica_pica.yaml"))
    assert (cfg.players, cfg.rules, cfg.pica_pica) == (6, "trucoshi", True)
    with pytest.raises(ConfigError, match="pica_pica=True with players=2"):
        make_config({"players": 2, "pica_pica": True})
    with pytest.raises(ConfigError, match="pica_pica=True with players=4"):
        make_config({"players": 4, "rules": "trucoshi", "target": 18, "pica_pica": True})


def test_short_pica_pica_training_run(tmp_path):
    run_dir = run(tmp_path, total_steps=2048, players=4, pica_pica=True, final_eval_games=8)
    s = summary(run_dir)
    assert s["global_step"] >= 2048
    game = resolve_game([f"checkpoint:{run_dir}"])
    assert (game.players, game.pica_pica) == (4, True)
    # told otherwise: the given settings win
    assert resolve_game([f"checkpoint:{run_dir}"], {"pica_pica": False}).pica_pica is False
    # a 1v1 policy and a pica-pica 2v2 policy are not evaluated together
    with pytest.raises(GameMismatchError, match="different games.*pretrained:default"):
        resolve_game([f"checkpoint:{run_dir}", "pretrained:default"])
    with pytest.raises(ValueError, match="pica_pica=True with players=2"):
        resolve_game([f"checkpoint:{run_dir}"], {"players": 2})


def test_pretrained_game_is_its_training_game():
    g = resolve_game(["pretrained:default", "heuristic"])
    assert (g.players, g.rules, g.target, g.pica_pica) == (2, "argentino", 30, False)
    assert resolve_game(["heuristic", "random"]) == GameConfig()


def test_heuristic_beats_random_in_pica_pica_duels():
    r = head_to_head("heuristic", "random", 40,
                     GameConfig(players=6, rules="trucoshi"), seed=1)
    assert r.rate > 0.75, str(r)


def test_the_human_player_plays_a_pica_pica_match():
    from test_play import Script
    from agents.play import main
    s = Script()
    assert main(["--players", "6", "--rules", "trucoshi", "--seed", "4", "--opponent", "heuristic"],
                input_fn=s.input, print_fn=s.print) == 0
    text = "\n".join(s.out)
    assert "Pica-pica duel 1: " in text and "the match" in text.splitlines()[-1]
