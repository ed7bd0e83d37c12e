"""``boggle-dafsa quiz``: Zyzzyva's cardbox schedule, the history in SQLite, the session
over streams, and the command driven through a pseudo-terminal (right and wrong answers,
Ctrl-C, the next day by the clock the test sets, ``--stats``)."""

from __future__ import annotations

import io
import os
import re
import stat
import sys
from datetime import date, timedelta
from pathlib import Path

import pexpect
import pytest
from conftest import ROOT
from typer.testing import CliRunner

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.study.history import History, private_folder
from boggle_dafsa.study.schedule import DAYS, TOP_BOX, WINDOWS, Card, Schedule, new_card
from boggle_dafsa.study.session import Question, alphagrams, judge, keeper, run_quiz
from helpers.dictionaries import dictionary_from_words

#: Four anagram groups: ACT (2 words), DGO (1), EILNST (4), OPST (6).
WORDS = ["stop", "pots", "tops", "spot", "opts", "post", "listen", "silent", "enlist", "tinsel", "cat", "act", "dog"]
DAY = date(2026, 11, 27)
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("quiz-dict"))


# -- the schedule ------------------------------------------------------------------------------


def test_the_due_dates_are_zyzzyvas_table() -> None:
    exact = Schedule(windows=None)
    assert DAYS == (1, 4, 7, 12, 20, 30, 60, 90, 150, 270, 480)
    for box, days in enumerate(DAYS):
        assert exact.due(box, DAY, "AEINRST") == DAY + timedelta(days=days)
    # Right answers climb one box at a time from a new card (box 1 first), and stay in the top box.
    card = new_card("AEINRST", DAY)
    assert card.box == 0 and card.due == DAY and card.new
    day = DAY
    for box in [*range(1, TOP_BOX + 1), TOP_BOX, TOP_BOX]:
        card = exact.answer(card, True, day)
        assert (card.box, card.due) == (box, day + timedelta(days=DAYS[box]))
        day = card.due
    assert (card.right, card.wrong, card.streak) == (TOP_BOX + 2, 0, TOP_BOX + 2)
    # A wrong answer sends it back to box 0, due the next day, from any box.
    card = exact.answer(card, False, day)
    assert (card.box, card.due, card.streak, card.wrong) == (0, day + timedelta(days=1), -1, 1)
    assert exact.answer(card, True, day).box == 1


def test_the_windows_spread_due_dates_within_zyzzyvas_bounds_the_same_way_each_time() -> None:
    schedule = Schedule()
    for box, (days, window) in enumerate(zip(DAYS, WINDOWS)):
        dates = {schedule.due(box, DAY, f"Q{n}") for n in range(200)}
        offsets = {(due - DAY).days - days for due in dates}
        assert offsets <= set(range(-window, window + 1))
        assert len(offsets) > 1 if window else offsets == {0}
        assert schedule.due(box, DAY, "Q1") == schedule.due(box, DAY, "Q1")


# -- judging and the session over streams --------------------------------------------------------


def test_judge_right_wrong_and_missed() -> None:
    question = Question("ACT", ("ACT", "CAT"))
    assert question.prompt() == "ACT: 2 words"
    assert judge(question, ["CAT", "ACT", "CAT"]).right
    verdict = judge(question, ["CAT", "TAC"])
    assert (verdict.found, verdict.wrong, verdict.missed, verdict.right) == (("CAT",), ("TAC",), ("ACT",), False)
    assert alphagrams(["STOP", "POTS", "CAT"]) == ["ACT", "OPST"]


