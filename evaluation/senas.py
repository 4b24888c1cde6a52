"""Señas analytics (issue 13): what the channel is worth, how honest it is, what catching is worth.

All on duplicate deals (:func:`evaluation.tournament.play_duplicate`: every deal twice, each
team holding each side), with one policy and views of it that lose part of the channel
(:class:`Channel`: the same network or heuristic, its seña actions masked out and/or the
``senas`` observation piece blanked):

* **value of señas**: the policy with the channel against the same policy without it
  (never signs, sees no seña), in a game with señas: its win rate;
* **value of catching**: against the signing policy, the rivals that read what they caught
  against the same rivals blind to the caught señas (they still use their own team's): the
  difference of their win rates (at the game's ``sena_catch``);
* **honesty**: of every seña made (by the full policy, in self-play): traditional señas, the
  share that are true of the signer's hand (:func:`truco_env.senas.truthful`); any señas, the
  mutual information (bits) between the seña and two hand features: the best card dealt (rank
  tier) and the envido range.  Learned tokens mean what training made them mean; a high mutual
  information is a code, zero is noise.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from truco_env import core as C
from truco_env.game import Matches
from truco_env.loop import play
from truco_env.observe import SENA_SIZE, Encoder
from truco_env.rules import SENA_MAX, sena_vocabulary
from truco_env.senas import truthful

from .tournament import GameConfig, load_agent, play_duplicate, summarize_pair

_SENAS_OFF, _SENAS_SIZE = Encoder("compact").offsets["senas"]
#: Hand features for the mutual information: best card dealt (truco rank tiers: 1e/1b, 7e/7o,
#: 3/2, anchos falsos and below) and envido range (under 20, 20-26, 27-29, 30 and more).
BEST_CARD_BINS = ("ancho", "siete", "tres_dos", "lower")
ENVIDO_BINS = ("<20", "20-26", "27-29", "30+")


class Channel:
    """An agent seen through part of the señas channel: ``sign`` (may make señas) and ``read``
    (``"all"``: every seña it sees; ``"team"``: its team's only, blind to caught rivals';
    ``"none"``).  Everything else is the wrapped agent's."""

    def __init__(self, agent: Any, sign: bool = True, read: str = "all"):
        self.agent, self.sign, self.read = agent, sign, read
        self.observation = getattr(agent, "observation", "compact")
        self.batched = getattr(agent, "batched", False)
        self.name = f"{getattr(agent, 'name', 'agent')}[sign={sign},read={read}]"

    def reseed(self, seed):
        self.agent.reseed(seed)

    def _obs(self, obs: np.ndarray) -> np.ndarray:
        if self.read == "all":
            return obs
        obs = np.array(obs, dtype=np.float32, copy=True)
        seen = obs[..., _SENAS_OFF + 2:_SENAS_OFF + _SENAS_SIZE].reshape(
            obs.shape[:-1] + (3 * 6, SENA_SIZE))
        if self.read == "none":
            seen[...] = 0.0
        else:
            seen[seen[..., SENA_MAX] > 0.5] = 0.0
        obs[..., _SENAS_OFF + 2:_SENAS_OFF + _SENAS_SIZE] = seen.reshape(obs.shape[:-1] + (-1,))
        return obs

    def _mask(self, mask: np.ndarray) -> np.ndarray:
        if self.sign:
            return mask
        mask = np.array(mask, copy=True)
        mask[..., C.A_SENA0:] = 0
        return mask

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.agent.act_batch(self._obs(obs), self._mask(mask))

    def act(self, observation, view=None) -> int:
        ob = {"observation": self._obs(observation["observation"]),
              "action_mask": self._mask(observation["action_mask"])}
        if view is not None and self.read != "all":
            view = {**view, "senas": [x for x in view.get("senas", []) if self.read == "team"
                                      and not x["caught"]]}
        return self.agent.act(ob, view)


def _bins(hands: np.ndarray, tables) -> tuple[np.ndarray, np.ndarray]:
    ranks, envido, _ = C.hand_points(hands, tables)
    best = ranks.max(axis=1)
    best_bin = np.select([best >= 12, best >= 10, best >= 8], [0, 1, 2], 3)
    env_bin = np.select([envido < 20, envido < 27, envido < 30], [0, 1, 2], 3)
    return best_bin, env_bin


