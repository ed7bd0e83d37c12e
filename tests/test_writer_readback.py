"""Every native writer reads its file back before renaming it into place, at any size.

The compiled version 2 writer of 2026-11 sized its varints wrong from 2**21 on, so that
every body over 1 MiB was written with truncated references and an exit status of 0.
These tests hold the varints to the reference at every 7-bit boundary, list every word of
a file in both kernels (what the read-back compares with the words added), build bodies
past 1 and 2 MiB with both writers, and show that a writer whose bytes are wrong leaves
no file behind.
"""

from __future__ import annotations

import hashlib
import random
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import compiled
from boggle_dafsa.automaton import compact, fileformat, stream
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.automaton.stream import NativeWriter, read_back
from boggle_dafsa.dictionaries.build import build_dictionary, compile_words
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.formats.native import write_native
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.wordlist import digest_words
from helpers.kernels import BUILDER, builder_kernel, each

kernel_names = each("builder")
WORDS = st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZÉÀ", min_size=1, max_size=12), max_size=120)


def random_keys(count: int, length: int, seed: int) -> list[str]:
    """``count`` distinct random keys of ``length`` letters A–Z, sorted: nearly no shared
    suffix, so about ``length`` bytes of body a key."""
    rng = random.Random(seed)
    keys: set[str] = set()
    while len(keys) < count:
        keys.add("".join(rng.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZ", k=length)))
    return sorted(keys)


def boundaries() -> list[int]:
    """Every value next to a 7-bit boundary up to 2**33 - 1: the sizes change there."""
    values = {0, 1}
    for bits in range(1, 34):
        values.update({(1 << bits) - 1, 1 << bits, (1 << bits) + 1})
    return sorted(value for value in values if value < 1 << 33)


def test_compiled_varints_are_the_reference_at_every_7_bit_boundary() -> None:
    codec = compiled.built("builder")
    if codec is None:
        pytest.skip("the C extension is not built here")
    for value in boundaries():
        assert codec.varint_size(value) == compact.varint_size(value), value
        for size in range(0, 7):
            assert codec.varint(value, size) == compact.varint(value, size), (value, size)
        # And the reader reads back what was written, at its own size.
        encoded = codec.varint(value, 0)
        if value <= 0xFFFFFFFF:
            assert compact.read_varint(encoded, 0, len(encoded)) == (value, len(encoded))


def test_reference_varint_sizes_are_seven_bits_a_byte() -> None:
    for value in boundaries():
        assert compact.varint_size(value) == max(1, -(-value.bit_length() // 7))


def v1_cells(words: list[str]) -> tuple[NativeDictionary, Any]:
    data = compile_words(words, Policy.EXACT, version=1)
    dictionary = NativeDictionary.of_buffer(data, "<test>")
    layout = dictionary.layout()
    assert layout is not None
    return dictionary, layout


@settings(max_examples=60, deadline=None)
@given(words=WORDS, block=st.integers(min_value=64, max_value=300))
def test_every_kernel_lists_every_word_in_order(words: list[str], block: int) -> None:
    unique = sorted(set(words))
    if not unique:
        return
    dictionary, layout = v1_cells(unique)
    header = dictionary.header
    letters = [letter.encode("utf-8") for letter in header.alphabet]
    expected = "".join(word + "\n" for word in unique).encode("utf-8")
    for name in BUILDER:
        kernel = builder_kernel(name)
        blocks: list[bytes] = []
        count = kernel.words_blocks(
            layout.cells, layout.root, len(letters), header.longest_word, header.word_count, letters, blocks.append, block
        )
        assert count == len(unique), name
        assert b"".join(blocks) == expected, name
        # Blocks end on a line and are about `block` bytes: never one line more than needed.
        assert all(chunk.endswith(b"\n") for chunk in blocks)
        assert all(len(chunk) - len(chunk[:-1].rsplit(b"\n", 1)[-1]) - 1 < block for chunk in blocks[:-1]), name


def cycle_cells() -> bytes:
    """Version 1 cells whose root has one letter (bit 0) whose child is the root again."""
    return (0b1).to_bytes(4, "little") + (0).to_bytes(4, "little")


@kernel_names
@pytest.mark.parametrize(
    ("cells", "max_depth", "max_words", "message"),
    [
        (cycle_cells(), 2, 10, "a path longer than its longest word"),
        # The root's child at cell 9: past the two cells.
        ((0b1).to_bytes(4, "little") + (9).to_bytes(4, "little"), 2, 10, "a transition points outside the file"),
        # A letter outside a one-letter alphabet.
        ((0b10).to_bytes(4, "little") + (0).to_bytes(4, "little"), 2, 10, "a letter outside the alphabet"),
    ],
)
def test_every_kernel_refuses_damaged_cells_alike(
    kernel: str, cells: bytes, max_depth: int, max_words: int, message: str
) -> None:
    view = memoryview(cells).cast("I")
    with pytest.raises(ValueError, match=message):
        builder_kernel(kernel).words_blocks(view, 0, 1, max_depth, max_words, [b"A"], lambda _: None, 64)


@kernel_names
def test_a_dag_of_wordless_states_is_bounded_by_the_visits(kernel: str) -> None:
    # 20 states, each with two letters to the next: 2**20 paths and no word. The census
    # refuses it; the listing alone stops after max_words * (max_depth + 1) + 1 visits.
    states = 20
    cells: list[int] = []
    for number in range(states):
        nxt = 3 * (number + 1)
        cells += [0b11, nxt, nxt]
    cells += [0b0 | fileformat.FINAL_FLAG]  # the last state: a word, no letters
    data = b"".join(cell.to_bytes(4, "little") for cell in cells)
    with pytest.raises(ValueError, match="more states on its paths|more words than"):
        builder_kernel(kernel).words_blocks(memoryview(data).cast("I"), 0, 2, states + 1, 3, [b"A", b"B"], lambda _: None, 64)


@pytest.mark.slow
def test_a_body_over_1_mib_reads_back_whole(tmp_path: Path) -> None:
    # The report's case: 150,000 random keys of 10 letters, a body of 1.4 MB.
    keys = random_keys(150_000, 10, seed=1)
    listing = tmp_path / "keys.txt"
    listing.write_text("\n".join(keys) + "\n", encoding="utf-8")
    output = tmp_path / "keys.dafsa"
    build_dictionary(listing, output, policy=Policy.EXACT)
    dictionary = NativeDictionary(output)
    assert dictionary.header.file_size > 1 << 20
    assert list(dictionary) == keys
    rng = random.Random(2)
    assert all(key in dictionary for key in rng.sample(keys, 2000))
    assert dictionary.header.source_digest == digest_words(keys)


@pytest.mark.slow
def test_c_and_python_layouts_agree_past_2_mib() -> None:
    # Positions past 2**21 take four bytes as absolute references; relative ones past
    # 2**20 do as zigzags: a body of 2.3 MB crosses both. The Python layout is the twin.
    # Keys of 6 random letters: every state's children are shared by states all over the
    # body, so its references are long (2.4 bytes a cell, against 0.55 for keys of 40
    # letters): the Python layout has a quarter of the cells to lay out (27 CPU-s, not 90).
    codec = compiled.built("builder")
    if codec is None:
        pytest.skip("the C extension is not built here")
    keys = random_keys(650_000, 6, seed=3)
    writer = NativeWriter(builder_kernel("c"))
    writer.add_block(("\n".join(keys) + "\n").encode("ascii"))
    writer._finish()
    cells = bytearray()

    class Sink:
        def write(self, data: bytes) -> int:
            cells.extend(data)
            return len(data)

    _, _, root = writer.builder.write_body(Sink())
    compiled_body, compiled_root = codec.compact_body(bytes(cells), root, 26)
    assert len(compiled_body) > 2_250_000  # past 2**21 by 150 kB
    python_body, python_root = stream.python_compact_body(bytes(cells), root, 26)
    assert (compiled_body, compiled_root) == (python_body, python_root)
    # And the body expands into the very cells it was laid out from.
    expanded, expanded_root = codec.expand(compiled_body, compiled_root, 26)
    assert (bytes(expanded), expanded_root) == (bytes(cells), root)


@kernel_names
@pytest.mark.parametrize("version", [1, 2])
def test_a_writer_whose_bytes_are_wrong_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str, version: int
) -> None:
    words = random_keys(300, 6, seed=4)
    target = tmp_path / "d.dafsa"
    target.write_bytes(b"the previous file")

    def damaged_read_back(data: bytes, source: str, digest: str, words_added: int, kernel: Any = None) -> None:
        # One byte of the body changes between the write and the read-back, checksums
        # kept right: what a layout bug looks like from outside (a sound header, a
        # consistent checksum); only the census and the listing can tell.
        header = fileformat.decode_header(data, source, len(data))
        body = bytearray(data[header.header_size :])
        body[len(body) // 2] ^= 0x01
        header.body_crc32 = zlib.crc32(body)
        fixed = header
        read_back(fileformat.pack_header(fixed) + bytes(body), source, digest, words_added, kernel)

    monkeypatch.setattr(stream, "read_back", damaged_read_back)
    with pytest.raises(DictionaryError, match="does not read back") as refused:
        write_native(words, target, Policy.EXACT, kernel=builder_kernel(kernel), version=version)
    # The line names the file asked for (not the temporary file's descriptor).
    assert str(refused.value).startswith(f"{target}: ")
    assert target.read_bytes() == b"the previous file"
    assert [entry.name for entry in tmp_path.iterdir()] == ["d.dafsa"]


@kernel_names
def test_read_back_refuses_other_words_than_those_added(kernel: str) -> None:
    data = compile_words(["ABC", "ABD"], Policy.FOLD)
    right = hashlib.sha256(b"ABC\nABD\n").hexdigest()
    read_back(data, "<test>", right, 2, builder_kernel(kernel))
    with pytest.raises(DictionaryError, match="other words than those added"):
        read_back(data, "<test>", hashlib.sha256(b"ABC\nABE\n").hexdigest(), 2, builder_kernel(kernel))
    with pytest.raises(DictionaryError, match="2 words, 3 were added"):
        read_back(data, "<test>", right, 3, builder_kernel(kernel))


@pytest.mark.parametrize("format", ["marisa", "dawg"])
def test_a_foreign_writer_whose_bytes_are_wrong_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, format: str
) -> None:
    from boggle_dafsa.formats import sidecar as sidecar_module
    from boggle_dafsa.formats import write_dictionary

    words = random_keys(200, 5, seed=5)
    target = tmp_path / f"d.{format}"
    # Sound bytes, read back: the file and its sidecar appear.
    write_dictionary(words, target, format)
    assert target.exists()
    before = sorted((entry.name, entry.read_bytes()) for entry in tmp_path.iterdir())
    real = sidecar_module.read_back_keys

    def one_key_lost(path: str | Path, added: list[str], keys: Any) -> None:
        # What a writer that drops a key looks like from outside: one key fewer read back.
        real(path, added, list(keys)[1:])

    module = __import__(f"boggle_dafsa.formats.{format}", fromlist=["read_back_keys"])
    monkeypatch.setattr(module, "read_back_keys", one_key_lost)
    with pytest.raises(DictionaryError, match="does not read back"):
        write_dictionary(words[:100], target, format)
    assert sorted((entry.name, entry.read_bytes()) for entry in tmp_path.iterdir()) == before


@pytest.mark.parametrize("version", [1, 2])
def test_listing_every_word_through_the_compiled_walk_is_the_cursors_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    import threading

    from boggle_dafsa.dictionary import DictionaryBase

    if compiled.built("builder") is None:
        pytest.skip("the C extension is not built here")
    # Past the compiled query walk's listing (version 2) and always for version 1: the
    # words are listed by words_blocks in a thread of its own.
    monkeypatch.setattr(NativeDictionary, "COMPILED_LISTING_WORDS", 10)
    keys = random_keys(3000, 7, seed=6)
    path = tmp_path / "d.dafsa"
    path.write_bytes(compile_words(keys, Policy.EXACT, version=version))
    dictionary = NativeDictionary(path)
    threads = threading.active_count()
    assert list(dictionary) == keys == list(DictionaryBase._complete_key(dictionary, "", None))
    assert list(dictionary.complete("", limit=7)) == keys[:7]
    # A consumer that stops early stops the walk (no thread left behind).
    words = iter(dictionary)
    assert [next(words) for _ in range(3)] == keys[:3]
    words.close()  # type: ignore[attr-defined]
    assert threading.active_count() == threads
