#!/usr/bin/env python3
"""Measure the defaults of `boggle-dafsa best` against the known best ENABLE2K boards.

For each shape and seed, runs the whole command docs/best.md quotes,

    boggle-dafsa best -d enable2k -s SHAPE --seed N --jobs 1 --json

in a fresh process, and records the best score, its grid, whether it is the known
optimum (545 on 3x3, 1,651 on 3x4, 3,625 on 4x4), the wall time and the CPU time of
the process (user + system: what one core spends, whatever else loads the machine),
and the boards it scored per CPU second. Prints a line per invocation as it ends (so a
long measurement can be followed, and kept with nohup), then a table per shape: seeds
that found the optimum, median and longest times, every score met.

    python scripts/bench_best.py [--shapes 3x3,3x4,4x4] [--seeds 1-10] [-d enable2k] [--parallel N] [-- EXTRA best OPTIONS]

``--parallel N`` runs N invocations at a time (each on one core). ``--table LOG...`` prints
the table again from the lines of earlier measurements (several logs of one shape
measured in parts make one table). The machine is
shared: the script prints the load average before and after, and the CPU times are
the figures to compare with a bound "on one core".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

#: One invocation: seed, points, grid, found the optimum, wall s, CPU s, boards scored.
Row = tuple[int, int, str, bool, float, float, int]
#: An invocation's line, as printed below.
LINE = re.compile(
    r"(\S+) seed (\d+): (\d+) (\S+) (optimum)? ?\(found by \d+ of \d+ runs\) "
    r"([\d.]+) s wall, ([\d.]+) s CPU, ([\d,]+) boards scored"
)

#: The best boards known (proven) for ENABLE2K, classic scoring.
OPTIMA = {"3x3": 545, "3x4": 1651, "4x4": 3625}


def seeds_of(text: str) -> list[int]:
    """``1-10`` or ``1,4,7``."""
    if "-" in text:
        first, last = text.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(part) for part in text.split(",")]


def invoke(command: list[str]) -> tuple[int, str, str, float, float]:
    """Run ``command``: (exit code, stdout, stderr, wall seconds, CPU seconds of the process)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # wait4 gives this child's own resource use, even with other children running beside it.
    out_parts: list[str] = []
    with ThreadPoolExecutor(2) as readers:
        out = readers.submit(process.stdout.read)  # type: ignore[union-attr]
        err = readers.submit(process.stderr.read)  # type: ignore[union-attr]
        _, status, usage = os.wait4(process.pid, 0)
        out_parts = [out.result(), err.result()]
    process.returncode = os.waitstatus_to_exitcode(status)
    return (process.returncode, out_parts[0], out_parts[1], time.perf_counter() - started, usage.ru_utime + usage.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="3x3,3x4,4x4")
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("-d", "--dict", default="enable2k")
    parser.add_argument("--parallel", type=int, default=1, help="invocations at a time")
    parser.add_argument("--table", nargs="+", metavar="LOG", help="only print the table of these logs' lines")
    parser.add_argument("extra", nargs="*", help="more options for `best` (after --)")
    args = parser.parse_args()
    if args.table:
        rows_by_shape: dict[str, list[Row]] = {}
        for log in args.table:
            with open(log, encoding="utf-8") as stream:
                for line in stream:
                    match = LINE.match(line)
                    if match:
                        shape, seed, points, grid, hit, wall, cpu, scored = match.groups()
                        rows_by_shape.setdefault(shape, []).append(
                            (int(seed), int(points), grid, bool(hit), float(wall), float(cpu), int(scored.replace(",", "")))
                        )
        print_table([summary(shape, rows) for shape, rows in rows_by_shape.items()])
        return
    print(f"load average before: {os.getloadavg()}", flush=True)
    table = []
    for shape in args.shapes.split(","):

        def one(seed: int, shape: str = shape) -> Row | None:
            command = [
                sys.executable,
                "-m",
                "boggle_dafsa",
                "best",
                "-d",
                args.dict,
                "-s",
                shape,
                "--seed",
                str(seed),
                "--jobs",
                "1",
                "--json",
                *args.extra,
            ]
            code, stdout, stderr, seconds, cpu = invoke(command)
            if code != 0:
                print(f"{shape} seed {seed}: failed: {stderr.strip()}", flush=True)
                return None
            data = json.loads(stdout)
            best = data["best"][0]
            optimum = OPTIMA.get(shape) if args.dict == "enable2k" else None
            hit = optimum is not None and best["points"] >= optimum
            print(
                f"{shape} seed {seed}: {best['points']} {best['grid']} {'optimum' if hit else ''} "
                f"(found by {best['found_by']} of {data['runs']} runs) {seconds:.1f} s wall, {cpu:.1f} s CPU, "
                f"{data['scored']:,} boards scored, {data['scored'] / cpu:,.0f} boards/CPU s, "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            return seed, best["points"], best["grid"], hit, seconds, cpu, data["scored"]

        with ThreadPoolExecutor(args.parallel) as pool:
            rows = [row for row in pool.map(one, seeds_of(args.seeds)) if row is not None]
        if rows:
            table.append(summary(shape, rows))
    print(f"load average after: {os.getloadavg()}")
    print()
    print_table(table)


def summary(shape: str, rows: list[Row]) -> tuple[Any, ...]:
    """One line of the table: optimum hits, CPU and wall medians and longest, boards, scores met."""
    walls = [row[4] for row in rows]
    cpus = [row[5] for row in rows]
    scores = sorted({row[1] for row in rows}, reverse=True)
    rate = sum(row[6] for row in rows) / sum(cpus)
    return (
        shape,
        sum(row[3] for row in rows),
        len(rows),
        statistics.median(cpus),
        max(cpus),
        statistics.median(walls),
        max(walls),
        statistics.median(row[6] for row in rows),
        rate,
        scores,
    )


def print_table(table: list[tuple[Any, ...]]) -> None:
    print(
        "| shape | found the optimum | median CPU s | longest CPU s | median wall s | longest wall s "
        "| median boards scored | boards / CPU s | scores met |"
    )
    print("|---|--:|--:|--:|--:|--:|--:|--:|---|")
    for shape, hits, count, cpu, cpu_max, wall, wall_max, scored, rate, scores in table:
        print(
            f"| {shape} | {hits}/{count} | {cpu:.0f} | {cpu_max:.0f} | {wall:.0f} | {wall_max:.0f} | {scored:,.0f} "
            f"| {rate:,.0f} | {', '.join(map(str, scores))} |"
        )


if __name__ == "__main__":
    main()
