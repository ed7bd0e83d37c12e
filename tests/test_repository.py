"""The repository's own hygiene: what git ignores (the folders CI and the docs create)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git clone (an sdist, or no git)"
)


@needs_git
@pytest.mark.parametrize("folder", [".venv", ".venv-pure", ".venv-wheel", ".venv311"])
def test_the_virtual_environments_ci_makes_are_ignored(folder: str) -> None:
    # .ci/run makes .venv-pure (no compiler) and .venv-wheel (the wheel) beside .venv: a
    # `git status` after CI must not list thousands of their files.
    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--quiet", "--no-index", f"{folder}/bin/python"], timeout=60
    )
    assert ignored.returncode == 0, f"{folder}/ is not ignored by .gitignore"
