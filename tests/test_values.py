"""Values (issue 33): a value per word in the native file's value section (docs/format.md),
``d[word]``, ``d.get``, ``d.items``, ``d.values``, the writer's read-back of them, and the
checks that refuse a damaged section."""

from __future__ import annotations

import io
import random
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.automaton import fileformat, values
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.automaton.stream import NativeWriter
from boggle_dafsa.automaton.values import ValueColumn, ValueTable, pack, unpack
from boggle_dafsa.errors import DictionaryError, NoValuesError
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.kernels import BUILDER, CENSUS, builder_kernel, each, forced

POLICIES = [Policy.FOLD, Policy.EXACT, Policy.RAW]


def written(
    items: list[tuple[str, Any]],
    kind: str,
    policy: Policy = Policy.FOLD,
    version: int = 2,
    index: bool = True,
    builder: str = "c",
) -> bytes:
    """The file of the sorted, unique, normalized ``items`` with their values of ``kind``."""
    writer = NativeWriter(builder_kernel(builder), values=kind)
    writer.add_items(items)
    stream = io.BytesIO()
    writer.write_to(stream, policy, None, version, index)
    return stream.getvalue()


def armed(data: bytes, kernel: str) -> NativeDictionary:
    """The dictionary of ``data``, its values read by ``kernel``."""
    with forced(kernel):
        d = NativeDictionary.of_buffer(data, "test.dafsa")
        if d.has_values and len(d):
            d._arm_values()
            assert (d._value_reader is not None) == (kernel == "c")
    return d


def keyed(raw: list[tuple[str, Any]], policy: Policy) -> list[tuple[str, Any]]:
    """The normalized keys of ``raw`` (the first value of each), in byte order."""
    chosen: dict[str, Any] = {}
    for word, value in raw:
        key = normalize(word, policy)
        if key and key not in chosen:
            chosen[key] = value
    return sorted(chosen.items(), key=lambda item: item[0].encode("utf-8"))


WORD = st.text(alphabet="ABCDEFÉçz-' 1", min_size=1, max_size=9)
VALUE = {
    "int": st.integers(min_value=values.INT_MIN, max_value=values.INT_MAX),
    "text": st.text(max_size=60),
    "bytes": st.binary(max_size=60),
}
SMALL_INT = st.integers(min_value=-3, max_value=1 << 20)


def check_map(d: NativeDictionary, items: list[tuple[str, Any]]) -> None:
    assert len(d) == len(items)
    for word, value in items:
        assert d[word] == value
        assert d.get(word, "absent") == value
    assert list(d.items()) == items
    assert list(d.values()) == [value for _, value in items]
    for word, _ in items[:4]:
        for prefix in (word[:1], word[:2], word):
            assert list(d.items(prefix)) == [(w, v) for w, v in items if w.startswith(prefix)]
    present = {word for word, _ in items}
    for word, _ in items[:5]:
        for other in (word + "A", "Q" + word, word[:-1]):
            if other and other not in present and normalize(other, d.policy) == other:
                with pytest.raises(KeyError):
                    d[other]
                assert d.get(other, "absent") == "absent"
    assert d.get("", 7) == 7


@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    kind=st.sampled_from(["int", "text", "bytes"]),
    policy=st.sampled_from(POLICIES),
    version=st.sampled_from([1, 2]),
    index=st.booleans(),
    kernel=st.sampled_from(CENSUS),
    builder=st.sampled_from(BUILDER),
)
def test_what_goes_in_comes_out(
    data: st.DataObject, kind: str, policy: Policy, version: int, index: bool, kernel: str, builder: str
) -> None:
    raw = data.draw(st.lists(st.tuples(WORD, VALUE[kind] if kind != "int" else st.one_of(SMALL_INT, VALUE["int"])), max_size=50))
    items = keyed(raw, policy)
    d = armed(written(items, kind, policy, version, index, builder), kernel)
    assert d.has_values and d.value_kind == kind
    check_map(d, items)


