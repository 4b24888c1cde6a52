"""The three-player modes of seed 000 (docs/rules.md section 12): pata de gallo and destantado.

Scenarios are written from the seed's sentences, with their arithmetic; then the random fuzz
over whole matches, leaks, replay, PettingZoo's api_test/seed_test and bad configurations.
"""
import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import truco_env
from truco_env import ACTIONS, ConfigurationError
from truco_env import core as C
from helpers_rules import (act, assert_hidden_cards_do_not_leak, done, legal, make, play, run,
                           score, turn, view)

A33 = ["7c", "6c", "4b"]   # envido 33
B27 = ["1e", "2o", "5o"]   # envido 27
C20 = ["12b", "11b", "4o"]  # envido 20
DISCARDS = {f"discard_{k}" for k in range(4)}


def pata(hands, mano=0, **kw):
    """A pata de gallo hand: the gallo (the seat before the mano) is given four cards."""
    return make(players=3, rules="pata_de_gallo", hands=hands, mano=mano, **kw)


def dest(hands=(A33, B27, C20), mano=0, **kw):
    return make(players=3, rules="destantado", hands=hands, mano=mano, **kw)


def events(env, kind, seat=0):
    raw = env.unwrapped
    v = raw.last_hand(f"player_{seat}") if done(env) else raw.view(f"player_{seat}")
    return [e for e in v["events"] if e["event"] == kind]


# ---------------------------------------------------------------------------- pata de gallo
def test_pata_the_dealer_is_the_gallo_and_discards_first():
    # "El que reparte las cartas es el que juega solo"; "se da cuatro cartas ... debe descartar
    # una de ellas según su elección" before play: the gallo alone acts, with discards only.
    env = pata([A33, B27, C20 + ["3e"]], mano=0)
    v2 = view(env, 2)
    assert v2["gallo"] == 2 and v2["discarding"] and v2["teams"] == [1, 1, 0]
    assert turn(env) == 2 and legal(env) == DISCARDS
    assert v2["hand"] == ["12b", "11b", "4o", "3e"]
    assert view(env, 0)["hand"] == A33 and view(env, 1)["hand"] == B27
    for seat in (0, 1):
        assert not legal(env, seat)
    run(env, "2 discard_1")                     # drops the 11b; the kept three keep their order
    assert view(env, 2)["hand"] == ["12b", "4o", "3e"]
    assert view(env, 2)["discarded"] == "11b"
    for seat in (0, 1):                          # nobody else ever sees the discarded card
        assert view(env, seat)["discarded"] is None
        assert "11b" not in json.dumps(view(env, seat))
    assert events(env, "discard") == [{"event": "discard", "seat": 2}]
    assert turn(env) == 0 and "discard_0" not in legal(env)
    # The gallo's envido is that of the three cards he kept: 12b 4o 3e -> 4 + 3 + 20 = no pair
    # of a suit ... 4o alone; 3e alone: the highest single, 4.
    assert env.unwrapped.view("player_2")["my_envido"] == 4


def test_pata_points_are_scored_by_each_player_of_the_pair():
    # "los puntos que obtengan se anotan individualmente para cada uno".
    env = pata([A33, B27, C20 + ["3e"]])
    run(env, "2 discard_3", "0 truco", "2 no_quiero")
    assert done(env) and score(env) == [1, 1, 0]
    pts = events(env, "points")
    assert sorted((e["seat"], e["points"]) for e in pts) == [(0, 1), (1, 1)]


def test_pata_the_gallo_scores_alone_and_a_mazo_gives_up_for_the_pair():
    env = pata([A33, B27, C20 + ["3e"]])
    run(env, "2 discard_3", "0 mazo")
    assert done(env) and score(env) == [0, 0, 1]


def test_pata_envido_compares_the_gallo_with_the_better_of_the_pair():
    # Seat 0 (33) and seat 1 (20) against the gallo (27): the pair's 33 wins, 2 each.
    env = pata([A33, C20, B27 + ["3c"]])
    run(env, "2 discard_3", "0 envido", "2 quiero")
    assert score(env) == [2, 2, 0]
    # Either of the pair may answer: the gallo (seat 0, 33) sings after both of the pair
    # played, the next of the pair after him (seat 1) answers; 33 beats the pair's best 27.
    env = pata([A33 + ["3c"], C20, B27], mano=1)
    run(env, "0 discard_3", "1 12b", "2 5o", "0 envido", "1 quiero")
    assert score(env) == [2, 0, 0]


