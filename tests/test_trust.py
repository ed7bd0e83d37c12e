"""The trust boundary: files that lie about their language, walks bounded by construction.

- The compiled walks stop after a budget of steps or words and resume from a cursor:
  walked in chunks of any size they give exactly the one-shot walk (and the Python twin).
- The census (``census`` in ``query/_walk.c`` and its twin ``_check_below``) agrees with
  the word list on sound files and refuses, as "damaged", files whose checksums hold but
  whose automaton holds more or longer words than the header says, or states that lead
  nowhere; open-time header checks refuse fields the kernels do not expect.
- Every command on such crafted files answers or refuses in one line, in bounded memory
  and time; a huge honest language streams, and Ctrl-C stops it.
"""

from __future__ import annotations

import resource
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import query
from boggle_dafsa.automaton.builder import Automaton
from boggle_dafsa.automaton.compact import encode
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.formats import open_path, write_dictionary
from boggle_dafsa.query import automata, walk
from boggle_dafsa.words.normalize import Policy
from helpers.kernels import CENSUS, WALK, forced, requires_c
from helpers.warm import run_command

compiled = requires_c("query walk")

LETTERS = "ABCD"
word_lists = st.lists(st.text(LETTERS, min_size=1, max_size=7), min_size=1, max_size=50).map(lambda ws: sorted(set(ws)))
queries = st.sampled_from(
    [automata.everything(), automata.Levenshtein("ABC", 1), automata.Anagram("ABCD", 1, True), automata.Range("AB", "CA")]
)

#: Address-space limit and time limit of every command run on a crafted file.
MEMORY = 1536 << 20
SECONDS = 60


# -- crafted files, built with the project's own writer ---------------------------------------


def chain_file(levels: int, letters: str, words: int, longest: int | None = None, version: int = 1) -> bytes:
    """A native file of ``levels + 1`` states, each leading by every one of ``letters`` to the
    next: ``len(letters) ** levels`` words of ``levels`` letters, whatever ``words`` (the
    header's count) says. Its checksums hold: the writer made it."""
    finals = [True] + [False] * levels
    labels: list[tuple[Any, ...]] = [()] + [tuple(x for letter in letters for x in (letter, i - 1)) for i in range(1, levels + 1)]
    automaton = Automaton(
        finals=finals, labels=labels, root=levels, word_count=words, longest_word=levels if longest is None else longest
    )
    return encode(automaton, Policy.FOLD, "00" * 32, version)


def patched(data: bytes, **fields: int) -> bytes:
    """``data`` with header fields changed (by name, as in fileformat._FIXED) and both checksums recomputed."""
    offsets = {
        "header_size": 12,
        "words": 24,
        "states": 28,
        "transitions": 32,
        "finals": 36,
        "longest": 40,
        "root": 44,
        "cells": 48,
    }
    out = bytearray(data)
    for name, value in fields.items():
        struct.pack_into("<I", out, offsets[name], value)
    header_size = struct.unpack_from("<I", out, 12)[0]
    struct.pack_into("<I", out, 52, zlib.crc32(bytes(out[header_size:])))
    struct.pack_into("<I", out, 92, 0)
    struct.pack_into("<I", out, 92, zlib.crc32(bytes(out[:header_size])))
    return bytes(out)


def misaligned(data: bytes) -> bytes:
    """``data`` with its cells moved one byte later (header_size odd), checksums holding."""
    header_size = struct.unpack_from("<I", data, 12)[0]
    moved = data[:header_size] + b"\0" + data[header_size:]
    return patched(moved, header_size=header_size + 1)


def only_the_empty_word(version: int = 1) -> bytes:
    automaton = Automaton(finals=[True], labels=[()], root=0, word_count=1, longest_word=0)
    return encode(automaton, Policy.FOLD, "00" * 32, version)


def deep_lie() -> bytes:
    """ABC with a header claiming a longest word of a million letters (as many states and
    cells, the cells padded with zeros): the open-time bounds hold, the census does not."""
    data = encode_words(["ABC"])
    states, transitions = struct.unpack_from("<II", data, 28)
    million = 1_000_000
    padding = bytes(4 * (million - states))
    return patched(data + padding, longest=million, states=million, cells=million + transitions)


