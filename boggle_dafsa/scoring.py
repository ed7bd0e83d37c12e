"""Score tables: points for a word by its number of letters (a QU face counts as two letters)."""

from __future__ import annotations

from typing import NamedTuple


class Scoring(NamedTuple):
    """A score table: ``points[n]`` for a word of ``n`` letters, the last entry for longer words."""

    name: str
    min_length: int
    #: points by length, from length 0; words longer than the table get its last entry.
    points: tuple[int, ...]
    description: str

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


def get_scoring(name: str) -> Scoring:
    """The table called ``name`` (raises KeyError listing the known names)."""
    try:
        return SCORINGS[name]
    except KeyError:
        raise KeyError(f"unknown scoring {name!r} (known: {', '.join(SCORINGS)})") from None
