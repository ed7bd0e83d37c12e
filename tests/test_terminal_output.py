"""What a terminal shows: solve --json on one line (--pretty indents), best's time left."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.cli.progress import SearchBar, eta_seconds, format_eta
from boggle_dafsa.search import best as S
from helpers.dictionaries import dictionary_from_words

WORDS = ["cat", "act", "tac", "cats", "scat", "taco", "coat", "coats", "ascot", "stoa", "oats", "oast", "tacos"]


@pytest.fixture(scope="module")
def small_dict(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(dictionary_from_words(WORDS, tmp_path_factory.mktemp("terminal")).path)


@pytest.mark.slow
def test_solve_json_is_one_line_and_pretty_indents(small_dict: str) -> None:
    from conftest import run_cli

    compact = run_cli("solve", "COAT/STAC", "-d", small_dict, "--json")
    pretty = run_cli("solve", "COAT/STAC", "-d", small_dict, "--pretty")
    both = run_cli("solve", "COAT/STAC", "-d", small_dict, "--json", "--pretty")
    assert compact.returncode == pretty.returncode == 0, compact.stderr + pretty.stderr
    assert len(compact.stdout.splitlines()) == 1 and ", " not in compact.stdout
    data = json.loads(compact.stdout)
    assert len(data["words"]) > 3 and json.loads(pretty.stdout) == data
    assert pretty.stdout == both.stdout == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    refused = run_cli("solve", "--batch", "-", "-d", small_dict, "--pretty", input="COAT/STAC\n")
    assert refused.returncode == 2 and "--pretty" in refused.stderr and len(refused.stderr.splitlines()) == 1


@given(to_do=st.integers(1, 50), boards=st.integers(1, 10**6), rate=st.floats(1, 1e6), data=st.data())
@pytest.mark.slow
def test_the_eta_of_runs_of_equal_work_is_exact(to_do: int, boards: int, rate: float, data: st.DataObject) -> None:
    finished = data.draw(st.integers(0, to_do))
    under_way = data.draw(st.integers(0, boards * max(to_do - finished - 1, 0)))
    eta = eta_seconds(to_do, finished, finished * boards, under_way, rate)
    if finished == to_do:
        assert eta == 0
    elif finished == 0:
        assert eta is None
    else:
        assert eta == pytest.approx((boards * (to_do - finished) - under_way) / rate)


def test_eta_format() -> None:
    assert [format_eta(s) for s in (None, 0, 59.6, 61, 3_725)] == ["ETA ?", "ETA 0:00", "ETA 1:00", "ETA 1:01", "ETA 1:02:05"]


def test_the_progress_line_shows_the_time_left() -> None:
    progress = SearchBar(total=3, done=1)  # a resumed search: two runs to do
    task = progress.bar.task
    progress.during(1, 500, 40)
    assert task.fields["status"].endswith("ETA ?")
    progress.update(S.RunResult(1, 9, (S.Found(("A",), 60, 1, 60),), 1_000, 1.0))
    assert "ETA ?" not in task.fields["status"] and "ETA 0:" in task.fields["status"]


@pytest.mark.slow
def test_best_on_a_terminal_shows_an_eta(small_dict: str, tmp_path: Path) -> None:
    # A real pseudo-terminal: the bar is drawn only when standard error is one.
    main, secondary = pty.openpty()
    command = [
        sys.executable,
        "-c",
        "from boggle_dafsa.cli import main; main()",
        "best",
        "-d",
        small_dict,
        "-s",
        "3x3",
        "--seed",
        "5",
        "--runs",
        "40",
        "--pool",
        "6",
    ]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=secondary,
        env={**os.environ, "COLUMNS": "160", "TERM": "xterm"},
    )
    os.close(secondary)
    seen = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:
                    break  # the command ended: the terminal is closed
                if not chunk:
                    break
                seen += chunk
            elif process.poll() is not None:
                break
    finally:
        process.wait(timeout=60)
        os.close(main)
    assert process.returncode == 0
    # Once a run has finished, the time left is a number.
    assert b"boards/s" in seen and re.search(rb"ETA \d+:\d\d", seen), seen[-500:]
