"""The native file format: a fixed header, the alphabet, then one flat array of uint32 cells.

``docs/format.md`` describes it byte by byte. In short, each state is a header of
``header_cells`` cells (a bitset: letter ``i`` of the alphabet at bit ``i``, the
final flag at the top bit of the last header cell), followed by the cell index of
each child, in letter order. Stepping by letter ``i`` is a bit test and a popcount.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
import sys
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

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
_CELL_MAX = 0xFFFFFFFF
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


class _Layout:
    """What both layouts do alike over their own :meth:`child`: follow a word's letters."""

    __slots__ = ()
    #: The index of each letter of the alphabet (its bit in a version 1 state header).
    letter_bits: Mapping[str, int]

    def child(self, state: int, bit: int) -> int | None:
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


class NativeLayout(_Layout):
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


# -- version 2: compact edges, walked in place --------------------------------------------

#: The bits of an edge's first byte (version 2, docs/format.md); ``_format.h`` has the same.
EDGE_LABEL = 0x0F
EDGE_KIND_SHIFT = 4
EDGE_FINAL = 0x40
EDGE_LAST = 0x80
#: A label code that says "the letter index minus 15 follows, as a varint".
LABEL_ESCAPE = 15
#: Edge kinds: the target has no edge (the leaf); the target's edges follow this edge (a
#: state's last edge only); a varint reference, relative to the state (zigzag) or absolute.
KIND_LEAF, KIND_NEXT, KIND_RELATIVE, KIND_ABSOLUTE = range(4)
#: Most bytes of a varint (32 bits of value).
VARINT_MAX_BYTES = 5
#: The most-referenced states are laid out first, within this many bytes, so that the
#: absolute references to them are short (two-byte varints reach 16,383).
HOT_BYTES = 1 << 14


def zigzag(delta: int) -> int:
    """A signed distance as an unsigned number: 0, -1, 1, -2... become 0, 1, 2, 3..."""
    return delta * 2 if delta >= 0 else -delta * 2 - 1


def unzigzag(value: int) -> int:
    """The signed distance of :func:`zigzag`."""
    return value >> 1 if not value & 1 else -(value >> 1) - 1


