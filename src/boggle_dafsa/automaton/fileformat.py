"""The native file format: the header, the body of version 1, and the sections after the body.

``docs/format.md`` describes it byte by byte. A fixed header (magic, version, policy,
counts, CRC-32s, the list's SHA-256: :class:`Header`) and the alphabet, then the body:
in version 1 one flat array of uint32 cells, each state a header of ``header_cells``
cells (a bitset: letter ``i`` of the alphabet at bit ``i``, the final flag at the top bit
of the last header cell) followed by the cell index of each child, in letter order
(:class:`NativeLayout`: stepping by letter ``i`` is a bit test and a popcount). Version
2's body, compact edges, is :mod:`.compact`'s (above this module: it reads the header
and writes version 1 cells). After the body come the optional word-number section
(:class:`WordCounts`) and value section (:mod:`.values`). Writing a file whole or not at
all is :mod:`boggle_dafsa.files.atomic`'s.
"""

from __future__ import annotations

import mmap
import struct
import sys
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Callable

from boggle_dafsa import compiled
from boggle_dafsa.errors import BoggleError, DictionaryError
from boggle_dafsa.words.normalize import Policy

if TYPE_CHECKING:
    from array import array
    from collections.abc import Mapping

    from boggle_dafsa.automaton.builder import Automaton

#: Anything the header can be read from: bytes, or the file mapped in memory.
Buffer = bytes | bytearray | memoryview | mmap.mmap

MAGIC = b"\x89DAFSA\r\n"
#: The newest format version this code reads and writes (see docs/format.md).
VERSION = 2
#: The version ``build`` writes unless told otherwise (``--format-version``).
DEFAULT_VERSION = 2
#: Every version this code writes.
VERSIONS = (1, 2)
#: The fixed part of the header; the alphabet (UTF-8) follows, padded to a multiple of 8.
_FIXED = struct.Struct("<8sHHI B B 2x I I I I I I I I I 32s I I")
FIXED_SIZE = _FIXED.size  # 96
_HEADER_CRC_OFFSET = FIXED_SIZE - 4
_POLICY_CODES = {Policy.FOLD: 0, Policy.EXACT: 1, Policy.RAW: 2}
_POLICY_BY_CODE = {code: policy for policy, code in _POLICY_CODES.items()}
#: The largest cell value, cell count and version 2 body offset a file holds (32 bits).
CELL_MAX = 0xFFFFFFFF
#: The final flag of a one-cell state header (alphabets of up to 31 letters): its top bit.
#: The C twin of this and of everything in :class:`NativeLayout` is ``_format.h``.
FINAL_FLAG = 1 << 31
#: The letter bits of a one-cell state header.
LETTER_MASK = FINAL_FLAG - 1
#: The most letters a one-cell state header holds (the fast kernels read only such files).
ONE_CELL_LETTERS = 31


#: The most letters a version 1 file is written for: state headers of at most 8 cells, so
#: its body is at most 36 bytes per letter of the list (docs/format.md); version 2 has no
#: such bound, its edges do not grow with the alphabet.
VERSION_1_MAX_LETTERS = 255
#: The characters no alphabet holds, whatever the policy: a key is a line.
LINE_BREAKS = "\n\r"


def header_cells_for(alphabet_size: int) -> int:
    """Cells per state header: enough bits for every letter plus the final flag."""
    return alphabet_size // 32 + 1


class FormatLimitError(BoggleError):
    """The words cannot be written in the format version asked for (see :func:`check_writable`)."""


def check_writable(alphabet: str, version: int) -> None:
    """Raise :class:`FormatLimitError` unless a file of ``version`` over ``alphabet`` may be
    written: no line break in the alphabet (no reader would open it), and for version 1 at
    most :data:`VERSION_1_MAX_LETTERS` letters. Writers call it before writing anything."""
    if any(letter in LINE_BREAKS for letter in alphabet):
        raise FormatLimitError("a key holds a line break (LF or CR): no dictionary holds one")
    if version == 1 and len(alphabet) > VERSION_1_MAX_LETTERS:
        raise FormatLimitError(
            f"format version 1 holds at most {VERSION_1_MAX_LETTERS} letters, these words have {len(alphabet):,} "
            f"(each state's header would take {header_cells_for(len(alphabet)) * 4:,} bytes): "
            "version 2, the default, has no such limit"
        )


