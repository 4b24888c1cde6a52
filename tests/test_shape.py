"""The vector env's shape at hand and match boundaries, its points rewards and its agreement with
the AEC env through whole matches (issue 9, item 8).

* After an auto-reset: a finished match starts over at 0-0 with hand 1; a finished hand of a
  match that goes on deals the next hand with the next mano and the same score (also with
  ``episode="hand"``); ``info["score"]`` is the score before the reset.
* ``reward="points"``: every seat's reward is its team's hand points minus the other's, and
  ``info["hand_points"]`` equals the score change and the points events of the final state.
* The vector env and the AEC env give the same observation and mask to the player to act at
  every step of the same match (2, 4, 6 players, every encoder).
"""
import numpy as np
import pytest

import truco_env
from truco_env import VectorTrucoEnv
from truco_env import core as C
from truco_env.cards import card_str
from truco_env.view import hand_events

N = 32


def random_actions(rng, mask):
    return (rng.random(mask.shape) + mask).argmax(axis=1)


def events_points(final_state, j):
    """Points by team from the points events of the j-th final state."""
    pts = [0, 0]
    for e in hand_events(final_state, j):
        if e["event"] == "points":
            pts[e["team"]] += e["points"]
    return pts


# ---------------------------------------------------------------------- auto-reset
@pytest.mark.parametrize("episode", ["match", "hand"])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_state_right_after_an_auto_reset(players, episode):
    target = 9
    venv = VectorTrucoEnv(N, players=players, target=target, episode=episode, seed=players)
    obs, info = venv.reset()
    assert (venv.state[:, C.HAND_NO] == 1).all()
    assert (venv.state[:, C.SCORE:C.SCORE + 2] == 0).all()
    rng = np.random.default_rng(players)
    matches_over = hands_over = steps_in_hand = 0
    for _ in range(1500):
        before = venv.state.copy()
        obs, rewards, dones, info = venv.step(random_actions(rng, obs["action_mask"]))
        S = venv.state
        ended = np.flatnonzero(info["hand_ended"])
        final = info["final_state"]
        assert len(final) == len(ended)
        # Episode ends: every match end, and every hand end in hand episodes.
        match_over = info["winner"] >= 0
        assert (dones == (match_over | (info["hand_ended"] if episode == "hand" else False))).all()
        assert (match_over <= info["hand_ended"]).all(), "a match ends with its hand"
        for j, g in enumerate(ended):
            # info["score"] is the score before the reset: the final state's score.
            assert (info["score"][g] == final[j, C.SCORE:C.SCORE + 2]).all()
            assert final[j, C.HAND_OVER] == 1 and final[j, C.END_REASON] == info["end_reason"][g]
            assert (S[g, C.HAND_OVER], S[g, C.LOG_LEN], S[g, C.BAZA], S[g, C.DONE]) == (0, 0, 0, 0)
            assert S[g, C.ACTOR] == S[g, C.MANO] == info["actor"][g]
            if match_over[g]:
                w = info["winner"][g]
                assert info["score"][g, w] >= target > info["score"][g, 1 - w]
                assert final[j, C.DONE] == 1 and final[j, C.WINNER] == w
                assert (S[g, C.SCORE:C.SCORE + 2] == 0).all(), "a new match starts at 0-0"
                assert S[g, C.HAND_NO] == 1 and S[g, C.WINNER] == -1
                matches_over += 1
            else:
                assert info["score"][g].max() < target
                assert (S[g, C.SCORE:C.SCORE + 2] == info["score"][g]).all(), "score carried"
                assert S[g, C.MANO] == (final[j, C.MANO] + 1) % players, "the next mano"
                assert S[g, C.HAND_NO] == final[j, C.HAND_NO] + 1
                hands_over += 1
        going = np.flatnonzero(~info["hand_ended"])
        steps_in_hand += len(going)
        # Nothing is reset where no hand ended: same hand, same mano, score as reported.
        assert (S[going, C.HAND_NO] == before[going, C.HAND_NO]).all()
        assert (S[going, C.MANO] == before[going, C.MANO]).all()
        assert (info["score"][going] == S[going, C.SCORE:C.SCORE + 2]).all()
        assert (info["winner"][going] == -1).all() and not dones[going].any()
        assert (info["actor"] == S[:, C.ACTOR]).all()
    assert matches_over > 5 and hands_over > 20 and steps_in_hand > 0


# ---------------------------------------------------------------------- points rewards
POINTS_CONFIGS = [
    dict(players=2, target=9), dict(players=2, flor=True), dict(players=4, rules="trucoshi"),
    dict(players=6, rules="uruguayo"), dict(players=4, episode="hand"),
]


