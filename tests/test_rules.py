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
    # The words of the help, whatever the width it was wrapped at (its box's edges left out).
    shown = " ".join(shown.replace("│", " ").split())
    listed = shown.split("Score table: ", 1)[1].split(" (default:", 1)[0]
    for name, table in SCORINGS.items():
        # Each table by name, with its shortest word when it is not the default's.
        shortest = f" (minimum {table.min_length} letters)" if table.min_length != CLASSIC.min_length else ""
        assert re.search(rf"\b{name}{re.escape(shortest)}(,| or |$)", listed), (name, listed)
    assert f"(default: the dice set's, else {CLASSIC.name})." in shown


# -- each rule checked once, in board/ ----------------------------------------------------

PACKAGE = ROOT / "src" / "boggle_dafsa"
#: The start of each rule's message, and the module of board/ that alone writes it.
CHECKS = {
    "unknown scoring": "board/scoring.py",
    "unknown adjacency": "board/grid.py",
    "unknown objective": "board/rules.py",
    "the shortest word (": "board/rules.py",
}


def _strings(path: Path) -> list[str]:
    # Every string constant of a module, f-strings' literal parts included (docstrings too:
    # harmless, none of them starts a message); parsed only when its text holds one.
    import ast

    text = path.read_text(encoding="utf-8")
    if not any(start in text for start in CHECKS):
        return []
    return [node.value for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_each_rule_is_checked_in_one_module_of_board() -> None:
    writers: dict[str, list[str]] = {start: [] for start in CHECKS}
    for path in sorted(PACKAGE.rglob("*.py")):
        for text in _strings(path):
            for start in CHECKS:
                if text.startswith(start) or f": {start}" in text:
                    writers[start].append(path.relative_to(PACKAGE).as_posix())
    assert {start: sorted(set(found)) for start, found in writers.items()} == {
        start: [module] for start, module in CHECKS.items()
    }


@pytest.fixture(scope="module")
def small_dict(tmp_path_factory: pytest.TempPathFactory) -> str:
    from helpers.dictionaries import dictionary_from_words

    return str(dictionary_from_words(["CAT", "CATS", "ACTS", "SCAT"], tmp_path_factory.mktemp("rules")).path)


def _refusals(small_dict: str, **bad: object) -> set[str]:
    """The messages of every entry that takes the rules, given the same bad value."""
    from boggle_dafsa.board.rules import resolve_rules
    from boggle_dafsa.errors import BoggleError
    from boggle_dafsa.search import best, prove

    entries = [lambda: best.make_spec(small_dict, (2, 2), **bad), lambda: prove.make_spec(small_dict, (2, 2), 1, **bad)]
    if set(bad) <= {"scoring", "min_length"}:
        entries.append(lambda: resolve_rules(None, **bad))
    messages = set()
    for entry in entries:
        with pytest.raises(BoggleError) as refused:
            entry()
        messages.add(str(refused.value))
    return messages


def test_every_entry_refuses_a_bad_rule_with_the_one_message(small_dict: str) -> None:
    assert _refusals(small_dict, scoring="golf") == {f"unknown scoring 'golf' (known: {', '.join(SCORINGS)})"}
    assert _refusals(small_dict, adjacency="queen") == {"unknown adjacency 'queen' (known: king, orthogonal)"}
    assert _refusals(small_dict, objective="fame") == {"unknown objective 'fame' (known: points, words)"}
    resolve_rules_and_prove = "the shortest word (`min_length`) must have at least 1 letter, not 0"
    best_too = "the shortest word (`min_length`) must be 1 to 1,024 letters, not 0"
    assert _refusals(small_dict, min_length=0) == {resolve_rules_and_prove, best_too}


def test_a_dice_file_refuses_an_unknown_scoring_through_the_same_check(tmp_path: Path) -> None:
    from boggle_dafsa.board.dice import load_dice
    from boggle_dafsa.errors import DiceError

    dice = tmp_path / "mine.txt"
    dice.write_text("title: mine\nscoring: golf\nABCDEF\n", encoding="utf-8")
    with pytest.raises(DiceError, match=re.escape(f"mine.txt:2: unknown scoring 'golf' (known: {', '.join(SCORINGS)})")):
        load_dice(str(dice))
