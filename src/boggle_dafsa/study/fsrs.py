"""FSRS-5 scheduling, beside Zyzzyva's cardbox: the same ``answer(card, right, today)``.

The Free Spaced Repetition Scheduler (Jarrett Ye, open-spaced-repetition) models a card's
memory by its **stability** S (the days until the chance of recall falls to 90 %) and its
**difficulty** D (1 to 10), and schedules the next review for when the predicted recall
falls to the desired retention. The formulas are FSRS-5's as py-fsrs documents them
(``ALGORITHM.md``), with its 19 default parameters:

- forgetting curve: ``R(t, S) = (1 + FACTOR·t/S)^DECAY``, ``DECAY = -0.5``,
  ``FACTOR = 0.9^(1/DECAY) - 1 = 19/81``; interval ``I(r, S) = S/FACTOR·(r^(1/DECAY) - 1)``
  (``I(0.9, S) = S``);
- a new card: ``S₀(G) = w[G-1]``, ``D₀(G) = w₄ - e^(w₅·(G-1)) + 1``;
- difficulty after a rating G: ``D' = w₇·D₀(4) + (1 - w₇)·(D - w₆·(G - 3))`` (mean
  reversion toward D₀(Easy)), kept within [1, 10];
- stability after a recall (G ≥ 2) ``t`` days after the last review:
  ``S·(1 + e^w₈·(11 - D)·S^-w₉·(e^(w₁₀·(1 - R)) - 1)·w₁₅ (Hard)·w₁₆ (Easy))``; after a
  lapse (G = 1): ``w₁₁·D^-w₁₂·((S + 1)^w₁₃ - 1)·e^(w₁₄·(1 - R))``, never above S (as
  fsrs-rs keeps it); a review the same day (t = 0): ``S·e^(w₁₇·(G - 3 + w₁₈))``; S kept within
  [0.01, 36500].

The tests hold these to fsrs-rs's worked values (its ``inference.rs`` tests: a card's
memory after five reviews, the four next states, the intervals by retention, the
forgetting curve). The quiz answers right or wrong: **right is Good (3), wrong is Again (1)**.
Days are calendar days: an interval is rounded to whole days, at least one (the cardbox's
shortest), at most :attr:`FSRS.maximum`. There are no learning steps (a session asks each
question once a day) and no fuzz (the same answers give the same dates, as the cardbox's
hashed windows do). The card's box still counts right answers in a row up to 10, so that
``--stats`` reads the same with either schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import date, timedelta

from boggle_dafsa.study.schedule import TOP_BOX, Card

DECAY = -0.5
#: 0.9^(1/DECAY) - 1: R(S, S) = 0.9.
FACTOR = 19 / 81
#: FSRS-5's default parameters w₀ ... w₁₈ (py-fsrs, fsrs-rs).
DEFAULT_PARAMETERS: tuple[float, ...] = (
    0.40255,
    1.18385,
    3.173,
    15.69105,
    7.1949,
    0.5345,
    1.4604,
    0.0046,
    1.54575,
    0.1192,
    1.01925,
    1.9395,
    0.11,
    0.29605,
    2.2698,
    0.2315,
    2.9898,
    0.51655,
    0.6621,
)
S_MIN, S_MAX = 0.01, 36500.0
D_MIN, D_MAX = 1.0, 10.0
AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4


def retrievability(elapsed: float, stability: float) -> float:
    """R(t, S): the chance of recall ``elapsed`` days after a review, for ``stability``."""
    return float((1 + FACTOR * elapsed / stability) ** DECAY)


def interval(stability: float, retention: float = 0.9) -> float:
    """I(r, S): the days until the chance of recall falls to ``retention``."""
    return stability / FACTOR * (retention ** (1 / DECAY) - 1)


@dataclass(frozen=True)
class Memory:
    """A card's memory in FSRS: its stability (days) and difficulty (1 to 10)."""

    stability: float
    difficulty: float


