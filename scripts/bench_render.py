#!/usr/bin/env python3
"""Whole-command time of ``solve --batch`` outputs for two installs, runs taken in turns.

Measures a change to the output path (``--summary``, ``--json``, ``--paths``) as users run
it: ``BEFORE`` and ``AFTER`` are two ``boggle-dafsa`` programs (e.g. a venv of main and one
of a branch); the same random 4x4 boards go to both, alternately, ``--runs`` times; the
median wall seconds of each, their ratio and the load average are printed, and the outputs
must be identical byte for byte.

    python scripts/bench_render.py /work/main/.venv/bin/boggle-dafsa .venv/bin/boggle-dafsa
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def boards(count: int, seed: int) -> str:
    rng = random.Random(seed)
    letters = "ABCDEFGHIJKLMNOPRSTUVWXYZEEAAIO"
    return "".join("/".join("".join(rng.choice(letters) for _ in range(4)) for _ in range(4)) + "\n" for _ in range(count))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("-d", "--dict", default="enable2k")
    args = parser.parse_args()
    cases = {"--summary": 100_000, "--json": 5_000, "--scores --paths": 5_000}
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        for option, count in cases.items():
            path = Path(folder, f"{count}.txt")
            if not path.exists():
                path.write_text(boards(count, args.seed))
            times: dict[str, list[float]] = {"before": [], "after": []}
            outputs: dict[str, bytes] = {}
            for _ in range(args.runs):
                for name, program in (("before", args.before), ("after", args.after)):
                    start = time.perf_counter()
                    run = subprocess.run(
                        [program, "solve", "--batch", str(path), *option.split(), "-d", args.dict],
                        capture_output=True,
                        check=True,
                    )
                    times[name].append(time.perf_counter() - start)
                    outputs[name] = run.stdout
            before, after = statistics.median(times["before"]), statistics.median(times["after"])
            same = "identical output" if outputs["before"] == outputs["after"] else "OUTPUTS DIFFER"
            print(
                f"{option:18} {count:>7,} boards: before {before:.3f} s, after {after:.3f} s, after/before {after / before:.2f} ({same})"
            )
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
