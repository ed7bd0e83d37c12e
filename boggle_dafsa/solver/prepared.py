"""Solving many grids of one shape: a search prepared once per dictionary, shape and rules.

A :class:`PreparedSolver` does once what every grid of a batch shares (the neighbour
table, the score table, the dictionary's layout, the compiled kernel's set-up) and then
solves grids given as :class:`Grid` objects, as tuples of faces, or already encoded as
one byte per cell (:meth:`PreparedSolver.encode`), which is the fastest: the compiled
kernel searches a whole buffer of grids with the GIL released, split over threads on
request, and ranks the words and builds the hits itself.

The kernels behind it (:mod:`.kernels`) give the same results: "c" (``_native.c``,
when it was built) and its twin "python" (:class:`.native.Solver`) over a native
file's layout, and "generic" through any dictionary's cursor (marisa, dawg, alphabets
of more than 31 letters). :func:`prepared_solver` keeps one per dictionary and rules,
which is how :func:`boggle_dafsa.solver.solve` uses it.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import DictionaryError, GridError
from ..grid import Grid, format_shape, neighbours
from ..scoring import CLASSIC, Scoring
from . import native

if TYPE_CHECKING:
    from ..automaton.fileformat import NativeLayout
    from ..dictionary import Dictionary

#: What a batch call returns per grid, by mode (see :meth:`PreparedSolver.run_codes`).
MODES = {"totals": native.TOTALS, "words": native.WORDS, "hits": native.HITS, "found": native.FOUND}
Found = dict[str, tuple[int, ...]]


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
        from . import Hit
        from .kernels import select

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
        self._encoder: _Encoder | None = None
        self._dictionary: Dictionary[Any] | None = None
        self._generic = chosen
        layout = _layout(dictionary) if chosen.name in SOLVER_CLASSES else None
        if layout is None:
            self._dictionary = dictionary  # the generic kernel walks the dictionary itself
        else:
            solver = SOLVER_CLASSES[chosen.name](
                layout.cells, layout.root, layout.longest_word, layout.alphabet, self._table, self.min_length,
                self._points, Hit, DictionaryError, layout.source,
            )
            self._encoder = _Encoder(solver, layout)

    # -- grids in -------------------------------------------------------------------------

    def encode(self, faces: Sequence[str]) -> bytes:
        """The face codes of a grid of this shape (its faces, row-major), for :meth:`run_codes`."""
        if self._encoder is None:
            raise ValueError("the generic kernel takes faces, not codes")
        return self._encoder.encode(self._faces(faces))

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

    def run_codes(self, codes: bytes | bytearray | memoryview, mode: str = "hits", *, threads: int = 1) -> list[Any]:
        """Solve grids already encoded (:meth:`encode`), concatenated in one bytes-like object.

        ``mode``: "totals" gives (words, points) per grid, "words" (points, [word, ...]),
        "hits" [Hit, ...], "found" {word: path}. The compiled kernel searches with the GIL
        released, the grids split over ``threads`` threads.
        """
        if self._encoder is None:
            raise ValueError("the generic kernel takes faces, not codes")
        number = MODES[mode]
        solver = self._encoder.solver
        grids = len(codes) // self.cell_count
        if threads <= 1 or grids < 2 * threads or self.kernel != "c":
            return solver.solve_many(codes, number)  # type: ignore[no-any-return]
        from concurrent.futures import ThreadPoolExecutor

        view = memoryview(codes).cast("B")
        share = -(-grids // threads)
        n = self.cell_count
        chunks = [view[start * n : (start + share) * n] for start in range(0, grids, share)]
        with ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(lambda chunk: solver.solve_many(chunk, number), chunks))
        return [result for part in parts for result in part]

    def _many(self, grids: Iterable[Grid | Sequence[str]], mode: str, threads: int = 1) -> list[Any]:
        faces_list = [self._faces(grid) for grid in grids]
        if self._encoder is None:
            return [self._generic_result(faces, mode) for faces in faces_list]
        try:
            codes = b"".join(map(self._encoder.encode, faces_list))
        except _TooManyFaces:
            # More different multi-letter faces than codes: each grid with its own codes.
            return [self._alone(faces, mode) for faces in faces_list]
        return self.run_codes(codes, mode, threads=threads)

    def _alone(self, faces: Sequence[str], mode: str) -> Any:
        assert self._encoder is not None
        solver = self._encoder.solver
        layout = self._encoder.layout
        fresh = type(solver)(
            layout.cells, layout.root, layout.longest_word, layout.alphabet, self._table, self.min_length,
            self._points, _hit_type(), DictionaryError, layout.source,
        )
        try:
            return fresh.solve(_Encoder(fresh, layout).encode(faces), MODES[mode])
        except _TooManyFaces:
            return _twin_result(layout, faces, self._table, self.min_length, self._points, MODES[mode])

    def _generic_result(self, faces: Sequence[str], mode: str) -> Any:
        from . import Hit

        assert self._dictionary is not None
        found = self._generic.search(self._dictionary, tuple(faces), self._table, self.min_length)
        return native.shape_result(found, self._points, MODES[mode], Hit)


def _layout(dictionary: object) -> NativeLayout | None:
    layout = getattr(dictionary, "layout", None)
    return layout() if callable(layout) else None


class _TooManyFaces(Exception):
    """More different multi-letter faces than free codes (224)."""


class _Encoder:
    """Faces to codes for one low-level solver: letters by their bit, multi-letter faces registered."""

    def __init__(self, solver: Any, layout: NativeLayout) -> None:
        self.solver = solver
        self.layout = layout
        self._codes: dict[str, int] = dict(layout.letter_bits)
        self._next = native.FIRST_LONG

    def encode(self, faces: Sequence[str]) -> bytes:
        codes = self._codes
        try:
            return bytes(map(codes.__getitem__, faces))
        except KeyError:
            return bytes(codes[face] if face in codes else self._register(face) for face in faces)

    def _register(self, face: str) -> int:
        bits = [self.layout.letter_bits.get(letter) for letter in face]
        if not 2 <= len(bits) <= 3 or None in bits:
            code = native.DEAD  # a letter outside the alphabet: the face spells no word
        elif self._next > 255:
            raise _TooManyFaces
        else:
            code = self._next
            self._next += 1
            self.solver.set_face(code, bytes(bits))  # type: ignore[arg-type]
        self._codes[face] = code
        return code



def _hit_type() -> Any:
    from . import Hit

    return Hit


def _twin_result(
    layout: NativeLayout, faces: Sequence[str], table: tuple[tuple[int, ...], ...], min_length: int,
    points: Sequence[int], mode: int,
) -> Any:
    # One grid of more than 224 different multi-letter faces (codes are one byte): the
    # Python twin searches it, with the same result, as long as its recursion allows.
    if min(len(faces), layout.longest_word) > native.MAX_DEPTH:
        raise GridError("a grid of more than 224 different multi-letter faces and paths this deep: use kernel='generic'")
    try:
        found = native.search(layout, tuple(faces), table, min_length)
    except IndexError:
        raise DictionaryError(f"{layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None
    return native.shape_result(found, points, mode, _hit_type())


#: The low-level solver class of each kernel over the native layout.
SOLVER_CLASSES: dict[str, Any] = {"python": native.Solver}


def register_compiled(solver_class: Any) -> None:
    """Make ``solver_class`` (``_native.Solver``) the "c" kernel's (see :mod:`.kernels`)."""
    SOLVER_CLASSES["c"] = solver_class


