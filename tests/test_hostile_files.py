"""Hostile files that are not word lists: sidecars, marisa files without one, the
fallback cache folder in a shared temporary folder."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import marisa_trie
import pytest
from conftest import run_cli

from boggle_dafsa.dictionaries import resolve
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.formats import marisa, open_path, write_dictionary
from boggle_dafsa.formats.sidecar import MAX_SIDECAR_BYTES, sidecar_path

WORDS = ["CHAT", "CHIEN", "NICHE", "NICHER", "ZOO"]


@pytest.fixture
def dawg_file(tmp_path: Path) -> Path:
    path = tmp_path / "words.dawg"
    write_dictionary(WORDS, path, "dawg")
    return path


def _rewrite(path: Path, **changes: object) -> None:
    meta = sidecar_path(path)
    fields = json.loads(meta.read_text())
    fields.update(changes)
    meta.write_text(json.dumps(fields))


@pytest.mark.parametrize(
    "changes",
    [
        {"words": -1},
        {"words": 10**30},
        {"longest_word": 1 << 40},
        {"longest_word": "5"},
        {"file_bytes": True},
        {"file_sha256": "not hex"},
        {"policy": "shout"},
        {"alphabet": ["A"]},
        {"alphabet": "AA"},
        {"version": 10**400},
        {"previous": "yes"},
        {"previous": {"file_bytes": 1}},
    ],
)
def test_a_sidecar_field_of_the_wrong_type_or_range_is_one_error(dawg_file: Path, changes: dict[str, object]) -> None:
    _rewrite(dawg_file, **changes)
    with pytest.raises(DictionaryError, match="sidecar"):
        open_path(dawg_file)


def test_nested_huge_or_special_sidecars_are_one_error(dawg_file: Path) -> None:
    meta = sidecar_path(dawg_file)
    for text in ("[" * 50_000 + "]" * 50_000, "[" * 20_000, '{"a": ' * 5000 + "1" + "}" * 5000):
        meta.write_text(text)
        with pytest.raises(DictionaryError, match="sidecar"):
            open_path(dawg_file)
    meta.write_bytes(b" " * (MAX_SIDECAR_BYTES + 1))
    with pytest.raises(DictionaryError, match="too large"):
        open_path(dawg_file)
    meta.unlink()
    os.mkfifo(meta)  # opening a pipe for reading would wait for a writer forever
    with pytest.raises(DictionaryError, match="not a regular file"):
        open_path(dawg_file)


def _damaged_marisa(folder: Path, seed: int) -> Path:
    rng = random.Random(seed)
    words = sorted({"".join(rng.choice("abcdefgh") for _ in range(rng.randrange(2, 8))) for _ in range(3000)})
    data = bytearray(marisa_trie.Trie(words).tobytes())
    for _ in range(3):
        data[rng.randrange(16, len(data))] = rng.randrange(256)
    path = folder / f"damaged-{seed}.marisa"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.slow
def test_damaged_marisa_files_without_sidecar_never_take_the_process_down(tmp_path: Path) -> None:
    # Some of these make marisa's C++ reader crash (SIGSEGV, SIGABRT) or loop: the probe
    # in a child process takes the blow, and the command says so in one line.
    outcomes = set()
    for seed in range(12):
        path = _damaged_marisa(tmp_path, seed)
        result = run_cli("dump", "-d", str(path))
        assert result.returncode in (0, 2), result.stderr
        assert "Traceback" not in result.stderr
        if result.returncode == 2:
            assert result.stderr.count("\n") == 1 and "damaged marisa file" in result.stderr
        outcomes.add(result.returncode)
    assert 2 in outcomes


def test_the_probe_verdict_is_kept_by_size_mtime_and_inode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "plain.marisa"
    path.write_bytes(marisa_trie.Trie(WORDS).tobytes())
    runs: list[str] = []
    real = marisa._run_probe
    monkeypatch.setattr(marisa, "_run_probe", lambda p: runs.append(p) or real(p))
    monkeypatch.setattr(marisa, "_verdicts", {})
    assert list(open_path(path)) == WORDS
    monkeypatch.setattr(marisa, "_verdicts", {})  # a new process: the verdict file answers
    assert list(open_path(path)) == WORDS
    assert len(runs) == 1
    binary = marisa_trie.BinaryTrie([b"\xff\xfe", b"ok"]).tobytes()
    path.write_bytes(binary)  # a new size and mtime: probed again, and refused
    with pytest.raises(DictionaryError, match="damaged marisa file .*UnicodeDecodeError"):
        open_path(path)
    assert len(runs) == 2


def test_a_file_the_writer_made_and_read_back_needs_no_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "written.marisa"
    runs: list[str] = []
    real = marisa._run_probe
    monkeypatch.setattr(marisa, "_run_probe", lambda p: runs.append(p) or real(p))
    monkeypatch.setattr(marisa, "_verdicts", {})
    marisa.write_marisa(WORDS, path)
    assert list(open_path(path)) == WORDS
    monkeypatch.setattr(marisa, "_verdicts", {})  # a new process: the verdict file answers
    assert list(open_path(path)) == WORDS
    assert runs == []
    # Changed since: probed again (another size and mtime), and refused.
    path.write_bytes(marisa_trie.BinaryTrie([b"\xff\xfe", b"ok"]).tobytes())
    sidecar_path(path).unlink()
    with pytest.raises(DictionaryError, match="damaged marisa file"):
        open_path(path)
    assert runs == [str(path)]


def test_the_fallback_cache_folder_must_be_ours_and_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = tmp_path / f"boggle-dafsa-{os.getuid()}"
    assert resolve.fallback_cache_dir() == folder and oct(folder.stat().st_mode & 0o777) == "0o700"
    folder.chmod(0o777)  # writable by others: someone could plant a file or a link there
    assert resolve.fallback_cache_dir() is None
    folder.rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    folder.symlink_to(elsewhere)  # a planted link, even to a private folder, is not followed
    assert resolve.fallback_cache_dir() is None


def test_without_a_safe_cache_folder_the_dictionary_is_compiled_privately(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    unwritable = tmp_path / "file-not-folder"
    unwritable.write_text("")
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(unwritable / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    planted = tmp_path / f"boggle-dafsa-{os.getuid()}"
    planted.mkdir(mode=0o777)
    planted.chmod(0o777)
    path = resolve.embedded_path("en")
    assert path.parent != planted and planted.stat().st_mode & 0o777 == 0o777
    assert oct(path.parent.stat().st_mode & 0o777) == "0o700"
    assert list(os.listdir(planted)) == []
    assert "CAT" in open_path(path)


def _with_alphabet_letter(data: bytes, old: str, new: str) -> bytes:
    """A native file whose alphabet has ``new`` in place of ``old`` (one byte each), its header
    checksum made again: a crafted file, not a damaged one."""
    import struct
    import zlib

    header_size = struct.unpack_from("<I", data, 12)[0]
    alphabet_end = 96 + struct.unpack_from("<I", data, 88)[0]
    changed = bytearray(data)
    changed[96:alphabet_end] = bytes(changed[96:alphabet_end]).replace(old.encode(), new.encode())
    struct.pack_into("<I", changed, 92, 0)
    struct.pack_into("<I", changed, 92, zlib.crc32(changed[:header_size]))
    return bytes(changed)


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(("old", "new"), [("\t", "\n"), ("\x0b", "\r")])
def test_a_raw_dictionary_whose_alphabet_holds_a_line_break_is_refused(tmp_path: Path, version: int, old: str, new: str) -> None:
    # A tab (or vertical tab) in the keys, turned into LF (or CR) in the alphabet: the file
    # would hold the key "a\nb", which `dump` prints as two lines. Before, it opened and
    # every command used it.
    from boggle_dafsa.automaton.reader import NativeDictionary
    from boggle_dafsa.dictionaries.build import compile_words
    from boggle_dafsa.words.normalize import Policy

    path = tmp_path / "crafted.dafsa"
    path.write_bytes(_with_alphabet_letter(compile_words([f"a{old}b", "c"], Policy.RAW, version=version), old, new))
    with pytest.raises(DictionaryError, match="line break"):
        NativeDictionary(path)
    for command in (["dump", str(path)], ["lookup", "-d", str(path), f"a{new}b"], ["inspect", str(path)]):
        result = run_cli(*command)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert result.stderr.count("\n") == 1 and "damaged header" in result.stderr and "line break" in result.stderr


def test_no_writer_writes_a_key_holding_a_line_break(tmp_path: Path) -> None:
    # A raw list cannot give one (it is cut at LF, and a lone CR is refused); the library's
    # writers refuse one too, leaving no file.
    from boggle_dafsa.dictionaries.build import compile_words
    from boggle_dafsa.errors import BoggleError, WordListError
    from boggle_dafsa.formats.native import write_native
    from boggle_dafsa.words.normalize import Policy

    with pytest.raises(WordListError, match="not normalized|not a word"):
        compile_words(["a\rb"], Policy.RAW)
    with pytest.raises(BoggleError, match="line break"):
        write_native(["a\rb", "c"], tmp_path / "k.dafsa", Policy.RAW)
    assert list(tmp_path.iterdir()) == []
