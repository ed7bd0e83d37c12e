"""State that survives a restart: rooms, their players (and tokens), the daily results, and the
arena's players, games and boards, in SQLite.

One database file, ``boggle-dafsa.sqlite3``, in the server's data folder (``serve --data
DIR``, else ``$XDG_DATA_HOME/boggle-dafsa``, else ``~/.local/share/boggle-dafsa``),
created private (0700 folder, 0600 file: it holds the players' tokens); a folder or file
that others may read or write, or a symbolic link, is refused in one line
(:func:`private_data_folder`), and one server at a time uses a folder (a lock held for its
life: :func:`lock_data_folder`). WAL mode: a write does not wait for readers and a crash
never leaves half a write. A write that fails (a full disk, an I/O error) raises
:class:`StorageError`, one line: the room puts back what was saved.

What is stored is what rebuilds a room exactly: its dice set, seed, dictionary name,
length, round, status, result, the wall-clock time its game ends, and each player's name,
token and words as submitted; the grid, the verdicts and the scores are computed again
from them on load (the same code, the same answers). A room whose game ended while the
server was down is over when it comes back, with its table.

Writes happen on the event loop, one small transaction each (a room created, a player
joined, a word sent): ``synchronous=NORMAL`` waits for the disk at checkpoints only, so a
word sent costs about 0.05 ms more than in memory (``python scripts/bench_store.py``:
median 0.054 ms against 0.003 ms, 8 players, at a load average of 8).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boggle_dafsa.board.dice import BUILTIN_SETS, load_dice
from boggle_dafsa.errors import BoggleError, StorageError, write_failure
from boggle_dafsa.files.folders import own_folder, unsafe
from boggle_dafsa.web.rooms import OVER, PLAYING, RoomPlayer

if TYPE_CHECKING:
    from boggle_dafsa.web.rooms import Room, RoomRegistry
    from boggle_dafsa.web.settings import DictionaryCatalog, Limits

DATABASE = "boggle-dafsa.sqlite3"
#: The file a running server holds a lock on (and writes its process id to).
LOCK = "boggle-dafsa.lock"
#: What a failed write raises: the disk, the file system, SQLite.
WRITE_ERRORS = (OSError, sqlite3.Error)
#: Bumped when the tables change; an older file is migrated, a newer one refused.
#: 2: daily_starts and secrets (the daily puzzle's start tokens); a version 1 file gets them on open.
#: 3: members, arena_games (the arena: game/arena.py) and member_days (the daily streaks of
#: players with a token); older files get them on open.
SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    dice TEXT NOT NULL,
    seed TEXT NOT NULL,            -- up to 2**64 - 1: more than SQLite's signed integers
    dictionary TEXT NOT NULL,
    seconds INTEGER NOT NULL,
    round INTEGER NOT NULL DEFAULT 1,
    status TEXT NOT NULL,
    ends_at REAL,                  -- wall clock (Unix time) when the game ends, while playing
    result TEXT,                   -- JSON, once over
    options TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    room TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token TEXT NOT NULL,
    submitted TEXT NOT NULL,       -- JSON list of the words as typed, in order
    joined REAL NOT NULL,
    PRIMARY KEY (room, name)
);
CREATE TABLE IF NOT EXISTS daily (
    day TEXT NOT NULL,             -- YYYY-MM-DD, UTC
    dice TEXT NOT NULL,
    player TEXT NOT NULL,          -- a random id the page keeps: one result per player and day
    score INTEGER NOT NULL,
    words INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (day, dice, player)
);
CREATE TABLE IF NOT EXISTS daily_starts (
    day TEXT NOT NULL,             -- the puzzle's start tokens (web/daily.py): one a player and day
    dice TEXT NOT NULL,
    player TEXT NOT NULL,
    started REAL NOT NULL,         -- wall clock (Unix time), signed in the token
    address TEXT NOT NULL,         -- a keyed hash of the address that started (never the address)
    revealed INTEGER NOT NULL DEFAULT 0,   -- 1 once the solution was shown to the player
    counted TEXT,                  -- the hashed address that sent the result that counted
    PRIMARY KEY (day, dice, player)
);
CREATE INDEX IF NOT EXISTS daily_starts_address ON daily_starts (day, address);
CREATE INDEX IF NOT EXISTS daily_starts_counted ON daily_starts (day, counted);
CREATE TABLE IF NOT EXISTS secrets (
    name TEXT PRIMARY KEY,         -- e.g. "daily": the key that signs the daily puzzle's start tokens
    value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
    id INTEGER PRIMARY KEY,        -- players who took a name and a token on this server (the arena's)
    token TEXT NOT NULL UNIQUE,    -- SHA-256 of the secret token (the token itself is never stored)
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE, -- the name up to case: one player a name
    address TEXT NOT NULL,         -- a keyed hash of the address that made it (never the address)
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS members_address ON members (address, created);
CREATE TABLE IF NOT EXISTS arena_games (
    dice TEXT NOT NULL,
    seconds INTEGER NOT NULL,      -- the slot length: (dice, seconds, slot) names one board
    slot INTEGER NOT NULL,         -- the slot's number since the epoch
    starts REAL NOT NULL,          -- Unix time the slot starts (the boards' windows)
    member INTEGER NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    submitted TEXT NOT NULL,       -- JSON list of the words as typed, in order
    score INTEGER NOT NULL,
    words INTEGER NOT NULL,        -- words found
    address TEXT NOT NULL,         -- a keyed hash of the address that played
    PRIMARY KEY (dice, seconds, slot, member)
);
CREATE TABLE IF NOT EXISTS member_days (
    member INTEGER NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    day TEXT NOT NULL,             -- a daily puzzle whose result counted, sent with the member's token
    dice TEXT NOT NULL,
    score INTEGER NOT NULL,
    words INTEGER NOT NULL,
    PRIMARY KEY (member, dice, day)
);
CREATE INDEX IF NOT EXISTS arena_games_starts ON arena_games (dice, seconds, starts);
CREATE INDEX IF NOT EXISTS arena_games_address ON arena_games (dice, seconds, slot, address);
"""


