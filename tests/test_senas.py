"""Señas (issue 13; docs/rules.md section 13): the window, who sees a seña, the catch
probability, records and replay, the heuristic's señas, and bad configurations."""
import json

import numpy as np
import pytest

import agents
import truco_env
from truco_env import ACTIONS, ConfigurationError, VectorTrucoEnv
from truco_env import core as C
from truco_env.observe import Encoder
from truco_env.rules import get_rules, sena_vocabulary
from truco_env.senas import truthful
from helpers_rules import assert_hidden_cards_do_not_leak, legal, make, turn, view

SENAS = {f"sena_{k}" for k in range(16)}
HANDS4 = (["1e", "7c", "6c"], ["1b", "4o", "5o"], ["3e", "12b", "11b"], ["2o", "4b", "6e"])


def senas4(catch=0.25, **kw):
    return make(players=4, hands=HANDS4, senas="traditional", sena_catch=catch, **kw)


def names(env):
    return legal(env) & SENAS


# ---------------------------------------------------------------------------- configuration
@pytest.mark.parametrize("kwargs, match", [
    (dict(players=2, senas="traditional"), "senas='traditional' with players=2"),
    (dict(players=2, senas="learned"), "senas='learned' with players=2"),
    (dict(players=3, rules="destantado", senas="traditional"), "mode 'destantado'"),
    (dict(players=4, senas="yes"), "bad value senas='yes'"),
])
def test_senas_without_partners_or_bad_values_are_named_errors(kwargs, match):
    with pytest.raises(ConfigurationError, match=match):
        truco_env.env(**kwargs)
    with pytest.raises(ConfigurationError, match=match):
        VectorTrucoEnv(2, **kwargs)


@pytest.mark.parametrize("kwargs, match", [
    (dict(sena_tokens=0), "bad value sena_tokens=0"), (dict(sena_tokens=17), "sena_tokens=17"),
    (dict(sena_catch=1.5), "bad value sena_catch=1.5"), (dict(sena_catch=True), "sena_catch"),
])
def test_bad_sena_knobs_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        truco_env.env(players=4, senas="learned", **kwargs)


def test_vocabularies_and_action_ids():
    assert ACTIONS[:20] == tuple(truco_env.ACTIONS[:20])          # the old ids keep their meaning
    assert ACTIONS[16:20] == ("discard_0", "discard_1", "discard_2", "discard_3")
    assert ACTIONS[20:] == tuple(f"sena_{k}" for k in range(16))
    assert sena_vocabulary(get_rules("argentino", senas="traditional"))[0] == "ancho_de_espada"
    assert len(sena_vocabulary(get_rules("argentino", senas="traditional"))) == 9
    assert len(sena_vocabulary(get_rules("uruguayo", senas="traditional"))) == 11
    assert len(sena_vocabulary(get_rules("argentino", senas="learned", sena_tokens=5))) == 5
    assert sena_vocabulary(get_rules("argentino")) == ()


# ---------------------------------------------------------------------------- the window
def test_a_sena_keeps_the_turn_once_per_baza_before_the_card():
    env = senas4()
    assert names(env) == {f"sena_{k}" for k in range(9)}
    env.step(ACTIONS.index("sena_0"))
    assert turn(env) == 0 and not names(env)              # one per baza, the turn stays
    assert "play_0" in legal(env) and "truco" in legal(env)
    env.step(ACTIONS.index("truco"))
    assert turn(env) == 1 and not names(env)              # answering a song: no seña
    env.step(ACTIONS.index("quiero"))
    assert turn(env) == 0 and not names(env)
    env.step(ACTIONS.index("play_1"))                     # 0 plays 7c
    assert turn(env) == 1 and names(env)                  # the next player's window opens
    for _ in range(3):
        env.step(ACTIONS.index("play_0"))
    # baza 2: the winner (seat 1, 1b) leads; everybody may sign again
    assert turn(env) == 1 and names(env)
    env.step(ACTIONS.index("sena_3"))
    assert turn(env) == 1 and not names(env)