def varint_size(value: int) -> int:
    """Bytes of ``value`` as a varint (LEB128: seven bits a byte, low first, high bit = more)."""
    return max(1, (value.bit_length() + 6) // 7)


def varint(value: int, size: int = 0) -> bytes:
    """``value`` as a varint of at least ``size`` bytes (padded with continuation bytes of zero bits)."""
    size = max(size, varint_size(value))
    return bytes((value >> (7 * i) & 0x7F) | (0x80 if i < size - 1 else 0) for i in range(size))


def read_varint(body: memoryview | bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, position after it) of the varint at ``pos``; ValueError past ``end`` or over 5 bytes."""
    value = shift = 0
    for i in range(VARINT_MAX_BYTES):
        if pos + i >= end:
            raise ValueError("damaged: an edge runs past the end of the body")
        byte = body[pos + i]
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            if value > _CELL_MAX:
                raise ValueError("damaged: a number over 32 bits")
            return value, pos + i + 1
    raise ValueError("damaged: a number over five bytes")


class CompactLayout(_Layout):
    """The one Python definition of a version 2 body (docs/format.md), walked in place.

    A *state handle* is ``offset << 1 | final``: ``offset`` the byte where the state's
    edges start (``len(body)`` for the leaf, which has none), ``final`` whether the prefix
    that leads there is a word. Edges carry their target's final flag, so a handle knows
    it without a read. Every byte read is checked: :class:`ValueError` ("damaged: ...")
    for anything a writer never writes; an index outside the body never escapes.
    """

    __slots__ = ("body", "size", "root", "alphabet", "alphabet_size", "letter_bits", "longest_word", "source")

    def __init__(self, body: memoryview | bytes, root: int, alphabet: str, longest_word: int, source: str) -> None:
        #: The body's bytes (a memoryview of the mapped file).
        self.body = body
        self.size = len(body)
        #: The root's handle (never final: empty words are never stored).
        self.root = root << 1
        self.alphabet = alphabet
        #: The index of each letter (its label).
        self.letter_bits = {letter: index for index, letter in enumerate(alphabet)}
        self.alphabet_size = len(alphabet)
        self.longest_word = longest_word
        self.source = source

    def is_final(self, state: int) -> bool:
        """True if the prefix that leads to ``state`` (a handle) is a word."""
        return bool(state & 1)

    @property
    def units(self) -> int:
        """How many units address a state: the body's bytes (the word-number section's bitmap has a bit each)."""
        return self.size

    def unit(self, state: int) -> int:
        """Where ``state`` (a handle) starts: its byte offset (:attr:`size` for the leaf)."""
        return state >> 1

    def has_edges(self, state: int) -> bool:
        """True if some letter follows ``state`` (every state but the leaf)."""
        return state >> 1 < self.size

    def edges(self, state: int) -> Iterator[tuple[int, int]]:
        """The (letter index, child handle) of each edge of ``state``, in letter order."""
        body, size = self.body, self.size
        start = pos = state >> 1
        if start >= size:
            return  # the leaf
        previous = -1
        while True:
            if pos >= size:
                raise ValueError("damaged: an edge runs past the end of the body")
            flags = body[pos]
            pos += 1
            label = flags & EDGE_LABEL
            if label == LABEL_ESCAPE:
                extra, pos = read_varint(body, pos, size)
                label += extra
            if label >= self.alphabet_size or label <= previous:
                raise ValueError("damaged: a letter outside the alphabet or out of order")
            previous = label
            kind = flags >> EDGE_KIND_SHIFT & 3
            last = flags & EDGE_LAST
            if kind == KIND_LEAF:
                target = size
            elif kind == KIND_NEXT:
                if not last:
                    raise ValueError("damaged: a next-state edge that is not its state's last")
                target = pos
            else:
                value, pos = read_varint(body, pos, size)
                target = start + unzigzag(value) if kind == KIND_RELATIVE else value
                if not 0 <= target <= size:
                    raise ValueError("damaged: a transition points outside the file")
            yield label, target << 1 | (1 if flags & EDGE_FINAL else 0)
            if last:
                return

    def children(self, state: int) -> Iterator[tuple[int, int]]:
        """The (letter index, child handle) pairs of ``state``, in letter order (as :class:`NativeLayout`)."""
        return self.edges(state)

    def child(self, state: int, bit: int) -> int | None:
        """The child of ``state`` by letter index ``bit``, None if there is none."""
        for label, target in self.edges(state):
            if label >= bit:
                return target if label == bit else None
        return None


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


def compact_body(cells: memoryview | array[int], root: int, alphabet_size: int) -> tuple[bytes, int]:
    """The version 2 body of the version 1 body ``cells`` (root cell ``root``): (bytes, root offset).

    The Python twin of ``_builder.compact_body``; both give the same bytes (tested).
    First come the states most referenced (by in-degree, then first seen), while they fit
    in :data:`HOT_BYTES`, each alone. Then chains from the root: after a state comes its
    last child when no earlier state took it (that edge is then ``KIND_NEXT``, with no
    reference); the other children wait on a stack (a depth-first walk). References are
    sized in rounds: all start at one byte, each grows to the shorter of its relative and
    absolute forms whenever it no longer fits, until none grows (sizes only grow: it ends).
    """
    layout = NativeLayout.of(cells, root, "\0" * alphabet_size, 0, "")
    children: dict[int, list[tuple[int, int]]] = {}
    indegree: dict[int, int] = {}
    seen = [root]
    children[root] = list(layout.children(root))
    for state in seen:  # breadth-first: every state once, in the order of the version 1 body
        for _, child in children[state]:
            indegree[child] = indegree.get(child, 0) + 1
            if child not in children:
                children[child] = list(layout.children(child))
                seen.append(child)
    rank = {state: number for number, state in enumerate(seen)}
    order: list[int] = []
    placed: set[int] = set()
    hot_bytes = 0
    for state in sorted((s for s in seen if children[s] and indegree.get(s, 0) > 1), key=lambda s: (-indegree[s], rank[s])):
        size = sum(2 + varint_size(max(label - LABEL_ESCAPE, 0)) for label, _ in children[state])
        if hot_bytes + size > HOT_BYTES:
            break
        hot_bytes += size
        order.append(state)
        placed.add(state)
    # The children of the hot states wait below the root (the walk from the root reaches
    # most of them first; a state reached only from hot states is laid out then).
    stack = [child for hot in reversed(order) for _, child in reversed(children[hot])]
    stack.append(root)
    while stack:
        chain = stack.pop()
        while chain not in placed and children[chain]:
            placed.add(chain)
            order.append(chain)
            edges = children[chain]
            for _, child in reversed(edges[:-1]):
                if child not in placed and children[child]:
                    stack.append(child)
            chain = edges[-1][1]
    # Each edge's kind: to the leaf, to the state laid out right after its own (a last
    # edge only), or a reference.
    following = {state: order[i + 1] for i, state in enumerate(order[:-1])}
    kinds: list[list[int]] = []
    for state in order:
        edges = children[state]
        kinds.append(
            [
                KIND_LEAF
                if not children[child]
                else KIND_NEXT
                if index == len(edges) - 1 and following.get(state) == child
                else KIND_RELATIVE
                for index, (_, child) in enumerate(edges)
            ]
        )
    label_bytes = [
        sum(1 + (varint_size(label - LABEL_ESCAPE) if label >= LABEL_ESCAPE else 0) for label, _ in children[s]) for s in order
    ]
    widths: dict[tuple[int, int], int] = {}  # (state's place, edge) -> reference bytes, if over one
    while True:
        position: dict[int, int] = {}
        cursor = 0
        for place, state in enumerate(order):
            position[state] = cursor
            cursor += label_bytes[place]
            for index, kind in enumerate(kinds[place]):
                if kind == KIND_RELATIVE:
                    cursor += widths.get((place, index), 1)
        grown = False
        for place, state in enumerate(order):
            for index, (_, child) in enumerate(children[state]):
                if kinds[place][index] == KIND_RELATIVE:
                    needed = min(varint_size(zigzag(position[child] - position[state])), varint_size(position[child]))
                    if needed > widths.get((place, index), 1):
                        widths[(place, index)] = needed
                        grown = True
        if not grown:
            break
    if cursor > _CELL_MAX:
        raise DictionaryError("automaton too large for the native format (a body over 4 GiB)")
    out = bytearray()
    for place, state in enumerate(order):
        edges = children[state]
        for index, (label, child) in enumerate(edges):
            kind = kinds[place][index]
            flags = (EDGE_FINAL if layout.is_final(child) else 0) | (EDGE_LAST if index == len(edges) - 1 else 0)
            extra = b""
            if kind == KIND_RELATIVE:
                width = widths.get((place, index), 1)
                distance = zigzag(position[child] - position[state])
                if varint_size(distance) > width:
                    kind, distance = KIND_ABSOLUTE, position[child]
                extra = varint(distance, width)
            out.append(flags | kind << EDGE_KIND_SHIFT | min(label, LABEL_ESCAPE))
            if label >= LABEL_ESCAPE:
                out += varint(label - LABEL_ESCAPE)
            out += extra
    if len(out) != cursor:
        raise AssertionError("version 2 layout and bytes disagree")
    # A root without edges (an empty list) is the leaf: the end of an empty body.
    return bytes(out), position.get(root, len(out))


def expand(layout: CompactLayout) -> tuple[Any, int]:
    """The version 1 cells of a version 2 body and the root's cell: the compiled
    ``_builder.expand`` when built (and ``BOGGLE_DAFSA_PURE`` unset), else :func:`expand_compact`."""
    codec = compiled.load("builder")
    if codec is None:
        return expand_compact(layout)
    cells, root = codec.expand(layout.body, layout.root >> 1, layout.alphabet_size)
    return memoryview(cells).cast("I"), root


def expand_compact(layout: CompactLayout) -> tuple[array[int], int]:
    """The version 1 cells (native byte order) of a version 2 body, and the root's cell.

    The Python twin of ``_builder.expand``: the cells the solver reads when the alphabet
    fits one-cell headers. States are numbered breadth-first from the root, children in
    letter order: the cells are those a version 1 build of the same list writes. Raises
    ValueError ("damaged: ...") on a damaged body, or when a state is reached both as
    final and not (each offset is one state).
    """
    from array import array

    width = header_cells_for(layout.alphabet_size)
    final_bit = 32 * width - 1
    position: dict[int, int] = {}  # offset -> first cell
    finality: dict[int, int] = {}
    order: list[int] = []
    cursor = 0
    root = layout.root
    finality[root >> 1] = root & 1
    queue = deque([root])
    while queue:
        handle = queue.popleft()
        offset = handle >> 1
        position[offset] = cursor
        order.append(handle)
        count = 0
        for _, child in layout.edges(handle):
            count += 1
            known = finality.get(child >> 1)
            if known is None:
                finality[child >> 1] = child & 1
                queue.append(child)
            elif known != child & 1:
                raise ValueError("damaged: a state both final and not")
        cursor += width + count
        if cursor > _CELL_MAX:
            raise ValueError("damaged: too many cells")
    cells = array("I")
    for handle in order:
        edges = list(layout.edges(handle))
        head = (handle & 1) << final_bit
        for label, _ in edges:
            head |= 1 << label
        for i in range(width):
            cells.append((head >> (32 * i)) & _CELL_MAX)
        cells.extend(position[child >> 1] for _, child in edges)
    return cells, 0


def project(states: NativeLayout | CompactLayout, letters: str) -> NativeLayout:
    """The cells of the part of an automaton spelled with ``letters`` only (at most 31 of
    its alphabet), for the solver on a wide alphabet: the compiled ``_builder.expand`` with
    its ``keep`` map for a version 2 body when built (and ``BOGGLE_DAFSA_PURE`` unset), else
    :func:`project_cells`. Its alphabet is those letters, in the automaton's order."""
    wanted = set(letters)
    kept = "".join(letter for letter in states.alphabet if letter in wanted)
    if len(kept) > ONE_CELL_LETTERS:
        raise ValueError(f"{len(kept)} letters to keep: at most {ONE_CELL_LETTERS}")
    bits = {letter: bit for bit, letter in enumerate(kept)}
    keep = bytes(bits.get(letter, 0xFF) for letter in states.alphabet)
    codec = compiled.load("builder") if isinstance(states, CompactLayout) else None
    if codec is not None and isinstance(states, CompactLayout):
        raw, root = codec.expand(states.body, states.root >> 1, states.alphabet_size, keep)
        cells: Any = memoryview(raw).cast("I")
    else:
        cells, root = project_cells(states, keep)
    return NativeLayout.of(cells, root, kept, states.longest_word, states.source)


