"""The web API through FastAPI's test client: every endpoint, good and malformed input, rooms over WebSocket."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip("httpx", reason="the test client needs httpx")

from conftest import run_cli
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.board.dice import BUILTIN_SETS, SplitMix64, load_dice, roll_grid
from boggle_dafsa.board.grid import Grid
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.game.rounds import Game, Judge, score_players
from boggle_dafsa.output.jsonable import report_json, result_json
from boggle_dafsa.solver import solve
from boggle_dafsa.web.app import create_app
from boggle_dafsa.web.settings import Limits

GRID = "IDXT/MHEI/ERVN/TLLU"


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(), raise_server_exceptions=True)


@pytest.fixture(scope="module")
def small_dictionary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from boggle_dafsa.dictionaries.build import compile_words
    from boggle_dafsa.files.atomic import write_atomically
    from boggle_dafsa.words.normalize import Policy

    path = tmp_path_factory.mktemp("dicts") / "tiny.dafsa"
    write_atomically(path, compile_words(sorted(["CHAT", "CHIEN", "NICHE", "NICHER", "ZOO", "ABC"]), Policy.FOLD))
    return path


def error_of(response: Any) -> str:
    body = response.json()
    assert set(body) == {"error"}, body
    assert "\n" not in body["error"] and body["error"]
    return body["error"]


# -- dictionaries, dice, roll --------------------------------------------------------------


def test_dictionaries_lists_embedded_and_given_ones_without_paths(small_dictionary: Path) -> None:
    client = TestClient(create_app([str(small_dictionary), "en"]))
    listed = client.get("/api/dictionaries").json()
    names = [entry["name"] for entry in listed]
    assert names == ["tiny", "fr", "en", "enable2k"]
    assert [entry["name"] for entry in listed if entry["default"]] == ["tiny"]
    assert str(small_dictionary.parent) not in json.dumps(listed)  # names, never server paths
    # The file is used by name...
    words = client.get("/api/solve", params={"grid": "CHAT/ZOOX", "dict": "tiny"}).json()["words"]
    assert [w["word"] for w in words] == ["CHAT", "ZOO"]
    # ...and never by path, even the very file the server was given.
    response = client.get("/api/solve", params={"grid": "CHAT/ZOOX", "dict": str(small_dictionary)})
    assert response.status_code == 400 and "unknown dictionary" in error_of(response)


def test_a_bad_dictionary_stops_the_app_before_it_starts(tmp_path: Path) -> None:
    from boggle_dafsa.errors import BoggleError

    bad = tmp_path / "bad.dafsa"
    bad.write_bytes(b"\x00\x01 neither a dictionary nor a word list")
    with pytest.raises(BoggleError):
        create_app([str(bad)])


def test_dice_lists_the_builtin_sets(client: TestClient) -> None:
    sets = client.get("/api/dice").json()
    assert [s["name"] for s in sets] == list(BUILTIN_SETS)
    assert all(len(s["dice"]) == s["shape"][0] * s["shape"][1] for s in sets)


@pytest.mark.slow
@pytest.mark.parametrize("dice", BUILTIN_SETS)
def test_roll_gives_the_grid_of_generate_seed(client: TestClient, dice: str) -> None:
    rolled = client.get("/api/roll", params={"dice": dice, "seed": 42}).json()
    assert rolled["grid"] == str(roll_grid(load_dice(dice), SplitMix64(42)))
    result = run_cli("generate", "--dice", dice, "--seed", "42")
    assert result.stdout.strip() == rolled["grid"]
    assert rolled["faces"] == list(Grid.parse(rolled["grid"]).faces)
    assert rolled["dictionary"] == (load_dice(dice).language or "fr")


def test_roll_without_seed_draws_one(client: TestClient) -> None:
    rolled = client.get("/api/roll").json()
    assert 0 <= rolled["seed"] < 10**9
    again = client.get("/api/roll", params={"seed": rolled["seed"]}).json()
    assert again["grid"] == rolled["grid"]


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"dice": "/etc/passwd"}, 400, "unknown dice set"),
        ({"dice": "fr.txt"}, 400, "unknown dice set"),
        ({"seed": -1}, 422, "seed"),
        ({"seed": 2**64}, 422, "seed"),
        ({"seed": "abc"}, 422, "seed"),
        ({"dice": "x" * 100}, 422, "dice"),
    ],
)
def test_roll_refuses_bad_input(client: TestClient, params: dict[str, Any], status: int, message: str) -> None:
    response = client.get("/api/roll", params=params)
    assert response.status_code == status
    assert message in error_of(response)


# -- solve -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "params, arguments",
    [
        ({"grid": GRID}, [GRID, "-d", "fr"]),
        ({"grid": "perslatgsineters", "dict": "enable2k"}, ["perslatgsineters", "-d", "enable2k"]),
        (
            {"grid": "QU E S T/A B C D/E F G H/I J K L", "dict": "en", "scoring": "letters"},
            ["QU E S T/A B C D/E F G H/I J K L", "-d", "en", "--scoring", "letters"],
        ),
        (
            {"grid": "QEST/ABCD/EFGH/IJKL", "dict": "en", "qu": "true", "min_length": 4},
            ["QEST/ABCD/EFGH/IJKL", "-d", "en", "--qu", "-m", "4"],
        ),
        (
            {"grid": GRID, "adjacency": "orthogonal", "dice": "big"},
            [GRID, "-d", "fr", "--adjacency", "orthogonal", "--dice", "big"],
        ),
        ({"grid": "ABC/DEF/GHI//JKL/MNO/PQR", "dict": "en"}, ["ABC/DEF/GHI//JKL/MNO/PQR", "-d", "en"]),
        ({"grid": "ETAONRISL" * 9}, ["ETAONRISL" * 9, "-d", "fr"]),  # 81 cells: solved in a worker thread
    ],
)
def test_solve_returns_what_solve_json_prints(client: TestClient, params: dict[str, Any], arguments: list[str]) -> None:
    cli = run_cli("solve", *arguments, "--json")
    assert cli.returncode == 0, cli.stderr
    response = client.get("/api/solve", params=params)
    assert response.status_code == 200
    assert response.json() == json.loads(cli.stdout)


@pytest.mark.slow
@given(st.lists(st.sampled_from("AEILNORSTUCDMP"), min_size=16, max_size=16))
def test_solve_matches_the_library_on_random_grids(fuzz_client: TestClient, faces: list[str]) -> None:
    client = fuzz_client
    words = open_dictionary("fr")
    grid = Grid.from_faces(faces, (4, 4))
    answer = client.get("/api/solve", params={"grid": str(grid), "dict": "fr"}).json()
    assert answer == json.loads(json.dumps(result_json(grid, solve(grid, words))))
    for entry in answer["words"]:  # each path spells its word through adjacent cells
        cells = [grid.index(cell) for cell in entry["path"]]
        assert "".join(grid.faces[cell] for cell in cells) == entry["word"]
        assert len(set(cells)) == len(cells)
        assert all(b in grid.neighbours()[a] for a, b in itertools.pairwise(cells))


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({}, 422, "grid"),
        ({"grid": ""}, 422, "grid"),
        ({"grid": "AB1C"}, 400, "not a letter"),
        ({"grid": "AB/CDE"}, 400, ""),
        ({"grid": "A" * 2001}, 422, "grid"),
        ({"grid": "A" * 401}, 400, "400 at most"),
        ({"grid": "A" * 21 + ("/" + "A" * 21) * 20}, 400, "400 at most"),
        ({"grid": GRID, "dict": "/etc/passwd"}, 400, "unknown dictionary"),
        ({"grid": GRID, "dict": "../../fr"}, 400, "unknown dictionary"),
        ({"grid": GRID, "dice": "/etc/passwd"}, 400, "unknown dice set"),
        ({"grid": GRID, "scoring": "golf"}, 400, "unknown scoring"),
        ({"grid": GRID, "adjacency": "queen"}, 400, "unknown adjacency"),
        ({"grid": GRID, "min_length": 0}, 422, "min_length"),
        ({"grid": GRID, "min_length": "x"}, 422, "min_length"),
        ({"grid": GRID, "qu": "perhaps"}, 422, "qu"),
        ({"grid": "A" + "/" * 40 + "B"}, 400, "dimensions"),
        ({"grid": "ABCD EFGH"}, 400, "letters"),
        ({"grid": "\x00\x01"}, 400, ""),
    ],
)
def test_solve_refuses_malformed_requests(client: TestClient, params: dict[str, Any], status: int, message: str) -> None:
    response = client.get("/api/solve", params=params)
    assert response.status_code == status, response.text
    assert message in error_of(response)


def test_overlong_query_strings_and_unknown_paths_are_refused(client: TestClient) -> None:
    response = client.get("/api/solve?grid=" + "A" * 5000)
    assert response.status_code == 414 and "query string" in error_of(response)
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and error_of(response)
    response = client.post("/api/solve", json={"grid": GRID})
    assert response.status_code == 405 and error_of(response)


# -- pages and static files --------------------------------------------------------------


@pytest.mark.parametrize(
    "path, name, current",
    [
        ("/", "solve", "/"),
        ("/play", "play", "/play"),
        ("/daily", "play", "/play"),
        ("/rooms", "rooms", "/rooms"),
        ("/rooms/abc", "rooms", "/rooms"),
        ("/words", "words", "/words"),
        ("/arena", "arena", "/arena"),
        ("/study", "study", "/study"),
    ],
)
def test_pages_are_served_each_in_the_shared_head_with_its_own_link_current(
    client: TestClient, path: str, name: str, current: str
) -> None:
    response = client.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    page = response.text
    assert (
        f'<script type="module" src="/static/js/{name}.js">' in page and f"<title>{name.title()} — boggle-dafsa</title>" in page
    )
    assert page.count('<link rel="manifest"') == 1 and page.count("<main>") == 1 and page.rstrip().endswith("</html>")
    # The Daily page is the Play page (its script marks the Daily link once it reads its path).
    assert re.findall(r'<a href="([^"]+)" aria-current="page">', page) == [current]
    # Every page's header leads to every page and to the API's.
    links = re.findall(r'<a href="([^"]+)"', page.split("<nav>", 1)[1].split("</nav>", 1)[0])
    assert links == ["/", "/play", "/daily", "/arena", "/rooms", "/words", "/study", "/api/docs"]


def test_static_files_stay_in_their_folder(client: TestClient) -> None:
    assert client.get("/static/js/board.js").status_code == 200
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static//etc/passwd"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "create_app" not in response.text and "root:" not in response.text


def test_openapi_describes_the_api(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    assert {"/api/solve", "/api/roll", "/api/dictionaries", "/api/dice", "/api/play", "/api/rooms"} <= set(spec["paths"])
    parameters = {p["name"] for p in spec["paths"]["/api/solve"]["get"]["parameters"]}
    assert {"grid", "dict", "scoring", "min_length", "adjacency", "qu", "dice"} <= parameters
    assert client.get("/api/docs").status_code == 200


# -- solo play ---------------------------------------------------------------------------


def test_play_judges_like_the_console_game(client: TestClient) -> None:
    words = ["halte", "HALTE", "xyzzy", "zut", "ha", "l'eau", "Thème", "latte"]
    answer = client.post("/api/play", json={"dice": "fr", "seed": 42, "words": words}).json()
    game = Game.from_dice(load_dice("fr"), 42, open_dictionary("fr"))
    expected = [game.submit(word) for word in words]
    assert answer["grid"] == str(game.grid) == "IEFA/AEFE/MHAL/ETTE"
    assert [(v["word"], v["accepted"], v["points"], v["reason"]) for v in answer["verdicts"]] == [
        (v.word, v.accepted, v.points, v.reason.value if v.reason else None) for v in expected
    ]
    assert answer["score"] == game.score
    assert [v["reason"] for v in answer["verdicts"]][:5] == [None, "already found", "not a word", "not on the grid", "too short"]
    halte = answer["verdicts"][0]
    assert halte["path"] == [list(cell) for cell in game.judge.hits_by_word["HALTE"].coordinates(game.grid)]
    assert "report" not in answer


def test_play_end_gives_the_report_and_the_solution(client: TestClient) -> None:
    answer = client.post("/api/play", json={"seed": 7, "dice": "en", "words": ["the", "qqq"], "end": True, "time": 60}).json()
    # English games have the bonus words of enable2k by default (docs/web.md#after-a-game).
    game = Game.from_dice(
        load_dice("en"), 7, open_dictionary("en"), dictionary_spec="en", bonus=open_dictionary("enable2k"), bonus_spec="enable2k"
    )
    for word in ["the", "qqq"]:
        game.submit(word)
    from boggle_dafsa.game.rounds import EndReason

    assert answer["report"] == report_json(game.report(EndReason.TIME_UP, seconds=60))
    assert answer["solution"] == json.loads(json.dumps(result_json(game.grid, game.hits)))
    report = answer["report"]
    found_and_missed = {w["word"] for w in report["found"]} | {w["word"] for w in report["missed"]}
    assert found_and_missed == {w["word"] for w in answer["solution"]["words"]}
    assert answer["dictionary"] == "en"


@pytest.mark.parametrize(
    "body, status, message",
    [
        ({}, 422, "seed"),
        ({"seed": -5}, 422, "seed"),
        ({"seed": 1, "dice": "/etc/passwd"}, 400, "unknown dice set"),
        ({"seed": 1, "dict": "/etc/passwd"}, 400, "unknown dictionary"),
        ({"seed": 1, "words": "halte"}, 422, "words"),
        ({"seed": 1, "words": [1, 2]}, 422, "words"),
        ({"seed": 1, "words": ["a" * 65]}, 422, "words"),
        ({"seed": 1, "words": ["ab"] * 1001}, 422, "words"),
        ({"seed": 1, "time": -1}, 422, "time"),
        ({"seed": 1, "time": "inf"}, 422, "time"),
        ([1, 2, 3], 422, ""),
        ("halte", 422, ""),
    ],
)
def test_play_refuses_malformed_bodies(client: TestClient, body: Any, status: int, message: str) -> None:
    response = client.post("/api/play", json=body)
    assert response.status_code == status, response.text
    assert message in error_of(response)


@pytest.mark.parametrize(
    "content",
    [b"{", b"\xff\xfe\x00", b"[" * 5000 + b"]" * 5000, b'{"seed": 1e999999}', b"null", b""],
)
def test_play_survives_garbage_bodies(client: TestClient, content: bytes) -> None:
    response = client.post("/api/play", content=content, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500, response.text
    error_of(response)
    assert client.get("/api/dice").status_code == 200  # still serving


def test_bodies_past_the_limit_are_refused(client: TestClient) -> None:
    response = client.post("/api/play", content=b" " * 70_000, headers={"content-type": "application/json"})
    assert response.status_code == 413 and "larger than" in error_of(response)

    def chunks():  # no content-length: counted as it comes
        for _ in range(100):
            yield b" " * 1000

    response = client.post("/api/play", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


# -- rooms -------------------------------------------------------------------------------


def fast_client(**limits: Any) -> TestClient:
    return TestClient(create_app(limits=Limits(**limits)))


@pytest.fixture(scope="module")
def fuzz_client() -> TestClient:
    """The one client of the fuzz tests' examples. A new app an example cost 0.13 CPU-s of
    FastAPI's route building: those four tests took 99 CPU-s at CI's 100 examples, 12 now.
    Its quotas are wide, so that no example meets one that the examples before it used up."""
    wide = 10**9
    limits = Limits(
        rooms=wide,
        rooms_per_client=wide,
        requests_per_second=wide,
        request_burst=wide,
        client_messages_per_second=wide,
        client_message_burst=wide,
    )
    return TestClient(create_app(limits=limits))


def receive_until(socket: Any, kind: str, limit: int = 50) -> dict[str, Any]:
    """The next message of type ``kind`` (others are skipped)."""
    for _ in range(limit):
        message = socket.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind!r} message")


def test_rooms_api_creates_and_shows_rooms(client: TestClient) -> None:
    room = client.post("/api/rooms", json={"dice": "en", "seconds": 60, "seed": 3}).json()
    assert room["status"] == "waiting" and room["grid"] is None and room["dictionary"] == "en"
    shown = client.get(f"/api/rooms/{room['room']}").json()
    assert shown == room
    response = client.get("/api/rooms/nope")
    assert response.status_code == 404 and "no room" in error_of(response)


@pytest.mark.parametrize(
    "body, status, message",
    [
        ({"seconds": 0}, 400, "seconds"),
        ({"seconds": 10**9}, 400, "seconds"),
        ({"seconds": "soon"}, 422, "seconds"),
        ({"dice": "../../etc/passwd"}, 400, "unknown dice set"),
        ({"dict": "/etc/passwd"}, 400, "unknown dictionary"),
        ({"seed": -1}, 422, "seed"),
    ],
)
def test_rooms_refuse_bad_settings(client: TestClient, body: dict[str, Any], status: int, message: str) -> None:
    response = client.post("/api/rooms", json=body)
    assert response.status_code == status
    assert message in error_of(response)


def test_the_number_of_rooms_is_bounded() -> None:
    client = fast_client(rooms=2)
    made = [client.post("/api/rooms", json={}).json()["room"] for _ in range(3)]
    # The third made way by closing the oldest room nobody uses: two rooms at most.
    assert list(client.app.state.rooms.rooms) == made[1:]  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/rooms/{made[1]}"), client.websocket_connect(f"/ws/rooms/{made[2]}"):
        response = client.post("/api/rooms", json={})
        assert response.status_code == 503 and "too many rooms" in error_of(response)


@pytest.mark.slow
def test_a_room_game_from_join_to_the_final_table() -> None:
    client = fast_client()
    room = client.post("/api/rooms", json={"dice": "fr", "seed": 42, "seconds": 2}).json()
    url = f"/ws/rooms/{room['room']}"
    with client.websocket_connect(url) as alice, client.websocket_connect(url) as bob:
        alice.send_json({"type": "join", "name": "alice"})
        joined = receive_until(alice, "joined")
        assert joined["name"] == "alice" and len(joined["token"]) > 16
        bob.send_json({"type": "join", "name": "  bob  "})
        assert receive_until(bob, "joined")["name"] == "bob"
        bob.send_json({"type": "word", "word": "halte"})
        assert "not started" in receive_until(bob, "error")["error"]
        alice.send_json({"type": "start"})
        state = receive_until(alice, "state")
        while state["status"] != "playing":
            state = receive_until(alice, "state")
        assert state["grid"] == "IEFA/AEFE/MHAL/ETTE" and 0 < state["remaining"] <= 2
        for socket, word in ((alice, "halte"), (bob, "HALTE"), (alice, "latte"), (bob, "xyzzy"), (alice, "halte")):
            socket.send_json({"type": "word", "word": word})
        verdicts = [receive_until(alice, "verdict") for _ in range(3)]
        assert [(v["word"], v["accepted"], v["reason"]) for v in verdicts] == [
            ("HALTE", True, None),
            ("LATTE", True, None),
            ("HALTE", False, "already found"),
        ]
        assert verdicts[0]["path"] and verdicts[1]["score"] == 4
        bob_verdicts = [receive_until(bob, "verdict") for _ in range(2)]
        assert [v["accepted"] for v in bob_verdicts] == [True, False]
        over = receive_until(alice, "over")  # the server's clock ends the game
        assert receive_until(bob, "over") == over
    sheet = over["sheet"]
    table = {row["word"]: row for row in sheet["table"]}
    assert sorted(table["HALTE"]["found_by"]) == ["alice", "bob"]
    scores = {player["name"]: player["score"] for player in sheet["players"]}
    assert scores == {"alice": 2, "bob": 0}  # HALTE shared: 0 for both; LATTE alone: 2
    # The same table as `score` gives for the same lists.
    judge = Judge(Grid.parse("IEFA/AEFE/MHAL/ETTE"), open_dictionary("fr"))
    expected = score_players(judge, {"alice": ["halte", "latte", "halte"], "bob": ["HALTE", "xyzzy"]})
    assert {p.name: p.score for p in expected.players} == scores
    assert {w["word"] for w in over["solution"]["words"]} == {hit.word for hit in judge.hits}


def test_a_player_comes_back_after_a_reload() -> None:
    client = fast_client()
    room = client.post("/api/rooms", json={"seed": 42, "seconds": 600}).json()
    url = f"/ws/rooms/{room['room']}"
    with client.websocket_connect(url) as page:
        page.send_json({"type": "join", "name": "alice"})
        token = receive_until(page, "joined")["token"]
        page.send_json({"type": "start"})
        page.send_json({"type": "word", "word": "halte"})
        receive_until(page, "verdict")
    # The page reloads: a new connection, the token kept by the page.
    with client.websocket_connect(url) as page:
        page.send_json({"type": "join", "name": "alice", "token": "wrong"})
        assert "taken" in receive_until(page, "error")["error"]
        page.send_json({"type": "join", "name": "alice", "token": token})
        assert receive_until(page, "joined")["token"] == token
        state = receive_until(page, "state")
        assert state["status"] == "playing"
        assert state["you"]["score"] == 2 and [w["word"] for w in state["you"]["found"]] == ["HALTE"]
        page.send_json({"type": "word", "word": "halte"})
        assert receive_until(page, "verdict")["reason"] == "already found"
        assert [p["name"] for p in client.get(f"/api/rooms/{room['room']}").json()["players"]] == ["alice"]


@pytest.mark.parametrize(
    "message, expected",
    [
        (b"\x00\x01binary", "binary"),
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('"word"', "JSON object"),
        ("[" * 3000 + "]" * 3000, ""),
        ("x" * 5000, "longer than"),
        ('{"type": "word", "word": "halte"}', "join the room first"),
        ('{"type": "start"}', "join the room first"),
        ('{"type": 42}', "unknown message type"),
        ('{"no": "type"}', "unknown message type"),
        ('{"type": "join"}', "give a name"),
        ('{"type": "join", "name": ["a"]}', "give a name"),
        ('{"type": "join", "name": "' + "n" * 100 + '"}', "at most"),
    ],
)
@pytest.mark.slow
def test_room_sockets_survive_garbage(message: str | bytes, expected: str) -> None:
    client = fast_client()
    room = client.post("/api/rooms", json={}).json()
    with client.websocket_connect(f"/ws/rooms/{room['room']}") as socket:
        if isinstance(message, bytes):
            socket.send_bytes(message)
        else:
            socket.send_text(message)
        assert expected in receive_until(socket, "error")["error"]
        socket.send_json({"type": "ping"})
        assert receive_until(socket, "pong") == {"type": "pong"}


def test_room_words_are_checked_and_bounded() -> None:
    client = fast_client(words_per_game=3, players_per_room=1)
    room = client.post("/api/rooms", json={"seed": 42, "seconds": 600}).json()
    url = f"/ws/rooms/{room['room']}"
    with client.websocket_connect(url) as socket, client.websocket_connect(url) as other:
        socket.send_json({"type": "join", "name": "alice"})
        receive_until(socket, "joined")
        other.send_json({"type": "join", "name": "bob"})
        assert "full" in receive_until(other, "error")["error"]
        socket.send_json({"type": "join", "name": "alice"})
        assert "already in the room" in receive_until(socket, "error")["error"]
        socket.send_json({"type": "start"})
        for word, expected in ((None, "send a word"), (["x"], "send a word"), ("x" * 100, "at most")):
            socket.send_json({"type": "word", "word": word})
            assert expected in receive_until(socket, "error")["error"]
        for word in ("a1", "zz", "qq"):
            socket.send_json({"type": "word", "word": word})
            assert receive_until(socket, "verdict")["accepted"] is False
        socket.send_json({"type": "word", "word": "halte"})
        assert "at most 3 words" in receive_until(socket, "error")["error"]


def test_unknown_rooms_close_the_socket() -> None:
    client = fast_client()
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect("/ws/rooms/nope") as socket:
        message = socket.receive_json()
        assert message["fatal"] and "no room" in message["error"]
        with pytest.raises(WebSocketDisconnect):
            socket.receive_json()


@pytest.mark.slow
def test_newcomers_cannot_join_a_finished_game_but_players_see_the_table() -> None:
    client = fast_client()
    room = client.post("/api/rooms", json={"seed": 42, "seconds": 1}).json()
    url = f"/ws/rooms/{room['room']}"
    with client.websocket_connect(url) as socket:
        socket.send_json({"type": "join", "name": "alice"})
        token = receive_until(socket, "joined")["token"]
        socket.send_json({"type": "start"})
        socket.send_json({"type": "word", "word": "halte"})
        receive_until(socket, "verdict")
        over = receive_until(socket, "over")
        socket.send_json({"type": "word", "word": "latte"})
        assert "over" in receive_until(socket, "error")["error"]
    with client.websocket_connect(url) as socket:
        socket.send_json({"type": "join", "name": "carol"})
        assert "over" in receive_until(socket, "error")["error"]
        socket.send_json({"type": "join", "name": "alice", "token": token})
        assert receive_until(socket, "over") == over


@pytest.mark.slow
def test_pages_per_player_are_bounded_and_idle_sockets_closed() -> None:
    from starlette.websockets import WebSocketDisconnect

    client = fast_client(pages_per_player=1, join_seconds=1)
    room = client.post("/api/rooms", json={}).json()
    url = f"/ws/rooms/{room['room']}"
    with client.websocket_connect(url) as first, client.websocket_connect(url) as second:
        first.send_json({"type": "join", "name": "alice"})
        token = receive_until(first, "joined")["token"]
        second.send_json({"type": "join", "name": "alice", "token": token})
        assert "pages open" in receive_until(second, "error")["error"]
    with client.websocket_connect(url) as idle:  # never joins
        message = receive_until(idle, "error")
        assert message["fatal"] and "no join" in message["error"]
        with pytest.raises(WebSocketDisconnect):
            idle.receive_json()


# -- whatever comes in, the server answers --------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120)


@pytest.mark.slow
@given(grid=TEXT, dictionary=st.none() | TEXT, scoring=st.none() | TEXT)
def test_solve_answers_any_query_with_words_or_one_error_line(
    fuzz_client: TestClient, grid: str, dictionary: str | None, scoring: str | None
) -> None:
    client = fuzz_client
    params = {"grid": grid, "dict": dictionary, "scoring": scoring}
    response = client.get("/api/solve", params={k: v for k, v in params.items() if v is not None})
    assert response.status_code in (200, 400, 422), response.text
    if response.status_code == 200:
        assert set(response.json()) == {"grid", "shape", "words", "totals"}
    else:
        error_of(response)


@pytest.mark.slow
@given(body=JSON_VALUES)
def test_play_answers_any_json_body(fuzz_client: TestClient, body: Any) -> None:
    client = fuzz_client
    response = client.post("/api/play", json=body)
    assert response.status_code in (200, 400, 422), response.text
    if response.status_code != 200:
        error_of(response)


@pytest.mark.slow
@given(
    messages=st.lists(
        JSON_VALUES
        | st.fixed_dictionaries(
            {"type": st.sampled_from(["join", "start", "word", "ping"])},
            optional={"name": JSON_VALUES, "word": JSON_VALUES, "token": JSON_VALUES},
        ),
        max_size=6,
    )
)
def test_room_sockets_answer_any_messages(fuzz_client: TestClient, messages: list[Any]) -> None:
    client = fuzz_client
    room = client.post("/api/rooms", json={"seconds": 600}).json()
    with client.websocket_connect(f"/ws/rooms/{room['room']}") as socket:
        for message in messages:
            socket.send_text(json.dumps(message))
        socket.send_json({"type": "ping"})
        receive_until(socket, "pong", limit=200)  # every message before it was answered, none killed the socket
    assert client.get(f"/api/rooms/{room['room']}").status_code == 200


def test_the_openapi_examples_are_real_answers(client: TestClient) -> None:
    from boggle_dafsa.web.site import ROLL_EXAMPLE
    from boggle_dafsa.web.solve import SOLVE_EXAMPLE

    solved = client.get("/api/solve", params={"grid": SOLVE_EXAMPLE["grid"]}).json()
    assert solved["words"][0] == SOLVE_EXAMPLE["words"][0] and solved["totals"] == SOLVE_EXAMPLE["totals"]
    assert client.get("/api/roll", params={"dice": "fr", "seed": 42}).json() == ROLL_EXAMPLE
    spec = client.get("/api/openapi.json").json()
    assert spec["paths"]["/api/solve"]["get"]["responses"]["200"]["content"]["application/json"]["example"] == SOLVE_EXAMPLE
