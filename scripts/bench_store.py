#!/usr/bin/env python3
"""What keeping rooms in SQLite costs a word sent: ``Room.submit`` with and without the store.

    python scripts/bench_store.py

A room of 8 players on a French grid, 200 words sent in turns, each saved (one transaction,
WAL, synchronous=NORMAL) in a temporary folder; medians and the 90th percentile, with the
load average before and after (the machine is shared: compare the two lines of one run).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from boggle_dafsa.board.dice import load_dice
from boggle_dafsa.web.rooms import Room, RoomRegistry
from boggle_dafsa.web.settings import DictionaryCatalog, Limits
from boggle_dafsa.web.store import Store

SENDS = 200


def timed(room: Room, players: list, words: list[str]) -> list[float]:
    times = []
    for i in range(SENDS):
        start = time.perf_counter()
        room.submit(players[i % len(players)], words[i % len(words)])
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    print(f"load average before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        limits = Limits()
        registry = RoomRegistry(limits)
        store = Store(folder)
        registry.store = store
        name, words = DictionaryCatalog(()).for_language(None, "fr")
        room = registry.make_room(lambda room_id: Room(room_id, load_dice("fr"), 42, name, words, 600, limits))
        players = [room.join(f"player{n}", None) for n in range(8)]
        room.start()
        hits = [hit.word for hit in room.judge.hits]
        for label, saved in (("with the store", store.save_room), ("in memory only", None)):
            room.saved = saved
            times = sorted(timed(room, players, hits))
            print(
                f"Room.submit {label}: median {statistics.median(times) * 1000:.3f} ms, "
                f"90th percentile {times[int(0.9 * SENDS)] * 1000:.3f} ms ({SENDS} words, 8 players)"
            )
        store.close()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
