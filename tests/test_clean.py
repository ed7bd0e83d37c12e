"""The family-friendly filter (game/clean.py): blocked words are never shown nor scored in a
clean game (daily puzzles, rooms, the Play page, `play`), and `lookup` still answers them."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from conftest import run_cli

from boggle_dafsa.board.dice import BUILTIN_SETS, SplitMix64, load_dice, normalized_grid, roll_grid
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.game.clean import DATA_DIR, LANGUAGES, blocked_words, blocklist
from boggle_dafsa.game.rounds import Game, Judge, Reason
from boggle_dafsa.solver import solve

#: fr, seed 0: ENMB/OTAS/DREX/RTNN holds ETRON (a turd), on the French blocklist.
FR_SEED, FR_BLOCKED = 0, "ETRON"


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(set(LANGUAGES.values())))
def test_each_blocklist_is_sorted_normalized_and_in_its_dictionaries(language: str) -> None:
    lines = (DATA_DIR / f"blocklist-{language}.txt").read_text("utf-8").splitlines()
    words = [line for line in lines if not line.startswith("#")]
    assert words == sorted(set(words)) and len(words) > 50
    assert all(word.isalpha() and word.isascii() and word.isupper() for word in words)
    held: set[str] = set()
    for name, code in LANGUAGES.items():
        if code == language:
            dictionary = open_dictionary(name)
            held |= {word for word in words if word in dictionary}
    assert held == set(words)  # only words some embedded list holds
    assert blocklist(language) == frozenset(words)


def test_which_blocklist() -> None:
    assert blocked_words("enable2k") == blocked_words("en") == blocklist("en")
    assert blocked_words("fr") == blocked_words(None, "fr") == blocklist("fr")
    assert blocked_words("my.dafsa", "en") == blocklist("en")
    assert blocked_words("my.dafsa") == blocklist("en") | blocklist("fr")
    # Words with an ordinary first sense stay playable; slurs and their plurals go.
    assert {"COCK", "GERBE", "TANCHE", "PEDALE", "SPICED", "SPIKES", "CONE"}.isdisjoint(blocklist("en") | blocklist("fr"))
    assert {"NIGGERS", "FAGGOT", "KIKES"} <= blocklist("en") and {"YOUPIN", "PEDE", "PUTE"} <= blocklist("fr")


@pytest.mark.slow
@pytest.mark.parametrize("dice", sorted(BUILTIN_SETS))
def test_no_blocked_word_is_missed_over_2000_grids(dice: str) -> None:
    """2,000 rolled grids a dice set, judged as daily puzzles and rooms judge them: no
    blocked word among the grid's words (the missed list, hints and totals are made of them);
    the raw solver finds blocked words in some of the same grids (the filter had work)."""
    dice_set = load_dice(dice)
    dictionary = open_dictionary(dice_set.language)
    blocked = blocked_words(dice_set.language, dice_set.language)
    raw = 0
    for seed in range(2000):
        grid = normalized_grid(roll_grid(dice_set, SplitMix64(seed)), dictionary)
        hits = solve(grid, dictionary, min_length=dice_set.min_length, scoring=dice_set.scoring)
        judge = Judge(grid, dictionary, dice_set.scoring, dice_set.min_length, blocked=blocked)
        assert not any(hit.word in blocked for hit in judge.hits), (dice, seed)
        dropped = [hit for hit in hits if hit.word in blocked]
        assert judge.hits == [hit for hit in hits if hit.word not in blocked]
        raw += bool(dropped)
    assert raw >= 100  # 231 to 969 of 2,000 grids hold one, by dice set


def test_a_clean_game_refuses_hides_and_does_not_count_a_blocked_word() -> None:
    dictionary = open_dictionary("fr")
    dice_set = load_dice("fr")
    clean = Game.from_dice(dice_set, FR_SEED, dictionary, blocked=blocked_words("fr"))
    dirty = Game.from_dice(dice_set, FR_SEED, dictionary)
    verdict = clean.submit(FR_BLOCKED.lower())
    assert verdict.reason is Reason.BLOCKED and verdict.points == 0 and clean.score == 0
    assert dirty.submit(FR_BLOCKED).accepted
    report = clean.report()
    assert FR_BLOCKED not in {hit.word for hit in report.missed}
    assert report.total_words == dirty.report().total_words - 1  # ETRON left out of the totals
    assert FR_BLOCKED in dictionary  # the dictionary itself is untouched


@pytest.mark.slow
def test_lookup_and_solve_are_unchanged_and_play_is_clean() -> None:
    # lookup answers what the dictionary holds, blocklist or not.
    for name, word in (("fr", FR_BLOCKED), ("en", "NIGGER"), ("enable2k", "FUCK")):
        assert run_cli("lookup", "-d", name, word).stdout.split() == [word, "yes"]
    grid = str(roll_grid(load_dice("fr"), SplitMix64(FR_SEED)))
    plain = run_cli("solve", grid, "-d", "fr", "--json").stdout
    assert FR_BLOCKED in {hit["word"] for hit in json.loads(plain)["words"]}
    cleaned = json.loads(run_cli("solve", grid, "-d", "fr", "--json", "--clean").stdout)
    assert FR_BLOCKED not in {hit["word"] for hit in cleaned["words"]}
    assert cleaned["totals"]["words"] == json.loads(plain)["totals"]["words"] - 1
    assert "not with --batch" in run_cli("solve", "--batch", "-", "--clean", input=grid).stderr
    # play is clean by default; --no-clean plays every word.
    played = json.loads(run_cli("play", "--seed", str(FR_SEED), "--time", "0", "--json", input="etron\n").stdout)
    assert played["score"] == 0 and FR_BLOCKED not in {hit["word"] for hit in played["missed"]}
    played = json.loads(run_cli("play", "--seed", str(FR_SEED), "--time", "0", "--json", "--no-clean", input="etron\n").stdout)
    assert played["score"] == 2


pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")

from fastapi.testclient import TestClient  # noqa: E402

from boggle_dafsa.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    yield TestClient(create_app())


@pytest.mark.slow
def test_the_web_game_the_daily_and_rooms_are_clean_by_default(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"dice": "fr", "seed": FR_SEED, "words": ["etron"], "end": True}
    answer = client.post("/api/play", json=body).json()
    assert answer["verdicts"][0]["reason"] == "not allowed in a clean game"
    assert FR_BLOCKED not in {hit["word"] for hit in answer["report"]["missed"]}
    assert FR_BLOCKED not in {hit["word"] for hit in answer["solution"]["words"]}
    dirty = client.post("/api/play", json={**body, "clean": False}).json()
    assert dirty["verdicts"][0]["accepted"] and dirty["score"] == 2
    grid = answer["grid"]
    # /api/solve answers the dictionary unless asked to be clean (the Play page asks).
    assert FR_BLOCKED in {hit["word"] for hit in client.get("/api/solve", params={"grid": grid, "dict": "fr"}).json()["words"]}
    solved = client.get("/api/solve", params={"grid": grid, "dict": "fr", "dice": "fr", "clean": "true"}).json()
    assert FR_BLOCKED not in {hit["word"] for hit in solved["words"]}
    # The daily puzzle, on a day whose grid holds ETRON.
    monkeypatch.setattr("boggle_dafsa.web.daily.daily_seed", lambda day, dice: FR_SEED)
    token = client.post("/api/daily/start", json={"dice": "fr", "player": "cleanplayer1"}).json()["token"]
    result = client.post("/api/daily", json={"token": token, "words": ["etron"]}).json()
    assert result["score"] == 0 and result["total"] == solved["totals"]
    report = client.post("/api/daily/solution", json={"token": token, "words": ["etron"]}).json()
    assert FR_BLOCKED not in {hit["word"] for hit in report["report"]["missed"]}
    # Rooms: clean unless opened with clean false.
    room = client.post("/api/rooms", json={"dice": "fr", "seed": FR_SEED}).json()
    assert room["clean"] is True
    registry = client.app.state.rooms  # type: ignore[attr-defined]
    assert FR_BLOCKED not in {hit.word for hit in registry.get(room["room"]).judge.hits}
    open_room = client.post("/api/rooms", json={"dice": "fr", "seed": FR_SEED, "clean": False}).json()
    assert open_room["clean"] is False
    assert FR_BLOCKED in {hit.word for hit in registry.get(open_room["room"]).judge.hits}
