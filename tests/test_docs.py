"""The docs and the code list the same things: a test fails when one changes without the other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

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


def test_the_package_map_names_every_module() -> None:
    rows = _package_map()
    missing = []
    for module in _modules():
        if _only_a_docstring(module):
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
