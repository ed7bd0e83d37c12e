#!/usr/bin/env python3
"""Benchmark the compiled solver kernel against its pure-Python twin, in one run.

Three measurements, each a ratio taken in the same run (the machine is shared):

1. **In process**: ``solve()`` on ``--grids`` French 4x4 grids (default 300, rolled from
   the French dice with ``--seed``, as in bench_solve.py) with the compiled kernel and
   with the Python kernel (``kernel="python"``, what ``BOGGLE_DAFSA_PURE=1`` selects),
   after checking that both give the same hits on every grid. µs per grid of a loop over
   the grids, each kernel's loop in turn (the median of ``--repeat`` loops); and, for
   comparison, grid by grid with the kernels taking turns (each C call then follows the
   Python kernel's, with its data out of the caches).
2. **Whole process**: ``boggle-dafsa solve --batch FILE`` on ``--batch-grids`` French
   grids (default 3,000), text, ``--json`` and ``--summary``, with and without
   ``BOGGLE_DAFSA_PURE=1``, runs taken in turns; median wall seconds of ``--runs`` runs
   (the outputs are checked to be byte-identical first).
3. **Boards per second**: ``--boards`` random 4x4 boards (default 100,000; letters drawn
   uniformly, Q read as QU), ENABLE2K: through the library's batch call
   (``PreparedSolver.run_codes``, one thread, totals only), and through the whole
   command ``boggle-dafsa solve --batch FILE --summary --qu -d enable2k``. With
   ``--hybrid DIR`` (a built checkout of github.com/danvk/hybrid-boggle and the Python
   that runs it, ``--hybrid-python``), its C++ solver scores the same boards in the same
   run (a ``boggle.perf``-style loop over ``Boggler44.score``), the three taking turns.

4. **Neighbourhoods** (``--neighbourhoods``, alone): every board one edit away (a cell
   changed to any other letter A-Z, Q read as QU, or two cells swapped) from the best
   ENABLE2K 4x4 and 5x5 boards (``perslatgsineters``, ``ligdrmanesietildsracsepes``), the
   boards that the best-board climb and the proof score, ``--hood-copies`` times over:
   through the library's batch call, through the whole command ``solve --batch FILE
   --summary --qu`` as a slope (the time of twice the boards less the time of the boards,
   over the boards: start-up left out), and through hybrid-boggle's ``Boggler44`` /
   ``Boggler55`` in process (with ``--hybrid``), the three taking turns, the totals checked
   equal.

    python scripts/bench_kernel.py [--grids 300] [--batch-grids 3000] [--boards 100000]
                                   [--runs 3] [--seed 1] [--hybrid DIR --hybrid-python PY]
    python scripts/bench_kernel.py --neighbourhoods [--hood-copies 40] [--runs 3] [--hybrid DIR --hybrid-python PY]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from boggle_dafsa.board.dice import generate_grids, load_dice  # noqa: E402
from boggle_dafsa.dictionaries.resolve import open_dictionary  # noqa: E402
from boggle_dafsa.solver import solve  # noqa: E402
from boggle_dafsa.solver.kernels import available_kernels  # noqa: E402
from boggle_dafsa.solver.prepared import PreparedSolver  # noqa: E402

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
HYBRID_LOOP = """
import sys, time
sys.path.insert(0, sys.argv[1])
import cpp_boggle
boards = [line.strip().lower() for line in open(sys.argv[2])]
trie = cpp_boggle.Trie.create_from_file(sys.argv[3])
boggler = getattr(cpp_boggle, sys.argv[4] if len(sys.argv) > 4 else "Boggler44")(trie)
start = time.perf_counter()
total = 0
for board in boards:
    total += boggler.score(board)
elapsed = time.perf_counter() - start
print(total, elapsed)
"""


def load_average() -> str:
    """The machine's load (1, 5 and 15 minutes), which every figure should be read with."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # not on this platform
        return "load average unknown"
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def console_script() -> list[str]:
    script = Path(sys.executable).parent / "boggle-dafsa"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


