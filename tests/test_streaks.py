"""Daily streaks kept on the server for players with a token (game/daily.py's streaks, the
store's member_days, POST /api/daily with `member` and POST /api/daily/streak)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.game.daily import streaks
from boggle_dafsa.web.store import Store

TODAY = dt.date(2026, 3, 10)
days = st.sets(st.integers(0, 40).map(lambda back: TODAY - dt.timedelta(days=back)), max_size=30)


def brute_force(played: set[dt.date], today: dt.date) -> tuple[int, int]:
    """The streaks straight from their definitions, every day and every run tried."""
    one = dt.timedelta(days=1)
    current = 0
    for end in (today, today - one):
        run = 0
        while end - run * one in played:
            run += 1
        if end == today and today not in played:
            continue
        current = run
        break
    best = 0
    for start in played:
        run = 0
        while start + run * one in played:
            run += 1
        best = max(best, run)
    return current, best


@given(days)
def test_streaks_are_those_of_their_definition(played: set[dt.date]) -> None:
    assert streaks(played, TODAY) == brute_force(played, TODAY)


def test_streaks_by_hand() -> None:
    day = dt.timedelta(days=1)
    assert streaks([], TODAY) == (0, 0)
    assert streaks([TODAY, TODAY - day, TODAY - 3 * day], TODAY) == (2, 2)
    # Today still to play: yesterday's run stands.
    assert streaks([TODAY - day, TODAY - 2 * day], TODAY) == (2, 2)
    assert streaks([TODAY - 2 * day], TODAY) == (0, 1)


def test_the_store_keeps_each_members_days() -> None:
    store = Store(None)
    ann = store.member_join("Ann", "ann", "hash", "addr", 0.0, 5)
    assert isinstance(ann, int)
    store.member_day(ann, "2026-03-09", "fr", 12, 5)
    store.member_day(ann, "2026-03-10", "fr", 7, 3)
    store.member_day(ann, "2026-03-10", "fr", 99, 30)  # the first result of the day stays
    store.member_day(ann, "2026-03-10", "en", 4, 2)
    assert store.member_days(ann, "fr") == [("2026-03-10", 7, 3), ("2026-03-09", 12, 5)]
    assert store.member_days(ann, "en") == [("2026-03-10", 4, 2)]


@pytest.mark.slow
def test_a_result_with_a_token_goes_into_the_players_streak_on_the_server(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
    from fastapi.testclient import TestClient

    from boggle_dafsa.game.daily import today
    from boggle_dafsa.web.app import create_app

    client = TestClient(create_app(data=tmp_path))
    ann = client.post("/api/arena/join", json={"name": "Ann"}).json()["token"]
    assert client.post("/api/daily/streak", json={"member": ann, "dice": "fr"}).json() == {
        "name": "Ann",
        "dice": "fr",
        "current": 0,
        "best": 0,
        "played": 0,
        "days": [],
    }
    token = client.post("/api/daily/start", json={"dice": "fr", "player": "player-ann"}).json()["token"]
    sent = client.post("/api/daily", json={"token": token, "words": ["zzz"], "member": ann}).json()
    assert sent["counted"] is True
    streak = client.post("/api/daily/streak", json={"member": ann, "dice": "fr"}).json()
    assert (streak["current"], streak["best"], streak["played"]) == (1, 1, 1)
    assert streak["days"] == [{"date": today().isoformat(), "score": 0, "words": 0}]
    # Another dice set, its own streak; a token nobody was given: 403, and a result with it
    # still counts (only no streak is kept).
    assert client.post("/api/daily/streak", json={"member": ann, "dice": "en"}).json()["played"] == 0
    assert client.post("/api/daily/streak", json={"member": "x" * 20, "dice": "fr"}).status_code == 403
    other = client.post("/api/daily/start", json={"dice": "en", "player": "player-bob"}).json()["token"]
    assert client.post("/api/daily", json={"token": other, "words": [], "member": "x" * 20}).json()["counted"] is True
    # A restart: the streak is in the server's database.
    client.app.state.store.close()  # type: ignore[attr-defined]
    again = TestClient(create_app(data=tmp_path))
    assert again.post("/api/daily/streak", json={"member": ann, "dice": "fr"}).json()["played"] == 1
