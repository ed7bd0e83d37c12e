"""Damaged, truncated, foreign or too-new files are refused with one clear error; writes are atomic."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from boggle_dafsa.automaton import fileformat
from boggle_dafsa.automaton.fileformat import MAGIC
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.dictionaries.build import compile_words
from boggle_dafsa.dictionaries.verify import check_integrity
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.files.atomic import write_atomically

WORDS = ["ARBRE", "ARBRES", "BAL", "BALLE", "CHAT", "CHIEN", "NICHE", "NICHER", "ZOO"]


@pytest.fixture
def good_bytes() -> bytes:
    return compile_words(WORDS)


def open_bytes(tmp_path: Path, data: bytes) -> NativeDictionary:
    path = tmp_path / "d.dafsa"
    path.write_bytes(data)
    return NativeDictionary(path)


@pytest.mark.slow
def test_every_single_changed_byte_is_detected(tmp_path: Path, good_bytes: bytes) -> None:
    for offset in range(len(good_bytes)):
        for flip in (0x01, 0x80, 0xFF):
            damaged = bytearray(good_bytes)
            damaged[offset] ^= flip
            with pytest.raises(DictionaryError):
                d = open_bytes(tmp_path, bytes(damaged))
                check_integrity(d)  # what `verify` runs first
                d.close()


@pytest.mark.slow
def test_every_truncation_is_refused(tmp_path: Path, good_bytes: bytes) -> None:
    for length in range(len(good_bytes)):
        with pytest.raises(DictionaryError, match="truncated|bad magic|damaged header"):
            open_bytes(tmp_path, good_bytes[:length])


def test_opening_reads_the_header_only(tmp_path: Path, good_bytes: bytes) -> None:
    # Damage in the cells is not seen at open (open is O(1)), only by the checksum.
    damaged = bytearray(good_bytes)
    damaged[-1] ^= 0xFF
    d = open_bytes(tmp_path, bytes(damaged))
    assert not d.body_intact()
    with pytest.raises(DictionaryError, match="checksum"):
        check_integrity(d)


def test_newer_version_is_refused_with_advice(tmp_path: Path, good_bytes: bytes) -> None:
    newer = bytearray(good_bytes)
    struct.pack_into("<H", newer, len(MAGIC), fileformat.VERSION + 1)
    with pytest.raises(DictionaryError, match="newer than this tool reads"):
        open_bytes(tmp_path, bytes(newer))


def test_genuinely_newer_version_is_not_called_damaged(tmp_path: Path, good_bytes: bytes) -> None:
    newer = bytearray(good_bytes)
    struct.pack_into("<H", newer, len(MAGIC), fileformat.VERSION + 1)
    header_size = struct.unpack_from("<I", newer, 12)[0]
    struct.pack_into("<I", newer, fileformat._HEADER_CRC_OFFSET, fileformat._header_crc(newer, header_size))
    with pytest.raises(DictionaryError, match="newer than this tool reads") as refused:
        open_bytes(tmp_path, bytes(newer))
    assert "damaged" not in str(refused.value)


@pytest.mark.slow
def test_same_list_same_bytes_across_processes(tmp_path: Path) -> None:
    # String hashing differs between processes (PYTHONHASHSEED): the file must not.
    import subprocess
    import sys

    script = (
        "import sys; from boggle_dafsa.dictionaries.build import compile_words; "
        "sys.stdout.buffer.write(compile_words(sorted({w[:i] + w[i + 1:] for w in sys.argv[1:] for i in range(len(w))})))"
    )
    words = ["ARBRE", "BALLE", "CHIEN", "NICHER", "ZOOLOGIE", "ABACA"]
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script, *words], capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed}
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1 and next(iter(outputs)).startswith(MAGIC)


def test_not_a_dictionary(tmp_path: Path) -> None:
    with pytest.raises(DictionaryError, match="not a boggle-dafsa dictionary"):
        open_bytes(tmp_path, b"CHAT\nCHIEN\n" * 20)
    with pytest.raises(DictionaryError, match="no such dictionary"):
        NativeDictionary(tmp_path / "absent.dafsa")


def test_failed_write_leaves_the_old_file_intact(tmp_path: Path, good_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "d.dafsa"
    write_atomically(target, good_bytes)

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(DictionaryError, match="No space left"):
        write_atomically(target, b"half")
    monkeypatch.undo()
    assert target.read_bytes() == good_bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.dafsa"]  # no temporary left behind


def test_interrupted_write_leaves_nothing(tmp_path: Path, good_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(tmp_path / "d.dafsa", good_bytes)
    assert list(tmp_path.iterdir()) == []


def test_header_fields(tmp_path: Path, good_bytes: bytes) -> None:
    d = open_bytes(tmp_path, good_bytes)
    info = d.info()
    assert info["words"] == len(WORDS)
    assert info["alphabet"] == "ABCEHILNORSTZ"
    assert info["longest_word"] == 6
    assert info["policy"] == "fold"
    assert info["bytes"] == len(good_bytes) == os.path.getsize(tmp_path / "d.dafsa")
    assert good_bytes[:8] == MAGIC


# -- the one definition of the format, in C and in Python ----------------------------------

FORMAT_HEADER = Path(fileformat.__file__).with_name("_format.h")
PACKAGE = Path(fileformat.__file__).parent.parent
C_SOURCES = sorted(path for path in [*PACKAGE.rglob("*.c"), *PACKAGE.rglob("*.h")] if path != FORMAT_HEADER)


def test_the_c_header_and_the_python_module_define_the_same_format() -> None:
    import re

    defines = dict(re.findall(r"^#define (\w+) (\S+)", FORMAT_HEADER.read_text(), flags=re.MULTILINE))
    assert int(defines["FINAL_FLAG"].rstrip("u"), 16) == fileformat.FINAL_FLAG
    assert int(defines["LETTER_MASK"].rstrip("u"), 16) == fileformat.LETTER_MASK
    assert int(defines["FORMAT_ONE_CELL_LETTERS"]) == fileformat.ONE_CELL_LETTERS
    assert int(defines["FORMAT_VERSION"]) == fileformat.VERSION


@pytest.mark.parametrize("source", C_SOURCES, ids=lambda path: path.name)
def test_no_c_file_defines_a_bit_of_the_format_itself(source: Path) -> None:
    import re

    text = source.read_text()
    if source.suffix == ".c":
        assert '_format.h"' in text
    assert not re.search(r"#define (FINAL_FLAG|LETTER_MASK)\b", text)
    assert "0x80000000" not in text or source.name == "_builder.c"  # the builder's own record flag
    assert "__builtin_popcount(" not in text  # popcount32 and format_child_slot come from the header
    assert not re.search(r"\+ 1 \+ popcount32\(", text)  # a child's slot: format_child_slot


@pytest.mark.parametrize("module", sorted(PACKAGE.rglob("*.py")), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_python_module_but_fileformat_decodes_a_state(module: Path) -> None:
    import re

    if module.name in ("fileformat.py", "compact.py") and module.parent.name == "automaton" or module.name == "dawgdic.py":
        return  # the format's definition (version 1, version 2), and dawgdic's own (another format)
    text = module.read_text(encoding="utf-8")
    # The final flag and a child's slot come from NativeLayout (its final_flag, header_cells, child).
    assert not re.search(r"1 << 31|0x80000000|state \+ 1 \+ \(", text), module


def test_the_layout_reads_every_state_as_the_cursor_does(tmp_path: Path, good_bytes: bytes) -> None:
    d = open_bytes(tmp_path, good_bytes)
    layout = d.states
    words = []
    stack = [(layout.root, "")]
    while stack:
        state, prefix = stack.pop()
        if layout.is_final(state):
            words.append(prefix)
        for bit, child in layout.children(state):
            assert layout.child(state, bit) == child
            assert layout.step(state, d.alphabet[bit]) == child
            stack.append((child, prefix + d.alphabet[bit]))
    assert sorted(words) == WORDS
    d.close()
