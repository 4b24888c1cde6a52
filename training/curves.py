"""Learning-curve plot of a train.py run: the periodic evaluations' win rates against training
time and, on a second panel, the exploitability estimate (a best response's win rate against
the policy over the best response's own training time).

    python -m training.curves runs/<name> --out docs/img/learning_curve.png \\
        [--exploit runs/<name> | --exploit outputs/exploit-<...> ...]

Top panel: one line per ``eval/win_rate_<name>`` column of the run's ``metrics.csv`` (the
opponents of :func:`training.logger.eval_names`: heuristic, random, the held-out styles, past),
with a shaded 95% Wilson interval on the evaluation's matches (``eval_games`` of the run's
``config.yaml``, played as ``eval_games // 2`` duplicate pairs).  metrics.csv keeps only the
rate, so the band treats the matches as independent: the duplicate format's own interval (the
one train.py prints) is usually a little narrower.  The x axis is training time in minutes,
the top axis environment steps in millions.

Bottom panel (with ``exploit_dirs``): for each best-response run, the curve of
:func:`evaluation.exploit.exploit_curve` with its Wilson band and, when the probe finished, the
final duplicate tournament's win rate with its interval (``results.json``).  A folder may be an
``evaluate.py exploit`` output folder (``best_response/metrics.csv``), a train.py run folder
trained with ``exploit_budget`` (``exploit/best_response/metrics.csv``) or the best-response
run folder itself.

>>> _steps_label(49_283_072), _steps_label(350_000)
('49.3M steps', '0.35M steps')
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from .logger import elapsed

EVAL_PREFIX = "eval/win_rate_"
#: Fixed colours, so the same opponent has the same colour in every plot.
COLORS = {"heuristic": "tab:blue", "random": "tab:green", "opponent": "tab:red",
          "past": "tab:gray"}
OTHER_COLORS = ("tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")


class CurveError(ValueError):
    """A folder that is not a train.py run (or best-response run) with a metrics.csv."""


# ============================================================================ reading runs
def _metrics_path(run_dir: Path) -> Path:
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise CurveError(f"{run_dir}: no such folder (expected a train.py run folder with "
                         f"metrics.csv and config.yaml)")
    path = run_dir / "metrics.csv"
    if not path.is_file():
        raise CurveError(f"{run_dir}: no metrics.csv there (expected a train.py run folder: "
                         f"runs/<run_name>/)")
    return path


def _eval_games(run_dir: Path, eval_games: int | None = None) -> int:
    """The number of matches of one periodic evaluation: ``eval_games`` of config.yaml (or the
    argument), rounded as :func:`training.win_rates.evaluate` plays them (whole pairs)."""
    if eval_games is None:
        cfg_path = Path(run_dir) / "config.yaml"
        if not cfg_path.is_file():
            raise CurveError(f"{run_dir}: no config.yaml there (its eval_games sets the "
                             f"intervals; pass eval_games / --eval-games to plot without it)")
        import yaml
        try:
            values = yaml.safe_load(cfg_path.read_text()) or {}
            eval_games = int(values["eval_games"])
        except (yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CurveError(f"{cfg_path}: cannot read eval_games ({exc})") from None
    return 2 * max(1, int(eval_games) // 2)


def _float(x: str | None) -> float:
    try:
        return float(x) if x not in (None, "") else float("nan")
    except ValueError:
        return float("nan")


def read_run(run_dir: Path, eval_games: int | None = None) -> dict:
    """``{"seconds", "steps"}`` (every row, arrays) and ``"evals"``: for each evaluation
    opponent, arrays ``seconds``, ``steps``, ``rate``, ``lo``, ``hi`` of the rows where it was
    evaluated; ``"matches"``: matches per evaluation."""
    from evaluation.stats import win_rate
    path = _metrics_path(run_dir)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        if "time" not in fields or "global_step" not in fields:
            raise CurveError(f"{path}: not a train.py metrics.csv (no time / global_step "
                             f"columns)")
        rows = list(reader)
    names = [c[len(EVAL_PREFIX):] for c in fields if c.startswith(EVAL_PREFIX)]
    n = _eval_games(run_dir, eval_games)
    seconds = np.array([_float(r["time"]) for r in rows])
    steps = np.array([_float(r["global_step"]) for r in rows])
    evals = {}
    for name in names:
        pts = [(s, g, _float(r[EVAL_PREFIX + name])) for s, g, r in zip(seconds, steps, rows)]
        pts = [p for p in pts if math.isfinite(p[2])]
        if not pts:
            continue
        s, g, p = (np.array(x) for x in zip(*pts))
        lo, hi = np.array([win_rate(x * n, n)[1:] for x in p]).T
        evals[name] = {"seconds": s, "steps": g, "rate": p, "lo": lo, "hi": hi}
    return {"seconds": seconds, "steps": steps, "evals": evals, "matches": n}


def find_best_response(folder: Path) -> Path:
    """The best-response run folder of an exploitability probe: ``folder/exploit/best_response``
    (a train.py run with ``exploit_budget``), ``folder/best_response`` (an ``evaluate.py
    exploit`` folder) or ``folder`` itself."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CurveError(f"{folder}: no such folder (expected an evaluate.py exploit folder or "
                         f"a train.py run folder with exploit/best_response/)")
    for cand in (folder / "exploit" / "best_response", folder / "best_response", folder):
        if (cand / "metrics.csv").is_file():
            with open(cand / "metrics.csv", newline="") as f:
                header = next(csv.reader(f), [])
            if EVAL_PREFIX + "opponent" in header:
                return cand
    raise CurveError(f"{folder}: no best-response run there (expected best_response/metrics.csv "
                     f"or exploit/best_response/metrics.csv with an eval/win_rate_opponent "
                     f"column)")


