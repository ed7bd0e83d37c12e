"""Benchmark of ``search`` (issue 34's bar) on ENABLE2K, in process and as a command.

- Searches combining four conditions, in process: each run builds its query automaton
  afresh (nothing is kept from one run to the next but the opened dictionary), timed as the
  best of five, in CPU time (the process's own; other jobs on a shared machine inflate
  wall time) and wall time; every answer is checked against a scan of the list first.
- ``--columns hooks,probability,anagrams`` over 10,000 words: the first time (building the
  indexes of those lengths) and again (the indexes kept).
- A cold ``search`` command against a cold ``solve``: medians of five runs of each, taking
  turns.

    python scripts/bench_study.py

``BOGGLE_DAFSA_PURE=1`` measures the Python twin of the compiled walk instead.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from boggle_dafsa import open_dictionary, query
from boggle_dafsa.output.columns import WordColumns
from boggle_dafsa.query import conditions
from boggle_dafsa.query.tiles import BAGS

SEARCHES: list[dict[str, Any]] = [
    {"pattern": "*ING", "length": (7, 8), "vowels": (3, 3), "points": (10, None)},
    {"pattern": "C*", "length": (5, 7), "includes": "T", "excludes": "S"},
    {"subanagram": "AEINRST??", "length": (7, 7), "points": (0, 9), "distinct": (6, 7)},
    {"regex": "(RE|UN).*", "length": (6, 8), "vowels": (2, 3), "excludes": "Z"},
    {"length": (5, 5), "vowels": (1, 1), "points": (12, None), "includes": "Q"},
    {"takes_prefix": "RE", "length": (5, 6), "distinct": (5, None), "excludes": "E"},
    {"anagram": "AEINST?", "hooks": "front", "takes_suffix": "S", "not_takes_prefix": "UN"},
]


def best_of(run: Callable[[], Any], repeat: int = 5) -> tuple[float, float, Any]:
    """(best CPU seconds, best wall seconds, last result) of ``repeat`` runs."""
    cpu = wall = float("inf")
    result = None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        result = run()
        cpu, wall = min(cpu, time.process_time() - c0), min(wall, time.perf_counter() - w0)
    return cpu, wall, result


def scan(words: list[str], d: Any, cond: dict[str, Any]) -> list[str]:
    # The few conditions used above, by brute force.
    bag = BAGS["en"]
    found = []
    for word in words:
        letters = set(word)
        ok = all(
            [
                "length" not in cond or conditions._within(len(word), cond["length"]),
                "vowels" not in cond or conditions._within(conditions.count_vowels(word), cond["vowels"]),
                "points" not in cond or conditions._within(bag.points(word), cond["points"]),
                "distinct" not in cond or conditions._within(len(letters), cond["distinct"]),
                "includes" not in cond or set(cond["includes"]) <= letters,
                "excludes" not in cond or not set(cond["excludes"]) & letters,
                "takes_prefix" not in cond or cond["takes_prefix"] + word in d,
                "takes_suffix" not in cond or word + cond["takes_suffix"] in d,
                "not_takes_prefix" not in cond or cond["not_takes_prefix"] + word not in d,
                "hooks" not in cond or any(letter + word in d for letter in d.alphabet),
            ]
        )
        if ok:
            found.append(word)
    for name, automaton in (("pattern", "match"), ("regex", "grep")):
        if name in cond:
            allowed = set(getattr(query, automaton)(d, cond[name]))
            found = [word for word in found if word in allowed]
    for name, sub in (("anagram", False), ("subanagram", True)):
        if name in cond:
            allowed = {hit.word for hit in query.anagram(d, cond[name], sub=sub)}
            found = [word for word in found if word in allowed]
    return found


def command_seconds(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "boggle_dafsa", *args], check=False, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    d = open_dictionary("enable2k")
    words = list(d)
    print(f"ENABLE2K: {len(words):,} words; kernel of the walk: {query.walk.select_kernel()}")
    print("\nfour conditions, in process (best of 5):")
    for cond in SEARCHES:
        cpu, wall, found = best_of(lambda: list(query.search(d, **cond)))
        assert found == scan(words, d, cond), cond
        print(f"  {cpu * 1000:7.1f} ms CPU {wall * 1000:7.1f} ms wall  {len(found):5,} words  {cond}")
    sample = words[::17][:10_000]
    columns = WordColumns(d, ("hooks", "probability", "anagrams"), "en")
    c0, w0 = time.process_time(), time.perf_counter()
    for word in sample:
        columns.line(word)
    print(f"\n--columns hooks,probability,anagrams over {len(sample):,} words (every length):")
    print(f"  first time, building the indexes: {time.process_time() - c0:.2f} s CPU, {time.perf_counter() - w0:.2f} s wall")
    cpu, wall, _ = best_of(lambda: [columns.line(word) for word in sample], 3)
    print(f"  again, indexes kept: {cpu * 1000:.1f} ms CPU, {wall * 1000:.1f} ms wall")
    print("\ncold commands (medians of 5, taking turns):")
    runs: dict[str, list[float]] = {"search": [], "solve": []}
    for _ in range(5):
        runs["search"].append(command_seconds(["search", "-d", "enable2k", "--pattern", "*ING", "--length", "7", "--count"]))
        runs["solve"].append(command_seconds(["solve", "-d", "enable2k", "SERSPATGLINESERS", "-q"]))
    for name, times in runs.items():
        print(f"  {name}: {statistics.median(times) * 1000:.0f} ms")
    print(f"  ratio search/solve: {statistics.median(runs['search']) / statistics.median(runs['solve']):.2f}")


if __name__ == "__main__":
    main()
