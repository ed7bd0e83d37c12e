"""The texts of ``solve --batch``, written straight from the kernels' results, without a Grid.

:class:`Renderer` gives each grid's text (a block of rows, a JSON line, a summary line)
byte for byte as the general renderers (:mod:`.render`, :mod:`.jsonable`, :mod:`.rows`)
print it, from what the batch's kernels give (totals, ranked words, or rows of hits that
they filled from :mod:`.rows`' templates): the batch path of ``solver/fastbatch.py`` hands it
each :class:`~boggle_dafsa.solver.fastbatch.Solved`. ``tests/test_fastbatch.py`` holds the
two paths together.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from boggle_dafsa.output.render import block_header
from boggle_dafsa.output.rows import RowFormat, row_format, summary_line

#: A grid the batch's kernel solved (``solver.fastbatch.Solved``: its line, its text, its
#: shape and the kernel's result), not imported: the solver imports this module.
Solved = Any


class Renderer:
    """Results to text, exactly as the general renderers print them, without building a Grid."""

    def __init__(
        self,
        scoring_points: Callable[[str], int],
        *,
        scores: bool,
        paths: bool,
        as_json: bool,
        summary: bool,
    ) -> None:
        """``scoring_points(word)`` as the general renderers use it (the score table's)."""
        self.scores, self.paths, self.as_json, self.summary = scores, paths, as_json, summary
        self._points = scoring_points
        self._cells: dict[tuple[tuple[int, ...], bool], list[str]] = {}
        self._json_parts: tuple[Callable[[str], str], str] | None = None

    def __call__(self, solved: Solved) -> tuple[str, int, int]:
        """(text, words, points) of one grid."""
        result = solved.result
        if self.summary:
            count, points = result
            return summary_line(solved.text, count, points), count, points
        if self.as_json:
            return self._json(solved)
        if len(result) == 3:  # rows mode: (words, points, rows of hits with paths)
            count, points, rows = result
            lines = [rows] if count else []
        else:  # words mode: (points, words)
            points, words = result
            count = len(words)
            if self.scores:
                score, row = self._points, row_format(scores=True, paths=False)
                lines = [row.fill(word, score(word)) for word in words]
            else:
                lines = words
        return "\n".join([block_header(solved.text, count, points), *lines]) + "\n", count, points

    def row_style(self, shape: tuple[int, ...]) -> tuple[list[str], RowFormat]:
        """The cells' texts and the row format the kernel fills for hits (mode "rows")."""
        if self.as_json:
            from boggle_dafsa.output.jsonable import json_row

            row = json_row()
        else:
            row = row_format(scores=self.scores, paths=True)
        return self._coordinates(shape, row), row

    def _json(self, solved: Solved) -> tuple[str, int, int]:
        # The kernel filled the words' objects; the result's object around them is
        # jsonable.result_object's, made once as a template.
        count, points, words = solved.result
        if self._json_parts is None:
            self._json_parts = _result_template()
        dumps, template = self._json_parts
        return (
            template.format(solved.line, dumps(solved.text), ", ".join(map(str, solved.shape)), words, count, points),
            count,
            points,
        )

    def _coordinates(self, shape: tuple[int, ...], row: RowFormat) -> list[str]:
        # Each cell written as `row` writes a cell ("(1,2)", "[1, 2]"), once per shape and format.
        kept = self._cells.get((shape, row.json))
        if kept is None:
            kept = self._cells[shape, row.json] = [row.cell(_coordinates(cell, shape)) for cell in range(math.prod(shape))]
        return kept


def _coordinates(index: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    # Grid.coordinates without a grid: row-major, the last coordinate fastest.
    coordinates = []
    for size in reversed(shape):
        index, coordinate = divmod(index, size)
        coordinates.append(coordinate)
    return tuple(reversed(coordinates))


# The marks of the batch result's JSON template (private-use characters: never in a grid's JSON text).
_LINE, _GRID, _SHAPE, _WORDS, _COUNT, _POINTS = "\ue001", "\ue002", "\ue003", "\ue004", "\ue005", "\ue006"


def _result_template() -> tuple[Callable[[str], str], str]:
    """(dumps, the JSON text of a batch result as a format string, ``{0}`` to ``{5}`` its line, grid, shape,
    words, word count and points): one definition of the object, jsonable's."""
    from boggle_dafsa.output.jsonable import dumps, result_object

    numbers = {_LINE: -7_293_811_451, _COUNT: -7_293_811_452, _POINTS: -7_293_811_453}
    text = dumps(result_object(_GRID, [_SHAPE], [_WORDS], numbers[_COUNT], numbers[_POINTS], line=numbers[_LINE]))
    for mark, number in numbers.items():
        text = text.replace(str(number), mark)
    for mark in (_GRID, _SHAPE, _WORDS):
        text = text.replace(dumps(mark), mark)
    text = text.replace("{", "{{").replace("}", "}}")
    for number, mark in enumerate((_LINE, _GRID, _SHAPE, _WORDS, _COUNT, _POINTS)):
        text = text.replace(mark, "{" + str(number) + "}")
    return dumps, text
