"""Running the web application under uvicorn on an address of the user's choice.

Importing this module imports the whole web stack, so that a missing ``[web]`` extra
shows at once (``boggle-dafsa serve`` reports it in one line).

uvicorn's own protocols are wrapped (:func:`guarded_protocols`) where connections are
made: each is counted by address (:class:`~boggle_dafsa.web.guard.ConnectionGate`) before
uvicorn sees it, and a request's headers and body must arrive within
:attr:`Limits.request_seconds`. uvicorn alone times out only idle keep-alive
connections: a connection that sends half a request line is kept for ever, and 512 of
them answer 503 to everyone.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.web.app import create_app
from boggle_dafsa.web.arena import ArenaSettings
from boggle_dafsa.web.guard import ConnectionGate
from boggle_dafsa.web.hints import lan_address
from boggle_dafsa.web.settings import Limits
from boggle_dafsa.web.store import lock_data_folder, private_data_folder

#: The states of a client's side of an HTTP connection while a request is on its way.
_RECEIVING = (h11.IDLE, h11.SEND_BODY)


def _answer(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP response that closes the connection: ``{"error": message}``."""
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\nretry-after: 1\r\n\r\n"
    )
    return head.encode() + body


def guarded_protocols(limits: Limits, gate: ConnectionGate) -> tuple[type[asyncio.Protocol], Any]:
    """uvicorn's HTTP (h11) and WebSocket protocols, each connection counted by ``gate``
    from its acceptance to its close and each request under its deadline."""

    class GuardedHTTP(H11Protocol):
        """h11's protocol, with a place in ``gate`` and a deadline on each request's arrival."""

        _deadline: asyncio.TimerHandle | None = None
        _linger: asyncio.TimerHandle | None = None
        _refused = False
        _upgraded = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
            why = gate.admit(transport, address)
            if why is not None:
                # Refused before uvicorn counts it: the global cap stays for the others. The
                # answer, then the end of our side; the request is read and dropped meanwhile
                # (closing over unread bytes would reset the connection before the answer is read).
                self._refused = True
                transport.write(_answer(429, "Too Many Requests", why))
                if transport.can_write_eof():
                    transport.write_eof()
                self._linger = self.loop.call_later(1.0, transport.close)
                return
            super().connection_made(transport)
            self._arm()  # its first request is on its way, or nothing is

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                if self._linger is not None:
                    self._linger.cancel()
                return
            self._disarm()
            gate.release(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._refused:
                return
            if self._deadline is None and self.conn.their_state in _RECEIVING:
                self._arm()  # the first bytes of a request: it has request_seconds to arrive whole
            super().data_received(data)
            if not self._upgraded and self.conn.their_state not in _RECEIVING:
                self._disarm()  # received whole (or the connection is done)

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._disarm()
            self._upgraded = True  # the WebSocket protocol takes the connection and its place in the gate
            super().handle_websocket_upgrade(event)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(limits.request_seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self.transport.is_closing() or self._upgraded or self.conn.their_state not in _RECEIVING:
                return
            if self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
                message = f"the request did not arrive within {limits.request_seconds:g} s"
                self.transport.write(_answer(408, "Request Timeout", message))
            self.transport.close()

    base: Any = AutoWebSocketsProtocol

    class GuardedWebSocket(base):  # type: ignore[misc]
        """The WebSocket protocol a connection is upgraded to: it gives the place back at the close."""

        def connection_made(self, transport: asyncio.Transport) -> None:
            self._gate_key = transport
            super().connection_made(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            try:
                super().connection_lost(exc)
            finally:
                gate.release(self._gate_key)

    return GuardedHTTP, GuardedWebSocket


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: a free one); raises :class:`BoggleError`."""
    if not 0 <= port <= 65535:
        raise BoggleError(f"the port must be between 0 and 65535, not {port}")
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise BoggleError(f"cannot listen on {host}:{port}: unknown address ({error})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise BoggleError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://127.0.0.1:8000/`` for a socket listening there."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def lan_url(sock: socket.socket) -> str | None:
    """``http://192.168.1.5:8000/`` when ``sock`` listens on every interface (0.0.0.0 or ::):
    the address other devices of the network use; None otherwise or when there is none."""
    host, port = sock.getsockname()[:2]
    if host not in ("0.0.0.0", "::"):
        return None
    address = lan_address()
    return None if address is None else f"http://{address}:{port}/"


def serve(
    host: str,
    port: int,
    dictionaries: list[str] | tuple[str, ...] = (),
    *,
    limits: Limits | None = None,
    announce: Callable[[str, str | None], None] = lambda _url, _lan: None,
    data: str | Path | None = None,
    arena: ArenaSettings | None = None,
) -> None:
    """Serve the application on ``host``:``port`` until interrupted (``arena``: the arena's
    dice set and slot length); ``announce(url, lan)`` is
    called once the socket listens (``lan``: the address to give others when listening on
    every interface, else None); rooms and daily results are kept in the folder
    ``data`` (None: in memory only), locked for as long as this runs. Raises
    :class:`BoggleError` for a bad dictionary, a data folder that cannot be used (others may
    read or write it, or another server holds its lock) or an address that cannot be used."""
    limits = limits or Limits()
    lock = None
    if data is not None:
        # One server per data folder, for the server's life: two would overwrite each other's rooms.
        lock = lock_data_folder(private_data_folder(data))
    try:
        app = create_app(dictionaries, limits, data, arena)
        sock = listen(host, port)
        with sock:
            gate = ConnectionGate(None if limits.trust_proxy else limits.connections_per_client)
            app.state.gate = gate
            http, ws = guarded_protocols(limits, gate)
            config = uvicorn.Config(
                app,
                http=http,
                ws=ws,
                log_level="warning",
                access_log=False,
                ws_max_size=limits.message_bytes,
                limit_concurrency=limits.connections,
                timeout_graceful_shutdown=3,
                lifespan="off",
            )
            lan = lan_url(sock)
            app.state.lan_url = lan
            announce(url_of(sock), lan)
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        if lock is not None:
            os.close(lock)
