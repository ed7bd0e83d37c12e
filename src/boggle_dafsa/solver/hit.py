"""A word found on a grid (:class:`Hit`) and the order results are given in.

Apart from :mod:`boggle_dafsa.solver` so that its kernels and prepared solvers can build
hits without importing the package that imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from boggle_dafsa.board.grid import Grid


class Hit(tuple[str, int, tuple[int, ...]]):
    """A word found on a grid: its points and one path (cell numbers, see :meth:`Grid.coordinates`).

    The tuple ``(word, points, path)``: immutable, unpacks, and three times cheaper to create
    than a frozen dataclass, which shows on boards of a thousand words (the compiled
    kernel fills it in place, as a plain tuple). Written out by hand rather than as a
    NamedTuple, whose class costs a few hundred microseconds to create at start-up.
    """

    __slots__ = ()

    def __new__(cls, word: str, points: int, path: tuple[int, ...]) -> Hit:
        return super().__new__(cls, (word, points, path))

    def __getnewargs__(self) -> tuple[str, int, tuple[int, ...]]:  # pickling calls __new__ with these
        return (self[0], self[1], self[2])

    def __repr__(self) -> str:
        return f"Hit(word={self[0]!r}, points={self[1]!r}, path={self[2]!r})"

    @property
    def word(self) -> str:
        """The word, as the dictionary spells it."""
        return self[0]

    @property
    def points(self) -> int:
        """Its points under the scoring asked for (``"points"`` in every JSON object)."""
        return self[1]

    @property
    def path(self) -> tuple[int, ...]:
        """The cells it runs through, in order (the first path found)."""
        return self[2]

    def coordinates(self, grid: Grid) -> tuple[tuple[int, ...], ...]:
        """The path as coordinates: (row, col) pairs in 2-D, n-tuples in n-D."""
        return tuple(grid.coordinates(cell) for cell in self.path)


def sort_key(hit: Hit) -> tuple[int, int, str]:
    """The order of results: score descending, then length descending, then alphabetical."""
    return (-hit.points, -len(hit.word), hit.word)
