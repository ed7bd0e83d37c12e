"""What a command plays by: a dice set's rules, overridden by a score table and a shortest word.

Above :mod:`.dice` and :mod:`.scoring`, which never import it: the one place that combines them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .errors import BoggleError
from .scoring import CLASSIC, Scoring, get_scoring

if TYPE_CHECKING:
    from .dice import DiceSet


class Rules(NamedTuple):
    """What a command plays by: the score table, the shortest word, the dictionary's language."""

    scoring: Scoring
    min_length: int
    language: str | None = None


def resolve_rules(dice: str | DiceSet | None = None, scoring: str | None = None, min_length: int | None = None) -> Rules:
    """The rules of dice set ``dice`` (a name, a dice file, or a set already read; default:
    classic scoring), overridden by ``scoring``
    (a table name) and ``min_length`` when given."""
    dice_set = None
    if dice:
        from .dice import (
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
