"""The quiz's cardboxes and answers, in SQLite: ``quiz.sqlite3`` in the user's data folder
(``$XDG_DATA_HOME/boggle-dafsa``, else ``~/.local/share/boggle-dafsa``; the web server's
folder), kept the way the server's store is kept (``web/store.py``):

- the folder is created 0700 and the file 0600; a folder or file that others may write
  to, that is someone else's, or a symbolic link, is refused in one line
  (:func:`boggle_dafsa.files.folders.unsafe`);
- one writer: a session holds ``quiz.lock`` (``flock``) for its life, and a second one is
  refused, naming the first's process; reading (:meth:`History.stats`) takes no lock;
- each answer is one transaction, committed before the next question is asked (WAL,
  ``synchronous=FULL``): a session killed at any point loses at most the question on screen.

Each dictionary has its own cardbox (``lexicon``: an embedded list by its name, a file by
its absolute path), as Zyzzyva keeps one per lexicon.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.files.folders import data_dir, own_folder, unsafe
from boggle_dafsa.study.schedule import Card

DATABASE = "quiz.sqlite3"
LOCK = "quiz.lock"
#: Bumped when the tables change; a newer file is refused, an older one brought up to date.
SCHEMA_VERSION = 2
#: Most questions one call of :meth:`History.add` takes (a search that big is a mistake).
MAX_ADDED = 100_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cards (
    lexicon TEXT NOT NULL,         -- the dictionary: an embedded list's name, or a file's absolute path
    question TEXT NOT NULL,        -- the alphagram (AEINRST)
    box INTEGER NOT NULL,
    due TEXT NOT NULL,             -- YYYY-MM-DD
    right INTEGER NOT NULL DEFAULT 0,
    wrong INTEGER NOT NULL DEFAULT 0,
    streak INTEGER NOT NULL DEFAULT 0,
    added TEXT NOT NULL,           -- YYYY-MM-DD
    stability REAL,                -- FSRS's memory (schema 2): days; NULL for the cardbox
    difficulty REAL,               -- 1 to 10
    reviewed TEXT,                 -- YYYY-MM-DD: the answer they follow
    PRIMARY KEY (lexicon, question)
);
CREATE INDEX IF NOT EXISTS cards_due ON cards (lexicon, due);
CREATE TABLE IF NOT EXISTS answers (
    lexicon TEXT NOT NULL,
    question TEXT NOT NULL,
    day TEXT NOT NULL,             -- YYYY-MM-DD, the quiz's clock (`today`)
    at REAL NOT NULL,              -- wall clock (Unix time)
    right INTEGER NOT NULL,        -- 1: every word found and none wrong
    box INTEGER NOT NULL,          -- the box it went to
    missed TEXT NOT NULL,          -- the words not found, space-separated
    wrong TEXT NOT NULL            -- the words typed that are not answers
);
CREATE INDEX IF NOT EXISTS answers_day ON answers (lexicon, day);
"""


_CARD_COLUMNS = "question, box, due, right, wrong, streak, stability, difficulty, reviewed"


def _card(row: tuple[Any, ...]) -> Card:
    question, box, due, right, wrong, streak, stability, difficulty, reviewed = row
    return Card(
        question,
        box,
        date.fromisoformat(due),
        right,
        wrong,
        streak,
        stability,
        difficulty,
        None if reviewed is None else date.fromisoformat(reviewed),
    )


def private_folder(folder: str | Path, database: str = DATABASE) -> Path:
    """``folder``, created 0700 if missing (its parents as usual); :class:`BoggleError` (one
    line) if it, or the database in it, is a symbolic link, someone else's, or others may
    write to it."""
    folder = Path(folder)
    try:
        why = own_folder(folder, 0o022, parents=True)
    except OSError as error:
        raise BoggleError(f"{folder}: cannot keep the quiz's history there ({error.strerror or error})") from None
    if why is not None:
        raise BoggleError(f"{folder}: refused for the quiz's history, {why} (chmod 700, or another folder: `folder`)")
    path = folder / database
    if os.path.lexists(path):
        why = unsafe(path, 0o022, folder=False)
        if why is not None:
            raise BoggleError(f"{path}: refused as the quiz's history, {why} (chmod 600)")
    return folder


