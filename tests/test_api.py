"""The top-level names: imported on first use, typed for the checker, the same objects as their modules'."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import boggle_dafsa

INIT = Path(boggle_dafsa.__file__)


def _checked_names() -> dict[str, str]:
    """Name -> module of the imports under ``if TYPE_CHECKING:`` in __init__.py."""
    names = {}
    for node in ast.walk(ast.parse(INIT.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                names.update({alias.name: statement.module or "" for alias in statement.names})
    return names


def test_every_lazy_name_is_typed_and_exported() -> None:
    lazy = boggle_dafsa._LAZY
    assert _checked_names() == lazy
    assert sorted(boggle_dafsa.__all__) == sorted([*lazy, "__version__"])


@pytest.mark.parametrize("name", sorted(boggle_dafsa._LAZY))
def test_a_lazy_name_is_its_modules_object(name: str) -> None:
    assert getattr(boggle_dafsa, name) is getattr(importlib.import_module(boggle_dafsa._LAZY[name]), name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        boggle_dafsa.nothing  # noqa: B018


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (pip install -e '.[lint]')")
def test_the_type_checker_sees_real_types(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import boggle_dafsa\nfrom boggle_dafsa import Grid, open_dictionary\n"
        "reveal_type(boggle_dafsa.open_dictionary)\nreveal_type(open_dictionary)\nreveal_type(Grid)\nreveal_type(boggle_dafsa.solve)\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(probe)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    revealed = [line for line in run.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 4, run.stdout + run.stderr
    assert all("Any" not in line.split("Revealed type is", 1)[1].split("->")[0].split("(")[0] for line in revealed), revealed
    assert "def (spec: " in revealed[0] and "Grid" in revealed[2] and "Hit" in revealed[3], revealed
