"""Every available solver kernel against brute force and against each other.

The kernels are the seam's list for the solver (``compiled.available("solver")``, through
``helpers.kernels``): "python" and "generic" always, "c" when the extension was built
(``BOGGLE_DAFSA_PURE`` only decides what "auto" runs).
"""

from __future__ import annotations

import math
import re
import struct
import traceback
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import compiled
from boggle_dafsa.automaton.fileformat import NativeLayout
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.solver import solve
from boggle_dafsa.solver.kernels import select
from boggle_dafsa.words.normalize import normalize
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import SOLVER_ALL, each


def brute_force(grid: Grid, words: list[str], min_length: int, adjacency: str) -> set[str]:
    """The words that some path of distinct adjacent cells spells, tried path by path."""
    table = neighbours(grid.shape, adjacency)
    wanted = {w for w in (normalize(word) for word in words) if w and len(w) >= min_length}
    found: set[str] = set()

    def walk(cell: int, used: frozenset[int], spelled: str) -> None:
        if spelled in wanted:
            found.add(spelled)
        if not any(word.startswith(spelled) for word in wanted):
            return
        for other in table[cell]:
            if other not in used:
                walk(other, used | {other}, spelled + grid.faces[other])

    for start, face in enumerate(grid.faces):
        walk(start, frozenset({start}), face)
    return found


def assert_path(grid: Grid, word: str, path: tuple[int, ...], adjacency: str) -> None:
    table = neighbours(grid.shape, adjacency)
    assert len(set(path)) == len(path)
    assert all(b in table[a] for a, b in zip(path, path[1:]))
    assert "".join(grid.faces[cell] for cell in path) == word


def test_the_pure_python_kernels_are_always_available() -> None:
    assert {"python", "generic"} <= set(SOLVER_ALL)
    # Compiled kernels come first: "auto" prefers them.
    assert SOLVER_ALL[-2:] == ("python", "generic")


@st.composite
def boards(draw: st.DrawFn) -> Grid:
    shape = draw(st.sampled_from([(1, 1), (1, 4), (2, 2), (3, 3), (4, 4), (2, 2, 2)]))
    faces = st.sampled_from(["A", "B", "E", "S", "QU", "X"])
    return Grid(shape, tuple(draw(st.lists(faces, min_size=math.prod(shape), max_size=math.prod(shape)))))


@pytest.mark.slow
@pytest.mark.parametrize("kernel", SOLVER_ALL)
@settings(max_examples=40, deadline=None)
@given(
    boards(),
    st.lists(st.text("ABESQU", min_size=1, max_size=7), min_size=1, max_size=40),
    st.integers(1, 4),
    st.sampled_from(["king", "orthogonal"]),
)
def test_each_kernel_finds_exactly_the_traceable_words(
    tmp_path_factory: pytest.TempPathFactory, kernel: str, grid: Grid, words: list[str], min_length: int, adjacency: str
) -> None:
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    hits = solve(grid, dictionary, min_length=min_length, adjacency=adjacency, kernel=kernel)
    assert {hit.word for hit in hits} == brute_force(grid, words, min_length, adjacency)
    assert len(hits) == len({hit.word for hit in hits})
    for hit in hits:
        assert_path(grid, hit.word, hit.path, adjacency)


@pytest.mark.slow
@pytest.mark.parametrize("text", ["perslatgsineters", "ligdrmanesietildsracsepes", "pers/late/sind"])
def test_every_kernel_gives_the_same_hits_and_paths(text: str) -> None:
    enable2k = open_dictionary("enable2k")
    grid = Grid.parse(text)
    results = {kernel: solve(grid, enable2k, kernel=kernel) for kernel in SOLVER_ALL}
    reference = results["generic"]
    assert reference
    for kernel, hits in results.items():
        assert hits == reference, kernel


