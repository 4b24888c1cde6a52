"""The three bluff claims of ``evaluate.py bluff`` (evaluation.bluff.bluff_claims): envido
acceptance by envido points, truco / retruco call rates by hand strength, and the payoff of
bluffs per opponent; checked on seeded runs of the heuristic, whose truco calls depend on its
hand strength by construction and whose ``bluff`` parameter sets its bluff rate."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation import bluff, report
from evaluation.stats import Z95
from evaluation.tournament import GameConfig, play_duplicate

ROOT = Path(__file__).resolve().parents[1]
CFG = GameConfig(players=2, rules="argentino", target=15)
PAIRS = 80


def _claims(spec: str, opponents=("heuristic",), seed: int = 0) -> dict:
    return bluff.play_against(spec, list(opponents), PAIRS, CFG, seed=seed, workers=1,
                              progress=False)


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    return {b: _claims(f"heuristic:bluff={b}") for b in ("0.0", "0.6")}


def _scope(r: dict, label: str | None = None) -> dict:
    (agent,) = r["claims"]["agents"].values()
    return agent["scopes"][-1] if label is None else \
        next(s for s in agent["scopes"] if s["label"] == label)


def _above(hi_bin: dict, lo_bin: dict) -> bool:
    """The first rate's Wilson interval lies above the second's."""
    return hi_bin["lo"] > lo_bin["hi"]


def _bin(d: dict, i: int) -> dict:
    return {k: d[k][i] for k in ("k", "n", "rate", "lo", "hi")}


def test_truco_calls_rise_with_hand_strength(runs):
    for r in runs.values():
        s = _scope(r)
        for call in ("truco", "retruco"):
            t = s["truco_calls"][call]
            assert t["n"][0] > 20 and t["n"][-1] > 20, (call, t["n"])
            assert _above(_bin(t, -1), _bin(t, 0)), (call, t["rate"])
            assert t["contrast"]["separated"] and t["contrast"]["diff"] > 0.3
        # the honest rate (strong quintiles) is far above the bluff rate (weak quintiles)
        tr = s["truco_calls"]["truco"]
        assert _above(tr["honest_rate"], tr["bluff_rate"])
        assert tr["bluff_rate"]["n"] == sum(tr["n"][:2]) and \
            tr["bluff_rate"]["k"] == sum(tr["k"][:2])


def test_bluff_parameter_sets_the_weak_bin_call_rate(runs):
    low = _scope(runs["0.0"])["truco_calls"]["truco"]["bluff_rate"]
    high = _scope(runs["0.6"])["truco_calls"]["truco"]["bluff_rate"]
    assert low["n"] > 50 and high["n"] > 50
    assert _above(high, low), (low, high)
    assert high["rate"] > 0.3 and low["rate"] < 0.15
    # more bluffs are made, and they are what the payoff table counts
    assert _scope(runs["0.6"])["payoff"]["bluff"]["calls"] > \
        _scope(runs["0.0"])["payoff"]["bluff"]["calls"]


def test_envido_acceptance_rises_with_points(runs):
    for r in runs.values():
        e = _scope(r)["envido_acceptance"]
        assert e["n"][0] > 20 and e["n"][-1] > 5, e["n"]
        assert _above(_bin(e, -1), _bin(e, 0)), e["rate"]
        assert e["rate"][-1] > 0.8 and e["rate"][0] < 0.2
        assert all(q <= k for q, k in zip(e["quiero_k"], e["k"]))


def test_payoff_of_bluffs_and_honest_calls(runs):
    for r in runs.values():
        p = _scope(r)["payoff"]
        for kind in ("bluff", "honest"):
            pt, fd = p[kind]["points"], p[kind]["fold"]
            assert 0 < pt["n"] == p[kind]["hands"] <= p[kind]["calls"]
            half = Z95 * pt["sd"] / np.sqrt(pt["n"])
            assert pt["lo"] == pytest.approx(pt["mean"] - half)
            assert pt["hi"] == pytest.approx(pt["mean"] + half)
            assert 0 <= fd["k"] <= fd["n"] <= p[kind]["calls"]
            assert 0 <= fd["lo"] <= fd["rate"] <= fd["hi"] <= 1
        # calls with strong hands win more points than bluffs
        assert p["honest"]["points"]["mean"] > p["bluff"]["points"]["mean"]


def test_tables_per_opponent_add_up():
    r = _claims("heuristic", ("heuristic:bluff=0.6", "random"), seed=3)
    (agent,) = r["claims"]["agents"].values()
    labels = [s["label"] for s in agent["scopes"]]
    assert labels == ["vs heuristic:bluff=0.6", "vs random", "all opponents"]
    assert [m["opponent"] for m in r["matches"]] == ["heuristic:bluff=0.6", "random"]
    per, total = agent["scopes"][:2], agent["scopes"][2]
    assert sum(s["games"] for s in per) == total["games"] == 4 * PAIRS
    e = [np.array(s["envido_acceptance"]["n"]) for s in per]
    assert (e[0] + e[1] == total["envido_acceptance"]["n"]).all()
    for call in ("truco", "retruco"):
        k = [np.array(s["truco_calls"][call]["k"]) for s in per]
        assert (k[0] + k[1] == total["truco_calls"][call]["k"]).all()
    for kind in ("bluff", "honest"):
        assert sum(s["payoff"][kind]["calls"] for s in per) == total["payoff"][kind]["calls"]
        assert sum(s["payoff"][kind]["fold"]["k"] for s in per) == \
            total["payoff"][kind]["fold"]["k"]
    # the agent's own spec as opponent is a separate copy, labelled apart
    assert bluff.claim_labels("heuristic", ["heuristic", "random", "random"]) == \
        ["heuristic", "heuristic (opponent)", "random", "random#2"]


def test_no_weak_calls_is_handled(tmp_path):
    """An agent that never calls with a weak hand: n = 0 gives NaN rates, no interval, and the
    tables and plots still come out."""
    log = bluff.EventLog()
    play_duplicate("heuristic:bluff=0", "random", range(10), CFG, seed=0, log=log)
    ev, hands = log.tables()
    ev["percentile"] = np.full(len(ev["gid"]), 0.9, np.float32)   # every hand strong
    c = bluff.bluff_claims(ev, hands, ["h", "r"], agents=[0])
    s = c["agents"]["h"]["scopes"][0]
    p = s["payoff"]["bluff"]
    assert p["calls"] == p["hands"] == 0 and p["points"]["n"] == 0 and p["fold"]["n"] == 0
    assert np.isnan(p["points"]["mean"]) and np.isnan(p["fold"]["rate"])
    assert s["truco_calls"]["truco"]["bluff_rate"]["n"] == 0
    assert not s["truco_calls"]["truco"]["contrast"]["separated"]
    md = report.claims_markdown(c)
    assert "| vs r | bluff | 0 | 0 | n/a | n/a | n/a | n/a | 0 |" in md
    assert report.plot_claims(c, tmp_path) == list(report.CLAIM_PLOTS)
    report.write_json(tmp_path / "c.json", c)
    json.loads((tmp_path / "c.json").read_text())
    assert len(report.claims_rows(c)) > 0


def test_cli_writes_the_claims(tmp_path):
    out = tmp_path / "b"
    p = subprocess.run([sys.executable, "evaluate.py", "bluff", "heuristic", "--vs", "random",
                        "--against", "heuristic:bluff=0.6", "--matches", "20", "--target", "15",
                        "--workers", "1", "--no-progress", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    printed = p.stdout.strip().splitlines()
    assert printed[-1] == str(out)
    for f in report.CLAIM_PLOTS:
        path = out / f
        assert f"plot: {path}" in printed
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
    assert not [f for f in out.iterdir() if f.name.startswith(".")]    # no temporary left
    for f in ("report.md", "bluff.csv", "bluff_claims.csv", "bluff.json", *report.BLUFF_PLOTS):
        assert (out / f).is_file(), f
    md = (out / "report.md").read_text()
    for head in ("1. Envido acceptance rises", "2. Truco and retruco calls depend",
                 "3. Do bluffs win points", "## Bluff analytics"):
        assert head in md
    assert "| vs random |" in md and "| all opponents |" in md and "bluff rate (Q1-Q2)" in md
    data = json.loads((out / "bluff.json").read_text())
    assert data["claims"]["agents"]["heuristic"]["opponents"] == ["random", "heuristic:bluff=0.6"]
    assert set(data["agents"]) == {"heuristic", "random", "heuristic:bluff=0.6"}
    assert data["files"][:3] == list(report.CLAIM_PLOTS)
