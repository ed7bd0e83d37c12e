"""Tracing one word on a grid, without a dictionary: :func:`find`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.words.normalize import Policy, fold, normalize


def find(grid: Grid, word: str, *, adjacency: str = "king", policy: Policy | None = None) -> tuple[int, ...] | None:
    """One path tracing ``word`` on ``grid``, or None.

    ``word`` is normalized as the grid's faces are: by ``policy`` (a dictionary's), else
    folded (``"unité"`` is ``"UNITE"``) when every face is, as grids parsed with the
    default normalization are, else only composed (NFC). None if it is not letters.

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
    if policy is None:
        policy = Policy.FOLD if all(fold(face) == face for face in grid.faces) else Policy.EXACT
    key = normalize(word, policy) if word else None
    if key is None or not _enough_letters(grid.faces, key):
        return None
    word = key
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
