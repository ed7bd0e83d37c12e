"""Printing solver results, and solving many grids: the work behind ``solve`` and ``find``.

The search itself is in :mod:`boggle_dafsa.solver`; this module turns its hits into
lines or JSON, reads grids from arguments, standard input or a batch file, and spreads
a batch over processes that all map the same dictionary file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import BoggleError, GridError
from .grid import ADJACENCIES, Grid, parse_shape
from .scoring import CLASSIC, Scoring
from .solver import Hit, find, solve, totals

if TYPE_CHECKING:
    from .dictionary import Dictionary


# -- rendering results -------------------------------------------------------------------


@dataclass(frozen=True)
class Rendering:
    """How results are printed: ``--scores``, ``--paths``, ``--json``."""

    scores: bool = False
    paths: bool = False
    json: bool = False
    #: One line per grid, ``GRID<TAB>words<TAB>points`` (``--summary``).
    summary: bool = False


def format_path(grid: Grid, path: Iterable[int]) -> str:
    """A path as coordinates, e.g. ``(3,3) (2,3) (1,3)``."""
    return " ".join("(" + ",".join(map(str, grid.coordinates(cell))) + ")" for cell in path)


def format_totals(count: int, points: int) -> str:
    """``1,045 words, 3,625 points``."""
    return f"{count:,} word{'' if count == 1 else 's'}, {points:,} point{'' if points == 1 else 's'}"


def render_lines(grid: Grid, hits: Iterable[Hit], rendering: Rendering) -> Iterator[str]:
    """The text lines of a result: a word a line, with ``score<TAB>`` and ``<TAB>path`` on request."""
    for hit in hits:
        line = f"{hit.score}\t{hit.word}" if rendering.scores else hit.word
        if rendering.paths:
            line += "\t" + format_path(grid, hit.path)
        yield line


def result_json(grid: Grid, hits: list[Hit], **extra: Any) -> dict[str, Any]:
    """The JSON object of a result: grid, shape, words (word, score, path) and totals."""
    count, points = totals(hits)
    return {
        **extra,
        "grid": str(grid),
        "shape": list(grid.shape),
        "words": [
            {"word": hit.word, "score": hit.score, "path": [list(grid.coordinates(cell)) for cell in hit.path]}
            for hit in hits
        ],
        "totals": {"words": count, "points": points},
    }


# -- batches -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SolveOptions:
    """What ``solve`` is asked, shared by every grid of a batch (and sent to workers)."""

    min_length: int | None = None
    scoring: Scoring = CLASSIC
    adjacency: str = "king"
    shape: tuple[int, ...] | None = None
    q_is_qu: bool = False
    #: The embedded dictionary that suits the dice set the rules come from ("fr", "en"), if any.
    language: str | None = None

    @classmethod
    def from_arguments(
        cls,
        min_length: int | None,
        scoring: str | None,
        adjacency: str,
        shape: str | None,
        q_is_qu: bool,
        dice: str | None = None,
    ) -> SolveOptions:
        """Options from command-line values, checked (raises :class:`BoggleError`).

        The rules are those of the dice set ``dice`` (a set name or a dice file; default:
        classic scoring), overridden by ``scoring`` and ``min_length`` when given.
        """
        from .rules import resolve_rules

        if adjacency not in ADJACENCIES:
            raise BoggleError(f"unknown adjacency {adjacency!r} (known: {', '.join(ADJACENCIES)})")
        rules = resolve_rules(dice, scoring, min_length)
        return cls(
            rules.min_length, rules.scoring, adjacency, parse_shape(shape) if shape else None, q_is_qu, rules.language
        )

    def parse(self, text: str, dictionary: Dictionary, *, worddle: bool = False) -> Grid:
        """A grid in the GRID syntax (or the standard-input form), normalized as ``dictionary`` does."""
        parse = Grid.parse_worddle if worddle else Grid.parse
        return parse(text, shape=self.shape, normalize=dictionary.normalize, q_is_qu=self.q_is_qu)

    def solve(self, grid: Grid, dictionary: Dictionary) -> list[Hit]:
        """:func:`solve` with these options."""
        return solve(grid, dictionary, min_length=self.min_length, scoring=self.scoring, adjacency=self.adjacency)


@dataclass(frozen=True)
class BatchResult:
    """One grid of a batch, solved and rendered; or, with ``error`` set, why it could not be."""

    line: int
    text: str
    words: int
    points: int
    #: The one-line message of a bad grid (text, words and points are then empty).
    error: str | None = None


def batch_lines(stream: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, grid text) for each line of a batch, skipping blank lines and ``#`` comments."""
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
    dask: str | None = None,
) -> Iterator[BatchResult]:
    """Solve and render each (line number, grid text), in order, as they come.

    Text gives a block per grid (``# GRID<TAB>totals`` then its words); JSON one line
    per grid. With ``jobs`` > 1 the grids are spread over that many processes, each of
    which opens ``dictionary_spec`` (the spec ``dictionary`` was opened from) itself:
    the file is mapped, so they share its pages. With ``dask`` (a scheduler's address)
    chunks of grids are solved on that Dask cluster instead, results still in input
    order. The first bad grid raises
    :class:`GridError` naming ``source`` and its line, after the results of the grids
    before it, whatever ``jobs`` is.
    """
    if not 1 <= jobs <= MAX_JOBS:
        raise BoggleError(f"the number of processes must be between 1 and {MAX_JOBS}, not {jobs}")
    if dask:
        yield from _dask_batch(dask, lines, dictionary_spec, options, rendering, source)
        return
    kernel = _batch_kernel(dictionary)
    if kernel == "c" or (kernel == "python" and jobs == 1):
        # The prepared solvers: grids by chunks, the compiled search over `jobs` threads.
        yield from _fast_batch(lines, dictionary, options, rendering, jobs, source)
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
    from .solver.kernels import select

    chosen = select(dictionary, "auto", cells=16)
    return chosen.name if getattr(chosen, "solver_class", None) is not None else None


