"""Neighbourhoods: grids that differ in one cell scored in one walk, against scoring each grid alone.

The compiled kernel cuts a batch of totals into runs of grids equal but for one cell and
walks each run once (``_native_hood.h``); its twin does the same in Python
(:mod:`boggle_dafsa.solver.hood`). Both must give, grid by grid, what a full search of
each grid gives: the twin's search of one grid (brute-force checked in
test_compiled_kernel.py) is the oracle here.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.board.scoring import BIG, CLASSIC, LETTERS, Scoring
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.solver import PreparedSolver
from boggle_dafsa.solver import python as native
from boggle_dafsa.solver.hood import MAX_VARIANTS, MIN_RUN, hood_totals, runs
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import SOLVER, each

FACES = ["A", "B", "E", "S", "U", "QU", "SQU", "X", "Q", "T"]
SHAPES = [(1, 1), (2, 3), (3, 3), (4, 4), (5, 5), (1, 9), (2, 2, 2), (8, 8), (5, 13)]


def alone(prepared: PreparedSolver, grids: list[tuple[str, ...]]) -> list[tuple[int, int]]:
    """Each grid's totals from its own full search (one grid per call: never a run)."""
    return [prepared.totals(grid) for grid in grids]


@st.composite
def neighbourhood_batches(draw: st.DrawFn) -> tuple[tuple[int, ...], list[tuple[str, ...]]]:
    """A shape and a batch of grids: runs of a grid's one-cell variants, swaps and random grids mixed."""
    shape = draw(st.sampled_from(SHAPES))
    cells = math.prod(shape)
    face = st.sampled_from(FACES)
    batch: list[tuple[str, ...]] = []
    for _ in range(draw(st.integers(1, 4))):
        base = tuple(draw(st.lists(face, min_size=cells, max_size=cells)))
        kind = draw(st.sampled_from(["run", "run", "swaps", "random"]))
        if kind == "run":
            cell = draw(st.integers(0, cells - 1))
            for shown in draw(st.lists(face, min_size=1, max_size=14)):
                batch.append((*base[:cell], shown, *base[cell + 1 :]))
        elif kind == "swaps" and cells > 1:
            for _ in range(draw(st.integers(1, 4))):
                first, second = draw(st.integers(0, cells - 1)), draw(st.integers(0, cells - 1))
                swapped = list(base)
                swapped[first], swapped[second] = swapped[second], swapped[first]
                batch.append(tuple(swapped))
        else:
            batch.append(base)
    return shape, batch


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    batch=neighbourhood_batches(),
    data=st.data(),
    min_length=st.integers(1, 4),
    scoring=st.sampled_from([CLASSIC, BIG, LETTERS]),
    adjacency=st.sampled_from(["king", "orthogonal"]),
)
def test_a_batch_of_neighbours_gives_what_each_grid_gives_alone(
    tmp_path_factory: pytest.TempPathFactory,
    batch: tuple[tuple[int, ...], list[tuple[str, ...]]],
    data: st.DataObject,
    min_length: int,
    scoring: Scoring,
    adjacency: str,
) -> None:
    shape, grids = batch
    words = data.draw(st.lists(st.text("ABESTQU", min_size=1, max_size=9), min_size=1, max_size=80))
    fixed = ["QUE", "SQUAB", "QUASE", "BEAUS", "BASQUE", "ESQUE", "ABQUA", "SQUASQU", "EQUS", "TEST", "SETS"]
    dictionary = dictionary_from_words([*words, *fixed], tmp_path_factory.mktemp("d"))
    options = {"adjacency": adjacency, "min_length": min_length, "scoring": scoring}
    oracle = alone(PreparedSolver(dictionary, shape, kernel="python", **options), grids)
    for kernel in SOLVER:
        prepared = PreparedSolver(dictionary, shape, kernel=kernel, **options)  # type: ignore[arg-type]
        assert prepared.totals_many(grids) == oracle, kernel
        if kernel == "c":
            assert prepared._codes is not None and prepared._codes.solver.number_words()
            assert prepared.totals_many(grids) == oracle  # numbered: the runs are walked together
            assert prepared.totals_many(grids, threads=2) == oracle


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=st.data(), shape=st.sampled_from(SHAPES), min_length=st.integers(1, 3))
def test_hood_totals_is_a_full_search_of_each_variant(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, shape: tuple[int, ...], min_length: int
) -> None:
    # The twin's walk itself, on any variants (repeated ones, dead faces, the base's own).
    words = data.draw(st.lists(st.text("ABESQU", min_size=1, max_size=8), min_size=1, max_size=60))
    dictionary = dictionary_from_words([*words, "QUE", "SQUAB", "BASQUE"], tmp_path_factory.mktemp("d"))
    cells = math.prod(shape)
    faces = tuple(data.draw(st.lists(st.sampled_from(FACES), min_size=cells, max_size=cells)))
    wild = data.draw(st.integers(0, cells - 1))
    variants = data.draw(st.lists(st.sampled_from([*FACES, "É"]), min_size=1, max_size=8))
    layout = dictionary.layout()
    table = neighbours(shape, "king")
    points = (0, 1, 2, 3, 5, 8, 13)
    got = hood_totals(layout, faces, wild, variants, table, min_length, points)
    for shown, totals in zip(variants, got):
        grid = (*faces[:wild], shown, *faces[wild + 1 :])
        found = native.search(layout, grid, table, min_length)
        assert totals == (len(found), sum(points[min(len(word), len(points) - 1)] for word in found))


