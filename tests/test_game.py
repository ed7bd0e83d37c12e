"""The console game: judging words, the report, the read-answer loop, `play` through a pipe and a terminal."""

from __future__ import annotations

import io
import json
import math
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boggle_dafsa.board.dice import SplitMix64, load_dice, roll_grid
from boggle_dafsa.board.grid import Grid
from boggle_dafsa.cli import app
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.console import run_console
from boggle_dafsa.game.rounds import MAX_SECONDS, EndReason, Game, Reason, check_seconds
from boggle_dafsa.output.jsonable import report_json
from boggle_dafsa.output.render import format_clock, render_grid, render_report
from boggle_dafsa.solver import sort_key
from helpers.dictionaries import dictionary_from_words

ROOT = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]
runner = CliRunner()

#: The first French grid of seed 42 (checked below: replays depend on it).
SEED = 42
GRID = "IEFA/AEFE/MHAL/ETTE"
#: On that grid: FATMA, HALTE, THEME, METAL (2 points), AIE, THE (1). Not on it: MAISON, ETE.
WORDS = ["fatma", "halte", "thème", "métal", "aie", "thé", "maison", "été", "ah"]


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("game-dict"))


@pytest.fixture()
def game(dictionary) -> Game:  # type: ignore[no-untyped-def]
    return Game.from_dice(load_dice("fr"), SEED, dictionary)


def test_the_seed_gives_the_grid_the_tests_expect(game: Game) -> None:
    assert str(roll_grid(load_dice("fr"), SplitMix64(SEED))) == GRID
    assert str(game.grid) == GRID
    assert [hit.word for hit in game.hits] == ["FATMA", "HALTE", "METAL", "THEME", "AIE", "THE"]


# -- judging ------------------------------------------------------------------------------


def test_every_kind_of_answer(game: Game) -> None:
    answers = [(raw, game.submit(raw)) for raw in ["Thème", "fatma", " THEME ", "maison", "été", "xyzzy", "ah", "l'eau", "aie"]]
    summary = [(raw, v.word, v.accepted, v.points, v.reason) for raw, v in answers]
    assert summary == [
        ("Thème", "THEME", True, 2, None),  # accents and case go through the dictionary's normalization
        ("fatma", "FATMA", True, 2, None),
        (" THEME ", "THEME", False, 0, Reason.ALREADY_FOUND),
        ("maison", "MAISON", False, 0, Reason.NOT_ON_GRID),  # a word, but not on this grid
        ("été", "ETE", False, 0, Reason.NOT_ON_GRID),
        ("xyzzy", "XYZZY", False, 0, Reason.NOT_A_WORD),
        ("ah", "AH", False, 0, Reason.TOO_SHORT),
        ("l'eau", None, False, 0, Reason.NOT_A_WORD),  # normalization keeps letters only
        ("aie", "AIE", True, 1, None),
    ]
    assert game.score == 5
    assert game.found == ["THEME", "FATMA", "AIE"]


def test_the_report_splits_the_grid_into_found_and_missed(game: Game) -> None:
    for raw in ["aie", "halte", "nope"]:
        game.submit(raw)
    report = game.report(EndReason.EMPTY_WORD, seconds=180)
    assert [hit.word for hit in report.found] == ["HALTE", "AIE"]
    assert [hit.word for hit in report.missed] == ["FATMA", "METAL", "THEME", "THE"]
    assert (report.score, report.total_words, report.total_points) == (3, 6, 10)
    assert report.word_share == pytest.approx(2 / 6)
    assert report.point_share == pytest.approx(3 / 10)
    text = render_report(report)
    assert "Score: 3 points, 2 words." in text
    assert "You found 2 of 6 words (33%) and 3 of 10 points (30%)." in text
    assert "--seed 42" in text
    data = report_json(report)
    assert data["grid"] == GRID
    assert [entry["word"] for entry in data["missed"]] == ["FATMA", "METAL", "THEME", "THE"]
    assert data["refused"] == [
        {"input": "nope", "word": "NOPE", "accepted": False, "points": 0, "reason": "not a word", "bonus": False}
    ]
    assert data["total"] == {"words": 6, "points": 10}


