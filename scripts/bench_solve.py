#!/usr/bin/env python3
"""Benchmark the solver against the usual Python approaches, in one run, on the same grids.

Grids: ``--grids`` random 4x4 grids (default 300) drawn with a fixed seed from the 16
official French dice: the dice shuffled over the cells, one face of each at random.
Dictionary: the embedded French list (``open_dictionary("fr")``, native format, mapped).

In-process, every solver does the same job: every word of 3 letters or more with one
path, scored with the official table and sorted like ``solve`` (score, length, word).
The competitors, all checked to find the same words on every grid before timing:

* ``solve()``: the library, fast kernel on the mapped native file;
* ``solve()`` through the cursor only (``root``/``step``/``is_word``), as for a foreign format;
* a dict-of-dicts trie built in Python from the same words: the usual approach, tuned
  (words stored in their final node, neighbour tuples, an int bitmask of used cells):
  the baseline;
* marisa-trie: a depth-first search asking ``has_keys_with_prefix`` at each step;
* dawg-python: a dawgdic file (built with dawg2) stepped one face at a time.

Each grid is timed ``--repeat`` times by each solver, the solvers taking turns in a
rotating order (the first to touch a grid's part of a dictionary pays for the cache);
a grid's time is the median of its repeats, and the table shows the median over grids.

Cold start: the wall time of the whole process ``boggle-dafsa solve GRID -q`` against
``python -c "import typer"`` on the same interpreter, median of ``--runs`` runs taken in
turns (the embedded dictionary compiled beforehand, as after the first use).

Machines here are noisy and shared: trust the ratios within one run more than the
absolute figures.

    python scripts/bench_solve.py [--grids 300] [--repeat 3] [--runs 15] [--seed 1] [--output FILE]
"""

from __future__ import annotations

import argparse
import gc
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from boggle_dafsa.board.dice import generate_grids, load_dice  # noqa: E402
from boggle_dafsa.board.grid import Grid, neighbours  # noqa: E402
from boggle_dafsa.board.scoring import CLASSIC  # noqa: E402
from boggle_dafsa.dictionaries.resolve import open_dictionary  # noqa: E402
from boggle_dafsa.solver import solve  # noqa: E402

MIN_LENGTH = 3
COLD_GRID = "IDXT/MHEI/ERVN/TLLU"
TARGET_IN_PROCESS = 1.0
TARGET_COLD = 1.3

Ranked = list[tuple[str, int, tuple[int, ...]]]


def french_grids(count: int, seed: int) -> list[Grid]:
    """``count`` 4x4 grids rolled with the 16 French dice (the project's seeded generator)."""
    return list(generate_grids(load_dice("fr"), seed, count))


def ranked(found: dict[str, tuple[int, ...]]) -> Ranked:
    """(word, score, path) sorted like ``solve``: what every competitor returns."""
    return sorted(
        ((word, CLASSIC.score(word), path) for word, path in found.items()),
        key=lambda hit: (-hit[1], -len(hit[0]), hit[0]),
    )


# -- the competitors ---------------------------------------------------------------------


def library(dictionary: Any) -> Callable[[Grid], Ranked]:
    def run(grid: Grid) -> Ranked:
        return [(hit.word, hit.points, hit.path) for hit in solve(grid, dictionary)]

    return run


class CursorOnly:
    """The native dictionary seen through the cursor interface only (no fast kernel)."""

    format_name = "cursor"

    def __init__(self, dictionary: Any) -> None:
        self.root = dictionary.root
        self.step = dictionary.step
        self.is_word = dictionary.is_word


