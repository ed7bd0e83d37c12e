"""The arena's library and store (game/arena.py, web/store.py): slots and their boards,
ranks and percentiles against a brute-force computation, the rolling boards, and what the
store keeps across a restart. The web arena is tested in tests/test_web_arena.py."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.board.dice import SplitMix64, load_dice, roll_grid
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.arena import Slot, Standing, arena_seed, board, check_seconds, ranked, standings, totals, windows
from boggle_dafsa.web.store import Store

# -- slots -------------------------------------------------------------------------------


@given(now=st.floats(0, 4e9), seconds=st.integers(15, 3600))
def test_a_slot_holds_its_moment_and_the_next_one_follows(now: float, seconds: int) -> None:
    slot = Slot.at("fr", seconds, now)
    assert slot.starts <= now < slot.ends and slot.ends - slot.starts == seconds
    assert Slot.at("fr", seconds, slot.ends) == slot.shifted(1)
    assert Slot.at("fr", seconds, slot.starts) == slot


def test_one_board_a_slot_the_same_everywhere() -> None:
    slot = Slot.at("fr", 180, 1_800_000_000.0)
    assert slot.index == 10_000_000 and slot.seed == arena_seed("fr", 180, 10_000_000)
    # The first grid its seed rolls, as `generate --seed` does.
    dice = load_dice("fr")
    assert slot.grid(dice) == roll_grid(dice, SplitMix64(slot.seed))
    assert len({arena_seed("fr", 180, 1), arena_seed("en", 180, 1), arena_seed("fr", 300, 1), arena_seed("fr", 180, 2)}) == 4
    assert 0 <= slot.seed < 2**48


@pytest.mark.parametrize("seconds", [0, 14, 3601, -3, True, 20.5])
def test_slot_lengths_are_bounded(seconds: object) -> None:
    with pytest.raises(BoggleError, match="an arena slot lasts 15 to 3600 whole seconds"):
        check_seconds(seconds)  # type: ignore[arg-type]


def test_the_windows_of_the_boards() -> None:
    now = dt.datetime(2026, 3, 10, 15, 30, tzinfo=dt.timezone.utc).timestamp()
    today, week = windows(now)["today"], windows(now)["week"]
    assert today == (dt.datetime(2026, 3, 10, tzinfo=dt.timezone.utc).timestamp(), now)
    assert week == (dt.datetime(2026, 3, 4, tzinfo=dt.timezone.utc).timestamp(), now)


# -- ranks and percentiles: against a brute-force computation ------------------------------

scores = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 20)), min_size=0, max_size=40)


def brute_force(results: list[tuple[str, int, int]]) -> dict[str, tuple[int, float]]:
    """Each player's (rank, percentile), straight from the definitions, every pair compared."""
    answer = {}
    for player, score, _ in results:
        above = sum(1 for _, other, _ in results if other > score)
        below = sum(1 for _, other, _ in results if other < score)
        others = len(results) - 1
        answer[player] = (1 + above, 100.0 if others == 0 else round(100 * below / others, 1))
    return answer


@given(scores)
def test_ranks_and_percentiles_are_those_of_a_brute_force_count(raw: list[tuple[int, int]]) -> None:
    results = [(f"p{index}", score, words) for index, (score, words) in enumerate(raw)]
    ranking = standings(results)
    assert sorted(standing.player for standing in ranking) == sorted(player for player, _, _ in results)
    expected = brute_force(results)
    assert {standing.player: (standing.rank, standing.percentile) for standing in ranking} == expected
    # Best first; equal scores share a rank and a percentile, listed by name.
    assert [standing.score for standing in ranking] == sorted((score for _, score, _ in results), reverse=True)
    for first, second in zip(ranking, ranking[1:]):
        if first.score == second.score:
            assert first.rank == second.rank and first.percentile == second.percentile and first.player < second.player
        else:
            assert first.rank < second.rank and first.percentile > second.percentile


def test_a_small_table_by_hand() -> None:
    ranking = standings([("ann", 10, 4), ("bob", 25, 9), ("cy", 10, 5), ("dee", 3, 1), ("eve", 25, 8)])
    assert [(s.player, s.rank, s.percentile) for s in ranking] == [
        ("bob", 1, 75.0),
        ("eve", 1, 75.0),
        ("ann", 3, 25.0),
        ("cy", 3, 25.0),
        ("dee", 5, 0.0),
    ]
    assert standings([("solo", 0, 0)]) == [Standing("solo", 0, 0, 1, 100.0, 1, 0)]
    assert standings([]) == []


games = st.lists(st.tuples(st.sampled_from(["ann", "bob", "cy", "dee"]), st.integers(0, 30), st.integers(0, 20)), max_size=30)


