"""The web server against an outside audit's attacks (issue 31, round three).

Against the real server (uvicorn on 127.0.0.1, in a child process, with real sockets from
several loopback addresses): half-sent requests from one address (slowloris), a WebSocket
flooding messages, a second server on a data folder in use. In process: a newcomer
opening a room while 200 addresses hold all theirs, a write that fails, an unsafe data
folder or database.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("websockets")

from fastapi.testclient import TestClient  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402
from websockets.sync.client import connect as ws_connect  # noqa: E402

from boggle_dafsa.errors import BoggleError  # noqa: E402
from boggle_dafsa.web.app import create_app  # noqa: E402
from boggle_dafsa.web.guard import ClientGuard, ConnectionGate  # noqa: E402
from boggle_dafsa.web.settings import Limits  # noqa: E402
from boggle_dafsa.web.store import StorageError, Store  # noqa: E402
from helpers.harness import live_server  # noqa: E402

#: `serve` with limits of the test's choosing: a real uvicorn, as `boggle-dafsa serve` runs it.
_SERVER = """
import json, sys
from boggle_dafsa.web.run import serve
from boggle_dafsa.web.settings import Limits
try:
    serve("127.0.0.1", 0, limits=Limits(**json.loads(sys.argv[1])), data=sys.argv[2] or None,
          announce=lambda url, lan: print(f"serving on {url}", flush=True))
except KeyboardInterrupt:
    pass
