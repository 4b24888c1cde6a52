"""evaluate.py and the evaluation package: interval and rating maths, hand strength, duplicate
seating and deals, reports and plots from a short run, bluff analytics, probe, exploit end to
end, and that the script stays a thin command line (no import of train.py)."""
from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.base import Agent, RandomAgent
from evaluation import bluff, exploit, probe, ratings, report, stats, tournament
from evaluation.bluff import EventLog
from evaluation.tournament import GameConfig, load_agent, play_duplicate
from truco_env import core as C
from truco_env import strength
from truco_env.cards import NUM_CARDS, TRUCO_RANK, parse_card
from truco_env.rules import NUM_ACTIONS, get_rules

ROOT = Path(__file__).resolve().parents[1]
CFG = GameConfig(players=2, rules="argentino")


def run_evaluate(*args: str, timeout: float = 300) -> list[str]:
    """``python evaluate.py ARGS`` from the repository root; its stdout lines (rc 0 checked)."""
    p = subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True,
                       text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout.strip().splitlines()


# ----------------------------------------------------------------------------- intervals
def test_wilson_known_values():
    lo, hi = stats.wilson(0.8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = stats.wilson(1.0, 10)       # 10/10: lower bound n / (n + z^2)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(10 / (10 + stats.Z95 ** 2), abs=1e-9)
    lo, hi = stats.wilson(0.5, 100)
    assert (lo + hi) / 2 == pytest.approx(0.5) and hi - lo == pytest.approx(0.1918, abs=1e-3)


def test_effective_n_of_duplicate_pairs():
    # pair scores with the spread of two independent fair matches: n_eff = 2n
    y = np.array([1.0] * 100 + [0.5] * 200 + [0.0] * 100)
    assert stats.effective_n(y) == pytest.approx(2 * len(y), rel=0.01)
    # perfectly correlated pairs (both matches alike) carry one match of information each
    y = np.array([1.0] * 200 + [0.0] * 200)
    assert stats.effective_n(y) == pytest.approx(len(y), rel=0.01)
    # no variance: fall back to every match counted
    assert stats.effective_n(np.ones(50)) == 100
    p, lo, hi = stats.duplicate_win_interval(np.ones(50))
    assert p == 1.0 and (lo, hi) == pytest.approx(stats.wilson(1.0, 100))


def test_t_quantile_and_mean_interval():
    for df, t in ((4, 2.776), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert stats.t_quantile(df) == pytest.approx(t, abs=0.02)
    m, lo, hi = stats.mean_interval(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    half = stats.t_quantile(4) * math.sqrt(2.5) / math.sqrt(5)
    assert m == 3.0 and lo == pytest.approx(3 - half) and hi == pytest.approx(3 + half)


def test_head_to_head_uses_the_wilson_interval():
    r = tournament.head_to_head("heuristic", "random", matches=40, seed=0)
    assert r.matches == 40 and (r.rate, r.lo, r.hi) == pytest.approx(stats.win_rate(r.wins, 40))
    assert r.rate > 0.7


# ----------------------------------------------------------------------------- ratings
def test_bradley_terry_two_agents():
    r = ratings.bradley_terry(np.array([[0, 75], [25, 0]]), prior_draws=0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.mean() == pytest.approx(1500)


def test_bradley_terry_recovers_known_strengths():
    gamma = np.array([1.0, 2.0, 4.0])
    n = 1000
    W = n * gamma[:, None] / (gamma[:, None] + gamma[None, :])
    np.fill_diagonal(W, 0)
    r = ratings.bradley_terry(W, prior_draws=0)
    assert np.diff(r) == pytest.approx([400 * math.log10(2)] * 2, abs=1e-6)


def test_bradley_terry_prior_keeps_a_clean_sweep_finite():
    r = ratings.bradley_terry(np.array([[0, 200], [0, 0]]), prior_draws=1)
    # one virtual draw: 200.5 wins against 0.5
    assert r[0] - r[1] == pytest.approx(400 * math.log10(401), abs=1e-6)


def test_bootstrap_ratings():
    even = {(0, 1): np.ones(100, dtype=int)}          # every pair split: equal ratings
    boot = ratings.bootstrap_ratings(even, 2, reps=50)
    assert boot.shape == (50, 2) and np.allclose(boot, 1500)
    rng = np.random.default_rng(0)
    strong = {(0, 1): rng.choice([1, 2], size=200, p=[0.4, 0.6])}
    boot = ratings.bootstrap_ratings(strong, 2, reps=300)
    lo, hi = np.percentile(boot[:, 0] - boot[:, 1], [2.5, 97.5])
    W = np.array([[0, strong[(0, 1)].sum()], [0, 0]], float)
    W[1, 0] = 400 - W[0, 1]
    point = np.diff(ratings.bradley_terry(W)[::-1])[0]
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
    s, pct = strength.hand_strength("3e 2o 12c")
    assert s == pytest.approx(total / len(opps), abs=1e-12)
    assert strength.hand_strength("1e 1b 7e")[0] == 1.0
    assert strength.hand_strength("4c 4o 5b")[0] < 0.02
    # P(A beats B) + P(B beats A) = 1, so the mean strength over dealt hands is exactly 1/2
    table, pcts = strength.strength_table()
    keys = [strength.rank_key(rank[list(h)]) for h in itertools.combinations(range(NUM_CARDS), 3)]
    assert np.mean([table[k] for k in keys]) == pytest.approx(0.5, abs=1e-9)
    pct_all = np.array([pcts[k] for k in keys])
    assert pct_all.mean() == pytest.approx(0.5, abs=1e-9)
    assert np.mean(pct_all < 1 / 3) == pytest.approx(1 / 3, abs=0.05)


def test_strength_with_muestra_uses_piezas():
    # with the 1o turned up, the 2o and the 4o are the two best piezas: an unbeatable pair
    assert strength.hand_strength("2o 4o 5b")[0] < 0.2
    assert strength.hand_strength("2o 4o 5b", muestra="1o")[0] == 1.0
    assert strength.hand_strength("2o 6c 5b", muestra="1o")[0] > \
        strength.hand_strength("2o 6c 5b")[0] + 0.1


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
    monkeypatch.setattr(C, "start_hand", spy)
    return seen


@pytest.mark.parametrize("players", [2, 4])
def test_duplicate_replays_the_same_deals_with_seats_swapped(monkeypatch, players):
    seen = _spy_deals(monkeypatch)
    log = EventLog()
    res = play_duplicate("heuristic", "random", range(6), GameConfig(players=players), seed=5,
                         log=log)
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


def _reference_duplicate(matches, players, seed, agent_a, agent_b):
    """An independent plain loop over the rules core (the pre-loop evaluation code): deals from
    ``default_rng([seed, m, k])``, first mano from ``default_rng([seed, m])``, A at team 0 in
    the first game of a pair and team 1 in the second."""
    tables = get_rules("argentino").tables()
    match = np.repeat(np.asarray(matches), 2)
    a_team = np.tile([0, 1], len(matches))
    G = len(match)

    def deck(m, k):
        return np.random.default_rng([seed, int(m), int(k)]).permutation(NUM_CARDS)

    S = C.new_state(G, players)
    manos = np.array([np.random.default_rng([seed, int(m)]).integers(players) for m in match])
    C.start_hand(S, tables, np.arange(G), np.stack([deck(m, 0) for m in match]).astype(np.int32),
                 manos.astype(np.int32))
    mask = np.zeros((G, NUM_ACTIONS), np.bool_)
    done = np.zeros(G, bool)
    hands = np.zeros(G, np.int64)
    while not done.all():
        live = np.flatnonzero(~done)
        C.legal_mask(S, tables, mask)
        a_acts = S[live, C.ACTOR] % 2 == a_team[live]
        actions = np.full(G, -1, np.int64)
        for agent, rows in ((agent_a, live[a_acts]), (agent_b, live[~a_acts])):
            if len(rows):
                actions[rows] = agent.act_batch(None, mask[rows])
        C.step(S, tables, actions.astype(np.int32))
        ended = live[S[live, C.HAND_OVER] == 1]
        hands[ended] += 1
        done[ended[S[ended, C.DONE] == 1]] = True
        nxt = ended[S[ended, C.DONE] == 0]
        if len(nxt):
            C.start_hand(S, tables, nxt,
                         np.stack([deck(match[g], S[g, C.HAND_NO]) for g in nxt]).astype(np.int32),
                         ((S[nxt, C.MANO] + 1) % players).astype(np.int32))
    return {"a_won": (S[:, C.WINNER] == a_team).astype(np.int8), "hands": hands,
            "score": S[:, C.SCORE:C.SCORE + 2].copy()}


@pytest.mark.parametrize("players", [2, 4])
def test_duplicate_through_the_loop_equals_a_plain_core_loop(players):
    ref = _reference_duplicate(range(3, 9), players, 11, RandomAgent(1), RandomAgent(2))
    res = play_duplicate(RandomAgent(1), RandomAgent(2), range(3, 9), GameConfig(players=players),
                         seed=11)
    assert res["a_won"].tolist() == ref["a_won"].tolist()
    assert res["hands"].tolist() == ref["hands"].tolist()
    a_team = res["a_team"]
    assert (res["pts_a"] == np.where(a_team == 0, ref["score"][:, 0], ref["score"][:, 1])).all()
    assert (res["pts_b"] == np.where(a_team == 0, ref["score"][:, 1], ref["score"][:, 0])).all()
    # The points by source add up to each side's score, and random players score from both
    # the envido and the truco.
    assert (res["src_a"].sum(axis=1) == res["pts_a"]).all()
    assert (res["src_b"].sum(axis=1) == res["pts_b"]).all()
    assert res["src_a"][:, 0].sum() > 0 and res["src_a"][:, 2].sum() > 0
    sm = tournament.summarize_pair(res)
    hands = res["hands"].sum()
    assert sm["truco_b"] == pytest.approx(res["src_b"][:, 2].sum() / hands)
    assert sm["flor_a"] == 0.0        # flor is off by default


def test_duplicate_mirror_match_splits_every_pair():
    # A deterministic agent against itself: the second match mirrors the first exactly, so the
    # same seat wins both and each agent wins one match of every pair.
    res = play_duplicate("heuristic:bluff=0", "heuristic:bluff=0", range(20), CFG, seed=3)
    assert (res["a_won"].reshape(-1, 2).sum(axis=1) == 1).all()
    assert (res["hands"][0::2] == res["hands"][1::2]).all()
    sm = tournament.summarize_pair(res)
    assert sm["win_rate"] == 0.5 and sm["net_per_hand"] == 0.0


def test_deals_do_not_depend_on_chunking():
    a = play_duplicate(RandomAgent(0), RandomAgent(1), range(0, 8), CFG, seed=9)
    b = play_duplicate(RandomAgent(0), RandomAgent(1), range(5, 8), CFG, seed=9)
    assert a["match"][10:].tolist() == b["match"].tolist()
    seen = {}
    for lo, hi in ((0, 8), (5, 8)):
        log = EventLog()
        play_duplicate("heuristic:bluff=0", "heuristic:bluff=0", range(lo, hi), CFG, seed=9,
                       log=log)
        ev, _ = log.tables()
        first: dict[int, tuple] = {}     # the first decision of each game: the mano's deal
        for g, seat, s, e in zip(ev["gid"], ev["seat"], ev["strength"], ev["envido"]):
            if g >= 10:
                first.setdefault(int(g), (int(seat), float(s), int(e)))
        seen[lo] = first
    assert seen[0] == seen[5] and len(seen[5]) == 6


# ----------------------------------------------------------------------------- reports
def test_tournament_report_and_plots(tmp_path):
    out = tmp_path / "t"
    printed = run_evaluate("random", "heuristic", "--matches", "24", "--workers", "1", "--bluff",
                           "--seed", "1", "--out", str(out), "--no-progress")
    assert printed[-1] == str(out)                       # the folder is printed last
    for f in ("report.md", "pairs.csv", "ratings.csv", "results.json", "bluff.csv",
              "win_matrix.png", "ratings.png", "points_per_hand.png", *report.BLUFF_PLOTS):
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


def _records(n: int) -> list[dict]:
    import truco_env
    from agents import load
    recs = []
    for seed in range(n):
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
    return recs


def test_bluff_from_records(tmp_path):
    recs = _records(3)
    path = tmp_path / "records.json"
    path.write_text(json.dumps(recs))
    out = tmp_path / "b"
    assert run_evaluate("bluff", "--records", str(path), "--out", str(out))[-1] == str(out)
    data = json.loads((out / "bluff.json").read_text())
    assert set(data["agents"]) == {"heuristic", "random"}
    assert data["agents"]["heuristic"]["decisions"] > 0
    assert (out / "bluff_rates.png").is_file()
    # the three claims, for every agent of the records, against the other
    assert set(data["claims"]["agents"]) == {"heuristic", "random"}
    assert [s["label"] for s in data["claims"]["agents"]["heuristic"]["scopes"]] == ["vs random"]
    assert all((out / f).is_file() for f in report.CLAIM_PLOTS)
    # every recorded action is one logged decision, every recorded hand one hand result
    ev, hands = bluff.events_from_records(recs).tables()
    assert len(ev["gid"]) == sum(len(h["actions"]) for r in recs for h in r["hands"])
    assert len(hands["gid"]) == sum(len(r["hands"]) for r in recs)
    bad = json.loads(json.dumps(recs[0]))
    bad["hands"][0]["actions"].insert(0, "quiero")
    with pytest.raises(ValueError, match="record 0 hand 0"):
        bluff.events_from_records([bad])


def test_probe_prints_probabilities():
    text = "\n".join(run_evaluate("probe", "heuristic", "--hand", "1e 7o 3b", "--score", "20,10",
                                  "--mano", "1", "--played", "4c", "--samples", "200"))
    assert "player_1 4c" in text and "| truco |" in text and "as player_0" in text
    e, seat = probe.setup_probe(probe.ProbeSituation(hand=["1e", "7o", "3b"], mano=1,
                                                     actions=["truco"]))
    assert seat == 0
    obs = e.observe("player_0")
    p, how = probe.action_probs(load_agent("random", 0), obs, e.unwrapped.view("player_0"),
                                samples=500)
    assert p.sum() == pytest.approx(1.0)
    assert (p[obs["action_mask"] == 0] == 0).all() and how.startswith("sampled")
    with pytest.raises(ValueError, match="player_1's turn"):
        probe.setup_probe(probe.ProbeSituation(hand=["1e", "7o", "3b"], mano=0,
                                               actions=["truco"], seat=0))


def test_probe_defaults_to_the_seat_to_act():
    # The README example: the mano is player_1 and nothing happened yet, so player_1 (holding
    # the hand, its team at 20) is probed on its first decision.
    text = "\n".join(run_evaluate("probe", "heuristic", "--hand", "1e 7o 3b", "--score", "20,10",
                                  "--mano", "1", "--samples", "50"))
    assert "as player_1" in text and "team 1 (yours) 20" in text and "| truco |" in text
    e, seat = probe.setup_probe(probe.ProbeSituation(hand=["1e", "7o", "3b"], mano=0,
                                                     actions=["truco"]))
    view = e.unwrapped.view(f"player_{seat}")
    assert seat == 1 and view["hand"] == ["1e", "7o", "3b"] and view["pending"] == "truco"
    with pytest.raises(ValueError, match="hand is over"):
        probe.setup_probe(probe.ProbeSituation(hand=["1e", "7o", "3b"], actions=["mazo"]))


def test_evaluate_does_not_import_train():
    code = "import evaluate, sys; assert 'train' not in sys.modules, 'train imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
    source = (ROOT / "evaluate.py").read_text()
    assert "sys.path" not in source and "import train" not in source


def test_exploit_end_to_end(tmp_path):
    out = tmp_path / "x"
    printed = run_evaluate("exploit", "random", "--budget", "3s", "--eval-matches", "8",
                           "--eval-every", "1", "--eval-games", "8", "--num-envs", "32",
                           "--num-steps", "16", "--workers", "1", "--out", str(out),
                           "--no-progress", timeout=600)
    assert printed[-1] == str(out)
    data = json.loads((out / "results.json").read_text())
    assert 0 <= data["win_lo"] <= data["best_response_win_rate"] <= data["win_hi"] <= 1
    assert data["train_steps"] > 0 and any(c["eval"] for c in data["curve"])
    for f in ("report.md", "learning_curve.png", "curve.csv"):
        assert (out / f).is_file()
    assert (out / "best_response" / "checkpoints" / "latest.pt").is_file()
    assert "Lower is better" in (out / "report.md").read_text()
    assert "| truco |" in (out / "report.md").read_text()       # where the points come from
    # where its envido points come from, by kind of hand (evaluation.bluff.envido_sources)
    assert "Where the envido points of the best response's side" in (out / "report.md").read_text()
    assert sum(r["share"] for r in data["envido_sources"]["rows"]) == pytest.approx(1.0)


def test_parse_budget():
    assert exploit.parse_budget("20m") == 1200 and exploit.parse_budget("90s") == 90
    assert exploit.parse_budget("1h") == 3600 and exploit.parse_budget("45") == 45
    with pytest.raises(ValueError):
        exploit.parse_budget("soon")


def test_per_decision_agents_and_team_games():
    """An agent without act_batch plays through act(observation, view); 4-player teams."""

    class FirstLegal(Agent):
        name = "first_legal"
        calls = 0

        def act(self, observation, view=None):
            FirstLegal.calls += 1
            assert view is not None and len(view["hand"]) == 3
            return int(np.flatnonzero(observation["action_mask"])[0])

    assert not FirstLegal().batched and load_agent("random", 0).batched
    cfg = GameConfig(players=4, rules="trucoshi")
    res = play_duplicate(FirstLegal(), "heuristic", range(2), cfg, seed=0)
    assert FirstLegal.calls > 0 and len(res["a_won"]) == 4
    assert (res["pts_a"] + res["pts_b"] > 0).all()


def test_workers_share_the_chunks():
    res = tournament.run_tournament([("h", "heuristic"), ("r", "random")], 10, CFG, seed=2,
                                    workers=2, progress=False)
    assert res["pairs"][0]["matches"] == 20 and res["config"]["workers"] == 2


def test_ray_backend_without_ray_says_how_to_install(monkeypatch, capsys):
    import evaluate
    monkeypatch.setitem(sys.modules, "ray", None)     # import ray -> ImportError
    for cmd in (["random", "heuristic"], ["bluff", "random", "--vs", "heuristic"]):
        assert evaluate.main([*cmd, "--matches", "4", "--backend", "ray", "--no-progress"]) == 2
        assert 'pip install -e ".[ray]"' in capsys.readouterr().err
    with pytest.raises(ValueError, match="backend='dask'"):
        tournament.run_tournament([("r", "random"), ("h", "heuristic")], 4, CFG, backend="dask")


def test_a_ray_address_where_nothing_listens_fails_at_once():
    """ray.init would wait on it for minutes; the backend refuses it before calling Ray."""
    from evaluation import backends
    with pytest.raises(RuntimeError, match="ray_address='127.0.0.1:1': nothing listens"):
        backends._check_listening("127.0.0.1:1")
    backends._check_listening("auto")            # left to Ray


def test_a_bar_in_an_agent_name_does_not_split_report_rows():
    """Markdown tables: every row of the tournament, bluff and win-rate tables keeps its header's
    number of cells when an agent's label holds ``|`` (escaped as ``\\|``)."""
    import re
    from training.logger import rate_table_lines
    res = tournament.run_tournament([("rand|a", "random"), ("heur|b", "heuristic")], 4,
                                    GameConfig(players=2, target=9), workers=1, bluff=True,
                                    progress=False)
    text = report.tournament_markdown(res)
    text += "\n" + "\n".join(rate_table_lines(
        {"x|y": {"win_rate": 0.5, "low": 0.4, "high": 0.6, "matches": 10}}))
    cells = lambda row: len(re.split(r"(?<!\\)\|", row))
    tables, rows = [], 0
    for line in text.splitlines():
        if not line.startswith("|"):
            tables.append(None)
            continue
        if tables and tables[-1] is None or not tables:
            tables.append(cells(line))                 # a header starts a table
        assert cells(line) == tables[-1], line
        rows += "rand\\|a" in line or "heur\\|b" in line or "x\\|y" in line
    assert rows >= 8
