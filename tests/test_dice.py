"""Dice sets, dice files, the portable random generator, rolling grids, `dice` and `generate`."""

from __future__ import annotations

import math
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boggle_dafsa.board.dice import (
    BUILTIN_SETS,
    DiceSet,
    GridQuality,
    Roll,
    SplitMix64,
    builtin_sets,
    die_text,
    generate_grids,
    grid_of_roll,
    load_dice,
    roll,
)
from boggle_dafsa.board.grid import Grid
from boggle_dafsa.board.scoring import BIG, CLASSIC, SCORINGS
from boggle_dafsa.cli import app
from boggle_dafsa.errors import BoggleError, DiceError
from boggle_dafsa.solver import solve
from helpers.dictionaries import dictionary_from_words
from helpers.warm import run_command

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run_cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own (forked warm: tests/helpers/warm.py), run from the clone."""
    return run_command(list(args), input=input, cwd=ROOT, timeout=120)


# -- the built-in sets --------------------------------------------------------------------


def test_builtin_sets_hold_the_published_dice() -> None:
    fr = load_dice("fr")
    assert [die_text(d) for d in fr.dice] == (
        "ETUKNO EVGTIN DECAMP IELRUW EHIFSE RECALS ENTDOS OFXRIA NAVEDZ EIOATA GLENYU BMAQJO TLIBRA SPULTE AIMSOR ENHRIS"
    ).split()
    assert (fr.shape, fr.scoring, fr.min_length, fr.language) == ((4, 4), CLASSIC, 3, "fr")

    classic = load_dice("en-classic")
    assert ("A", "B", "J", "M", "O", "QU") in classic.dice  # the Q face is the Qu face
    assert [die_text(d) for d in classic.dice][:4] == ["AACIOT", "ABILTY", "ABJMO(Qu)", "ACDEMP"]

    new = load_dice("en")
    assert ("H", "I", "M", "N", "U", "QU") in new.dice
    assert "HLNNRZ" in [die_text(d) for d in new.dice]

    big = load_dice("big")
    assert (big.shape, big.scoring, big.min_length) == ((5, 5), BIG, 4)
    assert [die_text(d) for d in big.dice].count("DHLNOR") == 2
    assert ("B", "J", "K", "QU", "X", "Z") in big.dice


@pytest.mark.parametrize("name", BUILTIN_SETS)
def test_every_builtin_set_is_well_formed(name: str) -> None:
    dice_set = load_dice(name)
    assert dice_set.name == name
    assert len(dice_set.dice) == dice_set.cells == math.prod(dice_set.shape)
    assert all(len(die) == 6 and all(face == "." or (face.isalpha() and face.isupper()) for face in die) for die in dice_set.dice)
    assert dice_set.source and dice_set.title and dice_set.language in ("fr", "en")


# -- dice files ---------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "mine.txt") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_dice_file_in_every_notation(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "# my set\n"
        "title: Tiny\n"
        "shape: 2x2\n"
        "scoring: big\n"
        "dictionary: en\n"
        "q-is-qu: yes\n"
        "ABCDEQ   # run together; the lone Q becomes QU\n"
        "A B C D E F\n"
        "a, b, c, d, e, th\n"
        "XYZW(Qu)(St)\n",
    )
    dice_set = load_dice(path)
    assert dice_set.name == "mine"
    assert dice_set.title == "Tiny"
    assert dice_set.shape == (2, 2)
    assert dice_set.scoring is BIG and dice_set.min_length == 4
    assert dice_set.language == "en"
    assert dice_set.dice == (
        ("A", "B", "C", "D", "E", "QU"),
        ("A", "B", "C", "D", "E", "F"),
        ("A", "B", "C", "D", "E", "TH"),
        ("X", "Y", "Z", "W", "QU", "ST"),
    )


def test_defaults_square_shape_and_classic_scoring(tmp_path: Path) -> None:
    dice_set = load_dice(write(tmp_path, "\n".join(["ABCDEF"] * 9) + "\n"))
    assert dice_set.shape == (3, 3)
    assert dice_set.scoring is CLASSIC
    assert dice_set.language is None
    assert dice_set.title == "mine"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("shape: 4x4\n" + "ABCDEF\n" * 15, r"15 dice for a 4x4 grid, which needs 16"),
        ("ABCDEF\n" * 10, r"10 dice make no square grid"),
        ("shape: 2x2\nABCDEF\nA,B,,D,E,F\nABCDEF\nABCDEF\n", r"mine.txt:3: empty face"),
        ("shape: 1x2\nABCDEF\nABC()EF\n", r"mine.txt:3: empty face"),
        ("shape: 1x2\nABCDEF\nABCDE(QUES)\n", r"mine.txt:3: face .QUES. of die .* has 4 letters, at most 3"),
        ("shape: 1x2\nABCDEF\nABCDE\n", r"mine.txt:3: die 'ABCDE' has 5 faces, a die has 6"),
        ("shape: 1x2\nABCDEFG\nABCDEF\n", r"mine.txt:2: die 'ABCDEFG' has 7 faces"),
        ("shape: 1x2\nABCDEF\nA B C D E 1\n", r"mine.txt:3: face '1' .* is not letters only"),
        ("shape: 1x2\nABCDEF\nABC(DEF\n", r"mine.txt:3: unbalanced parenthesis"),
        ("shape: four\nABCDEF\n", r"mine.txt:1: shape must be ROWSxCOLUMNS"),
        ("shape: 0x4\nABCDEF\n", r"mine.txt:1: shape must be"),
        ("colour: red\nABCDEF\n", r"mine.txt:1: unknown header 'colour'"),
        ("scoring: fancy\nABCDEF\n", re.escape(f"mine.txt:1: unknown scoring 'fancy' (known: {', '.join(SCORINGS)})")),
        ("q-is-qu: perhaps\nABCDEF\n", r"mine.txt:1: q-is-qu must be yes or no"),
        ("shape: 1x1\nshape: 1x1\nABCDEF\n", r"mine.txt:2: header 'shape' given twice"),
        ("# nothing\n\n", r"mine.txt: no dice in the file"),
    ],
)
def test_malformed_dice_files(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DiceError, match=message):
        load_dice(path)


def test_unknown_set_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(
        DiceError, match=r"unknown dice set 'klingon' \(known: fr, en-classic, en, big, super-big; or give a dice file\)"
    ):
        load_dice("klingon")
    with pytest.raises(DiceError, match=r"missing\.txt: no such dice file"):
        load_dice(str(tmp_path / "missing.txt"))
    with pytest.raises(DiceError, match=r"is a directory"):
        load_dice(str(tmp_path))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"shape: 1x1\nABC\0EF\n")
    with pytest.raises(DiceError, match=r"binary\.txt:2: binary file \(NUL byte\), not a dice file"):
        load_dice(str(binary))


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("title: Éé\nshape: 1x1\nÉABCDŒ\n".encode("iso-8859-15"), "ISO-8859-15"),
        ("\ufefftitle: Éé\r\nshape: 1x1\r\nÉABCDŒ\r\n".encode("utf-8"), "UTF-8 with a BOM and CRLF"),
    ],
)
def test_a_dice_file_is_decoded_like_a_word_list(tmp_path: Path, data: bytes, encoding: str) -> None:
    path = tmp_path / "accents.txt"
    path.write_bytes(data)
    dice_set = load_dice(str(path))
    assert dice_set.title == "Éé", encoding
    assert dice_set.dice == (("É", "A", "B", "C", "D", "Œ"),)


def test_the_shape_header_reads_shapes_like_the_shape_option(tmp_path: Path) -> None:
    assert load_dice(write(tmp_path, "shape: 2\n" + "ABCDEF\n" * 4)).shape == (2, 2)
    assert load_dice(write(tmp_path, "shape: 1 × 3\n" + "ABCDEF\n" * 3)).shape == (1, 3)
    with pytest.raises(DiceError, match=r"mine\.txt:1: shape must be ROWSxCOLUMNS, e\.g\. 4x4, not '1x1x2'"):
        load_dice(write(tmp_path, "shape: 1x1x2\n" + "ABCDEF\n" * 2))


def test_the_sources_are_public() -> None:
    # Users must be able to follow a source: no internal paths, issue numbers or seed documents.
    folder = Path(__file__).resolve().parents[1] / "src" / "boggle_dafsa" / "data" / "dice"
    for path in sorted(folder.iterdir()):
        text = path.read_text("utf-8")
        assert not re.search(r"\bissues?\b|seeds|shared/|assignment", text, re.IGNORECASE), path.name
    sources = {dice_set.name: dice_set.source for dice_set in builtin_sets()}
    assert all(re.search(r"\bhttps://", sources[name]) for name in ("en-classic", "en", "big")), sources
    # No publisher's listing of the French dice is known: the source must say so plainly.
    assert "as reproduced in public lists" in sources["fr"] and "differ" in sources["fr"]


def test_option_errors_make_sense_to_library_callers_too(small_dictionary) -> None:  # type: ignore[no-untyped-def]
    fr = load_dice("fr")
    with pytest.raises(BoggleError, match=r"^a grid's least words and points \(`min_words`, `min_score`\) cannot be negative"):
        GridQuality(small_dictionary, fr.scoring, min_words=-1)
    with pytest.raises(BoggleError, match=r"^the number of grids \(`count`\) cannot be negative, not -1$"):
        generate_grids(fr, 1, -1)
    with pytest.raises(BoggleError, match=r"^the rolls allowed for one grid \(`max_attempts`\) must be at least 1, not 0$"):
        generate_grids(fr, 1, max_attempts=0)


# -- the generator ------------------------------------------------------------------------


def test_splitmix64_published_outputs() -> None:
    rng = SplitMix64(0)
    assert [rng.next64() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_below_rejects_the_outputs_that_would_bias_it() -> None:
    class Scripted(SplitMix64):
        def __init__(self, outputs: list[int]) -> None:
            super().__init__(0)
            self.outputs = outputs

        def next64(self) -> int:
            return self.outputs.pop(0)

    # 2**64 % 3 == 1: the single top output would make remainder 0 more likely, so it is drawn again.
    rng = Scripted([(1 << 64) - 1, 7])
    assert rng.below(3) == 7 % 3
    assert rng.outputs == []
    assert Scripted([(1 << 64) - 2]).below(3) == ((1 << 64) - 2) % 3


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(min_value=0, max_value=(1 << 64) - 1), bound=st.integers(min_value=1, max_value=1 << 64))
@pytest.mark.slow
def test_below_stays_in_range(seed: int, bound: int) -> None:
    rng = SplitMix64(seed)
    assert all(0 <= rng.below(bound) < bound for _ in range(5))


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(min_value=0, max_value=(1 << 64) - 1), items=st.lists(st.integers(), max_size=30))
def test_shuffle_is_a_permutation_and_repeatable(seed: int, items: list[int]) -> None:
    first, second = list(items), list(items)
    SplitMix64(seed).shuffle(first)  # type: ignore[arg-type]
    SplitMix64(seed).shuffle(second)  # type: ignore[arg-type]
    assert sorted(first) == sorted(items)
    assert first == second


def test_shuffle_makes_every_permutation_equally_likely() -> None:
    rng = SplitMix64(2024)
    counts: dict[tuple[int, ...], int] = {}
    draws = 30_000
    for _ in range(draws):
        items = [0, 1, 2]
        rng.shuffle(items)  # type: ignore[arg-type]
        counts[tuple(items)] = counts.get(tuple(items), 0) + 1
    assert len(counts) == 6
    expected = draws / 6
    chi_square = sum((count - expected) ** 2 / expected for count in counts.values())
    assert chi_square < 25  # 5 degrees of freedom: p < 2e-4 by chance


def test_golden_grids_are_the_same_everywhere() -> None:
    # Recorded once: any change to the generator, the shuffle or the dice order breaks replays.
    grids = [str(grid) for grid in generate_grids(load_dice("fr"), 42, 3)]
    assert grids == ["IEFA/AEFE/MHAL/ETTE", "ETME/QCRH/VRNO/OYNA", "LIAI/QRNR/DOUI/EEES"]
    rng = SplitMix64(7)
    assert [rng.below(6) for _ in range(12)] == [3, 0, 0, 3, 4, 3, 4, 0, 5, 5, 1, 4]


# -- rolling: the statistics --------------------------------------------------------------


Roller = Callable[[DiceSet, SplitMix64], Roll]


def five_faces_roller(dice_set: DiceSet, rng: SplitMix64) -> Roll:
    """The classic bug: the face index drawn among 5, so the sixth face never shows."""
    order = list(range(len(dice_set.dice)))
    rng.shuffle(order)  # type: ignore[arg-type]
    return tuple((die, rng.below(5)) for die in order)


def naive_shuffle_roller(dice_set: DiceSet, rng: SplitMix64) -> Roll:
    """The other classic bug: swapping each cell with any cell, which favours some placements."""
    order = list(range(len(dice_set.dice)))
    for i in range(len(order)):
        j = rng.below(len(order))
        order[i], order[j] = order[j], order[i]
    return tuple((die, rng.below(6)) for die in order)


def uniformity_problems(roller: Roller, draws: int, seed: int) -> list[str]:
    """Roll the French dice ``draws`` times; list the counts too far from uniform.

    Each face of each die should show 1/6 of the time and each die land in each cell
    1/16 of the time. Bounds are 5 standard deviations for single counts and mean + 5
    standard deviations for the chi-square totals: failable, yet never failed by chance.
    """
    dice_set = load_dice("fr")
    dice, cells = len(dice_set.dice), dice_set.cells
    faces = [[0] * 6 for _ in range(dice)]
    placements = [[0] * cells for _ in range(dice)]
    rng = SplitMix64(seed)
    for _ in range(draws):
        for cell, (die, face) in enumerate(roller(dice_set, rng)):
            faces[die][face] += 1
            placements[die][cell] += 1
    problems = []
    for name, table, share in (("face", faces, 1 / 6), ("cell", placements, 1 / cells)):
        expected = draws * share
        bound = 5 * math.sqrt(draws * share * (1 - share))
        for die, row in enumerate(table):
            for column, count in enumerate(row):
                if abs(count - expected) > bound:
                    problems.append(f"die {die} {name} {column}: {count}, expected {expected:.0f} ± {bound:.0f}")
        chi_square = sum((count - expected) ** 2 / expected for row in table for count in row)
        freedom = (len(table[0]) - 1) * (dice if name == "face" else dice - 1)
        if chi_square > freedom + 5 * math.sqrt(2 * freedom):
            problems.append(f"{name} chi-square {chi_square:.0f} for {freedom} degrees of freedom")
    return problems


@pytest.mark.slow
def test_every_face_of_every_die_and_every_cell_come_up_uniformly() -> None:
    assert uniformity_problems(roll, draws=60_000, seed=1) == []


@pytest.mark.slow
@pytest.mark.parametrize("buggy", [five_faces_roller, naive_shuffle_roller])
def test_the_statistical_check_catches_the_classic_bugs(buggy: Roller) -> None:
    assert uniformity_problems(buggy, draws=12_000, seed=1) != []


def test_a_roll_uses_each_die_once() -> None:
    dice_set = load_dice("big")
    rolled = roll(dice_set, SplitMix64(3))
    assert sorted(die for die, _face in rolled) == list(range(25))
    grid = grid_of_roll(dice_set, rolled)
    assert grid.shape == (5, 5)
    assert all(grid.faces[cell] == dice_set.dice[die][face] for cell, (die, face) in enumerate(rolled))


# -- generate -----------------------------------------------------------------------------


def test_generate_prints_grids_that_solve_reads() -> None:
    result = runner.invoke(app, ["generate", "--dice", "en", "--seed", "99", "--count", "20"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 20
    expected = [str(grid) for grid in generate_grids(load_dice("en"), 99, 20)]
    assert lines == expected
    for line in lines:
        grid = Grid.parse(line)
        assert grid.shape == (4, 4)
        assert str(grid) == line
    assert any("QU" in line for line in lines)  # the Qu face, written as a spaced face


@pytest.mark.slow
def test_generate_without_seed_prints_one_to_replay() -> None:
    first = run_cli("generate", "--dice", "big")
    assert first.returncode == 0, first.stderr
    assert first.stderr.startswith("seed: ")
    seed = first.stderr.split()[1]
    replay = run_cli("generate", "--dice", "big", "--seed", seed)
    assert replay.stdout == first.stdout
    assert replay.stderr == ""


@pytest.fixture(scope="module")
def small_dictionary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    words = "ate eat tea tee net ten tent nets sent rest tres tire rite site ires ruse sure suer".split()
    return dictionary_from_words(words, tmp_path_factory.mktemp("dice-dict"))


def test_min_words_redraws_until_the_grid_is_rich_enough(small_dictionary) -> None:  # type: ignore[no-untyped-def]
    fr = load_dice("fr")
    quality = GridQuality(small_dictionary, fr.scoring, min_words=3)
    plain = list(generate_grids(fr, 5, 10))
    rich = list(generate_grids(fr, 5, 10, quality=quality))
    assert all(len(solve(grid, small_dictionary)) >= 3 for grid in rich)
    assert sum(len(solve(grid, small_dictionary)) >= 3 for grid in plain) < 10  # so the filter did work


def test_min_score_gives_up_with_a_clear_message(small_dictionary) -> None:  # type: ignore[no-untyped-def]
    fr = load_dice("fr")
    quality = GridQuality(small_dictionary, fr.scoring, min_score=10_000)
    with pytest.raises(BoggleError, match=r"no grid with 10000 points in 50 attempts for the grid \(dice fr, seed 3\)"):
        list(generate_grids(fr, 3, quality=quality, max_attempts=50))
    with pytest.raises(BoggleError, match=r"ask for less or allow more attempts \(`max_attempts`\)$"):
        list(generate_grids(fr, 3, quality=quality, max_attempts=50))


@pytest.mark.slow
def test_generate_cli_min_words(small_dictionary) -> None:  # type: ignore[no-untyped-def]
    path = str(small_dictionary.path)
    result = run_cli("generate", "--seed", "8", "-n", "3", "--min-words", "2", "-d", path)
    assert result.returncode == 0, result.stderr
    grids = result.stdout.split()
    assert len(grids) == 3
    assert all(len(solve(Grid.parse(g), small_dictionary)) >= 2 for g in grids)
    hopeless = run_cli("generate", "--seed", "8", "--min-words", "500", "--max-attempts", "20", "-d", path)
    assert hopeless.returncode == 2
    assert hopeless.stderr.startswith("boggle-dafsa: no grid with 500 words in 20 attempts")
    assert len(hopeless.stderr.splitlines()) == 1


# -- the dice command and bad input -------------------------------------------------------


def test_dice_lists_the_sets_and_shows_one() -> None:
    listing = runner.invoke(app, ["dice"])
    assert listing.exit_code == 0
    for name in BUILTIN_SETS:
        assert any(line.split()[0] == name for line in listing.stdout.splitlines()[1:])
    shown = runner.invoke(app, ["dice", "en"])
    assert "HIMNU(Qu)" in shown.stdout and "source:" in shown.stdout


@pytest.mark.slow
def test_bad_dice_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = write(tmp_path, "shape: 4x4\n" + "ABCDEF\n" * 3)
    for args in (["generate", "--dice", "klingon"], ["generate", "--dice", bad], ["dice", bad], ["generate", "--count", "-1"]):
        result = run_cli(*args)
        assert result.returncode == 2, args
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("boggle-dafsa: "), result.stderr


@pytest.mark.slow
def test_a_dice_file_can_come_from_standard_input(tmp_path: Path) -> None:
    text = "title: mine\nshape: 2x3\n" + "".join(f"{letter * 6}\n" for letter in "CHATSO")
    path = write(tmp_path, text)
    for args in (["generate", "--seed", "7", "-n", "3"], ["solve", "CHA/TSO", "-d", "fr"]):
        from_file = run_cli(*args, "--dice", path)
        piped = run_cli(*args, "--dice", "-", input=text)
        assert piped.returncode == from_file.returncode == 0, piped.stderr
        assert piped.stdout == from_file.stdout
    shown = run_cli("dice", "-", input=text)
    assert shown.returncode == 0 and "source: standard input" in shown.stdout and "CCCCCC" in shown.stdout
    bad = run_cli("generate", "--dice", "-", input="shape: 4x4\n" + "ABCDEF\n" * 3)
    assert bad.returncode == 2 and bad.stderr.startswith("boggle-dafsa: standard input") and len(bad.stderr.splitlines()) == 1
    # play reads the player's words there; solve reads the grid there when none is given.
    for args in (["play", "--dice", "-", "--time", "0"], ["solve", "--dice", "-"]):
        refused = run_cli(*args, input=text)
        assert refused.returncode == 2 and "standard input" in refused.stderr and len(refused.stderr.splitlines()) == 1, args
