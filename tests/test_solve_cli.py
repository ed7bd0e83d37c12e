"""`boggle-dafsa solve` and `find`, through typer's runner and as real subprocesses."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli
from typer.testing import CliRunner

from boggle_dafsa.cli import app
from helpers.dictionaries import dictionary_from_words

runner = CliRunner()
WORDS = ["tas", "sat", "tase", "set", "est", "este", "quête", "quai", "ta", "as", "stase"]


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory: pytest.TempPathFactory) -> str:
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("d")).path


def solve(dictionary: str, *args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["solve", *args, "-d", dictionary], input=input)


@pytest.mark.slow
def test_words_one_a_line_best_first_totals_on_stderr(dictionary: str) -> None:
    result = solve(dictionary, "TAS/ESE")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["STASE", "ESTE", "TASE", "EST", "SAT", "SET", "TAS"]
    assert result.stderr == "7 words, 8 points\n"
    quiet = solve(dictionary, "TAS/ESE", "-q")
    assert quiet.stderr == "" and quiet.stdout == result.stdout
    with_totals = solve(dictionary, "TAS/ESE", "--totals")
    assert with_totals.stdout.splitlines()[-1] == "7 words, 8 points"
    assert with_totals.stderr == ""


@pytest.mark.slow
def test_scores_and_paths(dictionary: str) -> None:
    result = solve(dictionary, "TAS/ESE", "--scores", "--paths")
    lines = result.stdout.splitlines()
    assert lines[0] == "2\tSTASE\t(1,1) (0,0) (0,1) (0,2) (1,2)"
    assert "1\tTAS\t(0,0) (0,1) (0,2)" in lines
    assert solve(dictionary, "TAS/ESE", "--scores").stdout.splitlines()[-1] == "1\tTAS"
    cube = solve(dictionary, "TA/SE//XX/XX", "--paths")
    assert "TAS\t(0,0,0) (0,0,1) (0,1,0)" in cube.stdout.splitlines()


def test_json(dictionary: str) -> None:
    result = solve(dictionary, "TAS/ESE", "--json")
    data = json.loads(result.stdout)
    assert data["grid"] == "TAS/ESE" and data["shape"] == [2, 3]
    assert data["totals"] == {"words": 7, "points": 8}
    first = data["words"][0]
    assert first["word"] == "STASE" and first["points"] == 2
    assert len(first["path"]) == 5 and all(len(step) == 2 for step in first["path"])
    assert result.stderr == ""


@pytest.mark.slow
def test_options_change_the_rules(dictionary: str) -> None:
    assert solve(dictionary, "TAS/ESE", "--min-length", "5").stdout.split() == ["STASE"]
    assert solve(dictionary, "TAS/ESE", "--scoring", "big").stdout.split() == ["STASE", "ESTE", "TASE"]
    assert solve(dictionary, "TAS/ESE", "-m", "2").stdout.split()[-2:] == ["AS", "TA"]
    # Orthogonal moves only: T-A-S along the top row, but E-S-T needs a diagonal.
    orthogonal = solve(dictionary, "TAS/ESE", "--adjacency", "orthogonal").stdout.split()
    assert "TAS" in orthogonal and "EST" not in orthogonal
    assert "EST" in solve(dictionary, "TAS/ESE").stdout.split()


def test_multi_letter_faces_and_lone_q(dictionary: str) -> None:
    assert solve(dictionary, "QU E/T E", "-m", "4").stdout.split() == ["QUETE"]
    assert solve(dictionary, "Q ê/T E", "--qu", "-m", "5").stdout.split() == ["QUETE"]
    assert solve(dictionary, "QA/IX", "--qu").stdout.split() == ["QUAI"]
    assert solve(dictionary, "QA/IX").stdout.split() == []


@pytest.mark.parametrize(
    ("args", "input"),
    [
        (["-"], "T A S\nE S E\n"),
        ([], "TAS\nESE\n"),
        (["-s", "2x3"], "T A S E S E"),
        (["-", "--shape", "2x3"], "T\nA\nS\nE\nS\nE\n"),
    ],
)
def test_the_grid_from_standard_input(dictionary: str, args: list[str], input: str) -> None:
    result = solve(dictionary, *args, input=input)
    assert result.exit_code == 0, result.output
    assert result.stdout.split()[:2] == ["STASE", "ESTE"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "input", "message"),
    [
        ([""], None, "empty grid"),
        (["-"], "", "empty grid"),
        (["AB/C"], None, "row 2 has 1 face, row 1 has 2"),
        (["AB/CD//EF"], None, "layer 2 is 1x2, layer 1 is 2x2"),
        (["A1B/CDE"], None, "row 1, face 2: '1' is not a letter"),
        (["A\u0301"[1] + "B"], None, "is empty once normalized"),
        (["ABCDE", "-s", "2x2"], None, "5 faces do not fit the shape 2x2"),
        (["-", "-s", "3"], "A B C D", "4 faces do not fit the shape 3x3"),
        (["-"], "A B C\nD E", "make no square grid"),
        (["ABCD", "-s", "4y4"], None, "bad shape '4y4'"),
        (["ABCD", "--scoring", "huge"], None, "unknown scoring 'huge'"),
        (["ABCD", "--adjacency", "hex"], None, "unknown adjacency 'hex'"),
        (["ABCD", "-m", "0"], None, "(--min-length) must have at least 1 letter"),
        (["ABCD", "--jobs", "2"], None, "--jobs spreads a --batch"),
        (["A" + "/" * 25], None, "a run of 25 slashes makes a grid of 26 dimensions: at most 16"),
        (["A" + "/" * 1200], None, "makes a grid of 1201 dimensions: at most 16"),
        (["A", "-s", "x".join(["1"] * 25)], None, "bad shape: a grid of 25 dimensions: at most 16"),
        (["IDXT MHEI ERVN TLLU"], None, "face 'IDXT' has 4 letters, at most 3"),
        (["ABCD", "--dice", "nope"], None, "unknown dice set 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(dictionary: str, args: list[str], input: str | None, message: str) -> None:
    result = solve(dictionary, *args, input=input)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("boggle-dafsa: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.slow
def test_find(dictionary: str) -> None:
    found = runner.invoke(app, ["find", "TAS/ESE", "stase", "-d", dictionary])
    assert found.exit_code == 0
    assert found.stdout == "STASE: on the grid: (1,1) (0,0) (0,1) (0,2) (1,2); in the dictionary (2 points)\n"
    unknown = runner.invoke(app, ["find", "TAS/ESE", "ASE", "-d", dictionary])
    assert unknown.exit_code == 0 and unknown.stdout.endswith("; not in the dictionary\n")
    missing = runner.invoke(app, ["find", "TAS/ESE", "TATE", "-d", dictionary])
    assert missing.exit_code == 1
    assert missing.stdout == "TATE: not on the grid; not in the dictionary\n"
    as_json = json.loads(runner.invoke(app, ["find", "TAS/ESE", "tas", "--json", "-d", dictionary]).stdout)
    assert as_json == {"word": "TAS", "found": True, "path": [[0, 0], [0, 1], [0, 2]], "in_dictionary": True, "points": 1}
    stdin = runner.invoke(app, ["find", "-", "SET", "-d", dictionary], input="T A S\nE S E\n")
    assert stdin.exit_code == 0
    bad = runner.invoke(app, ["find", "TAS/ESE", "t4s", "-d", dictionary])
    assert bad.exit_code == 2 and bad.stderr == "boggle-dafsa: 't4s' is not a word: letters only\n"


def test_find_a_word_the_grid_cannot_hold(dictionary: str) -> None:
    # Once an endless search through every path of As for a B.
    result = runner.invoke(app, ["find", "AAAAA/AAAAA/AAAAA/AAAAA/AAAAA", "A" * 20 + "B", "-d", dictionary])
    assert result.exit_code == 1
    assert result.stdout == "AAAAAAAAAAAAAAAAAAAAB: not on the grid; not in the dictionary\n"


def test_a_dice_set_gives_the_rules(dictionary: str) -> None:
    # big: 4 letters or more, big scoring; explicit --scoring and --min-length still win.
    big = solve(dictionary, "TAS/ESE", "--dice", "big", "--scores")
    assert big.exit_code == 0, big.output
    assert big.stdout.splitlines() == ["2\tSTASE", "1\tESTE", "1\tTASE"]
    assert solve(dictionary, "TAS/ESE", "--dice", "big", "-m", "3").stdout.split()[-3:] == ["SAT", "SET", "TAS"]
    # A table given explicitly brings its own minimum (classic: 3).
    classic = solve(dictionary, "TAS/ESE", "--dice", "big", "--scoring", "classic").stdout.split()
    assert classic == solve(dictionary, "TAS/ESE").stdout.split()


def test_a_dice_set_gives_the_dictionary_unless_one_is_given(dictionary: str) -> None:
    from boggle_dafsa.solver.batch import SolveOptions

    options = SolveOptions.from_arguments(None, None, "king", None, False, dice="big")
    assert (options.scoring.name, options.min_length, options.language) == ("big", 4, "en")
    assert SolveOptions.from_arguments(3, "letters", "king", None, False, dice="big").min_length == 3
    # Without -d: the set's dictionary (en), the same words as -d en.
    by_set = runner.invoke(app, ["solve", "perslatgsineters", "--dice", "en", "-q"])
    by_name = runner.invoke(app, ["solve", "perslatgsineters", "-d", "en", "-q"])
    assert by_set.exit_code == 0 and by_set.stdout == by_name.stdout and "PLASTERING" in by_set.stdout
    # With -d: that dictionary.
    assert solve(dictionary, "TAS/ESE", "--dice", "en", "-q").stdout.split()[0] == "STASE"


def test_help_paragraphs_are_reflowed_whole() -> None:
    from boggle_dafsa.cli import find as find_command
    from boggle_dafsa.cli import solve as solve_command

    for command in (solve_command.solve, find_command.find):
        for paragraph in (command.__doc__ or "").strip().split("\n\n"):
            assert "\n" not in paragraph.strip(), paragraph
    # COLUMNS only: typer reads TERMINAL_WIDTH once, when its help module is first imported, and
    # keeps it for every later help of the process (under xdist, other test files' helps).
    text = runner.invoke(app, ["solve", "--help"], env={"COLUMNS": "80"}).stdout
    assert max(map(len, text.splitlines())) <= 80
    assert "each cell once, 3 letters or more by default" in " ".join(text.split())
    lines = [line.strip() for line in text.splitlines()]
    assert "once," not in lines and "a" not in lines


@pytest.mark.slow
def test_find_a_word_longer_than_the_recursion_limit(dictionary: str) -> None:
    rng = random.Random(5)
    faces = [[rng.choice("ABCDEFGH") for _ in range(60)] for _ in range(60)]
    grid = "/".join("".join(row) for row in faces)
    word = "".join("".join(row if number % 2 == 0 else reversed(row)) for number, row in enumerate(faces[:20]))
    result = runner.invoke(app, ["find", grid, word, "-d", dictionary])
    assert result.exit_code == 0
    assert result.stdout.count("(") == 1200


# -- batches ------------------------------------------------------------------------------


@pytest.fixture
def batch_file(tmp_path: Path) -> Path:
    path = tmp_path / "grids.txt"
    path.write_text("# three grids\nTAS/ESE\n\nQUAI\nSAT\n", encoding="utf-8")
    return path


def test_batch_blocks(dictionary: str, batch_file: Path) -> None:
    result = solve(dictionary, "--batch", str(batch_file))
    assert result.exit_code == 0, result.output
    blocks = result.stdout.split("\n\n")
    assert blocks[0].splitlines()[0] == "# TAS/ESE\t7 words, 8 points"
    assert blocks[1].splitlines() == ["# QU/AI\t1 word, 1 point", "QUAI"]  # Q and U apart
    assert blocks[2].splitlines() == ["# SAT\t2 words, 2 points", "SAT", "TAS"]
    assert result.stderr == "3 grids: 10 words, 11 points\n"


def test_batch_json_lines_from_standard_input(dictionary: str, batch_file: Path) -> None:
    result = solve(dictionary, "--batch", "-", "--json", "--qu", input=batch_file.read_text())
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["line"] for line in lines] == [2, 4, 5]
    assert [line["totals"]["words"] for line in lines] == [7, 1, 2]
    assert lines[1]["words"][0]["word"] == "QUAI"


@pytest.mark.slow
def test_a_long_batch_shows_a_bar_when_only_standard_error_is_a_terminal(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    from conftest import COMMAND

    rng = random.Random(3)
    grids = tmp_path / "grids.txt"
    # About 0.7 s of 4x4 grids (60 words each): the bar shows from a quarter of a second on.
    grids.write_text("".join("".join(rng.choice("ABCDEFGHIJKLMNOPRSTUVEEAI") for _ in range(16)) + "\n" for _ in range(20_000)))
    out = tmp_path / "out.txt"
    # Standard output to a file, standard error on the terminal: the bar, then the totals.
    child = pexpect.spawn(
        "sh", ["-c", f"{COMMAND} solve -d fr --batch {grids} > {out}"], timeout=120, encoding="utf-8", dimensions=(24, 150)
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    assert re.search(r"solving .*[0-9]+% .*[0-9,]+ words · [0-9,]+ points", shown), shown
    assert shown.strip().splitlines()[-1].startswith("20,000 grids: ")
    piped = subprocess.run([COMMAND, "solve", "-d", "fr", "--batch", str(grids)], capture_output=True, text=True, timeout=120)
    assert piped.stdout == out.read_text() and piped.stderr == shown.strip().splitlines()[-1] + "\n"


@pytest.mark.parametrize(
    ("args", "content", "message"),
    [
        (["--batch", "{file}"], "TAS/ESE\nAB/C\n", "{file} line 2: row 2 has 1 face"),
        (["--batch", "{missing}"], None, "{missing}: no such batch file"),
        (["--batch", "{folder}"], None, "{folder}: is a directory, not a batch file"),
        (["--batch", "{file}"], b"TAS\n\x00\x01\n", "{file} line 2: binary file (NUL byte), not a file of grids"),
        (["TAS", "--batch", "{file}"], "TAS\n", "give a GRID or --batch FILE, not both"),
        (["--batch", "{file}", "--jobs", "0"], "TAS\n", "--jobs must be between 1 and 64"),
    ],
)
def test_bad_batches(dictionary: str, tmp_path: Path, args: list[str], content: str | bytes | None, message: str) -> None:
    file = tmp_path / "grids.txt"
    if isinstance(content, bytes):
        file.write_bytes(content)
    elif content is not None:
        file.write_text(content, encoding="utf-8")
    names = {"file": str(file), "missing": str(tmp_path / "nothing.txt"), "folder": str(tmp_path)}
    result = solve(dictionary, *[arg.format(**names) for arg in args])
    assert result.exit_code == 2
    assert result.stderr.startswith("boggle-dafsa: ") and message.format(**names) in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "iso-8859-15"])
def test_batch_files_are_decoded_as_word_lists_are(dictionary: str, tmp_path: Path, encoding: str) -> None:
    file = tmp_path / "grids.txt"
    file.write_bytes("# été\nTÂS/ÉSÉ\n".encode(encoding))
    result = solve(dictionary, "--batch", str(file))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "# TAS/ESE\t7 words, 8 points"
    # Standard input is decoded line by line, the same way.
    piped = solve(dictionary, "--batch", "-", input="# été\nTÂS/ÉSÉ\n".encode(encoding))
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == result.stdout


def test_the_library_names_no_option() -> None:
    from boggle_dafsa.errors import BoggleError
    from boggle_dafsa.output.render import Rendering
    from boggle_dafsa.solver.batch import SolveOptions, solve_batch

    with pytest.raises(BoggleError) as caught:
        list(solve_batch([(1, "TAS")], None, SolveOptions(), Rendering(), jobs=0))  # type: ignore[arg-type]
    assert str(caught.value) == "the number of processes must be between 1 and 64, not 0"


# -- real processes ----------------------------------------------------------------------


@pytest.mark.slow
def test_jobs_give_the_same_output_as_one_process(dictionary: str, tmp_path: Path) -> None:
    grids = tmp_path / "many.txt"
    grids.write_text("\n".join(["TAS/ESE", "SAT", "ESTE", "QUAI", "TASE/SETA"] * 8) + "\n", encoding="utf-8")
    one = run_cli("solve", "--batch", str(grids), "-d", dictionary, "--scores")
    two = run_cli("solve", "--batch", str(grids), "-d", dictionary, "--scores", "--jobs", "2")
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout == two.stdout and one.stdout.count("# ") == 40
    assert one.stderr == two.stderr == "40 grids: 160 words, 176 points\n"
    # A bad grid: the blocks before it, in order, then its error, whatever --jobs is
    # (a worker that raised used to lose the good grids of its chunk).
    bad = tmp_path / "bad.txt"
    bad.write_text("TAS\n" * 50 + "T1\n" + "SAT\n" * 20, encoding="utf-8")
    failed_one = run_cli("solve", "--batch", str(bad), "-d", dictionary, "--jobs", "1")
    failed_two = run_cli("solve", "--batch", str(bad), "-d", dictionary, "--jobs", "2")
    assert failed_one.returncode == failed_two.returncode == 2
    assert failed_one.stderr == failed_two.stderr == f"boggle-dafsa: {bad} line 51: face 2: '1' is not a letter\n"
    assert failed_one.stdout == failed_two.stdout and failed_one.stdout.count("# TAS\t") == 50
    assert "# SAT" not in failed_two.stdout


@pytest.mark.slow
def test_the_french_grid_of_the_issue() -> None:
    result = run_cli("solve", "IDXT/MHEI/ERVN/TLLU", "-d", "fr", "--paths")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "UNITE\t(3,3) (2,3) (1,3) (0,3) (1,2)" in lines
    assert "VERT\t(2,2) (1,2) (2,1) (3,0)" in lines
    found = run_cli("find", "idxt/mhei/ervn/tllu", "unité", "-d", "fr")
    assert found.returncode == 0 and found.stdout.startswith("UNITE: on the grid: (")


@pytest.mark.slow
def test_enable2k_board_from_the_command_line() -> None:
    result = run_cli("solve", "perslatgsineters", "-d", "enable2k", "--totals", "-q")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "1,045 words, 3,625 points"


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error() -> None:
    # Over 64 kB of output: the solver is still writing when the reader goes away.
    solver = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from boggle_dafsa.cli import main; main()",
            "solve",
            "ligdrmanesietildsracsepes",
            "-d",
            "enable2k",
            "--paths",
            "--scores",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert solver.stdout is not None and solver.stderr is not None
    first = solver.stdout.readline()
    solver.stdout.close()
    assert solver.wait(timeout=60) == 0
    errors = solver.stderr.read()
    assert first.startswith(b"11\tINTERSPECIES\t(0,1) (1,2)")
    assert b"Traceback" not in errors and b"Exception ignored" not in errors
