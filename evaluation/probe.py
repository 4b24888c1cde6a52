"""Probes: an agent's action probabilities in a situation set up by hand.

A situation is the probed player's cards, the mano, the score, the muestra and the actions of
the hand so far (cards and action names, in order).  It is built with the public environment
API only: ``reset`` options deal the hands and set the mano and score, then the actions are
stepped.  A card in the actions is played by whoever is to act; a card that is not the probed
player's is dealt to the player who plays it.

The probed seat is the one to act after the actions: ``seat`` pins it (an error says whose turn
it is otherwise), and by default it is found: the first seat, from the mano on, that can hold
``hand`` with the actions replayed and is then to act.  So ``mano=1`` and no actions probes the
mano's first decision (seat 1 holds ``hand``); ``mano=1, actions=["4c"]`` probes seat 0's
answer to the 4c.  The score is given from the probed player's side (mine, theirs).

Three-player modes: the score is three numbers, the probed player's first, then the next
seats' in play order (destantado: tantos left, from 10 down).  In pata de gallo the gallo (the
seat before the mano) holds four cards: a four-card ``hand`` probes him (his discard, or a
later decision after a ``discard_k`` in the actions), a three-card one a player of the pair.

>>> sit = ProbeSituation(hand=["1e", "7o", "3b"], mano=1, actions=["4c"])
>>> e, seat = setup_probe(sit)
>>> seat, e.unwrapped.view("player_0")["table"]
(0, [[(1, '4c')]])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from truco_env.cards import card_str, parse_card
from truco_env.env import env as make_env
from truco_env.rules import ACTION_ID, NUM_ACTIONS
from truco_env.strength import hand_strength


@dataclass
class ProbeSituation:
    """A position set up through reset options and actions, for :func:`setup_probe`."""

    hand: list[str]
    players: int = 2
    rules: str = "argentino"
    target: int | None = None
    flor: bool | None = None
    pica_pica: bool | None = None               # None: the preset's (a hand may be a duel)
    mano: int = 0
    score: tuple[int, ...] | None = None        # (the probed player's team, the other team);
    #                                   three-player modes: his, then the next seats in order
    muestra: str | None = None
    actions: list[str] = field(default_factory=list)   # card strings and action names
    seed: int = 0
    seat: int | None = None                     # None: whoever is to act after the actions
    observation: str = "compact"                # the encoder of the probed agent


def setup_probe(sit: ProbeSituation):
    """``(env, seat)``: the (wrapped) PettingZoo environment in the situation, with ``seat``
    (holding ``sit.hand``) to act.  Raises ``ValueError`` saying why when there is none."""
    P = sit.players
    if sit.seat is not None and not (isinstance(sit.seat, int) and 0 <= sit.seat < P):
        raise ValueError(f"bad seat {sit.seat!r}: expected a seat in 0..{P - 1}")
    if not (isinstance(sit.mano, int) and 0 <= sit.mano < P):
        raise ValueError(f"bad mano {sit.mano!r}: expected a seat in 0..{P - 1}")
    candidates = [sit.seat] if sit.seat is not None else [(sit.mano + k) % P for k in range(P)]
    first_error: ValueError | None = None
    turn = None
    for seat in candidates:
        try:
            e = _replay(sit, seat)
        except ValueError as exc:
            first_error = first_error or exc
            continue
        turn = e.unwrapped.agent_name_mapping[e.agent_selection]
        if turn == seat:
            return e, seat
    if turn is not None and sit.seat is not None:
        raise ValueError(f"after the actions it is player_{turn}'s turn, not player_{sit.seat}'s "
                         f"(the probed seat); add that player's action, or leave the seat out "
                         f"to probe whoever is to act")
    if first_error is not None and turn is None:
        raise first_error
    hint = ""
    if 4 in _hand_sizes(sit):
        hint = (f" (pata de gallo: the gallo, player_{(sit.mano - 1) % sit.players}, holds "
                f"four cards and discards before anyone acts; probe him with four, or add his "
                f"discard_k to the actions)")
    raise ValueError(f"no seat can hold {sit.hand} and be the one to act after the actions "
                     f"{sit.actions}{hint}")


def _hand_sizes(sit: ProbeSituation) -> list[int]:
    """Cards dealt to each seat: 3, and 4 to pata de gallo's gallo (the seat before the mano)."""
    from truco_env.rules import get_rules
    sizes = [3] * sit.players
    if get_rules(sit.rules).mode == "pata_de_gallo":
        sizes[(sit.mano - 1) % sit.players] = 4
    return sizes


