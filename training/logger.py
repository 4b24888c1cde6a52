"""train.py's outputs: ``metrics.csv`` (one row per iteration, fixed columns), TensorBoard
events, ``summary.json`` / ``summary.md``, and the lines it prints; files are written whole
(temporary file, then ``os.replace``) so a killed run never leaves half a file.

>>> eval_line(20480, 51234, 75.4, {"heuristic": (0.64, 0.58, 0.70)})
'step 20,480  SPS 51,234  win rate heuristic 0.640 (0.580-0.700)  elapsed 1m15s'
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from .config import Config


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def eval_names(cfg: Config, heldout: list[str]) -> list[str]:
    """The opponents of the periodic evaluations, in column order: the baselines, the
    held-out styles of :mod:`agents.zoo` and ``past`` (the policy of the previous evaluation)."""
    names = ["heuristic", "random"] + (["opponent"] if cfg.opponent else [])
    return names + ([short_name(s) for s in heldout] + ["past"] if cfg.eval_heldout else [])


def short_name(spec: str) -> str:
    """``heuristic:style=maniac`` -> ``maniac`` (column and table names)."""
    return spec.split("style=", 1)[1].split(",")[0] if "style=" in spec else spec


class Logger:
    """metrics.csv (one row per iteration, a fixed set of columns) and TensorBoard.

    On resume (``resume_iteration``: the checkpoint's iteration) the rows written after the
    checkpoint are dropped first (the run redoes those iterations), so metrics.csv never repeats
    or goes back; TensorBoard purges its events after the checkpoint's step the same way.
    """

    COLUMNS = ("global_step", "iteration", "time", "charts/SPS", "charts/rollout_SPS",
               "charts/learning_rate", "charts/pool_size", "charts/match_length",
               "charts/train_win_rate_pool", "charts/train_win_rate_heuristic",
               "charts/train_win_rate_styles", "charts/train_win_rate_random",
               "charts/train_win_rate_opponent", "charts/train_win_rate_exploiter",
               "charts/learner_fraction",
               "charts/carried", "losses/value_loss", "losses/policy_loss", "losses/entropy",
               "losses/old_approx_kl", "losses/approx_kl", "losses/clipfrac", "losses/magnet_kl",
               "losses/envido_kl", "losses/explained_variance")

    def __init__(self, run_dir: Path, cfg: Config, eval_columns: list[str] = (),
                 resume_iteration: int | None = None, resume_step: int = 0):
        self.path = run_dir / "metrics.csv"
        self.columns = list(self.COLUMNS) + [f"eval/win_rate_{n}" for n in eval_columns]
        new = resume_iteration is None or not self.path.exists()
        if not new:
            with open(self.path, newline="") as f:
                rows = [r for r in csv.DictReader(f) if int(r["iteration"]) <= resume_iteration]
            text = io.StringIO()
            w = csv.DictWriter(text, fieldnames=self.columns, extrasaction="ignore",
                               lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
            write_atomic(self.path, text.getvalue())
        self.file = open(self.path, "w" if new else "a", newline="")
        self.csv = csv.DictWriter(self.file, fieldnames=self.columns, extrasaction="ignore",
                                  lineterminator="\n")
        if new:
            self.csv.writeheader()
        self.tb = None
        if cfg.tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self.tb = SummaryWriter(str(run_dir), purge_step=None if new else resume_step + 1)
                if new:
                    self.tb.add_text("config", "\n".join(
                        f"    {k}: {v}" for k, v in dataclasses.asdict(cfg).items()))
            except ImportError:
                print("tensorboard is not installed: metrics go to metrics.csv only",
                      file=sys.stderr)

    def log(self, row: dict[str, Any]) -> None:
        self.csv.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                           for k, v in row.items()})
        self.file.flush()
        if self.tb is not None:
            for k, v in row.items():
                if "/" in k and v is not None and not (isinstance(v, float) and math.isnan(v)):
                    self.tb.add_scalar(k, v, row["global_step"])

    def close(self) -> None:
        self.file.close()
        if self.tb is not None:
            self.tb.close()


def elapsed(seconds: float) -> str:
    """``75.4`` -> ``1m15s``; ``3725`` -> ``1h02m05s``."""
    s = int(seconds)
    h, m = divmod(s // 60, 60)
    return f"{h}h{m:02d}m{s % 60:02d}s" if h else f"{m}m{s % 60:02d}s"


def outputs_line(run_dir: Path, cfg: Config) -> str:
    """Where a run writes, printed before training starts."""
    tb = f", TensorBoard events (tensorboard --logdir {run_dir})" if cfg.tensorboard else ""
    return (f"run folder: {run_dir}/ (config.yaml, metrics.csv, checkpoints/latest.pt{tb}; "
            f"summary.json and summary.md at the end)")


def eval_line(step: int, sps: int, seconds: float,
              rates: dict[str, tuple[float, float, float]]) -> str:
    """One periodic evaluation as a line: step, SPS, win rates with their 95% interval."""
    wr = ", ".join(f"{k} {p:.3f} ({lo:.3f}-{hi:.3f})" for k, (p, lo, hi) in rates.items())
    return f"step {step:,}  SPS {sps:,}  win rate {wr or '-'}  elapsed {elapsed(seconds)}"


def rate_table_lines(table: dict[str, dict]) -> list[str]:
    """A summary's win-rate table (``training.win_rates.rate_table``) as Markdown lines."""
    from evaluation.report import md_cell
    return ["| opponent | win rate | 95% CI | matches |", "|---|---|---|---|",
            *(f"| {md_cell(name)} | {r['win_rate']:.3f} | {r['low']:.3f}-{r['high']:.3f} | "
              f"{r['matches']} |" for name, r in table.items())]


def rates_line(table: dict[str, dict]) -> str:
    """``heuristic 0.785, random 0.945, ...``: a win-rate table on one line."""
    return ", ".join(f"{name} {r['win_rate']:.3f}" for name, r in table.items())


def write_summary(run_dir: Path, cfg: Config, target: int, summary: dict) -> None:
    """``summary.json`` and ``summary.md``; ``summary["win_rate"][name]`` holds ``win_rate``,
    ``ci95`` (half the interval's width), ``low``, ``high`` and ``matches``."""
    write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
    lines = [f"# {cfg.run_name}", "",
             f"{cfg.players} players, {cfg.rules}, match to {target}; "
             f"{summary['global_step']:,} steps in {summary['train_seconds']} s "
             f"({summary['SPS']:,} steps/s).", "",
             *rate_table_lines(summary["win_rate"])]
    if "average" in summary:
        avg = summary["average"]
        lines += ["", f"Average policy (`{avg['spec']}`: the mean of "
                      f"{', '.join(avg['checkpoints'])}):", "",
                  *rate_table_lines(avg["win_rate"])]
    if "exploit" in summary:
        ex = summary["exploit"]
        r = ex["result"]
        lines += ["", f"Exploitability estimate: a best response trained for {ex['budget']:.0f} s "
                      f"({ex['steps']:,} steps) wins {r['win_rate']:.3f} "
                      f"({r['win_lo']:.3f}-{r['win_hi']:.3f}) of {r['matches']} matches against "
                      f"the final policy."]
    write_atomic(run_dir / "summary.md", "\n".join(lines) + "\n")
