"""The import graph: no cycle between the package's modules, and `solve` imports only what it needs.

Every import counts, those inside functions too: a cycle hidden by a late import is
still two modules that cannot be understood one without the other.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import boggle_dafsa
from helpers.dictionaries import dictionary_from_words

PACKAGE = Path(boggle_dafsa.__file__).resolve().parent


def module_names() -> dict[str, Path]:
    """Dotted name → file of every module of the package."""
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                # `from pkg import module` imports the module; `from module import name` the module.
                submodule = f"{origin}.{alias.name}"
                if submodule in known:
                    found.add(submodule)  # `from pkg import module`, a compiled one included
                else:
                    found.add(origin)  # `from pkg import NAME`: pkg's __init__ runs to give NAME
    return {module for module in found if module in known and module != name and not module.rpartition(".")[2].startswith("_")}


def extension_names() -> set[str]:
    """Dotted names of the compiled extensions (one per C source that is not a header)."""
    return {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) for path in PACKAGE.rglob("*.c")}


def import_graph() -> dict[str, set[str]]:
    names = module_names()
    # `from pkg import _ext` imports the extension module, not `pkg` (a name of pkg's).
    known = set(names) | extension_names()
    return {name: imports_of(name, path, known) for name, path in names.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.slow
def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    # rules imports dice inside resolve_rules only.
    assert "boggle_dafsa.board.dice" in graph["boggle_dafsa.board.rules"]
    assert "boggle_dafsa.formats" in graph["boggle_dafsa.dictionaries.build"]


@pytest.mark.slow
def test_the_package_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


@pytest.mark.slow
def test_the_layers() -> None:
    graph = import_graph()
    # Formats never import the build; scoring and dice never import the rules above them.
    assert not any(
        module.startswith("boggle_dafsa.formats") and "boggle_dafsa.dictionaries.build" in imports
        for module, imports in graph.items()
    )
    assert "boggle_dafsa.board.rules" not in graph["boggle_dafsa.board.scoring"] | graph["boggle_dafsa.board.dice"]
    # The library never imports its command line, nor writes to the terminal itself.
    # (`python -m boggle_dafsa` is the command line's other door.)
    library = [m for m in graph if not m.startswith(("boggle_dafsa.cli", "boggle_dafsa.web", "boggle_dafsa.__main__"))]
    assert not [m for m in library if any(i.startswith("boggle_dafsa.cli") for i in graph[m])]
    names = module_names()
    # The console loop is given its streams; only the command line touches sys.stdin/stdout.
    assert not [m for m in library if "sys.stdout" in names[m].read_text() or "sys.stdin" in names[m].read_text()]
    # typer's vendored click is reached from one module only.
    assert [m for m, path in names.items() if "typer._click" in path.read_text()] == ["boggle_dafsa.cli.compat"]


#: Where a run of the package begins: ``import boggle_dafsa``, ``python -m boggle_dafsa``, and
#: the console script (``[project.scripts]`` in pyproject.toml).
DOORS = ("boggle_dafsa", "boggle_dafsa.__main__", "boggle_dafsa.cli")
#: Modules only the tests may import: a package module that does is a test helper.
TEST_ONLY = ("pytest", "hypothesis", "playwright", "pexpect", "axe_playwright_python")
#: Library parts landed before their user, each with what brings the user: remove an entry
#: when that lands (an entry left here once its issue closes is dead code or a test helper).
AWAITING_A_USER: dict[str, str] = {}


def named_modules(path: Path, known: set[str]) -> set[str]:
    """The modules a file names in a string, imported later by name: ``"pkg.module"`` or
    ``"pkg.module:attribute"`` (the lazy public names, the format registry, the compiled parts)."""
    strings = (node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Constant))
    return {text.partition(":")[0] for text in strings if isinstance(text, str) and text.partition(":")[0] in known}


def reached(edges: dict[str, set[str]], doors: tuple[str, ...]) -> set[str]:
    """The modules a run can import from ``doors``, following ``edges`` and, since importing
    a module runs its packages' ``__init__`` first, every package above a module reached."""
    seen: set[str] = set()
    waiting = list(doors)
    while waiting:
        module = waiting.pop()
        if module in seen or module not in edges:
            continue
        seen.add(module)
        waiting.extend(edges[module])
        waiting.extend(module.rsplit(".", depth)[0] for depth in range(1, module.count(".") + 1))
    return seen


