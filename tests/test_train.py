"""train.py: short runs complete, say where their outputs go and report evaluations, checkpoints
load and resume, config errors name the key, and a short run beats random.

train.py is a script: it runs here as a subprocess (no script imports another); its config
module, :mod:`training.config`, is imported."""
from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ppo_policy import (CheckpointError, PolicyAgent, load_checkpoint,  # noqa: E402
                               save_checkpoint)
from training.config import FIELDS, ConfigError, make_config, read_yaml  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TINY = {"num_envs": 64, "num_steps": 16, "hidden": [32], "critic_hidden": [32], "minibatch_size": 512,
        "observation": "recall", "critic": "privileged",
        "update_epochs": 1, "eval_every": 0, "final_eval_games": 16, "progress": False,
        "tensorboard": False, "checkpoint_every": 1, "snapshot_every": 1, "threads": 1,
        "device": "cpu"}
FOLDER = re.compile(r"^run folder: (.+?)/ ", re.M)


def train_py(*args: str) -> subprocess.CompletedProcess:
    """``python train.py ARGS`` in the repository root."""
    return subprocess.run([sys.executable, "train.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def run_process(tmp_path, **values) -> subprocess.CompletedProcess:
    """A run of configs/default.yaml with the TINY settings and ``values`` on top."""
    values = {**TINY, "runs_dir": str(tmp_path), "run_name": "t", **values}
    out = train_py(*(f"{k}={json.dumps(v)}" for k, v in values.items()))
    assert out.returncode == 0, out.stderr
    return out


def run(tmp_path, **values) -> Path:
    """The run folder of a run (as train.py prints it)."""
    return Path(FOLDER.search(run_process(tmp_path, **values).stdout).group(1))


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_short_run_writes_outputs_and_a_loadable_checkpoint(tmp_path):
    run_dir = run(tmp_path, total_steps=3000)
    for name in ("config.yaml", "metrics.csv", "summary.json", "summary.md",
                 "checkpoints/latest.pt"):
        assert (run_dir / name).is_file(), name
    assert not list(run_dir.rglob("*.tmp")), "a temporary file was left"
    s = summary(run_dir)
    assert s["global_step"] >= 3000
    from agents import zoo
    from training.logger import short_name
    assert set(s["win_rate"]) == {"heuristic", "random",
                                  *(short_name(x) for x in zoo.heldout_specs())}
    for r in s["win_rate"].values():  # the Wilson interval of evaluation.stats.win_rate
        assert r["low"] <= r["win_rate"] <= r["high"] and r["matches"] == 16
    rows = list(csv.DictReader(open(run_dir / "metrics.csv")))
    assert int(rows[-1]["global_step"]) == s["global_step"]
    assert rows[-1]["losses/approx_kl"] != ""
    # The resolved config round-trips.
    assert make_config(read_yaml(run_dir / "config.yaml")).total_steps == 3000

    # The checkpoint plays: from the run folder, the file, and through agents.load.
    from truco_env import VectorTrucoEnv
    venv = VectorTrucoEnv(8, seed=0, observation="recall")    # train.py's default encoder
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


def test_the_summary_adds_the_average_policy_on_the_same_deals(tmp_path):
    """final_average=K: the summary evaluates checkpoint:RUN,average=K against the same
    opponents as the last policy, from K checkpoints of the run's last half."""
    run_dir = run(tmp_path, total_steps=8192, keep_every=1, final_average=3,
                  observation="compact", critic="shared")
    s = summary(run_dir)
    avg = s["average"]
    assert avg["spec"] == f"checkpoint:{run_dir},average=3"
    assert avg["checkpoints"][-1] == "latest.pt" and len(avg["checkpoints"]) == 3
    steps = [int(name[len("step_"):-len(".pt")]) for name in avg["checkpoints"][:-1]]
    assert steps == sorted(steps) and s["global_step"] / 2 <= steps[0] < s["global_step"]
    assert set(avg["win_rate"]) == set(s["win_rate"])
    for r in avg["win_rate"].values():
        assert r["low"] <= r["win_rate"] <= r["high"] and r["matches"] == 16
    assert "Average policy" in (run_dir / "summary.md").read_text()
    import agents
    from training.config import make_config
    from training.win_rates import FINAL_SEED, evaluate
    cfg = make_config({**TINY, "observation": "compact", "critic": "shared"})
    again = evaluate(agents.load(avg["spec"], seed=0), agents.load("random", seed=0), cfg, 16,
                     FINAL_SEED)   # the spec it names plays the same matches again
    assert round(again[0], 4) == avg["win_rate"]["random"]["win_rate"]


def test_resume_continues_the_step_count(tmp_path):
    run_dir = run(tmp_path, total_steps=2048)
    first = summary(run_dir)
    ckpt = load_checkpoint(run_dir)
    assert ckpt["global_step"] == first["global_step"] == 2048
    pool_before = len(ckpt["pool"]["recent"]) + len(ckpt["pool"]["reservoir"])
    out = train_py("--resume", str(run_dir), "total_steps=4096", "progress=false")
    assert out.returncode == 0, out.stderr
    ckpt = load_checkpoint(run_dir)
    assert ckpt["global_step"] == 4096 and ckpt["iteration"] == 4
    assert len(ckpt["pool"]["recent"]) + len(ckpt["pool"]["reservoir"]) >= pool_before
    steps = [int(r["global_step"]) for r in csv.DictReader(open(run_dir / "metrics.csv"))]
    assert steps == [1024, 2048, 3072, 4096]
    assert not (tmp_path / "t-1").exists(), "resume must reuse the run folder"


@pytest.mark.parametrize("progress", ["false", "true"])
def test_the_run_says_where_it_writes_then_prints_each_evaluation(tmp_path, progress):
    """The output folder comes first; without a progress bar (progress=false, or stdout not a
    terminal as here) each periodic evaluation prints one line: step, SPS, win rates with their
    95% interval, elapsed time."""
    out = run_process(tmp_path, total_steps=3072, num_envs=64, num_steps=16, eval_every=1,
                      eval_games=16, final_eval_games=0, progress=progress == "true",
                      eval_heldout=False)
    lines = out.stdout.splitlines()
    assert lines[0] == f"run folder: {tmp_path / 't'}/ (config.yaml, metrics.csv, " \
        "checkpoints/latest.pt; summary.json and summary.md at the end)", lines[0]
    evals = [ln for ln in lines if ln.startswith("step ")]
    assert len(evals) == 2, out.stdout  # iterations 1 and 2; the last one is not evaluated
    pattern = (r"step ([\d,]+)  SPS [\d,]+  win rate heuristic (\S+) \((\S+)-(\S+)\), "
               r"random \S+ \(\S+-\S+\)  elapsed \d+m\d\ds")
    rows = list(csv.DictReader(open(tmp_path / "t" / "metrics.csv")))
    for line, row in zip(evals, rows):
        m = re.fullmatch(pattern, line)
        assert m, line
        step, rate, low, high = m.groups()
        assert int(step.replace(",", "")) == int(row["global_step"])
        assert float(low) <= float(rate) <= float(high)
        assert float(rate) == pytest.approx(float(row["eval/win_rate_heuristic"]), abs=1e-3)
    assert "it/s" not in out.stderr and "step/s" not in out.stderr  # no progress bar


def test_train_py_is_short_and_scripts_stay_scripts():
    """The PPO loop reads in one file; config, pool, shaping and logging live in training/."""
    assert len((ROOT / "train.py").read_text().splitlines()) < 500
    files = [ROOT / "train.py", ROOT / "benchmarks" / "train_speed.py", Path(__file__),
             *(ROOT / "training").glob("*.py")]
    for path in files:
        text = path.read_text()
        assert "sys" + ".path" not in text, path
        assert not re.search(r"^\s*(import|from) (train|evaluate)\b", text, re.M), path


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
    ("final_average=4", ["final_average=4", "keep_every"]),
    ("final_average=-1", ["final_average=-1"]),
])
def test_config_errors_name_the_key(override, words):
    out = train_py(override)
    assert out.returncode == 2
    err = out.stderr
    for w in words:
        assert w in err, (w, err)


