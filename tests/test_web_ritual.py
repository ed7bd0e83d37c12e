"""The daily ritual (issue 36): at the end of the daily puzzle its result and the text to
share come first, the analysis (the missed words) after; the browser keeps the days played
(localStorage) and shows the streak and the history, on a reload too. Real Chromium."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright; no browser download needed)"
)

from boggle_dafsa.game.daily import today
from helpers.harness import chromium_path, live_server, new_page, open_page, start_game

if chromium_path() is None:
    pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("ritual-data")
    with live_server("--data", str(data)) as url:
        yield url


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, selector
    return found


@pytest.mark.slow
def test_the_daily_gives_its_result_first_and_keeps_a_streak(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    open_page(page, server + "daily?dice=fr")
    day = today()
    yesterday, long_ago = (day - dt.timedelta(days=1)).isoformat(), (day - dt.timedelta(days=10)).isoformat()
    # Two days played before in this browser: yesterday, and one 10 days ago with its report.
    seeded = {
        f"boggle-dafsa-daily {yesterday} fr": {"date": yesterday, "dice": "fr", "score": 7, "words": 3, "share": "x"},
        f"boggle-dafsa-daily {long_ago} fr": {"date": long_ago, "dice": "fr", "score": 4, "report": {"big": True}},
        f"boggle-dafsa-daily {yesterday} en": {"date": yesterday, "dice": "en", "score": 99},
    }
    for key, value in seeded.items():
        page.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, json.dumps(value)])
    open_page(page, server + "daily?dice=fr")
    assert page.inner_text("#streak") == "Streak: 1 day in a row (play today to keep it); best 1 day; 2 days played."
    assert page.locator("#history li").all_inner_texts() == [f"{yesterday}: 7 points, 3 words", f"{long_ago}: 4 points"]
    start_game(page)
    page.fill("#word", "zzz")
    page.press("#word", "Enter")
    page.wait_for_selector("#verdicts li")
    page.click("#stop")
    page.wait_for_selector("#report:not([hidden])")
    page.wait_for_selector("#share:not([hidden])")
    # The result and the text to share first, the analysis after.
    assert box(page, "#daily-stats")["y"] < box(page, "#share")["y"] < box(page, "#report h2")["y"]
    assert box(page, "#streak")["y"] < box(page, "#missed")["y"]
    assert page.inner_text("#daily-stats").startswith("You played today's puzzle: 0 points.")
    assert page.inner_text("#share").startswith(f"boggle-dafsa daily {day.isoformat()} (fr)")
    expected = "Streak: 2 days in a row; best 2 days; 3 days played."
    assert page.inner_text("#streak") == expected
    assert page.locator("#history li").first.inner_text() == f"{day.isoformat()}: 0 points, 0 words"
    # A day older than a week keeps its score, not its solution (localStorage is small).
    old = json.loads(page.evaluate("(key) => localStorage.getItem(key)", f"boggle-dafsa-daily {long_ago} fr"))
    assert old == {"date": long_ago, "dice": "fr", "score": 4}
    # A reload shows the day played, its result first, and the same streak.
    open_page(page, server + "daily?dice=fr")
    page.wait_for_selector("#share:not([hidden])")
    assert page.locator("#start").is_hidden() and page.inner_text("#streak") == expected
    assert box(page, "#share")["y"] < box(page, "#report h2")["y"]
    # On a phone too: the result and the share button in view at the top, without scrolling.
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate("window.scrollTo(0, 0)")
    for selector in ("#daily-stats", "#share"):
        found = box(page, selector)
        assert 0 <= found["y"] and found["y"] + found["height"] <= 844, selector
    assert errors == []
