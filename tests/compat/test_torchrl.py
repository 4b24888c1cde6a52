"""TorchRL: ``PettingZooWrapper`` over the AEC env with ``use_mask=True``."""
from __future__ import annotations

import pytest

pytest.importorskip("torchrl")
import torch  # noqa: E402
from torchrl.envs import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import truco_env  # noqa: E402


@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")
@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_wrapper_with_masks(players):
    env = PettingZooWrapper(truco_env.env(players=players, target=9), use_mask=True, seed=0)
    check_env_specs(env, seed=0)
    td = env.reset()
    # TorchRL's own convention: "mask" says who acts; a waiting agent's action_mask is all True.
    assert td["player_0", "mask"].all() and not td["player_1", "mask"].any()
    legal = truco_env.env(players=players, target=9)
    legal.reset(seed=0)
    assert td["player_0", "action_mask"][0].tolist() == legal.observe("player_0")[
        "action_mask"].astype(bool).tolist()
    assert (td["player_0", "info", "score"] == 0).all()
    # Random actions drawn from the action spec, which TorchRL keeps masked: never illegal.
    rollout = env.rollout(200, break_when_any_done=True)
    acted = torch.stack([rollout[f"player_{i}", "mask"] for i in range(players)]).sum(0)
    assert (acted == 1).all(), "exactly one agent acts per step"
    if rollout["done"][-1].item():
        # The match reward reaches every seat on the last step, acting or not.
        last = torch.stack([rollout["next", f"player_{i}", "reward"][-1] for i in range(players)])
        assert set(last.flatten().tolist()) == {1.0, -1.0}
    env.close()
