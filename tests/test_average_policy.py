"""The average policy of a run (``checkpoint:PATH,average=K``): which checkpoints it averages,
that it plays the mean of their action probabilities, and its errors."""
import numpy as np
import pytest
import torch

import agents
from agents.ppo_policy import (AveragePolicyAgent, CheckpointError, PolicyAgent, PolicyNet,
                               save_checkpoint)
from truco_env.observe import COMPACT_SIZE, NUM_ACTIONS


def _save(path, seed, step):
    torch.manual_seed(seed)
    net = PolicyNet(COMPACT_SIZE, NUM_ACTIONS, (16,))
    for prm in net.policy.parameters():   # logits far from uniform, so the nets differ
        torch.nn.init.normal_(prm, std=1.0)
    save_checkpoint(path, {"model": net.state_dict(), "obs_size": COMPACT_SIZE,
                           "num_actions": NUM_ACTIONS, "hidden": [16], "global_step": step,
                           "config": {"critic": "shared"}})
    return net


@pytest.fixture
def run(tmp_path):
    """A run folder that kept step_200 ... step_800 and ended at step 1000."""
    ck = tmp_path / "checkpoints"
    nets = {step: _save(ck / f"step_{step}.pt", step, step) for step in (200, 400, 600, 800)}
    nets[1000] = _save(ck / "latest.pt", 1000, 1000)
    return tmp_path, nets


def _batch(n=64, seed=0):
    rng = np.random.default_rng(seed)
    obs = rng.random((n, COMPACT_SIZE), dtype=np.float32)
    mask = rng.random((n, NUM_ACTIONS)) < 0.4
    mask[np.arange(n), rng.integers(0, NUM_ACTIONS, n)] = True
    return obs, mask


@pytest.mark.parametrize("spec, steps", [
    ("average=3", [600, 800, 1000]),              # the last half: 600 and 800, and latest
    ("average=2", [600, 1000]),                   # one of them, the oldest of the last half
    ("average=5,last=1", [200, 400, 600, 800, 1000]),
    ("average=3,last=1", [200, 800, 1000]),       # evenly spaced over the kept ones
    ("average=9,last=0.3", [800, 1000]),          # fewer kept than asked: all of them
    ("average=1", [1000]),
])
def test_it_averages_the_late_checkpoints_evenly_spaced(run, spec, steps):
    path, _ = run
    agent = agents.load(f"checkpoint:{path},{spec}", seed=0)
    assert isinstance(agent, AveragePolicyAgent)
    names = [f.name for f in agent.sources]
    assert names == [f"step_{s}.pt" for s in steps[:-1]] + ["latest.pt"]
    assert len(agent.nets) == len(steps)


def test_it_plays_the_mean_of_the_probabilities(run):
    path, nets = run
    agent = agents.load(f"checkpoint:{path},average=3", seed=0)
    obs, mask = _batch()
    o, m = torch.as_tensor(obs), torch.as_tensor(mask)
    with torch.no_grad():
        want = sum(torch.softmax(nets[s](o, m)[0], dim=1) for s in (600, 800, 1000)) / 3
        got, value = agent.probs(o, m)
        v_want = sum(nets[s](o, m)[1] for s in (600, 800, 1000)) / 3
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(value, v_want)
    assert not torch.allclose(want, torch.softmax(nets[1000](o, m)[0], dim=1), atol=1e-3)
    # its samples follow that mean: 4000 draws on one row, every legal action
    row = np.repeat(obs[:1], 4000, axis=0), np.repeat(mask[:1], 4000, axis=0)
    counts = np.bincount(agent.act_batch(*row), minlength=NUM_ACTIONS) / 4000
    assert np.abs(counts - want[0].numpy()).max() < 0.04
    assert not counts[~mask[0]].any()
    greedy = agents.load(f"checkpoint:{path},average=3,greedy", seed=0)
    assert (greedy.act_batch(obs, mask) == want.argmax(dim=1).numpy()).all()


def test_one_network_plays_as_the_plain_checkpoint(run):
    path, _ = run
    obs, mask = _batch(256, seed=1)
    one = agents.load(f"checkpoint:{path},average=1", seed=3).act_batch(obs, mask)
    plain = agents.load(f"checkpoint:{path}", seed=3)
    assert type(plain) is PolicyAgent
    assert (one == plain.act_batch(obs, mask)).all()   # same probabilities, same stream


@pytest.mark.parametrize("spec, words", [
    ("average=0", "average=0"),
    ("average=3,last=1.5", "last=1.5"),
    ("average=x", "average"),
    ("last=0.5", "needs average"),
    ("avg=3", "unknown parameter 'avg'"),
])
def test_bad_options_are_named(run, spec, words):
    path, _ = run
    with pytest.raises(ValueError, match=words):
        agents.load(f"checkpoint:{path},{spec}")


def test_a_run_that_kept_nothing_says_how_to_keep(tmp_path):
    _save(tmp_path / "checkpoints" / "latest.pt", 0, 1000)
    with pytest.raises(CheckpointError, match="keep_every"):
        agents.load(f"checkpoint:{tmp_path},average=4")
