"""End-to-end: the three pages in a real headless Chromium against a real `boggle-dafsa serve`.

They need Debian's ``chromium`` package (/usr/bin/chromium) and the ``playwright`` Python
package (its driver only: never ``playwright install``); without them they are skipped,
saying which is missing. ``.ci/run`` installs both. Timers are short (a few seconds) but
every wait is generous: the machine may be loaded.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright; no browser download needed)"
)

from helpers.harness import chromium_path, live_server, new_page, start_game

if chromium_path() is None:
    pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Page


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with live_server() as url:
        yield url


def get_json(url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def highlighted(page: Page) -> list[tuple[int, int]]:
    """(order, cell index) of every highlighted cell, in order."""
    cells = page.eval_on_selector_all(
        "#board .cell.on", "cells => cells.map(c => [Number(c.dataset.order), Number(c.dataset.index)])"
    )
    return sorted((order, index) for order, index in cells)


def points(entry: dict[str, Any]) -> int:
    return int(entry["points"])


def indices(path: list[list[int]], columns: int) -> list[tuple[int, int]]:
    return [(step + 1, row * columns + col) for step, (row, col) in enumerate(path)]


@pytest.mark.slow
def test_solve_page_highlights_exactly_the_path_of_the_word_pointed_at(server: str, browser: Any) -> None:
    grid = "IDXT/MHEI/ERVN/TLLU"
    expected = get_json(server + "api/solve?" + urllib.parse.urlencode({"grid": grid, "dict": "fr"}))
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(server + "?" + urllib.parse.urlencode({"grid": grid, "dict": "fr"}))
    page.wait_for_selector("table.words tbody tr")
    assert page.inner_text("#totals") == "71 words, 99 points"
    rows = page.locator("table.words tbody tr")
    assert rows.count() == len(expected["words"])
    paths = {entry["word"]: entry["path"] for entry in expected["words"]}
    for position in (0, 1, 7, rows.count() - 1):
        row = rows.nth(position)
        row.hover()
        word = row.get_attribute("data-word")
        assert highlighted(page) == indices(paths[word], 4), word
        # The order is drawn: one arrow between each two cells of the path.
        assert page.locator("#board svg.trail line").count() == len(paths[word]) - 1
    # Sorting: alphabetical, then by length.
    page.click("th button[data-sort=word]")
    words = page.eval_on_selector_all("table.words tbody tr", "rows => rows.map(r => r.dataset.word)")
    assert words == sorted(paths)
    page.click("th button[data-sort=length]")
    lengths = page.eval_on_selector_all("table.words tbody tr", "rows => rows.map(r => r.dataset.word.length)")
    assert lengths == sorted(lengths, reverse=True)
    # The state is in the URL: the link reopens the same view.
    assert "grid=IDXT%2FMHEI%2FERVN%2FTLLU" in page.url and "dict=fr" in page.url
    # A bad grid is an error line, not a broken page.
    page.fill("#grid", "AB1")
    page.click("#solve")
    page.wait_for_function("document.getElementById('error').textContent.includes('not a letter')")
    assert errors == []


@pytest.mark.slow
def test_words_page_lists_what_the_api_answers(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(server + "words")
    page.wait_for_selector("body[data-ready=true]")
    # Keyboard first: the query's field has the focus; type a pattern, Enter.
    assert page.evaluate("document.activeElement.id") == "text"
    page.select_option("#dict", "enable2k")
    page.focus("#text")
    page.keyboard.type("C?A*S")
    page.keyboard.press("Enter")
    page.wait_for_selector("#results li")
    expected = get_json(server + "api/match?" + urllib.parse.urlencode({"pattern": "C?A*S", "d": "enable2k"}))
    shown = page.eval_on_selector_all("#results li", "items => items.map(i => i.dataset.word)")
    assert shown == expected and len(expected) > 20
    assert page.inner_text("#summary") == f"{len(expected)} words."
    assert "verb=match" in page.url and "q=C%3FA*S" in page.url and "d=enable2k" in page.url
    # Another verb and its options: fuzzy, two edits, nearest first.
    page.select_option("#verb", "fuzzy")
    assert page.inner_text("#text-label") == "Word" and page.is_visible("#distance") and not page.is_visible("#min-length")
    page.fill("#text", "bogle")
    page.fill("#distance", "2")
    page.click("#find")
    page.wait_for_function("document.body.dataset.searched === '2'")
    expected = get_json(server + "api/fuzzy?" + urllib.parse.urlencode({"word": "bogle", "distance": 2, "d": "enable2k"}))
    shown = page.eval_on_selector_all("#results li", "items => items.map(i => i.dataset.word)")
    assert shown == [entry["word"] for entry in expected][: len(shown)] and len(shown) == min(len(expected), 1000)
    # A bad query is an error line, not a broken page.
    page.select_option("#verb", "grep")
    page.fill("#text", "CH(A|T")
    page.press("#text", "Enter")
    page.wait_for_function("document.getElementById('error').textContent.includes('unbalanced parenthesis')")
    assert page.locator("#results li").count() == 0
    assert errors == []


@pytest.mark.slow
def test_play_page_plays_a_game_to_the_end(server: str, browser: Any) -> None:
    seed = 42
    solution = get_json(server + "api/solve?grid=IEFA/AEFE/MHAL/ETTE&dict=fr")
    by_word = {entry["word"]: entry for entry in solution["words"]}
    errors: list[str] = []
    page = new_page(browser, errors)
    # A long clock, ended by the Stop button: typing never races the clock on a loaded machine
    # (the clock running out is the next test's).
    start_game(page, server + f"play?dice=fr&seed={seed}&time=600")
    assert page.eval_on_selector_all("#board .cell", "cells => cells.map(c => c.textContent).join('')") == "IEFAAEFEMHALETTE"
    # Typed words: one good, one that is no word, the good one again.
    for word in ("halte", "xyzt", "Halte"):
        page.fill("#word", word)
        page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 3")
    verdicts = page.eval_on_selector_all("#verdicts li", "items => items.map(i => i.textContent)")
    assert verdicts == ["HALTE: already found", "XYZT: not a word", "HALTE: +2"]
    # A traced word: tap its cells, then its last cell again to send it.
    latte = by_word["LATTE"]["path"]
    for row, col in latte:
        page.click(f"#board .cell[data-index='{row * 4 + col}']")
    assert page.input_value("#word") == "LATTE"
    page.click(f"#board .cell[data-index='{latte[-1][0] * 4 + latte[-1][1]}']")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 4")
    assert page.inner_text("#verdicts li:first-child") == "LATTE: +2"
    assert page.inner_text("#score") == "4"
    page.click("#stop")
    page.wait_for_selector("#report:not([hidden])")
    total = solution["totals"]
    assert page.inner_text("#summary").startswith(f"You found 2 of {total['words']} words")
    assert f"4 of {total['points']} points" in page.inner_text("#summary")
    missed = page.locator("#missed tbody tr")
    assert missed.count() == total["words"] - 2
    row = missed.nth(3)
    row.hover()
    assert highlighted(page) == indices(by_word[row.get_attribute("data-word")]["path"], 4)
    assert page.locator("#found tbody tr").count() == 2
    assert errors == []


@pytest.mark.slow
def test_play_shows_no_empty_panels_before_start_and_a_trace_sent_with_enter_goes_out(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(server + "play?dice=fr&seed=42&time=600")
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_hidden("#game") and page.is_visible("#start")  # nothing but the setup before Start
    page.click("#start")
    page.wait_for_selector("#entry:not([hidden])")
    assert page.is_visible("#board") and page.is_visible("#score")
    # HALTE traced (H A L T E: cells 9, 10, 11, 14, 15), then sent with Enter, not by a last tap.
    for index in (9, 10, 11, 14, 15):
        page.click(f"#board .cell[data-index='{index}']")
    assert page.locator("#board .cell.traced").count() == 5 and page.input_value("#word") == "HALTE"
    page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 1")
    assert page.inner_text("#verdicts li") == "HALTE: +2"
    assert page.locator("#board .cell.traced").count() == 0 and page.input_value("#word") == ""
    assert errors == []


@pytest.mark.slow
def test_the_clock_running_out_ends_a_game_with_its_report(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    start_game(page, server + "play?dice=fr&seed=42&time=2")
    page.wait_for_selector("#report:not([hidden])", timeout=60_000)
    assert page.is_hidden("#entry") and page.inner_text("#clock") == "0:00"
    solution = get_json(server + "api/solve?grid=IEFA/AEFE/MHAL/ETTE&dict=fr")
    assert page.inner_text("#summary").startswith(f"You found 0 of {solution['totals']['words']} words")
    assert page.locator("#missed tbody tr").count() == solution["totals"]["words"]
    assert errors == []


@pytest.mark.slow
def test_a_room_is_made_when_create_is_pressed_before_the_lobby_s_lists_are_filled(server: str, browser: Any) -> None:
    # The dictionaries' answer held back until after the click: the lobby must already be
    # listening, or the form submits itself (the page reloads, no room is made).
    errors: list[str] = []
    page = new_page(browser, errors)
    held: list[Any] = []
    page.route("**/api/dictionaries", lambda route: held.append(route))
    page.goto(server + "rooms?time=30")
    page.wait_for_selector("#create button")
    for _ in range(600):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the lobby never asked for the dictionaries"
    page.click("#create button")
    page.wait_for_timeout(300)
    assert "/rooms/" not in page.url
    for route in held:
        route.continue_()
    page.wait_for_url("**/rooms/*")
    assert page.is_hidden("#lobby")
    assert errors == []


@pytest.mark.slow
def test_two_players_in_one_room_share_a_word_and_it_scores_zero(server: str, browser: Any) -> None:
    errors: list[str] = []
    alice = new_page(browser, errors)
    # Long enough for both to type on a loaded machine: the server's clock ends the game.
    alice.goto(server + "rooms?time=30")
    alice.wait_for_selector("#create")
    alice.select_option("#dice", "fr")
    alice.click("#create button")
    alice.wait_for_url("**/rooms/*")
    room_url = alice.url
    bob = new_page(browser, errors)
    bob.goto(room_url)
    for page, name in ((alice, "alice"), (bob, "bob")):
        page.wait_for_selector("#join:not([hidden])")
        page.fill("#name", name)
        page.click("#join button")
        page.wait_for_selector("#start:not([hidden])")
    # Bob reloads his page: he is still bob, no new name asked.
    bob.reload()
    bob.wait_for_selector("#start:not([hidden])")
    assert bob.is_hidden("#join")
    alice.wait_for_function(
        "document.getElementById('players').textContent.includes('bob: 0 words') && !document.getElementById('players').textContent.includes('away')"
    )
    alice.click("#start")
    for page in (alice, bob):
        page.wait_for_selector("#entry:not([hidden])")
    faces = alice.eval_on_selector_all("#board .cell .face", "cells => cells.map(c => c.textContent)")
    grid = "/".join(" ".join(faces[i : i + 4]) for i in range(0, 16, 4))
    solution = get_json(server + "api/solve?" + urllib.parse.urlencode({"grid": grid, "dict": "fr"}))
    assert len(solution["words"]) >= 2, "a French grid without two words: astonishing, but not a web bug"
    shared, alone = solution["words"][0], solution["words"][-1]
    for page in (alice, bob):
        page.fill("#word", shared["word"].lower())
        page.press("#word", "Enter")
    alice.fill("#word", alone["word"])
    alice.press("#word", "Enter")
    alice.wait_for_function("document.querySelectorAll('#verdicts li.accepted').length === 2")
    bob.wait_for_function("document.querySelectorAll('#verdicts li.accepted').length === 1")
    # The server's clock ends the game for both; both see the same table.
    for page in (alice, bob):
        page.wait_for_selector("#results:not([hidden])")
    for page in (alice, bob):
        cells = page.eval_on_selector(
            f"#table tbody tr[data-word='{shared['word']}']", "row => [...row.cells].map(c => c.textContent)"
        )
        assert cells[-2:] == ["0 (=)", "0 (=)"]
        cells = page.eval_on_selector(
            f"#table tbody tr[data-word='{alone['word']}']", "row => [...row.cells].map(c => c.textContent)"
        )
        assert cells[-2:] == [str(points(alone)), "·"]
        assert page.inner_text("#final") == f"alice {points(alone)} · bob 0"
    bob.hover(f"#table tbody tr[data-word='{shared['word']}']")
    assert highlighted(bob) == indices(shared["path"], 4)
    assert errors == []
