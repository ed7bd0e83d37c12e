"""Expected Boggle points per anagram group (study/expected.py) and the kernels' tally.

- the fast roll is the game's roll, draw for draw (``generate_grids`` from the same seed);
- ``tally_codes`` (compiled, and its Python twin) equals a brute-force tally of each grid's
  hits by alphagram, on any list and grids (hypothesis), and the two kernels agree;
- a run split in chunks or resumed from its file equals one run; the file round-trips;
- the expected points and their standard error equal a direct computation from per-board
  points;
- bad files and bad arguments are refused in one line.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.dice import DiceSet, generate_grids, load_dice
from boggle_dafsa.board.grid import Grid
from boggle_dafsa.board.scoring import CLASSIC
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.solver import PreparedSolver
from boggle_dafsa.study import expected
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import SOLVER, each, requires_c

needs_c = requires_c("solver")

LETTERS = "ABEQSU"


def brute_tally(prepared: PreparedSolver, grids: list[Grid]) -> tuple[Counter[str], Counter[str]]:
    """(found, squares) by alphagram, from each grid's hits."""
    found: Counter[str] = Counter()
    squares: Counter[str] = Counter()
    for grid in grids:
        per_board = Counter(expected.alphagram(hit.word) for hit in prepared.solve(grid))
        for group, k in per_board.items():
            found[group] += k
            squares[group] += k * k
    return found, squares


def kernel_tally(prepared: PreparedSolver, grids: list[Grid]) -> tuple[Counter[str], Counter[str]]:
    """(found, squares) by alphagram, from ``tally_codes``."""
    names: dict[str, int] = {}
    groups = array("I", [names.setdefault(expected.alphagram(word), len(names)) for word in prepared.numbered_words()])
    found = array("Q", bytes(8 * len(names)))
    squares = array("Q", bytes(8 * len(names)))
    codes = b"".join(prepared.encode(grid.faces) for grid in grids)
    assert prepared.tally_codes(codes, groups, found, squares) == len(grids)
    by_name = list(names)
    return (
        Counter({by_name[i]: k for i, k in enumerate(found) if k}),
        Counter({by_name[i]: k for i, k in enumerate(squares) if k}),
    )


@settings(max_examples=12, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(2, 2), (3, 3), (4, 4), (2, 5)]), min_length=st.integers(1, 4))
def test_the_tally_equals_a_brute_force_count_of_each_grids_words(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, shape: tuple[int, int], min_length: int
) -> None:
    words = data.draw(st.lists(st.text(LETTERS, min_size=1, max_size=7), min_size=1, max_size=80))
    # Anagram groups of several words, and QU faces.
    words += ["ABE", "BEA", "EBA", "SEA", "ASE", "QUE", "EQU", "SQUAB"]
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    cells = shape[0] * shape[1]
    face = st.sampled_from(["A", "B", "E", "S", "U", "QU", "X"])
    grids = [
        Grid(shape, tuple(data.draw(st.lists(face, min_size=cells, max_size=cells)))) for _ in range(data.draw(st.integers(0, 8)))
    ]
    oracle = brute_tally(PreparedSolver(dictionary, shape, min_length=min_length, kernel="python"), grids)
    for kernel in SOLVER:
        prepared = PreparedSolver(dictionary, shape, min_length=min_length, kernel=kernel)
        assert kernel_tally(prepared, grids) == oracle, kernel


def test_numbered_words_are_the_kernels_numbers(tmp_path: Path) -> None:
    # Word i of numbered_words is the compiled kernel's word number i: a tally that puts
    # each word in a group of its own counts each word where the twin does.
    dictionary = dictionary_from_words(["ABE", "BE", "BEA", "SEA", "SEAS", "QUE", "A"], tmp_path)
    prepared = PreparedSolver(dictionary, (3, 3), min_length=1, kernel=SOLVER[0])  # the compiled kernel where built
    words = prepared.numbered_words()
    assert sorted(words) == sorted(dictionary)
    grid = Grid((3, 3), ("A", "B", "E", "S", "A", "QU", "S", "E", "A"))
    groups = array("I", range(len(words)))
    found = array("Q", bytes(8 * len(words)))
    squares = array("Q", bytes(8 * len(words)))
    prepared.tally_codes(prepared.encode(grid.faces), groups, found, squares)
    assert {words[i] for i, k in enumerate(found) if k} == {hit.word for hit in prepared.solve(grid)}


