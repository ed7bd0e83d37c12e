"""Fuzz the compiled solver kernel with damaged and hostile native dictionaries.

Each round takes a small valid dictionary, damages its file (random cells, bit flips,
cells pointing at themselves or far outside the file, a lying root or longest-word
field with the header checksum made to match again, so that opening succeeds), opens
it as any user would and solves random grids of random shapes on it, with QU faces and
both adjacencies, through the compiled kernel and its Python twin. Every outcome must
be a result or the project's DictionaryError, never a crash; and both kernels must
agree: the same results, or both an error; their tallies by word group (``tally_many``, the
expected points' search) too, where both take the file. Each round also damages, in place, the cells
of a valid dictionary after the compiled kernel numbered its words (the numbers then lie
about the cells): its searches, the totals search among them, must still stay inside.
A fifth of the rounds damage a version 2 file (compact edges): the solver reads the cells
it expands into, when the expansion does not refuse it.

    python scripts/fuzz_kernel.py                 # 2,000 damaged files
    python scripts/fuzz_kernel.py --rounds 200    # a short run (CI)
    python scripts/fuzz_kernel.py --asan          # the same run on an AddressSanitizer build

``--asan`` compiles ``src/boggle_dafsa/solver/_native.c`` and the census
(``automaton/_census.c``) with ``-fsanitize=address,undefined`` (gcc or clang) into a
temporary folder and runs the fuzz in a child interpreter with both sanitizers' runtimes
preloaded: any out-of-bounds read or write, misaligned load, overflow or bad shift aborts
with a report. Every damaged file the header checks let through is first counted by the
census (compiled and Python twin, which must agree), then walked past it by the kernels.
Exit status 0 if every round passed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import struct
import subprocess
import sys
import sysconfig
import tempfile
import zlib
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers/: the test helpers, kept out of the wheel

from boggle_dafsa.automaton import fileformat  # noqa: E402
from boggle_dafsa.automaton.reader import NativeDictionary  # noqa: E402
from boggle_dafsa.board.grid import neighbours  # noqa: E402
from boggle_dafsa.errors import DictionaryError  # noqa: E402
from boggle_dafsa.output.jsonable import json_row  # noqa: E402
from boggle_dafsa.output.rows import SCORED_PATH_ROW, SUMMARY_LINE  # noqa: E402
from boggle_dafsa.solver import Hit  # noqa: E402
from boggle_dafsa.solver.python import Solver as PythonSolver  # noqa: E402
from boggle_dafsa.solver.python import numbered_words  # noqa: E402
from helpers.dictionaries import dictionary_from_words  # noqa: E402

ALPHABET = "ABCDEIKLNOQRSTU"
# (3, 3, 3, 3): a cell with 80 neighbours, more than the masked search takes.
SHAPES = [(4, 4), (3, 5), (1, 7), (2, 2, 3), (2, 2, 2, 2), (6, 6), (9,), (3, 3, 3, 3)]


def load_compiled(path: str | None):  # type: ignore[no-untyped-def]
    """The compiled Solver: the installed one, or the build at ``path``."""
    if path is None:
        from boggle_dafsa.solver import _native

        return _native.Solver
    spec = importlib.util.spec_from_file_location("boggle_dafsa.solver._native", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Solver


def damage(data: bytearray, rng: random.Random, header_size: int, cell_count: int) -> None:
    """Damage the cells of a native file in place, in one of several ways."""
    body = header_size
    kind = rng.randrange(8)
    if kind >= 6:
        # A state at the very end whose letters' children lie past the last cell, and
        # transitions leading to it: the boundary a missing check would cross.
        letters = fileformat.FINAL_FLAG | (2 ** len(ALPHABET) - 1) if kind == 6 else rng.getrandbits(32)
        struct.pack_into("<I", data, body + 4 * (cell_count - 1), letters)
        for _ in range(rng.randint(1, 12)):
            struct.pack_into("<I", data, body + 4 * rng.randrange(cell_count), cell_count - rng.randint(1, 2))
        return
    for _ in range(rng.randint(1, 8)):
        cell = rng.randrange(cell_count)
        at = body + 4 * cell
        if kind == 0:  # a random value
            value = rng.getrandbits(32)
        elif kind == 1:  # one bit flipped
            value = struct.unpack_from("<I", data, at)[0] ^ (1 << rng.randrange(32))
        elif kind == 2:  # pointing at itself or a neighbour (cycles)
            value = max(0, cell + rng.randint(-3, 3))
        elif kind == 3:  # just past the end, or far outside
            value = rng.choice([cell_count, cell_count + 1, 2**31, 2**32 - 1])
        elif kind == 4:  # a header with every letter (children read past the state)
            value = fileformat.FINAL_FLAG | (2 ** len(ALPHABET) - 1)
        else:  # zero: a state with no letters, or the first cell
            value = 0
        struct.pack_into("<I", data, at, value)
    if rng.random() < 0.3:
        # A lying header: root or longest word changed, its checksum recomputed.
        fields = list(fileformat._FIXED.unpack_from(data))
        if rng.random() < 0.5:
            fields[11] = rng.randrange(cell_count)  # root
        else:
            fields[10] = rng.choice([0, 1, 2, 1000, 2**32 - 1])  # longest word
        fields[-1] = 0
        fileformat._FIXED.pack_into(data, 0, *fields)
        crc = zlib.crc32(bytes(data[:header_size]))
        struct.pack_into("<I", data, fileformat._HEADER_CRC_OFFSET, crc)


def damage_compact(data: bytearray, rng: random.Random, header_size: int, body_bytes: int) -> None:
    """Damage the body of a version 2 file in place: bytes changed, flags that send edges
    past the end or back onto themselves, varints too long, a lying root or longest word."""
    body = header_size
    kind = rng.randrange(6)
    for _ in range(rng.randint(1, 6)):
        at = body + rng.randrange(body_bytes)
        if kind == 0:  # a random byte
            data[at] = rng.getrandbits(8)
        elif kind == 1:  # one bit flipped
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 2:  # an edge of every kind, last or not, final or not, escaped label or not
            data[at] = rng.choice([0x0F, 0x1F, 0x2F, 0x3F, 0x10, 0x90, 0xA0, 0xB0, 0x20, 0x30, 0x8F])
        elif kind == 3:  # varint continuation bytes (too long, or past the end)
            data[at : at + 6] = b"\xff" * len(data[at : at + 6])
        elif kind == 4:  # the last edge flag cleared: a state runs on into the next
            data[at] &= 0x7F
        else:  # an absolute reference back to the start (cycles)
            data[at] = 0x30 | (data[at] & 0x8F)
            if at + 1 < len(data):
                data[at + 1] = 0
    if rng.random() < 0.3:
        fields = list(fileformat._FIXED.unpack_from(data))
        if rng.random() < 0.5:
            fields[11] = rng.randrange(body_bytes + 1)  # root
        else:
            fields[10] = rng.choice([0, 1, 2, 1000, 2**32 - 1])  # longest word
        fields[-1] = 0
        fileformat._FIXED.pack_into(data, 0, *fields)
        struct.pack_into("<I", data, fileformat._HEADER_CRC_OFFSET, zlib.crc32(bytes(data[:header_size])))


def damaged_dictionary(
    rng: random.Random, folder: str, round_number: int, extra: frozenset[str] = frozenset(), version: int = 1
) -> NativeDictionary | None:
    """A random small dictionary (plus the words ``extra``) in format ``version``, damaged,
    then opened as a user would; None if opening refused it."""
    words = {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))) for _ in range(rng.randint(1, 60))}
    good = dictionary_from_words(words | extra, folder, name="good.dafsa", version=version)
    data = bytearray(Path(good.path).read_bytes())
    header_size, cell_count = good.header.header_size, good.header.cell_count
    good.close()
    if version == 1:
        damage(data, rng, header_size, cell_count)
    else:
        damage_compact(data, rng, header_size, cell_count)
    path = Path(folder) / f"damaged{round_number % 7}.dafsa"
    path.write_bytes(data)
    try:
        opened = NativeDictionary(path)
    except DictionaryError:
        return None
    census_agrees(opened)
    # Past the census, so that the kernels meet the damage themselves (their own checks).
    opened._checked = True
    return opened


def census_agrees(opened: NativeDictionary) -> str:
    """The census verdict of the compiled census and of its Python twin (raises
    AssertionError if they differ): "sound" or "damaged"."""
    from boggle_dafsa.automaton import reader

    verdicts = []
    for census in (reader._compiled_census, lambda: None):
        saved = reader._compiled_census
        reader._compiled_census = census  # type: ignore[assignment]
        try:
            fresh = NativeDictionary(opened.path)
            fresh.census()
            verdicts.append("sound")
        except DictionaryError as error:
            verdicts.append("damaged" if "damaged" in str(error) else str(error))
        finally:
            reader._compiled_census = saved  # type: ignore[assignment]
    if verdicts[0] != verdicts[1]:
        raise AssertionError(f"the census kernels disagree over {opened.path}: compiled {verdicts[0]}, python {verdicts[1]}")
    return verdicts[0]


def run_of(codes: bytes, cells: int) -> bytes:
    """The first grid of ``codes`` with one cell showing, in turn, every code of ``codes``: a
    run of grids that differ in one cell, which the kernels' totals walk together
    (_native_hood.h and its twin)."""
    first = codes[:cells]
    cell = sum(first) % cells
    return b"".join(first[:cell] + bytes([code]) + first[cell + 1 :] for code in sorted(set(codes)))


def outcome(
    solver_class,
    dictionary: NativeDictionary,
    table,
    codes: bytes,
    faces: dict[int, bytes],
    min_length: int,
    heap: bool,  # type: ignore[no-untyped-def]
    number: bool,
):
    layout = dictionary.layout()
    # The mapped cells, or a copy on the heap: there (with PYTHONMALLOC=malloc, as --asan
    # runs) every byte past the end is a red zone AddressSanitizer watches; past a mapping
    # only the next page would tell.
    cells = array("I", layout.cells) if heap else layout.cells
    solver = solver_class(
        cells,
        layout.root,
        layout.longest_word,
        layout.alphabet,
        table,
        min_length,
        (0, 0, 0, 1, 1, 2, 3, 5, 11),
        Hit,
        DictionaryError,
        dictionary.path,
    )
    for code, letters in faces.items():
        solver.set_face(code, letters)
    # Words numbered (what the C kernel does after a few grids) when the file allows.
    numbered = solver.number_words() if number else False
    cells = [f"<{cell}é>" for cell in range(len(table))]  # rows written in C: any cell text, UTF-8
    try:
        rows = [
            solver.rows_many(codes, cells, row.template, row.between, row.cell_separator) for row in (SCORED_PATH_ROW, json_row())
        ]
        # Totals (mode 0) last: with the words numbered, a search of its own (totals_grid),
        # also behind the summary lines (any ASCII letters: they are only shown).
        letters = bytes(ord("A") + code % 26 if code % 7 else ord("Q") for code in codes)
        line = SUMMARY_LINE
        summary = solver.summary_rows(
            codes, letters, len(table), True, line.template, line.between, line.row_separator, line.face_separator
        )
        counted = tally(solver, layout, codes)
        return (
            "ok",
            counted,
            solver.solve_many(codes, 2),
            solver.solve_many(codes, 3),
            rows,
            solver.solve_many(codes, 0),
            summary,
            solver.solve_many(run_of(codes, len(table)), 0),
        ), numbered
    except DictionaryError:
        return ("error",), numbered


def tally(solver, layout, codes: bytes):  # type: ignore[no-untyped-def]
    """``tally_many`` of ``codes`` with the words put in 5 groups by number: ("ok", found,
    squares), ("error",) for DictionaryError, ("refused",) for a file or shape it does not
    take (ValueError: words not numbered, grids past 64 cells)."""
    try:
        count = len(numbered_words(layout))
    except IndexError:
        count = 0
    groups = array("I", [number % 5 for number in range(count)])
    found, squares = array("Q", bytes(40)), array("Q", bytes(40))
    try:
        solver.tally_many(codes, groups, found, squares)
    except ValueError:
        return ("refused",)
    except DictionaryError:
        return ("error",)
    return ("ok", list(found), list(squares))


def stale_round(compiled, rng: random.Random, folder: str) -> str:  # type: ignore[no-untyped-def]
    """A valid dictionary numbered by the compiled kernel, then its cells (a heap copy)
    damaged in place: the numbers no longer fit the cells, and every search must still
    stay inside them, giving a result or DictionaryError (the twin, which numbers
    nothing, may well give a result where the compiled kernel reports the damage, so
    the two are not compared). "ok", "error" or "unnumbered"."""
    words = {"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))) for _ in range(rng.randint(1, 60))}
    dictionary = dictionary_from_words(words | {"QUE", "SQUAT"}, folder, name="stale.dafsa")
    layout = dictionary.layout()
    cells = array("I", layout.cells)
    shape = rng.choice(SHAPES)
    table = neighbours(shape if len(shape) > 1 else (1, *shape), rng.choice(["king", "orthogonal"]))
    solver = compiled(
        cells,
        layout.root,
        layout.longest_word,
        layout.alphabet,
        table,
        rng.randint(1, 4),
        (0, 0, 0, 1, 1, 2, 3, 5, 11),
        Hit,
        DictionaryError,
        dictionary.path,
    )
    letters = layout.letter_bits
    solver.set_face(32, bytes([letters["Q"], letters["U"]]))
    choices = sorted(letters.values()) + [31, 32, 32]
    codes = bytes(rng.choice(choices) for _ in range(len(table) * rng.randint(1, 4)))
    numbered = solver.number_words()
    groups = array("I", [number % 5 for number in range(len(numbered_words(layout)))])
    for _ in range(rng.randint(1, 6)):
        cell = rng.randrange(len(cells))
        cells[cell] = rng.choice(
            [rng.getrandbits(32), len(cells) - 1, len(cells), cell, 0, cells[cell] ^ (1 << rng.randrange(32))]
        )
    dictionary.close()
    try:
        for mode in (0, 2):
            solver.solve_many(codes, mode)
        solver.solve_many(run_of(codes, len(table)), 0)
        try:
            solver.tally_many(codes, groups, array("Q", bytes(40)), array("Q", bytes(40)))
        except ValueError:
            pass  # grids past 64 cells
    except DictionaryError:
        return "error" if numbered else "unnumbered"
    return "ok" if numbered else "unnumbered"


def fuzz(rounds: int, seed: int, compiled_path: str | None) -> int:
    load_census()
    compiled = load_compiled(compiled_path)
    print(f"compiled kernel: {sys.modules[compiled.__module__].__file__}", flush=True)
    rng = random.Random(seed)
    errors = agreements = numbered_rounds = compacts = tallies = 0
    stale = {"ok": 0, "error": 0, "unnumbered": 0}
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(rounds):
            # A fifth of the rounds damage a version 2 file, which the solver reads expanded into cells.
            version = 2 if round_number % 5 == 4 else 1
            dictionary = damaged_dictionary(rng, folder, round_number, frozenset({"QUE", "QUOI", "SQUAT"}), version)
            if dictionary is None:
                continue  # refused at open: nothing reaches the kernel
            if version == 2:
                try:
                    dictionary.layout()
                except DictionaryError:
                    dictionary.close()
                    continue  # refused when expanded: nothing reaches the kernel
                compacts += 1
            path = dictionary.path
            shape = rng.choice(SHAPES)
            table = neighbours(shape if len(shape) > 1 else (1, *shape), rng.choice(["king", "orthogonal"]))
            letters = dictionary.layout().letter_bits
            qu = bytes([letters["Q"], letters["U"]]) if "Q" in letters and "U" in letters else None
            faces = {32: qu} if qu else {}
            choices = sorted(letters.values()) + [31] + ([32] * 3 if qu else [])
            codes = bytes(rng.choice(choices) for _ in range(len(table) * rng.randint(1, 4)))
            min_length = rng.randint(1, 4)
            heap = round_number % 2 == 1
            number = round_number % 4 >= 2
            compiled_result, numbered = outcome(compiled, dictionary, table, codes, faces, min_length, heap, number)
            python_result, _ = outcome(PythonSolver, dictionary, table, codes, faces, min_length, heap, number)
            numbered_rounds += numbered
            dictionary.close()
            # Tallies compared where both kernels took the file (the twin numbers what the
            # compiled kernel may refuse to: a slot shared by two states).
            if compiled_result[0] == python_result[0] == "ok":
                ours, theirs = compiled_result[1], python_result[1]
                if ours[0] == theirs[0] == "ok" and ours != theirs:
                    print(f"round {round_number}: the tallies disagree on {path} (seed {seed})", file=sys.stderr)
                    return 1
                tallies += ours[0] == theirs[0] == "ok"
                compiled_result, python_result = (
                    (compiled_result[0], *compiled_result[2:]),
                    (python_result[0], *python_result[2:]),
                )
            if compiled_result != python_result:
                print(f"round {round_number}: the kernels disagree on {path} (seed {seed})", file=sys.stderr)
                return 1
            errors += compiled_result[0] == "error"
            agreements += 1
            stale[stale_round(compiled, rng, folder)] += 1
    print(
        f"{rounds:,} damaged files ({compacts:,} of version 2, expanded), {agreements:,} reached the kernels: "
        f"{errors:,} raised DictionaryError, "
        f"{agreements - errors:,} gave results ({numbered_rounds:,} with the words numbered, {tallies:,} tallied by both); "
        "both kernels agreed every time, no crash"
    )
    print(
        f"{sum(stale.values()):,} numbered dictionaries damaged after numbering: {stale['error']:,} raised "
        f"DictionaryError, {stale['ok']:,} gave results, no crash"
    )
    return 0


#: The census (automaton/_census.c): built with the sanitizers beside the fuzzed part, and
#: loaded by the child through this variable (read by the fuzz scripts, not the package).
CENSUS_SOURCE = ROOT / "src" / "boggle_dafsa" / "automaton" / "_census.c"
CENSUS_VARIABLE = "BOGGLE_DAFSA_FUZZ_CENSUS"


def asan_build(folder: str, source: Path = ROOT / "src" / "boggle_dafsa" / "solver" / "_native.c") -> str:
    """Compile the C file ``source`` with AddressSanitizer and UndefinedBehaviorSanitizer
    (every finding fatal: misaligned loads, overflows, shifts past the width) into
    ``folder``: the path of the module."""
    compiler = os.environ.get("CC", "gcc")
    target = os.path.join(folder, source.stem + sysconfig.get_config_var("EXT_SUFFIX"))
    command = [
        compiler,
        "-shared",
        "-fPIC",
        "-O1",
        "-g",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=undefined",
        "-fno-omit-frame-pointer",
        "-I",
        sysconfig.get_paths()["include"],
        str(source),
        "-o",
        target,
    ]
    subprocess.run(command, check=True)
    return target


def run_under_asan(script: str, source: Path, arguments: list[str], census: bool = True) -> int:
    """Run ``script`` with ``arguments`` and ``--module`` set to a sanitized build of ``source``
    (with ``census``, the census too, sanitized, through :data:`CENSUS_VARIABLE`), in a child
    interpreter with the sanitizers' runtimes preloaded: its exit status."""
    compiler = os.environ.get("CC", "gcc")
    runtimes = [
        subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        for name in ("libasan.so", "libubsan.so")
    ]
    with tempfile.TemporaryDirectory() as folder:
        builds = [asan_build(folder, source)]
        environment = dict(
            os.environ,
            LD_PRELOAD=" ".join(runtimes),
            PYTHONMALLOC="malloc",
            ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
            UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        )
        if census:
            os.mkdir(os.path.join(folder, "census"))
            builds.append(asan_build(os.path.join(folder, "census"), CENSUS_SOURCE))
            environment[CENSUS_VARIABLE] = builds[-1]
        print(f"AddressSanitizer + UndefinedBehaviorSanitizer builds: {', '.join(builds)}", flush=True)
        return subprocess.run([sys.executable, script, *arguments, "--module", builds[0]], env=environment).returncode


def load_census() -> None:
    """Make the sanitized census named by :data:`CENSUS_VARIABLE` the compiled census (if set)."""
    path = os.environ.get(CENSUS_VARIABLE)
    if path:
        spec = importlib.util.spec_from_file_location("boggle_dafsa.automaton._census", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["boggle_dafsa.automaton._census"] = module
        from boggle_dafsa import compiled

        compiled._loaded["census"] = module
        print(f"census: {path}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="damaged files to try (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--asan", action="store_true", help="run on an AddressSanitizer build of the kernel")
    parser.add_argument("--module", help=argparse.SUPPRESS)  # the build to load (set by --asan)
    args = parser.parse_args()
    if not args.asan:
        return fuzz(args.rounds, args.seed, args.module)
    return run_under_asan(
        __file__, ROOT / "src" / "boggle_dafsa" / "solver" / "_native.c", ["--rounds", str(args.rounds), "--seed", str(args.seed)]
    )


if __name__ == "__main__":
    sys.exit(main())
