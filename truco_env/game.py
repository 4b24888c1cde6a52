"""Matches over the rules core: dealing, hand and match boundaries, rewards, records.

:class:`Matches` owns the core state of N matches, their random generator and the rule
tables.  It decides nothing about the rules (that is :mod:`truco_env.core`); it deals cards,
starts the next hand or the next match, and turns the points of a step into rewards.  Both the
PettingZoo environment (N = 1) and :class:`truco_env.VectorTrucoEnv` are thin layers over it.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import core as C
from .cards import NUM_CARDS, card_str, parse_card
from .rules import ACTIONS, NUM_ACTIONS, RuleSet, get_rules

EPISODES = ("match", "hand")
REWARDS = ("match", "points")


class IllegalActionError(ValueError):
    """An action that is not legal for the player to act (names the action and the legal ones)."""


def parse_hands(hands: Any, players: int) -> list[list[int]]:
    """Validate the ``hands`` reset option: one list of 3 distinct cards per seat."""
    if not isinstance(hands, (list, tuple)) or len(hands) != players:
        raise ValueError(f"bad value for option 'hands': {hands!r}; expected {players} hands "
                         f"(one per seat), each a list of 3 cards such as ['1e', '7o', '3b']")
    out, seen = [], {}
    for seat, hand in enumerate(hands):
        if isinstance(hand, str):
            hand = hand.split()
        if not isinstance(hand, (list, tuple)) or len(hand) != 3:
            raise ValueError(f"bad value for option 'hands': seat {seat} has {hand!r}; "
                             f"expected a hand of exactly 3 cards")
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


class Matches:
    """N Truco matches stepped together.

    Args:
        n: number of matches.
        players: seats per match (2, 4 or 6).
        rules: a :class:`RuleSet`.
        episode: ``"match"`` (a match to the target) or ``"hand"`` (one hand).
        reward: ``"match"`` (+1/-1 at the end of the match) or ``"points"`` (per hand, points won
            minus points conceded); ``None`` picks ``"match"`` for match episodes and
            ``"points"`` for hand episodes.
        random_mano: whether a new match starts with a random mano (else seat 0).
    """

    def __init__(self, n: int, players: int, rules: RuleSet, episode: str = "match",
                 reward: str | None = None, random_mano: bool = False):
        if players not in rules.players_allowed:
            raise ValueError(f"bad value players={players!r} for rules {rules.name!r}; "
                             f"expected one of {list(rules.players_allowed)}")
        if episode not in EPISODES:
            raise ValueError(f"bad value episode={episode!r}; expected one of {list(EPISODES)}")
        if reward is None:
            reward = "match" if episode == "match" else "points"
        if reward not in REWARDS:
            raise ValueError(f"bad value reward={reward!r}; expected one of {list(REWARDS)}")
        if episode == "hand" and reward == "match":
            raise ValueError("bad value reward='match' with episode='hand'; a hand episode "
                             "has no match result: use reward='points'")
        self.n, self.players, self.rules = n, players, rules
        self.episode, self.reward = episode, reward
        self.random_mano = random_mano
        self.tables = rules.tables()
        self.S = C.new_state(n, players)
        self.rng = np.random.default_rng()
        self.seat_team = np.arange(players) % 2
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._pts = np.zeros((n, C.T_MAX), dtype=np.int32)
        self.record_deals = n == 1   # the AEC env keeps a record of every deal and action
        self.deals: list[dict] = []

    # ------------------------------------------------------------------ dealing
    def _decks(self, k: int) -> np.ndarray:
        return self.rng.permuted(np.broadcast_to(np.arange(NUM_CARDS, dtype=np.int32),
                                                 (k, NUM_CARDS)), axis=1)

    def _deal(self, games: np.ndarray, manos: np.ndarray, decks: np.ndarray | None = None) -> None:
        if decks is None:
            decks = self._decks(len(games))
        C.start_hand(self.S, self.tables, games, decks, manos)
        if self.record_deals:
            P = self.players
            self.deals.append({"mano": int(manos[0]),
                               "cards": [int(c) for c in decks[0][:3 * P]],
                               "muestra": int(decks[0][3 * P]) if self.rules.muestra else None,
                               "actions": []})

    def reset(self, seed: int | None = None, hands: Sequence | None = None,
              mano: int | None = None, score: Sequence[int] | None = None,
              muestra: str | None = None, deck: Sequence[int] | None = None) -> None:
        """Start new matches (all of them).

        ``hands``/``mano``/``score``/``muestra`` fix the first hand; ``deck`` gives its whole
        card order (records).
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        elif not hasattr(self, "_seeded"):
            self.rng = np.random.default_rng()
        self._seeded = True
        P = self.players
        if mano is not None:
            if isinstance(mano, bool) or not isinstance(mano, (int, np.integer)) \
                    or not 0 <= mano < P:
                raise ValueError(f"bad value for option 'mano': {mano!r}; expected a seat in "
                                 f"0..{P - 1}")
        if score is not None:
            ok = isinstance(score, (list, tuple, np.ndarray)) and len(score) == 2 and all(
                isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                and 0 <= s < self.rules.target for s in score)
            if not ok:
                raise ValueError(f"bad value for option 'score': {score!r}; expected [team0, "
                                 f"team1], integers in 0..{self.rules.target - 1}")
        self.S = C.new_state(self.n, P, score)
        self._start_score = [int(s) for s in score] if score is not None else [0, 0]
        self.deals = []
        games = np.arange(self.n)
        if mano is not None:
            manos = np.full(self.n, mano, dtype=np.int32)
        elif self.random_mano:
            manos = self.rng.integers(0, P, self.n).astype(np.int32)
        else:
            manos = np.zeros(self.n, dtype=np.int32)
        decks = None
        if muestra is not None and not self.rules.muestra:
            raise ValueError(f"bad value for option 'muestra': {muestra!r}; rules "
                             f"{self.rules.name!r} have no muestra")
        if hands is not None or deck is not None or muestra is not None:
            if deck is not None:
                order = [int(c) for c in deck]
            else:
                shuffled = self.rng.permutation(NUM_CARDS).tolist()
                m = parse_card(muestra) if muestra is not None else None
                if hands is not None:
                    given = [c for h in parse_hands(hands, P) for c in h]
                else:
                    given = [c for c in shuffled if c != m][:3 * P]
                if m is not None and m in given:
                    raise ValueError(f"bad value for option 'muestra': {muestra!r} is also in "
                                     f"a hand; the muestra is a card not dealt to anybody")
                rest = [c for c in shuffled if c not in given and c != m]
                order = given + ([m] if m is not None else []) + rest
            decks = np.tile(np.array(order, dtype=np.int32), (self.n, 1))
        self._deal(games, manos, decks)

    # ------------------------------------------------------------------ stepping
    def legal_mask(self) -> np.ndarray:
        return C.legal_mask(self.S, self.tables, self._mask)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step every game; returns ``(rewards[N, P], hand_ended[N], episode_done[N])``.

        Rewards follow ``self.reward``.  Games whose hand ended get their next hand dealt,
        unless the episode is over (then they stay over until :meth:`reset` or
        :meth:`restart`).
        """
        S = self.S
        if self.record_deals and actions[0] >= 0:
            self.deals[-1]["actions"].append(int(actions[0]))
        C.step(S, self.tables, actions, self._pts)
        hand_ended = S[:, C.HAND_OVER] == 1
        match_done = S[:, C.DONE] == 1
        rewards = np.zeros((self.n, self.players), dtype=np.float32)
        if hand_ended.any():
            if self.reward == "points":
                hp = S[:, C.HAND_PTS:C.HAND_PTS + 2]
                diff = (hp[:, 0] - hp[:, 1]).astype(np.float32)
                sign = np.where(self.seat_team == 0, 1.0, -1.0).astype(np.float32)
                rewards[hand_ended] = diff[hand_ended, None] * sign[None, :]
            else:
                w = S[:, C.WINNER]
                won = (self.seat_team[None, :] == w[:, None])
                r = np.where(won, 1.0, -1.0).astype(np.float32)
                rewards[match_done] = r[match_done]
        done = match_done | (hand_ended if self.episode == "hand" else False)
        nxt = np.flatnonzero(hand_ended & ~done)
        if len(nxt):
            manos = ((S[nxt, C.MANO] + 1) % self.players).astype(np.int32)
            self._deal(nxt, manos)
        return rewards, hand_ended, np.asarray(done)

    def restart(self, games: np.ndarray) -> None:
        """Start new episodes in ``games`` (the vector env's auto-reset).

        A finished match starts over at 0-0 with a random (or seat 0) mano.  In hand episodes
        an unfinished match goes on with its next hand, so hands are drawn from real match
        situations (scores, malas and buenas).
        """
        if len(games) == 0:
            return
        S = self.S
        P = self.players
        games = np.asarray(games)
        over = S[games, C.DONE] == 1
        manos = ((S[games, C.MANO] + 1) % P).astype(np.int32)
        if over.any():
            g = games[over]
            S[g, C.SCORE:C.SCORE + C.T_MAX] = 0
            S[g, C.DONE] = 0
            S[g, C.WINNER] = -1
            manos[over] = (self.rng.integers(0, P, len(g)) if self.random_mano
                           else np.zeros(len(g))).astype(np.int32)
        self._deal(games, manos)

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
                 "actions": [ACTIONS[a] for a in d["actions"]]}
                for d in self.deals
            ],
        }


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
    for k in ("players_allowed", "targets_allowed", "pieza_envido"):
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