def _replay(sit: ProbeSituation, seat: int):
    """The environment with ``sit.hand`` at ``seat`` and ``sit.actions`` played."""
    P = sit.players
    size = _hand_sizes(sit)
    try:
        mine = [parse_card(c) for c in sit.hand]
    except ValueError as exc:
        raise ValueError(f"bad hand {sit.hand!r}: {exc}") from None
    if len(set(mine)) != len(mine) or len(mine) not in (3, 4):
        raise ValueError(f"bad hand {sit.hand!r}: expected 3 distinct cards (4 for pata de "
                         f"gallo's gallo)")
    if len(mine) != size[seat]:
        gallo = size.index(4) if 4 in size else None
        raise ValueError(f"bad hand {sit.hand!r} for player_{seat}: it is dealt {size[seat]} "
                         f"cards" + (f" (pata de gallo: the gallo, player_{gallo}, the seat "
                                     f"before the mano, holds 4; the others 3)"
                                     if gallo is not None else ""))
    muestra = parse_card(sit.muestra) if sit.muestra else None
    forced: dict[int, list[int]] = {}
    for _ in range(len(sit.actions) + 2):
        rng = np.random.default_rng(sit.seed)
        used = set(mine) | {c for cs in forced.values() for c in cs}
        if muestra is not None:
            used.add(muestra)
        free = [c for c in rng.permutation(40).tolist() if c not in used]
        hands = []
        for p in range(P):
            got = list(mine) if p == seat else list(forced.get(p, []))
            while len(got) < size[p]:
                got.append(free.pop())
            hands.append([card_str(c) for c in got])
        knobs = {} if sit.pica_pica is None else {"pica_pica": sit.pica_pica}
        e = make_env(players=P, rules=sit.rules, target=sit.target, flor=sit.flor,
                     observation=sit.observation, **knobs)
        opts: dict[str, Any] = {"hands": hands, "mano": sit.mano}
        if sit.score is not None and len(sit.score) == 3 and P == 3:
            opts["score"] = [sit.score[(p - seat) % 3] for p in range(3)]  # his, then the next
        elif sit.score is not None:
            if len(sit.score) != 2 or P == 3:
                raise ValueError(f"bad score {sit.score!r}: expected (mine, theirs) in a team "
                                 f"game, three scores (mine, then the next seats') with 3 "
                                 f"players")
            mine_pts, theirs = sit.score
            opts["score"] = [mine_pts, theirs] if seat % 2 == 0 else [theirs, mine_pts]
        if sit.muestra:
            opts["muestra"] = sit.muestra
        e.reset(seed=sit.seed, options=opts)
        redo = False
        for i, tok in enumerate(sit.actions):
            agent = e.agent_selection
            p = e.unwrapped.agent_name_mapping[agent]
            view = e.unwrapped.view(agent)
            if tok in ACTION_ID:
                a = ACTION_ID[tok]
            else:
                c = parse_card(tok)
                if card_str(c) in view["hand"]:
                    a = view["hand"].index(card_str(c))
                elif p == seat or c in mine or c == muestra or len(forced.get(p, [])) >= size[p] \
                        or any(c in v for v in forced.values()):
                    raise ValueError(f"card {tok!r} cannot be played by player_{p} (hand "
                                     f"{[x for x in view['hand'] if x]})")
                else:
                    forced.setdefault(p, []).append(c)
                    redo = True
                    break
            e.step(a)
            after = e.unwrapped.view(agent)
            if after["hand_number"] != view["hand_number"] or after["done"]:
                raise ValueError(f"the hand is over after {sit.actions[:i + 1]}; nothing to "
                                 f"probe")
        if not redo:
            return e
    raise ValueError(f"cannot deal the cards of the actions {sit.actions}")  # pragma: no cover


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
    if getattr(agent, "batched", False):
        a = np.asarray(agent.act_batch(np.repeat(obs[None], samples, 0),
                                       np.repeat(mask[None], samples, 0)))
    else:
        a = np.array([agent.act(observation, view) for _ in range(samples)])
    return np.bincount(a, minlength=NUM_ACTIONS) / samples, f"sampled ({samples} decisions)"


def _strength(sit: ProbeSituation, view: dict) -> tuple[float, float]:
    """The strength of the probed hand; the gallo's four cards: the three he kept, or before
    his discard the best three of them."""
    if len(sit.hand) == 3:
        return hand_strength(sit.hand, sit.muestra)
    if view.get("discarded"):
        return hand_strength([c for c in sit.hand if c != view["discarded"]], sit.muestra)
    return max(hand_strength([c for c in sit.hand if c != out], sit.muestra) for out in sit.hand)


def probe(agent: Any, sit: ProbeSituation, samples: int = 2000) -> dict[str, Any]:
    """Set up ``sit`` for ``agent`` (its observation layout) and ask it: ``{"seat", "view",
    "mask", "probs", "method", "strength", "percentile"}``."""
    sit.observation = getattr(agent, "observation", "compact")
    e, seat = setup_probe(sit)
    name = f"player_{seat}"
    obs = e.observe(name)
    view = e.unwrapped.view(name)
    probs, how = action_probs(agent, obs, view, samples=samples, seed=sit.seed)
    strength, pct = _strength(sit, view)
    return {"seat": seat, "view": view, "mask": np.asarray(obs["action_mask"]).astype(bool),
            "probs": probs, "method": how, "strength": strength, "percentile": pct}
