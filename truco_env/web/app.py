"""The HTTP API and the static page of the browser player (FastAPI).

Routes (JSON in and out; every error is ``{"detail": message}`` with a 4xx status)::

    GET  /                              the page (static/index.html, app.js, style.css)
    GET  /api/options                   presets, player counts, example agent specs
    POST /api/games                     {"rules", "players", "opponent", "partner", "seat",
                                         "target", "flor", "pica_pica", "senas", "seed",
                                         "advisor"} -> {"id", ...state}
    GET  /api/games/{id}                the person's view, legal actions, seats
    POST /api/games/{id}/act            {"action": id} -> state + "moves" (since the person's)
    GET  /api/games/{id}/advice         the advisor's probabilities and value
    DELETE /api/games/{id}              drop the game
    POST /api/replays?match=k           a match record as JSON (size-limited) -> {"id", "steps"}
    GET  /api/replays/{id}?step=k&show=all|SEAT
"""
from __future__ import annotations

import json
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable, Literal, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool

from ..rules import PRESETS, get_rules
from .session import AgentFactory, GameSession, ReplaySession, RequestError

STATIC = Path(__file__).resolve().parent / "static"
#: Example specs offered by the page (any spec the factory understands may be typed).
EXAMPLE_SPECS = ("heuristic", "random", "heuristic:bluff=0.2", "heuristic:style=maniac",
                 "pretrained:default", "pretrained:2v2", "pretrained:uruguayo",
                 "checkpoint:runs/default")


class NewGame(BaseModel):
    """The body of ``POST /api/games`` (unknown keys are refused)."""

    model_config = ConfigDict(extra="forbid")
    rules: str = "argentino"
    players: Optional[int] = None
    opponent: str = "heuristic"
    partner: Optional[str] = None
    seat: int = 0
    target: Optional[int] = None
    flor: Optional[bool] = None
    pica_pica: Optional[bool] = None
    senas: Optional[Literal["off", "traditional", "learned"]] = None
    seed: Optional[int] = None
    advisor: Optional[str] = None