def encode_words(words: list[str], version: int = 1) -> bytes:
    from boggle_dafsa.formats.native import compile_words

    return compile_words(words, version=version, index=False)  # patched() rewrites the body's checksum: no section after it


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("trust")
    files = {
        # 2**40 words of 40 letters in 588 bytes, the header saying 2**32 - 1.
        "huge.dafsa": chain_file(40, "AB", 2**32 - 1),
        # 31 letters, 20 states: 31**20 paths.
        "wide.dafsa": chain_file(20, "ABCDEFGHIJKLMNOPQRSTUVWXYZÀÂÇÈÉ", 2**32 - 1),
        # Honest: 2**31 words of 31 letters, as the header says.
        "honest.dafsa": chain_file(31, "AB", 2**31),
        "misaligned.dafsa": misaligned(encode_words(["AB", "ABC", "B"])),
        "empty-word.dafsa": only_the_empty_word(),
        "deep-lie.dafsa": deep_lie(),
        "short-lie.dafsa": patched(encode_words(["AB", "ABC", "B"]), longest=2),
        "count-lie.dafsa": patched(encode_words(["AB", "ABC", "B"]), words=4),
        # The same lies in version 2 (compact edges): expanded, then counted.
        "huge-v2.dafsa": chain_file(40, "AB", 2**32 - 1, version=2),
        "wide-v2.dafsa": chain_file(20, "ABCDEFGHIJKLMNOPQRSTUVWXYZÀÂÇÈÉ", 2**32 - 1, version=2),
        "honest-v2.dafsa": chain_file(31, "AB", 2**31, version=2),
        "empty-word-v2.dafsa": only_the_empty_word(version=2),
        "short-lie-v2.dafsa": patched(encode_words(["AB", "ABC", "B"], version=2), longest=2),
        "count-lie-v2.dafsa": patched(encode_words(["AB", "ABC", "B"], version=2), words=4),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "words.txt").write_text("ab\nabc\nb\n")
    return folder


def test_the_crafted_files_are_what_they_claim(folder: Path) -> None:
    assert (folder / "huge.dafsa").stat().st_size == 588
    # Their checksums hold: only the census can tell.
    for name in (
        "huge.dafsa",
        "wide.dafsa",
        "honest.dafsa",
        "short-lie.dafsa",
        "count-lie.dafsa",
        "huge-v2.dafsa",
        "wide-v2.dafsa",
        "honest-v2.dafsa",
        "short-lie-v2.dafsa",
        "count-lie-v2.dafsa",
    ):
        d = open_path(folder / name)
        assert d.body_intact() and d.version == (2 if "v2" in name else 1)
    assert len(open_path(folder / "honest.dafsa")) == len(open_path(folder / "honest-v2.dafsa")) == 2**31


# -- the census --------------------------------------------------------------------------------


def census_each(d: Any) -> list[str]:
    """The census verdict with each census kernel: "ok" or the error message."""
    verdicts = []
    for name in CENSUS:
        fresh = open_path(d.path)
        try:
            with forced(name):
                fresh.census()
            verdicts.append("ok")
        except DictionaryError as error:
            verdicts.append("damaged" if "damaged" in str(error) else str(error))
    return verdicts


