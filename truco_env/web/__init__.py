"""Play and watch Truco in the browser: ``python -m truco_env.web``.

    pip install -e ".[web]"
    python -m truco_env.web                      # http://127.0.0.1:8000
    python -m truco_env.web --port 8080 --idle-minutes 30 --host 0.0.0.0

The page plays any preset and player count against any agent spec (``heuristic``,
``pretrained:default``, ``checkpoint:PATH``...), partners and rivals filled by bots; asks a
trained policy for advice; and steps through match records (``record()``, the files that
``evaluate.py bluff --records`` reads).  docs/web.md has the API, the security choices and the
measured latency.

================  ===================================================================
Module            What it holds
================  ===================================================================
``session``       :class:`GameSession` (a match: the person, the bots, the driver) and
                  :class:`ReplaySession`; no web framework
``app``           :func:`create_app`: the FastAPI routes and the session store
``static/``       ``index.html``, ``app.js``, ``style.css``: the page (cards drawn as SVG
                  by ``app.js``; no external assets, works offline)
================  ===================================================================

Where the bots come from (dependency inversion).  The game package imports nothing above it
(``tests/test_layers.py``), yet the bots are built by ``agents.load``.  So :func:`create_app`
takes an *agent factory*, ``factory(spec, seed=...) -> bot`` (a bot has ``act(observation,
view)`` and, optionally, ``observation`` and ``advice(observation)``), and the command finds the
factory by name through the Python entry point group ``truco_env.agent_factories``, which the
project's ``pyproject.toml`` fills with ``agents = "agents:load"`` (the way Gymnasium's
``entry_point`` strings name an environment without importing it).  ``--agent-factory
module:attribute`` names one explicitly.  Tests and embedding pass it:
``create_app(agent_factory=agents.load)``.
"""
from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from .session import GameSession, ReplaySession, RequestError

#: The entry point group that names agent factories (``name = "module:attribute"``).
ENTRY_POINT_GROUP = "truco_env.agent_factories"


def find_agent_factory(name: str | None = None) -> Any:
    """The agent factory: ``name`` as ``module:attribute``, else the one installed under
    :data:`ENTRY_POINT_GROUP` (``agents`` first).  A missing one is a ``RuntimeError`` that
    says how to install it."""
    if name:
        if ":" not in name:
            raise RuntimeError(f"bad value --agent-factory={name!r}: expected module:attribute, "
                               f"e.g. agents:load")
        try:
            return EntryPoint(name="cli", value=name, group=ENTRY_POINT_GROUP).load()
        except (ImportError, AttributeError) as e:
            raise RuntimeError(f"cannot load the agent factory {name!r}: {e}") from None
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name != "agents")
    if not found:
        raise RuntimeError(
            f"no agent factory is installed (entry point group {ENTRY_POINT_GROUP!r}): install "
            f"the project with its agents, `pip install -e \".[web]\"` from the repository root, "
            f"or name one with --agent-factory agents:load")
    return found[0].load()


def create_app(*args: Any, **kwargs: Any):
    """:func:`truco_env.web.app.create_app` (imported on use: it needs the ``web`` extra)."""
    from .app import create_app as make
    return make(*args, **kwargs)


__all__ = ["create_app", "find_agent_factory", "GameSession", "ReplaySession", "RequestError",
           "ENTRY_POINT_GROUP"]
