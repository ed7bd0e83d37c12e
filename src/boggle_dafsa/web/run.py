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
    from boggle_dafsa.web.hints import lan_address

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
) -> None:
    """Serve the application on ``host``:``port`` until interrupted; ``announce(url, lan)`` is
    called once the socket listens (``lan``: the address to give others when listening on
    every interface, else None); rooms and daily results are kept in the folder
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
        lan = lan_url(sock)
        app.state.lan_url = lan
        announce(url_of(sock), lan)
        uvicorn.Server(config).run(sockets=[sock])
