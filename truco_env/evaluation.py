"""Evaluation of agents: duplicate matches, intervals, ratings, hand strength and bluff analytics.

This module computes; ``evaluate.py`` (the command line) writes reports and plots from what it
returns.  It depends on :mod:`truco_env` only at import time; agents (and torch, for the
exploitability probe) are imported when needed, so the game package stays light.

Duplicate format
----------------
A *duplicate pair* is one deal sequence played twice: in the first match agent A holds team 0
(seats 0, 2, 4) and B team 1, in the second the teams are swapped.  Every hand ``k`` of match
``m`` is dealt from ``deck(seed, m, k)`` (a permutation drawn from
``numpy.random.default_rng([seed, m, k])``) and the first mano of match ``m`` from
``default_rng([seed, m])``; the next manos rotate as in every match.  So seat 0 gets the same cards
in both matches of a pair, and the luck of the cards cancels within the pair (the matches may
last different numbers of hands; hand ``k`` is the same deal in both).  The deals do not depend
on how matches are split into chunks or workers.

Intervals (95%)
---------------
* Win rate: the unit is the pair; its score is the fraction of its two matches A won (0, 1/2,
  1).  The interval is Wilson's score interval at the pair-level *effective sample size*
  ``n_eff = n p (1 - p) / s^2`` (``s^2`` the sample variance of the pair scores): the number of
  independent matches that would give the observed variance of the mean.  Independent matches
  give ``n_eff = 2n``; duplicate pairs, whose two results are negatively correlated, give more.
  ``n_eff`` is clipped to ``[1, 4n]`` and is ``2n`` when the variance is zero (all pairs alike).
  Wilson, not a normal interval, so that 200-0 results keep a sensible interval.
* Points per hand: the pair's value is A's points minus B's points over both matches, divided by
  the hands of both matches; interval = mean +- t(0.975, n-1) * sd / sqrt(n).
* Ratings: Bradley-Terry fitted on every match (Hunter's MM algorithm), with one virtual drawn
  match per pair of agents that met (so that a 200-0 record gives a large but finite gap),
  shown on the Elo scale (400 log10 of the strength; mean 1500).  Intervals: percentile
  bootstrap over duplicate pairs (resampled within each pairing), refitting every time.

Hand strength
-------------
:func:`strength_table`: for a 3-card hand, the probability that it wins a hand against a hand
of 3 cards dealt uniformly from the other cards, when the bazas pair the cards best against
best, middle against middle and worst against worst, under the hand-winning rules of the core
(two bazas; a parda goes to the winner of the first decided baza; three pardas go to the mano,
counted here as one half).  Exact: enumerated over rank multisets with their card counts
(``C(n_r, k_r)``), from the truco ranks the core uses (piezas too, per muestra).  The *strength
percentile* is the share of dealt hands that are weaker (half of the equal ones); the bottom
third (percentile < 1/3) defines a truco bluff, the top third slow play.  Envido: the points of
the hand; the bottom third of envido points (<= :data:`ENVIDO_LOW`, from all 9880 argentino
hands) defines an envido bluff, the top third (>= :data:`ENVIDO_HIGH`) envido slow play.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from . import core as C
from .cards import NUM_CARDS, parse_card
from .observe import COMPACT_SIZE, INFOSTATE_SIZE, Encoder
from .rules import ACTION_ID, ACTIONS, NUM_ACTIONS, RuleSet, get_rules

Z95 = 1.959963984540054

# ============================================================================ interval maths


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed over ``n`` trials.

    >>> [round(x, 4) for x in wilson(0.8, 10)]
    [0.4902, 0.9433]
    """
    if n <= 0:
        return (0.0, 1.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def effective_n(pair_scores: np.ndarray) -> float:
    """Effective number of independent matches behind duplicate pair scores (see the module)."""
    y = np.asarray(pair_scores, dtype=np.float64)
    n = len(y)
    if n == 0:
        return 0.0
    p = float(y.mean())
    s2 = float(y.var(ddof=1)) if n > 1 else 0.0
    if s2 <= 0 or p * (1 - p) <= 0:
        return 2.0 * n
    return float(np.clip(n * p * (1 - p) / s2, 1.0, 4.0 * n))


def duplicate_win_interval(pair_scores: np.ndarray) -> tuple[float, float, float]:
    """``(win rate, low, high)`` from pair scores in {0, 1/2, 1}."""
    y = np.asarray(pair_scores, dtype=np.float64)
    if len(y) == 0:
        return (float("nan"), 0.0, 1.0)
    p = float(y.mean())
    lo, hi = wilson(p, effective_n(y))
    return (p, lo, hi)


def t_quantile(df: int, z: float = Z95) -> float:
    """Student t quantile (two-sided 95% by default), Cornish-Fisher expansion in 1/df."""
    if df <= 0:
        return float("inf")
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)``: mean +- t * sd / sqrt(n)."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = float(x.mean())
    if n == 1:
        return (m, float("-inf"), float("inf"))
    half = t_quantile(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def rate_bands(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rates ``k / n`` and their Wilson bands, elementwise (NaN where ``n == 0``)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    p = np.full(k.shape, np.nan)
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    for idx in np.ndindex(k.shape):
        if n[idx] > 0:
            p[idx] = k[idx] / n[idx]
            lo[idx], hi[idx] = wilson(p[idx], n[idx])
    return p, lo, hi


# ============================================================================ ratings

ELO_SCALE = 400.0 / math.log(10.0)
ELO_MEAN = 1500.0


def bradley_terry(wins: np.ndarray, prior_draws: float = 1.0, iters: int = 10_000,
                  tol: float = 1e-12) -> np.ndarray:
    """Elo ratings (mean 1500) of a Bradley-Terry fit; ``wins[..., i, j]`` = wins of i over j.

    Leading axes are independent problems (bootstrap replicas).  ``prior_draws`` virtual
    drawn matches are added to every pair that played (half a win each).

    >>> w = np.array([[0, 75], [25, 0]])
    >>> r = bradley_terry(w, prior_draws=0); round(float(r[0] - r[1]), 2)
    190.85
    """
    W = np.asarray(wins, dtype=np.float64).copy()
    games = W + np.swapaxes(W, -1, -2)
    played = games > 0
    W = W + played * prior_draws / 2.0
    N = W + np.swapaxes(W, -1, -2)
    K = W.shape[-1]
    total = W.sum(axis=-1)
    gamma = np.ones(W.shape[:-1])
    for _ in range(iters):
        denom = (N / (gamma[..., :, None] + gamma[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), 1.0)
        new = np.maximum(new, 1e-300)
        new = new / np.exp(np.log(new).mean(axis=-1, keepdims=True))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    r = ELO_SCALE * np.log(gamma)
    return r - r.mean(axis=-1, keepdims=True) + ELO_MEAN if K else r


def bootstrap_ratings(pair_wins: dict[tuple[int, int], np.ndarray], k: int, reps: int = 1000,
                      seed: int = 0, prior_draws: float = 1.0) -> np.ndarray:
    """Ratings ``[reps, k]`` refitted on duplicate pairs resampled within each pairing.

    ``pair_wins[(i, j)]``: per duplicate pair, the matches i won of the two (0, 1 or 2).
    """
    rng = np.random.default_rng(seed)
    W = np.zeros((reps, k, k))
    for (i, j), w in pair_wins.items():
        w = np.asarray(w, dtype=np.int64)
        n = len(w)
        if n == 0:
            continue
        counts = np.bincount(w, minlength=3) / n
        draw = rng.multinomial(n, counts, size=reps)         # pairs with 0, 1, 2 wins of i
        wi = draw[:, 1] + 2 * draw[:, 2]
        W[:, i, j] += wi
        W[:, j, i] += 2 * n - wi
    return bradley_terry(W, prior_draws=prior_draws)


# ============================================================================ hand strength

# The measure lives in truco_env.strength (shared with the heuristic agent).
from .strength import (R_ALL, card_ranks, hand_strength, points_distributions,  # noqa: E402
                       rank_key, strength_table)


def _envido_terciles() -> tuple[int, int]:
    cdf = np.cumsum(points_distributions()[0])
    return int(np.argmax(cdf >= 1 / 3)), int(np.argmax(cdf >= 2 / 3)) + 1


#: Envido points at or below ENVIDO_LOW are the bottom third of dealt hands, at or above
#: ENVIDO_HIGH the top third (argentino, all 9880 hands).
ENVIDO_LOW, ENVIDO_HIGH = _envido_terciles()


# ============================================================================ agents

def load_agent(spec: Any, seed: int | None = None):
    """``agents.load`` that also registers ``checkpoint:`` (importing the PPO code) on demand."""
    import agents
    if isinstance(spec, str) and spec.strip().startswith("checkpoint"):
        if "checkpoint" not in agents.base._REGISTRY:
            import agents.ppo_policy  # noqa: F401  (registers the spec)
    agent = agents.load(spec, seed=seed)
    if isinstance(spec, str) and spec.strip().split(":")[0] == "human":
        raise ValueError("agent spec 'human' cannot play unattended evaluation matches")
    return agent


def has_batch(agent: Any) -> bool:
    """Whether ``agent.act_batch`` is implemented (not the base class's NotImplementedError)."""
    fn = getattr(type(agent), "act_batch", None)
    if fn is None:
        return False
    try:
        from agents.base import Agent
        return fn is not Agent.act_batch
    except ImportError:  # pragma: no cover
        return True


def obs_kind(agent: Any) -> str:
    """The observation an agent expects: ``infostate`` if its network is sized for it.

    Raises ``ValueError`` for a network sized for neither layout (a checkpoint trained on an
    older observation layout)."""
    size = getattr(agent, "obs_size", None) or getattr(getattr(agent, "net", None), "obs_size",
                                                       None)
    if size is not None and size not in (COMPACT_SIZE, INFOSTATE_SIZE):
        raise ValueError(f"{agent_name(agent)} expects observations of size {size}, but the "
                         f"environment's are {COMPACT_SIZE} (compact) or {INFOSTATE_SIZE} "
                         f"(infostate); was it trained on an older observation layout?")
    return "infostate" if size == INFOSTATE_SIZE else "compact"


def agent_name(spec: Any) -> str:
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


# ============================================================================ the engine

@dataclass(frozen=True)
class GameConfig:
    """What a tournament plays: player count, preset and its overrides."""

    players: int = 2
    rules: str = "argentino"
    target: int | None = None
    flor: bool | None = None

    def ruleset(self) -> RuleSet:
        r = get_rules(self.rules, target=self.target, flor=self.flor)
        if self.players not in r.players_allowed:
            raise ValueError(f"bad value players={self.players!r} for rules {r.name!r}; "
                             f"expected one of {list(r.players_allowed)}")
        return r


def deal_deck(seed: int, match: int, hand_no: int) -> np.ndarray:
    """The card order of hand ``hand_no`` (0-based) of duplicate match ``match``."""
    return np.random.default_rng([seed, match, hand_no]).permutation(NUM_CARDS).astype(np.int32)


def first_mano(seed: int, match: int, players: int) -> int:
    return int(np.random.default_rng([seed, match]).integers(players))


# Decision contexts of the event log.
CTX_FREE, CTX_TRUCO, CTX_ENVIDO, CTX_FLOR = 0, 1, 2, 3
EVENT_FIELDS = ("gid", "agent", "seat", "hand_no", "step", "baza", "position", "ctx", "level",
                "chain", "action", "can_truco", "can_envido", "envido", "strength", "percentile")
HAND_FIELDS = ("gid", "hand_no", "pts0", "pts1")


class EventLog:
    """Decisions and hand results of many games, for the bluff analytics.

    One row per decision (columns :data:`EVENT_FIELDS`); ``gid`` identifies a game across
    chunks, ``agent`` is an index given by the caller.  ``can_truco`` is the level that a truco
    call would reach (1..3) where one is legal, else 0; ``can_envido`` whether an envido call
    (envido, real or falta, opening or raising) is legal.  ``position``: 0 mano, 1 pie (last
    to play), 2 in between.
    """

    def __init__(self):
        self.rows: list[dict[str, np.ndarray]] = []
        self.hands: list[dict[str, np.ndarray]] = []

    def decisions(self, S, rows, gid, agent, actions, mask, strength, percentile, step):
        if len(rows) == 0:
            return
        Sr = S[rows]
        seat = Sr[:, C.ACTOR]
        P = Sr[:, C.NPLAYERS]
        rel = (seat - Sr[:, C.MANO]) % P
        position = np.where(rel == 0, 0, np.where(rel == P - 1, 1, 2))
        flor = Sr[:, C.FLOR_STATE] != 0
        env = ~flor & (Sr[:, C.ENVIDO_PENDING] == 1) & (seat == Sr[:, C.ENVIDO_ANSWERER])
        tru = ~flor & ~env & (Sr[:, C.TRUCO_PENDING] > 0) & (seat == Sr[:, C.TRUCO_ANSWERER])
        ctx = np.where(flor, CTX_FLOR, np.where(env, CTX_ENVIDO, np.where(tru, CTX_TRUCO,
                                                                          CTX_FREE)))
        m = mask[rows]
        can_t = np.zeros(len(rows), np.int8)
        for lvl, a in ((3, C.A_VALE4), (2, C.A_RETRUCO), (1, C.A_TRUCO)):
            can_t[m[:, a].astype(bool)] = lvl
        can_e = m[:, C.A_ENVIDO:C.A_FALTA + 1].any(axis=1)
        level = np.where(tru, Sr[:, C.TRUCO_PENDING], Sr[:, C.TRUCO_LEVEL])
        self.rows.append({
            "gid": gid[rows].astype(np.int64), "agent": agent[rows].astype(np.int16),
            "seat": seat.astype(np.int8), "hand_no": Sr[:, C.HAND_NO].astype(np.int32),
            "step": np.full(len(rows), step, np.int32), "baza": Sr[:, C.BAZA].astype(np.int8),
            "position": position.astype(np.int8), "ctx": ctx.astype(np.int8),
            "level": level.astype(np.int8), "chain": Sr[:, C.ENVIDO_CHAIN_ID].astype(np.int8),
            "action": actions[rows].astype(np.int8), "can_truco": can_t,
            "can_envido": can_e.astype(np.bool_),
            "envido": Sr[np.arange(len(rows)), C.ENVIDO_PTS + seat].astype(np.int8),
            "strength": strength[rows, seat].astype(np.float32),
            "percentile": percentile[rows, seat].astype(np.float32)})

    def hand_results(self, S, rows, gid):
        if len(rows) == 0:
            return
        self.hands.append({"gid": gid[rows].astype(np.int64),
                           "hand_no": S[rows, C.HAND_NO].astype(np.int32),
                           "pts0": S[rows, C.HAND_PTS].astype(np.int16),
                           "pts1": S[rows, C.HAND_PTS + 1].astype(np.int16)})

    def tables(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Concatenated ``(events, hands)`` column dicts."""
        return concat_tables(self.rows, EVENT_FIELDS), concat_tables(self.hands, HAND_FIELDS)


def concat_tables(parts: list[dict[str, np.ndarray]], fields: Sequence[str]) -> dict:
    if not parts:
        return {f: np.zeros(0) for f in fields}
    return {f: np.concatenate([p[f] for p in parts]) for f in fields}


class _Strength:
    """Per-seat strength and percentile of the dealt hands of every game."""

    def __init__(self, G: int):
        self.s = np.zeros((G, C.P_MAX), np.float32)
        self.p = np.zeros((G, C.P_MAX), np.float32)

    def update(self, S, games):
        for g in games:
            P = int(S[g, C.NPLAYERS])
            s, pct = strength_table(int(S[g, C.MUESTRA]))
            keys = rank_key(S[g, C.HRANK:C.HRANK + 3 * P].reshape(P, 3))
            self.s[g, :P] = s[keys]
            self.p[g, :P] = pct[keys]


class _Player:
    """An agent seated in a chunk: batched where it can be, one decision at a time if not."""

    def __init__(self, agent, rules: RuleSet):
        self.agent = agent
        self.batch = has_batch(agent)
        self.kind = obs_kind(agent)
        self.rules = rules

    def act(self, S, rows, obs, mask):
        if self.batch:
            return np.asarray(self.agent.act_batch(obs[rows], mask[rows])).astype(np.int64)
        game = SimpleNamespace(S=S, rules=self.rules)
        from .env import decode_view
        out = np.empty(len(rows), np.int64)
        for i, g in enumerate(rows):
            ob = {"observation": obs[g].copy(), "action_mask": mask[g].astype(np.int8)}
            out[i] = int(self.agent.act(ob, decode_view(game, int(g), int(S[g, C.ACTOR]))))
        return out


def play_duplicate(agent_a: Any, agent_b: Any, matches: Sequence[int], cfg: GameConfig,
                   seed: int, log: EventLog | None = None, agent_ids: tuple[int, int] = (0, 1),
                   max_steps: int = 200_000) -> dict[str, np.ndarray]:
    """Play the duplicate pairs of ``matches`` (match indices) between two agents.

    Returns per game (``2 * len(matches)``, pair i is games 2i and 2i+1): ``match``,
    ``a_team`` (the team A held), ``a_won``, ``hands``, ``pts_a``, ``pts_b`` (points scored).
    Agents may be objects or specs (loaded with ``seed``).  ``log`` collects decisions, with
    ``agent_ids`` naming A and B in it.
    """
    rules = cfg.ruleset()
    tables = rules.tables()
    P = cfg.players
    if isinstance(agent_a, str):
        agent_a = load_agent(agent_a, seed)
    if isinstance(agent_b, str):
        agent_b = load_agent(agent_b, seed + 1)
    players = (_Player(agent_a, rules), _Player(agent_b, rules))
    matches = np.asarray(matches, dtype=np.int64)
    G = 2 * len(matches)
    match = np.repeat(matches, 2)
    a_team = np.tile(np.array([0, 1]), len(matches))
    gid = match * 2 + a_team
    S = C.new_state(G, P)
    games = np.arange(G)
    manos = np.array([first_mano(seed, int(m), P) for m in match], dtype=np.int32)
    C.start_hand(S, tables, games, np.stack([deal_deck(seed, int(m), 0) for m in match]), manos)
    strength = _Strength(G) if log is not None else None
    if strength is not None:
        strength.update(S, games)
    encoders = {k: Encoder(k) for k in {p.kind for p in players}}
    obs_buf = {k: np.zeros((G, e.size), np.float32) for k, e in encoders.items()}
    mask = np.zeros((G, NUM_ACTIONS), np.bool_)
    pts = np.zeros((G, C.T_MAX), np.int32)
    done = np.zeros(G, bool)
    hands = np.zeros(G, np.int64)
    agent_idx = np.array(agent_ids)
    for step in range(max_steps):
        live = np.flatnonzero(~done)
        if len(live) == 0:
            break
        actor = S[:, C.ACTOR]
        C.legal_mask(S, tables, mask)
        for k, e in encoders.items():
            e.encode(S, tables, actor, obs_buf[k])
        owner = (S[games, C.TEAM + actor] != a_team).astype(np.int64)   # 0: A acts, 1: B
        actions = np.full(G, -1, np.int64)
        for k, pl in enumerate(players):
            rows = live[owner[live] == k]
            if len(rows):
                actions[rows] = pl.act(S, rows, obs_buf[pl.kind], mask)
        bad = ~mask[live, actions[live]]
        if bad.any():
            g = int(live[np.flatnonzero(bad)[0]])
            raise RuntimeError(f"{agent_name(players[owner[g]].agent)} chose illegal action "
                               f"{ACTIONS[actions[g]]} (legal: "
                               f"{[ACTIONS[i] for i in np.flatnonzero(mask[g])]})")
        if log is not None:
            log.decisions(S, live, gid, agent_idx[owner], actions, mask, strength.s, strength.p,
                          step)
        C.step(S, tables, actions, pts)
        ended = live[S[live, C.HAND_OVER] == 1]
        if len(ended) == 0:
            continue
        hands[ended] += 1
        if log is not None:
            log.hand_results(S, ended, gid)
        fin = ended[S[ended, C.DONE] == 1]
        done[fin] = True
        nxt = ended[S[ended, C.DONE] == 0]
        if len(nxt):
            decks = np.stack([deal_deck(seed, int(match[g]), int(S[g, C.HAND_NO])) for g in nxt])
            C.start_hand(S, tables, nxt, decks, ((S[nxt, C.MANO] + 1) % P).astype(np.int32))
            if strength is not None:
                strength.update(S, nxt)
    else:
        raise RuntimeError(f"matches not finished after {max_steps} steps")
    score = S[:, C.SCORE:C.SCORE + 2]
    pts_a = np.where(a_team == 0, score[:, 0], score[:, 1])
    pts_b = np.where(a_team == 0, score[:, 1], score[:, 0])
    return {"match": match, "a_team": a_team, "a_won": (S[:, C.WINNER] == a_team).astype(np.int8),
            "hands": hands, "pts_a": pts_a.astype(np.int64), "pts_b": pts_b.astype(np.int64)}


# ============================================================================ pair summaries

def summarize_pair(res: dict[str, np.ndarray]) -> dict[str, Any]:
    """Win rate and points per hand of A, with intervals, from :func:`play_duplicate` games."""
    won = res["a_won"].reshape(-1, 2).astype(np.float64)
    hands = res["hands"].reshape(-1, 2).sum(axis=1)
    pa = res["pts_a"].reshape(-1, 2).sum(axis=1)
    pb = res["pts_b"].reshape(-1, 2).sum(axis=1)
    pair_score = won.mean(axis=1)
    wr, wlo, whi = duplicate_win_interval(pair_score)
    net, nlo, nhi = mean_interval((pa - pb) / np.maximum(hands, 1))
    ppa, plo, phi = mean_interval(pa / np.maximum(hands, 1))
    return {"pairs": int(len(pair_score)), "matches": int(won.size),
            "wins_a": int(won.sum()), "win_rate": wr, "win_lo": wlo, "win_hi": whi,
            "n_eff": effective_n(pair_score), "split_pairs": int((pair_score == 0.5).sum()),
            "net_per_hand": net, "net_lo": nlo, "net_hi": nhi,
            "pts_per_hand_a": ppa, "pts_a_lo": plo, "pts_a_hi": phi,
            "pts_per_hand_b": float((pb / np.maximum(hands, 1)).mean()),
            "hands_per_match": float(res["hands"].mean())}


# ============================================================================ bluff analytics

TRUCO_NAMES = ("truco", "retruco", "vale_cuatro")
STRENGTH_BINS = np.linspace(0.0, 1.0, 11)
ENVIDO_BINS = np.array([0, 10, 20, 24, 26, 28, 30, 32, 34, 48])


def _join_hand_points(ev: dict, hands: dict) -> np.ndarray:
    """Points of the hand of each event for the acting seat's team, minus the other team's."""
    if len(ev["gid"]) == 0:
        return np.zeros(0)
    hk = hands["gid"] * 4096 + hands["hand_no"]
    order = np.argsort(hk)
    hk = hk[order]
    net0 = (hands["pts0"].astype(np.int64) - hands["pts1"])[order]
    ek = ev["gid"] * 4096 + ev["hand_no"]
    pos = np.clip(np.searchsorted(hk, ek), 0, max(len(hk) - 1, 0))
    found = hk[pos] == ek if len(hk) else np.zeros(len(ek), bool)
    net = np.where(found, net0[pos] if len(hk) else 0, 0).astype(np.float64)
    team = ev["seat"] % 2
    return np.where(found, np.where(team == 0, net, -net), np.nan)


def _answers(ev: dict) -> np.ndarray:
    """For every event: the action that answered it, for the truco or envido call it made
    (-1 when the event is not such a call or no answer came)."""
    n = len(ev["gid"])
    out = np.full(n, -1, np.int64)
    if n == 0:
        return out
    order = np.lexsort((ev["step"], ev["gid"]))
    gid, hand, ctx, act = (ev[k][order] for k in ("gid", "hand_no", "ctx", "action"))
    truco_call = (act >= C.A_TRUCO) & (act <= C.A_VALE4)
    env_call = (act >= C.A_ENVIDO) & (act <= C.A_FALTA)
    pending_t: dict[int, int] = {}
    pending_e: dict[int, int] = {}
    for i in range(n):
        g = int(gid[i]) * 4096 + int(hand[i])
        if ctx[i] == CTX_TRUCO and g in pending_t:
            out[order[pending_t.pop(g)]] = act[i]
        if ctx[i] == CTX_ENVIDO and g in pending_e:
            out[order[pending_e.pop(g)]] = act[i]
        if truco_call[i]:
            pending_t[g] = i
        if env_call[i]:
            pending_e[g] = i
    return out


def _binned(x, cond, hit, bins):
    idx = np.clip(np.digitize(x, bins) - 1, 0, len(bins) - 2)
    k = np.bincount(idx[cond & hit], minlength=len(bins) - 1)
    n = np.bincount(idx[cond], minlength=len(bins) - 1)
    p, lo, hi = rate_bands(k, n)
    return {"k": k.tolist(), "n": n.tolist(), "rate": p.tolist(), "lo": lo.tolist(),
            "hi": hi.tolist()}


def _rate(k: int, n: int) -> dict:
    p = k / n if n else float("nan")
    lo, hi = wilson(p, n) if n else (float("nan"), float("nan"))
    return {"k": int(k), "n": int(n), "rate": p, "lo": lo, "hi": hi}


def _mean(x: np.ndarray) -> dict:
    x = x[~np.isnan(x)]
    m, lo, hi = mean_interval(x)
    return {"n": int(len(x)), "mean": m, "lo": lo, "hi": hi}


def bluff_analytics(ev: dict, hands: dict, names: Sequence[str]) -> dict[str, Any]:
    """Per agent: call and answer rates by strength, envido points, baza and position; bluff
    rate, bluff success and slow play (definitions in the module docstring and the report)."""
    ev = {k: np.asarray(v) for k, v in ev.items()}
    net = _join_hand_points(ev, hands)
    answer = _answers(ev)
    act, ctx = ev["action"].astype(np.int64), ev["ctx"]
    free = ctx == CTX_FREE
    s, pct, e = ev["strength"], ev["percentile"], ev["envido"].astype(np.int64)
    tcall = (act >= C.A_TRUCO) & (act <= C.A_VALE4)
    ecall = (act >= C.A_ENVIDO) & (act <= C.A_FALTA)
    low, high = pct < 1 / 3, pct >= 2 / 3
    elow, ehigh = e <= ENVIDO_LOW, e >= ENVIDO_HIGH
    fold = (answer == C.A_NO_QUIERO) | (answer == C.A_MAZO)
    out: dict[str, Any] = {"agents": {}, "definitions": {
        "strength": "P(win the hand vs a random hand), best-vs-best bazas (exact)",
        "bottom_third": "strength percentile < 1/3 among dealt hands",
        "envido_low": ENVIDO_LOW, "envido_high": ENVIDO_HIGH,
        "strength_bins": STRENGTH_BINS.tolist(), "envido_bins": ENVIDO_BINS.tolist()}}
    for a, name in enumerate(names):
        me = ev["agent"] == a
        if not me.any():
            continue
        d: dict[str, Any] = {"decisions": int(me.sum())}
        # ---- calls: opportunities where the call was legal on the agent's own turn
        calls = {}
        for lvl, nm in enumerate(TRUCO_NAMES, 1):
            opp = me & free & (ev["can_truco"] == lvl)
            hit = act == C.A_TRUCO + lvl - 1
            calls[nm] = {"overall": _rate(int((opp & hit).sum()), int(opp.sum())),
                         "by_strength": _binned(s, opp, hit, STRENGTH_BINS)}
        opp_e = me & free & ev["can_envido"]
        calls["envido"] = {"overall": _rate(int((opp_e & ecall).sum()), int(opp_e.sum())),
                           "by_points": _binned(e, opp_e, ecall, ENVIDO_BINS)}
        d["calls"] = calls
        opp_t = me & free & (ev["can_truco"] > 0)
        d["truco_by_baza"] = {str(b + 1): _binned(s, opp_t & (ev["baza"] == b), tcall,
                                                  STRENGTH_BINS) for b in range(3)}
        d["truco_by_position"] = {nm: _binned(s, opp_t & (ev["position"] == p), tcall,
                                              STRENGTH_BINS)
                                  for p, nm in enumerate(("mano", "pie", "middle"))
                                  if (opp_t & (ev["position"] == p)).any()}
        d["envido_by_position"] = {nm: _binned(e, opp_e & (ev["position"] == p), ecall,
                                               ENVIDO_BINS)
                                   for p, nm in enumerate(("mano", "pie", "middle"))
                                   if (opp_e & (ev["position"] == p)).any()}
        # ---- answers
        answers = {}
        for lvl, nm in enumerate(TRUCO_NAMES, 1):
            ans = me & (ctx == CTX_TRUCO) & (ev["level"] == lvl)
            accept = (act == C.A_QUIERO) | ((act >= C.A_RETRUCO) & (act <= C.A_VALE4))
            raise_ = (act >= C.A_RETRUCO) & (act <= C.A_VALE4)
            decided = ans & (act != C.A_ENVIDO) & (act != C.A_REAL) & (act != C.A_FALTA)
            answers[nm] = {"accept": _rate(int((decided & accept).sum()), int(decided.sum())),
                           "raise": _rate(int((decided & raise_).sum()), int(decided.sum())),
                           "accept_by_strength": _binned(s, decided, accept, STRENGTH_BINS),
                           "raise_by_strength": _binned(s, decided, raise_, STRENGTH_BINS)}
        ans_e = me & (ctx == CTX_ENVIDO)
        acc_e = (act == C.A_QUIERO) | ecall
        answers["envido"] = {"accept": _rate(int((ans_e & acc_e).sum()), int(ans_e.sum())),
                             "raise": _rate(int((ans_e & ecall).sum()), int(ans_e.sum())),
                             "accept_by_points": _binned(e, ans_e, acc_e, ENVIDO_BINS),
                             "raise_by_points": _binned(e, ans_e, ecall, ENVIDO_BINS)}
        d["answers"] = answers
        # ---- bluffs: truco calls and raises (own turn or answering) with a bottom-third hand
        tc = me & tcall
        ec = me & ecall
        d["bluff"] = {
            "truco_share": _rate(int((tc & low).sum()), int(tc.sum())),
            "truco_frequency": _rate(int((me & opp_t & low & tcall).sum()),
                                     int((opp_t & low).sum())),
            "envido_share": _rate(int((ec & elow).sum()), int(ec.sum())),
            "fold_truco_bluff": _rate(int((tc & low & fold).sum()),
                                      int((tc & low & (answer >= 0)).sum())),
            "fold_truco_honest": _rate(int((tc & ~low & fold).sum()),
                                       int((tc & ~low & (answer >= 0)).sum())),
            "fold_envido_bluff": _rate(int((ec & elow & fold).sum()),
                                       int((ec & elow & (answer >= 0)).sum())),
            "fold_envido_honest": _rate(int((ec & ~elow & fold).sum()),
                                        int((ec & ~elow & (answer >= 0)).sum())),
            "points_truco_bluff": _mean(net[tc & low]),
            "points_truco_honest": _mean(net[tc & ~low]),
            "points_envido_bluff": _mean(net[ec & elow]),
            "points_envido_honest": _mean(net[ec & ~elow]),
        }
        # ---- slow play: per (game, hand, seat) with a top-third hand and a chance to call
        key = ev["gid"] * 4096 * 8 + ev["hand_no"].astype(np.int64) * 8 + ev["seat"]
        d["slow_play"] = {
            "truco": _slow(key, me & opp_t & high, me & tcall),
            "envido": _slow(key, me & opp_e & ehigh, me & ecall),
            "truco_by_strength": _hand_level(key, me & opp_t, me & tcall, s, STRENGTH_BINS),
        }
        out["agents"][name] = d
    return out


def _slow(key, opportunity, called) -> dict:
    """Share of hands with an opportunity where the seat never made the call."""
    hands = np.unique(key[opportunity])
    if len(hands) == 0:
        return _rate(0, 0)
    made = np.isin(hands, key[called])
    return _rate(int((~made).sum()), len(hands))


def _hand_level(key, opportunity, called, x, bins) -> dict:
    """P(the seat calls at least once in the hand) by strength bin, per hand with a chance."""
    hk, first = np.unique(key[opportunity], return_index=True)
    xs = x[opportunity][first]
    made = np.isin(hk, key[called])
    return _binned(xs, np.ones(len(hk), bool), made, bins)


# ============================================================================ records

def events_from_records(records: Sequence[dict], log: EventLog | None = None,
                        agent_of: Callable[[dict, int], int] | None = None) -> EventLog:
    """Replay match records (``env.unwrapped.record()``) into an :class:`EventLog`.

    ``agent_of(record, seat)`` gives the agent index of a seat (default: its team, 0 or 1).
    """
    from .game import rules_from_dict
    log = log or EventLog()
    for r_i, rec in enumerate(records):
        if rec.get("format") != "truco_env.record/1":
            raise ValueError(f"record {r_i}: not a truco_env record (format "
                             f"{rec.get('format')!r})")
        rules = rules_from_dict(rec["rules"])
        tables = rules.tables()
        P = rec["players"]
        S = C.new_state(1, P, np.array(rec.get("start_score", [0, 0])))
        seat_agent = np.array([agent_of(rec, p) if agent_of else p % 2 for p in range(P)])
        strength = _Strength(1)
        mask = np.zeros((1, NUM_ACTIONS), np.bool_)
        gid = np.array([r_i])
        step = 0
        for h_i, h in enumerate(rec["hands"]):
            deck = [parse_card(c) for hand in h["deal"] for c in hand]
            if h.get("muestra"):
                deck.append(parse_card(h["muestra"]))
            deck += [c for c in range(NUM_CARDS) if c not in deck]
            C.start_hand(S, tables, np.array([0]), np.array([deck], np.int32),
                         np.array([h["mano"]], np.int32))
            strength.update(S, [0])
            for name in h["actions"]:
                a = ACTION_ID[name]
                C.legal_mask(S, tables, mask)
                if not mask[0, a]:
                    raise ValueError(f"record {r_i} hand {h_i}: illegal action {name!r}")
                actions = np.array([a])
                log.decisions(S, np.array([0]), gid, seat_agent[[S[0, C.ACTOR]]], actions, mask,
                              strength.s, strength.p, step)
                C.step(S, tables, actions)
                step += 1
            if S[0, C.HAND_OVER] == 1:
                log.hand_results(S, np.array([0]), gid)
    return log


# ============================================================================ probe

@dataclass
class ProbeSituation:
    """A position set up through reset options and actions, for :func:`probe`."""

    hand: list[str]
    players: int = 2
    rules: str = "argentino"
    target: int | None = None
    flor: bool | None = None
    mano: int = 0
    score: tuple[int, int] | None = None
    muestra: str | None = None
    actions: list[str] = field(default_factory=list)   # card strings and action names
    seed: int = 0


def setup_probe(sit: ProbeSituation):
    """The environment in the situation, with seat 0 (holding ``sit.hand``) to act.

    Cards in ``actions`` are played by whoever is to act; another player's cards are dealt to
    him.  Returns the (wrapped) PettingZoo environment.
    """
    from .env import env as make_env
    P = sit.players
    mine = [parse_card(c) for c in sit.hand]
    if len(mine) != 3:
        raise ValueError(f"--hand: expected 3 cards, got {sit.hand!r}")
    muestra = parse_card(sit.muestra) if sit.muestra else None
    tokens = list(sit.actions)
    forced: dict[int, list[int]] = {}
    for attempt in range(len(tokens) + 2):
        rng = np.random.default_rng(sit.seed)
        used = set(mine) | {c for cs in forced.values() for c in cs}
        if muestra is not None:
            used.add(muestra)
        free = [c for c in rng.permutation(NUM_CARDS).tolist() if c not in used]
        hands = [mine]
        for p in range(1, P):
            got = list(forced.get(p, []))
            while len(got) < 3:
                got.append(free.pop())
            hands.append(got)
        e = make_env(players=P, rules=sit.rules, target=sit.target, flor=sit.flor)
        opts: dict[str, Any] = {"hands": [[_cs(c) for c in h] for h in hands], "mano": sit.mano}
        if sit.score is not None:
            opts["score"] = list(sit.score)
        if sit.muestra:
            opts["muestra"] = sit.muestra
        e.reset(seed=sit.seed, options=opts)
        raw = e.unwrapped
        redo = False
        for tok in tokens:
            seat = int(raw.game.S[0, C.ACTOR])
            if tok in ACTION_ID:
                a = ACTION_ID[tok]
            else:
                c = parse_card(tok)
                dealt = [int(x) for x in raw.game.S[0, C.HAND + 3 * seat:C.HAND + 3 * seat + 3]]
                if c not in dealt:
                    if seat == 0 or c in mine or len(forced.get(seat, [])) >= 3 \
                            or any(c in v for v in forced.values()):
                        raise ValueError(f"card {tok!r} cannot be played by player_{seat} "
                                         f"(hand {[_cs(x) for x in dealt]})")
                    forced.setdefault(seat, []).append(c)
                    redo = True
                    break
                a = dealt.index(c)
            e.step(a)
        if not redo:
            break
    seat = int(raw.game.S[0, C.ACTOR])
    if raw.game.S[0, C.HAND_OVER]:
        raise ValueError("the hand is over after those actions; nothing to probe")
    if seat != 0:
        raise ValueError(f"after the actions it is player_{seat}'s turn, not player_0's (the "
                         f"probed hand); add that player's action")
    return e


def _cs(c: int) -> str:
    from .cards import card_str
    return card_str(c)


def action_probs(agent: Any, observation: dict, view: dict, samples: int = 2000,
                 seed: int = 0) -> tuple[np.ndarray, str]:
    """The agent's action distribution: ``action_probs`` if it has one, its network's
    softmax if it is a PPO policy, else the frequencies of ``samples`` sampled actions."""
    obs = np.asarray(observation["observation"], np.float32)
    mask = np.asarray(observation["action_mask"]).astype(bool)
    if hasattr(agent, "action_probs"):
        p = np.asarray(agent.action_probs(obs[None], mask[None]), np.float64).reshape(-1)
        return p, "exact (agent.action_probs)"
    net = getattr(agent, "net", None)
    if net is not None and hasattr(net, "forward"):
        import torch
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(obs[None]), torch.as_tensor(mask[None]))
            p = torch.softmax(logits, 1)[0].numpy().astype(np.float64)
        if getattr(agent, "greedy", False):
            p = np.eye(len(p))[int(p.argmax())]
        return p, "exact (policy network softmax)"
    if hasattr(agent, "reseed"):
        agent.reseed(seed)
    if has_batch(agent):
        a = np.asarray(agent.act_batch(np.repeat(obs[None], samples, 0),
                                       np.repeat(mask[None], samples, 0)))
    else:
        a = np.array([agent.act(observation, view) for _ in range(samples)])
    return np.bincount(a, minlength=NUM_ACTIONS) / samples, f"sampled ({samples} decisions)"


# ============================================================================ exploitability

def parse_budget(text: str) -> float:
    """``'20m'`` -> 1200.0 seconds; also ``'90s'``, ``'1h'``, ``'45'`` (seconds)."""
    t = str(text).strip().lower()
    mult = {"s": 1, "m": 60, "h": 3600}
    try:
        if t and t[-1] in mult:
            v = float(t[:-1]) * mult[t[-1]]
        else:
            v = float(t)
    except ValueError:
        raise ValueError(f"bad budget {text!r}: expected e.g. '20m', '90s', '1h'") from None
    if v <= 0:
        raise ValueError(f"bad budget {text!r}: must be positive")
    return v


def cpu_count() -> int:
    return os.cpu_count() or 1
