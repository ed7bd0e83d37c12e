"""Dictionary queries against brute force over the word list, on all three formats.

Every property builds a random list in native, marisa and dawg form, runs a random query
on each, and compares with the obvious scan of the list: ``re`` for patterns and regexes,
sorted letters for anagrams, a plain edit-distance function for fuzzy, Python sets for set
algebra. The three formats must also agree with each other.
"""

from __future__ import annotations

import gc
import random
import re
import sys
import tempfile
from array import array
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import query
from boggle_dafsa.automaton.fileformat import NativeLayout
from boggle_dafsa.errors import DictionaryError, QueryError
from boggle_dafsa.formats import FORMATS, open_path, write_dictionary
from boggle_dafsa.query import automata, setops, walk
from boggle_dafsa.words.normalize import Policy
from helpers import strategies
from helpers.dictionaries import every_format, normalized_words
from helpers.kernels import WALK, each, forced, requires_c

LETTERS = "ABCDE"
word_lists = strategies.word_lists(LETTERS)


def same_on_every_format(words: list[str], run: Any) -> Any:
    """``run(dictionary)`` on each format, and on native with every available kernel; asserts
    they all agree and returns the common answer."""
    with every_format(words) as dictionaries:
        answers = {}
        for name in WALK:
            with forced(name):
                answers[f"native ({name} kernel)"] = run(dictionaries[0])
        for name, d in zip(FORMATS[1:], dictionaries[1:]):
            answers[name] = run(d)
    first, *others = answers.items()
    for name, answer in others:
        assert answer == first[1], f"{name} differs from {first[0]}"
    return first[1]


# -- match ----------------------------------------------------------------------------------

pattern_tokens = st.sampled_from(["A", "B", "C", "?", "*", "@", "#", "[AB]", "[^AB]", "[!CE]", "[B-D]"])
REGEX_OF_TOKEN = {"?": ".", "*": ".*", "@": "[AEIOUY]", "#": "[^AEIOUY]", "[!CE]": "[^CE]"}


@pytest.mark.slow
@given(word_lists, st.lists(pattern_tokens, min_size=1, max_size=6), st.integers(0, 4), st.one_of(st.none(), st.integers(0, 6)))
def test_match_is_a_regex_scan(words: list[str], tokens: list[str], low: int, high: int | None) -> None:
    pattern = "".join(tokens)
    scan = re.compile("".join(REGEX_OF_TOKEN.get(t, t) for t in tokens))
    expected = [w for w in words if scan.fullmatch(w) and len(w) >= low and (high is None or len(w) <= high)]
    assert same_on_every_format(words, lambda d: list(query.match(d, pattern, low, high))) == expected


@pytest.mark.slow
@given(word_lists, st.lists(pattern_tokens, min_size=1, max_size=5), st.integers(0, 5))
def test_limit_is_a_prefix_of_the_full_answer(words: list[str], tokens: list[str], limit: int) -> None:
    pattern = "".join(tokens)
    with every_format(words) as dictionaries:
        for d in dictionaries:
            assert list(query.match(d, pattern, limit=limit)) == list(query.match(d, pattern))[:limit]


def test_match_normalizes_like_the_dictionary(tmp_path: Path) -> None:
    with every_format(normalized_words(["élève", "élevé", "eleves", "œuf"])) as dictionaries:
        for d in dictionaries:
            assert list(query.match(d, "élève")) == ["ELEVE"]
            assert list(query.match(d, "ÉL?V*")) == ["ELEVE", "ELEVES"]
            assert list(query.match(d, "œ*")) == ["OEUF"]


# -- anagram --------------------------------------------------------------------------------


def brute_anagrams(words: list[str], rack: str, sub: bool) -> list[str]:
    tiles = Counter(rack.replace("?", ""))
    blanks = rack.count("?")
    found = []
    for word in words:
        missing = sum((Counter(word) - tiles).values())
        if missing <= blanks and (sub or len(word) == len(rack)):
            found.append(word)
    return sorted(found, key=lambda w: (-len(w), w)) if sub else found


