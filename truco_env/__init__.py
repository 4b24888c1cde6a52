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
from .records import replay
from .rules import ACTIONS, RuleSet, get_rules
from .vector import VectorTrucoEnv

__version__ = "0.1.0"
__all__ = ["env", "raw_env", "ACTIONS", "IllegalActionError", "RuleSet", "get_rules",
           "VectorTrucoEnv", "replay", "parse_card", "parse_cards", "card_str"]


def _register() -> None:
    """Register with PettingZoo's registry where the installed version has one."""
    try:
        from pettingzoo.utils import registry  # type: ignore[attr-defined]
    except Exception:
        return
    try:  # pragma: no cover - depends on the PettingZoo version
        registry.register("truco_v0", entry_point="truco_env:env")
    except Exception:
        pass


_register()