@pytest.mark.parametrize("name", ["fr", "en", "big", "super-big", "en-classic"])
def test_the_fast_roll_is_the_games_roll(tmp_path: Path, name: str) -> None:
    dice_set = load_dice(name)
    letters = sorted({letter for die in dice_set.dice for face in die for letter in face if letter.isalpha()})
    dictionary = dictionary_from_words(letters, tmp_path)
    prepared = PreparedSolver(dictionary, dice_set.shape)
    face_codes = expected._face_codes(dice_set, dictionary, prepared)
    for seed in (0, 1, 2**64 - 1, 123456789):
        codes, state = expected.roll_codes(face_codes, seed, 40)
        grids = list(generate_grids(dice_set, seed, 41))
        assert codes == b"".join(prepared.encode(grid.faces) for grid in grids[:40])
        # The state goes on where the game's generator does: board 41.
        assert expected.roll_codes(face_codes, state, 1)[0] == prepared.encode(grids[40].faces)


def small_dice() -> DiceSet:
    """A 3x3 set over a few letters, so that a run of a few hundred boards finds groups twice."""
    dice = tuple(
        tuple(face) for face in ["AABESS", "ABBEES", "AEESSU", "ABESQU", "AAEESS", "BBEESU", "AESSUB", "ABEESS", "AABBEE"]
    )
    return DiceSet("small", "small", dice, (3, 3), CLASSIC, None, "test")


