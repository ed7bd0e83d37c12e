"""Solving many grids: options shared by every grid, and a batch spread over processes.

The search itself is in :mod:`boggle_dafsa.solver`, the text and JSON of a result in
:mod:`boggle_dafsa.output.render` and :mod:`boggle_dafsa.output.jsonable`. A batch is any iterable of numbered grid texts
(the command line reads them from a file or standard input); its results come back
rendered, in order, as they are solved, from processes that all map the same
dictionary file.
"""

from __future__ import annotations

import itertools
import signal
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boggle_dafsa.board.grid import Grid, parse_shape
from boggle_dafsa.board.rules import check_adjacency, resolve_rules
from boggle_dafsa.board.scoring import CLASSIC, Scoring
from boggle_dafsa.dictionaries.resolve import open_dictionary, resolve_spec
from boggle_dafsa.errors import BoggleError, GridError
from boggle_dafsa.output.render import Rendering, render_block
from boggle_dafsa.solver import Hit, prepared_solver, solve, totals
from boggle_dafsa.solver.kernels import select

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.dictionary import Dictionary


class SolveOptions:
    """What ``solve`` is asked, shared by every grid of a batch (and sent to workers).

    A plain class with slots, not a NamedTuple: cheaper to create at import (start-up time).
    """

    __slots__ = ("min_length", "scoring", "adjacency", "shape", "q_is_qu", "language")

    def __init__(
        self,
        min_length: int | None = None,
        scoring: Scoring = CLASSIC,
        adjacency: str = "king",
        shape: tuple[int, ...] | None = None,
        q_is_qu: bool = False,
        language: str | None = None,
    ) -> None:
        self.min_length = min_length
        self.scoring = scoring
        self.adjacency = adjacency
        self.shape = shape
        self.q_is_qu = q_is_qu
        #: The embedded dictionary that suits the dice set the rules come from ("fr", "en"), if any.
        self.language = language

    @classmethod
    def from_arguments(
        cls,
        min_length: int | None,
        scoring: str | None,
        adjacency: str,
        shape: str | None,
        q_is_qu: bool,
        dice: str | DiceSet | None = None,
    ) -> SolveOptions:
        """Options from command-line values, checked (raises :class:`BoggleError`).

        The rules are those of the dice set ``dice`` (a set name, a dice file or a set read; default:
        classic scoring), overridden by ``scoring`` and ``min_length`` when given.
        """
        check_adjacency(adjacency)
        rules = resolve_rules(dice, scoring, min_length)
        return cls(rules.min_length, rules.scoring, adjacency, parse_shape(shape) if shape else None, q_is_qu, rules.language)

    def parse(self, text: str, dictionary: Dictionary, *, worddle: bool = False) -> Grid:
        """A grid in the GRID syntax (or the standard-input form), normalized as ``dictionary`` does."""
        parse = Grid.parse_worddle if worddle else Grid.parse
        return parse(text, shape=self.shape, normalize=dictionary.normalize, q_is_qu=self.q_is_qu)

    def solve(self, grid: Grid, dictionary: Dictionary) -> list[Hit]:
        """:func:`solve` with these options."""
        return solve(grid, dictionary, min_length=self.min_length, scoring=self.scoring, adjacency=self.adjacency)


class BatchResult:
    """One grid of a batch, solved and rendered; or, with ``error`` set, why it could not be.

    With ``solve_batch(grouped=True)``, the results of several consecutive grids (``grids``
    of them, from line ``line`` on): their texts joined by newlines, their words and points summed.
    """

    __slots__ = ("line", "text", "words", "points", "error", "grids")

    def __init__(self, line: int, text: str, words: int, points: int, error: str | None = None, grids: int = 1) -> None:
        self.line = line
        self.text = text
        self.words = words
        self.points = points
        #: The one-line message of a bad grid (text, words and points are then empty).
        self.error = error
        self.grids = grids

    def __repr__(self) -> str:
        return (
            f"BatchResult(line={self.line}, words={self.words}, points={self.points}, error={self.error!r}, grids={self.grids})"
        )


