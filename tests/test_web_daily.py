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
from boggle_dafsa.web.store import SCHEMA_VERSION  # noqa: E402


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


def start(client: TestClient, player: str, dice: str = "en", **headers: str) -> str:
    answer = client.post("/api/daily/start", json={"dice": dice, "player": player}, headers=headers)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["token"])


def the_solution(client: TestClient, dice: str = "en") -> list[str]:
    """Every word of today's grid, as /api/solve gives them to anybody."""
    puzzle = client.get(f"/api/daily?dice={dice}").json()
    solution = client.get(f"/api/solve?grid={puzzle['grid']}&dict={puzzle['dictionary']}&dice={dice}").json()
    return [entry["word"] for entry in solution["words"]]


def test_results_are_judged_by_the_server_kept_and_summed_up(client: TestClient) -> None:
    puzzle = client.get("/api/daily?dice=en").json()
    solution = client.get(f"/api/solve?grid={puzzle['grid']}&dict={puzzle['dictionary']}&dice=en").json()
    good = [entry["word"] for entry in solution["words"][:3]]
    scores = []
    for player, words in (("player-one", good), ("player-two", good[:1] + ["notaword", good[0]]), ("player-3xx", [])):
        token = start(client, player)
        answer = client.post("/api/daily", json={"token": token, "words": [w.lower() for w in words]}).json()
        scores.append(answer["score"])
        assert answer["total"] == solution["totals"] and answer["counted"] is True
    expected = [sum(e["points"] for e in solution["words"][:3]), solution["words"][0]["points"], 0]
    assert scores == expected
    stats = client.get("/api/daily?dice=en").json()["results"]
    assert stats["players"] >= 3 and stats["best"] >= expected[0]
    # No spoilers: the text to share holds no word of the grid.
    share = client.post("/api/daily", json={"dice": "en", "words": good}).json()["share"]
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
def test_bad_starts_are_one_line_errors(client: TestClient, body: dict[str, Any], message: str) -> None:
    answer = client.post("/api/daily/start", json=body)
    assert answer.status_code in (400, 422) and message in answer.json()["error"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"dice": "fr", "date": "2001-01-01"}, "today"),
        ({"dice": "fr", "date": "2999-01-01"}, "no puzzle yet"),
        ({"dice": "nope"}, "unknown dice set"),
        ({"token": "e30.AAAA"}, "not a start token"),
        ({"token": "no dot at all"}, "not a start token"),
        ({"token": "x" * 2000}, "token"),
    ],
)
def test_bad_results_are_one_line_errors(client: TestClient, body: dict[str, Any], message: str) -> None:
    answer = client.post("/api/daily", json=body)
    assert answer.status_code in (400, 422) and message in answer.json()["error"]


# -- a fair daily puzzle (issue 31) -------------------------------------------------------


def test_the_solve_endpoint_s_whole_list_without_a_token_is_not_counted() -> None:
    client = TestClient(create_app())
    words = the_solution(client)
    answer = client.post("/api/daily", json={"dice": "en", "player": "cheater-1", "words": words})
    assert answer.status_code == 200
    body = answer.json()
    assert body["counted"] is False and "token" in body["why"] and body["score"] == body["total"]["points"]
    assert body["results"]["players"] == 0
    assert client.get("/api/daily?dice=en").json()["results"] == {
        "players": 0,
        "average": None,
        "best": None,
        "average_words": None,
    }


def test_a_result_counts_once_a_player_and_day() -> None:
    client = TestClient(create_app())
    words = the_solution(client)
    token = start(client, "player-once")
    first = client.post("/api/daily", json={"token": token, "words": words[:2]})
    assert first.status_code == 200 and first.json()["counted"] is True
    # A second start gives the same token (the same clock), a second result is refused.
    again = client.post("/api/daily/start", json={"dice": "en", "player": "player-once"}).json()
    assert again["token"] == token and again["counted"] is True
    second = client.post("/api/daily", json={"token": token, "words": words})
    assert second.status_code == 409 and "in already" in second.json()["error"]
    stats = client.get("/api/daily?dice=en").json()["results"]
    assert stats["players"] == 1 and stats["best"] == first.json()["score"] < first.json()["total"]["points"]


