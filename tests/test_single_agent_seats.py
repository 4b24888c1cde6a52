"""SingleAgentEnv: the learner's seat and the first mano drawn per reset; rewards before the
learner's first decision are kept."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import agents
import truco_env
from agents.single_agent import SingleAgentEnv

MAZO = truco_env.ACTIONS.index("mazo")


class MazoAgent(agents.Agent):
    """Goes to the mazo whenever it may (a partner that loses hands before the learner acts)."""

    name = "mazo"

    def act_batch(self, obs, mask):
        mask = np.asarray(mask).astype(bool)
        return np.where(mask[:, MAZO], MAZO, mask.argmax(axis=1))


def _first_legal(info) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


@pytest.mark.parametrize("players", [2, 4])
def test_seat_and_mano_are_drawn_per_reset(players):
    env = SingleAgentEnv("random", partner="heuristic", players=players, target=9)
    n = 400
    seats, manos, first = Counter(), Counter(), Counter()
    env.reset(seed=5)
    for _ in range(n):
        obs, info = env.reset()
        seat, mano = info["seat"], info["first_mano"]
        assert seat == env.seat and env.agent == f"player_{seat}"
        seats[seat] += 1
        manos[mano] += 1
        first[seat == mano] += 1
        # The bots keep their roles around the drawn seat: partners on the learner's team.
        for name, bot in env.bots.items():
            s = int(name.split("_")[1])
            assert s != seat
            assert bot.name == ("heuristic" if s % 2 == seat % 2 else "random")
        assert len(env.bots) == players - 1
        assert np.array_equal(obs, env.aec.observe(env.agent)["observation"])
    # Every seat and every first mano occur, roughly as often as each other.
    for counts in (seats, manos):
        assert sorted(counts) == list(range(players))
        assert min(counts.values()) > 0.6 * n / players, counts
    teams = Counter(s % 2 for s in seats.elements())
    assert min(teams.values()) > 0.4 * n, teams
    # The learner is mano in hand one in about 1 match of `players` (not always, not never).
    assert 0.5 * n / players < first[True] < 1.5 * n / players, first


def test_fixed_seat_still_works_and_the_mano_is_drawn():
    env = SingleAgentEnv("random", seat=0, players=2, target=9)
    env.reset(seed=1)
    manos = Counter()
    for _ in range(100):
        _, info = env.reset()
        assert info["seat"] == 0 and env.agent == "player_0"
        manos[info["first_mano"]] += 1
    assert manos[0] > 20 and manos[1] > 20, manos
    # The reset option "seat" fixes the seat for one episode, "mano" the first mano.
    _, info = env.reset(options={"seat": 1, "mano": 0})
    assert info["seat"] == 1 and info["first_mano"] == 0 and env.bots.keys() == {"player_0"}
    _, info = env.reset()
    assert info["seat"] == 0
    # An opponent mapping fixes the learner's seat to the seat it leaves out.
    env = SingleAgentEnv({0: "random", 1: "random", 3: "heuristic"}, players=4)
    for _ in range(10):
        _, info = env.reset()
        assert info["seat"] == 2
    with pytest.raises(ValueError, match="seat"):
        env.reset(options={"seat": 0})
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv("random", seat="anywhere")


def _episode(env, seed):
    obs, info = env.reset(seed=seed)
    trace = [(info["seat"], info["first_mano"], obs.tobytes())]
    term = False
    rng = np.random.default_rng(0)
    while not term:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, _, info = env.step(a)
        trace.append((a, r, obs.tobytes(), tuple(info["score"])))
    return trace


@pytest.mark.parametrize("players", [2, 4])
def test_same_seed_same_episode(players):
    kw = dict(opponent="random", players=players, target=9, reward="points")
    runs = [_episode(SingleAgentEnv(**kw), seed) for seed in (3, 3, 4)]
    assert runs[0] == runs[1]
    # Another instance, another seed: a different episode (seat, mano or cards).
    assert runs[0] != runs[2]
    # The same instance reseeded replays it too.
    env = SingleAgentEnv(**kw)
    assert _episode(env, 3) == _episode(env, 3) == runs[0]


def test_points_before_the_first_decision_reach_the_first_step():
    """The partner is mano of hand one and goes to the mazo: the team's lost point comes with
    the learner's first reward, and the episode's rewards add up to the match's result."""
    env = SingleAgentEnv("heuristic", partner=MazoAgent(), seat=0, players=4, target=9,
                         reward="points")
    obs, info = env.reset(seed=0, options={"mano": 2})
    # Hand one ended before the learner acted (player_2 went to the mazo): team 1 scored.
    assert info["score"] == [0, 1] and info["redealt"] == 0
    assert info["first_mano"] == 2 and info["mano"] == 3
    assert env._pending == -1.0   # held for the learner's first step
    rewards = []
    term = False
    while not term:
        obs, r, term, _, info = env.step(_first_legal(info))
        rewards.append(r)
    # Every point of the match reached the learner, hand one's -1 included (without it the sum
    # would be one more than the score difference).
    mine, theirs = info["score"]
    assert sum(rewards) == mine - theirs and theirs > 0


def test_an_episode_without_a_decision_is_dealt_again_and_reported():
    # Hand episodes where the partner may be mano and goes to the mazo: the hand ends before
    # the learner acts, reset deals again and says what the skipped hands were worth.
    env = SingleAgentEnv("heuristic", partner=MazoAgent(), seat=0, players=4,
                         episode="hand")
    env.reset(seed=2)
    skipped, worth = 0, 0.0
    for _ in range(60):
        _, info = env.reset()
        assert env.action_masks().any()
        if info["redealt"] == 0:
            assert info["redealt_reward"] == 0.0
        skipped += info["redealt"]
        worth += info["redealt_reward"]
    assert skipped > 0 and worth != 0
    # With the partner always mano, no hand ever reaches the learner: an error, not a hang.
    env.MAX_REDEALS = 20
    with pytest.raises(RuntimeError, match="before the learner"):
        env.reset(options={"mano": 2})
