"""What a command plays by: a dice set's rules, overridden by a score table and a shortest word.

Above :mod:`.dice` and :mod:`.scoring`, which never import it: the one place that combines them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boggle_dafsa.board.scoring import CLASSIC, Scoring, get_scoring
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet


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
    table = dice_set.scoring if dice_set else CLASSIC
    if scoring:
        try:
            table = get_scoring(scoring)
        except KeyError as error:
            raise BoggleError(str(error.args[0])) from None
    if min_length is not None and min_length < 1:
        raise BoggleError(f"the shortest word (`min_length`) must have at least 1 letter, not {min_length}")
    return Rules(
        scoring=table,
        min_length=table.min_length if min_length is None else min_length,
        language=dice_set.language if dice_set else None,
    )
