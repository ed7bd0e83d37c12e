"""The arena: everybody plays the same board at the same time, a new one every N minutes.

Time is cut into slots of ``seconds`` seconds from the Unix epoch (UTC): slot ``k`` runs
from ``k * seconds`` to ``(k + 1) * seconds`` (180 by default: three minutes). Each slot has
one board, the same on every server with the same dice set and slot length: the first grid
rolled from the dice set with the seed :func:`arena_seed`, the first 6 bytes (big-endian)
of ``SHA-256("boggle-dafsa arena DICE SECONDS K")``, as the daily puzzle's seed is made
(:mod:`.daily`). A player joins any time during the slot and plays until it ends.

At the end of a slot its players are ranked by score (:func:`standings`): equal scores
share a rank (1, 2, 2, 4: one more than the number of players who scored more), and a
player's **percentile** is the share of the *other* players who scored less, in percent
(the best alone: 100; the last alone: 0; a lone player: 100). The rolling boards
(:func:`board`) add up each player's games of the ended slots in a window (today: the UTC
day; the week: the 7 UTC days ending today) and rank the totals the same way.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from boggle_dafsa.board.dice import SplitMix64, roll_grid
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.board.grid import Grid

#: Slot lengths a server may choose, in seconds: a blitz of 15 seconds to an hour.
MIN_SECONDS, MAX_SECONDS = 15, 3600
#: The default slot: three minutes, the length of a game of Boggle.
DEFAULT_SECONDS = 180
#: Days of the rolling week board (today included).
WEEK_DAYS = 7


def check_seconds(seconds: int) -> int:
    """``seconds`` if it is a slot length the arena takes (whole seconds), else :class:`BoggleError`."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise BoggleError(f"an arena slot lasts {MIN_SECONDS} to {MAX_SECONDS} whole seconds, not {seconds}")
    return seconds


def arena_seed(dice: str, seconds: int, index: int) -> int:
    """The seed of slot ``index`` of ``seconds``-second slots with the dice set named ``dice`` (48 bits)."""
    digest = hashlib.sha256(f"boggle-dafsa arena {dice} {seconds} {index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


@dataclass(frozen=True)
class Slot:
    """One board of the arena: the dice set, the slot length, the slot's number since the epoch."""

    dice: str
    #: The slot's length.
    seconds: int
    index: int

    @classmethod
    def at(cls, dice: str, seconds: int, now: float) -> Slot:
        """The slot under way at Unix time ``now``."""
        return cls(dice, check_seconds(seconds), int(now // seconds))

    @property
    def starts(self) -> float:
        """Unix time the slot starts."""
        return float(self.index * self.seconds)

    @property
    def ends(self) -> float:
        """Unix time the slot ends (the next one starts)."""
        return float((self.index + 1) * self.seconds)

    @property
    def seed(self) -> int:
        """The seed its board is rolled with."""
        return arena_seed(self.dice, self.seconds, self.index)

    def grid(self, dice_set: DiceSet) -> Grid:
        """The slot's board: the first grid ``dice_set`` rolls with :attr:`seed`."""
        return roll_grid(dice_set, SplitMix64(self.seed))

    def shifted(self, slots: int) -> Slot:
        """The slot ``slots`` later (earlier if negative)."""
        return Slot(self.dice, self.seconds, self.index + slots)


@dataclass(frozen=True)
class Standing:
    """A player's place in a slot's results or on a board."""

    player: str
    score: int
    #: Words found (on a board: in all the games added up).
    words: int
    #: 1 + how many players scored more.
    rank: int
    #: The share of the other players who scored less, in percent, one decimal (100 alone).
    percentile: float
    #: Games added up (1 in a slot's results).
    games: int = 1
    #: The best game's score (a slot's results: the score).
    best: int = 0


def ranked(rows: Iterable[tuple[str, int, int, int, int]]) -> list[Standing]:
    """``rows`` (player, score, words, games, best) ranked by score: best first, ties by name."""
    # Sorted by score: one pass gives each score's rank (its first position) and how many scored less.
    ordered = sorted(rows, key=lambda row: (-row[1], row[0]))
    count = len(ordered)
    result: list[Standing] = []
    start = 0
    while start < count:
        end = start
        while end < count and ordered[end][1] == ordered[start][1]:
            end += 1
        lower = count - end
        percentile = 100.0 if count == 1 else round(100 * lower / (count - 1), 1)
        for player, score, words, games, best in ordered[start:end]:
            result.append(Standing(player, score, words, start + 1, percentile, games, best))
        start = end
    return result


def standings(results: Iterable[tuple[str, int, int]]) -> list[Standing]:
    """A slot's ``results`` (player, score, words found) ranked: best first, ties by name."""
    return ranked((player, score, words, 1, score) for player, score, words in results)


def totals(games: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int, int, int]]:
    """``games`` (player, score, words found: one a game) added up by player: (player, total
    score, words, games, best score), what the store's ``arena_totals`` answers."""
    added: dict[str, list[int]] = {}
    for player, score, words in games:
        entry = added.setdefault(player, [0, 0, 0, 0])
        entry[0] += score
        entry[1] += words
        entry[2] += 1
        entry[3] = max(entry[3], score)
    return [(player, *entry) for player, entry in added.items()]  # type: ignore[misc]


def board(games: Iterable[tuple[str, int, int]]) -> list[Standing]:
    """The rolling board of ``games`` (player, score, words found: one a game): each
    player's total score, words and games, and their best game, ranked by total."""
    return ranked(totals(games))


def windows(now: float) -> dict[str, tuple[float, float]]:
    """The rolling boards' windows at Unix time ``now``, as (from, to) Unix times of slot
    starts: ``today`` the UTC day so far, ``week`` the :data:`WEEK_DAYS` UTC days ending today."""
    day = dt.datetime.fromtimestamp(now, dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    week = day - dt.timedelta(days=WEEK_DAYS - 1)
    return {"today": (day.timestamp(), now), "week": (week.timestamp(), now)}