# -- one prepared solver per dictionary and rules ------------------------------------------

_PREPARED: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], PreparedSolver]] = weakref.WeakKeyDictionary()
#: Prepared solvers kept per dictionary (shapes x rules a process uses at once).
_PER_DICTIONARY = 32


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
    key = (tuple(shape), adjacency, min_length, scoring, kernel)
    try:
        kept = _PREPARED.setdefault(dictionary, {})
    except TypeError:  # not weakly referable: nothing kept
        kept = {}
    prepared = kept.get(key)
    if prepared is None:
        prepared = PreparedSolver(
            dictionary, shape, adjacency=adjacency, min_length=min_length, scoring=scoring, kernel=kernel
        )
        if prepared._dictionary is not None:
            return prepared  # it holds the dictionary: kept, it would keep it alive forever
        if len(kept) >= _PER_DICTIONARY:
            kept.clear()
        kept[key] = prepared
    return prepared


# -- the "c" kernel through the seam's signature ---------------------------------------------

_COMPILED: dict[tuple[int, int, int], tuple[Any, Any, _Encoder]] = {}


def compiled_search(
    layout: NativeLayout, faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
) -> Found:
    """The compiled kernel as ``native.search`` is called: word → first path.

    :func:`boggle_dafsa.solver.solve` goes through :class:`PreparedSolver` instead, which
    also ranks and builds the hits in C; this is the kernel seam's plain signature.
    """
    key = (id(layout), id(table), min_length)
    entry = _COMPILED.get(key)
    if entry is None:
        solver = SOLVER_CLASSES["c"](
            layout.cells, layout.root, layout.longest_word, layout.alphabet, table, min_length, (0,), _hit_type(),
            DictionaryError, layout.source,
        )
        if len(_COMPILED) >= 16:
            _COMPILED.clear()
        # The layout and table are kept with their solver, so that their ids stay theirs.
        entry = _COMPILED[key] = (layout, table, _Encoder(solver, layout))
    encoder = entry[2]
    try:
        codes = encoder.encode(faces)
    except _TooManyFaces:
        # Codes for other grids' faces fill the table: start afresh for this one.
        fresh = _Encoder(type(encoder.solver)(
            layout.cells, layout.root, layout.longest_word, layout.alphabet, table, min_length, (0,), _hit_type(),
            DictionaryError, layout.source,
        ), layout)
        _COMPILED[key] = (layout, table, fresh)
        try:
            codes = fresh.encode(faces)
        except _TooManyFaces:
            return _twin_result(layout, faces, table, min_length, (0,), native.FOUND)  # type: ignore[no-any-return]
        encoder = fresh
    return encoder.solver.solve(codes, native.FOUND)  # type: ignore[no-any-return]
