"""The docs and the code list the same things: a test fails when one changes without the other."""

from __future__ import annotations

import ast
import doctest
import importlib
import pydoc
import re
from pathlib import Path

import pytest

import boggle_dafsa

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(boggle_dafsa.__file__).resolve().parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _package_map() -> dict[str, str]:
    # The text that names the modules of each folder: its row of the package map's table,
    # and for the top of the package the paragraph after the table.
    section = ARCHITECTURE.read_text(encoding="utf-8").split("## Package map", 1)[1]
    rows = {match[1]: match[2] for match in re.finditer(r"^\| `([a-z_]+/)` \|(.*)$", section, re.MULTILINE)}
    rows[""] = section.split("Still at the top of the package", 1)[1].split("\n\n", 1)[0]
    return rows


def _modules() -> list[Path]:
    # Every Python module and C source or header of the package, built files aside.
    return sorted(
        path.relative_to(PACKAGE)
        for path in PACKAGE.rglob("*")
        if path.suffix in {".py", ".c", ".h"} and "__pycache__" not in path.parts
    )


def _only_a_docstring(module: Path) -> bool:
    # A package's __init__ that holds nothing but its docstring is its folder's row itself.
    if module.name != "__init__.py" or module.parent == Path("."):
        return False
    body = ast.parse((PACKAGE / module).read_text(encoding="utf-8")).body
    return len(body) == 1 and isinstance(body[0], ast.Expr)


#: What the formats row says of the modules of the formats themselves: the registry names them.
BY_THE_REGISTRY = "a module a format, named by its record in `registry`"


def _named_by_the_registry() -> set[Path]:
    # The modules of formats/ that hold a format's reader or writer, by their record (the
    # dotted paths of formats.registry.REGISTRY): the map names them through the registry.
    from boggle_dafsa.formats.registry import REGISTRY

    dotted = {name.partition(":")[0] for record in REGISTRY for name in (record.reader, record.writer)}
    paths = {Path(*name.split(".")[1:]).with_suffix(".py") for name in dotted}
    return {path for path in paths if path.parent == Path("formats")}


def test_the_package_map_names_every_module() -> None:
    rows = _package_map()
    assert BY_THE_REGISTRY in rows["formats/"]
    by_the_registry = _named_by_the_registry()
    assert {path.stem for path in by_the_registry} >= {"native", "marisa", "dawg"}
    missing = []
    for module in _modules():
        if _only_a_docstring(module) or module in by_the_registry:
            continue
        folder = "" if module.parent == Path(".") else module.parent.as_posix() + "/"
        names = {f"`{module.name}`", f"`{folder}{module.name}`"}
        if module.suffix == ".py":
            names.add(f"`{module.stem}`")
        if not any(name in rows.get(folder, "") for name in names):
            missing.append(module.as_posix())
    assert missing == [], f"docs/architecture.md's package map does not name: {', '.join(missing)}"


def test_the_map_checks_what_it_claims() -> None:
    # The test above reads every folder of the package and finds its row.
    folders = {module.parent.as_posix() + "/" for module in _modules() if module.parent != Path(".")}
    assert folders and folders <= set(_package_map())
    assert len(_modules()) > 90


# -- what help() shows --------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("module", ["boggle_dafsa", "boggle_dafsa.query"])
def test_the_examples_of_the_module_docstrings_run(module: str) -> None:
    # help(boggle_dafsa) and help(boggle_dafsa.query) open on an example: run as doctests,
    # so that a changed result (or a renamed call) fails here, not in a reader's hands.
    tests = doctest.DocTestFinder(recurse=False).find(importlib.import_module(module))
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted >= 4 and results.failed == 0


def test_help_lists_every_public_name() -> None:
    shown = pydoc.render_doc(boggle_dafsa, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
    docstring = boggle_dafsa.__doc__ or ""
    for name in boggle_dafsa.__all__:
        assert f"``{name}" in docstring, name  # the docstring says what each one is for
        if name != "__version__":
            assert re.search(rf"^    (class )?{name}\(", shown, re.MULTILINE), name  # and help() shows it
    assert set(boggle_dafsa.__all__) <= set(dir(boggle_dafsa))


# -- counts the docs state ----------------------------------------------------------------


def test_contributing_writes_down_no_test_count() -> None:
    # A count of tests is false after the next change: CONTRIBUTING.md gives the command.
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert not re.search(r"\b\d[\d,]* (tests|deselected)\b|\b\d[\d,]* \(\d[\d,]* deselected\)", text)


NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def test_the_web_pages_are_those_docs_web_lists() -> None:
    # Every page the server has (web/pages/*.html but the shared head) has its entry in
    # docs/web.md, and a count of pages, where the page states one, is theirs.
    text = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    pages = sorted(path.stem for path in (PACKAGE / "web" / "pages").glob("*.html") if path.stem != "page")
    assert pages
    for page in pages:
        assert re.search(rf"^- \*\*{page.capitalize()}\*\* \(`/", text, re.MULTILINE), page
    for word in re.findall(r"\b(\w+) pages\b", text, re.IGNORECASE):
        if word.lower() in NUMBERS:
            assert NUMBERS[word.lower()] == len(pages), f"docs/web.md says {word} pages; there are {len(pages)}"


def test_queries_md_describes_every_query_verb() -> None:
    # A verb of the library's table (its command made from it) has its bullet in docs/queries.md,
    # and docs/commands.md its row (tests/test_readme.py checks the row against the app).
    from boggle_dafsa.query import VERBS

    described = set(re.findall(r"^- \*\*`([a-z]+)\b|\*\*`([a-z]+)\b", (ROOT / "docs" / "queries.md").read_text("utf-8"), re.M))
    names = {name for pair in described for name in pair if name}
    assert [verb.name for verb in VERBS if verb.name not in names] == []
