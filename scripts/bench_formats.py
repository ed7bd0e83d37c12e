#!/usr/bin/env python3
"""Benchmark the three dictionary formats (native, marisa, dawg) against each other, in one run.

For each embedded list (French, English, ENABLE2K, normalized as ``build`` does):

* build time: ``formats.write_dictionary(words, path, format)`` on the ready list of
  words, file and sidecar written atomically with fsync; median over ``--repeat`` runs,
  the formats taking turns so that noise spreads evenly;
* file bytes (the sidecar of a foreign file is counted apart: it is about 400 bytes);
* open time: ``formats.open_path(path)``, detection, sidecar and digest check included;
  median over ``--opens`` opens; and for foreign files, the same without their sidecar
  (the format's own cost: no SHA-256 of the file to check);
* for the French list, the solver: median µs per grid over ``--grids`` grids rolled
  with the French dice (seed ``--seed``), each grid timed ``--repeat`` times through each
  format (formats in turn), the median of a grid's times taken as its time. The same
  opened dictionary serves every grid, as in one ``solve`` over a file of grids.

dawg2 (C++ dawgdic), when installed, is timed as a reference for the dawg writer, and
each dawg file is compared with its output byte for byte.

Ratios are to native in the same run; trust them more than the absolute figures on a
noisy machine.

    python scripts/bench_formats.py [--lists fr en enable2k] [--repeat 3] [--opens 200] [--grids 300]
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from boggle_dafsa.board.dice import generate_grids, load_dice  # noqa: E402
from boggle_dafsa.dictionaries.resolve import open_dictionary  # noqa: E402
from boggle_dafsa.formats import FORMATS, open_path, write_dictionary  # noqa: E402
from boggle_dafsa.formats.sidecar import sidecar_path  # noqa: E402
from boggle_dafsa.solver import solve  # noqa: E402

DEFAULT_OUTPUT = Path(tempfile.gettempdir()) / "bench_formats_result.md"


def median_time(action: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``action`` over ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bench_list(name: str, folder: Path, repeat: int, opens: int) -> tuple[list[str], dict[str, Path]]:
    """Build, size and open one list in every format; print its table. Returns the rows."""
    words = list(open_dictionary(name))
    paths = {format: folder / f"{name}.{format}" for format in FORMATS}
    build_times: dict[str, list[float]] = {format: [] for format in FORMATS}
    for _ in range(repeat):
        for format in FORMATS:  # in turn, so that noise spreads over all
            build_times[format].append(median_time(lambda: write_dictionary(words, paths[format], format), 1))
    reference = dawg2_reference(words, paths["dawg"], repeat)

    open_times, bare_open_times = {}, {}
    for format in FORMATS:
        open_path(paths[format])  # warm: imports and the page cache
        gc.collect()
        open_times[format] = median_time(lambda: open_path(paths[format]), opens)
        meta = sidecar_path(paths[format])
        if meta.exists():  # the format's own cost, without reading and checking a sidecar
            hidden = meta.rename(meta.with_name(meta.name + ".hidden"))
            bare_open_times[format] = median_time(lambda: open_path(paths[format]), opens)
            hidden.rename(meta)

    native_build = statistics.median(build_times["native"])
    native_bytes = paths["native"].stat().st_size
    native_open = open_times["native"]
    rows = [
        f"### {name}: {len(words):,} words",
        "",
        "| format | build s | × native | file bytes | × native | bytes/word | open µs | × native | open µs, no sidecar |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for format in FORMATS:
        build = statistics.median(build_times[format])
        size = paths[format].stat().st_size
        bare = f"{bare_open_times[format] * 1e6:.0f}" if format in bare_open_times else ""
        rows.append(
            f"| {format} | {build:.3f} | {build / native_build:.2f} | {size:,} | {size / native_bytes:.2f} "
            f"| {size / len(words):.2f} | {open_times[format] * 1e6:.0f} | {open_times[format] / native_open:.2f} | {bare} |"
        )
    if reference:
        seconds, size, identical = reference
        rows.append(
            f"| dawg by dawg2 (C++), reference | {seconds:.3f} | {seconds / native_build:.2f} | {size:,} "
            f"| {size / native_bytes:.2f} | {size / len(words):.2f} | | | |"
        )
        rows.append("")
        rows.append(f"Our dawg file is {'byte-identical to' if identical else 'DIFFERENT from'} dawg2's for this list.")
    sidecar = sidecar_path(paths["dawg"]).stat().st_size
    rows.append(f"Sidecar of a foreign file: {sidecar} bytes, not counted above.")
    rows.append("")
    print("\n".join(rows), flush=True)
    return rows, paths


def dawg2_reference(words: list[str], ours: Path, repeat: int) -> tuple[float, int, bool] | None:
    """dawg2's build time and size for ``words``, and whether our file is identical."""
    try:
        import dawg
    except ImportError:
        return None
    seconds = median_time(lambda: dawg.CompletionDAWG(words).tobytes(), repeat)
    data = dawg.CompletionDAWG(words).tobytes()
    return seconds, len(data), data == ours.read_bytes()


