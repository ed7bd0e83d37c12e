"""The raw policy: any key, each line stored exactly as given, found by every query and set operation."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from boggle_dafsa import query
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.dictionaries.build import build_dictionary
from boggle_dafsa.formats import open_path
from boggle_dafsa.query import setops
from boggle_dafsa.words.normalize import Policy, normalize
from boggle_dafsa.words.wordlist import read_wordlist
from helpers.kernels import builder_kernel, each

# Any character but the line breaks (a key is a line) and NUL (a list holding one is binary).
KEY = st.text(st.characters(blacklist_characters="\n\r\0", blacklist_categories=("Cs",)), min_size=1, max_size=12)


def expected(lines: list[str]) -> list[str]:
    """What a raw dictionary holds: the distinct non-empty lines, in UTF-8 byte order."""
    return sorted({line for line in lines if line}, key=lambda key: key.encode("utf-8"))


@pytest.mark.slow
@each("builder")
@given(keys=st.lists(KEY, min_size=1, max_size=30), crlf=st.booleans())
def test_any_keys_come_back_exactly(tmp_path_factory: pytest.TempPathFactory, kernel: str, keys: list[str], crlf: bool) -> None:
    assume(not keys[0].startswith("\ufeff"))  # a byte order mark: refused at the start of a list
    folder = tmp_path_factory.mktemp("raw")
    source = folder / "keys.txt"
    source.write_bytes(("\r\n" if crlf else "\n").join(keys).encode("utf-8") + b"\n\n")
    report = build_dictionary(source, folder / "k.dafsa", policy=Policy.RAW, kernel=builder_kernel(kernel))
    assert report.words == len(set(keys)) and not report.dropped
    d = NativeDictionary(folder / "k.dafsa")
    try:
        assert d.policy is Policy.RAW
        assert list(d) == expected(keys)
        for key in keys:
            assert key in d
            assert d.normalize(key) == key
        # The whole-list reader (verify, marisa and dawg builds) keeps the same keys.
        assert read_wordlist(source, Policy.RAW).words == expected(keys)
    finally:
        d.close()


def test_raw_keeps_what_fold_and_exact_drop_or_split(tmp_path: Path) -> None:
    lines = ["/usr/lib/x86_64,gnu;a b", "  spaced  ", "Straße", "e\u0301", "123", "a*b?[c]", "back\\slash", "tab\tkey"]
    source = tmp_path / "keys.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    build_dictionary(source, tmp_path / "raw.dafsa", policy=Policy.RAW)
    build_dictionary(source, tmp_path / "fold.dafsa", policy=Policy.FOLD)
    raw, folded = NativeDictionary(tmp_path / "raw.dafsa"), NativeDictionary(tmp_path / "fold.dafsa")
    assert list(raw) == expected(lines)  # no NFC either: "e" + U+0301 stays two characters
    # The stored keys are folded; a lookup folds its key as the file's policy says (so Straße finds STRASSE).
    assert "STRASSE" in list(folded) and "Straße" not in list(folded) and "Straße" in folded and "123" not in folded
    assert "STRASSE" not in raw and "Straße" in raw
    # fold still splits on , and ; and drops what holds a non-letter; raw split nothing.
    assert "GNU" in folded and "gnu" not in raw and "/usr/lib/x86_64,gnu;a b" in raw
    assert normalize("Straße", Policy.EXACT) == "Straße" and normalize(" x ", Policy.RAW) == " x "
    raw.close()
    folded.close()


def test_queries_and_set_algebra_on_raw_keys(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("a*b\na?b\naxb\n[x]\nback\\slash\nsrc/main.py\n", encoding="utf-8")
    second.write_text("axb\nsrc/main.py\nsrc/test.py\n", encoding="utf-8")
    for name in ("a", "b"):
        build_dictionary(tmp_path / f"{name}.txt", tmp_path / f"{name}.dafsa", policy=Policy.RAW)
    a, b = open_path(tmp_path / "a.dafsa"), open_path(tmp_path / "b.dafsa")
    words = list(a)
    # Every query answers what a scan of the list answers.
    assert list(query.match(a, "a\\*b")) == ["a*b"]
    assert list(query.match(a, "a?b")) == [w for w in words if len(w) == 3 and w[0] == "a" and w[2] == "b"]
    assert list(query.match(a, "\\[*")) == [w for w in words if w.startswith("[")]
    assert list(query.match(a, "*\\\\*")) == [w for w in words if "\\" in w]
    assert list(query.match(a, "src/*.py")) == ["src/main.py"]
    assert list(query.grep(a, "a[\\*x]b")) == ["a*b", "axb"]
    union = setops.write_set([a, b], "union", tmp_path / "u.dafsa")
    assert union.words == len(set(words) | set(b))
    u = open_path(tmp_path / "u.dafsa")
    assert list(u) == sorted(set(words) | set(b)) and u.policy is Policy.RAW
    setops.write_set([a, b], "intersect", tmp_path / "i.dafsa")
    assert list(open_path(tmp_path / "i.dafsa")) == ["axb", "src/main.py"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("sort") is None, reason="no sort command")
def test_build_raw_then_dump_matches_sort_u_byte_for_byte(tmp_path: Path) -> None:
    import random

    rng = random.Random(7)
    parts = ["usr", "lib", "share", "doc", "été", "日本", "a b", "x,y", "z;w", "README.md", "#1", "ü"]
    lines = ["/".join(rng.choice(parts) for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    source = tmp_path / "paths.txt"
    source.write_bytes("\n".join(lines).encode("utf-8") + b"\n")
    built = run_cli("build", str(source), "--policy", "raw", "-o", str(tmp_path / "p.dafsa"), "--quiet")
    assert built.returncode == 0, built.stderr
    dumped = subprocess.run([*run_cli_prefix(), "dump", str(tmp_path / "p.dafsa")], capture_output=True, check=True).stdout
    oracle = subprocess.run(["sort", "-u", str(source)], capture_output=True, check=True, env={"LC_ALL": "C"}).stdout
    assert dumped == oracle


def run_cli_prefix() -> list[str]:
    import sys

    return [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]


@pytest.mark.slow
def test_an_unknown_or_contradictory_policy_is_one_line_and_exit_2(tmp_path: Path) -> None:
    source = tmp_path / "w.txt"
    source.write_text("a\n", encoding="utf-8")
    unknown = run_cli("build", str(source), "--policy", "loose", "-o", str(tmp_path / "w.dafsa"))
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "unknown policy 'loose'" in unknown.stderr
    both = run_cli("build", str(source), "--policy", "raw", "--exact", "-o", str(tmp_path / "w.dafsa"))
    assert both.returncode == 2 and both.stderr.count("\n") == 1 and "disagree" in both.stderr
    assert not (tmp_path / "w.dafsa").exists()


def test_a_raw_query_is_not_composed(tmp_path: Path) -> None:
    # Raw keys keep decomposed letters: a query is taken as typed, not NFC-composed.
    source = tmp_path / "k.txt"
    source.write_text("e\u0301te\u0301\n\u00e9t\u00e9\n", encoding="utf-8")
    build_dictionary(source, tmp_path / "k.dafsa", policy=Policy.RAW)
    d = open_path(tmp_path / "k.dafsa")
    assert list(query.match(d, "e\u0301*")) == ["e\u0301te\u0301"]
    assert list(query.match(d, "\u00e9*")) == ["\u00e9t\u00e9"]


# -- a raw list is UTF-8, read as given: never re-decoded, no byte order mark, no lone CR ---

#: Lines before the faulty one in the lists below: past the first block (1 MiB) that
#: ``build`` streams, so the fault is found by a later block, its line counted across blocks.
_BEFORE = 120_000
_GOOD_LINES = b"".join(b"key %06d\n" % number for number in range(_BEFORE))  # 1.3 MB
#: A fault, the list's bytes holding it, and the line it is on.
_FAULTS = {
    "latin-1 byte": (_GOOD_LINES + b"caf\xc3\xa9\nx\xe9y\n", _BEFORE + 2, "byte 0xe9 is not UTF-8"),
    "lone CR": (_GOOD_LINES + b"ok\r\na\rb\n", _BEFORE + 2, "carriage return inside a line"),
    "byte order mark": (b"\xef\xbb\xbfkey\nother\n", 1, "byte order mark"),
    "UTF-16 with its mark": ("café\nthé\n".encode("utf-16"), 1, "not a word list"),
    "UTF-16 mark, no NUL": (b"\xff\xfe\xe9\xe8\n", 1, "byte 0xff is not UTF-8"),
}
#: Every way `build` reads a list: a file, streamed in blocks (native) or read whole (marisa,
#: verify); said to be sorted; standard input as `-` (read whole) and as a pipe it streams.
_PATHS = ["file", "sorted", "marisa", "stdin", "pipe"]


@pytest.mark.slow
@pytest.mark.parametrize("how", _PATHS)
@pytest.mark.parametrize("fault", list(_FAULTS))
def test_a_raw_list_that_is_not_plain_utf8_is_refused_naming_its_line(tmp_path: Path, fault: str, how: str) -> None:
    # Before, the list was re-decoded as ISO-8859-15 (café became cafÃ©), as UTF-16 after FF FE,
    # and a leading byte order mark was dropped: exit 0 and keys other than the lines.
    data, line, what = _FAULTS[fault]
    source = tmp_path / "keys.txt"
    source.write_bytes(data)
    out = tmp_path / "out"
    command = [*run_cli_prefix(), "build", "--policy", "raw", "-o", str(out / "k.dafsa"), "--quiet"]
    given = {"file": [str(source)], "sorted": [str(source), "--sorted"], "marisa": [str(source), "--format", "marisa"]}
    given |= {"stdin": ["-"], "pipe": ["/dev/stdin"]}
    stdin = data if how in ("stdin", "pipe") else None
    result = subprocess.run([*command, *given[how]], input=stdin, capture_output=True, timeout=120)
    stderr = result.stderr.decode("utf-8", "replace")
    name = {"stdin": "standard input", "pipe": "/dev/stdin"}.get(how, str(source))
    assert result.returncode == 2, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert stderr.startswith(f"boggle-dafsa: {name}:{line}: ") and what in stderr, stderr
    assert not out.exists() or not list(out.iterdir())  # no file, no temporary left behind


@pytest.mark.slow
def test_a_raw_list_is_read_as_utf8_only_whatever_the_encoding_option(tmp_path: Path) -> None:
    source = tmp_path / "keys.txt"
    source.write_bytes("café\r\nthé\n\ufeffmid\n".encode())  # U+FEFF after line 1: a character like another
    refused = run_cli("build", str(source), "--policy", "raw", "--encoding", "latin-1", "-o", str(tmp_path / "x.dafsa"))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "UTF-8 only" in refused.stderr
    assert not (tmp_path / "x.dafsa").exists()
    built = run_cli("build", str(source), "--policy", "raw", "--encoding", "utf-8", "-o", str(tmp_path / "k.dafsa"), "-q")
    assert built.returncode == 0, built.stderr
    assert list(open_path(tmp_path / "k.dafsa")) == ["café", "thé", "\ufeffmid"]


# Pieces of lines: letters, a two-byte letter, bytes that are not UTF-8 (alone, or a UTF-16
# mark), a carriage return, a byte order mark, a line feed.
_PIECES = st.sampled_from([b"a", b"b ", "é".encode(), b"\xe9", b"\xff\xfe", b"\r", b"\xef\xbb\xbf", b"\n", b"\r\n"])


def _oracle(data: bytes) -> tuple[set[int], list[str] | None]:
    """The faulty lines of a raw list (1-based), and its keys when it has none."""
    faults = {1} if data.startswith(b"\xef\xbb\xbf") else set()
    lines = data.split(b"\n")
    keys = []
    for number, line in enumerate(lines, 1):
        line = line[:-1] if line.endswith(b"\r") else line
        try:
            key = line.decode("utf-8")
        except UnicodeDecodeError:
            faults.add(number)
            continue
        if "\r" in key:
            faults.add(number)
        elif key:
            keys.append(key)
    return faults, None if faults else sorted(set(keys))


def _outcome(read: Callable[[], list[str]]) -> tuple[int | None, list[str] | None]:
    # (the line an error names, None) or (None, the keys).
    from boggle_dafsa.errors import WordListError

    try:
        return None, read()
    except WordListError as error:
        return int(str(error).split(":")[1]), None


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=40), block=st.integers(1, 12))
def test_the_whole_list_reader_and_the_streamed_one_agree_on_raw_bytes(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], block: int
) -> None:
    # The streamed reader (what `build` runs, here in blocks of a few bytes) and the whole-list
    # one (verify, marisa and dawg builds) keep the same keys, or refuse naming a faulty line.
    from boggle_dafsa.words.wordlist import stream_wordlist

    data = b"".join(pieces)
    source = tmp_path_factory.mktemp("raw") / "keys.txt"
    source.write_bytes(data)
    faults, keys = _oracle(data)

    def streamed() -> list[str]:
        stream = stream_wordlist(source, Policy.RAW)
        stream.block_bytes = block
        return sorted(set(b"".join(stream.blocks()).decode("utf-8").split("\n")) - {""})

    whole_line, whole_keys = _outcome(lambda: read_wordlist(source, Policy.RAW).words if keys != [] else [])
    stream_line, stream_keys = _outcome(streamed)
    if keys is None:
        assert whole_line in faults and stream_line in faults
    else:
        assert whole_keys == stream_keys == keys
