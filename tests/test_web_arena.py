"""The arena on the server (web/arena.py): one board for everybody a slot, words judged at
once, the table at the end with ranks and percentiles in the order of the scores, the
rolling boards, bounds by address, and a restart that loses nothing. The Arena class
with a clock the test moves; then the real server and a real browser (Chromium)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")

from boggle_dafsa.board.dice import load_dice
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.arena import Slot
from boggle_dafsa.web.arena import Arena, ArenaRefused, ArenaSettings, NotAPlayer
from boggle_dafsa.web.guard import TooManyRequests
from boggle_dafsa.web.settings import DictionaryCatalog, Limits
from boggle_dafsa.web.store import Store

#: Ten seconds into slot 10,000,000 of three minutes.
START = 1_800_000_010.0


class Clock:
    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_arena(store: Store, clock: Clock, dice: str = "en", limits: Limits | None = None) -> Arena:
    return Arena(ArenaSettings(dice, 180), store, DictionaryCatalog(), load_dice, limits or Limits(), clock=clock)


def test_one_board_a_slot_and_the_table_in_the_order_of_the_scores() -> None:
    clock = Clock()
    arena = make_arena(Store(None), clock)
    board = arena.board()
    slot = Slot.at("en", 180, START)
    assert board["slot"] == slot.index and board["left"] == 170.0 and board["bonus"] == "enable2k"
    assert board["grid"] == str(arena.judge(slot).grid) and board["seed"] == slot.seed
    hits = arena.judge(slot).hits
    ann, bob = arena.join("Ann", "a1"), arena.join("Bob", "a2")
    for hit in hits[:4]:
        assert arena.play(ann["token"], slot.index, hit.word.lower(), "a1")["accepted"]
    assert arena.play(bob["token"], slot.index, hits[4].word, "a2")["score"] == hits[4].points
    assert arena.play(bob["token"], slot.index, "qqqq", "a2")["reason"] == "not a word"
    # A late joiner, in the last seconds: the same board.
    clock.now = slot.ends - 5
    assert arena.board()["grid"] == board["grid"]
    cy = arena.join("Cy", "a3")
    assert arena.play(cy["token"], slot.index, hits[0].word, "a3")["accepted"]
    with pytest.raises(ArenaRefused, match="still being played"):
        arena.results(slot.index, None)
    clock.now = slot.ends + 3
    with pytest.raises(ArenaRefused, match="this board is over"):
        arena.play(cy["token"], slot.index, hits[1].word, "a3")
    results = arena.results(slot.index, cy["token"])
    scores = {"Ann": sum(hit.points for hit in hits[:4]), "Bob": hits[4].points, "Cy": hits[0].points}
    table = results["table"]
    assert {row["name"]: row["score"] for row in table} == scores
    # Ranks and percentiles follow the scores: a higher score, a better rank and percentile.
    for first in table:
        for second in table:
            if first["score"] > second["score"]:
                assert first["rank"] < second["rank"] and first["percentile"] > second["percentile"]
            if first["score"] == second["score"]:
                assert (first["rank"], first["percentile"]) == (second["rank"], second["percentile"])
    assert table[0]["name"] == "Ann" and table[0]["rank"] == 1 and table[0]["percentile"] == 100.0
    assert results["you"]["name"] == "Cy" and results["players"] == 3
    # Cy's report: one word found, the rest missed, with the review.
    assert [hit["word"] for hit in results["report"]["found"]] == [hits[0].word]
    assert results["report"]["review"]["study"] and results["solution"]["totals"]["words"] == len(hits)
    # The next board is another grid.
    assert arena.board()["slot"] == slot.index + 1 and arena.board()["grid"] != board["grid"]


def test_bonus_words_count_apart_and_never_score() -> None:
    clock = Clock()
    arena = make_arena(Store(None), clock)
    slot = arena.slot()
    judge = arena.judge(slot)
    assert judge.bonus_hits, "this board has bonus words"
    ann = arena.join("Ann", "a1")
    answer = arena.play(ann["token"], slot.index, judge.bonus_hits[0].word, "a1")
    assert answer["accepted"] and answer["bonus"] and answer["score"] == 0 and answer["bonus_found"] == 1
    assert answer["path"] is not None
    assert arena.mine(ann["token"], slot.index)["bonus"] == [judge.bonus_hits[0].word]


def test_names_tokens_and_bounds_by_address() -> None:
    clock = Clock()
    arena = make_arena(Store(None), clock, limits=Limits(arena_names_per_client=2, arena_players_per_client=1))
    ann = arena.join("Ann", "same")
    with pytest.raises(ArenaRefused, match="the name 'ANN' is taken"):
        arena.join("ANN", "other")
    with pytest.raises(BoggleError, match="name"):
        arena.join("\u202eevil", "other")
    bob = arena.join("Bob", "same")
    with pytest.raises(TooManyRequests, match="2 arena names made from your address today"):
        arena.join("Cy", "same")
    with pytest.raises(NotAPlayer):
        arena.play("not-a-token-at-all", arena.slot().index, "tea", "same")
    slot = arena.slot()
    word = arena.judge(slot).hits[0].word
    assert arena.play(ann["token"], slot.index, word, "same")["accepted"]
    with pytest.raises(TooManyRequests, match="1 players from your address on this board"):
        arena.play(bob["token"], slot.index, word, "same")
    # Refused, so not kept: Bob has no game on this board, and may play from elsewhere.
    assert arena.mine(bob["token"], slot.index)["found"] == []
    assert arena.play(bob["token"], slot.index, word, "elsewhere")["accepted"]


def test_a_restart_loses_nothing(tmp_path: Path) -> None:
    clock = Clock()
    store = Store(tmp_path / "data")
    arena = make_arena(store, clock)
    slot = arena.slot()
    hits = arena.judge(slot).hits
    ann = arena.join("Ann", "a1")
    for hit in hits[:3]:
        arena.play(ann["token"], slot.index, hit.word, "a1")
    store.close()
    # Another server process: the same store, the same game.
    store = Store(tmp_path / "data")
    arena = make_arena(store, clock)
    mine = arena.mine(ann["token"], slot.index)
    assert [entry["word"] for entry in mine["found"]] == [hit.word for hit in hits[:3]]
    assert arena.play(ann["token"], slot.index, hits[0].word, "a1")["reason"] == "already found"
    clock.now = slot.ends + 3
    before = arena.boards(ann["token"])
    store.close()
    store = Store(tmp_path / "data")
    assert make_arena(store, clock).boards(ann["token"]) == before
    assert before["week"]["you"]["score"] == sum(hit.points for hit in hits[:3])


def test_the_rolling_boards_add_up_the_boards_over() -> None:
    clock = Clock()
    arena = make_arena(Store(None), clock)
    ann, bob = arena.join("Ann", "a1"), arena.join("Bob", "a2")
    played: dict[str, int] = {"Ann": 0, "Bob": 0}
    for board in range(3):
        slot = arena.slot()
        hits = arena.judge(slot).hits
        for hit in hits[: 1 + board]:
            arena.play(ann["token"], slot.index, hit.word, "a1")
            played["Ann"] += hit.points
        arena.play(bob["token"], slot.index, hits[-1].word, "a2")
        played["Bob"] += hits[-1].points
        # The board under way is not on the rolling boards yet.
        assert sum(row["games"] for row in arena.boards(None)["today"]["table"]) == 2 * board
        clock.now += 180
    boards: dict[str, Any] = arena.boards(bob["token"])
    for window in ("today", "week"):
        rows = {row["name"]: row for row in boards[window]["table"]}
        assert {name: row["score"] for name, row in rows.items()} == played
        assert rows["Ann"]["games"] == rows["Bob"]["games"] == 3
    assert boards["week"]["you"]["name"] == "Bob" and boards["week"]["players"] == 2


# -- the real server and a real browser ----------------------------------------------------


def _browser_ready() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    from helpers.harness import chromium_path

    return chromium_path() is not None


def _get(url: str) -> Any:
    import json
    import urllib.request

    with urllib.request.urlopen(url, timeout=60) as response:
        return json.load(response)


def _post(url: str, body: dict[str, Any]) -> Any:
    import json
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def _places(page: Any, selector: str) -> list[tuple[int, str, int, float]]:
    """The rows of a table of places on the page: (rank, name, score, percentile)."""
    rows = page.eval_on_selector_all(
        f"{selector} tbody tr", "rows => rows.map(row => Array.from(row.cells, cell => cell.textContent))"
    )
    return [(int(row[0]), row[1], int(row[2]), float(row[-1].rstrip("%"))) for row in rows if len(row) > 2]


@pytest.mark.slow
@pytest.mark.skipif(not _browser_ready(), reason="needs playwright and Debian's chromium")
def test_two_players_and_a_late_joiner_in_one_slot_then_a_restart(tmp_path: Path) -> None:
    """Two players and a late joiner, in Chromium, on a server with one-minute boards: the same
    board on every page, ranks and percentiles in the order of the scores (against a count of
    every pair), and the week's board the same after the server is restarted."""
    import time
    import urllib.parse

    from helpers.harness import headless_chromium, live_server, new_page, open_page

    data = str(tmp_path / "data")
    arguments = ("--data", data, "--arena-dice", "en", "--arena-minutes", "1")
    errors: list[str] = []
    with live_server(*arguments) as url, headless_chromium() as browser:
        board = _get(url + "api/arena")
        if board["left"] < 45:  # a slot with the time to play it
            time.sleep(board["left"] + 0.5)
            board = _get(url + "api/arena")
        query = urllib.parse.urlencode({"grid": board["grid"], "dict": "en", "dice": "en", "clean": "true"})
        solution = _get(url + f"api/solve?{query}")["words"]  # a Qu face is written with spaces around it
        assert len(solution) >= 4, board["grid"]
        plays = {"Ann": [hit["word"] for hit in solution[:3]], "Bob": [solution[-1]["word"]], "Cy": [solution[3]["word"]]}
        pages = {}
        for name, viewport in (("Ann", {"width": 1000, "height": 800}), ("Bob", {"width": 390, "height": 844})):
            page = new_page(browser, errors, viewport=viewport)
            open_page(page, url + "arena")
            page.fill("#name", name)
            page.click("#join button")
            page.wait_for_selector("#entry:not([hidden])")
            pages[name] = page
        for name, page in pages.items():
            for word in plays[name]:
                page.fill("#word", word.lower())
                page.press("#word", "Enter")
            page.wait_for_function(f"document.querySelectorAll('#verdicts li.accepted').length === {len(plays[name])}")
        # The late joiner, in the last seconds of the board.
        left = _get(url + "api/arena")["left"]
        time.sleep(max(0.0, left - 7))
        late = new_page(browser, errors)
        open_page(late, url + "arena")
        assert _get(url + "api/arena")["slot"] == board["slot"]
        late.fill("#name", "Cy")
        late.click("#join button")
        late.wait_for_selector("#entry:not([hidden])")
        late.fill("#word", plays["Cy"][0].lower())
        late.press("#word", "Enter")
        late.wait_for_selector("#verdicts li.accepted")
        pages["Cy"] = late
        # The same board on every page: the server's.
        faces = [face.upper() for face in board["faces"]]
        for page in pages.values():
            assert [
                face.upper() for face in page.eval_on_selector_all("#board .cell .face", "e => e.map(x => x.textContent)")
            ] == faces
        points = {hit["word"]: hit["points"] for hit in solution}
        scores = {name: sum(points[word] for word in words) for name, words in plays.items()}
        for name, page in pages.items():
            page.wait_for_function("document.getElementById('place').textContent.startsWith('Rank')", timeout=90_000)
            table = _places(page, "#table")
            assert {row[1]: row[2] for row in table} == scores
            for _rank, player, score, percentile in table:
                above = sum(1 for other in scores.values() if other > score)
                below = sum(1 for other in scores.values() if other < score)
                assert (_rank, percentile) == (1 + above, round(100 * below / (len(scores) - 1), 1)), (player, table)
            mine = next(row for row in table if row[1] == name)
            assert page.inner_text("#place").startswith(f"Rank {mine[0]} of 3 players")
            page.wait_for_function("document.querySelectorAll('#board-week tbody tr').length === 3")
        week = _places(pages["Ann"], "#board-week")
        assert {row[1]: row[2] for row in week} == scores
    # Another server on the same data folder: the week's board is still there.
    with live_server(*arguments) as url, headless_chromium() as browser:
        after = _post(url + "api/arena/boards", {"token": None})["week"]["table"]
        assert {row["name"]: row["score"] for row in after} == scores
        page = new_page(browser, errors)
        open_page(page, url + "arena")
        page.wait_for_function("document.querySelectorAll('#board-week tbody tr').length === 3")
        assert _places(page, "#board-week") == week
    assert errors == []
