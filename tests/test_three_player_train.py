"""The three-player modes beyond the env: the heuristic plays them sensibly, train.py runs
their configs, evaluate.py plays three-way duplicates and refuses agents of another game."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
import truco_env
from evaluation.tournament import GameConfig, head_to_head, play_three_way, run_three_way

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
def test_heuristic_plays_legal_actions_and_beats_random(rules):
    cfg = GameConfig(players=3, rules=rules, target=10 if rules == "destantado" else 9)
    r = head_to_head("heuristic", "random", 150, cfg, seed=1)
    # One seat against two random players: even is 1/3; the 95% interval must lie above it
    # (pata de gallo's gallo is alone against two, so the seat's edge is smaller there).
    assert r.lo > 1 / 3 + 0.05, str(r)


def test_heuristic_discards_the_weakest_card():
    env = truco_env.env(players=3, rules="pata_de_gallo")
    env.reset(seed=0, options={"hands": [["4c", "5c", "6b"], ["4o", "5o", "6o"],
                                         ["1e", "11c", "1b", "7e"]]})
    bot = agents.load("heuristic", seed=0)
    obs = env.observe("player_2")
    a = bot.act(obs, env.unwrapped.view("player_2"))
    assert truco_env.ACTIONS[a] == "discard_1"          # drops the 11c, keeps 1e 1b 7e


def test_three_way_duplicate_rotates_every_seat_on_the_same_deals():
    cfg = GameConfig(players=3, rules="destantado")
    res = play_three_way(["heuristic", "random", "random"], range(4), cfg, seed=3)
    assert res["winner"].shape == (12,)
    assert res["rotation"].tolist() == [0, 1, 2] * 4
    out = run_three_way([("heuristic", "heuristic"), ("random", "random")], 6, cfg, seed=0,
                        progress=False)
    rows = {(r["table"], r["agent"]): r for r in out["three_way"]}
    h = rows[("heuristic vs random vs random", "heuristic")]
    assert h["matches"] == 18 and h["even"] == pytest.approx(1 / 3)
    assert h["win_lo"] <= h["win_rate"] <= h["win_hi"]


def _evaluate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_evaluate_three_way_tournament(tmp_path):
    out = _evaluate("heuristic", "random", "--rules", "destantado", "--matches", "3",
                    "--workers", "1", "--no-progress", "--out", str(tmp_path / "t"))
    assert out.returncode == 0, out.stderr
    assert "Three-way duplicate tournament" in out.stdout
    assert (tmp_path / "t" / "three_way.csv").is_file()


def test_evaluate_refuses_a_checkpoint_of_another_game():
    # pretrained:default was trained for argentino 1v1.
    out = _evaluate("pretrained:default", "random", "--rules", "destantado", "--matches", "1",
                    "--no-progress")
    assert out.returncode == 2
    assert re.search(r"rules='destantado' \(mode 'destantado'\): pretrained:default was "
                     r"trained for rules='argentino' \(mode 'teams'\)", out.stderr), out.stderr


def test_evaluate_plays_a_checkpoint_in_its_game():
    from evaluation.tournament import GameMismatchError, resolve_game
    from truco_env import ConfigurationError
    cfg = resolve_game(["pretrained:default", "random"])
    assert (cfg.players, cfg.rules, cfg.target) == (2, "argentino", 30)
    with pytest.raises(ConfigurationError, match="players=3"):
        resolve_game(["pretrained:default"], {"players": 3})
    with pytest.raises(GameMismatchError, match="mode 'pata_de_gallo'.*mode 'teams'"):
        resolve_game(["pretrained:default"], {"rules": "pata_de_gallo"})
    cfg = resolve_game(["pretrained:default"], {"rules": "pata_de_gallo"}, any_game=True)
    assert (cfg.players, cfg.rules) == (3, "pata_de_gallo")


@pytest.mark.parametrize("name", ["pata_de_gallo", "destantado", "pica_pica"])
def test_short_training_run_of_each_config(tmp_path, name):
    """The configs of issue 12 (pica_pica.yaml: 6-player trucoshi) train and evaluate."""
    pytest.importorskip("torch")
    values = {"num_envs": 32, "num_steps": 16, "hidden": [32], "minibatch_size": 256,
              "update_epochs": 1, "eval_every": 0, "final_eval_games": 6, "progress": False,
              "tensorboard": False, "checkpoint_every": 1, "snapshot_every": 1, "threads": 1,
              "device": "cpu", "total_steps": 1024, "runs_dir": str(tmp_path), "run_name": "t"}
    out = subprocess.run([sys.executable, "train.py", "--config", f"configs/{name}.yaml",
                          *(f"{k}={json.dumps(v)}" for k, v in values.items())], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert s["global_step"] >= 1024
    assert 0.0 <= s["win_rate"]["heuristic"]["win_rate"] <= 1.0


@pytest.mark.parametrize("partner_card,expected", [("1e", "5c"), ("3o", "5c"), ("4c", "2o")])
def test_heuristic_as_the_pair_plays_with_its_partner(partner_card, expected):
    """Pata de gallo, second to play in the pair (the gallo plays last): over a partner's card
    that the gallo can hardly beat it plays its lowest card; over a weak one, the lowest card
    likely to hold the baza (the 2o, keeping the 3e)."""
    from evaluation.probe import ProbeSituation, setup_probe
    sit = ProbeSituation(hand=["3e", "2o", "5c"], players=3, rules="pata_de_gallo", target=15,
                         flor=False, mano=0, actions=["discard_0", "truco", "quiero",
                                                      partner_card])
    env, seat = setup_probe(sit)
    assert seat == 1 and env.unwrapped.view("player_1")["gallo"] == 2
    bot = agents.load("heuristic", seed=0)
    a = bot.act(env.observe("player_1"), env.unwrapped.view("player_1"))
    view = env.unwrapped.view("player_1")
    assert truco_env.ACTIONS[a].startswith("play_") and view["hand"][a] == expected
