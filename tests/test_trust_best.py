"""``best`` and ``solve --batch --jobs`` against hostile numbers and files, and one Ctrl-C.

Every number and file a user gives ``best`` is bounded (a log of /dev/zero, a log line of
megabytes, a billion runs, a pool of a hundred million boards...): one line, exit 2, at
once. One Ctrl-C at a terminal stops ``best --jobs 2`` and ``solve --batch --jobs 2``
(their worker processes included) within seconds: exit 130, "interrupted", no traceback,
no process left behind. Driven through a real pseudo-terminal (pexpect), as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import psutil
import pytest

from boggle_dafsa.formats import write_dictionary
from helpers.warm import run_command

#: Each test runs the command in processes of its own: the slow subset.
pytestmark = pytest.mark.slow

MEMORY = 1536 << 20
PROGRAM = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


def run(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """A command in a process of its own (forked warm: tests/helpers/warm.py), its address space bounded."""
    return run_command(args, cwd=folder, timeout=120, limits=[("RLIMIT_AS", MEMORY, MEMORY)])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("best")
    write_dictionary(["AB", "ABA", "ABBA", "BA", "BAB", "BABA"], folder / "small.dafsa", "native")
    (folder / "long-line.ndjson").write_bytes(b"{" + b" " * (3 << 20) + b"}\n")
    (folder / "bad-run.ndjson").write_text('{"run": 100000000}\n{"x": 1}\n')
    return folder


BAD = {
    "resume from /dev/zero": ["--resume", "/dev/zero"],
    "resume from a 3 MB line": ["--resume", "long-line.ndjson"],
    "a billion runs": ["-n", "1000000000", "--steps", "1"],
    "a pool of 10**8 boards": ["--pool", "100000000"],
    "a shortest word of 99,999 letters": ["-m", "99999"],
    "10**12 annealing steps": ["--method", "anneal", "--steps", "1000000000000"],
    "a stall of 10**12": ["--method", "anneal", "--stall", "1000000000000"],
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_number_and_file_best_takes_is_bounded(folder: Path, name: str) -> None:
    result = run(["best", "-d", "small.dafsa", "-s", "3x3", "--seed", "1", *BAD[name]], folder)
    where = f"{name}: {result.stderr[-1500:]}"
    assert result.returncode == 2 and "Traceback" not in result.stderr, where
    lines = [line for line in result.stderr.splitlines() if not line.startswith("seed:")]
    assert len(lines) == 1 and lines[0].startswith("boggle-dafsa: "), where


def test_best_resume_reads_its_own_log(folder: Path) -> None:
    log = folder / "search.ndjson"
    first = run(["best", "-d", "small.dafsa", "-s", "3x3", "--seed", "7", "-n", "2", "--log", str(log), "--json"], folder)
    assert first.returncode == 0, first.stderr
    again = run(["best", "-d", "small.dafsa", "-s", "3x3", "--seed", "7", "-n", "2", "--resume", str(log), "--json"], folder)
    assert again.returncode == 0, again.stderr
    # The same boards (the runs read back from the log), whatever the timings say.
    boards = [{k: v for k, v in board.items() if k != "seconds"} for board in json.loads(first.stdout)["best"]]
    assert [{k: v for k, v in board.items() if k != "seconds"} for board in json.loads(again.stdout)["best"]] == boards
    assert len(log.read_text().splitlines()) == 2  # nothing run twice


def _interrupt_once(args: list[str], folder: Path, env: dict[str, str], ready: float) -> tuple[int, str, float, list[int]]:
    """Start ``args`` on a pseudo-terminal, let it work ``ready`` seconds, press Ctrl-C once.

    Returns (exit status, everything it printed, seconds from Ctrl-C to exit, pids of
    its descendants seen before the press)."""
    child = pexpect.spawn(
        PROGRAM[0], [*PROGRAM[1:], *args], cwd=str(folder), env=env, timeout=60, encoding="utf-8", dimensions=(40, 200)
    )
    try:
        deadline = time.monotonic() + 30
        workers: list[int] = []
        while time.monotonic() < deadline:
            try:
                child.expect(pexpect.TIMEOUT, timeout=0.2)
            except pexpect.EOF:
                break
            workers = [p.pid for p in psutil.Process(child.pid).children(recursive=True)]
            if workers and time.monotonic() > deadline - 30 + ready:
                break
        assert child.isalive(), child.before
        pressed = time.monotonic()
        child.sendintr()
        child.expect(pexpect.EOF, timeout=30)
        stopped = time.monotonic() - pressed
        child.close()
        return child.exitstatus if child.exitstatus is not None else -child.signalstatus, child.before or "", stopped, workers
    finally:
        if child.isalive():
            child.terminate(force=True)


def _assert_stopped_cleanly(status: int, output: str, stopped: float, workers: list[int]) -> None:
    assert status == 130, output[-2000:]
    assert "Traceback" not in output and "boggle-dafsa: interrupted" in output, output[-2000:]
    assert workers, "the command never started its worker processes"
    time.sleep(0.5)
    alive = [pid for pid in workers if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert alive == [], f"worker processes left behind: {alive}"
    print(f"stopped {stopped:.2f} s after Ctrl-C")
    assert stopped < 10


def test_one_ctrl_c_stops_best_with_its_workers(folder: Path) -> None:
    env = {**os.environ, "TERM": "dumb"}
    args = [
        "best",
        "-d",
        "enable2k",
        "-s",
        "4x4",
        "--seed",
        "1",
        "-n",
        "50",
        "--jobs",
        "2",
        "--method",
        "anneal",
        "--steps",
        "10000000",
    ]
    _assert_stopped_cleanly(*_interrupt_once(args, folder, env, ready=2.0))


def test_one_ctrl_c_stops_a_batch_on_processes(folder: Path) -> None:
    # The Python kernel runs a batch over processes (the compiled one over threads).
    grids = folder / "grids.txt"
    grids.write_text("".join(f"{'ABCDEFGHIJKLMNOP'[i % 16 :] + 'ABCDEFGHIJKLMNOP'[: i % 16]}\n" for i in range(200_000)))
    env = {**os.environ, "TERM": "dumb", "BOGGLE_DAFSA_PURE": "1"}
    args = ["solve", "--batch", str(grids), "-d", "enable2k", "--jobs", "2", "--summary"]
    _assert_stopped_cleanly(*_interrupt_once(args, folder, env, ready=2.0))
