"""truco_env: Truco (Argentine and Uruguayan) as PettingZoo and vector environments.

>>> import truco_env
>>> env = truco_env.env(players=2, rules="argentino")
>>> env.reset(seed=7)
>>> env.agent_selection
'player_0'
"""
from .cards import parse_card, parse_cards, card_str
from .env import env, raw_env
from .game import IllegalActionError
from .rules import ConfigurationError
from .records import replay
from .rules import ACTIONS, RuleSet, get_rules
from .vector import VectorTrucoEnv

__version__ = "0.1.0"
__all__ = ["env", "raw_env", "ACTIONS", "IllegalActionError", "ConfigurationError", "RuleSet", "get_rules",
           "VectorTrucoEnv", "replay", "parse_card", "parse_cards", "card_str"]


def _register() -> None:
    """Register ``truco_env/Truco-v1`` with PettingZoo's registry where the version has one.

    ``pettingzoo.make("aec", "truco_env/Truco-v1", players=4)`` then builds ``env(players=4)``.
    """
    try:
        from pettingzoo import aec_registry, register  # PettingZoo >= 1.27
    except ImportError:
        return
    if "truco_env/Truco-v1" not in aec_registry:
        register("aec", "truco_env/Truco-v1", entry_point="truco_env.env:env")


_register()
