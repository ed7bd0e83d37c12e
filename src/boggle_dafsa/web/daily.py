"""The daily puzzle on the server: ``GET /api/daily``, ``POST /api/daily/start``, ``POST /api/daily``,
``POST /api/daily/solution`` and the ``/daily`` page.

The grid comes from :mod:`boggle_dafsa.game.daily` (the same as ``play --daily``). A player
who finishes sends the words they typed; the server judges them again (a score is never
taken on trust) and answers with the day's average and best, and the text to share.

A result counts (goes into the day's average and best) only if it comes with a **start
token**: ``POST /api/daily/start`` gives one to a player (a random id the page keeps, no
name) when they press Start, signed with the server's secret (HMAC-SHA256 over the day, the
dice set, the grid, the player and the time it was made). It counts once a player and day,
only if sent within the game's time plus :data:`GRACE_SECONDS` of the start, and never after
the player was shown the solution by ``POST /api/daily/solution``. Starts and results that
count are bounded by address and day (:attr:`Limits.daily_starts_per_client`,
:attr:`Limits.daily_results_per_client`). What this can and cannot prevent: docs/web.md.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Protocol

from fastapi import Body, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field, StringConstraints

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.clean import blocked_words
from boggle_dafsa.game.daily import DAILY_SECONDS, daily_seed, parse_day, share_text, streaks, today
from boggle_dafsa.game.rounds import EndReason, Game
from boggle_dafsa.web.guard import CLIENT_KEY, TooManyRequests
from boggle_dafsa.web.payloads import report_payload, roll_payload, solution_payload
from boggle_dafsa.web.settings import AUTO
from boggle_dafsa.web.store import token_hash

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.web.settings import DictionaryCatalog, Limits
    from boggle_dafsa.web.store import Store

_PLAYER = re.compile(r"[A-Za-z0-9_-]{8,64}")
#: Seconds after the end of a game during which its result still counts (the network, the
#: words still being judged when the clock reaches 0).
GRACE_SECONDS = 15
#: The name of the secret that signs the start tokens (in the database, table ``secrets``).
SECRET_NAME = "daily"


class NotAPlayer(BoggleError):
    """A player's token this server never gave: HTTP 403."""

    status = 403


class DailyRefused(BoggleError):
    """A result that cannot count (sent twice, too late, after the solution was shown): HTTP 409."""

    status = 409


class DailyLedger(Protocol):
    """Where the daily results and starts are kept: :class:`boggle_dafsa.web.store.Store`
    (SQLite, survives a restart) or :class:`MemoryResults`."""

    def daily_stats(self, day: str, dice: str) -> dict[str, Any]: ...

    def secret(self, name: str) -> bytes: ...

    def daily_start(
        self, day: str, dice: str, player: str, address: str, now: float, most: int, forget_before: str
    ) -> tuple[float, bool, bool] | None: ...

    def daily_reveal(self, day: str, dice: str, player: str, started: float) -> None: ...

    def daily_claim(
        self, day: str, dice: str, player: str, started: float, address: str, most: int, score: int, words: int
    ) -> str | None: ...


