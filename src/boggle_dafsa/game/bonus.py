"""Bonus words: a game on a common list, beside a full list whose other words count apart.

As on Squaredle, a game may name two lists: the **common** one (the game's dictionary, whose
words score) and a **full** one. A word of the grid that the full list holds and the common
one lacks is a *bonus word*: accepted when typed, listed apart, counted, worth no points.
A word the common list holds is an ordinary word whether the full list has it or not.

The embedded pair is ``en`` (common) and ``enable2k`` (full): ``en`` keeps only the words
ENABLE2K agrees with (``data/README.md``), so ``boggle-dafsa diff en enable2k -o x`` holds
A and I alone and the bonus words of an English game are ``diff enable2k en`` (110,727
words). Other pairs are made by set algebra from the embedded lists and one's own
(``docs/game.md``, "Bonus words"), e.g. ``union fr enable2k`` as the full list of a French
game whose English words are bonus words.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.solver import Hit

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: The full list that goes with an embedded common list, where the package has one: the
#: default of the web's English games (``serve``'s daily puzzle, Play and rooms offer it).
FULL_LISTS = {"en": "enable2k"}


def bonus_hits(full: Iterable[Hit], common: Dictionary, blocked: Collection[str] = frozenset()) -> list[Hit]:
    """The bonus words among ``full`` (a grid's words in the full list): those ``common``
    lacks, ``blocked`` ones left out, each worth 0 points (counted, never scored), in
    ``full``'s order."""
    return [Hit(hit.word, 0, hit.path) for hit in full if hit.word not in blocked and hit.word not in common]


def check_bonus_policy(common: Dictionary, full: Dictionary) -> None:
    """Raise :class:`BoggleError` unless ``full`` normalizes words as ``common`` does: a
    folded ELEVE and an exact élève are not the same word, so the lists could not be compared."""
    if full.policy is not common.policy:
        raise BoggleError(
            f"the bonus list normalizes words by the policy {full.policy.value!r}, the game's list by"
            f" {common.policy.value!r}: give lists of the same policy"
        )