def token_hash(token: str) -> str:
    """What the store keeps of a player's token: its SHA-256, in hexadecimal (never the token)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def private_data_folder(folder: str | Path) -> Path:
    """``folder``, created 0700 if missing (its parents as usual); raises :class:`BoggleError`
    (one line) if it is a symbolic link, someone else's, or others may read or write it, or
    if the database in it is: it holds the players' tokens (the rule of the cache folder,
    :func:`boggle_dafsa.files.folders.unsafe`, with reading too)."""
    folder = Path(folder)
    try:
        why = own_folder(folder, 0o077, parents=True)
    except OSError as error:
        raise BoggleError(f"{folder}: cannot use it as the data folder ({error.strerror or error})") from None
    if why is not None:
        raise BoggleError(f"{folder}: refused as the data folder, {why}: it holds the players' tokens (chmod 700, or --data DIR)")
    database = folder / DATABASE
    if os.path.lexists(database):
        why = unsafe(database, 0o077, folder=False)
        if why is not None:
            raise BoggleError(f"{database}: refused as the server's database, {why}: it holds the players' tokens (chmod 600)")
    return folder


def lock_data_folder(folder: Path) -> int:
    """Take the lock of the data ``folder`` (its ``boggle-dafsa.lock``) for this process;
    the descriptor to keep open for the server's life. Raises :class:`BoggleError` if
    another server holds it."""
    path = folder / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as error:
        raise BoggleError(f"{path}: cannot lock the data folder ({error.strerror or error})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            by = f" (process {holder})" if holder.isdigit() else ""
            raise BoggleError(
                f"{folder}: another boggle-dafsa serve uses this data folder{by}: stop it, or give --data another folder"
            ) from None
        raise BoggleError(f"{path}: cannot lock the data folder ({error.strerror or error})") from None
    with suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


class Store:
    """The server's database. Thread-safe (one connection behind a lock): the routes that
    run in worker threads and the event loop share it."""

    def __init__(self, folder: str | Path | None) -> None:
        """The database of the data ``folder``; None: one in memory, the same tables and
        answers, gone with the process (an application made without a data folder)."""
        if folder is None:
            self.path: Path | None = None
            self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            self._lock = threading.Lock()
            return
        folder = private_data_folder(folder)
        try:
            self.path = folder / DATABASE
            if not os.path.lexists(self.path):
                # Created private before SQLite opens it: it holds the players' tokens.
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=5)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise BoggleError(
                    f"{self.path}: written by a newer boggle-dafsa (schema {version}); use --data with another folder"
                )
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as error:
            raise BoggleError(f"{folder / DATABASE}: cannot use the server's database ({error})") from None
        except OSError as error:
            raise BoggleError(f"{folder}: cannot use it as the data folder ({error.strerror or error})") from None
        self._lock = threading.Lock()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write, whole or not at all; a failure of the disk or of SQLite is a :class:`StorageError`."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as error:
                if self._db.in_transaction:
                    with suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                if isinstance(error, WRITE_ERRORS):
                    raise StorageError(write_failure(error)) from None
                raise

    def journal_mode(self) -> str:
        """SQLite's journal mode of the file ("wal")."""
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- rooms ---------------------------------------------------------------------------

    def save_room(self, room: Room) -> None:
        """Write ``room`` and its players as they are now (one transaction)."""
        remaining = room.remaining()
        ends_at = None if remaining is None else time.time() + remaining
        result = None if room.result is None else json.dumps(room.result, ensure_ascii=False, separators=(",", ":"))
        options = json.dumps(getattr(room, "options", {}) or {}, sort_keys=True)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO rooms (id, dice, seed, dictionary, seconds, round, status, ends_at, result, options, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET dice=excluded.dice, seed=excluded.seed, dictionary=excluded.dictionary,"
                " seconds=excluded.seconds, round=excluded.round, status=excluded.status, ends_at=excluded.ends_at,"
                " result=excluded.result, options=excluded.options",
                (
                    room.id,
                    room.dice_set.name,
                    str(room.seed),
                    room.dictionary_name,
                    room.seconds,
                    getattr(room, "round", 1),
                    room.status,
                    ends_at,
                    result,
                    options,
                    time.time(),
                ),
            )
            names = list(room.players)
            db.execute(f"DELETE FROM players WHERE room = ? AND name NOT IN ({','.join('?' * len(names))})", (room.id, *names))
            db.executemany(
                "INSERT INTO players (room, name, token, submitted, joined) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT(room, name) DO UPDATE SET token=excluded.token, submitted=excluded.submitted",
                [
                    (room.id, p.name, p.token, json.dumps(p.submitted, ensure_ascii=False), time.time())
                    for p in room.players.values()
                ],
            )

    def delete_room(self, room_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM rooms WHERE id = ?", (room_id,))

    def room_rows(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every stored room, as (room row, its players' rows in the order they joined)."""
        with self._lock:
            self._db.row_factory = sqlite3.Row
            try:
                rooms = [dict(row) for row in self._db.execute("SELECT * FROM rooms ORDER BY created")]
                players = [dict(row) for row in self._db.execute("SELECT * FROM players ORDER BY joined, rowid")]
            finally:
                self._db.row_factory = None
        by_room: dict[str, list[dict[str, Any]]] = {}
        for player in players:
            by_room.setdefault(player["room"], []).append(player)
        return [(room, by_room.get(room["id"], [])) for room in rooms]

    # -- the daily puzzle ----------------------------------------------------------------

    def record_daily(self, day: str, dice: str, player: str, score: int, words: int) -> None:
        """Keep ``player``'s result of ``day``'s puzzle (their best, if they send several)."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO daily (day, dice, player, score, words, at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(day, dice, player) DO UPDATE SET score=MAX(score, excluded.score),"
                " words=MAX(words, excluded.words), at=excluded.at",
                (day, dice, player, score, words, time.time()),
            )

    def daily_stats(self, day: str, dice: str) -> dict[str, Any]:
        """The day's results: how many players, the average and the best score."""
        with self._lock:
            count, average, best, words = self._db.execute(
                "SELECT COUNT(*), AVG(score), MAX(score), AVG(words) FROM daily WHERE day = ? AND dice = ?", (day, dice)
            ).fetchone()
        return {
            "players": count,
            "average": None if average is None else round(average, 1),
            "best": best,
            "average_words": None if words is None else round(words, 1),
        }

    def secret(self, name: str) -> bytes:
        """The server's secret ``name``: 32 random bytes made on first use, then kept in the file."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", (name, os.urandom(32)))
            return bytes(db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0])

    def daily_start(
        self, day: str, dice: str, player: str, address: str, now: float, most: int, forget_before: str
    ) -> tuple[float, bool, bool] | None:
        """``player``'s start of ``day``'s puzzle as (started, revealed, counted), made at ``now``
        if they had none; None if ``address`` has made ``most`` starts of that day already.
        Starts of days before ``forget_before`` are forgotten (their results are not)."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT started, revealed, counted FROM daily_starts WHERE day = ? AND dice = ? AND player = ?",
                (day, dice, player),
            ).fetchone()
            if row is not None:
                return float(row[0]), bool(row[1]), row[2] is not None
            (made,) = db.execute("SELECT COUNT(*) FROM daily_starts WHERE day = ? AND address = ?", (day, address)).fetchone()
            if made >= most:
                return None
            db.execute("DELETE FROM daily_starts WHERE day < ?", (forget_before,))
            db.execute(
                "INSERT INTO daily_starts (day, dice, player, started, address) VALUES (?, ?, ?, ?, ?)",
                (day, dice, player, now, address),
            )
            return now, False, False

    def daily_reveal(self, day: str, dice: str, player: str, started: float) -> None:
        """Note that ``player`` was shown the solution of the puzzle they started at ``started``."""
        with self._transaction() as db:
            db.execute(
                "UPDATE daily_starts SET revealed = 1 WHERE day = ? AND dice = ? AND player = ? AND started = ?",
                (day, dice, player, started),
            )

    def daily_claim(
        self, day: str, dice: str, player: str, started: float, address: str, most: int, score: int, words: int
    ) -> str | None:
        """Count ``player``'s result of the puzzle they started at ``started``, sent from
        ``address``, in one transaction; or say why not: "unknown" (no such start),
        "counted" (a result counted already), "revealed" (the solution was shown), "address"
        (``address`` has sent ``most`` results that counted that day)."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT revealed, counted FROM daily_starts WHERE day = ? AND dice = ? AND player = ? AND started = ?",
                (day, dice, player, started),
            ).fetchone()
            if row is None:
                return "unknown"
            if row[1] is not None:
                return "counted"
            if row[0]:
                return "revealed"
            (sent,) = db.execute("SELECT COUNT(*) FROM daily_starts WHERE day = ? AND counted = ?", (day, address)).fetchone()
            if sent >= most:
                return "address"
            db.execute(
                "UPDATE daily_starts SET counted = ? WHERE day = ? AND dice = ? AND player = ?", (address, day, dice, player)
            )
            db.execute(
                "INSERT INTO daily (day, dice, player, score, words, at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(day, dice, player) DO UPDATE SET score=excluded.score, words=excluded.words, at=excluded.at",
                (day, dice, player, score, words, time.time()),
            )
        return None

    # -- members and the arena (game/arena.py) -------------------------------------------

    def member_join(self, name: str, name_key: str, token: str, address: str, now: float, most: int) -> int | str:
        """Make the member ``name`` with the hashed ``token``: their id; or why not: "taken"
        (the name, up to case, is another member's), "address" (``address`` made ``most``
        members in the last day)."""
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM members WHERE name_key = ?", (name_key,)).fetchone() is not None:
                return "taken"
            (made,) = db.execute(
                "SELECT COUNT(*) FROM members WHERE address = ? AND created > ?", (address, now - 86400)
            ).fetchone()
            if made >= most:
                return "address"
            cursor = db.execute(
                "INSERT INTO members (token, name, name_key, address, created) VALUES (?, ?, ?, ?, ?)",
                (token, name, name_key, address, now),
            )
            return int(cursor.lastrowid or 0)

    def member(self, token: str) -> tuple[int, str] | None:
        """The member (id, name) of the hashed ``token``, or None."""
        with self._lock:
            row = self._db.execute("SELECT id, name FROM members WHERE token = ?", (token,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def member_day(self, member: int, day: str, dice: str, score: int, words: int) -> None:
        """Note that ``member``'s result of ``day``'s puzzle counted (the first one stays)."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO member_days (member, day, dice, score, words) VALUES (?, ?, ?, ?, ?)",
                (member, day, dice, score, words),
            )

    def member_days(self, member: int, dice: str) -> list[tuple[str, int, int]]:
        """``member``'s daily puzzles of ``dice`` that counted: (day, score, words), newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT day, score, words FROM member_days WHERE member = ? AND dice = ? ORDER BY day DESC", (member, dice)
            ).fetchall()
        return [(str(day), int(score), int(words)) for day, score, words in rows]

    def arena_submitted(self, dice: str, seconds: int, slot: int, member: int) -> list[str] | None:
        """The words ``member`` sent on that board, as typed, in order; None if they have not played it."""
        with self._lock:
            row = self._db.execute(
                "SELECT submitted FROM arena_games WHERE dice = ? AND seconds = ? AND slot = ? AND member = ?",
                (dice, seconds, slot, member),
            ).fetchone()
        return None if row is None else list(json.loads(row[0]))

    def arena_save(
        self,
        dice: str,
        seconds: int,
        slot: int,
        starts: float,
        member: int,
        submitted: list[str],
        score: int,
        words: int,
        address: str,
        most: int,
    ) -> bool:
        """Keep ``member``'s game of that board as it is now (one transaction); False, with
        nothing written, if it is their first word there and ``address`` has ``most``
        players on that board already."""
        with self._transaction() as db:
            key = (dice, seconds, slot, member)
            known = db.execute(
                "SELECT 1 FROM arena_games WHERE dice = ? AND seconds = ? AND slot = ? AND member = ?", key
            ).fetchone()
            if known is None:
                (playing,) = db.execute(
                    "SELECT COUNT(*) FROM arena_games WHERE dice = ? AND seconds = ? AND slot = ? AND address = ?",
                    (dice, seconds, slot, address),
                ).fetchone()
                if playing >= most:
                    return False
            db.execute(
                "INSERT INTO arena_games (dice, seconds, slot, starts, member, submitted, score, words, address)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(dice, seconds, slot, member) DO UPDATE SET submitted=excluded.submitted,"
                " score=excluded.score, words=excluded.words",
                (*key[:3], starts, member, json.dumps(submitted, ensure_ascii=False), score, words, address),
            )
        return True

    def arena_results(self, dice: str, seconds: int, slot: int) -> list[tuple[str, int, int]]:
        """Every game of that board: (player's name, score, words found)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT members.name, score, words FROM arena_games JOIN members ON members.id = arena_games.member"
                " WHERE dice = ? AND seconds = ? AND slot = ?",
                (dice, seconds, slot),
            ).fetchall()
        return [(str(name), int(score), int(words)) for name, score, words in rows]

    def arena_totals(self, dice: str, seconds: int, since: float, before: float) -> list[tuple[str, int, int, int, int]]:
        """Each player's games of the boards that start from ``since`` and before ``before``,
        added up: (name, total score, words found, games, best score)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT members.name, SUM(score), SUM(words), COUNT(*), MAX(score)"
                " FROM arena_games JOIN members ON members.id = arena_games.member"
                " WHERE dice = ? AND seconds = ? AND starts >= ? AND starts < ? GROUP BY arena_games.member",
                (dice, seconds, since, before),
            ).fetchall()
        return [(str(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])) for row in rows]


def restore_rooms(
    store: Store,
    registry: RoomRegistry,
    catalog: DictionaryCatalog,
    limits: Limits,
    make_room: Callable[..., Room],
) -> list[str]:
    """Put every stored room back in ``registry``; the ids of those that could not be
    (their dice set or dictionary is no longer offered: they stay in the file)."""
    skipped = []
    for row, players in store.room_rows():
        try:
            if row["dice"] not in BUILTIN_SETS:
                raise BoggleError(f"unknown dice set {row['dice']!r}")
            dice_set = load_dice(row["dice"])
            name, words = catalog.for_language(row["dictionary"], dice_set.language)
        except BoggleError:
            skipped.append(row["id"])
            continue
        options = json.loads(row["options"])
        bonus = None
        if options.get("bonus"):
            try:
                bonus = catalog.get(options["bonus"])[1]
            except BoggleError:
                options["bonus"] = None  # a list no longer offered: the room goes on without bonus words
        room = make_room(row["id"], dice_set, int(row["seed"]), name, words, row["seconds"], limits, options=options, bonus=bonus)
        room.round = row["round"]
        room.saved = store.save_room
        for player_row in players:
            player = RoomPlayer(player_row["name"], player_row["token"], room.new_game())
            for word in json.loads(player_row["submitted"]):
                player.submitted.append(word)
                player.game.submit(word)  # the same verdicts as before the restart
            room.players[player.name] = player
        room.status = row["status"]
        if room.status == PLAYING:
            left = (row["ends_at"] or 0) - time.time()
            room.ends_at = room.clock() + max(left, 0.0)
            if left <= 0:
                room.finish()  # the game ended while the server was down
        elif room.status == OVER:
            room.result = json.loads(row["result"]) if row["result"] else None
            if room.result is None:
                room.finish()
        registry.rooms[room.id] = room
    return skipped