def bench_solver(paths: dict[str, Path], grid_count: int, seed: int, repeat: int) -> list[str]:
    """Median µs per grid of the solver through each format; the table as lines."""
    grids = list(generate_grids(load_dice("fr"), seed, grid_count))
    dictionaries = {format: open_path(paths[format]) for format in FORMATS}
    times: dict[str, list[list[float]]] = {format: [[] for _ in grids] for format in FORMATS}
    found: dict[str, list[list[str]]] = {}
    for format, dictionary in dictionaries.items():  # warm, and the answers to compare
        found[format] = [[hit.word for hit in solve(grid, dictionary)] for grid in grids]
    for _ in range(repeat):
        for format, dictionary in dictionaries.items():
            for index, grid in enumerate(grids):
                started = time.perf_counter()
                solve(grid, dictionary)
                times[format][index].append(time.perf_counter() - started)
    per_grid = {format: statistics.median(statistics.median(t) for t in times[format]) for format in FORMATS}
    same = all(found[format] == found["native"] for format in FORMATS)
    words = sum(map(len, found["native"]))
    rows = [
        f"### Solver, French list: {grid_count} grids of the French dice (seed {seed}), {words:,} words in all",
        "",
        "| format | median µs per grid | × native |",
        "|---|---:|---:|",
    ]
    for format in FORMATS:
        rows.append(f"| {format} | {per_grid[format] * 1e6:,.0f} | {per_grid[format] / per_grid['native']:.2f} |")
    rows.append("")
    rows.append(f"Same words through every format: {'yes' if same else 'NO'}.")
    rows.append("")
    print("\n".join(rows), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lists", nargs="+", default=["fr", "en", "enable2k"], help="embedded lists (default: all three)")
    parser.add_argument("--repeat", type=int, default=3, help="builds per list and format, and timings per grid (default 3)")
    parser.add_argument("--opens", type=int, default=200, help="opens timed per file (default 200)")
    parser.add_argument("--grids", type=int, default=300, help="French grids for the solver (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the French grids (default 1)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"markdown copy (default {DEFAULT_OUTPUT})")
    args = parser.parse_args()

    header = [
        "## Formats benchmark",
        "",
        f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d')}; medians; ratios to native in the same run.",
        "",
    ]
    print("\n".join(header), flush=True)
    rows = list(header)
    with tempfile.TemporaryDirectory() as folder:
        french: dict[str, Path] | None = None
        for name in args.lists:
            table, paths = bench_list(name, Path(folder), args.repeat, args.opens)
            rows += table
            if name == "fr":
                french = paths
        if french is not None and args.grids > 0:
            rows += bench_solver(french, args.grids, args.seed, args.repeat)
    args.output.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"(written to {args.output})")


if __name__ == "__main__":
    main()
