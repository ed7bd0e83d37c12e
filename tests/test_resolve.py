"""The cache of compiled dictionaries: keyed by content, shared, never cleaned by us, never the user's in tests."""

from __future__ import annotations

import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT, TEST_CACHE

from boggle_dafsa.dictionaries import resolve
from boggle_dafsa.dictionaries.resolve import embedded_digest, embedded_path, open_dictionary, resolve_spec
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.words.wordlist import digest_words


def test_embedded_is_compiled_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path))
    first = embedded_path("en")
    stamp = first.stat().st_mtime_ns
    assert first.parent == tmp_path and first.name == f"en-{embedded_digest('en')[:24]}.dafsa"
    assert embedded_path("en") == first
    assert first.stat().st_mtime_ns == stamp  # not rebuilt
    d = open_dictionary("en")
    assert "ZOO" in d and len(d) == 62_803
    assert d.info()["source_sha256"] == embedded_digest("en")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(resolve.EMBEDDED))
def test_the_listed_digests_are_those_of_the_embedded_lists(name: str) -> None:
    words = lzma.decompress((resolve.DATA_DIR / f"{name}.txt.xz").read_bytes()).decode("utf-8").split()
    assert digest_words(sorted(set(words))) == embedded_digest(name)


def test_other_installations_files_are_never_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path))
    others = [tmp_path / "en-1-1.dafsa", tmp_path / f"en-{'0' * 24}.dafsa", tmp_path / "list-abc.dafsa"]
    for other in others:
        other.write_bytes(b"another installation's file")
    assert open_dictionary("en").info()["source_sha256"] == embedded_digest("en")
    assert all(other.read_bytes() == b"another installation's file" for other in others)