@settings(max_examples=60, deadline=None)
@given(submissions=st.lists(st.sampled_from(WORDS + ["Fatma", "HALTE ", "qqq", "l'eau", "ÂIE"]), max_size=25))
@pytest.mark.slow
def test_score_is_the_sum_of_distinct_accepted_words(dictionary, submissions: list[str]) -> None:  # type: ignore[no-untyped-def]
    game = Game(Grid.parse(GRID), dictionary)
    verdicts = [game.submit(raw) for raw in submissions]
    accepted = [v.word for v in verdicts if v.accepted]
    assert len(accepted) == len(set(accepted))
    points = {hit.word: hit.points for hit in game.hits}
    assert game.score == sum(points[word] for word in accepted)
    report = game.report()
    assert sorted(report.found + report.missed, key=sort_key) == game.hits
    assert report.found == sorted(report.found, key=sort_key)
    assert report.missed == sorted(report.missed, key=sort_key)
    for verdict in verdicts:
        if verdict.reason is Reason.NOT_ON_GRID:
            assert verdict.word in dictionary and verdict.word not in points


def test_game_rules_come_from_the_dice_set(dictionary) -> None:  # type: ignore[no-untyped-def]
    big = Game.from_dice(load_dice("big"), 1, dictionary)
    assert big.grid.shape == (5, 5)
    assert big.judge.min_length == 4
    assert all(len(hit.word) >= 4 for hit in big.hits)
    assert big.submit("aie").reason is Reason.TOO_SHORT


# -- the loop -----------------------------------------------------------------------------


def test_the_loop_answers_each_word_and_stops_at_the_empty_line(game: Game) -> None:
    out = io.StringIO()
    ended = run_console(game, seconds=0, stdin=io.StringIO("fatma\nmaison\n\nhalte\n"), out=out, interactive=False)
    assert ended is EndReason.EMPTY_WORD
    lines = out.getvalue().splitlines()
    assert lines[0] == "Untimed game. An empty line ends the game."
    assert lines[1:] == ["  FATMA: +2 points (score 2)", "  MAISON: refused, not on the grid"]
    assert game.found == ["FATMA"]  # nothing after the empty line


def test_the_loop_stops_at_the_end_of_input(game: Game) -> None:
    ended = run_console(game, seconds=0, stdin=io.StringIO("aie"), out=io.StringIO(), interactive=False)
    assert ended is EndReason.END_OF_INPUT
    assert game.score == 1


class TimedInput(io.StringIO):
    """Lines that arrive at given times on a fake clock."""

    def __init__(self, timed_lines: list[tuple[float, str]]) -> None:
        super().__init__()
        self.timed_lines = timed_lines
        self.now = 0.0

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if not self.timed_lines:
            return ""
        self.now, line = self.timed_lines.pop(0)
        return line

    def clock(self) -> float:
        return self.now


def test_a_word_typed_after_the_time_does_not_count(game: Game) -> None:
    stdin = TimedInput([(1, "fatma\n"), (59.5, "halte\n"), (60.5, "theme\n"), (61, "aie\n")])
    out = io.StringIO()
    ended = run_console(game, seconds=60, stdin=stdin, out=out, interactive=True, clock=stdin.clock)
    assert ended is EndReason.TIME_UP
    assert game.found == ["FATMA", "HALTE"]
    text = out.getvalue()
    assert text.startswith("You have 1:00 to find words.")
    assert "[1:00] > " in text and "[0:59] > " in text and "[0:01] > " in text  # the prompt counts down
    assert text.endswith("Time is up!\n")


def test_the_alarm_interrupts_a_blocked_read(game: Game) -> None:
    # Nobody ever writes to the pipe: only the alarm can end the game.
    read_end, write_end = os.pipe()
    try:
        with open(read_end, closefd=True) as stdin:
            ended = run_console(game, seconds=0.3, stdin=stdin, out=io.StringIO(), interactive=False)
    finally:
        os.close(write_end)
    assert ended is EndReason.TIME_UP


@pytest.mark.parametrize("seconds", [-1, -0.5, math.nan, math.inf, 1e12, MAX_SECONDS + 1])
def test_a_time_that_is_negative_infinite_or_too_long_is_refused(game: Game, seconds: float) -> None:
    with pytest.raises(BoggleError, match=r"^the time limit \(`seconds`\) must be between 0 \(untimed\) and 86400 seconds"):
        run_console(game, seconds=seconds, stdin=io.StringIO(), out=io.StringIO(), interactive=False)


def test_a_day_is_the_longest_time() -> None:
    check_seconds(MAX_SECONDS)
    check_seconds(0)


def test_format_clock() -> None:
    assert [format_clock(s) for s in (180, 161.2, 60, 59.01, 0.2, 0)] == ["3:00", "2:42", "1:00", "1:00", "0:01", "0:00"]


