#!/usr/bin/env python3
"""Format version 2 against version 1: file sizes, and the solver's speed on each, in one run.

For each embedded list it builds the version 1 and version 2 files (``build
--format-version``) and prints their sizes. Then it solves ``--boards`` random 4x4 boards
(letters drawn uniformly, Q read as QU) on ENABLE2K with the whole command
``boggle-dafsa solve --batch FILE --summary --qu -d X`` on each file, the two taking turns
``--runs`` times; the outputs must be byte-identical (same scores); it prints the median
wall seconds and their ratio (the issue's bar: version 2 at >= 0.9x the speed of version
1), with the load average before and after (the machine is shared: trust the ratio).

Build cost (the issue's bar: version 2 within 10 % of version 1): the whole command users
run, ``boggle-dafsa build LIST -o X.dafsa --format-version V``, in a fresh process each time,
the versions taking turns ``--build-runs`` times per list: median and min wall seconds, the
median CPU seconds and the peak RSS of each child (``wait4``: the child's own figures); and
``build_dictionary`` alone, timed inside a fresh process after its imports. With ``--callgrind``
(valgrind installed) it also counts the instructions of one build of each version, as the
command and in process (``build_dictionary`` alone: a run that only imports is taken off),
counts that the load on a shared machine does not move.

    python scripts/bench_format.py [--boards 100000] [--runs 5] [--seed 1]
    python scripts/bench_format.py --build-runs 11 --callgrind --skip-solve
    python scripts/bench_format.py --build-runs 0 --skip-solve --wide 20000 --runs 3 [--old-source OLD/src]

``--wide N``: the solver on an alphabet over 31 letters (see ``bench_wide``).
"""

from __future__ import annotations

import argparse
import lzma
import os
import random
import shutil
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


