"""Duplicate tournaments: agents play seeded deal sequences twice with the teams swapped.

A *duplicate pair* is one deal sequence played twice: in the first match agent A holds team 0
(seats 0, 2, 4) and B team 1, in the second the teams are swapped.  The deals come from
:class:`truco_env.game.DuplicateDeals`: hand ``k`` of match ``m`` is
``numpy.random.default_rng([seed, m, k])``'s permutation and the first mano of match ``m``
``default_rng([seed, m])``'s draw; the next manos rotate as in every match.  So seat 0 gets the
same cards in both matches of a pair, and the luck of the cards cancels within the pair (the
matches may last different numbers of hands; hand ``k`` is the same deal in both).  The deals
do not depend on how matches are split into chunks or worker processes.  Every match is played
by :func:`truco_env.loop.play`.

Intervals (95%, :mod:`evaluation.stats`): the win rate's unit is the pair (score 0, 1/2 or 1),
with Wilson's interval at the pairs' effective sample size; points per hand: the pair's net
points (A minus B) per hand, mean +- t * sd / sqrt(n).  Ratings: :mod:`evaluation.ratings`.

:func:`head_to_head` is the plain (not duplicate) match: A's team against B's team over
independent shuffled deals, a Wilson interval over matches.

>>> r = head_to_head("heuristic", "random", matches=20, seed=0)
>>> r.matches, 0.0 <= r.lo <= r.rate <= r.hi <= 1.0
(20, True)
"""
from __future__ import annotations

import itertools
import math
import sys
import time
import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

import agents
from truco_env.game import DuplicateDeals, Matches
from truco_env.loop import play, team_seating
from truco_env.rules import ConfigurationError, RuleSet, get_rules, plays_pica_pica
from truco_env.core import SOURCE_NAMES
from truco_env.view import hand_points_by_source

from . import backends
from .bluff import EVENT_FIELDS, HAND_FIELDS, EventLog, bluff_analytics, concat_tables
from .ratings import rating_table
from .stats import duplicate_win_interval, effective_n, mean_interval, win_rate


# ============================================================================ agents and games
def load_agent(spec: Any, seed: int | None = None) -> agents.Agent:
    """``agents.load`` for unattended matches: ``human`` is refused (a checkpoint whose network
    fits no observation layout fails in :mod:`agents.ppo_policy` with a clear message)."""
    if isinstance(spec, str) and spec.strip().split(":")[0] == "human":
        raise ValueError("agent spec 'human' cannot play unattended evaluation matches")
    agent = agents.load(spec, seed=seed)   # a checkpoint of an unknown layout fails there
    return agent


def agent_name(spec: Any) -> str:
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


@dataclass(frozen=True)
class GameConfig:
    """What a tournament plays: player count, preset and its overrides."""

    players: int = 2
    rules: str = "argentino"
    target: int | None = None
    flor: bool | None = None
    pica_pica: bool | None = None     # None: the preset's (issue 12)
    senas: str = "off"                # señas (issue 13): "off", "traditional", "learned"
    sena_tokens: int = 8
    sena_catch: float = 0.25

    def ruleset(self) -> RuleSet:
        r = get_rules(self.rules, target=self.target, flor=self.flor, pica_pica=self.pica_pica,
                      senas=self.senas, sena_tokens=self.sena_tokens, sena_catch=self.sena_catch)
        if self.players not in r.players_allowed:
            raise ConfigurationError(f"bad value players={self.players!r} for rules "
                                     f"{r.name!r} (mode {r.mode!r}); expected one of "
                                     f"{list(r.players_allowed)}")
        plays_pica_pica(r, self.players)      # a ValueError naming a bad combination
        return r


class GameMismatchError(ValueError):
    """Agents trained for different games (players, rules and their mode, target, flor,
    pica-pica) were asked to play one another, or a checkpoint was asked to play a game of
    another mode (a team game or a three-player mode) than it was trained for."""


#: What defines the game an agent was trained for (train.py config keys, GameConfig fields).
#: The mode (teams, pata de gallo, destantado) is the preset's (``RuleSet.mode``).
GAME_KEYS = ("players", "rules", "target", "flor", "pica_pica")