class MemoryResults:
    """The day's results and starts when the server keeps no database (``create_app`` without
    ``data``): the same answers as the Store's, forgotten when the server stops (with the
    secret: the tokens it gave are no longer valid)."""

    def __init__(self) -> None:
        self._results: dict[tuple[str, str, str], tuple[int, int]] = {}
        # (day, dice, player) -> [started, address, revealed, counted by]
        self._starts: dict[tuple[str, str, str], list[Any]] = {}
        self._secrets: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def record_daily(self, day: str, dice: str, player: str, score: int, words: int) -> None:
        with self._lock:
            old = self._results.get((day, dice, player), (0, 0))
            self._results[(day, dice, player)] = (max(old[0], score), max(old[1], words))

    def daily_stats(self, day: str, dice: str) -> dict[str, Any]:
        with self._lock:
            rows = [value for (d, s, _), value in self._results.items() if (d, s) == (day, dice)]
        return {
            "players": len(rows),
            "average": round(sum(score for score, _ in rows) / len(rows), 1) if rows else None,
            "best": max((score for score, _ in rows), default=None),
            "average_words": round(sum(words for _, words in rows) / len(rows), 1) if rows else None,
        }

    def secret(self, name: str) -> bytes:
        with self._lock:
            return self._secrets.setdefault(name, os.urandom(32))

    def daily_start(
        self, day: str, dice: str, player: str, address: str, now: float, most: int, forget_before: str
    ) -> tuple[float, bool, bool] | None:
        with self._lock:
            row = self._starts.get((day, dice, player))
            if row is not None:
                return row[0], row[2], row[3] is not None
            if sum(1 for (d, _, _), r in self._starts.items() if d == day and r[1] == address) >= most:
                return None
            for key in [key for key in self._starts if key[0] < forget_before]:
                del self._starts[key]
            self._starts[(day, dice, player)] = [now, address, False, None]
            return now, False, False

    def daily_reveal(self, day: str, dice: str, player: str, started: float) -> None:
        with self._lock:
            row = self._starts.get((day, dice, player))
            if row is not None and row[0] == started:
                row[2] = True

    def daily_claim(
        self, day: str, dice: str, player: str, started: float, address: str, most: int, score: int, words: int
    ) -> str | None:
        with self._lock:
            row = self._starts.get((day, dice, player))
            if row is None or row[0] != started:
                return "unknown"
            if row[3] is not None:
                return "counted"
            if row[2]:
                return "revealed"
            if sum(1 for (d, _, _), r in self._starts.items() if d == day and r[3] == address) >= most:
                return "address"
            row[3] = address
            self._results[(day, dice, player)] = (score, words)
        return None


@dataclass(frozen=True)
class StartToken:
    """What a start token says: who started which puzzle, and when (Unix time)."""

    day: str
    dice: str
    grid: str
    player: str
    started: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sign_token(secret: bytes, start: StartToken) -> str:
    """``start`` as a token: its fields (JSON, base64url), a dot, their HMAC-SHA256 under ``secret``."""
    fields = {"v": 1, "day": start.day, "dice": start.dice, "grid": start.grid, "player": start.player, "t": start.started}
    body = _b64(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode())
    return f"{body}.{_b64(hmac.new(secret, body.encode(), hashlib.sha256).digest())}"


def read_token(secret: bytes, token: str) -> StartToken | None:
    """The start a token made by :func:`sign_token` with ``secret`` says; None for anything else."""
    body, _, signature = token.partition(".")
    expected = _b64(hmac.new(secret, body.encode(), hashlib.sha256).digest())
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        return None
    try:
        fields = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        started = fields["t"]
        if fields.get("v") != 1 or isinstance(started, bool) or not isinstance(started, (int, float)):
            return None
        start = StartToken(str(fields["day"]), str(fields["dice"]), str(fields["grid"]), str(fields["player"]), float(started))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return start


class DailyStart(BaseModel):
    """A player starting the daily puzzle."""

    dice: str = Field("fr", max_length=32)
    date: str | None = Field(
        None, max_length=10, description="YYYY-MM-DD (UTC); default today. Today's or yesterday's puzzle only."
    )
    player: str = Field(min_length=8, max_length=64, description="A random id the page keeps: one game per player and day.")


class DailyResult(BaseModel):
    """A finished daily game: the words typed, in order (the server scores them), and its start token."""

    token: str | None = Field(
        None, max_length=1024, description="From `POST /api/daily/start`: without it, the result is judged but not counted."
    )
    dice: str = Field("fr", max_length=32, description="Without a token: the dice set (a token says its own).")
    date: str | None = Field(None, max_length=10, description="Without a token: YYYY-MM-DD (UTC); default today.")
    player: str | None = Field(None, min_length=8, max_length=64, description="Ignored: the token names the player.")
    words: list[Annotated[str, StringConstraints(max_length=64)]] = Field(default_factory=list, max_length=1000)
    member: str | None = Field(
        None,
        min_length=8,
        max_length=64,
        description="A player's token (`POST /api/arena/join`): a result that counts goes into their streak on this server.",
    )


class DailyStreak(BaseModel):
    """A player's daily streak, kept on the server for players with a token."""

    member: str = Field(min_length=8, max_length=64, description="The player's token (`POST /api/arena/join`).")
    dice: str = Field("fr", max_length=32)


