"""Agents: specs, legality in every configuration, reproducibility, heuristic decisions."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import agents
import truco_env
from evaluation.tournament import head_to_head
from agents.heuristic import ENVIDO_PMF, FLOR_PMF, HAND_WIN, HeuristicAgent
from truco_env.cards import TRUCO_RANK

_RANK_COUNT = np.bincount(TRUCO_RANK, minlength=14)  # cards per truco rank tier
from truco_env.game import evaluate_hand
from truco_env.rules import ACTION_ID, ACTIONS

CONFIGS = [
    dict(players=2), dict(players=2, flor=True), dict(players=4), dict(players=4, flor=True),
    dict(players=6), dict(players=2, rules="trucoshi"), dict(players=6, rules="trucoshi"),
    dict(players=2, rules="uruguayo"), dict(players=4, rules="uruguayo"),
]


# ---------------------------------------------------------------------- specs
def test_load_known_specs():
    assert isinstance(agents.load("random"), agents.RandomAgent)
    h = agents.load("heuristic:bluff=0.2, aggression=0.5")
    assert isinstance(h, HeuristicAgent) and h.bluff == 0.2 and h.aggression == 0.5
    assert agents.load("heuristic").bluff == HeuristicAgent().bluff
    assert isinstance(agents.load("human"), agents.HumanAgent)
    bot = agents.RandomAgent()
    assert agents.load(bot) is bot


@pytest.mark.parametrize("spec, words", [
    ("foo", ["unknown agent spec 'foo'", "heuristic", "random", "human", "checkpoint"]),
    ("heuristic:blf=0.2", ["unknown parameter 'blf'", "bluff", "aggression"]),
    ("heuristic:bluff", ["malformed parameter"]),
    ("heuristic:bluff=1.5", ["bluff"]),
    ("heuristic:bluff=x", ["bluff"]),
    ("heuristic:bluff=0.1,bluff=0.2", ["given twice"]),
    ("random:x=1", ["unknown parameter 'x'"]),
])
def test_bad_specs_are_clear_errors(spec, words):
    with pytest.raises(ValueError) as e:
        agents.load(spec)
    for w in words:
        assert w in str(e.value)


def test_register_hook():
    made = []

    def factory(args, seed):
        made.append((args, seed))
        return agents.RandomAgent(seed)

    agents.register("unittest_dummy", factory)
    try:
        agents.load("unittest_dummy:some/path.pt", seed=5)
        assert made == [("some/path.pt", 5)]
        assert "unittest_dummy" in agents.known_specs()
        with pytest.raises(ValueError, match="already registered"):
            agents.register("unittest_dummy", lambda a, s: agents.RandomAgent(s))
        with pytest.raises(ValueError):
            agents.register("bad prefix", factory)
    finally:
        agents.base._REGISTRY.pop("unittest_dummy", None)


def test_checkpoint_without_loader_is_clear(monkeypatch):
    monkeypatch.setattr(agents.base, "_REGISTRY",
                        {k: v for k, v in agents.base._REGISTRY.items() if k != "checkpoint"})
    import builtins
    real_import = builtins.__import__

    def no_ppo(name, *a, **k):
        if name == "agents.ppo_policy":
            raise ImportError("simulated")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_ppo)
    with pytest.raises(ValueError, match="no loader is registered for 'checkpoint'"):
        agents.load("checkpoint:runs/x")


# ---------------------------------------------------------------------- legality
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("spec", ["random", "heuristic:bluff=0.3"])
def test_batched_agents_never_play_masked_actions(cfg, spec):
    venv = truco_env.VectorTrucoEnv(64, seed=1, check_actions=True, **cfg)
    obs, info = venv.reset()
    bot = agents.load(spec, seed=2)
    dones = 0
    for _ in range(400):
        a = bot.act_batch(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][np.arange(64), a].all()
        obs, _, d, info = venv.step(a)
        dones += int(d.sum())
    assert dones > 0


@pytest.mark.parametrize("cfg", CONFIGS[:5], ids=str)
def test_act_with_views_in_aec_env(cfg):
    env = truco_env.env(**cfg, target=15 if cfg.get("rules", "argentino") != "trucoshi" else 18)
    bots = [agents.load("heuristic", seed=s) if s % 2 else agents.load("random", seed=s)
            for s in range(cfg["players"])]
    env.reset(seed=3)
    steps = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = bots[env.unwrapped.agent_name_mapping[name]].act(obs, env.unwrapped.view(name))
        assert obs["action_mask"][a] == 1
        env.step(a)  # raises IllegalActionError on a masked action
        steps += 1
    assert steps > 10


def test_random_is_uniform_over_legal():
    mask = np.zeros((30000, 16), dtype=np.int8)
    mask[:, [0, 4, 13]] = 1
    a = agents.load("random", seed=0).act_batch(np.zeros((30000, 10), np.float32), mask)
    counts = np.bincount(a, minlength=16)
    assert set(np.flatnonzero(counts)) == {0, 4, 13}
    assert np.allclose(counts[[0, 4, 13]] / 30000, 1 / 3, atol=0.015)


@pytest.mark.parametrize("spec", ["random", "heuristic:bluff=0.5"])
def test_seeded_agents_are_reproducible(spec):
    venv = truco_env.VectorTrucoEnv(32, players=4, seed=0)
    obs, _ = venv.reset()
    runs = []
    for _ in range(2):
        bot = agents.load(spec, seed=11)
        runs.append([bot.act_batch(obs["observation"], obs["action_mask"]) for _ in range(5)])
    assert all((x == y).all() for x, y in zip(*runs))
    other = agents.load(spec, seed=12)
    diff = [other.act_batch(obs["observation"], obs["action_mask"]) for _ in range(5)]
    if spec == "random":
        assert any((x != y).any() for x, y in zip(runs[0], diff))


# ---------------------------------------------------------------------- tables
def test_hand_win_table_is_exact_and_sane():
    # Over every hand (weighted by its number of card combinations), a hand beats a random
    # hand exactly half the time: the table is a symmetric two-player comparison.
    from math import comb
    total = weight = 0.0
    for t in itertools.combinations_with_replacement(range(14), 3):
        w = np.prod([comb(int(_RANK_COUNT[r]), t.count(r)) for r in set(t)])
        total += w * HAND_WIN[t]
        weight += w
    assert weight == comb(40, 3)
    assert total / weight == pytest.approx(0.5, abs=1e-9)
    assert HAND_WIN[13, 12, 11] == pytest.approx(1.0)
    assert HAND_WIN[0, 0, 0] == pytest.approx(0.0)
    # Raising any card's rank never lowers the strength.
    for t in itertools.combinations_with_replacement(range(13), 3):
        for k in range(3):
            up = list(t)
            up[k] += 1
            if up.count(up[k]) > _RANK_COUNT[up[k]]:
                continue  # no such hand (e.g. two 1e)
            assert HAND_WIN[tuple(up)] >= HAND_WIN[t] - 1e-12


def _brute_force_points(cards, muestra=None, pieza_values=(30, 29, 28, 27, 26)):
    """Envido and flor (None without flor) of three card strings, from the rules text alone
    (docs/rules.md sections 1 and 8): not a line of the package is used.

    A card's envido value is its number for 1-7, 0 for the figures 10, 11, 12.  Envido: two of
    a suit = 20 + their values (the best two of three); else the highest single value.  Flor:
    three of a suit = 20 + the three values.  With a muestra: the piezas 2, 4, 5, 11, 10 of its
    suit (the 12 replaces one that is the muestra) are worth ``pieza_values``; envido with a
    pieza = its value + the highest value of the other two cards (a pieza counts its plain
    number there); flor = three of a suit, two piezas, or a pieza and two of one suit, worth
    20 + (each pieza's value - 20) + the other cards' values.
    """
    def split(c):
        return int(c[:-1]), c[-1]

    def value(n):
        return n if n <= 7 else 0

    hand = [split(c) for c in cards]
    pieza = {}
    if muestra is not None:
        mn, ms = split(muestra)
        for n, v in zip((2, 4, 5, 11, 10), pieza_values):
            pieza[(12 if n == mn else n, ms)] = v
    piezas = [c for c in hand if c in pieza]
    others = [c for c in hand if c not in pieza]
    best = max(value(n) for n, _ in hand)
    for i in range(3):
        for j in range(i + 1, 3):
            if hand[i][1] == hand[j][1]:
                best = max(best, 20 + value(hand[i][0]) + value(hand[j][0]))
    for p in piezas:
        rest = [value(n) for c in hand if c != p for n in [c[0]]]
        best = max(best, pieza[p] + max(rest))
    suits = {s for _, s in hand}
    has_flor = (len(suits) == 1 or len(piezas) >= 2
                or (len(piezas) == 1 and others[0][1] == others[1][1]))
    flor = None
    if has_flor:
        flor = 20 + sum(pieza[p] - 20 for p in piezas) + sum(value(n) for n, _ in others)
    return best, flor


ALL_HANDS_STR = [tuple(truco_env.card_str(c) for c in h)
                 for h in itertools.combinations(range(40), 3)]


def test_envido_and_flor_of_every_hand_match_the_rules_text():
    from truco_env.core import hand_points
    from truco_env.rules import get_rules
    assert len(ALL_HANDS_STR) == 9880
    hands = np.array([[truco_env.parse_card(c) for c in h] for h in ALL_HANDS_STR])
    _, envido, flor = hand_points(hands, get_rules("argentino").tables())
    expected = [_brute_force_points(h) for h in ALL_HANDS_STR]
    want_envido = np.array([e for e, _ in expected])
    want_flor = np.array([-1 if f is None else f for _, f in expected])
    assert np.array_equal(envido, want_envido)
    assert np.array_equal(flor, want_flor)
    assert (want_flor >= 0).sum() == 4 * 120          # three of a suit: 4 * C(10, 3)
    assert want_envido.max() == 33 and want_flor.max() == 38
    # evaluate_hand is the same computation, and the heuristic's tables are its exact pmfs.
    for h, (e, f) in list(zip(ALL_HANDS_STR, expected))[::97]:
        got = evaluate_hand(list(h))
        assert (got["envido"], got["flor"]) == (e, f), h
    assert np.allclose(ENVIDO_PMF, np.bincount(want_envido, minlength=34) / 9880)
    assert np.allclose(FLOR_PMF, np.bincount(want_flor[want_flor >= 0], minlength=39) / 480)


# Muestras: a plain card (3o), a pieza (2o: the 12 takes its place), a figure pieza (10c).
@pytest.mark.parametrize("muestra", ["3o", "2o", "10c", "7e"])
def test_uruguayo_envido_and_flor_of_every_hand_match_the_rules_text(muestra):
    from truco_env.core import hand_points
    from truco_env.rules import get_rules
    hands = [h for h in ALL_HANDS_STR if muestra not in h]
    assert len(hands) == 9139                          # C(39, 3)
    ids = np.array([[truco_env.parse_card(c) for c in h] for h in hands])
    _, envido, flor = hand_points(ids, get_rules("uruguayo").tables(),
                                  truco_env.parse_card(muestra))
    expected = [_brute_force_points(h, muestra) for h in hands]
    bad = [(h, (int(e), int(f) if f >= 0 else None), x)
           for h, e, f, x in zip(hands, envido, flor, expected)
           if (int(e), int(f) if f >= 0 else None) != x]
    assert not bad, f"{len(bad)} hands differ (hand, core, rules text): {bad[:5]}"
    with_pieza = sum(1 for (e, _) in expected if e > 33)
    assert with_pieza > 0 and max(e for e, _ in expected) == 37


@pytest.mark.parametrize("hand, muestra, envido, flor", [
    ("4o 1b 1o", "3o", 30, None),     # seed 004: pieza 4 (29) + as
    ("7e 3e 6o", "3o", 30, None),     # seed 004: 20 + 7 + 3
    ("6b 3o 12e", "3c", 6, None),     # seed 004: no pair, no pieza
    ("2o 10o 12c", "3o", 30, 36),     # seed 004 flor: 20 + 10 + 6 + 0
    ("7b 6b 3b", "3o", 33, 36),       # seed 004 flor: 20 + 7 + 6 + 3
    ("2o 4o 5o", "1o", 35, 47),       # the biggest flor (design notes): 20 + 10 + 9 + 8
    ("2o 7c 1e", "1o", 37, None),     # the biggest envido (seed 001): 30 + 7
    ("12o 3c 4e", "2o", 34, None),    # muestra 2: the 12 is worth 30
])
def test_seed_examples_by_the_rules_text_and_by_the_core(hand, muestra, envido, flor):
    assert _brute_force_points(hand.split(), muestra) == (envido, flor)
    got = evaluate_hand(hand, muestra=muestra, rules="uruguayo")
    assert (got["envido"], got["flor"]) == (envido, flor)


# ---------------------------------------------------------------------- decisions
def _first_action(hands, seat_to_check=0, mano=0, players=2, actions=(), card_only=False,
                  **kw):
    env = truco_env.env(players=players, **kw)
    env.reset(seed=0, options={"hands": hands, "mano": mano})
    for a in actions:
        env.step(ACTION_ID[a])
    name = env.agent_selection
    assert name == f"player_{seat_to_check}"
    bot = HeuristicAgent(seed=0, bluff=0.0)
    if card_only:  # the card it would play (a call may come first)
        d = bot._decode(env.observe(name)["observation"][None])
        return f"play_{int(bot._choose_card(d)[0])}"
    return ACTIONS[bot.act(env.observe(name), env.unwrapped.view(name))]


def test_heuristic_sings_envido_with_33_and_truco_with_the_best_cards():
    assert _first_action([["7c", "6c", "4b"], ["1o", "12o", "5b"]]) in (
        "envido", "real_envido", "falta_envido")
    assert _first_action([["1e", "1b", "7o"], ["4o", "12o", "5b"]]) == "truco"


def test_heuristic_answers_truco_by_strength():
    weak = _first_action([["4o", "5b", "6e"], ["1e", "1b", "7e"]], seat_to_check=0, mano=1,
                         actions=["truco"])
    strong = _first_action([["1e", "1b", "7o"], ["4o", "5b", "6e"]], seat_to_check=0, mano=1,
                           actions=["truco"])
    assert weak == "no_quiero"
    assert strong in ("retruco", "quiero")


def test_heuristic_wins_a_baza_with_the_lowest_card_that_beats_it():
    # Mano plays 4o; the pie holds 3e, 5c, 12b (envido 5: no envido) and must beat it cheaply.
    assert _first_action([["4o", "6b", "7c"], ["3e", "5c", "12b"]], seat_to_check=1,
                         actions=["play_0"], card_only=True) == "play_1"
    # Nothing beats a 1e: throw the lowest card.
    assert _first_action([["1e", "6b", "7c"], ["3e", "5c", "12b"]], seat_to_check=1,
                         actions=["play_0"], card_only=True) == "play_1"


def test_heuristic_does_not_overtake_a_winning_partner():
    # 2v2, seat 0 mano plays 1e; seat 1 plays 4c; seat 2 (partner of 0) should play low.
    hands = [["1e", "6b", "7c"], ["4c", "5c", "12b"], ["3e", "2o", "4b"], ["5o", "6o", "11c"]]
    assert _first_action(hands, seat_to_check=2, players=4,
                         actions=["play_0", "play_0"], card_only=True) == "play_2"


def test_heuristic_strength_against_random():
    r = head_to_head(agents.load("heuristic", seed=0), agents.load("random", seed=1),
                     matches=200, seed=0)
    assert r.rate > 0.85, str(r)
