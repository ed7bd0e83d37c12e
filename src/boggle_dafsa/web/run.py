"""Running the web application under uvicorn on an address of the user's choice.

Importing this module imports the whole web stack, so that a missing ``[web]`` extra
shows at once (``boggle-dafsa serve`` reports it in one line).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.web.app import create_app
from boggle_dafsa.web.settings import Limits


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: a free one); raises :class:`BoggleError`."""
    if not 0 <= port <= 65535:
        raise BoggleError(f"the port must be between 0 and 65535, not {port}")
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
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


def serve(
    host: str,
    port: int,
    dictionaries: list[str] | tuple[str, ...] = (),
    *,
    limits: Limits | None = None,
    announce: Callable[[str], None] = lambda _url: None,
    data: str | Path | None = None,
) -> None:
    """Serve the application on ``host``:``port`` until interrupted; ``announce(url)`` is
    called once the socket listens; rooms and daily results are kept in the folder
    ``data`` (None: in memory only). Raises :class:`BoggleError` for a bad dictionary, a
    data folder that cannot be used or an address that cannot be used."""
    limits = limits or Limits()
    app = create_app(dictionaries, limits, data)
    sock = listen(host, port)
    with sock:
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            ws_max_size=limits.message_bytes,
            limit_concurrency=limits.connections,
            timeout_graceful_shutdown=3,
            lifespan="off",
        )
        announce(url_of(sock))
        uvicorn.Server(config).run(sockets=[sock])
