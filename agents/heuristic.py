"""A rule-based Truco player, vectorized over a batch of compact observations.

Every decision is a table lookup or an array expression over the batch, so the same code plays
one game (``act``) or thousands (``act_batch`` inside :class:`truco_env.VectorTrucoEnv`).  It
reads only the compact observation (see :mod:`truco_env.observe`), which makes it valid for any
player count (2, 4, 6), flor on or off, and the ``argentino`` and ``trucoshi`` presets.

Hand strength is computed, not guessed:

* :data:`HAND_WIN`: :mod:`truco_env.strength`'s exact measure for a 1v1 hand of truco ranks
  ``r1, r2, r3`` (the probability of winning against a uniformly random opponent hand when the
  bazas pair the cards best-vs-best, middle-vs-middle, worst-vs-worst; three pardas count one
  half), indexed by rank.
* :func:`hand_win_prob`: once cards are on the table (or in team games), the bazas still to
  play are modelled independently: a baza is won when the best card of my team (the card I
  will play, plus random cards of partners still to play) beats the best of the opponents'
  cards still to come (random cards) and of those on the table; the outcomes of the three
  bazas are combined with the hand-winning rules (:data:`_HAND_TABLE`).
* Envido / flor: exact distributions of the envido and flor points of a random hand give
  ``P(my points beat the best of m opponents)``, conditioned on the caller having at least a
  threshold after each call (a caller signals strength).

Decisions (thresholds are class constants, documented where they are defined):

* flor: sung when the mask demands it; against a flor, compare / raise / give up by its odds;
* envido: opened by its odds (lower when the opponents already passed on it), answered by the
  expected value of quiero against no quiero; the falta's value comes from the score piece;
* truco: called or raised when the hand-win probability is high, or as a bluff with
  probability ``bluff`` per opportunity; answered by the hand-win probability (raised when it
  is very high); more accepting when the opponents are about to win the match anyway;
* pica-pica duels (docs/rules.md section 11) need nothing of their own: the observation shows a
  player of the duel in progress a 1v1 hand (players 2, the rival at relative seat 1), so the
  1v1 tables and rules below play it;
* señas (issue 13, traditional vocabularies only): on its turn, before anything else, one
  truthful seña a baza (its best unplayed card's; in baza 1 envido alto / sin envido unless it
  holds a tres or better; uruguayo's ``nada`` in baza 1 without a named card), or with
  probability ``liar`` a false one; it takes its partners' and the caught rivals' señas at
  their word: a signalled card not yet played in the baza counts as known, an envido alto as
  28 points (its team's for singing envido, a caller's floor when answering);
* cards: follow with the lowest card that beats the table, else the lowest card; never
  overtake a partner whose card already holds the baza; lead the weakest card that is likely
  to win baza 1 (keeping the best), the best card when the baza must be won.

Style knobs (:class:`HeuristicAgent`) shift those thresholds and change the card play, and named
presets (:data:`STYLES`, ``heuristic:style=maniac``) combine them into a zoo of playing styles;
:mod:`agents.zoo` says which styles are for training and which are held out for evaluation.
At their defaults the knobs reproduce the plain ``heuristic`` exactly.
"""
from __future__ import annotations

import operator

import numpy as np

from truco_env import core, strength
from truco_env.cards import NUM_CARDS
from truco_env.observe import COMPACT_SIZE, POINTS_SCALE, RANK_SCALE, Encoder
from truco_env.observe import SENA_SIZE
from truco_env.rules import (ACTION_ID, ENVIDO_CHAIN, NUM_ACTIONS, SENA_MAX, SENAS_ARGENTINO,
                             SENAS_URUGUAYO)
from truco_env.senas import ENVIDO_ALTO, SIN_ENVIDO, card_sena_table

from .base import Agent

_ENC = Encoder("compact")
NUM_RANKS = core.PLAIN_RANKS                    # 14 tiers without a muestra
ALL_RANKS = core.NUM_RANKS                      # 19 with the piezas of a muestra (uruguayo)


def _rank_tables() -> tuple[np.ndarray, np.ndarray]:
    """``RANK[mu, card]`` (mu = muestra card, 40 = none) from the core's pieza rule, and
    ``CDF[mu, r + 1] = P(rank of a random other card <= r)`` for r = -1 .. 18."""
    rank = np.stack([strength.card_ranks(mu if mu < NUM_CARDS else -1)
                     for mu in range(NUM_CARDS + 1)])
    cdf = np.zeros((NUM_CARDS + 1, ALL_RANKS + 1))
    for mu in range(NUM_CARDS + 1):
        others = np.delete(rank[mu], mu) if mu < NUM_CARDS else rank[mu]
        cdf[mu, 1:] = np.cumsum(np.bincount(others, minlength=ALL_RANKS)) / len(others)
    return rank, cdf


#: Truco rank of every card under every muestra (row 40: no muestra), and the rank CDFs.
RANK_BY_MUESTRA, CDF_BY_MUESTRA = _rank_tables()

# Baza outcomes from my team's side, and who wins a hand from them: read from the rules core
# through truco_env.strength (the rule is decided once, there).
WIN, LOSE, PARDA = strength.WIN, strength.LOSE, strength.PARDA
_COMBOS = strength.OUTCOME_CODES                                          # [27, 3]
_HAND_WIN_MINE = strength.OUTCOME_MINE
_HAND_WIN_MANO = strength.OUTCOME_MANO


def _build_hand_win() -> np.ndarray:
    """``HAND_WIN[r1, r2, r3]`` (any order of the ranks), from :func:`strength.strength_table`
    without a muestra; zero for rank combinations that cannot be dealt."""
    r = np.arange(NUM_RANKS)
    grid = np.stack(np.meshgrid(r, r, r, indexing="ij"), axis=-1)        # [14, 14, 14, 3]
    table = strength.strength_table(-1)[0][strength.rank_key(grid)]
    return np.nan_to_num(table, nan=0.0)


#: Exact P(win the hand) of a 1v1 hand by the truco ranks of its three cards.
HAND_WIN = _build_hand_win()
HAND_WIN.setflags(write=False)


#: Exact envido / flor point distributions of a random hand (from the rules core).
ENVIDO_PMF, FLOR_PMF = strength.points_distributions()