def test_learned_tokens_count_and_pica_pica_and_pata_de_gallo_windows():
    env = make(players=4, senas="learned", sena_tokens=3)
    assert names(env) == {"sena_0", "sena_1", "sena_2"}
    env = make(players=6, senas="learned")
    assert len(names(env)) == 8
    # pata de gallo: the pair signs, the gallo (alone) does not
    env = make(players=3, rules="pata_de_gallo", senas="traditional", seed=1)
    gallo = int(env.unwrapped.game.S[0, C.GALLO])
    env.step(ACTIONS.index("discard_3"))
    seen = set()
    for _ in range(3):
        seat = turn(env)
        seen.add(seat)
        assert bool(names(env)) == (seat != gallo)
        env.step(ACTIONS.index("play_0"))
    assert len(seen) == 3
    # pica-pica duels: no señas (the partner is not in play)
    env = truco_env.env(players=4, pica_pica=True, senas="traditional")
    env.reset(seed=0)
    g = env.unwrapped.game
    g.S[0, C.HAND_NO] = 4        # the next hand is past the first round: a pica-pica hand
    g.S[0, C.HAND_OVER] = 1
    g.next_hand()
    env.unwrapped._update()
    assert g.S[0, C.PICA] == 1 and not names(env)


# ---------------------------------------------------------------------------- who sees it
def _obs(env, seat, kind):
    return Encoder(kind).encode_one(env.unwrapped.game.S, env.unwrapped.game.tables, 0, seat)


@pytest.mark.parametrize("kind", ["compact", "recall", "infostate"])
def test_an_uncaught_sena_changes_nothing_an_opponent_observes(kind):
    plain, signed = senas4(catch=0.0), senas4(catch=0.0)
    signed.step(ACTIONS.index("sena_4"))
    for seat in (1, 3):
        assert np.array_equal(_obs(plain, seat, kind), _obs(signed, seat, kind))
        assert view(plain, seat) == view(signed, seat)
    # the partner sees it; the signer too
    enc = Encoder(kind)
    seen = enc.views(_obs(signed, 2, kind))["senas.seen"].reshape(3, 6, 17)
    assert seen[0, 2, 4] == 1 and seen[0, 2, 16] == 0      # seat 0 is relative seat 2 of seat 2
    assert view(signed, 2)["senas"] == [{"seat": 0, "baza": 0, "sena": "tres", "caught": False}]
    assert view(signed, 0)["senas"][0]["sena"] == "tres"


def test_a_caught_sena_is_marked_and_the_signer_never_learns_it():
    caught, missed = senas4(catch=1.0), senas4(catch=0.0)
    for env in (caught, missed):
        env.step(ACTIONS.index("sena_7"))
    for seat in (0, 2):          # the signer and his partner see the same either way
        for kind in ("compact", "recall"):
            assert np.array_equal(_obs(caught, seat, kind), _obs(missed, seat, kind))
        assert view(caught, seat)["senas"] == view(missed, seat)["senas"]
    v = view(caught, 1)
    assert v["senas"] == [{"seat": 0, "baza": 0, "sena": "envido_alto", "caught": True}]
    seen = Encoder("compact").views(_obs(caught, 1, "compact"))["senas.seen"].reshape(3, 6, 17)
    assert seen[0, 3, 7] == 1 and seen[0, 3, 16] == 1      # seat 0 is relative seat 3 of seat 1
    assert view(missed, 1)["senas"] == []
    rec = caught.unwrapped.record()
    assert rec["hands"][0]["caught"] == [[1, 3]]


@pytest.mark.parametrize("kind", ["compact", "recall"])
def test_swapping_hidden_cards_changes_nothing_with_senas(kind):
    env = truco_env.env(players=4, senas="traditional", sena_catch=0.5, observation=kind)
    compared = assert_hidden_cards_do_not_leak(env, 20, np.random.default_rng(5), 10)
    assert compared >= 40


