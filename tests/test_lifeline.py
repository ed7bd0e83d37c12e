"""Workers die with their parent (issue 35): `prove --jobs` and `best --jobs` killed however
(SIGKILL, SIGTERM) leave no process working on, even one inside a class or a run.

Real processes: the command is started as a user starts it, its workers are found once they
are working, the parent is killed, and its workers must be gone within 3 s."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from boggle_dafsa.search import lifeline

PROGRAM = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads the process table as Linux keeps it")


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def _kill_when_working(
    args: list[str],
    how: signal.Signals,
    cpu: float,
    *,
    group: bool = False,
    folder: Path | None = None,
    workers_wanted: int = 2,
    status: list[int] | None = None,
) -> tuple[list[int], float]:
    """Start ``args`` (``workers_wanted`` processes), wait until every worker has spent ``cpu``
    CPU-s (so they are inside a class or a run), send ``how`` to the parent (to its whole
    process group with ``group``, as a terminal's Ctrl-C does); the ids of every process
    under it and how long they outlived it (or, with ``group``, how long the command took to
    exit). ``status`` receives the parent's exit status (negative: the signal that ended it)."""
    env = None if folder is None else {**os.environ, "TMPDIR": str(folder)}
    process = subprocess.Popen(
        [*PROGRAM, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=folder, env=env, start_new_session=group
    )
    pids: list[int] = []
    try:
        parent = psutil.Process(process.pid)
        deadline = time.monotonic() + 120
        workers: list[psutil.Process] = []
        while time.monotonic() < deadline:
            try:
                # forked workers have their parent's command line; the writers' reaper (a
                # first use compiles the list into the cache) has its own
                workers = [child for child in parent.children(recursive=True) if child.cmdline() == process.args]
                if len(workers) >= workers_wanted and all(sum(worker.cpu_times()[:2]) >= cpu for worker in workers):
                    break
            except psutil.NoSuchProcess:
                pass
            time.sleep(0.2)
        else:
            pytest.fail(f"the workers never worked {cpu} CPU-s")
        assert process.poll() is None, "the command ended before it was killed"
        pids[:] = [worker.pid for worker in workers]
        pids += [child.pid for child in parent.children(recursive=True) if child.pid not in pids]
        sent = time.monotonic()
        if group:
            os.killpg(process.pid, how)
        else:
            process.send_signal(how)
        process.wait(timeout=30)
        if status is not None:
            status.append(process.returncode)
        killed = sent if group else time.monotonic()
        while _alive(pids) and time.monotonic() - killed < 30:
            time.sleep(0.05)
        return pids, time.monotonic() - killed
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _alive(pids):  # a test that fails leaves no worker behind
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_prove_workers_die_with_their_parent(how: signal.Signals) -> None:
    # ENABLE2K 3x4 classes take 1 to 12 s each here (the context, the trie, about 8 s
    # first): past 6 CPU-s, each worker is inside a class, which it used to finish.
    args = ["prove", "-d", "enable2k", "-s", "3x4", "--min", "1500", "--jobs", "2"]
    pids, outlived = _kill_when_working(args, how, cpu=6.0)
    assert _alive(pids) == [], f"workers left {outlived:.1f} s after {how.name} on their parent"
    print(f"{how.name}: the workers outlived their parent by {outlived:.2f} s")
    assert outlived < 3


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_term_or_hup_on_prove_jobs_3_leaves_no_process_after_a_second(how: signal.Signals, tmp_path: Path) -> None:
    # kill -TERM (a scheduler, a container stopped) or -HUP (a closed terminal) on the parent
    # of `prove --jobs 3` while its three workers prove ENABLE2K 3x3 classes (0.2 to 2 CPU-s
    # each, after a context of 2-3 CPU-s): the parent ends as the signal's default says (a
    # shell reports 143 or 129), every process under it is gone within a second, and the
    # log is whole (each line a class) for --resume.
    args = ["prove", "-d", "enable2k", "-s", "3x3", "--min", "500", "--jobs", "3", "--log", str(tmp_path / "p.ndjson")]
    status: list[int] = []
    pids, outlived = _kill_when_working(args, how, cpu=4.0, workers_wanted=3, status=status)
    print(f"{how.name}: {len(pids)} processes under prove --jobs 3 outlived it by {outlived:.2f} s")
    assert _alive(pids) == [] and len(pids) >= 3
    assert outlived < 1
    assert status == [-how] and 128 + how in (143, 129)  # what a shell reports for a process a signal ended
    for line in (tmp_path / "p.ndjson").read_text().splitlines():
        json.loads(line)


@pytest.mark.slow
def test_one_ctrl_c_stops_prove_and_its_workers_at_once(tmp_path: Path) -> None:
    # Ctrl-C reaches the whole process group; the proof stops within a second or two (0.4 s
    # measured, load 8), no worker left, no file but the log and the cache (TMPDIR is this folder).
    args = ["prove", "-d", "enable2k", "-s", "3x4", "--min", "1500", "--jobs", "2", "--log", "p.ndjson"]
    pids, took = _kill_when_working(args, signal.SIGINT, cpu=6.0, group=True, folder=tmp_path)
    print(f"Ctrl-C: the proof and its workers stopped in {took:.2f} s")
    assert _alive(pids) == []
    assert took < 2
    # the fallback cache folder (folders.fallback_cache_dir: kept by design) aside
    cache = tmp_path / f"boggle-dafsa-{os.getuid()}"
    assert sorted(entry.name for entry in tmp_path.iterdir() if entry != cache) == ["p.ndjson"]
    assert [entry for entry in cache.rglob("*") if "tmp" in entry.name.lower()] == []


@pytest.mark.slow
def test_best_workers_die_with_their_parent() -> None:
    # Annealing runs of ten million steps: minutes each, which they used to finish.
    args = ["best", "-d", "enable2k", "-s", "4x4", "--seed", "1", "-n", "4", "--jobs", "2"]
    args += ["--method", "anneal", "--steps", "10000000"]
    pids, outlived = _kill_when_working(args, signal.SIGKILL, cpu=2.0)
    assert _alive(pids) == [], f"workers left {outlived:.1f} s after SIGKILL on their parent"
    print(f"the workers outlived their parent by {outlived:.2f} s")
    assert outlived < 3


def test_a_child_that_follows_its_parent_dies_with_it() -> None:
    # The lifeline alone: a child ties itself to its parent (an intermediate process), which
    # is then killed with SIGKILL while the child sleeps in a busy loop holding the GIL.
    script = (
        "import os, sys, time\n"
        "from boggle_dafsa.search.lifeline import follow_parent\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    follow_parent(parent)\n"
        "    sys.stdout.write(f'{os.getpid()}\\n'); sys.stdout.flush()\n"
        "    while True:\n"
        "        pass\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        child = int(process.stdout.readline())
        process.kill()
        process.wait()
        deadline = time.monotonic() + 3
        while _alive([child]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _alive([child]) == []
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_death_signal_is_asked_of_the_kernel_on_linux() -> None:
    assert lifeline.death_signal(0) is True  # 0: none (the default), asked for and granted
    assert os.getppid() > 0
