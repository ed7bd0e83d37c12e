"""The rules a command plays by (board/): the score tables, one list, and the checks of a table's
name, a shortest word and an adjacency, each made in one place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from boggle_dafsa.board.scoring import CLASSIC, SCORINGS, Scoring

ROOT = Path(__file__).resolve().parent.parent


def _docs_tables() -> list[list[str]]:
    text = (ROOT / "docs" / "solve.md").read_text(encoding="utf-8")
    rows = text.split("| `--scoring` |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_the_docs_list_the_score_tables_of_the_code() -> None:
    # docs/solve.md's table: a row per table of SCORINGS, in its order, with its shortest
    # word and its description; the default marked.
    rows = _docs_tables()
    assert [row[0].split()[0] for row in rows] == [f"`{name}`" for name in SCORINGS]
    assert [row[0].endswith("(default)") for row in rows] == [table is CLASSIC for table in SCORINGS.values()]
    assert [(int(row[1]), row[2]) for row in rows] == [(t.min_length, t.description) for t in SCORINGS.values()]


def test_the_score_tables_are_what_their_descriptions_say() -> None:
    # Each description's "N: P" pairs and "8+: P" are the table's points (classic, big).
    for table in SCORINGS.values():
        assert table.name == table.name.lower() and table.name.isidentifier()
        for length, points in re.findall(r"\b(\d+)\+?: (\d+)", table.description):
            assert table.score("A" * int(length)) == int(points), (table.name, length)
        assert table.score("A" * (table.min_length - 1)) == 0 < table.score("A" * table.min_length)
    assert isinstance(CLASSIC, Scoring) and CLASSIC.score("ABC") == 1


@pytest.mark.slow
def test_the_help_names_every_score_table() -> None:
    from typer.testing import CliRunner

    from boggle_dafsa.cli import app

    shown = CliRunner().invoke(app, ["solve", "--help"], env={"COLUMNS": "500", "TERM": "dumb"}).output
    assert "Score table: classic, big (minimum 4 letters) or letters (default: the dice set's, else classic)." in shown
    for name in SCORINGS:
        assert re.search(rf"\b{name}\b", shown.split("Score table:", 1)[1].split(".", 1)[0])
