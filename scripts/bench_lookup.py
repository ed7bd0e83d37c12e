#!/usr/bin/env python3
"""In-process lookups: ``word in d`` on the embedded lists, ours against marisa-trie, dawg2 and ducer.

For each list (``enable2k``, ``fr``, ``en`` by default) it opens the embedded dictionary
(format version 2, the default) and writes a version 1 file of the same words; builds a
marisa-trie ``Trie``, a dawg2 ``DAWG``, a ducer ``Set`` (BurntSushi's fst, from Python)
and a Python ``set`` of the same words (the stored, normalized ones); picks ``--keys``
words with a fixed seed (the hits) and as many misses (each a picked word with one letter
changed so that it is no word), each list made afresh in one go so that every side's keys
lie alike in memory; then runs ``for key in keys: key in d`` over all of them,
``--repeat`` times, every side taking turns (each round begun by another side, each side's
kinds of key in another order, each pass timed after an untimed one over the same keys, so
that what the other sides evicted from the caches is read back first), and
prints the median CPU time (``time.process_time``) per lookup in microseconds (the loop's
own cost included, the same for every side). ducer takes bytes only: its keys are encoded beforehand, untimed (its
most favourable case; a str would cost an ``encode`` more). Ours run on each kernel of
the lookups (compiled: the census part's ``Contains`` slot and ``Lookup``; Python: the
layouts' step, as ``BOGGLE_DAFSA_PURE=1``), the Python twin on a tenth of the keys.
"hit, lower case" asks our dictionaries the hits in lower case (folded on the way, as a
user types them). Every answer is checked first: each side finds every hit and no miss.
The load average is printed before and after.

    python scripts/bench_lookup.py                      # every list, 20,000 keys, 7 repeats
    python scripts/bench_lookup.py enable2k --keys 2000 --repeat 3

Needs marisa-trie, dawg2 and ducer (``pip install marisa-trie dawg2 ducer``; none is a
dependency).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Container, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from boggle_dafsa import compiled, open_dictionary
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.dictionaries.build import compile_words


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


@contextmanager
def kernel(name: str) -> Any:
    old = os.environ.get(compiled.PURE_VARIABLE)
    os.environ[compiled.PURE_VARIABLE] = "1" if name == compiled.PYTHON else "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ[compiled.PURE_VARIABLE]
        else:
            os.environ[compiled.PURE_VARIABLE] = old


def armed(path: str | Path, name: str) -> NativeDictionary:
    """``path`` opened, its lookups on kernel ``name`` (chosen at the first lookup)."""
    d = NativeDictionary(path)
    with kernel(name):
        d.step(d.root, "")
    return d


def misses_of(hits: Sequence[str], stored: set[str], alphabet: str, rng: random.Random) -> list[str]:
    """Each hit with one letter changed so that it is no word (or, when every such change
    is a word, as for one-letter words, with letters added)."""
    out = []
    for word in hits:
        for _ in range(100):
            at = rng.randrange(len(word))
            miss = word[:at] + rng.choice(alphabet) + word[at + 1 :]
            if miss not in stored:
                break
        while miss in stored:
            miss += rng.choice(alphabet)
        out.append(miss)
    return out


def fresh(keys: Sequence[str]) -> list[str]:
    """``keys`` as new strings made one after the other (as a program reads its keys), so
    that every side reads keys laid out alike in memory (not the listing's strings,
    scattered through it, nor copies made between temporaries)."""
    return "\n".join(keys).split("\n")


def fresh_bytes(keys: Sequence[str]) -> list[bytes]:
    """``keys`` encoded in UTF-8, made one after the other as :func:`fresh` makes strings (for ducer)."""
    return "\n".join(keys).encode("utf-8").split(b"\n")


def per_lookup(container: Container[Any], keys: Sequence[Any]) -> float:
    """CPU seconds per lookup of one pass of ``key in container`` over ``keys``."""
    started = time.process_time()
    for key in keys:
        key in container  # noqa: B015 - the lookup is what is timed
    return (time.process_time() - started) / len(keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lists", nargs="*", default=["enable2k", "fr", "en"])
    parser.add_argument("--keys", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=33)
    args = parser.parse_args()
    import dawg
    import ducer
    import marisa_trie

    print(f"load average at start: {load()}")
    print(f"kernels of the lookups: {', '.join(compiled.available('census'))}")
    rows = []
    scratch = tempfile.TemporaryDirectory(prefix="bench-lookup-")
    for name in args.lists:
        v2 = open_dictionary(name)
        assert isinstance(v2, NativeDictionary) and v2.version == 2, v2
        words = list(v2)
        stored = set(words)
        rng = random.Random(args.seed)
        hits = fresh(rng.sample(words, min(args.keys, len(words))))
        misses = fresh(misses_of(hits, stored, v2.alphabet, rng))
        v1_path = Path(scratch.name) / f"{name}-v1.dafsa"
        v1_path.write_bytes(compile_words(words, v2.policy, version=1))
        sides: dict[str, tuple[Container[Any], int]] = {}
        for version, path in ((2, v2.path), (1, str(v1_path))):
            for kind in compiled.available("census"):
                d = armed(path, kind)
                share = len(hits) if kind == compiled.C else max(1, len(hits) // 10)
                sides[f"ours v{version}, {kind}"] = (d, share)
        sides["marisa-trie"] = (marisa_trie.Trie(words), len(hits))
        sides["dawg2"] = (dawg.DAWG(words), len(hits))
        encoded = [word.encode("utf-8") for word in words]
        sides["ducer"] = (ducer.Set(ducer.Set.build(":memory:", encoded)), len(hits))
        sides["python set"] = (set(words), len(hits))
        as_bytes = {"hit": fresh_bytes(hits), "miss": fresh_bytes(misses)}

        def keys_of(label: str, keys: Sequence[str], what: str) -> Sequence[Any]:
            return as_bytes[what][: len(keys)] if label == "ducer" else keys

        # Every side finds every hit and no miss.
        for label, (container, share) in sides.items():
            assert all(key in container for key in keys_of(label, hits[:share], "hit")), label
            assert not any(key in container for key in keys_of(label, misses[:share], "miss")), label
        lower = fresh([key.lower() for key in hits])
        timings: dict[tuple[str, str], list[float]] = {}
        labels = list(sides)
        for round_ in range(args.repeat):
            # Each round starts with another side, and each side with another kind of key:
            # no side and no kind is always the one after the same others.
            for label in labels[round_ % len(labels) :] + labels[: round_ % len(labels)]:
                container, share = sides[label]
                asked = [("hit", keys_of(label, hits[:share], "hit")), ("miss", keys_of(label, misses[:share], "miss"))]
                if label.startswith("ours"):
                    asked.append(("hit, lower case", lower[:share]))
                asked = asked[round_ % len(asked) :] + asked[: round_ % len(asked)]
                for what, keys in asked:
                    per_lookup(container, keys)  # warm: what the other sides evicted is read back untimed
                    timings.setdefault((label, what), []).append(per_lookup(container, keys))
        for label, (_, share) in sides.items():
            hit = statistics.median(timings[(label, "hit")]) * 1e6
            miss = statistics.median(timings[(label, "miss")]) * 1e6
            folded = timings.get((label, "hit, lower case"))
            lowered = f"{statistics.median(folded) * 1e6:.2f}" if folded else ""
            rows.append((name, len(words), label, share, hit, miss, lowered))
        print(f"{name}: done, load average {load()}", flush=True)
    print()
    print("| list | words | lookup | keys | hit µs | miss µs | hit, lower case µs |")
    print("|---|--:|---|--:|--:|--:|--:|")
    for name, count, label, share, hit, miss, lowered in rows:
        print(f"| {name} | {count:,} | {label} | {share:,} | {hit:.2f} | {miss:.2f} | {lowered} |")
    print(f"\nload average at end: {load()}")
    scratch.cleanup()


if __name__ == "__main__":
    main()
