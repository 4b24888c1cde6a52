"""Matches over the rules core: dealing, hand and match boundaries, rewards, records.

:class:`Matches` owns the core state of N matches, their random generator and the rule
tables.  It decides nothing about the rules (that is :mod:`truco_env.core`); it deals cards,
starts the next hand or the next match, and turns the points of a step into rewards.  Both the
PettingZoo environment (N = 1) and :class:`truco_env.VectorTrucoEnv` are thin layers over it.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from . import core as C
from .cards import NUM_CARDS, card_str, parse_card
from .rules import (ACTIONS, NUM_ACTIONS, ConfigurationError, RuleSet, check_senas, get_rules,
                    plays_pica_pica)

EPISODES = ("match", "hand", "deal")
REWARDS = ("match", "points")


class IllegalActionError(ValueError):
    """An action that is not legal for the player to act (names the action and the legal ones)."""


def parse_hands(hands: Any, players: int, four: int = -1) -> list[list[int]]:
    """Validate the ``hands`` reset option: one list of 3 distinct cards per seat (4 for seat
    ``four``, the gallo of pata de gallo)."""
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise ValueError(f"bad value for option 'hands': {hands!r}; expected {players} hands "
                         f"(one per seat), each a list of 3 cards such as ['1e', '7o', '3b']")
    out, seen = [], {}
    for seat, hand in enumerate(hands):
        if isinstance(hand, str):
            hand = hand.split()
        size = 4 if seat == four else 3
        if not isinstance(hand, (list, tuple)) or len(hand) != size:
            raise ValueError(f"bad value for option 'hands': seat {seat} has {hand!r}; "
                             f"expected a hand of exactly {size} cards"
                             + (" (the gallo is dealt four)" if size == 4 else ""))
        ids = []
        for text in hand:
            c = parse_card(text)
            if c in seen:
                raise ValueError(f"bad value for option 'hands': card {card_str(c)!r} is repeated "
                                 f"(seat {seen[c]} and seat {seat}); every card must be distinct")
            seen[c] = seat
            ids.append(c)
        out.append(ids)
    return out


def deck_order(given: Sequence[int], muestra: int | None, pool: Sequence[int]) -> np.ndarray:
    """A card order from fixed cards: ``given`` (seat p's cards at 3p..3p+2), then the muestra
    (if any), then the other cards of ``pool`` in their order (``int32[40]``)."""
    head = list(given) + ([muestra] if muestra is not None else [])
    if muestra is not None and muestra in given:
        raise ValueError(f"bad muestra {card_str(muestra)!r}: it is also in a hand; the muestra "
                         f"is a card not dealt to anybody")
    taken = set(head)
    return np.array(head + [c for c in pool if c not in taken], dtype=np.int32)


class DealSource:
    """Where the cards of every hand come from (the deal phase's only input).

    ``decks(matches, games)`` gives one card order per game (``int32[k, 40]``: seat p gets cards
    3p..3p+2, the next card is the muestra where the rules have one) for the next hand of each
    game; ``first_manos(matches, games)`` the mano of a new match (``None``: the driver's rule).
    """

    def decks(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def first_manos(self, matches: "Matches", games: np.ndarray) -> np.ndarray | None:
        return None

    def catches(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        """Señas (issue 13): for a seña made now in each of ``games``, who would catch it: a
        bit per seat (``int32[k]``), each set with probability ``rules.sena_catch``, drawn
        from the driver's seeded generator (the core keeps the opponents' bits)."""
        P = matches.players
        bits = matches.rng.random((len(games), P)) < matches.rules.sena_catch
        return (bits << np.arange(P)).sum(axis=1).astype(np.int32)


def in_play_first(orders: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Card orders ``int32[k, 40]`` restricted to the rules' ``deck``: the cards in play keep
    their relative order and come first, the others follow (the core deals from the front)."""
    if rules.deck is None:
        return orders
    out_of_play = np.ones(NUM_CARDS, dtype=bool)
    out_of_play[list(rules.deck_ids)] = False
    return np.take_along_axis(orders, np.argsort(out_of_play[orders], axis=1, kind="stable"),
                              axis=1)


class ShuffledDeals(DealSource):
    """Uniformly shuffled decks from the driver's seeded generator (``Matches.rng``)."""

    def decks(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        return in_play_first(matches.rng.permuted(np.broadcast_to(
            np.arange(NUM_CARDS, dtype=np.int32), (len(games), NUM_CARDS)), axis=1),
            matches.rules)


class RecordedDeals(DealSource):
    """The hands of a record, in order, for game 0 (replay); each ``{"mano", "deal", "muestra"}``
    with cards as strings, as :meth:`Matches.record` writes them.  The recorded manos are
    checked against the match's rotation."""

    def __init__(self, hands: Sequence[dict], players: int):
        self.hands = list(hands)
        self.players = players
        self.next = 0

    def deck(self, i: int) -> np.ndarray:
        h = self.hands[i]
        given = [c for hand in parse_hands(h["deal"], self.players) for c in hand]
        m = parse_card(h["muestra"]) if h.get("muestra") is not None else None
        if h.get("fourth") is not None:   # pata de gallo: the gallo's fourth card follows
            m = parse_card(h["fourth"])
        try:
            return deck_order(given, m, range(NUM_CARDS))
        except ValueError as e:
            raise ValueError(f"record hand {i}: {e}") from None

    def decks(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        if self.next >= len(self.hands):
            raise ValueError(f"the record has {len(self.hands)} hands and the match needs more")
        i = self.next
        self.next += 1
        nxt = int(matches.next_manos(np.zeros(1, np.int64))[0]) \
            if matches.S[0, C.HAND_NO] > 0 else None
        want = self.hands[i]["mano"]
        if nxt is not None and nxt != want:
            raise ValueError(f"record hand {i}: mano {want} but the match gives {nxt}")
        return self.deck(i)[None]

    def first_manos(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        return np.array([self.hands[0]["mano"]], dtype=np.int32)

    def catches(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        """The recorded catches of the hand's señas, in order (``"caught"``: the seats that
        caught each one)."""
        i = self.next - 1
        done = sum(1 for d in matches.deals[-1]["actions"][:-1] if d >= C.A_SENA0)
        caught = self.hands[i].get("caught") or []
        if done >= len(caught):
            raise ValueError(f"record hand {i}: seña {done + 1} has no recorded 'caught' entry")
        return np.array([sum(1 << int(q) for q in caught[done])], dtype=np.int32)


class DuplicateDeals(DealSource):
    """Deals that depend only on ``(seed, match id, hand number)``, for duplicate play.

    Hand ``k`` (0-based) of match ``m`` is ``numpy.random.default_rng([seed, m, k])``'s
    permutation and its first mano ``default_rng([seed, m])``'s draw, so two games with the same
    match id get the same cards whatever happens in them, and the deals do not depend on how
    matches are split into batches or workers.
    """

    def __init__(self, seed: int, match_ids: Sequence[int]):
        self.seed = int(seed)
        self.match_ids = np.asarray(match_ids, dtype=np.int64)

    def decks(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        S = matches.S
        return in_play_first(np.stack([
            np.random.default_rng([self.seed, int(self.match_ids[g]), int(S[g, C.HAND_NO])])
            .permutation(NUM_CARDS) for g in games]).astype(np.int32), matches.rules)

    def first_manos(self, matches: "Matches", games: np.ndarray) -> np.ndarray:
        return np.array([np.random.default_rng([self.seed, int(self.match_ids[g])])
                         .integers(matches.players) for g in games], dtype=np.int32)


class StepResult(NamedTuple):
    """What :meth:`Matches.step` returns (arrays over the batch)."""

    rewards: np.ndarray      # float32[N, players]: this step's reward of every seat
    hand_ended: np.ndarray   # bool[N]: the hand ended at this step
    done: np.ndarray         # bool[N]: the episode ended at this step
    points: np.ndarray       # int32[N, T_MAX]: points each team scored at this step


class Matches:
    """N Truco matches stepped together: the one match driver.

    The phases are explicit: :meth:`reset` starts matches and deals their first hand;
    :meth:`legal_mask` and :meth:`step` play; a hand that ends stays in the state, readable
    (its events are in the core's LOG, see :mod:`truco_env.view`), until :meth:`next_hand` (or
    :meth:`restart`, the vector env's auto-reset) deals the next one from the deal source.

    Args:
        n: number of matches.
        players: seats per match (2, 4 or 6).
        rules: a :class:`RuleSet`.
        episode: ``"match"`` (a match to the target), ``"hand"`` (one hand; the match goes on
            in the next episode) or ``"deal"`` (one hand of a new match at 0-0: every episode
            the same game, as small Truco in :mod:`truco_env.openspiel`).
        reward: ``"match"`` (+1/-1 at the end of the match) or ``"points"`` (per hand, points won
            minus points conceded); ``None`` picks ``"match"`` for match episodes and
            ``"points"`` for hand episodes.
        random_mano: whether a new match starts with a random mano (else seat 0).
        deals: the :class:`DealSource` (default: :class:`ShuffledDeals`).
    """

    def __init__(self, n: int, players: int, rules: RuleSet, episode: str = "match",
                 reward: str | None = None, random_mano: bool = False,
                 deals: DealSource | None = None):
        if players not in rules.players_allowed:
            hint = ""
            if players == 3:
                hint = "; three players play rules='pata_de_gallo' or rules='destantado'"
            elif rules.mode != "teams":
                hint = f"; {rules.mode} is a three-player mode"
            raise ConfigurationError(f"bad value players={players!r} for rules {rules.name!r} "
                                     f"(mode {rules.mode!r}); expected one of "
                                     f"{list(rules.players_allowed)}{hint}")
        if episode not in EPISODES:
            raise ValueError(f"bad value episode={episode!r}; expected one of {list(EPISODES)}")
        if reward is None:
            reward = "match" if episode == "match" else "points"
        if reward not in REWARDS:
            raise ValueError(f"bad value reward={reward!r}; expected one of {list(REWARDS)}")
        if episode != "match" and reward == "match":
            raise ValueError("bad value reward='match' with episode='hand'; a hand episode "
                             "has no match result: use reward='points'")
        self.pica_pica = plays_pica_pica(rules, players)   # a ValueError where it cannot be
        self.senas = check_senas(rules, players)           # a ConfigurationError without partners
        dealt = 3 * players + int(rules.muestra or rules.mode == "pata_de_gallo")
        if len(rules.deck_ids) < dealt:
            raise ConfigurationError(f"bad value deck={rules.deck!r} for players={players}: a "
                                     f"deal needs {dealt} cards, the deck has "
                                     f"{len(rules.deck_ids)}")
        self.n, self.players, self.rules = n, players, rules
        self.episode, self.reward = episode, reward
        self.random_mano = random_mano
        self.tables = rules.tables()
        self.S = C.new_state(n, players)
        self.rng = np.random.default_rng()
        self._default_deals: DealSource = deals if deals is not None else ShuffledDeals()
        self.deal_source = self._default_deals
        self.seat_team = np.arange(players) % 2
        self._sign = np.where(self.seat_team == 0, 1.0, -1.0).astype(np.float32)
        #: Three-player modes (issue 12): scores, rewards and the winner are per seat.
        self.per_seat = rules.mode != "teams"
        #: Entries of the score: 2 teams, or one per player in the three-player modes.
        self.num_scores = players if self.per_seat else 2
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._allowed = rules.allowed
        self._pts = np.zeros((n, C.T_MAX), dtype=np.int32)
        self._catch = np.zeros(n, dtype=np.int32)
        self._rewards = np.zeros((n, players), dtype=np.float32)
        self.record_deals = n == 1   # the AEC env keeps a record of every deal and action
        self.deals: list[dict] = []
        self._start_score = [0] * self.num_scores

    # ------------------------------------------------------------------ dealing
    def _deal(self, games: np.ndarray, manos: np.ndarray, decks: np.ndarray | None = None) -> None:
        """The deal phase: a hand for each of ``games`` with the given manos."""
        if decks is None:
            decks = self.deal_source.decks(self, games)
        C.start_hand(self.S, self.tables, games, decks, manos)
        if self.record_deals:
            P = self.players
            self.deals.append({"mano": int(manos[0]),
                               "cards": [int(c) for c in decks[0][:3 * P]],
                               "muestra": int(decks[0][3 * P]) if self.rules.muestra else None,
                               "fourth": int(decks[0][3 * P]) if self.rules.mode ==
                               "pata_de_gallo" else None,
                               "actions": []})

    def _first_manos(self, games: np.ndarray) -> np.ndarray:
        manos = self.deal_source.first_manos(self, games)
        if manos is not None:
            return np.asarray(manos, dtype=np.int32)
        if self.random_mano:
            return self.rng.integers(0, self.players, len(games)).astype(np.int32)
        return np.zeros(len(games), dtype=np.int32)

    def reset(self, seed: int | None = None, hands: Sequence | None = None,
              mano: int | None = None, score: Sequence[int] | None = None,
              muestra: str | None = None, deals: DealSource | None = None) -> None:
        """Start new matches (all of them) and deal their first hand.

        ``hands``/``mano``/``score``/``muestra`` fix the first hand; ``deals`` replaces the
        deal source (for example :class:`RecordedDeals` to replay a record).
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        elif not hasattr(self, "_seeded"):
            self.rng = np.random.default_rng()
        self._seeded = True
        self.deal_source = deals if deals is not None else self._default_deals
        P = self.players
        if mano is not None:
            if isinstance(mano, bool) or not isinstance(mano, (int, np.integer)) \
                    or not 0 <= mano < P:
                raise ValueError(f"bad value for option 'mano': {mano!r}; expected a seat in "
                                 f"0..{P - 1}")
        if score is not None:
            n, T = self.num_scores, self.rules.target
            if self.rules.mode == "destantado":   # the piles: tantos left, above 0
                lo, hi, what = 1, 10 * T, f"[seat0, seat1, seat2], piles (tantos left) in 1..{10 * T}"
            elif self.per_seat:
                lo, hi, what = 0, T - 1, f"[seat0, seat1, seat2], integers in 0..{T - 1}"
            else:
                lo, hi, what = 0, T - 1, f"[team0, team1], integers in 0..{T - 1}"
            ok = isinstance(score, (list, tuple, np.ndarray)) and len(score) == n and all(
                isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                and lo <= s <= hi for s in score)
            if not ok:
                raise ValueError(f"bad value for option 'score': {score!r}; expected {what}")
        self._start_score = ([int(s) for s in score] if score is not None
                             else [int(x) for x in self.user_score(np.zeros(self.num_scores,
                                                                             np.int64))])
        self.S = C.new_state(self.n, P, None if score is None else self.core_score(score))
        self.deals = []
        games = np.arange(self.n)
        manos = (np.full(self.n, mano, dtype=np.int32) if mano is not None
                 else self._first_manos(games))
        decks = None
        if muestra is not None and not self.rules.muestra:
            raise ValueError(f"bad value for option 'muestra': {muestra!r}; rules "
                             f"{self.rules.name!r} have no muestra")
        if hands is not None or muestra is not None:
            shuffled = in_play_first(self.rng.permutation(NUM_CARDS)[None],
                                     self.rules)[0].tolist()
            m = parse_card(muestra) if muestra is not None else None
            if hands is not None and self.rules.mode == "pata_de_gallo":
                # The gallo (the seat before the mano) is given four cards: his fourth card
                # is the one after the hands in the deck.
                gallo = int((manos[0] + P - 1) % P)
                parsed = parse_hands(hands, P, four=gallo)
                m = parsed[gallo].pop()
                given = [c for h in parsed for c in h]
            elif hands is not None:
                given = [c for h in parse_hands(hands, P) for c in h]
            else:
                given = [c for c in shuffled if c != m][:3 * P]
            out = sorted(set(given + ([m] if m is not None else [])) - set(self.rules.deck_ids))
            if out:
                raise ValueError(f"bad value for option 'hands': {card_str(out[0])!r} is not in "
                                 f"the deck of the rules ({' '.join(self.rules.deck)})")
            try:
                order = deck_order(given, m, shuffled)
            except ValueError as e:
                raise ValueError(f"bad value for option 'muestra': {e}") from None
            decks = np.tile(order, (self.n, 1))
        self._deal(games, manos, decks)

    def next_hand(self, games: np.ndarray | None = None) -> np.ndarray:
        """Deal the next hand (mano moves on one seat) in ``games`` whose hand is over and
        whose match goes on (default: every such game).  Returns the games dealt."""
        S = self.S
        if games is None:
            games = np.flatnonzero((S[:, C.HAND_OVER] == 1) & (S[:, C.DONE] == 0))
        else:
            games = np.asarray(games, dtype=np.int64)
            games = games[(S[games, C.HAND_OVER] == 1) & (S[games, C.DONE] == 0)]
        if len(games):
            self._deal(games, self.next_manos(games))
        return games

    def next_manos(self, games: np.ndarray) -> np.ndarray:
        """The mano of the next hand of ``games``: the next seat (the deal moves round the
        table), or in destantado the winner of the hand ("el jugador que gana la mano es el
        que empieza a jugar la siguiente mano")."""
        S = self.S
        if self.rules.mode == "destantado":
            return S[games, C.NEXT_MANO].astype(np.int32)
        return ((S[games, C.MANO] + 1) % self.players).astype(np.int32)

    # ---- three-player modes (issue 12): the score as players read it
    def core_score(self, score: Sequence[int]) -> np.ndarray:
        """The core's SCORE entries of a score as players read it (destantado: piles)."""
        s = np.asarray(score, dtype=np.int64)
        return self.rules.target - s if self.rules.mode == "destantado" else s

    def user_score(self, core: np.ndarray) -> np.ndarray:
        """The score as players read it from the core's SCORE entries (``[..., num_scores]``):
        by team, by player in pata de gallo, each player's pile (tantos left) in destantado."""
        core = np.asarray(core)[..., :self.num_scores]
        return self.rules.target - core if self.rules.mode == "destantado" else core

    def scores(self) -> np.ndarray:
        """``int[N, num_scores]``: every game's score as players read it (a fresh array)."""
        return np.array(self.user_score(self.S[:, C.SCORE:C.SCORE + self.num_scores]))

    def restart(self, games: np.ndarray) -> None:
        """Start new episodes in ``games`` (the vector env's auto-reset).

        A finished match starts over at 0-0 with a first mano from the deal source (random or
        seat 0 by default).  In hand episodes an unfinished match goes on with its next hand, so
        hands are drawn from real match situations (scores, malas and buenas).
        """
        if len(games) == 0:
            return
        S = self.S
        P = self.players
        games = np.asarray(games)
        over = (S[games, C.DONE] == 1) | (self.episode == "deal")
        manos = self.next_manos(games)
        if over.any():
            g = games[over]
            S[g, C.SCORE:C.SCORE + C.T_MAX] = 0
            S[g, C.DONE] = 0
            S[g, C.WINNER] = -1
            S[g, C.HAND_NO] = 0
            S[g, C.PICA_FROM] = -1
            manos[over] = self._first_manos(g)
        self._deal(games, manos)

    # ------------------------------------------------------------------ stepping
    def legal_mask(self) -> np.ndarray:
        """``bool[N, A]``: the legal actions of the player to act in each game (the driver's
        own buffer: copy it before handing it out)."""
        C.legal_mask(self.S, self.tables, self._mask)
        if self._allowed is not None:    # the rules' calls knob (small games)
            self._mask &= self._allowed
        return self._mask

    def check_actions(self, actions: np.ndarray, games: np.ndarray | None = None,
                      who: Callable[[int], str] | None = None) -> None:
        """Raise :class:`IllegalActionError` naming the first illegal action of ``games``
        (checked against the mask of the last :meth:`legal_mask` call); ``who(g)`` names the
        player of game g in the message (default ``"game g"``).  The one batch legality check
        of the package (the AEC env checks its one action with the same message)."""
        mask = self._mask
        actions = np.asarray(actions)
        rows = np.arange(len(actions)) if games is None else np.asarray(games)
        a = actions[rows]
        ok = (a >= 0) & (a < NUM_ACTIONS)
        ok[ok] = mask[rows[ok], a[ok]]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            g = int(rows[i])
            raise IllegalActionError(illegal_message(int(actions[g]), mask[g],
                                                     who(g) if who else f"game {g}"))

    def step(self, actions: np.ndarray) -> StepResult:
        """Play one action per game (``-1`` skips a game); nothing is dealt here.

        Rewards follow ``self.reward``.  A hand that ends stays readable until
        :meth:`next_hand` or :meth:`restart` deals the next one.
        """
        S = self.S
        if self.record_deals and actions[0] >= 0:
            self.deals[-1]["actions"].append(int(actions[0]))
        if self.senas:
            sena = np.flatnonzero(np.asarray(actions) >= C.A_SENA0)
            if len(sena):       # who catches each seña: the deal source's draw
                self._catch[sena] = self.deal_source.catches(self, sena)
        C.step(S, self.tables, actions, self._pts, self._catch)
        if self.senas and len(sena):
            if self.record_deals and sena[0] == 0:
                i = C.SENA_CAUGHT + S[0, C.BAZA] * C.P_MAX + S[0, C.ACTOR]
                self.deals[-1].setdefault("caught", []).append(
                    [q for q in range(self.players) if (S[0, i] >> q) & 1])
            self._catch[sena] = 0
        hand_ended = S[:, C.HAND_OVER] == 1
        if self.n == 1 and not hand_ended[0]:
            self._rewards[:] = 0.0
            return StepResult(self._rewards, hand_ended, hand_ended, self._pts)
        match_done = S[:, C.DONE] == 1
        rewards = self._rewards
        rewards[:] = 0.0
        if hand_ended.any() and self.per_seat:
            # Three single players: the winner +1, the others -1/2 each (zero-sum); points:
            # my points minus the mean of the others' (destantado: tantos shed).
            if self.reward == "points":
                hp = S[:, C.HAND_PTS:C.HAND_PTS + self.players].astype(np.float32)
                diff = hp - (hp.sum(axis=1, keepdims=True) - hp) / (self.players - 1)
                rewards[hand_ended] = diff[hand_ended]
            else:
                w = S[:, C.WINNER]
                won = np.arange(self.players)[None, :] == w[:, None]
                r = np.where(won, 1.0, -1.0 / (self.players - 1)).astype(np.float32)
                rewards[match_done] = r[match_done]
        elif hand_ended.any():
            if self.reward == "points":
                hp = S[:, C.HAND_PTS:C.HAND_PTS + 2]
                diff = (hp[:, 0] - hp[:, 1]).astype(np.float32)
                rewards[hand_ended] = diff[hand_ended, None] * self._sign[None, :]
            else:
                w = S[:, C.WINNER]
                won = (self.seat_team[None, :] == w[:, None])
                r = np.where(won, 1.0, -1.0).astype(np.float32)
                rewards[match_done] = r[match_done]
        done = match_done | hand_ended if self.episode != "match" else match_done
        return StepResult(rewards, hand_ended, done, self._pts)

    # ------------------------------------------------------------------ records
    def record(self, seed: int | None = None) -> dict:
        """A JSON-serialisable record of game 0: rules, seed, every deal and action."""
        return {
            "format": "truco_env.record/1",
            "players": self.players,
            "rules": rules_to_dict(self.rules),
            "episode": self.episode,
            "reward": self.reward,
            "seed": seed,
            "start_score": self._start_score,
            "hands": [
                {"mano": d["mano"],
                 "deal": [[card_str(c) for c in d["cards"][3 * p:3 * p + 3]]
                          for p in range(self.players)],
                 "muestra": None if d.get("muestra") is None else card_str(d["muestra"]),
                 **({"fourth": card_str(d["fourth"])} if d.get("fourth") is not None else {}),
                 "actions": [ACTIONS[a] for a in d["actions"]],
                 **({"caught": d.get("caught", [])} if self.senas else {})}
                for d in self.deals
            ],
        }


def table_match(rules: str = "argentino", players: int | None = None, *,
                target: int | None = None, flor: bool | None = None,
                pica_pica: bool | None = None, senas: str | None = None) -> Matches:
    """One match for people at a table (the terminal player ``agents.play`` and the browser,
    :mod:`truco_env.web`): a preset, a player count (default: the preset's first, 3 for the
    three-player modes) and the knobs a player may choose (``None``: the preset's).  Bad
    values raise ``ValueError`` naming them.

    >>> m = table_match("pata_de_gallo"); m.players, m.rules.target
    (3, 30)
    """
    ruleset = get_rules(rules, target=target, flor=flor, pica_pica=pica_pica, senas=senas)
    return Matches(1, ruleset.players_allowed[0] if players is None else players, ruleset)


def illegal_message(action: Any, mask: np.ndarray, who: str) -> str:
    """The message of every illegal-action error: the action, who, and the legal actions."""
    legal = [(int(i), ACTIONS[i]) for i in np.flatnonzero(mask)]
    ok = isinstance(action, (int, np.integer)) and not isinstance(action, bool) \
        and 0 <= action < NUM_ACTIONS
    shown = ACTIONS[int(action)] if ok else "not an action id"
    return f"illegal action {action!r} ({shown}) for {who}; legal actions: {legal}"


def rules_to_dict(rules: RuleSet) -> dict:
    import dataclasses
    out = {}
    for f in dataclasses.fields(rules):
        if f.name in ("envido_chain", "truco_quiero", "truco_no_quiero"):
            continue
        v = getattr(rules, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def rules_from_dict(d: dict) -> RuleSet:
    d = dict(d)
    name = d.pop("name", "argentino")
    # Records written before pica-pica existed (no such key) were played without it.
    d.setdefault("pica_pica", False)
    for k in ("players_allowed", "targets_allowed", "pieza_envido", "pica_pica_players"):
        if k in d:
            d[k] = tuple(d[k])
    return get_rules(name).replace(**d)


def evaluate_hand(cards: Sequence[str] | str, muestra: str | None = None,
                  rules: str | RuleSet = "argentino") -> dict:
    """Truco ranks, envido and flor of a hand, computed by the rules core.

    >>> evaluate_hand("7c 6c 4b")
    {'ranks': [3, 2, 0], 'envido': 33, 'flor': None}
    >>> evaluate_hand("2o 10o 12c", muestra="1o", rules="uruguayo")["flor"]
    36
    """
    rules = get_rules(rules) if not isinstance(rules, RuleSet) else rules
    ids = [parse_card(c) for c in (cards.split() if isinstance(cards, str) else cards)]
    if len(ids) != 3 or len(set(ids)) != 3:
        raise ValueError(f"bad hand {cards!r}: expected 3 distinct cards")
    if muestra is not None and not rules.muestra:
        raise ValueError(f"bad muestra {muestra!r}: rules {rules.name!r} have no muestra")
    m = parse_card(muestra) if muestra is not None else None
    if m is not None and m in ids:
        raise ValueError(f"bad muestra {muestra!r}: it is also in the hand")
    ranks, envido, flor = C.hand_points([ids], rules.tables(), -1 if m is None else m)
    return {"ranks": [int(r) for r in ranks[0]], "envido": int(envido[0]),
            "flor": int(flor[0]) if flor[0] >= 0 else None}