def test_pata_the_deal_moves_round_so_everyone_is_gallo():
    env = truco_env.env(players=3, rules="pata_de_gallo")
    rng = np.random.default_rng(0)
    seen = set()
    for m in range(3):
        env.reset(seed=m)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            v = env.unwrapped.view(agent)
            if v["discarding"]:     # hand k of a match (mano 0 first): the gallo is k + 1 mod 3
                assert v["gallo"] == (v["mano"] - 1) % 3 == (v["hand_number"] + 1) % 3
                assert v["gallo"] == env.unwrapped.agent_name_mapping[agent]
                seen.add(v["gallo"])
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen == {0, 1, 2}


def test_pata_first_player_to_the_target_wins():
    # The pair reaches 30 together: the higher score wins ...
    env = pata([A33, C20, B27 + ["3c"]], score=[28, 29, 0], episode="match")
    run(env, "2 discard_3", "0 envido", "2 quiero")
    assert done(env) and score(env) == [30, 31, 0]
    assert env.rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}
    assert env.unwrapped.view("player_0")["winner"] == 1
    # ... equal scores: the one nearer the mano.
    env = pata([A33, C20, B27 + ["3c"]], score=[29, 29, 0], episode="match")
    run(env, "2 discard_3", "0 truco", "2 no_quiero")
    assert done(env) and score(env) == [30, 30, 0]
    assert env.unwrapped.view("player_0")["winner"] == 0


def test_pata_falta_envido_reads_per_player_scores():
    # 20-5-10 (T=30, buenas): not all in malas, the falta is what the leader lacks: 10.
    env = pata([A33, C20, B27 + ["3c"]], score=[20, 5, 10])
    run(env, "2 discard_3", "0 falta_envido", "2 quiero")
    assert score(env) == [30, 15, 10] and done(env)
    # All three in malas: what the winner's best player lacks (he wins the match).
    env = pata([A33, C20, B27 + ["3c"]], score=[3, 9, 12], episode="match")
    run(env, "2 discard_3", "0 falta_envido", "2 quiero")
    assert score(env) == [24, 30, 12]
    assert env.unwrapped.view("player_0")["winner"] == 1


def test_pata_gallo_hand_option_needs_four_cards():
    with pytest.raises(ValueError, match="4 cards"):
        pata([A33, B27, C20])


# ---------------------------------------------------------------------------- destantado
def test_destantado_seed_example_one_accepts_and_loses():
    # "En caso de que solo uno de ellos acepte y pierda ante el que cantó, el ganador pasa los
    # dos (2) tantos ... el ganador del envido queda con ocho (8) puntos ... y el perdedor con
    # doce (12)."
    env = dest()
    assert score(env) == [10, 10, 10]
    run(env, "0 envido", "1 quiero", "2 no_quiero")
    assert score(env) == [8, 12, 10]
    assert events(env, "pass") == [{"event": "pass", "seat": 0, "to": 1, "points": 2,
                                    "source": "envido"}]
    assert turn(env) == 0          # the hand goes on


def test_destantado_both_accept_the_winner_sheds_four():
    # "son dos puntos para cada uno de los perdedores ... se deshace de cuatro (4) puntos".
    env = dest()
    run(env, "0 envido", "1 quiero", "2 quiero")
    assert score(env) == [6, 12, 12]
    # An accepter with the best envido passes to the singer and to the other accepter.
    env = dest(hands=(C20, A33, B27))
    run(env, "0 envido", "1 quiero", "2 quiero")
    assert score(env) == [12, 6, 12]


def test_destantado_rejected_song_goes_to_the_pot():
    # "no sea aceptado por sus contendientes, el punto ganado va a parar a un pozo común que no
    # tiene ningún valor": the singer sheds it, nobody receives it.
    env = dest()
    run(env, "0 real_envido", "1 no_quiero", "2 no_quiero")
    assert score(env) == [9, 10, 10]
    assert [e["points"] for e in events(env, "points")] == [1]
    env = dest()
    run(env, "0 truco", "1 no_quiero", "2 no_quiero")
    assert done(env) and score(env) == [9, 10, 10]


def test_destantado_falta_envido_is_six():
    # "la 'falta envido' solo vale seis (6) puntos".
    env = dest()
    run(env, "0 falta_envido", "1 quiero", "2 no_quiero")
    assert score(env) == [4, 16, 10]
    assert legal(env) >= {"play_0", "truco"}


def test_destantado_answers_are_each_for_himself_without_raises():
    env = dest()
    run(env, "0 envido")
    assert legal(env) == {"quiero", "no_quiero"}
    run(env, "1 quiero")
    assert turn(env) == 2 and legal(env) == {"quiero", "no_quiero"}
    env = dest()
    run(env, "0 truco")
    assert legal(env) == {"quiero", "no_quiero", "envido", "real_envido", "falta_envido"}


