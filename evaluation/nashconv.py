"""Exact exploitability on small Truco through OpenSpiel: CFR+, NashConv, agents as tables.

Small Truco (:func:`truco_env.openspiel.small_truco`) is walked once and exported as an EFG
game (:func:`truco_env.openspiel.export_efg`), on which OpenSpiel's C++ ``CFRPlusSolver`` and
exact best responses (``pyspiel.nash_conv``) run.  Any agent becomes a tabular policy by asking
it at every information state of the tree (:func:`agent_policy`): a trained PPO network gives
its exact action probabilities (the softmax of its masked logits), the random agent the uniform
ones, any other batched agent the frequencies of ``samples`` draws (exact for a deterministic
agent such as the heuristic).  NashConv is the sum over both seats of what a best response
gains against the policy (in points of the hand); 0 at an equilibrium.
"""
from __future__ import annotations

import time
from typing import Callable, NamedTuple

import numpy as np
import pyspiel

from truco_env import core as C
from truco_env.observe import Encoder
from truco_env.openspiel import Efg, Position, small_truco
from truco_env.rules import ACTIONS

#: The calls an always-call policy makes, most preferred first (then ``quiero``, then the
#: first card): it sings every song it may and accepts every one it hears.
CALLS_FIRST = ("vale_cuatro", "retruco", "truco", "falta_envido", "real_envido", "envido",
               "flor", "contraflor_al_resto", "contraflor", "quiero")


def table(efg: Efg, probs: Callable[[int, int, list[int]], list[float]]) -> dict:
    """A policy for ``pyspiel.nash_conv(efg game, table)``: ``probs(player, i, legal)`` gives
    the probabilities of ``legal`` (action ids) at player's information state ``i``."""
    out = {}
    for p, names in enumerate(efg.infostates):
        for i, name in enumerate(names):
            legal = efg.legal[p][i]
            out[efg.key(p, name)] = [(efg.action_id[ACTIONS[a]], float(q))
                                     for a, q in zip(legal, probs(p, i, legal))]
    return out


def always_call_policy(efg: Efg) -> dict:
    """Sing every call that may be sung, accept every song; else play the first card."""
    def probs(p, i, legal):
        names = [ACTIONS[a] for a in legal]
        pick = next((names.index(c) for c in CALLS_FIRST if c in names), 0)
        return [1.0 if j == pick else 0.0 for j in range(len(legal))]
    return table(efg, probs)


def cfr(efg: Efg, game: pyspiel.Game, iterations: int, every: int = 10,
        log: Callable[[str], None] | None = None) -> tuple[list[tuple[int, float, float]], dict]:
    """OpenSpiel's CFR+ on the EFG game: ``[(iteration, NashConv, seconds)]`` every ``every``
    iterations (and at the last) and the average policy as ``{(player, infostate): {action
    name: probability}}``."""
    solver = pyspiel.CFRPlusSolver(game)
    curve, t0 = [], time.time()
    for it in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if it % every == 0 or it == iterations or it in (1, 2, 5):
            nc = pyspiel.nash_conv(game, solver.average_policy())
            curve.append((it, nc, time.time() - t0))
            if log:
                log(f"CFR+ iteration {it}: NashConv {nc:.4f} ({time.time() - t0:.0f} s)")
    return curve, from_table(efg, solver.tabular_average_policy().policy_table())


def from_table(efg: Efg, policy: dict) -> dict:
    """``{(player, python_truco infostate): {action name: probability}}`` of an EFG policy."""
    names = efg.actions
    out = {}
    for p, infos in enumerate(efg.infostates):
        for info in infos:
            out[(p, info)] = {names[a]: q for a, q in policy[efg.key(p, info)]}
    return out


