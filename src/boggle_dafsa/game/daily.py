"""The daily puzzle: one grid a day per dice set, the same for everybody, and a result to share.

The grid of a day is the first one ``generate`` rolls (:func:`~boggle_dafsa.board.dice.roll_grid`)
from the dice set with the seed :func:`daily_seed`: the first 6 bytes, big-endian, of
``SHA-256("boggle-dafsa daily YYYY-MM-DD DICE")`` (48 bits: a JavaScript number holds
it exactly), where the date is the UTC date and
DICE the set's name. Anybody can recompute it: ``boggle-dafsa play --daily --dice fr``,
``/daily?dice=fr`` and ``GET /api/daily?dice=fr`` give the same grid on the same UTC day.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from collections.abc import Iterable

from boggle_dafsa.errors import BoggleError

#: Length of a daily game, in seconds: the same for everybody, so that results compare.
DAILY_SECONDS = 180
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def today() -> dt.date:
    """Today's date in UTC: the day of the puzzle, wherever the player is."""
    return dt.datetime.now(dt.timezone.utc).date()


def parse_day(text: str | None) -> dt.date:
    """``YYYY-MM-DD`` as a date (None: today, UTC); a later day than today is refused."""
    if text is None:
        return today()
    if not _DAY.fullmatch(text):
        raise BoggleError(f"a day is written YYYY-MM-DD, not {text[:32]!r}")
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise BoggleError(f"no such day: {text}") from None
    if day > today():
        raise BoggleError(f"{text} has no puzzle yet (today is {today().isoformat()} UTC)")
    return day


def daily_seed(day: dt.date, dice: str) -> int:
    """The seed of the puzzle of ``day`` with the dice set named ``dice`` (48 bits)."""
    digest = hashlib.sha256(f"boggle-dafsa daily {day.isoformat()} {dice}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def share_text(day: dt.date, dice: str, score: int, found: Iterable[str], total_words: int, total_points: int) -> str:
    """A finished daily game as text to paste anywhere: the score and how many words of
    each length, never a word (no spoilers for those who have not played yet)."""
    found = list(found)
    lengths = Counter(len(word) for word in found)
    bars = "  ".join(f"{length}:{'●' * count if count <= 10 else f'●×{count}'}" for length, count in sorted(lengths.items()))
    lines = [
        f"boggle-dafsa daily {day.isoformat()} ({dice})",
        f"{score} of {total_points} points, {len(found)} of {total_words} words",
    ]
    if bars:
        lines.append(f"letters {bars}")
    return "\n".join(lines)


def streaks(days: Iterable[dt.date], today: dt.date) -> tuple[int, int]:
    """(the current streak, the best run) of the days played: the current one counts the days
    in a row up to ``today``, or up to yesterday while today is still to play; the best, the
    longest run of days in a row (the Daily page counts the days it keeps the same way)."""
    played = set(days)
    one = dt.timedelta(days=1)
    current = 0
    day = today if today in played else today - one
    while day in played:
        current += 1
        day -= one
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(played):
        run = run + 1 if previous is not None and day - previous == one else 1
        best = max(best, run)
        previous = day
    return current, best
