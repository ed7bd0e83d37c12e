"""Score tables: points for a word by its number of letters (a QU face counts as two letters).

:data:`SCORINGS` is the one list of them: ``--scoring``'s help, the web's choices and the
"unknown scoring" error (:func:`get_scoring`, the one check of a table's name, which
``board.rules`` and the dice files call) derive from it; docs/solve.md's table is checked
against it (``tests/test_rules.py``). A new table is one :class:`Scoring` in it.
"""

from __future__ import annotations

from boggle_dafsa.errors import BoggleError


class Scoring(tuple[str, int, tuple[int, ...], str]):
    """A score table: ``points[n]`` for a word of ``n`` letters, the last entry for longer words.

    An immutable, hashable tuple ``(name, min_length, points, description)`` written out by
    hand rather than a NamedTuple: creating a NamedTuple class costs a few hundred
    microseconds at import, and this one is on every command's start-up path.
    """

    __slots__ = ()

    def __new__(cls, name: str, min_length: int, points: tuple[int, ...], description: str) -> Scoring:
        return super().__new__(cls, (name, min_length, points, description))

    def __getnewargs__(self) -> tuple[str, int, tuple[int, ...], str]:  # pickling calls __new__ with these
        return (self[0], self[1], self[2], self[3])

    def __repr__(self) -> str:
        return f"Scoring(name={self[0]!r}, min_length={self[1]!r}, points={self[2]!r}, description={self[3]!r})"

    @property
    def name(self) -> str:
        """The table's name (``--scoring NAME``)."""
        return self[0]

    @property
    def min_length(self) -> int:
        """The shortest word that scores."""
        return self[1]

    @property
    def points(self) -> tuple[int, ...]:
        """Points by length, from length 0; words longer than the table get its last entry."""
        return self[2]

    @property
    def description(self) -> str:
        """One line for ``--help`` and listings."""
        return self[3]

    def score(self, word: str) -> int:
        """Points of ``word`` (0 if shorter than :attr:`min_length`)."""
        length = len(word)
        if length < self.min_length:
            return 0
        return self.points[min(length, len(self.points) - 1)]


#: The official (international) 4x4 table: 3-4 letters 1, 5: 2, 6: 3, 7: 5, 8 and more: 11.
CLASSIC = Scoring("classic", 3, (0, 0, 0, 1, 1, 2, 3, 5, 11), "official 4x4: 3-4 letters 1, 5: 2, 6: 3, 7: 5, 8+: 11")
#: Big Boggle (5x5): words of 4 letters at least, same points otherwise.
BIG = Scoring("big", 4, (0, 0, 0, 0, 1, 2, 3, 5, 11), "Big Boggle 5x5: minimum 4 letters, 4: 1, 5: 2, 6: 3, 7: 5, 8+: 11")
#: One point a letter, for puzzles and teaching.
LETTERS = Scoring("letters", 3, tuple(range(0, 64)), "one point a letter (words of 3 letters or more)")

SCORINGS: dict[str, Scoring] = {s.name: s for s in (CLASSIC, BIG, LETTERS)}


class UnknownScoringError(BoggleError):
    """A score table's name that :data:`SCORINGS` does not have."""


def get_scoring(name: str) -> Scoring:
    """The table called ``name`` (raises :class:`UnknownScoringError` listing the known names)."""
    try:
        return SCORINGS[name]
    except KeyError:
        raise UnknownScoringError(f"unknown scoring {name!r} (known: {', '.join(SCORINGS)})") from None