def agent_probs(agent, obs: np.ndarray, mask: np.ndarray, samples: int = 16) -> np.ndarray:
    """``float[N, A]``: the agent's action probabilities on a batch of decisions."""
    from agents.base import RandomAgent
    from agents.ppo_policy import PolicyAgent
    if isinstance(agent, PolicyAgent):
        import torch
        with torch.no_grad():
            logits, _ = agent.net(torch.as_tensor(obs), torch.as_tensor(mask))
            return torch.softmax(logits, dim=1).numpy().astype(np.float64)
    if isinstance(agent, RandomAgent):
        return mask / mask.sum(axis=1, keepdims=True)
    if not agent.batched:
        raise ValueError(f"agent {agent!r} acts one decision at a time from the decoded view; "
                         f"nashconv needs a batched agent (act_batch)")
    counts = np.zeros(mask.shape, dtype=np.float64)
    rows = np.arange(len(mask))
    for _ in range(samples):
        counts[rows, agent.act_batch(obs, mask)] += 1
    return counts / samples


class Decisions(NamedTuple):
    """Every information state of an EFG game as a policy's inputs, encoded once
    (:func:`decisions`) and shared by the policies asked there (:func:`agent_policy`)."""
    keys: list            # efg.key(player, infostate)
    legal: list           # legal action ids
    obs: np.ndarray       # float32[I, D]: the encoder's observation
    mask: np.ndarray      # bool[I, A]


def decisions(efg: Efg, game: pyspiel.Game, observation: str = "compact") -> Decisions:
    """One walk of ``game`` (the ``python_truco`` the EFG was exported from), encoding the
    first position of each information state with the ``observation`` encoder."""
    enc = Encoder(observation)
    spec = game.spec
    seen = [set() for _ in range(game.num_players())]
    keys, legal = [], []
    obs = np.zeros((sum(len(i) for i in efg.infostates), enc.size), np.float32)

    def walk(pos: Position):
        p = pos.player()
        if p == pyspiel.PlayerId.TERMINAL:
            return
        if p == pyspiel.PlayerId.CHANCE:
            actions = [a for a, _ in pos.chance_outcomes()]
        else:
            actions = pos.legal()
            info = pos.infostate(p)
            if info not in seen[p]:
                seen[p].add(info)
                enc.encode_one(pos.S, spec.tables, 0, p, out=obs[len(keys)])
                keys.append(efg.key(p, info))
                legal.append(actions)
        for a in actions:
            child = pos.copy()
            child.apply(a)
            walk(child)

    walk(game.new_initial_state().pos)
    mask = np.zeros((len(keys), len(ACTIONS)), bool)
    for i, actions in enumerate(legal):
        mask[i, actions] = True
    return Decisions(keys, legal, obs, mask)


def agent_policy(efg: Efg, game: pyspiel.Game, agent, samples: int = 16,
                 batch: int = 4096, inputs: Decisions | None = None) -> dict:
    """The agent as a tabular policy of the EFG game: asked once at every information state
    (``inputs``: :func:`decisions` for the agent's encoder, computed here when not given)."""
    if inputs is None:
        inputs = decisions(efg, game, getattr(agent, "observation", "compact"))
    out: dict = {}
    for lo in range(0, len(inputs.keys), batch):
        hi = min(lo + batch, len(inputs.keys))
        pr = agent_probs(agent, inputs.obs[lo:hi], inputs.mask[lo:hi], samples)
        for j in range(lo, hi):
            legal = inputs.legal[j]
            q = pr[j - lo, legal]
            q = q / q.sum() if q.sum() > 0 else np.full(len(legal), 1 / len(legal))
            out[inputs.keys[j]] = [(efg.action_id[ACTIONS[a]], float(x))
                                   for a, x in zip(legal, q)]
    return out


