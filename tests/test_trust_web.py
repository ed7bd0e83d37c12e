"""A web server one client cannot take down (web/guard.py).

In process (FastAPI's TestClient) with small limits: names normalized and unique up to
case, the request rate, rooms and sockets by client address (X-Forwarded-For only when
trusted), a solve past its deadline. Then the real server (``boggle-dafsa serve``) from
several loopback addresses: a heavy 4-D solve gets its answer or a 503 within the deadline
while the others are served, and one address cannot exhaust rooms or sockets for another.
"""

from __future__ import annotations

import socket
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from boggle_dafsa.web.app import create_app  # noqa: E402
from boggle_dafsa.web.guard import name_key, player_name  # noqa: E402
from boggle_dafsa.web.settings import Limits  # noqa: E402
from helpers.harness import live_server  # noqa: E402

# -- names ---------------------------------------------------------------------------------------


@given(st.text(max_size=40))
def test_a_name_is_refused_or_clean(text: str) -> None:
    try:
        name = player_name(text, 24)
    except ValueError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert name == unicodedata.normalize("NFC", name) == name.strip() and 0 < len(name) <= 24
    assert "  " not in name
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in name)
    assert player_name(name, 24) == name  # idempotent


@pytest.mark.parametrize(
    "name", ["evil\u202egnp.exe", "nul\x00", "zero\u200bwidth", "bell\x07", "\ufeffbom", "private\ue000", "x" * 25, "   "]
)
def test_hostile_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        player_name(name, 24)


@pytest.mark.slow
def test_names_are_nfc_and_unique_up_to_case() -> None:
    assert player_name("  Zoe\u0301  Smith ", 24) == "Zo\u00e9 Smith"
    assert player_name("a\u2028b", 24) == "a b"  # a line separator is a space
    assert name_key("Alice") == name_key("ALICE") == name_key("alice")
    client = TestClient(create_app())
    room = client.post("/api/rooms", json={"dice": "fr", "seconds": 60}).json()
    with (
        client.websocket_connect(f"/ws/rooms/{room['room']}") as first,
        client.websocket_connect(f"/ws/rooms/{room['room']}") as second,
    ):
        first.send_json({"type": "join", "name": "Alice"})
        assert first.receive_json()["type"] == "joined"
        second.send_json({"type": "join", "name": "alice"})
        answer = second.receive_json()
        while answer["type"] == "state":
            answer = second.receive_json()
        assert answer["type"] == "error" and "taken" in answer["error"]
        second.send_json({"type": "join", "name": "Mallory\u202e\x00"})
        answer = second.receive_json()
        assert answer["type"] == "error" and "U+202E" in answer["error"]


# -- quotas, in process ------------------------------------------------------------------------


def test_the_request_rate_of_one_address_is_bounded() -> None:
    client = TestClient(create_app(limits=Limits(requests_per_second=1.0, request_burst=5)))
    codes = [client.get("/api/dice").status_code for _ in range(8)]
    assert codes[:5] == [200] * 5 and 429 in codes[5:]
    refused = client.get("/api/dice")
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1" and "slow down" in refused.json()["error"]


@pytest.mark.slow
def test_rooms_by_address_and_forwarded_for_only_when_trusted() -> None:
    limits = Limits(rooms_per_client=2, rooms=10)
    client = TestClient(create_app(limits=limits))
    made = [
        client.post("/api/rooms", json={"dice": "fr", "seconds": 60}, headers={"x-forwarded-for": f"10.0.0.{i}"})
        for i in range(3)
    ]
    # Not behind a trusted proxy: the header is ignored, all three come from one client.
    assert [r.status_code for r in made] == [201, 201, 429] and "rooms open from your address" in made[2].json()["error"]
    trusting = TestClient(create_app(limits=Limits(rooms_per_client=2, rooms=10, trust_proxy=True)))
    made = [
        trusting.post("/api/rooms", json={"dice": "fr", "seconds": 60}, headers={"x-forwarded-for": f"6.6.6.6, 10.0.0.{i % 2}"})
        for i in range(5)
    ]
    assert [r.status_code for r in made] == [201, 201, 201, 201, 429]


