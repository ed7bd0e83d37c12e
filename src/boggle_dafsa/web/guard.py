"""What keeps one client from taking the server down: quotas by client address, deadlines, names.

- **Who a client is**: the address of its connection; the last address of its
  ``X-Forwarded-For`` header only when the server is told it sits behind a proxy
  (``serve --trust-proxy``, :attr:`Limits.trust_proxy`): otherwise anyone could claim any
  address and escape the quotas.
- **Quotas** (:class:`ClientGuard`): requests per second (a token bucket: 429 past it),
  WebSockets open at once, rooms open at once, solves running at once, each by client
  and each with a global cap that one client cannot reach alone (its own quota is
  smaller), so that the others are still served.
- **Connections** (:class:`ConnectionGate`, used by the server's protocol in
  :mod:`.run`): open connections by address, below the server's cap, and a deadline on a
  request's headers and body, so that half-sent requests (slowloris) from one address
  cannot hold every connection.
- **WebSocket messages**: a token bucket per socket and per address; past either, the
  socket is closed with code 1008 and the reason.
- **Deadlines** (:func:`bounded`): a solve runs in a worker thread under
  :func:`boggle_dafsa.solver.time_limit`; past :attr:`Limits.solve_seconds` the client gets
  a 503 and the thread and its core are free again.
- **Names** (:func:`player_name`): NFC, spaces collapsed, no control, format, private-use or
  unassigned characters (a right-to-left override, a NUL), a length limit; unique up to
  case in a room (:func:`name_key`).
"""

from __future__ import annotations

import json
import threading
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any, TypeVar

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.solver import time_limit
from boggle_dafsa.web.settings import Limits

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
T = TypeVar("T")

#: The scope key where the middleware leaves the client's address for the routes.
CLIENT_KEY = "boggle_dafsa.client"
#: Unicode categories a name may not hold: controls, formats (U+202E, U+200B...),
#: surrogates, private use, unassigned, line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Addresses remembered by the request-rate buckets before the oldest are forgotten.
_MAX_TRACKED = 10_000


class ServerBusy(BoggleError):
    """The server (or this client's share of it) is at a limit: try again later (HTTP 503)."""

    status = 503


class TooManyRequests(BoggleError):
    """A client past its request rate or one of its quotas (HTTP 429)."""

    status = 429


def client_address(scope: Scope, trust_proxy: bool) -> str:
    """The address a request or WebSocket comes from (see the module's docstring)."""
    if trust_proxy:
        for key, value in scope.get("headers") or ():
            if key == b"x-forwarded-for":
                last = value.decode("latin-1").split(",")[-1].strip()
                if last:
                    return last[:64]
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def player_name(name: object, most: int) -> str:
    """A player's name as kept and shown: NFC, spaces collapsed; raises :class:`ValueError`
    (with the reason, one line) for anything else than a name."""
    if not isinstance(name, str):
        raise ValueError("give a name to join the room")
    if len(name) > 4 * most:  # before any work on it
        raise ValueError(f"a name has at most {most} characters")
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not name:
        raise ValueError("give a name to join the room")
    stray = next((char for char in name if unicodedata.category(char) in _REFUSED_CATEGORIES), None)
    if stray is not None:
        raise ValueError(f"a name cannot hold the character U+{ord(stray):04X} ({unicodedata.category(stray)})")
    if len(name) > most:
        raise ValueError(f"a name has at most {most} characters")
    return name


def name_key(name: str) -> str:
    """What two names must differ in to be two players: ``Alice`` and ``ALICE`` are one."""
    return unicodedata.normalize("NFC", name.casefold())


