"""Benchmark of the dictionary queries against what people would use instead.

- fuzzy on the French list (325,313 words), 200 real words picked with a fixed seed, at
  distance 1 and 2: boggle-dafsa's Levenshtein automaton walked on the native file, against
  ``rapidfuzz.process.extract`` scanning the whole list in C++ with a Levenshtein score
  cutoff, and against lexpy's ``search_within_distance`` on a lexpy DAWG (pure Python).
  Every answer is first checked to be the same.
- match on both lists: patterns with a first letter (``C?A*S``) and patterns beginning with
  ``*``, against a compiled ``re`` applied to every word of a list held in memory.
- anagram --sub: 7-letter racks with 2 blanks on ENABLE2K.

Ratios are what to read: each row compares two timings taken in the same run, as medians
over the queries; the two sides of a row take turns. Needs the ``[bench]`` extra (rapidfuzz, lexpy).

    python scripts/bench_query.py            # everything: 200 fuzzy words (a few minutes)
    python scripts/bench_query.py --quick    # 50 fuzzy words, lexpy on the first 5

``BOGGLE_DAFSA_PURE=1`` measures the Python twins of the compiled walks instead.
"""

from __future__ import annotations

import argparse
import lzma
import random
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boggle_dafsa import open_dictionary, query
from boggle_dafsa.query import walk

DATA = Path(__file__).resolve().parent.parent / "src" / "boggle_dafsa" / "data"


def words_of(name: str) -> list[str]:
    with lzma.open(DATA / f"{name}.txt.xz", "rt", encoding="utf-8") as stream:
        return stream.read().split()


def timed(run: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Best of ``repeat`` wall times (seconds) of ``run()``, and its last result."""
    ((best, result),) = timed_side_by_side([run], repeat, 1)
    return best, result


def timed_side_by_side(runs: list[Callable[[], Any]], repeat: int, rounds: int = 2) -> list[tuple[float, Any]]:
    """For each of ``runs``: its best wall time and its last result. Each run is timed
    ``repeat`` times in a row (warm, as a user's repeated queries are: interleaving single
    runs would time ours on caches just emptied by a scan of the whole list), and the runs
    take turns ``rounds`` times, so that a burst of load from other jobs falls on all alike."""
    best = [float("inf")] * len(runs)
    results: list[Any] = [None] * len(runs)
    for _ in range(rounds):
        for i, run in enumerate(runs):
            for _ in range(repeat):
                started = time.perf_counter()
                results[i] = run()
                best[i] = min(best[i], time.perf_counter() - started)
    return list(zip(best, results))


def fuzzy_rows(count: int, lexpy_count: int) -> list[str]:
    from lexpy import DAWG
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    words = words_of("fr")
    d = open_dictionary("fr")
    targets = random.Random(12).sample(words, count)
    started = time.perf_counter()
    lexicon = DAWG()
    lexicon.add_all(words)
    lexicon.reduce()
    lexpy_build = time.perf_counter() - started
    rows = []
    for k in (1, 2):
        ours, theirs, lexpy_times = [], [], []
        for i, target in enumerate(targets):
            (t_ours, mine), (t_theirs, other) = timed_side_by_side(
                [
                    lambda: query.fuzzy(d, target, k),
                    lambda: process.extract(target, words, scorer=Levenshtein.distance, score_cutoff=k, limit=None),
                ],
                3,
            )
            assert sorted((int(score), word) for word, score, _ in other) == mine, target
            ours.append(t_ours)
            theirs.append(t_theirs)
            if i < lexpy_count:
                t_lexpy, found = timed(lambda: lexicon.search_within_distance(target, dist=k), 3)
                assert sorted(found) == sorted(word for _, word in mine), target
                lexpy_times.append(t_lexpy)
        m_ours, m_theirs, m_lexpy = (statistics.median(x) * 1000 for x in (ours, theirs, lexpy_times))
        rows.append(
            f"| fuzzy -k {k} ({count} French words) | {m_ours:.2f} | rapidfuzz `process.extract` | {m_theirs:.2f} | **{m_theirs / m_ours:.1f}×** |"
        )
        which = "the same words" if lexpy_count >= count else f"first {lexpy_count} of them"
        rows.append(
            f"| fuzzy -k {k} ({which}) | {statistics.median(ours[:lexpy_count]) * 1000:.2f} | lexpy `search_within_distance` | {m_lexpy:.1f} | **{m_lexpy / statistics.median(ours[:lexpy_count]) / 1000:.0f}×** |"
        )
    rows.append(f"| (lexpy DAWG build of the French list: {lexpy_build:.0f} s, not counted) | | | | |")
    return rows


def match_rows() -> list[str]:
    rows = []
    for name, patterns in (
        ("fr", ["C?A*S", "ANTI*", "*S", "*ISME", "*@#@#@#"]),
        ("enable2k", ["C?A*S", "QU*", "*S", "*ING", "*@#@#@#"]),
    ):
        words = words_of(name)
        d = open_dictionary(name)
        for pattern in patterns:
            regex = re.compile(pattern.replace("?", ".").replace("*", ".*").replace("@", "[AEIOUY]").replace("#", "[^AEIOUY]"))
            (t_ours, mine), (t_re, other) = timed_side_by_side(
                [lambda: list(query.match(d, pattern)), lambda: [w for w in words if regex.fullmatch(w)]], 5
            )
            assert mine == other, pattern
            rows.append(
                f"| match `{pattern}` on {name} ({len(mine):,} words) | {t_ours * 1000:.1f} | `re` over every word | {t_re * 1000:.1f} | **{t_re / t_ours:.2f}×** |"
            )
    return rows


def anagram_rows(count: int) -> list[str]:
    words = words_of("enable2k")
    d = open_dictionary("enable2k")
    rng = random.Random(7)
    sevens = [w for w in words if len(w) == 7]
    racks = ["RETAINS??"] + ["".join(rng.sample(rng.choice(sevens), 7)) + "??" for _ in range(count - 1)]
    times = []
    found = 0
    for rack in racks:
        elapsed, hits = timed(lambda: query.anagram(d, rack, sub=True), 3)
        times.append(elapsed)
        found += len(hits)
    median, worst = statistics.median(times) * 1000, max(times) * 1000
    return [
        f"| anagram --sub, 7 letters + 2 blanks on enable2k ({count} racks, {found / count:,.0f} words each) | {median:.1f} (worst {worst:.1f}) | bar | 50 | **{50 / median:.2f}×** |"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer fuzzy words")
    args = parser.parse_args()
    print(f"query walk kernel: {walk.select_kernel()} (BOGGLE_DAFSA_PURE=1: the Python twins)")
    print("| query | boggle-dafsa ms | against | its ms | speed-up |")
    print("|---|--:|---|--:|--:|")
    for row in match_rows() + anagram_rows(20) + fuzzy_rows(50 if args.quick else 200, 5 if args.quick else 200):
        print(row, flush=True)


if __name__ == "__main__":
    main()
