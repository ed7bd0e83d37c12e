"""The arena on the server: one board for everybody every N minutes, ranks and rolling boards.

The boards, ranks and percentiles are :mod:`boggle_dafsa.game.arena`'s; this module keeps
the players' games (in the server's :class:`~boggle_dafsa.web.store.Store`, so that a
restart loses nothing) and answers the page ``/arena`` and its API:

- ``GET /api/arena``: the board under way (the same on any server with the same dice set
  and slot length) and the time it ends;
- ``POST /api/arena/join``: a name for the arena (unique up to case on this server) and a
  secret token the page keeps; the store keeps the token's SHA-256, never the token;
- ``POST /api/arena/word``: one word on the board under way, judged at once (a clean game,
  with bonus words for English); refused once the board is over (409);
- ``POST /api/arena/mine``: one's game on a board so far (a reloaded page takes it back);
- ``POST /api/arena/results``: once a board is over, its table (ranks and percentiles),
  and with a token one's own place, report and the board's words;
- ``POST /api/arena/boards``: the rolling boards, today and the week, and one's place.

Bounds by address (:class:`~boggle_dafsa.web.settings.Limits`): names made a day
(``arena_names_per_client``) and players on one board (``arena_players_per_client``); the
addresses are kept as a keyed hash, as the daily puzzle's are.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.arena import DEFAULT_SECONDS, Slot, Standing, check_seconds, ranked, standings, windows
from boggle_dafsa.game.bonus import FULL_LISTS
from boggle_dafsa.game.clean import blocked_words
from boggle_dafsa.game.rounds import EndReason, Game, Judge
from boggle_dafsa.web.guard import CLIENT_KEY, TooManyRequests, name_key, player_name
from boggle_dafsa.web.payloads import found_payload, report_payload, solution_payload, verdict_payload
from boggle_dafsa.web.settings import dice_set
from boggle_dafsa.web.site import page, render_page
from boggle_dafsa.web.store import token_hash

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.web.settings import DictionaryCatalog, Limits
    from boggle_dafsa.web.store import Store

#: Seconds after a board's end during which a word sent before it is still taken (the
#: network); its results are final after them.
GRACE_SECONDS = 2
#: Players listed in a board's table and on the rolling boards (one's own place comes apart).
TOP = 50
#: The name of the secret that hashes the addresses (table ``secrets``).
SECRET_NAME = "arena"


class ArenaRefused(BoggleError):
    """A word for a board that is over, results of a board still under way, a name taken: HTTP 409."""

    status = 409


class NotAPlayer(BoggleError):
    """A token this arena never gave: HTTP 403."""

    status = 403


@dataclass(frozen=True)
class ArenaSettings:
    """A server's arena: its dice set and the length of its slots (``serve --arena-dice``, ``--arena-minutes``)."""

    dice: str = "fr"
    seconds: int = DEFAULT_SECONDS

    def __post_init__(self) -> None:
        check_seconds(self.seconds)


def standing_json(standing: Standing) -> dict[str, Any]:
    """A place in a table or on a board."""
    return {
        "name": standing.player,
        "score": standing.score,
        "words": standing.words,
        "rank": standing.rank,
        "percentile": standing.percentile,
        "games": standing.games,
        "best": standing.best,
    }


