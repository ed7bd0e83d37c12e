"""The raw policy: any key, each line stored exactly as given, found by every query and set operation."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa import query
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.automaton.stream import kernels
from boggle_dafsa.build import build_dictionary
from boggle_dafsa.formats import open_path
from boggle_dafsa.query import setops
from boggle_dafsa.words.normalize import Policy, normalize
from boggle_dafsa.words.wordlist import read_wordlist

# Any character but the line feed (a key is a line) and NUL (a list holding one is binary).
KEY = st.text(st.characters(blacklist_characters="\n\0", blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
    lambda key: not key.endswith("\r")
)


def expected(lines: list[str]) -> list[str]:
    """What a raw dictionary holds: the distinct non-empty lines, in UTF-8 byte order."""
    return sorted({line for line in lines if line}, key=lambda key: key.encode("utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("kernel", list(kernels()))
@given(keys=st.lists(KEY, min_size=1, max_size=30), crlf=st.booleans())
def test_any_keys_come_back_exactly(tmp_path_factory: pytest.TempPathFactory, kernel: str, keys: list[str], crlf: bool) -> None:
    folder = tmp_path_factory.mktemp("raw")
    source = folder / "keys.txt"
    source.write_bytes(("\r\n" if crlf else "\n").join(keys).encode("utf-8") + b"\n\n")
    report = build_dictionary(source, folder / "k.dafsa", policy=Policy.RAW, kernel=kernels()[kernel])
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
