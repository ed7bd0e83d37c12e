"""A pure-Python writer of the dawgdic ``CompletionDAWG`` file format.

dawgdic (Susumu Yata's C++ library, wrapped by the ``DAWG``/``dawg2`` packages and read by
``dawg-python``) stores a minimal automaton over UTF-8 *bytes* as a double array, followed by a
"guide" that lets a reader enumerate the keys below any state in byte order::

    u32 N            number of dictionary units (a multiple of 256)
    N x u32          dictionary units (native byte order, little-endian in practice)
    u32 G            number of guide units (N, or 0 when there are no keys)
    G x (u8, u8)     guide units: label of the first child, label of the next sibling

A dictionary unit is either a *leaf* (bit 31 set, low 31 bits = the key's value, always 0
here) or an inner unit: bits 0-7 its label, bit 8 "has a leaf child" (the key ends here),
bit 9 "extended offset", bits 10-31 the offset to its children (shifted by 8 more bits when
extended). Following label ``c`` from unit ``i`` leads to ``i ^ offset(i) ^ c``, valid when
that unit's label is ``c``.

The three stages below follow dawgdic's own builders step for step (DawgBuilder,
DictionaryBuilder, GuideBuilder), so that for the same keys the bytes are identical to what
``dawg.CompletionDAWG(keys).save(path)`` writes; the tests check that.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from boggle_dafsa import compiled

# Dictionary unit bits (dictionary-unit.h).
IS_LEAF_BIT = 1 << 31
HAS_LEAF_BIT = 1 << 8
EXTENSION_BIT = 1 << 9
OFFSET_MAX = 1 << 21
LABEL_MASK = IS_LEAF_BIT | 0xFF

# DictionaryBuilder constants (dictionary-builder.h).
BLOCK_SIZE = 256
NUM_OF_UNFIXED_BLOCKS = 16
_UPPER_MASK = ~(OFFSET_MAX - 1) & 0xFFFFFFFF
_LOWER_MASK = 0xFF

#: Label of the pseudo transition that leads to the root group.
_ROOT_LABEL = 0xFF


@dataclass
class Dawg:
    """A minimal byte-level DAWG in dawgdic's list form.

    Transition ``i`` has ``labels[i]`` (0 for the end-of-key leaf) and, unless it is a leaf,
    ``children[i]``: the index of the first transition of the state it leads to. The
    transitions of one state are consecutive, in ascending label order; ``last[i]`` is 1 on
    the last one. ``merging[i]`` is 1 when the group starting at ``i`` is reached by several
    transitions. Transition 0 is a pseudo transition (label 0xFF) to the root's group.
    """

    labels: bytearray
    children: list[int] | array[int]
    last: bytearray
    merging: bytearray

    def __len__(self) -> int:
        return len(self.labels)


def build_dawg(keys: Sequence[bytes], kernel: str | None = None) -> Dawg:
    """Build the minimal DAWG of ``keys`` (sorted, unique, non-empty, no NUL byte).

    ``kernel``: "c" (the compiled twin in ``automaton/_builder.c``), "python", or None for
    the compiled one when it is built and ``BOGGLE_DAFSA_PURE`` is not set. Same lists.
    """
    compiled = _compiled(kernel, "dawg_lists")
    if compiled is None:
        return _build_dawg_python(keys)
    blob = b"".join(key + b"\n" for key in keys)
    if blob.count(b"\n") != len(keys):
        raise ValueError("dawgdic keys here must not hold a newline byte")
    labels, children, last, merging = compiled(blob)
    child_array = array("I")
    child_array.frombytes(children)
    return Dawg(bytearray(labels), child_array, bytearray(last), bytearray(merging))


def _compiled(kernel: str | None, name: str) -> Any:
    # The compiled stage `name` of _builder.c, or None for the Python one.
    if compiled.choose("builder", kernel or "auto") == compiled.PYTHON:
        return None
    return getattr(compiled.built("builder"), name)


def _build_dawg_python(keys: Sequence[bytes]) -> Dawg:
    """:func:`build_dawg` in Python: the twin of ``dawg_lists`` in ``_builder.c``.

    This is dawgdic's DawgBuilder: states are frozen deepest first as soon as the next key
    leaves their path, and a frozen state identical to an earlier one is shared. The
    transitions of each new state are numbered in the order the states are frozen, which is
    what makes the final file identical to dawgdic's.
    """
    # A transition while building: (child group index << 8) | label; a leaf is just 0.
    groups: list[tuple[int, ...]] = []  # frozen states, in numbering order
    registry: dict[tuple[int, ...], int] = {}
    merging_starts: set[int] = set()
    next_index = 1  # transition 0 is the root's pseudo transition

    def freeze(transitions: list[int]) -> int:
        nonlocal next_index
        group = tuple(transitions)
        index = registry.get(group)
        if index is None:
            index = registry[group] = next_index
            next_index += len(group)
            groups.append(group)
        else:
            merging_starts.add(index)
        return index

    # open_states[d]: transitions of the state reached by the first d bytes of the
    # previous key; the last transition's child (open_states[d + 1]) is not frozen yet.
    open_states: list[list[int]] = [[]]
    previous = b""
    for key in keys:
        if not key or 0 in key:
            raise ValueError(f"dawgdic keys must be non-empty and free of NUL bytes: {key!r}")
        if key <= previous:
            raise ValueError(f"dawgdic keys must be sorted and unique: {previous!r} then {key!r}")
        common = 0
        limit = min(len(key), len(previous))
        while common < limit and key[common] == previous[common]:
            common += 1
        # Freeze the states below the point where this key leaves the previous one.
        for depth in range(len(previous), common, -1):
            child = freeze(open_states.pop())
            parent = open_states[depth - 1]
            parent[-1] |= child << 8
        # Add the rest of this key, then its end-of-key leaf.
        open_states[common].append(key[common])
        for label in key[common + 1 :]:
            open_states.append([label])
        open_states.append([0])
        previous = key
    for depth in range(len(previous), 0, -1):
        child = freeze(open_states.pop())
        open_states[depth - 1][-1] |= child << 8
    root_group = freeze(open_states.pop()) if keys else 0

    total = next_index
    labels = bytearray(total)
    children = [0] * total
    last = bytearray(total)
    merging = bytearray(total)
    labels[0] = _ROOT_LABEL
    children[0] = root_group
    last[0] = 1
    index = 1
    for group in groups:
        for transition in group:
            labels[index] = transition & 0xFF
            children[index] = transition >> 8
            index += 1
        last[index - 1] = 1
    for start in merging_starts:
        merging[start] = 1
    return Dawg(labels, children, last, merging)


class _DictionaryBuilder:
    """dawgdic's DictionaryBuilder: lays a DAWG out as a double array, block by block.

    Units are placed in depth-first order; each state's children go at the first offset, in
    the circular list of free units of the last 16 blocks, where none of them collides.
    States reached several times reuse the offset they got first when it can be encoded.
    """

    def __init__(self, dawg: Dawg) -> None:
        self.dawg = dawg
        self.units: list[int] = []
        self.is_fixed = bytearray()  # unit taken (by a transition or as padding)
        self.is_used = bytearray()  # unit index already used as some state's offset
        self.next: list[int] = []  # circular doubly linked list of free units
        self.prev: list[int] = []
        self.unfixed_index = 0  # head of the free list; == len(units) when it is empty
        self.links: dict[int, int] = {}  # merging DAWG group -> its offset

    def build(self) -> list[int]:
        self.reserve_unit(0)
        self.is_used[0] = 1
        self.set_offset(0, 1)
        self.units[0] = self.units[0] & ~0xFF
        if len(self.dawg) > 1:
            self.build_from(0, 0)
        self.fix_all_blocks()
        return self.units

    # --- unit encoding (dictionary-unit.h) ---
    def set_offset(self, index: int, offset: int) -> None:
        if offset >= OFFSET_MAX << 8:
            raise ValueError("dawgdic: offset too large (dictionary over 2^29 units)")
        base = self.units[index] & (IS_LEAF_BIT | HAS_LEAF_BIT | 0xFF)
        if offset < OFFSET_MAX:
            base |= offset << 10
        else:
            base |= (offset << 2) | EXTENSION_BIT
        self.units[index] = base

    # --- placement ---
    def enter(self, dawg_index: int, dic_index: int) -> tuple[int, int] | None:
        """Place the children of one state; return (first child, offset) to visit them, or None."""
        dawg = self.dawg
        if dawg.labels[dawg_index] == 0:  # a leaf has no children
            return None
        child = dawg.children[dawg_index]
        if dawg.merging[child]:
            offset = self.links.get(child, 0)
            if offset:
                offset ^= dic_index
                if not (offset & _UPPER_MASK) or not (offset & _LOWER_MASK):
                    if dawg.labels[child] == 0:
                        self.units[dic_index] |= HAS_LEAF_BIT
                    self.set_offset(dic_index, offset)
                    return None
        offset = self.arrange_child_nodes(dawg_index, dic_index)
        if dawg.merging[child]:
            self.links[child] = offset
        return child, offset

    def build_from(self, dawg_index: int, dic_index: int) -> None:
        """Depth-first placement, as dawgdic's recursive BuildDictionary (without recursion)."""
        dawg = self.dawg
        labels, last = dawg.labels, dawg.last
        stack: list[tuple[int, int]] = []
        frame = self.enter(dawg_index, dic_index)
        if frame:
            stack.append(frame)
        while stack:
            child, offset = stack[-1]
            if child == 0:
                stack.pop()
                continue
            stack[-1] = (0 if last[child] else child + 1, offset)
            frame = self.enter(child, offset ^ labels[child])
            if frame:
                stack.append(frame)

    def arrange_child_nodes(self, dawg_index: int, dic_index: int) -> int:
        dawg = self.dawg
        first = dawg.children[dawg_index]
        end = first
        while not dawg.last[end]:
            end += 1
        child_labels = dawg.labels[first : end + 1]
        offset = self.find_good_offset(dic_index, child_labels)
        self.set_offset(dic_index, dic_index ^ offset)
        units = self.units
        for label in child_labels:
            dic_child_index = offset ^ label
            self.reserve_unit(dic_child_index)
            if label == 0:
                units[dic_index] |= HAS_LEAF_BIT
                units[dic_child_index] = IS_LEAF_BIT  # value 0
            else:
                units[dic_child_index] = (units[dic_child_index] & ~0xFF) | label
        self.is_used[offset] = 1
        return offset

    def find_good_offset(self, index: int, child_labels: bytes | bytearray) -> int:
        num_units = len(self.units)
        if self.unfixed_index >= num_units:
            return num_units | (index & 0xFF)
        unfixed_index = self.unfixed_index
        first_label = child_labels[0]
        is_used, is_fixed, next_free = self.is_used, self.is_fixed, self.next
        while True:
            offset = unfixed_index ^ first_label
            if not is_used[offset]:
                relative = index ^ offset
                if not ((relative & _LOWER_MASK) and (relative & _UPPER_MASK)):
                    for label in child_labels[1:]:
                        if is_fixed[offset ^ label]:
                            break
                    else:
                        return offset
            unfixed_index = next_free[unfixed_index]
            if unfixed_index == self.unfixed_index:
                return num_units | (index & 0xFF)

    def reserve_unit(self, index: int) -> None:
        if index >= len(self.units):
            self.expand_dictionary()
        next_free, prev_free = self.next, self.prev
        if index == self.unfixed_index:
            self.unfixed_index = next_free[index]
            if self.unfixed_index == index:
                self.unfixed_index = len(self.units)
        next_free[prev_free[index]] = next_free[index]
        prev_free[next_free[index]] = prev_free[index]
        self.is_fixed[index] = 1

    def expand_dictionary(self) -> None:
        src_units = len(self.units)
        src_blocks = src_units // BLOCK_SIZE
        dest_units = src_units + BLOCK_SIZE
        if src_blocks + 1 > NUM_OF_UNFIXED_BLOCKS:
            self.fix_block(src_blocks - NUM_OF_UNFIXED_BLOCKS)
        self.units.extend([0] * BLOCK_SIZE)
        self.is_fixed.extend(bytes(BLOCK_SIZE))
        self.is_used.extend(bytes(BLOCK_SIZE))
        # The new block's free units form a circular list...
        self.next.extend(range(src_units + 1, dest_units + 1))
        self.prev.extend(range(src_units - 1, dest_units - 1))
        next_free, prev_free = self.next, self.prev
        next_free[dest_units - 1] = src_units
        prev_free[src_units] = dest_units - 1
        # ...spliced into the list of free units before the head.
        head = self.unfixed_index
        prev_free[src_units] = prev_free[head]
        next_free[dest_units - 1] = head
        next_free[prev_free[head]] = src_units
        prev_free[head] = dest_units - 1

    def fix_all_blocks(self) -> None:
        num_blocks = len(self.units) // BLOCK_SIZE
        for block in range(max(0, num_blocks - NUM_OF_UNFIXED_BLOCKS), num_blocks):
            self.fix_block(block)

    def fix_block(self, block: int) -> None:
        """Give the free units of a block labels that no transition can match."""
        begin = block * BLOCK_SIZE
        end = begin + BLOCK_SIZE
        unused_offset = 0
        for offset in range(begin, end):
            if not self.is_used[offset]:
                unused_offset = offset
                break
        for index in range(begin, end):
            if not self.is_fixed[index]:
                self.reserve_unit(index)
                self.units[index] = (self.units[index] & ~0xFF) | ((index ^ unused_offset) & 0xFF)


