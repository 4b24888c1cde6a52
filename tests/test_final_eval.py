"""examples/final_eval.py: any agent on a run's final-summary deals and opponents."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import agents
from training.config import make_config
from training.win_rates import FINAL_SEED, evaluate

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "final_eval.py"
spec = importlib.util.spec_from_file_location("final_eval", SCRIPT)
final_eval = importlib.util.module_from_spec(spec)
spec.loader.exec_module(final_eval)


def test_it_plays_the_summary_opponents_on_the_summary_deals(capsys):
    cfg = make_config({})
    rates = final_eval.final_eval("heuristic:style=maniac", cfg, 8)
    assert list(rates) == ["heuristic", "random", "tight_passive", "loose_aggressive", "trapper"]
    again = evaluate(agents.load("heuristic:style=maniac", seed=0),
                     agents.load("heuristic:style=trapper", seed=5), cfg, 8, FINAL_SEED)
    assert rates["trapper"] == again      # evaluate reseeds both: the same matches
    final_eval.main(["heuristic:style=maniac", "--matches", "8"])
    out = capsys.readouterr().out
    assert out.count("| 8 |") == 5 and f"| trapper | {rates['trapper'][0]:.3f} |" in out