def _fast_batch(
    lines: Iterable[tuple[int, str]],
    dictionary: Dictionary,
    options: SolveOptions,
    rendering: Rendering,
    threads: int,
    source: str,
) -> Iterator[BatchResult]:
    from .fastbatch import QuickGrids, Renderer, mode_for, solve_texts
    from .solver import prepared_solver

    def solver_for(shape: tuple[int, ...]) -> Any:
        return prepared_solver(
            dictionary, shape, adjacency=options.adjacency, min_length=options.min_length, scoring=options.scoring
        )

    quick = QuickGrids(dictionary.normalize, q_is_qu=options.q_is_qu, shape=options.shape)
    render = Renderer(options.scoring.score, format_totals, scores=rendering.scores, paths=rendering.paths, as_json=rendering.json,
                      summary=rendering.summary)
    mode = mode_for(rendering.scores, rendering.paths, rendering.json, rendering.summary)
    # Standard input typed at a terminal is answered grid by grid; files and pipes by chunks.
    chunk = 1 if source == "standard input" and sys.stdin.isatty() else 256
    try:
        for solved in solve_texts(
            lines, lambda text: options.parse(text, dictionary), quick, solver_for, mode, threads=threads, chunk=chunk
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
    import itertools
    from pathlib import Path

    from .distributed import BATCH_CHUNK, dask_map_chunks, file_digest
    from .resolve import resolve_spec

    spec, _ = resolve_spec(dictionary_spec)
    path = spec if Path(spec).is_file() else None
    digest = file_digest(path) if path else None
    numbered = iter(lines)
    chunks = iter(lambda: list(itertools.islice(numbered, BATCH_CHUNK)), [])
    shared = (spec, digest, options, rendering, source)
    for results in dask_map_chunks(address, _solve_chunk, chunks, shared, path):
        yield from _raising_at_first_error(results)


def _solve_chunk(
    chunk: list[tuple[int, str]], data: bytes | None, spec: str, digest: str | None,
    options: SolveOptions, rendering: Rendering, source: str,
) -> list[BatchResult]:
    # A Dask task: the worker opens the dictionary once, then keeps it for later chunks.
    if _worker.get("key") != (spec, digest):
        from .distributed import open_shipped

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
    from .resolve import open_dictionary

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
        text = f"{grid}\t{count}\t{points}"
    elif rendering.json:
        text = _json_text(result_json(grid, hits, line=number), ensure_ascii=False)
    else:
        header = f"# {grid}\t{format_totals(count, points)}"
        text = "\n".join([header, *render_lines(grid, hits, rendering)]) + "\n"
    return BatchResult(number, text, count, points)


# -- the command-line front ends (`boggle-dafsa solve` and `find`) -----------------------


def read_grid(text: str | None, dictionary: Dictionary, options: SolveOptions) -> Grid:
    """The grid of a command: ``text`` in the GRID syntax, or standard input for None or ``-``."""
    if text is not None and text != "-":
        return options.parse(text, dictionary)
    from .wordlist import decode

    if sys.stdin.isatty():
        print("reading the grid from standard input (end with Ctrl-D)", file=sys.stderr)
    # Bytes decoded like every other input (UTF-8, else ISO-8859-15), whatever the locale says.
    from .limits import MAX_SMALL_FILE_BYTES, read_limited

    data = read_limited(sys.stdin.buffer, MAX_SMALL_FILE_BYTES, GridError, "grid", stop_at_nul=True)
    if b"\0" in data:
        raise GridError("standard input: binary data (NUL byte), not a grid")
    text, _ = decode(data, "standard input")
    return options.parse(text, dictionary, worddle=True)


def run_solve(
    grid_text: str | None,
    dictionary: Dictionary,
    options: SolveOptions,
    rendering: Rendering,
    *,
    jobs: int = 1,
    show_totals: bool = False,
    quiet: bool = False,
    dictionary_note: str | None = None,
) -> None:
    """``boggle-dafsa solve GRID``: print the words of one grid, totals on stderr or at the end.

    ``dictionary_note`` ("build/dictionary.dafsa, 5 words") ends the totals line on stderr:
    the dictionary that answered when no -d chose it."""
    if jobs != 1:
        raise BoggleError("--jobs spreads a --batch over processes: give --batch FILE")
    grid = read_grid(grid_text, dictionary, options)
    out = sys.stdout
    if rendering.summary:
        from .solver import score_only

        count, points = score_only(
            grid, dictionary, min_length=options.min_length, scoring=options.scoring, adjacency=options.adjacency
        )
        out.write(f"{grid}\t{count}\t{points}\n")
        out.flush()
        return
    hits = options.solve(grid, dictionary)
    count, points = totals(hits)
    if rendering.json:
        out.write(_json_text(result_json(grid, hits), ensure_ascii=False, indent=2) + "\n")
    else:
        for line in render_lines(grid, hits, rendering):
            out.write(line + "\n")
        if show_totals:
            out.write(format_totals(count, points) + "\n")
    out.flush()
    if not quiet and not show_totals and not rendering.json:
        note = f" ({dictionary_note})" if dictionary_note else ""
        print(format_totals(count, points) + note, file=sys.stderr)


def run_batch(
    batch: str,
    grid_text: str | None,
    dictionary_spec: str | None,
    options: SolveOptions,
    rendering: Rendering,
    *,
    jobs: int = 1,
    show_totals: bool = False,
    quiet: bool = False,
    dask: str | None = None,
) -> None:
    """``boggle-dafsa solve --batch FILE``: a block (or JSON line) per grid, streamed."""
    from .resolve import open_dictionary

    if grid_text is not None:
        raise BoggleError("give a GRID or --batch FILE, not both")
    if not 1 <= jobs <= MAX_JOBS:
        # The command-line front end: the option is named.
        raise BoggleError(f"--jobs must be between 1 and {MAX_JOBS}, not {jobs}")
    dictionary = open_dictionary(dictionary_spec)
    grids = count = points = 0
    source = batch if batch != "-" else "standard input"
    results = solve_batch(
        batch_lines(_batch_stream(batch)), dictionary, options, rendering,
        jobs=jobs, dictionary_spec=dictionary_spec, source=source, dask=dask,
    )
    for result in results:
        sys.stdout.write(result.text + "\n")
        grids += 1
        count += result.words
        points += result.points
    sys.stdout.flush()
    if not quiet:
        summary = f"{grids:,} grid{'' if grids == 1 else 's'}: {format_totals(count, points)}"
        print(summary, file=sys.stdout if show_totals and not rendering.json else sys.stderr)


def _batch_stream(batch: str) -> Iterable[str]:
    """The lines of batch file ``batch``, decoded as word lists are (UTF-8, else ISO-8859-15).

    A file is read whole here, so that its errors come before any result and its encoding
    is decided once. Standard input (``-``) is streamed, so that grids are solved as they
    come, and decoded line by line.
    """
    from .wordlist import decode

    if batch == "-":
        return _standard_input_lines()
    from .limits import MAX_BATCH_BYTES, read_limited

    data = read_limited(batch, MAX_BATCH_BYTES, GridError, "batch file", stop_at_nul=True)
    nul = data.find(b"\0")
    if nul >= 0:
        # Checked here, so that the message speaks of grids rather than of a word list.
        line = data.count(b"\n", 0, nul) + 1
        raise GridError(f"{batch} line {line}: binary file (NUL byte), not a file of grids")
    return decode(data, batch)[0].splitlines()


def _standard_input_lines() -> Iterator[str]:
    from .wordlist import decode

    binary = getattr(sys.stdin, "buffer", None)
    if binary is None:  # a text stream in place of standard input (embedding, tests)
        yield from sys.stdin
        return
    from .grid import MAX_GRID_CHARS
    from .limits import read_line

    # A line is a grid: at most MAX_GRID_CHARS characters of up to 4 bytes each.
    while raw := read_line(binary, 4 * MAX_GRID_CHARS + 2, GridError, "standard input"):
        # ISO-8859-15 decodes any byte: a bad byte becomes a bad grid, reported at its line.
        yield raw.decode("iso-8859-15") if b"\0" in raw else decode(raw, "standard input")[0]


def run_find(
    grid_text: str, word: str, dictionary: Dictionary, options: SolveOptions, *, json_output: bool = False
) -> bool:
    """``boggle-dafsa find GRID WORD``: print whether WORD can be traced (and a path) and is a word."""
    grid = read_grid(grid_text, dictionary, options)
    key = dictionary.normalize(word)
    if not key:
        raise BoggleError(f"{word!r} is not a word: letters only")
    path = find(grid, key, adjacency=options.adjacency)
    known = key in dictionary
    if json_output:
        answer = {
            "word": key,
            "found": path is not None,
            "path": [list(grid.coordinates(cell)) for cell in path] if path else None,
            "in_dictionary": known,
            "score": options.scoring.score(key) if known else 0,
        }
        print(_json_text(answer, ensure_ascii=False))
    else:
        where = f"on the grid: {format_path(grid, path)}" if path else "not on the grid"
        points = options.scoring.score(key)
        what = f"in the dictionary ({points} point{'' if points == 1 else 's'})" if known else "not in the dictionary"
        print(f"{key}: {where}; {what}")
    return path is not None


def _json_text(value: Any, **options: Any) -> str:
    # json costs a few ms to import: only runs that print JSON pay for it.
    import json

    return json.dumps(value, **options)