def mutual_information(x: np.ndarray, y: np.ndarray) -> float:
    """Plug-in mutual information (bits) of two label arrays."""
    if len(x) == 0:
        return 0.0
    table = np.zeros((int(x.max()) + 1, int(y.max()) + 1))
    np.add.at(table, (x, y), 1.0)
    p = table / table.sum()
    px, py = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log2(p[nz] / (px @ py)[nz])).sum())


def entropy(x: np.ndarray) -> float:
    if len(x) == 0:
        return 0.0
    p = np.bincount(x) / len(x)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def collect_senas(agent: Any, cfg: GameConfig, matches: int, seed: int) -> dict[str, np.ndarray]:
    """Every seña the agent makes in self-play: its number, baza, and the signer's dealt hand
    (card ids), muestra."""
    rules = cfg.ruleset()
    game = Matches(matches, cfg.players, rules, random_mano=True)
    game.reset(seed=seed)
    rows: dict[str, list] = {"sena": [], "baza": [], "hand": [], "muestra": []}

    def on_decision(g, live, actions, mask):
        sel = live[actions[live] >= C.A_SENA0]
        if len(sel) == 0:
            return
        S = g.S
        seat = S[sel, C.ACTOR]
        rows["sena"].append(actions[sel] - C.A_SENA0)
        rows["baza"].append(S[sel, C.BAZA])
        rows["hand"].append(S[sel[:, None], C.HAND + 3 * seat[:, None] + np.arange(3)])
        rows["muestra"].append(S[sel, C.MUESTRA])

    play(game, [agent], on_decision=on_decision)
    out = {k: (np.concatenate(v) if v else np.zeros((0, 3) if k == "hand" else 0, np.int64))
           for k, v in rows.items()}
    return out


def honesty(made: dict[str, np.ndarray], cfg: GameConfig) -> dict[str, Any]:
    """Share of true señas (traditional), mutual information with the hand features, and the
    contingency tables ``[sena, bin]``."""
    rules = cfg.ruleset()
    vocab = sena_vocabulary(rules)
    n = len(made["sena"])
    out: dict[str, Any] = {"senas_made": n, "vocabulary": list(vocab),
                           "counts": np.bincount(made["sena"], minlength=len(vocab)).tolist()}
    if n == 0:
        return out
    if rules.senas == "traditional":
        ok = truthful(rules, made["hand"], made["muestra"])[np.arange(n), made["sena"]]
        out["truthful"] = float(ok.mean())
        out["truthful_by_sena"] = {vocab[k]: float(ok[made["sena"] == k].mean())
                                   for k in np.unique(made["sena"])}
    best, env = _bins(made["hand"], rules.tables())
    tok = made["sena"].astype(np.int64)
    for name, feat, bins in (("best_card", best, BEST_CARD_BINS), ("envido", env, ENVIDO_BINS)):
        out[f"mi_{name}"] = mutual_information(tok, feat)
        out[f"h_{name}"] = entropy(feat)
        table = np.zeros((len(vocab), len(bins)), np.int64)
        np.add.at(table, (tok, feat), 1)
        out[f"table_{name}"] = table.tolist()
    return out


def _rate(a: Any, b: Any, cfg: GameConfig, matches: int, seed: int) -> dict[str, Any]:
    s = summarize_pair(play_duplicate(a, b, np.arange(matches), cfg, seed))
    return {k: s[k] for k in ("win_rate", "win_lo", "win_hi", "net_per_hand", "pairs")}