def _damaged(tmp_path: Path, version: int) -> NativeDictionary:
    # The same bytes damaged in a version 1 and a version 2 file: the 32 bits after the
    # body's first cell (v1: the root's first child, pointed far outside the file; v2: the
    # root's first edges, made bytes no edge holds).
    good = dictionary_from_words(["abc", "abd", "bcd"], tmp_path, version=version, name=f"good{version}.dafsa")
    data = bytearray(Path(good.path).read_bytes())
    struct.pack_into("<I", data, good.header.header_size + 4 * (good.root + 1), 0x0FFFFFFF)
    damaged = tmp_path / f"damaged{version}.dafsa"
    damaged.write_bytes(bytes(data))
    return NativeDictionary(damaged)


#: The layer that refuses each version's damage before any kernel runs: the census of the
#: version 1 cells (``checked``), the expansion of the version 2 body into them (``_cells``).
REFUSED_BY = {1: "census", 2: "_cells"}


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("kernel", [*SOLVER_ALL, "auto"])
def test_a_damaged_file_is_refused_before_any_kernel_runs(tmp_path: Path, kernel: str, version: int) -> None:
    damaged = _damaged(tmp_path, version)
    with pytest.raises(DictionaryError, match=re.escape(f"{damaged.path}: damaged dictionary (")) as refused:
        solve(Grid.parse("ABC/DEF"), damaged, kernel=kernel)
    frames = [frame.name for frame in traceback.extract_tb(refused.tb)]
    assert REFUSED_BY[version] in frames, frames
    assert version == 1 or "census" not in frames  # v2: refused before the census could run
    assert "verify" not in str(refused.value)  # not the kernels' own message (below)


class _Unchecked:
    """A stand-in whose layout no census has seen: the cells go straight to the kernel."""

    def __init__(self, layout: NativeLayout) -> None:
        self._layout = layout

    def layout(self) -> NativeLayout:
        return self._layout


@pytest.mark.parametrize("version", [1, 2])
@each("solver")
def test_a_layout_kernel_given_damaged_cells_refuses_them_itself(tmp_path: Path, kernel: str, version: int) -> None:
    # Past the census (a caller of the kernel signature, or a census that missed): the
    # version 1 cells of each version, the root's first child pointed outside them.
    good = dictionary_from_words(["abc", "abd", "bcd"], tmp_path, version=version, name=f"good{version}.dafsa")
    layout = good.layout()
    assert layout is not None
    cells = array("I", layout.cells)
    cells[layout.root + 1] = 0x0FFFFFFF
    damaged = _Unchecked(NativeLayout.of(cells, layout.root, layout.alphabet, layout.longest_word, "cells"))
    assert select(damaged, kernel, cells=6).name == kernel  # type: ignore[arg-type]
    with pytest.raises(DictionaryError, match=re.escape("cells: damaged dictionary (run `boggle-dafsa verify`)")):
        solve(Grid.parse("ABC/DEF"), damaged, kernel=kernel)  # type: ignore[arg-type]


def test_auto_falls_back_to_the_cursor_where_the_layout_does_not_apply(tmp_path: Path) -> None:
    # 40 letters do not fit one header cell (version 1: two; version 2: none): the generic kernel takes over.
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZΑΒΓΔΕΖΗΘΙΚΛΜΝΞ"
    for version in (1, 2):
        wide = dictionary_from_words(
            [letters[i : i + 3] for i in range(len(letters) - 2)], tmp_path, version=version, name=f"v{version}.dafsa"
        )
        assert wide.header_cells == (2 if version == 1 else 0)
        assert wide.layout() is None
        assert select(wide, "auto", cells=6).name == "generic"
        assert [hit.word for hit in solve(Grid.parse("ΛΜΝ/ABC"), wide)] == ["ABC", "ΛΜΝ"]
    with pytest.raises(ValueError, match="python"):
        solve(Grid.parse("ABC/DEF"), wide, kernel="python")
    with pytest.raises(ValueError, match="unknown"):
        solve(Grid.parse("ABC/DEF"), wide, kernel="no-such-kernel")


def test_a_path_deeper_than_the_python_recursion_goes_to_another_kernel(tmp_path: Path) -> None:
    narrow = dictionary_from_words(["A" * 500], tmp_path)
    assert select(narrow, "auto", cells=9).name == compiled.choose("solver")
    assert select(narrow, "auto", cells=600).name != "python"