@each("census")
@pytest.mark.parametrize("version", [1, 2])
def test_many_words_many_blocks_and_every_width(version: int, kernel: str) -> None:
    rng = random.Random(33)
    words = sorted({"".join(rng.choice("ABCDEFGHIJ") for _ in range(rng.randint(1, 8))) for _ in range(1200)})
    for width in (0, 1, 7, 20, 33, 63, 64):
        low = -(1 << 63) if width == 64 else -5
        ints = [low + (rng.randrange(1 << width) if width else 0) for _ in words]
        if width == 64:
            ints[0], ints[1] = values.INT_MIN, values.INT_MAX
        d = armed(written(list(zip(words, ints)), "int", version=version), kernel)
        assert list(d.values()) == ints
        assert all(d[word] == value for word, value in zip(words[::29], ints[::29]))
    texts = ["é" * rng.randint(0, 90) + str(i) for i in range(len(words))]
    d = armed(written(list(zip(words, texts)), "text", version=version), kernel)
    assert list(d.items()) == list(zip(words, texts))
    assert all(d[word] == value for word, value in zip(words[::29], texts[::29]))


def test_the_kernels_answer_alike_and_normalize_as_in_does() -> None:
    items = keyed([("élève", 1), ("Arbre", -2), ("zèbre", 1 << 40), ("ÉTÉ", 9)], Policy.FOLD)
    data = written(items, "int")
    for kernel in CENSUS:
        d = armed(data, kernel)
        assert d["eleve"] == d["ÉLÈVE"] == d[" élève "] == 1
        assert d["arbre"] == -2 and d.get("zebre") == 1 << 40
        for absent in ("ARBRES", "ARB", "été-là", "", "A1", "\n"):
            with pytest.raises(KeyError):
                d[absent]
        with pytest.raises(KeyError):
            d[3]  # type: ignore[index]


def test_bit_packing_is_its_own_inverse() -> None:
    rng = random.Random(7)
    for width in range(65):
        entries = [rng.randrange(1 << width) if width else 0 for _ in range(rng.randint(0, 300))]
        packed = pack(entries, width)
        assert len(packed) == values.packed_bytes(len(entries), width)
        assert unpack(packed, 0, width, 0, len(entries)) == entries
        for index in range(0, len(entries), 17):
            assert values.entry(packed, 0, width, index) == entries[index]


def test_a_set_of_words_says_so_in_one_line() -> None:
    writer = NativeWriter()
    writer.add_words(["ARBRE", "CHAT"])
    stream = io.BytesIO()
    writer.write_to(stream)
    d = NativeDictionary.of_buffer(stream.getvalue(), "words.dafsa")
    assert not d.has_values and d.value_kind is None
    assert d.info()["values"].startswith("none")
    for call in (lambda: d["CHAT"], lambda: d.get("CHAT"), lambda: list(d.items()), lambda: list(d.values())):
        with pytest.raises(NoValuesError, match="holds no values") as caught:
            call()
        assert isinstance(caught.value, TypeError) and "\n" not in str(caught.value)


def test_inspect_says_what_values_a_file_holds() -> None:
    d = NativeDictionary.of_buffer(written([("A", 1), ("B", 1 << 20)], "int"), "x")
    assert d.info()["values"].startswith("int (20 bits a value from 1;")
    d = NativeDictionary.of_buffer(written([("A", "un"), ("B", "deux")], "text"), "x")
    assert d.info()["values"].startswith("text (1 deflated blocks of 32 values")


def test_values_out_of_range_or_of_the_wrong_type_are_refused() -> None:
    for kind, bad in (("int", 1 << 63), ("int", "1"), ("int", 1.5), ("text", b"x"), ("text", "\ud800"), ("bytes", "x")):
        writer = NativeWriter(values=kind)
        with pytest.raises(values.ValuesError):
            writer.add_items([("A", bad)])


def test_a_repeated_word_or_a_missing_value_is_refused() -> None:
    writer = NativeWriter(values="int")
    with pytest.raises(ValueError, match="one value a word"):
        writer.add_block(b"A\nB\n", [1])
    with pytest.raises(ValueError, match="repeated"):
        writer.add_block(b"A\nA\n", [1, 2])
    with pytest.raises(ValueError, match="NativeWriter"):
        NativeWriter().add_block(b"A\n", [1])


# -- the writer reads back what it wrote ------------------------------------------------


@pytest.mark.parametrize("kind", ["int", "text"])
def test_a_writer_that_writes_a_wrong_value_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    items = [("A", 1), ("B", 2), ("C", 3)] if kind == "int" else [("A", "un"), ("B", "deux"), ("C", "trois")]
    honest = ValueColumn.encode

    def lying(self: ValueColumn, kernel: Any = None) -> bytes:
        if self.kind == "int":
            self.ints[1] += 1  # the section says 3 where 2 was added
            try:
                return honest(self, kernel)
            finally:
                self.ints[1] -= 1
        column = ValueColumn(self.kind)
        column.extend(["un", "deux!", "trois"])
        return honest(column, kernel)

    monkeypatch.setattr(ValueColumn, "encode", lying)
    writer = NativeWriter(values=kind)
    writer.add_items(items)
    target = tmp_path / "map.dafsa"
    with pytest.raises(DictionaryError, match="does not read back \\(other values than those added\\)") as caught:
        writer.write(target)
    assert "\n" not in str(caught.value)
    assert not target.exists() and not list(tmp_path.iterdir())