def in_process(grids: list, dictionary: object, repeat: int) -> dict[str, float]:
    """µs per grid of ``solve()`` in a loop over the grids, as a program calls it: each kernel
    in turn runs the whole list (``repeat`` times each, alternating which goes first);
    the median of its loops. Also, under "c, grid by grid": the older measure, each grid
    timed with the kernels taking turns, where a C call always follows 500 µs of Python
    work that has pushed its data out of the caches (the median of each grid's median)."""
    kernels = ["c", "python"]
    for grid in grids:
        reference = solve(grid, dictionary, kernel="python")  # type: ignore[arg-type]
        if solve(grid, dictionary, kernel="c") != reference:  # type: ignore[arg-type]
            raise SystemExit(f"the kernels disagree on {grid}")
    loops: dict[str, list[float]] = {kernel: [] for kernel in kernels}
    per_grid: dict[str, list[float]] = {kernel: [] for kernel in kernels}
    gc.collect()
    gc.disable()
    try:
        for round_ in range(repeat):
            for kernel in kernels if round_ % 2 == 0 else kernels[::-1]:
                start = time.perf_counter()
                for grid in grids:
                    solve(grid, dictionary, kernel=kernel)  # type: ignore[arg-type]
                loops[kernel].append((time.perf_counter() - start) / len(grids))
        for number, grid in enumerate(grids):
            samples: dict[str, list[float]] = {kernel: [] for kernel in kernels}
            for round_ in range(repeat):
                order = kernels if (number + round_) % 2 == 0 else kernels[::-1]
                for kernel in order:
                    start = time.perf_counter()
                    solve(grid, dictionary, kernel=kernel)  # type: ignore[arg-type]
                    samples[kernel].append(time.perf_counter() - start)
            for kernel in kernels:
                per_grid[kernel].append(statistics.median(samples[kernel]))
    finally:
        gc.enable()
    result = {kernel: statistics.median(times) * 1e6 for kernel, times in loops.items()}
    result.update({f"{kernel}, grid by grid": statistics.median(times) * 1e6 for kernel, times in per_grid.items()})
    return result


