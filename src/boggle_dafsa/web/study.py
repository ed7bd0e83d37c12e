"""The Study page (``/study``): ``/api/search`` and the cardbox quiz's API (``/api/quiz/...``).

- ``GET /api/search`` answers what ``boggle-dafsa search ... --json`` prints for the same
  conditions (or, with ``count=true``, what ``--count`` prints): the same library call
  (:func:`boggle_dafsa.query.conditions.search_words`), the same columns
  (:class:`~boggle_dafsa.output.columns.WordColumns`). The parameters are named as the
  library's keywords (``takes_suffix``, ``not_in``; ranges as ``MIN-MAX``); ``in`` and
  ``not_in`` name dictionaries of the server's catalog, ``tiles`` is ``en`` or ``fr``
  (nothing a client sends is taken as a path). Bounded as the word queries are
  (:mod:`.words`): a solve slot of the client's address, the solves' deadline, at most
  :attr:`~.settings.Limits.query_results` words.
- The quiz is Zyzzyva's cardbox, scheduled by the library (:mod:`boggle_dafsa.study`), the
  same as the terminal's. A player's cardbox is kept either in the browser (anonymous: the
  page keeps its cards in ``localStorage`` and sends the card with each answer; the server
  keeps nothing) or on the server under a token (``POST /api/quiz/token``; the token then
  goes in the ``Authorization: Bearer`` header), in SQLite: ``web-quiz.sqlite3`` in the
  server's data folder (one connection behind a lock, each answer committed at once),
  in memory for a server without one. An answer says which schedule moves its card:
  ``"cardbox"`` (Zyzzyva's, the default) or ``"fsrs"`` (FSRS-5, :mod:`boggle_dafsa.study.fsrs`).
  A token is a secret the server does not list: the
  cardbox is keyed by its SHA-256, and a token nobody made is an empty cardbox. Bounds:
  :data:`MAX_ADDED` questions a request, :data:`MAX_CARDS` cards a token.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.output.columns import WordColumns, parse_columns
from boggle_dafsa.output.jsonable import quiz_answer_json, quiz_card_json, quiz_stats_json
from boggle_dafsa.query import anagram_words
from boggle_dafsa.query.conditions import SEARCH_CONDITIONS, search_words
from boggle_dafsa.query.tiles import BAGS
from boggle_dafsa.study.expected import expected_table
from boggle_dafsa.study.history import History
from boggle_dafsa.study.schedule import Card, new_card
from boggle_dafsa.study.session import Question, alphagram, alphagrams, answers_of, judge, ordered, scheduler, verdict_line
from boggle_dafsa.web.guard import CLIENT_KEY, bounded
from boggle_dafsa.web.site import page, render_page

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: The web server's quiz database, in the server's data folder: apart from the terminal's
#: quiz.sqlite3 (the local user's own cardboxes).
DATABASE = "web-quiz.sqlite3"
#: A token: 32 characters of base64url (192 random bits).
TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")
#: Most questions one request adds or asks about; most cards one token's cardbox holds.
MAX_ADDED = 2_000
MAX_CARDS = 20_000
#: Most due cards one request lists.
MAX_DUE = 500
#: Most words one answer holds.
MAX_TYPED = 200
#: Longest question (an alphagram) and typed word.
MAX_LETTERS = 64

Text = Annotated[str | None, Query(max_length=1000)]
Range = Annotated[str | None, Query(max_length=32, description="MIN-MAX, MIN-, -MAX or N.")]


class BadRequest(BoggleError):
    """A request the quiz cannot take (HTTP 400)."""


class NoToken(BoggleError):
    """A request that needs a token without one (HTTP 401)."""

    status = 401


class CardIn(BaseModel):
    """A card as the page keeps it (anonymous quiz): what the schedule needs."""

    box: int = Field(default=0, ge=0, le=10)
    due: str = Field(default="2000-01-01", max_length=10)
    right: int = Field(default=0, ge=0, le=1_000_000)
    wrong: int = Field(default=0, ge=0, le=1_000_000)
    streak: int = Field(default=0, ge=-1_000_000, le=1_000_000)
    # FSRS's memory (schedule "fsrs"): absent for a card the cardbox schedules.
    stability: float | None = Field(default=None, ge=0.01, le=36500)
    difficulty: float | None = Field(default=None, ge=1, le=10)
    reviewed: str | None = Field(default=None, max_length=10)


class AddBody(BaseModel):
    """Words (from a search) whose anagram groups become questions."""

    d: str | None = Field(default=None, max_length=64)
    words: list[Annotated[str, Field(max_length=MAX_LETTERS)]] = Field(default_factory=list, max_length=MAX_ADDED)
    today: str | None = Field(default=None, max_length=10)


class AnswerBody(BaseModel):
    """An answer: the question, the words typed, the day; the card itself when the page keeps it."""

    d: str | None = Field(default=None, max_length=64)
    question: str = Field(..., min_length=1, max_length=MAX_LETTERS)
    words: list[Annotated[str, Field(max_length=MAX_LETTERS)]] = Field(default_factory=list, max_length=MAX_TYPED)
    today: str | None = Field(default=None, max_length=10)
    card: CardIn | None = None
    schedule: str = Field(default="cardbox", max_length=16)


def _day(text: str | None) -> date:
    """``text`` (YYYY-MM-DD, years 2000 to 2199) as a date; None: the server's today."""
    if text is None:
        return date.today()
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"today {text!r}: a date as YYYY-MM-DD") from None
    if not 2000 <= day.year < 2200:
        raise BadRequest(f"today {text!r}: a year from 2000 to 2199")
    return day