"""


@contextmanager
def _server(data: Path | None = None, **limits: Any) -> Iterator[tuple[str, int]]:
    """The real server (``web.run.serve``) with ``limits``, in a child process: (host, port)."""
    command = [sys.executable, "-c", _SERVER, json.dumps(limits), str(data or "")]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("serving on http://"), line + (process.stderr.read() if process.stderr else "")
        host, port = line.split("//")[1].strip().strip("/").split(":")
        yield host, int(port)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            _out, err = process.communicate()
        assert "Traceback" not in err, err


def _client(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


def _read_to_end(sock: socket.socket, seconds: float) -> bytes | None:
    """Everything ``sock`` receives until the server closes it; None if it is still open after ``seconds``."""
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except socket.timeout:
        return None
    except ConnectionResetError:
        pass
    return data


def _length(head: bytes) -> int:
    """The content-length of a response whose head is in ``head`` (a large number until it is)."""
    for line in head.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 1 << 30 if b"\r\n\r\n" not in head else 0


# -- 1. half-sent requests ----------------------------------------------------------------------


@pytest.mark.slow
def test_half_sent_requests_from_one_address_leave_the_server_to_the_others() -> None:
    limits = Limits(request_seconds=2.0)
    with _server(request_seconds=limits.request_seconds) as (host, port):
        started = time.monotonic()
        slow = []
        for number in range(515):  # more than the server's 512 connections
            sock = socket.create_connection((host, port), timeout=10, source_address=("127.0.0.2", 0))
            sock.sendall(b"GET /api/dice HTTP/1.1\r\nHost: x\r\nX-Slow: " if number % 2 else b"G")
            slow.append(sock)
        # Another address is served meanwhile (uvicorn alone: 503, "Exceeded concurrency limit").
        with _client("127.0.0.3") as other:
            answer = other.get(f"http://{host}:{port}/api/dice")
            assert answer.status_code == 200, answer.text
        # A body that stops halfway and a connection that sends nothing have the same deadline.
        half_body = socket.create_connection((host, port), timeout=10, source_address=("127.0.0.4", 0))
        half_body.sendall(b"POST /api/play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        silent = socket.create_connection((host, port), timeout=10, source_address=("127.0.0.4", 0))
        # And the second request of a kept-alive connection (its first byte stops uvicorn's idle timer).
        kept = socket.create_connection((host, port), timeout=10, source_address=("127.0.0.4", 0))
        kept.sendall(b"GET /api/dice HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first or len(first.split(b"\r\n\r\n", 1)[1]) < _length(first):
            first += kept.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 ")
        kept.sendall(b"GET /api/dice HTTP/1.1\r\nHo")
        # Every slow socket is closed by the deadline: the first 96 with a 408, the others at once with a 429.
        endings = [_read_to_end(sock, limits.request_seconds + 15) for sock in slow]
        assert None not in endings, f"{endings.count(None)} slow sockets still open"
        assert time.monotonic() - started < limits.request_seconds + 15
        statuses = [ending.split(b" ", 2)[1] if ending else b"reset" for ending in endings if ending is not None]
        assert statuses.count(b"408") == limits.connections_per_client, statuses
        assert set(statuses) <= {b"408", b"429", b"reset"} and statuses.count(b"429") > 400
        assert b"96 connections open from your address" in next(e for e in endings if e and b" 429 " in e)
        assert _read_to_end(half_body, limits.request_seconds + 15) is not None
        assert _read_to_end(silent, limits.request_seconds + 15) is not None
        assert (_read_to_end(kept, limits.request_seconds + 15) or b"").startswith(b"HTTP/1.1 408 ")
        for sock in (*slow, half_body, silent, kept):
            sock.close()
        # Their places are given back: the slow address is served again.
        with _client("127.0.0.2") as again:
            assert again.get(f"http://{host}:{port}/api/dice").status_code == 200


def test_the_connection_gate_counts_by_address() -> None:
    gate = ConnectionGate(2)
    keys = [object() for _ in range(4)]
    assert gate.admit(keys[0], "a") is None and gate.admit(keys[1], "a") is None
    assert "2 connections open from your address" in (gate.admit(keys[2], "a") or "")
    assert gate.admit(keys[3], "b") is None and gate.count() == 3 and gate.count("a") == 2
    gate.release(keys[0])
    gate.release(keys[0])  # twice: once
    assert gate.count("a") == 1 and gate.admit(keys[2], "a") is None
    assert ConnectionGate(None).admit(object(), "proxy") is None


# -- 2. WebSocket floods ----------------------------------------------------------------------


def _ws(host: str, port: int, room_id: str, source: str) -> Any:
    sock = socket.create_connection((host, port), timeout=10, source_address=(source, 0))
    return ws_connect(f"ws://{host}:{port}/ws/rooms/{room_id}", sock=sock, open_timeout=10).__enter__()


@pytest.mark.slow
def test_a_websocket_flood_is_closed_and_the_others_are_served() -> None:
    limits = Limits()
    with _server() as (host, port):
        with _client("127.0.0.5") as owner:
            room_id = owner.post(f"http://{host}:{port}/api/rooms", json={"dice": "fr", "seconds": 60}).json()["room"]
        other = _ws(host, port, room_id, "127.0.0.6")
        flood = _ws(host, port, room_id, "127.0.0.5")
        sent = 0
        try:
            for _ in range(5000):
                flood.send('{"type": "ping"}')
                sent += 1
        except ConnectionClosed:
            pass
        pongs = 0
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                assert json.loads(flood.recv(timeout=20))["type"] == "pong"
                pongs += 1
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008, closed.value
        assert "too many messages" in closed.value.rcvd.reason
        assert pongs <= limits.message_burst + 5, pongs
        # The other address is served at once, on its socket and over HTTP.
        started = time.monotonic()
        other.send('{"type": "ping"}')
        assert json.loads(other.recv(timeout=10))["type"] == "pong"
        with _client("127.0.0.6") as client:
            assert client.get(f"http://{host}:{port}/api/dice").status_code == 200
        assert time.monotonic() - started < 5
        other.close()
        # Sockets closed give their places back (more than an address's cap, one after the other).
        for _ in range(limits.connections_per_client + 10):
            with _ws(host, port, room_id, "127.0.0.7") as one:
                one.send('{"type": "ping"}')
                assert json.loads(one.recv(timeout=10))["type"] == "pong"


def test_websocket_messages_are_bounded_by_socket_and_by_address() -> None:
    now = [0.0]
    limits = Limits(messages_per_second=2.0, message_burst=4, client_messages_per_second=5.0, client_message_burst=10)
    guard = ClientGuard(limits, clock=lambda: now[0])
    first: dict[str, tuple[float, float]] = {}
    verdicts = [guard.allow_message("a", first) for _ in range(5)]
    assert verdicts[:4] == [None] * 4 and "on one connection" in (verdicts[4] or "")
    now[0] += 1.0  # two more tokens for the socket
    assert guard.allow_message("a", first) is None and guard.allow_message("a", first) is None
    assert guard.allow_message("a", first) is not None
    # The address's bucket is shared by its sockets: 10 at once, 5 a second (8 left here).
    others = [{} for _ in range(4)]  # type: list[dict[str, tuple[float, float]]]
    verdicts = [guard.allow_message("a", bucket) for bucket in others for _ in range(3)]
    assert verdicts[:8] == [None] * 8 and all("from your address" in (v or "") for v in verdicts[8:])
    assert guard.allow_message("b", {}) is None  # another address has its own


# -- 3. rooms for newcomers ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_newcomer_opens_a_room_while_200_addresses_open_all_they_may() -> None:
    limits = Limits(rooms=10, rooms_per_client=2, trust_proxy=True, requests_per_second=1000, request_burst=1000)
    client = TestClient(create_app(limits=limits))

    def open_room(address: str) -> Any:
        return client.post("/api/rooms", json={"dice": "fr", "seconds": 60}, headers={"x-forwarded-for": address})

    codes = [open_room(f"10.1.{i // 250}.{i % 250}").status_code for i in range(200) for _ in range(2)]
    assert codes.count(201) == 400, codes  # each evicts an unused room of the greediest, oldest first
    mine = open_room("10.9.9.9")
    assert mine.status_code == 201, mine.text
    room_id = mine.json()["room"]
    # Its page is open (not yet joined): the others' rooms make way, never this one.
    with client.websocket_connect(f"/ws/rooms/{room_id}", headers={"x-forwarded-for": "10.9.9.9"}) as page:
        for i in range(200):
            assert open_room(f"10.2.0.{i}").status_code == 201
        assert client.get(f"/api/rooms/{room_id}").status_code == 200
        page.send_json({"type": "join", "name": "Newcomer"})
        assert page.receive_json()["type"] == "joined"
    # A joined room whose players all left makes way only after every unjoined one.
    assert client.get(f"/api/rooms/{room_id}").status_code == 200


@pytest.mark.slow
def test_rooms_in_use_are_kept_and_refuse_a_new_one() -> None:
    limits = Limits(rooms=2, rooms_per_client=5)
    app = create_app(limits=limits)
    client, registry = TestClient(app), app.state.rooms
    rooms = [client.post("/api/rooms", json={"dice": "fr", "seconds": 600}).json()["room"] for _ in range(2)]
    with client.websocket_connect(f"/ws/rooms/{rooms[0]}") as page:
        page.send_json({"type": "join", "name": "Alice"})
        _next(page, "joined")
        page.send_json({"type": "start"})
        while _next(page, "state")["status"] != "playing":
            pass
    # The first: a game under way, its player gone a moment ago; the second: a page open on it.
    with client.websocket_connect(f"/ws/rooms/{rooms[1]}"):
        refused = client.post("/api/rooms", json={"dice": "fr", "seconds": 60})
        assert refused.status_code == 503 and "too many rooms in use" in refused.json()["error"]
        # A game nobody touched for room_unused_seconds, nobody on its page: it makes way.
        registry.rooms[rooms[0]].last_activity -= limits.room_unused_seconds + 1
        made = client.post("/api/rooms", json={"dice": "fr", "seconds": 60})
        assert made.status_code == 201 and list(registry.rooms) == [rooms[1], made.json()["room"]]


# -- 4. one server per data folder --------------------------------------------------------------


@pytest.mark.slow
def test_a_second_server_on_a_data_folder_in_use_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    command = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "serve", "--port", "0", "--data", str(data)]
    with live_server("--data", str(data)) as url:
        second = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2, second.stdout + second.stderr
        assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
        assert "another boggle-dafsa serve uses this data folder (process " in second.stderr, second.stderr
        with urllib_open(url + "api/dice") as status:
            assert status == 200  # the first goes on
    # Stopped, it leaves the folder to the next.
    with live_server("--data", str(data)) as url, urllib_open(url + "api/dice") as status:
        assert status == 200


@contextmanager
def urllib_open(url: str) -> Iterator[int]:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as response:
        yield response.status


# -- 5. writes that fail ------------------------------------------------------------------------


class _FullDisk:
    """A connection whose writes fail as on a full disk; reads go through."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def execute(self, sql: str, *args: Any) -> Any:
        if sql.startswith("BEGIN"):
            raise sqlite3.OperationalError("database or disk is full")
        return self.real.execute(sql, *args)


