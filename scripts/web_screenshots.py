"""Screenshots of the web pages for the docs, desktop and phone, in headless Chromium against a live server.

    python scripts/web_screenshots.py                 # starts `boggle-dafsa serve` itself (data in a temporary folder)
    python scripts/web_screenshots.py --url http://127.0.0.1:8000/   # or uses a running server
    python scripts/web_screenshots.py --pages study   # only the Study page

Writes docs/web/NAME.png (desktop, 960 pixels wide) and docs/web/NAME-phone.png (390 pixels
wide, a phone's touch screen) for NAME in solve, play, daily, arena, rooms, words and study (``--pages
study,words``: only those). Needs the [web] extra, playwright (its driver only) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.parse
import urllib.request
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

# tests/helpers/: the test helpers, kept out of the wheel.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.harness import headless_chromium, live_server, new_page, open_page, start_game  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "docs" / "web"
DEVICES = {
    "": {"viewport": {"width": 960, "height": 800}},
    "-phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
#: The device of the screenshots being taken (a suffix of DEVICES).
device = ""


def post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def shot(page: Page, name: str) -> None:
    page.screenshot(path=str(OUT / f"{name}{device}.png"))


def solve_page(browser: Any, url: str) -> None:
    page = new_page(browser, **DEVICES[device])
    page.goto(url + "?grid=IDXT/MHEI/ERVN/TLLU&dict=fr")
    page.wait_for_selector("table.words tbody tr")
    page.click("table.words tbody tr:nth-child(1)")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "solve")


def play_page(browser: Any, url: str) -> None:
    page = new_page(browser, **DEVICES[device])
    start_game(page, url + "play?dice=fr&seed=42&time=120")
    for word in ("halte", "latte", "métal", "xyzt", "halte", "thème"):
        page.fill("#word", word)
        page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 6")
    page.click("#stop")
    page.wait_for_selector("#report:not([hidden])")
    page.click("#missed tbody tr:nth-child(1)")
    page.evaluate("window.scrollTo(0, 0)")  # pointing scrolled the row into view
    shot(page, "play")


def daily_page(browser: Any, url: str) -> None:
    page = new_page(browser, **DEVICES[device])
    open_page(page, url + "daily?dice=en")
    with urllib.request.urlopen(url + "api/daily?dice=en", timeout=60) as response:
        puzzle = json.load(response)
    with urllib.request.urlopen(
        url + f"api/solve?grid={puzzle['grid']}&dict={puzzle['dictionary']}&dice=en", timeout=60
    ) as response:
        words = [entry["word"] for entry in json.load(response)["words"]]
    start_game(page)
    for word in words[2:8:2]:
        page.fill("#word", word.lower())
        page.press("#word", "Enter")
    page.wait_for_function("document.querySelectorAll('#verdicts li').length === 3")
    page.click("#stop")
    page.wait_for_selector("#share:not([hidden])")
    page.evaluate("document.getElementById('daily').scrollIntoView()")
    shot(page, "daily")


def arena_page(browser: Any, url: str) -> None:
    """Two players on one board of the arena (30-second boards: the server this script
    starts), then the board's table, one's place, review and the rolling boards."""
    import time

    board = json.loads(urllib.request.urlopen(url + "api/arena", timeout=60).read())
    if board["left"] < 22:
        time.sleep(board["left"] + 0.3)
        board = json.loads(urllib.request.urlopen(url + "api/arena", timeout=60).read())
    grid, dice = board["grid"], board["dice"]
    query = urllib.parse.urlencode({"grid": grid, "dict": board["dictionary"], "dice": dice, "clean": "true"})
    with urllib.request.urlopen(url + f"api/solve?{query}", timeout=60) as answer:
        words = [entry["word"] for entry in json.load(answer)["words"]]
    pages = []
    for name, mine in ((f"ann{device}", words[1:6]), (f"bob{device}", words[3:5])):
        page = new_page(browser, **DEVICES[device])
        open_page(page, url + "arena")
        page.fill("#name", name)
        page.click("#join button")
        page.wait_for_selector("#entry:not([hidden])")
        for word in mine:
            page.fill("#word", word.lower())
            page.press("#word", "Enter")
        pages.append(page)
    page = pages[0]
    page.wait_for_function("document.getElementById('place').textContent.startsWith('Rank')", timeout=60_000)
    page.wait_for_selector("#board-week tbody tr")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "arena")


def rooms_page(browser: Any, url: str) -> None:
    room = post(url + "api/rooms", {"dice": "fr", "seed": 42, "seconds": 6})["room"]
    pages = []
    for name, words in (("alice", ["halte", "latte", "thème"]), ("bob", ["halte", "métal", "fêla"])):
        page = new_page(browser, **DEVICES[device])
        page.goto(url + f"rooms/{room}")
        page.wait_for_selector("#join:not([hidden])")
        page.fill("#name", name)
        page.click("#join button")
        page.wait_for_selector("#start:not([hidden])")
        pages.append((page, words))
    pages[0][0].click("#start")
    for page, words in pages:
        page.wait_for_selector("#entry:not([hidden])")
        for word in words:
            page.fill("#word", word)
            page.press("#word", "Enter")
    for page, _words in pages:
        page.wait_for_selector("#results:not([hidden])")
    page = pages[0][0]
    page.click("#table tbody tr:nth-child(1)")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "rooms")


def words_page(browser: Any, url: str) -> None:
    page = new_page(browser, **DEVICES[device])
    open_page(page, url + "words?verb=anagram&q=RETAIN%3F&d=enable2k")
    page.wait_for_selector("#results li")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "words")


def study_page(browser: Any, url: str) -> None:
    # A search of fr by expected Boggle points, its groups in the quiz, one answered.
    page = new_page(browser, **DEVICES[device])
    open_page(page, url + "study?d=fr&length=5&sort=expected&limit=40&today=2026-11-27")
    page.wait_for_selector("#results tbody tr")
    page.click("#add")
    page.wait_for_selector("#ask:not([hidden])")
    page.fill("#answer", "aster astre rates tares")
    page.press("#answer", "Enter")
    page.wait_for_function("document.body.dataset.answered === '1'")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "study")


PAGES = {
    "solve": solve_page,
    "play": play_page,
    "daily": daily_page,
    "arena": arena_page,
    "rooms": rooms_page,
    "words": words_page,
    "study": study_page,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start one on a free port)")
    parser.add_argument("--pages", default=",".join(PAGES), help="the pages to take, comma-separated (default: all)")
    args = parser.parse_args()
    names = [name for name in args.pages.split(",") if name]
    unknown = [name for name in names if name not in PAGES]
    if unknown:
        parser.error(f"unknown pages {', '.join(unknown)}: {', '.join(PAGES)}")
    OUT.mkdir(parents=True, exist_ok=True)
    global device
    with tempfile.TemporaryDirectory(prefix="boggle-dafsa-screenshots-") as data:
        arena = ("--arena-dice", "en", "--arena-minutes", "0.5")
        server = nullcontext(args.url.rstrip("/") + "/") if args.url else live_server("--data", data, *arena)
        with server as url, headless_chromium() as browser:
            for device in DEVICES:
                for name in names:
                    PAGES[name](browser, url)
    for suffix in DEVICES:
        for name in names:
            path = OUT / f"{name}{suffix}.png"
            print(f"{path.relative_to(OUT.parent.parent)}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
