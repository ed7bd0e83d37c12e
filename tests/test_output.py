"""Output defined once: the row templates of output/rows.py, filled alike by every writer."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import boggle_dafsa
from boggle_dafsa.output.jsonable import json_row, word_json
from boggle_dafsa.output.rows import MARKS, PATH_ROW, SCORED_PATH_ROW, SCORED_WORD_ROW, WORD_ROW, row_format

PACKAGE = Path(boggle_dafsa.__file__).resolve().parent
words = st.text(st.characters(categories=("Lu", "Ll")), min_size=1, max_size=12)
paths = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=6)


def test_no_c_source_writes_a_format() -> None:
    # The kernels fill templates; JSON keys, quotes around fields or fixed separators would be a format of their own.
    for source in list(PACKAGE.rglob("*.c")) + list(PACKAGE.rglob("*.h")):
        code = re.sub(r"/\*.*?\*/|PyDoc_STRVAR\(.*?\);", "", source.read_text(encoding="utf-8"), flags=re.S)
        assert not re.search(r'\\"(word|points|path|grid|totals)\\"', code), source.name


@given(words, st.integers(0, 10_000), paths)
def test_the_json_row_is_the_json_of_word_json(word: str, points: int, path: list[tuple[int, int]]) -> None:
    row = json_row()
    cells = [row.cell(point) for point in path]
    assert json.loads(row.fill(word, points, cells)) == word_json(word, points, [list(point) for point in path])
    assert row.fill(word, points, cells) == json.dumps(word_json(word, points, [list(p) for p in path]), ensure_ascii=False)


@given(words, st.integers(0, 10_000), paths)
def test_text_rows(word: str, points: int, path: list[tuple[int, int]]) -> None:
    cells = [PATH_ROW.cell(point) for point in path]
    shown = " ".join(f"({r},{c})" for r, c in path)
    assert WORD_ROW.fill(word, points) == word
    assert SCORED_WORD_ROW.fill(word, points) == f"{points}\t{word}"
    assert PATH_ROW.fill(word, points, cells) == f"{word}\t{shown}"
    assert SCORED_PATH_ROW.fill(word, points, cells) == f"{points}\t{word}\t{shown}"
    assert row_format(scores=True, paths=True) is SCORED_PATH_ROW and row_format(scores=False, paths=False) is WORD_ROW
    for row in (WORD_ROW, SCORED_WORD_ROW, PATH_ROW, SCORED_PATH_ROW, json_row()):
        assert not set(row.fill(word, points, cells)) & set(MARKS)
