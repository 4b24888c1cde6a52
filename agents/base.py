"""The agent interface, the spec registry (``agents.load``) and the uniform random agent.

An agent answers one decision at a time with :meth:`Agent.act` (the PettingZoo observation
dict and ``env.unwrapped.view(agent)``) and, where it can work from the compact observation
alone, many decisions at once with :meth:`Agent.act_batch` (what a trainer uses inside
:class:`truco_env.VectorTrucoEnv`, which has no views).  Neither ever returns a masked action.

>>> import agents
>>> bot = agents.load("heuristic:bluff=0.2", seed=1)
>>> {'checkpoint', 'heuristic', 'random'} <= set(agents.known_specs())
True
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from truco_env.observe import COMPACT_SIZE

AgentFactory = Callable[[str, "int | None"], "Agent"]


class Agent:
    """A Truco player.

    Subclasses implement :meth:`act_batch` (vectorized, from the compact observation) or
    override :meth:`act` (per decision, may use the decoded view); the default :meth:`act`
    calls :meth:`act_batch` on a batch of one.  ``seed`` makes every random choice reproducible.

    :meth:`act_many` answers several agents' rows of one batch at once:
    ``cls.act_many([(agent, idx), ...], obs, mask)``, ``idx`` an int array of rows of ``obs`` /
    ``mask``, the parts disjoint, every agent in at most one part.  The contract: the actions
    of each agent's rows, and what the call draws from each agent's random stream, are exactly
    those of ``agent.act_batch(obs[idx], mask[idx])``.  The default calls each agent's
    :meth:`act_batch` in turn; a class whose agents can share one vectorized pass overrides it
    (:meth:`agents.heuristic.HeuristicAgent.act_many`), which is what a trainer that plays many
    opponents of one class (``training.worker``) gains by.

    Optional: ``advice(observation) -> {"probs": {action_id: probability}, "value": float or
    None} | None``, what the agent thinks of one decision, over the legal actions only, for a
    person who asks (the browser's advice mode, :mod:`truco_env.web`).  Agents that cannot say
    do not define it; a trained policy (:meth:`agents.ppo_policy.PolicyAgent.advice`) does.
    """

    #: Short name used in tables and logs.
    name: str = "agent"
    #: The encoder the agent reads (``truco_env.observe``): ``"compact"`` or ``"infostate"``.
    observation: str = "compact"

    @property
    def batched(self) -> bool:
        """Whether :meth:`act_batch` is implemented (then :func:`truco_env.loop.play` asks for
        many decisions at once, from the observation alone)."""
        return type(self).act_batch is not Agent.act_batch

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's random stream (wrappers call it on a seeded reset)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Mapping[str, np.ndarray], view: dict | None = None) -> int:
        """One action id for one decision; never a masked action."""
        obs = np.asarray(observation["observation"], dtype=np.float32)[None, :COMPACT_SIZE]
        mask = np.asarray(observation["action_mask"])[None]
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions ``int64[N]`` for ``obs: float32[N, D]`` (compact layout first) and ``mask[N, A]``."""
        raise NotImplementedError(f"{type(self).__name__} cannot act on a batch")

    @classmethod
    def act_many(cls, parts: "list[tuple[Agent, np.ndarray]]", obs: np.ndarray,
                 mask: np.ndarray) -> np.ndarray:
        """Actions ``int64[N]`` for the rows of every ``(agent, idx)`` of ``parts`` (class
        docstring); rows no part covers get 0."""
        out = np.zeros(len(obs), np.int64)
        for agent, idx in parts:
            out[idx] = agent.act_batch(obs[idx], mask[idx])
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (rows must have a legal action)."""
    mask = np.asarray(mask).astype(bool)
    if not mask.any(axis=1).all():
        bad = int(np.flatnonzero(~mask.any(axis=1))[0])
        raise ValueError(f"row {bad} of the action mask has no legal action")
    # argmax of random keys over the legal entries: uniform, and one vector operation.  Keys
    # are drawn for the first 16 actions only while none after them is legal (the discards of
    # pata de gallo, issue 12): a seeded random player draws the same stream as before they
    # were appended, so the matches of every other game replay as they did.
    width = mask.shape[1] if mask[:, 16:].any() else min(16, mask.shape[1])
    keys = rng.random((mask.shape[0], width)) + mask[:, :width]
    return keys.argmax(axis=1)


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return sample_legal(mask, self.rng)

    def __repr__(self) -> str:
        return "RandomAgent()"


# ---------------------------------------------------------------------- specs
_REGISTRY: dict[str, AgentFactory] = {}


def register(prefix: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Make ``agents.load("PREFIX")`` / ``"PREFIX:ARGS"`` call ``factory(args, seed)``.

    ``args`` is the text after the first ``:`` (``""`` when absent).  Training code registers
    ``checkpoint`` this way: ``agents.register("checkpoint", lambda path, seed: ...)``.
    """
    if not isinstance(prefix, str) or not prefix.isidentifier():
        raise ValueError(f"bad agent spec prefix {prefix!r}; expected an identifier")
    if not callable(factory):
        raise ValueError(f"factory for {prefix!r} is not callable")
    if prefix in _REGISTRY and not replace and _REGISTRY[prefix] is not factory:
        raise ValueError(f"agent spec {prefix!r} is already registered; pass replace=True")
    _REGISTRY[prefix] = factory


def known_specs() -> list[str]:
    """Spec prefixes that :func:`load` understands (``checkpoint`` even before registration)."""
    return sorted(set(_REGISTRY) | {"checkpoint"})


def parse_params(args: str, known: Mapping[str, Callable[[str], Any]], spec: str) -> dict:
    """``"a=1,b=x"`` -> ``{"a": conv_a("1"), "b": conv_b("x")}``, every key checked.

    Raises ``ValueError`` naming an unknown or malformed parameter and listing the known ones.
    """
    out: dict[str, Any] = {}
    if not args.strip():
        return out
    for item in args.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise ValueError(f"agent spec {spec!r}: malformed parameter {item!r}; expected "
                             f"key=value with keys {sorted(known)}")
        if key not in known:
            raise ValueError(f"agent spec {spec!r}: unknown parameter {key!r}; known "
                             f"parameters: {sorted(known)}")
        if key in out:
            raise ValueError(f"agent spec {spec!r}: parameter {key!r} given twice")
        try:
            out[key] = known[key](value.strip())
        except ValueError as e:
            raise ValueError(f"agent spec {spec!r}: bad value {key}={value.strip()!r}: {e}") \
                from None
    return out


def load(spec: "str | Agent", seed: int | None = None) -> Agent:
    """Build an agent from a spec string (an :class:`Agent` is returned as is).

    Specs: ``random``, ``heuristic`` (parameters ``heuristic:bluff=0.2,...``, styles
    ``heuristic:style=maniac``), ``human``,
    ``checkpoint:PATH`` (once the training code registered it), and any prefix added with
    :func:`register`.

    >>> load("random", seed=0).name
    'random'
    """
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"agent spec {spec!r}: expected a string such as 'heuristic' or an Agent")
    prefix, _, args = spec.strip().partition(":")
    prefix = prefix.strip()
    if prefix == "checkpoint" and prefix not in _REGISTRY:
        # The PPO policy registers itself on import; it pulls in torch, so only import it here.
        try:
            import agents.ppo_policy  # noqa: F401
        except ImportError:
            pass
    if prefix not in _REGISTRY:
        if prefix == "checkpoint":
            raise ValueError(
                f"agent spec {spec!r}: no loader is registered for 'checkpoint'; import the "
                f"training package that registers it (agents.register('checkpoint', factory)), "
                f"e.g. `import agents.ppo_policy`")
        raise ValueError(f"unknown agent spec {spec!r}; known specs: {known_specs()} "
                         f"(parameters as in 'heuristic:bluff=0.2')")
    return _REGISTRY[prefix](args, seed)


def _random_factory(args: str, seed: int | None) -> Agent:
    parse_params(args, {}, f"random:{args}")
    return RandomAgent(seed)


register("random", _random_factory)