# ---------------------------------------------------------------------------- catching
def test_catch_probability_is_sena_catch_per_opponent_seeded():
    def rate(seed, p):
        venv = VectorTrucoEnv(256, players=4, senas="learned", sena_catch=p, seed=seed)
        obs, _ = venv.reset()
        rng = np.random.default_rng(seed)
        made = caught = 0
        for _ in range(60):
            m = obs["action_mask"].astype(bool)
            sena = m[:, C.A_SENA0:].any(axis=1)
            a = (rng.random(m.shape) + m).argmax(axis=1)
            a = np.where(sena, C.A_SENA0 + (rng.random((256, 8)) + m[:, C.A_SENA0:C.A_SENA0 + 8])
                         .argmax(axis=1), a)
            seats = venv.state[:, C.ACTOR].copy()
            b = venv.state[:, C.BAZA].copy()
            obs, *_ = venv.step(a)
            rows = np.flatnonzero(sena)
            masks = venv.state[rows, C.SENA_CAUGHT + b[rows] * C.P_MAX + seats[rows]]
            made += 2 * len(rows)                         # two opponents each
            caught += sum(bin(int(x)).count("1") for x in masks)
        return caught / made, made

    r, n = rate(0, 0.25)
    assert n > 5000 and abs(r - 0.25) < 4 * np.sqrt(0.25 * 0.75 / n)
    assert rate(0, 0.25) == (r, n)                       # the same seed, the same catches
    assert rate(1, 0.0)[0] == 0.0 and rate(1, 1.0)[0] == 1.0


# ---------------------------------------------------------------------------- records
def test_records_replay_the_senas_and_each_seat_sees_what_he_saw():
    env = truco_env.env(players=4, senas="traditional", sena_catch=0.5)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(150):
        obs, _, term, _, _ = env.last()
        if term:
            break
        m = np.flatnonzero(obs["action_mask"])
        env.step(int(m[-1] if m[-1] >= C.A_SENA0 and rng.random() < 0.7 else rng.choice(m)))
    rec = json.loads(json.dumps(env.unwrapped.record()))
    assert any(h["caught"] for h in rec["hands"])
    again = truco_env.replay(rec)
    assert np.array_equal(again.unwrapped.game.S, env.unwrapped.game.S)
    for a in env.possible_agents:
        assert again.unwrapped.view(a) == env.unwrapped.view(a)
    bad = json.loads(json.dumps(rec))
    h = next(h for h in bad["hands"] if h["caught"])
    h["caught"] = []
    with pytest.raises(ValueError, match="no recorded 'caught'"):
        truco_env.replay(bad)


def test_render_shows_each_player_his_senas():
    env = senas4(catch=0.0, render_mode="ansi")
    env.step(ACTIONS.index("sena_0"))
    raw = env.unwrapped
    assert "Señas: player_0 ancho_de_espada" in raw.render()          # a spectator sees all
    raw.render_seat = 2
    assert "Señas: player_0 (partner) ancho_de_espada (baza 1)" in raw.render()
    raw.render_seat = 1
    assert "Señas" not in raw.render()
    env.step(ACTIONS.index("play_0"))
    assert "sena_1 (ancho_de_basto)" in raw.render()          # player_1's legal señas, named


# ---------------------------------------------------------------------------- agents
@pytest.mark.parametrize("rules", ["argentino", "uruguayo"])
def test_the_heuristic_signs_the_truth_and_the_liar_lies(rules):
    def truth_rate(spec):
        venv = VectorTrucoEnv(128, players=4, rules=rules, senas="traditional", seed=3)
        bot = agents.load(spec, seed=4)
        obs, _ = venv.reset()
        r = venv.rules
        made = true = 0
        for _ in range(120):
            a = bot.act_batch(obs["observation"], obs["action_mask"])
            rows = np.flatnonzero(a >= C.A_SENA0)
            S = venv.state
            seats = S[rows, C.ACTOR]
            hands = S[rows[:, None], C.HAND + 3 * seats[:, None] + np.arange(3)]
            ok = truthful(r, hands, S[rows, C.MUESTRA])
            made += len(rows)
            true += ok[np.arange(len(rows)), a[rows] - C.A_SENA0].sum()
            obs, *_ = venv.step(a)
        return true / made, made

    honest, n = truth_rate("heuristic")
    assert n > 500 and honest == 1.0
    liar, n = truth_rate("heuristic:liar=1")
    assert n > 500 and liar < 0.05