def test_the_reach_finds_a_module_nobody_imports() -> None:
    edges = {"p": {"p.a"}, "p.a": {"p.b.c"}, "p.b": set(), "p.b.c": set(), "p.helper": {"p.a"}}
    assert set(edges) - reached(edges, ("p",)) == {"p.helper"}


@pytest.mark.slow
def test_every_module_is_reached_from_a_door_so_the_wheel_holds_no_test_helper() -> None:
    # A module that no run of the package can import serves only the tests or the scripts:
    # its place is tests/helpers/, out of the wheel (issue 32: testing.py and web/harness.py
    # were two). Run against an installed wheel, this reads the wheel's own files.
    from boggle_dafsa.cli import VERBS

    names = module_names()
    known = set(names)
    edges = {name: imports | named_modules(names[name], known) for name, imports in import_graph().items()}
    # cli's main() imports the module of the verb it runs by its short name.
    edges["boggle_dafsa.cli"] |= {f"boggle_dafsa.cli.{module}" for module in VERBS.values()}
    assert sorted(known - reached(edges, DOORS) - set(AWAITING_A_USER)) == []
    # ... and the check sees one: a helper importing the library, imported by nothing.
    edges["boggle_dafsa.testing"] = {"boggle_dafsa.dictionaries.build"}
    assert "boggle_dafsa.testing" not in reached(edges, DOORS)
    # No module of the package imports what only the tests install.
    importers = {name for name, path in names.items() for other in TEST_ONLY if f"import {other}" in path.read_text()}
    importers |= {name for name, path in names.items() for other in TEST_ONLY if f"from {other}" in path.read_text()}
    assert sorted(importers) == []


#: What `solve GRID -q` on a native file must not import: other verbs and their command
#: modules, other formats, the writer, and what start-up time forbids (dataclasses cost a
#: millisecond or more each to create; tempfile, shlex and json are not needed to solve).
NOT_FOR_SOLVE = (
    "boggle_dafsa.dictionaries.build",
    "boggle_dafsa.automaton.builder",
    "boggle_dafsa.automaton.stream",
    "boggle_dafsa.formats.marisa",
    "boggle_dafsa.formats.dawg",
    "boggle_dafsa.game.rounds",
    "boggle_dafsa.board.dice",
    "boggle_dafsa.dictionaries.verify",
    "boggle_dafsa.automaton.dot",
    "boggle_dafsa.web",
    "boggle_dafsa.search.best",
    "boggle_dafsa.query",
    "boggle_dafsa.solver.parallel",
    "boggle_dafsa.solver.fastbatch",
    "boggle_dafsa.output.jsonable",
    "boggle_dafsa.solver.generic",
    "boggle_dafsa.words.wordlist",
    "boggle_dafsa.cli.best",
    "boggle_dafsa.cli.find",
    "boggle_dafsa.cli.dictionary",
    "boggle_dafsa.cli.game",
    "boggle_dafsa.cli.query",
    "boggle_dafsa.cli.serve",
    "marisa_trie",
    "fastapi",
    "rich",
    "prompt_toolkit",
    "dask",
    "dataclasses",
    "tempfile",
    "shlex",
    "json",
    # A shared library to load, needed only to write a file (or read one on a big-endian host).
    "array",
)


def modules_after(code: str) -> tuple[list[str], str]:
    """The modules a fresh interpreter has imported after running ``code``, and its output."""
    probe = f"{code}\nimport sys\nprint(repr(sorted(sys.modules)), file=sys.stderr)\n"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return list(ast.literal_eval(run.stderr.strip().splitlines()[-1])), run.stdout


def solve_code(tmp_path: Path) -> str:
    """Python code that runs `boggle-dafsa solve GRID -q` (on a small dictionary) and goes on."""
    dictionary = dictionary_from_words(["pers", "late", "sine", "slate"], tmp_path)
    return (
        "import sys\n"
        "from boggle_dafsa.cli import main\n"
        f"sys.argv = ['boggle-dafsa', 'solve', 'PERS/LATE/SIND', '-q', '-d', {str(dictionary.path)!r}]\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert done.code in (0, None), done.code\n"
    )


