#!/usr/bin/env python3
"""What the word-number section costs (issue 33): bytes and build time, and what index and word take.

For each embedded list and both format versions it writes the file with and without the
section (``compile_words(words, version=V, index=...)``: the writer, its read-back
included) and prints the file's bytes, the section's bytes and share, bytes a word, the
CPU seconds of the two writes (median of ``--repeat``), and the CPU time of ``d.index(w)``
and ``d.word(i)`` per call over ``--sample`` words spread over the list, on the file with
the section and on the one without (counts made in memory on first use, not timed). The
load average is printed: the machine is shared.

    python scripts/bench_word_numbers.py [--lists fr en enable2k] [--repeat 3] [--sample 2000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.formats.native import compile_words


def cpu(call: object, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.process_time()
        result = call()  # type: ignore[operator]
        times.append(time.process_time() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", nargs="+", default=["fr", "en", "enable2k"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=2000)
    options = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at the start")
    print(
        "| list | version | words | without | with | section | share | bytes/word with | write without (CPU s) | write with | index (µs) | word (µs) | index, no section | word, no section |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in options.lists:
        words = list(open_dictionary(name))
        step = max(1, len(words) // options.sample)
        sample = list(range(0, len(words), step))
        for version in (2, 1):
            plain_time, plain = cpu(lambda: compile_words(words, version=version, index=False), options.repeat)
            full_time, full = cpu(lambda: compile_words(words, version=version, index=True), options.repeat)
            assert isinstance(plain, bytes) and isinstance(full, bytes)
            walks = []
            for data in (full, plain):
                d = NativeDictionary.of_buffer(data, name)
                d.word_counts()  # the section checked (or made) once, not timed
                started = time.process_time()
                for number in sample:
                    assert d.index(words[number]) == number
                index_us = (time.process_time() - started) / len(sample) * 1e6
                started = time.process_time()
                for number in sample:
                    assert d.word(number) == words[number]
                word_us = (time.process_time() - started) / len(sample) * 1e6
                walks += [index_us, word_us]
            extra = len(full) - len(plain)
            print(
                f"| {name} | {version} | {len(words):,} | {len(plain):,} | {len(full):,} | {extra:,} | "
                f"{100 * extra / len(plain):.1f}% | {len(full) / len(words):.2f} | {plain_time:.3f} | {full_time:.3f} | "
                + " | ".join(f"{value:.1f}" for value in walks)
                + " |"
            )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