@pytest.mark.slow
@settings(max_examples=40)
@given(words=word_lists)
def test_census_holds_on_every_list_the_writer_writes(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    path = tmp_path_factory.mktemp("census") / "w.dafsa"
    write_dictionary(words, path, "native")
    assert census_each(open_path(path)) == ["ok"] * len(CENSUS)


@pytest.mark.parametrize(
    "name",
    [
        "huge.dafsa",
        "wide.dafsa",
        "short-lie.dafsa",
        "count-lie.dafsa",
        "huge-v2.dafsa",
        "wide-v2.dafsa",
        "short-lie-v2.dafsa",
        "count-lie-v2.dafsa",
    ],
)
def test_census_refuses_lying_files_with_either_kernel(folder: Path, name: str) -> None:
    assert census_each(open_path(folder / name)) == ["damaged"] * len(CENSUS)


@pytest.mark.parametrize("name", ["misaligned.dafsa", "empty-word.dafsa", "deep-lie.dafsa", "empty-word-v2.dafsa"])
def test_fields_the_kernels_do_not_expect_are_refused(folder: Path, name: str) -> None:
    with pytest.raises(DictionaryError, match="damaged"):
        d = open_path(folder / name)
        d.checked()


def test_a_sound_verdict_is_kept_by_identity(tmp_path: Path) -> None:
    from boggle_dafsa.automaton import reader

    write_dictionary(["AB", "ABC", "B"], tmp_path / "w.dafsa", "native")
    d = open_path(tmp_path / "w.dafsa")
    d.checked()
    reader._SOUND.clear()  # a new process: the kept verdict answers
    runs: list[int] = []
    again = open_path(tmp_path / "w.dafsa")
    again.census = lambda: runs.append(1)  # type: ignore[method-assign]
    again.checked()
    assert runs == []
    # Rewritten with a lie (a new size or mtime, a new inode): counted again, and refused.
    (tmp_path / "w.dafsa").write_bytes(patched((tmp_path / "w.dafsa").read_bytes(), words=4))
    with pytest.raises(DictionaryError, match="damaged"):
        open_path(tmp_path / "w.dafsa").checked()


def test_a_dead_state_is_damage(tmp_path: Path) -> None:
    # A and B lead to a state with no word below: every walk would explore it for nothing.
    automaton = Automaton(finals=[True, False, False], labels=[(), (), ("A", 0, "B", 1)], root=2, word_count=1, longest_word=1)
    path = tmp_path / "dead.dafsa"
    path.write_bytes(encode(automaton, Policy.FOLD, "00" * 32))
    assert census_each(open_path(path)) == ["damaged"] * len(CENSUS)


# -- chunked walks --------------------------------------------------------------------------


@pytest.mark.slow
@compiled
@settings(max_examples=60)
@given(words=word_lists, automaton=queries, budget=st.integers(1, 12), chunk=st.integers(1, 5))
def test_a_walk_resumed_from_its_cursor_is_the_one_shot_walk(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], automaton: Any, budget: int, chunk: int
) -> None:
    from boggle_dafsa.query._walk import walk as c_walk  # type: ignore[attr-defined]

    path = tmp_path_factory.mktemp("walk") / "w.dafsa"
    write_dictionary(words, path, "native")
    d = open_path(path)
    expected = [w for w, _ in walk._walk_native(d, automata.LazyDFA(automaton))]
    dfa = automata.LazyDFA(automaton)
    got: list[str] = []
    cursor = None
    calls = 0
    while True:
        found, _sids, cursor = c_walk(
            d.layout().cells, d.layout().root, d.alphabet, dfa, d.header.longest_word, chunk, 1000, cursor, budget
        )
        assert len(found) <= chunk
        got += found
        calls += 1
        if cursor is None:
            break
        assert calls < 10_000
    assert got == expected
    assert got == sorted(automaton_scan(words, automaton))


def automaton_scan(words: list[str], automaton: Any) -> list[str]:
    dfa = automata.LazyDFA(automaton)
    out = []
    for word in words:
        state = dfa.start
        for letter in word:
            if state < 0:
                break
            state = dfa.step(state, letter)
        if state >= 0 and dfa.accept[state]:
            out.append(word)
    return out


@pytest.mark.slow
@compiled
@settings(max_examples=60)
@given(
    words=word_lists,
    target=st.text(LETTERS, min_size=1, max_size=4),
    k=st.integers(0, 2),
    prefix=st.booleans(),
    budget=st.integers(1, 12),
    chunk=st.integers(1, 5),
)
def test_a_fuzzy_walk_resumed_from_its_cursor_is_the_one_shot_walk(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], target: str, k: int, prefix: bool, budget: int, chunk: int
) -> None:
    from boggle_dafsa.query._walk import fuzzy  # type: ignore[attr-defined]

    path = tmp_path_factory.mktemp("fuzzy") / "w.dafsa"
    write_dictionary(words, path, "native")
    d = open_path(path)
    expected = list(walk.fuzzy_native(d, target, k, True, prefix, kernel="python"))
    got: list[tuple[str, int]] = []
    cursor = None
    while True:
        found, distances, cursor = fuzzy(
            d.layout().cells, d.layout().root, d.alphabet, target, k, True, prefix, d.header.longest_word, chunk, cursor, budget
        )
        got += zip(found, distances)
        if cursor is None:
            break
    assert got == expected


