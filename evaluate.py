"""Evaluate Truco agents: duplicate tournaments, ratings, bluff analytics, probes, exploitability.

    python evaluate.py heuristic random --matches 200              # tournament, every pair
    python evaluate.py heuristic random checkpoint:runs/default --matches 500 --bluff
    python evaluate.py bluff heuristic --vs random --matches 300    # bluff analytics only
    python evaluate.py bluff --records games/*.json                 # ... from match records
    python evaluate.py probe heuristic --hand "1e 7o 3b" --score 20,10 --mano 1 --played 4c
    python evaluate.py exploit heuristic --budget 20m               # approximate exploitability

Every command writes one folder (default ``outputs/eval-<timestamp>/``): ``report.md`` (also
printed), CSV and JSON files, PNG plots; its path is the last line printed.  The maths (duplicate
format, intervals, ratings, hand strength) is documented in :mod:`truco_env.evaluation`; the
report repeats what a reader needs.
"""
from __future__ import annotations

import argparse
import csv
import glob
import itertools
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from truco_env import evaluation as E

COMMANDS = ("bluff", "probe", "exploit")


# ============================================================================ tournaments
def _chunks(matches: int, workers: int) -> list[tuple[int, int]]:
    size = max(4, min(256, math.ceil(matches / max(1, workers * 4))))
    return [(lo, min(matches, lo + size)) for lo in range(0, matches, size)]


def _task(args: tuple) -> tuple:
    """One chunk of duplicate pairs (runs in a worker process)."""
    p_idx, i, j, spec_i, spec_j, lo, hi, cfg, seed, bluff, gid_span = args
    log = E.EventLog() if bluff else None
    agent_seed = seed * 1_000_003 + p_idx * 10_007 + lo
    a = E.load_agent(spec_i, agent_seed)
    b = E.load_agent(spec_j, agent_seed + 1)
    res = E.play_duplicate(a, b, range(lo, hi), cfg, seed, log=log, agent_ids=(i, j))
    tables = None
    if log is not None:
        ev, hands = log.tables()
        ev["gid"] = ev["gid"] + p_idx * gid_span
        hands["gid"] = hands["gid"] + p_idx * gid_span
        tables = (ev, hands)
    return p_idx, lo, res, tables


def _worker_init() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass


def run_tournament(agents: Sequence[tuple[str, Any]], matches: int, cfg: E.GameConfig,
                   seed: int = 0, workers: int | None = None, bluff: bool = False,
                   progress: bool = True) -> dict[str, Any]:
    """Every pair of ``agents`` (``(label, spec)``) over ``matches`` duplicate pairs.

    Returns ``{"pairs": [...], "ratings": [...], "bluff": {...} | None, ...}`` (see
    :func:`write_tournament`).  ``workers`` processes share the chunks (default: every core).
    """
    labels = [a[0] for a in agents]
    specs = [a[1] for a in agents]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agent labels must be distinct: {labels}")
    if len(agents) < 2:
        raise ValueError("a tournament needs at least two agents")
    cfg.ruleset()  # validate before spawning
    for lab, spec in agents:
        E.load_agent(spec, 0)  # fail fast on a bad spec
    workers = workers or E.cpu_count()
    pairs = list(itertools.combinations(range(len(agents)), 2))
    gid_span = 2 * matches + 2
    tasks = [(p, i, j, specs[i], specs[j], lo, hi, cfg, seed, bluff, gid_span)
             for p, (i, j) in enumerate(pairs) for lo, hi in _chunks(matches, workers)]
    out: dict[int, list] = {p: [] for p in range(len(pairs))}
    ev_parts, hand_parts = [], []
    t0 = time.time()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(pairs) * matches, unit="pair", desc="duplicate pairs",
                   dynamic_ncols=True, file=sys.stderr)

    def collect(r):
        p_idx, lo, res, tables = r
        out[p_idx].append((lo, res))
        if tables is not None:
            ev_parts.append(tables[0])
            hand_parts.append(tables[1])
        if bar is not None:
            bar.update(len(res["match"]) // 2)

    if workers <= 1 or len(tasks) == 1:
        for t in tasks:
            collect(_task(t))
    else:
        import multiprocessing as mp
        ctx = mp.get_context("spawn")
        with ctx.Pool(min(workers, len(tasks)), initializer=_worker_init) as pool:
            for r in pool.imap_unordered(_task, tasks):
                collect(r)
    if bar is not None:
        bar.close()
    seconds = time.time() - t0

    K = len(agents)
    wins = np.zeros((K, K))
    pair_wins: dict[tuple[int, int], np.ndarray] = {}
    pair_rows = []
    for p, (i, j) in enumerate(pairs):
        parts = [r for _, r in sorted(out[p], key=lambda x: x[0])]
        res = {k: np.concatenate([r[k] for r in parts]) for k in parts[0]}
        sm = E.summarize_pair(res)
        pw = res["a_won"].reshape(-1, 2).sum(axis=1)
        pair_wins[(i, j)] = pw
        wins[i, j] += pw.sum()
        wins[j, i] += 2 * len(pw) - pw.sum()
        pair_rows.append({"a": labels[i], "b": labels[j], **sm})
    ratings = E.bradley_terry(wins)
    boot = E.bootstrap_ratings(pair_wins, K, reps=1000, seed=seed)
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    games = wins + wins.T
    rating_rows = [{"agent": labels[k], "spec": str(specs[k]), "elo": float(ratings[k]),
                    "elo_lo": float(lo[k]), "elo_hi": float(hi[k]),
                    "matches": int(games[k].sum()), "wins": int(wins[k].sum())}
                   for k in range(K)]
    rating_rows.sort(key=lambda r: -r["elo"])
    result = {"config": {"players": cfg.players, "rules": cfg.rules,
                         "target": cfg.ruleset().target, "flor": cfg.ruleset().flor,
                         "matches_per_pair": matches, "seed": seed, "workers": workers},
              "agents": [{"label": lab, "spec": str(s)} for lab, s in agents],
              "pairs": pair_rows, "ratings": rating_rows, "seconds": round(seconds, 2),
              "win_matrix": wins.tolist(), "bluff": None}
    if bluff:
        ev = E.concat_tables(ev_parts, E.EVENT_FIELDS)
        hands = E.concat_tables(hand_parts, E.HAND_FIELDS)
        result["bluff"] = E.bluff_analytics(ev, hands, labels)
    return result


# ============================================================================ output helpers
def out_dir(path: str | None, kind: str = "eval") -> Path:
    if path:
        p = Path(path)
    else:
        p = Path("outputs") / f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}"
        base, i = p, 1
        while p.exists():
            p = base.with_name(f"{base.name}-{i}")
            i += 1
    p.mkdir(parents=True, exist_ok=True)
    return p


