"""Bluff analytics: every decision logged with the hand's strength, then call, answer, bluff and
slow-play rates by strength, envido points, baza and position.

Decisions come from played matches (:class:`EventLog` hooks into :func:`truco_env.loop.play`)
or from match records (:func:`events_from_records` replays them through the match driver).

Hand strength (:mod:`truco_env.strength`): for a 3-card hand, the probability that it wins a
hand against 3 cards dealt uniformly from the other cards, when the bazas pair the cards best
against best, middle against middle and worst against worst, under the hand-winning rules of
the core (three pardas counted as one half).  Exact, per muestra.  The *strength percentile*
is the share of dealt hands that are weaker (half of the equal ones).

* A *truco bluff* is a truco, retruco or vale cuatro call or raise with a hand in the bottom
  third of dealt hands (percentile < 1/3); *slow play*: a top-third hand (>= 2/3) with a chance
  to call and no call in the whole hand.
* Envido: the bottom third of envido points (<= :data:`ENVIDO_LOW`, from all 9880 argentino
  hands) defines an envido bluff, the top third (>= :data:`ENVIDO_HIGH`) envido slow play.
* *Fold*: the call was answered no quiero (or mazo).  Points per call: the net points of the
  hand for the caller's team.  Every rate has a 95% Wilson interval
  (:func:`evaluation.stats.wilson`), every mean a t interval.
"""
from __future__ import annotations

import glob
import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from truco_env import core as C
from truco_env.game import IllegalActionError, Matches, RecordedDeals, rules_from_dict
from truco_env.records import load_record
from truco_env.rules import ACTION_ID
from truco_env.strength import points_distributions, rank_key, strength_table

from .stats import mean_interval, rate_bands, wilson

# Decision contexts of the event log.
CTX_FREE, CTX_TRUCO, CTX_ENVIDO, CTX_FLOR = 0, 1, 2, 3
EVENT_FIELDS = ("gid", "agent", "seat", "hand_no", "step", "baza", "position", "ctx", "level",
                "chain", "action", "can_truco", "can_envido", "envido", "strength", "percentile")
HAND_FIELDS = ("gid", "hand_no", "pts0", "pts1")

TRUCO_NAMES = ("truco", "retruco", "vale_cuatro")
STRENGTH_BINS = np.linspace(0.0, 1.0, 11)
ENVIDO_BINS = np.array([0, 10, 20, 24, 26, 28, 30, 32, 34, 48])


def _envido_terciles() -> tuple[int, int]:
    cdf = np.cumsum(points_distributions()[0])
    return int(np.argmax(cdf >= 1 / 3)), int(np.argmax(cdf >= 2 / 3)) + 1


#: Envido points at or below ENVIDO_LOW are the bottom third of dealt hands, at or above
#: ENVIDO_HIGH the top third (argentino, all 9880 hands).
ENVIDO_LOW, ENVIDO_HIGH = _envido_terciles()