def dict_trie(words: list[str]) -> Callable[[Grid], Ranked]:
    """The baseline: a trie of nested dicts, the word itself stored under the key ``""``."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for letter in word:
            node = node.setdefault(letter, {})
        node[""] = word

    def run(grid: Grid) -> Ranked:
        faces = grid.faces
        table = neighbours(grid.shape)
        steps = [tuple((other, 1 << other, faces[other]) for other in table[cell]) for cell in range(len(faces))]
        found: dict[str, tuple[int, ...]] = {}
        path: list[int] = []

        def visit(cell: int, node: dict[str, Any], used: int) -> None:
            for other, bit, face in steps[cell]:
                if not used & bit:
                    child = node.get(face) if len(face) == 1 else walk(node, face)
                    if child is not None:
                        word = child.get("")
                        if word is not None and len(word) >= MIN_LENGTH and word not in found:
                            found[word] = (*path, cell, other)
                        if len(child) > (word is not None):
                            path.append(cell)
                            visit(other, child, used | bit)
                            path.pop()

        for start, face in enumerate(faces):
            node = walk(root, face)
            if node is not None:
                visit(start, node, 1 << start)
        return ranked(found)

    def walk(node: dict[str, Any] | None, letters: str) -> dict[str, Any] | None:
        for letter in letters:
            if node is None:
                return None
            node = node.get(letter)
        return node

    return run


def marisa_dfs(words: list[str]) -> Callable[[Grid], Ranked]:
    import marisa_trie

    trie = marisa_trie.Trie(words)
    warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*has_keys_with_prefix")
    has_prefix = trie.has_keys_with_prefix

    def run(grid: Grid) -> Ranked:
        faces = grid.faces
        table = neighbours(grid.shape)
        found: dict[str, tuple[int, ...]] = {}

        def visit(cell: int, prefix: str, used: int, path: tuple[int, ...]) -> None:
            if len(prefix) >= MIN_LENGTH and prefix not in found and prefix in trie:
                found[prefix] = path
            for other in table[cell]:
                if not used >> other & 1:
                    longer = prefix + faces[other]
                    if has_prefix(longer):
                        visit(other, longer, used | 1 << other, (*path, other))

        for start, face in enumerate(faces):
            if has_prefix(face):
                visit(start, face, 1 << start, (start,))
        return ranked(found)

    return run


def dawg_stepping(words: list[str], folder: Path) -> Callable[[Grid], Ranked] | None:
    try:
        import dawg  # dawg2, to build the file
        import dawg_python
    except ImportError:
        return None
    path = folder / "fr.dawg"
    dawg.DAWG(words).save(str(path))
    dictionary = dawg_python.DAWG().load(str(path)).dct
    follow = dictionary.follow_bytes
    has_value = dictionary.has_value

    def run(grid: Grid) -> Ranked:
        faces = [face.encode("utf-8") for face in grid.faces]
        table = neighbours(grid.shape)
        found: dict[str, tuple[int, ...]] = {}

        def visit(cell: int, index: int, word: bytes, used: int, path: tuple[int, ...]) -> None:
            if len(word) >= MIN_LENGTH and has_value(index):
                key = word.decode("utf-8")
                if key not in found:
                    found[key] = path
            for other in table[cell]:
                if not used >> other & 1:
                    child = follow(faces[other], index)
                    if child is not None:
                        visit(other, child, word + faces[other], used | 1 << other, (*path, other))

        for start, face in enumerate(faces):
            index = follow(face, dictionary.ROOT)
            if index is not None:
                visit(start, index, face, 1 << start, (start,))
        return ranked(found)

    return run


# -- timing ------------------------------------------------------------------------------


def time_in_process(solvers: dict[str, Callable[[Grid], Ranked]], grids: list[Grid], repeat: int) -> dict[str, float]:
    """Median over grids of each grid's median time (µs), solvers taking turns."""
    names = list(solvers)
    per_grid: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    gc.disable()
    try:
        for number, grid in enumerate(grids):
            samples: dict[str, list[float]] = {name: [] for name in names}
            for round_ in range(repeat):
                shift = (number + round_) % len(names)
                for name in names[shift:] + names[:shift]:
                    run = solvers[name]
                    start = time.perf_counter()
                    run(grid)
                    samples[name].append(time.perf_counter() - start)
            for name in names:
                per_grid[name].append(statistics.median(samples[name]))
    finally:
        gc.enable()
    return {name: statistics.median(times) * 1e6 for name, times in per_grid.items()}