@pytest.mark.slow
@given(word_lists, st.text(LETTERS + "?", min_size=1, max_size=6), st.booleans())
def test_anagram_is_a_sorted_letter_comparison(words: list[str], rack: str, sub: bool) -> None:
    hits = same_on_every_format(words, lambda d: query.anagram(d, rack, sub=sub))
    assert [hit.word for hit in hits] == brute_anagrams(words, rack, sub)
    for hit in hits:
        # The letters left after the blanks' ones are exactly tiles of the rack.
        assert len(hit.blanks) <= rack.count("?")
        real = Counter(letter for i, letter in enumerate(hit.word) if i not in hit.blanks)
        assert not real - Counter(rack.replace("?", ""))


def test_anagram_blanks_shown_in_lower_case(tmp_path: Path) -> None:
    with every_format(["CAT", "CATS", "SCAT", "TACT"]) as dictionaries:
        for d in dictionaries:
            assert [h.display() for h in query.anagram(d, "CA?")] == ["CAt"]
            assert [h.display() for h in query.anagram(d, "TAC?", sub=True)] == ["CATs", "sCAT", "TACt", "CAT"]


# -- fuzzy ----------------------------------------------------------------------------------


def distance(a: str, b: str, transpositions: bool = False) -> int:
    """Plain edit distance (optimal string alignment with ``transpositions``)."""
    rows = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if transpositions and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[-1][-1]


@pytest.mark.slow
@given(word_lists, st.text(LETTERS, min_size=1, max_size=6), st.integers(0, 3), st.booleans(), st.booleans())
def test_fuzzy_is_a_plain_edit_distance(words: list[str], target: str, k: int, transpositions: bool, prefix: bool) -> None:
    expected = []
    for word in words:
        if prefix:
            best = min(distance(target, word[:i], transpositions) for i in range(len(word) + 1))
        else:
            best = distance(target, word, transpositions)
        if best <= k:
            expected.append((best, word))
    answer = same_on_every_format(words, lambda d: query.fuzzy(d, target, k, transpositions=transpositions, prefix=prefix))
    assert answer == sorted(expected)


long_words = strategies.word_lists("ABCDEÉ", longest=14, min_size=1, max_size=40)


@pytest.mark.slow
@given(
    long_words,
    st.text("ABCDÉ", min_size=1, max_size=10),
    st.integers(0, 4),
    st.booleans(),
    st.booleans(),
    st.one_of(st.none(), st.integers(0, 6)),
)
@settings(max_examples=60)
def test_fuzzy_native_kernels_are_the_levenshtein_automaton(
    words: list[str], target: str, k: int, transpositions: bool, prefix: bool, limit: int | None
) -> None:
    # The row-per-depth walk (compiled and its twin) against the Levenshtein automaton walked
    # through the generic walk, on an exact-policy file (É a letter of its own), limits included.
    with tempfile.TemporaryDirectory() as folder:
        write_dictionary(words, Path(folder) / "w", "native", {"policy": Policy.EXACT})
        d = open_path(Path(folder) / "w")
        automaton = automata.Levenshtein(target, k, transpositions, prefix)
        expected = [(w, automaton.distance(state)) for w, state in walk.search_states(d, automaton, kernel="python")]
        assert expected == [
            (w, b)
            for w, b in (
                (
                    w,
                    min(distance(target, w[:i], transpositions) for i in range(len(w) + 1))
                    if prefix
                    else distance(target, w, transpositions),
                )
                for w in words
            )
            if b <= k
        ]
        for name in WALK:
            assert list(walk.fuzzy_native(d, target, k, transpositions, prefix, limit, kernel=name)) == expected[:limit]


@requires_c("query walk")
def test_compiled_fuzzy_refuses_out_of_range_arguments(tmp_path: Path) -> None:
    from boggle_dafsa.query._walk import fuzzy  # type: ignore[attr-defined]

    write_dictionary(["AB"], tmp_path / "w", "native", {"format_version": 1})  # its cells, handed to C below
    d = open_path(tmp_path / "w")
    for word, k, depth, message in (
        ("AB", -1, 5, "distance"),
        ("AB", 201, 5, "distance"),
        ("A" * 1001, 1, 5, "too long"),
        ("AB", 1, -1, "longest word"),
        ("AB", 1, len(d.cells) + 5000, "longest word"),
    ):
        with pytest.raises(ValueError, match=message):
            fuzzy(d.cells, d.root, d.alphabet, word, k, False, False, depth, -1)
    with pytest.raises(ValueError, match="root"):
        fuzzy(d.cells, len(d.cells), d.alphabet, "AB", 1, False, False, 5, -1)


