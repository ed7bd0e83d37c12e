"""Values: a value per word, stored in the native file's value section (issue 33).

A native file may carry, after its body (and its word-number section, if any), one value
per word, indexed by the word's number (its rank in the file's byte order,
:mod:`~boggle_dafsa.automaton.numbering`): ``d[word]`` is the value at ``d.index(word)``.
``docs/format.md`` describes the section byte by byte. Three kinds:

* ``int`` (signed 64-bit): bit-packed, frame of reference: the smallest value is stored
  once and each value as its distance to it, in ``width`` bits (the distances' largest
  bit length), so that value ``i`` is one or two 64-bit reads whatever ``i``;
* ``text`` (UTF-8) and ``bytes``: in blocks of ``2 ** block_shift`` values, each block
  the values' lengths (varints) and bytes, compressed with raw deflate; a bit-packed
  table of where each block starts. A value is one block inflated (a few microseconds).

This module is the one Python definition of the section: :class:`ValueColumn` writes it,
:class:`ValueTable` reads it (and checks it), :class:`Values` is the mixin of
:class:`~boggle_dafsa.automaton.reader.NativeDictionary` that answers ``d[word]``,
``d.get``, ``d.items`` and ``d.values``. The compiled reader of int values (``ValueReader``
of the census part, ``automaton/_census.c``) is the twin of :meth:`ValueTable.at` and
:meth:`ValueTable.ints`, reached through :mod:`boggle_dafsa.compiled`.

Nothing read is trusted: the section's fixed fields are checked when the file opens, its
CRC-32 and its block table before the first value is read (once a file, the verdict kept
as the census's), and every read is bounded by the section (an index outside it, a block
that inflates past the largest the section states, lengths that do not add up: "damaged").
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from boggle_dafsa import compiled
from boggle_dafsa.errors import NoValuesError

if TYPE_CHECKING:
    from array import array

#: The section's magic.
VALUES_MAGIC = b"WVAL"
#: The fixed part: magic, CRC-32 (of the bytes from offset 16 on), section bytes (u64),
#: kind, encoding, width, block shift, count (u32), base or blob bytes (u64), largest
#: block (u32), reserved (u32).
_FIXED = struct.Struct("<4sIQBBBBIQII")
VALUES_FIXED_SIZE = _FIXED.size  # 40
_CRC_FROM = 16
#: The kinds of value, by code (byte 16 of the section).
KIND_INT, KIND_TEXT, KIND_BYTES = 1, 2, 3
KINDS = {"int": KIND_INT, "text": KIND_TEXT, "bytes": KIND_BYTES}
KIND_NAMES = {code: name for name, code in KINDS.items()}
#: Encodings (byte 17): ints bit-packed from a base; text and bytes in deflated blocks.
ENCODING_PACKED, ENCODING_DEFLATE = 0, 1
#: Values in a block of text or bytes: 2 ** this (32: a block of 40-byte values inflates
#: from about a kilobyte in a few microseconds; larger blocks compress a little better).
BLOCK_SHIFT = 5
#: The compression level of the blocks.
DEFLATE_LEVEL = 6
#: The smallest and largest int value.
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
#: The largest inflated block a writer makes (a value is a line of a list: lines are
#: bounded far below this, see limits.MAX_LINE_BYTES).
MAX_BLOCK_BYTES = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1


class ValuesError(ValueError):
    """A value cannot be stored (out of range, of the wrong type): the message says which."""


def varint(value: int) -> bytes:
    """``value`` (non-negative) as LEB128: seven bits a byte, low bits first."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def packed_bytes(entries: int, width: int) -> int:
    """Bytes of ``entries`` bit-packed entries of ``width`` bits: whole 64-bit words."""
    return 8 * ((entries * width + 63) // 64)


def pack(values: Sequence[int], width: int) -> bytes:
    """``values`` (each below ``2 ** width``) bit-packed: entry ``i`` at bit ``i * width``
    of a little-endian array of 64-bit words (:func:`pack_ints` packs with it, the twin of
    ``_builder.pack_ints``)."""
    if not width:
        return b""
    out = bytearray()
    # 64 entries of `width` bits are exactly `width` 64-bit words: chunks pack on their own.
    for start in range(0, len(values), 64):
        accumulated = 0
        for place, value in enumerate(values[start : start + 64]):
            accumulated |= value << (place * width)
        out += accumulated.to_bytes(8 * width, "little")
    del out[packed_bytes(len(values), width) :]
    return bytes(out)


def int_range(ints: array[int]) -> tuple[int, int]:
    """(the smallest of ``ints``, the bit length of the largest less it): a section's base
    and width. The twin of ``_builder.int_range``."""
    if not ints:
        return 0, 0
    low = min(ints)
    return low, (max(ints) - low).bit_length()


def pack_ints(ints: array[int], base: int, width: int) -> bytes:
    """The int values ``ints`` less ``base`` (modulo 2^64), bit-packed (:func:`pack`): the
    twin of ``_builder.pack_ints``. ValueError if one does not fit ``width`` bits."""
    entries = [(value - base) & _MASK64 for value in ints]
    if width < 64 and any(entry >> width for entry in entries):
        raise ValueError("pack_ints: a value past the width")
    return pack(entries, width)


def unpack(data: Any, at: int, width: int, start: int, stop: int) -> list[int]:
    """Entries ``start`` to ``stop`` of the bit-packed array at ``data[at:]``."""
    if not width:
        return [0] * max(stop - start, 0)
    mask = (1 << width) - 1
    out: list[int] = []
    # Chunks of 64 entries, each `width` words: small integers to shift.
    for chunk in range(start // 64, (stop + 63) // 64):
        first = chunk * 64
        begin = at + 8 * width * chunk
        accumulated = int.from_bytes(data[begin : begin + 8 * width], "little")
        low, high = max(start - first, 0), min(stop - first, 64)
        out.extend((accumulated >> (place * width)) & mask for place in range(low, high))
    return out


def entry(data: Any, at: int, width: int, index: int) -> int:
    """Entry ``index`` of the bit-packed array at ``data[at:]`` (the caller bounds ``index``)."""
    if not width:
        return 0
    bit = index * width
    word = at + 8 * (bit >> 6)
    shift = bit & 63
    span = 16 if shift + width > 64 else 8
    return int.from_bytes(data[word : word + span], "little") >> shift & ((1 << width) - 1)


class ValueColumn:
    """The values of a file being written, one per word in the words' order; :meth:`encode`
    gives the section. Ints are kept (8 bytes each); text and bytes are compressed block
    by block as they come, so memory is the compressed values."""

    def __init__(self, kind: str) -> None:
        if kind not in KINDS:
            raise ValuesError(f"unknown kind of value {kind!r} (known: {', '.join(KINDS)})")
        self.kind = kind
        self.code = KINDS[kind]
        self.count = 0
        from array import array  # here, not at the top: solve never loads the shared library (tests/test_imports.py)

        self.ints = array("q")
        self._block: list[bytes] = []
        self._blob = bytearray()
        self._starts: list[int] = [0]
        self._largest = 0
        # The values' canonical stream (a varint length and the bytes, each), hashed as they
        # come: what the read-back compares the file's values with.
        import hashlib  # writers only (a few ms to import)

        self._hasher = hashlib.sha256()

    def extend(self, values: Iterable[Any]) -> None:
        """Append ``values`` (int for ``int``; str for ``text``; bytes for ``bytes``)."""
        if self.code == KIND_INT:
            before = len(self.ints)
            try:
                self.ints.extend(values)
            except OverflowError:
                raise ValuesError(f"an int value outside [{INT_MIN}, {INT_MAX}]: 64 bits signed at most") from None
            except TypeError:
                bad = next((v for v in values if not isinstance(v, int) or isinstance(v, bool)), None)
                raise ValuesError(f"int values only, not {type(bad).__name__} ({bad!r:.40})") from None
            self.count += len(self.ints) - before
            return
        text = self.code == KIND_TEXT
        block = self._block
        for value in values:
            if text:
                if not isinstance(value, str):
                    raise ValuesError(f"text values are str, not {type(value).__name__} ({value!r:.40})")
                try:
                    raw = value.encode("utf-8")
                except UnicodeEncodeError:
                    raise ValuesError(f"a text value holds a lone surrogate ({value!r:.40}): not UTF-8") from None
            else:
                if not isinstance(value, (bytes, bytearray, memoryview)):
                    raise ValuesError(f"bytes values are bytes, not {type(value).__name__} ({value!r:.40})")
                raw = bytes(value)
            block.append(varint(len(raw)) + raw)
            self.count += 1
            if len(block) == 1 << BLOCK_SHIFT:
                self._flush()

    def _flush(self) -> None:
        if not self._block:
            return
        plain = b"".join(self._block)
        self._block.clear()
        if len(plain) > MAX_BLOCK_BYTES:
            raise ValuesError("a block of values over 4 GiB")
        self._hasher.update(plain)
        self._largest = max(self._largest, len(plain))
        packer = zlib.compressobj(DEFLATE_LEVEL, zlib.DEFLATED, -15)
        self._blob += packer.compress(plain) + packer.flush()
        self._starts.append(len(self._blob))

    def digest(self) -> str:
        """SHA-256 of the text or bytes values' canonical stream (each: a varint length, the bytes)."""
        self._flush()
        return self._hasher.hexdigest()

    def encode(self, kernel: Any = None) -> bytes:
        """The value section (docs/format.md); ints packed by ``kernel.pack_ints`` (the
        builder kernel's: compiled, or :func:`pack_ints`)."""
        if self.code == KIND_INT:
            ints = self.ints
            base, width = getattr(kernel, "int_range", int_range)(ints)
            packer = getattr(kernel, "pack_ints", pack_ints)
            packed = packer(ints, base, width) if width else b""
            fields = (KIND_INT, ENCODING_PACKED, width, 0, self.count, base & _MASK64, 0)
            return _sealed(fields, packed, b"")
        self._flush()
        blob = bytes(self._blob)
        width = len(blob).bit_length()
        packed = pack(self._starts, width)
        fields = (self.code, ENCODING_DEFLATE, width, BLOCK_SHIFT, self.count, len(blob), self._largest)
        return _sealed(fields, packed, blob)


def _sealed(fields: tuple[int, ...], packed: bytes, blob: bytes) -> bytes:
    size = VALUES_FIXED_SIZE + len(packed) + len(blob)
    out = bytearray(_FIXED.pack(VALUES_MAGIC, 0, size, *fields, 0))
    out += packed
    out += blob
    struct.pack_into("<I", out, 4, zlib.crc32(memoryview(out)[_CRC_FROM:]))
    return bytes(out)


class Layout:
    """The fixed fields of a value section and where its parts are (no byte after them read)."""

    __slots__ = ("size", "kind", "encoding", "width", "block_shift", "count", "base", "blob_bytes", "largest", "entries")

    def __init__(self, head: Any, word_count: int) -> None:
        """Decode and check the fixed part ``head`` (at least 40 bytes) of the section of a
        file of ``word_count`` words; ValueError ("damaged: ...") if it is inconsistent."""
        if len(head) < VALUES_FIXED_SIZE:
            raise ValueError("damaged: its value section is cut short")
        magic, _, size, kind, encoding, width, shift, count, base, largest, reserved = _FIXED.unpack_from(head)
        self.size, self.kind, self.encoding, self.width, self.block_shift = size, kind, encoding, width, shift
        self.count, self.largest = count, largest
        self.base = base - (1 << 64) if base >> 63 else base
        self.blob_bytes = base if kind != KIND_INT else 0
        ok = magic == VALUES_MAGIC and count == word_count and width <= 64 and not reserved
        if ok and kind == KIND_INT:
            ok = encoding == ENCODING_PACKED and not shift and not largest
            self.entries = count
        elif ok and kind in (KIND_TEXT, KIND_BYTES):
            ok = encoding == ENCODING_DEFLATE and 0 < shift <= 16 and width == (self.blob_bytes).bit_length()
            self.entries = (count + (1 << shift) - 1 >> shift) + 1
        else:
            ok = False
        if not ok or size != VALUES_FIXED_SIZE + packed_bytes(self.entries, width) + self.blob_bytes:
            raise ValueError("damaged: its value section's fields are inconsistent")

    @property
    def kind_name(self) -> str:
        """``int``, ``text`` or ``bytes``."""
        return KIND_NAMES[self.kind]

    @property
    def blob_at(self) -> int:
        """Where the blocks start, from the section's start."""
        return VALUES_FIXED_SIZE + packed_bytes(self.entries, self.width)

    def describe(self) -> str:
        """What ``inspect`` says of the values: their kind and how they are stored."""
        if self.kind == KIND_INT:
            return f"int ({self.width} bits a value from {self.base:,}; {self.size:,} bytes)"
        blocks = self.entries - 1
        return (
            f"{self.kind_name} ({blocks:,} deflated blocks of {1 << self.block_shift} values, "
            f"{self.blob_bytes:,} bytes; {self.size:,} bytes)"
        )


def crc_holds(data: Any) -> bool:
    """True if the value section ``data`` matches its CRC-32."""
    if len(data) < VALUES_FIXED_SIZE:
        return False
    (crc,) = struct.unpack_from("<I", data, 4)
    return zlib.crc32(data[_CRC_FROM:]) == crc


class ValueTable:
    """The values of a section (the one Python reader of docs/format.md): :meth:`at`,
    :meth:`range`. Made from the section's bytes (a memoryview of the mapped file): its
    fixed fields and (with ``check``) its CRC-32 and block table are checked here;
    every read is bounded ("damaged: ..." otherwise)."""

    __slots__ = ("data", "layout", "_starts", "_cache")

    def __init__(self, data: Any, word_count: int, check: bool = True) -> None:
        self.data = data
        self.layout = layout = Layout(data, word_count)
        if len(data) != layout.size:
            raise ValueError("damaged: its value section's fields are inconsistent")
        if check and not crc_holds(data):
            raise ValueError("damaged: its value section's checksum does not match")
        self._starts: list[int] | None = None
        self._cache: tuple[int, list[bytes]] | None = None
        if layout.kind != KIND_INT:
            starts = unpack(data, VALUES_FIXED_SIZE, layout.width, 0, layout.entries)
            if starts[0] != 0 or starts[-1] != layout.blob_bytes or any(a >= b for a, b in zip(starts, starts[1:])):
                raise ValueError("damaged: its value section's block table is wrong")
            self._starts = starts

    @property
    def kind(self) -> str:
        """``int``, ``text`` or ``bytes``."""
        return self.layout.kind_name

    def at(self, number: int) -> Any:
        """The value of word number ``number`` (0 <= number < count, checked by the caller)."""
        layout = self.layout
        if not 0 <= number < layout.count:
            raise ValueError("damaged: a word number outside its value section")
        if layout.kind == KIND_INT:
            return layout.base + entry(self.data, VALUES_FIXED_SIZE, layout.width, number)
        shift = layout.block_shift
        return self._decoded(self._block(number >> shift)[number & ((1 << shift) - 1)])

    def _decoded(self, raw: bytes) -> Any:
        if self.layout.kind == KIND_BYTES:
            return raw
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("damaged: a text value is not UTF-8") from None

    def _block(self, block: int) -> list[bytes]:
        # The values of block `block`, inflated and split (the last one kept: items() and
        # values() read blocks in turn, d[word] often the same one again).
        cached = self._cache
        if cached is not None and cached[0] == block:
            return cached[1]
        layout = self.layout
        assert self._starts is not None
        begin, end = self._starts[block], self._starts[block + 1]
        at = layout.blob_at
        inflater = zlib.decompressobj(-15)
        try:
            plain = inflater.decompress(self.data[at + begin : at + end], layout.largest + 1)
        except zlib.error:
            raise ValueError("damaged: a block of its values does not inflate") from None
        if len(plain) > layout.largest or not inflater.eof or inflater.unused_data:
            raise ValueError("damaged: a block of its values does not inflate to its size")
        expected = min(1 << layout.block_shift, layout.count - (block << layout.block_shift))
        values: list[bytes] = []
        append = values.append
        pos, size = 0, len(plain)
        while pos < size and len(values) < expected:
            length = plain[pos]
            pos += 1
            if length & 0x80:  # a length of two bytes or more (the usual one is one byte)
                length &= 0x7F
                shift = 7
                while True:
                    if pos >= size or shift > 63:
                        raise ValueError("damaged: a value's length runs past its block")
                    byte = plain[pos]
                    pos += 1
                    length |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
            end = pos + length
            if end > size:
                raise ValueError("damaged: a value's length runs past its block")
            append(plain[pos:end])
            pos = end
        if len(values) != expected or pos != size:
            raise ValueError("damaged: a block of its values holds another number of values")
        self._cache = (block, values)
        return values

    def range(self, start: int, stop: int) -> Iterator[Any]:
        """The values of word numbers ``start`` to ``stop`` (excluded), in order."""
        layout = self.layout
        start, stop = max(start, 0), min(stop, layout.count)
        if start >= stop:
            return
        if layout.kind == KIND_INT:
            base = layout.base
            for first in range(start, stop, 1 << 16):
                for value in unpack(self.data, VALUES_FIXED_SIZE, layout.width, first, min(first + (1 << 16), stop)):
                    yield base + value
            return
        shift = layout.block_shift
        number = start
        while number < stop:
            values = self._block(number >> shift)
            first = (number >> shift) << shift
            for raw in values[number - first : stop - first]:
                yield self._decoded(raw)
            number = first + len(values)

    def canonical_digest(self) -> str:
        """SHA-256 of the text or bytes values' canonical stream (as :meth:`ValueColumn.digest`)."""
        import hashlib  # verify only (a few ms to import)

        hasher = hashlib.sha256()
        for block in range(self.layout.entries - 1):
            for raw in self._block(block):
                hasher.update(varint(len(raw)) + raw)
        return hasher.hexdigest()


_MISSING = object()


class Values:
    """``d[word]``, ``d.get``, ``d.items``, ``d.values`` of
    :class:`~boggle_dafsa.automaton.reader.NativeDictionary` (a mixin).

    ``d[word]`` normalizes ``word`` by the dictionary's policy, as ``in`` does; ``KeyError``
    if it is no word; :class:`~boggle_dafsa.errors.NoValuesError` (a ``TypeError``, one
    line) on a file without values. Compiled where ``BOGGLE_DAFSA_PURE`` allows it and the
    body is one the compiled walks read (version 2, version 1 of one-cell headers): the
    census part's ``ValueReader`` walks the key to its number and reads an int value in C;
    text and bytes values are inflated here. The twins: ``numbering.index_of`` and
    :class:`ValueTable`.
    """

    header: Any
    path: str
    _map: Any
    _value_table: ValueTable | None = None
    #: The compiled reader once armed (None: not yet, or the twins).
    _value_reader: Any = None
    _values_armed = False

    if TYPE_CHECKING:  # provided by the reader (stubs here would come first in its MRO)

        def key(self, text: str) -> str | None: ...

        def index(self, word: str) -> int: ...

        def complete(self, prefix: str, limit: int | None = None) -> Iterator[str]: ...

        def word_counts(self) -> Any: ...

        def _number_kernel(self) -> Any: ...

        def _known_sound(self, key: tuple[Any, ...]) -> bool: ...

        def _remember_sound(self, key: tuple[Any, ...]) -> None: ...

        def _walk_error(self, error: ValueError) -> Exception: ...

        def __getitem__(self, word: str) -> Any: ...

        def _outside(self) -> Exception: ...

        def __len__(self) -> int: ...

    @property
    def has_values(self) -> bool:
        """True if the file holds a value per word (else it is a set of words)."""
        return bool(self.header.has_values)

    @property
    def value_kind(self) -> str | None:
        """``int``, ``text`` or ``bytes``; None for a set of words."""
        if not self.header.has_values:
            return None
        h = self.header
        return Layout(self._map[h.values_at : h.values_at + VALUES_FIXED_SIZE], h.word_count).kind_name

    def values_info(self) -> str:
        """What ``inspect`` says of the values."""
        h = self.header
        if not h.has_values:
            return "none (a set of words, without values)"
        return Layout(self._map[h.values_at : h.values_at + VALUES_FIXED_SIZE], h.word_count).describe()

    def _no_values(self) -> Exception:
        return NoValuesError(f"{self.path}: holds no values, only words (build it with `values` int|text for a map)")

    def value_table(self) -> ValueTable:
        """The checked value section ("damaged dictionary" if it is not sound; a
        :class:`~boggle_dafsa.errors.NoValuesError` if there is none)."""
        table = self._value_table
        if table is not None:
            return table
        h = self.header
        if not h.has_values:
            raise self._no_values()
        data = memoryview(self._map)[h.values_at : h.values_at + h.values_bytes]
        # Its CRC-32 once a file (as the word-number section's proof: the verdict kept by
        # the file's identity and the section's CRC, in this process and the cache folder).
        identity = getattr(self, "_identity", None)
        key = None if identity is None else (*identity, "values", bytes(data[4:8]).hex())
        known = key is not None and self._known_sound(key)
        try:
            table = ValueTable(data, h.word_count, check=not known)
        except ValueError as error:
            data.release()
            raise self._walk_error(error) from None
        if key is not None and not known:
            self._remember_sound(key)
        self._value_table = table
        return table

    def _arm_values(self) -> Any:
        # The table (checked), then the compiled reader if the number walk is compiled here.
        table = self.value_table()
        self._values_armed = True
        lookup = self._number_kernel()
        if lookup is None:
            return None

        module = compiled.load("census")
        if module is None or not hasattr(module, "ValueReader"):
            return None
        counts = self.word_counts()
        ints = table.data if table.layout.kind == KIND_INT else None
        try:
            reader = module.ValueReader(lookup, counts.data, ints, self.header.word_count)
        except ValueError as error:
            raise self._walk_error(error) from None
        self._value_reader = reader
        if ints is not None and hasattr(type(self), "_values"):
            self._values = reader  # d[word] in C from now on (the compiled base's slot)
        return reader

    def _in_order_reader(self, table: ValueTable) -> Any:
        # The compiled reader of int values without the word-number section (values read in
        # order only), or None for the twin.
        lookup = self._number_kernel()
        if lookup is None:
            return None
        from boggle_dafsa import compiled

        module = compiled.load("census")
        if module is None or not hasattr(module, "ValueReader"):
            return None
        try:
            return module.ValueReader(lookup, None, table.data, self.header.word_count)
        except ValueError as error:
            raise self._walk_error(error) from None

    def _release_values(self) -> None:
        # Before the file is unmapped: the reader and the table hold views of it.
        if self._value_reader is not None:
            self._value_reader.release()
            if hasattr(type(self), "_values"):
                self._values = None
        if self._value_table is not None and isinstance(self._value_table.data, memoryview):
            self._value_table.data.release()

    def _getitem(self, word: str) -> Any:
        """``d[word]`` in Python: all of it where the census part is not built (its base's
        ``__getitem__`` calls this), and what the compiled ``mp_subscript`` slot of the base
        ``Contains`` does not answer (before arming, text values, a text to normalize)."""
        return self._value_of(word)

    def _value_error(self, error: Exception) -> Exception:
        if isinstance(error, IndexError):
            return self._outside()
        return self._walk_error(error) if isinstance(error, ValueError) else error

    def _value_of(self, word: str) -> Any:
        # The general path: arm, normalize, number (compiled walk or its twin), value.
        if not self.header.has_values:
            raise self._no_values()
        reader = self._value_reader if self._values_armed else self._arm_values()
        table = self.value_table()
        key = self.key(word) if isinstance(word, str) and word else None
        if key is None:
            raise KeyError(word)
        try:
            if reader is not None:
                try:
                    number = reader.number(key)
                except KeyError:
                    raise KeyError(word) from None
                if number is None:  # never for a normalized key; the twin's walk then
                    number = self.index(key)
                if table.layout.kind == KIND_INT:
                    return reader.at(number)
            else:
                number = self.index(key)
            return table.at(number)
        except (IndexError, ValueError) as error:
            raise self._value_error(error) from None

    def get(self, word: str, default: Any = None) -> Any:
        """The value of ``word`` (normalized), or ``default`` if it is no word.
        :class:`~boggle_dafsa.errors.NoValuesError` on a file without values."""
        try:
            return self[word]
        except KeyError:
            return default

    def values(self) -> Iterator[Any]:
        """Every value, in the words' (byte) order."""
        return self._values_from(0, len(self))

    def _values_from(self, start: int, stop: int) -> Iterator[Any]:
        if not self.header.has_values:
            raise self._no_values()
        reader = self._value_reader if self._values_armed else self._arm_values()
        table = self.value_table()
        try:
            if reader is not None and table.layout.kind == KIND_INT:
                # Chunks that grow: items(prefix) of a few words reads a few values.
                first, chunk = start, 64
                while first < stop:
                    yield from reader.range(first, min(first + chunk, stop))
                    first += chunk
                    chunk = min(chunk * 2, 1 << 14)
            else:
                yield from table.range(start, stop)
        except (IndexError, ValueError) as error:
            raise self._value_error(error) from None

    def _value_chunks(self, size: int = 1 << 16, as_bytes: bool = False) -> Iterator[tuple[int, Any]]:
        # Every value through the reader's paths, ``size`` at a time with the number of the
        # first (a writer's read-back compares them with what it wrote): the compiled reader
        # of values in order (no word numbers needed, so none counted), or the table.
        from array import array  # here, not at the top: solve never loads the shared library (tests/test_imports.py)

        if not self.header.has_values:
            raise self._no_values()
        table = self.value_table()
        reader = self._value_reader
        if reader is None and table.layout.kind == KIND_INT:
            reader = self._in_order_reader(table)
        try:
            for start in range(0, len(self), size):
                stop = min(start + size, len(self))
                if reader is not None and table.layout.kind == KIND_INT:
                    yield start, reader.range(start, stop, as_bytes)
                elif as_bytes and table.layout.kind == KIND_INT:
                    yield start, array("q", table.range(start, stop)).tobytes()
                else:
                    yield start, list(table.range(start, stop))
        except (IndexError, ValueError) as error:
            raise self._value_error(error) from None

    def items(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """The (word, value) pairs of the words starting with ``prefix`` (normalized), in
        byte order: the words of ``complete(prefix)``, whose numbers follow one another."""
        if not self.header.has_values:
            raise self._no_values()
        return self._items(prefix)

    def _items(self, prefix: str) -> Iterator[tuple[str, Any]]:
        words = self.complete(prefix)
        first = next(words, None)
        if first is None:
            return
        start = self.index(first)
        values = self._values_from(start, len(self))
        yield first, next(values)
        for word in words:
            yield word, next(values)