def test_a_result_sent_after_the_solution_was_shown_is_refused() -> None:
    client = TestClient(create_app())
    words = the_solution(client)
    token = start(client, "player-peek")
    shown = client.post("/api/daily/solution", json={"token": token, "words": words[:1]})
    assert shown.status_code == 200
    body = shown.json()
    assert [entry["word"] for entry in body["solution"]["words"]] == words
    assert body["report"]["score"] > 0 and len(body["report"]["missed"]) == len(words) - 1
    assert client.post("/api/daily/start", json={"dice": "en", "player": "player-peek"}).json()["revealed"] is True
    late = client.post("/api/daily", json={"token": token, "words": words})
    assert late.status_code == 409 and "solution was shown" in late.json()["error"]
    assert client.get("/api/daily?dice=en").json()["results"]["players"] == 0


def test_a_result_counts_within_the_time_and_its_grace_only() -> None:
    from boggle_dafsa.web.daily import GRACE_SECONDS

    app = create_app()
    client = TestClient(app)
    words = the_solution(client)
    now = [1_900_000_000.5]
    app.state.daily_clock = lambda: now[0]
    on_time, too_late = start(client, "player-slow"), start(client, "player-late")
    left = client.post("/api/daily/start", json={"dice": "en", "player": "player-slow"}).json()["left"]
    assert left == 180
    now[0] += 180 + GRACE_SECONDS - 1
    assert client.post("/api/daily", json={"token": on_time, "words": words[:1]}).json()["counted"] is True
    now[0] += 2
    answer = client.post("/api/daily", json={"token": too_late, "words": words})
    assert answer.status_code == 409 and "too late" in answer.json()["error"]
    assert client.post("/api/daily/start", json={"dice": "en", "player": "player-late"}).json()["left"] == 0
    assert client.get("/api/daily?dice=en").json()["results"]["players"] == 1


@pytest.mark.slow
def test_tokens_are_signed_and_name_their_player() -> None:
    from boggle_dafsa.web.daily import StartToken, read_token, sign_token

    client = TestClient(create_app())
    token = start(client, "player-sign")
    body, _, signature = token.partition(".")
    forged = sign_token(b"another server's secret" * 2, StartToken("x", "en", "G", "player-sign", 1.0))
    for bad in (forged, body + "." + signature[::-1], body[:-4] + "AAAA." + signature):
        answer = client.post("/api/daily", json={"token": bad, "words": []})
        assert answer.status_code == 400 and "not a start token" in answer.json()["error"]
    other = client.post("/api/daily", json={"token": token, "player": "someone-else", "words": []})
    assert other.status_code == 400 and "another player" in other.json()["error"]
    assert read_token(b"k" * 32, sign_token(b"k" * 32, StartToken("d", "en", "G", "p" * 8, 2.5))) == StartToken(
        "d", "en", "G", "p" * 8, 2.5
    )


