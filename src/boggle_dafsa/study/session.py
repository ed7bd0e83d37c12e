"""A quiz session: questions are alphagram groups (``AEINRST: 9 words``), answers are typed,
and each answer moves its card in the cardbox (:mod:`.schedule`) and is kept at once
(:mod:`.history`).

The only module of the quiz that reads and writes streams; it is given them, so that
tests and other front ends can drive it (as :mod:`boggle_dafsa.game.console` is).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol, TextIO

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.query import anagram
from boggle_dafsa.study.expected import table_of
from boggle_dafsa.study.schedule import Card, Schedule

#: Longest line read as an answer.
_MAX_LINE = 4096


def alphagram(word: str) -> str:
    """The word's letters in byte order (``RETAINS`` → ``AEINRST``): a question."""
    return "".join(sorted(word))


def alphagrams(words: Iterable[str]) -> list[str]:
    """The questions of a word list: the alphagrams of its words, each once, in byte order."""
    return sorted({alphagram(word) for word in words})


def answers_of(dictionary: Any, question: str) -> tuple[str, ...]:
    """The words of ``dictionary`` spelled with exactly the letters of ``question``, in byte order."""
    return tuple(hit.word for hit in anagram(dictionary, question))


#: The orders a session asks its due questions in: the longest overdue first (then by box
#: and alphagram, as :meth:`.history.History.due` gives them), or the highest expected
#: Boggle points per game first (:mod:`.expected`; the longest overdue first among equals).
ORDERS = ("due", "expected")


def ordered(cards: Sequence[Card], order: str = "due", expected: Any = None) -> list[Card]:
    """``cards`` (in :meth:`.history.History.due`'s order) in ``order`` (:data:`ORDERS`);
    ``expected``: the table of "expected" (see :func:`.expected.table_of`)."""
    if order not in ORDERS:
        raise BoggleError(f"bad order {order!r}: {', '.join(ORDERS)}")
    if order == "due":
        return list(cards)

    table = table_of(expected)
    return sorted(cards, key=lambda card: -table.expected(card.question))


@dataclass(frozen=True)
class Question:
    """An alphagram and the words it spells."""

    alphagram: str
    answers: tuple[str, ...]

    def prompt(self) -> str:
        count = len(self.answers)
        return f"{self.alphagram}: {count} word{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class Verdict:
    """How a question was answered: the answers found, the words typed that are not
    answers, the answers not found. Right when every answer was found and none wrong."""

    found: tuple[str, ...]
    wrong: tuple[str, ...]
    missed: tuple[str, ...]

    @property
    def right(self) -> bool:
        return not self.wrong and not self.missed


def judge(question: Question, typed: Iterable[str]) -> Verdict:
    """The verdict on the words ``typed`` (normalized, any order, repeats counted once)."""
    answers = set(question.answers)
    seen = list(dict.fromkeys(typed))
    found = tuple(word for word in question.answers if word in seen)
    wrong = tuple(word for word in seen if word not in answers)
    missed = tuple(word for word in question.answers if word not in seen)
    return Verdict(found, wrong, missed)


@dataclass(frozen=True)
class Summary:
    """What a session did: questions answered, how many right, and whether Ctrl-C ended it."""

    asked: int
    right: int
    interrupted: bool = False


#: Keeps an answer: the card before it and the verdict → the card after it.
Record = Callable[[Card, Verdict], Card]


class Scheduler(Protocol):
    """What moves a card after an answer: Zyzzyva's cardbox (:class:`.schedule.Schedule`) or
    FSRS (:class:`.fsrs.FSRS`)."""

    def answer(self, card: Card, right: bool, today: date) -> Card: ...


#: The schedules a quiz takes, by name.
SCHEDULERS = ("cardbox", "fsrs")


def scheduler(name: str = "cardbox") -> Scheduler:
    """The schedule named ``name`` (:data:`SCHEDULERS`), with its defaults."""
    if name == "cardbox":
        return Schedule()
    if name == "fsrs":
        from boggle_dafsa.study.fsrs import FSRS

        return FSRS()
    raise BoggleError(f"bad schedule {name!r}: {', '.join(SCHEDULERS)}")


def keeper(history: Any, lexicon: str, schedule: Scheduler, today: date) -> Record:
    """The :data:`Record` that moves a card by ``schedule`` and keeps it in ``history`` at once."""

    def record(card: Card, verdict: Verdict) -> Card:
        after = schedule.answer(card, verdict.right, today)
        history.record(lexicon, after, verdict.right, today, verdict.missed, verdict.wrong)
        return after

    return record


@contextmanager
def _interrupt_after() -> Iterator[None]:
    """Ctrl-C during the block is held until the block is done (an answer is kept whole)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def verdict_line(verdict: Verdict, card: Card, total: int) -> str:
    """What the quiz says after an answer: right, or the words missed and wrong, and where the card went."""
    where = f"box {card.box}, due {card.due.isoformat()}"
    if verdict.right:
        return f"Right: {'the word' if total == 1 else f'all {total}'}. Now in {where}."
    parts = []
    if verdict.missed:
        parts.append("missed " + ", ".join(verdict.missed))
    if verdict.wrong:
        parts.append("wrong " + ", ".join(verdict.wrong))
    return f"{len(verdict.found)} of {total}: {'; '.join(parts)}. Back to {where}."


def run_quiz(
    cards: Sequence[Card],
    *,
    answers: Callable[[str], tuple[str, ...]],
    normalize: Callable[[str], str | None],
    record: Record,
    stdin: TextIO,
    out: TextIO,
    interactive: bool,
) -> Summary:
    """Ask the questions of ``cards`` in order on ``out``, read the answers from ``stdin``,
    and keep each by ``record`` before the next question.

    Words are typed one a line or several on a line (spaces or commas between them); an
    empty line ends a question (a line of nothing at once: every word missed). The end of
    input ends the session (a question with words typed is judged first); Ctrl-C ends it
    at once, the question on screen left as it was. With ``interactive`` a ``>`` prompt
    is shown.
    """
    write = out.write
    asked = right = 0
    try:
        for number, card in enumerate(cards, 1):
            question = Question(card.question, answers(card.question))
            if not question.answers:  # the dictionary no longer spells it: nothing to ask
                continue
            write(f"{number}/{len(cards)}  {question.prompt()}\n")
            typed: list[str] = []
            ended = False
            while True:
                if interactive:
                    write("> ")
                out.flush()
                line = stdin.readline(_MAX_LINE + 1)
                if len(line) > _MAX_LINE:
                    raise BoggleError(f"standard input: a line of more than {_MAX_LINE:,} characters")
                if not line:
                    ended = True
                    if interactive:
                        write("\n")
                    break
                items = line.replace(",", " ").split()
                if not items:
                    break
                typed.extend(normalize(item) or item.upper() for item in items)
            if ended and not typed:
                break
            verdict = judge(question, typed)
            with _interrupt_after():
                after = record(card, verdict)
                asked += 1
                right += verdict.right
            write(verdict_line(verdict, after, len(question.answers)) + "\n")
            out.flush()
            if ended:
                break
    except KeyboardInterrupt:
        write("\n")
        out.flush()
        return Summary(asked, right, interrupted=True)
    return Summary(asked, right)
