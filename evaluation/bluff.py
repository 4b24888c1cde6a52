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
  hand for the caller's team (three-player modes: the caller's points minus the mean of the
  other two players', as ``reward="points"``; destantado's songs are answered by each of the
  others, and a call's answer here is the first).  Every rate has a 95% Wilson interval
  (:func:`evaluation.stats.wilson`), every mean a t interval.

:func:`bluff_claims` states the three claims a reviewer checks, per opponent: envido acceptance
by envido points, truco / retruco call rates by strength quintile (the weak quintiles' rate is
the bluff rate), and the net points and fold rate of calls with weak hands (strength percentile
< :data:`WEAK_PCT`) against calls with strong ones; :func:`play_against` plays an agent against
a list of opponents for them, :func:`analyse_records` replays records.
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
from truco_env.rules import ACTION_ID, ENVIDO_CALL_IDS
from truco_env.view import hand_points_by_source
from truco_env.strength import points_distributions, rank_key, strength_table

from .stats import Z95, mean_interval, rate_bands, wilson

# Decision contexts of the event log.
CTX_FREE, CTX_TRUCO, CTX_ENVIDO, CTX_FLOR = 0, 1, 2, 3
EVENT_FIELDS = ("gid", "agent", "seat", "players", "hand_no", "step", "baza", "position", "ctx",
                "level", "chain", "action", "can_truco", "can_envido", "envido", "strength",
                "percentile")