def checkpoint_curve(efg: Efg, game: pyspiel.Game, efg_game: pyspiel.Game, run_dir, inputs: dict,
                     log: Callable[[str], None] | None = None) -> list[tuple[int, float, float]]:
    """``[(global step, training seconds, NashConv)]`` of a train.py run's kept checkpoints
    (``checkpoints/step_*.pt``, written with ``keep_every``; then ``latest.pt`` if it is newer),
    oldest first.  ``inputs``: a cache of :func:`decisions` by encoder name."""
    from pathlib import Path

    from agents.ppo_policy import PolicyAgent, load_checkpoint, net_from_checkpoint
    folder = Path(run_dir) / "checkpoints"
    files = sorted(folder.glob("step_*.pt"), key=lambda f: int(f.stem.split("_")[1]))
    if (folder / "latest.pt").exists():
        files.append(folder / "latest.pt")
    if not files:
        raise FileNotFoundError(f"no checkpoints in {str(folder)!r}: expected a train.py run "
                                f"folder (keep_every=K keeps the points of a curve)")
    out = []
    for f in files:
        ckpt = load_checkpoint(f)
        step, seconds = int(ckpt["global_step"]), float(ckpt["elapsed"])
        if out and step <= out[-1][0]:
            continue                  # latest.pt is the last kept checkpoint
        agent = PolicyAgent(net_from_checkpoint(ckpt), seed=0, name=f"checkpoint:{f}")
        key = getattr(agent, "observation", "compact")
        if key not in inputs:
            inputs[key] = decisions(efg, game, key)
        nc = pyspiel.nash_conv(efg_game, agent_policy(efg, game, agent, inputs=inputs[key]))
        out.append((step, seconds, nc))
        if log:
            log(f"{f}: step {step:,}, {seconds:.0f} s of training: NashConv {nc:.4f}")
    return out


