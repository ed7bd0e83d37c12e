"""Lookups (``in``, ``has_prefix``, ``step``; the ``lookup``, ``find`` and ``prefixes`` verbs).

- Bounded (issue 31): a key longer than the longest word is "no" before any read; the first
  lookup runs the census, so a crafted file (one state, 65,536 edges to itself) is refused
  as "damaged" after one reading of its edges, instead of 65,536 edge reads per letter.
- Compiled (issue 33): the census part's ``Lookup`` walks the body in place; it agrees with
  its Python twin (the layouts' ``step``) on any word list and any key, in both formats and
  every policy, and with a Python set of the words; on damaged bodies too (the same answer
  or the same error), with no census to protect it.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boggle_dafsa import compiled, query
from boggle_dafsa.automaton.compact import (
    EDGE_FINAL,
    EDGE_KIND_SHIFT,
    EDGE_LAST,
    KIND_RELATIVE,
    LABEL_ESCAPE,
    CompactLayout,
    varint,
    zigzag,
)
from boggle_dafsa.automaton.fileformat import Header, NativeLayout, pack_header
from boggle_dafsa.automaton.lookup import POLICY_CODES, pieces
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.dictionaries.build import compile_words
from boggle_dafsa.dictionary import DictionaryBase
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.dictionaries import normalized_words
from helpers.kernels import CENSUS, each, forced, requires_c

#: The letters of the crafted files: code points from U+10000, each the label of one edge.
WIDE = "".join(chr(0x10000 + i) for i in range(65_536))


def opened(path: Path, name: str) -> NativeDictionary:
    """``path`` opened, its lookups armed on kernel ``name``."""
    d = NativeDictionary(path)
    with forced(name):
        d.step(d.root, "")  # the first lookup: the census, then the kernel
    assert (type(d._lookup).__name__ == "Lookup") == (name == compiled.C)
    return d


# -- issue 31: a crafted file ---------------------------------------------------------------


def self_loop_file(edges: int) -> bytes:
    """A version 2 file of one state with ``edges`` edges to itself (labels 0 to edges - 1,
    each a word's end), the header claiming one word of 10,000 letters: its checksums
    hold, its header's fields agree with each other. Before the census ran for lookups, with
    65,536 edges (issue 31), each letter of a key cost up to 65,536 edge reads (0.1 CPU-s),
    and any key of the last letter was a word, whatever its length."""
    body = bytearray()
    for label in range(edges):
        last = EDGE_LAST if label == edges - 1 else 0
        body.append(EDGE_FINAL | last | KIND_RELATIVE << EDGE_KIND_SHIFT | min(label, LABEL_ESCAPE))
        if label >= LABEL_ESCAPE:
            body += varint(label - LABEL_ESCAPE)
        body += varint(zigzag(0))  # to itself
    alphabet, longest = WIDE[:edges], 10_000
    header = Header(Policy.RAW, alphabet, 1, longest, edges, 1, longest, 0, len(body), zlib.crc32(body), "00" * 32, version=2)
    return pack_header(header) + bytes(body)


@pytest.fixture(scope="module", params=[4096, pytest.param(65_536, marks=pytest.mark.slow)])
def self_loop(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crafted file: 65,536 edges, as issue 31 has it (slow: 0.3 CPU-s a census), or 4,096."""
    path = tmp_path_factory.mktemp("lookup") / f"self-loop-{request.param}.dafsa"
    path.write_bytes(self_loop_file(request.param))
    return path


@pytest.fixture
def edge_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every version 2 edge the Python side decodes (the census's reads, the twin's walks)."""
    reads = [0]
    real = CompactLayout.edges

    def counted(self: CompactLayout, state: int) -> Iterator[tuple[int, int]]:
        for edge in real(self, state):
            reads[0] += 1
            yield edge

    monkeypatch.setattr(CompactLayout, "edges", counted)
    return reads


def test_the_crafted_file_opens_and_holds_together(self_loop: Path) -> None:
    d = NativeDictionary(self_loop)
    assert d.body_intact() and d.version == 2 and d.header.longest_word == 10_000
    assert len(d.alphabet) == d.header.transition_count in (4096, 65_536)


@each("census", "name")
def test_a_key_longer_than_the_longest_word_reads_nothing(self_loop: Path, edge_reads: list[int], name: str) -> None:
    key = NativeDictionary(self_loop).alphabet[-1] * 10_001
    with forced(name):
        d = NativeDictionary(self_loop)
        assert key not in d
        assert not d.has_prefix(key)
        assert d.step(d.root, key) is None
    assert edge_reads[0] == 0


@each("census", "name")
@pytest.mark.parametrize(
    "ask",
    [
        lambda d, key: key in d,
        lambda d, key: d.has_prefix(key),
        lambda d, key: d.step(d.root, key),
        lambda d, key: list(d.complete(key, limit=1)),
        lambda d, key: query.prefixes(d, key),
    ],
    ids=["in", "has_prefix", "step", "complete", "prefixes"],
)
def test_every_lookup_of_the_crafted_file_is_refused_after_one_reading_of_its_edges(
    self_loop: Path, edge_reads: list[int], name: str, ask: Any
) -> None:
    with forced(name):
        d = NativeDictionary(self_loop)
        edges = len(d.alphabet)
        key = d.alphabet[-1] * 1000  # before, with 65,536 edges: 65.5 million edge reads, 100 CPU-s, and "yes"
        for _ in range(2):  # every time: a damaged verdict is not kept
            edge_reads[0] = 0
            with pytest.raises(DictionaryError, match="damaged dictionary .*cycle"):
                ask(d, key)
            # The census reads the root's edges, then those of the root reached as a word's
            # end (the same offset, final: another state to it), and meets the cycle.
            assert 0 < edge_reads[0] <= 2 * edges


@pytest.mark.slow
@pytest.mark.parametrize("verb", ["lookup", "prefixes"])
def test_the_verbs_refuse_the_crafted_file_in_one_line(self_loop: Path, verb: str) -> None:
    result = run_cli(verb, "-d", str(self_loop), NativeDictionary(self_loop).alphabet[-1] * 1000)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "damaged dictionary" in result.stderr and "cycle" in result.stderr


# -- issue 33: the compiled lookup and its twin ----------------------------------------------------

WORD_LETTERS = "abcdeéAB"
words_lists = st.lists(st.text(WORD_LETTERS + " ", min_size=1, max_size=6), min_size=1, max_size=30)
keys = st.lists(st.text(WORD_LETTERS + "EÉ z1\n\r", max_size=8), min_size=1, max_size=12)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=words_lists, asked=keys, policy=st.sampled_from(list(Policy)), version=st.sampled_from([1, 2]))
def test_lookups_agree_with_a_set_of_the_words_on_every_kernel(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], asked: list[str], policy: Policy, version: int
) -> None:
    stored = normalized_words(words, policy)
    path = tmp_path_factory.mktemp("agree") / "words.dafsa"
    path.write_bytes(compile_words(stored, policy, version=version))
    stored_set = set(stored)
    answers = []
    for name in CENSUS:
        d = opened(path, name)
        got = []
        for text in [*asked, *stored[:3], *(w.lower() for w in stored[:3])]:
            key = normalize(text, policy) if text else ""
            expected_in = key is not None and key in stored_set
            expected_prefix = bool(stored) if not text else key is not None and any(w.startswith(key) for w in stored)
            assert (text in d) is expected_in, (name, text)
            assert d.has_prefix(text) is expected_prefix, (name, text)
            state = d.step(d.root, key) if key is not None else None
            assert (state is not None) == (key is not None and any(w.startswith(key) for w in stored) or key == "")
            got.append((text in d, d.has_prefix(text), state, None if state is None else d.is_word(state)))
        answers.append(got)
        d.close()  # the compiled lookup lets go of the mapped body first
    assert all(other == answers[0] for other in answers)


def test_a_closed_dictionary_refuses_lookups_on_every_kernel(tmp_path: Path) -> None:
    path = tmp_path / "w.dafsa"
    path.write_bytes(compile_words(["CAT", "DOG"]))
    for name in CENSUS:
        d = opened(path, name)
        assert "CAT" in d and "cat" in d and "COW" not in d
        d.close()
        with pytest.raises((DictionaryError, ValueError)):
            "CAT" in d  # noqa: B015


# -- the compiled lookup against its twin on damaged bodies (no census to protect it) ------------


def twin_step(layout: Any, state: int, key: str, longest: int) -> tuple[str, Any]:
    if len(key) > longest:
        return ("value", None)
    try:
        return ("value", layout.step(state, key))
    except (IndexError, ValueError) as error:
        return (type(error).__name__, None)


def compiled_step(lookup: Any, state: int, key: str) -> tuple[str, Any]:
    try:
        return ("value", lookup.step(state, key))
    except (IndexError, ValueError) as error:
        return (type(error).__name__, None)


needs_c = requires_c("census")
ALPHABETS = st.sampled_from(["AB", "ABCDEFGHIJKLMNOPQRSTU", "".join(chr(0x41 + i) for i in range(40))])


@needs_c
@settings(max_examples=40, deadline=None)
@given(
    body=st.binary(max_size=80),
    root=st.integers(0, 90),
    alphabet=ALPHABETS,
    asked=st.lists(st.text("ABCDEFGHTUVW", max_size=6), min_size=1, max_size=6),
    longest=st.integers(0, 7),
)
def test_the_compiled_version_2_walk_is_its_twin_on_any_bytes(
    body: bytes, root: int, alphabet: str, asked: list[str], longest: int
) -> None:
    module = compiled.built("census")
    assert module is not None
    layout = CompactLayout(body, root, alphabet, longest, "fuzz")
    lookup = module.Lookup(body, 2, layout.root, alphabet, 0, longest, POLICY_CODES[Policy.EXACT])
    for key in asked:
        expected = twin_step(layout, layout.root, key, longest)
        assert compiled_step(lookup, layout.root, key) == expected, key
        if expected[0] == "value" and expected[1] is not None and key:
            assert lookup.has_key(key) is layout.is_final(expected[1])
            assert lookup.word(key) is layout.is_final(expected[1])


@needs_c
@settings(max_examples=40, deadline=None)
@given(
    cells=st.lists(st.integers(0, 2**32 - 1) | st.integers(0, 40), max_size=30),
    root=st.integers(0, 35),
    alphabet=ALPHABETS,
    asked=st.lists(st.text("ABCDEFGHTUVW", max_size=6), min_size=1, max_size=6),
    longest=st.integers(0, 7),
)
def test_the_compiled_version_1_walk_is_its_twin_on_any_cells(
    cells: list[int], root: int, alphabet: str, asked: list[str], longest: int
) -> None:
    from array import array

    module = compiled.built("census")
    assert module is not None
    body = array("I", cells)
    layout = NativeLayout.of(body, root, alphabet, longest, "fuzz")
    lookup = module.Lookup(body, 1, root, alphabet, layout.header_cells, longest, POLICY_CODES[Policy.EXACT])
    for key in asked:
        expected = twin_step(layout, root, key, longest)
        assert compiled_step(lookup, root, key) == expected, key
        if expected[0] == "value" and expected[1] is not None and key:
            try:
                final: Any = layout.is_final(expected[1])
            except IndexError:
                final = IndexError
            if final is IndexError:
                with pytest.raises(IndexError):
                    lookup.has_key(key)
            else:
                assert lookup.has_key(key) is final


# -- `word in d` in C: the Contains slot, the key made in C, the memo ---------------------------------

#: Characters a probe is made of: letters the pieces know (ASCII, Latin-1, ligatures, the
#: two-letter ones), white space (stripped at the ends), a combining acute accent (which
#: changes the letter before it under the exact policy), a digit, and characters past the table.
PROBE_CHARS = "abcAEBC eéÉèßæÆœŒŉǅ\u0301\t1ΣΩ\u1e9e"
probe_words = st.lists(st.text(PROBE_CHARS, min_size=1, max_size=7), min_size=1, max_size=25)
probes = st.lists(st.text(PROBE_CHARS, max_size=9), min_size=1, max_size=15)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=probe_words, asked=probes, policy=st.sampled_from(list(Policy)), version=st.sampled_from([1, 2]))
def test_in_is_membership_in_the_normalized_list_on_every_kernel(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], asked: list[str], policy: Policy, version: int
) -> None:
    stored = normalized_words(words, policy)
    if not stored:
        return
    path = tmp_path_factory.mktemp("probe") / "words.dafsa"
    path.write_bytes(compile_words(stored, policy, version=version))
    stored_set = set(stored)
    # The words as given (accents, case, spaces around), then the probes, twice (the memo read back).
    texts = [*words, *asked, *asked, *(w.lower() for w in stored), *(" " + w + "\t" for w in stored[:3])]
    for name in CENSUS:
        d = opened(path, name)
        for text in texts:
            key = normalize(text, policy) if text else None
            assert (text in d) is (key is not None and key in stored_set), (name, text, key)
            assert d.has_prefix(text) is (
                bool(stored) if not text else key is not None and any(w.startswith(key) for w in stored)
            ), (name, text)
        d.close()


@needs_c
def test_in_is_the_compiled_slot_with_no_python_between() -> None:
    module = compiled.built("census")
    assert module is not None
    # The class's `in` is the slot of the compiled base itself, not a Python function.
    assert NativeDictionary.__contains__ is module.Contains.__dict__["__contains__"]
    assert NativeDictionary.__mro__.index(module.Contains) < NativeDictionary.__mro__.index(DictionaryBase)


def test_pure_set_after_import_gives_the_python_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The variable is read when a dictionary arms its lookups, never at import.
    path = tmp_path / "w.dafsa"
    path.write_bytes(compile_words(["CAT", "CATS", "DOG", "ÉTÉ"], Policy.EXACT))
    twin_steps = [0]
    real = CompactLayout.step

    def counted(self: CompactLayout, state: int, letters: str) -> int | None:
        twin_steps[0] += 1
        return real(self, state, letters)

    monkeypatch.setattr(CompactLayout, "step", counted)
    monkeypatch.setenv(compiled.PURE_VARIABLE, "1")
    d = NativeDictionary(path)
    assert "CAT" in d and "ÉTÉ" in d and "ÉTÉ " in d and "cat" not in d and "CATSS" not in d and 3 not in d
    assert d._lookup is None and getattr(d, "_fast", None) is None
    assert twin_steps[0] >= 3  # every text with letters walked by the twin
    monkeypatch.setenv(compiled.PURE_VARIABLE, "0")
    steps = twin_steps[0]
    assert "DOG" in d and d._lookup is None and twin_steps[0] > steps  # armed on the twin: it keeps it
    if compiled.built("census") is not None:
        fresh = NativeDictionary(path)
        assert "DOG" in fresh and fresh._fast is fresh._lookup is not None
        steps = twin_steps[0]
        assert "CAT" in fresh and "DOGS" not in fresh and twin_steps[0] == steps  # answered in C


@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(max_codepoint=0x24F), max_size=6), policy=st.sampled_from([Policy.FOLD, Policy.EXACT]))
def test_the_pieces_make_the_key_a_character_at_a_time(text: str, policy: Policy) -> None:
    # The claim the compiled key rests on: a text of characters whose piece is known has
    # for key its pieces one after the other; any other character sends it to Python.
    table = pieces(policy)
    if all(table[ord(char)] is not None for char in text) and text:
        assert normalize(text, policy) == "".join(table[ord(char)] or "" for char in text)


@pytest.mark.slow
@pytest.mark.parametrize("policy", [Policy.FOLD, Policy.EXACT])
def test_the_pieces_make_the_key_of_every_pair(policy: Policy) -> None:
    # Normalizing composes across a boundary at most (NFC): every pair checked (2 CPU-s).
    table = pieces(policy)
    known = [chr(point) for point, piece in enumerate(table) if piece is not None]
    assert len(known) > 400
    for first in known:
        for second in known:
            assert normalize(first + second, policy) == table[ord(first)] + table[ord(second)], (first, second)  # type: ignore[operator]


@needs_c
@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(st.text("ABCDEFG", min_size=1, max_size=6), min_size=1, max_size=40),
    asked=st.lists(st.text("ABCDEFGH", max_size=7), min_size=1, max_size=30),
    version=st.sampled_from([1, 2]),
)
def test_the_memo_and_the_table_change_no_answer(words: list[str], asked: list[str], version: int) -> None:
    module = compiled.built("census")
    assert module is not None
    stored = sorted(set(words))
    d = NativeDictionary.of_buffer(compile_words(stored, Policy.EXACT, version=version), "memo")
    states, h = d.states, d.header
    body, width = (states.body, 0) if isinstance(states, CompactLayout) else (states.cells, states.header_cells)
    lookups = [
        module.Lookup(
            body, version, states.root, h.alphabet, width, h.longest_word, POLICY_CODES[Policy.EXACT], memo=memo, table=table
        )
        for memo in range(4)
        for table in (False, True)
    ]
    # The decoded table of `in`: built for every version 2 body a writer writes, never for version 1.
    assert [lookup.table_bytes > 0 for lookup in lookups] == [table and version == 2 for _ in range(4) for table in (False, True)]
    for key in [*asked, *asked, *stored]:
        walked = states.step(states.root, key) if len(key) <= h.longest_word else None
        for lookup in lookups:
            assert lookup.step(states.root, key) == walked, key
            assert lookup.word(key) is (key in stored if key else False), key
            assert lookup.has_key(key) is (key in stored), key


# -- the table of `in`: a version 2 body decoded once (automaton/_census.c, "the table") -------------


@needs_c
@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=7), min_size=1, max_size=40),
    damage=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=3),
    asked=st.lists(st.text("ABCDEFGHOPQRSTUVWXYZ", max_size=8), max_size=20),
    policy=st.sampled_from([Policy.EXACT, Policy.RAW]),
)
def test_the_table_answers_as_the_walk_of_the_body_or_is_not_built(
    words: list[str], damage: list[tuple[int, int]], asked: list[str], policy: Policy
) -> None:
    """On any body (a writer's, or one with bytes changed, with no census to protect it):
    when the table is built, the walk of the body raises for no key and answers as the
    table does, for `in` and has_prefix; when the walk raises or a target lands inside a
    state, no table is built."""
    module = compiled.built("census")
    assert module is not None
    stored = sorted(set(words))
    d = NativeDictionary.of_buffer(compile_words(stored, policy, version=2), "table")
    states, h = d.states, d.header
    assert isinstance(states, CompactLayout)
    body = bytearray(states.body)
    for at, value in damage:
        body[at % len(body)] = value
    made = [
        module.Lookup(bytes(body), 2, states.root, h.alphabet, 0, h.longest_word, POLICY_CODES[policy], table=table)
        for table in (False, True)
    ]
    walked, tabled = made
    assert walked.table_bytes == 0
    if not damage:
        assert tabled.table_bytes > 0
    for key in [*asked, *stored, *(word[:-1] for word in stored)]:
        for ask in ("word", "prefix"):
            try:
                expected: Any = getattr(walked, ask)(key)
            except ValueError:
                assert tabled.table_bytes == 0, key  # a body the walk finds damaged has no table
                expected = ValueError
            if expected is ValueError:
                with pytest.raises(ValueError):
                    getattr(tabled, ask)(key)
            else:
                assert getattr(tabled, ask)(key) is expected, (key, ask)


@needs_c
def test_the_table_is_bounded_and_only_for_small_alphabets() -> None:
    module = compiled.built("census")
    assert module is not None
    wide = "".join(chr(0x41 + i) for i in range(33))  # 33 letters: a mask of 32 bits does not hold them
    for alphabet, built in ((wide[:32], True), (wide, False)):
        stored = sorted({alphabet[i] + alphabet[-1 - i] for i in range(len(alphabet))})
        d = NativeDictionary.of_buffer(compile_words(stored, Policy.RAW, version=2), "wide")
        states, h = d.states, d.header
        lookup = module.Lookup(states.body, 2, states.root, h.alphabet, 0, h.longest_word, POLICY_CODES[Policy.RAW])
        assert (lookup.table_bytes > 0) is built
        assert all(lookup.word(word) for word in stored)
        assert not lookup.word(alphabet[0] * 2)
        if built:  # 4 bytes a state and an edge, and the leaf's row
            edges = sum(1 for _ in states.edges(states.root)) + len(stored)
            assert lookup.table_bytes == 4 * (1 + len(alphabet) + edges + 1)
        lookup.release()
        assert lookup.table_bytes == 0


@needs_c
def test_both_copies_of_the_table_walk_answer_alike(tmp_path: Path) -> None:
    """The copy for CPUs with popcnt and the copy for any CPU (BOGGLE_DAFSA_PLAIN_SEARCH=1),
    on every word of a list, each with its last letter changed, and each word cut short."""
    import os
    import subprocess
    import sys

    words = sorted({a + b + c for a in "ABCPQZ" for b in "AEIOUY" for c in "RSTXYZ" if (ord(a) + ord(b) * ord(c)) % 3})
    path = tmp_path / "words.dafsa"
    path.write_bytes(compile_words(words, Policy.FOLD, version=2))
    asked = [*words, *(word[:-1] + "Q" for word in words), *(word[:2] for word in words), *(word.lower() for word in words)]
    script = (
        "import sys\n"
        "from boggle_dafsa.automaton import _census\n"
        "from boggle_dafsa.automaton.reader import NativeDictionary\n"
        "d = NativeDictionary(sys.argv[1])\n"
        "print(_census.TABLE_WALK, ''.join('1' if key in d else '0' for key in sys.argv[2:]))\n"
    )
    answers = {}
    for plain in ("0", "1"):
        env = {**os.environ, "BOGGLE_DAFSA_PLAIN_SEARCH": plain, compiled.PURE_VARIABLE: "0"}
        done = subprocess.run([sys.executable, "-c", script, str(path), *asked], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        variant, answers[plain] = done.stdout.split()
        if plain == "1":
            assert variant == "plain"
    stored = set(words)
    assert answers["0"] == answers["1"] == "".join("1" if key.upper() in stored else "0" for key in asked)
