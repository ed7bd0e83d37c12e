#!/usr/bin/env python3
"""In-process anagram groups: an exact anagram read from the alphagram index, against a
Python dict of sorted letters and against the walk (issue 33).

For each list (``enable2k`` by default; ``fr``, ``en`` too) it opens the embedded
dictionary and builds, from the same stored words, the dict every Python programmer
writes: sorted letters → the words (a list each, in byte order). It picks ``--racks``
racks of ``--length`` letters with a fixed seed (the letters of a word of that length,
shuffled: each has at least one anagram), with ``TRIFLES`` first, checks that every side
gives the same words in the same order, then times each side over all the racks,
``--repeat`` times, the sides taking turns, and prints the median CPU time
(``time.process_time``) per rack in microseconds (the loop's own cost included, the same
for every side), for three kinds of pass: the racks (each asked again at every pass, as a
program asks the racks it holds), the first rack again and again, and the racks with their
letters in a new order at each pass (strings no side has seen: the index keeps the racks it
answered, so this is what a rack asked for the first time costs once its length is
indexed). Each timed pass follows an untimed one of its kind (what the other sides evicted
from the caches read back first):

- ``dict``: ``groups.get("".join(sorted(rack)), ())``, the rack already in upper case;
- ``anagram_words``: ``query.anagram_words(d, rack)``, the words as a tuple (the index);
- ``anagram``: ``query.anagram(d, rack)``, the public call: a list of ``AnagramHit``;
- ``walk (KERNEL)``: ``list(walk.search(d, Anagram(rack), kernel=KERNEL))``, what
  ``query.anagram`` did for every rack before the index (the Python twin on a tenth of
  the racks).

It also prints the time to build the index of the racks' length (one walk of the words of
that length, grouped), of every length, the memory the groups of every length hold
(``tracemalloc``: the tuples and the dicts; the words' own strings too, which the dict
side holds as well), and the number of anagrams of every word of the list: through
``conditions.anagram_count`` against ``Counter`` of sorted letters (checked equal). The
load average is printed before and after.

    python scripts/bench_map.py                       # enable2k, 200 racks of 7, 15 repeats
    python scripts/bench_map.py enable2k fr --racks 50 --repeat 5
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from boggle_dafsa import open_dictionary, query
from boggle_dafsa.query import automata, conditions, walk


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def per_rack(run: Callable[[str], Any], racks: Sequence[str]) -> float:
    """Seconds per rack of one pass over ``racks``."""
    started = time.process_time()
    for rack in racks:
        run(rack)
    return (time.process_time() - started) / len(racks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="*", default=["enable2k"])
    parser.add_argument("--racks", type=int, default=200)
    parser.add_argument("--length", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=33)
    args = parser.parse_args()
    print(f"load average before: {load()}")
    for name in args.lists:
        d = open_dictionary(name)
        words = list(d)
        rng = random.Random(args.seed)
        pool = [word for word in words if len(word) == args.length]
        racks = ["TRIFLES"] if args.length == 7 and "TRIFLES" in d else []
        while len(racks) < args.racks:
            letters = list(rng.choice(pool))
            rng.shuffle(letters)
            racks.append("".join(letters))

        started = time.process_time()
        groups: dict[str, list[str]] = {}
        for word in words:
            groups.setdefault("".join(sorted(word)), []).append(word)
        dict_build = time.process_time() - started

        # The index of the racks' length: the first rack walks, the second builds it.
        query.anagram(d, racks[0])
        started = time.process_time()
        query.anagram(d, racks[0])
        build = time.process_time() - started
        assert args.length in conditions._index(d).groups
        longest = max(map(len, words))
        started = time.process_time()
        for length in range(1, longest + 1):
            conditions.alphagram_groups(d, length)
        build_all = time.process_time() - started + build
        # The memory of every length's groups: built again in a dictionary opened afresh.
        fresh = open_dictionary(name)
        list(walk.search(fresh, automata.Length(1, 1)))  # its layout made before counting
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for length in range(1, longest + 1):
            conditions.alphagram_groups(fresh, length)
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        del fresh

        walkers: dict[str, Sequence[str]] = {
            kernel: racks if kernel == "c" else racks[: max(1, len(racks) // 10)] for kernel in walk.available_kernels()
        }

        def walked(kernel: str) -> Callable[[str], list[str]]:
            return lambda rack: list(walk.search(d, automata.Anagram(rack), kernel=kernel))

        sides: dict[str, tuple[Callable[[str], Any], Sequence[str]]] = {
            "dict": (lambda rack: groups.get("".join(sorted(rack)), ()), racks),
            "anagram_words": (lambda rack: query.anagram_words(d, rack), racks),
            "anagram": (lambda rack: query.anagram(d, rack), racks),
        }
        for kernel, some in walkers.items():
            sides[f"walk ({kernel})"] = (walked(kernel), some)
        for rack in racks:
            expected = list(groups.get("".join(sorted(rack)), ()))
            assert expected, rack
            assert list(query.anagram_words(d, rack)) == expected, rack
            assert [hit.word for hit in query.anagram(d, rack)] == expected, rack
            for kernel in walkers:
                assert walked(kernel)(rack) == expected, (kernel, rack)
        # The same rack again and again (the first: TRIFLES for 7 letters), as a loop
        # in a program would ask it: every side's cache warm.
        same = [racks[0]] * len(racks)

        def reordered(some: Sequence[str]) -> list[str]:
            # The racks with their letters in a new order: strings no side has seen.
            fresh = []
            for rack in some:
                letters = list(rack)
                rng.shuffle(letters)
                fresh.append("".join(letters))
            return fresh

        timings: dict[str, list[float]] = {label: [] for label in sides}
        again: dict[str, list[float]] = {label: [] for label in sides}
        new: dict[str, list[float]] = {label: [] for label in sides}
        for _ in range(args.repeat):
            for label, (run, some) in sides.items():
                # Each timed pass after an untimed one of its kind (what the other sides
                # evicted read back); each side's new order its own.
                for kept, asked in ((timings, some), (again, same[: len(some)]), (new, None)):
                    per_rack(run, asked if asked is not None else reordered(some))
                    kept[label].append(per_rack(run, asked if asked is not None else reordered(some)))
        found = sum(len(groups["".join(sorted(rack))]) for rack in racks) / len(racks)
        print(f"\n{name}: {len(words):,} words; {len(racks)} racks of {args.length} letters, {found:.1f} words each")
        base = statistics.median(timings["dict"])
        base_again = statistics.median(again["dict"])
        base_new = statistics.median(new["dict"])
        print(
            f"| side | µs a rack (median) | × dict | µs for {racks[0]} again and again | × dict "
            "| µs a rack in a new order | × dict |"
        )
        print("|---|--:|--:|--:|--:|--:|--:|")
        for label, values in timings.items():
            median = statistics.median(values)
            median_again = statistics.median(again[label])
            median_new = statistics.median(new[label])
            print(
                f"| {label} | {median * 1e6:.2f} | {median / base:.1f} | {median_again * 1e6:.2f} "
                f"| {median_again / base_again:.1f} | {median_new * 1e6:.2f} | {median_new / base_new:.1f} |"
            )
        print(
            f"index of {args.length}-letter words built in {build * 1e3:.1f} ms, of every length in "
            f"{build_all * 1e3:.0f} ms, holding {held / 2**20:.1f} MiB; the dict of sorted letters: "
            f"{dict_build * 1e3:.0f} ms"
        )

        scan = Counter("".join(sorted(word)) for word in words)
        started = time.process_time()
        counts = [conditions.anagram_count(d, word) for word in words]
        counted = time.process_time() - started
        assert counts == [scan["".join(sorted(word))] for word in words]
        print(f"anagrams of each of the {len(words):,} words: {counted * 1e3:.0f} ms (equal to a scan)")
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
