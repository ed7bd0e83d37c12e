"""What a command plays by: a dice set's rules, overridden by a score table and a shortest word.

Above :mod:`.dice` and :mod:`.scoring`, which never import it: the one place that combines them,
and the front door of every check of the rules, which the searches, the batches and the
commands call rather than checking again:

* a score table's name: :func:`scoring_of` (through :func:`.scoring.get_scoring`, the
  check itself, which dice files call from below);
* the shortest word: :func:`check_min_length`;
* which cells touch: :func:`check_adjacency` (:func:`.grid.check_adjacency`, which the
  neighbour tables call from below);
* what a board is measured by: :func:`check_objective`.

Messages name the library's parameters in backquotes (`min_length`); the command line
writes its options in their place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boggle_dafsa.board.grid import ADJACENCIES, check_adjacency
from boggle_dafsa.board.scoring import CLASSIC, Scoring, get_scoring
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet

__all__ = [
    "ADJACENCIES",
    "OBJECTIVES",
    "Rules",
    "check_adjacency",
    "check_min_length",
    "check_objective",
    "resolve_rules",
    "scoring_of",
]

#: What a search measures a board by: its points or its number of words.
OBJECTIVES: tuple[str, ...] = ("points", "words")


def scoring_of(scoring: str | None, dice: DiceSet | None = None) -> Scoring:
    """The table named ``scoring``, else the dice set's, else classic (raises
    :class:`~.scoring.UnknownScoringError` for a name no table has)."""
    if scoring:
        return get_scoring(scoring)
    return dice.scoring if dice is not None else CLASSIC


def check_min_length(min_length: int | None, most: int | None = None) -> None:
    """Refuse a shortest word (None: the table's) under 1 letter, or over ``most`` when given."""
    if min_length is None:
        return
    if most is not None and not 1 <= min_length <= most:
        raise BoggleError(f"the shortest word (`min_length`) must be 1 to {most:,} letters, not {min_length}")
    if min_length < 1:
        raise BoggleError(f"the shortest word (`min_length`) must have at least 1 letter, not {min_length}")


def check_objective(objective: str) -> str:
    """``objective`` if it is one of :data:`OBJECTIVES`, else an error naming them."""
    if objective not in OBJECTIVES:
        raise BoggleError(f"unknown objective {objective!r} (known: {', '.join(OBJECTIVES)})")
    return objective


class Rules:
    """What a command plays by: the score table, the shortest word, the dictionary's language.

    A plain class with slots, not a NamedTuple: cheaper to create at import (start-up time).
    """

    __slots__ = ("scoring", "min_length", "language")

    def __init__(self, scoring: Scoring, min_length: int, language: str | None = None) -> None:
        self.scoring = scoring
        self.min_length = min_length
        #: The embedded dictionary that suits the dice set ("fr", "en"), if any.
        self.language = language

    def __repr__(self) -> str:
        return f"Rules(scoring={self.scoring.name!r}, min_length={self.min_length!r}, language={self.language!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rules):
            return NotImplemented
        return (self.scoring, self.min_length, self.language) == (other.scoring, other.min_length, other.language)

    def __hash__(self) -> int:
        return hash((self.scoring, self.min_length, self.language))


def resolve_rules(dice: str | DiceSet | None = None, scoring: str | None = None, min_length: int | None = None) -> Rules:
    """The rules of dice set ``dice`` (a name, a dice file, or a set already read; default:
    classic scoring), overridden by ``scoring``
    (a table name) and ``min_length`` when given."""
    dice_set = None
    if dice:
        from boggle_dafsa.board.dice import (
            load_dice,  # only commands given a dice set pay for importing it
        )

        dice_set = load_dice(dice)
    table = scoring_of(scoring, dice_set)
    check_min_length(min_length)
    return Rules(
        scoring=table,
        min_length=table.min_length if min_length is None else min_length,
        language=dice_set.language if dice_set else None,
    )