def _token(request: Request) -> str | None:
    """The SHA-256 (hex) of the request's bearer token, or None without one; a malformed
    token is a 401."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _space, token = header.partition(" ")
    if scheme.lower() != "bearer" or not TOKEN.fullmatch(token.strip()):
        raise NoToken("the Authorization header must be 'Bearer TOKEN' with a token of POST /api/quiz/token")
    return hashlib.sha256(token.strip().encode("ascii")).hexdigest()


class QuizStore:
    """The players' cardboxes on the server: one :class:`~boggle_dafsa.study.history.History`
    (``web-quiz.sqlite3`` in ``folder``, or in memory), its calls serialized by a lock."""

    def __init__(self, folder: Path | None) -> None:
        if folder is None:
            self.history: History = History(memory=True)
        else:
            # No lock of its own: the server holds its data folder's (web/run.py).
            self.history = History(folder, database=DATABASE, lock=None)
        self._lock = threading.Lock()

    @contextmanager
    def held(self) -> Iterator[History]:
        with self._lock:
            yield self.history

    def close(self) -> None:
        with self._lock:
            self.history.close()


def _table(name: str) -> Any:
    """The expected-points table of the dictionary ``name``, or None where none was computed."""
    try:
        return expected_table(name)
    except BoggleError:
        return None


def lexicon_of(token_hash: str, dictionary: str) -> str:
    """The cardbox key of a token's dictionary (the terminal's lexicon, prefixed)."""
    return f"web:{token_hash[:32]}:{dictionary}"


def add_study_routes(app: FastAPI) -> None:
    """The Study page, ``/api/search`` and ``/api/quiz/...`` on ``app`` (its state: the
    catalog, limits, guard and store that :func:`boggle_dafsa.web.app.create_app` set)."""
    catalog = app.state.catalog
    limits = app.state.limits
    guard = app.state.guard
    store = app.state.store
    folder = store.path.parent if store is not None and store.path is not None else None
    quiz = QuizStore(folder)
    app.state.quiz = quiz

    app.get("/study", include_in_schema=False)(page(render_page("study", "/study")))

    async def dictionary(name: str | None) -> tuple[str, Dictionary]:
        if catalog.is_open(name):
            return catalog.get(name)  # type: ignore[no-any-return]
        return await run_in_threadpool(catalog.get, name)  # type: ignore[no-any-return]

    async def work(request: Request, job: Any, advice: str) -> Any:
        """``job()`` in a worker thread, in one of the address's solve slots, under the deadline."""
        with guard.solving(request.scope.get(CLIENT_KEY, "unknown")):
            return await run_in_threadpool(bounded, limits.solve_seconds, job, advice)

    @app.get(
        "/api/search",
        summary="Words meeting every condition given: what `boggle-dafsa search ... --json` prints",
    )
    async def search(
        request: Request,
        d: Annotated[str | None, Query(max_length=64, description="A dictionary of `/api/dictionaries` (`-d`).")] = None,
        pattern: Annotated[str | None, Query(max_length=1000, description="Match a pattern (`--pattern`).")] = None,
        regex: Annotated[str | None, Query(max_length=1000, description="Match a regular expression whole (`--regex`).")] = None,
        anagram: Annotated[str | None, Query(max_length=64, description="Anagrams of these letters, `?` a blank.")] = None,
        subanagram: Annotated[str | None, Query(max_length=64, description="Words of some of these letters.")] = None,
        length: Range = None,
        includes: Annotated[str | None, Query(max_length=64, description="Holds these letters (`AAB`).")] = None,
        excludes: Annotated[str | None, Query(max_length=64, description="Holds none of these letters.")] = None,
        vowels: Range = None,
        distinct: Range = None,
        points: Range = None,
        takes_prefix: Annotated[str | None, Query(max_length=64, description="PREFIX+word is a word.")] = None,
        takes_suffix: Annotated[str | None, Query(max_length=64, description="word+SUFFIX is a word.")] = None,
        not_takes_prefix: Annotated[str | None, Query(max_length=64, description="PREFIX+word is not a word.")] = None,
        not_takes_suffix: Annotated[str | None, Query(max_length=64, description="word+SUFFIX is not a word.")] = None,
        hooks: Annotated[str | None, Query(max_length=32, description="front, back or inner (comma-separated).")] = None,
        anagrams: Range = None,
        probability: Range = None,
        in_: Annotated[str | None, Query(alias="in", max_length=64, description="A word of this dictionary too.")] = None,
        not_in: Annotated[str | None, Query(max_length=64, description="Not a word of this dictionary.")] = None,
        tiles: Annotated[str | None, Query(max_length=8, description="Tile bag: en or fr (`--tiles`).")] = None,
        probability_blanks: Annotated[int, Query(ge=0, le=2, description="Blanks the probability counts.")] = 2,
        sort: Annotated[
            str | None, Query(max_length=16, description="alpha, length, points, probability or expected (`--sort`).")
        ] = None,
        columns: Annotated[
            str | None,
            Query(max_length=64, description="hooks, probability, anagrams, points, expected, comma-separated."),
        ] = None,
        limit: Annotated[int | None, Query(ge=0, description="At most this many words (`--limit`).")] = None,
        count: Annotated[bool, Query(description="Answer how many words there are, as `--count` prints it.")] = False,
    ) -> JSONResponse:
        values = dict(locals())
        most = limits.query_results
        if limit is not None and limit > most:
            raise BoggleError(f"limit {limit} is more than this server lists ({most} results at most)")
        if tiles is not None and tiles not in BAGS:
            raise BoggleError(f"tiles {tiles!r}: {', '.join(BAGS)} (a server takes no file)")
        names = parse_columns(columns)
        name, words = await dictionary(d)
        conditions = {key: values[key] for key in SEARCH_CONDITIONS if values[key] is not None}
        for key, given in (("in_", in_), ("not_in", not_in)):
            if given is not None:
                conditions[key] = (await dictionary(given))[1]
        table = name if sort == "expected" or "expected" in names else None

        def job() -> tuple[Any, bool]:
            if count:
                found = search_words(
                    words,
                    None,
                    limit,
                    tiles=tiles,
                    probability_blanks=probability_blanks,
                    sort=sort,
                    expected=table,
                    **conditions,
                )
                return sum(1 for _ in found), False
            want = most if limit is None else limit
            found = search_words(
                words, None, want + 1, tiles=tiles, probability_blanks=probability_blanks, sort=sort, expected=table, **conditions
            )
            listed = list(islice(found, want + 1))
            shown = WordColumns(words, names, tiles, probability_blanks, expected=table) if names else None
            rows = [shown.fields(word) if shown else {"word": word} for word in listed[:want]]
            return {"words": rows}, len(listed) > want

        answer, more = await work(request, job, "add conditions, or ask for fewer words (limit)")
        return JSONResponse(answer, headers={"x-more-results": "true"} if more else None)

    @app.post("/api/quiz/token", summary="A new cardbox on this server: its token, for the Authorization header")
    async def new_token() -> JSONResponse:
        return JSONResponse({"token": secrets.token_urlsafe(24)})

    @app.post(
        "/api/quiz/add",
        summary="The anagram groups of some words as questions (each with its number of words); kept in the token's cardbox",
    )
    async def add(request: Request, body: AddBody) -> JSONResponse:
        token = _token(request)
        name, words = await dictionary(body.d)

        def job() -> dict[str, Any]:
            spelled = [spelled for word in body.words if (spelled := words.normalize(word)) and spelled in words]
            questions = alphagrams(spelled)
            counts = {question: len(anagram_words(words, question)) for question in questions}
            today = _day(body.today)
            added = 0
            cards = [new_card(question, today) for question in questions]
            if token is not None:
                lexicon = lexicon_of(token, name)
                with quiz.held() as history:
                    held = history.count(lexicon)
                    if held + len(questions) > MAX_CARDS:
                        raise BadRequest(f"a cardbox holds at most {MAX_CARDS:,} cards (this one {held:,})")
                    added = history.add(lexicon, questions, today)
                    cards = [history.card(lexicon, question) or card for question, card in zip(questions, cards)]
            table = _table(name)
            rows = []
            for card in cards:
                row = quiz_card_json(card, counts[card.question])
                if table is not None:
                    row["expected"] = round(table.expected(card.question), 4)
                rows.append(row)
            return {"dictionary": name, "added": added, "questions": rows}

        return JSONResponse(await work(request, job, "add fewer words"))

    @app.get("/api/quiz/due", summary="The token's cards due on a day: `boggle-dafsa quiz`'s questions")
    async def due(
        request: Request,
        d: Annotated[str | None, Query(max_length=64, description="A dictionary of `/api/dictionaries`.")] = None,
        today: Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD (default: the server's today).")] = None,
        order: Annotated[str, Query(max_length=16, description="due (the longest overdue first) or expected.")] = "due",
        limit: Annotated[int, Query(ge=1, le=MAX_DUE, description="At most this many cards.")] = 100,
    ) -> JSONResponse:
        token = _token(request)
        if token is None:
            raise NoToken("the cards due are those of a token's cardbox: send Authorization: Bearer TOKEN")
        day = _day(today)
        name, words = await dictionary(d)
        table = name if order == "expected" else None

        def job() -> dict[str, Any]:
            with quiz.held() as history:
                cards = history.due(lexicon_of(token, name), day)
            cards = ordered(cards, order, table)
            return {
                "dictionary": name,
                "today": day.isoformat(),
                "waiting": len(cards),
                "cards": [quiz_card_json(card, len(anagram_words(words, card.question))) for card in cards[:limit]],
            }

        return JSONResponse(await work(request, job, "ask for fewer cards (limit)"))

    @app.post("/api/quiz/answer", summary="Judge an answer and move its card (kept in the token's cardbox, if a token is sent)")
    async def answer(request: Request, body: AnswerBody) -> JSONResponse:
        token = _token(request)
        day = _day(body.today)
        name, words = await dictionary(body.d)
        question = body.question
        if alphagram(question) != question:
            raise BadRequest(f"question {question!r}: an alphagram (its letters in order)")

        def job() -> dict[str, Any]:
            answers = answers_of(words, question)
            if not answers:
                raise BadRequest(f"no word of {name} is spelled with {question}")
            typed = [words.normalize(word) or word.upper() for word in body.words if word.strip()]
            verdict = judge(Question(question, answers), typed)
            schedule = scheduler(body.schedule)
            if token is None:
                given = body.card or CardIn()
                card = Card(
                    question,
                    given.box,
                    _day(given.due),
                    given.right,
                    given.wrong,
                    given.streak,
                    given.stability,
                    given.difficulty,
                    None if given.reviewed is None else _day(given.reviewed),
                )
                after = schedule.answer(card, verdict.right, day)
            else:
                lexicon = lexicon_of(token, name)
                with quiz.held() as history:
                    kept = history.card(lexicon, question)
                    if kept is None and history.count(lexicon) >= MAX_CARDS:
                        raise BadRequest(f"a cardbox holds at most {MAX_CARDS:,} cards")
                    after = schedule.answer(kept or Card(question, 0, day), verdict.right, day)
                    history.record(lexicon, after, verdict.right, day, verdict.missed, verdict.wrong)
            return quiz_answer_json(verdict, after, verdict_line(verdict, after, len(answers)))

        return JSONResponse(await work(request, job, "try again"))

    @app.get("/api/quiz/stats", summary="The token's cardbox: what `boggle-dafsa quiz --stats` shows")
    async def stats(
        request: Request,
        d: Annotated[str | None, Query(max_length=64, description="A dictionary of `/api/dictionaries`.")] = None,
        today: Annotated[str | None, Query(max_length=10, description="YYYY-MM-DD (default: the server's today).")] = None,
    ) -> JSONResponse:
        token = _token(request)
        if token is None:
            raise NoToken("the figures are those of a token's cardbox: send Authorization: Bearer TOKEN")
        day = _day(today)
        name, _words = await dictionary(d)
        with quiz.held() as history:
            figures = history.stats(lexicon_of(token, name), day)
        return JSONResponse({"dictionary": name, **quiz_stats_json(figures, day)})
