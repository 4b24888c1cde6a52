"""Shared helpers for the rule scenario tests: build a one-hand env, act by name, read the score.

A scenario is written as steps "<seat> <action or card>", e.g. ``run(env, "0 truco", "1 quiero",
"0 7c")``: each step asserts that this seat is the one to act and that the move is in its mask.
"""

import weakref

import numpy as np

import truco_env

ACTIONS = truco_env.ACTIONS
PLAYS = {"play_0", "play_1", "play_2"}
ENVIDO_CALLS = {"envido", "real_envido", "falta_envido"}
FLOR_ANSWERS = {"flor", "contraflor", "contraflor_al_resto", "con_flor_me_achico"}

# Reward sums per env, added up over every step made through act().
_reward_totals = weakref.WeakKeyDictionary()
# The score each env built by make() started from.
_start_scores = weakref.WeakKeyDictionary()


def make(players=2, hands=None, mano=0, score=None, seed=0, **kw):
    """An env of one hand (episode="hand" unless given), reset with this deal, mano and score."""
    kw.setdefault("episode", "hand")
    env = truco_env.env(players=players, **kw)
    options = {"mano": mano}
    if hands is not None:
        options["hands"] = [list(h) for h in hands]
    if score is not None:
        options["score"] = list(score)
    env.reset(seed=seed, options=options)
    _reward_totals[env] = {a: 0.0 for a in env.possible_agents}
    _start_scores[env] = [int(x) for x in score] if score is not None else [0, 0]
    return env


def seat_of(agent):
    return int(agent.rsplit("_", 1)[1])


def turn(env):
    """Seat of the agent to act."""
    return seat_of(env.agent_selection)


def mask(env, seat=None):
    agent = env.agent_selection if seat is None else f"player_{seat}"
    return np.asarray(env.observe(agent)["action_mask"])


def legal(env, seat=None):
    """Names of the legal actions of that seat (default: the agent to act)."""
    return {ACTIONS[i] for i in np.flatnonzero(mask(env, seat))}


def view(env, seat=None):
    agent = env.agent_selection if seat is None else f"player_{seat}"
    return env.unwrapped.view(agent)


def done(env):
    """True once the episode is over for every agent."""
    ends = [env.terminations[a] or env.truncations[a] for a in env.terminations]
    return bool(ends) and all(ends)


def terminated(env):
    return bool(env.terminations) and all(env.terminations.values())


def score(env):
    """The score by team, from the infos (any agent's)."""
    for agent in env.possible_agents:
        info = env.infos.get(agent) if hasattr(env.infos, "get") else None
        if info and "score" in info:
            return [int(x) for x in info["score"]]
    raise AssertionError("no agent's info holds a score")


def rewards(env):
    """Sum of env.rewards over all steps made through act(), by agent."""
    return dict(_reward_totals[env])


def act(env, name):
    """Step the action called `name` after checking that the agent to act may take it."""
    assert not done(env), f"the episode is over; cannot {name}"
    obs, _, _, _, _ = env.last()
    i = ACTIONS.index(name)
    assert obs["action_mask"][i] == 1, (
        f"{name} is not legal for {env.agent_selection}; legal: {sorted(legal(env))}"
    )
    env.step(i)
    totals = _reward_totals.setdefault(env, {a: 0.0 for a in env.possible_agents})
    for agent, r in env.rewards.items():
        totals[agent] = totals.get(agent, 0.0) + float(r)


def play(env, card):
    """The agent to act plays `card` (it must be in his hand)."""
    hand = view(env)["hand"]
    assert card in hand, f"{card} is not in {env.agent_selection}'s hand {hand}"
    act(env, f"play_{hand.index(card)}")


def run(env, *steps):
    """Do steps "<seat> <action or card>", asserting each time that this seat is to act."""
    for step in steps:
        seat, move = step.split()
        assert turn(env) == int(seat), f"before {step!r}: {env.agent_selection} is to act"
        if move in ACTIONS:
            act(env, move)
        else:
            play(env, move)


def play_out(env, limit=20):
    """Play the lowest legal card slot until the episode ends (no song may be pending)."""
    for _ in range(limit):
        if done(env):
            return
        slots = sorted(legal(env) & PLAYS)
        assert slots, f"{env.agent_selection} cannot play a card; legal: {sorted(legal(env))}"
        act(env, slots[0])
    assert done(env), "the hand did not end"


