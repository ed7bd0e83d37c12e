"""Types and lint as tests, so that a merge that breaks them fails here rather than in CI.

Skipped (saying so) where the ``[lint]`` extra is not installed; ``.ci/run`` installs it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_tool(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *arguments], cwd=ROOT, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (pip install -e '.[lint]')")
def test_mypy_reports_no_issue() -> None:
    run = run_tool("mypy")  # configured in pyproject.toml: the whole package
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed (pip install -e '.[lint]')")
def test_ruff_finds_nothing() -> None:
    # The rules of pyproject.toml: syntax errors, pyflakes (undefined and unused names), import order.
    run = run_tool("ruff", "check", "src", "tests", "scripts")
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed (pip install -e '.[lint]')")
def test_ruff_format_changes_nothing() -> None:
    # One layout for every file, so that a diff shows what changed and nothing else:
    # `ruff format src tests scripts` before committing.
    run = run_tool("ruff", "format", "--check", "src", "tests", "scripts")
    assert run.returncode == 0, run.stdout + run.stderr