class Arena:
    """The arena of one server: the board under way, the players' games (cached, stored), the tables.

    Thread-safe: the routes run in worker threads; one lock guards the caches, and the
    store has its own.
    """

    def __init__(
        self,
        settings: ArenaSettings,
        store: Store,
        catalog: DictionaryCatalog,
        dice_set: Callable[[str], DiceSet],
        limits: Limits,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.store = store
        self.limits = limits
        #: The wall clock (Unix time): the slots are cut in it. Tests move it.
        self.clock = clock
        self.dice_set = dice_set(settings.dice)
        self.catalog = catalog
        # The names now, the lists on first use (opening one may compile it: the server starts at once).
        language = self.dice_set.language
        self.dictionary_name: str = language if language is not None and language in catalog else catalog.default
        full = FULL_LISTS.get(self.dictionary_name)
        self.bonus_name = full if full is not None and full in catalog else None
        # Always clean: the same board for everybody, family-friendly (docs/game.md).
        self.blocked = blocked_words(self.dictionary_name, language)
        self._secret = store.secret(SECRET_NAME)
        self._lock = threading.Lock()
        self._judges: dict[int, Judge] = {}
        self._games: dict[tuple[int, int], tuple[Game, list[str]]] = {}

    # -- boards --------------------------------------------------------------------------

    def slot(self, index: int | None = None) -> Slot:
        """The slot under way (or the slot ``index``)."""
        if index is None:
            return Slot.at(self.settings.dice, self.settings.seconds, self.clock())
        return Slot(self.settings.dice, self.settings.seconds, index)

    def judge(self, slot: Slot) -> Judge:
        """The judge of ``slot``'s board: built once, the last few kept."""
        with self._lock:
            judge = self._judges.get(slot.index)
        if judge is None:
            bonus = None if self.bonus_name is None else self.catalog.get(self.bonus_name)[1]
            judge = Judge(
                slot.grid(self.dice_set),
                self.catalog.get(self.dictionary_name)[1],
                self.dice_set.scoring,
                self.dice_set.min_length,
                blocked=self.blocked,
                bonus=bonus,
            )
            with self._lock:
                self._judges[slot.index] = judge
                for old in sorted(self._judges)[:-3]:  # the board under way, the one before, one asked for
                    del self._judges[old]
        return judge

    def board(self) -> dict[str, Any]:
        """The board under way, as ``GET /api/arena`` sends it."""
        now = self.clock()
        slot = self.slot()
        grid = self.judge(slot).grid
        return {
            "dice": self.dice_set.name,
            "title": self.dice_set.title,
            "seconds": slot.seconds,
            "slot": slot.index,
            "seed": slot.seed,
            "starts": slot.starts,
            "ends": slot.ends,
            "now": now,
            "left": round(slot.ends - now, 3),
            "grid": str(grid),
            "shape": list(grid.shape),
            "faces": list(grid.faces),
            "scoring": self.dice_set.scoring.name,
            "min_length": self.dice_set.min_length,
            "dictionary": self.dictionary_name,
            "bonus": self.bonus_name,
        }

    # -- players -------------------------------------------------------------------------

    def address(self, request: Request) -> str:
        """The keyed hash of the request's address: the store never holds an address."""
        address = str(request.scope.get(CLIENT_KEY, "unknown"))
        return hmac.new(self._secret, f"address {address}".encode(), hashlib.sha256).hexdigest()[:24]

    def join(self, name: object, address: str) -> dict[str, Any]:
        """A new player ``name`` made from ``address``: their name as kept and their secret token."""
        try:
            name = player_name(name, self.limits.name_chars)
        except ValueError as error:
            raise BoggleError(str(error)) from None
        token = secrets.token_urlsafe(24)
        made = self.store.member_join(
            name, name_key(name), token_hash(token), address, self.clock(), self.limits.arena_names_per_client
        )
        if made == "taken":
            raise ArenaRefused(f"the name {name!r} is taken in this arena: choose another")
        if made == "address":
            most = self.limits.arena_names_per_client
            raise TooManyRequests(f"{most} arena names made from your address today already (at most {most})")
        return {"name": name, "token": token}

    def member(self, token: str) -> tuple[int, str]:
        """The player (id, name) of ``token``; :class:`NotAPlayer` for a token this arena never gave."""
        member = self.store.member(token_hash(token))
        if member is None:
            raise NotAPlayer("token: not a player of this arena (join again)")
        return member

    def game(self, slot: Slot, member: int) -> tuple[Game, list[str]]:
        """``member``'s game on ``slot``'s board and the words they sent (as typed, in order):
        from the cache, else replayed from the store (the same verdicts)."""
        key = (slot.index, member)
        with self._lock:
            cached = self._games.get(key)
        if cached is not None:
            return cached
        game = Game.on(self.judge(slot), seed=slot.seed, bonus_spec=self.bonus_name)
        submitted = self.store.arena_submitted(slot.dice, slot.seconds, slot.index, member) or []
        for word in submitted:
            game.submit(word)
        with self._lock:
            cached = self._games.setdefault(key, (game, submitted))
            for old in [old for old in self._games if old[0] < slot.index - 1]:
                del self._games[old]
        return cached

    def play(self, token: str, index: int, raw: str, address: str) -> dict[str, Any]:
        """Judge ``raw``, sent by ``token``'s player on the board ``index`` (the one under way)."""
        member, _name = self.member(token)
        now = self.clock()
        slot = self.slot(index)
        if now >= slot.ends + GRACE_SECONDS:
            raise ArenaRefused("this board is over: the next one is under way")
        if now < slot.starts:
            raise BoggleError(f"slot: board {index} has not started")
        word = raw.strip()
        if not word:
            raise BoggleError("word: send a word")
        game, submitted = self.game(slot, member)
        with self._lock:  # one player's words judged and kept in order, even from two tabs
            if len(submitted) >= self.limits.words_per_game:
                raise BoggleError(f"at most {self.limits.words_per_game} words a game")
            verdict = game.submit(word)
            submitted.append(word)
            try:
                kept = self.store.arena_save(
                    slot.dice,
                    slot.seconds,
                    slot.index,
                    slot.starts,
                    member,
                    submitted,
                    game.score,
                    len(game.found),
                    address,
                    self.limits.arena_players_per_client,
                )
            except BaseException:
                self._games.pop((slot.index, member), None)  # not stored: not played either
                raise
            if not kept:
                self._games.pop((slot.index, member), None)
                most = self.limits.arena_players_per_client
                raise TooManyRequests(f"{most} players from your address on this board already (at most {most})")
        return {
            **verdict_payload(game, verdict),
            "score": game.score,
            "found": len(game.found),
            "bonus_found": len(game.bonus_found),
        }

    def mine(self, token: str, index: int) -> dict[str, Any]:
        """``token``'s game on the board ``index`` so far: score, words found, bonus words."""
        member, name = self.member(token)
        slot = self.slot(index)
        game, _submitted = self.game(slot, member)
        return {
            "name": name,
            "slot": slot.index,
            "score": game.score,
            "found": [found_payload(game, word) for word in game.found],
            "bonus": list(game.bonus_found),
        }

    # -- tables --------------------------------------------------------------------------

    def results(self, index: int, token: str | None) -> dict[str, Any]:
        """The table of the board ``index`` once it is over; with ``token``, one's place,
        report (with the review) and the board's words."""
        slot = self.slot(index)
        now = self.clock()
        if now < slot.ends + GRACE_SECONDS:
            raise ArenaRefused(f"board {index} is still being played: its results come {max(slot.ends - now, 0):.0f} s from now")
        table = standings(self.store.arena_results(slot.dice, slot.seconds, slot.index))
        answer: dict[str, Any] = {
            "slot": slot.index,
            "starts": slot.starts,
            "ends": slot.ends,
            "players": len(table),
            "table": [standing_json(standing) for standing in table[:TOP]],
        }
        if token is not None:
            member, name = self.member(token)
            mine = next((standing for standing in table if standing.player == name), None)
            answer["you"] = None if mine is None else standing_json(mine)
            game, _submitted = self.game(slot, member)
            answer["report"] = report_payload(game.report(EndReason.TIME_UP, seconds=slot.seconds))
            answer["solution"] = solution_payload(game.grid, game.hits)
        return answer

    def boards(self, token: str | None) -> dict[str, Any]:
        """The rolling boards (today, the week) of the boards over, and one's place on each."""
        now = self.clock()
        before = self.slot().starts  # the boards over: those that started before the one under way
        name = self.member(token)[1] if token is not None else None
        answer: dict[str, Any] = {"dice": self.dice_set.name, "seconds": self.settings.seconds}
        for window, (since, _until) in windows(now).items():
            table = ranked(self.store.arena_totals(self.settings.dice, self.settings.seconds, since, before))
            mine = next((standing for standing in table if standing.player == name), None)
            answer[window] = {
                "since": since,
                "players": len(table),
                "table": [standing_json(standing) for standing in table[:TOP]],
                "you": None if mine is None else standing_json(mine),
            }
        return answer


class JoinRequest(BaseModel):
    """A name for the arena."""

    name: str = Field(max_length=64, description="Your name on the tables (unique on this server, up to case).")


class WordRequest(BaseModel):
    """One word on the board under way."""

    token: str = Field(min_length=8, max_length=64, description="From `POST /api/arena/join`.")
    slot: int = Field(ge=0, le=2**40, description="The board's slot, from `GET /api/arena`.")
    word: str = Field(max_length=64)


class MineRequest(BaseModel):
    """One's game on a board."""

    token: str = Field(min_length=8, max_length=64)
    slot: int = Field(ge=0, le=2**40)


class ResultsRequest(BaseModel):
    """A board's results (with a token: one's own place and report)."""

    slot: int = Field(ge=0, le=2**40)
    token: str | None = Field(None, min_length=8, max_length=64)


class BoardsRequest(BaseModel):
    """The rolling boards (with a token: one's own place)."""

    token: str | None = Field(None, min_length=8, max_length=64)


def add_arena_routes(app: FastAPI, settings: ArenaSettings, store: Store) -> Arena:
    """The arena's page (``/arena``) and API, over ``store`` (the server's, or one in memory);
    the :class:`Arena`, also at ``app.state.arena`` (tests move its clock)."""
    arena = Arena(settings, store, app.state.catalog, dice_set, app.state.limits)
    app.state.arena = arena
    app.get("/arena", include_in_schema=False)(page(render_page("arena", "/arena")))

    @app.get("/api/arena", summary="The arena: the board under way, the same for everybody, and when it ends")
    def board() -> JSONResponse:
        return JSONResponse(arena.board())

    @app.post("/api/arena/join", status_code=201, summary="Take a name in the arena: a secret token to keep")
    def join(http: Request, request: Annotated[JoinRequest, Body()]) -> JSONResponse:
        return JSONResponse(arena.join(request.name, arena.address(http)), status_code=201)

    @app.post("/api/arena/word", summary="One word on the board under way: its verdict and your score")
    def word(http: Request, request: Annotated[WordRequest, Body()]) -> JSONResponse:
        return JSONResponse(arena.play(request.token, request.slot, request.word, arena.address(http)))

    @app.post("/api/arena/mine", summary="Your game on a board so far (a reloaded page takes it back)")
    def mine(request: Annotated[MineRequest, Body()]) -> JSONResponse:
        return JSONResponse(arena.mine(request.token, request.slot))

    @app.post("/api/arena/results", summary="A board's table once it is over: ranks, percentiles; yours, your report")
    def results(request: Annotated[ResultsRequest, Body()]) -> JSONResponse:
        return JSONResponse(arena.results(request.slot, request.token))

    @app.post("/api/arena/boards", summary="The rolling boards: today (UTC) and the last 7 days; your place")
    def boards(request: Annotated[BoardsRequest, Body()]) -> JSONResponse:
        return JSONResponse(arena.boards(request.token))

    return arena