def test_the_human_player_makes_and_sees_senas():
    from agents.human import parse_action, legal_text
    env = senas4(catch=0.0)
    v = view(env, 0)
    mask = env.unwrapped.action_mask("player_0")
    assert "sena_4 (tres)" in legal_text(mask, v)
    assert parse_action("tres", mask, v) == (ACTIONS.index("sena_4"), "")
    assert parse_action("sena_0", mask, v) == (ACTIONS.index("sena_0"), "")
    env.step(ACTIONS.index("sena_4"))
    from truco_env.view import format_view
    assert "Señas: you tres (baza 1)" in format_view(view(env, 0), me=0)
    assert "Señas: player_0 (partner) tres" in format_view(view(env, 2), me=2)


# ---------------------------------------------------------------------------- evaluate.py senas
def test_evaluate_senas_measures_value_catching_and_honesty(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]

    def evaluate(*args: str) -> subprocess.CompletedProcess:   # the script, as a user runs it
        return subprocess.run([sys.executable, "evaluate.py", *args], cwd=root,
                              capture_output=True, text=True, timeout=600)
    from evaluation.senas import Channel, mutual_information
    assert mutual_information(np.array([0, 1, 0, 1]), np.array([0, 1, 0, 1])) == pytest.approx(1)
    assert mutual_information(np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])) == pytest.approx(0)
    deaf = Channel(agents.load("heuristic"), sign=False, read="none")
    env = senas4(catch=1.0)
    env.step(ACTIONS.index("sena_0"))
    obs = env.unwrapped.observe("player_1")
    assert deaf._obs(obs["observation"]).sum() < obs["observation"].sum()
    assert not deaf._mask(env.unwrapped.action_mask("player_0"))[C.A_SENA0:].any()
    run = evaluate("senas", "heuristic", "--players", "4", "--target", "9", "--matches", "6",
                   "--out", str(tmp_path), "--no-progress")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Value of señas" in out and "Honesty: 100.0%" in out and str(tmp_path) in out
    res = json.loads((tmp_path / "senas.json").read_text())
    assert res["game"]["senas"] == "traditional" and res["honesty"]["senas_made"] > 0
    assert (tmp_path / "senas_value.png").exists() and (tmp_path / "senas_honesty.png").exists()
    bad = evaluate("senas", "heuristic", "--players", "2")
    assert bad.returncode == 2 and "senas" in bad.stderr                   # a named error


@pytest.mark.parametrize("players, kw", [(4, dict(senas="learned")),
                                          (3, dict(rules="pata_de_gallo", senas="traditional"))])
def test_pettingzoo_api_test_with_senas(players, kw):
    from pettingzoo.test import api_test
    env = truco_env.env(players=players, **kw)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    api_test(env, num_cycles=200)


def test_the_terminal_game_never_prints_a_rival_sena_it_did_not_catch():
    from agents.play import main
    lines = []
    inputs = iter(["tres", "quit"])
    main(["--players", "4", "--senas", "traditional", "--seed", "3",
          "--opponent", "heuristic:liar=0.5"], input_fn=lambda _: next(inputs),
         print_fn=lambda *a: lines.append(" ".join(map(str, a))))
    text = "\n".join(lines)
    assert "sena_" not in "\n".join(x for x in lines if x.startswith("  player_1")
                                    or x.startswith("  player_3"))
    assert "Bye." in text
