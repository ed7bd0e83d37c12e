"""Solving many grids of one shape: a search prepared once per dictionary, shape and rules.

A :class:`PreparedSolver` does once what every grid of a batch shares (the neighbour
table, the score table, the dictionary's layout, the compiled kernel's set-up) and then
solves grids given as :class:`Grid` objects, as tuples of faces, or already encoded as
one byte per cell (:meth:`PreparedSolver.encode`), which is the fastest: the compiled
kernel searches a whole buffer of grids with the GIL released, split over threads on
request, and ranks the words and builds the hits itself.

The kernels behind it (:mod:`.kernels`) give the same results: "c" (``_native.c``,
when it was built) and its twin "python" (:class:`.python.Solver`) over a native
file's layout, and "generic" through any dictionary's cursor (marisa, dawg, alphabets
of more than 31 letters). :func:`prepared_solver` keeps one per dictionary and rules,
which is how :func:`boggle_dafsa.solver.solve` uses it.

:func:`time_limit` bounds the searches of the "c" and "python" kernels started within
it: past its deadline they raise ``TimeoutError`` (the C kernel, which runs without the
GIL and so without Python's signal handlers, looks at the clock itself).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from time import monotonic
from typing import TYPE_CHECKING, Any

from boggle_dafsa import compiled as seam
from boggle_dafsa.board.grid import Grid, format_shape, neighbours
from boggle_dafsa.board.scoring import CLASSIC, Scoring
from boggle_dafsa.errors import DictionaryError, GridError
from boggle_dafsa.solver import python as native
from boggle_dafsa.solver.hit import Hit
from boggle_dafsa.solver.kernels import native_layout, select

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.output.rows import RowFormat, SummaryFormat

#: What a batch call returns per grid, by mode (see :meth:`PreparedSolver.run_codes`).
MODES = {"totals": native.TOTALS, "words": native.WORDS, "hits": native.HITS, "found": native.FOUND}
Found = dict[str, tuple[int, ...]]

# The deadline of the searches started in this context (time.monotonic() seconds), if any.
_DEADLINE: ContextVar[float | None] = ContextVar("boggle_dafsa_search_deadline", default=None)


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Within this block, a search by the "c" or "python" kernel raises ``TimeoutError``
    once ``seconds`` have passed since the block began (None: no limit; an enclosing
    limit that ends sooner still holds). The "generic" kernel is not bounded by it."""
    if seconds is None:
        yield
        return
    deadline = monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _seconds_left() -> float:
    # What a kernel is given as its timeout: 0.0 for none.
    deadline = _DEADLINE.get()
    if deadline is None:
        return 0.0
    left = deadline - monotonic()
    if left <= 0:
        raise TimeoutError(native.TIMEOUT_MESSAGE)
    return left