def _take(buckets: dict[str, tuple[float, float]], key: str, rate: float, burst: float, now: float) -> bool:
    """Take a token from ``buckets[key]`` (a bucket of ``burst`` refilled at ``rate`` a
    second; a new key starts full); False when it is empty. The caller holds the lock."""
    tokens, when = buckets.get(key, (burst, now))
    tokens = min(burst, tokens + (now - when) * rate)
    allowed = tokens >= 1.0
    buckets[key] = (tokens - 1.0 if allowed else tokens, now)
    if len(buckets) > _MAX_TRACKED:
        # Full buckets carry nothing worth remembering: forget the oldest half.
        for old in sorted(buckets, key=lambda a: buckets[a][1])[: _MAX_TRACKED // 2]:
            del buckets[old]
    return allowed


class ConnectionGate:
    """Open connections by address (thread-safe), each counted from its acceptance to its
    close, whatever protocol it speaks by then (an HTTP connection upgraded to a WebSocket
    keeps its place)."""

    def __init__(self, per_address: int | None) -> None:
        """``per_address``: the most one address may hold (None: no cap, behind a proxy,
        where every connection comes from the proxy's address)."""
        self.per_address = per_address
        self._lock = threading.Lock()
        self._open: dict[object, str] = {}  # the connection's key -> its address
        self._counts: dict[str, int] = {}

    def admit(self, key: object, address: str) -> str | None:
        """Count the connection ``key`` from ``address``; the reason if it must be refused."""
        with self._lock:
            if self.per_address is not None and self._counts.get(address, 0) >= self.per_address:
                return f"{self.per_address} connections open from your address already"
            self._open[key] = address
            self._counts[address] = self._counts.get(address, 0) + 1
        return None

    def release(self, key: object) -> None:
        """Count the connection ``key`` out (again: nothing)."""
        with self._lock:
            address = self._open.pop(key, None)
            if address is None:
                return
            left = self._counts.get(address, 0) - 1
            if left > 0:
                self._counts[address] = left
            else:
                self._counts.pop(address, None)

    def count(self, address: str | None = None) -> int:
        """Connections open from ``address`` (None: from everywhere)."""
        with self._lock:
            return len(self._open) if address is None else self._counts.get(address, 0)


class ClientGuard:
    """The quotas of every client, by address (thread-safe: routes run on worker threads too)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)
        self._message_buckets: dict[str, tuple[float, float]] = {}
        self._sockets: dict[str, int] = {}
        self._solves: dict[str, int] = {}
        self._rooms: dict[str, str] = {}  # room id -> the address that opened it

    # -- requests ----------------------------------------------------------------------------

    def allow_request(self, address: str) -> bool:
        """Take a token from ``address``'s bucket; False when it is empty (429)."""
        with self._lock:
            allowed = _take(
                self._buckets, address, self.limits.requests_per_second, float(self.limits.request_burst), self.clock()
            )
        return allowed

    # -- WebSockets ----------------------------------------------------------------------------

    def open_socket(self, address: str) -> str | None:
        """Count a new WebSocket of ``address``; the reason if it must be refused."""
        with self._lock:
            if sum(self._sockets.values()) >= self.limits.sockets:
                return f"the server has {self.limits.sockets} connections open: try again later"
            if self._sockets.get(address, 0) >= self.limits.sockets_per_client:
                return f"{self.limits.sockets_per_client} connections open from your address already"
            self._sockets[address] = self._sockets.get(address, 0) + 1
        return None

    def allow_message(self, address: str, socket: dict[str, tuple[float, float]]) -> str | None:
        """Take a token from the bucket of one WebSocket (``socket``, its own dictionary) and
        from ``address``'s; the reason to close the socket when either is empty."""
        limits, now = self.limits, self.clock()
        with self._lock:
            if not _take(socket, "", limits.messages_per_second, float(limits.message_burst), now):
                return f"too many messages: at most {limits.messages_per_second:g} a second on one connection"
            if not _take(
                self._message_buckets, address, limits.client_messages_per_second, float(limits.client_message_burst), now
            ):
                return f"too many messages: at most {limits.client_messages_per_second:g} a second from your address"
        return None

    def close_socket(self, address: str) -> None:
        with self._lock:
            left = self._sockets.get(address, 0) - 1
            if left > 0:
                self._sockets[address] = left
            else:
                self._sockets.pop(address, None)

    # -- rooms ---------------------------------------------------------------------------------

    def check_room(self, address: str, open_rooms: Callable[[str], bool]) -> None:
        """Raise :class:`TooManyRequests` if ``address`` has its quota of rooms open
        (``open_rooms(room_id)``: is that room still open)."""
        with self._lock:
            for room_id in [room_id for room_id in self._rooms if not open_rooms(room_id)]:
                del self._rooms[room_id]
            mine = sum(1 for owner in self._rooms.values() if owner == address)
        if mine >= self.limits.rooms_per_client:
            raise TooManyRequests(
                f"{mine} rooms open from your address already (at most {self.limits.rooms_per_client}): play in one, or wait for one to close"
            )

    def room_opened(self, address: str, room_id: str) -> None:
        with self._lock:
            self._rooms[room_id] = address

    # -- solves --------------------------------------------------------------------------------

    @contextmanager
    def solving(self, address: str) -> Iterator[None]:
        """A slot for one solve of ``address`` (raises :class:`ServerBusy` if none is free)."""
        with self._lock:
            if sum(self._solves.values()) >= self.limits.solves:
                raise ServerBusy(f"the server is solving {self.limits.solves} grids already: try again in a few seconds")
            if self._solves.get(address, 0) >= self.limits.solves_per_client:
                raise TooManyRequests(f"{self.limits.solves_per_client} of your grids are being solved already: wait for them")
            self._solves[address] = self._solves.get(address, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._solves.get(address, 0) - 1
                if left > 0:
                    self._solves[address] = left
                else:
                    self._solves.pop(address, None)


def bounded(seconds: float, work: Callable[[], T], advice: str = "try a smaller grid") -> T:
    """``work()`` under a deadline of ``seconds`` (run it in a worker thread): raises
    :class:`ServerBusy` once they have passed (the kernels and the query walks look at the
    clock themselves); its message ends with ``advice``."""
    try:
        with time_limit(seconds):
            return work()
    except TimeoutError:
        raise ServerBusy(f"this took more than {seconds:g} s, the server's limit: {advice}") from None


class GuardMiddleware:
    """ASGI middleware: notes the client's address, refuses requests past its rate (429)
    and WebSockets past its quota or the server's (closed before they are accepted)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], guard: ClientGuard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        address = client_address(scope, self.guard.limits.trust_proxy)
        scope[CLIENT_KEY] = address
        if not self.guard.allow_request(address):
            await _refuse(scope, send, 429, "too many requests from your address: slow down", retry=1)
            return
        if scope["type"] == "http":
            await self.app(scope, receive, send)
            return
        why = self.guard.open_socket(address)
        if why is not None:
            await _refuse(scope, send, 429, why)
            return
        bucket: dict[str, tuple[float, float]] = {}

        async def metered_receive() -> Message:
            # Every message costs a token of the socket's bucket and of its address's: a
            # flood gets the socket closed (1008, with the reason) instead of the server's time.
            message = await receive()
            if message["type"] == "websocket.receive":
                why = self.guard.allow_message(address, bucket)
                if why is not None:
                    await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
                    return {"type": "websocket.disconnect", "code": 1008, "reason": why[:120]}
            return message

        try:
            await self.app(scope, metered_receive, send)
        finally:
            self.guard.close_socket(address)


async def _refuse(scope: Scope, send: Send, status: int, message: str, retry: int | None = None) -> None:
    if scope["type"] == "websocket":
        # Closing before accepting: the handshake gets a 403, and the page says why it could not connect.
        await send({"type": "websocket.close", "code": 1013, "reason": message[:120]})
        return
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry is not None:
        headers.append((b"retry-after", str(retry).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