def test_a_session_over_streams_keeps_each_answer(dictionary, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from boggle_dafsa.study.session import answers_of

    with History(tmp_path / "data") as history:
        assert history.add("test", ["ACT", "DGO", "OPST"], DAY) == 3
        assert history.add("test", ["ACT"], DAY) == 0
        cards = history.due("test", DAY)
        assert [card.question for card in cards] == ["ACT", "DGO", "OPST"]
        out = io.StringIO()
        summary = run_quiz(
            cards,
            answers=lambda q: answers_of(dictionary, q),
            normalize=dictionary.normalize,
            record=keeper(history, "test", Schedule(windows=None), DAY),
            stdin=io.StringIO("cat, Act\n\ngod\n\nstop pots\n"),  # the end of input judges the last question
            out=out,
            interactive=False,
        )
        assert (summary.asked, summary.right, summary.interrupted) == (3, 1, False)
        text = out.getvalue()
        assert "1/3  ACT: 2 words\nRight: all 2. Now in box 1, due 2026-12-01." in text
        assert "0 of 1: missed DOG; wrong GOD. Back to box 0, due 2026-11-28." in text
        assert "2 of 6: missed OPTS, POST, SPOT, TOPS. Back to box 0" in text
        assert history.due("test", DAY) == []
        assert [card.question for card in history.due("test", DAY + timedelta(days=1))] == ["DGO", "OPST"]
        stats = history.stats("test", DAY)
        assert (stats.boxes, stats.new, stats.due, stats.answered_today, stats.right_today) == ({0: 2, 1: 1}, 0, 0, 3, 1)
        assert history.stats("other", DAY).cards == 0


# -- the history's discipline ----------------------------------------------------------------


def test_the_history_is_private_and_has_one_writer(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with History(folder) as history:
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(history.path).st_mode) == 0o600
        with pytest.raises(BoggleError, match=r"another boggle-dafsa quiz is running \(process \d+\)"):
            History(folder)
        with History(folder, write=False) as reader:  # --stats reads beside a session
            assert reader.stats("x", DAY).cards == 0
    with History(folder):  # the lock went with the session
        pass


def test_folders_others_can_write_to_and_links_are_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    with pytest.raises(BoggleError, match="others may write to it"):
        private_folder(shared)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(BoggleError, match="symbolic link"):
        History(link)
    folder = tmp_path / "ok"
    History(folder).close()
    os.chmod(folder / "quiz.sqlite3", 0o666)
    with pytest.raises(BoggleError, match="chmod 600"):
        History(folder)


def test_an_answer_is_committed_before_the_next_question(tmp_path: Path) -> None:
    # What a kill at any point finds on disk: every answer judged so far.
    folder = tmp_path / "data"
    with History(folder) as history:
        history.add("test", ["ACT", "DGO"], DAY)
        card = Schedule(windows=None).answer(history.due("test", DAY)[0], True, DAY)
        history.record("test", card, True, DAY, (), ())
        with History(folder, write=False) as other:  # another connection: committed already
            assert other.card("test", "ACT") == Card("ACT", 1, DAY + timedelta(days=4), 1, 0, 1)
            assert other.stats("test", DAY).answered == 1


# -- the command -------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_command_without_a_terminal(dictionary, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from boggle_dafsa.cli import app

    runner = CliRunner()
    data = str(tmp_path / "data")
    words = tmp_path / "words.txt"
    words.write_text("cat\ndog\nzzz\n")
    base = ["quiz", "-d", str(dictionary.path), "--data", data, "--today", "2026-11-27"]
    result = runner.invoke(app, [*base, "--list", str(words)], input="act cat\n\ndog\n\n")
    assert result.exit_code == 0, result.output
    assert "2 anagram groups (2 new in the cardbox)" in result.output
    assert "Done: 2 answered, 2 right." in result.output
    result = runner.invoke(app, [*base, "--stats"])
    assert result.exit_code == 0, result.output
    assert "2 cards (0 never asked)" in result.output and "box  1: 2" in result.output
    assert "Answered today: 2 (2 right)" in result.output
    result = runner.invoke(app, [*base, "--length", "6"], input="")  # search's flags: EILNST, asked, input ends
    assert result.exit_code == 0, result.output
    assert "1 anagram group (1 new in the cardbox)" in result.output and "1/1  EILNST: 4 words" in result.output
    result = runner.invoke(app, [*base])
    assert "1 question due on 2026-11-27" in result.output
    for bad in (["--today", "27/11/2026"], ["--stats", "--length", "3"]):
        result = runner.invoke(app, [*base[:-2], *bad])
        assert result.exit_code == 2, result.output


def spawn_quiz(dictionary, data_home: Path, *args: str) -> pexpect.spawn:  # type: ignore[no-untyped-def]
    return pexpect.spawn(
        sys.executable,
        ["-m", "boggle_dafsa", "quiz", "-d", str(dictionary.path), *args],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
        dimensions=(24, 100),
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(data_home)},
    )


