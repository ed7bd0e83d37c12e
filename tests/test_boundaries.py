"""What the library leaves to its layers: it names no command-line flag (the command line
writes its options in place of the parameters the library names), and every text it prints
is written from output/."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import boggle_dafsa
from boggle_dafsa.cli.common import OPTIONS, user_message

PACKAGE = Path(boggle_dafsa.__file__).resolve().parent
ROOT = PACKAGE.parent.parent
#: A command-line flag at the start of a string or after a space, quote or bracket.
FLAG = re.compile(r"(?:^|[\s\"'(\[`])--[a-z][a-z-]*")
#: Where a flag may be written: the command line and the web (the layers themselves), and
#: output/, which writes the command line's texts, among them commands to run again
#: (``boggle-dafsa generate --dice fr --seed 7``, a best board's ``solve ... --totals``).
LAYERS = ("cli/", "web/", "output/", "__main__.py")


@functools.lru_cache(maxsize=None)
def _messages(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings (f-strings' literal parts
    included): what it may say to a user. Parsed only if its text holds a flag anywhere."""
    text = path.read_text(encoding="utf-8")
    if not FLAG.search(text):
        return []
    tree = ast.parse(text)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def _flags_in(paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(PACKAGE).as_posix()}:{line}: {text.strip()[:80]!r}"
        for path in paths
        for line, text in _messages(path)
        if FLAG.search(text)
    ]


def _library() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if not p.relative_to(PACKAGE).as_posix().startswith(LAYERS))


def test_search_names_no_command_line_flag() -> None:
    # Its messages name parameters in backquotes (`min_length`); cli/common.OPTIONS writes
    # the option in their place.
    search = sorted((PACKAGE / "search").glob("*.py"))
    assert len(search) > 3 and _flags_in(search) == []


@pytest.mark.slow
def test_the_library_names_no_command_line_flag() -> None:
    # The same, in every module of the library (half a second of parsing).
    assert _flags_in(_library()) == []


def test_the_check_sees_a_flag() -> None:
    # The check above can fail: a flag in a message is found, a docstring's is not.
    assert _flags_in([PACKAGE / "cli" / "prove.py"]) != []
    assert FLAG.search("start over with --log in a new file") and FLAG.search("(--min-length)")
    assert not FLAG.search("a-b--c") and not FLAG.search("-- a comment")


def test_the_command_line_writes_its_options_for_the_parameters() -> None:
    # Every option the map writes is one the commands have (docs/commands.md lists every
    # option of every command: tests/test_readme.py), and a message reads as before.
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert all(re.search(rf"{re.escape(option)}\b", commands) for option in OPTIONS.values())
    assert user_message("the minimum (`minimum`) must be at least 1, not 0") == "the minimum (--min) must be at least 1, not 0"
    assert user_message("`jobs` and `dask` exclude each other") == "--jobs and --dask exclude each other"
    assert user_message("`node_budget` stays") == "`node_budget` stays"  # a parameter without an option