def run(specs, folder, deck: str = "7", calls=None, iterations: int = 200, every: int = 20,
        log: Callable[[str], None] | None = None, curves=()) -> str:
    """``evaluate.py nashconv``: NashConv of each spec (``cfr``: CFR+'s average policy after
    ``iterations``) on small Truco, and over training of each run folder of ``curves``
    (:func:`checkpoint_curve`); writes ``nashconv.csv``, ``cfr_curve.csv``, ``ppo_curve.csv``,
    ``bluff.csv`` (per hand and spot, :func:`bluff_rows`), ``bluff.json`` and, with curves,
    ``nashconv_curve.png`` (:func:`plot_curves`) into ``folder``; returns the report
    (Markdown)."""
    import csv
    import json
    from pathlib import Path

    from agents import load
    from truco_env.openspiel import SMALL_CALLS, export_efg, tree_size
    folder = Path(folder)
    game = small_truco(deck, calls=SMALL_CALLS if calls is None else calls)
    t0 = time.time()
    efg = export_efg(game)
    efg_game = efg.load()
    infostates = sum(len(i) for i in efg.infostates)
    lines = [f"# NashConv on small Truco", "", f"Game: `{game}`; {infostates:,} information "
             f"states (exported in {time.time() - t0:.0f} s).", "",
             "| policy | NashConv (points per hand, both seats) | seconds |", "|---|---|---|"]
    results, bluff, curve, inputs = [], [], [], {}
    deck_ids = game.spec.rules.deck_ids
    for spec in specs:
        t1 = time.time()
        if spec == "cfr":
            curve, avg = cfr(efg, efg_game, iterations, every, log)
            nc = curve[-1][1]
        else:
            agent = load(spec, seed=0)
            key = getattr(agent, "observation", "compact")
            if key not in inputs:
                inputs[key] = decisions(efg, game, key)
            tab = agent_policy(efg, game, agent, inputs=inputs[key])
            nc = pyspiel.nash_conv(efg_game, tab)
            avg = from_table(efg, tab)
        results.append({"spec": spec, "nashconv": nc, "seconds": time.time() - t1})
        rows = bluff_rows(avg, deck_ids)
        bluff += [{"spec": spec, **r} for r in rows]
        results[-1]["bluff"] = bluff_summary(rows)
        lines.append(f"| {spec} | {nc:.4f} | {time.time() - t1:.0f} |")
        if log:
            log(f"{spec}: NashConv {nc:.4f}")
    def write_csv(name, header, rows):
        with open(folder / name, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
    write_csv("nashconv.csv", ["spec", "nashconv", "seconds"],
              [[r["spec"], r["nashconv"], r["seconds"]] for r in results])
    write_csv("cfr_curve.csv", ["iteration", "nashconv", "seconds"], curve)
    ppo = {str(r): checkpoint_curve(efg, game, efg_game, r, inputs, log) for r in curves}
    write_csv("ppo_curve.csv", ["run", "global_step", "seconds", "nashconv"],
              [[r, *point] for r, points in ppo.items() for point in points])
    if ppo:
        plot_curves(curve, ppo, folder / "nashconv_curve.png")
    if bluff:
        with open(folder / "bluff.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(bluff[0]))
            w.writeheader()
            w.writerows(bluff)
    (folder / "bluff.json").write_text(json.dumps(
        {"game": str(game), "size": {"infostates": infostates},
         "results": results, "cfr_curve": curve}, indent=1))
    if curve:
        lines += ["", "CFR+ (OpenSpiel's CFRPlusSolver on the EFG export):", "",
                  "| iteration | NashConv | seconds |", "|---|---|---|"]
        lines += [f"| {it} | {nc:.4f} | {sec:.0f} |" for it, nc, sec in curve]
    for r, points in ppo.items():
        lines += ["", f"Self-play PPO over training (`{r}`):", "",
                  "| steps | seconds of training | NashConv |", "|---|---|---|"]
        lines += [f"| {st:,} | {sec:.0f} | {nc:.4f} |" for st, sec, nc in points]
    if not results:
        text = "\n".join(lines) + "\n"
        (folder / "report.md").write_text(text)
        return text
    lines += ["", "Bluff frequencies (mean over hands; docs/small_truco.md):", "",
              "| | " + " | ".join(r["spec"] for r in results) + " |",
              "|---|" + "---|" * len(results)]
    for key in results[0]["bluff"]:
        lines.append(f"| {key} | " + " | ".join(f"{r['bluff'][key]:.2f}" for r in results)
                     + " |")
    text = "\n".join(lines) + "\n"
    (folder / "report.md").write_text(text)
    return text


__all__ = ["cfr", "agent_policy", "decisions", "checkpoint_curve", "plot_curves", "always_call_policy", "run", "from_table", "table",
           "bluff_rows", "bluff_summary"]


# ------------------------------------------------------------------------------ bluffing
#: The opening decisions read by :func:`bluff_rows`: (name, seat, public record after the
#: deal, the calls counted as "calls").  The mano opens; the pie answers an opening envido or
#: truco.
SPOTS = (
    ("mano_opens", 0, "", ("envido", "truco")),
    ("pie_vs_envido", 1, " s0:envido", ("quiero", "envido")),
    ("pie_vs_truco", 1, " s0:truco", ("quiero", "envido")),
)


def bluff_rows(policy: dict, deck: tuple[int, ...]) -> list[dict]:
    """For every hand a seat may hold and every spot of :data:`SPOTS`: its envido points,
    truco strength (sum of the three cards' ranks, 0..39) and the policy's probability of each
    action there (``policy``: ``{(player, infostate): {action: probability}}``)."""
    import itertools

    from truco_env.cards import card_str
    from truco_env.core import hand_points
    from truco_env.rules import get_rules
    hands = list(itertools.combinations(sorted(deck), 3))
    ranks, envido, _ = hand_points(np.array(hands), get_rules("argentino").tables())
    rows = []
    for h, rk, env in zip(hands, ranks, envido):
        cards = " ".join(card_str(c) for c in h)
        for spot, seat, after, calls in SPOTS:
            probs = policy.get((seat, f"p{seat} mine:[{cards}] |hand1 mano:0{after}"))
            if probs is None:
                continue
            rows.append({"spot": spot, "hand": cards, "envido_points": int(env),
                         "strength": int(rk.sum()), **{a: probs.get(a, 0.0) for a in
                                                       ("envido", "truco", "quiero",
                                                        "no_quiero", "play_0", "play_1",
                                                        "play_2")},
                         "call": sum(probs.get(a, 0.0) for a in calls)})
    return rows


def bluff_summary(rows: list[dict], weak_envido: int = 24, weak_strength: int | None = None
                  ) -> dict[str, float]:
    """Bluff frequencies, each a mean over hands (every hand equally likely): envido called
    by the mano and accepted or raised by the pie with weak envido (at most ``weak_envido``
    points), truco called by the mano with a weak hand (truco strength in the bottom third)."""
    mano = [r for r in rows if r["spot"] == "mano_opens"]
    if weak_strength is None:
        weak_strength = int(np.percentile([r["strength"] for r in mano], 33))

    def mean(spot, key, feature, threshold, weak):
        xs = [r[key] for r in rows if r["spot"] == spot and (r[feature] <= threshold) == weak]
        return float(np.mean(xs)) if xs else float("nan")
    env_cut, hand_cut = ("envido_points", weak_envido), ("strength", weak_strength)
    spots = (("mano envido, {} envido", "mano_opens", "envido", env_cut, (True, False)),
             ("pie accepts/raises envido, {} envido", "pie_vs_envido", "call", env_cut,
              (True, False)),
             ("mano truco, {} hand", "mano_opens", "truco", hand_cut, (True, False)),
             ("pie accepts truco, {} hand", "pie_vs_truco", "quiero", hand_cut, (True,)))
    return {label.format("weak" if weak else "strong"): mean(spot, key, *cut, weak)
            for label, spot, key, cut, sides in spots for weak in sides}


def plot_curves(cfr_curve, ppo: dict, out_png) -> None:
    """NashConv against seconds of computation: CFR+'s iterations and each PPO run's kept
    checkpoints (seconds of training), log-log."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 4))
    if cfr_curve:
        ax.plot([max(c[2], 0.5) for c in cfr_curve], [c[1] for c in cfr_curve], marker="o",
                ms=3, label="CFR+ (average policy)")
    for name, points in ppo.items():
        ax.plot([max(p[1], 0.5) for p in points], [p[2] for p in points], marker="s", ms=3,
                label=f"self-play PPO ({name})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("seconds (CFR+: solving; PPO: training)")
    ax.set_ylabel("NashConv (points per hand)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


def plot(folder, out_png, labels: dict[str, str] | None = None) -> None:
    """The bluff plot of docs/small_truco.md from an ``evaluate.py nashconv`` folder: per
    spot, the probability of calling (or accepting) against the hand's envido points or truco
    strength, one line per policy (mean over the hands with that value)."""
    import csv
    from collections import defaultdict
    from pathlib import Path

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(Path(folder) / "bluff.csv")))
    labels = labels or {}
    panels = (("mano_opens", "envido_points", "envido", "mano opens with envido"),
              ("pie_vs_envido", "envido_points", "call", "pie accepts or raises an envido"),
              ("mano_opens", "strength", "truco", "mano opens with truco"),
              ("pie_vs_truco", "strength", "quiero", "pie accepts a truco"))
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    specs = list(dict.fromkeys(r["spec"] for r in rows))
    for ax, (spot, x, y, title) in zip(axes, panels):
        for spec in specs:
            acc = defaultdict(list)
            for r in rows:
                if r["spec"] == spec and r["spot"] == spot:
                    acc[int(r[x])].append(float(r[y]))
            xs = sorted(acc)
            if not any(any(v) for v in acc.values()):
                continue          # the call is not in that policy's game
            ax.plot(xs, [np.mean(acc[v]) for v in xs], marker="o", ms=3,
                    color=f"C{specs.index(spec)}", label=labels.get(spec, spec))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("envido points" if x == "envido_points" else "truco strength (sum of ranks)")
        ax.set_ylim(-0.03, 1.03)
    axes[0].set_ylabel("probability")
    handles = {h.get_label(): h for ax in axes for h in ax.get_lines()}
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=len(handles),
               fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(out_png, dpi=110)
