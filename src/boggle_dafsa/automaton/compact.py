"""Version 2 of the native format: compact edges, walked in place (``docs/format.md``).

The body is a list of edges per state, about 2 bytes a transition whatever the alphabet:
a byte of flags and label (the target's final flag, the state's last edge, how the target
is reached: the leaf, the next state in the file, or a varint reference), then the
reference. :class:`CompactLayout` walks it in place (the one Python definition of it);
:func:`compact_body` writes it from version 1 cells and :func:`expand_compact` turns it
back into them (the cells the solver and the compiled walks read), with their compiled
twins in ``_compact.h`` (``_builder.compact_body``, ``_builder.expand``), which
:func:`expand` and :func:`project` call where built. :func:`encode` is the whole file of
either version, here because this module knows both bodies (:mod:`.fileformat`, below
it, knows the header, version 1 and the sections).
"""

from __future__ import annotations

import sys
import zlib
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from boggle_dafsa import compiled
from boggle_dafsa.automaton.fileformat import (
    CELL_MAX,
    DEFAULT_VERSION,
    FINAL_FLAG,
    FLAG_WORD_NUMBERS,
    ONE_CELL_LETTERS,
    Header,
    NativeLayout,
    StateLayout,
    body_cells,
    check_writable,
    encode_word_numbers,
    header_cells_for,
    pack_header,
)
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.words.normalize import Policy

if TYPE_CHECKING:
    from array import array  # writers only: a shared library to load (tests/test_imports.py)

    from boggle_dafsa.automaton.builder import Automaton

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
            if value > CELL_MAX:
                raise ValueError("damaged: a number over 32 bits")
            return value, pos + i + 1
    raise ValueError("damaged: a number over five bytes")


class CompactLayout(StateLayout):
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
    if cursor > CELL_MAX:
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
    from array import array  # writers only: a shared library to load (tests/test_imports.py)

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
        if cursor > CELL_MAX:
            raise ValueError("damaged: too many cells")
    cells = array("I")
    for handle in order:
        edges = list(layout.edges(handle))
        head = (handle & 1) << final_bit
        for label, _ in edges:
            head |= 1 << label
        for i in range(width):
            cells.append((head >> (32 * i)) & CELL_MAX)
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
    from array import array  # writers only: a shared library to load (tests/test_imports.py)

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
        if cursor > CELL_MAX:
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
        if sys.byteorder != "little":
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