class BatchLines:
    """The lines of a batch: iterated, (line number, grid text) as :func:`batch_lines` gives
    them; :attr:`raw`, the lines as read, which the summary path takes by chunks. ``raw``
    is a list for a file read whole, or a stream (standard input), then read once."""

    __slots__ = ("raw",)

    def __init__(self, raw: Iterable[str]) -> None:
        self.raw = raw

    def count(self) -> int | None:
        """How many grids, for a file read whole (blank lines and comments aside); None for a stream."""
        return sum(1 for _ in self) if isinstance(self.raw, list) else None

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return _numbered(self.raw)


def batch_lines(stream: Iterable[str]) -> BatchLines:
    """(line number, grid text) for each line of a batch, skipping blank lines and ``#`` comments."""
    return BatchLines(stream)


def _numbered(stream: Iterable[str]) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(stream, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


#: More processes than this only costs memory and start-up: a batch is CPU-bound.
MAX_JOBS = 64


def solve_batch(
    lines: Iterable[tuple[int, str]],
    dictionary: Dictionary,
    options: SolveOptions,
    rendering: Rendering,
    *,
    jobs: int = 1,
    dictionary_spec: str | None = None,
    source: str = "-",
    chunk: int = 256,
    dask: str | None = None,
    grouped: bool = False,
) -> Iterator[BatchResult]:
    """Solve and render each (line number, grid text), in order, as they come.

    Text gives a block per grid (``# GRID<TAB>totals`` then its words); JSON one line
    per grid. With ``jobs`` > 1 the grids are spread over that many processes, each of
    which opens ``dictionary_spec`` (the spec ``dictionary`` was opened from) itself:
    the file is mapped, so they share its pages. With ``dask`` (a scheduler's address)
    chunks of grids are solved on that Dask cluster instead, results still in input
    order. The first bad grid raises
    :class:`GridError` naming ``source`` and its line, after the results of the grids
    before it, whatever ``jobs`` is. With a prepared solver (the compiled kernel, or
    the Python one with ``jobs`` == 1), grids are read ``chunk`` at a time (1: each is
    answered as it comes, for grids typed at a terminal) and ``jobs`` are threads. With
    ``grouped``, a result may hold several grids (see :class:`BatchResult`): for
    ``--summary`` of a :class:`BatchLines` (a file, or standard input), a chunk's lines
    written by the kernel at once.
    """
    if not 1 <= jobs <= MAX_JOBS:
        raise BoggleError(f"the number of processes must be between 1 and {MAX_JOBS}, not {jobs}")
    if dask:
        yield from _dask_batch(dask, lines, dictionary_spec, options, rendering, source)
        return
    kernel = _batch_kernel(dictionary)
    if kernel == "c" or (kernel == "python" and jobs == 1):
        # The prepared solvers: grids by chunks, the compiled search over `jobs` threads.
        yield from _fast_batch(lines, dictionary, options, rendering, jobs, source, chunk, grouped)
        return
    if jobs == 1:
        _worker.update(dictionary=dictionary, options=options, rendering=rendering, source=source)
        yield from _raising_at_first_error(map(_solve_line, lines))
        return
    import multiprocessing

    # The dictionary was opened here first, so a bad spec fails before any worker starts.
    with multiprocessing.Pool(jobs, _init_worker, (dictionary_spec, options, rendering, source)) as pool:
        # Ordered results; chunks amortize the messages without delaying the first grids much.
        yield from _raising_at_first_error(pool.imap(_solve_line, lines, chunksize=8))


def _batch_kernel(dictionary: Dictionary) -> str | None:
    # The kernel that would search a 4x4 grid of this dictionary, if it has a prepared solver.
    chosen = select(dictionary, "auto", cells=16)
    return chosen.name if getattr(chosen, "solver_class", None) is not None else None


def _fast_batch(
    lines: Iterable[tuple[int, str]],
    dictionary: Dictionary,
    options: SolveOptions,
    rendering: Rendering,
    threads: int,
    source: str,
    chunk: int,
    grouped: bool = False,
) -> Iterator[BatchResult]:
    from boggle_dafsa.output.batch import Renderer
    from boggle_dafsa.solver.fastbatch import QuickGrids, mode_for, solve_texts, summary_chunks

    def solver_for(shape: tuple[int, ...]) -> Any:
        return prepared_solver(
            dictionary, shape, adjacency=options.adjacency, min_length=options.min_length, scoring=options.scoring
        )

    quick = QuickGrids(dictionary.normalize, q_is_qu=options.q_is_qu, shape=options.shape)
    render = Renderer(
        options.scoring.score,
        scores=rendering.scores,
        paths=rendering.paths,
        as_json=rendering.json,
        summary=rendering.summary,
    )
    mode = mode_for(rendering.scores, rendering.paths, rendering.json, rendering.summary)
    try:
        if grouped and rendering.summary and isinstance(lines, BatchLines):
            # The kernel writes whole chunks of summary lines: no Python object per grid.
            for line, text, grids, words, points in summary_chunks(
                lines.raw,
                lambda text: options.parse(text, dictionary),
                quick,
                solver_for,
                render,
                threads=threads,
                chunk=chunk,
            ):
                yield BatchResult(line, text, words, points, grids=grids)
            return
        for solved in solve_texts(
            lines,
            lambda text: options.parse(text, dictionary),
            quick,
            solver_for,
            mode,
            threads=threads,
            chunk=chunk,
            rows=render.row_style,
        ):
            text, words, points = render(solved)
            yield BatchResult(solved.line, text, words, points)
    except GridError as error:
        raise GridError(f"{source} line {getattr(error, 'line', '?')}: {error}") from None


def _dask_batch(
    address: str,
    lines: Iterable[tuple[int, str]],
    dictionary_spec: str | None,
    options: SolveOptions,
    rendering: Rendering,
    source: str,
) -> Iterator[BatchResult]:
    from boggle_dafsa.solver.parallel import BATCH_CHUNK, dask_map_chunks, file_digest

    spec, _ = resolve_spec(dictionary_spec)
    path = spec if Path(spec).is_file() else None
    digest = file_digest(path) if path else None
    numbered = iter(lines)
    chunks = iter(lambda: list(itertools.islice(numbered, BATCH_CHUNK)), [])
    shared = (spec, digest, options, rendering, source)
    for results in dask_map_chunks(address, _solve_chunk, chunks, shared, path):
        yield from _raising_at_first_error(results)


def _solve_chunk(
    chunk: list[tuple[int, str]],
    data: bytes | None,
    spec: str,
    digest: str | None,
    options: SolveOptions,
    rendering: Rendering,
    source: str,
) -> list[BatchResult]:
    # A Dask task: the worker opens the dictionary once, then keeps it for later chunks.
    if _worker.get("key") != (spec, digest):
        from boggle_dafsa.solver.parallel import open_shipped

        _worker.update(key=(spec, digest), dictionary=open_shipped(spec, digest, data))
    _worker.update(options=options, rendering=rendering, source=source)
    return [_solve_line(numbered) for numbered in chunk]


def _raising_at_first_error(results: Iterable[BatchResult]) -> Iterator[BatchResult]:
    # Workers return a bad grid's error rather than raise it: a raising worker would lose
    # the results of the good grids of its chunk, which come before the error.
    for result in results:
        if result.error is not None:
            raise GridError(result.error)
        yield result


# The state of a batch worker (the process itself when jobs == 1).
_worker: dict[str, Any] = {}


def _init_worker(dictionary_spec: str | None, options: SolveOptions, rendering: Rendering, source: str) -> None:
    # Ctrl-C reaches the whole process group: the parent's pool stops the workers (its
    # exit terminates them), without a traceback from each.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    _worker.update(dictionary=open_dictionary(dictionary_spec), options=options, rendering=rendering, source=source)


def _solve_line(numbered: tuple[int, str]) -> BatchResult:
    number, text = numbered
    dictionary = _worker["dictionary"]
    options: SolveOptions = _worker["options"]
    rendering: Rendering = _worker["rendering"]
    try:
        grid = options.parse(text, dictionary)
        hits = options.solve(grid, dictionary)
    except GridError as error:
        return BatchResult(number, "", 0, 0, error=f"{_worker['source']} line {number}: {error}")
    count, points = totals(hits)
    if rendering.summary:
        from boggle_dafsa.output.rows import summary_line

        text = summary_line(str(grid), count, points)
    elif rendering.json:
        from boggle_dafsa.output.jsonable import dumps, result_json

        text = dumps(result_json(grid, hits, line=number))
    else:
        text = render_block(grid, hits, rendering)
    return BatchResult(number, text, count, points)