@pytest.mark.slow
def test_solve_imports_only_what_it_needs(tmp_path: Path) -> None:
    modules, output = modules_after(solve_code(tmp_path))
    assert "SLATE" in output
    assert "boggle_dafsa.solver" in modules
    # What typer itself imports (or the interpreter's site) is not ours to avoid.
    typer_alone = set(modules_after("import typer")[0])
    assert [m for m in modules if m.startswith(NOT_FOR_SOLVE) and m not in typer_alone] == []


#: What `solve --batch FILE --summary` must not import either: it reads bytes as word lists
#: are read (:mod:`boggle_dafsa.words.decoding`), not the word-list parser and its dataclasses,
#: and draws no bar for a pipe.
NOT_FOR_BATCH = ("boggle_dafsa.words.wordlist", "dataclasses", "string", "boggle_dafsa.cli.progress")


@pytest.mark.slow
def test_a_batch_summary_imports_only_what_it_needs(tmp_path: Path) -> None:
    batch = tmp_path / "grids.txt"
    batch.write_text("PERS/LATE/SIND\nSLAT\n", encoding="utf-8")
    code = solve_code(tmp_path).replace("'PERS/LATE/SIND', '-q'", f"'--batch', {str(batch)!r}, '--summary'")
    modules, output = modules_after(code)
    rows = [line.split("\t") for line in output.splitlines()]
    assert [row[0] for row in rows] == ["PERS/LATE/SIND", "SL/AT"] and int(rows[0][1]) > 0, output
    typer_alone = set(modules_after("import typer")[0])
    forbidden = tuple(m for m in NOT_FOR_SOLVE if m != "boggle_dafsa.solver.fastbatch") + NOT_FOR_BATCH
    assert [m for m in modules if m.startswith(forbidden) and m not in typer_alone] == []


#: Prints the named tuple classes our modules define, once `solve` has run: typing.NamedTuple
#: builds each with exec and compiles its string annotations (0.3-0.8 ms a class at start-up).
NAMED_TUPLES_PROBE = (
    "print(repr(sorted(f'{m.__name__}.{name}' for m in list(sys.modules.values()) if m.__name__.startswith('boggle_dafsa')"
    " for name, value in vars(m).items() if isinstance(value, type) and hasattr(value, '_fields')"
    " and value.__module__ == m.__name__)))\n"
)


@pytest.mark.slow
def test_solve_creates_no_named_tuple_class(tmp_path: Path) -> None:
    _, output = modules_after(solve_code(tmp_path) + NAMED_TUPLES_PROBE)
    assert "SLATE" in output
    assert output.strip().splitlines()[-1] == "[]"
    # The probe sees one when there is one.
    _, output = modules_after("import sys, boggle_dafsa.cli.solve, boggle_dafsa.query\n" + NAMED_TUPLES_PROBE)
    assert output.strip().splitlines()[-1] != "[]"


@pytest.mark.slow
def test_the_import_check_sees_a_forbidden_module() -> None:
    # The check above can fail: a run that imports a listed module is caught.
    modules, _ = modules_after("import boggle_dafsa.cli.solve, tempfile")
    assert "tempfile" in [m for m in modules if m.startswith(NOT_FOR_SOLVE)]


@pytest.mark.slow
def test_the_command_line_freezes_its_imports_and_still_collects_new_cycles(tmp_path: Path) -> None:
    # main() moves what typer's import made out of the collector's sight (start-up time);
    # importing the app does not; the collector stays on, and a later cycle is still collected.
    code = (
        "import gc, weakref\n"
        "before = gc.get_freeze_count()\n"
        "import boggle_dafsa.cli\n"
        "assert gc.get_freeze_count() == before\n" + solve_code(tmp_path) + "class Node:\n    pass\n"
        "a, b = Node(), Node()\na.other, b.other = b, a\ngone = weakref.ref(a)\ndel a, b\n"
        "gc.collect()\n"
        "print(before, gc.get_freeze_count() > before, gc.isenabled(), gone() is None)\n"
    )
    _, output = modules_after(code)
    assert "SLATE" in output
    assert output.strip().splitlines()[-1].split() == ["0", "True", "True", "True"]
