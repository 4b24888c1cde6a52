"""training.curves: the learning-curve PNG of a train.py run (and of best-response runs) from a
synthetic metrics.csv and config.yaml (no training); clear errors for folders without them."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from training.curves import (CurveError, main, plot_learning_curve, read_exploit,  # noqa: E402
                             read_run)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NAMES = ["heuristic", "random", "tight_passive", "loose_aggressive", "trapper", "past"]


def write_run(folder: Path, names=NAMES, rows: int = 12, eval_every: int = 3,
              eval_games: int = 200, step: int = 65536) -> Path:
    """A run folder as train.py leaves it: metrics.csv (evaluations every ``eval_every`` rows,
    blank elsewhere; ``past`` is nan at the first one) and config.yaml."""
    folder.mkdir(parents=True)
    cols = ["global_step", "iteration", "time", "charts/SPS"] + \
        [f"eval/win_rate_{n}" for n in names]
    with open(folder / "metrics.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for it in range(1, rows + 1):
            row = {"global_step": it * step, "iteration": it, "time": round(it * 7.5, 2),
                   "charts/SPS": 8000}
            if it % eval_every == 0:
                for k, n in enumerate(names):
                    v = min(0.95, 0.3 + 0.05 * it + 0.02 * k)
                    row[f"eval/win_rate_{n}"] = "nan" if n == "past" and it == eval_every \
                        else f"{v:.4g}"
            w.writerow(row)
    (folder / "config.yaml").write_text(
        f"run_name: {folder.name}\nplayers: 2\nrules: argentino\ntarget: 30\n"
        f"eval_every: {eval_every}\neval_games: {eval_games}\n")
    return folder


def write_probe(folder: Path, final: bool = True) -> Path:
    """An ``evaluate.py exploit`` folder: best_response/ (a run against ``opponent``) and, when
    it finished, results.json."""
    write_run(folder / "best_response", names=["heuristic", "random", "opponent"], rows=8,
              eval_every=2, eval_games=128)
    if final:
        (folder / "results.json").write_text(json.dumps({
            "agent": "checkpoint:runs/x/checkpoints/latest.pt", "best_response_win_rate": 0.61,
            "win_lo": 0.55, "win_hi": 0.67, "train_seconds": 60.0,
            "final": [{"matches": 400}]}))
    return folder


def assert_png(path: Path) -> None:
    import matplotlib.image as mpimg
    assert path.is_file() and path.read_bytes()[:8] == PNG_MAGIC
    img = mpimg.imread(path)
    assert img.ndim == 3 and img.shape[0] > 300 and img.shape[1] > 600
    assert img.std() > 0.01  # something was drawn
    assert not list(path.parent.glob(".*.tmp"))  # the temporary file is gone


def test_read_run_intervals(tmp_path):
    run = read_run(write_run(tmp_path / "r"))
    assert run["matches"] == 200
    assert list(run["evals"]) == NAMES
    h = run["evals"]["heuristic"]
    assert len(h["rate"]) == 4 and list(h["seconds"]) == [22.5, 45.0, 67.5, 90.0]
    assert all(lo < p < hi for p, lo, hi in zip(h["rate"], h["lo"], h["hi"]))
    # Wilson at 200 matches: about +-0.065 around 0.45
    assert 0.12 < h["hi"][0] - h["lo"][0] < 0.15
    assert len(run["evals"]["past"]["rate"]) == 3  # the nan first evaluation is dropped


def test_plot_run_only(tmp_path):
    out = plot_learning_curve(write_run(tmp_path / "r"), tmp_path / "img" / "curve.png")
    assert out == tmp_path / "img" / "curve.png"
    assert_png(out)


def test_plot_with_exploit_folders(tmp_path):
    probe = write_probe(tmp_path / "exploit-out")
    run = write_run(tmp_path / "run")
    write_probe(run / "exploit", final=False)        # a train.py run with exploit_budget
    e = read_exploit(probe)
    assert e["matches"] == 128 and len(e["rate"]) == 4 and e["final"]["rate"] == 0.61
    assert e["label"] == "exploit-out"
    assert read_exploit(run)["label"] == "run" and read_exploit(run)["final"] is None
    out = plot_learning_curve(run, tmp_path / "c.png", exploit_dirs=[probe, run], title="t")
    assert_png(out)


def test_main(tmp_path, capsys):
    run = write_run(tmp_path / "r")
    probe = write_probe(tmp_path / "p")
    out = tmp_path / "docs" / "img" / "learning_curve.png"
    assert main([str(run), "--out", str(out), "--exploit", str(probe)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert_png(out)


def test_missing_folder_and_files(tmp_path, capsys):
    with pytest.raises(CurveError, match="no such folder"):
        plot_learning_curve(tmp_path / "nope", tmp_path / "x.png")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CurveError, match="no metrics.csv"):
        plot_learning_curve(tmp_path / "empty", tmp_path / "x.png")
    run = write_run(tmp_path / "r")
    (run / "config.yaml").unlink()
    with pytest.raises(CurveError, match="config.yaml"):
        plot_learning_curve(run, tmp_path / "x.png")
    assert_png(plot_learning_curve(run, tmp_path / "x.png", eval_games=100))
    with pytest.raises(CurveError, match="no best-response run"):
        plot_learning_curve(run, tmp_path / "y.png", exploit_dirs=[run], eval_games=100)
    assert not (tmp_path / "y.png").exists()
    assert main([str(tmp_path / "nope"), "--out", str(tmp_path / "z.png")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_compare_draws_runs_side_by_side_and_names_a_missing_column(tmp_path):
    """--compare (issue 15: one config on two backends): one PNG; a run without the column is
    an error that names it."""
    a = write_run(tmp_path / "local")
    b = write_run(tmp_path / "ray1", step=60000)
    out = tmp_path / "cmp.png"
    assert main([str(a), "--compare", str(b), "--out", str(out)]) == 0
    assert_png(out)
    c = write_run(tmp_path / "norandom", names=["heuristic"])
    assert main([str(a), "--compare", str(c), "--opponent", "random", "--out",
                 str(tmp_path / "x.png")]) == 2