def _contest_table(pmf: np.ndarray, max_m: int = 3) -> np.ndarray:
    """``T[m, t, tie_mine, x]``: P(x beats the best of m hands from ``pmf`` | that best >= t).

    Ties count as wins when ``tie_mine``.  A probability of 1 is used when no hand can reach t.
    """
    n = len(pmf)
    cdf = np.cumsum(pmf)
    out = np.zeros((max_m + 1, n, 2, n))
    for m in range(1, max_m + 1):
        cdf_m = cdf ** m
        pmf_m = np.diff(np.concatenate([[0.0], cdf_m]))
        for t in range(n):
            cond = pmf_m * (np.arange(n) >= t)
            z = cond.sum()
            if z <= 0:
                out[m, t] = 1.0
                continue
            below = np.concatenate([[0.0], np.cumsum(cond)[:-1]]) / z   # P(best < x)
            out[m, t, 0] = below
            out[m, t, 1] = below + cond / z
    return out


ENVIDO_WIN = _contest_table(ENVIDO_PMF)
FLOR_WIN = _contest_table(FLOR_PMF)


def _baza_probs(team_known: np.ndarray, opp_known: np.ndarray, team_k: np.ndarray,
                opp_k: np.ndarray, cdf: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(my team wins / loses / pardas a baza): known best ranks (-1 none) plus k random cards.

    ``cdf[N, 20]``: rows of :data:`CDF_BY_MUESTRA` (default: no muestra).
    """
    if cdf is None:
        cdf = np.broadcast_to(CDF_BY_MUESTRA[NUM_CARDS], (len(team_known), ALL_RANKS + 1))
    x = np.arange(-1, ALL_RANKS)[None, :]                                   # [1, 20]
    cdf_t = (x >= team_known[:, None]) * cdf ** team_k[:, None]
    cdf_o = (x >= opp_known[:, None]) * cdf ** opp_k[:, None]
    pmf_t = np.diff(cdf_t, prepend=0.0, axis=1)
    pmf_o = np.diff(cdf_o, prepend=0.0, axis=1)
    below_o = np.concatenate([np.zeros((len(cdf_o), 1)), cdf_o[:, :-1]], axis=1)
    pw = (pmf_t * below_o).sum(axis=1)
    pp = (pmf_t * pmf_o).sum(axis=1)
    pp[(team_known < 0) & (team_k == 0) & (opp_known < 0) & (opp_k == 0)] = 0.0
    return pw, np.clip(1.0 - pw - pp, 0.0, 1.0), pp


def hand_win_prob(baza_p: np.ndarray, mano_team: np.ndarray) -> np.ndarray:
    """Combine per-baza outcome probabilities ``baza_p[N, 3, 3]`` (W, L, P) into P(win hand)."""
    prob = (baza_p[:, 0, _COMBOS[:, 0]] * baza_p[:, 1, _COMBOS[:, 1]]
            * baza_p[:, 2, _COMBOS[:, 2]])                                  # [N, 27]
    value = _HAND_WIN_MINE[None, :] + _HAND_WIN_MANO[None, :] * mano_team[:, None]
    return (prob * value).sum(axis=1)


def _f(x: str) -> float:
    v = float(x)
    if not 0.0 <= v <= 1.0:
        raise ValueError("expected a probability in [0, 1]")
    return v


#: Largest shift of a probability threshold that the readiness knobs accept.
MAX_SHIFT = 0.5
#: Card-play modes besides a probability of a random card (see :class:`HeuristicAgent`).
CARD_MODES = ("smart", "high", "low")


def _shift(x: str) -> float:
    """A readiness knob: a shift of probability thresholds in [-MAX_SHIFT, MAX_SHIFT]."""
    try:
        v = float(x)
    except ValueError:
        raise ValueError(f"expected a number in [{-MAX_SHIFT}, {MAX_SHIFT}]") from None
    if not -MAX_SHIFT <= v <= MAX_SHIFT:
        raise ValueError(f"expected a number in [{-MAX_SHIFT}, {MAX_SHIFT}]")
    return v


def _cards(x: str) -> "str | float":
    """``smart``, ``high``, ``low`` or a probability of a random card in [0, 1]."""
    x = str(x).strip()
    if x in CARD_MODES:
        return x
    try:
        v = float(x)
    except ValueError:
        v = float("nan")
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"unknown card mode {x!r}; expected one of {list(CARD_MODES)} or a "
                         f"probability in [0, 1] of playing a random card")
    return v


def _style(x: str) -> str:
    x = str(x).strip()
    if x not in STYLES:
        raise ValueError(f"unknown style {x!r}; known styles: {sorted(STYLES)}")
    return x


#: Named playing styles: knob settings of :class:`HeuristicAgent` (``heuristic:style=NAME``;
#: knobs given in the same spec override the preset's).  Each is a sensible player, a
#: caricature of a human type; ``benchmarks/heuristic_strength.py --styles`` measures them.
STYLES: dict[str, dict] = {
    # Accepts nearly every truco and envido, rarely calls or raises itself, never bluffs.
    "calling_station": dict(accept=0.25, call=-0.08, raises=-0.12, envido=-0.10, bluff=0.0),
    # Calls, raises and accepts only strong hands; never bluffs, seldom opens envido.
    "tight_passive": dict(accept=-0.12, call=-0.08, raises=-0.10, envido=-0.10, bluff=0.0),
    # Bluffs often, calls and raises light, opens envido often (and bluffs it); accepts a
    # little lighter too, since it expects bluffs back.
    "maniac": dict(bluff=0.40, call=0.12, raises=0.20, accept=0.05, envido=0.20,
                   envido_bluff=0.25),
    # Between the heuristic and the maniac: more bluffs, lighter calls and acceptances.
    "loose_aggressive": dict(bluff=0.22, call=0.06, raises=0.08, accept=0.10, envido=0.08,
                             envido_bluff=0.08),
    # Plays for the envido: opens it light, bluffs it, counter-raises and accepts it; the
    # truco it plays by the book but with fewer bluffs.
    "envido_hunter": dict(envido=0.22, envido_bluff=0.25, raises=0.05, accept=0.05,
                          bluff=0.05, call=-0.04),
    # Slow-plays: seldom calls truco itself, waits for the opponents' call to raise; keeps
    # its best cards for the later bazas (cards=low).
    "trapper": dict(call=-0.12, raises=0.12, accept=0.04, bluff=0.05, cards="low"),
    # Bets like the heuristic but burns its best card at once (cards=high): strong in baza 1,
    # nothing left for the last.
    "card_dumper": dict(cards="high"),
    # Bluffs the re-raise: answers an envido with falta envido and a truco with retruco a
    # third of the time whatever it holds, and plays a random card a third of the time, so
    # neither its raises nor its cards say for sure what it holds.
    "bluff_raiser": dict(raise_bluff=0.33, cards=0.33),
}


A = ACTION_ID
_PLAY = np.array([A["play_0"], A["play_1"], A["play_2"]])
#: Per envido chain (rules.ENVIDO_CHAIN's index): points if accepted (-1: falta) and refused.
_CHAIN_Q = np.array([q for _, q, _ in ENVIDO_CHAIN], dtype=np.float64)
_CHAIN_NQ = np.array([x for _, _, x in ENVIDO_CHAIN], dtype=np.float64)
_BIG = 99


def _card_prob(agent: "HeuristicAgent") -> float:
    """The probability of a random card of an agent's ``cards`` (0 for a card mode)."""
    return 0.0 if isinstance(agent.cards, str) else agent.cards


class _Parts:
    """The agents of one vectorized pass of :class:`HeuristicAgent` (:meth:`~HeuristicAgent.
    act_many`; one agent for :meth:`~HeuristicAgent.act_batch`), each on consecutive rows of
    the batch, ``counts`` rows each in the order given."""

    def __init__(self, agents: list, counts: list[int]):
        self.agents, self.counts, self.n = agents, counts, int(sum(counts))
        ends = np.cumsum(counts, dtype=np.int64)
        self.slices = [slice(int(e - c), int(e)) for c, e in zip(counts, ends)]

    def knob(self, get) -> "float | np.ndarray":
        """A knob's value per row: ``get(agent)`` (a name: that attribute); the scalar itself
        when there is one agent."""
        if isinstance(get, str):
            get = operator.attrgetter(get)
        values = [get(a) for a in self.agents]
        return values[0] if len(values) == 1 else np.repeat(values, self.counts)

    def draw(self, gate, tail: tuple = ()) -> "np.ndarray | None":
        """One random draw site: every agent for which ``gate(agent, its slice)`` holds draws
        ``agent.rng.random((its rows, *tail))`` for its rows, as its own ``act_batch`` would,
        in the order of the parts; the other rows get 1.0 (``u < p`` is then false).  None
        when no agent draws."""
        if len(self.agents) == 1:
            a, s = self.agents[0], self.slices[0]
            return a.rng.random((self.n, *tail)) if gate(a, s) else None
        out = None
        for a, s in zip(self.agents, self.slices):
            if gate(a, s):
                if out is None:
                    out = np.ones((self.n, *tail))
                out[s] = a.rng.random((s.stop - s.start, *tail))
        return out


class HeuristicAgent(Agent):
    """Rule-based player (module docstring).  Parameters, all validated by :func:`agents.load`
    (``heuristic:bluff=0.2,accept=-0.1``); the defaults are the tuned player ``heuristic``.

    The readiness knobs are shifts of probability thresholds (P(win the hand) for truco,
    P(win the envido) for envido), in [-0.5, 0.5]: positive = more readily, 0 = the defaults;
    0.1 is a clear change of style, 0.3 an extreme one.

    * ``style`` (none): a preset of :data:`STYLES` (``calling_station``, ``tight_passive``,
      ``maniac``, ``loose_aggressive``, ``envido_hunter``, ``trapper``, ``card_dumper``,
      ``bluff_raiser``); the
      other knobs given with it override the preset's;
    * ``bluff`` (0.1, in [0, 1]): probability, per opportunity, of calling or raising truco
      with a hand below the calling threshold (never to vale cuatro);
    * ``aggression`` (0.0, in [0, 1]): lowers every threshold, truco and envido, calling,
      raising and accepting, by up to 0.15;
    * ``accept`` (0.0, in [-0.5, 0.5]): readiness to accept: lowers the truco ACCEPT
      thresholds (and the "about to lose the match anyway" one), and is added to P(win the
      envido) when weighing quiero against no quiero;
    * ``call`` (0.0, in [-0.5, 0.5]): readiness to call truco (or retruco, vale cuatro on its
      own turn): lowers the CALL thresholds;
    * ``raises`` (0.0, in [-0.5, 0.5]): readiness to raise a pending song: lowers the truco
      RAISE thresholds and the envido counter-raise thresholds;
    * ``envido`` (0.0, in [-0.5, 0.5]): readiness to open envido: lowers the thresholds of
      opening envido, real envido and falta envido;
    * ``envido_bluff`` (0.0, in [0, 1]): probability, per opportunity to open envido with a
      hand below the threshold, of singing envido anyway;
    * ``raise_bluff`` (0.0, in [0, 1]): probability, per song it answers without the hand to
      raise it, of raising anyway: falta envido (else real envido) over an envido, retruco
      over a truco (never vale cuatro).  What a raise says is then no longer sure: the
      plain heuristic and every other preset re-raise only with the points or the cards;
    * ``liar`` (0.0, in [0, 1]): señas (issue 13): probability, per seña it makes, of making a
      false one (a seña of the vocabulary that is not true of its hand);
    * ``cards`` (``smart``): how it plays its cards.  ``smart``: the rules of the module
      docstring.  ``high``: leads its best card; following, its best card when that beats the
      table, else its lowest (it never overtakes a partner who holds the baza): it spends its
      strength at once.  ``low``: leads its lowest card; following, its lowest card unless the
      baza must be won (an earlier one was lost or parda), then the lowest card that beats the
      table: it saves its best cards for the later bazas.  A probability ``p`` in [0, 1]:
      ``smart``, but with probability ``p`` per card a uniformly random card of the hand.
    """

    name = "heuristic"
    #: Knob defaults (a preset of :data:`STYLES` overrides some, explicit knobs override it).
    DEFAULTS = {"bluff": 0.1, "aggression": 0.0, "accept": 0.0, "call": 0.0, "raises": 0.0,
                "envido": 0.0, "envido_bluff": 0.0, "cards": "smart", "liar": 0.0,
                "raise_bluff": 0.0}
    PARAMS = {"style": _style, "bluff": _f, "aggression": _f, "accept": _shift, "call": _shift,
              "raises": _shift, "envido": _shift, "envido_bluff": _f, "cards": _cards,
              "liar": _f, "raise_bluff": _f}

    # Truco: call / raise when P(win hand) >= CALL[next level]; accept a pending level when
    # P >= ACCEPT[level], raise it when P >= RAISE[level].  The break-even of quiero against
    # no quiero is P = 0.25 / 0.17 / 0.125 for truco / retruco / vale cuatro, but P is
    # measured against a random hand and a caller's hand is stronger, hence the margins.
    CALL = np.array([0.0, 0.68, 0.78, 0.86])
    ACCEPT = np.array([0.0, 0.40, 0.48, 0.55])
    RAISE = np.array([0.0, 0.80, 0.88, 1.01])
    # Envido: open envido / real envido / falta envido when P(win) >= these; the odds of an
    # opponent who already passed on envido are better, hence OPEN_PASSED lowers them.
    OPEN_ENVIDO, OPEN_REAL, OPEN_FALTA, OPEN_PASSED = 0.62, 0.85, 0.97, 0.10
    # Least points that a caller is assumed to hold after his last call (E, R, F).
    CALLER_FLOOR = {"E": 23, "R": 26, "F": 28}
    # The falta's value in points: what the leader lacks, as a fraction of a nominal 30.
    FALTA_NOMINAL = 30.0
    # Lead in baza 1 with the weakest card that beats the opponents' cards this often.
    LEAD_SAFE = 0.6

    def __init__(self, seed: int | None = None, bluff: float | None = None,
                 aggression: float | None = None, *, style: str | None = None,
                 accept: float | None = None, call: float | None = None,
                 raises: float | None = None, envido: float | None = None,
                 envido_bluff: float | None = None, cards: "str | float | None" = None,
                 liar: float | None = None, raise_bluff: float | None = None):
        super().__init__(seed)
        given = dict(bluff=bluff, aggression=aggression, accept=accept, call=call,
                     raises=raises, envido=envido, envido_bluff=envido_bluff, cards=cards,
                     liar=liar, raise_bluff=raise_bluff)
        self.style = None if style is None else _style(style)
        knobs = {**self.DEFAULTS, **(STYLES[self.style] if self.style else {}),
                 **{k: v for k, v in given.items() if v is not None}}
        for key, value in knobs.items():   # every value checked as a spec's would be
            try:
                setattr(self, key, self.PARAMS[key](str(value)))
            except ValueError as e:
                raise ValueError(f"HeuristicAgent: bad value {key}={value!r}: {e}") from None

    def knobs(self) -> dict:
        """The knob values in effect (defaults, then the style's, then explicit ones)."""
        return {k: getattr(self, k) for k in self.DEFAULTS}

    def __repr__(self) -> str:
        diff = {k: v for k, v in self.knobs().items()
                if v != (STYLES[self.style] if self.style else {}).get(k, self.DEFAULTS[k])}
        args = ([f"style={self.style!r}"] if self.style else []) \
            + [f"{k}={v!r}" for k, v in diff.items()]
        return f"HeuristicAgent({', '.join(args)})"

    # ------------------------------------------------------------------ decoding
    @staticmethod
    def _decode(obs: np.ndarray) -> dict:
        """Named quantities of the batch from the compact pieces (read by name)."""
        v = _ENC.views(obs)
        n = obs.shape[0]
        hand = v["hand"]
        have = hand.sum(axis=2) > 0.5
        rank = np.where(have, np.rint(v["hand_rank"] * RANK_SCALE).astype(np.int64) - 1, -1)
        mu_piece = v["muestra"]
        muestra = np.where(mu_piece.sum(axis=1) > 0.5, mu_piece.argmax(axis=1), NUM_CARDS)
        players = v["players"].argmax(axis=1) + 1
        pos = v["seat_from_mano"].argmax(axis=1)
        cur = v["current_baza"]
        cur_has = cur.sum(axis=2) > 0.5
        cur_rank = np.where(cur_has, RANK_BY_MUESTRA[muestra[:, None], cur.argmax(axis=2)], -1)
        rel = np.arange(6)[None, :]
        in_game = rel < players[:, None]
        mine_seat = (rel % 2 == 0) & in_game
        theirs_seat = (rel % 2 == 1) & in_game
        m = players // 2
        mano_team = (pos % 2 == 0).astype(np.float64)
        # ---- three-player modes (issue 12): sides from the gallo and in_hand pieces.
        mode = v["mode"].argmax(axis=1)
        pata, dest = mode == 1, mode == 2
        if pata.any() or dest.any():
            gallo_rel = v["gallo.seat"].argmax(axis=1)
            i_gallo = v["gallo.me"] > 0.5
            in_hand = (v["in_hand"] > 0.5) & in_game
            me_side = np.where(i_gallo[:, None], rel == 0, rel != gallo_rel[:, None]) & in_game
            mine_seat = np.where(pata[:, None], me_side, mine_seat)
            theirs_seat = np.where(pata[:, None], in_game & ~me_side, theirs_seat)
            mine_seat = np.where(dest[:, None], rel == 0, mine_seat)
            theirs_seat = np.where(dest[:, None], in_hand & (rel > 0), theirs_seat)
            m = np.where(pata | dest, theirs_seat.sum(axis=1), m).clip(1, None)
            mano_team = np.where(pata, (~i_gallo).astype(np.float64), mano_team)
            mano_team = np.where(dest, (pos == 0).astype(np.float64), mano_team)
        res = v["baza_results"]
        return {
            "n": n, "rank": rank, "have": have, "players": players, "m": m,
            "pos": pos, "mano_team": mano_team,
            "fourth": v["fourth_card"], "discarding": v["gallo.discarding"] > 0.5,
            "alone": v["mode"].argmax(axis=1) == 2,     # destantado: a rejection costs nothing
            "answering": v["to_act.answering"] > 0.5,
            # Tables stop at 33 (envido) and 38 (flor); piezas' higher points count as those.
            "env_pts": np.rint(v["my_envido"][:, 0] * POINTS_SCALE).astype(np.int64).clip(0, 33),
            "flor_pts": np.rint(v["my_flor"][:, 0] * POINTS_SCALE).astype(np.int64).clip(0, 38),
            "cdf": CDF_BY_MUESTRA[muestra], "no_muestra": muestra == NUM_CARDS,
            "baza": v["baza"].argmax(axis=1),
            "res": res,  # per baza [mine, theirs, parda]
            "i_played": cur_has[:, 0],
            "team_best": np.where(mine_seat & cur_has, cur_rank, -1).max(axis=1),
            "opp_best": np.where(theirs_seat & cur_has, cur_rank, -1).max(axis=1),
            "opp_left": (theirs_seat & ~cur_has).sum(axis=1),
            "mates_left": (mine_seat & ~cur_has & (rel > 0)).sum(axis=1),
            "cur_count": cur_has.sum(axis=1),
            "truco_level": v["truco.level"].argmax(axis=1),
            "truco_pending": v["truco.pending"].argmax(axis=1),
            "env_chain": v["envido.chain"].argmax(axis=1),
            "env_pending": v["envido.pending"] > 0.5,
            "flor_state": v["flor.state"].argmax(axis=1),
            "mine_frac": v["score.mine"], "theirs_frac": v["score.theirs"],
            "lacks_frac": v["score.lacks"],
            **_read_senas(v, rel, mine_seat, theirs_seat, cur_has, muestra),
        }

    # ------------------------------------------------------------------ cards
    def _choose_card(self, d: dict, high=None, low=None) -> np.ndarray:
        """Slot of the card to play in every game (the lowest sensible card).  ``high`` /
        ``low``: whether a row plays ``cards=high`` / ``cards=low`` (a bool, or one per row;
        default: this agent's ``cards``)."""
        if high is None:
            high, low = self.cards == "high", self.cards == "low"
        n, rank, have = d["n"], d["rank"], d["have"]
        rows = np.arange(n)
        lo_key = np.where(have, rank, _BIG)
        lowest = lo_key.argmin(axis=1)
        highest = np.where(have, rank, -_BIG).argmax(axis=1)
        opp_best, team_best = d["opp_best"], d["team_best"]
        m = d["m"]
        # Lowest card that beats the table (and the opponents still to come, when possible).
        beats = have & (rank > opp_best[:, None])
        lowest_beat = np.where(beats, rank, _BIG).argmin(axis=1)
        can_beat = beats.any(axis=1)
        ties = have & (rank == opp_best[:, None])
        lowest_tie = np.where(ties, rank, _BIG).argmin(axis=1)
        res = d["res"]
        won_before = res[:, :, 0].sum(axis=1) > 0
        lost_or_parda = (res[:, :, 1] + res[:, :, 2]).sum(axis=1) > 0
        # Leading: in baza 1 the weakest card likely to win it; later the best card when the
        # baza must be won, else the lowest (the opponents then need both remaining bazas).
        cdf = d["cdf"]
        below = np.take_along_axis(cdf, np.clip(rank, 0, None), axis=1)  # P(random card < r)
        p_lead = below ** m[:, None]                                    # P(beat m random cards)
        safe = have & (p_lead >= self.LEAD_SAFE)
        lead_first = np.where(safe.any(axis=1), np.where(safe, rank, _BIG).argmin(axis=1), lowest)
        lead_later = np.where(lost_or_parda, highest, lowest)
        lead = np.where(d["baza"] == 0, lead_first, lead_later)
        # Following.
        partner_holds = team_best > opp_best
        p_partner = cdf[rows, np.clip(team_best, 0, None)] ** d["opp_left"]
        strong_enough = have & (below ** d["opp_left"][:, None] >= 0.5) \
            & (rank > team_best[:, None])
        help_partner = (p_partner < 0.5) & strong_enough.any(axis=1)
        lowest_strong = np.where(strong_enough, rank, _BIG).argmin(axis=1)
        tie_ok = ties.any(axis=1) & ((d["baza"] == 0) | won_before)
        follow_theirs = np.where(can_beat, lowest_beat, np.where(tie_ok, lowest_tie, lowest))
        follow_mine = np.where(help_partner, lowest_strong, lowest)
        follow = np.where(partner_holds, follow_mine, follow_theirs)
        slot = np.where(d["cur_count"] == 0, lead, follow)
        if np.any(high):
            # Lead the best card; follow with it when it beats the table, else the lowest.
            beats_high = rank[rows, highest] > opp_best
            follow_high = np.where(partner_holds | ~beats_high, lowest, highest)
            slot = np.where(high, np.where(d["cur_count"] == 0, highest, follow_high), slot)
        if np.any(low):
            # Lead the lowest card; follow with the lowest, or with the lowest card that beats
            # the table (a tie when none does) when the baza must be won.
            must_win = lost_or_parda & ~partner_holds
            follow_low = np.where(must_win, follow_theirs, lowest)
            slot = np.where(low, np.where(d["cur_count"] == 0, lowest, follow_low), slot)
        # Safety: a slot that is not in the hand (cannot happen when a card is legal).
        slot = np.where(have[rows, slot], slot, lowest)
        return slot

    # ------------------------------------------------------------------ strength
    def win_prob(self, d: dict, slot: np.ndarray) -> np.ndarray:
        """P(my team wins the hand) if I play ``slot`` now (or played already in this baza)."""
        n, rank, have = d["n"], d["rank"], d["have"]
        rows = np.arange(n)
        b = d["baza"]
        m = d["m"]
        my_card = np.where(d["i_played"], -1, rank[rows, slot])
        rest = rank.copy()
        rest[rows[~d["i_played"]], slot[~d["i_played"]]] = -1
        rest = -np.sort(-rest, axis=1)                               # best first, -1 padding
        p = np.zeros((n, 3, 3))
        # Finished bazas: their known results.
        for k in range(3):
            done = b > k
            p[done, k, WIN] = d["res"][done, k, 0]
            p[done, k, LOSE] = d["res"][done, k, 1]
            p[done, k, PARDA] = d["res"][done, k, 2]
        # The baza in progress.
        # Señas (issue 13): a card a partner (or a caught rival) signalled and has not yet
        # played in this baza counts as known instead of random (-1 / 0 without señas).
        pw, pl, pp = _baza_probs(np.maximum(np.maximum(d["team_best"], my_card), d["sig_team"]),
                                 np.maximum(d["opp_best"], d["sig_opp"]),
                                 d["mates_left"] - (d["sig_team"] >= 0),
                                 d["opp_left"] - (d["sig_opp"] >= 0), d["cdf"])
        for k in range(3):
            at = b == k
            p[at, k] = np.stack([pw, pl, pp], axis=1)[at]
        # Later bazas: my remaining cards best first, against fresh random cards.
        for k in range(1, 3):
            later = b < k
            j = np.clip(k - b - 1, 0, 2)
            card = rest[rows, j]
            pw, pl, pp = _baza_probs(card, np.full(n, -1), m - 1, m, d["cdf"])
            # No card left for that baza (the hand will be decided before): any value works.
            p[later, k] = np.stack([pw, pl, pp], axis=1)[later]
        w = hand_win_prob(p, d["mano_team"])
        # Before any card of baza 1 in 1v1, the exact table.
        fresh = (d["players"] == 2) & (b == 0) & (d["cur_count"] == 0) & have.all(axis=1) \
            & d["no_muestra"]
        if fresh.any():
            r = np.clip(rank[fresh], 0, None)
            w[fresh] = HAND_WIN[r[:, 0], r[:, 1], r[:, 2]]
        return w

    # ------------------------------------------------------------------ decisions
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)[:, :COMPACT_SIZE]
        return self._decide(_Parts([self], [len(obs)]), obs, np.asarray(mask).astype(bool))

    @classmethod
    def act_many(cls, parts: "list[tuple[Agent, np.ndarray]]", obs: np.ndarray,
                 mask: np.ndarray) -> np.ndarray:
        """:meth:`Agent.act_many` in one vectorized pass over the rows of every part: the knobs
        are per row, every random draw is each agent's own for its rows (same shapes, order
        and conditions as its :meth:`act_batch`).  Parts of another class (a subclass
        included), or a subclass that rewrites :meth:`act_batch`, get the default."""
        parts = [(a, np.asarray(idx)) for a, idx in parts if len(idx)]
        if cls.act_batch is not HeuristicAgent.act_batch \
                or any(type(a) is not cls for a, _ in parts):
            return super().act_many(parts, obs, mask)
        if len({id(a) for a, _ in parts}) < len(parts):
            raise ValueError("act_many: an agent appears in more than one part")
        out = np.zeros(len(obs), np.int64)
        if parts:
            sel = np.concatenate([idx for _, idx in parts])
            obs = np.asarray(obs, dtype=np.float32)[:, :COMPACT_SIZE]
            group = _Parts([a for a, _ in parts], [len(idx) for _, idx in parts])
            out[sel] = parts[0][0]._decide(group, obs[sel], np.asarray(mask)[sel].astype(bool))
        return out

    def _decide(self, parts: "_Parts", obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The actions of ``parts``' agents (``self``: the first of them), each on its
        consecutive rows of ``obs`` (compact) and ``legal``: the knobs are ``parts``' values
        (a scalar with one agent), the random draws each agent's (:meth:`_Parts.draw`)."""
        n = obs.shape[0]
        if not legal.any(axis=1).all():
            raise ValueError("an action mask row has no legal action")
        knob = parts.knob
        d = self._decode(obs)
        slot = self._choose_card(d, knob(lambda a: a.cards == "high"),
                                 knob(lambda a: a.cards == "low"))
        # A uniformly random card of the hand instead, with probability ``cards``.
        random_card = lambda a, s: _card_prob(a) > 0  # noqa: E731
        keys = parts.draw(random_card, (3,))
        if keys is not None:
            u = parts.draw(random_card)
            slot = np.where(u < knob(_card_prob), (keys + d["have"]).argmax(axis=1), slot)
        w = self.win_prob(d, slot)
        agg = 0.15 * knob("aggression")
        desperate = (d["theirs_frac"] >= 0.85) & (d["mine_frac"] < 0.85)

        # Preference of every action; the best legal one is played.  Defaults rank the sane
        # fallbacks (play the chosen card, else accept, else anything but the mazo).
        pref = np.zeros((n, NUM_ACTIONS))
        pref[np.arange(n), _PLAY[slot]] = 3.0
        pref[:, A["quiero"]] = 2.0
        pref[:, A["no_quiero"]] = 1.0
        pref[:, A["flor"]] = 2.5
        pref[:, A["mazo"]] = -5.0
        want = np.full(n, -1)

        def choose(cond: np.ndarray, action: str) -> None:
            """Set the wanted action where ``cond``, the action is legal and none is set yet."""
            sel = cond & legal[:, A[action]] & (want < 0)
            want[sel] = A[action]

        answering = d["answering"]
        flor_state = d["flor_state"]
        # ---- flor contest (only a player with flor answers a flor)
        m = d["m"]
        f = d["flor_pts"]
        pf = FLOR_WIN[m, 0, d["mano_team"].astype(int), f]
        in_flor = answering & (flor_state > 0)
        choose(in_flor & (flor_state == 1) & (pf >= 0.85), "contraflor_al_resto")
        choose(in_flor & (flor_state == 1) & (pf >= 0.60), "contraflor")
        choose(in_flor & (flor_state == 1) & (pf >= 0.30), "flor")
        choose(in_flor & (flor_state == 1), "con_flor_me_achico")
        choose(in_flor & (flor_state == 2) & (pf >= 0.85), "contraflor_al_resto")
        choose(in_flor & (flor_state >= 2) & (pf >= np.where(flor_state == 2, 0.45, 0.6)),
               "quiero")
        choose(in_flor, "no_quiero")

        # ---- envido
        e = d["env_pts"]
        tie = d["mano_team"].astype(int)
        e = np.maximum(e, d["sig_envido"])     # a partner's seña of envido alto (issue 13)
        p_open = ENVIDO_WIN[m, 0, tie, e]
        passed = (d["baza"] == 0) & (d["opp_best"] >= 0)  # an opponent played without singing
        p_open = p_open + np.where(passed, self.OPEN_PASSED, 0.0) + agg
        p_open = p_open + knob("envido")
        can_open = legal[:, A["envido"]] & (d["env_chain"] == 0)
        choose(can_open & (p_open >= self.OPEN_FALTA), "falta_envido")
        choose(can_open & (p_open >= self.OPEN_REAL), "real_envido")
        choose(can_open & (p_open >= self.OPEN_ENVIDO), "envido")
        u = parts.draw(lambda a, s: a.envido_bluff > 0)
        if u is not None:
            choose(can_open & (u < knob("envido_bluff")), "envido")

        q_pts, nq_pts = _CHAIN_Q[d["env_chain"]], _CHAIN_NQ[d["env_chain"]]
        falta = np.maximum(d["lacks_frac"] * self.FALTA_NOMINAL, nq_pts + 1)
        q_pts = np.where(q_pts < 0, falta, q_pts)
        floor = np.array([self.CALLER_FLOOR.get(c[-1:], 0) for c, _, _ in ENVIDO_CHAIN],
                         dtype=np.int64)[d["env_chain"]]   # a table per chain, not per row
        floor = np.maximum(floor, d["sig_opp_envido"])   # a caught rival seña of envido alto
        p_env = ENVIDO_WIN[m, floor, tie, e] + agg
        in_env = answering & (flor_state == 0) & d["env_pending"]
        raises, accept_knob, raise_bluff = knob("raises"), knob("accept"), knob("raise_bluff")
        p_up = p_env + raises
        choose(in_env & (p_up >= 0.90), "falta_envido")
        choose(in_env & (p_up >= 0.78), "real_envido")
        choose(in_env & (p_up >= 0.72), "envido")
        re_raise = lambda a, s: a.raise_bluff > 0  # noqa: E731
        u = parts.draw(re_raise)
        if u is not None:   # a re-raise on a hand that would not raise (a bluff)
            bluff_up = in_env & (u < raise_bluff)
            choose(bluff_up, "falta_envido")
            choose(bluff_up, "real_envido")
        accept_env = (2 * (p_env + accept_knob) - 1) * q_pts > -np.where(d["alone"], 0.0, nq_pts)
        choose(in_env & (accept_env | desperate), "quiero")
        choose(in_env, "no_quiero")

        # ---- truco
        lvl = d["truco_pending"]
        in_truco = answering & (flor_state == 0) & ~d["env_pending"] & (lvl > 0)
        raise_ok = in_truco & (w >= self.RAISE[lvl] - agg - raises)
        choose(raise_ok, "retruco")
        choose(raise_ok, "vale_cuatro")
        u = parts.draw(re_raise)
        if u is not None:
            choose(in_truco & (lvl == 1) & (u < raise_bluff), "retruco")
        accept = (w >= self.ACCEPT[lvl] - agg - accept_knob) \
            | (desperate & (w >= 0.2 - accept_knob))
        choose(in_truco & accept, "quiero")
        choose(in_truco, "no_quiero")

        my_turn = ~answering
        nxt = np.minimum(d["truco_level"] + 1, 3)
        # Bluffs call truco or retruco, never vale cuatro (a lost bluff there costs 4).
        bluff = (parts.draw(lambda a, s: True) < knob("bluff")) & (nxt < 3)
        call = my_turn & ((w >= self.CALL[nxt] - agg - knob("call")) | bluff)
        for name in ("truco", "retruco", "vale_cuatro"):
            choose(call, name)

        # ---- pata de gallo: the gallo discards the card whose loss leaves the strongest three
        # (1v1 hand-win table of the kept ranks, then the envido they keep).
        disc = legal[:, A["discard_0"]]
        if disc.any():
            pref[disc] = np.where(legal[disc], -1.0, -np.inf)
            pref[disc, A["discard_0"]:A["discard_3"] + 1] = self._discard_values(obs[disc], d, disc)
            want[disc] = -1
        # ---- señas (issue 13): first thing on its turn, a truthful traditional seña (or, with
        # probability ``liar``, a false one); the turn stays, the decisions above come next.
        can_sena = legal[:, core.A_SENA0]
        if can_sena.any():
            sena = self._choose_sena(obs, d, legal, can_sena, parts)
            rows = np.flatnonzero(sena >= 0)
            want[rows] = core.A_SENA0 + sena[rows]
        rows = np.flatnonzero(want >= 0)
        pref[rows, want[rows]] = 10.0
        pref[~legal] = -np.inf
        return pref.argmax(axis=1)

    @staticmethod
    def _choose_sena(obs: np.ndarray, d: dict, legal: np.ndarray, can: np.ndarray,
                     parts: "_Parts") -> np.ndarray:
        """The seña number to make in every game (-1 none): traditional señas only; the best
        unplayed card's seña (baza 1: envido alto / sin envido first unless that card is a
        tres or better), uruguayo's ``nada`` in baza 1 without one; a lie with probability
        ``liar`` (a seña false of the hand), drawn by an agent whose rows can make one."""
        v = _ENC.views(obs)
        traditional = v["senas.kind"][:, 0] > 0.5
        uru = ~d["no_muestra"]
        true = _true_senas(v, d)                                    # [n, 16]
        have = d["have"]
        cards = v["hand"].argmax(axis=2)
        mu = np.where(uru, v["muestra"].argmax(axis=1), NUM_CARDS)
        tok = np.where(uru[:, None], card_sena_table(True)[mu[:, None], cards],
                       card_sena_table(False)[mu[:, None], cards])
        best = np.where(have & (tok >= 0), tok, _BIG).min(axis=1)
        env_tok = np.where(true[:, _ENVIDO_ALTO], _ENVIDO_ALTO,
                           np.where(true[:, _SIN_ENVIDO], _SIN_ENVIDO, -1))
        first = (d["baza"] == 0) & (env_tok >= 0) & ~uru & (best > _TRES)
        sena = np.where(best < _BIG, best, -1)
        sena = np.where(first, env_tok, sena)
        sena = np.where(uru & (sena < 0) & (d["baza"] == 0), _NADA, sena)   # nada: of the
        # hand as dealt, so only before any card of it is played
        nk = legal[:, core.A_SENA0:].sum(axis=1)
        lies = lambda a, s: a.liar > 0 and can[s].any()  # noqa: E731
        u = parts.draw(lies)
        if u is not None:
            lie = u < parts.knob("liar")
            keys = parts.draw(lies, (legal.shape[1] - core.A_SENA0,)) \
                + (legal[:, core.A_SENA0:] & ~true[:, :legal.shape[1] - core.A_SENA0])
            false = keys.argmax(axis=1)
            ok = (legal[:, core.A_SENA0:] & ~true[:, :legal.shape[1] - core.A_SENA0]).any(axis=1)
            sena = np.where(lie & ok, false, sena)
        sena = np.where(can & traditional & (sena < nk), sena, -1)
        return sena

    @staticmethod
    def _discard_values(obs: np.ndarray, d: dict, rows: np.ndarray) -> np.ndarray:
        """``[k, 4]``: the value of discarding each of the gallo's four cards."""
        v = _ENC.views(obs)
        cards = np.concatenate([v["hand"].argmax(axis=2), v["fourth_card"].argmax(axis=1)[:, None]],
                               axis=1)                                       # [k, 4] card ids
        rank = RANK_BY_MUESTRA[NUM_CARDS][cards]
        suit, env_val = cards // 10, np.minimum(cards % 10 + 1, 7) * (cards % 10 < 7)
        out = np.zeros((len(cards), 4))
        for k in range(4):
            keep = [j for j in range(4) if j != k]
            r = np.clip(rank[:, keep], 0, NUM_RANKS - 1)
            strength_ = HAND_WIN[r[:, 0], r[:, 1], r[:, 2]]
            env = np.zeros(len(cards))
            for a in range(3):
                for b in range(a + 1, 3):
                    same = suit[:, keep[a]] == suit[:, keep[b]]
                    env = np.maximum(env, np.where(same, 20 + env_val[:, keep[a]]
                                                   + env_val[:, keep[b]], 0))
            out[:, k] = strength_ + env / 330.0
        return out


# ---- señas (issue 13): reading the traditional señas seen (the ``senas`` piece)
_ENVIDO_ALTO, _SIN_ENVIDO = SENAS_ARGENTINO.index("envido_alto"), SENAS_ARGENTINO.index("sin_envido")
_TRES, _NADA = SENAS_ARGENTINO.index("tres"), SENAS_URUGUAYO.index("nada")
#: The least truco rank a card seña promises (-1: not a card seña), argentino and uruguayo.
_SENA_RANK = np.full((2, SENA_MAX), -1, dtype=np.int64)
_SENA_RANK[0, :7] = [13, 12, 11, 10, 9, 8, 7]
_SENA_RANK[1, :10] = [18, 17, 16, 15, 14, 12, 10, 9, 8, 7]


def _read_senas(v: dict, rel: np.ndarray, mine_seat: np.ndarray, theirs_seat: np.ndarray,
                cur_has: np.ndarray, muestra: np.ndarray) -> dict:
    """What the señas seen say, taken at their word: the best card a partner (``sig_team``) or
    a caught rival (``sig_opp``) signalled and who has not played in this baza yet (-1 none),
    and the envido of a partner's (a caught rival's) ``envido_alto`` (0 none)."""
    n = v["senas"].shape[0]
    out = {"sig_team": np.full(n, -1), "sig_opp": np.full(n, -1),
           "sig_envido": np.zeros(n, np.int64), "sig_opp_envido": np.zeros(n, np.int64)}
    traditional = v["senas.kind"][:, 0] > 0.5
    if not traditional.any():
        return out
    seen = v["senas.seen"].reshape(n, 3, 6, SENA_SIZE)[..., :SENA_MAX] > 0.5   # [n, 3, 6, 16]
    uru = (muestra < NUM_CARDS).astype(np.int64)
    rank = np.where(seen, _SENA_RANK[uru][:, None, None, :], -1).max(axis=(1, 3))  # [n, 6]
    rank = np.where(traditional[:, None] & ~cur_has, rank, -1)
    mates = mine_seat & (rel > 0)
    out["sig_team"] = np.where(mates, rank, -1).max(axis=1)
    out["sig_opp"] = np.where(theirs_seat, rank, -1).max(axis=1)
    alto = seen[..., _ENVIDO_ALTO].any(axis=1) & traditional[:, None] & (uru[:, None] == 0)
    out["sig_envido"] = np.where((alto & mates).any(axis=1), ENVIDO_ALTO, 0)
    out["sig_opp_envido"] = np.where((alto & theirs_seat).any(axis=1), ENVIDO_ALTO, 0)
    return out


def _true_senas(v: dict, d: dict) -> np.ndarray:
    """``bool[n, 16]``: the traditional señas true of my hand as dealt (the cards not yet
    played, and the envido), from the observation."""
    n = len(d["have"])
    cards = v["hand"].argmax(axis=2)
    uru = ~d["no_muestra"]
    mu = np.where(uru, v["muestra"].argmax(axis=1), NUM_CARDS)
    tok = np.where(uru[:, None], card_sena_table(True)[mu[:, None], cards],
                   card_sena_table(False)[mu[:, None], cards])
    tok = np.where(d["have"], tok, -1)
    out = np.zeros((n, SENA_MAX), dtype=bool)
    for j in range(3):
        ok = tok[:, j] >= 0
        out[np.flatnonzero(ok), tok[ok, j]] = True
    env = np.rint(v["my_envido"][:, 0] * POINTS_SCALE)
    out[:, _ENVIDO_ALTO] |= ~uru & (env >= ENVIDO_ALTO)
    out[:, _SIN_ENVIDO] |= ~uru & (env < SIN_ENVIDO)
    out[:, _NADA] = np.where(uru, (tok < 0).all(axis=1), out[:, _NADA])
    return out


def _heuristic_factory(args: str, seed: int | None) -> Agent:
    from .base import parse_params

    params = parse_params(args, HeuristicAgent.PARAMS, f"heuristic:{args}" if args else "heuristic")
    return HeuristicAgent(seed=seed, **params)
