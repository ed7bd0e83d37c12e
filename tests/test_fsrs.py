"""FSRS-5 beside the cardbox (study/fsrs.py): the formulas py-fsrs documents (ALGORITHM.md),
held to fsrs-rs's worked values (its inference.rs tests), their properties on any memory
(hypothesis), and the quiz scheduled by it: the history keeps its memory (schema 2, a
schema 1 file brought up to date), the command and the web API take it.
"""

from __future__ import annotations

import math
import sqlite3
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.study.fsrs import DEFAULT_PARAMETERS, FSRS, Memory, interval, retrievability
from boggle_dafsa.study.history import SCHEMA_VERSION, History
from boggle_dafsa.study.schedule import Card
from boggle_dafsa.study.session import scheduler

#: fsrs-rs's test parameters (src/inference.rs, FSRS-5's 19), with which its worked values are made.
RS_PARAMETERS = (
    0.6845422,
    1.6790825,
    4.7349424,
    10.042885,
    7.4410233,
    0.64219797,
    1.071918,
    0.0025195254,
    1.432437,
    0.1544,
    0.8692766,
    2.0696752,
    0.0953,
    0.2975,
    2.4691248,
    0.19542035,
    3.201072,
    0.18046261,
    0.121442534,
)
DAY = date(2026, 11, 27)


def close(memory: Memory, stability: float, difficulty: float) -> bool:
    # fsrs-rs computes in 32-bit floats: six significant digits.
    return math.isclose(memory.stability, stability, rel_tol=2e-6) and math.isclose(memory.difficulty, difficulty, rel_tol=2e-6)


def replay(model: FSRS, reviews: list[tuple[int, int]]) -> Memory:
    memory = None
    for grade, elapsed in reviews:
        memory = model.review(memory, elapsed, grade)
    assert memory is not None
    return memory


def test_fsrs_rs_worked_values() -> None:
    model = FSRS(RS_PARAMETERS)
    # test_memo_state: Again on the first day, then Good after 1, 3, 8 and 21 days.
    assert close(replay(model, [(1, 0), (3, 1), (3, 3), (3, 8), (3, 21)]), 31.722975, 7.382128)
    assert close(model.review(Memory(20.925528, 7.005062), 21, 3), 40.874535, 6.9913807)
    # next_states: the four ratings 21 days after the fourth review.
    before = replay(model, [(1, 0), (3, 1), (3, 3), (3, 8)])
    expected = {1: (2.969144, 9.520562), 2: (17.091442, 8.4513445), 3: (31.722975, 7.382128), 4: (71.75015, 6.3129106)}
    for grade, (stability, difficulty) in expected.items():
        assert close(model.review(before, 21, grade), stability, difficulty), grade
    # test_next_interval: S = 1 by desired retention 0.1 ... 1.0, rounded, at least 1.
    assert [max(round(interval(1.0, r / 10)), 1) for r in range(1, 11)] == [422, 102, 43, 22, 13, 8, 4, 2, 1, 1]
    # current_retrievability: S = 1 after 0, 1, 2, 3 days.
    assert [round(retrievability(t, 1.0), 8) for t in range(4)] == [1.0, 0.9, 0.82502865, 0.76613088]


def test_the_documented_first_rating_with_default_parameters() -> None:
    # ALGORITHM.md: S0(G) = w[G-1], D0(G) = w4 - e^(w5 (G-1)) + 1.
    model = FSRS()
    w = DEFAULT_PARAMETERS
    for grade in (1, 2, 3, 4):
        first = model.review(None, 0, grade)
        assert first.stability == w[grade - 1]
        assert first.difficulty == pytest.approx(w[4] - math.exp(w[5] * (grade - 1)) + 1)
    assert model.review(None, 0, 1).difficulty == pytest.approx(w[4])
    assert interval(5.0) == pytest.approx(5.0)  # R(S, S) = 0.9: the interval at 90 % is S
    assert retrievability(5.0, 5.0) == pytest.approx(0.9)


