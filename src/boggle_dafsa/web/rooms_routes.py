"""The Rooms page's routes: the page (``/rooms``, ``/rooms/ID``), ``/api/rooms`` and the rooms'
WebSocket (``/ws/rooms/ID``). The rooms themselves, pure state, are in :mod:`.rooms`; this
module drives them from the event loop: it owns each game's clock and sends every change to
the players' pages."""

import asyncio
import json
from collections.abc import MutableMapping
from typing import Annotated, Any

from fastapi import Body, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from boggle_dafsa.board.dice import random_seed
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.web.guard import CLIENT_KEY
from boggle_dafsa.web.payloads import verdict_payload
from boggle_dafsa.web.rooms import OVER, PLAYING, Room, RoomError
from boggle_dafsa.web.settings import AUTO, BONUS_HELP, Limits, dice_set
from boggle_dafsa.web.site import MAX_SEED, page, render_page


class RoomRequest(BaseModel):
    """A new room."""

    model_config = ConfigDict(populate_by_name=True)

    dice: str = Field("fr", max_length=32)
    dictionary: str | None = Field(None, alias="dict", max_length=64)
    seconds: int = Field(180, description="Length of the game (bounded by the server's limits).")
    seed: int | None = Field(None, ge=0, le=MAX_SEED, description="The grid's seed (default: a random one).")
    hints: bool = Field(False, description="Let players ask for hints (off by default: a room is a contest).")
    clean: bool = Field(True, description="Leave the family-friendly blocklist out of the grid's words (docs/game.md).")
    bonus: str | None = Field(AUTO, max_length=64, description=BONUS_HELP)


def add_room_routes(app: FastAPI) -> None:
    """The Rooms page, ``/api/rooms`` and the rooms' WebSocket, over ``app.state.rooms``."""
    catalog, limits, guard, registry = app.state.catalog, app.state.limits, app.state.guard, app.state.rooms
    html = render_page("rooms", "/rooms")
    app.get("/rooms", include_in_schema=False)(page(html))
    app.get("/rooms/{room_id}", include_in_schema=False)(page(html))

    @app.post("/api/rooms", status_code=201, summary="Open a room: the server rolls the grid and owns the clock")
    def create_room(http: Request, request: Annotated[RoomRequest, Body()]) -> JSONResponse:
        address = http.scope.get(CLIENT_KEY, "unknown")
        guard.check_room(address, lambda room_id: room_id in registry.rooms)

        if not limits.min_seconds <= request.seconds <= limits.max_seconds:
            raise BoggleError(f"a game lasts {limits.min_seconds} to {limits.max_seconds} seconds, not {request.seconds}")
        chosen = dice_set(request.dice)
        name, words = catalog.for_language(request.dictionary, chosen.language)
        seed = random_seed() if request.seed is None else request.seed
        full = catalog.bonus_for(name, request.bonus)
        options = {"hints": request.hints, "clean": request.clean, "bonus": None if full is None else full[0]}
        bonus = None if full is None else full[1]
        room = registry.make_room(
            lambda room_id: Room(room_id, chosen, seed, name, words, request.seconds, limits, options=options, bonus=bonus),
            owner=address,
        )
        guard.room_opened(address, room.id)
        return JSONResponse(room.state(), status_code=201)

    @app.get("/api/rooms/{room_id}", summary="A room's public state")
    async def room_state(room_id: str) -> JSONResponse:
        room = registry.get(room_id)
        keep_time(room)
        return JSONResponse(room.state())

    # -- the WebSocket -------------------------------------------------------------------

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


def _decode_message(message: MutableMapping[str, Any], limits: Limits) -> dict[str, Any] | str:
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
