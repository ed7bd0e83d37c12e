"""Phone first (issue 36): on a 390x844 phone, and at 390x560 (the on-screen keyboard open),
the Play page keeps the latest verdict, the score, the clock and the board in view during a
game, and the end of the game in view when it ends, without scrolling; a room's link and QR
code fold away once its game starts. Real Chromium against a real server, boxes measured."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright; no browser download needed)"
)

from helpers.harness import chromium_path, live_server, new_page, open_page, start_game

if chromium_path() is None:
    pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)

#: fr, seed 42: IEFA/AEFE/MHAL/ETTE, which holds HALTE (2 points).
PLAY = "play?dice=fr&seed=42&time=120"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with live_server() as url:
        yield url


def in_view(page: Any, selector: str) -> dict[str, float]:
    """The box of ``selector``, asserted visible and wholly inside the viewport as it is (no scrolling)."""
    element = page.locator(selector).first
    assert element.is_visible(), selector
    box = element.bounding_box()
    size = page.viewport_size
    assert box is not None, selector
    inside = box["x"] >= 0 and box["y"] >= 0
    inside = inside and box["x"] + box["width"] <= size["width"] + 0.5 and box["y"] + box["height"] <= size["height"] + 0.5
    assert inside, f"{selector}: {box} is not inside {size}"
    return box


@pytest.mark.slow
@pytest.mark.parametrize("height", [844, 560])
def test_play_on_a_phone_keeps_the_game_in_view(server: str, browser: Any, height: int) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 390, "height": height}, is_mobile=True, has_touch=True)
    start_game(page, server + PLAY)
    page.fill("#word", "halte")
    page.press("#word", "Enter")
    page.wait_for_selector("#verdicts li.accepted")
    page.fill("#word", "zzz")
    page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 2")
    assert page.evaluate("window.scrollY") == 0
    for selector in ("#clock", "#score", "#verdicts li:first-child", "#word", "#entry button", "#board"):
        in_view(page, selector)
    assert page.inner_text("#score") == "2"
    assert page.inner_text("#verdicts li:first-child").startswith("ZZZ")  # the latest, shown first
    # The clock, the score and the latest verdict share the row above the board.
    board = in_view(page, "#board")
    for selector in ("#clock", "#score", "#verdicts li:first-child"):
        assert in_view(page, selector)["y"] + 4 < board["y"], selector
    # The end of the game: its result in view, still without scrolling.
    page.click("#stop")
    page.wait_for_selector("body[data-state=over]")
    page.wait_for_selector("#report:not([hidden])")
    assert page.evaluate("window.scrollY") == 0
    if height == 844:
        in_view(page, "#report h2")
        in_view(page, "#summary")
        assert page.inner_text("#summary").startswith("You found 1 of")
    else:
        assert in_view(page, "#report h2")  # Game over, at the least
    assert errors == []


def post_json(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


@pytest.mark.slow
def test_a_rooms_link_and_qr_code_fold_away_once_the_game_starts(server: str, browser: Any) -> None:
    room = post_json(server + "api/rooms", {"dice": "fr", "seed": 42, "seconds": 60})
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    open_page(page, f"{server}rooms/{room['room']}")
    page.wait_for_selector("#room:not([hidden])")
    assert page.get_attribute("#invite", "open") is not None
    page.wait_for_selector("#qr:not([hidden])")
    assert page.locator("#qr").is_visible()
    page.fill("#name", "Alice")
    page.click("#join button")
    page.click("#start")
    page.wait_for_selector("#entry:not([hidden])")
    page.wait_for_function("!document.getElementById('invite').open")
    assert not page.locator("#qr").is_visible() and not page.locator("#share").is_visible()
    in_view(page, "#invite summary")  # one line, to open it again
    in_view(page, "#clock")
    # Opened by hand, it stays open while the game goes on.
    page.click("#invite summary")
    page.fill("#word", "halte")
    page.press("#word", "Enter")
    page.wait_for_selector("#verdicts li")
    assert page.get_attribute("#invite", "open") is not None
    assert errors == []


@pytest.mark.slow
@pytest.mark.parametrize("height", [844, 560])
def test_a_rooms_verdict_score_and_result_are_above_the_board_on_a_phone(server: str, browser: Any, height: int) -> None:
    # fr, seed 42: IEFA/AEFE/MHAL/ETTE; a 20-second game, measured while it runs, then at its end.
    room = post_json(server + "api/rooms", {"dice": "fr", "seed": 42, "seconds": 20})
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 390, "height": height}, is_mobile=True, has_touch=True)
    open_page(page, f"{server}rooms/{room['room']}")
    page.fill("#name", "Alice")
    page.click("#join button")
    page.click("#start")
    page.wait_for_selector("#entry:not([hidden])")
    page.fill("#word", "halte")
    page.press("#word", "Enter")
    page.wait_for_selector("#verdicts li.accepted")
    page.fill("#word", "zzz")
    page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 2")
    assert page.evaluate("window.scrollY") == 0
    board = in_view(page, "#board")
    for selector in ("#clock", "#you", "#verdicts li:first-child"):
        assert in_view(page, selector)["y"] + 4 < board["y"], selector
    in_view(page, "#word")
    in_view(page, "#entry button")
    assert page.inner_text("#score") == "2" and page.inner_text("#verdicts li:first-child").startswith("ZZZ")
    # The end: the verdict of the game (the winner line) and the final score above the board.
    page.wait_for_selector("#results:not([hidden])", timeout=60_000)
    page.evaluate("window.scrollTo(0, 0)")
    winner = in_view(page, "#winner")
    assert page.inner_text("#winner") == "Alice wins with 2 points"
    you = in_view(page, "#you")
    assert page.inner_text("#you") == "Your final score: 2"
    assert max(winner["y"], you["y"]) < page.locator("#board").bounding_box()["y"]
    assert errors == []
