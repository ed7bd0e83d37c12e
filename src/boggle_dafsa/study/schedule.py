"""Zyzzyva's cardbox schedule: which box a card goes to after an answer, and the day it
is due again. Pure: the day of the answer is given, nothing is read or written.

The rule is Zyzzyva's (``QuizDatabase::recordResponse`` and ``calculateNextScheduled``):

- a card enters the cardbox in box 0, due at once;
- a right answer moves it up one box (a new card answered right goes to box 1), a wrong
  one back to box 0;
- a card in box ``n`` is due ``DAYS[n]`` days after the answer (1, 4, 7, 12, 20, 30, 60,
  90, 150, 270, 480 days for boxes 0 to 10; Zyzzyva's default), give or take up to
  ``WINDOWS[n]`` days (0, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50), so that cards added together
  do not all come back on one day. Past box 10 Zyzzyva keeps counting boxes on the last
  delay; here a card stays in box 10.

Zyzzyva draws the spread at random and counts in seconds; here it is drawn from the
question and the day of the answer (a hash), so the same answers give the same dates, and
days are calendar days.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import date, timedelta

#: Days until a card of box 0, 1, ... 10 is due again: Zyzzyva's default schedule.
DAYS: tuple[int, ...] = (1, 4, 7, 12, 20, 30, 60, 90, 150, 270, 480)
#: Days a card's due date may move either way, per box: Zyzzyva's default windows.
WINDOWS: tuple[int, ...] = (0, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50)
#: The highest box.
TOP_BOX = len(DAYS) - 1


@dataclass(frozen=True)
class Card:
    """One question of the cardbox: its box, the day it is due, and how it was answered."""

    question: str
    box: int = 0
    due: date = date.min
    right: int = 0
    wrong: int = 0
    #: Right answers in a row (positive) or wrong ones (negative), as Zyzzyva counts.
    streak: int = 0
    #: FSRS's memory of the card (:mod:`.fsrs`): stability in days, difficulty (1 to 10),
    #: and the day of the answer they follow; None for a card the cardbox schedules.
    stability: float | None = None
    difficulty: float | None = None
    reviewed: date | None = None

    @property
    def new(self) -> bool:
        """Never answered yet."""
        return not (self.right or self.wrong)


@dataclass(frozen=True)
class Schedule:
    """Delays per box (``days``) and how far a due date may move (``windows``; None: not at all)."""

    days: tuple[int, ...] = DAYS
    windows: tuple[int, ...] | None = WINDOWS

    def next_box(self, box: int, right: bool) -> int:
        """The box a card of ``box`` goes to after a right or wrong answer."""
        return min(box + 1, len(self.days) - 1) if right else 0

    def due(self, box: int, answered: date, question: str = "") -> date:
        """The day a card put in ``box`` on ``answered`` is due again: ``days[box]`` days
        later, moved by up to ``windows[box]`` days either way (from ``question`` and the day)."""
        box = max(0, min(box, len(self.days) - 1))
        delay = self.days[box]
        if self.windows:
            window = self.windows[min(box, len(self.windows) - 1)]
            if window:
                seed = hashlib.blake2b(f"{question}\n{answered.isoformat()}".encode(), digest_size=8).digest()
                delay += int.from_bytes(seed, "big") % (2 * window + 1) - window
        return answered + timedelta(days=max(delay, 1))

    def answer(self, card: Card, right: bool, today: date) -> Card:
        """``card`` after a right or wrong answer on ``today``."""
        box = self.next_box(card.box if not card.new else 0, right)
        if right:
            streak = card.streak + 1 if card.streak > 0 else 1
        else:
            streak = card.streak - 1 if card.streak < 0 else -1
        return replace(
            card,
            box=box,
            due=self.due(box, today, card.question),
            right=card.right + right,
            wrong=card.wrong + (not right),
            streak=streak,
        )


def new_card(question: str, today: date) -> Card:
    """A card entering the cardbox on ``today``: box 0, due at once."""
    return Card(question, 0, today)
