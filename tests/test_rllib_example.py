"""examples/rllib_selfplay.py: RLlib's multi-agent PPO (new API stack) on the PettingZoo env
through the example's adapter, one shared masked policy (skipped without the rllib extra)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "rllib_selfplay.py"


def load_example():
    spec = importlib.util.spec_from_file_location("rllib_selfplay", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adapter_hands_rllib_masked_observations_and_every_seats_reward():
    """Through RLlib's PettingZoo wrapper: the observation in the keys and dtype of RLlib's
    masking module, and a match's +1 and -1 delivered to both seats at its end."""
    env = load_example().make_env({"players": 2, "target": 9})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    for _ in range(1000):
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert env.observation_space[agent].contains(o)
        obs, rew, term, trunc, _ = env.step({agent: rng.choice(np.flatnonzero(o["action_mask"]))})
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"]:
            break
    assert term["__all__"] and sorted(totals.values()) == [-1.0, 1.0]


def test_two_ppo_iterations_on_one_shared_masked_policy():
    """Two iterations of tiny batches, sampling in the driver (no env runner processes).  The
    env raises on an illegal action, so finishing means the mask held for every step."""
    p = subprocess.run([sys.executable, str(SCRIPT), "--iterations", "2", "--batch", "200",
                        "--minibatch", "50", "--epochs", "1", "--hidden", "32", "--target", "9",
                        "--num-cpus", "2"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    assert [m["iteration"] for m in lines] == [1, 2]
    last = lines[-1]
    assert last["env_steps"] >= 400 and last["episodes"] > 0
    assert all(np.isfinite(last[k]) for k in ("policy_loss", "vf_loss", "entropy"))
    returns = last["agent_returns"]      # zero-sum: the loser's -1 reached it too
    assert set(returns) == {"player_0", "player_1"}
    assert sum(returns.values()) == pytest.approx(0.0, abs=1e-9)
