"""Pages for everyone, in a real Chromium against a real server: axe-core finds no serious or
critical issue, the pages install (manifest, service worker) and Play goes on offline, the
keyboard alone plays, the API docs load with no request leaving the machine.

axe-core's script comes from the ``axe-playwright-python`` package (the [test] extra), which
ships axe.min.js: nothing is downloaded at test time.
"""

from __future__ import annotations

import importlib.util
import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright; no browser download needed)"
)

from helpers.harness import WAIT_MS, chromium_path, live_server, new_page, open_page, start_game  # noqa: E402

if chromium_path() is None:
    pytest.skip("no Chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Page  # noqa: E402


def axe_script() -> Path:
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        pytest.skip("axe-playwright-python is not installed (the [test] extra ships axe-core with it)")
    return Path(spec.origin).parent / "axe.min.js"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Hour-long arena boards: a board that ends while a test plays it (three minutes by
    # default) takes the word box away before the word's verdict comes (see _arena_time).
    with live_server("--data", str(tmp_path_factory.mktemp("data")), "--arena-minutes", "60") as url:
        yield url


def _arena_time(server: str, seconds: float = 120.0) -> None:
    """Wait, if need be, until the arena's board has ``seconds`` left: a test that joins and
    plays it is over before the board is (on a loaded machine, a page takes seconds)."""
    import time
    from urllib.request import urlopen

    with urlopen(server + "api/arena", timeout=60) as response:
        left = json.load(response)["left"]
    if left < seconds:
        time.sleep(left + 1)


#: A phone: a 390x844 touch screen (the phone-first tests' size; the header wraps there).
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def serious_findings(page: Page) -> list[str]:
    page.add_script_tag(path=str(axe_script()))
    results = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[node['target'] for node in v['nodes'][:3]]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["normal", "contrast"])
@pytest.mark.parametrize(
    "path",
    [
        "",
        "play?dice=fr&seed=42",
        "play?dice=en&seed=0&end",
        "rooms",
        "daily?dice=fr",
        "words",
        "arena",
        "study?words=RATE,TEAR,TARE&d=en",
    ],
)
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_axe_finds_no_serious_issue(server: str, browser: Any, path: str, theme: str, screen: str) -> None:
    errors: list[str] = []
    if path == "arena":
        _arena_time(server)
    page = new_page(browser, errors, **(PHONE if screen == "phone" else {}))
    open_page(page, server + path)
    if theme == "contrast":
        page.click("#theme")
        assert page.evaluate("document.documentElement.dataset.theme") == "contrast"
    if path == "":
        page.fill("#grid", "IDXT/MHEI/ERVN/TLLU")
        page.press("#grid", "Enter")
        page.wait_for_selector("#words tbody tr")
    elif path.startswith(("play", "daily")):
        start_game(page)
        page.fill("#word", "halte")
        page.press("#word", "Enter")
        page.wait_for_selector("#verdicts li")
        if path.endswith("&end"):  # the end of a game: the report, the review, a bonus word
            page.fill("#word", "ngwee")
            page.press("#word", "Enter")
            page.wait_for_selector("#verdicts li.accepted")
            page.click("#stop")
            page.wait_for_selector("#review:not([hidden]) .study a")
            # The review's study link: the Study page with the missed words (the header links it).
            study = page.get_attribute("#review .study a", "href") or ""
            assert study.startswith("/study?words=") and "&d=en" in study
    elif path == "arena":
        page.fill("#name", f"ann-{theme}-{screen}")
        page.click("#join button")
        page.wait_for_selector("#entry:not([hidden])")
        page.fill("#word", "zzz")
        page.press("#word", "Enter")
        page.wait_for_selector("#verdicts li")
    elif path.startswith("study"):  # a game's missed words, listed to study (the quiz: tests/test_web_study.py)
        page.wait_for_selector("#results td")
    elif path == "words":
        page.select_option("#verb", "fuzzy")
        page.fill("#text", "maison")
        page.press("#text", "Enter")
        page.wait_for_selector("#results li")
    assert serious_findings(page) == []
    assert errors == []


@pytest.mark.slow
def test_a_room_page_has_no_serious_issue(server: str, browser: Any) -> None:
    from urllib.request import Request, urlopen

    request = Request(server + "api/rooms", data=json.dumps({"seed": 42}).encode(), headers={"content-type": "application/json"})
    with urlopen(request, timeout=60) as response:
        room = json.load(response)["room"]
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(server + f"rooms/{room}")
    page.wait_for_selector("#join:not([hidden])")
    page.fill("#name", "ann")
    page.press("#name", "Enter")
    page.wait_for_selector("#start:not([hidden])")
    assert page.is_visible("#qr") and "QR code" in (page.get_attribute("#qr", "alt") or "")
    assert serious_findings(page) == []
    assert errors == []


@pytest.mark.slow
def test_the_pages_install_and_play_goes_on_offline(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    open_page(page, server + "play?dice=fr&seed=42&time=600")
    manifest_url = page.get_attribute("link[rel=manifest]", "href")
    manifest = page.evaluate("async (url) => (await fetch(url)).json()", manifest_url)
    assert manifest["name"] and manifest["start_url"] and manifest["display"] == "standalone"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert page.evaluate("async (src) => (await fetch(src)).ok", icon["src"])
    # The service worker takes the page over, and fetches the game again through it.
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    kept = "async () => (await (await caches.open('boggle-dafsa-v1')).keys()).map((r) => r.url).join(' ')"
    for _ in range(120):
        if "/api/solve?grid=IEFA" in page.evaluate(kept) and "/api/roll?dice=fr&seed=42" in page.evaluate(kept):
            break
        page.wait_for_timeout(500)
    assert "/api/solve?grid=IEFA" in page.evaluate(kept)
    page.context.set_offline(True)
    page.reload()  # the page itself from the cache
    page.wait_for_selector("body[data-ready=true]")
    start_game(page)
    assert page.eval_on_selector_all("#board .cell", "cells => cells.map(c => c.textContent).join('')") == "IEFAAEFEMHALETTE"
    for word in ("halte", "xyzt", "halte", "la"):
        page.fill("#word", word)
        page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 4")
    verdicts = page.eval_on_selector_all("#verdicts li", "items => items.map(i => i.textContent)")
    assert verdicts[3] == "HALTE: +2" and verdicts[1] == "HALTE: already found" and verdicts[0] == "LA: too short"
    assert verdicts[2].startswith("XYZT: not a word") and "offline" in verdicts[2]  # judged in the page
    page.click("#stop")
    page.wait_for_selector("#report:not([hidden])")
    assert page.inner_text("#summary").startswith("You found 1 of ")
    page.context.set_offline(False)
    assert errors == []


@pytest.mark.slow
def test_the_keyboard_alone_plays(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    open_page(page, server + "play?dice=fr&seed=42&time=600")
    page.focus("#start")
    page.keyboard.press("Enter")
    page.wait_for_selector("#entry:not([hidden])")
    # The board is one stop of the tab order; arrows move across it; Space takes a letter.
    page.focus("#board .cell[data-index='0']")
    # A cell's label counts from 0, as the docs and the solver's paths do.
    assert page.get_attribute("#board .cell[data-index='9']", "aria-label") == "row 2, column 1: H"
    # HALTE on IEFA/AEFE/MHAL/ETTE: H (2,1) A (2,2) L (2,3) T (3,2) E (3,3).
    moves = ["ArrowDown", "ArrowDown", "ArrowRight"]
    for key in moves:
        page.keyboard.press(key)
    path = [
        ("Space", None),
        ("ArrowRight", "Space"),
        ("ArrowRight", "Space"),
        ("ArrowDown", None),
        ("ArrowLeft", "Space"),
        ("ArrowRight", "Space"),
    ]
    for first, then in path:
        page.keyboard.press(first)
        if then:
            page.keyboard.press(then)
    assert page.input_value("#word") == "HALTE"
    assert page.evaluate("document.activeElement.dataset.index") == "15"
    page.keyboard.press("Enter")  # the last cell again: sent
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 1")
    assert page.inner_text("#verdicts li") == "HALTE: +2"
    # A letter typed on the board goes to the word; Enter sends it.
    page.focus("#board .cell[data-index='0']")
    for letter in "latte":
        page.keyboard.press(letter)
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 2")
    assert page.inner_text("#verdicts li:first-child") == "LATTE: +2"
    assert errors == []


@pytest.mark.slow
def test_the_api_docs_load_with_no_request_leaving_the_machine(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors)
    hosts: list[str] = []
    page.on("request", lambda request: hosts.append(urllib.parse.urlsplit(request.url).netloc))
    page.goto(server + "api/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=WAIT_MS)
    assert page.locator(".swagger-ui .opblock").count() >= 8
    assert set(hosts) == {urllib.parse.urlsplit(server).netloc}, hosts
    assert errors == []


@pytest.mark.slow
@pytest.mark.parametrize("theme", ["normal", "contrast"])
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_api_docs_have_no_serious_issue_and_lead_back_to_the_game(server: str, browser: Any, theme: str, screen: str) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, **(PHONE if screen == "phone" else {}))
    page.goto(server + "api/docs")
    page.wait_for_selector(".swagger-ui .opblock")
    if theme == "contrast":
        page.click("#theme")
        assert page.evaluate("document.documentElement.dataset.theme") == "contrast"
    # Open what a reader opens: a query tried out and sent, a body to send (the schemas are open).
    match = "#operations-default-match_api_match_get"
    page.click(f"{match} .opblock-summary-control")
    page.click(f"{match} .try-out__btn")
    page.fill(f"{match} tr[data-param-name=pattern] input", "C?A*S")
    page.fill(f"{match} tr[data-param-name=limit] input", "3")  # a short answer: axe-core's time grows with the page
    page.click(f"{match} .execute")
    page.wait_for_selector(f"{match} .live-responses-table .response")
    play = "#operations-default-play_api_play_post"
    page.click(f"{play} .opblock-summary-control")
    page.click(f"{play} .try-out__btn")
    page.wait_for_selector(f"{play} textarea")
    assert page.locator(".json-schema-2020-12-expand-deep-button").count() > 0
    assert serious_findings(page) == []
    # The site's header: every page's links, the way back to the game first.
    assert page.eval_on_selector_all("header nav a", "links => links.map(a => a.getAttribute('href'))")[0] == "/"
    page.click("header nav a[href='/']")
    page.wait_for_selector("body[data-ready=true]")
    assert page.title() == "Solve — boggle-dafsa"
    assert errors == []


@pytest.mark.slow
def test_solo_hints_are_those_the_server_gives(server: str, browser: Any) -> None:
    from boggle_dafsa.board.dice import load_dice
    from boggle_dafsa.dictionaries.resolve import open_dictionary
    from boggle_dafsa.game.rounds import Game
    from boggle_dafsa.web.hints import hint_payload

    errors: list[str] = []
    page = new_page(browser, errors)
    start_game(page, server + "play?dice=fr&seed=42&time=600")
    game = Game.from_dice(load_dice("fr"), 42, open_dictionary("fr"))
    for round_ in range(2):
        page.click("#ask-hint")
        hint = hint_payload(game)
        letter = hint["letter"]
        expected = f"A word of {letter['length']} letters starts with {letter['first']} ({letter['points']} points)."
        page.wait_for_function("document.getElementById('hint-text').textContent.length > 0")
        assert page.inner_text("#hint-text").startswith(expected)
        # Take the words up to 40 %: then the cells count the words left that start on them.
        words = [hit.word for hit in game.hits]
        for word in words[: int(0.4 * len(words)) + 1] if round_ == 0 else []:
            game.submit(word)
            page.fill("#word", word)
            page.press("#word", "Enter")
        page.wait_for_function(f"document.querySelectorAll('#verdicts li').length === {len(game.found)}")
    counts = page.eval_on_selector_all("#board .cell", "cells => cells.map(c => Number(c.dataset.hint))")
    assert counts == hint_payload(game)["cells"]
    assert errors == []


@pytest.mark.slow
def test_on_a_phone_the_board_stays_in_view_and_a_sent_trace_clears(server: str, browser: Any) -> None:
    errors: list[str] = []
    page = new_page(browser, errors, viewport={"width": 390, "height": 700}, is_mobile=True, has_touch=True)
    start_game(page, server + "play?dice=fr&seed=42&time=600")
    # HALTE traced by taps: H (2,1) A (2,2) L (2,3) T (3,2) E (3,3), then E again to send.
    for index in (9, 10, 11, 14, 15, 15):
        page.tap(f"#board .cell[data-index='{index}']")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 1")
    assert page.locator("#board .cell.traced").count() == 0  # the trace is gone once sent
    page.click("#stop")
    page.wait_for_selector("#report:not([hidden])")
    # Scroll down the long list of missed words: the board's panel stays at the top.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(200)
    top = page.evaluate("document.querySelector('#board').getBoundingClientRect().top")
    assert 0 <= top < 700 and page.evaluate("window.scrollY") > 700
    assert errors == []
