"""Exploit while it is safe: a policy that hands the match to a safer one when it falls behind
(issue 11, session 25).

``safe_switch:margin=K:EXPLOIT;SAFE`` plays ``EXPLOIT`` (a policy that wins more against the
opponents it expects, and can be exploited) while the score of the match lets it, and ``SAFE``
(a policy a best response gains little against) at every decision where its side trails by
``K`` points or more.  The score is the observation's (``score``: both sides' points, the
match's target), so the agent keeps no state: what decides a row is in the row.

Why: the family networks of docs/training.md win 85% of their matches against the heuristic
and lose 70-95% to a best response that learns their truco, while ``adaptive_envido:
pretrained:robust`` loses about half to a best response and wins 78% against the heuristic.
Against the opponents the exploiter was trained to beat it seldom trails by much, so the
switch seldom fires; an opponent who exploits it gains the ``K`` points and then plays the
safe policy for as long as it stays ahead.  This is the score-budget form of safe opponent
exploitation (Ganzfried and Sandholm 2015, "Safe opponent exploitation": risk only what the
opponent has given you): the points an exploiter may lose to a best response are bounded by
the margin, not by the match.

The two policies are separated by ``;`` (a ``|`` would split the Markdown tables of every report
that names the agent).  Both parts read the compact columns or the same wider encoder as the switch; the switch
declares the wider of the two.
"""
from __future__ import annotations

import numpy as np

from truco_env.observe import COMPACT_SIZE, O_MATCH, O_SCORE

from .base import Agent, load, parse_params


def deficit(obs: np.ndarray) -> np.ndarray:
    """``float[N]``: how many points the acting side trails by in the match (negative when it
    leads), from the compact ``score`` and ``match`` columns (scores capped at the target)."""
    obs = np.asarray(obs)
    target = np.rint(obs[:, O_MATCH] * 30.0)
    return np.rint((obs[:, O_SCORE + 1] - obs[:, O_SCORE]) * target)


class SafeSwitchAgent(Agent):
    """``exploit`` while the acting side trails by less than ``margin`` points, ``safe``
    otherwise (module docstring).  Each part draws from its own random stream."""

    def __init__(self, exploit: Agent, safe: Agent, margin: float, seed: int | None = None):
        super().__init__(seed)
        if not margin >= 0:
            raise ValueError(f"safe_switch margin {margin!r}: expected points >= 0")
        wide = {p.observation for p in (exploit, safe)} - {"compact"}
        if len(wide) > 1:
            raise ValueError(f"safe_switch parts read different encoders {sorted(wide)}; "
                             f"expected the compact one or the same wider one")
        self.exploit, self.safe, self.margin = exploit, safe, float(margin)
        self.observation = wide.pop() if wide else "compact"
        self.name = f"safe_switch:margin={margin:g}:{exploit.name};{safe.name}"

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        ss = np.random.SeedSequence(seed).spawn(2) if seed is not None else (None, None)
        for part, s in zip((self.exploit, self.safe), ss):
            part.reseed(None if s is None else int(s.generate_state(1)[0]))

    def _cols(self, part: Agent, obs: np.ndarray) -> np.ndarray:
        return obs[:, :COMPACT_SIZE] if part.observation == "compact" else obs

    def switched(self, obs: np.ndarray) -> np.ndarray:
        """``bool[N]``: the rows the safe policy decides."""
        return deficit(obs) >= self.margin

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, mask = np.asarray(obs), np.asarray(mask)
        out = np.zeros(len(obs), np.int64)
        safe = self.switched(obs)
        for part, rows in ((self.exploit, ~safe), (self.safe, safe)):
            if rows.any():
                out[rows] = part.act_batch(np.ascontiguousarray(self._cols(part, obs[rows])),
                                           mask[rows])
        return out

    def act(self, observation, view: dict | None = None) -> int:
        return int(self.act_batch(np.asarray(observation["observation"], np.float32)[None],
                                  np.asarray(observation["action_mask"])[None])[0])

    def __repr__(self) -> str:
        return f"SafeSwitchAgent({self.name!r})"


def _factory(args: str, seed: int | None) -> Agent:
    """``safe_switch:margin=K:EXPLOIT;SAFE``."""
    spec = f"safe_switch:{args}"
    example = "e.g. 'safe_switch:margin=3:checkpoint:runs/x;adaptive_envido:pretrained:robust'"
    opt, _, rest = args.partition(":")
    try:
        margin = parse_params(opt, {"margin": float}, spec).get("margin")
    except ValueError as e:
        raise ValueError(f"{e}; {example}") from None
    if margin is None or not margin >= 0:
        got = "no margin" if margin is None else f"margin={margin:g}"
        raise ValueError(f"agent spec {spec!r}: {got}; expected margin=K with K points >= 0, "
                         f"{example}")
    parts = rest.split(";")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise ValueError(f"agent spec {spec!r}: expected two policies EXPLOIT;SAFE after the "
                         f"margin, {example}")
    exploit = load(parts[0].strip(), seed)
    safe = load(parts[1].strip(), None if seed is None else seed + 7)   # its own stream
    return SafeSwitchAgent(exploit, safe, margin, seed)