class Header:
    """The decoded header of a native dictionary file (see the field table above).

    Plain classes with slots here and on the rest of ``solve``'s path rather than
    NamedTuples, whose classes cost a few hundred microseconds each to create at start-up.
    """

    __slots__ = (
        "version",
        "header_cells",
        "header_size",
        "policy",
        "alphabet",
        "word_count",
        "state_count",
        "transition_count",
        "final_count",
        "longest_word",
        "root",
        "cell_count",
        "body_crc32",
        "source_digest",
        "flags",
        "index_bytes",
        "values_bytes",
    )

    def __init__(
        self,
        policy: Policy,
        alphabet: str,
        word_count: int,
        state_count: int,
        transition_count: int,
        final_count: int,
        longest_word: int,
        root: int,
        cell_count: int,
        body_crc32: int,
        source_digest: str,
        version: int = 1,
        header_cells: int | None = None,
        header_size: int | None = None,
        flags: int = 0,
        index_bytes: int = 0,
        values_bytes: int = 0,
    ) -> None:
        self.version = version
        # As a file says (decode_header checks them), else as a writer lays the file out.
        if header_cells is None:
            header_cells = header_cells_for(len(alphabet)) if version == 1 else 0
        self.header_cells = header_cells
        self.header_size = header_size_for(alphabet) if header_size is None else header_size
        self.policy = policy
        self.alphabet = alphabet
        self.word_count = word_count
        self.state_count = state_count
        self.transition_count = transition_count
        self.final_count = final_count
        self.longest_word = longest_word
        self.root = root
        self.cell_count = cell_count
        self.body_crc32 = body_crc32
        self.source_digest = source_digest
        #: The header's flags byte (offset 17): :data:`FLAG_WORD_NUMBERS` or 0.
        self.flags = flags
        #: Bytes of the word-number section after the body (0: none).
        self.index_bytes = index_bytes
        #: Bytes of the value section after the body and the word-number section (0: none).
        self.values_bytes = values_bytes

    @property
    def body_size(self) -> int:
        """Bytes of the body: 4 per cell in version 1, ``cell_count`` bytes in version 2."""
        return 4 * self.cell_count if self.version == 1 else self.cell_count

    @property
    def file_size(self) -> int:
        """The exact size in bytes of a file with this header (its optional sections included)."""
        return self.header_size + self.body_size + self.index_bytes + self.values_bytes

    @property
    def has_word_numbers(self) -> bool:
        """True if a word-number section follows the body (:data:`FLAG_WORD_NUMBERS`)."""
        return bool(self.flags & FLAG_WORD_NUMBERS)

    @property
    def has_values(self) -> bool:
        """True if a value section follows the body and the word-number section (:data:`FLAG_VALUES`)."""
        return bool(self.flags & FLAG_VALUES)

    @property
    def values_at(self) -> int:
        """Where the value section starts (if any): after the body and the word-number section."""
        return self.header_size + self.body_size + self.index_bytes


class StateLayout:
    """What both layouts of a body offer, version 1's :class:`NativeLayout` and version 2's
    :class:`~boggle_dafsa.automaton.compact.CompactLayout`: the walks and the word-number
    section take either. :meth:`step` follows a word's letters over a layout's :meth:`child`."""

    __slots__ = ()
    #: The index of each letter of the alphabet (its bit in a version 1 state header).
    letter_bits: Mapping[str, int]
    #: The letters, in index order.
    alphabet: str
    #: The root state.
    root: int
    #: Letters in the longest word: bounds the depth of any walk.
    longest_word: int
    #: Where the body comes from, for error messages.
    source: str

    def child(self, state: int, bit: int) -> int | None:
        """The child of ``state`` by letter index ``bit``, None if there is none."""
        raise NotImplementedError

    def children(self, state: int) -> Iterator[tuple[int, int]]:
        """The (letter index, child) pairs of ``state``, in letter order."""
        raise NotImplementedError

    def is_final(self, state: int) -> bool:
        """True if the prefix that leads to ``state`` is a word."""
        raise NotImplementedError

    def has_edges(self, state: int) -> bool:
        """True if some letter follows ``state``."""
        raise NotImplementedError

    @property
    def units(self) -> int:
        """How many units address a state (the word-number section's bitmap has a bit each)."""
        raise NotImplementedError

    def unit(self, state: int) -> int:
        """Where ``state`` starts, in :attr:`units`."""
        raise NotImplementedError

    def step(self, state: int, letters: str) -> int | None:
        """Follow each character of ``letters`` from ``state``; None if no word continues so."""
        letter_bits = self.letter_bits
        for letter in letters:
            bit = letter_bits.get(letter)
            if bit is None:
                return None
            child = self.child(state, bit)
            if child is None:
                return None
            state = child
        return state


