#!/usr/bin/env python3
"""Memory and time of ``boggle-dafsa solve --batch`` with 1 and with N processes.

A file of ``--grids`` French grids (rolled with the 16 French dice, fixed seed) is solved
by ``boggle-dafsa solve --batch FILE -d fr --jobs J`` for each J of ``--jobs``. While it
runs, the whole process tree (the parent and its workers) is sampled from /proc every
few milliseconds:

* RSS (VmRSS): resident memory, counting shared pages once per process;
* PSS (smaps_rollup): shared pages divided among the processes that map them, so that
  the sum over processes is the memory really used;
* the dictionary file's own mapping (from /proc/PID/smaps): its resident size and PSS in
  each process. The workers open the dictionary themselves and map the same file: its
  pages are in memory once, which shows as a PSS of about RSS / number of processes.

The table gives peaks (the highest sample) and the wall time. Linux only.

    python scripts/bench_jobs.py [--grids 3000] [--jobs 1 4] [--seed 1] [--output FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from boggle_dafsa.board.dice import generate_grids, load_dice  # noqa: E402
from boggle_dafsa.dictionaries.resolve import embedded_path  # noqa: E402

SAMPLE_SECONDS = 0.005
# The first line of each mapping in /proc/PID/smaps: "start-end perms offset dev inode path".
_MAPPING_HEADER = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


@dataclass
class Peaks:
    """The highest values seen while a command ran (kB)."""

    processes: int = 0
    rss_total: int = 0
    pss_total: int = 0
    rss_each: int = 0
    dictionary_rss_each: int = 0
    dictionary_pss_total: int = 0
    seconds: float = 0.0
    samples: int = 0
    notes: list[str] = field(default_factory=list)


def french_grid_lines(count: int, seed: int) -> str:
    """``count`` grids rolled with the French dice, one a line in `solve` syntax."""
    return "".join(f"{grid}\n" for grid in generate_grids(load_dice("fr"), seed, count))


def children(pid: int) -> list[int]:
    """Every descendant of ``pid``."""
    found = []
    pending = [pid]
    while pending:
        current = pending.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            found.extend(kids)
            pending.extend(kids)
    return found


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def rollup_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def mapping_kb(pid: int, path: str) -> tuple[int, int]:
    """(Rss, Pss) of the mappings of ``path`` in process ``pid``."""
    rss = pss = 0
    inside = False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if _MAPPING_HEADER.match(line):
            inside = line.rstrip().endswith(path)
        elif inside and line.startswith("Rss:"):
            rss += int(line.split()[1])
        elif inside and line.startswith("Pss:"):
            pss += int(line.split()[1])
    return rss, pss


def measure(command: list[str], dictionary: str) -> Peaks:
    peaks = Peaks()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while process.poll() is None:
        pids = [process.pid, *children(process.pid)]
        try:
            rss = [status_kb(pid, "VmRSS") for pid in pids]
            pss = [rollup_kb(pid, "Pss") for pid in pids]
            mapped = [mapping_kb(pid, dictionary) for pid in pids]
        except (OSError, ValueError):
            continue  # a process ended between listing and reading
        peaks.samples += 1
        peaks.processes = max(peaks.processes, len(pids))
        peaks.rss_total = max(peaks.rss_total, sum(rss))
        peaks.pss_total = max(peaks.pss_total, sum(pss))
        peaks.rss_each = max(peaks.rss_each, max(rss))
        peaks.dictionary_rss_each = max(peaks.dictionary_rss_each, max(r for r, _ in mapped))
        peaks.dictionary_pss_total = max(peaks.dictionary_pss_total, sum(p for _, p in mapped))
        time.sleep(SAMPLE_SECONDS)
    peaks.seconds = time.perf_counter() - start
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed: {errors}")
    peaks.notes.append(errors.strip())
    return peaks


def console_script() -> list[str]:
    script = Path(sys.executable).parent / "boggle-dafsa"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", type=int, default=3000)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, help="also write the table (markdown) to this file")
    args = parser.parse_args()
    if not Path("/proc/self/smaps_rollup").exists():
        raise SystemExit("this benchmark reads /proc (Linux 4.14 or later)")

    dictionary = str(embedded_path("fr"))  # compiled once, before anything is timed
    size_kb = os.path.getsize(dictionary) // 1024
    with tempfile.TemporaryDirectory() as folder:
        batch = Path(folder) / "grids.txt"
        batch.write_text(french_grid_lines(args.grids, args.seed), encoding="utf-8")
        rows = []
        for jobs in args.jobs:
            command = [*console_script(), "solve", "--batch", str(batch), "-d", dictionary, "--jobs", str(jobs)]
            peaks = measure(command, dictionary)
            rows.append((jobs, peaks))

    invocation = " ".join(["python scripts/bench_jobs.py", *map(shlex.quote, sys.argv[1:])])
    lines = [
        f"`{invocation}`",
        f"({platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{args.grids:,} French grids, French dictionary {size_kb:,} kB)",
        "",
        "| --jobs | processes | wall s | peak RSS, sum (MB) | peak PSS, sum (MB) | peak RSS, largest process (MB) "
        "| dictionary mapped, RSS per process (kB) | dictionary mapped, PSS sum (kB) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for jobs, peaks in rows:
        lines.append(
            f"| {jobs} | {peaks.processes} | {peaks.seconds:.2f} | {peaks.rss_total / 1024:.1f} | "
            f"{peaks.pss_total / 1024:.1f} | {peaks.rss_each / 1024:.1f} | {peaks.dictionary_rss_each:,} | "
            f"{peaks.dictionary_pss_total:,} |"
        )
    lines.append("")
    lines.append("(the processes count the parent: --jobs 4 is the parent and 4 workers)")
    text = "\n".join(lines)
    print(text)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
