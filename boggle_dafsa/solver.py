"""Finding every dictionary word that can be traced on a grid, and tracing one word.

:func:`solve` walks the grid depth-first while stepping the dictionary's automaton one
face at a time, and abandons a path as soon as no word starts with it: a prefix is
never looked up again from the root. Two kernels do the walk and give the same words:

* a fast one for the native format, which reads the mapped cells itself (a bit test
  and a popcount per letter, see ``automaton/reader.py``);
* a generic one through the cursor interface (``step``/``is_word``), for every other
  dictionary (marisa, dawg, stand-ins in tests) and for alphabets over 31 letters.

:func:`find` traces one word without a dictionary, with an explicit stack, so that a
5,000-letter word on a 100x100 grid is no matter for Python's recursion limit.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import DictionaryError
from .grid import Grid, neighbours
from .scoring import CLASSIC, Scoring

if TYPE_CHECKING:
    from .dictionary import Dictionary

#: The final flag of a one-cell state header in the native format (automaton.reader.FINAL_FLAG).
_FINAL = 1 << 31


@dataclass(frozen=True)
class Hit:
    """A word found on a grid: its score and one path (cell numbers, see :meth:`Grid.coordinates`)."""

    word: str
    score: int
    path: tuple[int, ...]

    def coordinates(self, grid: Grid) -> tuple[tuple[int, ...], ...]:
        """The path as coordinates: (row, col) pairs in 2-D, n-tuples in n-D."""
        return tuple(grid.coordinates(cell) for cell in self.path)


def sort_key(hit: Hit) -> tuple[int, int, str]:
    """The order of results: score descending, then length descending, then alphabetical."""
    return (-hit.score, -len(hit.word), hit.word)


def solve(
    grid: Grid,
    dictionary: Dictionary,
    *,
    min_length: int | None = None,
    scoring: Scoring = CLASSIC,
    adjacency: str = "king",
) -> list[Hit]:
    """Every word of ``dictionary`` that can be traced on ``grid``, best first.

    A word is traced through adjacent cells (``adjacency``: "king" or "orthogonal"),
    each used once, and has at least ``min_length`` letters (default: the scoring's
    minimum; a QU face is two letters). Each word comes once, with the path that is
    smallest cell by cell when the faces are single letters. Sorted by :func:`sort_key`.
    """
    if min_length is None:
        min_length = scoring.min_length
    table = neighbours(grid.shape, adjacency)
    if _has_native_cells(dictionary):
        found = _search_native(grid.faces, table, dictionary, min_length)
    else:
        found = _search_generic(grid.faces, table, dictionary, min_length)
    score = scoring.score
    hits = [Hit(word, score(word), path) for word, path in found.items()]
    hits.sort(key=sort_key)
    return hits


def totals(hits: Iterable[Hit]) -> tuple[int, int]:
    """(number of words, total points) of ``hits``."""
    count = points = 0
    for hit in hits:
        count += 1
        points += hit.score
    return count, points


def _has_native_cells(dictionary: Any) -> bool:
    # The fast kernel needs the native layout with one header cell (alphabets of up to
    # 31 letters); duck-typed so the solver does not import the reader.
    return (
        getattr(dictionary, "format_name", None) == "native"
        and getattr(dictionary, "header_cells", None) == 1
        and hasattr(dictionary, "cells")
        and hasattr(dictionary, "letter_bits")
    )


# -- the generic kernel ------------------------------------------------------------------


def _search_generic(
    faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], dictionary: Dictionary, min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path, walking the grid through ``dictionary.step`` and ``is_word``."""
    step = dictionary.step
    is_word = dictionary.is_word
    root = dictionary.root
    found: dict[str, tuple[int, ...]] = {}
    for start, face in enumerate(faces):
        state = step(root, face)
        if state is None:
            continue
        # Each entry: (cell, automaton state after its face, word so far, path so far).
        # Pushed in reverse so that neighbours are explored in increasing order.
        stack = [(start, state, face, (start,))]
        while stack:
            cell, state, word, path = stack.pop()
            if len(word) >= min_length and word not in found and is_word(state):
                found[word] = path
            for next_cell in reversed(table[cell]):
                if next_cell in path:
                    continue
                next_state = step(state, faces[next_cell])
                if next_state is not None:
                    stack.append((next_cell, next_state, word + faces[next_cell], path + (next_cell,)))
    return found


# -- the native kernel -------------------------------------------------------------------