class NativeLayout(StateLayout):
    """The one Python definition of how a native file's states are read: every reader goes through it.

    A state ``s`` is a cell index. Its header is ``header_cells`` cells, a bitset of its
    letters (letter ``i`` of the alphabet at bit ``i``) with the final flag at the top bit
    of the last header cell; the index of each child follows, in letter order. With
    one-cell headers (alphabets of up to :data:`ONE_CELL_LETTERS` letters, the only files
    the fast kernels walk) the header is ``cells[s]``, :attr:`final_flag` marks a word,
    and the child by letter bit ``b`` is ``cells[s + 1 + popcount(cells[s] & ((1 << b) - 1))]``.

    The methods below are that arithmetic for any header width; a hot loop (a kernel's
    Python twin) may inline it for one-cell headers, but with this object's
    :attr:`final_flag`, :attr:`letter_mask` and :attr:`header_cells`, never constants of
    its own. Nothing is checked: a damaged file can point anywhere, so a reader
    bounds-checks every index against ``len(cells)`` (here ``IndexError`` rises).

    Plain data, so that a compiled kernel takes the same arguments as its Python twin.
    """

    __slots__ = (
        "cells",
        "root",
        "letter_bits",
        "alphabet",
        "header_cells",
        "longest_word",
        "final_flag",
        "letter_mask",
        "source",
    )

    def __init__(
        self,
        cells: memoryview | array[int],
        root: int,
        letter_bits: Mapping[str, int],
        alphabet: str,
        header_cells: int,
        longest_word: int,
        final_flag: int,
        source: str,
    ) -> None:
        #: The cells as unsigned 32-bit integers in native byte order: a memoryview of
        #: format "I" in place on the mapped file (an ``array('I')`` on big-endian hosts).
        self.cells = cells
        #: The root state (a cell index).
        self.root = root
        #: Bit index of each letter of the alphabet in a state header.
        self.letter_bits = letter_bits
        #: The letters, in bit order.
        self.alphabet = alphabet
        #: Cells per state header (1 for alphabets of up to 31 letters): a state's first
        #: child index is this many cells after it.
        self.header_cells = header_cells
        #: Letters in the longest word: bounds the depth of any walk.
        self.longest_word = longest_word
        #: The bit of a (one-cell) state header that marks a word (:data:`FINAL_FLAG`).
        self.final_flag = final_flag
        #: The letter bits of a (one-cell) state header.
        self.letter_mask = final_flag - 1
        #: Where the cells come from, for error messages.
        self.source = source

    @classmethod
    def of(cls, cells: memoryview | array[int], root: int, alphabet: str, longest_word: int, source: str) -> NativeLayout:
        """The layout of a body over ``alphabet`` (its header width follows from the alphabet's size)."""
        width = header_cells_for(len(alphabet))
        letter_bits = {letter: bit for bit, letter in enumerate(alphabet)}
        return cls(cells, root, letter_bits, alphabet, width, longest_word, 1 << (32 * width - 1), source)

    def head(self, state: int) -> int:
        """The header bitset of ``state``: its letters' bits and, at bit ``32 * header_cells - 1``, the final flag."""
        if self.header_cells == 1:
            return int(self.cells[state])
        head = 0
        for i in range(self.header_cells):
            head |= self.cells[state + i] << (32 * i)
        return head

    def is_final(self, state: int) -> bool:
        """True if the prefix that leads to ``state`` is a word."""
        return bool(self.head(state) & self.final_flag)

    def letters(self, state: int) -> int:
        """The letter bits of ``state`` (bit ``i``: letter ``i`` of the alphabet follows)."""
        return self.head(state) & self.letter_mask

    def child(self, state: int, bit: int) -> int | None:
        """The child of ``state`` by letter bit ``bit`` (an index), None if there is none."""
        head = self.head(state)
        if not head >> bit & 1 or bit >= len(self.alphabet):
            return None
        return int(self.cells[state + self.header_cells + (head & ((1 << bit) - 1)).bit_count()])

    @property
    def units(self) -> int:
        """How many units address a state: cells (version 1); the word-number section's bitmap has a bit each."""
        return len(self.cells)

    def unit(self, state: int) -> int:
        """Where ``state`` starts, in :attr:`units` (a version 1 state is its first cell's index)."""
        return state

    def has_edges(self, state: int) -> bool:
        """True if some letter follows ``state`` (False: a word ends there and nothing continues it)."""
        return bool(self.letters(state))

    def children(self, state: int) -> Iterator[tuple[int, int]]:
        """The (letter bit, child) pairs of ``state``, in letter order."""
        letters = self.letters(state)
        slot = state + self.header_cells
        cells = self.cells
        while letters:
            low = letters & -letters
            yield low.bit_length() - 1, int(cells[slot])
            slot += 1
            letters ^= low


def layout_of(header: Header, cells: memoryview | array[int], source: str) -> NativeLayout:
    """The :class:`NativeLayout` of a file with ``header`` and ``cells``."""
    return NativeLayout.of(cells, header.root, header.alphabet, header.longest_word, source)


