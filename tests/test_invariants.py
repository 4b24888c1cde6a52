"""Invariants over many whole random matches, information leaks, replay determinism."""
import json

import numpy as np
import pytest

import truco_env
from truco_env import core as C

CONFIGS = [
    dict(players=2), dict(players=2, flor=True), dict(players=4), dict(players=4, flor=True),
    dict(players=6), dict(players=6, flor=True), dict(players=2, target=9),
    dict(players=2, target=15), dict(players=2, target=18), dict(players=4, rules="trucoshi"),
    dict(players=6, rules="trucoshi", target=30),
]


def play_random(env, rng, check=None):
    """Play random legal actions to the end; returns each agent's final cumulative reward."""
    final = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        if term or trunc:
            final[agent] = rew
            env.step(None)
            continue
        if check:
            check(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return final


def mask_of(raw, agent):
    """The legal mask of ``agent`` without encoding an observation."""
    return raw.action_mask(agent)


def hand_books(hand, start):
    """Check a finished hand's points three ways; returns the score at its end.

    The score change since ``start`` (the score when it was dealt), its ``hand_points`` and
    the sum of its ``points`` events must agree, team by team.
    """
    assert hand["hand_over"]
    change = [b - a for a, b in zip(start, hand["score"])]
    assert hand["hand_points"] == change
    events = [0, 0]
    for e in hand["events"]:
        if e["event"] == "points":
            events[e["team"]] += e["points"]
    assert events == change
    return list(hand["score"])


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_random_matches_keep_invariants(cfg):
    env = truco_env.env(**cfg)
    target = env.unwrapped.rules.target
    rng = np.random.default_rng(0)
    matches = 0
    for match in range(120):
        env.reset(seed=match)
        last = [0, 0]
        totals = {a: 0.0 for a in env.possible_agents}
        steps = 0
        hand_no = 1
        hand_start = [0, 0]
        hands_settled = 0

        def settle():
            nonlocal hand_start, hands_settled
            hand = env.unwrapped.last_hand("player_0")
            assert hand["hand_number"] == hand_no
            hand_start = hand_books(hand, hand_start)
            hands_settled += 1

        def check(env, agent, obs):
            nonlocal last, steps, hand_no
            raw = env.unwrapped
            steps += 1
            for a in raw.agents:   # exactly the selected agent has a non-empty mask
                assert (mask_of(raw, a).sum() > 0) == (a == agent)
            score = raw.infos[agent]["score"]
            assert score[0] >= last[0] and score[1] >= last[1], "scores never fall"
            assert max(score) < target, "the match ends exactly when a side reaches the target"
            last = list(score)
            for a in raw.agents:
                totals[a] += raw.rewards[a]
            now = int(raw.game.S[0, C.HAND_NO])
            if now != hand_no:             # a hand ended since the last action: its books
                assert now == hand_no + 1
                settle()
                hand_no = now

        rewards = play_random(env, rng, check)
        settle()                            # the hand that ended the match
        assert steps > 0
        assert hands_settled == hand_no == len(env.unwrapped.record()["hands"])
        # Match rewards arrive at the end only: nothing before the last step.
        assert set(totals.values()) == {0.0}
        S = env.unwrapped.game.S
        final = S[0, C.SCORE:C.SCORE + 2]
        assert list(final) == hand_start, "every point was scored in some hand"
        assert (final >= target).sum() == 1
        # Match rewards: +1 to the winning side, -1 to the other: zero-sum.
        winner = int(np.argmax(final))
        assert len(rewards) == len(env.possible_agents)
        for i, a in enumerate(env.possible_agents):
            assert rewards[a] == (1.0 if i % 2 == winner else -1.0)
        assert sum(rewards.values()) == 0
        matches += 1
    assert matches == 120


def test_points_rewards_are_zero_sum_and_match_score():
    env = truco_env.env(players=4, reward="points", flor=True)
    rng = np.random.default_rng(1)
    for m in range(40):
        env.reset(seed=m)
        total = {a: 0.0 for a in env.possible_agents}
        steps = 0
        for agent in env.agent_iter():
            # Per-hand rewards: credit what each agent received since it last acted.
            obs, rew, term, trunc, _ = env.last()
            total[agent] += rew
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        assert steps > 0
        S = env.unwrapped.game.S
        score = S[0, C.SCORE:C.SCORE + 2]
        diff = float(score[0] - score[1])
        assert sum(total.values()) == pytest.approx(0.0)
        for i, a in enumerate(env.possible_agents):
            assert total[a] == pytest.approx(diff if i % 2 == 0 else -diff)


@pytest.mark.parametrize("kind", ["compact", "infostate", "recall"])
@pytest.mark.parametrize("players", [2, 4])
def test_no_information_leak_swapping_hidden_cards(kind, players):
    """Swap an opponent's unplayed cards: the observer's observation must not change."""
    env = truco_env.env(players=players, observation=kind, flor=True)
    rng = np.random.default_rng(2)
    compared = swapped = 0
    for m in range(30):
        env.reset(seed=m)
        for _ in range(int(rng.integers(0, 6))):
            obs, _, term, _, _ = env.last()
            if term:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        raw = env.unwrapped
        if raw.terminations["player_0"]:
            continue
        S = raw.game.S
        for observer in range(players):
            before = raw.observe(f"player_{observer}")["observation"].copy()
            view_before = raw.view(f"player_{observer}")
            saved = S.copy()
            used = set(int(c) for c in S[0, C.HAND:C.HAND + 3 * players])
            unused = [c for c in range(40) if c not in used]
            for p in range(players):
                if p == observer:
                    continue
                for k in range(3):
                    if S[0, C.PLAYED + 3 * p + k] < 0:
                        S[0, C.HAND + 3 * p + k] = unused.pop()
                        S[0, C.HRANK + 3 * p + k] = rng.integers(0, 14)
                        swapped += 1
                S[0, C.ENVIDO_PTS + p] = rng.integers(0, 34)
                if S[0, C.SUNG + p] == 0 and S[0, C.PUBLIC + p] < 0:
                    S[0, C.FLOR_PTS + p] = -1 if rng.random() < .5 else rng.integers(20, 39)
            after = raw.observe(f"player_{observer}")["observation"]
            assert np.array_equal(before, after)
            assert raw.view(f"player_{observer}") == view_before
            S[:] = saved
            compared += 1
    # Most matches are still in their first hand after 0-5 actions: many observers compared,
    # each with hidden cards swapped (nobody plays three cards in five actions).
    assert compared >= 20 * players
    assert swapped >= compared * (players - 1)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_record_replays_exactly(players):
    env = truco_env.env(players=players, flor=True)
    env.reset(seed=11)
    play_random(env, np.random.default_rng(3))
    record = env.unwrapped.record()
    text = json.dumps(record)             # JSON-serialisable
    again = truco_env.replay(text)
    assert np.array_equal(again.unwrapped.game.S, env.unwrapped.game.S)
    assert len(record["hands"]) > 1


def test_same_seed_same_match():
    def run(seed):
        env = truco_env.env(players=4)
        env.reset(seed=seed)
        play_random(env, np.random.default_rng(seed))
        return env.unwrapped.record()
    assert run(5) == run(5)
    assert run(5) != run(6)


def test_corrupt_record_is_a_clear_error():
    env = truco_env.env()
    env.reset(seed=0)
    play_random(env, np.random.default_rng(0))
    record = env.unwrapped.record()
    record["hands"][0]["actions"].insert(0, "vale_cuatro")
    with pytest.raises(ValueError, match="vale_cuatro"):
        truco_env.replay(record)
    with pytest.raises(ValueError, match="record"):
        truco_env.replay({"hello": 1})


def test_hand_outcomes_follow_the_parda_table():
    """truco_env.strength reads the hand winner from the core: docs/rules.md section 2."""
    from truco_env.strength import LOSE, PARDA, WIN, hand_outcome
    assert hand_outcome((WIN, WIN, LOSE)) == 1.0
    assert hand_outcome((WIN, PARDA, LOSE)) == 1.0        # won 1, parda in 2
    assert hand_outcome((WIN, LOSE, PARDA)) == 1.0        # one each, parda: winner of 1
    assert hand_outcome((PARDA, LOSE, WIN)) == 0.0        # parda then the next decided
    assert hand_outcome((PARDA, PARDA, LOSE)) == 0.0
    assert hand_outcome((PARDA, PARDA, PARDA)) == -1.0    # the mano decides
    assert hand_outcome((LOSE, WIN, WIN)) == 1.0


def test_record_names_the_agents_by_seat():
    env = truco_env.env()
    env.reset(seed=0)
    assert env.unwrapped.record(agents=["heuristic", "random"])["agents"] == ["heuristic", "random"]
    with pytest.raises(ValueError, match="agents"):
        env.unwrapped.record(agents=["one"])