class DailySolution(BaseModel):
    """Ask for the solution of the daily puzzle one started: from then on, its result no longer counts."""

    token: str = Field(max_length=1024, description="From `POST /api/daily/start`.")
    words: list[Annotated[str, StringConstraints(max_length=64)]] = Field(default_factory=list, max_length=1000)


def add_daily_routes(
    app: FastAPI,
    catalog: DictionaryCatalog,
    dice_set: Callable[[str], DiceSet],
    results: DailyLedger,
    page: str,
    limits: Limits,
    members: Store | None = None,
) -> None:
    """Add the daily puzzle's routes to ``app``: ``page`` is the page's HTML; ``results`` keeps
    the results and starts; ``members``, the players with a token and their streaks (the
    store the arena keeps its players in). ``app.state.daily_clock`` (default :func:`time.time`)
    is the clock of the starts and of the time a result is sent (tests move it)."""
    app.state.daily_clock = time.time
    secret = results.secret(SECRET_NAME)

    def puzzle(dice: str, day: dt.date) -> dict[str, Any]:
        chosen = dice_set(dice)
        return {"date": day.isoformat(), **roll_payload(chosen, daily_seed(day, chosen.name), catalog), "seconds": DAILY_SECONDS}

    def recent(text: str | None) -> dt.date:
        day = parse_day(text)
        if day < today() - dt.timedelta(days=1):
            raise BoggleError(f"results are kept for today's puzzle (and yesterday's), not {day.isoformat()}'s")
        return day

    def address_of(request: Request) -> str:
        # A keyed hash: the database never holds a client's address.
        address = str(request.scope.get(CLIENT_KEY, "unknown"))
        return hmac.new(secret, f"address {address}".encode(), hashlib.sha256).hexdigest()[:24]

    def played(dice: str, day: dt.date, words: list[str]) -> tuple[dict[str, Any], Game]:
        answer = puzzle(dice, day)
        chosen = dice_set(answer["dice"])
        name, dictionary = catalog.for_language(None, chosen.language)
        # Always clean: the same puzzle for everybody, family-friendly (docs/game.md); with
        # the bonus words of the embedded pair where there is one (English: enable2k).
        blocked = blocked_words(name, chosen.language)
        full = catalog.bonus_for(name, AUTO)
        game = Game.from_dice(
            chosen,
            answer["seed"],
            dictionary,
            dice=chosen.name,
            dictionary_spec=name,
            blocked=blocked,
            bonus=None if full is None else full[1],
            bonus_spec=None if full is None else full[0],
        )
        for word in words:
            game.submit(word)
        return answer, game

    def token_start(token: str) -> StartToken:
        start = read_token(secret, token)
        if start is None:
            raise BoggleError("token: not a start token of this server (press Start again)")
        return start

    @app.get("/daily", include_in_schema=False)
    async def daily_page() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get("/api/daily", summary="The daily puzzle: the same grid for everybody on a UTC day and dice set")
    def daily(
        dice: Annotated[str, Query(max_length=32, description="A dice set of `/api/dice`.")] = "fr",
        date: Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD (UTC); default today.")] = None,
    ) -> JSONResponse:
        day = parse_day(date)
        answer = puzzle(dice, day)
        answer["results"] = results.daily_stats(answer["date"], answer["dice"])
        return JSONResponse(answer)

    @app.post(
        "/api/daily/start",
        summary="Start the daily puzzle: a signed start token, and the time left (a second start gives the first one back)",
    )
    def daily_start(http: Request, request: Annotated[DailyStart, Body()]) -> JSONResponse:
        day = recent(request.date)
        if not _PLAYER.fullmatch(request.player):
            raise BoggleError("player: 8 to 64 letters, digits, - or _")
        answer = puzzle(request.dice, day)
        now = app.state.daily_clock()
        forget = (today() - dt.timedelta(days=1)).isoformat()
        kept = results.daily_start(
            answer["date"], answer["dice"], request.player, address_of(http), now, limits.daily_starts_per_client, forget
        )
        if kept is None:
            raise TooManyRequests(
                f"{limits.daily_starts_per_client} daily games started from your address today already (at most"
                f" {limits.daily_starts_per_client})"
            )
        started, revealed, counted = kept
        start = StartToken(answer["date"], answer["dice"], answer["grid"], request.player, started)
        return JSONResponse(
            {
                "token": sign_token(secret, start),
                "date": answer["date"],
                "dice": answer["dice"],
                "grid": answer["grid"],
                "started": started,
                "seconds": DAILY_SECONDS,
                "grace": GRACE_SECONDS,
                "left": round(max(0.0, started + DAILY_SECONDS - now), 3),
                "revealed": revealed,
                "counted": counted,
            }
        )

    @app.post(
        "/api/daily",
        summary="Send a finished daily game: its score (judged here), the day's average and best, the text to share",
    )
    def daily_result(http: Request, request: Annotated[DailyResult, Body()]) -> JSONResponse:
        if request.token is None:
            day = recent(request.date)
            answer, game = played(request.dice, day, request.words)
            counted, why = False, "no start token (POST /api/daily/start): judged, not counted"
        else:
            start = token_start(request.token)
            if request.player is not None and request.player != start.player:
                raise BoggleError("player: the token is another player's")
            day = recent(start.day)
            answer, game = played(start.dice, day, request.words)
            if answer["grid"] != start.grid:
                raise BoggleError("token: made for another grid")
            late = app.state.daily_clock() - (start.started + DAILY_SECONDS)
            if late > GRACE_SECONDS:
                raise DailyRefused(f"sent {late:.0f} s after your game ended: too late to count")
            address = address_of(http)
            refused = results.daily_claim(
                start.day,
                start.dice,
                start.player,
                start.started,
                address,
                limits.daily_results_per_client,
                game.score,
                len(game.found),
            )
            if refused == "address":
                most = limits.daily_results_per_client
                raise TooManyRequests(f"{most} daily results from your address today already (at most {most})")
            if refused == "unknown":
                raise BoggleError("token: this server has no such start (press Start again)")
            if refused == "counted":
                raise DailyRefused(f"your result of the {start.day} puzzle ({start.dice}) is in already: one a player and day")
            if refused == "revealed":
                raise DailyRefused("the solution was shown to you: a result sent after it does not count")
            counted, why = True, None
            if request.member is not None and members is not None:
                member = members.member(token_hash(request.member))
                if member is not None:  # a token of no player: the result counts, no streak is kept
                    members.member_day(member[0], start.day, start.dice, game.score, len(game.found))
        total_words, total_points = len(game.hits), sum(hit.points for hit in game.hits)
        body: dict[str, Any] = {
            "date": answer["date"],
            "dice": answer["dice"],
            "score": game.score,
            "words": len(game.found),
            "counted": counted,
            "total": {"words": total_words, "points": total_points},
            "share": share_text(day, answer["dice"], game.score, game.found, total_words, total_points),
            "results": results.daily_stats(answer["date"], answer["dice"]),
        }
        if why is not None:
            body["why"] = why
        return JSONResponse(body)

    @app.post(
        "/api/daily/streak",
        summary="A player's daily streak on this server (players with a token): days in a row, the best run, the days",
    )
    def daily_streak(request: Annotated[DailyStreak, Body()]) -> JSONResponse:
        if members is None:
            raise BoggleError("this server keeps no players")
        member = members.member(token_hash(request.member))
        if member is None:
            raise NotAPlayer("member: not a player of this server (join the arena to take a name)")
        chosen = dice_set(request.dice)
        days = members.member_days(member[0], chosen.name)
        current, best = streaks((dt.date.fromisoformat(day) for day, _, _ in days), today())
        return JSONResponse(
            {
                "name": member[1],
                "dice": chosen.name,
                "current": current,
                "best": best,
                "played": len(days),
                "days": [{"date": day, "score": score, "words": words} for day, score, words in days[:30]],
            }
        )

    @app.post(
        "/api/daily/solution",
        summary="The daily puzzle's solution and the report of one's words; from then on one's result no longer counts",
    )
    def daily_solution(request: Annotated[DailySolution, Body()]) -> JSONResponse:
        start = token_start(request.token)
        day = recent(start.day)
        # Marked before anything is sent: a result that comes after cannot count.
        results.daily_reveal(start.day, start.dice, start.player, start.started)
        answer, game = played(start.dice, day, request.words)
        return JSONResponse(
            {
                "date": answer["date"],
                "dice": answer["dice"],
                "report": report_payload(game.report(EndReason.TIME_UP, seconds=DAILY_SECONDS)),
                "solution": solution_payload(game.grid, game.hits),
            }
        )