def project_cells(states: NativeLayout | CompactLayout, keep: bytes) -> tuple[array[int], int]:
    """Version 1 cells (one-cell headers, native byte order) of the states reached from the
    root through the letters ``keep`` keeps (``keep[i]``: letter ``i``'s bit, or 0xFF to
    leave its edges out), and the root's cell: the twin of ``_builder.expand(..., keep)``.

    States are numbered breadth-first from the root, kept children in letter order, as
    :func:`expand_compact` numbers them; a state whose letters are all left out has none.
    """
    from array import array

    compact = isinstance(states, CompactLayout)
    position: dict[int, int] = {}
    finality: dict[int, int] = {}
    order: list[int] = []
    edges_of: dict[int, list[tuple[int, int]]] = {}
    cursor = 0
    root = states.root

    def identity(handle: int) -> int:
        # A version 2 handle carries its final flag: one state per offset (else "damaged").
        return handle >> 1 if compact else handle

    finality[identity(root)] = int(states.is_final(root))
    queue = deque([root])
    while queue:
        handle = queue.popleft()
        position[identity(handle)] = cursor
        order.append(handle)
        kept = [(keep[label], child) for label, child in states.children(handle) if keep[label] != 0xFF]
        edges_of[identity(handle)] = kept
        for _, child in kept:
            final = int(states.is_final(child))
            known = finality.get(identity(child))
            if known is None:
                finality[identity(child)] = final
                queue.append(child)
            elif known != final:
                raise ValueError("damaged: a state both final and not")
        cursor += 1 + len(kept)
        if cursor > _CELL_MAX:
            raise ValueError("damaged: too many cells")
    cells = array("I")
    for handle in order:
        head = FINAL_FLAG if finality[identity(handle)] else 0
        kept = edges_of[identity(handle)]
        for bit, _ in kept:
            head |= 1 << bit
        cells.append(head)
        cells.extend(position[identity(child)] for _, child in kept)
    return cells, 0


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


