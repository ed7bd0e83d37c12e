#!/usr/bin/env python3
"""Measure the defaults of `boggle-dafsa best` against the known best ENABLE2K boards.

For each shape and seed, runs the whole command the README quotes,

    boggle-dafsa best -d enable2k -s SHAPE --seed N --jobs 1 --json

in a fresh process, one at a time, and records the best score, its grid, whether it is
the known optimum (545 on 3x3, 1,651 on 3x4, 3,625 on 4x4) and the wall time. Prints a
line per invocation as it ends (so a long measurement can be followed, and its output
kept with nohup), then a table per shape: seeds that found the optimum, median and
longest time, and every score met.

    python scripts/bench_best.py [--shapes 3x3,3x4,4x4] [--seeds 1-10] [-d enable2k] [-- EXTRA best OPTIONS]

The machine is shared: times are those of this run, on a machine that may be loaded
(the script prints the load average before and after).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

#: The best boards known (proven) for ENABLE2K, classic scoring.
OPTIMA = {"3x3": 545, "3x4": 1651, "4x4": 3625}


def seeds_of(text: str) -> list[int]:
    """``1-10`` or ``1,4,7``."""
    if "-" in text:
        first, last = text.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(part) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="3x3,3x4,4x4")
    parser.add_argument("--seeds", default="1-10")
    parser.add_argument("-d", "--dict", default="enable2k")
    parser.add_argument("extra", nargs="*", help="more options for `best` (after --)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    table = []
    for shape in args.shapes.split(","):
        rows = []
        for seed in seeds_of(args.seeds):
            command = [sys.executable, "-m", "boggle_dafsa", "best", "-d", args.dict, "-s", shape,
                       "--seed", str(seed), "--jobs", "1", "--json", *args.extra]
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            seconds = time.perf_counter() - started
            if done.returncode != 0:
                print(f"{shape} seed {seed}: failed: {done.stderr.strip()}", flush=True)
                continue
            data = json.loads(done.stdout)
            best = data["best"][0]
            optimum = OPTIMA.get(shape) if args.dict == "enable2k" else None
            hit = optimum is not None and best["points"] >= optimum
            rows.append((seed, best["points"], best["grid"], hit, seconds, data["scored"]))
            print(f"{shape} seed {seed}: {best['points']} {best['grid']} {'optimum' if hit else ''} "
                  f"{seconds:.1f} s, {data['scored']:,} boards scored", flush=True)
        if rows:
            times = [row[4] for row in rows]
            scores = sorted({row[1] for row in rows}, reverse=True)
            table.append((shape, sum(row[3] for row in rows), len(rows), statistics.median(times), max(times),
                          statistics.median(row[5] for row in rows), scores))
    print(f"load average after: {os.getloadavg()}")
    print()
    print("| shape | found the optimum | median s | longest s | median boards scored | scores met |")
    print("|---|--:|--:|--:|--:|---|")
    for shape, hits, count, median, longest, scored, scores in table:
        print(f"| {shape} | {hits}/{count} | {median:.0f} | {longest:.0f} | {scored:,.0f} | {', '.join(map(str, scores))} |")


if __name__ == "__main__":
    main()