@pytest.mark.parametrize("cfg", POINTS_CONFIGS,
                         ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_points_rewards_equal_the_score_changes(cfg):
    venv = VectorTrucoEnv(N, reward="points", seed=5, **cfg)
    players = venv.players
    team = np.arange(players) % 2
    obs, info = venv.reset()
    hand_start = venv.state[:, C.SCORE:C.SCORE + 2].copy()
    rng = np.random.default_rng(5)
    hands = matches = 0
    for _ in range(1200):
        obs, rewards, dones, info = venv.step(random_actions(rng, obs["action_mask"]))
        ended = np.flatnonzero(info["hand_ended"])
        hp = info["hand_points"]
        # No reward, no hand points where no hand ended.
        assert not rewards[~info["hand_ended"]].any()
        assert not hp[~info["hand_ended"]].any()
        assert not info["end_reason"][~info["hand_ended"]].any()
        for j, g in enumerate(ended):
            change = info["score"][g] - hand_start[g]
            assert (hp[g] == change).all(), "hand points = the score change over the hand"
            assert events_points(info["final_state"], j) == list(hp[g]), "= the points events"
            want = np.where(team == 0, hp[g, 0] - hp[g, 1], hp[g, 1] - hp[g, 0])
            assert (rewards[g] == want).all(), "a seat's reward: its team's points - the other's"
            reasons = [e["reason"] for e in hand_events(info["final_state"], j)
                       if e["event"] == "hand_end"]
            assert reasons == [C.END_NAMES[info["end_reason"][g]]]
            hands += 1
            matches += int(info["winner"][g] >= 0)
        assert (rewards.sum(axis=1) == 0).all(), "zero-sum (teams of equal size)"
        hand_start[ended] = venv.state[ended, C.SCORE:C.SCORE + 2]
    assert hands > 50 and matches > 0


# ---------------------------------------------------------------------- vector == AEC
def deal_of(S, rules):
    P = int(S[0, C.NPLAYERS])
    return {"mano": int(S[0, C.MANO]),
            "deal": [[card_str(S[0, C.HAND + 3 * p + k]) for k in range(3)] for p in range(P)],
            "muestra": card_str(S[0, C.MUESTRA]) if rules.muestra else None}


AGREE_CONFIGS = [dict(players=2), dict(players=2, rules="uruguayo"),
                 dict(players=4, flor=True), dict(players=4, rules="trucoshi"),
                 dict(players=6), dict(players=6, rules="uruguayo")]


@pytest.mark.parametrize("observation", ["compact", "infostate", "recall"])
@pytest.mark.parametrize("cfg", AGREE_CONFIGS,
                         ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_vector_and_aec_agree_through_whole_matches(cfg, observation):
    total_steps = total_hands = 0
    for seed in range(4):
        venv = VectorTrucoEnv(1, observation=observation, seed=seed, **cfg)
        players = venv.players
        obs, info = venv.reset()
        deals = [deal_of(venv.state, venv.rules)]
        steps = []
        rng = np.random.default_rng(seed)
        for _ in range(5000):
            a = random_actions(rng, obs["action_mask"])
            seen = [venv.observe_seat(np.array([p]))[0].copy() for p in range(players)]
            # Copies: the vector env may hand out its own buffers, overwritten by step().
            steps.append((int(info["actor"][0]), obs["observation"][0].copy(),
                          obs["action_mask"][0].copy(), seen, int(a[0])))
            obs, rewards, dones, info = venv.step(a)
            if dones[0]:
                break
            if info["hand_ended"][0]:
                deals.append(deal_of(venv.state, venv.rules))
        assert dones[0], "the match did not end"
        final_score = [int(x) for x in info["score"][0]]

        env = truco_env.env(observation=observation, **cfg)
        env.reset(seed=seed, options={"deals": deals})
        for actor, v_obs, v_mask, v_seen, a in steps:
            agent = env.agent_selection
            assert agent == f"player_{actor}"
            o = env.observe(agent)
            assert np.array_equal(o["observation"], v_obs)
            assert np.array_equal(o["action_mask"], v_mask)
            for p in range(players):   # every seat's observation, not only the actor's
                assert np.array_equal(env.observe(f"player_{p}")["observation"], v_seen[p])
            env.step(a)
        assert all(env.terminations.values()), "the AEC match ended with the vector one"
        assert env.unwrapped.view("player_0")["score"] == final_score
        assert [env.rewards[f"player_{p}"] for p in range(players)] == list(rewards[0])
        assert len(env.unwrapped.record()["hands"]) == len(deals)
        total_steps += len(steps)
        total_hands += len(deals)
    # Random play often ends a match with an accepted falta envido; still, several hands.
    assert total_steps > 40 and total_hands > 4