# -- grep -----------------------------------------------------------------------------------


def regexes() -> st.SearchStrategy[str]:
    atoms = st.sampled_from(["A", "B", "C", ".", "[AB]", "[^A]", "[B-D]"])

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        quantifier = st.sampled_from(["", "*", "+", "?", "{2}", "{0,2}", "{1,}"])
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map("|".join),
            st.tuples(inner, quantifier).map(lambda t: f"({t[0]}){t[1]}"),
        )

    return st.recursive(atoms, extend, max_leaves=6)


@pytest.mark.slow
@given(word_lists, regexes())
def test_grep_is_a_regex_scan(words: list[str], regex: str) -> None:
    scan = re.compile(regex)
    expected = [w for w in words if scan.fullmatch(w)]
    assert same_on_every_format(words, lambda d: list(query.grep(d, regex))) == expected


# -- range, prefixes, hooks -----------------------------------------------------------------


@pytest.mark.slow
@given(
    word_lists,
    st.one_of(st.none(), st.text(LETTERS, min_size=1, max_size=4)),
    st.one_of(st.none(), st.text(LETTERS, min_size=1, max_size=4)),
)
def test_range_is_a_comparison(words: list[str], start: str | None, end: str | None) -> None:
    expected = [w for w in words if (start is None or start <= w) and (end is None or w < end)]
    assert same_on_every_format(words, lambda d: list(query.word_range(d, start, end))) == expected


@pytest.mark.slow
@given(word_lists, st.text(LETTERS, min_size=1, max_size=6))
def test_prefixes_and_hooks(words: list[str], target: str) -> None:
    known = set(words)
    prefixes = same_on_every_format(words, lambda d: query.prefixes(d, target))
    assert prefixes == [target[:i] for i in range(1, len(target) + 1) if target[:i] in known]
    assert same_on_every_format(words, lambda d: query.prefixes(d, target, limit=1)) == prefixes[:1]
    hooks = same_on_every_format(words, lambda d: query.hooks(d, target))
    assert hooks.front == "".join(c for c in LETTERS if c + target in known)
    assert hooks.back == "".join(c for c in LETTERS if target + c in known)


# -- set algebra ----------------------------------------------------------------------------


@pytest.mark.slow
@given(st.lists(word_lists, min_size=2, max_size=3), st.sampled_from(setops.OPERATIONS), st.permutations(range(3)))
@settings(max_examples=30)
def test_set_algebra_is_python_sets(lists: list[list[str]], operation: str, order: list[int]) -> None:
    sets = [set(ws) for ws in lists]
    expected = (
        set.union(*sets)
        if operation == "union"
        else set.intersection(*sets)
        if operation == "intersect"
        else sets[0].difference(*sets[1:])
    )
    with tempfile.TemporaryDirectory() as folder:
        inputs = []
        for i, words in enumerate(lists):
            # Inputs of mixed formats: the merge only needs each to list its words in order.
            name = FORMATS[order[i % 3]]
            path = Path(folder) / f"in{i}.{name}"
            write_dictionary(words, path, name)
            inputs.append(open_path(path))
        out = Path(folder) / "out.dafsa"
        report = setops.write_set(inputs, operation, out)
        result = open_path(out)
        assert list(result) == sorted(expected)
        assert report.words == len(expected)
        # Minimal: the same file `build` would write from the list.
        same = Path(folder) / "same.dafsa"
        write_dictionary(sorted(expected), same, "native")
        assert out.read_bytes() == same.read_bytes()


