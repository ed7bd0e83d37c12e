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
#: The checkout (its docs): beside the tests, wherever the package is installed from.
ROOT = Path(__file__).resolve().parent.parent
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


# -- one writer per output ------------------------------------------------------------------

#: Every command module: what a command prints on standard output (solver results, proofs,
#: query answers, the quiz's and the game's texts) comes from output/ (render, rows, batch,
#: proof, queries, study, jsonable).
WRITERS = tuple(sorted(path.name for path in (PACKAGE / "cli").glob("*.py")))


def _formats_text(node: ast.AST) -> bool:
    # An f-string, a %-format or a .format() call anywhere inside: text composed here.
    return any(
        isinstance(inner, ast.JoinedStr)
        or (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mod) and isinstance(inner.left, ast.Constant))
        or (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "format")
        for inner in ast.walk(node)
    )


def _to_stdout(call: ast.Call) -> bool:
    # typer.echo(...) without err=True, print(...) without a file or to sys.stdout, and
    # out.write / sys.stdout.write (out: the commands' name for sys.stdout).
    name = ast.unparse(call.func)
    keywords = {keyword.arg: ast.unparse(keyword.value) for keyword in call.keywords}
    if name == "typer.echo":
        return keywords.get("err") != "True"
    if name == "print":
        return keywords.get("file", "sys.stdout") == "sys.stdout"
    return name in ("out.write", "sys.stdout.write", "sys.stdout.buffer.write")


def _composed_on_stdout(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}: {ast.unparse(node)[:90]}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _to_stdout(node) and any(_formats_text(argument) for argument in node.args)
    ]


def test_the_commands_print_what_output_writes() -> None:
    assert len(WRITERS) > 10 and "prove.py" in WRITERS
    assert [line for name in WRITERS for line in _composed_on_stdout(PACKAGE / "cli" / name)] == []


#: Files, not output: formats written beside their readers, as the search logs are.
FILE_FORMATS = {"study/expected.py": "the expected-points tables (data/expected/), read back by the same module"}


def test_no_row_is_formatted_outside_output() -> None:
    # Rows and summary lines are tab-separated (GRID<TAB>words<TAB>points, DISTANCE<TAB>WORD,
    # front<TAB>C<TAB>CWORD...): an f-string with a tab is one, and belongs in output/.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).as_posix().startswith("output/") or path.relative_to(PACKAGE).as_posix() in FILE_FORMATS:
            continue
        text = path.read_text(encoding="utf-8")
        if "\\t" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.JoinedStr) and any(
                isinstance(part, ast.Constant) and "\t" in str(part.value) for part in node.values
            ):
                found.append(f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert found == []


def test_the_checks_see_text_composed_in_a_command() -> None:
    # The checks above can fail: a printed f-string, and a tab-separated one, are seen.
    sample = ast.parse('typer.echo(f"{a}\\t{b}")\nprint(x, file=sys.stderr)\nout.write(line + "\\n")').body
    calls = [statement.value for statement in sample if isinstance(statement, ast.Expr)]
    assert [_to_stdout(call) and any(_formats_text(a) for a in call.args) for call in calls] == [True, False, False]


def test_one_module_draws_the_progress_bars() -> None:
    importers = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if re.search(r"^\s*(from rich|import rich)", path.read_text(encoding="utf-8"), re.MULTILINE)
    )
    assert importers == ["cli/progress.py"]