def read_exploit(folder: Path, eval_games: int | None = None) -> dict:
    """One best-response run: ``label``, ``seconds``, ``steps``, ``rate``, ``lo``, ``hi`` (its
    periodic evaluations against the frozen policy), ``matches`` and ``final`` (the probe's final
    duplicate tournament from results.json: ``rate``, ``lo``, ``hi``, ``seconds``, ``matches``;
    None if it did not finish)."""
    from evaluation.exploit import exploit_curve
    br = find_best_response(folder)
    n = _eval_games(br, eval_games)
    curve = [c for c in exploit_curve(br / "metrics.csv", n)
             if c["eval"] and math.isfinite(c["win_rate"])]
    probe = br.parent if br.name == "best_response" else None
    final = None
    results = probe / "results.json" if probe is not None else None
    agent = None
    if results is not None and results.is_file():
        try:
            data = json.loads(results.read_text())
            agent = data.get("agent")
            pair = (data.get("final") or [{}])[0]
            if data.get("best_response_win_rate") is not None:
                final = {"rate": data["best_response_win_rate"], "lo": data["win_lo"],
                         "hi": data["win_hi"], "seconds": float(data["train_seconds"]),
                         "matches": pair.get("matches")}
        except (ValueError, KeyError, TypeError):
            pass
    # The label: the run (train.py run folder or probe folder) rather than a checkpoint path.
    if probe is not None and probe.name == "exploit":
        label = probe.parent.name
    elif probe is not None:
        label = agent if agent and "/" not in agent else probe.name
    else:
        label = br.name
    arr = lambda k: np.array([c[k] for c in curve], dtype=float)  # noqa: E731
    return {"label": label, "seconds": arr("seconds"), "steps": arr("steps"),
            "rate": arr("win_rate"), "lo": arr("win_lo"), "hi": arr("win_hi"), "matches": n,
            "final": final}


# ============================================================================ plotting
def _steps_label(steps: float) -> str:
    m = steps / 1e6
    return f"{m:.1f}M steps" if m >= 10 else f"{m:.2g}M steps"


def _minutes_to_steps(seconds: np.ndarray, steps: np.ndarray):
    """Two monotone maps minutes <-> millions of steps, linear past the last row (the run's
    mean rate), for matplotlib's secondary axis; None when the run has too few rows."""
    t = np.concatenate([[0.0], seconds]) / 60.0
    s = np.concatenate([[0.0], steps]) / 1e6
    ok = np.isfinite(t) & np.isfinite(s)
    t, s = np.maximum.accumulate(t[ok]), np.maximum.accumulate(s[ok])
    keep = np.concatenate([[True], (np.diff(t) > 0) & (np.diff(s) > 0)])
    t, s = t[keep], s[keep]
    if len(t) < 2:
        return None
    rate = s[-1] / t[-1]

    def fwd(x):
        x = np.asarray(x, dtype=float)
        return np.where(x <= t[-1], np.interp(x, t, s), s[-1] + (x - t[-1]) * rate)

    def inv(y):
        y = np.asarray(y, dtype=float)
        return np.where(y <= s[-1], np.interp(y, s, t), t[-1] + (y - s[-1]) / rate)

    return fwd, inv