def test_results_and_starts_are_bounded_by_address_and_day() -> None:
    from boggle_dafsa.web.settings import Limits

    client = TestClient(create_app(limits=Limits(daily_results_per_client=3, daily_starts_per_client=5, trust_proxy=True)))
    home = {"x-forwarded-for": "203.0.113.7"}
    tokens = [start(client, f"made-up-{n:02d}", **home) for n in range(5)]
    for token in tokens[:3]:
        assert client.post("/api/daily", json={"token": token, "words": []}, headers=home).json()["counted"] is True
    refused = client.post("/api/daily", json={"token": tokens[3], "words": []}, headers=home)
    assert refused.status_code == 429 and refused.text.count("\n") == 0
    assert "3 daily results from your address" in refused.json()["error"] and set(refused.json()) == {"error"}
    # Every other player from that address is refused too; from another address, not.
    assert client.post("/api/daily", json={"token": tokens[4], "words": []}, headers=home).status_code == 429
    school = {"x-forwarded-for": "198.51.100.1"}
    assert client.post("/api/daily", json={"token": tokens[4], "words": []}, headers=school).json()["counted"] is True
    sixth = client.post("/api/daily/start", json={"dice": "en", "player": "made-up-99"}, headers=home)
    assert sixth.status_code == 429 and "5 daily games started" in sixth.json()["error"]
    assert client.get("/api/daily?dice=en").json()["results"]["players"] == 4


@pytest.mark.slow
def test_starts_secret_and_results_survive_a_restart(tmp_path: Any) -> None:
    import sqlite3

    first = TestClient(create_app(data=tmp_path))
    words = the_solution(first)
    counted, peeked = start(first, "player-kept"), start(first, "player-seen")
    assert first.post("/api/daily", json={"token": counted, "words": words[:1]}).json()["counted"] is True
    assert first.post("/api/daily/solution", json={"token": peeked}).status_code == 200
    first.app.state.store.close()  # type: ignore[attr-defined]
    again = TestClient(create_app(data=tmp_path))
    assert again.post("/api/daily/start", json={"dice": "en", "player": "player-kept"}).json()["token"] == counted
    assert again.post("/api/daily", json={"token": counted, "words": words}).status_code == 409
    assert again.post("/api/daily", json={"token": peeked, "words": words}).status_code == 409
    assert again.get("/api/daily?dice=en").json()["results"]["players"] == 1
    db = sqlite3.connect(tmp_path / "boggle-dafsa.sqlite3")
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    addresses = {row[0] for row in db.execute("SELECT address FROM daily_starts")}
    assert addresses and "testclient" not in addresses and all(len(a) == 24 for a in addresses)
    db.close()


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
    from helpers.harness import chromium_path, headless_chromium, live_server, new_page, open_page, start_game

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


@pytest.mark.slow
def test_the_daily_page_remembers_on_reload_that_the_day_was_played() -> None:
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    from helpers.harness import chromium_path, headless_chromium, live_server, new_page, open_page, start_game

    if chromium_path() is None:
        pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)")

    with live_server() as url, headless_chromium() as browser:
        errors: list[str] = []
        page = new_page(browser, errors)
        solved: list[str] = []
        page.on("request", lambda request: solved.append(request.url) if "/api/solve" in request.url else None)
        open_page(page, url + "daily?dice=en")
        start_game(page)
        assert page.is_hidden("#ask-hint")  # no hints in the contest
        page.fill("#word", "zzzz")
        page.press("#word", "Enter")
        page.wait_for_function("document.querySelectorAll('#verdicts li').length === 1")
        page.click("#stop")
        page.wait_for_selector("#share:not([hidden])")
        page.wait_for_selector("#report:not([hidden])")
        share = page.inner_text("#share")
        missed = page.locator("#missed tbody tr").count()
        assert missed > 0 and solved == []  # the words of the grid came with the end, not before
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        # The result, its report and the text to share: not a fresh game.
        assert page.is_hidden("#start") and page.is_visible("#report") and page.inner_text("#share") == share
        assert "You played today's puzzle: 0 points" in page.inner_text("#daily-stats")
        assert page.locator("#missed tbody tr").count() == missed
        assert page.locator("#board .cell").count() == 16
        # Another dice set is another puzzle: that one starts fresh.
        page.select_option("#dice", "fr")
        page.wait_for_function(
            "document.querySelector('#title').textContent.includes('puzzle') && !document.querySelector('#start').hidden"
        )
        assert page.is_hidden("#report") and page.is_hidden("#share")
        assert errors == []
