"""The live console game, driven through a pseudo-terminal (pexpect), and progress bars."""

from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path

import pexpect
import pytest

from boggle_dafsa.testing import dictionary_from_words
from conftest import ROOT

#: The first French grid of seed 42 is IEFA/AEFE/MHAL/ETTE: METAL and AIE are on it, HIER is not a word here.
WORDS = ["fatma", "halte", "thème", "métal", "aie", "thé", "maison", "été", "ah"]
#: The escape sequences a terminal program writes (colours, cursor moves): stripped to read the text.
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\r")


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("live-dict"))


def spawn_play(dictionary, *args: str) -> pexpect.spawn:  # type: ignore[no-untyped-def]
    return pexpect.spawn(
        sys.executable,
        ["-m", "boggle_dafsa", "play", "--seed", "42", "-d", str(dictionary.path), *args],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
        dimensions=(24, 80),
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )


def test_the_countdown_moves_without_input_and_the_game_ends_cleanly(dictionary) -> None:  # type: ignore[no-untyped-def]
    child = spawn_play(dictionary, "--time", "6")
    child.expect(r"\[0:0[56]\]")
    first = child.after
    # Nothing typed: the clock must still move on by itself.
    child.expect(r"\[0:0[0-4]\]")
    assert child.after != first
    child.send("métal\r")
    child.expect_exact("METAL: +2 points (score 2)")
    child.send("hal")  # half a word when the time runs out
    child.expect_exact("Time is up!")
    child.expect_exact("Game over (time is up).")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    screen = ESCAPES.sub("", child.before)
    assert "You found 1 of 6 words" in screen


def test_the_grid_stays_on_screen_numbered_from_0(dictionary) -> None:  # type: ignore[no-untyped-def]
    child = spawn_play(dictionary, "--time", "0")
    child.logfile_read = io.StringIO()
    child.expect_exact("Ctrl-D ends the game")
    for word in ["aie", "hier", "thé", "xyz", "maison", "ah", "été", "fatma", "aie", "halte"]:
        child.send(word + "\r")
        time.sleep(0.05)
    child.expect_exact("HALTE: +2 points")
    child.send("\x1b[A")  # Up: the history recalls the last word...
    child.send("\r")  # ...and sends it again
    child.expect_exact("HALTE: refused, already found")
    child.sendcontrol("d")
    child.expect_exact("Game over (end of input).")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    log = ESCAPES.sub("", child.logfile_read.getvalue())
    final = log[log.rindex("French 4x4, seed 42") :]  # the last frame, printed as the game ended
    # The final screen: the grid with rows and columns from 0, under the title.
    assert re.search(r"0\s+1\s+2\s+3\s*\n\s*0\s+I\s+E\s+F\s+A\s*\n\s*1\s+A\s+E\s+F\s+E", final), final


def test_ctrl_c_ends_the_game(dictionary) -> None:  # type: ignore[no-untyped-def]
    child = spawn_play(dictionary, "--time", "0")
    child.expect_exact("Ctrl-D ends the game")
    child.send("aie\r")
    child.expect_exact("AIE: +1 point")
    child.sendintr()
    child.expect_exact("Game over (interrupted).")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    from conftest import run_cli

    words = tmp_path / "words.txt"
    words.write_text("".join(f"w{a}{b}{c}\n" for a in "abcdefghijklmnopqrst" for b in "abcdefghijklmnopqrst" for c in "abcdefghijklmnopqrst"))
    args = ["-m", "boggle_dafsa", "verify", str(words), str(words)]
    child = pexpect.spawn(
        sys.executable, args, cwd=str(tmp_path), encoding="utf-8", timeout=120, dimensions=(24, 100),
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")},
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "verifying" in ESCAPES.sub("", child.before) and "ok: 8,000 words" in child.before
    piped = run_cli(*args[2:], env={"BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")})
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout == "ok: 8,000 words, checksums hold\n"