def test_runs_cut_a_batch_as_described() -> None:
    base = bytes(range(9))

    def variant(cell: int, code: int) -> bytes:
        return base[:cell] + bytes([code]) + base[cell + 1 :]

    elsewhere = bytes([99, 99]) + base[2:]  # two cells away from all the others
    batch = [variant(4, code) for code in (20, 21, 22)] + [variant(2, 20), variant(2, 21)] + [elsewhere] * 3
    batch += [variant(7, 100 + code) for code in range(MAX_VARIANTS + 1)]
    assert list(runs(b"".join(batch), 9)) == [
        (0, 3, 4),  # three grids differing at cell 4
        (3, 4, -1),
        (4, 5, -1),  # two only: each alone (then equal grids, no cell differs)
        (5, 6, -1),
        (6, 7, -1),
        (7, 8, -1),
        (8, 8 + MAX_VARIANTS, 7),  # the 33rd face starts another run, too short for one
        (8 + MAX_VARIANTS, 9 + MAX_VARIANTS, -1),
    ]
    assert MIN_RUN == 3


@pytest.mark.slow
@each("solver")
def test_every_neighbour_of_the_best_4x4_board(kernel: str) -> None:
    # ENABLE2K around perslatgsineters (3,625 points): every board one letter away, cell
    # by cell, as the best-board climb scores them (one batch), against each alone.
    dictionary = open_dictionary("enable2k")
    prepared = PreparedSolver(dictionary, (4, 4), kernel=kernel)
    best = tuple("PERSLATGSINETERS")
    rng = random.Random(4)
    cells = rng.sample(range(16), 3 if kernel == "python" else 16)
    grids = [(*best[:cell], letter, *best[cell + 1 :]) for cell in cells for letter in "ABCDEFGHIJKLMNOPQURSTUVWXYZ"]
    grids = [tuple("QU" if face == "Q" else face for face in grid) for grid in grids]
    expected = alone(PreparedSolver(dictionary, (4, 4), kernel=SOLVER[0]), grids)
    assert prepared.totals_many(grids) == expected
    assert (1045, 3625) in expected


@each("solver")
def test_a_run_on_a_damaged_dictionary_is_a_dictionary_error(tmp_path: Path, kernel: str) -> None:
    from test_compiled_kernel import _damaged

    dictionary = open_dictionary(str(_damaged(tmp_path, {1: 0x0FFFFFFF})))  # the root's first child, far outside
    with pytest.raises(DictionaryError, match="damaged"):
        dictionary.checked()  # the census (automaton/_census.c) refuses it before any search
    dictionary._checked = True  # past the census: the kernels' own checks
    prepared = PreparedSolver(dictionary, (2, 3), kernel=kernel)
    grids = [Grid((2, 3), ("A", "B", "C", "D", face, "F")) for face in "ABCDE"] * 3
    with pytest.raises(DictionaryError, match="damaged"):
        prepared.totals_many(grids)


@each("solver")
def test_a_time_limit_stops_a_run(tmp_path: Path, kernel: str) -> None:
    from boggle_dafsa.solver import time_limit

    words = ["A" * length for length in range(2, 40)]
    dictionary = dictionary_from_words(words, tmp_path)
    prepared = PreparedSolver(dictionary, (4, 4, 4), kernel=kernel)
    grids = [("A",) * 63 + (face,) for face in "ABCD"]
    if kernel == "c":
        assert prepared._codes is not None and prepared._codes.solver.number_words()
    with time_limit(0.3), pytest.raises(TimeoutError, match="time limit"):
        prepared.totals_many(grids)
