"""The texts of ``quiz`` around its questions: what it put in the cardbox, what is due, how
the session went, and the cardbox's counts (``--stats``).

Pure functions to strings; the command line prints them. The questions and their verdicts
are written by the session loop (:mod:`boggle_dafsa.study.session`), which is given its streams.
"""

from __future__ import annotations

from datetime import date
from typing import Any


def groups_added(groups: int, added: int) -> str:
    """``12 anagram groups (3 new in the cardbox)``."""
    return f"{groups:,} anagram group{'s' if groups != 1 else ''} ({added:,} new in the cardbox)"


def nothing_due(day: date, following: date | None) -> str:
    """``Nothing due on DAY (next: DAY).``, the next day left out when there is none."""
    return f"Nothing due on {day.isoformat()}" + (f" (next: {following.isoformat()})." if following else ".")


def questions_due(waiting: int, asked: int, day: date) -> str:
    """The session's first line: how many questions are due, how many are asked, how to answer."""
    return (
        f"{waiting:,} question{'s' if waiting != 1 else ''} due on {day.isoformat()}"
        + (f", {asked} asked" if asked < waiting else "")
        + ". Type the words, one a line or several on a line; an empty line ends a question, Ctrl-C the session."
    )


def answered(asked: int, right: int) -> str:
    """``5 answered, 4 right``: a session's tally."""
    return f"{asked} answered, {right} right"


def quiz_done(asked: int, right: int, left: int) -> str:
    """The session's last line: its tally, and the questions still due today."""
    return f"Done: {answered(asked, right)}" + (f"; {left} still due today." if left else ".")


def cardbox_stats(lexicon: str, stats: Any, day: date) -> list[str]:
    """``quiz --stats``: the cardbox of ``lexicon`` on ``day``: cards by box, due, answered."""
    lines = [f"Cardbox of {lexicon} on {day.isoformat()}: {stats.cards:,} cards ({stats.new:,} never asked)"]
    lines += [f"  box {box:>2}: {stats.boxes[box]:,}" for box in sorted(stats.boxes)]
    following = f" (next: {stats.next_due.isoformat()})" if stats.next_due else ""
    lines.append(f"Due: {stats.due:,}{following}")
    lines.append(f"Answered today: {stats.answered_today:,} ({stats.right_today:,} right)")
    lines.append(f"Answered ever: {stats.answered:,} ({stats.right:,} right)")
    return lines