def word_counts(states: NativeLayout | CompactLayout, most: int) -> tuple[dict[int, int], list[int]]:
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


def encode_word_numbers(states: NativeLayout | CompactLayout, word_count: int) -> bytes:
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


def word_numbers(states: NativeLayout | CompactLayout, word_count: int) -> bytes:
    """The word-number section of ``states``: the compiled ``word_numbers`` of the census
    part (``automaton/_census.c``) when built (and ``BOGGLE_DAFSA_PURE`` unset), else its
    twin :func:`encode_word_numbers`; the same bytes."""
    module = compiled.load("census")
    if module is None:
        return encode_word_numbers(states, word_count)
    if isinstance(states, CompactLayout):
        made = module.word_numbers(states.body, 2, states.root >> 1, states.alphabet_size, states.longest_word, word_count)
    else:
        made = module.word_numbers(states.cells, 1, states.root, len(states.alphabet), states.longest_word, word_count)
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


def encode(
    automaton: Automaton, policy: Policy, source_digest: str, version: int = DEFAULT_VERSION, index: bool = False
) -> bytes:
    """The complete file (format ``version``) for ``automaton``: header then body, then with
    ``index`` its word-number section (:func:`encode_word_numbers`: what ``build`` writes by
    default; off here, where tests craft automata whose headers lie). Same input, same bytes."""
    check_writable(automaton.alphabet, version)
    cells, root = body_cells(automaton)
    section = b""
    if version == 2:
        body, root = compact_body(cells, root, len(automaton.alphabet))
        count = len(body)
        if index:
            states: NativeLayout | CompactLayout = CompactLayout(body, root, automaton.alphabet, automaton.longest_word, "")
            section = encode_word_numbers(states, automaton.word_count)
    else:
        if index:
            states = NativeLayout.of(cells, root, automaton.alphabet, automaton.longest_word, "")
            section = encode_word_numbers(states, automaton.word_count)
        if not _LITTLE_ENDIAN:
            cells.byteswap()
        body, count = cells.tobytes(), len(cells)
    header = Header(
        policy,
        automaton.alphabet,
        automaton.word_count,
        automaton.state_count,
        automaton.transition_count,
        sum(automaton.finals),
        automaton.longest_word,
        root,
        count,
        zlib.crc32(body),
        source_digest,
        version,
        flags=FLAG_WORD_NUMBERS if index else 0,
        index_bytes=len(section),
    )
    return pack_header(header) + body + section


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
    if cursor > _CELL_MAX:
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
            cells.append((bits >> (32 * i)) & _CELL_MAX)
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


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file appears whole or not at all (see :func:`atomic_file`)."""
    with atomic_file(path) as stream:
        stream.write(data)
        fault_point("written")


@contextmanager
def atomic_file(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write, which replaces ``path`` whole when the block ends without error.

    The file is a temporary one in the same folder (it may be seeked and rewritten); it
    is flushed to disk and renamed over ``path`` at the end, or removed on any failure
    (an interruption included), leaving an existing ``path`` untouched.
    A symbolic link at ``path`` is replaced by the file, never written through (as
    ``sed -i`` does); a folder, device or pipe there is refused. A new file gets the
    mode the umask gives, a replaced regular file keeps its mode. A writer killed even
    with SIGKILL leaves no temporary file: its reaper (:mod:`boggle_dafsa.files.reaper`)
    removes it; without a reaper, the next write to the same path does.
    """
    from boggle_dafsa.files import reaper  # only writers need it (it imports subprocess)

    target = Path(os.path.abspath(path))
    try:
        existing = os.lstat(target)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
    mode = None
    if existing is not None:
        if stat.S_ISREG(existing.st_mode):
            mode = stat.S_IMODE(existing.st_mode)
        elif not stat.S_ISLNK(existing.st_mode):
            raise DictionaryError(f"{path}: exists and is not a regular file (a folder, a device, a pipe): not replacing it")
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove_stale_temporaries(folder, target.name)
        temporary, descriptor = _create_temporary(folder, target.name)
    except OSError as error:
        raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        fault_point("created")
        with os.fdopen(descriptor, "w+b") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        fault_point("synced")
        os.replace(temporary, target)
        reaper.done(temporary)
        fault_point("renamed")
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        reaper.done(temporary)
        if isinstance(error, OSError):
            raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
        raise


