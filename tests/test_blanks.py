"""Blank faces (Super Big Boggle): written "." in every grid syntax and dice file, crossed by no word."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.dice import SplitMix64, die_text, load_dice, roll_grid
from boggle_dafsa.board.grid import BLANK, Grid, neighbours
from boggle_dafsa.errors import DiceError
from boggle_dafsa.solver import find, solve
from boggle_dafsa.words.normalize import normalize
from helpers.dictionaries import dictionary_from_words


@pytest.mark.parametrize(
    ("text", "shape", "faces"),
    [
        ("AB.D", (2, 2), ("A", "B", ".", "D")),  # a flat run
        ("AB./DEF", (2, 3), ("A", "B", ".", "D", "E", "F")),  # rows
        ("QU . E/S T .", (2, 3), ("QU", ".", "E", "S", "T", ".")),  # faces spelled out
        ("A./BC//..//DE", (3, 2, 2), None),  # wrong on purpose: ragged layers are refused below
        ("A./BC//../DE", (2, 2, 2), ("A", ".", "B", "C", ".", ".", "D", "E")),  # 3-D
        ("AB.\nDEF\n", (2, 3), ("A", "B", ".", "D", "E", "F")),  # lines, as on standard input
        ("qu .\ne s", (2, 2), ("QU", ".", "E", "S")),
    ],
)
def test_a_blank_is_a_dot_in_every_grid_syntax(text: str, shape: tuple[int, ...], faces: tuple[str, ...] | None) -> None:
    if faces is None:
        with pytest.raises(Exception, match="ragged|layer"):
            Grid.parse(text)
        return
    grid = Grid.parse(text)
    assert (grid.shape, grid.faces) == (shape, faces)
    assert Grid.parse(str(grid)) == grid  # printed back in the same syntax
    assert Grid.parse_worddle("\n".join(" ".join(row) for row in grid.rows())).faces == faces if len(shape) == 2 else True


def test_a_flat_run_with_a_shape_and_the_dot_in_a_face_of_letters() -> None:
    assert Grid.parse("AB.DEF.HI", shape=(3, 3)).faces.count(BLANK) == 2
    with pytest.raises(Exception, match="not a letter"):
        Grid.parse("A B.C D")  # a dot inside a face is no blank face


# -- solving: brute force over every path ---------------------------------------------------


def spelled_words(grid: Grid, longest: int) -> dict[str, bool]:
    """Every string spelled along a simple path of at most ``longest`` cells (brute force)."""
    table = neighbours(grid.shape)
    spelled: dict[str, bool] = {}

    def walk(path: list[int], word: str) -> None:
        spelled[word] = True
        if len(path) == longest:
            return
        for cell in table[path[-1]]:
            if cell not in path:
                walk(path + [cell], word + grid.faces[cell])

    for start in range(len(grid)):
        walk([start], grid.faces[start])
    return spelled


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([(2, 2), (2, 3), (3, 3), (1, 4)]).flatmap(
        lambda shape: st.tuples(
            st.just(shape),
            st.lists(st.sampled_from(["A", "B", "E", "QU", "."]), min_size=math.prod(shape), max_size=math.prod(shape)),
        )
    ),
    st.data(),
)
def test_no_word_crosses_a_blank(
    tmp_path_factory: pytest.TempPathFactory, board: tuple[tuple[int, int], list[str]], data: st.DataObject
) -> None:
    shape, faces = board
    grid = Grid(shape, tuple(faces))
    # Words read along paths of the same grid with its blanks as letters, plus random ones.
    lettered = Grid(shape, tuple("E" if face == BLANK else face for face in faces))
    candidates = sorted(spelled_words(lettered, 4))
    words = data.draw(st.lists(st.sampled_from(candidates), max_size=30)) + data.draw(
        st.lists(st.text("ABEQU", min_size=1, max_size=5), max_size=10)
    )
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    reachable = spelled_words(grid, len(grid))
    expected = {w for w in {normalize(w) for w in words} if w and len(w) >= 1 and w in reachable and BLANK not in w}
    hits = solve(grid, dictionary, min_length=1)
    assert {hit.word for hit in hits} == expected
    assert all(grid.faces[cell] != BLANK for hit in hits for cell in hit.path)
    for word in expected:
        path = find(grid, word)
        assert path is not None and BLANK not in (grid.faces[cell] for cell in path)


# -- dice --------------------------------------------------------------------------------------


def test_super_big_boggle_dice() -> None:
    dice = load_dice("super-big")
    assert (dice.shape, dice.min_length, dice.language) == ((6, 6), 4, "en")
    assert ("AN", "ER", "HE", "IN", "QU", "TH") in dice.dice
    assert "EIO..." in [die_text(die) for die in dice.dice]
    assert sum(die.count(BLANK) for die in dice.dice) == 3
    grids = [roll_grid(dice, SplitMix64(seed)) for seed in range(200)]
    assert any(BLANK in grid.faces for grid in grids)
    for grid in grids:  # every rolled grid reads back from its printed form
        assert Grid.parse(str(grid)) == grid


def test_blank_faces_in_every_dice_notation(tmp_path: Path) -> None:
    path = tmp_path / "blanks.txt"
    path.write_text("shape: 2x2\nAB(Qu)...\nA B QU . . .\nA, B, Qu, ., ., .\nABCDE.\n", "utf-8")
    dice = load_dice(str(path))
    assert dice.dice[:3] == (("A", "B", "QU", ".", ".", "."),) * 3
    assert dice.dice[3] == ("A", "B", "C", "D", "E", ".")
    path.write_text("ABCDE-\n" * 4, "utf-8")
    with pytest.raises(DiceError, match=r"blanks\.txt:1: face '-' of die 'ABCDE-' is not letters only \(a blank face is '\.'\)"):
        load_dice(str(path))


@pytest.mark.slow
def test_the_command_line_with_blanks(tmp_path: Path) -> None:
    spec = str(dictionary_from_words(["chat", "chien", "niche", "zoo"], tmp_path).path)
    words = run_cli("solve", "CHA./IE../T.NZ", "-d", spec, "-m", "3", "-q")
    assert words.returncode == 0 and words.stdout.split() == ["CHIEN"]  # CHAT's T lies behind blanks
    path = run_cli("find", "CHA./IE../T.NZ", "chien", "-d", spec)
    assert path.returncode == 0 and "(0,0)" in path.stdout.replace(" ", "")
    grid = run_cli("generate", "--dice", "super-big", "--seed", "1", "-n", "20")
    assert grid.returncode == 0 and len(grid.stdout.split("\n")) > 20
    assert all(Grid.parse(line).shape == (6, 6) for line in grid.stdout.splitlines())
    game = run_cli("play", "--dice", "super-big", "--seed", "1", "--time", "0", "--json", "-d", spec, input="chien\n")
    assert game.returncode == 0, game.stderr
