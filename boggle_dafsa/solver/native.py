"""The native kernel in Python: the grid walked over a native file's cells, read directly.

The twin of the compiled kernel (``_native.c``): the same arguments (plain data: a
:class:`NativeLayout`, the faces, the neighbour table, the minimum length) and the
same result, a dict from each word to its first path. A bit test and a popcount per
letter (see :class:`~boggle_dafsa.automaton.fileformat.NativeLayout`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..automaton.fileformat import NativeLayout

#: Deepest path this kernel walks: it recurses once per face (Python's limit is 1,000 frames).
MAX_DEPTH = 400


def search(
    layout: NativeLayout, faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path of every word of at least ``min_length`` letters on the grid.

    ``faces[cell]`` is the face of a cell, ``table[cell]`` its neighbours in increasing
    order. Each word comes with the first path a depth-first walk meets, start cells
    and neighbours in increasing order. Raises ``IndexError`` when the cells point
    outside themselves (a damaged file); recursion is one frame per face of a path, so
    the caller keeps ``min(len(faces), layout.longest_word)`` within :data:`MAX_DEPTH`.

    Each face is translated once per grid into the bits of its letters. A state's header
    tells which letters can follow, so a neighbour costs one AND when its first letter
    cannot; ``reach[cell]`` holds the first-letter bits of the cell's neighbours, so a
    state that shares none with it is not even visited.
    """
    cells = layout.cells
    letter_bits = layout.letter_bits
    final = layout.final_flag

    # What stepping onto each cell takes: (the cell, its bit in the `used` mask, its
    # first letter's bit in a state header, its face) for a one-letter face, with the
    # later letters' bits before the face for a longer one (QU); None when a letter is
    # outside the alphabet (the cell then spells no word).
    onto: list[tuple[Any, ...] | None] = []
    for cell, face in enumerate(faces):
        bit = letter_bits.get(face)  # most faces are one letter
        if bit is not None:
            onto.append((cell, 1 << cell, 1 << bit, face))
            continue
        bits = [letter_bits.get(letter) for letter in face]
        if len(bits) == 1 or None in bits:
            onto.append(None)
        else:
            onto.append((cell, 1 << cell, 1 << bits[0], tuple(bits[1:]), face))  # type: ignore[operator]

    # For each cell, the steps onto its neighbours: one-letter faces in `steps`, longer
    # ones apart in `long_steps` so that the common case pays nothing for them; and
    # `reach`, the first-letter bits of all of them.
    steps: list[tuple[tuple[int, int, int, str], ...]] = []
    long_steps: list[tuple[tuple[int, int, int, tuple[int, ...], str], ...]] = []
    reach: list[int] = []
    for cell in range(len(faces)):
        short: list[Any] = []
        long: list[Any] = []
        mask = 0
        for other in table[cell]:
            entry = onto[other]
            if entry is not None:
                (short if len(entry) == 4 else long).append(entry)
                mask |= entry[2]
        steps.append(tuple(short))
        long_steps.append(tuple(long))
        reach.append(mask)

    found: dict[str, tuple[int, ...]] = {}
    # trail[:depth + 1] is the path to the cell being visited (cheaper than a list's
    # append and pop around each call).
    trail = [0] * len(faces)

    def visit(cell: int, state: int, head: int, used: int, word: str, depth: int) -> None:
        # `state` (header `head`) is reached by `word`, spelled by trail[:depth] + `cell`.
        trail[depth] = cell
        for other, bit, letter, face in steps[cell]:
            if head & letter and not used & bit:
                # The child's index follows the header, after those of the smaller
                # letters: as many as the header has bits below this letter's.
                child = cells[state + 1 + (head & (letter - 1)).bit_count()]
                child_head = cells[child]
                longer = word + face
                if child_head & final and len(longer) >= min_length and longer not in found:
                    found[longer] = (*trail[: depth + 1], other)
                if child_head & reach[other]:
                    visit(other, child, child_head, used | bit, longer, depth + 1)
        if long_steps[cell]:
            for other, bit, letter, later, face in long_steps[cell]:
                if head & letter and not used & bit:
                    child = _follow(cells, cells[state + 1 + (head & (letter - 1)).bit_count()], later)
                    if child is None:
                        continue
                    child_head = cells[child]
                    longer = word + face
                    if child_head & final and len(longer) >= min_length and longer not in found:
                        found[longer] = (*trail[: depth + 1], other)
                    if child_head & reach[other]:
                        visit(other, child, child_head, used | bit, longer, depth + 1)

    for start, entry in enumerate(onto):
        if entry is None:
            continue
        face = entry[-1]
        state = _follow(cells, layout.root, (entry[2].bit_length() - 1, *(entry[3] if len(entry) == 5 else ())))
        if state is None:
            continue
        head = cells[state]
        if head & final and len(face) >= min_length and face not in found:
            found[face] = (start,)
        if head & reach[start]:
            visit(start, state, head, 1 << start, face, 0)
    return found


def _follow(cells: Any, state: int, bits: Iterable[int]) -> int | None:
    # Step from `state` by each letter bit in turn (the later letters of a face like QU).
    for bit in bits:
        head = cells[state]
        if not head >> bit & 1:
            return None
        state = cells[state + 1 + (head & ((1 << bit) - 1)).bit_count()]
    return state