def time_cold(commands: dict[str, list[str]], runs: int) -> dict[str, float]:
    """Median wall time (ms) of each whole command, taking turns."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1e3 for name, values in times.items()}


def console_script() -> list[str]:
    """``boggle-dafsa`` as installed beside this interpreter (not a shim that starts another)."""
    script = Path(sys.executable).parent / "boggle-dafsa"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=15, help="runs of each whole command for the cold start")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, help="also write the table (markdown) to this file")
    args = parser.parse_args()

    french = open_dictionary("fr")
    words = list(french)
    grids = french_grids(args.grids, args.seed)
    print(
        f"{len(words):,} French words, {len(grids)} grids (seed {args.seed}); building the other structures...", file=sys.stderr
    )
    with tempfile.TemporaryDirectory() as folder:
        solvers: dict[str, Callable[[Grid], Ranked]] = {
            "boggle-dafsa solve(), native file (mapped)": library(french),
            "boggle-dafsa solve(), cursor interface only": library(CursorOnly(french)),
            "dict-of-dicts trie (baseline)": dict_trie(words),
            "marisa-trie, prefix queries": marisa_dfs(words),
        }
        dawg_solver = dawg_stepping(words, Path(folder))
        if dawg_solver is not None:
            solvers["dawg-python, stepping"] = dawg_solver
        reference = solvers["dict-of-dicts trie (baseline)"]
        for grid in grids:
            expected = {word for word, _, _ in reference(grid)}
            for name, run in solvers.items():
                if {word for word, _, _ in run(grid)} != expected:
                    raise SystemExit(f"{name} disagrees with the baseline on {grid}")
        print("all solvers agree on every grid; timing...", file=sys.stderr)
        in_process = time_in_process(solvers, grids, args.repeat)

    command = console_script()
    subprocess.run([*command, "solve", COLD_GRID, "-d", "fr", "-q"], stdout=subprocess.DEVNULL, check=True)
    typer_label = '`python -c "import typer"`'
    ours_label = f"`boggle-dafsa solve {COLD_GRID} -d fr -q`"
    cold_commands = {
        typer_label: [sys.executable, "-c", "import typer"],
        ours_label: [*command, "solve", COLD_GRID, "-d", "fr", "-q"],
        # The interpreter alone: what no Python command can go below.
        '`python -c "pass"`': [sys.executable, "-c", "pass"],
    }
    cold = time_cold(cold_commands, args.runs)

    baseline = in_process["dict-of-dicts trie (baseline)"]
    typer_alone = cold[typer_label]
    ours = in_process["boggle-dafsa solve(), native file (mapped)"]
    ours_cold = cold[ours_label]
    invocation = " ".join(["python scripts/bench_solve.py", *map(shlex.quote, sys.argv[1:])])
    lines = [
        f"`{invocation}`",
        f"({platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
        f"{len(grids)} French 4x4 grids, seed {args.seed}, {args.repeat} repeats)",
        "",
        "| solver, in process | median µs per grid | ratio to baseline |",
        "| --- | ---: | ---: |",
        *(f"| {name} | {value:,.0f} | {value / baseline:.2f} |" for name, value in in_process.items()),
        "",
        "| whole process | median ms | ratio to `import typer` |",
        "| --- | ---: | ---: |",
        *(f"| {label} | {value:,.0f} | {value / typer_alone:.2f} |" for label, value in cold.items()),
        "",
        f"targets: in process ≤ {TARGET_IN_PROCESS}x the baseline: {ours / baseline:.2f}x "
        f"({'met' if ours / baseline <= TARGET_IN_PROCESS else 'NOT met'}); "
        f"cold command ≤ {TARGET_COLD}x `import typer`: {ours_cold / typer_alone:.2f}x "
        f"({'met' if ours_cold / typer_alone <= TARGET_COLD else 'NOT met'})",
    ]
    text = "\n".join(lines)
    print(text)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
