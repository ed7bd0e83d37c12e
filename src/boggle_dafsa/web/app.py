"""The web application: pages, the JSON API under ``/api/``, the rooms' WebSocket.

FastAPI rather than bare Starlette (which it is built on): the query and body checks
are declared once, on the parameters, and give both the 422 answers and the OpenAPI
description at ``/api/openapi.json`` (browsable at ``/api/docs``) for free. Every route
is a thin layer over the library: it names a dictionary from the server's catalog,
parses, solves or judges with the library, and returns the library's own JSON.

:func:`create_app` only assembles: the server's state, the guards, the one-line errors,
then each page group's routes from its own module (``site``, ``apidocs``, ``daily``,
``solve``, ``words``, ``study``, ``play``, ``rooms_routes``, ``arena``), in the order the API description lists them.
"""

import json
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.web.apidocs import add_docs_routes
from boggle_dafsa.web.arena import ArenaSettings, add_arena_routes
from boggle_dafsa.web.daily import MemoryResults, add_daily_routes
from boggle_dafsa.web.guard import ClientGuard, GuardMiddleware
from boggle_dafsa.web.play import add_play_routes
from boggle_dafsa.web.rooms import Room, RoomRegistry
from boggle_dafsa.web.rooms_routes import add_room_routes
from boggle_dafsa.web.settings import DictionaryCatalog, Limits, dice_set
from boggle_dafsa.web.site import add_server_routes, add_site_routes, render_page
from boggle_dafsa.web.solve import add_solve_routes
from boggle_dafsa.web.store import Store, restore_rooms
from boggle_dafsa.web.study import add_study_routes
from boggle_dafsa.web.words import add_word_routes

#: Where the API's description is served (and read by its documentation page).
OPENAPI_URL = "/api/openapi.json"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class TooLarge(Exception):
    """A request body past the limit."""


class SizeLimit:
    """ASGI middleware: refuse query strings and bodies past the limits before anything reads them."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if len(scope.get("query_string", b"")) > self.limits.query_bytes:
            if scope["type"] == "http":
                await _send_error(send, 414, f"query string longer than {self.limits.query_bytes} bytes")
            else:
                await send({"type": "websocket.close", "code": 1009})
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limits.body_bytes):
            await _send_error(send, 413, f"request body larger than {self.limits.body_bytes} bytes")
            return
        received = 0
        too_large = replaced = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limits.body_bytes:
                    too_large = True
                    raise TooLarge
            return message

        async def checked_send(message: Message) -> None:
            # The framework may turn our exception into an answer of its own ("error parsing
            # the body"): a body past the limit gets the 413 answer whatever it says.
            nonlocal replaced
            if not too_large:
                await send(message)
            elif not replaced and message["type"] == "http.response.start":
                replaced = True
                await _send_error(send, 413, f"request body larger than {self.limits.body_bytes} bytes")

        try:
            await self.app(scope, limited_receive, checked_send)
        except TooLarge:
            if not replaced:
                await _send_error(send, 413, f"request body larger than {self.limits.body_bytes} bytes")


async def _send_error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _one_line(error: RequestValidationError) -> str:
    """FastAPI's list of validation errors as one line: ``query grid: String should have at most 2000 characters``."""
    parts = []
    for item in error.errors()[:3]:
        where = " ".join(str(part) for part in item.get("loc", ()))
        parts.append(f"{where}: {item.get('msg', 'invalid')}".strip(": "))
    return "; ".join(parts) or "invalid request"


def create_app(
    dictionaries: list[str] | tuple[str, ...] = (),
    limits: Limits | None = None,
    data: str | Path | None = None,
    arena: ArenaSettings | None = None,
) -> FastAPI:
    """The application, offering the embedded dictionaries and ``dictionaries`` (``-d`` specs).

    ``data``: the folder of the server's database (:mod:`.store`), whose rooms, daily
    results and arena survive a restart; None keeps everything in memory. ``arena``: the
    arena's dice set and slot length (default: French, three minutes).
    Raises :class:`BoggleError` if one of ``dictionaries`` cannot be opened.
    """
    limits = limits or Limits()
    catalog = DictionaryCatalog(dictionaries)
    registry = RoomRegistry(limits)
    store = None
    if data is not None:
        store = Store(data)
        registry.store = store
        restore_rooms(store, registry, catalog, limits, Room)
    app = FastAPI(
        title="boggle-dafsa",
        description='Solve, play and score Boggle grids. Every answer is JSON; errors are `{"error": message}`.',
        docs_url=None,  # served from local files: web/apidocs.py
        redoc_url=None,
        openapi_url=OPENAPI_URL,
    )
    # What the page groups' routes read when they are added.
    app.state.catalog = catalog
    app.state.rooms = registry
    app.state.limits = limits
    app.state.store = store
    app.add_middleware(SizeLimit, limits=limits)  # type: ignore[arg-type]
    # Outermost: quotas by client address before anything else is done for a request.
    guard = ClientGuard(limits)
    app.state.guard = guard
    app.add_middleware(GuardMiddleware, guard=guard)  # type: ignore[arg-type]
    # Routes return JSONResponse themselves: FastAPI's generic encoder would walk every
    # word and path again, and costs four times the solve on a 4x4 grid.

    @app.exception_handler(BoggleError)
    async def user_error(_request: Request, error: BoggleError) -> JSONResponse:
        status = getattr(error, "status", 400)
        return JSONResponse({"error": str(error)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _one_line(error)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(error.detail)}, status_code=error.status_code, headers=error.headers)

    @app.exception_handler(TimeoutError)
    async def too_long(_request: Request, _error: TimeoutError) -> JSONResponse:
        # A kernel's deadline (web/guard.py bounded()) reached outside a route's own handling.
        return JSONResponse({"error": f"this took more than {limits.solve_seconds:g} s, the server's limit"}, status_code=503)

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, _error: Exception) -> JSONResponse:
        # Logged by uvicorn; the client gets a line, and the server goes on.
        return JSONResponse({"error": "internal error"}, status_code=500)

    # The page groups, each from its module, in the order /api/openapi.json lists their routes.
    play_page = render_page("play", "/play")
    add_site_routes(app)  # /sw.js, /manifest.webmanifest, /static/
    add_docs_routes(app, OPENAPI_URL)  # /api/docs
    # The arena's players (and the daily streaks of players with a token) live in the
    # server's store; without a data folder, in one in memory.
    members = store if store is not None else Store(None)
    # The daily puzzle is played on the Play page, which reads its mode from the path.
    add_daily_routes(app, catalog, dice_set, store if store is not None else MemoryResults(), play_page, limits, members=members)
    add_server_routes(app)  # /api/server, /api/qr, /api/dictionaries, /api/dice, /api/roll
    add_solve_routes(app)  # / and /api/solve
    # /words, and /api/match, /api/anagram, /api/grep, /api/fuzzy, /api/hooks, /api/complete: the query commands' --json.
    add_word_routes(app, catalog, limits, guard)
    add_study_routes(app)  # /study, /api/search and /api/quiz/...: search --json and the cardbox quiz
    add_play_routes(app, play_page)  # /play and /api/play
    add_room_routes(app)  # /rooms, /api/rooms, /ws/rooms/
    add_arena_routes(app, arena or ArenaSettings(), members)  # /arena, /api/arena...
    return app
