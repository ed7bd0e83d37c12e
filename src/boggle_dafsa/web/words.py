"""The word queries on the web: ``/api/match``, ``/api/anagram``, ``/api/grep``, ``/api/fuzzy``,
``/api/hooks`` and ``/api/complete``.

Each answers exactly what ``boggle-dafsa VERB ... --json`` prints for the same query (or, with
``count=true``, what ``--count`` prints): the same library call, the same JSON builders
(:mod:`boggle_dafsa.output.jsonable`). The parameters are named as the command's: its
argument (``pattern``, ``letters``, ``regex``, ``word``, ``prefix``) and its options
(``d`` or ``dict``, ``limit``, ``count``, ``min_length``, ``distance``, ``columns``...).

Bounds: the library's own (patterns and regexes of 1,000 characters, racks of 64, distances
up to 10...: a 400 with the command's one-line message); at most
:attr:`~.settings.Limits.query_results` results (a larger ``limit`` is a 400; a list cut
there says so in its ``X-More-Results: true`` header); and each query runs as a solve
does, in one of its address's solve slots (:meth:`.guard.ClientGuard.solving`), under
the solves' deadline (:func:`.guard.bounded`: the walks look at the clock every few
milliseconds of work), so that a costly query is a 503 and the server goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from boggle_dafsa import query as queries
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.output.columns import WordColumns, parse_columns
from boggle_dafsa.output.jsonable import anagram_json, fuzzy_json, hooks_json
from boggle_dafsa.web.guard import CLIENT_KEY, ClientGuard, bounded
from boggle_dafsa.web.settings import DictionaryCatalog, Limits
from boggle_dafsa.web.site import page, render_page

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: The verbs, in the order the Words page and the docs list them.
VERBS = ("match", "anagram", "grep", "fuzzy", "hooks", "complete")

DOption = Annotated[str | None, Query(max_length=64, description="A dictionary of `/api/dictionaries` (`-d`).")]
DictOption = Annotated[
    str | None, Query(alias="dict", max_length=64, description="The same as `d` (`--dict`); give one of them.")
]
LimitOption = Annotated[
    int | None, Query(ge=0, description="At most this many results (`--limit`; default and most: the server's limit).")
]
CountOption = Annotated[bool, Query(description="Answer how many results there are, as `--count` prints it.")]
ColumnsOption = Annotated[
    str | None,
    Query(
        max_length=64,
        description="Word-study fields of each word: hooks, probability, anagrams, points, expected, comma-separated (`--columns`).",
    ),
]


def add_word_routes(app: FastAPI, catalog: DictionaryCatalog, limits: Limits, guard: ClientGuard) -> None:
    """The Words page and the six word queries' routes on ``app``."""
    app.get("/words", include_in_schema=False)(page(render_page("words", "/words")))

    async def run(request: Request, d: str | None, dictionary: str | None, work: Callable[[Dictionary], Any]) -> Any:
        """``work(dictionary)`` in a worker thread, in one of the address's solve slots, under the deadline."""
        if d and dictionary and d != dictionary:
            raise BoggleError(f"two dictionaries given, d={d!r} and dict={dictionary!r}: give one")
        name = d or dictionary
        if catalog.is_open(name):
            _name, words = catalog.get(name)
        else:  # compiling an embedded list takes a second: not on the event loop
            _name, words = await run_in_threadpool(catalog.get, name)
        with guard.solving(request.scope.get(CLIENT_KEY, "unknown")):
            return await run_in_threadpool(
                bounded, limits.solve_seconds, lambda: work(words), "ask for fewer words (limit) or a narrower query"
            )

    async def listing(
        request: Request,
        d: str | None,
        dictionary: str | None,
        results: Callable[[Dictionary, int | None], Iterable[Any]],
        limit: int | None,
        count: bool,
        columns: str | None = None,
        item: Callable[[Any, WordColumns | None], Any] | None = None,
    ) -> JSONResponse:
        """A listing's answer: the JSON array ``--json`` prints (``item(result, columns)``
        makes each element; without it, the word or its columns' fields), or the number
        ``--count`` prints; ``results(dictionary, limit)`` is the command's library call."""
        most = limits.query_results
        if limit is not None and limit > most:
            raise BoggleError(f"limit {limit} is more than this server lists ({most} results at most)")
        names = parse_columns(columns)

        def work(words: Dictionary) -> tuple[Any, bool]:
            if count:  # as --count: every result up to --limit, bounded by the deadline
                return sum(1 for _ in results(words, limit)), False
            want = most if limit is None else limit
            found = list(islice(results(words, want + 1), want + 1))  # one more: are there more?
            # The expected points are those of the dictionary's name (the embedded fr and enable2k have them).
            table = (d or dictionary or catalog.default) if "expected" in names else None
            shown = WordColumns(words, names, expected=table) if names else None
            if item is not None:
                return [item(hit, shown) for hit in found[:want]], len(found) > want
            return [shown.fields(hit) if shown else hit for hit in found[:want]], len(found) > want

        answer, more = await run(request, d, dictionary, work)
        return JSONResponse(answer, headers={"x-more-results": "true"} if more else None)

    @app.get("/api/match", summary="Words matching a pattern: what `boggle-dafsa match PATTERN --json` prints")
    async def match(
        request: Request,
        pattern: Annotated[
            str, Query(description="`?` a letter, `*` any run, `[ABC]` one of, `[^ABC]` none of, `@` a vowel, `#` a consonant.")
        ],
        d: DOption = None,
        dictionary: DictOption = None,
        min_length: Annotated[int, Query(ge=0, description="Shortest word (`--min-length`).")] = 0,
        max_length: Annotated[int | None, Query(ge=0, description="Longest word (`--max-length`).")] = None,
        limit: LimitOption = None,
        count: CountOption = False,
        columns: ColumnsOption = None,
    ) -> JSONResponse:
        return await listing(
            request,
            d,
            dictionary,
            lambda words, most: queries.match(words, pattern, min_length, max_length, most),
            limit,
            count,
            columns,
        )

    @app.get("/api/anagram", summary="Words made of some letters: what `boggle-dafsa anagram LETTERS --json` prints")
    async def anagram(
        request: Request,
        letters: Annotated[str, Query(description="The letters; `?` is a blank (any letter).")],
        d: DOption = None,
        dictionary: DictOption = None,
        sub: Annotated[bool, Query(description="Words made of some of the letters (a rack), longest first (`--sub`).")] = False,
        limit: LimitOption = None,
        count: CountOption = False,
        columns: ColumnsOption = None,
    ) -> JSONResponse:
        def results(words: Dictionary, most: int | None) -> Iterable[Any]:
            return queries.iter_anagram(words, letters, sub=sub, limit=most)

        return await listing(request, d, dictionary, results, limit, count, columns, anagram_json)

    @app.get("/api/grep", summary="Words a regular expression matches whole: what `boggle-dafsa grep REGEX --json` prints")
    async def grep(
        request: Request,
        regex: Annotated[str, Query(description="Letters, `.`, `[classes]`, `?`, `*`, `+`, `{m,n}`, `|`, `(groups)`.")],
        d: DOption = None,
        dictionary: DictOption = None,
        limit: LimitOption = None,
        count: CountOption = False,
        columns: ColumnsOption = None,
    ) -> JSONResponse:
        return await listing(request, d, dictionary, lambda words, most: queries.grep(words, regex, most), limit, count, columns)

    @app.get("/api/fuzzy", summary="Words within a few edits, nearest first: what `boggle-dafsa fuzzy WORD --json` prints")
    async def fuzzy(
        request: Request,
        word: Annotated[str, Query(description="The word to come close to.")],
        d: DOption = None,
        dictionary: DictOption = None,
        distance: Annotated[int, Query(ge=0, description="Most edits: insert, delete, substitute (`--distance`).")] = 1,
        transpositions: Annotated[
            bool, Query(description="Swapping two adjacent letters is one edit (`--transpositions`).")
        ] = False,
        prefix: Annotated[bool, Query(description="Words that start within `distance` edits of the word (`--prefix`).")] = False,
        limit: LimitOption = None,
        count: CountOption = False,
        columns: ColumnsOption = None,
    ) -> JSONResponse:
        def results(words: Dictionary, most: int | None) -> Iterable[Any]:
            return queries.iter_fuzzy(words, word, distance, transpositions=transpositions, prefix=prefix, limit=most)

        return await listing(request, d, dictionary, results, limit, count, columns, fuzzy_json)

    @app.get("/api/complete", summary="Words that start with a prefix: what `boggle-dafsa complete PREFIX --json` prints")
    async def complete(
        request: Request,
        prefix: Annotated[str, Query(description="The beginning of the words (empty: every word).")],
        d: DOption = None,
        dictionary: DictOption = None,
        limit: LimitOption = None,
        count: CountOption = False,
    ) -> JSONResponse:
        return await listing(request, d, dictionary, lambda words, most: queries.complete(words, prefix, most), limit, count)

    @app.get(
        "/api/hooks",
        summary="Letters that make a word in front of a word or after it: what `boggle-dafsa hooks WORD --json` prints",
    )
    async def hooks(
        request: Request,
        word: Annotated[str, Query(description="The word to hook (it need not be a word itself).")],
        d: DOption = None,
        dictionary: DictOption = None,
        count: CountOption = False,
    ) -> JSONResponse:
        def work(words: Dictionary) -> Any:
            found = queries.hooks(words, word)
            return len(found.front) + len(found.back) if count else hooks_json(found)

        return JSONResponse(await run(request, d, dictionary, work))
