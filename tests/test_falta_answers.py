"""examples/falta_answers.py: the falta envidos an agent faced and accepted, by its points."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "falta_answers.py"
spec = importlib.util.spec_from_file_location("falta_answers", SCRIPT)
falta = importlib.util.module_from_spec(spec)
spec.loader.exec_module(falta)


def test_the_falta_answers_count_what_the_log_saw(capsys):
    """Against the re-raise bluffer (falta envido over an envido a third of the time) the
    heuristic faces faltas; the point bands split them and their acceptances exactly; the
    heuristic, which accepts by P(win the envido), accepts a larger share with 30-33 points
    than with 23 or less."""
    r = falta.falta_answers("heuristic", "heuristic:style=bluff_raiser", 60)
    assert r["faced"] > 20 and r["opponent_faced"] >= 0
    assert sum(n for n, _ in r["bands"].values()) == r["faced"]
    assert sum(k for _, k in r["bands"].values()) == r["accepted"] <= r["faced"]
    (n_lo, k_lo), *_, (n_hi, k_hi) = r["bands"].values()
    assert n_lo and n_hi and k_lo / n_lo < k_hi / n_hi
    assert 0.0 <= r["won"] <= 1.0
    # The score situations split the same faltas again, every one in exactly one.
    assert set(r["situations"]) == set(falta.SITUATIONS)
    assert sum(n for n, _ in r["situations"].values()) == r["faced"]
    assert sum(k for _, k in r["situations"].values()) == r["accepted"]
    assert r["situations"]["both in malas"][0] > 0    # every match starts in malas
    # And by the singer's points: the bluff_raiser sings falta over an envido with any hand,
    # and its value raises come from the top, so both ends of its range are there.
    assert sum(n for n, _ in r["singer_bands"].values()) == r["faced"]
    assert sum(k for _, k in r["singer_bands"].values()) == r["accepted"]
    (n_lo, _), *_, (n_hi, _) = r["singer_bands"].values()
    assert n_lo > 0 and n_hi > 0
    falta.main(["heuristic", "random", "--matches", "4"])
    out = capsys.readouterr().out
    assert "falta envidos the agent faced" in out and "both in malas" in out
    assert "sung with 0-23 points" in out