@compiled
def test_a_forged_cursor_is_refused_not_followed(tmp_path: Path) -> None:
    from boggle_dafsa.query._walk import fuzzy  # type: ignore[attr-defined]
    from boggle_dafsa.query._walk import walk as c_walk

    write_dictionary(["AB", "ABC", "B"], tmp_path / "w.dafsa", "native")
    d = open_path(tmp_path / "w.dafsa")
    dfa = automata.LazyDFA(automata.everything())
    for cursor in (b"", b"\x05", b"\x00\x07", b"\xff\x00", b"\x00" * 50, "A"):
        with pytest.raises((ValueError, TypeError)):
            c_walk(d.layout().cells, d.layout().root, d.alphabet, dfa, 3, 10, 100, cursor, 5)
        with pytest.raises((ValueError, TypeError)):
            fuzzy(d.layout().cells, d.layout().root, d.alphabet, "AB", 1, False, False, 3, 10, cursor, 5)


def test_streaming_verbs_equal_their_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Past SORT_IN_MEMORY results, fuzzy and anagram --sub walk once per distance or length:
    # the same answers, in the same order.
    words = sorted({a + b + c for a in LETTERS for b in LETTERS for c in LETTERS} | set(LETTERS) | {"AB", "BA", "CD"})
    write_dictionary(words, tmp_path / "w.dafsa", "native")
    d = open_path(tmp_path / "w.dafsa")
    sorted_fuzzy = query.fuzzy(d, "ABC", 2)
    sorted_anagram = [h.word for h in query.anagram(d, "ABCD?", sub=True)]
    monkeypatch.setattr(query, "SORT_IN_MEMORY", 3)
    assert list(query.iter_fuzzy(d, "ABC", 2)) == sorted_fuzzy
    assert list(query.iter_fuzzy(d, "ABC", 2, limit=7)) == sorted_fuzzy[:7]
    assert [h.word for h in query.iter_anagram(d, "ABCD?", sub=True)] == sorted_anagram
    assert [h.word for h in query.iter_anagram(d, "ABCD?", sub=True, limit=5)] == sorted_anagram[:5]


@pytest.mark.slow
def test_a_deadline_stops_a_huge_walk(folder: Path) -> None:
    from boggle_dafsa.solver import time_limit

    d = open_path(folder / "honest.dafsa")
    for kernel in WALK:
        start = time.monotonic()
        with time_limit(0.3), pytest.raises(TimeoutError):
            for _ in walk.search_states(d, automata.everything(), kernel=kernel):
                pass
        assert time.monotonic() - start < 30


# -- the commands on crafted files ------------------------------------------------------------


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """A command in a process of its own (forked warm: tests/helpers/warm.py), its address space bounded."""
    return run_command(args, cwd=folder, timeout=SECONDS, limits=[("RLIMIT_AS", MEMORY, MEMORY)])


COMMANDS = [
    ["match", "*"],
    ["match", "A*B", "--json"],
    ["grep", ".*"],
    ["range", "--count"],
    ["anagram", "AB", "--sub"],
    ["anagram", "??"],
    ["fuzzy", "AB", "-k", "2", "--prefix"],
    ["prefixes", "ABABAB"],
    ["hooks", "AB"],
    ["dump"],
    ["complete", "A"],
    ["solve", "ABA/BAB/ABA"],
    ["solve", "-s", "3x3x3", "ABCDEFGHIJKLMNOPQRSTUVWXYZA"],
    ["lookup", "AB"],
    ["union", "-o", "out.dafsa", "words.dafsa"],
    ["intersect", "-o", "out.dafsa", "words.dafsa"],
    ["diff", "-o", "out.dafsa", "words.dafsa"],
]
LYING = [
    "huge.dafsa",
    "wide.dafsa",
    "misaligned.dafsa",
    "empty-word.dafsa",
    "deep-lie.dafsa",
    "short-lie.dafsa",
    "count-lie.dafsa",
    "huge-v2.dafsa",
    "wide-v2.dafsa",
    "empty-word-v2.dafsa",
    "short-lie-v2.dafsa",
    "count-lie-v2.dafsa",
]


