"""Benchmark of ``search`` (issue 34's bar) on ENABLE2K, in process and as a command.

- Searches combining four conditions, in process: each run builds its query automaton
  afresh (nothing is kept from one run to the next but the opened dictionary), timed as the
  best of five, in CPU time (the process's own; other jobs on a shared machine inflate
  wall time) and wall time; every answer is checked against a scan of the list first.
- ``--columns hooks,probability,anagrams`` over 10,000 words (every 17th word, every length):
  the first time (building the indexes of those lengths) and again (the indexes kept), then
  10,000 other words and the JSON fields, each the best of five, in CPU time.
- A cold ``search`` command against a cold ``solve``: medians of five runs of each, taking
  turns.
- Expected Boggle points (``--only expected``): boards per CPU second of each step of
  ``scripts/expected_points.py`` on 20,000 boards of the fr dice with the fr list: the roll
  (the game's SplitMix64 draws, in Python), the tally in the kernel (``tally_codes``, no word
  built) and, for comparison, the words of each board counted in Python (``run_codes`` mode
  "words", then a ``Counter`` per board by alphagram); the Python twin's tally on 500.

    python scripts/bench_study.py                      # every part
    python scripts/bench_study.py --only columns       # searches, columns, commands or expected

``BOGGLE_DAFSA_PURE=1`` measures the Python twin of the compiled walk instead.
"""

from __future__ import annotations

import os
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


def expected_points() -> None:
    """Boards per CPU second of the expected-points run's steps (fr dice, fr list)."""
    from array import array
    from collections import Counter

    from boggle_dafsa.board.dice import load_dice
    from boggle_dafsa.solver.prepared import PreparedSolver
    from boggle_dafsa.study import expected

    dice_set = load_dice("fr")
    d = open_dictionary("fr")
    boards = 20_000
    print(f"\nexpected points, fr dice on fr ({boards:,} boards; CPU time of this process):")
    for kernel, count in (("c", boards), ("python", 500)):
        solver = PreparedSolver(d, dice_set.shape, min_length=dice_set.min_length, scoring=dice_set.scoring, kernel=kernel)
        if solver.kernel != kernel:
            continue
        c0 = time.process_time()
        names: dict[str, int] = {}
        groups = array("I", [names.setdefault(expected.alphagram(w), len(names)) for w in solver.numbered_words()])
        setup = time.process_time() - c0
        faces = expected._face_codes(dice_set, d, solver)
        c0 = time.process_time()
        codes, _ = expected.roll_codes(faces, 1, count)
        roll = time.process_time() - c0
        found, squares = array("Q", bytes(8 * len(names))), array("Q", bytes(8 * len(names)))
        c0 = time.process_time()
        solver.tally_codes(codes, groups, found, squares)
        tally = time.process_time() - c0
        print(
            f"  {kernel:6} set-up (numbered words, groups) {setup:.2f} s; roll {roll / count * 1e6:5.1f} µs a board; "
            f"tally {tally / count * 1e6:7.1f} µs a board: {count / (roll + tally):,.0f} boards/CPU-s"
        )
        if kernel == "c":
            c0 = time.process_time()
            results = solver.run_codes(codes, "words")
            keys: dict[str, str] = {}
            counted: Counter[str] = Counter()
            for _points, words in results:
                counted.update(Counter(keys.get(w) or keys.setdefault(w, expected.alphagram(w)) for w in words))
            words_mode = time.process_time() - c0
            check = Counter({group: found[i] for group, i in names.items() if found[i]})
            assert counted == check, "the words counted in Python differ from the tally"
            print(f"         the words counted in Python instead: {words_mode / count * 1e6:7.1f} µs a board (same counts)")
    print(f"  load {os.getloadavg()[0]:.2f}")


def searches(d: Any, words: list[str]) -> None:
    print("\nfour conditions, in process (best of 5):")
    for cond in SEARCHES:
        cpu, wall, found = best_of(lambda: list(query.search(d, **cond)))
        assert found == scan(words, d, cond), cond
        print(f"  {cpu * 1000:7.1f} ms CPU {wall * 1000:7.1f} ms wall  {len(found):5,} words  {cond}")


def columns_part(d: Any, words: list[str]) -> None:
    sample = words[::17][:10_000]
    columns = WordColumns(d, ("hooks", "probability", "anagrams"), "en")
    c0, w0 = time.process_time(), time.perf_counter()
    for word in sample:
        columns.line(word)
    print(f"\n--columns hooks,probability,anagrams over {len(sample):,} words (every length):")
    print(f"  first time, building the indexes: {time.process_time() - c0:.2f} s CPU, {time.perf_counter() - w0:.2f} s wall")
    cpu, wall, _ = best_of(lambda: [columns.line(word) for word in sample], 5)
    print(f"  again, indexes kept: {cpu * 1000:.1f} ms CPU, {wall * 1000:.1f} ms wall (best of 5)")
    # Nothing is kept per word: 10,000 other words cost the same (the indexes are per length).
    other = words[8::17][:10_000]
    cpu, wall, _ = best_of(lambda: [columns.line(word) for word in other], 5)
    print(f"  10,000 other words: {cpu * 1000:.1f} ms CPU, {wall * 1000:.1f} ms wall (best of 5)")
    cpu, wall, _ = best_of(lambda: [columns.fields(word) for word in sample], 5)
    print(f"  the JSON fields (--json) of the first 10,000: {cpu * 1000:.1f} ms CPU, {wall * 1000:.1f} ms wall (best of 5)")


def commands() -> None:
    print("\ncold commands (medians of 5, taking turns):")
    runs: dict[str, list[float]] = {"search": [], "solve": []}
    for _ in range(5):
        runs["search"].append(command_seconds(["search", "-d", "enable2k", "--pattern", "*ING", "--length", "7", "--count"]))
        runs["solve"].append(command_seconds(["solve", "-d", "enable2k", "SERSPATGLINESERS", "-q"]))
    for name, times in runs.items():
        print(f"  {name}: {statistics.median(times) * 1000:.0f} ms")
    print(f"  ratio search/solve: {statistics.median(runs['search']) / statistics.median(runs['solve']):.2f}")


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["searches", "columns", "commands", "expected"], default=None)
    only = parser.parse_args().only
    print(f"load {os.getloadavg()[0]:.2f}")
    if only in (None, "searches", "columns"):
        d = open_dictionary("enable2k")
        words = list(d)
        print(f"ENABLE2K: {len(words):,} words; kernel of the walk: {query.walk.select_kernel()}")
        if only in (None, "searches"):
            searches(d, words)
        if only in (None, "columns"):
            columns_part(d, words)
    if only in (None, "commands"):
        commands()
    if only in (None, "expected"):
        expected_points()


if __name__ == "__main__":
    main()
