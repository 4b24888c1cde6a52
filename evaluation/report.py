"""Reports of the evaluation: Markdown (also printed), CSV, JSON and PNG plots, one folder each.

Every writer takes what :mod:`evaluation.tournament`, :mod:`evaluation.bluff`,
:mod:`evaluation.probe` or :mod:`evaluation.exploit` computed and returns the Markdown text it
wrote to ``report.md``.  Plots use matplotlib (imported when a plot is drawn).
"""
from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from truco_env.rules import ACTIONS
from truco_env.view import format_view

from .bluff import TRUCO_NAMES
from .stats import ELO_MEAN, wilson


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


def md_cell(x: Any) -> str:
    """A Markdown table cell: a ``|`` inside (an agent's name) escaped, so it cannot split the
    row (GitHub-flavoured Markdown reads ``\\|`` as a literal bar inside a table)."""
    return str(x).replace("|", "\\|")


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
             f"{res['seconds']} s on {c['workers']} "
             f"{'Ray ' if c.get('backend') == 'ray' else ''}worker(s).", "",
             "## Pairings", "",
             "| A | B | matches | A win rate | 95% CI | A net points/hand | 95% CI | "
             "A pts/hand | B pts/hand | hands/match |",
             "|---|---|---:|---:|---|---:|---|---:|---:|---:|"]
    for p in res["pairs"]:
        lines.append(f"| {md_cell(p['a'])} | {md_cell(p['b'])} | {p['matches']} | "
                     f"{_pct(p['win_rate'])} | "
                     f"{_pct(p['win_lo'])} – {_pct(p['win_hi'])} | {_num(p['net_per_hand'])} | "
                     f"{_num(p['net_lo'])} – {_num(p['net_hi'])} | {_num(p['pts_per_hand_a'])} |"
                     f" {_num(p['pts_per_hand_b'])} | {_num(p['hands_per_match'], 1)} |")
    lines += ["", "## Ratings", "", "| rank | agent | Elo | 95% CI | matches | wins |",
              "|---:|---|---:|---|---:|---:|"]
    for k, r in enumerate(res["ratings"], 1):
        lines.append(f"| {k} | {md_cell(r['agent'])} | {r['elo']:.0f} | {r['elo_lo']:.0f} – "
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
                    ref=ELO_MEAN, marker="o", color="tab:blue",
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


def three_way_markdown(res: dict) -> str:
    """The report of a three-player mode tournament (:func:`tournament.run_three_way`)."""
    c = res["config"]
    lines = [f"# Three-way duplicate tournament: {c['rules']} ({c['mode']})", "",
             f"{c['matches_per_table']} deal sequences per table, each played in the 3 seat "
             f"rotations; match to {c['target']}, seed {c['seed']}.  A single seat's even share "
             f"is 1/3.", "",
             "| table | agent | seats | wins | matches | win rate | 95% interval | even |",
             "|---|---|---|---|---|---|---|---|"]
    for r in res["three_way"]:
        lines.append(f"| {r['table']} | {md_cell(r['agent'])} | {r['seats']} | {r['wins']} | "
                     f"{r['matches']} | {r['win_rate']:.1%} | [{r['win_lo']:.1%}, "
                     f"{r['win_hi']:.1%}] | {r['even']:.1%} |")
    return "\n".join(lines) + "\n"


def write_tournament(res: dict, folder: Path) -> str:
    if res.get("three_way") is not None:       # three single players (issue 12)
        write_csv(folder / "three_way.csv", res["three_way"])
        md = three_way_markdown(res)
        if res.get("bluff"):
            res["files"] = plot_bluff(res["bluff"], folder)
            write_csv(folder / "bluff.csv", bluff_rows(res["bluff"]))
            md += "\n" + bluff_markdown(res["bluff"], level=2)
        write_json(folder / "results.json", res)
        (folder / "report.md").write_text(md)
        return md
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
        for lvl in TRUCO_NAMES + ("envido",):
            a = d["answers"][lvl]["accept"]
            row[f"accepts_{lvl}"], row[f"accepts_{lvl}_n"] = a["rate"], a["n"]
        rows.append(row)
    return rows


def bluff_markdown(b: dict, level: int = 1) -> str:
    h = "#" * level
    defs = b["definitions"]
    lines = [f"{h} Bluff analytics", "",
             f"*Hand strength* = probability that the dealt hand wins the hand against a random "
             f"hand (cards paired best-vs-best, exact enumeration; see evaluation.bluff). "
             f"A *truco bluff* is a truco, retruco or vale cuatro call or raise with a hand in the "
             f"bottom third of dealt hands (strength percentile < 1/3); an *envido bluff* an "
             f"envido, real or falta envido with <= {defs['envido_low']} points (bottom third). "
             f"*Bluff share* = bluffs / all such calls; *bluff frequency* = truco calls / "
             f"chances to call with a bottom-third hand. *Fold* = the answer was no quiero (or "
             f"mazo). *Slow play* = share of hands in the top third (strength percentile >= 2/3, "
             f"or >= {defs['envido_high']} envido points) with a chance to call where the agent "
             f"never called. Points per call = net points of the hand for the caller's team (three "
             f"players: the caller's minus the mean of the other two). "
             f"Rates with 95% Wilson intervals.", ""]
    lines += ["| agent | " + " | ".join(c for c, _ in _BLUFF_COLUMNS) + " |",
              "|---|" + "---:|" * len(_BLUFF_COLUMNS)]
    def rows(getters, value, fmt):
        for name, d in b["agents"].items():
            cells = [f"{fmt(r[value])} [{fmt(r['lo'])}, {fmt(r['hi'])}] (n={r['n']})"
                     if r["n"] else "n/a" for r in (get(d) for get in getters)]
            lines.append(f"| {md_cell(name)} | " + " | ".join(cells) + " |")

    rows([get for _, get in _BLUFF_COLUMNS], "rate", _pct)
    lines += ["", "| agent | points per truco bluff | per honest truco call | "
              "per envido bluff | per honest envido call |", "|---|---:|---:|---:|---:|"]
    rows([(lambda d, k=k: d["bluff"][k]) for k in ("points_truco_bluff", "points_truco_honest",
                                                    "points_envido_bluff",
                                                    "points_envido_honest")], "mean", _num)
    lines += ["", "| agent | accepts truco | accepts retruco | accepts vale cuatro | "
              "accepts envido |", "|---|---:|---:|---:|---:|"]
    for name, d in b["agents"].items():
        cells = [f"{_pct(d['answers'][k]['accept']['rate'])} (n={d['answers'][k]['accept']['n']})"
                 for k in TRUCO_NAMES + ("envido",)]
        lines.append(f"| {md_cell(name)} | " + " | ".join(cells) + " |")
    for name, d in b["agents"].items():
        if "envido_sources" in d:
            lines += [""] + envido_sources_lines(name, d["envido_sources"])
    lines += ["", "Plots: " + ", ".join(f"`{f}`" for f in BLUFF_PLOTS) + "."]
    return "\n".join(lines)


#: Rows of an envido-sources table before the rest is summed as "other".
SOURCE_ROWS = 16


def envido_sources_lines(name: str, src: dict) -> list[str]:
    """The table of :func:`evaluation.bluff.envido_sources` for one agent: the most common
    kinds of hand, the rest summed, and the total."""
    rows = src["rows"]
    lines = [f"Where the envido points of {md_cell(name)}'s side come from ({src['hands']} "
             f"hands; opener: who sang the first envido call, chain: E envido, R real envido, "
             f"F falta envido, in order; points per hand over all hands):", "",
             "| opener | position | chain | end | share of hands | its points | rival's | net |",
             "|---|---|---|---|---:|---:|---:|---:|"]

    def line(cells, share, mine, theirs):
        lines.append("| " + " | ".join(cells) + f" | {_pct(share)} | {mine:.3f} | "
                     f"{theirs:.3f} | {mine - theirs:+.3f} |")

    for r in rows[:SOURCE_ROWS]:
        line((r["opener"], r["position"], r["chain"], r["end"]), r["share"], r["mine"],
             r["theirs"])
    rest = rows[SOURCE_ROWS:]
    if rest:
        line(("other", "", "", ""), sum(r["share"] for r in rest),
             sum(r["mine"] for r in rest), sum(r["theirs"] for r in rest))
    line(("**all**", "", "", ""), 1.0, src["mine"], src["theirs"])
    return lines


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
           [(k, f"calls {k.replace('_', ' ')} when it may") for k in TRUCO_NAMES],
           lambda d, k: [(d["calls"][k]["by_strength"], "", "-")], sb, xs, "call rate")
    panels(BLUFF_PLOTS[1], "How each agent answers a call, by hand strength",
           [(k, f"answering {k.replace('_', ' ')}") for k in TRUCO_NAMES],
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
    """Bluff report; with ``b["claims"]`` (:func:`evaluation.bluff.bluff_claims`) the three
    claims come first: tables, ``bluff_claims.csv`` and :data:`CLAIM_PLOTS`.  The files written
    are listed in ``b["files"]``."""
    claims = b.get("claims")
    files = plot_claims(claims, folder) if claims else []
    files += plot_bluff(b, folder)
    write_csv(folder / "bluff.csv", bluff_rows(b))
    if claims:
        write_csv(folder / "bluff_claims.csv", claims_rows(claims))
        files.append("bluff_claims.csv")
    b["files"] = files
    write_json(folder / "bluff.json", b)
    parts = [header]
    if b.get("matches"):
        parts.append(matches_markdown(b["matches"]))
    if claims:
        parts.append(claims_markdown(claims, level=2))
    parts.append(bluff_markdown(b, level=2 if claims else 1))
    md = "\n\n".join(parts) + "\n"
    (folder / "report.md").write_text(md)
    return md


# ---------------------------------------------------------------------------- the three claims
CLAIM_PLOTS = ("bluff_claim1_envido_acceptance.png", "bluff_claim2_truco_calls.png",
               "bluff_claim3_bluff_payoff.png")


def _ci(r: dict, value: str = "rate", fmt=None) -> str:
    """``value [lo, hi] (n=N)``, or ``n/a (n=0)``."""
    fmt = fmt or _pct
    if not r["n"]:
        return "n/a (n=0)"
    lo, hi = r.get("lo"), r.get("hi")
    band = f" [{fmt(lo)}, {fmt(hi)}]" if lo is not None and hi is not None and \
        math.isfinite(lo) and math.isfinite(hi) else ""
    return f"{fmt(r[value])}{band} (n={r['n']})"


def _bin_cell(d: dict, i: int) -> str:
    return _ci({k: d[k][i] for k in ("rate", "lo", "hi", "n")})


def _series(claims: dict) -> list[tuple[str, dict]]:
    """``(label, scope)`` of every agent's scopes (the agent named when there are several)."""
    many = len(claims["agents"]) > 1
    return [(f"{name} {s['label']}" if many else s["label"], s)
            for name, c in claims["agents"].items() for s in c["scopes"]]


def matches_markdown(pairs: list[dict]) -> str:
    """The agent's results against each opponent: win rate and net points per hand; in the
    three-player modes (rows with ``even``) alone against two copies, with the even share."""
    three = bool(pairs) and "even" in pairs[0]
    last = ("even share |", "---:|") if three else ("net points/hand | 95% CI |", "---:|---|")
    lines = [f"| agent | opponent{'s' if three else ''} | matches | win rate | 95% CI | "
             + last[0], "|---|---|---:|---:|---|" + last[1]]
    for p in pairs:
        tail = (f"{_pct(p['even'])} |" if three else
                f"{_num(p['net_per_hand'])} | {_num(p['net_lo'])} – {_num(p['net_hi'])} |")
        lines.append(f"| {md_cell(p['agent'])} | {'2 x ' if three else ''}{md_cell(p['opponent'])} | "
                     f"{p['matches']} | {_pct(p['win_rate'])} | {_pct(p['win_lo'])} – "
                     f"{_pct(p['win_hi'])} | " + tail)
    return "\n".join(lines)


def claims_markdown(claims: dict, level: int = 2) -> str:
    """The three claims as tables (one row per opponent, then all opponents)."""
    h = "#" * level
    d = claims["definitions"]
    series = _series(claims)
    el, sl = d["envido_labels"], d["strength_labels"]
    lines = [f"{h} Bluffing, shown: the three claims", "",
             f"*Hand strength*: P(the dealt hand wins against a random hand), its *percentile* "
             f"the share of dealt hands that are weaker; Q1-Q5 are its quintiles (Q1 the "
             f"weakest fifth; s = strength at the edges, no muestra).  *Weak* hand: "
             f"{d['weak']}; *strong*: {d['strong']}.  A truco-ladder call with a weak hand is "
             f"a *bluff*, with a strong one *honest*.  Rates: 95% Wilson intervals; points: "
             f"{d['points']}.", "",
             f"{h}# 1. Envido acceptance rises with envido points", "",
             "P(accept | an envido, real envido or falta envido is pending and the agent "
             "answers), by the agent's envido points; accept = quiero or a raise (a raise "
             "accepts the call it answers).  *top - bottom*: the highest non-empty bin's rate "
             "minus the lowest's (*separated*: their intervals do not overlap).", "",
             "| opponent | " + " | ".join(el) + " | all | top - bottom |",
             "|---|" + "---:|" * (len(el) + 2)]
    for lab, s in series:
        e = s["envido_acceptance"]
        lines.append(f"| {md_cell(lab)} | " + " | ".join(_bin_cell(e, i) for i in range(len(el)))
                     + f" | {_ci(e['overall'])} | {_contrast_text(e['contrast'])} |")
    lines += ["", f"{h}# 2. Truco and retruco calls depend on the hand", "",
              "Call rate by strength quintile: *truco* = P(call truco | truco is open on the "
              "agent's turn), *retruco* = P(call retruco | it may raise to retruco, on its turn "
              "or answering a truco); one count per decision.  The *bluff rate* is the rate "
              f"over the weak quintiles (Q1-Q2), the *honest rate* over the strong ones "
              f"(Q4-Q5).", "",
              "| call | opponent | " + " | ".join(sl) + " | bluff rate (Q1-Q2) | "
              "honest rate (Q4-Q5) | top - bottom |",
              "|---|---|" + "---:|" * (len(sl) + 3)]
    for call in ("truco", "retruco"):
        for lab, s in series:
            t = s["truco_calls"][call]
            lines.append(f"| {call} | {md_cell(lab)} | "
                         + " | ".join(_bin_cell(t, i) for i in range(len(sl)))
                         + f" | {_ci(t['bluff_rate'])} | {_ci(t['honest_rate'])} | "
                         f"{_contrast_text(t['contrast'])} |")
    lines += ["", f"{h}# 3. Do bluffs win points?", "",
              "Truco, retruco and vale cuatro calls (on the agent's turn or as a raise) with a "
              "weak hand (*bluff*) and, as the reference, with a strong hand (*honest*).  "
              "*Net points*: the hand's points for the caller's team minus the opponents' (three "
              "players: the caller's minus the mean of the other two), one "
              "value per hand in which the agent made such a call (mean, 95% CI = mean +- "
              "1.96 sd / sqrt(n)).  *Fold rate*: share of the answered calls that the "
              "opponent answered no quiero (or mazo).", "",
              "| opponent | call | calls | hands | net points per hand | 95% CI | fold rate | "
              "95% CI | answered |", "|---|---|---:|---:|---:|---|---:|---|---:|"]
    for lab, s in series:
        for kind in ("bluff", "honest"):
            p = s["payoff"][kind]
            pt, fd = p["points"], p["fold"]
            pci = (f"{_num(pt['lo'])} – {_num(pt['hi'])}" if pt["n"] > 1 else "n/a")
            fci = f"{_pct(fd['lo'])} – {_pct(fd['hi'])}" if fd["n"] else "n/a"
            lines.append(f"| {md_cell(lab)} | {kind} | {p['calls']} | {p['hands']} | "
                         f"{_num(pt['mean']) if pt['n'] else 'n/a'} | {pci} | "
                         f"{_pct(fd['rate']) if fd['n'] else 'n/a'} | {fci} | {fd['n']} |")
    lines += ["", "Plots: " + ", ".join(f"`{f}`" for f in CLAIM_PLOTS) + "; numbers: "
              "`bluff_claims.csv`, `bluff.json` (`claims`)."]
    return "\n".join(lines)


def _contrast_text(c: dict) -> str:
    if c["low_bin"] is None:
        return "n/a"
    return f"{100 * c['diff']:+.1f} pp{' (separated)' if c['separated'] else ''}"


def claims_rows(claims: dict) -> list[dict]:
    """One CSV row per agent, scope, claim and bin (rates with Wilson bounds; payoff rows:
    mean net points with its bounds and the fold rate)."""
    d = claims["definitions"]
    rows: list[dict] = []

    def row(agent, scope, claim, group, bin_, r, value="rate", extra=None):
        rows.append({"agent": agent, "scope": scope, "claim": claim, "group": group,
                     "bin": bin_, "value": r[value], "lo": r["lo"], "hi": r["hi"], "n": r["n"],
                     "k": r.get("k", ""), **(extra or {"calls": "", "fold_rate": "",
                                                       "fold_lo": "", "fold_hi": "",
                                                       "answered": ""})})

    for name, c in claims["agents"].items():
        for s in c["scopes"]:
            e = s["envido_acceptance"]
            for i, lab in enumerate(d["envido_labels"]):
                row(name, s["label"], "1_envido_acceptance", "accept", lab,
                    {k: e[k][i] for k in ("rate", "lo", "hi", "n", "k")})
            row(name, s["label"], "1_envido_acceptance", "accept", "all", e["overall"])
            for call in ("truco", "retruco"):
                t = s["truco_calls"][call]
                for i, lab in enumerate(d["strength_labels"]):
                    row(name, s["label"], "2_call_rate", call, lab,
                        {k: t[k][i] for k in ("rate", "lo", "hi", "n", "k")})
                row(name, s["label"], "2_call_rate", call, "bluff rate (Q1-Q2)", t["bluff_rate"])
                row(name, s["label"], "2_call_rate", call, "honest rate (Q4-Q5)",
                    t["honest_rate"])
            for kind in ("bluff", "honest"):
                p = s["payoff"][kind]
                f = p["fold"]
                row(name, s["label"], "3_payoff", kind, "net points per hand", p["points"],
                    value="mean", extra={"calls": p["calls"], "fold_rate": f["rate"],
                                         "fold_lo": f["lo"], "fold_hi": f["hi"],
                                         "answered": f["n"]})
    return rows


def _save_atomic(fig, path: Path) -> None:
    """Write the figure to a temporary file in the same folder, then rename it into place (a
    reader never sees a half-written PNG)."""
    import os
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fig.savefig(tmp, dpi=100, format="png")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def plot_claims(claims: dict, folder: Path) -> list[str]:
    """:data:`CLAIM_PLOTS`: one figure per claim, every opponent a series (all opponents in
    black), 95% intervals as error bars."""
    plt = _plt()
    d = claims["definitions"]
    series = _series(claims)
    S = max(len(series), 1)
    colors = [("black" if s["opponent"] is None else plt.cm.tab10(i % 10))
              for i, (_, s) in enumerate(series)]
    off = (np.arange(S) - (S - 1) / 2) * min(0.12, 0.6 / S)

    def lines(ax, labels, get, ylabel):
        x = np.arange(len(labels))
        for j, (lab, s) in enumerate(series):
            b = get(s)
            n = np.asarray(b["n"], dtype=float)
            p, lo, hi = (np.where(n > 0, np.asarray(b[k], dtype=float), np.nan)
                         for k in ("rate", "lo", "hi"))
            err = np.nan_to_num(np.maximum(np.stack([p - lo, hi - p]), 0))
            ax.errorbar(x + off[j], p, yerr=err, marker="o", ms=4, capsize=3, color=colors[j],
                        lw=2.2 if s["opponent"] is None else 1.2, label=lab)
        ax.set_xticks(x, labels, rotation=15 if len(labels[0]) > 6 else 0, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")

    files = []
    fig, ax = plt.subplots(figsize=(8, 4.6))
    lines(ax, d["envido_labels"], lambda s: s["envido_acceptance"],
          "P(quiero or raise | answering an envido)")
    ax.set_xlabel("the agent's envido points")
    ax.set_title("Claim 1: envido acceptance rises with envido points (95% Wilson)")
    fig.tight_layout()
    _save_atomic(fig, folder / CLAIM_PLOTS[0])
    plt.close(fig)
    files.append(CLAIM_PLOTS[0])

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    n_weak = int(round(d["weak_pct"] * (len(d["strength_bins"]) - 1)))
    for ax, call, what in ((axes[0], "truco", "P(call truco | truco open on its turn)"),
                           (axes[1], "retruco", "P(call retruco | it may raise)")):
        ax.axvspan(-0.5, n_weak - 0.5, color="tab:red", alpha=0.07,
                   label="weak hands: the bluff rate")
        lines(ax, d["strength_labels"], lambda s, c=call: s["truco_calls"][c], what)
        ax.set_xlabel("hand strength quintile of dealt hands")
        ax.set_title(call)
    fig.suptitle("Claim 2: truco and retruco calls depend on the hand (95% Wilson)")
    fig.tight_layout()
    _save_atomic(fig, folder / CLAIM_PLOTS[1])
    plt.close(fig)
    files.append(CLAIM_PLOTS[1])

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    kinds = ("bluff", "honest")
    w = 0.8 / S
    for j, (lab, s) in enumerate(series):
        x = np.arange(len(kinds)) + (j - (S - 1) / 2) * w
        for ax, stat, get in ((axes[0], "mean", lambda k: s["payoff"][k]["points"]),
                              (axes[1], "rate", lambda k: s["payoff"][k]["fold"])):
            vals = [get(k) for k in kinds]
            v = np.array([r[stat] if r["n"] else np.nan for r in vals], dtype=float)
            lo = np.array([r["lo"] for r in vals], dtype=float)
            hi = np.array([r["hi"] for r in vals], dtype=float)
            err = np.nan_to_num(np.maximum(np.stack([v - lo, hi - v]), 0), posinf=0)
            ax.bar(x, np.nan_to_num(v), w, color=colors[j], label=lab, yerr=err, capsize=3,
                   alpha=0.85)
            top = np.where(np.isfinite(hi), hi, np.nan_to_num(v))
            for xi, yi, r in zip(x, top, vals):
                ax.annotate(f"n={r['n']}", (xi, max(float(yi), 0.0)), ha="center",
                            va="bottom", fontsize=6, xytext=(0, 2), textcoords="offset points")
    labels = [f"bluff ({d['weak'].split('(')[-1].rstrip(')')} hands)",
              f"honest ({d['strong'].split('(')[-1].rstrip(')')} hands)"]
    for ax, yl, t in ((axes[0], "net points of the hand for the caller's team",
                       "Points per hand with such a call (mean, 95% CI)"),
                      (axes[1], "share of answered calls folded (no quiero / mazo)",
                       "Fold rate induced (95% Wilson)")):
        ax.set_xticks(np.arange(len(kinds)), labels)
        ax.set_ylabel(yl)
        ax.set_title(t, fontsize=10)
        ax.axhline(0, color="grey", lw=0.8)
        ax.legend(fontsize=7)
    axes[1].set_ylim(0, 1)
    fig.suptitle("Claim 3: do bluffs win points against each opponent?")
    fig.tight_layout()
    _save_atomic(fig, folder / CLAIM_PLOTS[2])
    plt.close(fig)
    files.append(CLAIM_PLOTS[2])
    return files



# ============================================================================ exploit report
def write_exploit(spec: str, curve: list[dict], run: dict, final: dict, folder: Path,
                  budget: float) -> str:
    plt = _plt()
    three = final.get("three_way") is not None     # three-player modes: one seat of three
    if three:
        br = final["agents"][0]["label"]
        p = next(r for r in final["three_way"] if r["agent"] == br and r["seats"] == 1)
    else:
        p = final["pairs"][0]
    even = 1 / 3 if three else 0.5
    evals = [c for c in curve if c["eval"]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    if evals:
        t = [c["seconds"] for c in evals]
        axes[0].plot(t, [c["win_rate"] for c in evals], "o-", color="tab:red",
                     label="best response win rate (periodic eval)")
        axes[0].fill_between(t, [c["win_lo"] for c in evals], [c["win_hi"] for c in evals],
                             color="tab:red", alpha=0.2, lw=0, label="95% Wilson band")
    axes[0].axhline(even, color="grey", ls=":", lw=1,
                    label=f"{even:.2f}: not exploitable (the even share)")
    axes[0].set_ylim(0, 1)
    axes[0].set_xlabel("training time (s)")
    axes[0].set_ylabel("match win rate against the frozen agent")
    axes[0].set_title("Best-response learning curve")
    axes[0].legend(fontsize=8)
    axes[1].plot([c["steps"] for c in curve], [c["train_win_rate"] for c in curve],
                 color="tab:purple", lw=1, label="learner win rate in training matches")
    axes[1].axhline(even, color="grey", ls=":", lw=1)
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
    write_csv(folder / "final.csv", final["three_way"] if three else final["pairs"])
    data = {"agent": spec, "config": final["config"], "budget_s": budget,
            "train_seconds": run["train_seconds"], "train_steps": run["global_step"],
            "best_response_win_rate": p["win_rate"], "win_lo": p["win_lo"], "win_hi": p["win_hi"],
            "even": even, "best_response_net_points_per_hand": p.get("net_per_hand"),
            "net_lo": p.get("net_lo"), "net_hi": p.get("net_hi"),
            "final": final["three_way"] if three else final["pairs"], "curve": curve,
            "best_response": run["checkpoint"],
            "files": ["learning_curve.png", "curve.csv", "final.csv", "best_response/",
                      "train.log"]}
    agents = (final.get("bluff") or {}).get("agents", {})
    sources = agents.get(final["agents"][0]["label"], {}).get("envido_sources")
    if sources:
        data["envido_sources"] = sources
    write_json(folder / "results.json", data)
    c = final["config"]
    if three:
        how = (f"{p['matches']} matches of three-way duplicates (every seat rotation) alone "
               f"against two copies of it")
        rows = [f"| match win rate | {_pct(p['win_rate'])} | {_pct(p['win_lo'])} – "
                f"{_pct(p['win_hi'])} |", f"| even share | {_pct(even)} | |"]
        nothing = "a win rate near the even share of 1/3 means"
    else:
        how = f"{p['matches']} duplicate matches against it"
        rows = [f"| match win rate | {_pct(p['win_rate'])} | {_pct(p['win_lo'])} – "
                f"{_pct(p['win_hi'])} |",
                f"| net points per hand | {_num(p['net_per_hand'])} | {_num(p['net_lo'])} – "
                f"{_num(p['net_hi'])} |"]
        nothing = "a win rate near 50% and net points near 0 mean"
    md = "\n".join([
        f"# Exploitability probe: {spec}", "",
        f"A fresh PPO best response was trained for {run['train_seconds']:.0f} s "
        f"({run['global_step']:,} environment steps) against the frozen agent, then played "
        f"{how} ({c['players']} players, {c['rules']}, match to {c['target']}).", "",
        "| measure | best response | 95% CI |", "|---|---:|---|", *rows, "",
        f"**Approximate exploitability** (Timbers et al. 2020): how much a best response "
        f"trained against {spec} gains from it.  Lower is better for {spec}: {nothing} "
        f"the probe found nothing to exploit in this budget.  It "
        f"is a lower bound on the true exploitability (the learner is not an exact best "
        f"response) and depends on the budget.", "",
        "Learning curve: `learning_curve.png` (`curve.csv`); the best response is the training "
        f"run `best_response/` (usable as `checkpoint:{run['checkpoint']}`).", "",
        *_source_lines(p, "best response", spec),
        *([*envido_sources_lines("the best response", sources), ""] if sources else []),
        "The trainer is train.py's PPO with `opponent` set to the frozen agent, "
        "`opponent_weight=1` and no self-play (the learner plays every seat of one team; in "
        "the three-player modes one seat, the frozen agent the other two)."])
    (folder / "report.md").write_text(md + "\n")
    return md + "\n"




def _source_lines(pair: dict, a: str, b: str) -> list[str]:
    """Where the points of a duplicate pairing come from: points per hand of each side by
    source (envido, flor, truco), from :func:`evaluation.tournament.summarize_pair`."""
    if "envido_a" not in pair:
        return []
    from truco_env.core import SOURCE_NAMES
    rows = ["Where the points come from (points per hand, all hands of the final matches):", "",
            f"| source | {md_cell(a)} | {md_cell(b)} | net |", "|---|---:|---:|---:|"]
    for name in SOURCE_NAMES:
        pa, pb = pair[f"{name}_a"], pair[f"{name}_b"]
        rows.append(f"| {md_cell(name)} | {pa:.2f} | {pb:.2f} | {pa - pb:+.2f} |")
    return rows + [""]


# ============================================================================ probe report
def probe_markdown(spec: str, result: dict, samples: int) -> str:
    """The situation as the probed player sees it, then its action probabilities (sampled
    ones with 95% Wilson intervals)."""
    view, seat, probs, how = result["view"], result["seat"], result["probs"], result["method"]
    lines = [f"# Probe: {spec} as player_{seat}", "", "```",
             format_view(view, me=seat, mask=result["mask"]), "```", "",
             f"Hand strength {result['strength']:.3f} (percentile {result['percentile']:.0%}), "
             f"envido {view['my_envido']}. Probabilities: {how}.", "",
             "| action | probability | |", "|---|---:|---|"]
    for a in np.flatnonzero(result["mask"]):
        name = ACTIONS[a]
        if name.startswith("play_") and view["hand"][a]:
            name += f" ({view['hand'][a]})"
        half = ""
        if how.startswith("sampled"):
            lo, hi = wilson(probs[a], samples)
            half = f" [{lo:.3f}, {hi:.3f}]"
        lines.append(f"| {name} | {probs[a]:.3f}{half} | {'#' * int(round(40 * probs[a]))} |")
    return "\n".join(lines) + "\n"


def write_probe(spec: str, result: dict, situation: dict, samples: int, folder: Path) -> str:
    md = probe_markdown(spec, result, samples)
    probs = [{"action": ACTIONS[a], "probability": float(result["probs"][a])}
             for a in np.flatnonzero(result["mask"])]
    write_json(folder / "probe.json", {"spec": spec, "situation": situation, "seat": result["seat"],
                                       "method": result["method"], "probs": probs,
                                       "view": result["view"]})
    (folder / "report.md").write_text(md)
    return md