@pytest.mark.slow
@pytest.mark.parametrize("name", LYING)
def test_every_command_refuses_a_lying_file_in_one_line(folder: Path, name: str) -> None:
    write_dictionary(["AB", "ABC", "B"], folder / "words.dafsa", "native")
    for command in COMMANDS:
        args = [*command[:1], "-d", name, *command[1:]] if command[0] not in ("union", "intersect", "diff") else [*command, name]
        result = run(args, folder)
        where = f"{args}\n{result.stderr[-2000:]}"
        assert "Traceback" not in result.stderr, where
        if result.returncode in (0, 1) and command[0] in ("hooks", "prefixes", "lookup"):
            continue  # a few steps from the root, bounded by the word: nothing to refuse
        assert result.returncode == 2, where
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "damaged" in lines[0], where
    assert not (folder / "out.dafsa").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["match", "*"],
        ["grep", ".*", "--json"],
        ["range"],
        ["fuzzy", "A", "-k", "1", "--prefix"],
        ["anagram", "A" * 16 + "B" * 15, "--sub"],
        ["range", "--count"],
        ["search", "--pattern", "A*", "--vowels", "10-", "--excludes", "C", "--json"],
    ],
)
@pytest.mark.parametrize("file", ["honest.dafsa", "honest-v2.dafsa"])
def test_a_huge_honest_language_streams_and_one_ctrl_c_stops_it(folder: Path, command: list[str], file: str) -> None:
    # `python -m boggle_dafsa`, the console script's entry point: a Ctrl-C in its imports
    # (a second is not always enough for them on a loaded machine) is one line too.
    process = subprocess.Popen(
        [sys.executable, "-m", "boggle_dafsa", command[0], "-d", file, *command[1:]],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        if command[-1] != "--count":
            first = process.stdout.readline()  # streams: the first answers come at once
            assert first.strip(), process.stderr.read() if process.stderr else ""
        else:
            time.sleep(1)
        assert process.poll() is None
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        # Keep the pipe drained so the process never blocks on a full pipe; a process that
        # goes on streaming is killed by the watchdog (the drain ends, the test fails below).
        watchdog = threading.Timer(SECONDS, process.kill)
        watchdog.start()
        try:
            while process.stdout.read(1 << 16):
                pass
            code = process.wait(timeout=SECONDS)
        finally:
            watchdog.cancel()
        stopped = time.monotonic() - sent
        err = process.stderr.read().decode() if process.stderr else ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "Traceback" not in err
    if code != 0:
        assert code == 130 and err.strip() == "boggle-dafsa: interrupted", err
    print(f"{command}: stopped {stopped:.3f} s after SIGINT")
    assert stopped < 10


def test_a_ctrl_c_while_the_command_imports_is_one_line() -> None:
    # The Ctrl-C is made to land in the import of the command (what a loaded machine's
    # slow start, or a quick Ctrl-C, gives): the entry point answers it as the command does.
    program = (
        "import builtins\n"
        "real = builtins.__import__\n"
        "def interrupted(name, *args, **kwargs):\n"
        "    if name == 'boggle_dafsa.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = interrupted\n"
        "from boggle_dafsa.__main__ import main\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", program, "--version"], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "boggle-dafsa: interrupted\n")
    plain = subprocess.run([sys.executable, "-m", "boggle_dafsa", "--version"], capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0 and plain.stdout.startswith("boggle-dafsa "), plain.stderr


# -- inputs and outputs -----------------------------------------------------------------------


@pytest.mark.slow
def test_build_refuses_to_write_over_its_input(tmp_path: Path) -> None:
    words = tmp_path / "in.txt"
    words.write_text("chat\nchien\n")
    (tmp_path / "link.dafsa").symlink_to(words)
    for output in ("in.txt", "./in.txt", "link.dafsa"):
        result = run(["build", "in.txt", "-o", output], tmp_path)
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and "is the input" in result.stderr, result.stderr
        assert words.read_text() == "chat\nchien\n"
    assert run(["build", "in.txt", "-o", "out.dafsa", "-q"], tmp_path).returncode == 0
    for operation in ("union", "intersect", "diff"):
        result = run([operation, "out.dafsa", "-o", "out.dafsa"], tmp_path)
        assert result.returncode == 2 and "is the input" in result.stderr, result.stderr
    assert open_path(tmp_path / "out.dafsa").checked() is None


@pytest.mark.slow
def test_set_algebra_refuses_words_the_policy_never_looks_up(tmp_path: Path) -> None:
    # A fold dictionary whose letters are lower case: no query can reach its words, and a
    # union would write them into a new fold dictionary as unreachable as they are.
    automaton = Automaton(finals=[True, False], labels=[(), ("a", 0, "b", 0)], root=1, word_count=2, longest_word=1)
    (tmp_path / "lower.dafsa").write_bytes(encode(automaton, Policy.FOLD, "00" * 32))
    write_dictionary(["AB"], tmp_path / "upper.dafsa", "native")
    for operation in ("union", "intersect", "diff"):
        result = run([operation, "upper.dafsa", "lower.dafsa", "-o", "out.dafsa"], tmp_path)
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and "never looks up" in result.stderr, result.stderr
    assert not (tmp_path / "out.dafsa").exists()
    # Exact dictionaries hold any letters; only words that are not NFC letters are refused.
    write_dictionary(["ab", "Élan"], tmp_path / "exact.dafsa", "native", {"policy": Policy.EXACT})
    assert run(["union", "exact.dafsa", "-o", "out.dafsa", "-q"], tmp_path).returncode == 0


@pytest.mark.slow
def test_a_marisa_probe_that_does_not_run_to_the_end_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import marisa_trie

    from boggle_dafsa.formats import marisa

    path = tmp_path / "plain.marisa"
    path.write_bytes(marisa_trie.Trie(["CHAT", "ZOO"]).tobytes())
    monkeypatch.setattr(marisa, "_verdicts", {})
    monkeypatch.setattr(marisa, "PROBE_MEMORY", 8 << 20)  # the child cannot even start Python
    with pytest.raises(DictionaryError, match="damaged marisa file, or too large to check here"):
        open_path(path)
    monkeypatch.setattr(marisa, "PROBE_MEMORY", 2 << 30)
    monkeypatch.setattr(marisa, "_verdicts", {})
    assert list(open_path(path)) == ["CHAT", "ZOO"]


def test_verify_counts_the_extras_of_a_huge_language_past_the_end_of_the_list(folder: Path) -> None:
    from boggle_dafsa.dictionaries.verify import verify
    from boggle_dafsa.words.wordlist import read_wordlist

    listed = folder / "two.txt"
    listed.write_text("a" * 31 + "\n" + "a" * 30 + "b\n")
    result = verify(open_path(folder / "honest.dafsa"), read_wordlist(listed))
    assert result.missing_count == 0 and result.extra_count == 2**31 - 2
    assert result.extra == sorted(result.extra) and len(result.extra) == 10 and result.extra[0] == "A" * 29 + "BA"


def test_verify_answers_at_once_when_the_lists_words_sort_late_in_a_huge_language(folder: Path) -> None:
    # A merge would walk about 2**31 words to reach "BB...B": the look-ups answer in the time of the list.
    from boggle_dafsa.dictionaries.verify import verify
    from boggle_dafsa.words.wordlist import read_wordlist

    listed = folder / "late.txt"
    listed.write_text("b" * 31 + "\n" + "b" * 30 + "a\n" + "c" * 31 + "\n")
    result = verify(open_path(folder / "honest.dafsa"), read_wordlist(listed))
    assert result.missing == ["C" * 31] and result.missing_count == 1
    # The extras listed are the language's first ten words (n in binary over A and B, 31 letters).
    assert result.extra_count == 2**31 - 2
    assert result.extra == [format(n, "031b").replace("0", "A").replace("1", "B") for n in range(10)]