memories = st.builds(Memory, st.floats(0.01, 36500), st.floats(1, 10))


@settings(max_examples=120)
@given(memory=memories, elapsed=st.integers(1, 5000), grade=st.integers(1, 4))
def test_the_model_keeps_its_bounds_and_directions(memory: Memory, elapsed: int, grade: int) -> None:
    model = FSRS()
    after = model.review(memory, elapsed, grade)
    assert 0.01 <= after.stability <= 36500 and 1 <= after.difficulty <= 10
    if grade == 1:
        assert after.stability <= memory.stability  # a lapse never raises stability
    else:
        assert after.stability >= memory.stability or after.stability == 36500  # a recall never lowers it
    # Harder ratings make a card harder, and remembered less long.
    if grade < 4:
        easier = model.review(memory, elapsed, grade + 1)
        assert easier.difficulty <= after.difficulty
        if grade > 1:
            assert easier.stability >= after.stability
    # Recall fades with time.
    assert retrievability(elapsed, memory.stability) <= retrievability(elapsed - 1, memory.stability)


def test_the_quiz_schedules_by_fsrs() -> None:
    model = FSRS()
    new = Card("AEINRST", 0, DAY)
    right = model.answer(new, True, DAY)
    assert (right.stability, right.reviewed, right.box, right.right, right.streak) == (DEFAULT_PARAMETERS[2], DAY, 1, 1, 1)
    assert right.due == DAY + timedelta(days=round(DEFAULT_PARAMETERS[2]))  # Good: S0 = 3.173 days
    wrong = model.answer(new, False, DAY)
    assert wrong.due == DAY + timedelta(days=1) and wrong.box == 0 and wrong.streak == -1  # Again: S0 = 0.40, one day
    # Answered again on the day due: the memory after a recall that many days later.
    later = right.due
    again = model.answer(right, True, later)
    memory = model.review(Memory(right.stability, right.difficulty), (later - DAY).days, 3)  # type: ignore[arg-type]
    assert (again.stability, again.difficulty) == (memory.stability, memory.difficulty)
    assert again.due == later + timedelta(days=round(memory.stability)) and again.box == 2
    # Twice the same day: the short-term formula.
    same = model.answer(right, True, DAY)
    assert same.stability == pytest.approx(right.stability * math.exp(DEFAULT_PARAMETERS[17] * DEFAULT_PARAMETERS[18]))
    # A card the cardbox scheduled (no memory) starts as a new one.
    boxed = Card("ACT", 5, DAY, right=5, streak=5)
    moved = model.answer(boxed, True, DAY)
    assert moved.stability == DEFAULT_PARAMETERS[2] and moved.box == 6
    assert scheduler("fsrs").answer(new, True, DAY) == right
    with pytest.raises(BoggleError, match="bad schedule"):
        scheduler("sm2")


def test_the_history_keeps_the_memory_and_upgrades_schema_1(tmp_path: Path) -> None:
    model = FSRS()
    with History(tmp_path / "a") as history:
        card = model.answer(Card("ACT", 0, DAY), True, DAY)
        history.record("x", card, True, DAY, [], [])
        assert history.card("x", "ACT") == card
        assert history.due("x", card.due) == [card]
    # A schema 1 file (before FSRS): opened, its cards kept, its columns added.
    folder = tmp_path / "b"
    folder.mkdir(mode=0o700)
    database = folder / "quiz.sqlite3"
    db = sqlite3.connect(database)
    db.executescript(
        "CREATE TABLE cards (lexicon TEXT NOT NULL, question TEXT NOT NULL, box INTEGER NOT NULL, due TEXT NOT NULL,"
        " right INTEGER NOT NULL DEFAULT 0, wrong INTEGER NOT NULL DEFAULT 0, streak INTEGER NOT NULL DEFAULT 0,"
        " added TEXT NOT NULL, PRIMARY KEY (lexicon, question));"
        "CREATE TABLE answers (lexicon TEXT NOT NULL, question TEXT NOT NULL, day TEXT NOT NULL, at REAL NOT NULL,"
        " right INTEGER NOT NULL, box INTEGER NOT NULL, missed TEXT NOT NULL, wrong TEXT NOT NULL);"
        "INSERT INTO cards VALUES ('x', 'ACT', 3, '2026-11-30', 3, 0, 3, '2026-11-01');"
        "PRAGMA user_version=1;"
    )
    db.commit()
    db.close()
    database.chmod(0o600)
    with History(folder) as history:
        assert history.card("x", "ACT") == Card("ACT", 3, date(2026, 11, 30), 3, 0, 3)
        moved = model.answer(history.card("x", "ACT"), True, DAY)  # type: ignore[arg-type]
        history.record("x", moved, True, DAY, [], [])
        assert history.card("x", "ACT") == moved and moved.stability is not None
    assert sqlite3.connect(database).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2