def test_set_algebra_refuses_mixed_policies(tmp_path: Path) -> None:
    write_dictionary(["ELEVE"], tmp_path / "fold.dafsa", "native", {"policy": Policy.FOLD})
    write_dictionary(["élève"], tmp_path / "exact.dafsa", "native", {"policy": Policy.EXACT})
    dictionaries = [open_path(tmp_path / "fold.dafsa"), open_path(tmp_path / "exact.dafsa")]
    with pytest.raises(QueryError) as refused:
        setops.write_set(dictionaries, "union", tmp_path / "out.dafsa")
    # The whole line the command prints after "boggle-dafsa: " (exit 2, as every QueryError).
    assert str(refused.value) == (
        f"cannot combine {tmp_path / 'fold.dafsa'} (policy fold) with {tmp_path / 'exact.dafsa'} (policy exact): "
        "build them with the same policy"
    )
    assert not (tmp_path / "out.dafsa").exists()


# -- errors and bounds ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("pattern", "AB[CD", "unterminated class [ at column 3"),
        ("pattern", "A1", "'1' is not a letter at column 2"),
        ("pattern", "A]", "unmatched ] at column 2"),
        ("pattern", "[]", "empty class at column 1"),
        ("pattern", "[D-A]", "empty range D-A at column 2"),
        ("regex", "C(A", "unbalanced parenthesis ( at column 2"),
        ("regex", "CA)", "unbalanced parenthesis ) at column 3"),
        ("regex", "*A", "nothing to repeat before * at column 1"),
        ("regex", "A{3,1}", "bad repetition {3,1}: 1 < 3 at column 2"),
        ("regex", "A{2", "unterminated repetition { at column 2"),
        ("regex", "A{1000}", "repetition {1000} over 100 at column 2"),
        ("regex", "A\\d", "escape \\d is not supported (a backslash escapes punctuation only) at column 2"),
        ("regex", "A(?=B)", "unsupported group (? at column 2"),
        ("regex", "A$B", "$ only at the end at column 2"),
        ("regex", "A.7", "'7' is not a letter at column 3"),
    ],
)
def test_bad_queries_say_what_and_where(kind: str, text: str, message: str, tmp_path: Path) -> None:
    with every_format(["ABC"]) as (d, *_):
        run = query.match if kind == "pattern" else query.grep
        with pytest.raises(QueryError) as error:
            list(run(d, text))
    assert str(error.value) == f"bad {kind} {text!r}: {message}"


@pytest.mark.parametrize(
    "regex",
    ["(^RE|UN)DO$", "^(RE|UN)DO$", "RE(DO$|DID)", "(?:^A|B)C", "A|^B$", "(^A)?B", "((^R)E|U)N?D(O$)", "^$", "(A$)$"],
)
def test_anchors_where_they_always_hold_are_accepted_and_change_nothing(regex: str) -> None:
    # docs/queries.md: what grep -E would match on whole words (re.fullmatch), on every format.
    words = sorted({"A", "AC", "AB", "B", "BC", "REDO", "UNDO", "REDID", "REUNDO", "REND", "UNO", "RENDO", "REDOS"})
    expected = [word for word in words if re.fullmatch(regex, word)]
    with every_format(words) as dictionaries:
        for d in dictionaries:
            assert list(query.grep(d, regex)) == expected, (regex, d)


@pytest.mark.parametrize(
    ("regex", "message"),
    [
        ("A^B", "^ only at the start at column 2"),
        ("A(^B)", "^ only at the start at column 3"),
        ("(A)(^B)", "^ only at the start at column 5"),
        ("(^A)+", "^ only at the start at column 2"),
        ("(A$)B", "$ only at the end at column 3"),
        ("(A$|B)C", "$ only at the end at column 3"),
        ("(A$)*", "$ only at the end at column 3"),
        ("A$$", "$ only at the end at column 2"),
    ],
)
def test_anchors_that_could_never_hold_are_refused_at_their_column(regex: str, message: str) -> None:
    with every_format(["AB"]) as (d, *_):
        with pytest.raises(QueryError) as error:
            list(query.grep(d, regex))
    assert str(error.value) == f"bad regex {regex!r}: {message}"


def test_pathological_queries_finish(tmp_path: Path) -> None:
    words = sorted({"A" * n for n in range(1, 30)} | {"AB" * n for n in range(1, 15)})
    with every_format(words) as dictionaries:
        for d in dictionaries:
            assert list(query.match(d, "*" * 500)) == words
            assert list(query.grep(d, "(A*)*")) == [w for w in words if set(w) == {"A"}]
            assert list(query.grep(d, "((A|B)*)*B")) == [w for w in words if w.endswith("B")]
            # Distance 10 from a 2-letter word: much of the list, never anything longer than 12.
            assert query.fuzzy(d, "AB", 10) == sorted((distance("AB", w), w) for w in words if distance("AB", w) <= 10)
    with pytest.raises(QueryError, match="too long"):
        query.match(d, "?" * 2000)
    with pytest.raises(QueryError, match="out of range"):
        query.fuzzy(d, "AB", 11)


