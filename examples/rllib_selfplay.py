"""Self-play PPO on Truco with RLlib (new API stack): one shared policy for every seat, the
illegal actions masked out of its logits.

    pip install -e ".[rllib]"
    python examples/rllib_selfplay.py --iterations 50          # 2 players, argentino to 15
    python examples/rllib_selfplay.py --players 4 --env-runners 2

The whole adapter is :class:`RLlibObservation`: RLlib's action-masking module
(``ActionMaskingTorchRLModule``, shipped in ``ray.rllib.examples``) wants the observation as
``{"observations", "action_mask"}`` with a float mask, where the env gives
``{"observation", "action_mask"}`` with an ``int8`` one.  Everything else is RLlib's own:
its PettingZoo AEC wrapper (``PettingZooEnv``: every seat's match reward reaches it when the
match ends), ``PPOConfig().multi_agent(...)`` with one policy that all agents map to, and the
masking module.  The env raises ``truco_env.IllegalActionError`` on an illegal action, so a
run that finishes never played one.  Prints one JSON line of metrics per iteration.
"""
from __future__ import annotations

import argparse
import json

import gymnasium as gym
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

import truco_env

POLICY = "shared"       # every seat plays the same policy: self-play


class RLlibObservation(BaseWrapper):
    """Truco's AEC env with the observation keys and mask dtype of RLlib's masking module."""

    def observation_space(self, agent: str) -> gym.spaces.Dict:
        inner = self.env.observation_space(agent)
        return gym.spaces.Dict({
            "observations": inner["observation"],
            "action_mask": gym.spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
        })

    def observe(self, agent: str) -> dict:
        obs = self.env.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}


def make_env(env_config: dict):
    """RLlib's env creator: ``env_config`` holds ``truco_env.env`` keywords."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    return PettingZooEnv(RLlibObservation(truco_env.env(**env_config)))


def ppo_config(env_config: dict, env_runners: int = 0, batch: int = 4000, minibatch: int = 500,
               epochs: int = 4, hidden: int = 128, seed: int = 0):
    """PPO with one masked policy for all seats (``policy_mapping_fn`` sends every agent to
    it), on the new API stack."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule)
    from ray.tune.registry import register_env

    register_env("truco", make_env)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"fcnet_hiddens": [hidden, hidden]})
    return (PPOConfig()
            # RLlib's env check steps unmasked random actions, which this env refuses
            .environment("truco", env_config=env_config, disable_env_checking=True)
            .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, *a, **k: POLICY)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: module}))
            .env_runners(num_env_runners=env_runners)
            .training(train_batch_size_per_learner=batch, minibatch_size=minibatch,
                      num_epochs=epochs)
            .debugging(seed=seed))


def metrics(result: dict) -> dict:
    """The figures worth a line: iteration, env steps, episodes, each seat's mean return (a
    match's +1 and -1: they add up to 0 over the seats), the policy's losses."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY, {})
    returns = runners.get("agent_episode_returns_mean", {})
    return {"iteration": result.get("training_iteration"),
            "env_steps": runners.get("num_env_steps_sampled_lifetime"),
            "episodes": runners.get("num_episodes_lifetime"),
            "episode_len_mean": runners.get("episode_len_mean"),
            "agent_returns": {a: float(returns[a]) for a in sorted(returns)},
            **{k: float(learner[k]) for k in ("policy_loss", "vf_loss", "entropy")
               if k in learner}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--players", type=int, default=2, choices=(2, 4, 6))
    ap.add_argument("--rules", default="argentino")
    ap.add_argument("--target", type=int, default=15)
    ap.add_argument("--env-runners", type=int, default=0,
                    help="RLlib env runner processes (0: sample in this process)")
    ap.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    ap.add_argument("--minibatch", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray")
    args = ap.parse_args(argv)
    import ray
    ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False,
             ignore_reinit_error=True)
    config = ppo_config({"players": args.players, "rules": args.rules, "target": args.target},
                        env_runners=args.env_runners, batch=args.batch,
                        minibatch=args.minibatch, epochs=args.epochs, hidden=args.hidden,
                        seed=args.seed)
    algo = config.build_algo()
    try:
        for _ in range(args.iterations):
            print(json.dumps(metrics(algo.train())), flush=True)
    finally:
        algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