def test_the_grid_is_drawn_with_rows_and_columns_from_0() -> None:
    # The convention of solve --paths and find: UNITE at (3,3) (2,3) (1,3) (0,3) (1,2).
    text = render_grid(Grid.parse("QU A/B ."))
    lines = text.splitlines()
    assert lines[0].split() == ["0", "1"]
    assert any(line.split()[:1] == ["0"] and "Qu" in line and "A" in line for line in lines[1:])
    assert any(line.split()[:1] == ["1"] and "B" in line and "·" in line for line in lines[1:])
    assert len(lines) == 2 + 2 * 2  # numbers, a rule, and two lines a row


# -- `play` through a pipe ----------------------------------------------------------------


@pytest.mark.slow
def test_play_through_a_pipe(dictionary) -> None:  # type: ignore[no-untyped-def]
    result = subprocess.run(
        [*COMMAND, "play", "--seed", "42", "--time", "0", "-d", str(dictionary.path)],
        input="Fatma\nfatma\nzzz\nthé\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "seed 42" in out
    assert "  FATMA: +2 points (score 2)" in out
    assert "  FATMA: refused, already found" in out
    assert "  ZZZ: refused, not a word" in out
    assert "  THE: +1 point (score 3)" in out
    assert "Game over (end of input)." in out
    assert "Missed: 4 words, 7 points:" in out
    assert "You found 2 of 6 words (33%) and 3 of 10 points (30%)." in out


def test_play_json_report(dictionary) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(
        app, ["play", "--seed", "42", "-t", "0", "-d", str(dictionary.path), "--json"], input="halte\n\nfatma\n"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # only JSON on stdout: the game itself went to stderr
    assert data["ended"] == "empty word"
    assert data["seed"] == 42 and data["dice"] == "fr" and data["time"] == 0
    assert data["found"] == [{"word": "HALTE", "points": 2}]
    assert data["score"] == 2
    assert data["share"] == {"words": pytest.approx(1 / 6), "points": pytest.approx(0.2)}
    assert "HALTE: +2" in result.stderr


@pytest.mark.slow
def test_the_replay_hint_repeats_the_dice_and_dictionary_as_given(dictionary, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A dice file whose name has an extension and a space: the hint must give it back whole.
    dice_file = tmp_path / "my dice.dice"
    dice_file.write_text("scoring: classic\n" + "\n".join(["AEIOUS"] * 16) + "\n", encoding="utf-8")
    dict_path = str(dictionary.path)
    result = subprocess.run(
        [*COMMAND, "play", "--dice", str(dice_file), "--seed", "7", "-t", "0", "-d", dict_path],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    hint = f"boggle-dafsa play --dice {shlex.quote(str(dice_file))} -d {shlex.quote(dict_path)} --seed 7"
    assert f"Replay this grid with: {hint}\n" in result.stdout
    # And the hint works: the same grid again.
    replay = subprocess.run(
        [*COMMAND, *shlex.split(hint)[1:], "-t", "0"], input="", capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.splitlines()[:12] == result.stdout.splitlines()[:12]


def test_the_replay_hint_leaves_out_a_dictionary_that_was_not_given(dictionary) -> None:  # type: ignore[no-untyped-def]
    report = Game.from_dice(load_dice("fr"), SEED, dictionary).report()
    assert render_report(report).endswith("\nReplay this grid with: boggle-dafsa play --dice fr --seed 42")
    chosen = Game.from_dice(load_dice("fr"), SEED, dictionary, dice="./fr.txt", dictionary_spec="en").report()
    assert render_report(chosen).endswith("\nReplay this grid with: boggle-dafsa play --dice ./fr.txt -d en --seed 42")
    assert report_json(chosen)["dice"] == "./fr.txt"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--time", "-5"], "boggle-dafsa: the time limit (--time) must be between 0 (untimed) and 86400 seconds (24 h), not -5"),
        (
            ["--time", "inf"],
            "boggle-dafsa: the time limit (--time) must be between 0 (untimed) and 86400 seconds (24 h), not inf",
        ),
        (
            ["--time", "1e12"],
            "boggle-dafsa: the time limit (--time) must be between 0 (untimed) and 86400 seconds (24 h), not 1e+12",
        ),
        (["--dice", "klingon"], "boggle-dafsa: unknown dice set 'klingon'"),
    ],
)
def test_play_bad_input(dictionary, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    result = subprocess.run(
        [*COMMAND, "play", *args, "-d", str(dictionary.path)], input="", capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1
