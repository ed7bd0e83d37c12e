from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.errors import WordListError
from boggle_dafsa.words.normalize import Policy, normalize
from boggle_dafsa.words.wordlist import parse_words, read_wordlist


def write(tmp_path: Path, data: bytes, name: str = "list.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_any_line_ending(tmp_path: Path, newline: bytes) -> None:
    path = write(tmp_path, newline.join([b"chien", b"", b"chat", b"niche", b"chat"]) + newline)
    wl = read_wordlist(path)
    assert wl.words == ["CHAT", "CHIEN", "NICHE"]
    assert wl.items == 4 and wl.duplicates == 1


def test_semicolon_separated_list_with_blank_lines(tmp_path: Path) -> None:
    # The shape of a well-known French list: `;` after every word, blank lines between rows.
    path = write(tmp_path, b"ANNIVERSAIRE;BATEAU;\r\n\r\nCHAISE;DENT;\r\n\r\n")
    assert read_wordlist(path).words == ["ANNIVERSAIRE", "BATEAU", "CHAISE", "DENT"]


def test_commas_and_bom(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbfzoo, \xc3\xa9t\xc3\xa9,abc\n")
    wl = read_wordlist(path)
    assert wl.words == ["ABC", "ETE", "ZOO"]
    assert wl.encoding == "utf-8"


def test_iso_8859_15_is_detected(tmp_path: Path) -> None:
    # 0xBD is Œ in ISO-8859-15 (and œ in Latin-1's place of ½): the -15 table is used.
    path = write(tmp_path, "élève\n\xbduvre\n".encode("latin-1"))
    wl = read_wordlist(path)
    assert wl.encoding == "iso-8859-15"
    assert wl.words == ["ELEVE", "OEUVRE"]


def test_forced_encoding_reports_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, b"un\ndeux\ntr\xe8s\n")
    with pytest.raises(WordListError, match=r"list.txt:3: cannot decode byte 0xe8 as utf-8"):
        read_wordlist(path, encoding="utf-8")


def test_unknown_encoding(tmp_path: Path) -> None:
    with pytest.raises(WordListError, match="unknown encoding"):
        read_wordlist(write(tmp_path, b"a\n"), encoding="no-such-codec")


def test_dropped_words_are_counted_by_reason(tmp_path: Path) -> None:
    wl = read_wordlist(write(tmp_path, "arbre\naujourd'hui\narc-en-ciel\nmp3\nl'eau\n".encode()))
    assert wl.words == ["ARBRE"]
    assert wl.dropped == {"apostrophe": 2, "hyphen": 1, "digit": 1}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "word list is empty"),
        (b"\n\n;;\r\n", "word list is empty"),
        (b"l'a\n1-2\n", "no word left after normalization"),
        (b"ab\ncd\x00ef", r"list.txt:2: binary file"),
    ],
)
def test_unusable_lists(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(WordListError, match=message):
        read_wordlist(write(tmp_path, data))


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(WordListError, match="no such file"):
        read_wordlist(tmp_path / "absent.txt")
    with pytest.raises(WordListError, match="is a directory"):
        read_wordlist(tmp_path)


@given(st.lists(st.text(alphabet="abcdeÉèœ-' ", max_size=7), max_size=40), st.sampled_from(["\n", "\r\n", ";", ","]))
def test_parse_equals_normalizing_each_word(words: list[str], separator: str) -> None:
    wl = parse_words(separator.join(words), Policy.FOLD)
    assert wl.words == sorted({key for w in words if (key := normalize(w))})


@pytest.mark.slow
@given(st.lists(st.text(alphabet="abcçdeéèfœzÆ", min_size=1, max_size=8), min_size=1, max_size=20))
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_are_recognized_by_their_mark(tmp_path: Path, codec: str, words: list[str]) -> None:
    mark = "\ufeff".encode(codec)
    path = tmp_path / f"{codec}.txt"
    path.write_bytes(mark + "\r\n".join(words).encode(codec))
    wordlist = read_wordlist(path)
    assert wordlist.encoding.startswith(codec[:6]) and wordlist.hint is None
    assert wordlist.words == parse_words("\n".join(words)).words


def test_windows_1252_list_gets_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "cp1252.txt"
    path.write_bytes("cœur\nsœur\narbre\nl’été\n".encode("cp1252"))
    wordlist = read_wordlist(path)
    assert wordlist.encoding == "iso-8859-15" and wordlist.words == ["ARBRE"]  # what the guess loses...
    assert wordlist.hint is not None and "`encoding` cp1252" in wordlist.hint and "3 bytes" in wordlist.hint
    fixed = read_wordlist(path, encoding="cp1252")  # ...and what the hint keeps
    assert fixed.words == ["ARBRE", "COEUR", "SOEUR"] and fixed.hint is None


@pytest.mark.slow
def test_verify_says_the_encoding_hint_as_build_does(tmp_path: Path) -> None:
    from conftest import run_cli

    path = tmp_path / "cp1252.txt"
    path.write_bytes("cœur\nsœur\narbre\n".encode("cp1252"))
    assert run_cli("build", str(path), "-o", str(tmp_path / "right.dafsa"), "--encoding", "cp1252", "-q").returncode == 0
    guessed = run_cli("verify", str(path), str(tmp_path / "right.dafsa"))
    assert guessed.returncode == 1 and "- " not in guessed.stdout and "+ COEUR" in guessed.stdout
    assert guessed.stderr.startswith("boggle-dafsa: note: ") and "--encoding cp1252" in guessed.stderr
    told = run_cli("verify", str(path), str(tmp_path / "right.dafsa"), "--encoding", "cp1252")
    assert told.returncode == 0 and told.stderr == ""


def test_latin9_list_without_c1_bytes_needs_no_hint(tmp_path: Path) -> None:
    path = tmp_path / "latin9.txt"
    path.write_bytes("élève\ncœur\n".encode("iso-8859-15"))
    wordlist = read_wordlist(path)
    assert wordlist.words == ["COEUR", "ELEVE"] and wordlist.hint is None


def test_bytes_already_read_are_a_list_named_by_path() -> None:
    wordlist = read_wordlist("<stdin>", data="chat\nzoo\n".encode("utf-16"))
    assert wordlist.words == ["CHAT", "ZOO"] and wordlist.source == "<stdin>"
    with pytest.raises(WordListError, match="^<stdin>: word list is empty"):
        read_wordlist("<stdin>", data=b"")


def test_verify_reports_its_progress(tmp_path: Path) -> None:
    from boggle_dafsa.dictionaries.verify import verify
    from helpers.dictionaries import dictionary_from_words

    words = [f"W{a}{b}{c}" for a in "ABCDEFGHIJ" for b in "ABCDEFGHIJ" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    dictionary = dictionary_from_words(words, tmp_path)
    calls: list[tuple[int, int]] = []
    assert verify(dictionary, parse_words("\n".join(words)), progress=lambda done, total: calls.append((done, total))).ok
    assert calls[0] == (0, 2600) and calls[-1] == (2600, 2600) and calls == sorted(calls)
