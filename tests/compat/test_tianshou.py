"""Tianshou: its ``PettingZooEnv`` wrapper and a masked random multi-agent policy."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

import truco_env  # noqa: E402


def _make():
    return PettingZooEnv(truco_env.env(target=9))


def test_masked_random_policy_collects_matches():
    try:   # Tianshou >= 2.0
        from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
        from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    except ImportError:
        pytest.skip("written for Tianshou 2.x")
    env = _make()
    algos = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
             for _ in env.agents]
    policy = MultiAgentOffPolicyAlgorithm(algorithms=algos, env=env).policy
    venv = DummyVectorEnv([_make, _make])
    buffer = VectorReplayBuffer(4000, 2)
    collector = Collector(policy, venv, buffer)
    collector.reset()
    result = collector.collect(n_episode=4)   # an illegal action would raise
    assert result.n_collected_episodes >= 4
    rew = buffer.rew[:len(buffer)]
    assert rew.shape[1] == 2 and sorted(np.unique(rew).tolist()) == [-1.0, 0.0, 1.0]
    assert (rew.sum(axis=1) == 0).all(), "zero sum on every step"
    venv.close()