class PreparedSolver:
    """Every word on grids of one ``shape``, for one dictionary, adjacency and rules.

    ``kernel`` is "auto" (the compiled kernel when it is built and
    ``BOGGLE_DAFSA_PURE=1`` is not set, else the Python one; the generic kernel for a
    dictionary without a native layout) or a kernel's name; :attr:`kernel` says which
    one runs. Results are those of :func:`boggle_dafsa.solver.solve`, whatever the kernel.
    """

    def __init__(
        self,
        dictionary: Dictionary[Any],
        shape: Sequence[int],
        *,
        adjacency: str = "king",
        min_length: int | None = None,
        scoring: Scoring = CLASSIC,
        kernel: str = "auto",
    ) -> None:
        self.shape: tuple[int, ...] = tuple(shape)
        self.cell_count = math.prod(self.shape)
        self.adjacency = adjacency
        self.scoring = scoring
        self.min_length: int = scoring.min_length if min_length is None else min_length
        self._table = neighbours(self.shape, adjacency)
        # Points by length; the last entry holds for every longer word.
        size = max(len(scoring.points), scoring.min_length + 1, self.min_length + 1)
        self._points = tuple(scoring.score("?" * length) for length in range(size))
        chosen = select(dictionary, kernel, cells=self.cell_count)
        #: The kernel that runs: "c", "python" or "generic".
        self.kernel: str = chosen.name
        self._chosen = chosen
        self._codes: native.FaceCodes | None = None
        self._dictionary: Dictionary[Any] | None = None
        solver_class = getattr(chosen, "solver_class", None)
        layout = native_layout(dictionary) if solver_class is not None else None
        if layout is None or solver_class is None:
            self._dictionary = dictionary  # the generic kernel walks the dictionary itself
        else:
            solver = solver_class(
                layout.cells,
                layout.root,
                layout.longest_word,
                layout.alphabet,
                self._table,
                self.min_length,
                self._points,
                Hit,
                DictionaryError,
                layout.source,
            )
            self._codes = native.FaceCodes(solver, layout)

    @property
    def holds_dictionary(self) -> bool:
        """True for the generic kernel, which walks the dictionary object itself."""
        return self._dictionary is not None

    # -- grids in -------------------------------------------------------------------------

    def encode(self, faces: Sequence[str]) -> bytes:
        """The face codes of a grid of this shape (its faces, row-major), for :meth:`run_codes`."""
        if self._codes is None:
            raise ValueError("the generic kernel takes faces, not codes")
        return self._codes.encode(self._faces(faces))

    def _faces(self, grid: Grid | Sequence[str]) -> Sequence[str]:
        if isinstance(grid, Grid):
            if grid.shape != self.shape:
                raise GridError(f"a {format_shape(grid.shape)} grid given to a solver of {format_shape(self.shape)} grids")
            return grid.faces
        if len(grid) != self.cell_count:
            raise GridError(f"{len(grid)} faces do not fill a {format_shape(self.shape)} grid")
        return grid

    # -- solving ----------------------------------------------------------------------------

    def solve(self, grid: Grid | Sequence[str]) -> list[Any]:
        """The hits of one grid (a :class:`Grid` of this shape, or its faces), best first."""
        if self._codes is not None:
            # The one-grid path of solve(): the fewest Python steps around the kernel.
            try:
                codes = self._codes.encode(self._faces(grid))
            except native.TooManyFaces:
                return self._alone(self._faces(grid), "hits")  # type: ignore[no-any-return]
            return self._codes.solver.solve(codes, native.HITS, _seconds_left())  # type: ignore[no-any-return]
        return self._many([grid], "hits")[0]  # type: ignore[no-any-return]

    def found(self, grid: Grid | Sequence[str]) -> Found:
        """The kernel's own answer: word → first path, in the order the search met them."""
        return self._many([grid], "found")[0]  # type: ignore[no-any-return]

    def totals(self, grid: Grid | Sequence[str]) -> tuple[int, int]:
        """(words, points) of one grid, without building its hits."""
        return self._many([grid], "totals")[0]  # type: ignore[no-any-return]

    def solve_many(self, grids: Iterable[Grid | Sequence[str]], *, threads: int = 1) -> list[list[Any]]:
        """The hits of each grid, best first (see :meth:`solve`)."""
        return self._many(grids, "hits", threads)

    def words_many(self, grids: Iterable[Grid | Sequence[str]], *, threads: int = 1) -> list[tuple[int, list[str]]]:
        """(points, words best first) of each grid: no paths, no hits built."""
        return self._many(grids, "words", threads)

    def totals_many(self, grids: Iterable[Grid | Sequence[str]], *, threads: int = 1) -> list[tuple[int, int]]:
        """(words, points) of each grid: what scoring a million boards needs."""
        return self._many(grids, "totals", threads)

    def results(self, grids: Iterable[Grid | Sequence[str]], mode: str = "hits", *, threads: int = 1) -> list[Any]:
        """Each grid's result in ``mode`` (see :meth:`run_codes`), the grids given as faces or :class:`Grid`."""
        return self._many(grids, mode, threads)

    def run_codes(self, codes: bytes | bytearray | memoryview, mode: str = "hits", *, threads: int = 1) -> list[Any]:
        """Solve grids already encoded (:meth:`encode`), concatenated in one bytes-like object.

        ``mode``: "totals" gives (words, points) per grid, "words" (points, [word, ...]),
        "hits" [Hit, ...], "found" {word: path}. The compiled kernel searches with the GIL
        released, the grids split over ``threads`` threads.
        """
        if self._codes is None:
            raise ValueError("the generic kernel takes faces, not codes")
        number = MODES[mode]
        solver = self._codes.solver
        return self._split(codes, lambda chunk, timeout: solver.solve_many(chunk, number, timeout), threads)

    def numbered_words(self) -> list[str]:
        """The dictionary's words by the numbers :meth:`tally_codes` keys its groups by
        (word ``i`` is the kernel's word number ``i``); ``ValueError`` for a damaged file."""
        if self._codes is None:
            raise ValueError("the generic kernel numbers no words")
        layout = self._codes.layout
        try:
            return native.numbered_words(layout)
        except IndexError:
            raise ValueError(f"{layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None

    def tally_codes(self, codes: bytes | bytearray | memoryview, groups: Any, found: Any, squares: Any) -> int:
        """Solve grids already encoded (:meth:`encode`) and add their words to tallies by
        group, without a word or hit built: ``groups[i]`` (uint32) is the group of word
        ``i`` of :meth:`numbered_words`, and for each group ``g`` and grid, ``k`` its words
        on the grid, ``found[g] += k`` and ``squares[g] += k * k`` (``found``, ``squares``:
        writable uint64 buffers, e.g. ``array("Q")``). The compiled kernel tallies with the
        GIL released; grids of at most 64 cells. The grids tallied."""
        if self._codes is None:
            raise ValueError("the generic kernel takes faces, not codes")
        return self._codes.solver.tally_many(codes, groups, found, squares, _seconds_left())  # type: ignore[no-any-return]

    def run_rows(
        self, codes: bytes | bytearray | memoryview, cells: Sequence[str], row: RowFormat, *, threads: int = 1
    ) -> list[tuple[int, int, str]]:
        """(words, points, text) of each grid already encoded: its hits ranked, each written
        as ``row`` says with ``cells[cell]`` for each cell of a path (see
        :func:`.python.rows_result`; what the batch renderers print, filled in by the kernel)."""
        if self._codes is None:
            raise ValueError("the generic kernel takes faces, not codes")
        solver = self._codes.solver
        template, between, separator = row.template, row.between, row.cell_separator
        return self._split(
            codes, lambda chunk, timeout: solver.rows_many(chunk, cells, template, between, separator, timeout), threads
        )

    def run_summary(
        self,
        codes: bytes | bytearray | memoryview,
        letters: bytes,
        width: int,
        q_is_qu: bool,
        *,
        threads: int = 1,
        summary: SummaryFormat | None = None,
    ) -> tuple[str, int, int]:
        """(text, words, points) of grids already encoded, ``letters`` their cells' letters
        (one ASCII byte per code): a line per grid as ``summary`` says (default
        :data:`~boggle_dafsa.output.rows.SUMMARY_LINE`, 'GRID<TAB>words<TAB>points'), and the
        sums (see :func:`.python.summary_text`; what ``solve --batch --summary`` prints, filled
        in by the kernel). The grids split over ``threads`` threads for the compiled kernel,
        as :meth:`run_codes` does."""
        if self._codes is None:
            raise ValueError("the generic kernel takes faces, not codes")
        if summary is None:
            from boggle_dafsa.output.rows import SUMMARY_LINE

            summary = SUMMARY_LINE
        line = (summary.template, summary.between, summary.row_separator, summary.face_separator)
        solver = self._codes.solver
        n = self.cell_count
        grids = len(codes) // n
        timeout = _seconds_left()
        if threads <= 1 or grids < 2 * threads or self.kernel != "c":
            return solver.summary_rows(codes, letters, width, q_is_qu, *line, timeout)  # type: ignore[no-any-return]
        from concurrent.futures import ThreadPoolExecutor

        code_view, letter_view = memoryview(codes).cast("B"), memoryview(letters).cast("B")
        share = -(-grids // threads) * n
        bounds = [(start, min(start + share, grids * n)) for start in range(0, grids * n, share)]
        with ThreadPoolExecutor(threads) as pool:
            parts = list(
                pool.map(
                    lambda span: solver.summary_rows(
                        code_view[span[0] : span[1]], letter_view[span[0] : span[1]], width, q_is_qu, *line, timeout
                    ),
                    bounds,
                )
            )
        return summary.between.join(part[0] for part in parts), sum(part[1] for part in parts), sum(part[2] for part in parts)

    def rows_many(
        self, grids: Iterable[Grid | Sequence[str]], cells: Sequence[str], row: RowFormat, *, threads: int = 1
    ) -> list[tuple[int, int, str]]:
        """(words, points, text) of each grid (see :meth:`run_rows`), the grids given as faces or :class:`Grid`."""
        faces_list = [self._faces(grid) for grid in grids]
        if self._codes is not None:
            try:
                codes = b"".join(map(self._codes.encode, faces_list))
            except native.TooManyFaces:
                pass
            else:
                return self.run_rows(codes, cells, row, threads=threads)
        return [
            native.rows_result(hits, cells, row.template, row.between, row.cell_separator)
            for hits in self._many(faces_list, "hits")
        ]

    def _split(self, codes: bytes | bytearray | memoryview, call: Any, threads: int) -> list[Any]:
        # call(chunk of codes, timeout) over the grids of `codes`, split over `threads`
        # threads for the compiled kernel (which releases the GIL).
        grids = len(codes) // self.cell_count
        timeout = _seconds_left()
        if threads <= 1 or grids < 2 * threads or self.kernel != "c":
            return call(codes, timeout)  # type: ignore[no-any-return]
        from concurrent.futures import ThreadPoolExecutor

        view = memoryview(codes).cast("B")
        share = -(-grids // threads)
        n = self.cell_count
        chunks = [view[start * n : (start + share) * n] for start in range(0, grids, share)]
        with ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(lambda chunk: call(chunk, timeout), chunks))
        return [result for part in parts for result in part]

    def _many(self, grids: Iterable[Grid | Sequence[str]], mode: str, threads: int = 1) -> list[Any]:
        faces_list = [self._faces(grid) for grid in grids]
        if self._codes is None:
            return [self._generic_result(faces, mode) for faces in faces_list]
        try:
            codes = b"".join(map(self._codes.encode, faces_list))
        except native.TooManyFaces:
            # More different multi-letter faces than codes: each grid with its own codes.
            return [self._alone(faces, mode) for faces in faces_list]
        return self.run_codes(codes, mode, threads=threads)

    def _alone(self, faces: Sequence[str], mode: str) -> Any:
        assert self._codes is not None
        layout = self._codes.layout
        fresh = type(self._codes.solver)(
            layout.cells,
            layout.root,
            layout.longest_word,
            layout.alphabet,
            self._table,
            self.min_length,
            self._points,
            _hit_type(),
            DictionaryError,
            layout.source,
        )
        timeout = _seconds_left()
        try:
            return fresh.solve(native.FaceCodes(fresh, layout).encode(faces), MODES[mode], timeout)
        except native.TooManyFaces:
            return native.twin_result(
                layout, faces, self._table, self.min_length, self._points, MODES[mode], _hit_type(), timeout
            )

    def _generic_result(self, faces: Sequence[str], mode: str) -> Any:
        assert self._dictionary is not None
        found = self._chosen.search(self._dictionary, tuple(faces), self._table, self.min_length)
        return native.shape_result(found, self._points, MODES[mode], Hit)


def _hit_type() -> Any:
    return Hit


# -- one prepared solver per dictionary and rules ------------------------------------------

_PREPARED: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], PreparedSolver]] = weakref.WeakKeyDictionary()
#: Prepared solvers kept per dictionary (shapes x rules a process uses at once).
_PER_DICTIONARY = 32


