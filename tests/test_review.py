"""After a game (game/review.py): the missed words grouped by length, by starting cell and as
anagrams of words found, the board's best words, and the list to study, checked against a
plain scan of the report; `play --missed FILE` writes the list that `quiz --list` reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.dice import load_dice
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.game.review import BEST, review
from boggle_dafsa.game.rounds import Game
from boggle_dafsa.output.jsonable import report_json
from boggle_dafsa.solver import sort_key


@pytest.fixture(scope="module")
def english() -> object:
    return open_dictionary("en")


@settings(max_examples=30)
@given(seed=st.integers(0, 2**32), share=st.floats(0, 1))
def test_the_review_arranges_exactly_the_missed_words(english: object, seed: int, share: float) -> None:
    game = Game.from_dice(load_dice("en"), seed, english)  # type: ignore[arg-type]
    # The player finds a share of the grid's words, every other one from the top.
    for hit in game.hits[: int(share * len(game.hits))]:
        game.submit(hit.word)
    report = game.report()
    arranged = review(report)
    missed = [hit.word for hit in report.missed]
    found = [hit.word for hit in report.found]
    # By length: a partition of the missed words, longest first, each group in solve order.
    assert [length for length, _ in arranged.by_length] == sorted({len(word) for word in missed}, reverse=True)
    assert sorted(word for _, words in arranged.by_length for word in words) == sorted(missed)
    for length, words in arranged.by_length:
        assert words == [word for word in missed if len(word) == length]
    # By starting cell: each word under the first cell of its path.
    starts = {hit.word: hit.path[0] for hit in report.missed}
    assert sorted(word for _, words in arranged.by_cell for word in words) == sorted(missed)
    assert all(starts[word] == cell for cell, words in arranged.by_cell for word in words)
    assert [cell for cell, _ in arranged.by_cell] == sorted({starts[word] for word in missed})
    # Anagrams: every missed word with the letters of a word found, under that word (a scan of all pairs).
    expected = [(word, [other for other in missed if sorted(other) == sorted(word)]) for word in found]
    assert arranged.anagrams == [(word, others) for word, others in expected if others]
    # The board's best: the first words of the whole board in solve order, found or not.
    assert [hit.word for hit in arranged.best] == [hit.word for hit in sorted(game.hits, key=sort_key)][:BEST]
    assert arranged.found == frozenset(found)
    # To study: every missed word once, longest first.
    assert sorted(arranged.study) == sorted(missed)
    assert [len(word) for word in arranged.study] == sorted((len(word) for word in missed), reverse=True)


def test_the_report_json_carries_the_review(english: object) -> None:
    game = Game.from_dice(load_dice("en"), 0, english)  # type: ignore[arg-type]
    for word in ("lemon", "owl"):
        game.submit(word)
    data = report_json(game.report())["review"]
    assert data["anagrams"] == [{"found": "LEMON", "missed": ["MELON"]}, {"found": "OWL", "missed": ["LOW"]}]
    assert data["by_length"][0] == {"length": 5, "words": ["MELON"]}
    assert {"word": "LEMON", "points": 2, "found": True} in data["best"]
    assert data["study"][0] == "MELON" and len(data["study"]) == 27
    # Cells as (row, col), counted from 0 as everywhere: MELON starts on M, at (0,2).
    assert {"cell": [0, 2], "words": ["MELON", "MEOW", "MEWL", "MOLE", "MOLL", "MOWN", "MEW", "MOW"]} in data["by_cell"]


@pytest.mark.slow
def test_play_writes_the_missed_words_for_the_quiz(tmp_path: Path) -> None:
    missed = tmp_path / "missed.txt"
    run = run_cli("play", "--dice", "en", "--seed", "0", "--time", "0", "--missed", str(missed), input="lemon\nowl\n")
    assert run.returncode == 0, run.stderr
    assert "Anagrams of your words, missed: LEMON: MELON; OWL: LOW." in run.stdout
    assert "Missed by length: 5 letters 1, 4 letters 12, 3 letters 14." in run.stdout
    assert f"study them with boggle-dafsa quiz -d en --list {missed}" in run.stdout
    words = missed.read_text(encoding="utf-8").split("\n")
    assert words[0] == "MELON" and words[-1] == "" and len(words) == 28
    # The quiz takes the list: each word's anagram group is a card.
    quiz = run_cli("quiz", "-d", "en", "--list", str(missed), "--data", str(tmp_path / "quiz"), "--questions", "1", input="\n")
    assert quiz.returncode == 0, quiz.stderr
    assert "words" in quiz.stdout
    # The list never replaces an input.
    (tmp_path / "mine.txt").write_text("lemon\nmelon\n", encoding="utf-8")
    clash = run_cli("play", "--dice", "en", "-d", str(tmp_path / "mine.txt"), "--missed", str(tmp_path / "mine.txt"), input="")
    assert clash.returncode == 2 and "write the output elsewhere" in clash.stderr
    assert (tmp_path / "mine.txt").read_text(encoding="utf-8") == "lemon\nmelon\n"


@pytest.mark.slow
def test_play_json_has_the_review() -> None:
    run = run_cli("play", "--dice", "en", "--seed", "0", "--time", "0", "--json", input="lemon\n")
    assert json.loads(run.stdout)["review"]["anagrams"] == [{"found": "LEMON", "missed": ["MELON"]}]