def test_dfa_state_bound_is_an_error() -> None:
    dfa = automata.LazyDFA(automata.Levenshtein("ABCDEFGH", 3), max_states=5)
    with tempfile.TemporaryDirectory() as folder:
        write_dictionary(["ABCDEFGH", "ABCDEFGX", "BCDEFGH", "XXXXXXXX"], Path(folder) / "w", "native")
        with pytest.raises(QueryError, match="too complex"):
            list(walk.search_states(open_path(Path(folder) / "w"), dfa))


@each("query walk", "name")
def test_native_kernels_equal_the_generic_walk(tmp_path: Path, name: str) -> None:
    words = normalized_words(["abaca", "abacule", "abaisse", "bac", "bacchante", "zoo", "zoologie", "élève"])
    write_dictionary(words, tmp_path / "w.dafsa", "native")
    d = open_path(tmp_path / "w.dafsa")
    for automaton in (automata.everything(), automata.Levenshtein("BACS", 2), automata.Anagram("ABC", 1, True)):
        for limit in (None, 1, 3):
            fast = list(walk.search_states(d, automaton, limit, kernel=name))
            generic = list(walk._walk_generic(d, automata.LazyDFA(automaton)))[:limit]
            assert [w for w, _ in fast] == [w for w, _ in generic] != []


@each("query walk", "name")
@pytest.mark.parametrize("slot", range(12))
def test_damaged_native_file_is_an_error_not_a_hang(tmp_path: Path, name: str, slot: int) -> None:
    write_dictionary(["AB", "ABC", "B"], tmp_path / "w.dafsa", "native", {"format_version": 1})  # its cells, damaged below
    d = open_path(tmp_path / "w.dafsa")
    # Point a cell back at the root (a cycle the header's longest word bounds), or far
    # outside the file, or set letters beyond the alphabet: errors, never a hang or a crash.
    for value in (d.root, 1 << 20, 0x7FFFFFFF):
        damaged = _CellsOverride(d, {slot % len(d.cells): value})
        with forced(name):
            for run in (lambda: list(query.match(damaged, "*")), lambda: query.fuzzy(damaged, "AB", 2, prefix=True)):
                try:
                    run()
                except DictionaryError as error:
                    assert "damaged" in str(error)


@each("query walk", "name")
def test_a_cycle_in_a_damaged_file_is_an_error(tmp_path: Path, name: str) -> None:
    write_dictionary(["AB", "ABC", "B"], tmp_path / "w.dafsa", "native", {"format_version": 1})  # its cells, damaged below
    d = open_path(tmp_path / "w.dafsa")
    damaged = _CellsOverride(d, {d.root + 1: d.root})  # A leads back to the root
    with forced(name), pytest.raises(DictionaryError, match="damaged dictionary"):
        list(query.match(damaged, "*"))
    # Fuzzy's rows stop at distance k, but a matching prefix walks on without them: the depth bound still holds.
    with forced(name), pytest.raises(DictionaryError, match="damaged dictionary"):
        query.fuzzy(damaged, "A", 1, prefix=True)