def _next(page: Any, *kinds: str) -> dict[str, Any]:
    """The next message of a kind in ``kinds`` (default: anything but the room's state)."""
    while True:
        message: dict[str, Any] = page.receive_json()
        if message["type"] in kinds or (not kinds and message["type"] != "state"):
            return message


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [record for record in caplog.records if record.exc_info], caplog.text
    assert "Traceback" not in caplog.text


@pytest.mark.slow
def test_a_failed_write_is_one_line_and_the_room_is_as_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(data=tmp_path / "data")
    client = TestClient(app)  # raises any exception the app lets out
    store, registry = app.state.store, app.state.rooms
    room_id = client.post("/api/rooms", json={"dice": "fr", "seconds": 60}).json()["room"]
    room = registry.get(room_id)
    store._db = _FullDisk(store._db)
    refused = client.post("/api/rooms", json={"dice": "fr", "seconds": 60})
    store._db = store._db.real
    assert refused.status_code == 503 and refused.json() == {
        "error": "the server could not save this (database or disk is full): try again later"
    }

    def enospc(_self: Store, _room: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    # A room that cannot be saved is not opened.
    with monkeypatch.context() as patch:
        patch.setattr(Store, "save_room", enospc)
        refused = client.post("/api/rooms", json={"dice": "fr", "seconds": 60})
        assert refused.status_code == 503 and "No space left on device" in refused.json()["error"]
        assert "\n" not in refused.json()["error"] and list(registry.rooms) == [room_id]
    with client.websocket_connect(f"/ws/rooms/{room_id}") as page:
        # A join never saved: the player is not kept (sqlite's own error, through the store).
        store._db = _FullDisk(store._db)
        page.send_json({"type": "join", "name": "Alice"})
        answer = _next(page)
        assert answer["type"] == "error" and "database or disk is full" in answer["error"], answer
        assert "\n" not in answer["error"] and room.players == {}
        store._db = store._db.real
        page.send_json({"type": "join", "name": "Alice"})
        assert _next(page)["type"] == "joined"
        # A start and a word never saved: the room waits, the word is not played.
        with monkeypatch.context() as patch:
            patch.setattr(room, "saved", lambda room: enospc(store, room))
            page.send_json({"type": "start"})
            answer = _next(page)
            assert answer["type"] == "error" and "could not save" in answer["error"] and room.status == "waiting"
        page.send_json({"type": "start"})
        while _next(page, "state")["status"] != "playing":
            pass
        word = next(iter(room.judge.hits)).word
        with monkeypatch.context() as patch:
            patch.setattr(room, "saved", lambda room: enospc(store, room))
            page.send_json({"type": "word", "word": word})
            answer = _next(page)
            assert answer["type"] == "error" and "No space left" in answer["error"]
        player = room.players["Alice"]
        assert player.submitted == [] and not player.game.found and player.game.score == 0
        page.send_json({"type": "word", "word": word})
        assert _next(page)["type"] == "verdict" and player.submitted == [word]
    # What is stored is what is in memory.
    stored = {row["id"]: players for row, players in store.room_rows()}
    assert [p["name"] for p in stored[room_id]] == ["Alice"] and json.loads(stored[room_id][0]["submitted"]) == [word]
    # Every write of the store fails in one line (the daily results too).
    store._db = _FullDisk(store._db)
    with pytest.raises(StorageError, match="could not save this .database or disk is full.: try again later$"):
        store.record_daily("2026-11-27", "fr", "p" * 16, 10, 2)
    store._db = store._db.real
    _no_traceback(caplog)


# -- 6. unsafe data folders -------------------------------------------------------------------


@pytest.mark.slow
def test_a_data_folder_or_database_others_can_use_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o700)
    shared.chmod(0o755)
    with pytest.raises(BoggleError, match=r"refused as the data folder, others may read or write it \(mode 0755\)"):
        create_app(data=shared)
    writable = tmp_path / "writable"
    writable.mkdir(mode=0o700)
    writable.chmod(0o733)
    with pytest.raises(BoggleError, match="mode 0733"):
        create_app(data=writable)
    private = tmp_path / "private"
    create_app(data=private).state.store.close()  # created private
    assert (private.stat().st_mode & 0o777, (private / "boggle-dafsa.sqlite3").stat().st_mode & 0o777) == (0o700, 0o600)
    (private / "boggle-dafsa.sqlite3").chmod(0o644)
    with pytest.raises(BoggleError, match="refused as the server's database, others may read or write it"):
        create_app(data=private)
    (private / "boggle-dafsa.sqlite3").chmod(0o600)
    link = tmp_path / "link"
    link.symlink_to(shared)
    with pytest.raises(BoggleError, match="a symbolic link"):
        create_app(data=link)
    # From the command line: one line, exit 2.
    command = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "serve", "--port", "0", "--data", str(shared)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith(f"boggle-dafsa: {shared}: refused as the data folder")