def test_a_run_in_chunks_or_resumed_is_one_run(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(
        ["ABE", "BEA", "EBA", "SEA", "ASE", "SEAS", "BASE", "ABES", "BEES", "ABS", "SUB", "BUS"], tmp_path
    )
    dice_set = small_dice()
    whole = expected.run(expected.new_tally(dice_set, "t", 7), dice_set, dictionary, 300, chunk=300)
    chunks = expected.run(expected.new_tally(dice_set, "t", 7), dice_set, dictionary, 300, chunk=64)
    assert (whole.found, whole.extra, whole.state, whole.boards) == (chunks.found, chunks.extra, chunks.state, 300)
    first = expected.run(expected.new_tally(dice_set, "t", 7), dice_set, dictionary, 120)
    path = tmp_path / "t.tsv.xz"
    expected.write_tally(first, path)
    resumed = expected.run(expected.read_tally(path), dice_set, dictionary, 180)
    assert (resumed.found, resumed.extra, resumed.state, resumed.boards) == (whole.found, whole.extra, whole.state, 300)
    # Some group was found twice on a board (so the squares are tested), and the brute force agrees.
    assert whole.extra
    grids = list(generate_grids(dice_set, 7, 300))
    found, squares = brute_tally(PreparedSolver(dictionary, (3, 3), kernel="python"), grids)
    assert whole.found == found
    assert {group: whole.squares(group) for group in found} == dict(squares)
    # Both kernels.
    for kernel in SOLVER:
        again = expected.run(expected.new_tally(dice_set, "t", 7), dice_set, dictionary, 300, kernel=kernel)
        assert (again.found, again.extra) == (whole.found, whole.extra)


def test_expected_points_and_error_equal_a_direct_computation(tmp_path: Path) -> None:
    words = ["ABE", "BEA", "EBA", "SEA", "ASE", "SEAS", "BASE", "ABES", "BEES", "ABS", "SUB", "BUS", "BASES", "ABBES"]
    dictionary = dictionary_from_words(words, tmp_path)
    dice_set = small_dice()
    tally = expected.run(expected.new_tally(dice_set, "t", 3), dice_set, dictionary, 200)
    prepared = PreparedSolver(dictionary, (3, 3), kernel="python")
    per_board = [Counter() for _ in range(200)]  # type: list[Counter[str]]
    for board, grid in zip(per_board, generate_grids(dice_set, 3, 200)):
        for hit in prepared.solve(grid):
            board[expected.alphagram(hit.word)] += hit.points
    for group in tally.found:
        points = [board[group] for board in per_board]
        assert tally.expected(group) == pytest.approx(statistics.fmean(points))
        assert tally.error(group) == pytest.approx(statistics.stdev(points) / math.sqrt(200))
    ranked = tally.ranked()
    assert [tally.expected(group) for group in ranked] == sorted((tally.expected(group) for group in ranked), reverse=True)
    assert tally.expected("ZZZ") == 0.0


def test_the_file_round_trips_and_bad_files_are_one_line(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["ABE", "BEA", "SEA", "ASE", "SEAS"], tmp_path)
    dice_set = small_dice()
    tally = expected.run(expected.new_tally(dice_set, "t", 5), dice_set, dictionary, 50)
    for name in ("t.tsv", "t.tsv.xz"):
        expected.write_tally(tally, tmp_path / name)
        back = expected.read_tally(tmp_path / name)
        assert (back.found, back.extra, back.boards, back.state, back.seed, back.points, back.words) == (
            tally.found,
            tally.extra,
            tally.boards,
            tally.state,
            tally.seed,
            tally.points,
            tally.words,
        )
    text = (tmp_path / "t.tsv").read_text()
    bad = {
        "hello\n": "line 1: not an expected-points table",
        text + "ABE\t1\n": "not GROUP<TAB>found<TAB>squares",
        text + "ABE\tx\t1\n": "not GROUP<TAB>found<TAB>squares",
        text + "ZZZ\t3\t2\n": "squares ≥ found",
        text.replace("# boards: 50\n", ""): "header line is missing",
    }
    for content, message in bad.items():
        path = tmp_path / "bad.tsv"
        path.write_text(content)
        with pytest.raises(BoggleError, match=message) as caught:
            expected.read_tally(path)
        assert "\n" not in str(caught.value) and "bad.tsv" in str(caught.value)
    (tmp_path / "bad.tsv.xz").write_bytes(b"not xz")
    with pytest.raises(BoggleError, match="cannot read"):
        expected.read_tally(tmp_path / "bad.tsv.xz")


@each("solver")
def test_tally_refuses_bad_arguments(tmp_path: Path, kernel: str) -> None:
    dictionary = dictionary_from_words(["ABE", "BEA", "SEA"], tmp_path)
    prepared = PreparedSolver(dictionary, (2, 2), kernel=kernel)
    words = prepared.numbered_words()
    codes = prepared.encode(("A", "B", "E", "S"))
    good = array("I", [0] * len(words))
    sums = array("Q", [0])
    with pytest.raises(ValueError, match="groups gives"):
        prepared.tally_codes(codes, array("I", [0] * (len(words) + 1)), sums, array("Q", [0]))
    with pytest.raises(ValueError, match="group 1 of 1"):
        prepared.tally_codes(codes, array("I", [0, 1, 0]), sums, array("Q", [0]))
    with pytest.raises(ValueError, match="same number of groups"):
        prepared.tally_codes(codes, good, sums, array("Q", [0, 0]))
    with pytest.raises(ValueError, match="whole grids"):
        prepared.tally_codes(codes[:3], good, sums, array("Q", [0]))
    with pytest.raises(ValueError, match="aligned items"):
        prepared.tally_codes(codes, bytes(5), sums, array("Q", [0]))
    with pytest.raises((TypeError, BufferError)):
        prepared.tally_codes(codes, good, bytes(8), array("Q", [0]))
    assert prepared.tally_codes(codes, good, sums, array("Q", [0])) == 1
    assert sums[0] == 3  # ABE, BEA, SEA: one group here


@needs_c
def test_the_compiled_tally_refuses_grids_past_64_cells(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["ABE"], tmp_path)
    for kernel in SOLVER:
        prepared = PreparedSolver(dictionary, (5, 13), kernel=kernel)
        words = prepared.numbered_words()
        with pytest.raises(ValueError, match="at most 64 cells"):
            prepared.tally_codes(prepared.encode(("A",) * 65), array("I", [0] * len(words)), array("Q", [0]), array("Q", [0]))


def test_a_run_refuses_another_dice_set_or_list(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["ABE", "BEA"], tmp_path)
    tally = expected.new_tally(small_dice(), "t", 1)
    with pytest.raises(BoggleError, match="dice small"):
        expected.run(tally, load_dice("fr"), dictionary, 1)
    tally.words = 99
    with pytest.raises(BoggleError, match="99 words"):
        expected.run(tally, small_dice(), dictionary, 1)


def test_an_unknown_table_is_one_line() -> None:
    with pytest.raises(BoggleError, match="no expected points for en: computed for fr"):
        expected.expected_table("en")
    with pytest.raises(BoggleError, match="no expected points for fr with en dice"):
        expected.expected_table("fr", "en")


# -- ordering by expected points: search, the column, the quiz -------------------------------


def small_table(tmp_path: Path) -> tuple[object, expected.Tally]:
    words = ["ABE", "BEA", "EBA", "SEA", "ASE", "SEAS", "BASE", "ABES", "BEES", "ABS", "SUB", "BUS", "BASES", "ABBES", "UB"]
    dictionary = dictionary_from_words(words, tmp_path)
    dice_set = small_dice()
    return dictionary, expected.run(expected.new_tally(dice_set, "t", 11), dice_set, dictionary, 150)


def test_search_sorts_by_expected_points_and_the_column_shows_them(tmp_path: Path) -> None:
    from boggle_dafsa.output.columns import WordColumns
    from boggle_dafsa.query import search

    dictionary, table = small_table(tmp_path)
    words = list(dictionary)
    by_group = sorted(words, key=lambda word: (-table.expected(expected.alphagram(word)), expected.alphagram(word), word))
    assert list(search(dictionary, sort="expected", expected=table)) == by_group
    assert (
        list(search(dictionary, length=(3, 3), sort="expected", expected=table, limit=2))
        == [word for word in by_group if len(word) == 3][:2]
    )
    columns = WordColumns(dictionary, ("expected",), expected=table)
    for word in words:
        value = table.expected(expected.alphagram(word))
        assert columns.fields(word) == {"word": word, "expected": round(value, 4)}
        assert columns.line(word) == f"{value:.4f}\t{word}"
    assert table.expected("BU") == 0.0 and columns.fields("UB")["expected"] == 0.0  # too short to score
    with pytest.raises(BoggleError, match="expected points need a table"):
        list(search(dictionary, sort="expected"))
    with pytest.raises(BoggleError, match="expected points need a table"):
        WordColumns(dictionary, ("expected",))


def test_the_quiz_asks_the_highest_expected_points_first(tmp_path: Path) -> None:
    from datetime import date

    from boggle_dafsa.study.schedule import Card
    from boggle_dafsa.study.session import ordered

    _dictionary, table = small_table(tmp_path)
    groups = sorted(table.found)
    cards = [Card(group, 0, date(2026, 1, 1)) for group in groups]
    assert ordered(cards) == cards
    assert [card.question for card in ordered(cards, "expected", table)] == sorted(groups, key=lambda g: -table.expected(g))
    with pytest.raises(BoggleError, match="bad order"):
        ordered(cards, "random")


@pytest.mark.slow
def test_the_commands_read_the_shipped_fr_table() -> None:
    import json

    from conftest import run_cli

    table = expected.expected_table("fr")
    assert table.boards >= 100_000 and (table.dice, table.dictionary) == ("fr", "fr")
    top = table.ranked()[0]
    result = run_cli("search", "-d", "fr", "--anagram", top, "--columns", "expected,anagrams", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["words"]
    assert rows and all(row["expected"] == round(table.expected(top), 4) for row in rows)
    result = run_cli("search", "-d", "fr", "--length", "3", "--sort", "expected", "--limit", "1")
    assert result.returncode == 0 and expected.alphagram(result.stdout.strip()) == top
    result = run_cli("match", "-d", "fr", top, "--columns", "expected")
    assert result.returncode in (0, 1), result.stderr
    result = run_cli("search", "-d", "en", "--length", "3", "--sort", "expected")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "no expected points for en" in result.stderr
