"""A real server in a child process, and a headless Chromium: for end-to-end tests and scripts.

Both the browser tests and ``scripts/web_screenshots.py``/``scripts/bench_web.py`` drive the
same things: ``boggle-dafsa serve`` started exactly as a user starts it (on 127.0.0.1, on a
free port), Debian's Chromium (never a browser downloaded by Playwright), and the few steps
that open a page and start a game in it.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Where Debian's ``chromium`` package puts the browser.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
_ADDRESS = re.compile(r"serving on (http://\S+)")
#: Every wait of a page, generous: a loaded 2-core machine runs the server, the browser and the caller.
WAIT_MS = 60_000
#: How often a page's condition is checked while a test waits for it.
POLL_MS = 50
#: The browser contexts :func:`new_page` opened and :func:`close_pages` has not closed yet.
_OPEN_CONTEXTS: list[Any] = []


def chromium_path() -> str | None:
    """The Chromium to drive: ``$BOGGLE_DAFSA_CHROMIUM``, else Debian's, else None."""
    configured = os.environ.get("BOGGLE_DAFSA_CHROMIUM")
    for candidate in (configured, CHROMIUM, shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def launch_chromium(playwright: Any) -> Any:
    """A headless Chromium browser from Playwright's sync API, on the system's binary."""
    path = chromium_path()
    if path is None:
        raise RuntimeError(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)


@contextmanager
def headless_chromium() -> Iterator[Any]:
    """Playwright started and a headless Chromium launched for the block; both closed after it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, errors: list[str] | None = None, **options: Any) -> Any:
    """A page in a context of its own (1000x800 unless ``options`` say otherwise), every wait up to
    :data:`WAIT_MS`; the page's uncaught script errors are appended to ``errors`` when given."""
    context = browser.new_context(**{"viewport": {"width": 1000, "height": 800}, **options})
    context.set_default_timeout(WAIT_MS)
    _OPEN_CONTEXTS.append(context)
    page = context.new_page()
    # Playwright polls a wait_for_function on requestAnimationFrame unless told otherwise, and a
    # loaded machine can starve a page's frames past any timeout with nothing wrong on the page
    # (CI's run at f6fdbd1: a hint shown at once, waited for 60 s). A timer does not starve so.
    wait_for_function = page.wait_for_function
    page.wait_for_function = functools.partial(wait_for_function, polling=POLL_MS)
    if errors is not None:
        page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def close_pages() -> None:
    """Close every context :func:`new_page` opened: a page left open goes on running its game's
    clock and scripts in the shared browser, beside the next test's pages."""
    while _OPEN_CONTEXTS:
        context = _OPEN_CONTEXTS.pop()
        try:
            context.close()
        except Exception:  # the browser itself may be closed already (end of a module)
            pass


def open_page(page: Any, url: str) -> None:
    """Go to one of the pages and wait until its script has set it up (``body[data-ready=true]``)."""
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")


def start_game(page: Any, url: str | None = None) -> None:
    """Press Start on a Play or Daily page (opened at ``url`` first when given); return once the word entry shows."""
    if url is not None:
        open_page(page, url)
    page.click("#start")
    page.wait_for_selector("#entry:not([hidden])")


@contextmanager
def live_server(*arguments: str) -> Iterator[str]:
    """Run ``boggle-dafsa serve --port 0 ARGUMENTS...`` and yield its address; stop it with Ctrl-C (SIGINT)."""
    command = [
        sys.executable,
        "-c",
        "from boggle_dafsa.cli import main; main()",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        *arguments,
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the first line says where, once the socket listens
        match = _ADDRESS.search(line)
        if match is None:
            process.kill()
            _out, err = process.communicate(timeout=10)
            raise RuntimeError(f"the server did not start: {line.strip()} {err.strip()}")
        yield match.group(1)
    finally:
        if process.poll() is None:
            process.send_signal(2)  # SIGINT, as Ctrl-C
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
