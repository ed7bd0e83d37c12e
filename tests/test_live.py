"""The live console game, driven through a pseudo-terminal (pexpect), and progress bars."""

from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path

import pexpect
import pytest
from conftest import ROOT

from helpers.dictionaries import dictionary_from_words

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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    from conftest import run_cli

    words = tmp_path / "words.txt"
    words.write_text(
        "".join(f"w{a}{b}{c}\n" for a in "abcdefghijklmnopqrst" for b in "abcdefghijklmnopqrst" for c in "abcdefghijklmnopqrst")
    )
    args = ["-m", "boggle_dafsa", "verify", str(words), str(words)]
    child = pexpect.spawn(
        sys.executable,
        args,
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=120,
        dimensions=(24, 100),
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")},
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "verifying" in ESCAPES.sub("", child.before) and "ok: 8,000 words" in child.before
    piped = run_cli(*args[2:], env={"BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")})
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout == "ok: 8,000 words, checksums hold\n"


def _on_a_terminal(tmp_path: Path, *args: str) -> str:
    # The command run on a pseudo-terminal; its output without escape sequences.
    child = pexpect.spawn(
        sys.executable,
        ["-m", "boggle_dafsa", *args],
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=120,
        dimensions=(24, 150),
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")},
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return "\n".join(ESCAPES.sub("", frame) for frame in child.before.split("\r"))


@pytest.mark.slow
def test_every_long_operation_has_the_same_progress_bar(tmp_path: Path) -> None:
    # build (each format), verify and the set operations all draw one rich bar on a
    # terminal: the phase or verb, then the counts; erased at the end (its last frame is
    # still in the stream of bytes, which is what is read here).
    words = tmp_path / "words.txt"
    words.write_text("".join(f"w{a}{b}{c}\n" for a in "abcdefghij" for b in "abcdefghij" for c in "abcdefghij"))
    for format in ("native", "dawg", "marisa"):
        shown = _on_a_terminal(tmp_path, "build", str(words), "-f", format, "-o", f"d.{format}")
        assert re.search(r"(building|writing) .*1,000 words", shown), (format, shown)
    half = tmp_path / "half.txt"
    half.write_text("".join(f"w{a}{b}{c}\n" for a in "abcde" for b in "abcdefghij" for c in "abcdefghij"))
    assert "half.dafsa" not in _on_a_terminal(tmp_path, "build", str(half), "-o", "half.dafsa", "-q")  # -q: no bar either
    for verb in ("union", "intersect", "diff"):
        shown = _on_a_terminal(tmp_path, verb, "d.native", "half.dafsa", "-o", f"{verb}.dafsa")
        assert re.search(rf"{verb} .*100%", shown), (verb, shown)
    assert "verifying" in _on_a_terminal(tmp_path, "verify", str(words), "d.dawg")


@pytest.mark.slow
def test_set_operations_report_the_words_read_from_their_inputs(tmp_path: Path) -> None:
    from boggle_dafsa.query.setops import write_set
    from helpers.dictionaries import dictionary_from_words

    words = ["".join("abcdefghij"[n // 10**k % 10] for k in range(5)) for n in range(100_000)]
    first = dictionary_from_words(words[:60_000], tmp_path, name="first.dafsa")
    second = dictionary_from_words(words[40_000:], tmp_path, name="second.dafsa")
    calls: list[tuple[int, int]] = []
    report = write_set(
        [first, second], "intersect", tmp_path / "both.dafsa", progress=lambda done, total: calls.append((done, total))
    )
    assert report.words == 20_000
    assert calls[-1] == (120_000, 120_000) and len(calls) >= 3
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


@pytest.mark.slow
def test_the_dictionary_in_use_is_named_when_no_d_chose_it(tmp_path: Path) -> None:
    from conftest import run_cli

    (tmp_path / "small.txt").write_text("chat\nzoo\ntac\n")
    assert run_cli("build", "small.txt", "-q", cwd=tmp_path).returncode == 0
    solved = run_cli("solve", "CHAT/ZOOT", cwd=tmp_path)
    assert solved.stdout.split() == ["CHAT", "ZOO"]
    assert solved.stderr == "2 words, 2 points (build/dictionary.dafsa, 3 words)\n"
    looked = run_cli("lookup", "arbre", cwd=tmp_path)
    assert looked.returncode == 1 and looked.stderr == "boggle-dafsa: dictionary build/dictionary.dafsa, 3 words (no -d given)\n"
    inspected = run_cli("inspect", cwd=tmp_path)
    assert (
        inspected.stdout.startswith("dictionary ") and "build/dictionary.dafsa (no -d given" in inspected.stdout.splitlines()[0]
    )
    explicit = run_cli("solve", "CHAT/ZOOT", "-d", "build/dictionary.dafsa", cwd=tmp_path)
    assert explicit.stderr == "2 words, 2 points\n"
    # A dictionary as the argument of dump/inspect, and a stray one elsewhere.
    assert run_cli("dump", "small.txt", cwd=tmp_path).stdout.split() == ["CHAT", "TAC", "ZOO"]
    stray = run_cli("lookup", "chat", "small.txt", cwd=tmp_path)
    assert stray.returncode == 2 and "write -d small.txt" in stray.stderr and len(stray.stderr.splitlines()) == 1
    extra = run_cli("solve", "CHAT/ZOOT", "small.txt", cwd=tmp_path)
    assert extra.returncode == 2 and "give it with -d small.txt" in extra.stderr
    both = run_cli("dump", "small.txt", "-d", "fr", cwd=tmp_path)
    assert both.returncode == 2 and "two dictionaries given" in both.stderr


@pytest.mark.slow
def test_standard_input_help_and_completion(tmp_path: Path) -> None:
    from conftest import run_cli

    built = run_cli("build", "-", "-o", "s.dafsa", "-q", cwd=tmp_path, input="chat\nzoo\n")
    assert built.returncode == 0, built.stderr
    looked = run_cli("lookup", "-", "-d", "s.dafsa", cwd=tmp_path, input="chat\nxyz\n")
    assert looked.returncode == 1 and looked.stdout == "CHAT\tyes\nXYZ\tno\n"
    assert run_cli("verify", "-", "s.dafsa", cwd=tmp_path, input="zoo\nchat\n").stdout.startswith("ok: 2 words")
    assert "Usage: boggle-dafsa solve" in run_cli("solve", "-h").stdout
    assert "--install-completion" in run_cli("-h").stdout
