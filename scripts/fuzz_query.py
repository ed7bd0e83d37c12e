"""Fuzz the compiled query walks (``src/boggle_dafsa/query/_walk.c``) with damaged native dictionaries.

Every round also runs the compiled lookups (``Lookup`` of the census part,
``automaton/_census.c``: ``step``, ``has_key``, ``word``) against their Python twin (the
layouts' ``step``) on the damaged body, with no census to protect them, from the root and
from any state: the same state or answer, or the same error (IndexError, ValueError).

And word numbers: the compiled count of the word-number section (``word_numbers``) against
its twin (``encode_word_numbers``) on the damaged body, then the compiled walks (``Lookup``'s
``number_of``, ``word_of``) against theirs (``index_of``, ``word_at``) over that section or
one with a byte changed and resealed: the same section, answer or error.

A third of the rounds damage a version 2 file (compact edges): its cursor walk must end in
words or one DictionaryError, the compiled expansion into cells (``_builder.expand``) must agree
with its Python twin, and the queries go through the compiled walks of the cells it expands
into (``walk``, ``fuzzy``) and their twins, as on a version 1 file.

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

``--asan`` compiles ``_walk.c`` (and the census part, with the lookups) with ``-fsanitize=address`` into a temporary folder and runs
the fuzz in a child interpreter with the sanitizer's runtime preloaded (PYTHONMALLOC=malloc,
and every other round the cells are copied to the heap, where bytes past the end are watched):
any out-of-bounds read or write aborts with a report. Exit status 0 if every round passed.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import random
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fuzz_kernel import ALPHABET, asan_build, damaged_dictionary, load_census, run_under_asan  # noqa: E402

from boggle_dafsa import compiled  # noqa: E402
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
    if "c" not in compiled.available("query walk"):
        raise SystemExit("the compiled query walk is not built: nothing to fuzz")
    print(f"compiled query walk: {sys.modules['boggle_dafsa.query._walk'].__file__}", flush=True)


class Cells:
    """A dictionary seen through a heap copy of its cells (AddressSanitizer watches past its end)."""

    def __init__(self, dictionary: NativeDictionary) -> None:
        self._dictionary = dictionary
        self.cells = array("I", dictionary.cells)
        # Every walk reads the cells through the layout (the format's one definition).
        self.states = NativeLayout.of(
            self.cells, dictionary.root, dictionary.alphabet, dictionary.header.longest_word, dictionary.path
        )

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
        (
            f"match {pattern}",
            lambda d, kernel: list(walk.search_states(d, parse.parse_pattern(pattern, d.normalize), limit, kernel)),
        ),
        (
            f"anagram {rack}",
            lambda d, kernel: list(walk.search_states(d, automata.Anagram(rack.replace("?", ""), blanks, True), limit, kernel)),
        ),
        (f"fuzzy {word} {k}", lambda d, kernel: list(walk.fuzzy_native(d, word, k, transpositions, prefix, limit, kernel))),
    ]


def huge_round(rng: random.Random, folder: str, round_number: int) -> tuple[str, int]:
    """A file whose checksums hold describing a huge language (a chain of up to 40 states,
    each leading to the next by up to 31 letters: up to 31**40 words), its header honest or
    lying about the words or the longest, in version 1 or 2. The census (compiled and twin)
    must refuse every lie; on an honest file, limited and streamed queries must agree over
    both kernels. Returns (verdict, queries run)."""
    from fuzz_kernel import census_agrees

    from boggle_dafsa.automaton.builder import Automaton
    from boggle_dafsa.automaton.compact import encode
    from boggle_dafsa.words.normalize import Policy

    letters = "".join(sorted(rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZÀÂÇÈÉ", rng.randint(1, 31))))
    truthful = rng.random() < 0.5
    # Truthful headers need at most 2**32 - 1 words: as many levels as the letters allow.
    most = 40 if not truthful or len(letters) == 1 else max(1, int(31.99 / math.log2(len(letters))))
    levels = rng.randint(1, most)
    real = len(letters) ** levels
    words = min(real, 2**32 - 1)  # the header's field holds 32 bits
    truthful = truthful and real < 2**32
    claimed = words if truthful else rng.choice([words - 1 if words > 1 else 2, 2**32 - 1, rng.randrange(1, 2**32)])
    longest = levels if truthful or rng.random() < 0.5 else rng.randint(1, levels)
    honest = claimed == real and longest == levels
    labels: list[tuple[Any, ...]] = [()] + [tuple(x for letter in letters for x in (letter, i - 1)) for i in range(1, levels + 1)]
    automaton = Automaton(finals=[True] + [False] * levels, labels=labels, root=levels, word_count=claimed, longest_word=longest)
    path = Path(folder) / f"huge{round_number % 5}.dafsa"
    try:
        path.write_bytes(encode(automaton, Policy.FOLD, "00" * 32, rng.choice([1, 2])))
        opened = NativeDictionary(path)
    except DictionaryError:
        return "refused at open", 0
    verdict = census_agrees(opened)
    if verdict != ("sound" if honest else "damaged"):
        raise AssertionError(
            f"round {round_number}: the census says {verdict} of a file that is {'honest' if honest else 'lying'}: {path}"
        )
    if verdict != "sound":
        return verdict, 0
    runs = 0
    for name, run in [
        ("match *", lambda kernel: list(walk.search_states(opened, automata.everything(), 500, kernel))),
        ("fuzzy", lambda kernel: list(walk.fuzzy_native(opened, letters[0] * min(levels, 8), 2, False, True, 300, kernel))),
    ]:
        compiled, python = outcome(lambda: run("c")), outcome(lambda: run("python"))
        if compiled != python:
            raise AssertionError(f"round {round_number}: the kernels disagree on {name} over the huge language {path}")
        runs += 1
    opened.close()
    return verdict, runs


#: The compiled codec of version 2 (``_builder``): the installed one, or an AddressSanitizer build.
CODEC: list[Any] = []


def load_codec(path: str | None) -> None:
    """Make ``path`` (an AddressSanitizer build of ``_builder.c``) the codec; None: the installed one."""
    if path is None:
        from boggle_dafsa.automaton import _builder

        CODEC.append(_builder)
        return
    spec = importlib.util.spec_from_file_location("boggle_dafsa.automaton._builder", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    CODEC.append(module)
    print(f"compiled version 2 codec: {path}", flush=True)


def compact_round(opened: NativeDictionary, round_number: int, seed: int) -> int:
    """A damaged version 2 file: its cursor walk ends in words or one DictionaryError, and the
    compiled expansion into cells (``_builder.expand``) agrees with its Python twin."""
    from boggle_dafsa.automaton import compact

    try:
        list(opened)
    except DictionaryError:
        pass
    layout = opened.states
    assert isinstance(layout, compact.CompactLayout)
    compiled_module = CODEC[0]

    def both() -> tuple[Any, Any]:
        results = []
        for run in (
            lambda: compiled_module.expand(layout.body, layout.root >> 1, layout.alphabet_size),
            lambda: compact.expand_compact(layout),
        ):
            try:
                cells, root = run()
                results.append(("ok", bytes(memoryview(cells).cast("B")), root))
            except ValueError as error:
                if not str(error).startswith("damaged: "):
                    raise
                results.append(("error",))
        return results[0], results[1]

    compiled, python = both()
    if compiled != python:
        print(f"round {round_number}: the expansions disagree over {opened.path} (seed {seed})", file=sys.stderr)
        return 1
    return 0


def lookup_outcome(run: Any) -> tuple[Any, ...]:
    try:
        return ("ok", run())
    except (IndexError, ValueError) as error:
        return (type(error).__name__,)


def lookup_round(opened: NativeDictionary, rng: random.Random, round_number: int, heap: bool) -> int:
    """The compiled lookups against their twin on a damaged body (no census first): random
    keys (some longer than the longest word, some in lower case) from the root and from
    random states. With ``heap``, over a copy of the body on the heap (the sanitizer watches
    past its end). Returns 1 (and says so) if they disagree, else 0."""
    from boggle_dafsa import compiled
    from boggle_dafsa.automaton.compact import CompactLayout
    from boggle_dafsa.automaton.lookup import POLICY_CODES

    module = compiled.built("census")
    if module is None:
        return 0
    layout = opened.states
    twin: Any
    if isinstance(layout, CompactLayout):
        body: Any = bytes(layout.body) if heap else layout.body
        twin = CompactLayout(body, layout.root >> 1, layout.alphabet, layout.longest_word, opened.path)
        width, size = 0, len(body)
    else:
        body = array("I", layout.cells) if heap else layout.cells
        twin = NativeLayout.of(body, layout.root, layout.alphabet, layout.longest_word, opened.path)
        width, size = twin.header_cells, len(body)
    longest = twin.longest_word
    lookup = module.Lookup(body, opened.version, twin.root, twin.alphabet, width, longest, POLICY_CODES[opened.policy])
    try:
        for _ in range(6):
            key = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, longest + 2)))
            for state in (twin.root, rng.randrange(size + 4)):
                expected = ("ok", None) if len(key) > longest else lookup_outcome(lambda: twin.step(state, key))
                if lookup_outcome(lambda: lookup.step(state, key)) != expected:
                    print(f"round {round_number}: step({state}, {key!r}) disagrees over {opened.path}", file=sys.stderr)
                    return 1
            reached = ("ok", None) if len(key) > longest else lookup_outcome(lambda: twin.step(twin.root, key))
            final = reached if reached[0] != "ok" or reached[1] is None else lookup_outcome(lambda: twin.is_final(reached[1]))
            expected = ("ok", bool(final[1])) if final[0] == "ok" else final
            text = "".join(letter.lower() if rng.random() < 0.3 else letter for letter in key)
            for name, run in (("has_key", lambda: lookup.has_key(key)), ("word", lambda: lookup.word(text))):
                got = lookup_outcome(run)
                if key and got != expected and got != ("ok", None):
                    print(f"round {round_number}: {name}({key!r}) disagrees over {opened.path}", file=sys.stderr)
                    return 1
        if numbers_round(opened, twin, lookup, body, rng, round_number) != 0:
            return 1
    finally:
        lookup.release()  # before the file is unmapped
    return 0


def numbers_round(opened: NativeDictionary, twin: Any, lookup: Any, body: Any, rng: random.Random, round_number: int) -> int:
    """Word numbers on the damaged body, no census first: the compiled count
    (``word_numbers``) against its twin (``encode_word_numbers``): the same section, or
    both an error; then the compiled walks (``number_of``, ``word_of``) against theirs
    (``index_of``, ``word_at``) over that section, or the sound file's with a byte changed
    (resealed): the same answer or the same error. Returns 1 (and says so) if they disagree."""
    import struct
    import zlib

    from boggle_dafsa import compiled
    from boggle_dafsa.automaton import numbering
    from boggle_dafsa.automaton.compact import CompactLayout
    from boggle_dafsa.automaton.fileformat import WordCounts, encode_word_numbers

    module = compiled.built("census")
    if module is None or not hasattr(module, "word_numbers"):
        return 0
    words = opened.header.word_count
    version = 2 if isinstance(twin, CompactLayout) else 1
    root = twin.root >> 1 if version == 2 else twin.root
    expected = lookup_outcome(lambda: encode_word_numbers(twin, words))
    made = lookup_outcome(lambda: module.word_numbers(body, version, root, len(twin.alphabet), twin.longest_word, words))
    if made[0] == "ok" and made[1] is not None:
        out = bytearray(made[1])
        struct.pack_into("<I", out, 8, zlib.crc32(bytes(out[12:])))
        made = ("ok", bytes(out))
    wide = made == ("ok", None)  # version 1 headers wider than a cell: the twin's alone
    if not wide and ((made[0] == "ok") != (expected[0] == "ok") or (made[0] == "ok" and made[1] != expected[1])):
        print(
            f"round {round_number}: word_numbers disagrees over {opened.path}: {made[0]} against {expected[0]}", file=sys.stderr
        )
        return 1
    if expected[0] != "ok" or (version == 1 and twin.header_cells != 1):
        return 0
    section = bytearray(expected[1])
    if rng.random() < 0.5 and len(section) > 24:
        place = rng.randrange(24, len(section))
        section[place] = rng.randrange(256)
        struct.pack_into("<I", section, 8, zlib.crc32(bytes(section[12:])))
    data = bytes(section)
    try:
        counts = WordCounts(data, twin.units, words, opened.header.state_count)
    except (ValueError, IndexError):
        return 0  # refused whole: the walks never see it
    for _ in range(6):
        key = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, twin.longest_word + 1)))
        number = rng.randrange(-1, words + 2)
        pairs = [
            (lambda: lookup.number_of(key, data, words), lambda: numbering.index_of(twin, counts, words, key)),
        ]
        if 0 <= number < words:
            pairs.append((lambda: lookup.word_of(number, data, words), lambda: numbering.word_at(twin, counts, words, number)))
        for ours, theirs in pairs:
            if lookup_outcome(ours) != lookup_outcome(theirs):
                print(
                    f"round {round_number}: a word-number walk disagrees ({key!r}, {number}) over {opened.path}", file=sys.stderr
                )
                return 1
    return 0


def fuzz(rounds: int, seed: int, module: str | None, codec: str | None = None) -> int:
    load_census()
    load_compiled(module)
    load_codec(codec)
    rng = random.Random(seed)
    reached = errors = compacts = lookups = 0
    with tempfile.TemporaryDirectory() as folder:
        for round_number in range(rounds):
            version = 2 if round_number % 3 == 2 else 1
            opened = damaged_dictionary(rng, folder, round_number, version=version)
            if opened is None:
                continue  # refused at open: nothing reaches the walk
            path = opened.path
            if lookup_round(opened, rng, round_number, heap=round_number % 2 == 1) != 0:
                return 1
            lookups += 1
            if version == 2:
                # The version 2 body walked in place by the cursor, and expanded to cells by C and by Python.
                if compact_round(opened, round_number, seed) != 0:
                    return 1
                compacts += 1
            dictionary: Any = Cells(opened) if round_number % 2 and version == 1 else opened
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
        # Huge languages, wide alphabets and lying headers, a tenth as many rounds.
        verdicts: dict[str, int] = {}
        for round_number in range(max(1, rounds // 10)):
            try:
                verdict, runs = huge_round(rng, folder, round_number)
            except AssertionError as failure:
                print(f"{failure} (seed {seed})", file=sys.stderr)
                return 1
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            reached += runs
        print(f"huge languages: {verdicts}")
    print(
        f"{rounds:,} damaged files ({compacts:,} of version 2 opened), {reached:,} queries reached the kernels: "
        f"{errors:,} raised DictionaryError, {reached - errors:,} gave results; lookups on {lookups:,} bodies; "
        "both kernels agreed every time, no crash"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="damaged files to try (default 2,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--asan", action="store_true", help="run on an AddressSanitizer build of the query walk")
    parser.add_argument("--module", help=argparse.SUPPRESS)  # the build to load (set by --asan)
    parser.add_argument("--codec-module", help=argparse.SUPPRESS)  # the _builder build to load (set by --asan)
    args = parser.parse_args()
    if not args.asan:
        return fuzz(args.rounds, args.seed, args.module, args.codec_module)
    # The version 2 codec (_builder.c: expand) under AddressSanitizer too.
    with tempfile.TemporaryDirectory() as folder:
        codec = asan_build(folder, ROOT / "src" / "boggle_dafsa" / "automaton" / "_builder.c")
        return run_under_asan(__file__, SOURCE, ["--rounds", str(args.rounds), "--seed", str(args.seed), "--codec-module", codec])


if __name__ == "__main__":
    sys.exit(main())
