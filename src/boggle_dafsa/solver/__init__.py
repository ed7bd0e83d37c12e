"""Finding every dictionary word that can be traced on a grid, and tracing one word.

:func:`solve` walks the grid depth-first while stepping the dictionary's automaton one
face at a time, and abandons a path as soon as no word starts with it: a prefix is
never looked up again from the root. Kernels do the walk and give the same words
(:mod:`.kernels` chooses; ``kernel="auto"`` takes the fastest that applies):

* "c" and "python" read a native file's cells themselves (:mod:`.python`, a bit test
  and a popcount per letter); "c" is compiled, "python" its twin;
* "generic" goes through the cursor interface (``step``/``is_word``), for every other
  dictionary (marisa, dawg, stand-ins in tests) and for alphabets over 31 letters.

:func:`find` (:mod:`.trace`) traces one word without a dictionary, with an explicit
stack, so that a 5,000-letter word on a 100x100 grid is no matter for Python's
recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.board.scoring import CLASSIC, Scoring
from boggle_dafsa.solver.hit import Hit, sort_key
from boggle_dafsa.solver.kernels import available_kernels, kernel_status, select
from boggle_dafsa.solver.prepared import PreparedSolver, kept_solver, prepared_solver, time_limit
from boggle_dafsa.solver.trace import find

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

__all__ = [
    "Hit",
    "PreparedSolver",
    "available_kernels",
    "find",
    "kernel_status",
    "prepared_solver",
    "score_only",
    "solve",
    "sort_key",
    "time_limit",
    "totals",
]


def solve(
    grid: Grid,
    dictionary: Dictionary[Any],
    *,
    min_length: int | None = None,
    scoring: Scoring = CLASSIC,
    adjacency: str = "king",
    kernel: str = "auto",
) -> list[Hit]:
    """Every word of ``dictionary`` that can be traced on ``grid``, best first.

    A word is traced through adjacent cells (``adjacency``: "king" or "orthogonal"),
    each used once, and has at least ``min_length`` letters (default: the scoring's
    minimum; a QU face is two letters). Each word comes once, with the path that is
    smallest cell by cell when the faces are single letters. Sorted by :func:`sort_key`.
    ``kernel`` names the kernel (see :func:`available_kernels`); every kernel gives the
    same hits.
    """
    prepared = _prepared(grid, dictionary, min_length, scoring, adjacency, kernel)
    if prepared is not None:
        return prepared.solve(grid)
    chosen = select(dictionary, kernel, cells=len(grid.faces))
    if min_length is None:
        min_length = scoring.min_length
    table = neighbours(grid.shape, adjacency)
    try:
        found = chosen.search(dictionary, grid.faces, table, min_length)
    except RecursionError:
        # The recursive kernel is chosen only when the header's longest word keeps it
        # shallow: deeper, the file has a cycle its header does not admit.
        from boggle_dafsa.errors import DictionaryError

        where = getattr(dictionary, "path", "dictionary")
        raise DictionaryError(f"{where}: damaged dictionary (paths longer than its longest word)") from None
    return _ranked_hits(found, scoring)


def score_only(
    grid: Grid,
    dictionary: Dictionary[Any],
    *,
    min_length: int | None = None,
    scoring: Scoring = CLASSIC,
    adjacency: str = "king",
    kernel: str = "auto",
) -> tuple[int, int]:
    """(number of words, total points) of ``grid``: ``totals(solve(...))`` without building the hits."""
    prepared = _prepared(grid, dictionary, min_length, scoring, adjacency, kernel)
    if prepared is not None:
        return prepared.totals(grid)
    return totals(solve(grid, dictionary, min_length=min_length, scoring=scoring, adjacency=adjacency, kernel=kernel))


def _prepared(
    grid: Grid, dictionary: Dictionary[Any], min_length: int | None, scoring: Scoring, adjacency: str, kernel: str
) -> PreparedSolver | None:
    # Over the native layout: a solver prepared once per shape and rules (kept while the
    # dictionary lives), which (compiled) also ranks the words and builds the hits in C.
    # None when the kernel that applies has no prepared solver (the generic one).
    prepared = kept_solver(dictionary, grid.shape, adjacency, min_length, scoring, kernel)
    if prepared is not None:
        return prepared
    if getattr(select(dictionary, kernel, cells=len(grid.faces)), "solver_class", None) is None:
        return None
    return prepared_solver(dictionary, grid.shape, adjacency=adjacency, min_length=min_length, scoring=scoring, kernel=kernel)


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
        points += hit.points
    return count, points