HAND_FIELDS = ("gid", "hand_no", "pts0", "pts1", "pts2", "env0", "env1", "env2", "side0",
               "side1")

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
    to play), 2 in between, in the hand or, in pica-pica, in the duel in progress (its mano
    and its rival).  ``players``: 3 in the three-player modes, whose hand points ``pts0..2``
    are per seat (else ``pts0``, ``pts1`` by team); ``env0..2`` are the envido points each
    team scored (:func:`truco_env.view.hand_points_by_source`), ``side0``/``side1`` the agent
    index of team 0's and team 1's seats in a team game (-1 in the three-player modes).  Fill
    it with the hooks of :meth:`watch`.
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
        self.before_discard = np.zeros(G, bool)
        self.step = 0

    def _strengths(self, S: np.ndarray, rows: np.ndarray) -> None:
        # Pata de gallo: the gallo's three cards are known after his discard, so strengths
        # taken during the discard are taken again at the hand's next decision.
        stale = (self.hand_no[rows] != S[rows, C.HAND_NO]) | self.before_discard[rows]
        for g in rows[stale]:
            P = int(S[g, C.NPLAYERS])
            s, pct = strength_table(int(S[g, C.MUESTRA]))
            keys = rank_key(S[g, C.HRANK:C.HRANK + 3 * P].reshape(P, 3))
            self.strength[g, :P] = s[keys]
            self.percentile[g, :P] = pct[keys]
            self.hand_no[g] = S[g, C.HAND_NO]
            self.before_discard[g] = S[g, C.DISCARDING] == 1

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
        last = Sr[np.arange(len(rows)), C.NEXT + seat] == Sr[:, C.MANO]   # of the hand or duel
        position = np.where(seat == Sr[:, C.MANO], 0, np.where(last, 1, 2))
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
            "seat": seat.astype(np.int8), "players": P.astype(np.int8),
            "hand_no": Sr[:, C.HAND_NO].astype(np.int32),
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
        envido = hand_points_by_source(S, games)[:, :, C.SRC_ENVIDO]       # [games, team]
        env = {f"env{k}": envido[:, k].astype(np.int16) for k in range(3)}
        teams = S[games, C.NPLAYERS] != 3
        self.log.hands.append({"gid": self.gid[games],
                               "hand_no": S[games, C.HAND_NO].astype(np.int32),
                               "pts0": S[games, C.HAND_PTS].astype(np.int16),
                               "pts1": S[games, C.HAND_PTS + 1].astype(np.int16),
                               "pts2": S[games, C.HAND_PTS + 2].astype(np.int16), **env,
                               "side0": np.where(teams, self.seat_agent[games, 0], -1
                                                 ).astype(np.int16),
                               "side1": np.where(teams, self.seat_agent[games, 1], -1
                                                 ).astype(np.int16)})


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
    seat (default: its team, 0 or 1; in the three-player modes the seat).
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
        watch = log.watch(np.array([r_i]), np.array([[agent_of(rec, p) if agent_of else
                                                      (p if P == 3 else p % 2)
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
#: Hands of a match per game id in a hand key (:func:`_hand_key`); a match has far fewer.
_HANDS_PER_GAME = 4096
#: The positions of EventLog's ``position`` (mano, pie, in between).
_POSITIONS = ("mano", "pie", "middle")


def _hand_key(gid, hand_no) -> np.ndarray:
    """One int64 per hand of a game (``gid``, ``hand_no``): the key that joins decisions to
    hands, the one rule for it."""
    return np.asarray(gid, np.int64) * _HANDS_PER_GAME + np.asarray(hand_no, np.int64)


def _join_hand_points(ev: dict, hands: dict) -> np.ndarray:
    """Net points of the hand of each event for the acting seat: its team's points minus the
    other team's; in the three-player modes (``players`` 3) its own points minus the mean of
    the other two players' (pata de gallo: points won; destantado: tantos shed), as
    ``reward="points"`` counts them."""
    if len(ev["gid"]) == 0:
        return np.zeros(0)
    hk = _hand_key(hands["gid"], hands["hand_no"])
    order = np.argsort(hk)
    hk = hk[order]
    pts = np.stack([np.asarray(hands.get(f"pts{k}", np.zeros(len(hk))), np.float64)[order]
                    for k in range(3)], axis=1)
    ek = _hand_key(ev["gid"], ev["hand_no"])
    pos = np.clip(np.searchsorted(hk, ek), 0, max(len(hk) - 1, 0))
    found = hk[pos] == ek if len(hk) else np.zeros(len(ek), bool)
    if not len(hk):
        return np.full(len(ek), np.nan)
    p = pts[pos]
    seat = ev["seat"].astype(np.int64)
    team = seat % 2
    by_team = np.where(team == 0, p[:, 0] - p[:, 1], p[:, 1] - p[:, 0])
    mine = p[np.arange(len(ek)), np.minimum(seat, 2)]
    single = mine - (p.sum(axis=1) - mine) / 2
    three = np.asarray(ev.get("players", np.zeros(len(ek)))) == 3
    return np.where(found, np.where(three, single, by_team), np.nan)


def _answers(ev: dict) -> np.ndarray:
    """For every event: the action that answered it, for the truco or envido call it made
    (-1 when the event is not such a call or no answer came)."""
    n = len(ev["gid"])
    out = np.full(n, -1, np.int64)
    if n == 0:
        return out
    order = np.lexsort((ev["step"], ev["gid"]))
    ctx, act = (ev[k][order] for k in ("ctx", "action"))
    keys = _hand_key(ev["gid"][order], ev["hand_no"][order]).tolist()
    truco_call = (act >= C.A_TRUCO) & (act <= C.A_VALE4)
    env_call = (act >= C.A_ENVIDO) & (act <= C.A_FALTA)
    pending_t: dict[int, int] = {}
    pending_e: dict[int, int] = {}
    for i, g in enumerate(keys):
        if ctx[i] == CTX_TRUCO and g in pending_t:
            out[order[pending_t.pop(g)]] = act[i]
        if ctx[i] == CTX_ENVIDO and g in pending_e:
            out[order[pending_e.pop(g)]] = act[i]
        if truco_call[i]:
            pending_t[g] = i
        if env_call[i]:
            pending_e[g] = i
    return out


#: The letters of the envido calls in a chain (rules.ENVIDO_CHAIN: E, R, F in the order of
#: rules.ENVIDO_CALL_IDS).
_CHAIN_LETTER = dict(zip(ENVIDO_CALL_IDS, "ERF"))
#: How an envido chain ended, by the action that answered its last call.
_ENVIDO_END = {C.A_QUIERO: "quiero", C.A_NO_QUIERO: "no quiero"}


def envido_sources(ev: dict, hands: dict, names: Sequence[str]) -> dict[str, dict]:
    """Per agent: where its side's envido points come from, by kind of hand.

    A hand's kind is who opened the envido (``it``: the agent's side, ``rival``, or ``none``),
    the opener's position (mano, pie, middle), the chain of calls (``"EF"``: envido, then falta
    envido over it) and how it ended (``quiero``: a showdown, ``no quiero``, ``unanswered``).
    Each row gives the share of the agent's hands of that kind and the envido points per hand
    that its side and the other scored in them, over all its hands, so the rows' nets add up to
    the agent's envido net per hand.  Team games only (the three-player modes have three
    sides); a side played by the same agent on both teams (self-play) counts once per side.
    """
    ev = {k: np.asarray(v) for k, v in ev.items()}
    out: dict[str, dict] = {}
    if not len(hands.get("gid", ())) or "side0" not in hands:
        return out
    answer = _answers(ev)
    act = ev["action"].astype(np.int64)
    call = (act >= C.A_ENVIDO) & (act <= C.A_FALTA)
    order = np.lexsort((ev["step"], ev["gid"]))
    order = order[call[order]]
    opened: dict[int, list] = {}      # hand key -> [opener team, position, chain, end]
    keys = _hand_key(ev["gid"][order], ev["hand_no"][order]).tolist()
    for i, key in zip(order, keys):
        if key not in opened:
            opened[key] = [int(ev["seat"][i]) % 2, _POSITIONS[int(ev["position"][i])], "", ""]
        row = opened[key]
        row[2] += _CHAIN_LETTER[int(act[i])]
        row[3] = _ENVIDO_END.get(int(answer[i]), "unanswered")
    gid, hand_no = np.asarray(hands["gid"]), np.asarray(hands["hand_no"])
    env = np.stack([np.asarray(hands[f"env{k}"], np.float64) for k in range(2)], axis=1)
    sides = np.stack([np.asarray(hands["side0"]), np.asarray(hands["side1"])], axis=1)
    # per hand and side: the kind's index (the opener seen from that side)
    kinds: list[tuple] = [("none", "", "", "")]
    index = {kinds[0]: 0}
    kind = np.zeros((len(gid), 2), np.int64)
    for h, key in enumerate(_hand_key(gid, hand_no).tolist()):
        info = opened.get(key)
        if info is None:
            continue
        for team in (0, 1):
            k = ("it" if info[0] == team else "rival", *info[1:])
            kind[h, team] = index.setdefault(k, len(kinds))
            if kind[h, team] == len(kinds):
                kinds.append(k)
    for a, name in enumerate(names):
        h, team = np.nonzero(sides == a)
        total = len(h)
        if not total:
            continue
        acc = np.zeros((len(kinds), 3))
        np.add.at(acc, kind[h, team], np.stack([np.ones(total), env[h, team],
                                                env[h, 1 - team]], axis=1))
        rows = [{"opener": kinds[k][0], "position": kinds[k][1], "chain": kinds[k][2],
                 "end": kinds[k][3], "share": acc[k, 0] / total, "mine": acc[k, 1] / total,
                 "theirs": acc[k, 2] / total, "net": (acc[k, 1] - acc[k, 2]) / total}
                for k in np.argsort(-acc[:, 0], kind="stable") if acc[k, 0] > 0]
        out[name] = {"hands": total, "rows": rows,
                     "mine": sum(r["mine"] for r in rows),
                     "theirs": sum(r["theirs"] for r in rows)}
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
                                  for p, nm in enumerate(_POSITIONS)
                                  if (opp_t & (ev["position"] == p)).any()}
        d["envido_by_position"] = {nm: _binned(e, opp_e & (ev["position"] == p), ecall,
                                               ENVIDO_BINS)
                                   for p, nm in enumerate(_POSITIONS)
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
        key = _hand_key(ev["gid"], ev["hand_no"]) * 8 + ev["seat"]
        d["slow_play"] = {
            "truco": _slow(key, me & opp_t & high, me & tcall),
            "envido": _slow(key, me & opp_e & ehigh, me & ecall),
            "truco_by_strength": _hand_level(key, me & opp_t, me & tcall, s, STRENGTH_BINS),
        }
        out["agents"][name] = d
    for name, src in envido_sources(ev, hands, names).items():
        out["agents"][name]["envido_sources"] = src
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


# ============================================================================ the three claims
#: Envido points bins of claim 1 (edges; the last bin is open): <=20, 21-23, 24-26, 27-29, 30+.
CLAIM_ENVIDO_BINS = np.array([0, 21, 24, 27, 30, 99])
CLAIM_ENVIDO_LABELS = ("<=20", "21-23", "24-26", "27-29", "30+")
#: Strength-percentile bins of claims 2 and 3: quintiles of dealt hands (Q1 the weakest fifth).
CLAIM_STRENGTH_BINS = np.linspace(0.0, 1.0, 6)
#: *Weak* hand: strength percentile < WEAK_PCT (Q1-Q2, the weakest 40% of dealt hands); a
#: truco-ladder call with one is a bluff.  *Strong* hand: percentile >= STRONG_PCT (Q4-Q5); a
#: call with one is honest.  The middle quintile is neither.
WEAK_PCT, STRONG_PCT = 0.4, 0.6
FOLD_ACTIONS = (C.A_NO_QUIERO, C.A_MAZO)


def _quintile_labels() -> tuple[str, ...]:
    """``Q1 (s<0.20)`` ...: the strength at the quintile edges (no muestra)."""
    s, pct = strength_table()
    ok = ~np.isnan(pct)
    cut = [float(s[ok][pct[ok] >= q].min()) for q in CLAIM_STRENGTH_BINS[1:-1]]
    edges = ["0"] + [f"{c:.2f}" for c in cut] + ["1"]
    return tuple(f"Q{i + 1} (s {edges[i]}-{edges[i + 1]})" for i in range(5))


CLAIM_STRENGTH_LABELS = _quintile_labels()


def _opponents(ev: dict) -> np.ndarray:
    """The agent index of the other team in each event's game (the first agent seen there);
    in the three-player modes, of another agent at the table (the lowest other index seen)."""
    n = len(ev["gid"])
    if n == 0:
        return np.zeros(0, np.int64)
    three = np.asarray(ev.get("players", np.zeros(n))) == 3
    team = np.where(three, 0, ev["seat"] % 2).astype(np.int64)
    key = ev["gid"].astype(np.int64) * 2 + team
    uk, first = np.unique(key, return_index=True)
    agent = ev["agent"].astype(np.int64)[first]
    other = key ^ 1
    pos = np.clip(np.searchsorted(uk, other), 0, len(uk) - 1)
    found = uk[pos] == other
    out = np.where(found, agent[pos], -1)
    if three.any():
        gid = ev["gid"].astype(np.int64)[three]
        me = ev["agent"].astype(np.int64)[three]
        big = np.iinfo(np.int64).max
        ug, inv = np.unique(gid, return_inverse=True)
        lo = np.full(len(ug), big)
        np.minimum.at(lo, inv, me)
        hi = np.full(len(ug), -1)
        np.maximum.at(hi, inv, me)
        out[three] = np.where(me == lo[inv], np.where(hi[inv] != me, hi[inv], -1), lo[inv])
    return out


def _truco_answers(ev: dict) -> np.ndarray:
    """For every truco-ladder call: the answer that decided it (quiero, no quiero, mazo or a
    raise), skipping an envido or flor sung first; -1 for other events or no answer."""
    n = len(ev["gid"])
    out = np.full(n, -1, np.int64)
    if n == 0:
        return out
    order = np.lexsort((ev["step"], ev["gid"]))
    ctx, act = (ev[k][order].astype(np.int64) for k in ("ctx", "action"))
    keys = _hand_key(ev["gid"][order], ev["hand_no"][order]).tolist()
    call = (act >= C.A_TRUCO) & (act <= C.A_VALE4)
    sung = (act >= C.A_ENVIDO) & (act <= C.A_ACHICO)
    pending: dict[int, int] = {}
    for i, g in enumerate(keys):
        if ctx[i] == CTX_TRUCO and not sung[i] and g in pending:
            out[order[pending.pop(g)]] = act[i]
        if call[i]:
            pending[g] = i
    return out


def _z_mean(x: np.ndarray) -> dict:
    """Mean with the normal 95% interval mean +- 1.96 sd / sqrt(n) (NaN bounds when n < 2)."""
    x = np.asarray(x, dtype=np.float64)
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return {"n": 0, "mean": float("nan"), "sd": float("nan"), "lo": float("nan"),
                "hi": float("nan")}
    m = float(x.mean())
    if n == 1:
        return {"n": 1, "mean": m, "sd": float("nan"), "lo": float("nan"), "hi": float("nan")}
    sd = float(x.std(ddof=1))
    half = Z95 * sd / np.sqrt(n)
    return {"n": n, "mean": m, "sd": sd, "lo": m - half, "hi": m + half}


def _contrast(b: dict) -> dict:
    """Top non-empty bin against the bottom non-empty bin of a :func:`_binned` table:
    ``diff`` of the rates and ``separated`` (the Wilson intervals do not overlap)."""
    nz = [i for i, n in enumerate(b["n"]) if n > 0]
    if len(nz) < 2:
        return {"low_bin": None, "high_bin": None, "diff": float("nan"), "separated": False}
    lo_i, hi_i = nz[0], nz[-1]
    return {"low_bin": lo_i, "high_bin": hi_i, "diff": b["rate"][hi_i] - b["rate"][lo_i],
            "separated": bool(b["lo"][hi_i] > b["hi"][lo_i])}


def _claims_scope(ev: dict, sel: np.ndarray, net: np.ndarray, answer: np.ndarray) -> dict:
    """The three claims over the decisions ``sel`` of one agent (definitions: module end)."""
    act, ctx = ev["action"].astype(np.int64), ev["ctx"]
    pct, e = ev["percentile"], ev["envido"].astype(np.int64)
    out: dict[str, Any] = {"games": int(len(np.unique(ev["gid"][sel]))),
                           "decisions": int(sel.sum())}
    # 1. envido answers: accept = quiero or a raise (which accepts the call it answers)
    ans = sel & (ctx == CTX_ENVIDO)
    quiero = act == C.A_QUIERO
    accept = quiero | ((act >= C.A_ENVIDO) & (act <= C.A_FALTA))
    env = _binned(e, ans, accept, CLAIM_ENVIDO_BINS)
    idx = np.clip(np.digitize(e, CLAIM_ENVIDO_BINS) - 1, 0, len(CLAIM_ENVIDO_BINS) - 2)
    env["quiero_k"] = np.bincount(idx[ans & quiero], minlength=len(CLAIM_ENVIDO_LABELS)).tolist()
    env["overall"] = _rate(int((ans & accept).sum()), int(ans.sum()))
    env["contrast"] = _contrast(env)
    out["envido_acceptance"] = env
    # 2. truco (when open) and retruco (when it may raise: own turn or answering a truco)
    weak, strong = pct < WEAK_PCT, pct >= STRONG_PCT
    calls: dict[str, Any] = {}
    for lvl, nm in ((1, "truco"), (2, "retruco")):
        opp = sel & (ev["can_truco"] == lvl) & ((ctx == CTX_FREE) | (ctx == CTX_TRUCO))
        hit = act == C.A_TRUCO + lvl - 1
        d = _binned(pct, opp, hit, CLAIM_STRENGTH_BINS)
        d["overall"] = _rate(int((opp & hit).sum()), int(opp.sum()))
        d["bluff_rate"] = _rate(int((opp & hit & weak).sum()), int((opp & weak).sum()))
        d["honest_rate"] = _rate(int((opp & hit & strong).sum()), int((opp & strong).sum()))
        d["contrast"] = _contrast(d)
        calls[nm] = d
    out["truco_calls"] = calls
    # 3. payoff of truco-ladder calls (own turn or raising), bluffs against honest calls
    tcall = sel & (act >= C.A_TRUCO) & (act <= C.A_VALE4)
    key = _hand_key(ev["gid"], ev["hand_no"]) * 8 + ev["seat"]
    payoff = {}
    for kind, hand in (("bluff", weak), ("honest", strong)):
        c = tcall & hand
        answered = c & (answer >= 0)
        fold = answered & np.isin(answer, FOLD_ACTIONS)
        _, first = np.unique(key[c], return_index=True)
        payoff[kind] = {"calls": int(c.sum()), "hands": int(len(first)),
                        "points": _z_mean(net[c][first]),
                        "fold": _rate(int(fold.sum()), int(answered.sum()))}
    out["payoff"] = payoff
    return out


def bluff_claims(ev: dict, hands: dict, names: Sequence[str],
                 agents: Sequence[int] | None = None) -> dict[str, Any]:
    """The three claims a reviewer checks, per agent (``agents``: indices into ``names``,
    default every agent with decisions), per opponent and over all opponents:

    1. ``envido_acceptance``: P(accept | an envido-family call is pending and the agent
       answers) by its envido points (:data:`CLAIM_ENVIDO_BINS`); accept = quiero or a raise.
    2. ``truco_calls``: P(call truco | truco is open on its turn) and P(call retruco | it may
       raise, on its turn or answering a truco) by strength quintile; ``bluff_rate`` over the
       weak quintiles (percentile < :data:`WEAK_PCT`), ``honest_rate`` over the strong ones.
    3. ``payoff``: truco-ladder calls (truco, retruco, vale cuatro, on its turn or as a raise)
       with a weak hand (``bluff``) or a strong one (``honest``): the net points of the hand
       for the caller's team, one value per hand and seat (mean +- 1.96 sd / sqrt(n)), and
       the fold rate (answer no quiero or mazo) over the answered calls.

    Rates carry 95% Wilson intervals.  Each agent's entry: ``opponents`` and ``scopes`` (one
    per opponent, then ``all opponents`` when there are several), each from
    :func:`_claims_scope`.
    """
    ev = {k: np.asarray(v) for k, v in ev.items()}
    net = _join_hand_points(ev, hands)
    answer = _truco_answers(ev)
    opp = _opponents(ev)
    if agents is None:
        agents = [a for a in range(len(names)) if (ev["agent"] == a).any()]
    out: dict[str, Any] = {"agents": {}, "definitions": {
        "envido_bins": CLAIM_ENVIDO_BINS.tolist(), "envido_labels": list(CLAIM_ENVIDO_LABELS),
        "strength_bins": CLAIM_STRENGTH_BINS.tolist(),
        "strength_labels": list(CLAIM_STRENGTH_LABELS),
        "weak": f"strength percentile < {WEAK_PCT} (Q1-Q2)",
        "strong": f"strength percentile >= {STRONG_PCT} (Q4-Q5)",
        "weak_pct": WEAK_PCT, "strong_pct": STRONG_PCT,
        "fold": "the call was answered no quiero or mazo",
        "points": "net points of the hand for the caller's team (three-player modes: the "
                  "caller's points minus the mean of the other two players'), one value per "
                  "hand and seat; "
                  "mean +- 1.96 sd / sqrt(n)"}}
    for a in agents:
        me = ev["agent"] == a
        opps = [int(o) for o in np.unique(opp[me]) if o >= 0]
        scopes = [{"label": f"vs {names[o]}", "opponent": names[o],
                   **_claims_scope(ev, me & (opp == o), net, answer)} for o in opps]
        if len(opps) != 1:
            scopes.append({"label": "all opponents", "opponent": None,
                           **_claims_scope(ev, me, net, answer)})
        out["agents"][names[a]] = {"opponents": [names[o] for o in opps], "scopes": scopes}
    return out


# ============================================================================ played and replayed
def claim_labels(spec: str, opponents: Sequence[str]) -> list[str]:
    """Distinct labels: the agent's spec, then each opponent's (``SPEC (opponent)`` when it is
    the agent's own spec, ``#2``... for repeats)."""
    labels = [spec]
    for o in opponents:
        lab = f"{o} (opponent)" if o == spec else o
        base, i = lab, 2
        while lab in labels:
            lab, i = f"{base}#{i}", i + 1
        labels.append(lab)
    return labels


def _play_chunk(args: tuple) -> tuple:
    """Duplicate pairs ``lo..hi`` of the agent (index 0) against opponent ``p_idx`` (index
    ``p_idx + 1``), logged (runs in a worker process).  Three-player modes: three-way
    duplicates, the agent against two copies of the opponent."""
    from .tournament import load_agent, play_duplicate, play_three_way
    p_idx, spec, opp_spec, lo, hi, cfg, seed, gid_span = args
    agent_seed = seed * 1_000_003 + p_idx * 10_007 + lo
    log = EventLog()
    if cfg.ruleset().mode != "teams":
        res = play_three_way([load_agent(spec, agent_seed), load_agent(opp_spec, agent_seed + 1),
                              load_agent(opp_spec, agent_seed + 2)], range(lo, hi), cfg, seed,
                             log=log, agent_ids=(0, p_idx + 1, p_idx + 1))
    else:
        res = play_duplicate(load_agent(spec, agent_seed), load_agent(opp_spec, agent_seed + 1),
                             range(lo, hi), cfg, seed, log=log, agent_ids=(0, p_idx + 1))
    ev, hands = log.tables()
    ev["gid"] = ev["gid"] + p_idx * gid_span
    hands["gid"] = hands["gid"] + p_idx * gid_span
    return p_idx, lo, res, ev, hands


def play_against(spec: str, opponents: Sequence[str], matches: int, cfg: Any, seed: int = 0,
                 workers: int | None = None, progress: bool = True, backend: str = "local",
                 ray_address: str | None = None) -> dict[str, Any]:
    """Bluff analytics and the three claims of ``spec`` from ``matches`` duplicate pairs
    against each opponent (default: itself, as a separate copy).  Every opponent sees the
    same deal sequence (:class:`truco_env.game.DuplicateDeals` from ``seed``).

    Three-player modes (pata de gallo, destantado): each deal sequence is a three-way
    duplicate (:func:`evaluation.tournament.play_three_way`, every seat rotation) of the agent
    against two copies of the opponent, and ``matches`` holds the agent's win rate against an
    even share of 1/3 (:func:`evaluation.tournament.summarize_three_way`).

    Returns :func:`bluff_analytics` of every agent plus ``claims`` (:func:`bluff_claims` of
    the agent), ``matches`` (the agent's win rate and points per hand against each opponent,
    :func:`evaluation.tournament.summarize_pair`) and ``config``.  ``workers``, ``backend``
    and ``ray_address``: where the chunks are played, as in
    :func:`evaluation.tournament.run_tournament`.
    """
    from . import backends
    from .tournament import _chunks, load_agent, summarize_pair, summarize_three_way
    opponents = list(opponents) or [spec]
    names = claim_labels(spec, opponents)
    rules = cfg.ruleset()
    for s in [spec, *opponents]:
        load_agent(s, 0)  # fail fast on a bad spec
    workers = backends.resolve_workers(workers, backend, ray_address)
    three = rules.mode != "teams"
    gid_span = 3 * matches + 3
    tasks = [(p, spec, o, lo, hi, cfg, seed, gid_span) for p, o in enumerate(opponents)
             for lo, hi in _chunks(matches, workers)]
    bar = None
    if progress:
        import sys
        from tqdm import tqdm
        bar = tqdm(total=len(opponents) * matches, unit="pair", desc="duplicate pairs",
                   dynamic_ncols=True, file=sys.stderr)
    results = []
    try:
        for r in backends.run_tasks(_play_chunk, tasks, workers, backend, ray_address):
            results.append(r)
            if bar is not None:
                bar.update(len(r[2]["match"]) // (3 if three else 2))
    finally:
        if bar is not None:
            bar.close()
    results.sort(key=lambda r: (r[0], r[1]))
    ev = concat_tables([r[3] for r in results], EVENT_FIELDS)
    hands = concat_tables([r[4] for r in results], HAND_FIELDS)
    pairs = []
    for p, o in enumerate(opponents):
        parts = [r[2] for r in results if r[0] == p]
        res = {k: np.concatenate([x[k] for x in parts]) for k in parts[0]}
        pairs.append({"agent": spec, "opponent": names[p + 1],
                      **(summarize_three_way(res, [0]) if three else summarize_pair(res))})
    out = bluff_analytics(ev, hands, names)
    out["claims"] = bluff_claims(ev, hands, names, agents=[0])
    out["matches"] = pairs
    out["config"] = {"agent": spec, "opponents": names[1:], "players": cfg.players,
                     "rules": cfg.rules, "mode": rules.mode, "target": rules.target,
                     "flor": rules.flor,
                     "matches_per_opponent": matches, "seed": seed, "workers": workers,
                     "backend": backend}
    return out


def analyse_records(paths: Sequence[str]) -> tuple[dict[str, Any], int]:
    """Bluff analytics and the three claims (every agent) of the match records in ``paths``
    (:func:`load_records`); agents are the records' ``agents`` names, else ``team 0/1`` (three
    players: ``player_0..2``).  Returns ``(result, number of records)``."""
    recs = load_records(paths)
    three = any(r.get("players") == 3 for r in recs)
    names = sorted({a for r in recs for a in r.get("agents") or []}) or (
        [f"player_{p}" for p in range(3)] if three else ["team 0", "team 1"])

    def agent_of(rec: dict, seat: int) -> int:
        ag = rec.get("agents")
        return names.index(ag[seat]) if ag else (seat if rec["players"] == 3 else seat % 2)

    ev, hands = events_from_records(recs, agent_of=agent_of).tables()
    out = bluff_analytics(ev, hands, names)
    out["claims"] = bluff_claims(ev, hands, names)
    return out, len(recs)
