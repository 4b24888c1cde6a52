"""The score switch (agents.safe_switch): exploit while the side trails by less than K points."""
import numpy as np
import pytest

import agents
from agents.base import Agent
from agents.safe_switch import SafeSwitchAgent, deficit
from truco_env import VectorTrucoEnv
from truco_env import core as C


class _Const(Agent):
    """Plays the first legal action of a fixed order (so its rows are recognisable)."""

    def __init__(self, last: bool, observation: str = "compact"):
        super().__init__(0)
        self.last, self.observation, self.name = last, observation, f"const{int(last)}"
        self.widths = []

    def act_batch(self, obs, mask):
        self.widths.append(obs.shape[1])
        m = np.asarray(mask, bool)
        return (m.shape[1] - 1 - m[:, ::-1].argmax(axis=1)) if self.last else m.argmax(axis=1)


def _play(env, steps, rng):
    obs, _ = env.reset()
    for _ in range(steps):
        yield obs
        m = obs["action_mask"].astype(bool)
        obs, _, _, _ = env.step((rng.random(m.shape) * m).argmax(axis=1))


def test_deficit_is_the_acting_sides_points_behind():
    """The deficit read from the observation is the other team's score minus the acting
    seat's team's, capped at the target, as the core keeps them."""
    env = VectorTrucoEnv(128, flor=False, target=15, seed=3)
    rng = np.random.default_rng(3)
    seen = set()
    for obs in _play(env, 400, rng):
        S = env.game.S
        team = S[np.arange(len(S)), C.TEAM + S[:, C.ACTOR]]
        mine = np.minimum(S[np.arange(len(S)), C.SCORE + team], 15)
        theirs = np.minimum(S[np.arange(len(S)), C.SCORE + 1 - team], 15)
        got = deficit(obs["observation"])
        assert np.array_equal(got, theirs - mine)
        seen.update(got.tolist())
    assert min(seen) <= -5 and max(seen) >= 5


def test_rows_behind_by_the_margin_go_to_the_safe_policy():
    env = VectorTrucoEnv(256, flor=False, target=30, seed=4)
    rng = np.random.default_rng(4)
    exploit, safe = _Const(False), _Const(True)
    switch = SafeSwitchAgent(exploit, safe, margin=3)
    both = 0
    for obs in _play(env, 300, rng):
        o, m = obs["observation"], obs["action_mask"]
        behind = deficit(o) >= 3
        got = switch.act_batch(o, m)
        assert np.array_equal(got[behind], safe.act_batch(o[behind], m[behind]))
        assert np.array_equal(got[~behind], exploit.act_batch(o[~behind], m[~behind]))
        both += int(behind.any() and (~behind).any())
        one = int(np.flatnonzero(m.any(axis=1))[0])
        single = {"observation": o[one], "action_mask": m[one]}
        assert switch.act(single) == got[one]
    assert both > 50
    # margin 0: every row where the side does not lead goes to the safe policy
    zero = SafeSwitchAgent(exploit, safe, margin=0)
    assert np.array_equal(zero.switched(o), deficit(o) >= 0)


def test_parts_read_their_own_columns_and_encoders_must_agree():
    env = VectorTrucoEnv(8, flor=False, target=30, seed=5, observation="recall")
    obs, _ = env.reset()
    compact, recall = _Const(False), _Const(True, observation="recall")
    switch = SafeSwitchAgent(compact, recall, margin=0)
    assert switch.observation == "recall"
    switch.act_batch(obs["observation"], obs["action_mask"])
    from truco_env.observe import COMPACT_SIZE
    assert set(recall.widths) == {obs["observation"].shape[1]}
    # at 0-0 every row is at deficit 0: the safe part decides all of them; the other none
    assert compact.widths == []
    switch.margin = 1
    switch.act_batch(obs["observation"], obs["action_mask"])
    assert compact.widths == [COMPACT_SIZE]
    with pytest.raises(ValueError, match="different encoders"):
        SafeSwitchAgent(_Const(False, "recall"), _Const(True, "infostate"), margin=1)
    with pytest.raises(ValueError, match="margin -1"):
        SafeSwitchAgent(compact, recall, margin=-1)


@pytest.mark.parametrize("spec, msg", [
    ("safe_switch:random;heuristic", "malformed parameter 'random;heuristic'"),
    ("safe_switch:margin=x:random;heuristic", "bad value margin='x'"),
    ("safe_switch:margin=-2:random;heuristic", "margin=-2; expected margin=K"),
    ("safe_switch:bound=2:random;heuristic", "unknown parameter 'bound'"),
    ("safe_switch::random;heuristic", "no margin; expected margin=K"),
    ("safe_switch:margin=2:random", "expected two policies EXPLOIT;SAFE"),
    ("safe_switch:margin=2:random;", "expected two policies EXPLOIT;SAFE"),
    ("safe_switch:margin=2:random;heuristic:style=nope", "unknown style 'nope'"),
])
def test_spec_errors_name_the_bad_part(spec, msg):
    with pytest.raises(ValueError, match=msg):
        agents.load(spec)


def test_spec_loads_both_parts():
    a = agents.load("safe_switch:margin=4:heuristic;random", seed=0)
    assert isinstance(a, SafeSwitchAgent) and a.margin == 4
    assert a.name == "safe_switch:margin=4:heuristic;random"
    assert type(a.exploit).__name__ == "HeuristicAgent" and a.safe.name == "random"
