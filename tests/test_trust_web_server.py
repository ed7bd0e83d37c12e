"""The web server against an outside audit's attacks (issue 31, round three).

In process: a newcomer opening a room while 200 addresses hold all theirs, a write that
fails, an unsafe data folder or database.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from boggle_dafsa.errors import BoggleError  # noqa: E402
from boggle_dafsa.web.app import create_app  # noqa: E402
from boggle_dafsa.web.settings import Limits  # noqa: E402
from boggle_dafsa.web.store import StorageError, Store  # noqa: E402

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