def _search_native(
    faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], dictionary: Any, min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path, reading the native dictionary's cells directly.

    Per grid, each face is translated once into the bit indices of its letters, and
    each cell's neighbours are grouped by face, so that one automaton step serves every
    neighbour showing the same face. ``reach[cell]`` has the bit of each neighbour's
    first letter: a state whose header shares no bit with it has no next step there,
    which prunes most dead ends with one AND and no call.
    """
    cells = dictionary.cells
    letter_bits = dictionary.letter_bits
    root = dictionary.root

    # The bits of each face's letters; None if a letter is outside the alphabet.
    face_bits: list[tuple[int, ...] | None] = []
    for face in faces:
        bits = [letter_bits.get(letter) for letter in face]
        face_bits.append(None if None in bits else tuple(bits))  # type: ignore[arg-type]

    # groups[cell]: for each distinct face among its neighbours, (first-letter bit as a
    # mask, mask of the letters below it (for the popcount), later letters' bits,
    # ((neighbour, its bit in the `used` mask, its face), ...)).
    groups: list[list[tuple[int, int, tuple[int, ...], tuple[tuple[int, int, str], ...]]]] = []
    reach: list[int] = []
    for cell in range(len(faces)):
        by_face: dict[str, list[tuple[int, int, str]]] = {}
        for other in table[cell]:
            if face_bits[other] is not None:
                by_face.setdefault(faces[other], []).append((other, 1 << other, faces[other]))
        cell_groups = []
        mask = 0
        for face, targets in by_face.items():
            first, *rest = face_bits[targets[0][0]]  # type: ignore[misc]
            cell_groups.append((1 << first, (1 << first) - 1, tuple(rest), tuple(targets)))
            mask |= 1 << first
        groups.append(cell_groups)
        reach.append(mask)

    found: dict[str, tuple[int, ...]] = {}
    path: list[int] = []

    def visit(cell: int, state: int, head: int, used: int, word: str) -> None:
        # `state` (header `head`) is reached by `word`, whose path ends on `cell`.
        for first, below, rest, targets in groups[cell]:
            if not head & first:
                continue
            child = cells[state + 1 + (head & below).bit_count()]
            if rest:
                child = _follow(cells, child, rest)
                if child is None:
                    continue
            child_head = cells[child]
            for other, bit, face in targets:
                if used & bit:
                    continue
                longer = word + face
                if child_head & _FINAL and len(longer) >= min_length and longer not in found:
                    found[longer] = (*path, cell, other)
                if child_head & reach[other]:
                    path.append(cell)
                    visit(other, child, child_head, used | bit, longer)
                    path.pop()

    try:
        for start, bits in enumerate(face_bits):
            if bits is None:
                continue
            state = _follow(cells, root, bits)
            if state is None:
                continue
            head = cells[state]
            word = faces[start]
            if head & _FINAL and len(word) >= min_length and word not in found:
                found[word] = (start,)
            if head & reach[start]:
                visit(start, state, head, 1 << start, word)
    except IndexError:
        # Only a damaged file points outside its cells.
        raise DictionaryError(f"{getattr(dictionary, 'path', 'dictionary')}: damaged dictionary (run `boggle-dafsa verify`)") from None
    return found


def _follow(cells: Any, state: int, bits: Iterable[int]) -> int | None:
    # Step from `state` by each letter bit in turn (the later letters of a face like QU).
    for bit in bits:
        head = cells[state]
        if not head >> bit & 1:
            return None
        state = cells[state + 1 + (head & ((1 << bit) - 1)).bit_count()]
    return state


# -- tracing one word --------------------------------------------------------------------


def find(grid: Grid, word: str, *, adjacency: str = "king") -> tuple[int, ...] | None:
    """One path tracing ``word`` (already normalized) on ``grid``, or None.

    Checks placement only, not the dictionary. Depth-first with an explicit stack (no
    recursion limit), trying a cell only if its face matches the next letters of ``word``,
    from start cells in increasing order: the first path found is returned.
    """
    if not word:
        return None
    table = neighbours(grid.shape, adjacency)
    faces = grid.faces
    length = len(word)
    # Cells whose face matches `word` at each position, computed once.
    starts = [cell for cell, face in enumerate(faces) if word.startswith(face)]
    for start in starts:
        path = _trace_from(start, word, faces, table, length)
        if path is not None:
            return path
    return None


def _trace_from(
    start: int, word: str, faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], length: int
) -> tuple[int, ...] | None:
    # Each frame: (cell, position in `word` after its face, iterator over candidate next cells).
    used = bytearray(len(faces))
    path = [start]
    used[start] = 1
    position = len(faces[start])
    if position == length:
        return (start,)
    stack: list[tuple[int, Iterator[int]]] = [(position, iter(table[start]))]
    while stack:
        position, candidates = stack[-1]
        for cell in candidates:
            face = faces[cell]
            if not used[cell] and word.startswith(face, position):
                end = position + len(face)
                if end == length:
                    path.append(cell)
                    return tuple(path)
                used[cell] = 1
                path.append(cell)
                stack.append((end, iter(table[cell])))
                break
        else:
            stack.pop()
            used[path.pop()] = 0
    return None


def solve_many(
    grids: Iterable[Grid],
    dictionary: Dictionary,
    *,
    min_length: int | None = None,
    scoring: Scoring = CLASSIC,
    adjacency: str = "king",
) -> Iterator[list[Hit]]:
    """:func:`solve` for each grid in turn (lazily)."""
    for grid in grids:
        yield solve(grid, dictionary, min_length=min_length, scoring=scoring, adjacency=adjacency)


def best(hits: Iterable[Hit], count: int) -> list[Hit]:
    """The ``count`` best hits in :func:`sort_key` order."""
    return heapq.nsmallest(count, hits, key=sort_key)