class Act(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: int


class Store:
    """Sessions by unguessable id (``secrets.token_urlsafe``), dropped after ``idle`` seconds
    without a request (``clock`` is ``time.monotonic``; tests pass a fake one)."""

    def __init__(self, idle: float, clock: Callable[[], float], limit: int):
        self.idle, self.clock, self.limit = idle, clock, limit
        self.items: dict[str, list] = {}      # id -> [session, last used]
        self.lock = threading.Lock()

    def prune(self) -> None:
        now = self.clock()
        with self.lock:
            for key in [k for k, (_, t) in self.items.items() if now - t > self.idle]:
                del self.items[key]

    def add(self, session: Any) -> str:
        self.prune()
        with self.lock:
            if len(self.items) >= self.limit:
                raise RequestError(f"the server holds {self.limit} games and replays already "
                                   f"(its limit); try again when idle ones are dropped", 503)
            key = secrets.token_urlsafe(24)
            self.items[key] = [session, self.clock()]
        return key

    def get(self, key: str, kind: type) -> Any:
        self.prune()
        with self.lock:
            item = self.items.get(key)
            if item is None or not isinstance(item[0], kind):
                what = "game" if kind is GameSession else "replay"
                raise RequestError(f"unknown {what} id {key!r} (never made, or dropped after "
                                   f"{self.idle / 60:g} idle minutes)", 404)
            item[1] = self.clock()
            return item[0]

    def drop(self, key: str) -> None:
        with self.lock:
            self.items.pop(key, None)


def create_app(agent_factory: AgentFactory | None = None, *, idle_minutes: float = 60.0,
               clock: Callable[[], float] = time.monotonic, max_sessions: int = 500,
               max_upload: int = 2_000_000) -> FastAPI:
    """The FastAPI app; ``agent_factory(spec, seed=...)`` builds the bots (``agents.load``; by
    default the one installed under the entry point group, :func:`truco_env.web.find_agent_factory`)."""
    if agent_factory is None:
        from . import find_agent_factory
        agent_factory = find_agent_factory()
    app = FastAPI(title="truco_env web", docs_url=None, redoc_url=None, openapi_url=None)
    store = Store(idle_minutes * 60.0, clock, max_sessions)
    app.state.store = store

    @app.exception_handler(RequestError)
    def _request_error(request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(ValueError)
    def _value_error(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors():
            loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            got = f" (got {e['input']!r})" if "input" in e and e.get("type") != "missing" \
                else ""
            parts.append(f"{loc}: {e.get('msg', 'invalid')}{got}")
        return JSONResponse({"detail": "bad request: " + "; ".join(parts)}, status_code=422)

    @app.exception_handler(Exception)
    def _internal(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}: {exc}"},
                            status_code=500)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/options")
    def options() -> dict:
        return {"presets": {name: {"players": list(get_rules(name).players_allowed),
                                   "target": get_rules(name).target,
                                   "targets": list(get_rules(name).targets_allowed),
                                   "flor": get_rules(name).flor,
                                   "pica_pica_players": list(get_rules(name).pica_pica_players)}
                            for name in PRESETS},
                "specs": list(EXAMPLE_SPECS), "idle_minutes": idle_minutes}

    @app.post("/api/games")
    def new_game(body: NewGame) -> dict:
        session = GameSession(agent_factory, **body.model_dump())
        key = store.add(session)
        with session.lock:
            return {"id": key, **session.state(), "moves": session.moves}

    @app.get("/api/games/{key}")
    def get_game(key: str) -> dict:
        session = store.get(key, GameSession)
        with session.lock:
            return {"id": key, **session.state()}

    @app.post("/api/games/{key}/act")
    def act(key: str, body: Act) -> dict:
        session = store.get(key, GameSession)
        with session.lock:
            return {"id": key, **session.act(body.action)}

    @app.get("/api/games/{key}/advice")
    def advice(key: str) -> dict:
        session = store.get(key, GameSession)
        with session.lock:
            return session.advice()

    @app.delete("/api/games/{key}")
    def drop(key: str) -> dict:
        store.get(key, GameSession)
        store.drop(key)
        return {"dropped": key}

    @app.post("/api/replays")
    async def new_replay(request: Request, match: int = 0) -> dict:
        size = request.headers.get("content-length")
        too_big = f"the upload is over {max_upload} bytes (the limit of a match record upload)"
        if size is not None and size.isdigit() and int(size) > max_upload:
            raise RequestError(too_big, 413)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_upload:
                raise RequestError(too_big, 413)
        data = parse_json_upload(bytes(body))
        session = await run_in_threadpool(ReplaySession, data, index=match)
        key = store.add(session)
        return {"id": key, "steps": len(session.frames), "players": session.players,
                "records": session.count}

    @app.get("/api/replays/{key}")
    def get_replay(key: str, step: int = 0, show: str = "all") -> dict:
        session = store.get(key, ReplaySession)
        seat: str | int = show
        if show != "all":
            if not show.isdigit():
                raise RequestError(f"bad value show={show!r}: expected 'all' or a seat number")
            seat = int(show)
        return {"id": key, **session.position(step, seat)}

    return app


def parse_json_upload(body: bytes) -> Any:
    """A record upload: JSON (a record or a list of records) or JSON lines, nothing else."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError("the upload is not UTF-8 text; expected a JSON match record") from None
    try:
        return json.loads(text)
    except RecursionError:
        raise RequestError("the upload nests too deeply to be a match record") from None
    except json.JSONDecodeError as e:
        lines = [x for x in text.splitlines() if x.strip()]
        if len(lines) > 1:
            try:
                return [json.loads(x) for x in lines]
            except (json.JSONDecodeError, RecursionError):
                pass
        raise RequestError(f"the upload is not JSON ({e}); expected a match record as "
                           f"written by record() (JSON, or JSON lines)") from None
