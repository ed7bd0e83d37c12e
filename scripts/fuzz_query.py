"""Fuzz the compiled query walks (``src/boggle_dafsa/query/_walk.c``) with damaged native dictionaries.

Each round damages a small valid dictionary the way ``fuzz_kernel.py`` does (random cells,
bit flips, cycles, cells pointing outside the file, a lying root or longest word with the
header checksum made to match again), opens it as any user would, and runs random queries
on it through the compiled kernel and its Python twin: patterns and anagram racks through
the DFA walk (``walk``), and fuzzy matches, with transpositions and prefixes, through the
row-per-depth walk (``fuzzy``). Every outcome must be a result or the project's
DictionaryError, never a crash; and both kernels must agree: the same results, or both
an error.

    python scripts/fuzz_query.py                 # 2,000 damaged files
    python scripts/fuzz_query.py --rounds 200    # a short run (CI)
    python scripts/fuzz_query.py --asan          # the same run on an AddressSanitizer build

``--asan`` compiles ``_walk.c`` with ``-fsanitize=address`` into a temporary folder and runs
the fuzz in a child interpreter with the sanitizer's runtime preloaded (PYTHONMALLOC=malloc,
and every other round the cells are copied to the heap, where bytes past the end are watched):
any out-of-bounds read or write aborts with a report. Exit status 0 if every round passed.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fuzz_kernel import ALPHABET, damaged_dictionary, run_under_asan  # noqa: E402

from boggle_dafsa.automaton.fileformat import NativeLayout  # noqa: E402
from boggle_dafsa.automaton.reader import NativeDictionary  # noqa: E402
from boggle_dafsa.errors import DictionaryError  # noqa: E402
from boggle_dafsa.query import automata, parse, walk  # noqa: E402

SOURCE = ROOT / "src" / "boggle_dafsa" / "query" / "_walk.c"
PATTERNS = ["*", "?", "A*", "*S", "?[^AE]*", "@#*", "*E?", "Q*U*"]


def load_compiled(path: str | None) -> None:
    """Make ``path`` (an AddressSanitizer build) the compiled query walk; None: the installed one."""
    if path is not None:
        spec = importlib.util.spec_from_file_location("boggle_dafsa.query._walk", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["boggle_dafsa.query._walk"] = module
    if "c" not in walk.available_kernels():
        raise SystemExit("the compiled query walk is not built: nothing to fuzz")
    print(f"compiled query walk: {sys.modules['boggle_dafsa.query._walk'].__file__}", flush=True)


class Cells:
    """A dictionary seen through a heap copy of its cells (AddressSanitizer watches past its end)."""

    def __init__(self, dictionary: NativeDictionary) -> None:
        self._dictionary = dictionary
        self.cells = array("I", dictionary.cells)
        # Every walk reads the cells through the layout (the format's one definition).
        self.states = NativeLayout.of(self.cells, dictionary.root, dictionary.alphabet, dictionary.header.longest_word, dictionary.path)

    def layout(self) -> NativeLayout:
        return self.states

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dictionary, name)


def outcome(run: Any) -> tuple[Any, ...]:
    try:
        return ("ok", run())
    except DictionaryError:
        return ("error",)


def queries(rng: random.Random) -> list[tuple[str, Any]]:
    """A few random queries, each a function of (dictionary, kernel)."""
    limit = rng.choice([None, None, 1, 3])
    pattern = rng.choice(PATTERNS)
    rack = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7))) + "?" * rng.randint(0, 2)
    blanks = rack.count("?")
    word = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 9)))
    k = rng.randint(0, 3)
    transpositions, prefix = rng.random() < 0.5, rng.random() < 0.5
    return [
        (f"match {pattern}", lambda d, kernel: list(walk.search_states(d, parse.parse_pattern(pattern, d.normalize), limit, kernel))),
        (f"anagram {rack}", lambda d, kernel: list(walk.search_states(d, automata.Anagram(rack.replace("?", ""), blanks, True), limit, kernel))),
        (f"fuzzy {word} {k}", lambda d, kernel: walk.fuzzy_native(d, word, k, transpositions, prefix, limit, kernel)),
    ]


def fuzz(rounds: int, seed: int, module: str | None) -> int:
    load_compiled(module)
    rng = random.Random(seed)
    reached = errors = 0
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(rounds):
            opened = damaged_dictionary(rng, folder, round_number)
            if opened is None:
                continue  # refused at open: nothing reaches the walk
            path = opened.path
            dictionary: Any = Cells(opened) if round_number % 2 else opened
            for name, run in queries(rng):
                compiled = outcome(lambda: run(dictionary, "c"))
                python = outcome(lambda: run(dictionary, "python"))
                if compiled != python:
                    print(f"round {round_number}: the kernels disagree on {name} over {path} (seed {seed})", file=sys.stderr)
                    return 1
                reached += 1
                errors += compiled[0] == "error"
            dictionary = None
            opened.close()
    print(f"{rounds:,} damaged files, {reached:,} queries reached the kernels: {errors:,} raised DictionaryError, "
          f"{reached - errors:,} gave results; both kernels agreed every time, no crash")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="damaged files to try (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--asan", action="store_true", help="run on an AddressSanitizer build of the query walk")
    parser.add_argument("--module", help=argparse.SUPPRESS)  # the build to load (set by --asan)
    args = parser.parse_args()
    if not args.asan:
        return fuzz(args.rounds, args.seed, args.module)
    return run_under_asan(__file__, SOURCE, ["--rounds", str(args.rounds), "--seed", str(args.seed)])


if __name__ == "__main__":
    sys.exit(main())