def _follow(units: list[int], index: int, label: int) -> int:
    base = units[index]
    child = index ^ ((base >> 10) << ((base & EXTENSION_BIT) >> 6)) ^ label
    if units[child] & LABEL_MASK != label:
        raise AssertionError("dawgdic guide: dictionary transition missing")
    return child


def build_guide(dawg: Dawg, units: list[int]) -> bytearray:
    """dawgdic's GuideBuilder: for each unit, the labels of its first child and next sibling.

    Returns the guide as (child, sibling) byte pairs, one per dictionary unit (empty when
    there are no keys, as dawgdic does).
    """
    if len(dawg) <= 1:
        return bytearray()
    guide = bytearray(2 * len(units))
    fixed = bytearray(len(units))
    labels, children, last = dawg.labels, dawg.children, dawg.last

    def enter(dawg_index: int, dic_index: int) -> tuple[int, int] | None:
        if fixed[dic_index]:
            return None
        fixed[dic_index] = 1
        child = children[dawg_index]
        if labels[child] == 0:  # skip the end-of-key leaf: the guide only leads to letters
            if last[child]:
                return None
            child += 1
        guide[2 * dic_index] = labels[child]
        return child, dic_index

    stack: list[tuple[int, int]] = []
    frame = enter(0, 0)
    if frame:
        stack.append(frame)
    while stack:
        child, dic_index = stack[-1]
        if child == 0:
            stack.pop()
            continue
        sibling = 0 if last[child] else child + 1
        stack[-1] = (sibling, dic_index)
        dic_child = _follow(units, dic_index, labels[child])
        if sibling:
            guide[2 * dic_child + 1] = labels[sibling]
        frame = enter(child, dic_child)
        if frame:
            stack.append(frame)
    return guide