def test_overrides_are_typed_and_dotted_yaml_sections_are_rejected(tmp_path):
    cfg = make_config({"total_steps": "2e6", "hidden": "64,32", "flor": "true",
                             "target": None})
    assert cfg.total_steps == 2_000_000 and cfg.hidden == [64, 32] and cfg.flor is True
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo:\n  lr: 1\n")
    with pytest.raises(ConfigError, match="ppo.lr"):
        make_config(read_yaml(bad))


def test_every_shipped_config_is_valid():
    configs = sorted((ROOT / "configs").glob("*.yaml"))
    names = {p.stem for p in configs}
    assert {"default", "flor", "2v2", "3v3", "trucoshi", "uruguayo", "strong"} <= names
    for path in configs:
        raw = read_yaml(path)
        for key in ("total_steps", "seed", "run_name"):
            assert key in raw, (path.name, key)
        make_config(raw)


def test_help_lists_every_key():
    out = train_py("--help")
    assert out.returncode == 0
    for key in FIELDS:
        assert key in out.stdout


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
    out = train_py("--resume", str(run_dir))
    assert out.returncode == 2 and "error:" in out.stderr and "Traceback" not in out.stderr
    # A checkpoint for another network shape.
    save_checkpoint(other, {"model": {}, "obs_size": 7, "num_actions": 16, "hidden": [8]})
    from agents.ppo_policy import net_from_checkpoint
    with pytest.raises(CheckpointError, match="observation size"):
        net_from_checkpoint(load_checkpoint(other), obs_size=473)


def test_a_short_run_beats_random(tmp_path):
    """200k steps against the random baseline (tens of seconds on 2 cores) clearly beat it,
    with the default encoder and critic."""
    run_dir = run(tmp_path, total_steps=200_000, num_envs=256, num_steps=32, hidden=[64],
                  minibatch_size=1024, update_epochs=4, anneal_lr=False, self_play_frac=0.0,
                  pool_weight=0.0, heuristic_weight=0.0, random_weight=1.0,
                  checkpoint_every=100, final_eval_games=400, seed=3,
                  observation="compact", critic="shared")
    wr = summary(run_dir)["win_rate"]["random"]["win_rate"]
    # A random policy wins about 0.5 and 400 matches give a standard error of 0.025.  At this
    # size the result depends on the seed: with the rollout workers' own random streams (issue
    # 15) seeds 3, 4, 5 reached 0.61, 0.69, 0.73; the trainer before them 0.85, 0.59, 0.74 (a
    # mean of 0.67 against 0.72, within the spread).  The recall encoder with the privileged
    # critic is slower to start at this size (0.57-0.71).  Since the network skips the pieces
    # a 1v1 game never fills (another first layer, other initial weights), seeds 3..7 reach
    # 0.83, 0.71, 0.59, 0.90, 0.64.
    assert wr > 0.62, wr