def trained_game(spec: str) -> GameConfig | None:
    """The game a ``checkpoint:`` or ``pretrained:`` spec was trained for (from its config),
    ``None`` for other agents.  Checkpoints from before pica-pica existed played without it."""
    kind, _, arg = str(spec).partition(":")
    arg = arg.split(",")[0].strip()
    if kind == "checkpoint":
        from agents.ppo_policy import load_checkpoint
        game = load_checkpoint(arg)["config"]
    elif kind == "pretrained":
        from agents import pretrained
        game = pretrained.info(arg)
    else:
        return None
    return GameConfig(players=int(game["players"]), rules=game["rules"], target=game["target"],
                      flor=game["flor"], pica_pica=game.get("pica_pica", False),
                      senas=game.get("senas", "off"), sena_tokens=game.get("sena_tokens", 8),
                      sena_catch=game.get("sena_catch", 0.25))


def _game_key(cfg: GameConfig) -> tuple:
    r = cfg.ruleset()
    return (cfg.players, r.name, r.mode, r.target, r.flor, plays_pica_pica(r, cfg.players))


def resolve_game(specs: Sequence[str], given: dict | None = None,
                 any_game: bool = False) -> GameConfig:
    """The game to play ``specs`` in: the one their checkpoints were trained for, with the
    ``given`` fields (not ``None``: the user told otherwise) replacing it.  Two agents trained
    for different games are a :class:`GameMismatchError` naming both, and so is a ``given``
    preset of another mode than a checkpoint's (a team policy in a three-player mode, or the
    reverse); ``any_game`` (``evaluate.py --any-game``) plays them anyway.  Without a player
    count, a three-player mode plays 3.

    >>> g = resolve_game(["heuristic", "random"], {"players": 4})
    >>> g.players, g.rules, g.target, g.flor, g.pica_pica, g.senas
    (4, 'argentino', None, None, None, 'off')
    >>> resolve_game(["heuristic"], {"rules": "destantado"}).players
    3
    """
    given = {k: v for k, v in (given or {}).items() if v is not None}
    unknown = set(given) - set(GAME_KEYS)
    if unknown:
        raise ValueError(f"unknown game settings {sorted(unknown)}; expected {list(GAME_KEYS)}")
    trained = [(s, g) for s in specs if (g := trained_game(s)) is not None]
    if not any_game:
        for (s1, g1), (s2, g2) in zip(trained, trained[1:]):
            if _game_key(g1) != _game_key(g2):
                raise GameMismatchError(
                    f"agents trained for different games: {s1!r} for {_game_key(g1)} and "
                    f"{s2!r} for {_game_key(g2)} (players, rules, mode, target, flor, "
                    f"pica-pica); evaluate agents of one game together (--any-game plays them "
                    f"anyway)")
    base = dataclasses.asdict(trained[0][1]) if trained else {}
    merged = {**base, **given}
    if base and merged["rules"] != base["rules"]:
        # Another preset than the trained one: a trained knob it does not take (destantado's
        # target 10 only, no flor...) falls back to the preset's default.
        for k in ("target", "flor", "pica_pica"):
            if k not in given:
                try:
                    get_rules(merged["rules"], **{k: merged.get(k)})
                except ValueError:
                    merged.pop(k, None)
    mode = get_rules(merged.get("rules", GameConfig.rules)).mode
    if not any_game:
        for s, g in trained:
            was = g.ruleset().mode
            if was != mode:
                raise GameMismatchError(
                    f"bad value rules={merged['rules']!r} (mode {mode!r}): {s} was trained "
                    f"for rules={g.rules!r} (mode {was!r}); --any-game plays it anyway")
    if "players" not in given and (not trained or trained[0][1].ruleset().mode != mode):
        # no player count, or a trained one of another mode (--any-game): the mode's default
        merged["players"] = merged.get("players", 2) if mode == "teams" else 3
    cfg = GameConfig(**merged)
    cfg.ruleset()                      # a bad combination is a ValueError naming it
    return cfg