@dataclass(frozen=True)
class FSRS:
    """FSRS-5 with ``parameters`` (19 numbers; default :data:`DEFAULT_PARAMETERS`), the
    desired ``retention`` and the longest interval in days (``maximum``)."""

    parameters: tuple[float, ...] = DEFAULT_PARAMETERS
    retention: float = 0.9
    maximum: int = 36500

    def __post_init__(self) -> None:
        if len(self.parameters) != 19 or not all(math.isfinite(w) for w in self.parameters):
            raise ValueError("FSRS-5 takes 19 finite parameters")
        if not 0 < self.retention < 1:
            raise ValueError(f"retention {self.retention}: between 0 and 1")
        if self.maximum < 1:
            raise ValueError(f"maximum interval {self.maximum}: 1 day or more")

    # -- the memory model -------------------------------------------------------------------

    def initial_difficulty(self, grade: int) -> float:
        w = self.parameters
        return w[4] - math.exp(w[5] * (grade - 1)) + 1

    def first(self, grade: int) -> Memory:
        """The memory of a new card after its first rating."""
        return Memory(min(max(self.parameters[grade - 1], S_MIN), S_MAX), min(max(self.initial_difficulty(grade), D_MIN), D_MAX))

    def next_difficulty(self, difficulty: float, grade: int) -> float:
        w = self.parameters
        moved = difficulty - w[6] * (grade - 3)
        return min(max(w[7] * self.initial_difficulty(EASY) + (1 - w[7]) * moved, D_MIN), D_MAX)

    def next_stability(self, memory: Memory, elapsed: float, grade: int) -> float:
        w = self.parameters
        s, d = memory.stability, memory.difficulty
        if elapsed == 0:
            after = s * math.exp(w[17] * (grade - 3 + w[18]))
        elif grade == AGAIN:
            r = retrievability(elapsed, s)
            after = min(w[11] * d ** -w[12] * ((s + 1) ** w[13] - 1) * math.exp(w[14] * (1 - r)), s)
        else:
            r = retrievability(elapsed, s)
            hard = w[15] if grade == HARD else 1.0
            easy = w[16] if grade == EASY else 1.0
            after = s * (1 + math.exp(w[8]) * (11 - d) * s ** -w[9] * (math.exp(w[10] * (1 - r)) - 1) * hard * easy)
        return min(max(after, S_MIN), S_MAX)

    def review(self, memory: Memory | None, elapsed: float, grade: int) -> Memory:
        """The memory after a rating ``grade`` (1 to 4) ``elapsed`` days after the last review
        (``memory`` None: a new card)."""
        if grade not in (AGAIN, HARD, GOOD, EASY):
            raise ValueError(f"grade {grade}: 1 (again), 2 (hard), 3 (good) or 4 (easy)")
        if memory is None:
            return self.first(grade)
        if elapsed < 0:
            raise ValueError(f"{elapsed} days since the last review")
        return Memory(self.next_stability(memory, elapsed, grade), self.next_difficulty(memory.difficulty, grade))

    def days(self, stability: float) -> int:
        """The interval for ``stability`` in whole days: rounded, 1 to :attr:`maximum`."""
        return min(max(round(interval(stability, self.retention)), 1), self.maximum)

    # -- the quiz's schedule ------------------------------------------------------------------

    def answer(self, card: Card, right: bool, today: date) -> Card:
        """``card`` after a right (Good) or wrong (Again) answer on ``today``: its memory, the
        day it is due again, its counts; its box counts right answers in a row (wrong: 0)."""
        known = None
        if card.stability is not None and card.difficulty is not None and card.reviewed is not None:
            known = Memory(card.stability, card.difficulty)
        elapsed = 0 if known is None else max((today - card.reviewed).days, 0)  # type: ignore[operator]
        memory = self.review(known, elapsed, GOOD if right else AGAIN)
        if right:
            streak = card.streak + 1 if card.streak > 0 else 1
        else:
            streak = card.streak - 1 if card.streak < 0 else -1
        return replace(
            card,
            box=min(card.box + 1, TOP_BOX) if right and not card.new else (1 if right else 0),
            due=today + timedelta(days=self.days(memory.stability)),
            right=card.right + right,
            wrong=card.wrong + (not right),
            streak=streak,
            stability=memory.stability,
            difficulty=memory.difficulty,
            reviewed=today,
        )


__all__ = ["DEFAULT_PARAMETERS", "FACTOR", "DECAY", "FSRS", "Memory", "interval", "retrievability"]