def table(env, seat=0):
    """This hand's bazas as lists of (seat, card) tuples."""
    return [[(int(s), c) for s, c in baza] for baza in view(env, seat)["table"]]


def books(env):
    """The points of the env's first hand by team, after checking that they add up.

    Three accounts must agree: the score change since ``make()``, the hand's ``hand_points``
    and the sum of its ``points`` events.  Once the episode is over with ``reward="points"``,
    every seat's summed reward (through :func:`act`) is its team's points minus the other's.
    Only the first hand of an env counts (``make()`` builds one-hand envs; with
    ``episode="match"`` the points of a second hand in play are set aside).
    """
    raw = env.unwrapped
    now = raw.view("player_0")
    change = [s - s0 for s, s0 in zip(score(env), _start_scores[env])]
    if done(env) or now["hand_number"] > 1:
        hand = raw.last_hand("player_0")
        assert hand is not None and hand["hand_number"] == 1, "not the env's first hand"
        assert hand["hand_over"]
        if not done(env):
            assert now["hand_number"] == 2, "books() reads the first hand only"
            change = [c - x for c, x in zip(change, now["hand_points"][:2])]
    else:
        hand = now
    assert hand["hand_points"][:2] == change, (
        f"hand_points {hand['hand_points'][:2]} != score change {change}")
    events = [0, 0]
    count = 0
    for e in hand["events"]:
        if e["event"] == "points":
            events[e["team"]] += e["points"]
            count += 1
    assert events == change, f"points events {events} != score change {change}"
    assert count >= sum(1 for c in change if c), "a team scored without a points event"
    raw = env.unwrapped
    if done(env) and raw.game.reward == "points" and raw.game.episode == "hand":
        r = rewards(env)
        for agent in env.possible_agents:
            team = seat_of(agent) % 2
            assert r[agent] == change[team] - change[1 - team], (
                f"{agent} reward {r[agent]} != points won minus conceded {change}")
        assert sum(r.values()) == 0, "rewards are zero-sum"
    return change


def assert_score(env, expected):
    """The score is ``expected`` and the hand's books add up (see :func:`books`)."""
    assert score(env) == list(expected)
    books(env)


def assert_hidden_cards_do_not_leak(env, resets, rng, max_steps, options=None):
    """After each reset (``range(resets)`` as seeds, ``options``) and up to ``max_steps`` random
    legal actions, every observer's observation and view stay the same when every other
    player's unplayed cards are swapped for unused ones (with their ranks, the envido points
    not said aloud, and the gallo's fourth or discarded card).  Returns the positions
    compared."""
    from truco_env import core as C
    raw = env.unwrapped
    P = raw.players
    compared = 0
    for m in range(resets):
        env.reset(seed=m, options=options)
        for _ in range(int(rng.integers(0, max_steps))):
            obs, _, term, _, _ = env.last()
            if term:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if raw.terminations["player_0"]:
            continue
        S = raw.game.S
        for observer in range(P):
            before = raw.observe(f"player_{observer}")["observation"].copy()
            view_before = raw.view(f"player_{observer}")
            saved = S.copy()
            used = set(int(c) for c in S[0, C.HAND:C.HAND + 3 * P]) | {
                int(S[0, C.FOURTH]), int(S[0, C.DISCARD])}
            unused = [c for c in range(40) if c not in used]
            for p in range(P):
                if p == observer:
                    continue
                for k in range(3):
                    if S[0, C.PLAYED + 3 * p + k] < 0:
                        S[0, C.HAND + 3 * p + k] = unused.pop()
                        S[0, C.HRANK + 3 * p + k] = rng.integers(0, 14)
                if S[0, C.PUBLIC + p] < 0:
                    S[0, C.ENVIDO_PTS + p] = rng.integers(0, 34)
                if p == S[0, C.GALLO]:
                    for f in (C.FOURTH, C.DISCARD):
                        if S[0, f] >= 0:
                            S[0, f] = unused.pop()
            assert np.array_equal(before, raw.observe(f"player_{observer}")["observation"])
            assert raw.view(f"player_{observer}") == view_before
            S[:] = saved
            compared += 1
    return compared
