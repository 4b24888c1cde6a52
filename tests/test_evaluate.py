"""evaluate.py and truco_env.evaluation: interval and rating maths, hand strength, duplicate
seating, reports and plots from a short run, bluff analytics, probe, exploit end to end."""
from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import evaluate  # noqa: E402
from truco_env import core as C  # noqa: E402
from truco_env import strength  # noqa: E402
from truco_env import evaluation as E  # noqa: E402
from truco_env.cards import NUM_CARDS, TRUCO_RANK, parse_card  # noqa: E402

CFG = E.GameConfig(players=2, rules="argentino")


# ----------------------------------------------------------------------------- intervals
def test_wilson_known_values():
    lo, hi = E.wilson(0.8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = E.wilson(1.0, 10)       # 10/10: lower bound n / (n + z^2)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(10 / (10 + E.Z95 ** 2), abs=1e-9)
    lo, hi = E.wilson(0.5, 100)
    assert (lo + hi) / 2 == pytest.approx(0.5) and hi - lo == pytest.approx(0.1918, abs=1e-3)


def test_effective_n_of_duplicate_pairs():
    # pair scores with the spread of two independent fair matches: n_eff = 2n
    y = np.array([1.0] * 100 + [0.5] * 200 + [0.0] * 100)
    assert E.effective_n(y) == pytest.approx(2 * len(y), rel=0.01)
    # perfectly correlated pairs (both matches alike) carry one match of information each
    y = np.array([1.0] * 200 + [0.0] * 200)
    assert E.effective_n(y) == pytest.approx(len(y), rel=0.01)
    # no variance: fall back to every match counted
    assert E.effective_n(np.ones(50)) == 100
    p, lo, hi = E.duplicate_win_interval(np.ones(50))
    assert p == 1.0 and (lo, hi) == pytest.approx(E.wilson(1.0, 100))


def test_t_quantile_and_mean_interval():
    for df, t in ((4, 2.776), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert E.t_quantile(df) == pytest.approx(t, abs=0.02)
    m, lo, hi = E.mean_interval(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    half = E.t_quantile(4) * math.sqrt(2.5) / math.sqrt(5)
    assert m == 3.0 and lo == pytest.approx(3 - half) and hi == pytest.approx(3 + half)


# ----------------------------------------------------------------------------- ratings
def test_bradley_terry_two_agents():
    r = E.bradley_terry(np.array([[0, 75], [25, 0]]), prior_draws=0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.mean() == pytest.approx(1500)


def test_bradley_terry_recovers_known_strengths():
    gamma = np.array([1.0, 2.0, 4.0])
    n = 1000
    W = n * gamma[:, None] / (gamma[:, None] + gamma[None, :])
    np.fill_diagonal(W, 0)
    r = E.bradley_terry(W, prior_draws=0)
    assert np.diff(r) == pytest.approx([400 * math.log10(2)] * 2, abs=1e-6)


def test_bradley_terry_prior_keeps_a_clean_sweep_finite():
    r = E.bradley_terry(np.array([[0, 200], [0, 0]]), prior_draws=1)
    # one virtual draw: 200.5 wins against 0.5
    assert r[0] - r[1] == pytest.approx(400 * math.log10(401), abs=1e-6)


def test_bootstrap_ratings():
    even = {(0, 1): np.ones(100, dtype=int)}          # every pair split: equal ratings
    boot = E.bootstrap_ratings(even, 2, reps=50)
    assert boot.shape == (50, 2) and np.allclose(boot, 1500)
    rng = np.random.default_rng(0)
    strong = {(0, 1): rng.choice([1, 2], size=200, p=[0.4, 0.6])}
    boot = E.bootstrap_ratings(strong, 2, reps=300)
    lo, hi = np.percentile(boot[:, 0] - boot[:, 1], [2.5, 97.5])
    W = np.array([[0, strong[(0, 1)].sum()], [0, 0]], float)
    W[1, 0] = 400 - W[0, 1]
    point = np.diff(E.bradley_terry(W)[::-1])[0]
    assert 0 < lo < point < hi


# ----------------------------------------------------------------------------- hand strength
def test_strength_brute_force_and_symmetry():
    rank = TRUCO_RANK.astype(int)
    mine = [parse_card(c) for c in ("3e", "2o", "12c")]
    rest = [c for c in range(NUM_CARDS) if c not in mine]
    a = sorted(rank[mine], reverse=True)
    total = 0.0
    opps = list(itertools.combinations(rest, 3))
    for o in opps:
        b = sorted(rank[list(o)], reverse=True)
        o = tuple(strength.WIN if x > y else strength.LOSE if x < y else strength.PARDA
                  for x, y in zip(a, b))
        v = strength.hand_outcome(o)
        total += 0.5 if v < 0 else v
    s, pct = E.hand_strength("3e 2o 12c")
    assert s == pytest.approx(total / len(opps), abs=1e-12)
    assert E.hand_strength("1e 1b 7e")[0] == 1.0
    assert E.hand_strength("4c 4o 5b")[0] < 0.02
    # P(A beats B) + P(B beats A) = 1, so the mean strength over dealt hands is exactly 1/2
    s_all = np.array([E.strength_table()[0][E.rank_key(rank[list(h)])]
                      for h in itertools.combinations(range(NUM_CARDS), 3)])
    assert s_all.mean() == pytest.approx(0.5, abs=1e-9)
    pct_all = np.array([E.strength_table()[1][E.rank_key(rank[list(h)])]
                        for h in itertools.combinations(range(NUM_CARDS), 3)])
    assert pct_all.mean() == pytest.approx(0.5, abs=1e-9)
    assert np.mean(pct_all < 1 / 3) == pytest.approx(1 / 3, abs=0.05)


def test_strength_with_muestra_uses_piezas():
    # with the 1o turned up, the 2o and the 4o are the two best piezas: an unbeatable pair
    assert E.hand_strength("2o 4o 5b")[0] < 0.2
    assert E.hand_strength("2o 4o 5b", muestra="1o")[0] == 1.0
    assert E.hand_strength("2o 6c 5b", muestra="1o")[0] > E.hand_strength("2o 6c 5b")[0] + 0.1


# ----------------------------------------------------------------------------- duplicate
def _spy_deals(monkeypatch):
    seen: dict[tuple[int, int], tuple] = {}
    real = C.start_hand

    def spy(S, tables, games, decks, manos):
        real(S, tables, games, decks, manos)
        for g in np.asarray(games):
            P = int(S[g, C.NPLAYERS])
            seen[(int(g), int(S[g, C.HAND_NO]))] = (
                tuple(int(x) for x in S[g, C.HAND:C.HAND + 3 * P]), int(S[g, C.MANO]))
    monkeypatch.setattr(E.C, "start_hand", spy)
    return seen


@pytest.mark.parametrize("players", [2, 4])
def test_duplicate_replays_the_same_deals_with_seats_swapped(monkeypatch, players):
    seen = _spy_deals(monkeypatch)
    log = E.EventLog()
    cfg = E.GameConfig(players=players)
    res = E.play_duplicate("heuristic", "random", range(6), cfg, seed=5, log=log)
    assert res["a_team"].tolist() == [0, 1] * 6
    for pair in range(6):
        g0, g1 = 2 * pair, 2 * pair + 1
        common = min(res["hands"][g0], res["hands"][g1])
        assert common >= 1
        for k in range(1, common + 1):
            assert seen[(g0, k)] == seen[(g1, k)]           # same cards by seat, same mano
        # different pairs get different deals
        if pair:
            assert seen[(g0, 1)] != seen[(0, 1)]
    # A (agent 0) holds team 0 in even games and team 1 in odd ones; B the other team
    ev, _ = log.tables()
    team = ev["seat"] % 2
    seating = ev["gid"] % 2
    assert np.all(team[ev["agent"] == 0] == seating[ev["agent"] == 0])
    assert np.all(team[ev["agent"] == 1] != seating[ev["agent"] == 1])


def test_duplicate_mirror_match_splits_every_pair():
    # A deterministic agent against itself: the second match mirrors the first exactly, so the
    # same seat wins both and each agent wins one match of every pair.
    res = E.play_duplicate("heuristic:bluff=0", "heuristic:bluff=0", range(20), CFG, seed=3)
    assert (res["a_won"].reshape(-1, 2).sum(axis=1) == 1).all()
    assert (res["hands"][0::2] == res["hands"][1::2]).all()
    sm = E.summarize_pair(res)
    assert sm["win_rate"] == 0.5 and sm["net_per_hand"] == 0.0


def test_deals_do_not_depend_on_chunking():
    a = E.play_duplicate("heuristic:bluff=0", "random", range(0, 8), CFG, seed=9)
    b1 = E.play_duplicate("heuristic:bluff=0", "random", range(0, 3), CFG, seed=9)
    assert a["match"][:6].tolist() == b1["match"].tolist()
    assert E.deal_deck(9, 4, 2).tolist() == E.deal_deck(9, 4, 2).tolist()
    assert E.deal_deck(9, 4, 2).tolist() != E.deal_deck(9, 4, 3).tolist()


# ----------------------------------------------------------------------------- reports
def test_tournament_report_and_plots(tmp_path, capsys):
    out = tmp_path / "t"
    rc = evaluate.main(["random", "heuristic", "--matches", "24", "--workers", "1", "--bluff",
                        "--seed", "1", "--out", str(out), "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-1] == str(out)                       # the folder is printed last
    for f in ("report.md", "pairs.csv", "ratings.csv", "results.json", "bluff.csv",
              "win_matrix.png", "ratings.png", "points_per_hand.png", *evaluate.BLUFF_PLOTS):
        assert (out / f).is_file() and (out / f).stat().st_size > 0, f
    res = json.loads((out / "results.json").read_text())
    pair = res["pairs"][0]
    assert (pair["a"], pair["b"], pair["matches"]) == ("random", "heuristic", 48)
    assert 0 <= pair["win_lo"] <= pair["win_rate"] <= pair["win_hi"] <= 1
    assert pair["win_rate"] < 0.3 and pair["net_hi"] < 0          # heuristic is far better
    top = res["ratings"][0]
    assert top["agent"] == "heuristic" and top["elo_lo"] <= top["elo"] <= top["elo_hi"]
    b = res["bluff"]["agents"]
    assert set(b) == {"random", "heuristic"}
    h = b["heuristic"]["calls"]["truco"]["by_strength"]
    # the heuristic calls truco more with strong hands than with weak ones
    n = np.array(h["n"])
    k = np.array(h["k"])
    assert k[5:].sum() / n[5:].sum() > k[:5].sum() / n[:5].sum()
    assert "Bluff analytics" in (out / "report.md").read_text()


def test_bluff_from_records(tmp_path, capsys):
    import truco_env
    from agents import load
    recs = []
    for seed in range(3):
        env = truco_env.env(players=2)
        env.reset(seed=seed)
        bots = [load("heuristic", seed=seed), load("random", seed=seed + 50)]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.unwrapped.agent_name_mapping[agent]
            env.step(bots[seat].act(obs, env.unwrapped.view(agent)))
        rec = env.unwrapped.record()
        rec["agents"] = ["heuristic", "random"]
        recs.append(rec)
    path = tmp_path / "records.json"
    path.write_text(json.dumps(recs))
    out = tmp_path / "b"
    assert evaluate.main(["bluff", "--records", str(path), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == str(out)
    data = json.loads((out / "bluff.json").read_text())
    assert set(data["agents"]) == {"heuristic", "random"}
    assert data["agents"]["heuristic"]["decisions"] > 0
    assert (out / "bluff_rates.png").is_file()


def test_probe_prints_probabilities(capsys):
    rc = evaluate.main(["probe", "heuristic", "--hand", "1e 7o 3b", "--score", "20,10",
                        "--mano", "1", "--played", "4c", "--samples", "200"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "player_1 4c" in text and "| truco |" in text
    e = E.setup_probe(E.ProbeSituation(hand=["1e", "7o", "3b"], mano=1, actions=["truco"]))
    obs = e.observe("player_0")
    p, how = E.action_probs(E.load_agent("random", 0), obs, e.unwrapped.view("player_0"),
                            samples=500)
    assert p.sum() == pytest.approx(1.0)
    assert (p[obs["action_mask"] == 0] == 0).all() and how.startswith("sampled")
    with pytest.raises(ValueError, match="player_1's turn"):
        E.setup_probe(E.ProbeSituation(hand=["1e", "7o", "3b"], mano=0, actions=["truco"]))


def test_exploit_end_to_end(tmp_path, capsys):
    out = tmp_path / "x"
    rc = evaluate.main(["exploit", "random", "--budget", "3s", "--eval-matches", "8",
                        "--eval-every", "1", "--eval-games", "8", "--num-envs", "32",
                        "--num-steps", "16", "--workers", "1", "--out", str(out),
                        "--no-progress"])
    assert rc == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == str(out)
    data = json.loads((out / "results.json").read_text())
    assert 0 <= data["win_lo"] <= data["best_response_win_rate"] <= data["win_hi"] <= 1
    assert data["train_steps"] > 0 and any(c["eval"] for c in data["curve"])
    for f in ("report.md", "learning_curve.png", "curve.csv"):
        assert (out / f).is_file()
    assert (out / "best_response" / "checkpoints" / "latest.pt").is_file()
    assert "Lower is better" in (out / "report.md").read_text()


def test_parse_budget():
    assert E.parse_budget("20m") == 1200 and E.parse_budget("90s") == 90
    assert E.parse_budget("1h") == 3600 and E.parse_budget("45") == 45
    with pytest.raises(ValueError):
        E.parse_budget("soon")


def test_per_decision_agents_and_team_games():
    """An agent without act_batch plays through act(observation, view); 4-player teams."""
    from agents.base import Agent

    class FirstLegal(Agent):
        name = "first_legal"
        calls = 0

        def act(self, observation, view=None):
            FirstLegal.calls += 1
            assert view is not None and len(view["hand"]) == 3
            return int(np.flatnonzero(observation["action_mask"])[0])

    assert not E.has_batch(FirstLegal()) and E.has_batch(E.load_agent("random", 0))
    cfg = E.GameConfig(players=4, rules="trucoshi")
    res = E.play_duplicate(FirstLegal(), "heuristic", range(2), cfg, seed=0)
    assert FirstLegal.calls > 0 and len(res["a_won"]) == 4
    assert (res["pts_a"] + res["pts_b"] > 0).all()


def test_workers_share_the_chunks():
    res = evaluate.run_tournament([("h", "heuristic"), ("r", "random")], 10, CFG, seed=2,
                                  workers=2, progress=False)
    assert res["pairs"][0]["matches"] == 20 and res["config"]["workers"] == 2