@given(games)
def test_a_board_adds_up_each_players_games_then_ranks_the_totals(played: list[tuple[str, int, int]]) -> None:
    result = {standing.player: standing for standing in board(played)}
    for player in {player for player, _, _ in played}:
        mine = [(score, words) for who, score, words in played if who == player]
        standing = result[player]
        assert (standing.score, standing.words, standing.games, standing.best) == (
            sum(score for score, _ in mine),
            sum(words for _, words in mine),
            len(mine),
            max(score for score, _ in mine),
        )
    added = [(player, standing.score, standing.words) for player, standing in result.items()]
    assert {player: (s.rank, s.percentile) for player, s in result.items()} == brute_force(added)


# -- the store ---------------------------------------------------------------------------


def fill(store: Store, played: list[tuple[str, int, int]], slot: int = 7, starts: float = 1000.0) -> None:
    members: dict[str, int] = {}
    for index, (player, score, words) in enumerate(played):
        if player not in members:
            member = store.member_join(player, player.lower(), f"token-{player}", "addr", 0.0, 10_000)
            assert isinstance(member, int)
            members[player] = member
        # One game a player and board: each game of the list on a board of its own.
        assert store.arena_save("fr", 180, slot + index, starts + 180 * index, members[player], ["x"], score, words, "addr", 50)


@given(games)
def test_the_stores_totals_are_the_librarys(played: list[tuple[str, int, int]]) -> None:
    store = Store(None)
    fill(store, played)
    rows = store.arena_totals("fr", 180, 0.0, 1e12)
    assert sorted(rows) == sorted(totals(played))
    assert ranked(rows) == board(played)
    # The window: games whose board starts before `before` only.
    assert sorted(store.arena_totals("fr", 180, 1000.0, 1000.0 + 180 * 3)) == sorted(totals(played[:3]))
    store.close()


def test_members_have_one_name_each_and_an_address_makes_few(tmp_path: Path) -> None:
    store = Store(None)
    ann = store.member_join("Ann", "ann", "h1", "addr", 100.0, 2)
    assert isinstance(ann, int) and store.member("h1") == (ann, "Ann")
    assert store.member_join("ANN", "ann", "h2", "other", 100.0, 2) == "taken"
    assert isinstance(store.member_join("Bob", "bob", "h3", "addr", 100.0, 2), int)
    assert store.member_join("Cy", "cy", "h4", "addr", 200.0, 2) == "address"
    assert isinstance(store.member_join("Cy", "cy", "h4", "addr", 100.0 + 86401, 2), int)  # a day later
    assert store.member("nope") is None


def test_an_address_has_so_many_players_on_a_board() -> None:
    store = Store(None)
    ids = [store.member_join(f"p{n}", f"p{n}", f"t{n}", "addr", 0.0, 100) for n in range(3)]
    assert all(isinstance(member, int) for member in ids)
    assert store.arena_save("fr", 180, 1, 180.0, ids[0], ["a"], 1, 1, "addr", 2)
    assert store.arena_save("fr", 180, 1, 180.0, ids[1], ["a"], 1, 1, "addr", 2)
    assert not store.arena_save("fr", 180, 1, 180.0, ids[2], ["a"], 1, 1, "addr", 2)
    assert store.arena_save("fr", 180, 1, 180.0, ids[0], ["a", "b"], 3, 2, "addr", 2)  # a known player goes on
    assert store.arena_save("fr", 180, 2, 360.0, ids[2], ["a"], 1, 1, "addr", 2)  # the next board
    assert store.arena_submitted("fr", 180, 1, ids[0]) == ["a", "b"] and store.arena_submitted("fr", 180, 1, ids[2]) is None
    assert sorted(store.arena_results("fr", 180, 1)) == [("p0", 3, 2), ("p1", 1, 1)]


def test_the_arena_survives_a_restart_and_an_older_file_gets_its_tables(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    store = Store(folder)
    # A version 2 file, as the server wrote it before the arena.
    assert store.path is not None
    store._db.execute("DROP TABLE arena_games")
    store._db.execute("DROP TABLE members")
    store._db.execute("PRAGMA user_version=2")
    store.close()
    store = Store(folder)
    member = store.member_join("Ann", "ann", "h1", "addr", 0.0, 5)
    assert isinstance(member, int)
    assert store.arena_save("en", 120, 9, 1080.0, member, ["tea", "eat"], 2, 2, "addr", 5)
    store.close()
    store = Store(folder)
    assert store.member("h1") == (member, "Ann")
    assert store.arena_submitted("en", 120, 9, member) == ["tea", "eat"]
    assert store.arena_results("en", 120, 9) == [("Ann", 2, 2)]
    assert store.arena_totals("en", 120, 0.0, 2000.0) == [("Ann", 2, 2, 1, 2)]
    store.close()
    assert sqlite3.connect(folder / "boggle-dafsa.sqlite3").execute("PRAGMA user_version").fetchone()[0] == 3
