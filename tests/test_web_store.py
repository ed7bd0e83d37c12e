"""State that survives: rooms, players' tokens and daily results in SQLite, across real restarts."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
websockets_sync = pytest.importorskip("websockets.sync.client", reason="the [web] extra is not installed")

from boggle_dafsa.web.rooms import OVER, PLAYING, Room, RoomRegistry  # noqa: E402
from boggle_dafsa.web.settings import DictionaryCatalog, Limits  # noqa: E402
from boggle_dafsa.web.store import Store, restore_rooms  # noqa: E402


@contextmanager
def server(data: Path, *extra: str) -> Iterator[str]:
    """``boggle-dafsa serve`` as users start it, on a free port; stopped by Ctrl-C."""
    command = [
        sys.executable,
        "-c",
        "from boggle_dafsa.cli import main; main()",
        "serve",
        "--port",
        "0",
        "-d",
        "en",
        "--data",
        str(data),
        *extra,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "serving on" in line, line + (process.stderr.read() if process.stderr else "")
        yield line.split()[3]
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)
        assert "Traceback" not in err, err


def call(url: str, path: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        url + path, data=None if body is None else json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def ws_url(url: str, room: str) -> str:
    return url.replace("http://", "ws://") + f"ws/rooms/{room}"


def receive_until(page: Any, kind: str) -> dict[str, Any]:
    while True:
        message = json.loads(page.recv(timeout=30))
        if message["type"] == kind:
            return message


@pytest.mark.slow
def test_a_room_comes_back_after_a_restart_with_its_grid_players_and_clock(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with server(data) as url:
        room = call(url, "api/rooms", {"dice": "en", "seed": 7, "seconds": 600})
        room_id = room["room"]
        with websockets_sync.connect(ws_url(url, room_id)) as alice, websockets_sync.connect(ws_url(url, room_id)) as bob:
            alice.send(json.dumps({"type": "join", "name": "Alice"}))
            alice_token = receive_until(alice, "joined")["token"]
            bob.send(json.dumps({"type": "join", "name": "Bob"}))
            receive_until(bob, "joined")
            alice.send(json.dumps({"type": "start"}))
            playing = receive_until(alice, "state")
            while playing["status"] != PLAYING:
                playing = receive_until(alice, "state")
            # A word that is on the grid and in the list, found by the solver.
            solution = call(url, f"api/solve?grid={playing['grid']}&dict=en&dice=en")
            word = solution["words"][0]["word"]
            alice.send(json.dumps({"type": "word", "word": word.lower()}))
            verdict = receive_until(alice, "verdict")
            assert verdict["accepted"], verdict
        before = call(url, f"api/rooms/{room_id}")
    assert (data / "boggle-dafsa.sqlite3").is_file()
    assert stat.S_IMODE((data / "boggle-dafsa.sqlite3").stat().st_mode) == 0o600

    time.sleep(1)
    with server(data) as url:  # a new process: everything comes from the file
        after = call(url, f"api/rooms/{room_id}")
        assert (after["grid"], after["faces"], after["status"], after["seconds"]) == (
            before["grid"],
            before["faces"],
            PLAYING,
            600,
        )
        assert [p["name"] for p in after["players"]] == ["Alice", "Bob"]
        assert [p["words"] for p in after["players"]] == [1, 0]
        # The clock went on while the server was down, and not from the start again.
        assert before["remaining"] - 30 < after["remaining"] < before["remaining"] - 0.5
        with websockets_sync.connect(ws_url(url, room_id)) as alice:
            alice.send(json.dumps({"type": "join", "name": "Alice", "token": alice_token}))
            assert receive_until(alice, "joined")["name"] == "Alice"
            mine = receive_until(alice, "state")["you"]
            assert [found["word"] for found in mine["found"]] == [word] and mine["score"] > 0
        with websockets_sync.connect(ws_url(url, room_id)) as thief:
            thief.send(json.dumps({"type": "join", "name": "Alice", "token": "not hers"}))
            assert "taken" in receive_until(thief, "error")["error"]


def _registry_with_store(folder: Path, clock: Any) -> tuple[RoomRegistry, Store, DictionaryCatalog, Limits]:
    limits = Limits()
    registry = RoomRegistry(limits, clock=clock)
    store = Store(folder)
    registry.store = store
    return registry, store, DictionaryCatalog(()), limits


@pytest.mark.slow
def test_a_game_that_ended_while_the_server_was_down_is_over_with_its_table(tmp_path: Path) -> None:
    from boggle_dafsa.board.dice import load_dice

    now = [1000.0]
    registry, store, catalog, limits = _registry_with_store(tmp_path, lambda: now[0])
    name, words = catalog.for_language(None, "en")
    room = registry.make_room(lambda room_id: Room(room_id, load_dice("en"), 3, name, words, 1, limits, clock=lambda: now[0]))
    alice = room.join("Alice", None)
    room.start()
    hit = room.judge.hits[0].word
    room.submit(alice, hit)
    store.close()
    time.sleep(1.2)  # the stored end is wall-clock time: it passes while "down"

    again, store2, _, _ = _registry_with_store(tmp_path, time.monotonic)
    assert restore_rooms(store2, again, catalog, limits, Room) == []
    back = again.get(room.id)
    assert back.status == OVER and back.result is not None
    room.saved = None  # the first server's room, its store closed: only compared with
    assert back.result["sheet"] == room.finish()["sheet"]
    assert str(back.judge.grid) == str(room.judge.grid) and back.players["Alice"].game.found == [hit]


def test_the_store_is_wal_private_and_refuses_a_newer_schema(tmp_path: Path) -> None:
    import sqlite3

    store = Store(tmp_path / "d")
    assert store.journal_mode() == "wal"
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o700
    store.close()
    db = sqlite3.connect(tmp_path / "d" / "boggle-dafsa.sqlite3")
    db.execute("PRAGMA user_version=99")
    db.close()
    from boggle_dafsa.errors import BoggleError

    with pytest.raises(BoggleError, match="newer"):
        Store(tmp_path / "d")


@pytest.mark.slow
def test_an_unusable_data_folder_is_a_one_line_error(tmp_path: Path) -> None:
    from conftest import run_cli

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run_cli("serve", "--port", "0", "--data", str(blocker / "sub"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "data folder" in result.stderr, result.stderr


def test_the_data_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from boggle_dafsa.files.folders import data_dir  # the server's and the quiz's: one folder

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert data_dir() == tmp_path / "boggle-dafsa"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert data_dir() == Path(os.path.expanduser("~")) / ".local" / "share" / "boggle-dafsa"


def test_closed_idle_rooms_leave_the_file(tmp_path: Path) -> None:
    from boggle_dafsa.board.dice import load_dice

    now = [0.0]
    registry, store, catalog, limits = _registry_with_store(tmp_path, lambda: now[0])
    name, words = catalog.for_language(None, "en")
    make = lambda room_id: Room(room_id, load_dice("en"), 3, name, words, 60, limits, clock=lambda: now[0])  # noqa: E731
    old = registry.make_room(make)
    now[0] += limits.room_idle_seconds + 1
    registry.make_room(make)
    assert old.id not in registry.rooms
    assert [row["id"] for row, _ in store.room_rows()] == [room_id for room_id in registry.rooms]


def test_daily_results_survive_and_keep_each_player_s_best(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.record_daily("2026-01-02", "fr", "player-a", 10, 4)
    store.record_daily("2026-01-02", "fr", "player-a", 6, 2)
    store.record_daily("2026-01-02", "fr", "player-b", 3, 1)
    store.record_daily("2026-01-02", "en", "player-b", 50, 9)
    store.close()
    again = Store(tmp_path)
    assert again.daily_stats("2026-01-02", "fr") == {"players": 2, "average": 6.5, "best": 10, "average_words": 2.5}
    assert again.daily_stats("2026-01-03", "fr") == {"players": 0, "average": None, "best": None, "average_words": None}
