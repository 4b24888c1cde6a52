"""train.py: short runs complete, checkpoints load and resume, config errors name the key,
and a short run beats random."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import train  # noqa: E402
from agents.ppo_policy import (CheckpointError, PolicyAgent, load_checkpoint,  # noqa: E402
                               save_checkpoint)

TINY = {"num_envs": 64, "num_steps": 16, "hidden": [32], "minibatch_size": 512,
        "update_epochs": 1, "eval_every": 0, "final_eval_games": 16, "progress": False,
        "tensorboard": False, "checkpoint_every": 1, "snapshot_every": 1, "threads": 1,
        "device": "cpu"}


def run(tmp_path, **values) -> Path:
    cfg = train.make_config({**train.read_yaml(train.DEFAULT_CONFIG), **TINY,
                             "runs_dir": str(tmp_path), "run_name": "t", **values})
    return train.train(cfg)


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_short_run_writes_outputs_and_a_loadable_checkpoint(tmp_path):
    run_dir = run(tmp_path, total_steps=3000)
    for name in ("config.yaml", "metrics.csv", "summary.json", "summary.md",
                 "checkpoints/latest.pt"):
        assert (run_dir / name).is_file(), name
    assert not list((run_dir / "checkpoints").glob("*.tmp")), "a temporary file was left"
    s = summary(run_dir)
    assert s["global_step"] >= 3000
    assert set(s["win_rate"]) == {"heuristic", "random"}
    rows = list(csv.DictReader(open(run_dir / "metrics.csv")))
    assert int(rows[-1]["global_step"]) == s["global_step"]
    assert rows[-1]["losses/approx_kl"] != ""
    # The resolved config round-trips.
    assert train.make_config(train.read_yaml(run_dir / "config.yaml")).total_steps == 3000

    # The checkpoint plays: from the run folder, the file, and through agents.load.
    from truco_env import VectorTrucoEnv
    venv = VectorTrucoEnv(8, seed=0)
    obs, _ = venv.reset()
    for agent in (PolicyAgent.load(run_dir, seed=0),
                  PolicyAgent.load(run_dir / "checkpoints" / "latest.pt", greedy=True)):
        a = agent.act_batch(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][np.arange(8), a].all()
        assert obs["action_mask"][0, agent.act({k: v[0] for k, v in obs.items()})]
    import agents
    bot = agents.load(f"checkpoint:{run_dir}", seed=1)
    assert obs["action_mask"][np.arange(8), bot.act_batch(obs["observation"],
                                                          obs["action_mask"])].all()


def test_resume_continues_the_step_count(tmp_path):
    run_dir = run(tmp_path, total_steps=2048)
    first = summary(run_dir)
    ckpt = load_checkpoint(run_dir)
    assert ckpt["global_step"] == first["global_step"] == 2048
    pool_before = len(ckpt["pool"]["snapshots"])
    assert train.main(["--resume", str(run_dir), "total_steps=4096", "progress=false"]) == 0
    ckpt = load_checkpoint(run_dir)
    assert ckpt["global_step"] == 4096 and ckpt["iteration"] == 4
    assert len(ckpt["pool"]["snapshots"]) >= pool_before
    steps = [int(r["global_step"]) for r in csv.DictReader(open(run_dir / "metrics.csv"))]
    assert steps == [1024, 2048, 3072, 4096]
    assert not (tmp_path / "t-1").exists(), "resume must reuse the run folder"


def test_a_new_run_never_overwrites_an_old_one(tmp_path):
    a = run(tmp_path, total_steps=1024, final_eval_games=0)
    b = run(tmp_path, total_steps=1024, final_eval_games=0)
    assert a != b and b.name == "t-1"


@pytest.mark.parametrize("override, words", [
    ("learning_rat=0.1", ["unknown config key", "learning_rat"]),
    ("num_envs=-4", ["num_envs"]),
    ("num_envs=many", ["num_envs", "integer"]),
    ("players=3", ["players"]),
    ("flor=maybe", ["flor", "true or false"]),
    ("hidden=[0]", ["hidden"]),
    ("device=tpu", ["device"]),
    ("target=31", ["target"]),
    ("self_play_frac=1.5", ["self_play_frac"]),
    ("nonsense", ["key=value"]),
])
def test_config_errors_name_the_key(override, words, capsys):
    assert train.main([override]) == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err, (w, err)


def test_overrides_are_typed_and_dotted_yaml_sections_are_rejected(tmp_path):
    cfg = train.make_config({"total_steps": "2e6", "hidden": "64,32", "flor": "true",
                             "target": None})
    assert cfg.total_steps == 2_000_000 and cfg.hidden == [64, 32] and cfg.flor is True
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo:\n  lr: 1\n")
    with pytest.raises(train.ConfigError, match="ppo.lr"):
        train.make_config(train.read_yaml(bad))


def test_every_shipped_config_is_valid():
    configs = sorted((ROOT / "configs").glob("*.yaml"))
    names = {p.stem for p in configs}
    assert {"default", "flor", "2v2", "3v3", "trucoshi", "uruguayo", "strong"} <= names
    for path in configs:
        raw = train.read_yaml(path)
        for key in ("total_steps", "seed", "run_name"):
            assert key in raw, (path.name, key)
        train.make_config(raw)


def test_help_lists_every_key():
    out = subprocess.run([sys.executable, str(ROOT / "train.py"), "--help"],
                         capture_output=True, text=True, check=True).stdout
    for key in train.FIELDS:
        assert key in out


def test_corrupt_and_incompatible_checkpoints_give_clear_errors(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(bad)
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt")
    with pytest.raises(CheckpointError, match="no checkpoint in run folder"):
        load_checkpoint(tmp_path)
    other = tmp_path / "other.pt"
    torch.save({"format": "something/else"}, other)
    with pytest.raises(CheckpointError, match="format"):
        load_checkpoint(other)
    # A run folder whose checkpoint is corrupt: --resume fails with a message, not a traceback.
    run_dir = tmp_path / "r"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text("run_name: r\n")
    (run_dir / "checkpoints" / "latest.pt").write_bytes(b"\x00" * 10)
    assert train.main(["--resume", str(run_dir)]) == 2
    # A checkpoint for another network shape.
    save_checkpoint(other, {"model": {}, "obs_size": 7, "num_actions": 16, "hidden": [8]})
    from agents.ppo_policy import net_from_checkpoint
    with pytest.raises(CheckpointError, match="observation size"):
        net_from_checkpoint(load_checkpoint(other), obs_size=473)


def test_a_short_run_beats_random(tmp_path):
    """200k steps against the random baseline (tens of seconds on 2 cores) clearly beat it."""
    run_dir = run(tmp_path, total_steps=200_000, num_envs=256, num_steps=32, hidden=[64],
                  minibatch_size=1024, update_epochs=4, anneal_lr=False, self_play_frac=0.0,
                  pool_weight=0.0, heuristic_weight=0.0, random_weight=1.0,
                  checkpoint_every=100, final_eval_games=400, seed=3)
    wr = summary(run_dir)["win_rate"]["random"]["win_rate"]
    # A random policy wins about 0.5 and 400 matches give a standard error of 0.025; seeds 3
    # and 4 reached 0.71-0.75 after 150k steps.
    assert wr > 0.62, wr