def test_two_installations_of_the_same_list_share_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The name depends on the words only: a copy of the data with another date finds the same file."""
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path / "cache"))
    first = embedded_path("en")
    stamp = first.stat().st_mtime_ns
    other_install = tmp_path / "other-data"
    shutil.copytree(resolve.DATA_DIR, other_install)
    os.utime(other_install / "en.txt.xz", (1, 1))
    monkeypatch.setattr(resolve, "DATA_DIR", other_install)
    monkeypatch.setattr(resolve, "DIGESTS_FILE", other_install / "SHA256SUMS")
    assert embedded_path("en") == first and first.stat().st_mtime_ns == stamp
    assert sorted(os.listdir(tmp_path / "cache")) == [first.name]


def test_unwritable_cache_falls_back_to_the_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(blocker / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # not the machine's shared /tmp
    (tmp_path / "tmp").mkdir()
    path = embedded_path("en")
    assert path.is_file() and blocker not in path.parents and (tmp_path / "tmp") in path.parents


def test_environment_variable_names_the_dictionary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_DICT", "en")
    monkeypatch.chdir(tmp_path)
    assert resolve_spec(None) == ("en", True) and resolve_spec("fr") == ("fr", False)
    assert "ZOO" in open_dictionary(None) and "ARBRE" not in open_dictionary(None)
    monkeypatch.delenv("BOGGLE_DAFSA_DICT")
    assert resolve_spec(None) == ("fr", True)
    assert "ARBRE" in open_dictionary(None)  # the French default


def test_unknown_name_is_a_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DictionaryError, match="no such dictionary file"):
        open_dictionary("klingon")
    assert os.listdir(tmp_path) == []


def test_a_damaged_compiled_file_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path))
    compiled = embedded_path("en")
    compiled.write_bytes(compiled.read_bytes()[:1000])  # as if a write had been cut short
    d = open_dictionary("en")
    assert "ZOO" in d and compiled.stat().st_size > 1000


def test_a_cached_file_of_other_words_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from boggle_dafsa.dictionaries.build import compile_words

    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path))
    compiled = embedded_path("en")
    compiled.write_bytes(compile_words(["CHAT", "ZOO"]))  # a valid dictionary, but not this list
    assert len(open_dictionary("en")) == 62_803


# -- word lists given as dictionaries -----------------------------------------------------


def test_a_word_list_is_compiled_on_first_use_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(cache))
    words = tmp_path / "words.txt"
    words.write_text("chat\nchien\nNiche\nzoo\nzoo\nl'arbre\n", "utf-8")
    d = open_dictionary(str(words))
    assert list(d) == ["CHAT", "CHIEN", "NICHE", "ZOO"]
    [compiled] = [entry for entry in cache.iterdir() if entry.is_file()]  # beside the folders of kept verdicts
    stamp = compiled.stat().st_mtime_ns
    copy = tmp_path / "copy.txt"
    copy.write_bytes(words.read_bytes())
    assert list(open_dictionary(str(copy))) == list(d)  # same content, same cached file
    assert [entry for entry in cache.iterdir() if entry.is_file()] == [compiled] and compiled.stat().st_mtime_ns == stamp
    words.write_text("chat\nchien\n", "utf-8")  # changed: a new file, the old one stays
    assert list(open_dictionary(str(words))) == ["CHAT", "CHIEN"]
    assert len([entry for entry in cache.iterdir() if entry.is_file()]) == 2 and compiled.is_file()


@pytest.mark.slow
def test_progress_is_reported_only_while_a_list_is_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path / "cache"))
    words = tmp_path / "words.txt"
    # More than one block of the builder (65,536 words): reported as it goes, then whole.
    words.write_text("".join(f"{_letters(i)}\n" for i in range(100_000)), "utf-8")
    reports: list[tuple[int, int]] = []
    d = open_dictionary(str(words), progress=lambda done, total: reports.append((done, total)))
    assert len(d) == 100_000
    assert len(reports) >= 2 and reports[-1] == (100_000, 100_000)
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)
    reports.clear()
    open_dictionary(str(words), progress=lambda done, total: reports.append((done, total)))
    assert reports == []  # compiled already: opened at once, nothing to report
    open_dictionary("en", progress=lambda done, total: reports.append((done, total)))
    assert reports and reports[-1][0] == reports[-1][1] == len(open_dictionary("en"))


@pytest.mark.slow
def test_a_long_first_compile_shows_a_bar_on_a_terminal_only(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    from conftest import COMMAND

    words = tmp_path / "words.txt"
    words.write_text("".join(f"{_letters(i)}\n" for i in range(800_000)), "utf-8")
    env = {**os.environ, "BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")}
    child = pexpect.spawn(
        COMMAND,
        ["solve", "ABCDEFGHIJKLMNOP", "-d", str(words), "-q"],
        timeout=120,
        encoding="utf-8",
        dimensions=(24, 150),
        env=env,
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert re.search(r"compiling .*[0-9]+%", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)), child.before
    # Piped (and once compiled): no bar, not a byte on standard error.
    env["BOGGLE_DAFSA_CACHE"] = str(tmp_path / "other")
    piped = subprocess.run(
        [COMMAND, "solve", "ABCDEFGHIJKLMNOP", "-d", str(words), "-q"], capture_output=True, text=True, timeout=120, env=env
    )
    assert piped.returncode == 0 and piped.stderr == ""


def _letters(number: int) -> str:
    # Distinct words for distinct numbers: the number in base 26, letters A-Z.
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word += chr(65 + digit)
        if number == 0:
            return word + "E"


def test_a_file_that_is_neither_a_dictionary_nor_a_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path / "cache"))
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    with pytest.raises(DictionaryError, match=r"photo\.jpg: not a dictionary .* nor a word list"):
        open_dictionary(str(binary))
    no_words = tmp_path / "digits.txt"
    no_words.write_text("123\n456\n")
    with pytest.raises(DictionaryError, match="no word"):
        open_dictionary(str(no_words))
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").glob("*.dafsa"))


# -- the test suite and the user's cache ---------------------------------------------------


def test_the_suite_uses_its_own_cache() -> None:
    """Set by conftest.py on import, before any module-scoped fixture opens a dictionary."""
    assert resolve.cache_dir() == TEST_CACHE
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boggle-dafsa"
    assert TEST_CACHE != user_cache and user_cache not in TEST_CACHE.parents


@pytest.mark.slow
def test_fixtures_that_open_dictionaries_at_collection_never_touch_the_user_cache(tmp_path: Path) -> None:
    """A test module that opens a dictionary at import and in a module-scoped fixture, run
    under this conftest with a fake user cache: the fake cache is never created."""
    suite = tmp_path / "tests"
    suite.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", suite / "conftest.py")
    (suite / "test_probe.py").write_text(
        "import pytest\n"
        "from boggle_dafsa.dictionaries.resolve import open_dictionary\n"
        "AT_IMPORT = len(open_dictionary('en'))\n"
        "@pytest.fixture(scope='module')\n"
        "def english():\n"
        "    return open_dictionary('en')\n"
        "def test_probe(english):\n"
        "    assert AT_IMPORT == len(english) == 62_803\n"
    )
    home = tmp_path / "home"
    env = {key: value for key, value in os.environ.items() if key not in ("BOGGLE_DAFSA_CACHE", "BOGGLE_DAFSA_DICT")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not (home / ".cache" / "boggle-dafsa").exists()


def test_stray_arguments_that_look_like_dictionaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from boggle_dafsa.dictionaries.build import compile_words
    from boggle_dafsa.dictionaries.resolve import describe, looks_like_dictionary

    monkeypatch.chdir(tmp_path)
    Path("mine").write_bytes(compile_words(["CHAT", "ZOO"]))  # no extension: told by its bytes
    Path("words.txt").write_text("chat\n")
    Path("notes").write_text("chat\n")
    assert looks_like_dictionary("mine") and looks_like_dictionary("words.txt")
    assert not looks_like_dictionary("notes") and not looks_like_dictionary("coeur") and not looks_like_dictionary(".")
    assert describe(open_dictionary("mine"), "mine") == "mine, 2 words"