@pytest.mark.slow
def test_a_session_in_a_terminal_ctrl_c_and_the_next_day(dictionary, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    words = tmp_path / "words.txt"
    words.write_text("stop\nlisten\ncat\ndog\n")
    child = spawn_quiz(dictionary, tmp_path, "--list", str(words), "--today", "2026-11-27")
    child.expect_exact("4 questions due on 2026-11-27")
    child.expect_exact("1/4  ACT: 2 words")
    child.expect_exact("> ")
    child.send("cat\r")
    child.expect_exact("> ")
    child.send("act\r")
    child.expect_exact("> ")
    child.send("\r")
    child.expect(r"Right: all 2\. Now in box 1, due 2026-1[12]-\d\d\.")
    child.expect_exact("2/4  DGO: 1 word")
    child.send("god dog\r\r")
    child.expect_exact("1 of 1: wrong GOD. Back to box 0, due 2026-11-28.")
    child.expect_exact("3/4  EILNST: 4 words")
    child.send("listen\r")
    child.expect_exact("> ")
    child.sendintr()  # Ctrl-C in the middle of a question: it is left as it was
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    tail = ESCAPES.sub("", child.before).strip().splitlines()
    assert tail[-1].startswith("boggle-dafsa: quiz interrupted (2 answered, 1 right; kept in ")
    assert "Traceback" not in child.before

    # The next day: the wrong answer and the two questions never answered are due, not ACT.
    child = spawn_quiz(dictionary, tmp_path, "--today", "2026-11-28")
    child.expect_exact("3 questions due on 2026-11-28")
    child.expect_exact("1/3  EILNST: 4 words")
    child.send("listen silent enlist tinsel\r\r")
    child.expect_exact("Right: all 4. Now in box 1")
    child.expect_exact("2/3  OPST: 6 words")
    child.sendcontrol("d")  # the end of input ends the session
    child.expect_exact("Done: 1 answered, 1 right; 2 still due today.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    child = spawn_quiz(dictionary, tmp_path, "--stats", "--today", "2026-11-28")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = ESCAPES.sub("", child.before)
    assert "4 cards (1 never asked)" in text
    assert re.search(r"box  0: 2\n\s*box  1: 2\n", text), text
    assert "Due: 2" in text and "Answered today: 1 (1 right)" in text and "Answered ever: 3 (2 right)" in text


@pytest.mark.slow
def test_a_killed_session_keeps_every_answer_and_its_lock_goes(dictionary, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    words = tmp_path / "words.txt"
    words.write_text("cat\ndog\n")
    child = spawn_quiz(dictionary, tmp_path, "--list", str(words), "--today", "2026-11-27")
    child.expect_exact("1/2  ACT: 2 words")
    child.send("act cat\r\r")
    child.expect_exact("2/2  DGO: 1 word")
    child.kill(9)  # SIGKILL: no handler runs, nothing is flushed
    child.close()
    with History(tmp_path / "boggle-dafsa") as history:  # the lock died with the process
        assert history.stats(str(dictionary.path), DAY).answered == 1
        act = history.card(str(dictionary.path), "ACT")
        assert act is not None and (act.box, act.right, act.wrong) == (1, 1, 0)
        assert [card.question for card in history.due(str(dictionary.path), DAY)] == ["DGO"]