def test_the_read_back_refuses_a_section_nobody_asked_for_or_one_missing() -> None:
    from boggle_dafsa.automaton.stream import read_back

    with_values = written([("A", 1)], "int")
    writer = NativeWriter()
    writer.add_words(["A"])
    stream = io.BytesIO()
    writer.write_to(stream)
    digest = writer.hasher.hexdigest()
    with pytest.raises(DictionaryError, match="a value section no value was given for"):
        read_back(with_values, "x", digest, 1)
    column = ValueColumn("int")
    column.extend([1])
    with pytest.raises(DictionaryError, match="no value section"):
        read_back(stream.getvalue(), "x", digest, 1, None, column)


# -- damaged sections ------------------------------------------------------------------------


def section_start(data: bytes) -> int:
    return fileformat.decode_header(data, "x", len(data)).values_at


def resealed(data: bytes, offset: int, value: bytes) -> bytes:
    """``data`` with ``value`` at ``offset`` of its value section, its CRC recomputed."""
    start = section_start(data)
    out = bytearray(data)
    out[start + offset : start + offset + len(value)] = value
    struct.pack_into("<I", out, start + 4, zlib.crc32(bytes(out[start + 16 :])))
    return bytes(out)


def use_every_value(data: bytes, kernel: str) -> None:
    d = armed(data, kernel)
    for word in d:
        d[word]
    list(d.values())
    list(d.items())


SAMPLE = [(word, i * 37 - 5) for i, word in enumerate(sorted({a + b + c for a in "ABC" for b in "DEF" for c in "GHIJ"}))]
TEXTS = [(word, f"valeur {i} " * (i % 5)) for i, word in enumerate(w for w, _ in SAMPLE)]


@each("census")
@pytest.mark.parametrize("kind", ["int", "text"])
def test_every_changed_byte_of_the_section_is_refused_in_one_line(kernel: str, kind: str) -> None:
    data = written(SAMPLE if kind == "int" else TEXTS, kind)
    start = section_start(data)
    rng = random.Random(5)
    for offset in sorted({*range(0, 40), *rng.sample(range(40, len(data) - start), min(60, len(data) - start - 40))}):
        bad = bytearray(data)
        bad[start + offset] ^= 1 << rng.randrange(8)
        with pytest.raises(DictionaryError) as caught:
            use_every_value(bytes(bad), kernel)
        message = str(caught.value)
        assert "\n" not in message and ("damaged" in message or "truncated" in message), (offset, message)


@each("census")
@pytest.mark.parametrize("kind", ["int", "text", "bytes"])
def test_a_resealed_lie_is_refused_or_read_within_bounds(kernel: str, kind: str) -> None:
    """Bytes changed and the CRC made again: what the fields allow is read (no byte outside
    the section), anything else is refused in one line."""
    items = SAMPLE if kind == "int" else TEXTS if kind == "text" else [(w, v.encode()) for w, v in TEXTS]
    data = written(items, kind)
    size = len(data) - section_start(data)
    rng = random.Random(9)
    for _ in range(150):
        offset = rng.randrange(16, size)
        bad = resealed(data, offset, bytes([rng.randrange(256)]))
        try:
            use_every_value(bad, kernel)
        except DictionaryError as error:
            assert "\n" not in str(error)


def test_the_section_fields_are_checked_when_the_file_opens() -> None:
    data = written(SAMPLE, "int")
    start = section_start(data)
    for offset, value in ((0, b"XVAL"), (16, b"\x07"), (17, b"\x01"), (18, b"\x41"), (20, b"\x01\x00\x00\x00")):
        bad = bytearray(data)
        bad[start + offset : start + offset + len(value)] = value
        with pytest.raises(DictionaryError, match="value section's fields are inconsistent"):
            NativeDictionary.of_buffer(bytes(bad), "x")
    with pytest.raises(DictionaryError, match="truncated"):
        NativeDictionary.of_buffer(data[:-1], "x")
    with pytest.raises(DictionaryError, match="trailing bytes"):
        NativeDictionary.of_buffer(data + b"\0", "x")