# Run as `python -c IN_PROCESS list output version`: everything imported, then (version
# > 0) one build_dictionary; version 0 only imports (the baseline taken off).
IN_PROCESS = """
import sys, time
from boggle_dafsa.dictionaries.build import build_dictionary
if int(sys.argv[3]):
    wall, cpu = time.perf_counter(), time.process_time()
    build_dictionary(sys.argv[1], sys.argv[2], format_version=int(sys.argv[3]))
    print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def timed_build(source: Path, out: Path, version: int) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one ``boggle-dafsa
    build`` in a fresh process (``wait4``: that child's own figures)."""
    out.unlink(missing_ok=True)
    started = time.perf_counter()
    child = subprocess.Popen([*COMMAND, "build", str(source), "-o", str(out), "--format-version", str(version), "--quiet"])
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"build of {source} (version {version}) failed")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def timed_in_process(source: Path, out: Path, version: int) -> tuple[float, float]:
    """Wall and CPU seconds of ``build_dictionary`` alone, in a fresh process (imports before the clock)."""
    out.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS, str(source), str(out), str(version)], capture_output=True, text=True, check=True
    )
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def instructions(command: list[str]) -> int:
    """Instructions callgrind counts for ``command`` (valgrind's own summary line)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command], capture_output=True, text=True, check=True
    )
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].replace(",", ""))
    raise SystemExit("no instruction count in valgrind's output")


def bench_build(folder: Path, names: list[str], runs: int, callgrind: bool) -> None:
    """The build table: version 2 against version 1, command by command."""
    print(f"\nbuild, the whole command, {runs} runs each taking turns (load average {load_average()}):\n")
    print(
        "| list | v1 median s | v2 median s | v2/v1 median | v2/v1 min | v2/v1 CPU median | v1 peak MiB | v2 peak MiB "
        "| v2/v1 peak |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    inside: dict[str, dict[int, list[tuple[float, float]]]] = {}
    for name in names:
        source = folder / f"{name}.txt"
        seconds: dict[int, list[float]] = {1: [], 2: []}
        cpus: dict[int, list[float]] = {1: [], 2: []}
        peaks: dict[int, list[int]] = {1: [], 2: []}
        inside[name] = {1: [], 2: []}
        for turn in range(runs):
            for version in (1, 2) if turn % 2 == 0 else (2, 1):
                wall, cpu, peak = timed_build(source, folder / f"{name}.t{version}.dafsa", version)
                seconds[version].append(wall)
                cpus[version].append(cpu)
                peaks[version].append(peak)
                inside[name][version].append(timed_in_process(source, folder / f"{name}.i{version}.dafsa", version))
        m1, m2 = statistics.median(seconds[1]), statistics.median(seconds[2])
        p1, p2 = max(peaks[1]) / 1024, max(peaks[2]) / 1024
        print(
            f"| {name} | {m1:.3f} | {m2:.3f} | {m2 / m1:.3f} | {min(seconds[2]) / min(seconds[1]):.3f} | "
            f"{statistics.median(cpus[2]) / statistics.median(cpus[1]):.3f} | {p1:.1f} | {p2:.1f} | {p2 / p1:.3f} |"
        )
    print("\nbuild_dictionary alone (in a fresh process, imports before the clock), the same turns:\n")
    print("| list | v1 median s | v2 median s | v2/v1 median | v2/v1 min | v1 CPU median s | v2 CPU median s | v2/v1 CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        walls = {v: [wall for wall, _ in inside[name][v]] for v in (1, 2)}
        cpu = {v: statistics.median(c for _, c in inside[name][v]) for v in (1, 2)}
        w1, w2 = statistics.median(walls[1]), statistics.median(walls[2])
        print(
            f"| {name} | {w1:.3f} | {w2:.3f} | {w2 / w1:.3f} | {min(walls[2]) / min(walls[1]):.3f} | "
            f"{cpu[1]:.3f} | {cpu[2]:.3f} | {cpu[2] / cpu[1]:.3f} |"
        )
    print(f"\nload average after the build runs: {load_average()}")
    if not callgrind:
        return
    if shutil.which("valgrind") is None:
        print("\n(--callgrind: valgrind is not installed; instruction counts skipped)")
        return
    print(
        "\ninstructions (callgrind), one build each: the command, and build_dictionary in process"
        " (an import-only run taken off)\n"
    )
    print("| list | command v1 | command v2 | v2/v1 | in process v1 | in process v2 | v2/v1 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    baseline = instructions([sys.executable, "-c", IN_PROCESS, "-", "-", "0"])
    for name in names:
        source = folder / f"{name}.txt"
        command, inside = {}, {}
        for version in (1, 2):
            out = folder / f"{name}.c{version}.dafsa"
            out.unlink(missing_ok=True)
            command[version] = instructions(
                [*COMMAND, "build", str(source), "-o", str(out), "--format-version", str(version), "--quiet"]
            )
            out.unlink()
            inside[version] = instructions([sys.executable, "-c", IN_PROCESS, str(source), str(out), str(version)]) - baseline
        print(
            f"| {name} | {command[1]:,} | {command[2]:,} | {command[2] / command[1]:.3f} | "
            f"{inside[1]:,} | {inside[2]:,} | {inside[2] / inside[1]:.3f} |"
        )


def bench_wide(folder: Path, boards: int, runs: int, seed: int, old_source: str | None) -> None:
    """The solver on an alphabet over 31 letters: ENABLE2K plus 3,000 random keys in lower
    case and accents (54 letters, built ``--policy raw``) against ENABLE2K alone (26), the
    same random 4x4 boards; with ``--old-source``, also the tree given (say a checkout of
    main before the projection), whose solver walked such a file by the cursor."""
    rng = random.Random(seed)
    plain = (folder / "enable2k.txt").read_text().split()
    noise = {"".join(rng.choice("abcdefghijklmnopqrstuvwxyzéèàç") for _ in range(rng.randint(2, 7))) for _ in range(3000)}
    (folder / "wide.txt").write_text("".join(word + "\n" for word in sorted(set(plain) | noise)))
    for name in ("wide", "enable2k"):
        subprocess.run(
            [
                *COMMAND,
                "build",
                str(folder / f"{name}.txt"),
                "-o",
                str(folder / f"{name}.raw.dafsa"),
                "--policy",
                "raw",
                "--quiet",
            ],
            check=True,
        )
    grids = folder / "wide-boards.txt"
    grids.write_text("".join("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(16)) + "\n" for _ in range(boards)))
    times: dict[str, list[float]] = {"wide": [], "enable2k": []}
    outputs: dict[str, bytes] = {}
    for _ in range(runs):
        for name in times:
            started = time.perf_counter()
            done = subprocess.run(
                [*COMMAND, "solve", "--batch", str(grids), "--summary", "--qu", "-d", str(folder / f"{name}.raw.dafsa")],
                capture_output=True,
                check=True,
            )
            times[name].append(time.perf_counter() - started)
            outputs[name] = done.stdout
    wide, narrow = statistics.median(times["wide"]), statistics.median(times["enable2k"])
    print(
        f"\nwide alphabet: solve --batch ({boards:,} random 4x4 boards) --summary --qu, median of {runs} taking "
        f"turns (load average {load_average()}): 54 letters {wide:.3f} s, ENABLE2K alone (26) {narrow:.3f} s; "
        f"speed of wide / 26 letters = {narrow / wide:.3f}x; same totals: "
        f"{outputs['wide'].splitlines()[-1:] == outputs['enable2k'].splitlines()[-1:]}"
    )
    if old_source:
        env = dict(os.environ, PYTHONPATH=old_source)
        started = time.perf_counter()
        done = subprocess.run(
            [*COMMAND, "solve", "--batch", str(grids), "--summary", "--qu", "-d", str(folder / "wide.raw.dafsa")],
            capture_output=True,
            check=True,
            env=env,
        )
        old = time.perf_counter() - started
        print(
            f"the tree at {old_source} (the cursor), one run on the same file: {old:.3f} s, {old / wide:.1f}x this one's "
            f"time; same output: {done.stdout == outputs['wide']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--build-runs", type=int, default=9, help="builds of each list and version (0: none)")
    parser.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    parser.add_argument("--skip-solve", action="store_true", help="sizes and builds only")
    parser.add_argument("--wide", type=int, default=0, help="boards for the wide-alphabet solve (0: none)")
    parser.add_argument("--old-source", help="a src folder of an older tree, for the wide solve's baseline")
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
                subprocess.run(
                    [*COMMAND, "build", str(source), "-o", str(out), "--format-version", str(version), "--quiet"], check=True
                )
                sizes[version] = out.stat().st_size
            print(f"| {name} | {words:,} | {sizes[1]:,} | {sizes[2]:,} | {sizes[2] / sizes[1]:.3f} | {sizes[2] / words:.3f} |")
        if args.build_runs:
            bench_build(folder, ["fr", "en", "enable2k"], args.build_runs, args.callgrind)
        if args.wide:
            bench_wide(folder, args.wide, args.runs, args.seed, args.old_source)
        if args.skip_solve:
            print(f"load average at end: {load_average()}")
            return
        rng = random.Random(args.seed)
        boards = folder / "boards.txt"
        boards.write_text(
            "".join("".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(16)) + "\n" for _ in range(args.boards))
        )
        times: dict[int, list[float]] = {1: [], 2: []}
        outputs: dict[int, bytes] = {}
        for _ in range(args.runs):
            for version in (1, 2):
                command = [
                    *COMMAND,
                    "solve",
                    "--batch",
                    str(boards),
                    "--summary",
                    "--qu",
                    "-d",
                    str(folder / f"enable2k.v{version}.dafsa"),
                ]
                started = time.perf_counter()
                done = subprocess.run(command, capture_output=True, check=True)
                times[version].append(time.perf_counter() - started)
                outputs.setdefault(version, done.stdout)
                if done.stdout != outputs[version]:
                    raise SystemExit("a run's output changed")
        if outputs[1] != outputs[2]:
            raise SystemExit("version 1 and version 2 give different results")
        v1, v2 = statistics.median(times[1]), statistics.median(times[2])
        print(
            f"\nsolve --batch ({args.boards:,} random 4x4 boards) --summary --qu, ENABLE2K, median of {args.runs} runs "
            f"taking turns: version 1 {v1:.3f} s, version 2 {v2:.3f} s; speed of v2 / v1 = {v1 / v2:.3f}x "
            f"(bar >= 0.9: {'met' if v1 / v2 >= 0.9 else 'MISSED'}); identical output ({len(outputs[1]):,} bytes)"
        )
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
