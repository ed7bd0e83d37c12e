"""The daily puzzle on the server: ``GET /api/daily``, ``POST /api/daily`` and the ``/daily`` page.

The grid comes from :mod:`boggle_dafsa.game.daily` (the same as ``play --daily``). A player
who finishes sends the words they typed; the server judges them again (a score is never
taken on trust), keeps the best result of each player for the day (by a random id the
page keeps, no name) and answers with the day's average and best, and the text to share.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Body, FastAPI, Query
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field, StringConstraints

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.daily import DAILY_SECONDS, daily_seed, parse_day, share_text, today
from boggle_dafsa.web.payloads import roll_payload

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.web.settings import DictionaryCatalog

_PLAYER = re.compile(r"[A-Za-z0-9_-]{8,64}")


class MemoryResults:
    """The day's results when the server keeps no database (``create_app`` without ``data``)."""

    def __init__(self) -> None:
        self._results: dict[tuple[str, str, str], tuple[int, int]] = {}
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


class DailyResult(BaseModel):
    """A finished daily game: the words typed, in order (the server scores them)."""

    dice: str = Field("fr", max_length=32)
    date: str | None = Field(
        None, max_length=10, description="YYYY-MM-DD (UTC); default today. Today's or yesterday's puzzle only."
    )
    player: str = Field(min_length=8, max_length=64, description="A random id the page keeps: one result per player and day.")
    words: list[Annotated[str, StringConstraints(max_length=64)]] = Field(default_factory=list, max_length=1000)


def add_daily_routes(
    app: FastAPI,
    catalog: DictionaryCatalog,
    dice_set: Callable[[str], DiceSet],
    results: Any,
    page: str,
) -> None:
    """Add the daily puzzle's routes to ``app``: ``page`` is the page's HTML; ``results`` keeps
    them (a Store or :class:`MemoryResults`)."""

    def puzzle(dice: str, day: dt.date) -> dict[str, Any]:
        chosen = dice_set(dice)
        return {"date": day.isoformat(), **roll_payload(chosen, daily_seed(day, chosen.name), catalog), "seconds": DAILY_SECONDS}

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
        "/api/daily", summary="Send a finished daily game: its score (judged here), the day's average and best, the text to share"
    )
    def daily_result(request: Annotated[DailyResult, Body()]) -> JSONResponse:
        from boggle_dafsa.game.rounds import Game

        day = parse_day(request.date)
        if day < today() - dt.timedelta(days=1):
            raise BoggleError(f"results are kept for today's puzzle (and yesterday's), not {day.isoformat()}'s")
        if not _PLAYER.fullmatch(request.player):
            raise BoggleError("player: 8 to 64 letters, digits, - or _")
        answer = puzzle(request.dice, day)
        chosen = dice_set(answer["dice"])
        name, words = catalog.for_language(None, chosen.language)
        game = Game.from_dice(chosen, answer["seed"], words, dice=chosen.name, dictionary_spec=name)
        for word in request.words:
            game.submit(word)
        results.record_daily(answer["date"], answer["dice"], request.player, game.score, len(game.found))
        total_words, total_points = len(game.hits), sum(hit.points for hit in game.hits)
        return JSONResponse(
            {
                "date": answer["date"],
                "dice": answer["dice"],
                "score": game.score,
                "words": len(game.found),
                "total": {"words": total_words, "points": total_points},
                "share": share_text(day, answer["dice"], game.score, game.found, total_words, total_points),
                "results": results.daily_stats(answer["date"], answer["dice"]),
            }
        )
