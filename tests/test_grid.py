"""Grids: the GRID syntax, the standard-input form, shapes and neighbour tables."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from boggle_dafsa.board.grid import (
    MAX_ADJACENCIES,
    MAX_CELLS,
    MAX_DIMENSIONS,
    Grid,
    adjacency_count,
    format_shape,
    neighbours,
    parse_shape,
)
from boggle_dafsa.errors import GridError
from boggle_dafsa.words.normalize import Policy, normalize


def test_a_square_run_of_letters_is_read_row_by_row() -> None:
    grid = Grid.parse("IDXTMHEIERVNTLLU")
    assert grid.shape == (4, 4)
    assert grid.rows()[1] == ("M", "H", "E", "I")
    assert grid == Grid.parse("IDXT/MHEI/ERVN/TLLU") == Grid.parse("idxt / mhei / ervn / tllu")


@pytest.mark.parametrize(
    ("text", "shape", "faces"),
    [
        ("SALUT", (1, 5), "SALUT"),
        ("S/A/L/U/T", (5, 1), "SALUT"),
        ("A", (1, 1), "A"),
        ("ABCD", (2, 2), "ABCD"),
        ("ABCD/", (1, 4), "ABCD"),
        ("AB/CD//", (1, 2, 2), "ABCD"),
        ("ABC/DEF", (2, 3), "ABCDEF"),
        ("ABC/DEF/GHI//JKL/MNO/PQR//STU/VWX/YZA", (3, 3, 3), "ABCDEFGHIJKLMNOPQRSTUVWXYZA"),
        ("AB/CD//EF/GH///IJ/KL//MN/OP", (2, 2, 2, 2), "ABCDEFGHIJKLMNOP"),
    ],
)
def test_shapes_the_syntax_spells(text: str, shape: tuple[int, ...], faces: str) -> None:
    grid = Grid.parse(text)
    assert grid.shape == shape
    assert "".join(grid.faces) == faces


def test_whitespace_separates_multi_letter_faces() -> None:
    grid = Grid.parse("QU E S T/a b c d")
    assert grid.shape == (2, 4)
    assert grid.faces == ("QU", "E", "S", "T", "A", "B", "C", "D")
    assert Grid.parse("QU A B C").faces == ("QU", "A", "B", "C")  # four faces: a 2x2 square
    assert Grid.parse("QU A B C").shape == (2, 2)


def test_letters_go_through_the_normalization() -> None:
    assert Grid.parse("éTé/ÇaÀ").faces == ("E", "T", "E", "C", "A", "A")
    # A letter written decomposed (E + combining acute) is still one face.
    assert Grid.parse("e\u0301te\u0301").faces == ("E", "T", "E")
    assert Grid.parse("œuf").faces == ("OE", "U", "F")
    exact = Grid.parse("éT/ab", normalize=lambda face: normalize(face, Policy.EXACT))
    assert exact.faces == ("é", "T", "a", "b")


def test_a_lone_q_can_be_read_as_qu() -> None:
    assert Grid.parse("QABC", q_is_qu=True).faces == ("QU", "A", "B", "C")
    assert Grid.parse("QABC").faces == ("Q", "A", "B", "C")
    assert Grid.parse("QU A/B C", q_is_qu=True).faces == ("QU", "A", "B", "C")


def test_a_shape_fills_a_flat_run() -> None:
    cube = Grid.parse("A" * 64, shape=(4, 4, 4))
    assert cube.shape == (4, 4, 4)
    assert Grid.parse("ABCDEF", shape=(3, 2)).rows() == [("A", "B"), ("C", "D"), ("E", "F")]
    assert Grid.parse("AB/CD", shape=(2, 2)).shape == (2, 2)


@pytest.mark.parametrize(
    ("text", "shape", "message"),
    [
        ("", None, "empty grid"),
        ("   \n ", None, "empty grid"),
        ("//", None, "empty grid"),
        ("AB/C", None, "row 2 has 1 face, row 1 has 2"),
        ("ABC/DEF//GHI", None, "layer 2 is 1x3, layer 1 is 2x3"),
        ("AB/CD//EF/G", None, "layer 2, row 2 has 1 face"),
        ("/AB", None, "row 1 is empty"),
        ("AB/ /CD", None, "row 2 is empty"),
        ("AB//", None, None),  # a valid one-layer grid: checked below not to raise
        ("A1B", None, "face 2: '1' is not a letter"),
        ("AB/C-", None, "row 2, face 2: '-' is not a letter"),
        ("A B/C D1", None, "row 2, face 2: '1' in face 'D1' is not a letter"),
        ("AB/C'", None, "is not a letter"),
        ("\u0301A", None, "face 1: face '\u0301' is empty once normalized"),
        ("ABCDE", (2, 2), "5 faces do not fit the shape 2x2"),
        ("AB/CD", (4, 1), "the grid is 2x2 but the shape given is 4x1"),
    ],
)
def test_bad_grids_give_one_line_saying_where(text: str, shape: tuple[int, ...] | None, message: str | None) -> None:
    if message is None:
        assert Grid.parse(text).shape == (1, 1, 2)
        return
    with pytest.raises(GridError) as caught:
        Grid.parse(text, shape=shape)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_faces_have_at_most_three_letters() -> None:
    # Four letters a face is rows written with spaces: the message says how to write rows.
    for text in ("IDXT MHEI ERVN TLLU", "IDXT MHEI\nERVN TLLU"):
        with pytest.raises(GridError, match=r"face 1: face 'IDXT' has 4 letters, at most 3 .*separate rows with /"):
            Grid.parse(text)
    with pytest.raises(GridError, match="row 2, face 1: face 'ABCD' has 4 letters"):
        Grid.parse("QU A/ABCD B")
    assert Grid.parse("QU THE/IN ER").faces == ("QU", "THE", "IN", "ER")


def test_grids_have_at_most_16_dimensions() -> None:
    sixteen = "A" + "/" * (MAX_DIMENSIONS - 1)
    assert Grid.parse(sixteen).shape == (1,) * MAX_DIMENSIONS
    # Refused before anything is split (1,200 levels would exceed Python's recursion limit).
    for slashes in (MAX_DIMENSIONS, 25, 1200):
        with pytest.raises(GridError, match=f"a run of {slashes} slashes makes a grid of {slashes + 1} dimensions: at most 16"):
            Grid.parse("A" + "/" * slashes + "B")
    with pytest.raises(GridError, match="bad shape: a grid of 25 dimensions: at most 16"):
        parse_shape("x".join(["1"] * 25))
    with pytest.raises(GridError, match="a grid has 17 dimensions"):
        Grid((1,) * 17, ("A",))


def test_letters_outside_any_alphabet_are_fine() -> None:
    assert Grid.parse("ΩAB/CDE").faces[0] == "Ω"


@pytest.mark.parametrize(
    ("text", "shape"),
    [("4", (4, 4)), ("3x5", (3, 5)), ("4x4x4", (4, 4, 4)), (" 2 X 3 ", (2, 3)), ("1×4", (1, 4)), ("1", (1, 1))],
)
def test_parse_shape(text: str, shape: tuple[int, ...]) -> None:
    assert parse_shape(text) == shape
    assert format_shape(shape) == "x".join(map(str, shape))


@pytest.mark.parametrize("text", ["", "x", "0", "4x0", "-3", "4x", "ax4", "4.5"])
def test_bad_shapes(text: str) -> None:
    with pytest.raises(GridError, match="bad shape"):
        parse_shape(text)


# -- the standard-input ("worddle") form -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I D X T\nM H E I\nE R V N\nT L L U\n",
        "IDXT\nMHEI\nERVN\nTLLU",
        "I D X T M H E I\nE R V N T L L U",  # 16 faces: a square, whatever the line breaks
        "\n".join("IDXTMHEIERVNTLLU") + "\n",
        "IDXT/MHEI/ERVN/TLLU\n",
        "idxtmheiervntllu",
    ],
)
def test_standard_input_forms(text: str) -> None:
    assert Grid.parse_worddle(text) == Grid.parse("IDXT/MHEI/ERVN/TLLU")


def test_a_grid_of_several_lines_reads_lines_as_rows() -> None:
    assert Grid.parse("SAL\nUTE\n") == Grid.parse("SAL/UTE")
    assert Grid.parse("QU E\nS T") == Grid.parse("QU E/S T")


def test_standard_input_rectangles_layers_and_shapes() -> None:
    assert Grid.parse_worddle("SAL\nUTE\n").shape == (2, 3)
    assert Grid.parse_worddle("A B\nC D\n\nE F\nG H\n").shape == (2, 2, 2)
    assert Grid.parse_worddle("A B C D E F", shape=(2, 3)).rows() == [("A", "B", "C"), ("D", "E", "F")]
    assert Grid.parse_worddle("QU A\nB C").faces == ("QU", "A", "B", "C")
    assert Grid.parse_worddle("Q A\nB C", q_is_qu=True).faces == ("QU", "A", "B", "C")


@pytest.mark.parametrize(
    ("text", "shape", "message"),
    [
        ("", None, "empty grid"),
        ("A B C\nD E", None, "5 faces on lines of unequal length make no square grid"),
        ("A B C D E", (2, 2), "5 faces do not fit the shape 2x2"),
        ("A B\nC D\n\nE F\nG", None, "layer 2: lines of unequal length"),
        ("A B\nC D\n\nE F", None, "layer 2 is 1x2, layer 1 is 2x2"),
        ("A B\nC 3", None, "face 4: '3' is not a letter"),
    ],
)
def test_bad_standard_input(text: str, shape: tuple[int, ...] | None, message: str) -> None:
    with pytest.raises(GridError) as caught:
        Grid.parse_worddle(text, shape=shape)
    assert message in str(caught.value)


# -- properties --------------------------------------------------------------------------

shapes = st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple).filter(lambda s: math.prod(s) <= 64)
FACES = st.sampled_from(["A", "B", "E", "S", "T", "QU", "OE", "Z"])


@st.composite
def grids(draw: st.DrawFn) -> Grid:
    shape = draw(shapes)
    faces = draw(st.lists(FACES, min_size=math.prod(shape), max_size=math.prod(shape)))
    return Grid(shape, tuple(faces))


@given(grids())
@pytest.mark.slow
def test_printing_a_grid_gives_back_the_same_grid(grid: Grid) -> None:
    # The one thing the syntax cannot say: a row made of a single multi-letter face.
    assume(grid.shape[-1] > 1 or all(len(face) == 1 for face in grid.faces))
    assert Grid.parse(str(grid)) == grid
    assert Grid.parse(str(grid), shape=grid.shape) == grid


@given(grids(), st.data())
@pytest.mark.slow
def test_coordinates_and_index_are_inverse(grid: Grid, data: st.DataObject) -> None:
    cell = data.draw(st.integers(0, len(grid) - 1))
    coordinates = grid.coordinates(cell)
    assert len(coordinates) == len(grid.shape)
    assert all(0 <= c < size for c, size in zip(coordinates, grid.shape))
    assert grid.index(coordinates) == cell


@given(shapes, st.sampled_from(["king", "orthogonal"]))
@pytest.mark.slow
def test_neighbours_follow_the_definition(shape: tuple[int, ...], adjacency: str) -> None:
    table = neighbours(shape, adjacency)
    grid = Grid(shape, ("A",) * math.prod(shape))
    for a, b in itertools.product(range(len(grid)), repeat=2):
        deltas = [abs(x - y) for x, y in zip(grid.coordinates(a), grid.coordinates(b))]
        if adjacency == "king":
            adjacent = a != b and max(deltas) <= 1
        else:
            adjacent = sum(deltas) == 1
        assert (b in table[a]) == adjacent
    assert all(list(row) == sorted(row) for row in table)


def test_neighbour_counts_of_a_4x4_and_a_cube() -> None:
    table = neighbours((4, 4))
    assert [len(table[cell]) for cell in (0, 1, 5)] == [3, 5, 8]
    assert len(neighbours((3, 3, 3))[13]) == 26
    assert len(neighbours((3, 3, 3), "orthogonal")[13]) == 6
    assert neighbours((4, 4)) is neighbours((4, 4))  # computed once per shape


@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.lists(st.integers(0, 3), min_size=1, max_size=MAX_DIMENSIONS - 1),
    st.sampled_from(["king", "orthogonal"]),
)
@pytest.mark.slow
def test_axes_of_length_1_change_no_neighbour(sizes: list[int], positions: list[int], adjacency: str) -> None:
    # Axes of length 1 inserted anywhere: the same cells, the same neighbours. The table
    # is built along the longer axes only (3**16 offsets would take minutes).
    shape = [*sizes, 1] if len(sizes) == 1 else list(sizes)
    padded = list(shape)
    for position in positions[: MAX_DIMENSIONS - len(shape)]:
        padded.insert(min(position, len(padded)), 1)
    assert neighbours(tuple(padded), adjacency) == neighbours(tuple(shape), adjacency)


def test_a_thin_grid_of_16_dimensions() -> None:
    assert neighbours((1,) * 15 + (3,)) == ((1,), (0, 2), (1,))
    assert neighbours((1,) * 16) == ((),)


@given(shapes, st.sampled_from(["king", "orthogonal"]))
@pytest.mark.slow
def test_adjacency_count_is_the_size_of_the_table(shape: tuple[int, ...], adjacency: str) -> None:
    assert adjacency_count(shape, adjacency) == sum(map(len, neighbours(shape, adjacency)))


def test_too_large_a_neighbour_table_is_refused() -> None:
    # Every cell of a 2x2x...x2 grid touches every other: 4 billion pairs in 16 dimensions.
    with pytest.raises(GridError, match=r"a 2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2 grid is too large: 4,294,901,760 pairs"):
        neighbours((2,) * 16)
    assert adjacency_count((2,) * 16, "orthogonal") <= MAX_ADJACENCIES
    assert adjacency_count((1000, 1000)) <= MAX_ADJACENCIES


def test_unknown_adjacency() -> None:
    with pytest.raises(GridError, match="unknown adjacency 'hex'"):
        neighbours((2, 2), "hex")


def test_grids_check_their_fields() -> None:
    with pytest.raises(GridError):
        Grid((2, 2), ("A", "B", "C"))
    with pytest.raises(GridError):
        Grid((4,), ("A", "B", "C", "D"))
    assert Grid.from_faces(["A", "B", "C", "D"]).shape == (2, 2)
    with pytest.raises(GridError, match="3 faces make no square grid"):
        Grid.from_faces(["A", "B", "C"])
    assert Grid.from_faces(["é", "q"], (1, 2), normalize=lambda f: normalize(f), q_is_qu=True).faces == ("E", "QU")


def test_parsing_is_linear_in_the_length_of_the_text() -> None:
    # Quadratic regular expressions (/+$, \s*x\s*) took more than 30 s on these; now
    # each is refused at once (no timing: a quadratic parse would hang the suite).
    with pytest.raises(GridError, match="100001 dimensions: at most 16"):
        Grid.parse("A" + "/" * 100_000 + "B")
    with pytest.raises(GridError, match="bad shape"):
        parse_shape(" " * 200_000 + "5")
    with pytest.raises(GridError, match="too long: at most 262,144"):
        Grid.parse("A" * 300_000)
    with pytest.raises(GridError, match="too long"):
        Grid.parse_worddle("A B\n" * 100_000)
    assert parse_shape(" 4 x 4 ") == (4, 4)


def test_grids_over_the_cell_limit_are_refused_when_parsed() -> None:
    with pytest.raises(GridError, match=r"a 1000x1000 grid is too large: 1,000,000 cells, at most 16,384"):
        parse_shape("1000x1000")
    with pytest.raises(GridError, match="at most 16,384"):
        Grid.from_faces(["A"] * 130 * 130)
    assert len(Grid.from_faces(["A"] * 128 * 128)) == MAX_CELLS
