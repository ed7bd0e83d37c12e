"""Bonus words (game/bonus.py): a game on a common list beside a full one; the full list's
other words are accepted, listed apart, counted and never scored, in the library, `play`,
`solve` and the web's games (`/api/play`, rooms, the daily puzzle; the arena's in
tests/test_web_arena.py)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.board.grid import Grid
from boggle_dafsa.game.rounds import Game, Judge, Reason
from boggle_dafsa.words.normalize import Policy
from helpers.dictionaries import dictionary_from_words

LETTERS = "AEST"


def on_grid(grid: Grid, word: str) -> bool:
    """Brute force: some path of distinct, king-adjacent cells spells ``word`` (one letter a face)."""
    rows, columns = grid.shape

    def extend(cell: int, index: int, used: frozenset[int]) -> bool:
        if grid.faces[cell] != word[index]:
            return False
        if index == len(word) - 1:
            return True
        row, column = divmod(cell, columns)
        for other in range(rows * columns):
            r, c = divmod(other, columns)
            if other not in used and max(abs(r - row), abs(c - column)) == 1 and extend(other, index + 1, used | {other}):
                return True
        return False

    return any(extend(cell, 0, frozenset({cell})) for cell in range(rows * columns))


words = st.text(alphabet=LETTERS, min_size=1, max_size=6)


@pytest.mark.slow
@given(
    faces=st.text(alphabet=LETTERS, min_size=9, max_size=9),
    common=st.sets(words, min_size=1, max_size=40),
    full=st.sets(words, max_size=60),
    blocked=st.sets(words, max_size=5),
    min_length=st.integers(1, 3),
)
def test_the_bonus_words_are_the_full_lists_words_on_the_grid_that_the_common_one_lacks(
    faces: str, common: set[str], full: set[str], blocked: set[str], min_length: int
) -> None:
    grid = Grid((3, 3), tuple(faces))
    with tempfile.TemporaryDirectory() as folder:
        common_list = dictionary_from_words(common, folder, name="common.dafsa")
        full_list = dictionary_from_words(full, folder, name="full.dafsa")
        game = Game(grid, common_list, min_length=min_length, blocked=blocked, bonus=full_list)
        # The oracle: a scan of both lists with a brute-force path search.
        playable = {word for word in common | full if len(word) >= min_length and word not in blocked and on_grid(grid, word)}
        assert {hit.word for hit in game.hits} == playable & common
        assert {hit.word for hit in game.judge.bonus_hits} == (playable & full) - common
        assert all(hit.points == 0 for hit in game.judge.bonus_hits)
        for word in sorted(common | full | blocked):
            verdict = game.submit(word)
            if word in playable:
                assert verdict.accepted and verdict.bonus == (word not in common)
                assert verdict.points == (0 if verdict.bonus else game.judge.hits_by_word[word].points)
            else:
                assert not verdict.accepted and not verdict.bonus
            assert game.submit(word).reason is (Reason.ALREADY_FOUND if word in playable else verdict.reason)
        # Bonus words never score: the score is that of the common words alone.
        assert game.score == sum(hit.points for hit in game.hits)
        report = game.report()
        assert report.score == report.total_points and not report.missed
        assert [hit.word for hit in report.bonus_found] == [hit.word for hit in game.judge.bonus_hits]
        assert report.bonus_missed == [] and report.total_bonus == len(game.judge.bonus_hits)


def test_a_full_list_of_another_policy_is_refused(tmp_path: Path) -> None:
    from boggle_dafsa.errors import BoggleError

    common = dictionary_from_words(["tea"], tmp_path, name="a.dafsa")
    exact = dictionary_from_words(["tea", "eat"], tmp_path, Policy.EXACT, name="b.dafsa")
    with pytest.raises(BoggleError, match="policy 'exact', the game's list by 'fold'"):
        Judge(Grid((1, 3), tuple("TEA")), common, bonus=exact)


def test_without_a_full_list_nothing_changes(tmp_path: Path) -> None:
    game = Game(Grid((1, 3), tuple("TEA")), dictionary_from_words(["tea", "eat"], tmp_path), min_length=3)
    assert game.judge.bonus is None and game.judge.bonus_hits == []
    assert game.submit("tea").points == 1 and game.report().bonus_spec is None


#: en dice, seed 0: CNME/RJOE/TKWL/SNGL; NGWEE is in ENABLE2K, not in en.
SEED, BONUS_WORD = "0", "NGWEE"


@pytest.mark.slow
def test_play_answers_a_bonus_word_apart_and_lists_them_at_the_end() -> None:
    run = run_cli("play", "--dice", "en", "--seed", SEED, "--time", "0", "--bonus", "enable2k", input="ngwee\nlemon\nngwee\n")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "bonus words of enable2k" in out.splitlines()[0]
    assert "  NGWEE: bonus word, not scored (score 0)" in out
    assert "  LEMON: +2 points (score 2)" in out and "  NGWEE: refused, already found" in out
    assert "Score: 2 points, 1 word." in out
    assert "Bonus words (of enable2k, not in the game's list; not scored): 1 of 17 found (6%)." in out
    assert "Replay this grid with: boggle-dafsa play --dice en --bonus enable2k --seed 0" in out


@pytest.mark.slow
def test_play_json_reports_the_bonus_words() -> None:
    run = run_cli("play", "--dice", "en", "--seed", SEED, "--time", "0", "--bonus", "enable2k", "--json", input="ngwee\nglee\n")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    bonus = report["bonus"]
    assert bonus["list"] == "enable2k" and bonus["total"] == 17
    assert bonus["found"] == [{"word": BONUS_WORD, "points": 0}] and len(bonus["missed"]) == 16
    assert report["score"] == 1 and [hit["word"] for hit in report["found"]] == ["GLEE"]
    assert BONUS_WORD not in {hit["word"] for hit in report["missed"]}
    # Without --bonus the key is there, null, and NGWEE is not a word.
    plain = run_cli("play", "--dice", "en", "--seed", SEED, "--time", "0", "--json", input="ngwee\n")
    assert json.loads(plain.stdout)["bonus"] is None
    assert json.loads(plain.stdout)["refused"][0]["reason"] == "not a word"


@pytest.mark.slow
def test_solve_lists_the_bonus_words_after_the_words() -> None:
    grid = "CNME/RJOE/TKWL/SNGL"
    run = run_cli("solve", grid, "-d", "en", "--bonus", "enable2k", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    en = json.loads(run_cli("solve", grid, "-d", "en", "--json").stdout)
    full = json.loads(run_cli("solve", grid, "-d", "enable2k", "--json").stdout)
    assert result["words"] == en["words"]  # the common words are untouched
    common = {entry["word"] for entry in en["words"]}
    assert [entry["word"] for entry in result["bonus"]["words"]] == [
        entry["word"] for entry in full["words"] if entry["word"] not in common
    ]
    assert {entry["points"] for entry in result["bonus"]["words"]} == {0}
    assert result["bonus"]["list"] == "enable2k" and result["bonus"]["totals"] == {"words": 17}
    text = run_cli("solve", grid, "-d", "en", "--bonus", "enable2k")
    words, _, bonus = text.stdout.partition("\n\n")
    assert words.split() == [entry["word"] for entry in en["words"]]
    heading, *bonus_words = bonus.splitlines()
    assert heading == "Bonus words (of enable2k, not in the game's list; not scored): 17"
    assert bonus_words == [entry["word"] for entry in result["bonus"]["words"]]
    assert text.stderr.strip() == "29 words, 31 points; 17 bonus words"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--batch", "-"], "--bonus lists one grid's bonus words: not with --batch or --summary"),
        (["CNME/RJOE/TKWL/SNGL", "--summary"], "--bonus lists one grid's bonus words: not with --batch or --summary"),
    ],
)
def test_solve_refuses_bonus_where_it_has_no_meaning(args: list[str], message: str) -> None:
    run = run_cli("solve", "-d", "en", "--bonus", "enable2k", *args, input="")
    assert run.returncode == 2 and run.stderr.strip() == f"boggle-dafsa: {message}"


@pytest.mark.slow
def test_a_bonus_list_of_another_policy_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "exact.txt").write_text("lemon\n", encoding="utf-8")
    exact = run_cli("build", str(tmp_path / "exact.txt"), "--policy", "exact", "-o", str(tmp_path / "exact.dafsa"))
    assert exact.returncode == 0, exact.stderr
    run = run_cli("play", "--dice", "en", "--seed", SEED, "--bonus", str(tmp_path / "exact.dafsa"), input="")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().endswith("give lists of the same policy") and len(run.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_documented_set_algebra(tmp_path: Path) -> None:
    """docs/game.md, "Bonus words": en is within enable2k but for A and I, so the bonus words
    of an English game are `diff enable2k en`; `union fr enable2k` as the full list of a
    French game makes its English-only words bonus words."""
    only_en = tmp_path / "en-only.dafsa"
    assert run_cli("diff", "en", "enable2k", "-o", str(only_en)).returncode == 0
    assert run_cli("dump", str(only_en)).stdout.split() == ["A", "I"]
    bonus_only = tmp_path / "bonus-only.dafsa"
    made = run_cli("diff", "enable2k", "en", "-o", str(bonus_only))
    assert made.returncode == 0 and "110,727 words" in made.stdout + made.stderr
    played = json.loads(run_cli("play", "--dice", "en", "--seed", SEED, "--time", "0", "--bonus", "enable2k", "--json").stdout)
    missed = [hit["word"] for hit in played["bonus"]["missed"]]
    assert run_cli("lookup", "-d", str(bonus_only), *missed).returncode == 0  # each one: yes
    fr_en = tmp_path / "fr-en.dafsa"
    union = run_cli("union", "fr", "enable2k", "-o", str(fr_en))
    assert union.returncode == 0 and "480,985 words" in union.stdout + union.stderr
    french = json.loads(
        run_cli("play", "--dice", "fr", "--seed", "42", "--time", "0", "--bonus", str(fr_en), "--json", input="").stdout
    )
    english = {hit["word"] for hit in french["bonus"]["missed"]}
    assert english and run_cli("lookup", "-d", "fr", *sorted(english)).stdout.count("\tno") == len(english)
    assert run_cli("lookup", "-d", "enable2k", *sorted(english)).returncode == 0
    # A common list to one's taste: en without JOWL and MEWL, which become bonus words.
    (tmp_path / "rare.txt").write_text("jowl\nmewl\n", encoding="utf-8")
    common = tmp_path / "common.dafsa"
    assert run_cli("diff", "en", str(tmp_path / "rare.txt"), "-o", str(common)).returncode == 0
    tasted = run_cli(
        "play", "--dice", "en", "-d", str(common), "--bonus", "enable2k", "--seed", SEED, "--time", "0", "--json", input="jowl\n"
    )
    report = json.loads(tasted.stdout)
    assert report["bonus"]["found"] == [{"word": "JOWL", "points": 0}] and report["score"] == 0
    assert "MEWL" in {hit["word"] for hit in report["bonus"]["missed"]}
    assert "MEWL" not in {hit["word"] for hit in report["missed"]}


@pytest.mark.slow
def test_the_webs_english_games_have_bonus_words_by_default() -> None:
    pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
    from fastapi.testclient import TestClient

    from boggle_dafsa.web.app import create_app

    client = TestClient(create_app())
    play = {"dice": "en", "seed": 0, "words": ["ngwee", "lemon"], "end": True}
    answer = client.post("/api/play", json=play).json()
    assert answer["bonus"] == "enable2k" and [v["bonus"] for v in answer["verdicts"]] == [True, False]
    assert answer["score"] == 2 and answer["report"]["bonus"]["found"] == [{"word": BONUS_WORD, "points": 0}]
    assert answer["verdicts"][0]["path"] is not None  # a bonus word's path lights on the board too
    # None asked: not a word; another list of the server's: its words.
    none = client.post("/api/play", json={**play, "bonus": None}).json()
    assert none["bonus"] is None and none["verdicts"][0]["reason"] == "not a word" and none["report"]["bonus"] is None
    assert client.post("/api/play", json={**play, "bonus": "nope"}).status_code == 400
    # French: no embedded full list, no bonus words unless asked.
    assert client.post("/api/play", json={"dice": "fr", "seed": 0}).json()["bonus"] is None
    assert client.post("/api/play", json={"dice": "fr", "seed": 0, "bonus": "enable2k"}).json()["bonus"] == "enable2k"
    # Rooms: the same default, in the room's state.
    assert client.post("/api/rooms", json={"dice": "en", "seed": 0}).json()["bonus"] == "enable2k"
    assert client.post("/api/rooms", json={"dice": "en", "seed": 0, "bonus": None}).json()["bonus"] is None
