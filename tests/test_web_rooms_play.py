"""Rooms people come back to: next round, winner line, hints, the link to share (LAN address, QR code)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")

from fastapi.testclient import TestClient  # noqa: E402

from boggle_dafsa.board.grid import Grid  # noqa: E402
from boggle_dafsa.dictionaries.resolve import open_dictionary  # noqa: E402
from boggle_dafsa.game.rounds import Game  # noqa: E402
from boggle_dafsa.web.app import create_app  # noqa: E402
from boggle_dafsa.web.hints import CELL_HINT_SHARE, hint_payload, lan_address, winner_line  # noqa: E402
from boggle_dafsa.web.run import lan_url, listen  # noqa: E402


def receive_until(page: Any, kind: str) -> dict[str, Any]:
    while True:
        message = page.receive_json()
        if message["type"] == kind:
            return message


def wait_status(page: Any, status: str, round: int = 1) -> dict[str, Any]:
    state = receive_until(page, "state")
    while (state["status"], state["round"]) != (status, round):
        state = receive_until(page, "state")
    return state


@pytest.mark.slow
def test_next_round_keeps_the_players_and_the_winner_is_named() -> None:
    client = TestClient(create_app())
    room = client.post("/api/rooms", json={"dice": "fr", "seed": 42, "seconds": 1}).json()
    assert room["round"] == 1 and room["hints"] is False
    url = f"/ws/rooms/{room['room']}"
    with client.websocket_connect(url) as alice, client.websocket_connect(url) as bob:
        alice.send_json({"type": "join", "name": "alice"})
        receive_until(alice, "joined")
        bob.send_json({"type": "join", "name": "bob"})
        receive_until(bob, "joined")
        alice.send_json({"type": "next"})
        assert "once this game is over" in receive_until(alice, "error")["error"]
        alice.send_json({"type": "start"})
        wait_status(alice, "playing")
        alice.send_json({"type": "word", "word": "halte"})
        receive_until(alice, "verdict")
        over = receive_until(alice, "over")
        assert over["winner"] == "alice wins with 2 points" and over["round"] == 1
        bob.send_json({"type": "next"})
        state = wait_status(bob, "waiting", 2)
        assert state["round"] == 2 and [p["name"] for p in state["players"]] == ["alice", "bob"]
        assert [p["words"] for p in state["players"]] == [0, 0] and state["grid"] is None
        bob.send_json({"type": "start"})
        playing = wait_status(bob, "playing", 2)
        assert playing["round"] == 2 and playing["you"]["found"] == [] and playing["you"]["score"] == 0
        over = receive_until(bob, "over")
        assert over["round"] == 2 and over["winner"] == "alice and bob tie with 0 points"
        assert over["sheet"]["grid"] == playing["grid"]


def test_hints_are_off_by_default_and_given_when_the_room_allows_them() -> None:
    client = TestClient(create_app())
    for hints in (False, True):
        room = client.post("/api/rooms", json={"dice": "fr", "seed": 42, "seconds": 600, "hints": hints}).json()
        with client.websocket_connect(f"/ws/rooms/{room['room']}") as page:
            page.send_json({"type": "join", "name": "solo"})
            receive_until(page, "joined")
            page.send_json({"type": "start"})
            wait_status(page, "playing")
            page.send_json({"type": "hint"})
            if not hints:
                assert "no hints" in receive_until(page, "error")["error"]
                continue
            hint = receive_until(page, "hint")
            assert hint["letter"]["first"] in "IEFAMHLT" and hint["cells"] is None and hint["found"] == 0


@settings(max_examples=30)
@given(st.data())
@pytest.mark.slow
def test_hints_against_a_scan_of_the_words(data: st.DataObject) -> None:
    grid = Grid.parse("IEFA/AEFE/MHAL/ETTE")
    game = Game(grid, open_dictionary("fr"))
    words = [hit.word for hit in game.hits]
    for word in data.draw(st.lists(st.sampled_from(words), unique=True)):
        game.submit(word)
    hint = hint_payload(game)
    left = [hit for hit in game.hits if hit.word not in game.found]
    if left:
        best = max(hit.points for hit in left)
        candidates = {(grid.faces[h.path[0]], len(h.word)) for h in left if h.points == best}
        assert (hint["letter"]["first"], hint["letter"]["length"]) in candidates
    else:
        assert hint["letter"] is None
    if len(game.found) >= CELL_HINT_SHARE * len(words):
        assert hint["cells"] == [sum(1 for h in left if h.path[0] == cell) for cell in range(16)]
        assert sum(hint["cells"]) == len(left)
    else:
        assert hint["cells"] is None


def test_winner_lines() -> None:
    assert winner_line([]) is None
    assert winner_line([("ann", 1)]) == "ann wins with 1 point"
    assert winner_line([("ann", 3), ("bo", 5), ("cy", 5), ("di", 5)]) == "bo, cy and di tie with 5 points"


def test_the_qr_code_is_an_svg_made_locally() -> None:
    segno = pytest.importorskip("segno")
    client = TestClient(create_app())
    link = "http://192.168.1.20:8000/rooms/AbCdEf"
    answer = client.get("/api/qr", params={"text": link})
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/svg+xml"
    assert answer.text.lstrip().startswith("<?xml") and "<svg" in answer.text and "<path" in answer.text
    # The matrix is the one the library makes for the link (what a phone's camera decodes).
    import io

    expected = io.BytesIO()
    segno.make(link, error="m").save(expected, kind="svg", scale=4, border=2, title=f"QR code: {link}")
    assert answer.content == expected.getvalue()
    assert client.get("/api/qr", params={"text": "x" * 600}).status_code == 422


def test_the_lan_address_is_given_only_when_listening_everywhere() -> None:
    with listen("127.0.0.1", 0) as local:
        assert lan_url(local) is None
    with listen("0.0.0.0", 0) as everywhere:
        port = everywhere.getsockname()[1]
        address = lan_address()
        assert lan_url(everywhere) == (None if address is None else f"http://{address}:{port}/")
    if address is not None:
        socket.inet_aton(address)
        assert not address.startswith("127.")


@pytest.mark.slow
def test_serve_on_every_interface_announces_the_address_to_give(tmp_path: Path) -> None:
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    command = [
        sys.executable,
        "-c",
        "from boggle_dafsa.cli import main; main()",
        "serve",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--data",
        str(tmp_path),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("boggle-dafsa: serving on http://0.0.0.0:") and f"other devices: http://{address}:" in line, line
        lan = line.split("other devices: ")[1].split()[0]
        # Loopback reaches the same socket: the page asks the server for the address to share.
        port = lan.rsplit(":", 1)[1].strip("/")
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/server", timeout=30) as response:
            assert json.load(response) == {"lan_url": lan}
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
