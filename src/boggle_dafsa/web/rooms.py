"""Multiplayer rooms: one grid, one server-owned clock, several players, the table at the end.

A room is pure state driven by the app's event loop (no locks: one thread touches it).
Each player has a :class:`~boggle_dafsa.game.rounds.Game` of their own, so a word gets the same
verdict as at the console; at the end :func:`~boggle_dafsa.game.rounds.score_players` scores every
player's words together, and a word found by two players or more scores 0 for everyone.
A player is known by a secret token the page keeps, so a reloaded page takes its place back.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from boggle_dafsa.board.dice import SplitMix64, roll_grid
from boggle_dafsa.errors import BoggleError, StorageError, write_failure
from boggle_dafsa.game.clean import blocked_words
from boggle_dafsa.game.rounds import Game, Judge, score_players
from boggle_dafsa.web.guard import name_key, player_name
from boggle_dafsa.web.hints import hint_payload
from boggle_dafsa.web.settings import Limits

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.game.rounds import Verdict


class RoomError(BoggleError):
    """Something a player asked that the room cannot do (full, name taken, game over...)."""

    #: The HTTP status of the error, when an API call meets it.
    status = 400


class NoSuchRoom(RoomError):
    """No open room has that id."""

    status = 404


class TooManyRooms(RoomError):
    """The server has as many rooms open as it allows."""

    status = 503


class NotSaved(RoomError):
    """A change the store could not write (a full disk...): the room is as it was saved."""

    status = 503


WAITING, PLAYING, OVER = "waiting", "playing", "over"


@dataclass
class RoomPlayer:
    """A player of a room: their name, their secret token, their game, their open pages."""

    name: str
    token: str
    game: Game
    #: Every word submitted, as typed, in order: what the final scoring reads.
    submitted: list[str] = field(default_factory=list)
    #: The player's open connections (a page in two tabs is two connections).
    connections: set[Any] = field(default_factory=set)


class Room:
    """One room: the grid and rules, the players, the clock."""

    def __init__(
        self,
        room_id: str,
        dice_set: DiceSet,
        seed: int,
        dictionary_name: str,
        dictionary: Dictionary,
        seconds: int,
        limits: Limits,
        clock: Callable[[], float] = time.monotonic,
        *,
        options: dict[str, Any] | None = None,
        bonus: Dictionary | None = None,
    ) -> None:
        """A waiting room on the grid ``seed`` rolls from ``dice_set``, played for ``seconds``
        (``options``: the room's switches, e.g. hints; ``clean``, on unless False, leaves the
        family-friendly blocklist out of the grid's words: :mod:`boggle_dafsa.game.clean`;
        ``bonus``, the name of ``bonus``, the full list whose other words are bonus words:
        :mod:`boggle_dafsa.game.bonus`)."""

        self.id = room_id
        self.dice_set = dice_set
        self.seed = seed
        self.dictionary_name = dictionary_name
        self.dictionary = dictionary
        self.seconds = seconds
        self.limits = limits
        self.clock = clock
        #: The room's switches (hints, clean...), chosen when it is created.
        self.options: dict[str, Any] = dict(options or {})
        #: The full list of the bonus words (its name is the option ``bonus``), or None.
        self.bonus = bonus
        self.judge: Judge = self.new_judge(seed)
        self.status = WAITING
        self.ends_at: float | None = None
        self.players: dict[str, RoomPlayer] = {}
        self.last_activity = clock()
        #: The final result, computed once when the clock runs out.
        self.result: dict[str, Any] | None = None
        #: The task that ends the game (kept so that it is not garbage-collected).
        self.timer: Any = None
        #: Rounds played in this room (a next round keeps the players).
        self.round = 1
        #: Called with the room after every change worth keeping (the server's store).
        self.saved: Callable[[Room], None] | None = None
        #: The address that opened the room (None: brought back from the store), and the
        #: WebSockets open on it, joined or not (a room with one is never closed to make room).
        self.owner: str | None = None
        self.sockets = 0

    def new_judge(self, seed: int) -> Judge:
        """The judge of the grid ``seed`` rolls, clean unless the room's ``clean`` option is False."""
        blocked = blocked_words(self.dictionary_name, self.dice_set.language) if self.clean else frozenset()
        grid = roll_grid(self.dice_set, SplitMix64(seed))
        return Judge(grid, self.dictionary, self.dice_set.scoring, self.dice_set.min_length, blocked=blocked, bonus=self.bonus)

    @property
    def clean(self) -> bool:
        """True when the family-friendly filter is on (the default; rooms saved before it existed too)."""
        return self.options.get("clean", True) is not False

    def new_game(self) -> Game:
        """A player's game on the room's grid, with the room's rules, blocklist and bonus
        list, sharing the room's solve of the grid."""
        return Game.on(self.judge, seed=self.seed, bonus_spec=self.options.get("bonus") if self.bonus is not None else None)

    def changed(self) -> None:
        """Tell the store (if any) that the room changed; raises :class:`NotSaved` (one line)
        if it could not write it: the caller puts the room back as it was."""
        if self.saved is not None:
            try:
                self.saved(self)
            except (StorageError, OSError, sqlite3.Error) as error:
                raise NotSaved(write_failure(error)) from None

    # -- players -------------------------------------------------------------------------

    def join(self, name: object, token: object) -> RoomPlayer:
        """The player ``name``, new or back (with the ``token`` their page kept).

        Raises :class:`RoomError` for a bad or taken name, a full room, or a newcomer
        once the game is over.
        """
        try:
            name = player_name(name, self.limits.name_chars)
        except ValueError as error:
            raise RoomError(str(error)) from None
        self.touch()
        # Unique up to case: `alice` and `Alice` are one player (and one name shown).
        key = name_key(name)
        player = next((p for p in self.players.values() if name_key(p.name) == key), None)
        if player is not None:
            name = player.name
            if not isinstance(token, str) or not secrets.compare_digest(token, player.token):
                raise RoomError(f"the name {name!r} is taken in this room: choose another")
            if len(player.connections) >= self.limits.pages_per_player:
                raise RoomError(f"{name!r} has {self.limits.pages_per_player} pages open in this room already")
            return player
        if self.status == OVER:
            raise RoomError("this game is over: create a new room to play")
        if len(self.players) >= self.limits.players_per_room:
            raise RoomError(f"this room is full ({self.limits.players_per_room} players)")
        player = RoomPlayer(name, secrets.token_urlsafe(16), self.new_game())
        self.players[name] = player
        try:
            self.changed()
        except NotSaved:
            del self.players[name]  # never saved: not kept either
            raise
        return player

    def touch(self) -> None:
        """Note that somebody used the room (rooms idle for long are closed)."""
        self.last_activity = self.clock()

    # -- the game ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the clock (any player may; starting a started game does nothing)."""
        self.touch()
        if self.status == WAITING:
            self.status = PLAYING
            self.ends_at = self.clock() + self.seconds
            try:
                self.changed()
            except NotSaved:
                self.status, self.ends_at = WAITING, None
                raise

    def remaining(self) -> float | None:
        """Seconds left while playing, else None."""
        if self.status != PLAYING or self.ends_at is None:
            return None
        return max(self.ends_at - self.clock(), 0.0)

    def submit(self, player: RoomPlayer, raw: object) -> Verdict:
        """Judge a word of ``player``: the verdict they would get alone (shared words only
        lose their points in the final table). Raises :class:`RoomError` out of play."""
        self.touch()
        if self.status != PLAYING:
            raise RoomError("the game has not started" if self.status == WAITING else "the game is over")
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            raise RoomError("time is up")
        if not isinstance(raw, str) or not raw.strip():
            raise RoomError("send a word")
        if len(raw) > self.limits.word_chars:
            raise RoomError(f"a word has at most {self.limits.word_chars} characters")
        if len(player.submitted) >= self.limits.words_per_game:
            raise RoomError(f"at most {self.limits.words_per_game} words a game")
        # Saved before it is judged: a word the store did not take is not played either.
        player.submitted.append(raw.strip())
        try:
            self.changed()
        except NotSaved:
            player.submitted.pop()
            raise
        return player.game.submit(raw)

    def finish(self) -> dict[str, Any]:
        """End the game (once) and return the result: the score sheet and the solution."""
        if self.result is None:
            self.status = OVER
            sheet = score_players(self.judge, {name: player.submitted for name, player in self.players.items()})
            from boggle_dafsa.web.hints import winner_line
            from boggle_dafsa.web.payloads import score_sheet_payload, solution_payload

            self.result = {
                "sheet": score_sheet_payload(sheet),
                "solution": solution_payload(self.judge.grid, self.judge.hits),
                "winner": winner_line([(player.name, player.score) for player in sheet.players]),
                "round": self.round,
            }
            # Unsaved, the room stays stored as playing until a moment now past: brought
            # back, it is finished again from the same words, with the same result.
            with suppress(NotSaved):
                self.changed()
        return self.result

    def next_round(self, seed: int) -> None:
        """After a game: a new grid (rolled with ``seed``) for the same players, waiting to start."""
        self.touch()
        if self.status != OVER:
            raise RoomError("a next round comes once this game is over")
        before = (self.seed, self.judge, self.round, self.status, self.ends_at, self.result, self.timer)
        games = {name: (player.game, player.submitted) for name, player in self.players.items()}
        self.seed = seed
        self.judge = self.new_judge(seed)
        for player in self.players.values():
            player.game = self.new_game()
            player.submitted = []
        self.round += 1
        self.status = WAITING
        self.ends_at = None
        self.result = None
        self.timer = None
        try:
            self.changed()
        except NotSaved:
            self.seed, self.judge, self.round, self.status, self.ends_at, self.result, self.timer = before
            for name, (game, submitted) in games.items():
                self.players[name].game, self.players[name].submitted = game, submitted
            raise

    def hint(self, player: RoomPlayer) -> dict[str, Any]:
        """The hints for ``player`` (see :mod:`boggle_dafsa.web.hints`), if the room gives them."""
        if not self.options.get("hints"):
            raise RoomError("this room gives no hints (they are chosen when the room is opened)")
        if self.status != PLAYING:
            raise RoomError("hints come during the game")
        return hint_payload(player.game)

    # -- what players see ----------------------------------------------------------------

    def state(self, player: RoomPlayer | None = None) -> dict[str, Any]:
        """The room as a page shows it; the grid only once the game has started."""
        grid = self.judge.grid
        state: dict[str, Any] = {
            "type": "state",
            "room": self.id,
            "status": self.status,
            "dice": self.dice_set.name,
            "title": self.dice_set.title,
            "dictionary": self.dictionary_name,
            "scoring": self.dice_set.scoring.name,
            "min_length": self.dice_set.min_length,
            "seconds": self.seconds,
            "round": self.round,
            "hints": bool(self.options.get("hints")),
            "clean": self.clean,
            "bonus": self.options.get("bonus") if self.bonus is not None else None,
            "remaining": self.remaining(),
            "shape": list(grid.shape),
            "grid": str(grid) if self.status != WAITING else None,
            "faces": list(grid.faces) if self.status != WAITING else None,
            "players": [
                {"name": p.name, "connected": bool(p.connections), "words": len(p.game.found)} for p in self.players.values()
            ],
        }
        if player is not None:
            from boggle_dafsa.web.payloads import found_payload

            state["you"] = {
                "name": player.name,
                "score": player.game.score,
                "found": [found_payload(player.game, word) for word in player.game.found],
                "bonus": list(player.game.bonus_found),
            }
            if self.status == OVER:
                # After the game, one's own: the missed words arranged for study (game/review.py).
                from boggle_dafsa.output.jsonable import review_json

                state["you"]["review"] = review_json(player.game.report())
        return state


