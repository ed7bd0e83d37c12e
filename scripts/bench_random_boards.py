#!/usr/bin/env python3
"""Boards per CPU second of the library's batch call on random 4x4 ENABLE2K boards.

    python scripts/bench_random_boards.py [--boards 100000] [--seed 1] [--label NAME]

The boards are those of bench_kernel.py's third measurement (letters drawn uniformly
with ``random.Random(seed)``, Q read as QU), scored for their totals in one call
(``PreparedSolver.run_codes(codes, "totals")``, one thread), five times: the median CPU
time (of this process: what one core spends, whatever else loads the machine) and the
total points, which must not change. To compare two versions of the package in one run,
run it alternately under each (``PYTHONPATH=OTHER/src python scripts/...``), as
docs/performance.md does.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.solver.prepared import PreparedSolver

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    boards = ["".join(rng.choice(LETTERS) for _ in range(16)) for _ in range(args.boards)]
    prepared = PreparedSolver(open_dictionary("enable2k"), (4, 4))
    codes = b"".join(prepared.encode(tuple("QU" if letter == "Q" else letter for letter in board)) for board in boards)
    prepared.run_codes(codes[: 16 * 20], "totals")  # words numbered before the clock starts
    times = []
    for _ in range(5):
        start = time.process_time()
        results = prepared.run_codes(codes, "totals")
        times.append(time.process_time() - start)
    print(
        f"{args.label or 'boards'}: {args.boards / statistics.median(times):,.0f} boards/CPU s (median of 5), "
        f"{sum(points for _, points in results):,} points, load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
