"""After a game: the missed words grouped for study, the board's best words, the list to study.

As Lexica and scheibo/boggle show a finished board: the missed words **by length** (longest
first), **by starting cell** (the cell their path starts on), and the **anagrams of words
found** that were missed (TALUS found, SALUT missed); the board's best words (found or not);
and the missed words as a list to study, longest first (``play --missed FILE`` writes it for
``quiz --list FILE``; the web links it to the Study page or offers it as a text file).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from boggle_dafsa.solver import sort_key

if TYPE_CHECKING:
    from boggle_dafsa.game.rounds import Report
    from boggle_dafsa.solver import Hit

#: The board's best words a review lists.
BEST = 10


def alphagram(word: str) -> str:
    """The letters of ``word`` sorted: anagrams share it."""
    return "".join(sorted(word))


@dataclass(frozen=True)
class Review:
    """A finished game, arranged for study (every list of words in ``solve`` order within its group)."""

    #: (length, missed words of that length), longest first.
    by_length: list[tuple[int, list[str]]]
    #: (cell number, missed words whose path starts there), cells in grid order.
    by_cell: list[tuple[int, list[str]]]
    #: (a word found, the missed anagrams of it), in the order of the words found.
    anagrams: list[tuple[str, list[str]]]
    #: The board's best words (found or not), best first.
    best: list[Hit]
    #: The words found (to mark the best ones).
    found: frozenset[str]
    #: The missed words, longest first then alphabetically: the list to study.
    study: list[str]


def _grouped(pairs: Iterable[tuple[int, str]]) -> dict[int, list[str]]:
    groups: dict[int, list[str]] = {}
    for key, word in pairs:
        groups.setdefault(key, []).append(word)
    return groups


def review(report: Report, best: int = BEST) -> Review:
    """``report``'s game arranged for study: see :class:`Review`."""
    missed = report.missed
    lengths = _grouped((len(hit.word), hit.word) for hit in missed)
    cells = _grouped((hit.path[0], hit.word) for hit in missed if hit.path)
    missed_by_alphagram: dict[str, list[str]] = {}
    for hit in missed:
        missed_by_alphagram.setdefault(alphagram(hit.word), []).append(hit.word)
    anagrams = [
        (hit.word, missed_by_alphagram[alphagram(hit.word)]) for hit in report.found if alphagram(hit.word) in missed_by_alphagram
    ]

    everything = sorted([*report.found, *missed], key=sort_key)
    return Review(
        by_length=sorted(lengths.items(), key=lambda item: -item[0]),
        by_cell=sorted(cells.items()),
        anagrams=anagrams,
        best=everything[:best],
        found=frozenset(hit.word for hit in report.found),
        study=sorted((hit.word for hit in missed), key=lambda word: (-len(word), word)),
    )