def duplicate_seating(matches: Sequence[int], players: int) -> tuple[np.ndarray, np.ndarray,
                                                                      np.ndarray]:
    """``(match, a_team, seating)`` of the games of duplicate pairs: pair i is games 2i (A at
    team 0) and 2i+1 (A at team 1); ``seating[g, seat]`` is 0 where A sits, 1 where B sits.

    >>> duplicate_seating([7], 4)[2].tolist()
    [[0, 1, 0, 1], [1, 0, 1, 0]]
    """
    matches = np.asarray(matches, dtype=np.int64)
    match = np.repeat(matches, 2)
    a_team = np.tile(np.array([0, 1]), len(matches))
    return match, a_team, team_seating(a_team, players)


# ============================================================================ duplicate play
def play_duplicate(agent_a: Any, agent_b: Any, matches: Sequence[int], cfg: GameConfig,
                   seed: int, log: EventLog | None = None, agent_ids: tuple[int, int] = (0, 1),
                   max_steps: int = 200_000) -> dict[str, np.ndarray]:
    """Play the duplicate pairs of ``matches`` (match ids) between two agents.

    Returns per game (``2 * len(matches)``, pair i is games 2i and 2i+1): ``match``,
    ``a_team`` (the team A held), ``a_won``, ``hands``, ``pts_a``, ``pts_b`` (points scored),
    ``src_a``, ``src_b`` (``[games, 3]``: those points by source, ``core.SOURCE_NAMES``).
    Agents may be objects or specs (loaded with ``seed`` and ``seed + 1``).  ``log`` collects
    the decisions, with ``agent_ids`` naming A and B in it.
    """
    if isinstance(agent_a, str):
        agent_a = load_agent(agent_a, seed)
    if isinstance(agent_b, str):
        agent_b = load_agent(agent_b, seed + 1)
    rules = cfg.ruleset()
    if rules.mode != "teams":
        raise ConfigurationError(f"bad value rules={cfg.rules!r} for duplicate pairs: mode "
                                 f"{rules.mode!r} has three single players; expected a team "
                                 f"game (play_three_way plays the three-way duplicate)")
    match, a_team, seating = duplicate_seating(matches, cfg.players)
    game = Matches(len(match), cfg.players, rules, deals=DuplicateDeals(seed, match))
    game.reset(seed=seed)
    src = np.zeros((len(match), 2, len(SOURCE_NAMES)), dtype=np.int64)   # [game, A/B, source]
    watch = None
    if log is not None:
        watch = log.watch(match * 2 + a_team, np.asarray(agent_ids)[seating])

    def on_hand_end(g: Matches, games: np.ndarray) -> None:
        by_team = hand_points_by_source(g.S, games)[:, :2]
        mine = a_team[games] == 0
        src[games, 0] += np.where(mine[:, None], by_team[:, 0], by_team[:, 1])
        src[games, 1] += np.where(mine[:, None], by_team[:, 1], by_team[:, 0])
        if watch is not None:
            watch.on_hand_end(g, games)

    r = play(game, [agent_a, agent_b], seating, max_steps=max_steps, on_hand_end=on_hand_end,
             on_decision=watch.on_decision if watch is not None else None)
    pts_a = np.where(a_team == 0, r.score[:, 0], r.score[:, 1])
    pts_b = np.where(a_team == 0, r.score[:, 1], r.score[:, 0])
    return {"match": match, "a_team": a_team, "a_won": (r.winner == a_team).astype(np.int8),
            "hands": r.hands, "pts_a": pts_a.astype(np.int64), "pts_b": pts_b.astype(np.int64),
            "src_a": src[:, 0], "src_b": src[:, 1]}


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
            "hands_per_match": float(res["hands"].mean()),
            **_by_source(res)}


def _by_source(res: dict[str, np.ndarray]) -> dict[str, float]:
    """Points per hand of A and B by source (``envido_a``, ``truco_b``...), over all hands."""
    if "src_a" not in res:
        return {}
    hands = max(int(res["hands"].sum()), 1)
    return {f"{name}_{side}": float(res[f"src_{side}"][:, k].sum() / hands)
            for side in ("a", "b") for k, name in enumerate(SOURCE_NAMES)}


# ============================================================================ round robin
def _chunks(matches: int, workers: int) -> list[tuple[int, int]]:
    size = max(4, min(256, math.ceil(matches / max(1, workers * 4))))
    return [(lo, min(matches, lo + size)) for lo in range(0, matches, size)]


