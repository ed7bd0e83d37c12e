"""Solving a batch of grid texts fast: few Python steps per grid between the lines and the output.

With the compiled kernel, the search of a 4x4 grid costs less than parsing its text
with :meth:`Grid.parse` or building its :class:`Hit` objects. So a batch goes:

* lines read by :class:`QuickGrids` (the common forms of the GRID syntax in a few string
  methods; anything else through :meth:`Grid.parse` and its located messages);
* grids of one shape encoded and searched in one call per chunk
  (:meth:`PreparedSolver.run_codes`, the GIL released, over threads on request), asking
  only what the output needs: totals, ranked words, or hits with paths;
* each result rendered straight to its text by :class:`boggle_dafsa.output.batch.Renderer`,
  byte for byte what the general renderers print (a test holds them together).

The library part of ``solve --batch``: no printing, no standard streams.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, NamedTuple

from boggle_dafsa.board.grid import Grid
from boggle_dafsa.errors import GridError
from boggle_dafsa.output.rows import RowFormat

if TYPE_CHECKING:
    from boggle_dafsa.solver.prepared import PreparedSolver

# string.ascii_letters, without importing string (whose Template class compiles a regular
# expression at import: 2 ms of a batch's start-up).
ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: Grids solved per call of the kernel: big enough to amortize the call, small enough
#: that output streams and memory stays flat.
CHUNK = 256


class QuickGrids:
    """A reader of simple grid texts for one normalization, QU rule and optional shape.

    Reads rows of ASCII letters separated by single slashes (``IDXT/MHEI/ERVN/TLLU``)
    and flat runs (``IDXTMHEIERVNTLLU``); answers None for anything else, which then
    goes through :meth:`Grid.parse`. What it accepts, it reads as :meth:`Grid.parse` does.
    """

    def __init__(
        self, normalize: Callable[[str], str | None], *, q_is_qu: bool = False, shape: tuple[int, ...] | None = None
    ) -> None:
        # Each ASCII letter once through the dictionary's normalization; a letter that
        # does not stay one letter sends its grids to the full parser.
        mapping = {}
        for letter in ASCII_LETTERS:
            face = normalize(letter)
            if face is not None and len(face) == 1 and face.isalpha() and face.isascii():
                mapping[letter] = face
        self._letters = frozenset(mapping)
        self._table = str.maketrans(mapping)
        self._qu = q_is_qu
        self._shape = shape
        self._code_tables: dict[int, tuple[PreparedSolver, bytes]] = {}

    @property
    def q_is_qu(self) -> bool:
        """Whether a Q face reads QU."""
        return self._qu

    def bulk(self, texts: list[str]) -> tuple[tuple[int, ...], str, list[str]] | None:
        """(shape, the normalized letters of every grid in a row, each ``str(grid)``) when all
        of ``texts`` are flat runs, or all rows, of one two-dimensional shape; else None.

        A handful of string methods over the whole chunk instead of a dozen per line.
        """
        checked = self._checked(texts)
        if checked is None:
            return None
        (height, width), joined, rows, normalized = checked
        shown = joined.translate(self._table).split("\n")
        if not rows:
            cuts = [slice(start, start + width) for start in range(0, height * width, width)]
            shown = ["/".join([line[cut] for cut in cuts]) for line in shown]
        if self._qu and ("Q" in normalized or "q" in normalized):
            # A QU face: the faces of its grid are printed spaced out ("QU A B C/D E F G").
            shown = [
                " ".join(line).replace(" / ", "/").replace("Q", "QU").replace("q", "qu") if "Q" in line or "q" in line else line
                for line in shown
            ]
        return (height, width), normalized, shown

    def bulk_letters(self, texts: Sequence[str]) -> tuple[tuple[int, int], str] | None:
        """(shape, the normalized letters of every grid in a row) when :meth:`bulk` would
        read ``texts``, without the texts of the grids (the kernel writes them, see
        :meth:`PreparedSolver.run_summary`); else None."""
        checked = self._checked(texts)
        return None if checked is None else (checked[0], checked[3])

    def _checked(self, texts: Sequence[str]) -> tuple[tuple[int, int], str, bool, str] | None:
        # (shape, the texts joined by newlines, whether they are rows, the normalized
        # letters of every grid in a row) when all of `texts` are flat runs, or all rows,
        # of one two-dimensional shape; else None.
        if not texts:
            return None
        first = self.parse(texts[0])
        if first is None:
            return None
        shape = first[0]
        if len(shape) != 2 or shape[0] < 2:
            return None
        height, width = shape
        joined = "\n".join(texts)
        if not joined.isascii():
            return None
        rows = "/" in texts[0]
        size = height * width + (height - 1 if rows else 0)
        if any(len(text) != size for text in texts):
            return None
        letters = joined.replace("\n", "")
        if rows:
            if letters.count("/") != (height - 1) * len(texts) or any(
                text[width :: width + 1] != "/" * (height - 1) for text in texts
            ):
                return None
            letters = letters.replace("/", "")
        if not self._letters.issuperset(letters):
            return None
        return (height, width), joined, rows, letters.translate(self._table)

    def codes(self, solver: PreparedSolver, letters: str) -> bytes | None:
        """The face codes of normalized ``letters`` (a face each, Q read as QU if asked) for
        ``solver``, in one translation; None if ``solver`` takes no codes (generic kernel)."""
        kept = self._code_tables.get(id(solver))
        if kept is None or kept[0] is not solver:
            table = bytearray(256)  # only the letters checked by bulk() are ever looked up
            try:
                for letter in self._letters:
                    face = letter.translate(self._table)
                    if self._qu and face in ("Q", "q"):
                        face += "U" if face == "Q" else "u"
                    table[ord(face[0])] = solver.encode((face,) * solver.cell_count)[0]
            except ValueError:
                return None
            kept = self._code_tables[id(solver)] = (solver, bytes(table))
        return letters.encode("ascii").translate(kept[1])

    def parse(self, text: str) -> tuple[tuple[int, ...], tuple[str, ...], str] | None:
        """(shape, faces, ``str(grid)``) of ``text`` (stripped), or None for the full parser."""
        if not text or not text.isascii():
            return None
        if "/" in text:
            rows = text.split("/")
            width = len(rows[0])
            if len(rows) < 2 or not width or any(len(row) != width for row in rows):
                return None  # ragged rows, //, a trailing slash: the full parser says what
            letters = text.replace("/", "")
            shape: tuple[int, ...] = (len(rows), width)
            if self._shape is not None and self._shape != shape:
                return None
        else:
            letters = text
            if self._shape is not None:
                if math.prod(self._shape) != len(letters):
                    return None
                shape = self._shape
            else:
                side = math.isqrt(len(letters))
                shape = (side, side) if side * side == len(letters) else (1, len(letters))
        if not self._letters.issuperset(letters):
            return None
        normalized = letters.translate(self._table)
        plain = len(shape) == 2 and shape[0] > 1  # rows, no trailing separator (see Grid.__str__)
        width = shape[-1]
        if self._qu and ("Q" in normalized or "q" in normalized):
            # Every face one letter but Q's: spaced out, QU in place, split back (C-level steps).
            faces = tuple(" ".join(normalized).replace("Q", "QU").replace("q", "qu").split(" "))
            if not plain:
                return shape, faces, str(Grid(shape, faces))
            return shape, faces, "/".join([" ".join(faces[start : start + width]) for start in range(0, len(faces), width)])
        faces = tuple(normalized)
        if not plain:
            return shape, faces, str(Grid(shape, faces))
        return shape, faces, "/".join([normalized[start : start + width] for start in range(0, len(normalized), width)])


class Solved(NamedTuple):
    """One grid of a batch: its line, text (``str(grid)``), shape and kernel result."""

    line: int
    text: str
    shape: tuple[int, ...]
    #: (words, points) for "totals"; (points, [word...]) for "words"; [Hit...] for "hits";
    #: (words, points, text of the rows) for "rows".
    result: Any


#: For mode "rows": the cells' texts and the row format (see PreparedSolver.run_rows) of a shape.
RowStyle = Callable[[tuple[int, ...]], tuple[Sequence[str], RowFormat]]


def solve_texts(
    numbered: Iterable[tuple[int, str]],
    parse: Callable[[str], Grid],
    quick: QuickGrids | None,
    solver_for: Callable[[tuple[int, ...]], PreparedSolver],
    mode: str,
    *,
    threads: int = 1,
    chunk: int = CHUNK,
    rows: RowStyle | None = None,
) -> Iterator[Solved]:
    """Each (line number, grid text) solved, in order, by chunks.

    ``parse`` reads what ``quick`` does not; ``solver_for(shape)`` gives the prepared
    solver of a shape; mode "rows" takes ``rows`` (:meth:`boggle_dafsa.output.batch.Renderer.row_style`). The
    first bad grid raises its :class:`GridError` after the results of the grids before
    it, with ``.line`` set to its line number.
    """
    if mode == "rows" and rows is None:
        raise ValueError("mode 'rows' needs rows=")
    lines: list[tuple[int, str]] = []
    for numbered_line in numbered:
        lines.append(numbered_line)
        if len(lines) >= chunk:
            yield from _solve_chunk(lines, parse, quick, solver_for, mode, threads, rows)
            lines = []
    yield from _solve_chunk(lines, parse, quick, solver_for, mode, threads, rows)


def _solve_chunk(
    lines: list[tuple[int, str]],
    parse: Callable[[str], Grid],
    quick: QuickGrids | None,
    solver_for: Callable[[tuple[int, ...]], PreparedSolver],
    mode: str,
    threads: int,
    rows: RowStyle | None,
) -> Iterator[Solved]:
    if not lines:
        return
    bulk = quick.bulk([text for _, text in lines]) if quick is not None else None
    if bulk is not None:
        # Every line one simple form of one shape: encoded and rendered chunk-wide.
        shape, letters, texts = bulk
        solver = solver_for(shape)
        codes = quick.codes(solver, letters)  # type: ignore[union-attr]
        if codes is not None:
            if rows is not None and mode == "rows":
                results = solver.run_rows(codes, *rows(shape), threads=threads)
            else:
                results = solver.run_codes(codes, mode, threads=threads)
            for (number, _), text, result in zip(lines, texts, results):
                yield Solved(number, text, shape, result)
            return
    pending: list[tuple[int, tuple[int, ...], tuple[str, ...], str]] = []
    for number, text in lines:
        parsed = quick.parse(text) if quick is not None else None
        if parsed is None:
            try:
                grid = parse(text)
            except GridError as error:
                yield from _solve_pending(pending, solver_for, mode, threads, rows)
                error.line = number  # type: ignore[attr-defined]
                raise
            parsed = (grid.shape, grid.faces, str(grid))
        pending.append((number, *parsed))
    yield from _solve_pending(pending, solver_for, mode, threads, rows)


def _solve_pending(
    pending: list[tuple[int, tuple[int, ...], tuple[str, ...], str]],
    solver_for: Callable[[tuple[int, ...]], PreparedSolver],
    mode: str,
    threads: int,
    rows: RowStyle | None,
) -> Iterator[Solved]:
    # Consecutive grids of one shape go to the kernel in one call.
    start = 0
    while start < len(pending):
        shape = pending[start][1]
        end = start + 1
        while end < len(pending) and pending[end][1] == shape:
            end += 1
        run = pending[start:end]
        solver = solver_for(shape)
        faces = [faces for _, _, faces, _ in run]
        if rows is not None and mode == "rows":
            results = solver.rows_many(faces, *rows(shape), threads=threads)
        else:
            results = solver.results(faces, mode, threads=threads)
        for (number, _, _, text), result in zip(run, results):
            yield Solved(number, text, shape, result)
        start = end


def summary_chunks(
    raw: Iterable[str],
    parse: Callable[[str], Grid],
    quick: QuickGrids,
    solver_for: Callable[[tuple[int, ...]], PreparedSolver],
    render: Callable[[Solved], tuple[str, int, int]],
    *,
    threads: int = 1,
    chunk: int = CHUNK,
) -> Iterator[tuple[int, str, int, int, int]]:
    """The ``--summary`` lines of a batch (``raw``: its lines as read, numbered from 1; a
    list, or a stream read ``chunk`` lines at a time), by chunks: (first line number, text,
    grids, words, points) per group of grids.

    A chunk whose lines are all one simple form of one shape (the usual batch) is encoded,
    searched and written by the kernel in one call (:meth:`PreparedSolver.run_summary`):
    no Python object per grid. Any other chunk (blank lines, comments, other forms or
    shapes) goes line by line through :func:`solve_texts` and ``render``, each grid a group
    of one. The first bad grid raises its :class:`GridError`, with ``.line`` set, after
    the groups of the grids before it.
    """
    for start, block in _blocks(raw, chunk):
        checked = quick.bulk_letters(block)
        if checked is not None:
            shape, letters = checked
            solver = solver_for(shape)
            codes = quick.codes(solver, letters)
            if codes is not None:
                text, words, points = solver.run_summary(codes, letters.encode("ascii"), shape[1], quick.q_is_qu, threads=threads)
                yield start + 1, text, len(block), words, points
                continue
        numbered = [
            (number, text) for number, line in enumerate(block, start + 1) if (text := line.strip()) and not text.startswith("#")
        ]
        for solved in solve_texts(numbered, parse, quick, solver_for, "totals", threads=threads, chunk=max(len(numbered), 1)):
            text, words, points = render(solved)
            yield solved.line, text, 1, words, points


def _blocks(raw: Iterable[str], size: int) -> Iterator[tuple[int, list[str]]]:
    """(lines before it, the block) for each ``size`` lines of ``raw``, the last one shorter:
    a stream (standard input) is read ``size`` lines at a time, as they come."""
    lines = iter(raw)
    before = 0
    while block := list(islice(lines, size)):
        yield before, block
        before += len(block)


def mode_for(scores: bool, paths: bool, as_json: bool, summary: bool) -> str:
    """What the kernel must give for this output: totals, ranked words, or the rows of
    text of hits with paths (:meth:`boggle_dafsa.output.batch.Renderer.row_style`); the
    texts are written by :class:`~boggle_dafsa.output.batch.Renderer`."""
    if summary:
        return "totals"
    return "rows" if paths or as_json else "words"
