"""Scoring several players on one grid (`boggle-dafsa score`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boggle_dafsa.board.grid import Grid
from boggle_dafsa.cli import app
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.rounds import Judge, Reason, player_names, read_player_words, score_players
from helpers.dictionaries import dictionary_from_words

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()

GRID = "IDXT/MHEI/ERVN/TLLU"
#: On the grid: UNITE (2 points), LUNE, TIEN, VERT, NIE, NUL, TEL, VER, VIE (1 each).
#: In the dictionary but not on the grid: HIER, RIVE.
WORDS = "unite vert tien hier thé lit lune tel nul vie rive nie ver".split()


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("score-dict"))


@pytest.fixture()
def players(tmp_path: Path) -> list[str]:
    """Three players' files, written as people write them."""
    alice = tmp_path / "alice.txt"
    # UTF-8 with a BOM, CRLF, blank lines, accents, mixed case, a word listed twice.
    alice.write_bytes("\ufeffUnité\r\n\r\nVERT\r\nlune\r\n  vert \r\nhier\r\nTien\r\n".encode("utf-8"))
    bob = tmp_path / "bob.txt"
    # ISO-8859-15, LF, an accent that folds away, junk and a short word.
    bob.write_bytes("vert\nnul\ntél\nzzz\n\nab\n".encode("iso-8859-15"))
    carol = tmp_path / "carol"
    # Semicolons, like the messy lists word lists are read from; no final newline.
    carol.write_text("unité;lune\nVie", encoding="utf-8")
    return [str(alice), str(bob), str(carol)]


