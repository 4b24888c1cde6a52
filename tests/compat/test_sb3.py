"""Stable-Baselines3 / sb3-contrib: MaskablePPO through ``make_vec_env`` by Gymnasium id."""
from __future__ import annotations

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv  # noqa: E402

# "module:id": Gymnasium imports ``agents`` (which registers the id) before looking the id up,
# in this process and in every SubprocVecEnv worker (spawned workers start with an empty
# registry).
ENV_ID = "agents:truco_env/Truco-v1"
KW = dict(opponent="random", target=9)


@pytest.mark.parametrize("vec_env_cls", [DummyVecEnv, SubprocVecEnv])
def test_maskable_ppo_make_vec_env(vec_env_cls):
    venv = make_vec_env(ENV_ID, n_envs=2, seed=0, vec_env_cls=vec_env_cls, env_kwargs=KW)
    try:
        # make_vec_env passes render_mode="rgb_array"
        assert venv.get_attr("render_mode") == ["rgb_array", "rgb_array"]
        model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64,
                                        n_epochs=1, seed=0, verbose=0, device="cpu")
        model.learn(total_timesteps=256)
        obs = venv.reset()
        masks = np.stack(venv.env_method("action_masks"))
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(2), actions].all()
        img = venv.env_method("render", indices=[0])[0]
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    finally:
        venv.close()


def test_plain_id_after_importing_agents():
    import agents  # noqa: F401  (registers truco_env/Truco-v1 in this process)

    venv = make_vec_env("truco_env/Truco-v1", n_envs=2, seed=0, env_kwargs=KW)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1,
                                    seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=64)
    venv.close()
