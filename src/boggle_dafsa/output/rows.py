"""The rows a solver result is printed as, defined once, as templates the kernels fill.

A template is text with field marks: :data:`WORD`, :data:`POINTS` and :data:`PATH` for a
found word, :data:`GRID`, :data:`WORDS` and :data:`POINTS` for a grid's summary line. The
general renderers (:mod:`.render`, :mod:`.jsonable`) fill them one hit at a time; the batch
path hands the same templates to a kernel (compiled or its Python twin), which fills them
for a whole chunk of grids without a Python object per word. No kernel knows a format: they
copy the template's text and write the fields.

The JSON row, :func:`.jsonable.json_row`, is derived from :func:`.jsonable.word_json`, so
that a word's JSON object has one definition, whichever path writes it.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Field marks (control characters: never in a word, a number or a template's own text).
WORD, POINTS, PATH, GRID, WORDS = "\x01", "\x02", "\x03", "\x04", "\x05"
MARKS = WORD + POINTS + PATH + GRID + WORDS


class RowFormat:
    """How each found word is written: ``template`` per word, rows joined by ``between``, the
    cells of a path joined by ``cell_separator``, each cell written as :meth:`cell`."""

    __slots__ = ("template", "between", "cell_separator", "json")

    def __init__(self, template: str, between: str, cell_separator: str, *, json: bool = False) -> None:
        self.template = template
        self.between = between
        self.cell_separator = cell_separator
        #: Cells as JSON arrays ``[1, 2]`` rather than text ``(1,2)``.
        self.json = json

    def cell(self, coordinates: Sequence[int]) -> str:
        """One cell of a path: ``(1,2)`` in text, ``[1, 2]`` in JSON."""
        if self.json:
            return "[" + ", ".join(map(str, coordinates)) + "]"
        return "(" + ",".join(map(str, coordinates)) + ")"

    def fill(self, word: str, points: int, path: Sequence[str] = ()) -> str:
        """One row: the template with the word, its points and its path's cells (already written by :meth:`cell`)."""
        return fill(self.template, {WORD: word, POINTS: str(points), PATH: self.cell_separator.join(path)})


def fill(template: str, fields: dict[str, str]) -> str:
    """``template`` with each field mark replaced by ``fields[mark]``."""
    for mark, text in fields.items():
        template = template.replace(mark, text)
    return template


#: ``word`` / ``points<TAB>word`` (no path): ``solve``'s default rows and ``--scores``.
WORD_ROW = RowFormat(WORD, "\n", " ")
SCORED_WORD_ROW = RowFormat(f"{POINTS}\t{WORD}", "\n", " ")
#: ``word<TAB>path`` / ``points<TAB>word<TAB>path``: ``--paths`` and ``--scores --paths``.
PATH_ROW = RowFormat(f"{WORD}\t{PATH}", "\n", " ")
SCORED_PATH_ROW = RowFormat(f"{POINTS}\t{WORD}\t{PATH}", "\n", " ")


def row_format(*, scores: bool, paths: bool) -> RowFormat:
    """The text row of ``--scores`` and ``--paths`` (``--json``'s is :func:`.jsonable.json_row`)."""
    if paths:
        return SCORED_PATH_ROW if scores else PATH_ROW
    return SCORED_WORD_ROW if scores else WORD_ROW


class SummaryFormat:
    """``--summary``: a line per grid from ``template`` (:data:`GRID`, :data:`WORDS`,
    :data:`POINTS`), lines joined by ``between``; the grid written as its rows joined by
    ``row_separator``, and, when a face has several letters (QU), its faces by ``face_separator``."""

    __slots__ = ("template", "between", "row_separator", "face_separator")

    def __init__(self, template: str, between: str, row_separator: str, face_separator: str) -> None:
        self.template = template
        self.between = between
        self.row_separator = row_separator
        self.face_separator = face_separator


#: ``GRID<TAB>words<TAB>points``, the grid as ``str(Grid)`` writes it (``ABCD/EFGH``, ``QU A B C/D E F G``).
SUMMARY_LINE = SummaryFormat(f"{GRID}\t{WORDS}\t{POINTS}", "\n", "/", " ")


def summary_line(grid: str, words: int, points: int) -> str:
    """One grid's ``--summary`` line, :data:`SUMMARY_LINE` filled (``grid``: its text, ``str(Grid)``),
    without its line break: what the kernels write for a whole chunk, one grid at a time."""
    return fill(SUMMARY_LINE.template, {GRID: grid, WORDS: str(words), POINTS: str(points)})