def _task(args: tuple) -> tuple:
    """One chunk of duplicate pairs (runs in a worker process)."""
    p_idx, i, j, spec_i, spec_j, lo, hi, cfg, seed, bluff, gid_span = args
    log = EventLog() if bluff else None
    agent_seed = seed * 1_000_003 + p_idx * 10_007 + lo
    a = load_agent(spec_i, agent_seed)
    b = load_agent(spec_j, agent_seed + 1)
    res = play_duplicate(a, b, range(lo, hi), cfg, seed, log=log, agent_ids=(i, j))
    tables = None
    if log is not None:
        ev, hands = log.tables()
        ev["gid"] = ev["gid"] + p_idx * gid_span
        hands["gid"] = hands["gid"] + p_idx * gid_span
        tables = (ev, hands)
    return p_idx, lo, res, tables


def run_tournament(entrants: Sequence[tuple[str, Any]], matches: int, cfg: GameConfig,
                   seed: int = 0, workers: int | None = None, bluff: bool = False,
                   progress: bool = True, backend: str = "local",
                   ray_address: str | None = None) -> dict[str, Any]:
    """Every pair of ``entrants`` (``(label, spec)``) over ``matches`` duplicate pairs.

    Returns ``{"config", "agents", "pairs", "ratings", "win_matrix", "seconds", "bluff"}``
    (``bluff``: :func:`evaluation.bluff.bluff_analytics` of every decision, or ``None``).
    The pairs are played in chunks sized for ``workers`` (default: every core, or every CPU
    of the Ray cluster), as :mod:`evaluation.backends` tasks: ``backend="local"`` processes,
    or ``"ray"`` tasks (``ray_address``: a cluster, default a local Ray instance).  The same
    seed and ``workers`` give the same tables on both backends.  Three-player modes are
    played in this process (:func:`run_three_way`).
    """
    labels = [a[0] for a in entrants]
    specs = [a[1] for a in entrants]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agent labels must be distinct: {labels}")
    if len(entrants) < 2:
        raise ValueError("a tournament needs at least two agents")
    rules = cfg.ruleset()  # validate before spawning
    for spec in specs:
        load_agent(spec, 0)  # fail fast on a bad spec
    if rules.mode != "teams":
        return run_three_way(entrants, matches, cfg, seed=seed, progress=progress, bluff=bluff)
    workers = backends.resolve_workers(workers, backend, ray_address)
    pairs = list(itertools.combinations(range(len(entrants)), 2))
    gid_span = 2 * matches + 2
    tasks = [(p, i, j, specs[i], specs[j], lo, hi, cfg, seed, bluff, gid_span)
             for p, (i, j) in enumerate(pairs) for lo, hi in _chunks(matches, workers)]
    t0 = time.time()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(pairs) * matches, unit="pair", desc="duplicate pairs",
                   dynamic_ncols=True, file=sys.stderr)
    done = []
    try:
        for r in backends.run_tasks(_task, tasks, workers, backend, ray_address):
            done.append(r)
            if bar is not None:
                bar.update(len(r[2]["match"]) // 2)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.time() - t0
    done.sort(key=lambda r: (r[0], r[1]))     # completion order -> (pairing, first match)
    out: dict[int, list] = {p: [r[2] for r in done if r[0] == p] for p in range(len(pairs))}
    ev_parts = [r[3][0] for r in done if r[3] is not None]
    hand_parts = [r[3][1] for r in done if r[3] is not None]

    K = len(entrants)
    wins = np.zeros((K, K))
    pair_wins: dict[tuple[int, int], np.ndarray] = {}
    pair_rows = []
    for p, (i, j) in enumerate(pairs):
        parts = out[p]
        res = {k: np.concatenate([r[k] for r in parts]) for k in parts[0]}
        pw = res["a_won"].reshape(-1, 2).sum(axis=1)
        pair_wins[(i, j)] = pw
        wins[i, j] += pw.sum()
        wins[j, i] += 2 * len(pw) - pw.sum()
        pair_rows.append({"a": labels[i], "b": labels[j], **summarize_pair(res)})
    result = {"config": {"players": cfg.players, "rules": cfg.rules, "target": rules.target,
                         "flor": rules.flor, "matches_per_pair": matches, "seed": seed,
                         "workers": workers, "backend": backend},
              "agents": [{"label": lab, "spec": str(s)} for lab, s in entrants],
              "pairs": pair_rows,
              "ratings": rating_table(wins, pair_wins, labels, specs, reps=1000, seed=seed),
              "seconds": round(seconds, 2), "win_matrix": wins.tolist(), "bluff": None}
    if bluff:
        ev = concat_tables(ev_parts, EVENT_FIELDS)
        hands = concat_tables(hand_parts, HAND_FIELDS)
        result["bluff"] = bluff_analytics(ev, hands, labels)
    return result


# ============================================================================ plain matches
@dataclass(frozen=True)
class MatchResult:
    """Matches won by agent A against agent B, with the 95% Wilson interval of the rate."""

    wins: int
    matches: int

    @property
    def rate(self) -> float:
        return win_rate(self.wins, self.matches)[0]

    @property
    def lo(self) -> float:
        return win_rate(self.wins, self.matches)[1]

    @property
    def hi(self) -> float:
        return win_rate(self.wins, self.matches)[2]

    def __str__(self) -> str:
        return f"{self.wins}/{self.matches} = {self.rate:.1%} [{self.lo:.1%}, {self.hi:.1%}]"


def head_to_head(agent_a: Any, agent_b: Any, matches: int = 1000, cfg: GameConfig | None = None,
                 seed: int | None = 0) -> MatchResult:
    """Play ``matches`` independent matches, A's team against B's team (partners are the same
    agent object).  Game ``g`` seats A in team ``g % 2``; deals are shuffled from ``seed`` and
    the first mano is random.  Agents may be objects or specs."""
    cfg = cfg or GameConfig()
    if isinstance(agent_a, str):
        agent_a = load_agent(agent_a, seed)
    if isinstance(agent_b, str):
        agent_b = load_agent(agent_b, None if seed is None else seed + 1)
    rules = cfg.ruleset()
    game = Matches(matches, cfg.players, rules, random_mano=True)
    game.reset(seed=seed)
    if rules.mode != "teams":      # three single players: A in seat g % 3, B in the others
        a_seat = np.arange(matches) % cfg.players
        seating = (np.arange(cfg.players)[None, :] != a_seat[:, None]).astype(np.int64)
        r = play(game, [agent_a, agent_b], seating)
        return MatchResult(int((r.winner == a_seat).sum()), matches)
    a_team = np.arange(matches) % 2
    r = play(game, [agent_a, agent_b], team_seating(a_team, cfg.players))
    return MatchResult(int((r.winner == a_team).sum()), matches)


# ============================================================================ three single players
def three_way_seating(rotations: int = 3) -> np.ndarray:
    """``[3, 3]``: in rotation r, seat s holds entrant ``(s + r) % 3`` (every entrant sits in
    every seat once over the three rotations of the same deals).

    >>> three_way_seating().tolist()
    [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    """
    return (np.arange(3)[None, :] + np.arange(rotations)[:, None]) % 3


def play_three_way(players: Sequence[Any], matches: Sequence[int], cfg: GameConfig, seed: int,
                   max_steps: int = 400_000, log: EventLog | None = None,
                   agent_ids: Sequence[int] | None = None) -> dict[str, np.ndarray]:
    """A three-way duplicate (three single players, pata de gallo or destantado): every match
    id is played three times on the same deals (:class:`DuplicateDeals`), once per seat
    rotation (:func:`three_way_seating`).  ``players``: three agents (objects or specs; the
    same spec twice is two independent copies).  Returns per game ``match``, ``rotation``,
    ``winner`` (the index in ``players`` of the match winner) and ``hands``.  ``log``
    collects the decisions (game ids ``3 * match + rotation``), with ``agent_ids`` (default
    0, 1, 2) naming the three players in it."""
    loaded = [load_agent(p, seed + i) if isinstance(p, str) else p for i, p in enumerate(players)]
    if len(loaded) != 3:
        raise ConfigurationError(f"bad value players={len(loaded)} agents for a three-way "
                                 f"duplicate; expected 3")
    matches = np.asarray(matches, dtype=np.int64)
    rot = three_way_seating()
    match = np.repeat(matches, 3)
    rotation = np.tile(np.arange(3), len(matches))
    seating = rot[rotation]
    game = Matches(len(match), 3, cfg.ruleset(), deals=DuplicateDeals(seed, match))
    game.reset(seed=seed)
    watch = None
    if log is not None:
        ids = np.asarray(agent_ids if agent_ids is not None else range(3), dtype=np.int64)
        watch = log.watch(match * 3 + rotation, ids[seating])
    r = play(game, loaded, seating, max_steps=max_steps,
             on_hand_end=watch.on_hand_end if watch is not None else None,
             on_decision=watch.on_decision if watch is not None else None)
    winner = seating[np.arange(len(match)), r.winner]
    return {"match": match, "rotation": rotation, "winner": winner, "hands": r.hands}


def summarize_three_way(res: dict[str, np.ndarray], copies: Sequence[int]) -> dict[str, Any]:
    """The wins of the players ``copies`` (indices into the three of :func:`play_three_way`;
    one agent may hold two seats) with the 95% interval of their win rate, whose unit is the
    deal sequence (its three rotations' share), and the even share ``len(copies) / 3``."""
    won = res["winner"].reshape(-1, 3)
    hit = np.isin(won, list(copies))
    wr, lo, hi = duplicate_win_interval(hit.mean(axis=1))
    return {"seats": len(copies), "wins": int(hit.sum()), "matches": int(won.size),
            "win_rate": wr, "win_lo": lo, "win_hi": hi, "even": len(copies) / 3,
            "hands_per_match": float(res["hands"].mean())}


def run_three_way(entrants: Sequence[tuple[str, Any]], matches: int, cfg: GameConfig,
                  seed: int = 0, progress: bool = True, bluff: bool = False) -> dict[str, Any]:
    """A tournament of a three-player mode: two entrants (A against two copies of B, and B
    against two copies of A) or three (one three-way duplicate).  ``matches`` deal sequences,
    each played in the three seat rotations.  Per entrant and table: wins, the win rate with a
    95% interval (the unit is the deal sequence: its three rotations' share), where a third is
    even.  ``bluff``: :func:`evaluation.bluff.bluff_analytics` of every decision."""
    labels = [a[0] for a in entrants]
    specs = [a[1] for a in entrants]
    if len(entrants) == 2:
        tables = [(0, 1, 1), (1, 0, 0)]
    elif len(entrants) == 3:
        tables = [(0, 1, 2)]
    else:
        raise ConfigurationError(f"bad value: {len(entrants)} agents for a three-player mode "
                                 f"tournament; expected 2 or 3")
    t0 = time.time()
    rows = []
    logs = []
    for t, idx in enumerate(tables):
        players = [load_agent(specs[i], seed * 1_000_003 + 10_007 * t + k)
                   for k, i in enumerate(idx)]
        log = EventLog() if bluff else None
        res = play_three_way(players, range(matches), cfg, seed, log=log, agent_ids=idx)
        if log is not None:
            ev, hands = log.tables()
            ev["gid"] = ev["gid"] + t * (3 * matches + 3)
            hands["gid"] = hands["gid"] + t * (3 * matches + 3)
            logs.append((ev, hands))
        for k, i in enumerate(idx):
            if k > 0 and idx[k] == idx[k - 1]:
                continue                         # two copies of one entrant: counted once
            copies = [j for j, x in enumerate(idx) if x == i]
            rows.append({"table": " vs ".join(labels[x] for x in idx), "agent": labels[i],
                         **summarize_three_way(res, copies)})
    rules = cfg.ruleset()
    return {"config": {"players": 3, "rules": cfg.rules, "mode": rules.mode,
                       "target": rules.target, "flor": rules.flor,
                       "matches_per_table": matches, "seed": seed, "rotations": 3},
            "agents": [{"label": lab, "spec": str(s)} for lab, s in entrants],
            "three_way": rows, "pairs": [], "ratings": None,
            "bluff": bluff_analytics(concat_tables([x[0] for x in logs], EVENT_FIELDS),
                                     concat_tables([x[1] for x in logs], HAND_FIELDS),
                                     labels) if bluff else None,
            "seconds": round(time.time() - t0, 2)}