def _color(name: str, i: int) -> str:
    return COLORS.get(name, OTHER_COLORS[i % len(OTHER_COLORS)])


def _band(ax, x, d, color, label, marker="o", ls="-"):
    ax.plot(x, d["rate"], marker=marker, ms=3, lw=1.4, ls=ls, color=color, label=label)
    ax.fill_between(x, d["lo"], d["hi"], color=color, alpha=0.15, lw=0)


def _title(run_dir: Path, run: dict) -> str:
    try:
        import yaml
        c = yaml.safe_load((Path(run_dir) / "config.yaml").read_text()) or {}
        game = f"{c['players']} players, {c['rules']}, match to {c['target']}"
    except Exception:  # noqa: BLE001 -- the title is decoration
        game = ""
    total = (f"{_steps_label(run['steps'][-1])} in {elapsed(run['seconds'][-1])}"
             if len(run["steps"]) else "no rows yet")
    return f"{Path(run_dir).resolve().name}: {game}{'; ' if game else ''}{total}"


def plot_learning_curve(run_dir, out_png, exploit_dirs: Sequence = (), title: str | None = None,
                        eval_games: int | None = None) -> Path:
    """Draw the learning curve of the train.py run ``run_dir`` (and the exploitability curves
    of ``exploit_dirs``) into ``out_png`` (written atomically); returns its path.  Raises
    :class:`CurveError` for a folder without metrics.csv (or config.yaml, unless
    ``eval_games`` is given)."""
    from evaluation.report import _plt
    run = read_run(Path(run_dir), eval_games)
    exploits = [read_exploit(Path(d)) for d in exploit_dirs]
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)

    plt = _plt()
    rows = 2 if exploits else 1
    fig, axes = plt.subplots(rows, 1, figsize=(9, 4.6 * rows + 0.4), squeeze=False)
    ax = axes[0, 0]
    for i, (name, d) in enumerate(run["evals"].items()):
        _band(ax, d["seconds"] / 60.0, d, _color(name, i), name,
              ls=":" if name == "past" else "-")
    ax.axhline(0.5, color="black", ls="--", lw=0.9, label="0.5")
    ax.set_ylim(0, 1)
    ax.set_xlim(left=0)
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("match win rate of the learner")
    ax.set_title(f"Periodic evaluations ({run['matches']} matches each, duplicate deals; "
                 f"95% Wilson band)", fontsize=10)
    ax.grid(alpha=0.3)
    if run["evals"]:
        ax.legend(fontsize=8, ncol=2, loc="lower right", title="opponent", title_fontsize=8)
    else:
        ax.text(0.5, 0.5, "no periodic evaluations in metrics.csv (eval_every=0?)",
                ha="center", va="center", transform=ax.transAxes, color="grey")
    maps = _minutes_to_steps(run["seconds"], run["steps"])
    if maps is not None:
        top = ax.secondary_xaxis("top", functions=maps)
        top.set_xlabel("environment steps (millions)", fontsize=9)

    if exploits:
        ax = axes[1, 0]
        for i, e in enumerate(exploits):
            color = plt.cm.tab10((i + 3) % 10)
            steps = f", {_steps_label(e['steps'][-1])}" if len(e["steps"]) else ""
            _band(ax, e["seconds"] / 60.0, e, color,
                  f"best response to {e['label']} ({e['matches']} matches per eval{steps})",
                  marker="s")
            f = e["final"]
            if f is not None:
                err = np.maximum([[f["rate"] - f["lo"]], [f["hi"] - f["rate"]]], 0)
                ax.errorbar([f["seconds"] / 60.0], [f["rate"]], yerr=err, fmt="D", ms=6,
                            capsize=4, color=color, mec="black",
                            label=f"{e['label']}: final duplicate tournament"
                                  + (f" ({f['matches']} matches)" if f["matches"] else ""))
        ax.axhline(0.5, color="black", ls="--", lw=0.9, label="0.5: nothing exploited")
        ax.set_ylim(0, 1)
        ax.set_xlim(left=0)
        ax.set_xlabel("best response's training time (minutes)")
        ax.set_ylabel("best response's win rate against the policy")
        ax.set_title("Approximate exploitability (a lower bound; lower is better for the "
                     "policy; 95% Wilson band)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")

    fig.suptitle(title if title is not None else _title(Path(run_dir), run), fontsize=11)
    return _write(plt, fig, out)