@pytest.mark.slow
def test_sockets_by_address_leave_room_for_others() -> None:
    app = create_app(limits=Limits(sockets_per_client=2, sockets=3, trust_proxy=True))
    client = TestClient(app)
    room = client.post("/api/rooms", json={"dice": "fr", "seconds": 60}).json()
    url = f"/ws/rooms/{room['room']}"
    one = {"x-forwarded-for": "10.0.0.1"}
    with client.websocket_connect(url, headers=one), client.websocket_connect(url, headers=one):
        with pytest.raises(WebSocketDisconnect):
            with client.websocket_connect(url, headers=one) as third:
                third.receive_json()
        with client.websocket_connect(url, headers={"x-forwarded-for": "10.0.0.2"}) as other:
            other.send_json({"type": "ping"})
            assert other.receive_json()["type"] == "pong"
    # Closed sockets are counted out again.
    with client.websocket_connect(url, headers=one) as again:
        again.send_json({"type": "ping"})
        assert again.receive_json()["type"] == "pong"


HEAVY = "///".join(
    "//".join(f"{a}/{b}/{c}" for a, b, c in [("EAI", "SRT", "NUL"), ("OEA", "ISR", "TNE"), ("ESA", "RIT", "ENO")])
    for _ in range(3)
)


@pytest.mark.slow
def test_a_solve_past_its_deadline_is_a_503() -> None:
    client = TestClient(create_app(limits=Limits(solve_seconds=0.5)))
    started = time.monotonic()
    answer = client.get("/api/solve", params={"grid": HEAVY})
    assert answer.status_code == 503 and "0.5 s" in answer.json()["error"], answer.text
    assert time.monotonic() - started < 30
    assert client.get("/api/solve", params={"grid": "IDXT/MHEI/ERVN/TLLU"}).status_code == 200


# -- the real server, from several loopback addresses ------------------------------------------------


def _from(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with live_server("--data", str(tmp_path_factory.mktemp("data"))) as url:
        yield url


@pytest.mark.slow
def test_a_heavy_4d_solve_has_an_answer_in_time_and_others_are_served(server: str) -> None:
    outcome: dict[str, Any] = {}

    def heavy() -> None:
        started = time.monotonic()
        with _from("127.0.0.2") as client:
            answer = client.get(f"{server}api/solve", params={"grid": HEAVY})
        outcome["status"], outcome["seconds"] = answer.status_code, time.monotonic() - started

    thread = threading.Thread(target=heavy)
    thread.start()
    time.sleep(0.5)
    served = []
    with _from("127.0.0.3") as client:
        while thread.is_alive() and len(served) < 50:
            started = time.monotonic()
            answer = client.get(f"{server}api/solve", params={"grid": "IDXT/MHEI/ERVN/TLLU"})
            served.append((answer.status_code, time.monotonic() - started))
    thread.join(60)
    print(f"heavy 4-D solve: {outcome}; others: {len(served)} answered, slowest {max(s for _, s in served):.2f} s")
    assert outcome["status"] in (200, 503) and outcome["seconds"] < 15
    assert served and all(status == 200 for status, _ in served)


@pytest.mark.slow
def test_one_address_cannot_exhaust_rooms_or_sockets_for_another(server: str) -> None:
    limits = Limits()
    with _from("127.0.0.4") as greedy, _from("127.0.0.5") as other:
        codes = [
            greedy.post(f"{server}api/rooms", json={"dice": "fr", "seconds": 60}).status_code
            for _ in range(limits.rooms_per_client + 3)
        ]
        assert codes.count(201) == limits.rooms_per_client and codes[-1] == 429
        room = other.post(f"{server}api/rooms", json={"dice": "fr", "seconds": 60})
        assert room.status_code == 201
        room_id = room.json()["room"]
    host, port = server.split("//")[1].strip("/").split(":")
    held = []
    try:
        for _ in range(limits.sockets_per_client + 2):
            held.append(_websocket(host, int(port), room_id, "127.0.0.6"))
        opened = sum(1 for status in (s[1] for s in held) if status == 101)
        assert opened == limits.sockets_per_client
        other_socket = _websocket(host, int(port), room_id, "127.0.0.7")
        held.append(other_socket)
        assert other_socket[1] == 101
        with _from("127.0.0.7") as other:
            assert other.get(f"{server}api/dice").status_code == 200
    finally:
        for sock, _ in held:
            sock.close()


def _websocket(host: str, port: int, room_id: str, source: str) -> tuple[socket.socket, int]:
    """A WebSocket handshake from ``source``, held open: (the socket, the HTTP status)."""
    sock = socket.create_connection((host, port), timeout=10, source_address=(source, 0))
    sock.sendall(
        f"GET /ws/rooms/{room_id} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    return sock, status


@pytest.mark.slow
def test_the_soak_script_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "scripts" / "soak_web.py"
    result = subprocess.run(
        [sys.executable, str(script), "--seconds", "6", "--clients", "3"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "p99" in result.stdout and "rss" in result.stdout
