"""Players behind one small interface: ``act(observation, view) -> int``.

``agents.load(spec, seed)`` builds one from a string: ``random``, ``heuristic``
(``heuristic:bluff=0.2,aggression=0.5``; named styles ``heuristic:style=maniac``, see
:class:`agents.heuristic.HeuristicAgent`), ``human``, ``checkpoint:PATH`` (a train.py run or checkpoint file),
``pretrained:NAME`` (a policy shipped with the package, :mod:`agents.pretrained`),
``solved_envido:BASE`` (BASE with its envido decisions from an exact equilibrium of the envido
betting, :mod:`agents.solved_envido`), ``robust_envido:BASE`` (the same with a data-biased
response to the training opponents' envido, ``robust_envido:p=1,n0=5:BASE``),
``adaptive_envido:BASE`` (the robust response, and a response of its own against an opponent
read as random from his mazos earlier in the match), ``truco_answers:NAME:BASE`` (BASE with its
answers to the truco from the shipped policy NAME's network, :mod:`agents.truco_answers`),
``safe_switch:margin=K:EXPLOIT;SAFE`` (EXPLOIT while its side trails by less than K points,
SAFE otherwise, :mod:`agents.safe_switch`).  See :mod:`agents.base` for the interface, and
:mod:`agents.zoo` for the styles that training draws and those held out for evaluation.

Importing :mod:`agents` registers the Gymnasium id ``truco_env/Truco-v1`` (one seat learns, the
others are agents: :class:`agents.single_agent.SingleAgentEnv`).
"""
from .base import Agent, RandomAgent, known_specs, load, parse_params, register, sample_legal
from .heuristic import HeuristicAgent, _heuristic_factory
from .human import HumanAgent, _human_factory
from .pretrained import _factory as _pretrained_factory
from .solved_envido import _factory as _solved_envido_factory
from .solved_envido import _adaptive_factory, _robust_factory
from .truco_answers import _factory as _truco_answers_factory
from .safe_switch import _factory as _safe_switch_factory

from .single_agent import SingleAgentEnv  # noqa: E402  (registers the Gymnasium id truco_env/Truco-v1)

register("heuristic", _heuristic_factory)
register("human", _human_factory)
register("pretrained", _pretrained_factory)
register("solved_envido", _solved_envido_factory)
register("robust_envido", _robust_factory)
register("adaptive_envido", _adaptive_factory)
register("truco_answers", _truco_answers_factory)
register("safe_switch", _safe_switch_factory)

__all__ = ["SingleAgentEnv", "Agent", "RandomAgent", "HeuristicAgent", "HumanAgent", "load", "register",
           "known_specs", "parse_params", "sample_legal"]
