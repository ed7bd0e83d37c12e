#!/usr/bin/env python3
"""Write a synthetic word list of N distinct words, shaped like an inflected language.

Used by ``scripts/bench_build.py --sizes`` to measure builds past the embedded lists.
Words are a stem (syllables over A–T) followed by nothing or by one suffix of the stem's
paradigm; suffixes start with a letter from U–Z, which stems never hold, so every word
parses one way and the N words are distinct without a set of them in memory. Each stem
takes one of 48 paradigms of 4–40 suffixes, as inflected forms do, so the minimal
automaton shares endings the way real lists let it.

The list is unsorted (stems in random order, each stem's forms shuffled), one word a
line, ASCII. Deterministic: same N and seed, same bytes. Memory: the set of stems only.

    python scripts/make_synthetic.py 1000000 /tmp/synthetic-1M.txt [--seed 1] [--sorted]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

ONSETS = ["B", "C", "D", "F", "G", "L", "M", "N", "P", "R", "S", "T", "BR", "CL", "GR", "PR", "ST", "TR", "CH"]
VOWELS = ["A", "E", "I", "O", "AI", "EA", "IO"]
CODAS = ["", "", "", "N", "R", "S", "L", "T"]
SUFFIX_HEADS = "UVWXYZ"
SUFFIX_TAILS = "AEIOSTRN"


def paradigms(rng: random.Random, count: int = 48) -> list[list[str]]:
    """``count`` sets of suffixes; each starts with U–Z, and the empty suffix is always in."""
    pool = sorted(
        {head + "".join(rng.choice(SUFFIX_TAILS) for _ in range(rng.randint(0, 4))) for head in SUFFIX_HEADS for _ in range(40)}
    )
    return [[""] + rng.sample(pool, rng.randint(3, 39)) for _ in range(count)]


def stems(rng: random.Random):
    """Distinct stems of 2–4 syllables, forever (a set remembers the ones given)."""
    seen: set[str] = set()
    while True:
        stem = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(rng.randint(2, 4)))
        if stem not in seen:
            seen.add(stem)
            yield stem


def words(count: int, seed: int):
    """``count`` distinct words, in the generator's (unsorted) order."""
    rng = random.Random(seed)
    table = paradigms(rng)
    made = 0
    for stem in stems(rng):
        forms = [stem + suffix for suffix in rng.choice(table)]
        rng.shuffle(forms)
        for form in forms[: count - made]:
            yield form
        made += min(len(forms), count - made)
        if made >= count:
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int, help="number of distinct words")
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sorted", action="store_true", help="write the words sorted (needs them all in memory)")
    args = parser.parse_args()
    generated = words(args.count, args.seed)
    with open(args.output, "w", encoding="ascii", newline="\n") as out:
        batch: list[str] = []
        for word in sorted(generated) if args.sorted else generated:
            batch.append(word)
            if len(batch) == 65536:
                out.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            out.write("\n".join(batch) + "\n")


if __name__ == "__main__":
    main()
