"""The privileged critic of train.py (``critic=privileged``): a value network of its own whose
input is the compact observation (the table now, the calls, the score) plus
:func:`truco_env.observe.encode_hidden` (every player's unplayed cards and envido/flor points,
relative to the seat): with every hand known that is the whole state of the game, so the
history that the policy's ``recall`` pieces add is left out (a smaller, faster network).

Centralised training, decentralised execution (as in MAPPO and the "asymmetric actor-critic"
of Pinto et al. 2018; perfect-information critics are standard in card-game RL): the critic is
used only to compute advantages during training and is never saved into the policy, whose
inputs never include a hidden card (tests/test_learning.py checks the saved policy's inputs
and tests/test_invariants.py the encoders).  Knowing the hands removes the deal's luck from the
value, so advantages have far less variance.
"""
from __future__ import annotations

import torch
import torch.nn as nn

from agents.ppo_policy import _init


class Critic(nn.Module):
    """MLP (tanh) from ``[observation, hidden features]`` to one value."""

    def __init__(self, input_size: int, hidden: tuple[int, ...] = (256, 128)):
        super().__init__()
        layers, width = [], input_size
        for h in hidden:
            layers += [_init(nn.Linear(width, h)), nn.Tanh()]
            width = h
        layers.append(_init(nn.Linear(width, 1), std=1.0))
        self.net = nn.Sequential(*layers)
        self.input_size, self.hidden = input_size, tuple(hidden)

    def forward(self, obs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([obs, hidden], dim=-1)).squeeze(-1)