class RoomRegistry:
    """The open rooms, bounded in number; idle ones are closed when room is needed."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.rooms: dict[str, Room] = {}
        #: Where rooms are kept across restarts (:class:`~boggle_dafsa.web.store.Store`), if anywhere.
        self.store: Any = None

    def get(self, room_id: str) -> Room:
        """The room ``room_id``; raises :class:`RoomError` if there is none."""
        room = self.rooms.get(room_id)
        if room is None:
            raise NoSuchRoom(f"no room {room_id[:32]!r} (it may have been closed, unused)")
        return room

    def make_room(self, create: Callable[[str], Room], owner: str | None = None) -> Room:
        """A new room built by ``create(room_id)``, opened by the address ``owner``.

        When as many rooms are open as allowed, one that nobody uses is closed to make room
        (:meth:`_make_room_for`); raises :class:`TooManyRooms` when every room is in use,
        :class:`NotSaved` when the store could not write the new one.
        """
        self._close_idle()
        if len(self.rooms) >= self.limits.rooms and not self._make_room_for():
            raise TooManyRooms(f"too many rooms in use ({self.limits.rooms}): try again later")
        room_id = secrets.token_urlsafe(6)
        while room_id in self.rooms:
            room_id = secrets.token_urlsafe(6)
        room = create(room_id)
        room.owner = owner
        self.rooms[room_id] = room
        if self.store is not None:
            room.saved = self.store.save_room
            try:
                room.changed()
            except NotSaved:
                del self.rooms[room_id]
                raise
        return room

    def _make_room_for(self) -> bool:
        """Close one room that nobody uses (no page open on it, no game under way) so that a
        new one can open; False if there is none.

        Rooms nobody joined go first, those of the address with the most rooms first, the
        oldest first; then rooms whose players have all left, the least recently used first;
        last, games under way that nobody touched for ``room_unused_seconds`` with no page
        open. So addresses opening all the rooms they may cannot keep a newcomer out: their
        unused rooms make way (and the newcomer's own, once its page is open, stays).
        """
        owned: dict[str | None, int] = {}
        for room in self.rooms.values():
            owned[room.owner] = owned.get(room.owner, 0) + 1
        unused = [room for room in self.rooms.values() if not self._in_use(room, self.limits.room_unused_seconds)]
        if not unused:
            return False
        victim = min(
            unused, key=lambda room: (room.status == PLAYING, bool(room.players), -owned[room.owner], room.last_activity)
        )
        return self._close(victim)

    def _in_use(self, room: Room, playing_seconds: float | None = None) -> bool:
        """A page is open on ``room``, or its game is under way (untouched for less than
        ``playing_seconds``, when given: a game its players all left makes way too)."""
        if room.sockets > 0 or any(p.connections for p in room.players.values()):
            return True
        if room.status != PLAYING:
            return False
        return playing_seconds is None or self.clock() - room.last_activity < playing_seconds

    def _close(self, room: Room) -> bool:
        """Close ``room``; False if the store could not delete it (it stays open)."""
        if self.store is not None:
            try:
                self.store.delete_room(room.id)
            except BoggleError:  # the store's StorageError: the room stays, as stored
                return False
        if room.timer is not None:
            room.timer.cancel()
        self.rooms.pop(room.id, None)
        return True

    def _close_idle(self) -> None:
        now = self.clock()
        for room in list(self.rooms.values()):
            idle = now - room.last_activity > (self.limits.room_idle_seconds if room.players else self.limits.room_unused_seconds)
            if idle and not self._in_use(room):
                self._close(room)