@pytest.mark.slow
def test_the_command_takes_the_fsrs_schedule(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from boggle_dafsa.cli import app
    from helpers.dictionaries import dictionary_from_words

    dictionary = dictionary_from_words(["cat", "act", "dog"], tmp_path)
    words = tmp_path / "words.txt"
    words.write_text("cat\ndog\n")
    base = ["quiz", "-d", str(dictionary.path), "--data", str(tmp_path / "data"), "--today", DAY.isoformat()]
    result = CliRunner().invoke(app, [*base, "--list", str(words), "--schedule", "fsrs"], input="act cat\n\nxyz\n\n")
    assert result.exit_code == 0, result.output
    due = (DAY + timedelta(days=round(DEFAULT_PARAMETERS[2]))).isoformat()
    assert f"Right: all 2. Now in box 1, due {due}." in result.output
    assert f"Back to box 0, due {(DAY + timedelta(days=1)).isoformat()}." in result.output
    with History(tmp_path / "data", write=False) as history:
        lexicon = str(Path(dictionary.path).resolve())
        card = history.card(lexicon, "ACT")
        assert card is not None and card.stability == DEFAULT_PARAMETERS[2] and card.reviewed == DAY
    result = CliRunner().invoke(app, [*base, "--schedule", "sm2"])
    assert result.exit_code == 2 and "bad schedule" in result.output


@pytest.mark.slow
def test_the_web_api_takes_the_fsrs_schedule(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from boggle_dafsa.web.app import create_app

    client = TestClient(create_app(data=tmp_path))
    model = FSRS()
    body = {"d": "enable2k", "question": "ACT", "words": ["cat", "act"], "today": DAY.isoformat(), "schedule": "fsrs"}
    first = client.post("/api/quiz/answer", json=body).json()["card"]
    expected = model.answer(Card("ACT", 0, DAY), True, DAY)
    assert (first["stability"], first["difficulty"], first["due"], first["reviewed"]) == (
        expected.stability,
        expected.difficulty,
        expected.due.isoformat(),
        DAY.isoformat(),
    )
    # The page sends the card back on the day due: the same memory the library computes.
    later = {
        **body,
        "today": first["due"],
        "card": {key: first[key] for key in ("box", "due", "right", "wrong", "streak", "stability", "difficulty", "reviewed")},
    }
    second = client.post("/api/quiz/answer", json=later).json()["card"]
    after = model.answer(expected, True, expected.due)
    assert (second["stability"], second["due"], second["box"]) == (after.stability, after.due.isoformat(), 2)
    # Under a token, kept on the server with its memory.
    token = client.post("/api/quiz/token").json()["token"]
    kept = client.post("/api/quiz/answer", json=body, headers={"authorization": f"Bearer {token}"}).json()["card"]
    assert kept["stability"] == expected.stability
    due = client.get(
        "/api/quiz/due", params={"d": "enable2k", "today": expected.due.isoformat()}, headers={"authorization": f"Bearer {token}"}
    ).json()
    assert due["cards"][0]["stability"] == expected.stability
    bad = client.post("/api/quiz/answer", json={**body, "schedule": "sm2"})
    assert bad.status_code == 400 and "bad schedule" in bad.json()["error"]