def test_destantado_truco_rejected_by_one_he_leaves_the_hand():
    # A (1e 1b 7e) sings truco; B accepts; C rejects and leaves: A and B play for 2.
    env = dest(hands=(["1e", "1b", "7e"], ["4c", "5c", "6b"], ["4o", "5o", "6o"]))
    run(env, "0 truco", "1 quiero", "2 no_quiero")
    assert view(env, 0)["out"] == [2]
    run(env, "0 1e", "1 4c", "0 1b", "1 5c")
    assert done(env)
    assert score(env) == [8, 12, 10]       # A passes the truco's 2 to B only


def test_destantado_unsung_hand_winner_passes_one_to_each():
    # "Con la mano del truco o 'rabón' se procede de igual forma": everybody played the hand.
    env = dest(hands=(["1e", "1b", "7e"], ["4c", "5c", "6b"], ["4o", "5o", "6o"]))
    run(env, "0 1e", "1 4c", "2 4o", "0 1b", "1 5c", "2 5o")
    assert done(env) and score(env) == [8, 11, 11]
    assert env.unwrapped.last_hand("player_0")["hand_points"] == [2, -1, -1]


def test_destantado_mazo_leaves_the_hand_and_pays_nothing():
    env = dest(hands=(["1e", "1b", "7e"], ["4c", "5c", "6b"], ["4o", "5o", "6o"]))
    run(env, "0 1e", "1 mazo", "2 4o", "0 1b", "2 5o")
    assert done(env) and score(env) == [9, 10, 11]


def test_destantado_a_leaver_cards_no_longer_count():
    # B wins baza 1 with the 1e, then rejects A's truco and leaves: baza 1 is judged again
    # between A and C (C's 3o beats A's 4c), and C wins baza 2 too.
    env = dest(hands=(["4c", "7e", "5b"], ["1e", "4b", "6c"], ["3o", "3c", "5o"]))
    run(env, "0 4c", "1 1e", "2 3o", "1 4b", "2 3c", "0 truco", "1 no_quiero", "2 quiero")
    assert view(env, 0)["baza_results"][0] == 2 and not done(env)
    run(env, "0 5b")                         # C's 3c wins baza 2: C passes the truco's 2 to A
    assert done(env)
    assert score(env) == [12, 10, 8]


def test_destantado_three_bazas_three_winners_the_first_wins():
    # "La primera baza o enfrentamiento es la que vale más."
    env = dest(hands=(["1e", "4c", "4b"], ["5c", "1b", "5b"], ["6c", "6o", "7e"]))
    run(env, "0 1e", "1 5c", "2 6c", "0 4c", "1 1b", "2 6o", "1 5b", "2 7e", "0 4b")
    v = env.unwrapped.last_hand("player_0")
    assert v["baza_results"] == [0, 1, 2]
    assert score(env) == [8, 11, 11]


def test_destantado_winner_of_the_hand_is_the_next_mano():
    # "El jugador que gana la mano es el que empieza a jugar la siguiente mano."
    env = dest(hands=(["4c", "5c", "6b"], ["1e", "1b", "7e"], ["4o", "5o", "6o"]),
               episode="match")
    run(env, "0 4c", "1 1e", "2 4o", "1 1b", "2 5o", "0 5c")
    assert view(env, 0)["hand_number"] == 2 and view(env, 0)["mano"] == 1
    assert turn(env) == 1


def test_destantado_first_to_zero_wins():
    env = dest(hands=(["1e", "1b", "7e"], ["4c", "5c", "6b"], ["4o", "5o", "6o"]),
               score=[1, 10, 10], episode="match")
    run(env, "0 1e", "1 4c", "2 4o", "0 1b", "1 5c", "2 5o")
    assert done(env) and score(env)[0] == 0
    assert env.unwrapped.view("player_0")["winner"] == 0
    assert env.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


# ---------------------------------------------------------------------------- configurations
@pytest.mark.parametrize("kwargs, name", [
    (dict(players=4, rules="pata_de_gallo"), "players=4"),
    (dict(players=2, rules="destantado"), "players=2"),
    (dict(players=3), "players=3"),
    (dict(players=3, rules="trucoshi"), "players=3"),
    (dict(players=3, rules="destantado", flor=True), "flor"),
    (dict(players=3, rules="argentino", mode="tres"), "mode"),
])
def test_bad_three_player_configurations_are_named_errors(kwargs, name):
    with pytest.raises(ConfigurationError, match=name):
        truco_env.env(**kwargs)
    with pytest.raises(ConfigurationError, match=name):
        truco_env.VectorTrucoEnv(2, **kwargs)


def test_mode_knob_on_a_preset():
    env = truco_env.env(players=3, rules="argentino", mode="pata_de_gallo", flor=True)
    assert env.unwrapped.rules.mode == "pata_de_gallo" and env.unwrapped.rules.flor
    assert truco_env.get_rules("argentino", mode="destantado").falta_points == 6