def words_blocks(
    cells: Any,
    root: int,
    width: int,
    max_depth: int,
    max_words: int,
    letters: Sequence[bytes],
    sink: Callable[[bytes], object],
    block: int,
) -> int:
    """Hand ``sink`` every word below ``root`` of version 1 ``cells`` ("WORD\\n", byte order),
    in blocks of about ``block`` bytes; return how many. The twin of ``_builder.words_blocks`` (the builder kernel's, as ``stream.PYTHON_KERNEL.words_blocks``):
    the same bounds (paths by ``max_depth``, words by ``max_words``, visits by
    ``max_words * (max_depth + 1) + 1``) and ValueError("damaged: ...") for the same faults."""
    count = len(cells)
    if not 0 <= width <= ONE_CELL_LETTERS or len(letters) != width:
        raise ValueError("alphabet wider than one header cell")
    if not 0 <= max_depth <= count:
        raise ValueError("damaged: its longest word is longer than the file can hold")
    if not 0 <= root < count:
        raise ValueError("damaged: the root points outside the file")
    budget = max_words * (max_depth + 1) + 1
    head = cells[root]
    if (head & LETTER_MASK) >> width:
        raise ValueError("damaged: a letter outside the alphabet")
    if head & FINAL_FLAG:
        raise ValueError("damaged: it holds the empty word")
    out: list[bytes] = []
    size = words = visits = 0
    # Frames: (state, its letter bits, the bits not yet followed, the word's bytes so far).
    stack: list[tuple[int, int, int, bytes]] = []
    state, letter_bits, bits, word = root, head & LETTER_MASK, head & LETTER_MASK, b""
    while True:
        if not bits:
            if not stack:
                break
            state, letter_bits, bits, word = stack.pop()
            continue
        low = bits & -bits
        bits ^= low
        slot = state + 1 + (letter_bits & (low - 1)).bit_count()  # a child's slot, as NativeLayout.child
        if slot >= count:
            raise ValueError("damaged: a transition points outside the file")
        child = cells[slot]
        if child >= count:
            raise ValueError("damaged: a transition points outside the file")
        child_head = cells[child]
        if (child_head & LETTER_MASK) >> width:
            raise ValueError("damaged: a letter outside the alphabet")
        if len(stack) + 1 > max_depth:
            raise ValueError("damaged: a path longer than its longest word")
        visits += 1
        if visits > budget:
            raise ValueError("damaged: more states on its paths than its words can hold")
        grown = word + letters[low.bit_length() - 1]
        if child_head & FINAL_FLAG:
            words += 1
            if words > max_words:
                raise ValueError("damaged: more words than its header says")
            out.append(grown + b"\n")
            size += len(grown) + 1
            if size >= block:
                sink(b"".join(out))
                out.clear()
                size = 0
        stack.append((state, letter_bits, bits, word))
        state, letter_bits, bits, word = child, child_head & LETTER_MASK, child_head & LETTER_MASK, grown
    if out:
        sink(b"".join(out))
    return words


# -- the word-number section (optional, after the body; docs/format.md) -------------------

#: Bit 0 of the header's flags byte (offset 17): a word-number section follows the body.
FLAG_WORD_NUMBERS = 0x01
#: Bit 1: a value section (a value per word, docs/format.md) follows the body and the
#: word-number section (automaton/values.py).
FLAG_VALUES = 0x02
#: Every flag this code knows: a file with another is refused ("upgrade").
KNOWN_FLAGS = FLAG_WORD_NUMBERS | FLAG_VALUES
INDEX_MAGIC = b"WNUM"
#: The section's fixed part: magic, the section's bytes, CRC-32 of the bytes after this
#: field, units (bits of the bitmap), counted states, escaped counts.
_INDEX_FIXED = struct.Struct("<4sIIIII")
INDEX_FIXED_SIZE = _INDEX_FIXED.size  # 24
_INDEX_CRC_FROM = 12
#: Bits of the state bitmap that one rank directory entry covers.
RANK_BLOCK_BITS = 512
#: A count byte that says "in the escape table" (a count of 255 or more).
COUNT_ESCAPE = 255
_ESCAPE = struct.Struct("<II")