def test_three_players(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    judge = Judge(Grid.parse(GRID), dictionary)
    sheet = score_players(judge, dict(zip(player_names(players), map(read_player_words, players))))
    alice, bob, carol = sheet.players
    assert [p.name for p in sheet.players] == ["alice", "bob", "carol"]
    # UNITE (alice, carol), VERT (alice, bob), LUNE (alice, carol) are shared: 0 for everyone.
    assert (alice.score, bob.score, carol.score) == (1, 2, 1)
    assert [(w.verdict.word, w.points, w.shared) for w in alice.valid] == [
        ("UNITE", 0, True),
        ("VERT", 0, True),
        ("LUNE", 0, True),
        ("TIEN", 1, False),
    ]
    assert [(w.verdict.raw, w.verdict.reason) for w in alice.invalid] == [
        ("vert", Reason.ALREADY_FOUND),
        ("hier", Reason.NOT_ON_GRID),
    ]
    assert [(w.verdict.word, w.points) for w in bob.valid] == [("VERT", 0), ("NUL", 1), ("TEL", 1)]
    assert [(w.verdict.raw, w.verdict.reason) for w in bob.invalid] == [
        ("zzz", Reason.NOT_A_WORD),
        ("ab", Reason.TOO_SHORT),
    ]
    assert [(w.verdict.word, w.points) for w in carol.valid] == [("UNITE", 0), ("LUNE", 0), ("VIE", 1)]
    # The table: every valid word anybody found, sorted as `solve` sorts them.
    assert [(hit.word, [e is not None for e in entries]) for hit, entries in sheet.rows()] == [
        ("UNITE", [True, False, True]),
        ("LUNE", [True, False, True]),
        ("TIEN", [True, False, False]),
        ("VERT", [True, True, False]),
        ("NUL", [False, True, False]),
        ("TEL", [False, True, False]),
        ("VIE", [False, False, True]),
    ]


def test_the_table_and_the_refused_words(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["score", GRID, *players, "-d", str(dictionary.path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["word", "pts", "alice", "bob", "carol"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:9]}
    assert rows == {
        "UNITE": ["2", "=", ".", "="],
        "LUNE": ["1", "=", ".", "="],
        "TIEN": ["1", "1", ".", "."],
        "VERT": ["1", "=", "=", "."],
        "NUL": ["1", ".", "1", "."],
        "TEL": ["1", ".", "1", "."],
        "VIE": ["1", ".", ".", "1"],
        "TOTAL": ["1", "2", "1"],
    }
    refused = result.stdout.split("Refused:\n")[1].splitlines()
    assert refused == [
        "  alice: vert (VERT): already found",
        "  alice: hier (HIER): not on the grid",
        "  bob: zzz (ZZZ): not a word",
        "  bob: ab (AB): too short",
    ]


def test_score_json(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["score", GRID, *players, "-d", str(dictionary.path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["grid"] == GRID and data["scoring"] == "classic" and data["min_length"] == 3
    assert {p["name"]: p["score"] for p in data["players"]} == {"alice": 1, "bob": 2, "carol": 1}
    bob = data["players"][1]
    assert bob["words"][0] == {
        "input": "vert",
        "word": "VERT",
        "accepted": True,
        "points": 0,
        "reason": None,
        "bonus": False,
        "shared": True,
    }
    assert bob["words"][2]["input"] == "tél" and bob["words"][2]["points"] == 1
    assert [w["reason"] for w in bob["words"] if not w["accepted"]] == ["not a word", "too short"]
    assert data["table"][0] == {"word": "UNITE", "points": 2, "found_by": ["alice", "carol"]}


def test_rules_from_a_dice_set(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["score", GRID, *players, "-d", str(dictionary.path), "--dice", "big", "--json"])
    data = json.loads(result.stdout)
    assert data["scoring"] == "big" and data["min_length"] == 4
    bob = data["players"][1]
    assert [(w["input"], w["reason"]) for w in bob["words"] if not w["accepted"]] == [
        ("nul", "too short"),
        ("tél", "too short"),
        ("zzz", "too short"),
        ("ab", "too short"),
    ]


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_a_word_scores_only_for_a_lone_finder(dictionary, data: st.DataObject) -> None:  # type: ignore[no-untyped-def]
    judge = Judge(Grid.parse(GRID), dictionary)
    pool = [hit.word for hit in judge.hits]
    count = data.draw(st.integers(min_value=1, max_value=4))
    lists = {f"p{i}": data.draw(st.lists(st.sampled_from(pool + ["zz", "hier"]), max_size=12)) for i in range(count)}
    sheet = score_players(judge, lists)
    found = {name: {w.upper() for w in words if w.upper() in pool} for name, words in lists.items()}
    points = {hit.word: hit.points for hit in judge.hits}
    for player in sheet.players:
        others = set().union(*(words for name, words in found.items() if name != player.name))
        assert player.score == sum(points[w] for w in found[player.name] - others)
        assert len(player.words) == len(lists[player.name])  # every word accounted for, none dropped


def test_player_names() -> None:
    assert player_names(["a/alice.txt", "bob", "c/carol.words"]) == ["alice", "bob", "carol"]


@pytest.mark.parametrize(
    "paths",
    [["alice.txt", "bob.txt", "alice.txt"], ["x/alice.txt", "y/alice.txt"], ["alice", "alice.txt"], ["alice.txt", "./alice.txt"]],
)
def test_two_players_of_the_same_name_are_refused(paths: list[str]) -> None:
    with pytest.raises(BoggleError, match=r"^two players named 'alice' \(.*\): give each player a file of their own name$"):
        player_names(paths)


def test_score_refuses_the_same_player_twice(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["score", GRID, players[0], players[1], players[0], "-d", str(dictionary.path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("boggle-dafsa: two players named 'alice' (")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: str(tmp / "missing.txt"), "missing.txt: no such file"),
        (lambda tmp: str(tmp), "is a directory"),
        (lambda tmp: (tmp / "bin.txt").write_bytes(b"ab\0cd") and str(tmp / "bin.txt"), "binary file"),
    ],
)
def test_unreadable_player_files(dictionary, tmp_path: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "score", GRID, path, "-d", str(dictionary.path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ABC/DE"], "row 2 has 2 faces"),
        ([GRID, "--scoring", "fancy"], "unknown scoring 'fancy'"),
        ([GRID, "--dice", "klingon"], "unknown dice set 'klingon'"),
        ([GRID, "--min-length", "0"], "(--min-length) must have at least 1 letter"),
    ],
)
def test_bad_score_options(dictionary, players: list[str], args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, ["score", *args, *players, "-d", str(dictionary.path)])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.splitlines()) == 1


def test_the_grid_can_come_from_standard_input_as_for_solve(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    # `score -` reads the grid the way `solve -` does: faces separated by spaces or newlines.
    given = runner.invoke(app, ["score", GRID, *players, "-d", str(dictionary.path)])
    piped = runner.invoke(
        app, ["score", "-", *players, "-d", str(dictionary.path)], input=" ".join(Grid.parse(GRID).faces) + "\n"
    )
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == given.stdout


@pytest.mark.slow
def test_a_player_file_and_the_dice_file_can_come_from_standard_input(dictionary, players: list[str]) -> None:  # type: ignore[no-untyped-def]
    alice = Path(players[0])
    d = ["-d", str(dictionary.path)]
    # `-` as a player file: the player "stdin", scored exactly as the same bytes in a file.
    from_file = runner.invoke(app, ["score", GRID, players[1], str(alice), "--json", *d])
    piped = runner.invoke(app, ["score", GRID, players[1], "-", "--json", *d], input=alice.read_bytes())
    assert piped.exit_code == 0, piped.output
    sheet = json.loads(piped.stdout)
    assert [player["name"] for player in sheet["players"]] == ["bob", "stdin"]
    assert sheet == json.loads(from_file.stdout.replace('"alice"', '"stdin"'))
    # The rules of a dice file read from standard input: big scoring, 4 letters at least.
    dice_file = "title: mine\nshape: 4x4\nscoring: big\n" + "ABCDEF\n" * 16
    ruled = runner.invoke(app, ["score", GRID, *players, "--dice", "-", "--json", *d], input=dice_file)
    with_file = runner.invoke(app, ["score", GRID, *players, "--scoring", "big", "--json", *d])
    assert ruled.exit_code == 0, ruled.output
    assert json.loads(ruled.stdout) == json.loads(with_file.stdout)
    # Standard input can be read once: every pair is refused in one line.
    for args in (["-", "-", players[0]], ["-", players[0], "-"], [GRID, "-", "-"], [GRID, "-", "--dice", "-"]):
        refused = runner.invoke(app, ["score", *args, *d], input="chat\n")
        assert refused.exit_code == 2 and "standard input" in refused.stderr and len(refused.stderr.splitlines()) == 1, args


@pytest.mark.slow
def test_a_windows_1252_player_file_gets_a_note_and_encoding_reads_it(dictionary, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dave = tmp_path / "dave.txt"
    dave.write_bytes("vert\nnul\ncœur\n".encode("cp1252"))  # œ is 0x9C: a control character in ISO-8859-15
    d = ["-d", str(dictionary.path), "--json"]
    guessed = runner.invoke(app, ["score", GRID, str(dave), *d])
    assert guessed.exit_code == 0, guessed.output
    [note] = guessed.stderr.splitlines()
    assert note.startswith("boggle-dafsa: note: ") and str(dave) in note and "--encoding cp1252" in note
    forced = runner.invoke(app, ["score", GRID, str(dave), *d, "--encoding", "cp1252"])
    assert forced.exit_code == 0 and forced.stderr == ""
    [player] = json.loads(forced.stdout)["players"]
    assert "cœur" in json.dumps(player, ensure_ascii=False) and "cœur" not in json.dumps(
        json.loads(guessed.stdout), ensure_ascii=False
    )
    assert player["score"] == json.loads(guessed.stdout)["players"][0]["score"] == 2  # VERT and NUL either way
    # A UTF-8 file is read as before, without a note.
    dave.write_text("vert\nnul\ncœur\n", encoding="utf-8")
    plain = runner.invoke(app, ["score", GRID, str(dave), *d])
    assert plain.exit_code == 0 and plain.stderr == "" and json.loads(plain.stdout)["players"] == [player]
