"""A person at the terminal: shows what the seat may know and reads an action.

Input is an action id, an action name (``truco``, ``quiero``...; a unique prefix will do) or a
card of the hand (``7o`` plays it).  Bad input is explained and asked again; ``help`` lists
the commands; ``quit``, end of input (ctrl-d) or ctrl-c raise :class:`QuitGame`, which
:mod:`truco_env.play` turns into a clean exit.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from truco_env.cards import parse_card
from truco_env.env import score_text
from truco_env.rules import ACTIONS, ACTION_ID

from .base import Agent, parse_params

InputFn = Callable[[str], str]
PrintFn = Callable[..., None]

_TRUCO_LEVEL = ("no truco (1 point)", "truco accepted (2)", "retruco accepted (3)",
                "vale cuatro accepted (4)")


class QuitGame(Exception):
    """The person asked to stop (``quit``, end of input or ctrl-c)."""


def seat_name(seat: int, me: int, players: int) -> str:
    """``'you'``, ``'player_2 (partner)'`` or ``'player_1'``."""
    if seat == me:
        return "you"
    if players > 2 and seat % 2 == me % 2:
        return f"player_{seat} (partner)"
    return f"player_{seat}"


def team_name(team: int, me: int) -> str:
    return f"team {team} ({'yours' if team == me % 2 else 'theirs'})"


def describe_action(action: int, view: Mapping) -> str:
    """``'play_1 (7o)'`` for a card, the action name otherwise."""
    name = ACTIONS[action]
    if name.startswith("play_"):
        card = view["hand"][int(name[-1])]
        return f"{name} ({card})" if card else name
    return name


def format_view(view: Mapping) -> str:
    """The seat's view as a few lines: score, hand, table, calls, cards."""
    me, players, target = view["seat"], view["players"], view["target"]
    buenas = view.get("buenas", False)
    lines = [
        "Score: " + " | ".join(
            f"{team_name(t, me)} {score_text(view['score'][t], target, buenas)}"
            for t in range(2))
        + f"  (match to {target}" + (", malas y buenas)" if buenas else ")"),
        f"Hand {view['hand_number']} · mano: {seat_name(view['mano'], me, players)} · "
        f"{_TRUCO_LEVEL[view['truco_level']]}",
    ]
    if view["calls"]:
        lines.append("Calls: " + ", ".join(f"{seat_name(p, me, players)} {a}"
                                           for p, a in view["calls"]))
    if view["envido_points"]:
        lines.append("Points shown: " + ", ".join(f"{seat_name(p, me, players)} {x}"
                                                  for p, x in view["envido_points"].items()))
    for b, row in enumerate(view["table"]):
        lines.append(f"Baza {b + 1}: " + ", ".join(f"{seat_name(p, me, players)} {c}"
                                                   for p, c in row)
                     + baza_result_text(view["baza_results"][b], me))
    cards = "  ".join(f"[{k}] {c}" for k, c in enumerate(view["hand"]) if c is not None)
    extra = f"envido {view['my_envido']}"
    if view.get("my_flor") is not None:
        extra += f", flor {view['my_flor']}"
    lines.append(f"Your cards: {cards}   ({extra})")
    if view.get("pending"):
        lines.append(f"You must answer: {view['pending']}")
    return "\n".join(lines)


def baza_result_text(result, me: int) -> str:
    if result is None:
        return ""
    if result == "parda":
        return " -> parda"
    return f" -> {team_name(int(result), me)}"


def legal_text(mask: np.ndarray, view: Mapping) -> str:
    return "Legal: " + " | ".join(f"{a} {describe_action(int(a), view)}"
                                  for a in np.flatnonzero(mask))


def parse_action(text: str, mask: np.ndarray, view: Mapping) -> tuple[int | None, str]:
    """``(action, "")`` for a legal choice, else ``(None, why)``; raises QuitGame on quit."""
    t = text.strip().lower()
    legal = [int(a) for a in np.flatnonzero(mask)]
    if t in ("quit", "exit", "q"):
        raise QuitGame()
    if not t:
        return None, "type a number, an action name or a card"
    if t in ("help", "h", "?"):
        return None, ("type an action id or name from the legal list (e.g. "
                      f"'{legal[0]}' or '{ACTIONS[legal[0]]}'), a card of your hand to play it, "
                      "or 'quit'")
    action: int | None = None
    if t.lstrip("-").isdigit():
        action = int(t)
        if not 0 <= action < len(ACTIONS):
            return None, f"{t} is not an action id (0..{len(ACTIONS) - 1})"
    elif t in ACTION_ID:
        action = ACTION_ID[t]
    else:
        try:
            card = parse_card(t)
        except ValueError:
            card = None
        if card is not None:
            from truco_env.cards import card_str

            cs = card_str(card)
            if cs not in view["hand"]:
                return None, f"{cs} is not in your hand"
            action = ACTION_ID[f"play_{view['hand'].index(cs)}"]
        else:
            names = [ACTIONS[a] for a in legal if ACTIONS[a].startswith(t)]
            if len(names) == 1:
                action = ACTION_ID[names[0]]
            elif len(names) > 1:
                return None, f"{t!r} is ambiguous: {names}"
            else:
                return None, f"unknown input {text.strip()!r}; type 'help'"
    if action not in legal:
        return None, f"{ACTIONS[action]} is not legal now"
    return action, ""


class HumanAgent(Agent):
    """Asks a person (through ``input_fn``/``print_fn``) for every decision."""

    name = "human"

    def __init__(self, input_fn: InputFn = input, print_fn: PrintFn = print,
                 seed: int | None = None):
        super().__init__(seed)
        self.input_fn = input_fn
        self.print_fn = print_fn

    def act(self, observation: Mapping[str, np.ndarray], view: dict | None = None) -> int:
        if view is None:
            raise ValueError("the human player needs the view (env.unwrapped.view(agent))")
        mask = np.asarray(observation["action_mask"]).astype(bool)
        self.print_fn("")
        self.print_fn(format_view(view))
        self.print_fn(legal_text(mask, view))
        while True:
            try:
                text = self.input_fn("Your move> ")
            except (EOFError, KeyboardInterrupt):
                raise QuitGame() from None
            action, why = parse_action(text, mask, view)
            if action is not None:
                return action
            self.print_fn(f"  {why}")

    def __repr__(self) -> str:
        return "HumanAgent()"


def _human_factory(args: str, seed: int | None) -> Agent:
    parse_params(args, {}, f"human:{args}")
    return HumanAgent(seed=seed)
