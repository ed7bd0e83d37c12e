#!/usr/bin/env python3
"""Any key: ``build --policy raw`` of real key lists against marisa-trie and dawg2, in one run.

For each FILE (one key a line, UTF-8) it builds, in fresh processes taking turns
(``--repeat`` times, medians):

* ours, ``boggle-dafsa build FILE --policy raw`` (format version 2, the default) and
  ``--format-version 1``;
* marisa-trie's ``Trie`` and dawg2's ``DAWG`` of the same keys (read beforehand);

and prints file sizes, build seconds and distinct characters. Then it checks that ours
round-trips byte for byte: ``boggle-dafsa dump`` equals ``LC_ALL=C sort -u FILE`` (empty
lines aside). The load average is printed before and after.

    python scripts/bench_keys.py paths.txt multiscript.txt [--repeat 3]

How the lists of the docs were made: ``find / -xdev 2>/dev/null | head -200000`` (real
paths); and a multi-script list (see docs/format.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import sys, time
method, source, out = sys.argv[1:4]
keys = [line for line in open(source, encoding="utf-8").read().split("\n") if line]
started = time.perf_counter()
if method == "marisa":
    import marisa_trie
    marisa_trie.Trie(keys).save(out)
else:
    import dawg
    dawg.DAWG(keys).save(out)
print(time.perf_counter() - started)
"""
OURS = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average at start: {load()}")
    print(
        "\n| list | keys | distinct characters | ours v2 bytes | ours v1 bytes | marisa-trie bytes | dawg2 bytes "
        "| v2 / dawg2 | v2 / marisa | build s: ours v2, v1, marisa, dawg2 | dump = sort -u |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        for source in args.files:
            text = source.read_text(encoding="utf-8")
            keys = {line for line in text.split("\n") if line}
            characters = len(set("".join(keys)))
            seconds: dict[str, list[float]] = {"v2": [], "v1": [], "marisa": [], "dawg": []}
            outputs = {name: folder / f"{source.name}.{name}" for name in seconds}
            for _ in range(args.repeat):
                for name in seconds:
                    if name in ("v2", "v1"):
                        command = [
                            *OURS,
                            "build",
                            str(source),
                            "--policy",
                            "raw",
                            "-o",
                            str(outputs[name]),
                            "--quiet",
                            "--format-version",
                            name[1],
                        ]
                        started = time.perf_counter()
                        subprocess.run(command, check=True)
                        seconds[name].append(time.perf_counter() - started)
                    else:
                        done = subprocess.run(
                            [sys.executable, "-c", CHILD, name, str(source), str(outputs[name])],
                            capture_output=True,
                            text=True,
                            check=True,
                        )
                        seconds[name].append(float(done.stdout))
            sizes = {name: path.stat().st_size for name, path in outputs.items()}
            dumped = subprocess.run([*OURS, "dump", str(outputs["v2"])], capture_output=True, check=True).stdout
            oracle = subprocess.run(
                ["sort", "-u", str(source)], capture_output=True, check=True, env={**os.environ, "LC_ALL": "C"}
            ).stdout
            oracle = b"".join(line + b"\n" for line in oracle.split(b"\n") if line)
            medians = ", ".join(f"{statistics.median(seconds[name]):.2f}" for name in seconds)
            print(
                f"| {source.name} | {len(keys):,} | {characters:,} | {sizes['v2']:,} | {sizes['v1']:,} | {sizes['marisa']:,} "
                f"| {sizes['dawg']:,} | {sizes['v2'] / sizes['dawg']:.2f} | {sizes['v2'] / sizes['marisa']:.2f} | {medians} "
                f"| {'yes' if dumped == oracle else 'NO'} |"
            )
    print(
        "\nours: the whole command (start-up, read, sort, build, write); marisa-trie and dawg2: the build call on keys "
        "already in memory."
    )
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