def completion_dawg_bytes(words: Sequence[str], kernel: str | None = None) -> bytes:
    """The dawgdic CompletionDAWG file image of ``words`` (sorted, unique, non-empty strings).

    ``kernel`` as for :func:`build_dawg`: the three stages run compiled or in Python.
    """
    keys = [word.encode("utf-8") for word in words]
    dawg = build_dawg(keys, kernel)
    compiled = _compiled(kernel, "dawg_dictionary")
    if compiled is None:
        unit_array = array("I", _DictionaryBuilder(dawg).build())
        guide = bytes(build_guide(dawg, list(unit_array)))
    else:
        children = dawg.children if isinstance(dawg.children, array) else array("I", dawg.children)
        unit_bytes, guide = compiled(bytes(dawg.labels), children.tobytes(), bytes(dawg.last), bytes(dawg.merging))
        unit_array = array("I")
        unit_array.frombytes(unit_bytes)
    header = array("I", [len(unit_array)])
    guide_header = array("I", [len(guide) // 2])
    if sys.byteorder != "little":  # dawgdic files are little-endian in practice (x86, ARM)
        for part in (unit_array, header, guide_header):
            part.byteswap()
    return b"".join((header.tobytes(), unit_array.tobytes(), guide_header.tobytes(), guide))