@each("query walk", "name")
def test_repeated_walks_leave_no_objects_behind(tmp_path: Path, name: str) -> None:
    # A reference leaked per call of a walk (a word, a list, a name) grows the allocated
    # blocks with the repetitions; a cache fills once and stops. The compiled walk once
    # looked its query DFA's attributes up by fresh strings, which CPython's type attribute
    # cache kept, one per slot met: some 300 blocks over the repetitions here.
    rng = random.Random(32)
    words = sorted({"".join(rng.choice("ABDEILNORSTU") for _ in range(rng.randint(2, 9))) for _ in range(3000)})
    write_dictionary(words, tmp_path / "w.dafsa", "native")
    d = open_path(tmp_path / "w.dafsa")
    prefixes = ["", "A", "BE", "S", "TR", "ROU", "L", "NI"]

    def walks(count: int) -> int:
        found = 0
        for i in range(count):
            prefix = prefixes[i % len(prefixes)]
            pattern = automata.Pattern([*(automata.Letters(letter) for letter in prefix), None])
            found += len(list(walk.search_states(d, pattern, None if i % 3 else 5, kernel=name)))
            found += len(list(walk.fuzzy_native(d, "BEST", 1, prefix=bool(i % 2), kernel=name)))
        return found

    cycle = 3 * len(prefixes)  # every (prefix, limit, prefix mode): what a first walk imports or caches is done
    assert walks(cycle) > 0
    gc.collect()
    before = sys.getallocatedblocks()
    walks(10 * cycle)
    gc.collect()
    assert sys.getallocatedblocks() - before < 40


class _CellsOverride:
    """A native dictionary seen through altered cells (what a damaged file would hold)."""

    def __init__(self, d: Any, changes: dict[int, int]) -> None:
        self._d = d
        self.cells = array("I", [changes.get(i, c) for i, c in enumerate(d.cells)])
        # Every walk reads the cells through the layout (the format's one definition).
        self.states = NativeLayout.of(self.cells, d.root, d.alphabet, d.header.longest_word, d.path)

    def layout(self) -> NativeLayout:
        return self.states

    def __getattr__(self, name: str) -> Any:
        return getattr(self._d, name)


@pytest.mark.slow
@requires_c("query walk")
def test_fuzz_of_damaged_files_finds_the_kernels_agreeing(capsys: pytest.CaptureFixture[str]) -> None:
    # A short run of scripts/fuzz_query.py (CI runs a longer one; --asan the sanitized one).
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "fuzz_query", Path(__file__).resolve().parent.parent / "scripts" / "fuzz_query.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.fuzz(40, 3, None) == 0
    assert "both kernels agreed every time" in capsys.readouterr().out


@requires_c("query walk")
def test_a_child_past_the_file_is_damage_on_both_kernels_not_a_dead_state_met_again() -> None:
    """fuzz_query.py --seed 11, round 1036: the Python walk keyed its memo of dead pairs
    (query state, cell) as ``query_state * cells + cell``, so a child past the end of the
    cells (``cell + k * cells``) could take the key of a pair found dead before and be
    skipped unread: the twin answered where the compiled walk (which checks the child
    first) said "damaged". Every child of the root made to point past the file by a
    multiple of its size, the census passed by (as the fuzz does: the walks meet the
    damage themselves): both kernels give the same words, or both say "damaged"."""
    import struct

    from boggle_dafsa.automaton.reader import NativeDictionary
    from boggle_dafsa.dictionaries.build import compile_words

    words = "AC ACD AEDC AF B BACAFC BAFBD BB BC BDB BDD BDEA BEBABD C CBE CC CCADAB CDF CFCFF DAE EACFCC EADA".split()
    data = compile_words(words + "EADBFA ECE EDBBA EEA EEC FBBFBD FFCAC".split(), Policy.EXACT, version=1)
    sound = NativeDictionary.of_buffer(data, "sound")
    layout = sound.states
    assert isinstance(layout, NativeLayout)
    cells, root, first = len(layout.cells), layout.root, layout.header_cells
    children = bin(layout.cells[root] & ((1 << len(sound.alphabet)) - 1)).count("1")
    start = sound.header.header_size
    damaged_walks = 0
    for slot in range(root + first, root + first + children):
        for k in (1, 2):
            for cell in range(0, cells, 2):
                damaged = bytearray(data)
                struct.pack_into("<I", damaged, start + 4 * slot, cell + k * cells)
                d = NativeDictionary.of_buffer(bytes(damaged), "damaged")
                d._checked = True  # past the census
                answers = []
                for kernel in WALK:  # the compiled walk first: @requires_c
                    try:
                        answers.append(list(walk.search_states(d, automata.Anagram("AB", 2, True), None, kernel)))
                    except DictionaryError:
                        answers.append("damaged")
                assert answers[0] == answers[1], (slot, k, cell)
                damaged_walks += answers[0] == "damaged"
    assert damaged_walks
