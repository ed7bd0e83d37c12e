"""The web application: pages, the JSON API under ``/api/``, the rooms' WebSocket.

FastAPI rather than bare Starlette (which it is built on): the query and body checks
are declared once, on the parameters, and give both the 422 answers and the OpenAPI
description at ``/api/openapi.json`` (browsable at ``/api/docs``) for free. Every route
is a thin layer over the library: it names a dictionary from the server's catalog,
parses, solves or judges with the library, and returns the library's own JSON.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from string import Template
from typing import Annotated, Any

from fastapi import Body, FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.web.guard import CLIENT_KEY, ClientGuard, GuardMiddleware, bounded
from boggle_dafsa.web.payloads import report_payload, roll_payload, solution_payload, verdict_payload
from boggle_dafsa.web.rooms import OVER, PLAYING, Room, RoomError, RoomRegistry
from boggle_dafsa.web.settings import DictionaryCatalog, Limits

STATIC = Path(__file__).resolve().parent / "static"
PAGES = Path(__file__).resolve().parent / "pages"
#: Grids of up to this many cells are solved on the event loop itself (see ``solve``).
INLINE_CELLS = 64
#: The largest seed: dice are rolled by a 64-bit generator.
MAX_SEED = (1 << 64) - 1

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def render_page(name: str, path: str) -> str:
    """The HTML of the page at ``path``: its own part (``pages/NAME.html``, its ``<main>``) set in
    ``pages/page.html``, the head and the header's links that every page shares, its own link
    marked as the current one."""
    shell = (PAGES / "page.html").read_text(encoding="utf-8")
    shell = shell.replace(f'<a href="{path}">', f'<a href="{path}" aria-current="page">', 1)
    main = (PAGES / f"{name}.html").read_text(encoding="utf-8").rstrip("\n")
    return Template(shell).substitute(title=name.title(), name=name, main=main)


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


def _example(value: Any) -> dict[int | str, dict[str, Any]]:
    """An OpenAPI ``responses`` entry: routes return JSONResponse, so the schema is shown by example."""
    return {200: {"description": "Success", "content": {"application/json": {"example": value}}}}


def _solve_example() -> dict[str, Any]:
    # Built by the same code as the answers, so that the example follows the schema; the
    # totals are those of the whole grid (the example shows its best word only).
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.solver import Hit

    grid = Grid.parse("IDXT/MHEI/ERVN/TLLU")
    best = Hit("VULNERE", 5, (10, 15, 14, 11, 6, 9, 8))
    return {**solution_payload(grid, [best]), "totals": {"words": 71, "points": 99}}


SOLVE_EXAMPLE = _solve_example()
ROLL_EXAMPLE = {
    "dice": "fr",
    "title": "French 4x4",
    "seed": 42,
    "grid": "IEFA/AEFE/MHAL/ETTE",
    "shape": [4, 4],
    "faces": list("IEFAAEFEMHALETTE"),
    "scoring": "classic",
    "min_length": 3,
    "dictionary": "fr",
}


class PlayRequest(BaseModel):
    """A solo game so far: its grid (dice set and seed) and every word submitted, in order."""

    dice: str = Field("fr", max_length=32, description="A dice set of `/api/dice`.")
    seed: int = Field(ge=0, le=MAX_SEED, description="The seed of the grid (`/api/roll` gives one).")
    model_config = ConfigDict(populate_by_name=True)

    dictionary: str | None = Field(
        None, alias="dict", max_length=64, description="A dictionary of `/api/dictionaries` (default: the dice set's)."
    )
    words: list[Annotated[str, StringConstraints(max_length=64)]] = Field(
        default_factory=list, max_length=1000, description="Every word submitted, in order, as typed."
    )
    end: bool = Field(False, description="True when the game is over: the answer adds the report and the solution.")
    time: float | None = Field(None, ge=0, le=86400, description="The time limit played, for the report.")
    clean: bool = Field(True, description="Leave the family-friendly blocklist out of the grid's words (docs/game.md).")


class RoomRequest(BaseModel):
    """A new room."""

    model_config = ConfigDict(populate_by_name=True)

    dice: str = Field("fr", max_length=32)
    dictionary: str | None = Field(None, alias="dict", max_length=64)
    seconds: int = Field(180, description="Length of the game (bounded by the server's limits).")
    seed: int | None = Field(None, ge=0, le=MAX_SEED, description="The grid's seed (default: a random one).")
    hints: bool = Field(False, description="Let players ask for hints (off by default: a room is a contest).")
    clean: bool = Field(True, description="Leave the family-friendly blocklist out of the grid's words (docs/game.md).")


def create_app(
    dictionaries: list[str] | tuple[str, ...] = (), limits: Limits | None = None, data: str | Path | None = None
) -> FastAPI:
    """The application, offering the embedded dictionaries and ``dictionaries`` (``-d`` specs).

    ``data``: the folder of the server's database (:mod:`.store`), whose rooms and daily
    results survive a restart; None keeps everything in memory.
    Raises :class:`BoggleError` if one of ``dictionaries`` cannot be opened.
    """
    limits = limits or Limits()
    catalog = DictionaryCatalog(dictionaries)
    registry = RoomRegistry(limits)
    store = None
    if data is not None:
        from boggle_dafsa.web.store import Store, restore_rooms

        store = Store(data)
        registry.store = store
        restore_rooms(store, registry, catalog, limits, Room)
    app = FastAPI(
        title="boggle-dafsa",
        description='Solve, play and score Boggle grids. Every answer is JSON; errors are `{"error": message}`.',
        docs_url=None,  # served from local files: web/apidocs.py
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
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

    def dice_set(name: str) -> Any:
        from boggle_dafsa.board.dice import BUILTIN_SETS, load_dice

        # Only the sets shipped with the package: a client never names a file.
        if name not in BUILTIN_SETS:
            raise BoggleError(f"unknown dice set {name!r} (known: {', '.join(BUILTIN_SETS)})")
        return load_dice(name)

    # -- pages ---------------------------------------------------------------------------

    def page(html: str) -> Callable[[], Awaitable[HTMLResponse]]:
        async def serve_page() -> HTMLResponse:
            return HTMLResponse(html)

        return serve_page

    pages = {
        name: render_page(name, path)
        for name, path in (("solve", "/"), ("play", "/play"), ("rooms", "/rooms"), ("words", "/words"))
    }
    app.get("/", include_in_schema=False)(page(pages["solve"]))
    app.get("/play", include_in_schema=False)(page(pages["play"]))
    app.get("/words", include_in_schema=False)(page(pages["words"]))
    app.get("/rooms", include_in_schema=False)(page(pages["rooms"]))
    app.get("/rooms/{room_id}", include_in_schema=False)(page(pages["rooms"]))

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> FileResponse:
        # At the root, so that its scope is every page (a worker controls the pages under its own path).
        return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers={"cache-control": "no-cache"})

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> FileResponse:
        return FileResponse(STATIC / "manifest.webmanifest", media_type="application/manifest+json")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    from boggle_dafsa.web.apidocs import add_docs_routes
    from boggle_dafsa.web.daily import MemoryResults, add_daily_routes

    add_docs_routes(app, "/api/openapi.json")

    # The daily puzzle is played on the Play page, which reads its mode from the path.
    add_daily_routes(app, catalog, dice_set, store if store is not None else MemoryResults(), pages["play"], limits)

    # -- the API -------------------------------------------------------------------------

    app.state.lan_url = None  # set by web.run.serve when listening on every interface

    @app.get("/api/server", summary="How others reach this server: its address on the local network, if it listens there")
    def server_info() -> JSONResponse:
        return JSONResponse({"lan_url": app.state.lan_url})

    @app.get("/api/qr", summary="A QR code (SVG) of a link, e.g. a room's, to open it on a phone")
    def qr_code(text: Annotated[str, Query(min_length=1, max_length=512, description="The text to encode (a URL).")]) -> Response:
        try:
            import segno
        except ImportError:
            raise BoggleError("QR codes need the [web] extra (segno is missing)") from None
        import io

        svg = io.BytesIO()
        segno.make(text, error="m").save(svg, kind="svg", scale=4, border=2, title=f"QR code: {text}")
        return Response(svg.getvalue(), media_type="image/svg+xml", headers={"cache-control": "max-age=86400"})

    @app.get("/api/dictionaries", summary="The dictionaries this server offers")
    def dictionaries_list() -> JSONResponse:
        return JSONResponse(catalog.describe())

    @app.get("/api/dice", summary="The dice sets, with their rules and dice")
    def dice_list() -> JSONResponse:
        from boggle_dafsa.board.dice import builtin_sets
        from boggle_dafsa.output.jsonable import dice_set_json

        return JSONResponse([dice_set_json(s) for s in builtin_sets()])

    @app.get("/api/roll", summary="Roll a grid from a dice set", responses=_example(ROLL_EXAMPLE))
    def roll(
        dice: Annotated[str, Query(max_length=32, description="A dice set of `/api/dice`.")] = "fr",
        seed: Annotated[int | None, Query(ge=0, le=MAX_SEED, description="Same seed, same grid (default: random).")] = None,
    ) -> JSONResponse:
        from boggle_dafsa.board.dice import random_seed

        return JSONResponse(roll_payload(dice_set(dice), random_seed() if seed is None else seed, catalog))

    @app.get(
        "/api/solve",
        summary="Every word on a grid: what `boggle-dafsa solve GRID --json` prints",
        responses=_example(SOLVE_EXAMPLE),
    )
    async def solve(
        request: Request,
        grid: Annotated[
            str,
            Query(
                min_length=1,
                max_length=limits.grid_chars,
                description="The grid in the GRID syntax of `solve`, e.g. IDXT/MHEI/ERVN/TLLU.",
            ),
        ],
        dict: Annotated[str | None, Query(max_length=64, description="A dictionary of `/api/dictionaries`.")] = None,
        dice: Annotated[
            str | None, Query(max_length=32, description="Take the scoring and minimum length of this dice set.")
        ] = None,
        scoring: Annotated[str | None, Query(max_length=32, description="classic, big or letters.")] = None,
        min_length: Annotated[int | None, Query(ge=1, le=64)] = None,
        adjacency: Annotated[str, Query(max_length=32, description="king or orthogonal.")] = "king",
        qu: Annotated[bool, Query(description="Read a lone Q as the QU face.")] = False,
        clean: Annotated[bool, Query(description="Leave out the family-friendly blocklist (as a clean game does).")] = False,
    ) -> JSONResponse:
        from boggle_dafsa.solver.batch import SolveOptions

        if dice is not None:
            dice_set(dice)  # only built-in sets
        # Small grids are solved on the event loop (a millisecond: cheaper than a thread hop,
        # and no two threads fight over the GIL); opening a dictionary for the first time
        # (a second) and big grids (up to 0.1 s) go to a worker thread, so that rooms' clocks
        # and other requests are not held up.
        if catalog.is_open(dict):
            name, words = catalog.get(dict)
        else:
            name, words = await run_in_threadpool(catalog.get, dict)
        options = SolveOptions.from_arguments(min_length, scoring, adjacency, None, qu, dice)
        parsed = options.parse(grid, words)
        if len(parsed) > limits.cells:
            raise BoggleError(f"the grid has {len(parsed)} cells; this server solves grids of {limits.cells} at most")
        # Every solve has a deadline (limits.solve_seconds), and each client a share of the
        # worker threads: a heavy grid gets a 503, and the others are served meanwhile.
        with guard.solving(request.scope.get(CLIENT_KEY, "unknown")):
            if len(parsed) <= INLINE_CELLS and len(parsed.shape) == 2:
                hits = bounded(limits.solve_seconds, lambda: options.solve(parsed, words))
            else:
                hits = await run_in_threadpool(bounded, limits.solve_seconds, lambda: options.solve(parsed, words))
        if clean:
            from boggle_dafsa.game.clean import blocked_words

            blocked = blocked_words(name, dice_set(dice).language if dice is not None else None)
            hits = [hit for hit in hits if hit.word not in blocked]
        return JSONResponse(solution_payload(parsed, hits))

    from boggle_dafsa.web.words import add_word_routes

    # /api/match, /api/anagram, /api/grep, /api/fuzzy, /api/hooks, /api/complete: the query commands' --json.
    add_word_routes(app, catalog, limits, guard)

    @app.post("/api/play", summary="Judge the words of a solo game; with end, the report and the solution")
    def play(request: Annotated[PlayRequest, Body()]) -> JSONResponse:
        # On a worker thread (a plain def), under the solves' deadline.
        return bounded(limits.solve_seconds, lambda: judge_solo(request))

    def judge_solo(request: PlayRequest) -> JSONResponse:
        from boggle_dafsa.game.rounds import EndReason, Game

        chosen = dice_set(request.dice)
        name, words = catalog.for_language(request.dictionary, chosen.language)
        from boggle_dafsa.game.clean import blocked_words

        blocked = blocked_words(name, chosen.language) if request.clean else frozenset()
        game = Game.from_dice(chosen, request.seed, words, dice=chosen.name, dictionary_spec=name, blocked=blocked)
        verdicts = [verdict_payload(game, game.submit(word)) for word in request.words]
        answer: dict[str, Any] = {
            "dice": chosen.name,
            "seed": request.seed,
            "dictionary": name,
            "grid": str(game.grid),
            "shape": list(game.grid.shape),
            "faces": list(game.grid.faces),
            "scoring": chosen.scoring.name,
            "min_length": chosen.min_length,
            "score": game.score,
            "verdicts": verdicts,
        }
        if request.end:
            answer["report"] = report_payload(game.report(EndReason.TIME_UP, seconds=request.time))
            answer["solution"] = solution_payload(game.grid, game.hits)
        return JSONResponse(answer)

    @app.post("/api/rooms", status_code=201, summary="Open a room: the server rolls the grid and owns the clock")
    def create_room(http: Request, request: Annotated[RoomRequest, Body()]) -> JSONResponse:
        from boggle_dafsa.board.dice import random_seed

        address = http.scope.get(CLIENT_KEY, "unknown")
        guard.check_room(address, lambda room_id: room_id in registry.rooms)

        if not limits.min_seconds <= request.seconds <= limits.max_seconds:
            raise BoggleError(f"a game lasts {limits.min_seconds} to {limits.max_seconds} seconds, not {request.seconds}")
        chosen = dice_set(request.dice)
        name, words = catalog.for_language(request.dictionary, chosen.language)
        seed = random_seed() if request.seed is None else request.seed
        options = {"hints": request.hints, "clean": request.clean}
        room = registry.make_room(
            lambda room_id: Room(room_id, chosen, seed, name, words, request.seconds, limits, options=options), owner=address
        )
        guard.room_opened(address, room.id)
        return JSONResponse(room.state(), status_code=201)

    @app.get("/api/rooms/{room_id}", summary="A room's public state")
    async def room_state(room_id: str) -> JSONResponse:
        room = registry.get(room_id)
        keep_time(room)
        return JSONResponse(room.state())

    # -- rooms: the WebSocket ------------------------------------------------------------

    async def send(socket: WebSocket, message: dict[str, Any]) -> None:
        try:
            await socket.send_json(message)
        except Exception:  # noqa: BLE001,S110 - a page that just went away: its own loop handles its disconnect
            pass

    async def broadcast(room: Room) -> None:
        for player in list(room.players.values()):
            for socket in list(player.connections):
                await send(socket, room.state(player))

    async def end_later(room: Room) -> None:
        await asyncio.sleep(room.remaining() or 0.0)
        result = room.finish()
        await broadcast(room)
        for player in list(room.players.values()):
            for socket in list(player.connections):
                await send(socket, {"type": "over", **result})

    def keep_time(room: Room) -> None:
        # A game under way with no task to end it: a room brought back after a restart.
        if room.status == PLAYING and room.timer is None:
            room.timer = asyncio.create_task(end_later(room))

    @app.websocket("/ws/rooms/{room_id}")
    async def room_socket(socket: WebSocket, room_id: str) -> None:
        await socket.accept()
        room = registry.rooms.get(room_id)
        if room is None:
            await send(socket, {"type": "error", "error": f"no room {room_id!r}", "fatal": True})
            await socket.close(code=4404)
            return
        keep_time(room)
        player = None
        room.sockets += 1  # a page open on the room: it is in use, never closed to make room
        try:
            while True:
                if player is None:  # a socket that never joins does not hold a connection for ever
                    try:
                        message = await asyncio.wait_for(socket.receive(), timeout=limits.join_seconds)
                    except asyncio.TimeoutError:
                        await send(socket, {"type": "error", "error": "no join: closing", "fatal": True})
                        await socket.close(code=1008)
                        return
                else:
                    message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                data = _decode_message(message, limits)
                if isinstance(data, str):
                    await send(socket, {"type": "error", "error": data})
                    continue
                kind = data.get("type")
                try:
                    if kind not in ("ping", "join", "start", "word", "next", "hint"):
                        raise RoomError(f"unknown message type {str(kind)[:32]!r} (join, start, word, next, hint, ping)")
                    if kind == "ping":
                        await send(socket, {"type": "pong"})
                    elif kind == "join":
                        if player is not None:
                            raise RoomError(f"already in the room as {player.name!r}")
                        player = room.join(data.get("name"), data.get("token"))
                        player.connections.add(socket)
                        await send(socket, {"type": "joined", "name": player.name, "token": player.token})
                        await broadcast(room)
                        if room.status == OVER:
                            await send(socket, {"type": "over", **room.finish()})
                    elif player is None:
                        raise RoomError("join the room first")
                    elif kind == "start":
                        if room.status != PLAYING and room.status != OVER:
                            room.start()
                            room.timer = asyncio.create_task(end_later(room))
                            await broadcast(room)
                    elif kind == "next":
                        from boggle_dafsa.board.dice import random_seed

                        room.next_round(random_seed())
                        await broadcast(room)
                    elif kind == "hint":
                        await send(socket, {"type": "hint", **room.hint(player)})
                    else:  # a word
                        verdict = room.submit(player, data.get("word"))
                        payload = verdict_payload(player.game, verdict)
                        await send(socket, {"type": "verdict", **payload, "score": player.game.score})
                        await broadcast(room)  # word counts
                except RoomError as error:
                    await send(socket, {"type": "error", "error": str(error)})
        except WebSocketDisconnect:
            pass
        finally:
            room.sockets -= 1
            if player is not None:
                player.connections.discard(socket)
                await broadcast(room)

    return app


def _decode_message(message: Message, limits: Limits) -> dict[str, Any] | str:
    """A client's message as a JSON object, or the one-line reason it is not one."""
    text = message.get("text")
    if text is None:
        return "send JSON text messages, not binary ones"
    if len(text) > limits.message_bytes:
        return f"message longer than {limits.message_bytes} characters"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return "not JSON"
    if not isinstance(data, dict):
        return 'send a JSON object, e.g. {"type": "word", "word": "maison"}'
    return data
