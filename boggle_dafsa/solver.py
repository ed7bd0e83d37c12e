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

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import DictionaryError
from .grid import Grid, neighbours
from .scoring import CLASSIC, Scoring

if TYPE_CHECKING:
    from .dictionary import Dictionary

#: The final flag of a one-cell state header in the native format (automaton.reader.FINAL_FLAG).
_FINAL = 1 << 31
#: Deepest path the recursive kernel walks (Python's default limit is 1,000 frames).
_MAX_RECURSION = 400


class Hit(NamedTuple):
    """A word found on a grid: its score and one path (cell numbers, see :meth:`Grid.coordinates`).

    A named tuple rather than a frozen dataclass: as immutable, and three times cheaper
    to create, which shows on boards of a thousand words.
    """

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
    if _has_native_cells(dictionary) and _fits_recursion(dictionary, len(grid.faces)):
        found = _search_native(grid.faces, table, dictionary, min_length)
    else:
        found = _search_generic(grid.faces, table, dictionary, min_length)
    return _ranked_hits(found, scoring)


def _ranked_hits(found: dict[str, tuple[int, ...]], scoring: Scoring) -> list[Hit]:
    # Sorted by (score desc, length desc, word asc), cheaply: C-level sorts of the words
    # do it when the score never drops as words grow (every table here); a general
    # sort otherwise. Points depend on the length only: one table lookup per length.
    words = sorted(found)
    words.sort(key=len, reverse=True)  # stable: alphabetical within a length
    if not words:
        return []
    points = [scoring.score("?" * length) for length in range(len(words[0]) + 1)]
    if any(shorter > longer for shorter, longer in zip(points, points[1:])):
        words.sort(key=lambda word: -points[len(word)])  # stable again
    return [Hit(word, points[len(word)], found[word]) for word in words]


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


def _fits_recursion(dictionary: Any, cells: int) -> bool:
    # The native kernel recurses once per face of a path: its depth is bounded by the
    # grid's size and the longest word. Beyond a few hundred, the explicit stack of the
    # generic kernel is used instead of raising Python's recursion limit.
    header = getattr(dictionary, "header", None)
    longest = getattr(header, "longest_word", cells)
    return min(cells, longest) <= _MAX_RECURSION


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
        stack: list[tuple[int, Any, str, tuple[int, ...]]] = [(start, state, face, (start,))]
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

    Each face is translated once per grid into the bits of its letters. A state's header
    tells which letters can follow, so a neighbour costs one AND when its first letter
    cannot; ``reach[cell]`` holds the first-letter bits of the cell's neighbours, so a
    state that shares none with it is not even visited.
    """
    cells = dictionary.cells
    letter_bits = dictionary.letter_bits

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
                if child_head & _FINAL and len(longer) >= min_length and longer not in found:
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
                    if child_head & _FINAL and len(longer) >= min_length and longer not in found:
                        found[longer] = (*trail[: depth + 1], other)
                    if child_head & reach[other]:
                        visit(other, child, child_head, used | bit, longer, depth + 1)

    try:
        for start, entry in enumerate(onto):
            if entry is None:
                continue
            face = entry[-1]
            state = _follow(cells, dictionary.root, (entry[2].bit_length() - 1, *(entry[3] if len(entry) == 5 else ())))
            if state is None:
                continue
            head = cells[state]
            if head & _FINAL and len(face) >= min_length and face not in found:
                found[face] = (start,)
            if head & reach[start]:
                visit(start, state, head, 1 << start, face, 0)
    except IndexError:
        # Only a damaged file points outside its cells.
        where = getattr(dictionary, "path", "dictionary")
        raise DictionaryError(f"{where}: damaged dictionary (run `boggle-dafsa verify`)") from None
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

    Checks placement only, not the dictionary. Two counts come first and refuse most
    absent words without a search: a path uses each cell once, so the word may not need
    more of a letter than the faces hold; and two letters that follow each other in the
    word must follow each other on a face or on two adjacent faces. Then depth-first
    with an explicit stack (no recursion limit), trying a cell only if its face matches
    the next letters of ``word``, from the end of the word that fewer cells match: the
    last letters when they are rarer than the first (adjacency is symmetric, so the
    reversed word is traced on the faces reversed and the path turned back). Start cells
    are tried in increasing order and the first path found is returned.

    The worst case is exponential in the length of the word: deciding whether a word can
    be traced contains the Hamiltonian-path problem. It shows when a long word nearly
    fits a grid of repeated letters, the counts agree and both ends are common: on a 5x5
    grid of A with a B in two opposite corners, ``A*11 + "BAB" + A*11`` (the two Bs
    share no neighbour) takes some 40 seconds, while ``A*23 + "BB"`` is refused at once.
    """
    if not word or not _enough_letters(grid.faces, word):
        return None
    table = neighbours(grid.shape, adjacency)
    faces = grid.faces
    if not _pairs_present(faces, table, word):
        return None
    starts = [cell for cell, face in enumerate(faces) if word.startswith(face)]
    ends = [cell for cell, face in enumerate(faces) if word.endswith(face)]
    if len(ends) < len(starts):
        reversed_faces = tuple(face[::-1] for face in faces)
        for start in ends:
            path = _trace_from(start, word[::-1], reversed_faces, table, len(word))
            if path is not None:
                return path[::-1]
        return None
    for start in starts:
        path = _trace_from(start, word, faces, table, len(word))
        if path is not None:
            return path
    return None


def _enough_letters(faces: tuple[str, ...], word: str) -> bool:
    # The faces of a path are distinct cells: the word's letters, counted, must be among
    # those of all the faces (true of multi-letter faces too, letter by letter).
    if len(word) > sum(map(len, faces)):
        return False
    available = Counter("".join(faces))
    return all(available[letter] >= count for letter, count in Counter(word).items())


def _pairs_present(faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], word: str) -> bool:
    # Two letters that follow each other in the word are on one face or on two adjacent
    # faces (the last letter of one, the first of the next): each such pair must exist.
    pairs = {face[i : i + 2] for face in faces for i in range(len(face) - 1)}
    pairs.update(faces[cell][-1] + faces[other][0] for cell in range(len(faces)) for other in table[cell])
    return all(word[i : i + 2] in pairs for i in range(len(word) - 1))


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