@dataclass(frozen=True)
class Stats:
    """What ``quiz --stats`` shows for one dictionary's cardbox on a day."""

    boxes: dict[int, int]
    new: int
    due: int
    answered_today: int
    right_today: int
    answered: int
    right: int
    next_due: date | None

    @property
    def cards(self) -> int:
        return sum(self.boxes.values())


class History:
    """The quiz's database in ``folder`` (a private folder: :func:`private_folder`).
    ``write``: hold the folder's lock (one writer); without it, only read. ``database`` and
    ``lock``: the names of the file and its lock in the folder (the web server keeps its
    players' cardboxes apart from the terminal's: ``web-quiz.sqlite3``); ``lock`` None: no
    lock taken, the caller is the one writer (the web server, which holds its data
    folder's). ``memory``: a database in memory, the same tables, gone with the object.

    One connection, usable from any thread (``check_same_thread`` off): a caller that shares
    it between threads serializes the calls (the web server does, behind a lock)."""

    def __init__(
        self,
        folder: str | Path | None = None,
        *,
        write: bool = True,
        database: str = DATABASE,
        lock: str | None = LOCK,
        memory: bool = False,
    ) -> None:
        self._lock_fd: int | None = None
        self._lock_name = lock
        if memory:
            self.folder = None
            self.path = Path(":memory:")
            self._db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._lock_fd = -1  # writes allowed: nothing else can reach this database
            return
        folder = private_folder(data_dir() if folder is None else folder, database)
        self.folder = folder
        self.path = folder / database
        if write:
            self._lock_fd = self._take_lock() if lock is not None else -1
        try:
            if not os.path.lexists(self.path):
                # Created private before SQLite opens it.
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=5, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise BoggleError(f"{self.path}: written by a newer boggle-dafsa (schema {version})")
            if version < SCHEMA_VERSION:
                self._upgrade(version)
        except sqlite3.DatabaseError as error:
            self.close()
            raise BoggleError(f"{self.path}: cannot use the quiz's history ({error})") from None
        except OSError as error:
            self.close()
            raise BoggleError(f"{self.path}: cannot use the quiz's history ({error.strerror or error})") from None
        except BaseException:
            self.close()
            raise

    def _upgrade(self, version: int) -> None:
        # Schema 1 had no FSRS columns: added (NULL: cards the cardbox scheduled), in one
        # transaction with the version, so that a kill leaves schema 1 or 2, whole.
        if version == 0:
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if version < 2:
                for column in ("stability REAL", "difficulty REAL", "reviewed TEXT"):
                    self._db.execute(f"ALTER TABLE cards ADD COLUMN {column}")
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _take_lock(self) -> int:
        assert self.folder is not None and self._lock_name is not None
        path = self.folder / self._lock_name
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise BoggleError(f"{path}: cannot lock the quiz's history ({error.strerror or error})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                by = f" (process {holder})" if holder.isdigit() else ""
                raise BoggleError(f"{self.folder}: another boggle-dafsa quiz is running{by}: one at a time") from None
            raise BoggleError(f"{path}: cannot lock the quiz's history ({error.strerror or error})") from None
        with suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd

    def close(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            db.close()
            self._db = None  # type: ignore[assignment]
        if self._lock_fd is not None:
            if self._lock_fd >= 0:
                os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        if self._lock_fd is None:
            raise BoggleError("the quiz's history was opened to read only")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as error:
            if self._db.in_transaction:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            if isinstance(error, (OSError, sqlite3.Error)):
                detail = (error.strerror if isinstance(error, OSError) else None) or str(error)
                raise BoggleError(f"{self.path}: could not save the answer ({' '.join(detail.split())[:200]})") from None
            raise

    # -- cards ---------------------------------------------------------------------------

    def add(self, lexicon: str, questions: Iterable[str], today: date) -> int:
        """Put the ``questions`` not in ``lexicon``'s cardbox yet in box 0, due ``today``
        (one transaction); how many were new."""
        questions = list(dict.fromkeys(questions))
        if len(questions) > MAX_ADDED:
            raise BoggleError(f"{len(questions):,} questions: at most {MAX_ADDED:,} at a time, narrow the search")
        with self._transaction() as db:
            before = db.total_changes
            db.executemany(
                "INSERT OR IGNORE INTO cards (lexicon, question, box, due, added) VALUES (?, ?, 0, ?, ?)",
                [(lexicon, question, today.isoformat(), today.isoformat()) for question in questions],
            )
            return db.total_changes - before

    def due(self, lexicon: str, today: date, among: Iterable[str] | None = None) -> list[Card]:
        """The cards of ``lexicon`` due on or before ``today`` (of ``among`` only, if given):
        the longest overdue first, then by box, then by question."""
        rows = self._db.execute(
            f"SELECT {_CARD_COLUMNS} FROM cards WHERE lexicon = ? AND due <= ? ORDER BY due, box, question",
            (lexicon, today.isoformat()),
        ).fetchall()
        cards = [_card(row) for row in rows]
        if among is not None:
            wanted = set(among)
            cards = [card for card in cards if card.question in wanted]
        return cards

    def count(self, lexicon: str) -> int:
        """How many cards ``lexicon``'s cardbox holds."""
        (cards,) = self._db.execute("SELECT COUNT(*) FROM cards WHERE lexicon = ?", (lexicon,)).fetchone()
        return int(cards)

    def card(self, lexicon: str, question: str) -> Card | None:
        row = self._db.execute(
            f"SELECT {_CARD_COLUMNS} FROM cards WHERE lexicon = ? AND question = ?", (lexicon, question)
        ).fetchone()
        return None if row is None else _card(row)

    def record(self, lexicon: str, card: Card, right: bool, today: date, missed: Iterable[str], wrong: Iterable[str]) -> None:
        """Keep an answer: ``card`` as it is after it, and the answer itself (one transaction)."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO cards (lexicon, question, box, due, right, wrong, streak, added, stability, difficulty, reviewed)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(lexicon, question) DO UPDATE SET box=excluded.box, due=excluded.due,"
                " right=excluded.right, wrong=excluded.wrong, streak=excluded.streak,"
                " stability=excluded.stability, difficulty=excluded.difficulty, reviewed=excluded.reviewed",
                (
                    lexicon,
                    card.question,
                    card.box,
                    card.due.isoformat(),
                    card.right,
                    card.wrong,
                    card.streak,
                    today.isoformat(),
                    card.stability,
                    card.difficulty,
                    card.reviewed.isoformat() if card.reviewed else None,
                ),
            )
            db.execute(
                "INSERT INTO answers (lexicon, question, day, at, right, box, missed, wrong) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (lexicon, card.question, today.isoformat(), time.time(), int(right), card.box, " ".join(missed), " ".join(wrong)),
            )

    def stats(self, lexicon: str, today: date) -> Stats:
        """Cards per box, new and due on ``today``, answers of ``today`` and of all time."""
        db = self._db
        boxes = dict(db.execute("SELECT box, COUNT(*) FROM cards WHERE lexicon = ? GROUP BY box", (lexicon,)).fetchall())
        (new,) = db.execute("SELECT COUNT(*) FROM cards WHERE lexicon = ? AND right = 0 AND wrong = 0", (lexicon,)).fetchone()
        (due,) = db.execute("SELECT COUNT(*) FROM cards WHERE lexicon = ? AND due <= ?", (lexicon, today.isoformat())).fetchone()
        (next_due,) = db.execute(
            "SELECT MIN(due) FROM cards WHERE lexicon = ? AND due > ?", (lexicon, today.isoformat())
        ).fetchone()
        today_count, today_right = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(right), 0) FROM answers WHERE lexicon = ? AND day = ?", (lexicon, today.isoformat())
        ).fetchone()
        count, right = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(right), 0) FROM answers WHERE lexicon = ?", (lexicon,)
        ).fetchone()
        return Stats(
            boxes={int(box): int(n) for box, n in boxes.items()},
            new=new,
            due=due,
            answered_today=today_count,
            right_today=today_right,
            answered=count,
            right=right,
            next_due=None if next_due is None else date.fromisoformat(next_due),
        )