def kept_solver(
    dictionary: Dictionary[Any],
    shape: tuple[int, ...],
    adjacency: str,
    min_length: int | None,
    scoring: Scoring,
    kernel: str,
) -> PreparedSolver | None:
    """The :class:`PreparedSolver` :func:`prepared_solver` keeps for these arguments, if any (a lookup only)."""
    try:
        kept = _PREPARED.get(dictionary)
    except TypeError:
        return None
    return kept.get((shape, adjacency, min_length, scoring, _kernel_key(kernel))) if kept else None


def _kernel_key(kernel: str) -> str:
    # "auto" kept apart by what the seam says now: BOGGLE_DAFSA_PURE is read at each call,
    # so a solver kept while it was unset never answers once it is set, nor the reverse.
    if kernel != "auto":
        return kernel
    return "auto" if seam.missing("solver") is None else "auto, pure"


def prepared_solver(
    dictionary: Dictionary[Any],
    shape: Sequence[int],
    *,
    adjacency: str = "king",
    min_length: int | None = None,
    scoring: Scoring = CLASSIC,
    kernel: str = "auto",
) -> PreparedSolver:
    """The :class:`PreparedSolver` for these arguments, made once and kept while ``dictionary`` lives."""
    key = (tuple(shape), adjacency, min_length, scoring, _kernel_key(kernel))
    try:
        kept = _PREPARED.setdefault(dictionary, {})
    except TypeError:  # not weakly referable: nothing kept
        kept = {}
    prepared = kept.get(key)
    if prepared is None:
        prepared = PreparedSolver(dictionary, shape, adjacency=adjacency, min_length=min_length, scoring=scoring, kernel=kernel)
        if prepared.holds_dictionary:
            return prepared  # kept, it would keep its dictionary alive forever
        if len(kept) >= _PER_DICTIONARY:
            kept.clear()
        kept[key] = prepared
    return prepared