def _write(plt, fig, out: Path) -> Path:
    """Lay out ``fig``, write it to ``out`` atomically and close it."""
    from evaluation.report import _save_atomic
    fig.tight_layout()
    try:
        _save_atomic(fig, out)
    finally:
        plt.close(fig)
    return out


def plot_compare(run_dirs: Sequence, out_png, opponent: str = "heuristic",
                 title: str | None = None) -> Path:
    """Runs side by side (e.g. the same config on two backends): each run's periodic win rate
    against ``opponent`` by environment steps (left: what it learns per step) and by training
    time (right: how fast), with 95% Wilson bands; written atomically to ``out_png``."""
    from evaluation.report import _plt
    runs = [(Path(d).resolve().name, read_run(Path(d))) for d in run_dirs]
    out = Path(out_png)
    out.parent.mkdir(parents=True, exist_ok=True)
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    for i, (name, run) in enumerate(runs):
        d = run["evals"].get(opponent)
        if d is None:
            raise CurveError(f"{name}: no eval/win_rate_{opponent} column with values")
        # markers and dashes tell apart runs that coincide (one config on two backends)
        style = {"color": OTHER_COLORS[i % len(OTHER_COLORS)], "label": name,
                 "marker": "osD^v"[i % 5], "ls": ("-", "--", ":", "-.")[i % 4]}
        _band(axes[0], d["steps"] / 1e6, d, **style)
        _band(axes[1], d["seconds"] / 60.0, d, **style)
    for ax, label in zip(axes, ("environment steps (millions)", "training time (minutes)")):
        ax.axhline(0.5, color="black", ls="--", lw=0.9)
        ax.set_xlim(left=0)
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylim(0, 1)
    axes[0].set_ylabel(f"win rate against {opponent}")
    axes[1].legend(fontsize=8, loc="lower right", title="run", title_fontsize=8)
    fig.suptitle(title or f"Periodic evaluations against {opponent} "
                 f"({runs[0][1]['matches']} matches each; 95% Wilson band)", fontsize=11)
    return _write(plt, fig, out)


# ============================================================================ command line
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.curves",
        description="Plot a train.py run's learning curve (periodic evaluation win rates with "
                    "95% Wilson bands against training time) and, with --exploit, the "
                    "exploitability estimate (a best response's win rate over its training "
                    "time) into one PNG.")
    ap.add_argument("run_dir", help="train.py run folder (runs/<run_name>: metrics.csv, "
                                    "config.yaml)")
    ap.add_argument("--out", default=None,
                    help="PNG to write (default: RUN_DIR/learning_curve.png)")
    ap.add_argument("--exploit", nargs="+", default=[], metavar="DIR", action="extend",
                    help="best-response runs for the second panel: an evaluate.py exploit "
                         "folder, or a train.py run folder trained with exploit_budget "
                         "(exploit/best_response/); repeatable")
    ap.add_argument("--title", default=None, help="figure title (default: run name, game, "
                                                  "steps and time)")
    ap.add_argument("--eval-games", type=int, default=None,
                    help="matches per periodic evaluation (default: eval_games of the run's "
                         "config.yaml)")
    ap.add_argument("--compare", nargs="+", default=[], metavar="DIR", action="extend",
                    help="other runs to draw beside RUN_DIR instead: the win rate against "
                         "--opponent by steps and by time, one line per run (e.g. one config "
                         "on two backends)")
    ap.add_argument("--opponent", default="heuristic", help="with --compare: the column")
    args = ap.parse_args(argv)
    out = Path(args.out) if args.out else Path(args.run_dir) / "learning_curve.png"
    try:
        if args.compare:
            path = plot_compare([args.run_dir, *args.compare], out, args.opponent,
                                title=args.title)
        else:
            path = plot_learning_curve(args.run_dir, out, args.exploit, title=args.title,
                                       eval_games=args.eval_games)
    except CurveError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