# ============================================================================ the event log
class EventLog:
    """Decisions and hand results of many games, for :func:`bluff_analytics`.

    One row per decision (columns :data:`EVENT_FIELDS`); ``gid`` identifies a game across
    batches, ``agent`` is an index given by the caller.  ``can_truco`` is the level that a truco
    call would reach (1..3) where one is legal, else 0; ``can_envido`` whether an envido call
    (envido, real or falta, opening or raising) is legal.  ``position``: 0 mano, 1 pie (last
    to play), 2 in between.  Fill it with the hooks of :meth:`watch`.
    """

    def __init__(self):
        self.rows: list[dict[str, np.ndarray]] = []
        self.hands: list[dict[str, np.ndarray]] = []

    def watch(self, gid: np.ndarray, seat_agent: np.ndarray) -> "Watcher":
        """Hooks that log the games of one driver: ``gid[g]`` names game ``g`` and
        ``seat_agent[g, seat]`` the agent index at each seat.  Pass ``on_decision`` and
        ``on_hand_end`` to :func:`truco_env.loop.play`."""
        return Watcher(self, gid, seat_agent)

    def tables(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Concatenated ``(events, hands)`` column dicts."""
        return concat_tables(self.rows, EVENT_FIELDS), concat_tables(self.hands, HAND_FIELDS)


class Watcher:
    """The loop hooks of an :class:`EventLog` for one batch of games (see
    :meth:`EventLog.watch`); the strength of each dealt hand is computed at its first
    decision."""

    def __init__(self, log: EventLog, gid: np.ndarray, seat_agent: np.ndarray):
        self.log = log
        self.gid = np.asarray(gid, dtype=np.int64)
        self.seat_agent = np.asarray(seat_agent, dtype=np.int64)
        G = len(self.gid)
        self.strength = np.zeros((G, C.P_MAX), np.float32)
        self.percentile = np.zeros((G, C.P_MAX), np.float32)
        self.hand_no = np.full(G, -1, np.int64)
        self.step = 0

    def _strengths(self, S: np.ndarray, rows: np.ndarray) -> None:
        for g in rows[self.hand_no[rows] != S[rows, C.HAND_NO]]:
            P = int(S[g, C.NPLAYERS])
            s, pct = strength_table(int(S[g, C.MUESTRA]))
            keys = rank_key(S[g, C.HRANK:C.HRANK + 3 * P].reshape(P, 3))
            self.strength[g, :P] = s[keys]
            self.percentile[g, :P] = pct[keys]
            self.hand_no[g] = S[g, C.HAND_NO]

    def on_decision(self, game: Matches, rows: np.ndarray, actions: np.ndarray,
                    mask: np.ndarray) -> None:
        """Log the decisions of ``rows`` (before the step)."""
        step, self.step = self.step, self.step + 1
        if len(rows) == 0:
            return
        S = game.S
        self._strengths(S, rows)
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
        self.log.rows.append({
            "gid": self.gid[rows], "agent": self.seat_agent[rows, seat].astype(np.int16),
            "seat": seat.astype(np.int8), "hand_no": Sr[:, C.HAND_NO].astype(np.int32),
            "step": np.full(len(rows), step, np.int32), "baza": Sr[:, C.BAZA].astype(np.int8),
            "position": position.astype(np.int8), "ctx": ctx.astype(np.int8),
            "level": level.astype(np.int8), "chain": Sr[:, C.ENVIDO_CHAIN_ID].astype(np.int8),
            "action": actions[rows].astype(np.int8), "can_truco": can_t,
            "can_envido": can_e.astype(np.bool_),
            "envido": Sr[np.arange(len(rows)), C.ENVIDO_PTS + seat].astype(np.int8),
            "strength": self.strength[rows, seat], "percentile": self.percentile[rows, seat]})

    def on_hand_end(self, game: Matches, games: np.ndarray) -> None:
        """Log the points of the hands that just ended in ``games`` (before the next deal)."""
        if len(games) == 0:
            return
        S = game.S
        self.log.hands.append({"gid": self.gid[games],
                               "hand_no": S[games, C.HAND_NO].astype(np.int32),
                               "pts0": S[games, C.HAND_PTS].astype(np.int16),
                               "pts1": S[games, C.HAND_PTS + 1].astype(np.int16)})


def concat_tables(parts: list[dict[str, np.ndarray]], fields: Sequence[str]) -> dict:
    if not parts:
        return {f: np.zeros(0) for f in fields}
    return {f: np.concatenate([p[f] for p in parts]) for f in fields}


# ============================================================================ records
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


def events_from_records(records: Sequence[dict], log: EventLog | None = None,
                        agent_of: Callable[[dict, int], int] | None = None) -> EventLog:
    """Replay match records (``env.unwrapped.record()``) into an :class:`EventLog`.

    Each record is replayed through the match driver with its recorded deals
    (:class:`truco_env.game.RecordedDeals`), every action checked for legality, and logged by
    the same hooks as a played match.  ``agent_of(record, seat)`` gives the agent index of a
    seat (default: its team, 0 or 1).
    """
    log = log or EventLog()
    rows = np.array([0])
    for r_i, rec in enumerate(records):
        try:
            rec = load_record(rec)
        except ValueError as exc:
            raise ValueError(f"record {r_i}: {exc}") from None
        P = rec["players"]
        game = Matches(1, P, rules_from_dict(rec["rules"]), episode=rec.get("episode", "match"),
                       reward=rec.get("reward"))
        watch = log.watch(np.array([r_i]), np.array([[agent_of(rec, p) if agent_of else p % 2
                                                      for p in range(P)]]))
        if not rec["hands"]:
            continue
        game.reset(score=rec.get("start_score"), deals=RecordedDeals(rec["hands"], P))
        for h_i, h in enumerate(rec["hands"]):
            if h_i:
                game.next_hand(rows)
            for name in h["actions"]:
                if name not in ACTION_ID:
                    raise ValueError(f"record {r_i} hand {h_i}: unknown action {name!r}")
                actions = np.array([ACTION_ID[name]])
                mask = game.legal_mask().copy()
                try:
                    game.check_actions(actions)
                except IllegalActionError as exc:
                    raise ValueError(f"record {r_i} hand {h_i}: {exc}") from None
                watch.on_decision(game, rows, actions, mask)
                game.step(actions.astype(np.int32))
            if game.S[0, C.HAND_OVER] == 1:
                watch.on_hand_end(game, rows)
    return log


# ============================================================================ analytics
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
