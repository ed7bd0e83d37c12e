"""The daily puzzle: one grid per UTC day and dice set for everybody (API, page, console), results kept."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.board.dice import BUILTIN_SETS, SplitMix64, load_dice, roll_grid
from boggle_dafsa.game.daily import daily_seed, share_text, today

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")

from fastapi.testclient import TestClient  # noqa: E402

from boggle_dafsa.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    yield TestClient(create_app())


@given(st.dates(dt.date(2000, 1, 1), dt.date(2100, 1, 1)), st.sampled_from(sorted(BUILTIN_SETS)))
def test_the_seed_is_the_documented_digest(day: dt.date, dice: str) -> None:
    digest = hashlib.sha256(f"boggle-dafsa daily {day.isoformat()} {dice}".encode()).digest()
    assert daily_seed(day, dice) == int.from_bytes(digest[:6], "big") < 2**53


def test_days_and_dice_sets_give_different_grids() -> None:
    day = dt.date(2026, 1, 1)
    grids = {str(roll_grid(load_dice("fr"), SplitMix64(daily_seed(day + dt.timedelta(days=n), "fr")))) for n in range(30)}
    assert len(grids) == 30
    assert daily_seed(day, "fr") != daily_seed(day, "en")


@pytest.mark.slow
def test_the_api_gives_the_same_grid_twice_and_the_console_the_same(client: TestClient) -> None:
    first = client.get("/api/daily?dice=fr").json()
    second = client.get("/api/daily", params={"dice": "fr"}).json()
    assert first == second and first["date"] == today().isoformat()
    assert first["grid"] == str(roll_grid(load_dice("fr"), SplitMix64(daily_seed(today(), "fr"))))
    # /api/play with that seed is the same game; `play --daily` plays the same grid.
    played = client.post("/api/play", json={"dice": "fr", "seed": first["seed"]}).json()
    assert played["grid"] == first["grid"]
    console = run_cli("play", "--daily", "--dice", "fr", "--json", input="\n")
    report = json.loads(console.stdout)
    assert report["grid"] == first["grid"] and report["daily"]["date"] == first["date"]
    assert client.get("/api/daily?dice=en").json()["grid"] != first["grid"]


def test_results_are_judged_by_the_server_kept_and_summed_up(client: TestClient) -> None:
    puzzle = client.get("/api/daily?dice=en").json()
    solution = client.get(f"/api/solve?grid={puzzle['grid']}&dict={puzzle['dictionary']}&dice=en").json()
    good = [entry["word"] for entry in solution["words"][:3]]
    scores = []
    for player, words in (("player-one", good), ("player-two", good[:1] + ["notaword", good[0]]), ("player-3xx", [])):
        answer = client.post("/api/daily", json={"dice": "en", "player": player, "words": [w.lower() for w in words]}).json()
        scores.append(answer["score"])
        assert answer["total"] == solution["totals"]
    expected = [sum(e["points"] for e in solution["words"][:3]), solution["words"][0]["points"], 0]
    assert scores == expected
    # Sending again keeps a player's best; the stats are over players, not sends.
    client.post("/api/daily", json={"dice": "en", "player": "player-3xx", "words": []})
    stats = client.get("/api/daily?dice=en").json()["results"]
    assert stats["players"] >= 3 and stats["best"] >= expected[0]
    # No spoilers: the text to share holds no word of the grid.
    share = client.post("/api/daily", json={"dice": "en", "player": "player-one", "words": good}).json()["share"]
    tokens = set(re.findall(r"[A-Za-z]+", share.upper()))
    assert not tokens & {entry["word"] for entry in solution["words"]} - {"POINTS", "WORDS", "LETTERS", "DAILY"}
    assert f"{expected[0]} of {solution['totals']['points']} points" in share


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"dice": "fr", "player": "short"}, "player"),
        ({"dice": "fr", "player": "bad player id!"}, "player"),
        ({"dice": "fr", "player": "someone1", "date": "2001-01-01"}, "today"),
        ({"dice": "fr", "player": "someone1", "date": "2999-01-01"}, "no puzzle yet"),
        ({"dice": "nope", "player": "someone1"}, "unknown dice set"),
    ],
)
def test_bad_results_are_one_line_errors(client: TestClient, body: dict[str, Any], message: str) -> None:
    answer = client.post("/api/daily", json=body)
    assert answer.status_code in (400, 422) and message in answer.json()["error"]


def test_the_share_text_counts_lengths_without_words() -> None:
    text = share_text(dt.date(2026, 3, 4), "fr", 7, ["ARBRE", "RAT", "ART", "TARE"], 50, 80)
    assert text.splitlines() == ["boggle-dafsa daily 2026-03-04 (fr)", "7 of 80 points, 4 of 50 words", "letters 3:●●  4:●  5:●"]


@pytest.mark.slow
def test_play_daily_refuses_a_seed_and_a_dice_file() -> None:
    assert "not with --seed" in run_cli("play", "--daily", "--seed", "3", input="\n").stderr
    result = run_cli("play", "--daily", "--dice", "./mine.txt", input="\n")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


@pytest.mark.slow
def test_the_daily_page_plays_today_s_grid_and_shares_the_result() -> None:
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    from boggle_dafsa.web.harness import chromium_path, headless_chromium, live_server, new_page, open_page, start_game

    if chromium_path() is None:
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)")
    import urllib.request

    with live_server() as url, headless_chromium() as browser:
        with urllib.request.urlopen(url + "api/daily?dice=en", timeout=60) as response:
            puzzle = json.load(response)
        with urllib.request.urlopen(
            url + f"api/solve?grid={puzzle['grid']}&dict={puzzle['dictionary']}&dice=en", timeout=60
        ) as response:
            word = json.load(response)["words"][0]["word"]
        errors: list[str] = []
        page = new_page(browser, errors)
        open_page(page, url + "daily?dice=en")
        assert puzzle["date"] in page.inner_text("#title")
        assert page.is_hidden("#seed-label") and page.is_hidden("#new")
        start_game(page)
        faces = page.eval_on_selector_all("#board .cell", "cells => cells.map(c => c.textContent)")
        assert faces == puzzle["faces"]
        page.fill("#word", word.lower())
        page.press("#word", "Enter")
        page.wait_for_function("document.querySelectorAll('#verdicts li').length === 1")
        page.click("#stop")
        page.wait_for_selector("#share:not([hidden])")
        share = page.inner_text("#share")
        assert share.startswith(f"boggle-dafsa daily {puzzle['date']} (en)") and url + "daily?dice=en" in share
        assert word not in share.upper().split()
        assert "1 player today" in page.inner_text("#daily-stats") or "players today" in page.inner_text("#daily-stats")
        assert errors == []
