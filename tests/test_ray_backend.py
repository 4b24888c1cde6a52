"""train.py's Ray backend (issue 15) on a local Ray with two CPUs: one Ray worker runs the local
backend's code and learns the same numbers; two workers train and write every output; a worker
killed mid-rollout is replaced and no learner step is lost; a checkpoint of a two-worker run
resumes exactly; bad settings are refused with the reason.  Runs are in this process (one Ray
instance for the module) and tiny."""
from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

import train as train_script  # noqa: E402
from agents.ppo_policy import CheckpointError, load_checkpoint  # noqa: E402
from training.config import ConfigError, make_config  # noqa: E402
from training.ray_backend import RayBackend  # noqa: E402

TINY = {"num_envs": 64, "num_steps": 16, "hidden": [32], "critic_hidden": [32],
        "minibatch_size": 256, "eval_every": 2, "eval_games": 8, "final_eval_games": 0,
        "progress": False, "tensorboard": False, "checkpoint_every": 3, "snapshot_every": 1,
        "pool_size": 3, "pool_recent": 1, "threads": 1, "device": "cpu", "styles_weight": 0.2,
        "total_steps": 4096, "observation": "recall", "critic": "privileged",
        "exploiter_weight": 0.3, "exploiter_reset_every": 2, "winprob_reward": 0.0,
        "anneal_lr": False}
COMPARED = ("global_step", "charts/pool_size", "charts/carried", "charts/match_length",
            "charts/learner_fraction", "charts/train_win_rate_pool",
            "charts/train_win_rate_exploiter", "losses/value_loss", "losses/policy_loss",
            "losses/approx_kl", "eval/win_rate_heuristic", "eval/win_rate_past")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module, two CPUs (the workers' niceness as the learner's)."""
    if ray.is_initialized():
        yield
        return
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _system_config={"worker_niceness": 0})
    yield
    ray.shutdown()


def run(tmp_path: Path, name: str, resume: bool = False, **values) -> list[dict]:
    """A tiny run of train.train in this process; its metrics.csv rows."""
    cfg = make_config({**TINY, "runs_dir": str(tmp_path), "run_name": name, **values})
    run_dir = train_script.train(cfg, tmp_path / name if resume else None)
    with open(run_dir / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def same_rows(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        for col in COMPARED:
            assert ra[col] == rb[col], (ra["iteration"], col, ra[col], rb[col])


def test_one_ray_worker_learns_exactly_as_the_local_backend(tmp_path):
    """The same code path (training.worker) through an actor: the same rollouts, losses, pool
    and evaluations, row for row (with the exploiter, the privileged critic and styles on)."""
    local = run(tmp_path, "local")
    remote = run(tmp_path, "ray1", backend="ray", workers=1)
    assert [r["iteration"] for r in local] == [str(i) for i in range(1, 5)]
    same_rows(local, remote)
    # the numbers are not trivially equal: the policy learned, the pool was played
    assert local[0]["losses/value_loss"] != local[-1]["losses/value_loss"]
    assert any(r["charts/train_win_rate_pool"] not in ("", "nan") for r in local)


def test_two_workers_train_write_every_output_and_resume_exactly(tmp_path):
    """workers=2: every output; its checkpoint holds both workers' states; cut at iteration 3
    and resumed, the run continues row for row as the uninterrupted one; --resume with another
    `workers` is refused before the run folder is touched."""
    ref = run(tmp_path, "ref", backend="ray", workers=2, total_steps=1024 * 6)
    run_dir = tmp_path / "ref"
    for name in ("config.yaml", "metrics.csv", "summary.json", "summary.md",
                 "checkpoints/latest.pt"):
        assert (run_dir / name).is_file(), name
    assert [int(r["global_step"]) for r in ref] == [1024 * i for i in range(1, 7)]
    ckpt = load_checkpoint(run_dir)
    assert len(ckpt["workers"]) == 2 and ckpt["config"]["workers"] == 2
    # each worker's half of the games
    assert [len(w["run"]["learner_team"]) for w in ckpt["workers"]] == [32, 32]

    run(tmp_path, "cut", backend="ray", workers=2, total_steps=1024 * 3)
    cut = run(tmp_path, "cut", resume=True, backend="ray", workers=2, total_steps=1024 * 6)
    same_rows(ref, cut)

    before = (run_dir / "config.yaml").read_bytes()
    with pytest.raises(CheckpointError, match="workers=2.*workers=1"):
        run(tmp_path, "ref", resume=True, backend="ray", workers=1, total_steps=1024 * 8)
    assert (run_dir / "config.yaml").read_bytes() == before


def test_a_killed_worker_is_replaced_and_no_step_is_lost(tmp_path, monkeypatch, capsys):
    """ray.kill of worker 1 while its rollout of iteration 2 runs: a new actor redoes that
    rollout, every iteration is trained and logged once, and the run says so."""
    calls = []

    def kill_worker_1(backend):
        calls.append(1)
        if len(calls) == 2:
            ray.kill(backend.actors[1])

    monkeypatch.setattr(RayBackend, "on_rollout", staticmethod(kill_worker_1))
    rows = run(tmp_path, "fault", backend="ray", workers=2)
    out = capsys.readouterr().out
    assert "worker 1 died during its rollout" in out and "replaced by a new actor" in out
    assert [int(r["iteration"]) for r in rows] == [1, 2, 3, 4]
    assert [int(r["global_step"]) for r in rows] == [1024, 2048, 3072, 4096]
    # the redone rollout is a full one: both workers' transitions are in iteration 2's batch
    assert float(rows[1]["charts/learner_fraction"]) > 0.3
    ckpt = load_checkpoint(tmp_path / "fault")
    assert ckpt["iteration"] == 4 and len(ckpt["workers"]) == 2


def test_bad_settings_are_refused_with_the_reason(monkeypatch):
    with pytest.raises(ConfigError, match="num_envs=64 does not split evenly into 3"):
        make_config({**TINY, "backend": "ray", "workers": 3})
    with pytest.raises(ConfigError, match="workers=2 with backend='local'"):
        make_config({"workers": 2})
    with pytest.raises(ConfigError, match=r"backend='spark'.*\['local', 'ray'\]"):
        make_config({"backend": "spark"})
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else find_spec(name, *a))
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[ray\]"'):
        make_config({"backend": "ray", "workers": 2})