def index_parts(units: int, counted: int, escapes: int) -> tuple[int, int, int, int, int]:
    """Where the word-number section's parts start (bitmap, rank directory, counts, escape
    table) and its size in bytes, for ``units`` bits, ``counted`` states, ``escapes`` escapes."""
    bitmap = INDEX_FIXED_SIZE
    directory = bitmap + (units + 7) // 8
    counts = directory + 4 * ((units + RANK_BLOCK_BITS - 1) // RANK_BLOCK_BITS)
    table = counts + counted
    return bitmap, directory, counts, table, table + _ESCAPE.size * escapes


def index_section_bytes(data: Buffer, header: Header, source: str, file_size: int) -> int:
    """The size of the word-number section of a file whose header says it has one (its
    fixed part checked against the header); raises :class:`DictionaryError` otherwise."""
    start = header.header_size + header.body_size
    if file_size < start + INDEX_FIXED_SIZE or len(data) < start + INDEX_FIXED_SIZE:
        raise DictionaryError(f"{source}: truncated ({file_size} bytes, its word-number section starts at {start})")
    magic, size, _, units, counted, escapes = _INDEX_FIXED.unpack_from(data, start)
    if (
        magic != INDEX_MAGIC
        or units != header.cell_count
        or counted > header.state_count
        or escapes > counted
        or size != index_parts(units, counted, escapes)[4]
    ):
        raise DictionaryError(f"{source}: damaged dictionary (its word-number section's fields are inconsistent)")
    return int(size)


def values_section_bytes(data: Buffer, header: Header, source: str, file_size: int) -> int:
    """The size of the value section of a file whose header says it has one (its fixed
    part checked against the header); raises :class:`DictionaryError` otherwise."""
    from boggle_dafsa.automaton.values import VALUES_FIXED_SIZE, Layout

    start = header.values_at
    if file_size < start + VALUES_FIXED_SIZE or len(data) < start + VALUES_FIXED_SIZE:
        raise DictionaryError(f"{source}: truncated ({file_size} bytes, its value section starts at {start})")
    try:
        layout = Layout(data[start : start + VALUES_FIXED_SIZE], header.word_count)
    except ValueError:
        raise DictionaryError(f"{source}: damaged dictionary (its value section's fields are inconsistent)") from None
    return int(layout.size)


def word_counts(states: StateLayout, most: int) -> tuple[dict[int, int], list[int]]:
    """The words at or below each state (by :meth:`unit`), and the units whose count the
    word-number section stores, in increasing order: every state with edges that is the
    target of an edge other than its state's last (a walk never needs the count of a
    last child: it is what the others leave). One walk, depth first; ValueError
    ("damaged: ...") on a cycle, a path longer than the longest word, or more than
    ``most`` words below a state."""
    counts: dict[int, int] = {}
    stored: set[int] = set()
    root = states.root
    on_path = {states.unit(root)}
    if isinstance(states, NativeLayout):  # version 1: every header read is checked, as in C
        children = states.children
        letters_limit = len(states.alphabet)

        def checked_children(state: int) -> Iterator[tuple[int, int]]:
            if states.letters(state) >> letters_limit:
                raise ValueError("damaged: a letter outside the alphabet")
            return children(state)

        states_children: Callable[[int], Iterator[tuple[int, int]]] = checked_children
    else:
        states_children = states.children
    # Frames: [state, its children, the next child to visit].
    stack: list[list[Any]] = [[root, list(states_children(root)), 0]]
    while stack:
        frame = stack[-1]
        state, edges, place = frame
        while place < len(edges):
            child = edges[place][1]
            unit = states.unit(child)
            if unit in counts:
                place += 1
                continue
            if unit in on_path:
                raise ValueError("damaged: its automaton has a cycle")
            if len(stack) > states.longest_word:
                raise ValueError("damaged: a path longer than its longest word")
            break
        frame[2] = place
        if place < len(edges):
            child = edges[place][1]
            on_path.add(states.unit(child))
            stack.append([child, list(states_children(child)), 0])
            continue
        stack.pop()
        unit = states.unit(state)
        on_path.discard(unit)
        total = int(states.is_final(state)) + sum(counts[states.unit(child)] for _, child in edges)
        if total > most:
            raise ValueError("damaged: more words below a state than its header says")
        counts[unit] = total
        for _, child in edges[:-1]:
            if states.has_edges(child):
                stored.add(states.unit(child))
    return counts, sorted(stored)


def encode_word_numbers(states: StateLayout, word_count: int) -> bytes:
    """The word-number section of the body ``states`` (docs/format.md): the bitmap of the
    states whose count is stored, its rank directory, a byte per count (255: escaped), the
    escape table. Same body, same bytes."""
    counts, stored = word_counts(states, word_count)
    units = states.units
    escapes = [(ordinal, counts[unit]) for ordinal, unit in enumerate(stored) if counts[unit] >= COUNT_ESCAPE]
    bitmap_at, directory_at, counts_at, table_at, size = index_parts(units, len(stored), len(escapes))
    out = bytearray(size)
    blocks = [0] * ((units + RANK_BLOCK_BITS - 1) // RANK_BLOCK_BITS)
    for unit in stored:
        out[bitmap_at + (unit >> 3)] |= 1 << (unit & 7)
        if unit // RANK_BLOCK_BITS + 1 < len(blocks):
            blocks[unit // RANK_BLOCK_BITS + 1] += 1
    before = 0
    for block, inside in enumerate(blocks):
        before += inside
        struct.pack_into("<I", out, directory_at + 4 * block, before)
    out[counts_at:table_at] = bytes(min(counts[unit], COUNT_ESCAPE) for unit in stored)
    for place, (ordinal, count) in enumerate(escapes):
        _ESCAPE.pack_into(out, table_at + place * _ESCAPE.size, ordinal, count)
    _INDEX_FIXED.pack_into(out, 0, INDEX_MAGIC, size, 0, units, len(stored), len(escapes))
    struct.pack_into("<I", out, 8, zlib.crc32(memoryview(out)[_INDEX_CRC_FROM:]))
    return bytes(out)


def index_crc_holds(data: Buffer) -> bool:
    """True if the word-number section ``data`` matches its CRC-32."""
    if len(data) < INDEX_FIXED_SIZE:
        return False
    (crc,) = struct.unpack_from("<I", data, 8)
    return zlib.crc32(data[_INDEX_CRC_FROM:]) == crc


def word_numbers(states: StateLayout, word_count: int) -> bytes:
    """The word-number section of ``states``: the compiled ``word_numbers`` of the census
    part (``automaton/_census.c``) when built (and ``BOGGLE_DAFSA_PURE`` unset), else its
    twin :func:`encode_word_numbers`; the same bytes."""
    module = compiled.load("census")
    if module is None:
        return encode_word_numbers(states, word_count)
    if isinstance(states, NativeLayout):
        made = module.word_numbers(states.cells, 1, states.root, len(states.alphabet), states.longest_word, word_count)
    else:  # version 2 (compact.CompactLayout)
        made = module.word_numbers(states.body, 2, states.root >> 1, states.alphabet_size, states.longest_word, word_count)  # type: ignore[attr-defined]
    if made is None:  # version 1 headers wider than a cell: the twin
        return encode_word_numbers(states, word_count)
    out = bytearray(made)
    struct.pack_into("<I", out, 8, zlib.crc32(memoryview(out)[_INDEX_CRC_FROM:]))
    return bytes(out)


class WordCounts:
    """The counts of a word-number section, checked (the one Python reader of docs/format.md).

    Made from the section's bytes: its CRC-32, its parts' sizes, the rank directory, every
    count (1 to the header's word count) and the escape table are checked here, once
    (ValueError "damaged: ..."); the walks (:mod:`boggle_dafsa.automaton.numbering`) then
    check that the counts add up along each path they take.
    """

    __slots__ = ("data", "units", "counted", "bitmap_at", "directory_at", "counts_at", "escapes")

    def __init__(self, data: bytes, units: int, word_count: int, state_count: int) -> None:
        if len(data) < INDEX_FIXED_SIZE:
            raise ValueError("damaged: its word-number section is cut short")
        magic, size, crc, stated_units, counted, escapes = _INDEX_FIXED.unpack_from(data)
        if magic != INDEX_MAGIC or size != len(data) or stated_units != units or counted > state_count or escapes > counted:
            raise ValueError("damaged: its word-number section's fields are inconsistent")
        bitmap_at, directory_at, counts_at, table_at, total = index_parts(units, counted, escapes)
        if total != size:
            raise ValueError("damaged: its word-number section's fields are inconsistent")
        if zlib.crc32(memoryview(data)[_INDEX_CRC_FROM:]) != crc:
            raise ValueError("damaged: its word-number section's checksum does not match")
        self.data, self.units, self.counted = data, units, counted
        self.bitmap_at, self.directory_at, self.counts_at = bitmap_at, directory_at, counts_at
        before = 0
        for block in range((units + RANK_BLOCK_BITS - 1) // RANK_BLOCK_BITS):
            (stated,) = struct.unpack_from("<I", data, directory_at + 4 * block)
            if stated != before:
                raise ValueError("damaged: its word-number section's rank directory is wrong")
            start = bitmap_at + block * (RANK_BLOCK_BITS // 8)
            before += int.from_bytes(data[start : min(start + RANK_BLOCK_BITS // 8, directory_at)], "little").bit_count()
        if units % 8 and data[directory_at - 1] >> (units % 8):
            raise ValueError("damaged: its word-number section marks a state past the body")
        if before != counted:
            raise ValueError("damaged: its word-number section's bitmap and counts disagree")
        count_bytes = data[counts_at:table_at]
        if count_bytes.count(0) or count_bytes.count(COUNT_ESCAPE) != escapes or (counted and max(count_bytes) > word_count):
            raise ValueError("damaged: a count in its word-number section is zero or larger than its words")
        table: dict[int, int] = {}
        previous = -1
        for place in range(escapes):
            ordinal, count = _ESCAPE.unpack_from(data, table_at + place * _ESCAPE.size)
            if (
                not previous < ordinal < counted
                or count_bytes[ordinal] != COUNT_ESCAPE
                or not COUNT_ESCAPE <= count <= word_count
            ):
                raise ValueError("damaged: an escaped count in its word-number section is wrong")
            table[ordinal] = count
            previous = ordinal
        self.escapes = table

    def count(self, unit: int) -> int | None:
        """The words at or below the state at ``unit``, or None if the section does not store it."""
        if not 0 <= unit < self.units:
            return None
        data, bitmap_at = self.data, self.bitmap_at
        byte = data[bitmap_at + (unit >> 3)]
        if not byte >> (unit & 7) & 1:
            return None
        block = unit // RANK_BLOCK_BITS
        start = bitmap_at + block * (RANK_BLOCK_BITS // 8)
        ordinal = int.from_bytes(data[self.directory_at + 4 * block : self.directory_at + 4 * block + 4], "little")
        ordinal += int.from_bytes(data[start : bitmap_at + (unit >> 3)], "little").bit_count()
        ordinal += (byte & ((1 << (unit & 7)) - 1)).bit_count()
        count = data[self.counts_at + ordinal]
        return self.escapes[ordinal] if count == COUNT_ESCAPE else count


def body_cells(automaton: Automaton) -> tuple[array, int]:
    """The file's cells (native byte order) and the root's cell index."""
    alphabet = automaton.alphabet
    bit_of = {letter: bit for bit, letter in enumerate(alphabet)}
    width = header_cells_for(len(alphabet))
    final_bit = 32 * width - 1

    # Breadth-first from the root, children in letter order: deterministic, and the
    # states a search visits first (short prefixes) sit together at the start of the file.
    order = [automaton.root]
    seen = {automaton.root}
    queue = deque(order)
    while queue:
        for child in automaton.labels[queue.popleft()][1::2]:
            if child not in seen:
                seen.add(child)
                order.append(child)
                queue.append(child)
    position: dict[int, int] = {}
    cursor = 0
    for state in order:
        position[state] = cursor
        cursor += width + len(automaton.labels[state]) // 2
    if cursor > CELL_MAX:
        raise DictionaryError("automaton too large for the native format (more than 2**32 cells)")

    from array import array  # only writers need it (array is a shared library: start-up time)

    cells = array("I")
    for state in order:
        flat = automaton.labels[state]
        bits = 0
        for letter in flat[::2]:
            bits |= 1 << bit_of[letter]
        if automaton.finals[state]:
            bits |= 1 << final_bit
        for i in range(width):
            cells.append((bits >> (32 * i)) & CELL_MAX)
        cells.extend(position[child] for child in flat[1::2])
    if cells.itemsize != 4:
        raise AssertionError("array('I') must hold 4-byte cells")
    return cells, position[automaton.root]


def header_size_for(alphabet: str) -> int:
    """Bytes of the header of a file over ``alphabet``: where the cells begin."""
    size = FIXED_SIZE + len(alphabet.encode("utf-8"))
    return size + -size % 8


def pack_header(header: Header) -> bytes:
    """The bytes of ``header``, a file's whose body is already known (cells or bytes, CRC-32, root's index)."""
    h = header
    check_writable(h.alphabet, h.version)
    alphabet_bytes = h.alphabet.encode("utf-8")
    fixed = _FIXED.pack(
        MAGIC,
        h.version,
        h.header_cells,
        h.header_size,
        _POLICY_CODES[h.policy],
        h.flags,
        len(h.alphabet),
        h.word_count,
        h.state_count,
        h.transition_count,
        h.final_count,
        h.longest_word,
        h.root,
        h.cell_count,
        h.body_crc32,
        bytes.fromhex(h.source_digest),
        len(alphabet_bytes),
        0,
    )
    packed = bytearray(fixed + alphabet_bytes)
    packed += bytes(h.header_size - len(packed))
    struct.pack_into("<I", packed, _HEADER_CRC_OFFSET, zlib.crc32(packed))
    return bytes(packed)


def decode_header(data: Buffer, source: str, file_size: int) -> Header:
    """Parse and check the header at the start of ``data`` (a file of ``file_size`` bytes).

    Raises :class:`DictionaryError` for anything that is not a whole, intact header of
    a version this code reads. The cells are not read here (see ``verify``).
    """
    if len(data) < FIXED_SIZE or bytes(data[: len(MAGIC)]) != MAGIC:
        raise DictionaryError(f"{source}: not a boggle-dafsa dictionary (bad magic)")
    fields = _FIXED.unpack_from(data)
    (
        _,
        version,
        width,
        header_size,
        policy_code,
        flags,
        alphabet_size,
        word_count,
        state_count,
        transition_count,
        final_count,
        longest_word,
        root,
        cell_count,
        body_crc,
        digest,
        alphabet_length,
        header_crc,
    ) = fields
    crc_holds = FIXED_SIZE <= header_size <= len(data) and _header_crc(data, header_size) == header_crc
    if version > VERSION:
        # A newer writer may lay the header out differently, so its checksum cannot decide.
        what = "" if crc_holds else ", or the header is damaged"
        raise DictionaryError(
            f"{source}: format version {version} is newer than this tool reads ({VERSION}){what}: upgrade boggle-dafsa"
        )
    if version < 1 or header_size < FIXED_SIZE + alphabet_length or not crc_holds:
        raise DictionaryError(f"{source}: damaged header (checksum mismatch): rebuild the dictionary")
    if policy_code not in _POLICY_BY_CODE or width != (header_cells_for(alphabet_size) if version == 1 else 0):
        raise DictionaryError(f"{source}: damaged header (inconsistent fields)")
    if flags & ~KNOWN_FLAGS:
        raise DictionaryError(
            f"{source}: the header asks for features this tool does not know (flags {flags:#04x}): upgrade boggle-dafsa"
        )
    try:
        alphabet = bytes(data[FIXED_SIZE : FIXED_SIZE + alphabet_length]).decode("utf-8")
    except UnicodeDecodeError:
        raise DictionaryError(f"{source}: damaged header (alphabet is not UTF-8)") from None
    header = Header(
        _POLICY_BY_CODE[policy_code],
        alphabet,
        word_count,
        state_count,
        transition_count,
        final_count,
        longest_word,
        root,
        cell_count,
        body_crc,
        digest.hex(),
        version,
        width,
        header_size,
        flags,
    )
    # In an acyclic automaton a word visits distinct states, and each state has at least
    # a header's cells: a longer "longest word" can only be a lie (or a cycle) that walks
    # bounded by it would believe.
    # Version 2: cell_count counts the body's bytes, and every state but the one leaf has an
    # edge of at least one byte.
    most_states = cell_count // width if version == 1 else cell_count + 1
    # A version 2 root at the end of the body is the leaf: the automaton of no word.
    root_outside = root >= cell_count if version == 1 else root > cell_count or (root == cell_count and word_count)
    if len(alphabet) != alphabet_size or root_outside or not longest_word <= state_count <= most_states:
        raise DictionaryError(f"{source}: damaged header (inconsistent fields)")
    check_fields(header, source)
    if header.has_word_numbers:
        header.index_bytes = index_section_bytes(data, header, source, file_size)
    if header.has_values:
        header.values_bytes = values_section_bytes(data, header, source, file_size)
    if file_size != header.file_size:
        what = "truncated" if file_size < header.file_size else "has trailing bytes"
        raise DictionaryError(f"{source}: {what} ({file_size} bytes, header says {header.file_size})")
    return header


def check_fields(header: Header, source: str) -> None:
    """Raise "damaged header" unless the fields agree with each other as a writer makes
    them and as the kernels assume: cells start where the alphabet ends, padded to 8 bytes
    (aligned 4-byte loads); in version 1 each state is a header and its transitions; no more
    final states than states nor than words; the alphabet is in strictly increasing code
    point order (the order words are walked and printed in), holds no line break (a key is a
    line, whatever the policy), and but for the raw policy (any key) holds no control,
    format or space character."""
    h = header
    alphabet = h.alphabet
    why = None
    if h.header_size != header_size_for(alphabet):
        why = f"the cells start at byte {h.header_size}, the alphabet ends at {FIXED_SIZE + len(alphabet.encode('utf-8'))}"
    elif h.version == 1 and h.cell_count != h.state_count * h.header_cells + h.transition_count:
        why = "its cells are not its states and transitions"
    elif h.version == 1 and h.root > h.cell_count - h.header_cells:
        why = "the root points outside the file"
    elif not h.final_count <= min(h.state_count, h.word_count) or (h.word_count > 0) != (h.final_count > 0):
        why = "its counts of words and final states disagree"
    elif (h.word_count > 0) != (h.longest_word > 0):
        why = "its counts of words and letters disagree"
    elif any(letter in LINE_BREAKS for letter in alphabet):
        why = "its alphabet holds a line break, which no key can"
    elif h.policy is not Policy.RAW and any(not (letter.isprintable() and not letter.isspace()) for letter in alphabet):
        why = "its alphabet holds a control, format or space character"
    elif any(a >= b for a, b in zip(alphabet, alphabet[1:])):
        why = "its alphabet is not in strictly increasing order"
    if why is not None:
        raise DictionaryError(f"{source}: damaged header ({why})")


def _header_crc(data: Buffer, header_size: int) -> int:
    # The CRC of the header with its own CRC field counted as zero.
    header = bytearray(data[:header_size])
    struct.pack_into("<I", header, _HEADER_CRC_OFFSET, 0)
    return zlib.crc32(header)


_LITTLE_ENDIAN = sys.byteorder == "little"
