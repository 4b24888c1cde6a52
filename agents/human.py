"""A person at the terminal: shows what the seat may know and reads an action.

Input is an action id, an action name (``truco``, ``quiero``...; a unique prefix will do), a
card of the hand (``7o`` plays it) or, with señas, a seña by its meaning (``tres``, ``envido_alto``;
the view shows the señas the player saw).  Bad input is explained and asked again; ``help`` lists
the commands; ``quit``, end of input (ctrl-d) or ctrl-c raise :class:`QuitGame`, which
:mod:`agents.play` turns into a clean exit.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from truco_env.cards import card_str, parse_card
from truco_env.rules import ACTIONS, ACTION_ID
from truco_env.view import action_text, format_view

from .base import Agent, parse_params

InputFn = Callable[[str], str]
PrintFn = Callable[..., None]

class QuitGame(Exception):
    """The person asked to stop (``quit``, end of input or ctrl-c)."""


def legal_text(mask: np.ndarray, view: Mapping) -> str:
    return "Legal: " + " | ".join(f"{a} {action_text(int(a), view)}"
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
    elif t in view.get("sena_names", ()):         # señas (issue 13) by their meaning: "tres"
        action = ACTION_ID[f"sena_{list(view['sena_names']).index(t)}"]
    else:
        try:
            card = parse_card(t)
        except ValueError:
            card = None
        if card is not None:
            cs = card_str(card)
            if cs not in view["hand"]:
                return None, f"{cs} is not in your hand"
            verb = "discard" if view.get("discarding") else "play"   # pata de gallo's gallo
            action = ACTION_ID[f"{verb}_{view['hand'].index(cs)}"]
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
        self.print_fn(format_view(view, me=view["seat"]))
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
