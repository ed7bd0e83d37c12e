"""The suite's warm command runner (tests/helpers/warm.py) gives what a fresh interpreter gives."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from helpers import warm

CASES = [
    (["--version"], None, {}),
    (["solve", "ABCD/EFGH/IJKL/MNOP", "--json"], None, {}),
    (["solve", "--no-such-flag"], None, {}),  # a usage error: exit 2, one line
    (["lookup", "-d", "missing.dafsa", "chat"], None, {}),  # an input error, relative to the folder
    (["build", "-", "-o", "words.dafsa", "--policy", "raw", "-q"], "chat\nchien\nniche\n", {}),  # standard input (no timings)
    (["match", "CH*"], None, {"BOGGLE_DAFSA_DICT": "fr"}),  # the environment
    (["match", "CH*", "-d", "none"], None, {"NO_COLOR": "1", "COLUMNS": "40"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("args, given, environment", CASES)
def test_a_forked_command_is_the_fresh_one(
    tmp_path: Path, args: list[str], given: str | None, environment: dict[str, str]
) -> None:
    env = {**os.environ, **environment}
    (tmp_path / "warm").mkdir()
    (tmp_path / "fresh").mkdir()
    forked = warm.run_command(args, input=given, cwd=tmp_path / "warm", env=env, timeout=60)
    fresh = warm._fresh([*warm.PROGRAM, *args], input=given, cwd=tmp_path / "fresh", env=env, timeout=60, limits=())
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert sorted(path.name for path in (tmp_path / "warm").iterdir()) == sorted(
        path.name for path in (tmp_path / "fresh").iterdir()
    )
    if "-o" in args:
        assert (tmp_path / "warm" / "words.dafsa").read_bytes() == (tmp_path / "fresh" / "words.dafsa").read_bytes()


@pytest.mark.slow
def test_a_forked_command_past_its_time_is_killed_as_subprocess_run_does(tmp_path: Path) -> None:
    # a hundred thousand climbs on 5x5: hours of work, stopped after a second
    with pytest.raises(subprocess.TimeoutExpired):
        warm.run_command(["best", "-s", "5x5", "--runs", "100000"], cwd=tmp_path, timeout=1)
    assert warm.run_command(["--version"], timeout=60).returncode == 0  # the server goes on


def test_limits_are_set_in_the_forked_command(tmp_path: Path) -> None:
    # a 1 MiB address space: not even the interpreter's heap fits, the command fails
    result = warm.run_command(
        ["solve", "ABCD/EFGH/IJKL/MNOP"], cwd=tmp_path, timeout=60, limits=[("RLIMIT_AS", 1 << 20, 1 << 20)]
    )
    assert result.returncode != 0
    assert warm.run_command(["solve", "ABCD/EFGH/IJKL/MNOP"], cwd=tmp_path, timeout=60).returncode == 0


def test_a_different_start_up_environment_runs_fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    original = warm._fresh

    def spy(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        return original(command, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(warm, "_fresh", spy)
    # This process's own start-up variables changed since its server started (a test did
    # it): the server starts again from them, and its commands are forked again.
    monkeypatch.setenv("PYTHONHASHSEED", "3")
    same = warm.run_command(["--version"], timeout=60)
    hashed = warm.run_command(["--version"], env={**os.environ, "PYTHONHASHSEED": "7"}, timeout=60)
    assert same.stdout == hashed.stdout and len(calls) == 1
