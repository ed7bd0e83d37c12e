#!/usr/bin/env python3
"""Format version 2 against version 1: file sizes, and the solver's speed on each, in one run.

For each embedded list it builds the version 1 and version 2 files (``build
--format-version``) and prints their sizes. Then it solves ``--boards`` random 4x4 boards
(letters drawn uniformly, Q read as QU) on ENABLE2K with the whole command
``boggle-dafsa solve --batch FILE --summary --qu -d X`` on each file, the two taking turns
``--runs`` times; the outputs must be byte-identical (same scores); it prints the median
wall seconds and their ratio (the issue's bar: version 2 at >= 0.9x the speed of version
1), with the load average before and after (the machine is shared: trust the ratio).

    python scripts/bench_format.py [--boards 100000] [--runs 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import lzma
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "boggle_dafsa" / "data"
COMMAND = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average at start: {load_average()}")
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        print("\n| list | words | version 1 bytes | version 2 bytes | v2 / v1 | v2 bytes/word |\n|---|---:|---:|---:|---:|---:|")
        for name in ("fr", "en", "enable2k"):
            source = folder / f"{name}.txt"
            source.write_bytes(lzma.decompress((DATA / f"{name}.txt.xz").read_bytes()))
            words = len(source.read_bytes().split())
            sizes = {}
            for version in (1, 2):
                out = folder / f"{name}.v{version}.dafsa"
                subprocess.run([*COMMAND, "build", str(source), "-o", str(out), "--format-version", str(version), "--quiet"],
                               check=True)
                sizes[version] = out.stat().st_size
            print(f"| {name} | {words:,} | {sizes[1]:,} | {sizes[2]:,} | {sizes[2] / sizes[1]:.3f} | {sizes[2] / words:.3f} |")
        rng = random.Random(args.seed)
        boards = folder / "boards.txt"
        boards.write_text("".join("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(16)) + "\n"
                                  for _ in range(args.boards)))
        times: dict[int, list[float]] = {1: [], 2: []}
        outputs: dict[int, bytes] = {}
        for _ in range(args.runs):
            for version in (1, 2):
                command = [*COMMAND, "solve", "--batch", str(boards), "--summary", "--qu", "-d",
                           str(folder / f"enable2k.v{version}.dafsa")]
                started = time.perf_counter()
                done = subprocess.run(command, capture_output=True, check=True)
                times[version].append(time.perf_counter() - started)
                outputs.setdefault(version, done.stdout)
                if done.stdout != outputs[version]:
                    raise SystemExit("a run's output changed")
        if outputs[1] != outputs[2]:
            raise SystemExit("version 1 and version 2 give different results")
        v1, v2 = statistics.median(times[1]), statistics.median(times[2])
        print(f"\nsolve --batch ({args.boards:,} random 4x4 boards) --summary --qu, ENABLE2K, median of {args.runs} runs "
              f"taking turns: version 1 {v1:.3f} s, version 2 {v2:.3f} s; speed of v2 / v1 = {v1 / v2:.3f}x "
              f"(bar >= 0.9: {'met' if v1 / v2 >= 0.9 else 'MISSED'}); identical output ({len(outputs[1]):,} bytes)")
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