def test_an_older_reader_refuses_a_file_with_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that knows the word-number section only (the flags before issue 33's values)
    refuses a file with values: "upgrade", not wrong answers."""
    data = written(SAMPLE, "int")
    monkeypatch.setattr(fileformat, "KNOWN_FLAGS", fileformat.FLAG_WORD_NUMBERS)
    with pytest.raises(DictionaryError, match="upgrade"):
        NativeDictionary.of_buffer(data, "x")


def test_a_table_checks_its_block_table() -> None:
    data = written(TEXTS, "text")
    start = section_start(data)
    section = data[start:]
    ValueTable(section, len(TEXTS))
    bad = bytearray(section)
    layout = values.Layout(section, len(TEXTS))
    starts = unpack(section, values.VALUES_FIXED_SIZE, layout.width, 0, layout.entries)
    starts[0] = 1
    bad[values.VALUES_FIXED_SIZE : layout.blob_at] = pack(starts, layout.width)
    struct.pack_into("<I", bad, 4, zlib.crc32(bytes(bad[16:])))
    with pytest.raises(ValueError, match="block table"):
        ValueTable(bytes(bad), len(TEXTS))


def test_closing_releases_the_mapped_sections(tmp_path: Path) -> None:
    path = tmp_path / "map.dafsa"
    path.write_bytes(written(SAMPLE, "int"))
    for kernel in CENSUS:
        with forced(kernel):
            d = NativeDictionary(path)
            assert d[SAMPLE[3][0]] == SAMPLE[3][1]
        d.close()
        with pytest.raises((ValueError, DictionaryError)):
            d[SAMPLE[3][0]]


def test_the_compiled_packer_is_its_twin() -> None:
    from array import array

    from boggle_dafsa.automaton.values import pack_ints

    packers = [builder_kernel(name).pack_ints for name in BUILDER]
    rng = random.Random(11)
    for width in range(65):
        for count in (0, 1, 3, 63, 64, 65, 130):
            base = values.INT_MIN if width == 64 else rng.randrange(-(1 << 40), 1 << 40)
            ints = array("q", [base + (rng.randrange(1 << width) if width else 0) for _ in range(count)])
            packed = {packer(ints, base, width) for packer in packers}
            assert len(packed) == 1 and unpack(packed.pop(), 0, width, 0, count) == [v - base for v in ints]
            if width < 63 and count:
                ints[-1] = base + (1 << width)
                for packer in packers:
                    with pytest.raises(ValueError, match="past the width"):
                        packer(ints, base, width)
    assert pack_ints(array("q"), 0, 0) == b""


# -- marisa and dawg files: what they hold -------------------------------------------------------


def test_a_marisa_trie_gives_its_key_ids(tmp_path: Path) -> None:
    marisa_trie = pytest.importorskip("marisa_trie")
    from boggle_dafsa.formats import open_path

    words = ["CHAT", "CHIEN", "ZOO", "ZOOS"]
    marisa_trie.Trie(words).save(str(tmp_path / "t.marisa"))
    trie = marisa_trie.Trie()
    trie.load(str(tmp_path / "t.marisa"))
    d = open_path(tmp_path / "t.marisa")
    assert d.has_values and d.value_kind == "key id" and d.info()["values"].startswith("key ids")
    assert all(d[word] == trie[word] for word in words) and d["chat"] == trie["CHAT"]
    assert list(d.items()) == sorted((word, trie[word]) for word in words)
    assert list(d.items("ZO")) == [("ZOO", trie["ZOO"]), ("ZOOS", trie["ZOOS"])]
    assert list(d.values()) == [trie[word] for word in sorted(words)]
    with pytest.raises(KeyError):
        d["OURS"]
    assert d.get("OURS", -1) == -1
    marisa_trie.BytesTrie([(word, b"x") for word in words]).save(str(tmp_path / "b.marisa"))
    with pytest.raises(DictionaryError, match="a BytesTrie or RecordTrie file") as caught:
        open_path(tmp_path / "b.marisa")
    assert "\n" not in str(caught.value)


def test_a_dawg_file_gives_the_ints_it_holds(tmp_path: Path) -> None:
    dawg = pytest.importorskip("dawg")
    from boggle_dafsa.formats import open_path

    pairs = [("CHAT", 3), ("CHIEN", 0), ("ZOO", 1 << 30), ("ZOOS", 7)]
    dawg.IntCompletionDAWG(pairs).save(str(tmp_path / "i.dawg"))
    d = open_path(tmp_path / "i.dawg")
    assert d.has_values and d.value_kind == "int"
    assert [d[word] for word, _ in pairs] == [value for _, value in pairs] and d["zoo"] == 1 << 30
    assert list(d.items()) == pairs and list(d.items("ZOO")) == pairs[2:] and list(d.values()) == [3, 0, 1 << 30, 7]
    with pytest.raises(KeyError):
        d["CHATS"]
    dawg.CompletionDAWG([word for word, _ in pairs]).save(str(tmp_path / "c.dawg"))
    d = open_path(tmp_path / "c.dawg")
    assert not d.has_values and d.info()["values"].startswith("none")
    with pytest.raises(NoValuesError):
        d["CHAT"]
    for maker in (dawg.BytesDAWG, lambda items: dawg.RecordDAWG("<I", [(w, (v,)) for w, v in items])):
        items = [(word, str(value).encode()) for word, value in pairs] if maker is dawg.BytesDAWG else pairs
        maker(items).save(str(tmp_path / "b.dawg"))
        with pytest.raises(DictionaryError, match="a BytesDAWG or RecordDAWG file"):
            open_path(tmp_path / "b.dawg")
    dawg.IntDAWG(pairs).save(str(tmp_path / "n.dawg"))
    with pytest.raises(DictionaryError, match="IntCompletionDAWG"):
        open_path(tmp_path / "n.dawg")


WIDE = "".join(chr(0x3B1 + i) for i in range(25)) + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "".join(chr(0x430 + i) for i in range(32))


@pytest.mark.skipif("c" not in CENSUS, reason="the compiled part is not built")
@pytest.mark.parametrize("letters", [8, 31, 40, 64, 83])
@pytest.mark.parametrize("version", [1, 2])
def test_every_compiled_walk_of_the_numbers_is_the_twin(letters: int, version: int) -> None:
    """The records (up to 64 letters), the cache of the heaviest states and the body (over
    64 letters, or when the records are not made) give the numbers the twin gives."""
    from boggle_dafsa import compiled

    census = compiled.built("census")
    rng = random.Random(letters * 10 + version)
    alphabet = WIDE[:letters]
    words = sorted(
        {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(400)}, key=lambda w: w.encode("utf-8")
    )
    ints = [rng.randrange(-50, 1 << 30) for _ in words]
    data = written(list(zip(words, ints)), "int", Policy.RAW, version)
    twin = armed(data, "python")
    expected = [twin[word] for word in words]
    assert expected == ints
    if version == 1 and letters > 31:
        # Version 1 headers wider than one cell: the compiled walks leave them to the twin.
        with forced("c"):
            d = NativeDictionary.of_buffer(data, "test.dafsa")
            assert [d[word] for word in words] == ints and d._value_reader is None
        return
    d = armed(data, "c")
    table = d.value_table()
    for records in (True, False):
        reader = census.ValueReader(d._lookup, d.word_counts().data, table.data, len(words), records=records)
        wanted = "records" if records and letters <= 64 else "cache" if letters <= 64 else "body"
        assert reader.walks == wanted
        assert [reader.get(word) for word in words] == ints
        assert [reader.number(word) for word in words] == list(range(len(words)))
        for word in words[:40]:
            for other in (word + alphabet[0], word[:-1], alphabet[-1] + word):
                if other and other not in twin:
                    with pytest.raises(KeyError):
                        reader.get(other)
        reader.release()


@settings(max_examples=40, deadline=None)
@given(
    words=st.lists(st.text("abcXYZ", min_size=1, max_size=6), min_size=1, max_size=30),
    asked=st.lists(st.text("abcXYZ AZ1-'\t.z", max_size=8), max_size=20),
    policy=st.sampled_from([Policy.FOLD, Policy.EXACT]),
)
def test_an_ascii_text_is_the_value_of_its_key_or_a_key_error_on_every_kernel(
    words: list[str], asked: list[str], policy: Policy
) -> None:
    """``d[text]`` for ASCII texts (letters in either case, white space, digits, punctuation:
    the compiled walk of the records takes them a character at a time): the value of the
    text's normalized key, else KeyError, on every kernel."""
    items = keyed([(word, index) for index, word in enumerate(words)], policy)
    if not items:
        return
    data = written(items, "int", policy=policy)
    stored = dict(items)
    for kernel in CENSUS:
        d = armed(data, kernel)
        for text in [*asked, *(word for word, _ in items), *(word.lower() for word, _ in items)]:
            key = normalize(text, policy)
            if key in stored:
                assert d[text] == stored[key], (kernel, text)
            else:
                with pytest.raises(KeyError):
                    d[text]
