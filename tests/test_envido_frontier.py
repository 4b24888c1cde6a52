"""examples/envido_frontier.py: what a static envido strategy takes from the family and gives
to a best response, in the solved envido's subgame."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "envido_frontier.py"
spec = importlib.util.spec_from_file_location("envido_frontier", SCRIPT)
frontier = importlib.util.module_from_spec(spec)
spec.loader.exec_module(frontier)


def test_trusting_the_family_more_takes_more_and_gives_more(capsys):
    """The equilibrium gives nothing away; the data-biased response trusting the family more
    (smaller n0) takes more from it and gives a best response more; the mixtures are priced
    with the same two figures."""
    rows = {r["name"]: r for r in frontier.frontier(9, [20.0, 2.0], matches=48, mixes=True)}
    assert set(rows) == {"equilibrium", "n0=20", "n0=2", *frontier.MIXES}
    eq, safe, bold = rows["equilibrium"], rows["n0=20"], rows["n0=2"]
    assert eq["nash_conv_mean"] == pytest.approx(0.0, abs=2e-3)
    assert eq["nash_conv_mean"] < safe["nash_conv_mean"] < bold["nash_conv_mean"]
    assert eq["family_mean"] < safe["family_mean"] < bold["family_mean"]
    for r in rows.values():
        assert r["nash_conv_00"] >= -1e-9 and r["nash_conv_mean"] >= -1e-9
    frontier.main(["--target", "9", "--n0", "20", "2", "--matches", "48"])
    out = capsys.readouterr().out
    assert "NashConv 0-0" in out and "n0=2 " in out
    with pytest.raises(SystemExit):
        frontier.main(["--n0", "0"])


def test_a_response_by_kind_is_one_solve_with_a_confidence_per_kind(capsys):
    """One n0 at every kind is the data-biased response itself; no confidence anywhere (inf)
    is the equilibrium; trusting the family only at his answers to our opening lies between
    the two on both figures; a bad --kinds is a named error."""
    import numpy as np
    from agents import solved_envido as SE

    same = frontier.by_kind(9, (20.0, 20.0, 20.0), matches=48)
    robust = SE.robust_for(9, n0=20.0, matches=48).per_action()
    assert all(np.allclose(a, b) for a, b in zip(same, robust))
    inf = float("inf")
    rows = {r["name"]: r for r in frontier.frontier(
        9, [2.0], matches=48, kinds=[(inf, inf, inf), (inf, 2.0, inf)])}
    none, answers, bold = (rows[frontier.kinds_name((inf, inf, inf))],
                           rows[frontier.kinds_name((inf, 2.0, inf))], rows["n0=2"])
    assert none["nash_conv_mean"] == pytest.approx(0.0, abs=2e-3)
    assert none["family_mean"] < answers["family_mean"] < bold["family_mean"]
    assert none["nash_conv_mean"] < answers["nash_conv_mean"]
    frontier.main(["--target", "9", "--n0", "2", "--matches", "48", "--kinds", "20", "2", "inf"])
    assert "n0 open/answer/raise=20/2/inf" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        frontier.main(["--kinds", "20", "0", "2"])