def _clean(x: Any) -> Any:
    """JSON-safe: NaN and infinities become None, numpy scalars Python numbers."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return _clean(x.tolist())
    if isinstance(x, (np.floating, float)):
        return None if not math.isfinite(float(x)) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(_clean(data), indent=2) + "\n")


def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        path.write_text("")
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _pct(x: float) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _num(x: float, d: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f"{x:.{d}f}"


# ============================================================================ tournament report
METHOD_NOTES = """\
**Method.** Duplicate format: each deal sequence (seeded) is played twice with the teams
swapped, so both agents hold the same cards in turn and the luck of the deal cancels.  Win rate:
the unit is the duplicate pair (score 0, 1/2 or 1); 95% Wilson score interval at the pairs'
effective sample size (n_eff = n p(1-p)/s^2 over pair scores; independent matches would give
2n).  Points per hand: net points (A minus B) per hand of each pair, mean +- t * sd / sqrt(n).
Ratings: Bradley-Terry on every match (one virtual draw per pairing), Elo scale (mean 1500),
95% percentile bootstrap over duplicate pairs (1000 refits)."""


def tournament_markdown(res: dict) -> str:
    c = res["config"]
    lines = [f"# Tournament: {', '.join(a['label'] for a in res['agents'])}", "",
             f"{c['players']} players, {c['rules']}, match to {c['target']}"
             f"{', with flor' if c['flor'] else ''}; {c['matches_per_pair']} duplicate pairs "
             f"({2 * c['matches_per_pair']} matches) per pairing; seed {c['seed']}; "
             f"{res['seconds']} s on {c['workers']} worker(s).", "",
             "## Pairings", "",
             "| A | B | matches | A win rate | 95% CI | A net points/hand | 95% CI | "
             "A pts/hand | B pts/hand | hands/match |",
             "|---|---|---:|---:|---|---:|---|---:|---:|---:|"]
    for p in res["pairs"]:
        lines.append(f"| {p['a']} | {p['b']} | {p['matches']} | {_pct(p['win_rate'])} | "
                     f"{_pct(p['win_lo'])} – {_pct(p['win_hi'])} | {_num(p['net_per_hand'])} | "
                     f"{_num(p['net_lo'])} – {_num(p['net_hi'])} | {_num(p['pts_per_hand_a'])} |"
                     f" {_num(p['pts_per_hand_b'])} | {_num(p['hands_per_match'], 1)} |")
    lines += ["", "## Ratings", "", "| rank | agent | Elo | 95% CI | matches | wins |",
              "|---:|---|---:|---|---:|---:|"]
    for k, r in enumerate(res["ratings"], 1):
        lines.append(f"| {k} | {r['agent']} | {r['elo']:.0f} | {r['elo_lo']:.0f} – "
                     f"{r['elo_hi']:.0f} | {r['matches']} | {r['wins']} |")
    lines += ["", METHOD_NOTES, "", "Plots: `win_matrix.png`, `ratings.png`, "
              "`points_per_hand.png`."]
    if res.get("bluff"):
        lines += ["", bluff_markdown(res["bluff"], level=2)]
    return "\n".join(lines) + "\n"


def plot_tournament(res: dict, folder: Path) -> list[str]:
    plt = _plt()
    labels = [a["label"] for a in res["agents"]]
    K = len(labels)
    W = np.array(res["win_matrix"])
    G = W + W.T
    rate = np.where(G > 0, W / np.maximum(G, 1), np.nan)
    files = []
    fig, ax = plt.subplots(figsize=(1.2 * K + 3, 1.0 * K + 2.5))
    im = ax.imshow(rate, vmin=0, vmax=1, cmap="RdBu")
    for i in range(K):
        for j in range(K):
            if not np.isnan(rate[i, j]):
                ax.text(j, i, f"{rate[i, j]:.0%}", ha="center", va="center",
                        color="white" if abs(rate[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(K), labels, rotation=30, ha="right")
    ax.set_yticks(range(K), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("Match win rate of the row agent against the column agent")
    fig.colorbar(im, ax=ax, label="win rate")
    fig.tight_layout()
    fig.savefig(folder / "win_matrix.png", dpi=110)
    plt.close(fig)
    files.append("win_matrix.png")

    rt = res["ratings"]
    _interval_chart(plt, folder / "ratings.png", [r["agent"] for r in rt],
                    [r["elo"] for r in rt], [r["elo_lo"] for r in rt], [r["elo_hi"] for r in rt],
                    ref=E.ELO_MEAN, marker="o", color="tab:blue",
                    label="Elo (Bradley-Terry) with 95% bootstrap interval",
                    xlabel="Elo rating (mean 1500)", title="Ratings fitted on every match")
    files.append("ratings.png")

    pr = res["pairs"]
    _interval_chart(plt, folder / "points_per_hand.png", [f"{p['a']} vs {p['b']}" for p in pr],
                    [p["net_per_hand"] for p in pr], [p["net_lo"] for p in pr],
                    [p["net_hi"] for p in pr], ref=0.0, marker="s", color="tab:green",
                    label="A's net points per hand, 95% CI",
                    xlabel="points per hand won by A minus points won by B",
                    title="Net points per hand (duplicate pairs)")
    files.append("points_per_hand.png")
    return files


def _interval_chart(plt, path: Path, names: Sequence[str], value, lo, hi, *, ref: float,
                    marker: str, color: str, label: str, xlabel: str, title: str) -> None:
    """One row per item: a point with its 95% interval, and a reference line."""
    value, lo, hi = (np.asarray(x, dtype=float) for x in (value, lo, hi))
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(names) + 2))
    y = np.arange(len(names))[::-1]
    err = np.nan_to_num(np.maximum(np.stack([value - lo, hi - value]), 0))
    ax.errorbar(value, y, xerr=err, fmt=marker, capsize=4, color=color, label=label)
    ax.axvline(ref, color="grey", lw=0.8, ls=":")
    ax.set_yticks(y, list(names))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_tournament(res: dict, folder: Path) -> str:
    files = plot_tournament(res, folder)
    write_csv(folder / "pairs.csv", res["pairs"])
    write_csv(folder / "ratings.csv", res["ratings"])
    if res.get("bluff"):
        files += plot_bluff(res["bluff"], folder)
        write_csv(folder / "bluff.csv", bluff_rows(res["bluff"]))
    res["files"] = files
    write_json(folder / "results.json", res)
    md = tournament_markdown(res)
    (folder / "report.md").write_text(md)
    return md


# ============================================================================ bluff report
_BLUFF_COLUMNS = (
    ("truco call rate", lambda d: d["calls"]["truco"]["overall"]),
    ("envido call rate", lambda d: d["calls"]["envido"]["overall"]),
    ("truco bluff share", lambda d: d["bluff"]["truco_share"]),
    ("truco bluff frequency", lambda d: d["bluff"]["truco_frequency"]),
    ("envido bluff share", lambda d: d["bluff"]["envido_share"]),
    ("fold to truco bluff", lambda d: d["bluff"]["fold_truco_bluff"]),
    ("fold to honest truco", lambda d: d["bluff"]["fold_truco_honest"]),
    ("fold to envido bluff", lambda d: d["bluff"]["fold_envido_bluff"]),
    ("fold to honest envido", lambda d: d["bluff"]["fold_envido_honest"]),
    ("truco slow play", lambda d: d["slow_play"]["truco"]),
    ("envido slow play", lambda d: d["slow_play"]["envido"]),
)


def bluff_rows(b: dict) -> list[dict]:
    rows = []
    for name, d in b["agents"].items():
        row: dict[str, Any] = {"agent": name, "decisions": d["decisions"]}
        for col, get in _BLUFF_COLUMNS:
            r = get(d)
            key = col.replace(" ", "_")
            row[key], row[key + "_lo"], row[key + "_hi"], row[key + "_n"] = \
                r["rate"], r["lo"], r["hi"], r["n"]
        for k in ("points_truco_bluff", "points_truco_honest", "points_envido_bluff",
                  "points_envido_honest"):
            r = d["bluff"][k]
            row[k], row[k + "_lo"], row[k + "_hi"], row[k + "_n"] = r["mean"], r["lo"], r["hi"], \
                r["n"]
        for lvl in E.TRUCO_NAMES + ("envido",):
            a = d["answers"][lvl]["accept"]
            row[f"accepts_{lvl}"], row[f"accepts_{lvl}_n"] = a["rate"], a["n"]
        rows.append(row)
    return rows


def bluff_markdown(b: dict, level: int = 1) -> str:
    h = "#" * level
    defs = b["definitions"]
    lines = [f"{h} Bluff analytics", "",
             f"*Hand strength* = probability that the dealt hand wins the hand against a random "
             f"hand (cards paired best-vs-best, exact enumeration; see truco_env.evaluation). "
             f"A *truco bluff* is a truco, retruco or vale cuatro call or raise with a hand in the "
             f"bottom third of dealt hands (strength percentile < 1/3); an *envido bluff* an "
             f"envido, real or falta envido with <= {defs['envido_low']} points (bottom third). "
             f"*Bluff share* = bluffs / all such calls; *bluff frequency* = truco calls / "
             f"chances to call with a bottom-third hand. *Fold* = the answer was no quiero (or "
             f"mazo). *Slow play* = share of hands in the top third (strength percentile >= 2/3, "
             f"or >= {defs['envido_high']} envido points) with a chance to call where the agent "
             f"never called. Points per call = net points of the hand for the caller's team. "
             f"Rates with 95% Wilson intervals.", ""]
    lines += ["| agent | " + " | ".join(c for c, _ in _BLUFF_COLUMNS) + " |",
              "|---|" + "---:|" * len(_BLUFF_COLUMNS)]
    for name, d in b["agents"].items():
        cells = []
        for _, get in _BLUFF_COLUMNS:
            r = get(d)
            cells.append(f"{_pct(r['rate'])} [{_pct(r['lo'])}, {_pct(r['hi'])}] (n={r['n']})"
                         if r["n"] else "n/a")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| agent | points per truco bluff | per honest truco call | "
              "per envido bluff | per honest envido call |", "|---|---:|---:|---:|---:|"]
    for name, d in b["agents"].items():
        cells = []
        for k in ("points_truco_bluff", "points_truco_honest", "points_envido_bluff",
                  "points_envido_honest"):
            r = d["bluff"][k]
            cells.append(f"{_num(r['mean'])} [{_num(r['lo'])}, {_num(r['hi'])}] (n={r['n']})"
                         if r["n"] else "n/a")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| agent | accepts truco | accepts retruco | accepts vale cuatro | "
              "accepts envido |", "|---|---:|---:|---:|---:|"]
    for name, d in b["agents"].items():
        cells = [f"{_pct(d['answers'][k]['accept']['rate'])} (n={d['answers'][k]['accept']['n']})"
                 for k in E.TRUCO_NAMES + ("envido",)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Plots: " + ", ".join(f"`{f}`" for f in BLUFF_PLOTS) + "."]
    return "\n".join(lines)


BLUFF_PLOTS = ("bluff_truco_calls_by_strength.png", "bluff_truco_answers_by_strength.png",
               "bluff_envido_calls_by_points.png", "bluff_envido_answers_by_points.png",
               "bluff_truco_calls_by_baza.png", "bluff_truco_calls_by_position.png",
               "bluff_envido_calls_by_position.png", "bluff_rates.png", "bluff_payoff.png",
               "bluff_slow_play.png")
MIN_BIN = 5   # bins with fewer decisions are not drawn


def _curve(ax, bins, data, label, color, ls="-"):
    x = (np.asarray(bins[:-1]) + np.asarray(bins[1:])) / 2
    n = np.asarray(data["n"], dtype=float)
    p = np.where(n >= MIN_BIN, np.asarray(data["rate"], dtype=float), np.nan)
    lo = np.where(n >= MIN_BIN, np.asarray(data["lo"], dtype=float), np.nan)
    hi = np.where(n >= MIN_BIN, np.asarray(data["hi"], dtype=float), np.nan)
    ax.plot(x, p, marker="o", ms=3, ls=ls, color=color, label=label)
    ax.fill_between(x, lo, hi, color=color, alpha=0.18, lw=0)


def plot_bluff(b: dict, folder: Path) -> list[str]:
    plt = _plt()
    names = list(b["agents"])
    colors = {n: plt.cm.tab10(i % 10) for i, n in enumerate(names)}
    sb = np.array(b["definitions"]["strength_bins"])
    eb = np.array(b["definitions"]["envido_bins"])
    xs = "hand strength: P(win the hand vs a random hand)"
    xe = "envido points of the hand"

    def panels(fname, title, keys, getter, bins, xlabel, ylabel, extra=None):
        fig, axes = plt.subplots(1, len(keys), figsize=(max(4.6 * len(keys), 8.0), 4.4),
                                 squeeze=False)
        for ax, (key, sub) in zip(axes[0], keys):
            for n in names:
                for data, lab, ls in getter(b["agents"][n], key):
                    if data is not None:
                        _curve(ax, bins, data, f"{n}{lab}", colors[n], ls)
            ax.set_title(sub)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(alpha=0.3)
            if extra:
                extra(ax)
            ax.legend(fontsize=7, loc="best")
        fig.suptitle(title + " (bands: 95% Wilson)")
        fig.tight_layout()
        fig.savefig(folder / fname, dpi=100)
        plt.close(fig)

    panels(BLUFF_PLOTS[0], "How often each agent calls, by hand strength",
           [(k, f"calls {k.replace('_', ' ')} when it may") for k in E.TRUCO_NAMES],
           lambda d, k: [(d["calls"][k]["by_strength"], "", "-")], sb, xs, "call rate")
    panels(BLUFF_PLOTS[1], "How each agent answers a call, by hand strength",
           [(k, f"answering {k.replace('_', ' ')}") for k in E.TRUCO_NAMES],
           lambda d, k: [(d["answers"][k]["accept_by_strength"], ": accepts (quiero or raise)",
                          "-"), (d["answers"][k]["raise_by_strength"], ": raises", "--")],
           sb, xs, "share of answers")
    panels(BLUFF_PLOTS[2], "How often each agent sings envido, by envido points",
           [("envido", "envido, real or falta envido when it may")],
           lambda d, k: [(d["calls"]["envido"]["by_points"], "", "-")], eb, xe, "call rate")
    panels(BLUFF_PLOTS[3], "How each agent answers an envido, by envido points",
           [("envido", "answering an envido")],
           lambda d, k: [(d["answers"]["envido"]["accept_by_points"], ": accepts or raises", "-"),
                         (d["answers"]["envido"]["raise_by_points"], ": raises", "--")],
           eb, xe, "share of answers")
    panels(BLUFF_PLOTS[4], "Truco-ladder calls by baza and hand strength",
           [(str(k), f"baza {k}") for k in (1, 2, 3)],
           lambda d, k: [(d["truco_by_baza"][k], "", "-")], sb, xs, "call rate")
    pos = [p for p in ("mano", "pie", "middle")
           if any(p in d["truco_by_position"] for d in b["agents"].values())]
    panels(BLUFF_PLOTS[5], "Truco-ladder calls by position and hand strength",
           [(p, f"as {p}") for p in pos],
           lambda d, k: [(d["truco_by_position"].get(k), "", "-")], sb, xs, "call rate")
    pos_e = [p for p in ("mano", "pie", "middle")
             if any(p in d["envido_by_position"] for d in b["agents"].values())] or ["mano"]
    panels(BLUFF_PLOTS[6], "Envido calls by position and envido points",
           [(p, f"as {p}") for p in pos_e],
           lambda d, k: [(d["envido_by_position"].get(k), "", "-")], eb, xe, "call rate")

    # bluff rates and slow play: grouped bars with intervals
    metrics = [("truco bluff share", lambda d: d["bluff"]["truco_share"]),
               ("truco bluff frequency", lambda d: d["bluff"]["truco_frequency"]),
               ("envido bluff share", lambda d: d["bluff"]["envido_share"]),
               ("truco slow play", lambda d: d["slow_play"]["truco"]),
               ("envido slow play", lambda d: d["slow_play"]["envido"])]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    w = 0.8 / max(len(names), 1)
    for i, n in enumerate(names):
        vals = [g(b["agents"][n]) for _, g in metrics]
        p = np.array([v["rate"] for v in vals], dtype=float)
        err = np.array([[v["rate"] - v["lo"] for v in vals], [v["hi"] - v["rate"] for v in vals]],
                       dtype=float)
        ax.bar(np.arange(len(metrics)) + i * w, np.nan_to_num(p), w, color=colors[n], label=n,
               yerr=np.nan_to_num(np.maximum(err, 0)), capsize=3)
    ax.set_xticks(np.arange(len(metrics)) + w * (len(names) - 1) / 2, [m for m, _ in metrics],
                  rotation=15)
    ax.set_ylabel("rate")
    ax.set_ylim(0, 1)
    ax.set_title("Bluff rates (bottom-third hands) and slow play (top-third hands), 95% CI")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / BLUFF_PLOTS[7], dpi=100)
    plt.close(fig)

    # payoff: fold rate and points per call, bluff vs honest
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    groups = [("truco bluff", "fold_truco_bluff", "points_truco_bluff"),
              ("honest truco", "fold_truco_honest", "points_truco_honest"),
              ("envido bluff", "fold_envido_bluff", "points_envido_bluff"),
              ("honest envido", "fold_envido_honest", "points_envido_honest")]
    for i, n in enumerate(names):
        d = b["agents"][n]["bluff"]
        for ax, key, stat in ((axes[0], 1, "rate"), (axes[1], 2, "mean")):
            vals = [d[g[key]] for g in groups]
            p = np.array([v[stat] for v in vals], dtype=float)
            err = np.array([[v[stat] - v["lo"] for v in vals], [v["hi"] - v[stat] for v in vals]],
                           dtype=float)
            ax.bar(np.arange(len(groups)) + i * w, np.nan_to_num(p), w, color=colors[n], label=n,
                   yerr=np.nan_to_num(np.clip(err, 0, 50)), capsize=3)
    for ax, yl, t in ((axes[0], "share of calls answered no quiero / mazo",
                       "How often the opponent folds"),
                      (axes[1], "net points of the hand for the caller",
                       "Points won per call")):
        ax.set_xticks(np.arange(len(groups)) + w * (len(names) - 1) / 2, [g[0] for g in groups],
                      rotation=15)
        ax.set_ylabel(yl)
        ax.set_title(t)
        ax.axhline(0, color="grey", lw=0.8)
        ax.legend(fontsize=8)
    axes[0].set_ylim(0, 1)
    fig.suptitle("Do bluffs pay? Bluffs against honest calls (95% CI)")
    fig.tight_layout()
    fig.savefig(folder / BLUFF_PLOTS[8], dpi=100)
    plt.close(fig)

    def shade(ax):
        ax.axvspan(sb[-1] * 2 / 3, 1.0, color="orange", alpha=0.08,
                   label="about the top third (slow play = 1 - curve)")

    panels(BLUFF_PLOTS[9], "Slow play: does the agent call at all with its hand?",
           [("truco", "hands with a chance to call truco")],
           lambda d, k: [(d["slow_play"]["truco_by_strength"], ": calls at least once", "-")],
           sb, xs, "share of hands with a call", extra=shade)
    return list(BLUFF_PLOTS)


def write_bluff(b: dict, folder: Path, header: str) -> str:
    files = plot_bluff(b, folder)
    write_csv(folder / "bluff.csv", bluff_rows(b))
    write_json(folder / "bluff.json", {**b, "files": files})
    md = header + "\n\n" + bluff_markdown(b) + "\n"
    (folder / "report.md").write_text(md)
    return md


def load_records(paths: Sequence[str]) -> list[dict]:
    """Match records from JSON files (a record or a list of records), JSON lines or folders."""
    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.json")) +
                            glob.glob(os.path.join(p, "*.jsonl")))
        else:
            files += sorted(glob.glob(p)) or [p]
    out: list[dict] = []
    for f in files:
        text = Path(f).read_text()
        try:
            data = json.loads(text)
            out += data if isinstance(data, list) else [data]
        except json.JSONDecodeError:
            out += [json.loads(line) for line in text.splitlines() if line.strip()]
    if not out:
        raise ValueError(f"no match records found in {list(paths)}")
    return out


# ============================================================================ exploit report
def exploit_curve(metrics_csv: Path, eval_games: int) -> list[dict]:
    """The best response's learning curve from its training run's ``metrics.csv``."""
    curve = []
    with open(metrics_csv, newline="") as f:
        for row in csv.DictReader(f):
            point = {"seconds": float(row["time"]), "steps": int(row["global_step"]),
                     "train_win_rate": _float(row.get("charts/train_win_rate_opponent")),
                     "eval": bool(row.get("eval/win_rate_opponent"))}
            if point["eval"]:
                wr = float(row["eval/win_rate_opponent"])
                lo, hi = E.wilson(wr, eval_games)
                point.update(win_rate=wr, win_lo=lo, win_hi=hi)
            curve.append(point)
    return curve


def _float(x: str | None) -> float:
    try:
        return float(x) if x not in (None, "") else float("nan")
    except ValueError:
        return float("nan")


def write_exploit(spec: str, curve: list[dict], run: dict, final: dict, folder: Path,
                  budget: float) -> str:
    plt = _plt()
    p = final["pairs"][0]
    evals = [c for c in curve if c["eval"]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    if evals:
        t = [c["seconds"] for c in evals]
        axes[0].plot(t, [c["win_rate"] for c in evals], "o-", color="tab:red",
                     label="best response win rate (periodic eval)")
        axes[0].fill_between(t, [c["win_lo"] for c in evals], [c["win_hi"] for c in evals],
                             color="tab:red", alpha=0.2, lw=0, label="95% Wilson band")
    axes[0].axhline(0.5, color="grey", ls=":", lw=1, label="0.5: not exploitable")
    axes[0].set_ylim(0, 1)
    axes[0].set_xlabel("training time (s)")
    axes[0].set_ylabel("match win rate against the frozen agent")
    axes[0].set_title("Best-response learning curve")
    axes[0].legend(fontsize=8)
    axes[1].plot([c["steps"] for c in curve], [c["train_win_rate"] for c in curve],
                 color="tab:purple", lw=1, label="learner win rate in training matches")
    axes[1].axhline(0.5, color="grey", ls=":", lw=1)
    axes[1].set_ylim(0, 1)
    axes[1].set_xlabel("environment steps")
    axes[1].set_ylabel("match win rate")
    axes[1].set_title("Training matches")
    axes[1].legend(fontsize=8)
    fig.suptitle(f"Exploitability probe of {spec} (lower is better for {spec})")
    fig.tight_layout()
    fig.savefig(folder / "learning_curve.png", dpi=100)
    plt.close(fig)
    write_csv(folder / "curve.csv", [{k: c.get(k) for k in ("seconds", "steps", "eval", "win_rate",
                                                           "win_lo", "win_hi", "train_win_rate")}
                                     for c in curve])
    write_csv(folder / "final.csv", final["pairs"])
    data = {"agent": spec, "config": final["config"], "budget_s": budget,
            "train_seconds": run["train_seconds"], "train_steps": run["global_step"],
            "best_response_win_rate": p["win_rate"], "win_lo": p["win_lo"], "win_hi": p["win_hi"],
            "best_response_net_points_per_hand": p["net_per_hand"], "net_lo": p["net_lo"],
            "net_hi": p["net_hi"], "final": final["pairs"], "curve": curve,
            "best_response": run["checkpoint"],
            "files": ["learning_curve.png", "curve.csv", "final.csv", "best_response/"]}
    write_json(folder / "results.json", data)
    c = final["config"]
    md = "\n".join([
        f"# Exploitability probe: {spec}", "",
        f"A fresh PPO best response was trained for {run['train_seconds']:.0f} s "
        f"({run['global_step']:,} environment steps) against the frozen agent, then played "
        f"{p['matches']} duplicate matches against it ({c['players']} players, {c['rules']}, "
        f"match to {c['target']}).", "",
        "| measure | best response | 95% CI |", "|---|---:|---|",
        f"| match win rate | {_pct(p['win_rate'])} | {_pct(p['win_lo'])} – {_pct(p['win_hi'])} |",
        f"| net points per hand | {_num(p['net_per_hand'])} | {_num(p['net_lo'])} – "
        f"{_num(p['net_hi'])} |", "",
        f"**Approximate exploitability** (Timbers et al. 2020): how much a best response "
        f"trained against {spec} gains from it.  Lower is better for {spec}: a win rate near "
        f"50% and net points near 0 mean the probe found nothing to exploit in this budget.  It "
        f"is a lower bound on the true exploitability (the learner is not an exact best "
        f"response) and depends on the budget.", "",
        "Learning curve: `learning_curve.png` (`curve.csv`); the best response is the training "
        f"run `best_response/` (usable as `checkpoint:{run['checkpoint']}`).", "",
        "The trainer is train.py's PPO with `opponent` set to the frozen agent, "
        "`opponent_weight=1` and no self-play (the learner plays every seat of one team)."])
    (folder / "report.md").write_text(md + "\n")
    return md + "\n"


# ============================================================================ command line
def _game_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--players", type=int, default=2, choices=(2, 4, 6))
    ap.add_argument("--rules", default="argentino", choices=("argentino", "trucoshi", "uruguayo"))
    ap.add_argument("--target", type=int, default=None, help="points to win (preset default)")
    ap.add_argument("--flor", action=argparse.BooleanOptionalAction, default=None,
                    help="play with flor (preset default)")


def _run_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--matches", type=int, default=200,
                    help="duplicate pairs per pairing (each is two matches)")
    ap.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    ap.add_argument("--out", default=None, help="output folder (default outputs/eval-<time>/)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")


def _cfg(args) -> E.GameConfig:
    return E.GameConfig(players=args.players, rules=args.rules, target=args.target,
                        flor=args.flor)


def _labels(specs: Sequence[str]) -> list[tuple[str, str]]:
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append((s if seen[s] == 1 else f"{s}#{seen[s]}", s))
    return out


def cmd_tournament(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py", description="Duplicate round-robin "
                                 "tournament of agent specs (agents.load): every pair plays "
                                 "--matches duplicate pairs.")
    ap.add_argument("specs", nargs="+", help="agent specs, e.g. heuristic random "
                                             "checkpoint:runs/default")
    _run_args(ap)
    _game_args(ap)
    ap.add_argument("--bluff", action="store_true", help="add the bluff analytics to the report")
    args = ap.parse_args(argv)
    res = run_tournament(_labels(args.specs), args.matches, _cfg(args), seed=args.seed,
                         workers=args.workers, bluff=args.bluff, progress=not args.no_progress)
    folder = out_dir(args.out)
    print(write_tournament(res, folder))
    print(folder)
    return 0


def cmd_bluff(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py bluff", description="Bluff analytics of an "
                                 "agent from played matches, or of match records.")
    ap.add_argument("spec", nargs="?", help="agent spec (omit with --records)")
    ap.add_argument("--vs", default=None, help="opponent spec (default: the agent itself)")
    ap.add_argument("--records", nargs="+", help="match record files (JSON, JSON lines) or "
                                                 "folders, instead of playing")
    _run_args(ap)
    _game_args(ap)
    args = ap.parse_args(argv)
    folder = out_dir(args.out, "bluff")
    if args.records:
        recs = load_records(args.records)
        names = sorted({a for r in recs for a in r.get("agents", [])}) or ["team 0", "team 1"]

        def agent_of(rec: dict, seat: int) -> int:
            ag = rec.get("agents")
            return names.index(ag[seat]) if ag else seat % 2

        log = E.events_from_records(recs, agent_of=agent_of)
        ev, hands = log.tables()
        b = E.bluff_analytics(ev, hands, names)
        header = f"# Bluff analytics from {len(recs)} match records"
    else:
        if not args.spec:
            ap.error("give an agent spec or --records")
        vs = args.vs or args.spec
        agents = [(args.spec, args.spec)] + ([(vs, vs)] if vs != args.spec else [])
        if len(agents) == 1:  # self-play: one label for both teams
            res = _self_play_bluff(args)
            b = res
        else:
            res = run_tournament(agents, args.matches, _cfg(args), seed=args.seed,
                                 workers=args.workers, bluff=True,
                                 progress=not args.no_progress)
            b = res["bluff"]
        header = (f"# Bluff analytics: {args.spec} vs {vs}\n\n{args.matches} duplicate pairs, "
                  f"{args.players} players, {args.rules}, seed {args.seed}.")
    print(write_bluff(b, folder, header))
    print(folder)
    return 0


def _self_play_bluff(args) -> dict:
    """An agent against itself: both teams count as the same agent."""
    cfg = _cfg(args)
    log = E.EventLog()
    chunks = _chunks(args.matches, 1)
    from tqdm import tqdm
    for lo, hi in tqdm(chunks, disable=args.no_progress, desc="self-play", file=sys.stderr):
        E.play_duplicate(E.load_agent(args.spec, args.seed * 7919 + lo),
                         E.load_agent(args.spec, args.seed * 7919 + lo + 1), range(lo, hi), cfg,
                         args.seed, log=log, agent_ids=(0, 0))
    ev, hands = log.tables()
    return E.bluff_analytics(ev, hands, [args.spec])


def cmd_probe(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py probe", description="An agent's action "
                                 "probabilities in a situation (player_0 holds --hand).")
    ap.add_argument("spec")
    ap.add_argument("--hand", required=True, help='three cards, e.g. "1e 7o 3b"')
    ap.add_argument("--score", default=None, help="score as MINE,THEIRS, e.g. 20,10")
    ap.add_argument("--mano", type=int, default=0, help="seat of the mano (0 = the probed agent)")
    ap.add_argument("--muestra", default=None, help="muestra card (uruguayo)")
    ap.add_argument("--played", default="", help="cards played before, in order, by whoever "
                                                 "is to play (others' cards are dealt to them)")
    ap.add_argument("--calls", default="", help="songs and answers after the cards, in order, "
                                                "e.g. 'truco' or 'envido quiero'")
    ap.add_argument("--actions", default="", help="the general form: cards and action names in "
                                                  "order (after --played and --calls)")
    ap.add_argument("--samples", type=int, default=2000, help="decisions sampled when the agent "
                                                              "has no action_probs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="also write probe.json there")
    _game_args(ap)
    args = ap.parse_args(argv)
    score = tuple(int(x) for x in args.score.split(",")) if args.score else None
    sit = E.ProbeSituation(hand=args.hand.split(), players=args.players, rules=args.rules,
                           target=args.target, flor=args.flor, mano=args.mano, score=score,
                           muestra=args.muestra, seed=args.seed,
                           actions=(args.played.split() + args.calls.split()
                                    + args.actions.split()))
    e = E.setup_probe(sit)
    raw = e.unwrapped
    obs = e.observe("player_0")
    view = raw.view("player_0")
    agent = E.load_agent(args.spec, args.seed)
    probs, how = E.action_probs(agent, obs, view, samples=args.samples, seed=args.seed)
    strength, pct = E.hand_strength(args.hand, args.muestra)
    from truco_env.rules import ACTIONS
    lines = [f"# Probe: {args.spec}", "", "```", _situation_text(raw), "```", "",
             f"Hand strength {strength:.3f} (percentile {pct:.0%}), envido "
             f"{view['my_envido']}. Probabilities: {how}.", "",
             "| action | probability | |", "|---|---:|---|"]
    legal = np.asarray(obs["action_mask"]).astype(bool)
    rows = []
    for a in np.flatnonzero(legal):
        name = ACTIONS[a]
        if a <= 2 and view["hand"][a]:
            name += f" ({view['hand'][a]})"
        half = ""
        if how.startswith("sampled"):
            lo, hi = E.wilson(probs[a], args.samples)
            half = f" [{lo:.3f}, {hi:.3f}]"
        lines.append(f"| {name} | {probs[a]:.3f}{half} | {'#' * int(round(40 * probs[a]))} |")
        rows.append({"action": ACTIONS[a], "probability": float(probs[a])})
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        folder = out_dir(args.out)
        write_json(folder / "probe.json", {"spec": args.spec, "situation": vars(sit),
                                           "method": how, "probs": rows, "view": view})
        (folder / "report.md").write_text(text)
        print(folder)
    return 0


def _situation_text(raw) -> str:
    from truco_env.env import decode_view
    v = decode_view(raw.game, 0, 0)
    lines = [f"player_0 (probed) hand: {' '.join(c or '--' for c in v['hand'])}; mano "
             f"player_{v['mano']}; score {v['score'][0]}-{v['score'][1]} (to {v['target']})"
             + (f"; muestra {v['muestra']}" if v["muestra"] else "")]
    for b, row in enumerate(v["table"]):
        lines.append(f"baza {b + 1}: " + ", ".join(f"player_{p} {c}" for p, c in row))
    if v["calls"]:
        lines.append("calls: " + ", ".join(f"player_{p} {a}" for p, a in v["calls"]))
    if v["pending"]:
        lines.append(f"pending: {v['pending']} (player_0 answers)")
    return "\n".join(lines)


def cmd_exploit(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="evaluate.py exploit", description="Approximate "
                                 "exploitability: train a PPO best response against a frozen "
                                 "agent and measure it (Timbers et al. 2020).")
    ap.add_argument("spec")
    ap.add_argument("--budget", default="20m", help="training time, e.g. 20m, 90s, 1h")
    ap.add_argument("--eval-matches", type=int, default=500,
                    help="duplicate pairs of the final measurement")
    ap.add_argument("--num-envs", type=int, default=256)
    ap.add_argument("--num-steps", type=int, default=32)
    ap.add_argument("--eval-every", type=int, default=5,
                    help="training iterations between learning-curve evaluations")
    ap.add_argument("--eval-games", type=int, default=128,
                    help="matches per learning-curve evaluation")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="more train.py config overrides for the best response")
    _run_args(ap)
    _game_args(ap)
    args = ap.parse_args(argv)
    budget = E.parse_budget(args.budget)
    cfg = _cfg(args)
    cfg.ruleset()
    E.load_agent(args.spec, 0)
    folder = out_dir(args.out, "exploit")
    try:
        import train
    except ImportError as exc:
        print(f"error: the exploit probe needs train.py and torch ({exc})", file=sys.stderr)
        return 2
    values = {"run_name": "best_response", "runs_dir": str(folder), "seed": args.seed,
              "players": cfg.players, "rules": cfg.rules, "target": cfg.target, "flor": cfg.flor,
              "total_steps": 10**12, "time_budget": budget, "num_envs": args.num_envs,
              "num_steps": args.num_steps, "self_play_frac": 0.0, "pool_weight": 0.0,
              "heuristic_weight": 0.0, "random_weight": 0.0, "opponent": args.spec,
              "opponent_weight": 1.0, "eval_every": args.eval_every,
              "eval_games": args.eval_games, "final_eval_games": 0,
              "progress": not args.no_progress, "tensorboard": False}
    if args.workers:
        values["threads"] = args.workers
    values.update(train.parse_overrides(args.set))
    run_dir = train.train(train.make_config(values))
    run = json.loads((run_dir / "summary.json").read_text())
    curve = exploit_curve(run_dir / "metrics.csv", args.eval_games)
    final = run_tournament([("best_response", f"checkpoint:{run['checkpoint']}"),
                            (args.spec, args.spec)],
                           args.eval_matches, cfg, seed=args.seed + 99, workers=args.workers,
                           progress=not args.no_progress)
    print(write_exploit(args.spec, curve, run, final, folder, budget))
    print(folder)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            return {"bluff": cmd_bluff, "probe": cmd_probe, "exploit": cmd_exploit}[argv[0]](
                argv[1:])
        if argv and argv[0] == "tournament":
            argv = argv[1:]
        return cmd_tournament(argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
