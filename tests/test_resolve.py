"""Embedded dictionaries are compiled once, on first use, and reused while their source is unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.resolve import embedded_path, open_dictionary


def test_embedded_is_compiled_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path))
    first = embedded_path("en")
    stamp = first.stat().st_mtime_ns
    assert first.parent == tmp_path and first.name.startswith("en-")
    assert embedded_path("en") == first
    assert first.stat().st_mtime_ns == stamp  # not rebuilt
    d = open_dictionary("en")
    assert "ZOO" in d and len(d) == 73_603


def test_a_changed_source_replaces_the_stale_compiled_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(tmp_path))
    stale = tmp_path / "en-1-1.dafsa"  # as if compiled from an older source
    stale.write_bytes(b"old")
    fresh = embedded_path("en")
    assert fresh.is_file() and not stale.exists()


def test_unwritable_cache_falls_back_to_the_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(blocker / "cache"))
    path = embedded_path("en")
    assert path.is_file() and blocker not in path.parents


def test_environment_variable_names_the_dictionary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_DICT", "en")
    monkeypatch.chdir(tmp_path)
    assert "ZOO" in open_dictionary(None) and "ARBRE" not in open_dictionary(None)
    monkeypatch.delenv("BOGGLE_DAFSA_DICT")
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