#: Temporary files are named ``.NAME.PID.RANDOM.tmp``, NAME cut to this length so that
#: a name near the filesystem's limit still has room for the rest.
_TEMPORARY_NAME_LENGTH = 64


def _create_temporary(folder: Path, name: str) -> tuple[Path, int]:
    # os.open with 0o666, not mkstemp (0o600): the umask then gives the new file its mode.
    # Read and write: a writer reads its file back before the rename (stream.read_back).
    import secrets  # only writers need it

    from boggle_dafsa.files import reaper

    while True:
        temporary = folder / f".{name[:_TEMPORARY_NAME_LENGTH]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        # Listed before it exists: whenever this process dies from now on, the reaper
        # removes it (see files/reaper.py).
        reaper.listed(temporary)
        try:
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            return temporary, os.open(temporary, flags, 0o666)
        except FileExistsError:
            reaper.done(temporary)  # someone else's name
        except BaseException:
            reaper.done(temporary)
            raise


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    # A writer killed with SIGKILL cannot clean up: its temporary file is removed here,
    # once its process is gone (a live one may still be writing it).
    prefix = f".{name[:_TEMPORARY_NAME_LENGTH]}."
    try:
        candidates = [entry for entry in os.listdir(folder) if entry.startswith(prefix) and entry.endswith(".tmp")]
    except OSError:
        return
    for entry in candidates:
        pid_text = entry[len(prefix) :].split(".")[0]
        if not pid_text.isdigit() or _process_alive(int(pid_text)):
            continue
        try:
            os.unlink(folder / entry)
        except OSError:
            pass


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process: not ours to judge
    return True


#: Environment variable of the fault-injection hook (tests only): ``N`` kills the process
#: with SIGKILL at the Nth step of the writes it does (see :func:`fault_point`).
FAULT_VARIABLE = "BOGGLE_DAFSA_TEST_KILL_AT_STEP"
_steps_taken = 0
#: In-process hook (tests only): called with each step's name; it may raise to interrupt.
fault_hook: Callable[[str], None] | None = None


def fault_point(step: str) -> None:
    """A step of a write where the tests may kill the process (``$BOGGLE_DAFSA_TEST_KILL_AT_STEP``).

    The tests kill a build at each step in turn and check that the previous dictionary
    is still usable and that no temporary file is left.
    """
    global _steps_taken
    if fault_hook is not None:
        fault_hook(step)
    wanted = os.environ.get(FAULT_VARIABLE)
    if not wanted:
        return
    _steps_taken += 1
    if str(_steps_taken) == wanted:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


_LITTLE_ENDIAN = sys.byteorder == "little"