def senas_report(spec: str, cfg: GameConfig, matches: int = 100, seed: int = 0,
                 honesty_matches: int | None = None) -> dict[str, Any]:
    """The three measurements of the module docstring for the agent ``spec``."""
    if cfg.senas == "off":
        raise ValueError("bad value senas='off' for evaluate.py senas: expected 'traditional' "
                         "or 'learned'")
    mk = lambda s: load_agent(spec, s)                     # noqa: E731 - fresh, seeded copies
    value = _rate(mk(seed), Channel(mk(seed + 1), sign=False, read="none"), cfg, matches, seed)
    reads = _rate(Channel(mk(seed + 2), read="all"), mk(seed + 3), cfg, matches, seed + 1)
    blind = _rate(Channel(mk(seed + 2), read="team"), mk(seed + 3), cfg, matches, seed + 1)
    made = collect_senas(mk(seed + 4), cfg, honesty_matches or max(8, matches // 4), seed + 2)
    return {"agent": spec, "game": {"players": cfg.players, "rules": cfg.rules,
                                    "senas": cfg.senas, "sena_tokens": cfg.sena_tokens,
                                    "sena_catch": cfg.sena_catch},
            "value_of_senas": value,
            "catching": {"reading_caught": reads, "blind_to_caught": blind,
                         "value": reads["win_rate"] - blind["win_rate"]},
            "honesty": honesty(made, cfg)}


def plot(result: dict[str, Any], out_dir) -> list[str]:
    """``senas_value.png`` (win rates with 95% intervals) and ``senas_honesty.png`` (the
    seña-by-feature tables); returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from pathlib import Path
    out = Path(out_dir)
    paths = []
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    bars = [("with señas vs\nwithout", result["value_of_senas"]),
            ("rivals reading\ncaught señas", result["catching"]["reading_caught"]),
            ("rivals blind to\ncaught señas", result["catching"]["blind_to_caught"])]
    for i, (label, r) in enumerate(bars):
        ax.bar(i, r["win_rate"], color=("tab:blue", "tab:orange", "tab:gray")[i])
        ax.errorbar(i, r["win_rate"], yerr=[[r["win_rate"] - r["win_lo"]],
                                            [r["win_hi"] - r["win_rate"]]], color="k", capsize=4)
    ax.axhline(0.5, color="k", lw=0.8, ls="--")
    ax.set_xticks(range(3), [b[0] for b in bars])
    ax.set_ylabel("win rate (duplicate, 95% CI)")
    ax.set_title(f"Señas ({result['game']['senas']}): {result['agent']}")
    fig.tight_layout()
    paths.append(str(out / "senas_value.png"))
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    h = result["honesty"]
    if h.get("senas_made"):
        fig, axes = plt.subplots(1, 2, figsize=(9, 0.35 * len(h["vocabulary"]) + 2))
        for ax, (name, bins) in zip(axes, (("best_card", BEST_CARD_BINS),
                                           ("envido", ENVIDO_BINS))):
            t = np.asarray(h[f"table_{name}"], dtype=float)
            t = t / np.maximum(t.sum(axis=1, keepdims=True), 1)
            ax.imshow(t, aspect="auto", cmap="viridis", vmin=0, vmax=1)
            ax.set_xticks(range(len(bins)), bins)
            ax.set_yticks(range(len(h["vocabulary"])), h["vocabulary"], fontsize=7)
            ax.set_title(f"{name}: MI {h[f'mi_{name}']:.2f} of {h[f'h_{name}']:.2f} bits",
                         fontsize=9)
        fig.suptitle("P(hand feature | seña)" + (f", truthful {h['truthful']:.0%}"
                                                 if "truthful" in h else ""))
        fig.tight_layout()
        paths.append(str(out / "senas_honesty.png"))
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


def report_text(r: dict[str, Any]) -> str:
    v, c, h = r["value_of_senas"], r["catching"], r["honesty"]
    f = lambda x: f"{x['win_rate']:.3f} [{x['win_lo']:.3f}, {x['win_hi']:.3f}] ({x['pairs']} pairs)"  # noqa: E731
    lines = [f"# Señas: {r['agent']}", "",
             f"Game: {r['game']}", "",
             f"- Value of señas: with the channel vs the same policy without it: {f(v)}",
             f"- Rivals reading the señas they catch vs the signing policy: {f(c['reading_caught'])}",
             f"- Rivals blind to caught señas vs the signing policy: {f(c['blind_to_caught'])}",
             f"- Value of catching to the rivals: {c['value']:+.3f} win rate",
             f"- Señas made in self-play: {h['senas_made']}"]
    if "truthful" in h:
        lines.append(f"- Honesty: {h['truthful']:.1%} of the señas are true of the hand")
    if h.get("senas_made"):
        lines.append(f"- Mutual information seña / best card: {h['mi_best_card']:.3f} of "
                     f"{h['h_best_card']:.3f} bits; seña / envido range: {h['mi_envido']:.3f} "
                     f"of {h['h_envido']:.3f} bits")
    return "\n".join(lines)


__all__ = ["Channel", "senas_report", "honesty", "collect_senas", "mutual_information",
           "plot", "report_text"]
