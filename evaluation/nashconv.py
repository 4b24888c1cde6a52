"""Exact exploitability on small Truco through OpenSpiel: CFR+, NashConv, agents as tables.

Small Truco (:func:`truco_env.openspiel.small_truco`) is walked once and exported as an EFG
game (:func:`truco_env.openspiel.export_efg`), on which OpenSpiel's C++ ``CFRPlusSolver`` and
exact best responses (``pyspiel.nash_conv``) run.  Any agent becomes a tabular policy by asking
it at every information state of the tree (:func:`agent_policy`): a trained PPO network gives
its exact action probabilities (the softmax of its masked logits), the random agent the uniform
ones, any other batched agent the frequencies of ``samples`` draws (exact for a deterministic
agent such as the heuristic).  NashConv is the sum over both seats of what a best response
gains against the policy (in points of the hand); 0 at an equilibrium.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np
import pyspiel

from truco_env import core as C
from truco_env.observe import Encoder
from truco_env.openspiel import Efg, Position, small_truco
from truco_env.rules import ACTIONS

#: The calls an always-call policy makes, most preferred first (then ``quiero``, then the
#: first card): it sings every song it may and accepts every one it hears.
CALLS_FIRST = ("vale_cuatro", "retruco", "truco", "falta_envido", "real_envido", "envido",
               "flor", "contraflor_al_resto", "contraflor", "quiero")


def table(efg: Efg, probs: Callable[[int, int, list[int]], list[float]]) -> dict:
    """A policy for ``pyspiel.nash_conv(efg game, table)``: ``probs(player, i, legal)`` gives
    the probabilities of ``legal`` (action ids) at player's information state ``i``."""
    out = {}
    for p, names in enumerate(efg.infostates):
        for i, name in enumerate(names):
            legal = efg.legal[p][i]
            out[efg.key(p, name)] = [(efg.action_id[ACTIONS[a]], float(q))
                                     for a, q in zip(legal, probs(p, i, legal))]
    return out


def always_call_policy(efg: Efg) -> dict:
    """Sing every call that may be sung, accept every song; else play the first card."""
    def probs(p, i, legal):
        names = [ACTIONS[a] for a in legal]
        pick = next((names.index(c) for c in CALLS_FIRST if c in names), 0)
        return [1.0 if j == pick else 0.0 for j in range(len(legal))]
    return table(efg, probs)


def cfr(efg: Efg, game: pyspiel.Game, iterations: int, every: int = 10,
        log: Callable[[str], None] | None = None) -> tuple[list[tuple[int, float, float]], dict]:
    """OpenSpiel's CFR+ on the EFG game: ``[(iteration, NashConv, seconds)]`` every ``every``
    iterations (and at the last) and the average policy as ``{(player, infostate): {action
    name: probability}}``."""
    solver = pyspiel.CFRPlusSolver(game)
    curve, t0 = [], time.time()
    for it in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if it % every == 0 or it == iterations or it in (1, 2, 5):
            nc = pyspiel.nash_conv(game, solver.average_policy())
            curve.append((it, nc, time.time() - t0))
            if log:
                log(f"CFR+ iteration {it}: NashConv {nc:.4f} ({time.time() - t0:.0f} s)")
    return curve, from_table(efg, solver.tabular_average_policy().policy_table())


def from_table(efg: Efg, policy: dict) -> dict:
    """``{(player, python_truco infostate): {action name: probability}}`` of an EFG policy."""
    names = efg.actions
    out = {}
    for p, infos in enumerate(efg.infostates):
        for info in infos:
            out[(p, info)] = {names[a]: q for a, q in policy[efg.key(p, info)]}
    return out


def agent_probs(agent, obs: np.ndarray, mask: np.ndarray, samples: int = 16) -> np.ndarray:
    """``float[N, A]``: the agent's action probabilities on a batch of decisions."""
    from agents.base import RandomAgent
    from agents.ppo_policy import PolicyAgent
    if isinstance(agent, PolicyAgent):
        import torch
        with torch.no_grad():
            logits, _ = agent.net(torch.as_tensor(obs), torch.as_tensor(mask))
            return torch.softmax(logits, dim=1).numpy().astype(np.float64)
    if isinstance(agent, RandomAgent):
        return mask / mask.sum(axis=1, keepdims=True)
    if not agent.batched:
        raise ValueError(f"agent {agent!r} acts one decision at a time from the decoded view; "
                         f"nashconv needs a batched agent (act_batch)")
    counts = np.zeros(mask.shape, dtype=np.float64)
    rows = np.arange(len(mask))
    for _ in range(samples):
        counts[rows, agent.act_batch(obs, mask)] += 1
    return counts / samples


def agent_policy(efg: Efg, game: pyspiel.Game, agent, samples: int = 16,
                 batch: int = 4096) -> dict:
    """The agent as a tabular policy of the EFG game: asked once at every information state
    (one walk of ``game``, the ``python_truco`` the EFG was exported from)."""
    enc = Encoder(getattr(agent, "observation", "compact"))
    spec = game.spec
    seen = [set() for _ in range(game.num_players())]
    pending: list[tuple[int, str, list[int]]] = []
    obs = np.zeros((batch, enc.size), np.float32)
    mask = np.zeros((batch, len(ACTIONS)), bool)
    out: dict = {}

    def flush():
        n = len(pending)
        if not n:
            return
        pr = agent_probs(agent, obs[:n], mask[:n], samples)
        for j, (p, info, legal) in enumerate(pending):
            q = pr[j, legal]
            q = q / q.sum() if q.sum() > 0 else np.full(len(legal), 1 / len(legal))
            out[efg.key(p, info)] = [(efg.action_id[ACTIONS[a]], float(x))
                                     for a, x in zip(legal, q)]
        pending.clear()

    def walk(pos: Position):
        p = pos.player()
        if p == pyspiel.PlayerId.TERMINAL:
            return
        if p == pyspiel.PlayerId.CHANCE:
            actions = [a for a, _ in pos.chance_outcomes()]
        else:
            actions = pos.legal()
            info = pos.infostate(p)
            if info not in seen[p]:
                seen[p].add(info)
                j = len(pending)
                enc.encode_one(pos.S, spec.tables, 0, p, out=obs[j])
                mask[j] = False
                mask[j, actions] = True
                pending.append((p, info, actions))
                if len(pending) == batch:
                    flush()
        for a in actions:
            child = pos.copy()
            child.apply(a)
            walk(child)

    walk(game.new_initial_state().pos)
    flush()
    return out


def nashconv(agent, deck: str = "7", calls=None, log=None) -> dict:
    """NashConv of ``agent`` (an :class:`agents.Agent`) on small Truco, with the game's size."""
    from truco_env.openspiel import SMALL_CALLS, export_efg
    game = small_truco(deck, calls=SMALL_CALLS if calls is None else calls)
    t0 = time.time()
    efg = export_efg(game)
    efg_game = efg.load()
    nc = pyspiel.nash_conv(efg_game, agent_policy(efg, game, agent))
    return {"game": str(game), "nashconv": nc, "seconds": time.time() - t0,
            "infostates": sum(len(i) for i in efg.infostates)}


__all__ = ["cfr", "agent_policy", "always_call_policy", "nashconv", "from_table", "table"]