def whole_process(commands: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, float]:
    """Median wall seconds of each command, in turns; outputs of a pair checked identical first."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, environment) in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=environment)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def output_of(command: list[str], environment: dict[str, str]) -> bytes:
    return subprocess.run(command, capture_output=True, check=True, env=environment).stdout


#: The best known boards (ENABLE2K, proven for 4x4) whose neighbourhoods are measured, and
#: hybrid-boggle's class for their shape.
HOODS = (("perslatgsineters", (4, 4), "Boggler44"), ("ligdrmanesietildsracsepes", (5, 5), "Boggler55"))


def one_edit(board: str) -> list[str]:
    """Every board one edit from ``board``: each cell changed to another letter, cell by cell
    (A-Z), then each pair of different cells swapped."""
    board = board.upper()
    changed = [
        board[:cell] + letter + board[cell + 1 :] for cell in range(len(board)) for letter in LETTERS if letter != board[cell]
    ]
    swapped = []
    for first in range(len(board)):
        for second in range(first + 1, len(board)):
            if board[first] != board[second]:
                cells = list(board)
                cells[first], cells[second] = cells[second], cells[first]
                swapped.append("".join(cells))
    return changed + swapped


def neighbourhoods(args: argparse.Namespace, command: list[str], native: dict[str, str], folder: Path) -> list[str]:
    """The rows of measurement 4 (see the module's docstring)."""
    enable2k = open_dictionary("enable2k")
    lines = [
        "| one edit from (ENABLE2K, --qu) | boards | library batch, boards/s | `solve --batch --summary` slope, boards/s "
        "| hybrid-boggle in process, boards/s | library ÷ hybrid | command ÷ hybrid | total points |",
        "| --- | --: | --: | --: | --: | --: | --: | --: |",
    ]
    for best, shape, hybrid_class in HOODS:
        boards = one_edit(best) * args.hood_copies
        prepared = PreparedSolver(enable2k, shape)
        codes = b"".join(prepared.encode(tuple("QU" if letter == "Q" else letter for letter in board)) for board in boards)
        prepared.run_codes(codes[: 20 * len(best)], "totals")  # its words numbered before the clock starts
        once, twice = folder / f"{best}.txt", folder / f"{best}-2.txt"
        once.write_text("".join(board + "\n" for board in boards))
        twice.write_text("".join(board + "\n" for board in boards * 2))
        summary = [*command, "solve", "--batch", "FILE", "--summary", "--qu", "-d", "enable2k", "-q"]
        at = summary.index("FILE")
        runs_of = {name: [*summary[:at], str(path), *summary[at + 1 :]] for name, path in (("once", once), ("twice", twice))}
        output = output_of(runs_of["once"], native)
        command_points = sum(int(line.rsplit(b"\t", 1)[1]) for line in output.splitlines())
        library_times, slopes, hybrid_times = [], [], []
        hybrid_points = None
        for _ in range(args.runs):
            start = time.perf_counter()
            results = prepared.run_codes(codes, "totals")
            library_times.append(time.perf_counter() - start)
            timed = whole_process({"once": (runs_of["once"], native), "twice": (runs_of["twice"], native)}, 1)
            slopes.append(max(timed["twice"] - timed["once"], 1e-9))
            if args.hybrid:
                wordlist = args.hybrid / "wordlists" / "enable2k.txt"
                out = subprocess.run(
                    [args.hybrid_python, "-c", HYBRID_LOOP, str(args.hybrid), str(once), str(wordlist), hybrid_class],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
                hybrid_points = int(out[0])
                hybrid_times.append(float(out[1]))
        points = sum(total for _, total in results)
        if command_points != points or (hybrid_points is not None and hybrid_points != points):
            raise SystemExit(f"totals differ around {best}: library {points}, command {command_points}, hybrid {hybrid_points}")
        library_rate = len(boards) / statistics.median(library_times)
        command_rate = len(boards) / statistics.median(slopes)
        if args.hybrid:
            hybrid_rate = len(boards) / statistics.median(hybrid_times)
            hybrid_cells = f"{hybrid_rate:,.0f} | {library_rate / hybrid_rate:.2f} | {command_rate / hybrid_rate:.2f}"
        else:
            hybrid_cells = " |  | "
        lines.append(
            f"| `{best}` ({len(one_edit(best))} boards × {args.hood_copies}) | {len(boards):,} | {library_rate:,.0f} "
            f"| {command_rate:,.0f} | {hybrid_cells} | {points:,} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-grids", type=int, default=3000)
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hybrid", type=Path, help="a built checkout of danvk/hybrid-boggle")
    parser.add_argument("--hybrid-python", default=sys.executable, help="the Python that imports its cpp_boggle")
    parser.add_argument("--neighbourhoods", action="store_true", help="measure only the one-edit neighbourhoods")
    parser.add_argument("--hood-copies", type=int, default=40, help="times each neighbourhood is repeated")
    args = parser.parse_args()
    if "c" not in available_kernels():
        raise SystemExit("the compiled kernel is not built: pip install -e . with a C compiler")

    lines: list[str] = []
    invocation = " ".join(["python scripts/bench_kernel.py", *map(shlex.quote, sys.argv[1:])])
    lines += [
        f"`{invocation}`",
        f"({platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, shared with other work; {load_average()} at the start)",
        "",
    ]
    if args.neighbourhoods:
        with tempfile.TemporaryDirectory() as folder:
            lines += neighbourhoods(args, console_script(), dict(os.environ), Path(folder))
        lines.append(f"{load_average()} at the end")
        print("\n".join(lines))
        return

    # 1. In process.
    french = open_dictionary("fr")
    grids = list(generate_grids(load_dice("fr"), args.seed, args.grids))
    micro = in_process(grids, french, args.repeat)
    lines += [
        f"| `solve()`, {len(grids)} French grids, in process | µs per grid | × Python |",
        "| --- | --: | --: |",
        f"| Python kernel (`BOGGLE_DAFSA_PURE=1`), a loop over the grids | {micro['python']:,.0f} | 1.00 |",
        f"| C kernel, a loop over the grids | {micro['c']:,.1f} | {micro['python'] / micro['c']:.1f} |",
        f"| C kernel, grid by grid in turns with Python (caches cold) | {micro['c, grid by grid']:,.1f} | "
        f"{micro['python, grid by grid'] / micro['c, grid by grid']:.1f} |",
        "",
    ]

    command = console_script()
    pure = dict(os.environ, BOGGLE_DAFSA_PURE="1")
    native = {key: value for key, value in os.environ.items() if key != "BOGGLE_DAFSA_PURE"}
    with tempfile.TemporaryDirectory() as folder:
        # 2. Whole process, French batch.
        batch = Path(folder) / "french.txt"
        batch.write_text("".join(f"{grid}\n" for grid in generate_grids(load_dice("fr"), args.seed, args.batch_grids)))
        rows = []
        for label, extra in (("text", []), ("--json", ["--json"]), ("--summary", ["--summary"])):
            base = [*command, "solve", "--batch", str(batch), "-d", "fr", "-q", *extra]
            if output_of(base, pure) != output_of(base, native):
                raise SystemExit(f"outputs differ between the kernels for {label}")
            timed = whole_process({"python": (base, pure), "c": (base, native)}, args.runs)
            rows.append(
                f"| `solve --batch` {label} | {timed['python']:.2f} | {timed['c']:.2f} | {timed['python'] / timed['c']:.1f} |"
            )
        lines += [
            f"| whole process, {args.batch_grids:,} French grids | Python s | C s | × |",
            "| --- | --: | --: | --: |",
            *rows,
            "",
        ]

        # 3. Random ENABLE2K boards.
        enable2k = open_dictionary("enable2k")
        rng = random.Random(args.seed)
        boards = ["".join(rng.choice(LETTERS) for _ in range(16)) for _ in range(args.boards)]
        prepared = PreparedSolver(enable2k, (4, 4))
        codes = b"".join(prepared.encode(tuple("QU" if letter == "Q" else letter for letter in board)) for board in boards)
        boards_file = Path(folder) / "boards.txt"
        boards_file.write_text("".join(board + "\n" for board in boards))
        summary_command = [*command, "solve", "--batch", str(boards_file), "--summary", "--qu", "-d", "enable2k", "-q"]
        summary_output = output_of(summary_command, native)
        # The library call and the whole command in turns, so that both see the same load.
        library_times, cli_times, hybrid_times = [], [], []
        hybrid_points = 0
        for _ in range(args.runs):
            start = time.perf_counter()
            results = prepared.run_codes(codes, "totals")
            library_times.append(time.perf_counter() - start)
            cli_times.append(whole_process({"cli": (summary_command, native)}, 1)["cli"])
            if args.hybrid:
                wordlist = args.hybrid / "wordlists" / "enable2k.txt"
                out = subprocess.run(
                    [args.hybrid_python, "-c", HYBRID_LOOP, str(args.hybrid), str(boards_file), str(wordlist)],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
                hybrid_points = int(out[0])
                hybrid_times.append(float(out[1]))
        points = sum(total for _, total in results)
        library_rate = args.boards / statistics.median(library_times)
        cli_time = statistics.median(cli_times)
        summary_points = sum(int(line.rsplit(b"\t", 1)[1]) for line in summary_output.splitlines())
        if summary_points != points:
            raise SystemExit(f"the command's summary says {summary_points} points, the library {points}")
        rows = [
            f"| library batch call, C kernel, 1 thread | {library_rate:,.0f} | {points:,} |",
            f"| `boggle-dafsa solve --batch FILE --summary --qu -d enable2k` (whole process) | {args.boards / cli_time:,.0f} | {summary_points:,} |",
        ]
        if args.hybrid:
            hybrid_rate = args.boards / statistics.median(hybrid_times)
            rows.append(f"| hybrid-boggle C++ `Boggler44.score` (pybind11 loop) | {hybrid_rate:,.0f} | {hybrid_points:,} |")
        lines += [
            f"| {args.boards:,} random 4x4 boards, ENABLE2K, Q as QU | boards/s | total points |",
            "| --- | --: | --: |",
            *rows,
        ]
        if args.hybrid:
            lines.append(f"\nC kernel ÷ hybrid-boggle: {library_rate / hybrid_rate:.2f}×")
        lines.append(f"command ÷ library: {args.boards / cli_time / library_rate:.2f}")
    lines.append(f"{load_average()} at the end")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