# ---------------------------------------------------------------------------- fuzz
def books(hand, start, per_seat_core):
    """A finished hand's books by seat in core units: the score change, hand_points and the
    points and pass events agree."""
    change = [b - a for a, b in zip(start, per_seat_core)]
    assert hand["hand_points"] == change
    ev = [0, 0, 0]
    for e in hand["events"]:
        if e["event"] == "points":
            ev[e["seat"]] += e["points"]
        elif e["event"] == "pass":
            ev[e["seat"]] += e["points"]
            ev[e["to"]] -= e["points"]
    assert ev == change
    return list(per_seat_core)


@pytest.mark.parametrize("cfg", [dict(rules="pata_de_gallo"), dict(rules="pata_de_gallo",
                                                                   flor=True, target=15),
                                 dict(rules="destantado")], ids=lambda c: "-".join(map(str, c.values())))
def test_random_matches_keep_invariants(cfg):
    env = truco_env.env(players=3, **cfg)
    raw = env.unwrapped
    dest_mode = raw.rules.mode == "destantado"
    T = raw.rules.target
    rng = np.random.default_rng(0)
    for match in range(60):
        env.reset(seed=match)
        start = [0, 0, 0]
        hand_no = 1
        final = {}
        for agent in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            if term or trunc:
                final[agent] = rew
                env.step(None)
                continue
            for a in raw.agents:
                assert (raw.action_mask(a).sum() > 0) == (a == agent)
            core = [int(x) for x in raw.game.S[0, C.SCORE:C.SCORE + 3]]
            if not dest_mode:
                assert max(core) < T
            now = int(raw.game.S[0, C.HAND_NO])
            if now != hand_no:
                hand = raw.last_hand("player_0")
                assert hand["hand_number"] == hand_no
                start = books(hand, start, [T - x for x in hand["score"]] if dest_mode
                              else hand["score"])
                hand_no = now
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        hand = raw.last_hand("player_0")
        books(hand, start, [T - x for x in hand["score"]] if dest_mode else hand["score"])
        S = raw.game.S
        core = S[0, C.SCORE:C.SCORE + 3]
        w = int(S[0, C.WINNER])
        assert core[w] >= T and (core >= T).sum() >= 1
        assert final == {a: (1.0 if i == w else -0.5) for i, a in enumerate(env.possible_agents)}
        rec = raw.record()
        again = truco_env.replay(json.dumps(rec))
        assert np.array_equal(again.unwrapped.game.S, S)


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
@pytest.mark.parametrize("kind", ["compact", "recall", "infostate"])
def test_no_information_leak(rules, kind):
    """Swap the other players' unplayed cards (and the gallo's fourth or discarded card): the
    observer's observation and view do not change."""
    env = truco_env.env(players=3, rules=rules, observation=kind)
    compared = assert_hidden_cards_do_not_leak(env, 30, np.random.default_rng(2), 6)
    assert compared >= 60


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
@pytest.mark.parametrize("seed", [0, 1])
def test_pettingzoo_api_test(rules, seed):
    env = truco_env.env(players=3, rules=rules)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    api_test(env, num_cycles=300)


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
def test_pettingzoo_seed_test(rules):
    seed_test(lambda: truco_env.env(players=3, rules=rules), num_cycles=200)


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
def test_pettingzoo_tests_with_hand_episodes_and_recall(rules):
    """api_test and seed_test with one hand an episode, points rewards and the perfect-recall
    observation (the other configurations a trainer uses)."""
    kw = dict(players=3, rules=rules, episode="hand", reward="points", observation="recall")
    env = truco_env.env(**kw)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    api_test(env, num_cycles=200)
    seed_test(lambda: truco_env.env(**kw), num_cycles=100)


@pytest.mark.parametrize("rules", ["pata_de_gallo", "destantado"])
def test_vector_env_and_render(rules):
    venv = truco_env.VectorTrucoEnv(16, players=3, rules=rules, seed=0)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        m = obs["action_mask"]
        a = np.array([rng.choice(np.flatnonzero(r)) for r in m])
        obs, rew, dones, info = venv.step(a)
        assert info["score"].shape == (16, 3) and rew.shape == (16, 3)
        assert np.allclose(rew.sum(axis=1), 0.0, atol=1e-6)
    env = truco_env.env(players=3, rules=rules, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert "player_2" in text and "Score" in text
    assert ACTIONS[16:20] == ("discard_0", "discard_1", "discard_2", "discard_3")


def test_pica_pica_and_the_three_player_modes_are_exclusive():
    for preset in ("pata_de_gallo", "destantado"):
        with pytest.raises(truco_env.ConfigurationError, match="pica_pica=True for mode"):
            truco_env.get_rules(preset, pica_pica=True)
    with pytest.raises(truco_env.ConfigurationError, match="pica_pica=True for mode"):
        truco_env.get_rules("argentino", mode="pata_de_gallo", players_allowed=(3,),
                            pica_pica=True)
