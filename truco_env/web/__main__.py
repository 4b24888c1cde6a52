"""``python -m truco_env.web``: serve the browser player (see :mod:`truco_env.web`)."""
from __future__ import annotations

import argparse
import sys
from typing import Sequence


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m truco_env.web",
                                 description="Play and watch Truco in the browser.")
    ap.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    ap.add_argument("--idle-minutes", type=float, default=60.0,
                    help="drop a game or replay after this many minutes without a request")
    ap.add_argument("--agent-factory", default=None,
                    help="module:attribute of the agent factory (default: the installed entry "
                         "point truco_env.agent_factories, i.e. agents:load)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.idle_minutes <= 0:
        build_parser().error("--idle-minutes must be positive")
    try:
        import uvicorn

        from . import find_agent_factory
        from .app import create_app
    except ImportError as e:
        print(f"error: {e.name or e} is missing; the browser player needs the web extra: "
              f"pip install -e \".[web]\"", file=sys.stderr)
        return 2
    try:
        factory = find_agent_factory(args.agent_factory)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    app = create_app(agent_factory=factory, idle_minutes=args.idle_minutes)
    print(f"Truco in the browser: http://{args.host}:{args.port}/  (ctrl-c stops)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
