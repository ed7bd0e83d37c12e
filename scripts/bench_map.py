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

With ``--values``, maps instead (issue 33), on the list named (ENABLE2K by default):

- a map of word -> int (seeded random below 2^20, and a frequency-like one: a Zipf law,
  ``round(2^20 / rank)`` with the ranks shuffled over the words): the bytes of our file
  (version 2 with its word-number section, as ``build`` writes it; version 1 too), of
  ducer's ``Map``, marisa-trie's ``RecordTrie("<I")`` and dawg2's ``IntCompletionDAWG``;
  the bytes the ints take bit-packed (our section) and as varints with an offset sampled
  every 32 values (measured, not written: the other encoding the issue named); then
  ``d[word]`` in process over ``--sample`` words of the list (made afresh in one go, str
  and bytes alike, so that every side's keys lie alike in memory), every side taking turns
  ``--repeat`` times (each round begun by another side, each timed pass after an untimed
  one), a plain ``for key in keys: m[key]`` loop a side, the median CPU time per lookup in
  microseconds (the loop's cost included), and our time over ducer's in each round
  (the median of those ratios): ours on each kernel (the Python twin on a tenth of the
  words), ducer ``m[key]`` (keys encoded beforehand, untimed), marisa ``rt[key]``, dawg2
  ``d[key]``, a Python ``dict``;
- a map of word -> text (about 40 bytes: words of the list drawn at random and joined by
  spaces, and random hexadecimal, which nothing compresses): the bytes of our file,
  marisa ``BytesTrie`` and dawg2 ``BytesDAWG``, and ``d[word]`` as above;
- the CPU of ``boggle-dafsa build`` of the list with ``--values int`` against the same
  build of the words alone, as processes (``--builds`` runs each, the median), and in
  process (``build_dictionary``), with the ratio.

Every answer is checked before it is timed. Needs marisa-trie, dawg2 and ducer (``pip
install marisa-trie dawg2 ducer``; none is a dependency).

    python scripts/bench_map.py --values --repeat 15 --sample 4000

On a machine too loaded for CPU times to mean much, ``--one-side SIDE`` makes the int map
(ours and ducer's) and looks the sample up twice on one side only (``ours``: ``d[word]``,
``ducer``: ``m[key]``, ``in``: ``word in d``, ``none``: the same work without the
lookups), for valgrind to count what the lookups cost whatever the load: instructions,
first-level data cache misses and mispredicted branches, less ``none``'s, per lookup:

    valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes python scripts/bench_map.py --one-side ours --sample 4000
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import statistics
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from boggle_dafsa import compiled, open_dictionary, query
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
    parser.add_argument("--values", action="store_true", help="maps (word -> int, word -> text) instead of anagrams")
    parser.add_argument("--sample", type=int, default=4000, help="--values: words looked up a round")
    parser.add_argument("--builds", type=int, default=5, help="--values: builds of each kind timed")
    parser.add_argument(
        "--one-side",
        choices=("none", "ours", "ducer", "in"),
        help="--values: only make the int map and look the sample up twice on one side, for valgrind (see the docstring)",
    )
    args = parser.parse_args()
    if args.one_side:
        one_side(args.lists[0], args.one_side, args.sample, args.seed)
        return
    if args.values:
        bench_values(args.lists[0], args.repeat, args.sample, args.builds, args.seed)
        return
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
            kernel: racks if kernel == "c" else racks[: max(1, len(racks) // 10)] for kernel in compiled.available("query walk")
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


# -- maps: word -> value (--values) ---------------------------------------------------------


def _turns(sides: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]], repeat: int) -> dict[str, list[float]]:
    """CPU seconds per key of each side (``loop(keys)`` looks every key up), ``repeat``
    rounds, each begun by another side."""
    timings: dict[str, list[float]] = {label: [] for label in sides}
    labels = list(sides)
    for round_ in range(repeat):
        for label in labels[round_ % len(labels) :] + labels[: round_ % len(labels)]:
            loop, keys = sides[label]
            loop(keys)  # untimed: what the others evicted is read back first
            started = time.process_time()
            loop(keys)
            timings[label].append((time.process_time() - started) / len(keys))
    return timings


def _report_times(timings: dict[str, list[float]], against: str, ours: str) -> None:
    print("| side | µs a lookup (median) |")
    print("|---|--:|")
    for label, values in timings.items():
        print(f"| {label} | {statistics.median(values) * 1e6:.3f} |")
    ratios = [a / b for a, b in zip(timings[ours], timings[against])]
    print(
        f"{ours} ÷ {against}, round by round: median {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})"
    )


def _varint_bytes(ints: Sequence[int], every: int = 32) -> int:
    # Varints (LEB128) of the values less the smallest, and a u32 offset every `every` values.
    low = min(ints)
    return sum(max(1, ((v - low).bit_length() + 6) // 7) for v in ints) + 4 * ((len(ints) + every - 1) // every)


def _file_bytes(path: str) -> int:
    return os.path.getsize(path)


def bench_values(name: str, repeat: int, sample: int, builds: int, seed: int) -> None:
    import resource
    import subprocess
    import sys
    import tempfile

    import dawg
    import ducer
    import marisa_trie

    from boggle_dafsa.automaton.reader import NativeDictionary
    from boggle_dafsa.automaton.stream import NativeWriter
    from boggle_dafsa.automaton.values import VALUES_FIXED_SIZE, Layout

    print(f"load average before: {load()}")
    words = list(open_dictionary(name))
    rng = random.Random(seed)
    uniform = [rng.randrange(1 << 20) for _ in words]
    ranks = list(range(1, len(words) + 1))
    rng.shuffle(ranks)
    zipf = [round((1 << 20) / rank) for rank in ranks]
    # The keys made afresh in one go, as bench_lookup.py makes them: every side's keys lie
    # alike in memory (not the listing's strings, scattered through it, against bytes made
    # one after the other for ducer: each str key then cost a cache miss more).
    keys = "\n".join(rng.sample(words, min(sample, len(words)))).split("\n")
    encoded = "\n".join(keys).encode("utf-8").split(b"\n")
    folder = tempfile.mkdtemp(prefix="bench-map.")

    def ours(kind: str, items: list[tuple[str, Any]], file: str, version: int = 2) -> NativeDictionary:
        writer = NativeWriter(values=kind)
        writer.add_items(items)
        writer.write(os.path.join(folder, file), version=version)
        return NativeDictionary(os.path.join(folder, file))

    def section_of(d: NativeDictionary) -> Layout:
        h = d.header
        return Layout(d._map[h.values_at : h.values_at + VALUES_FIXED_SIZE], h.word_count)

    print(f"\n{name}: {len(words):,} words; {len(keys):,} looked up a round, {repeat} rounds")
    for label, ints in (("random below 2^20", uniform), ("Zipf, 2^20 / rank", zipf)):
        items = list(zip(words, ints))
        mine = ours("int", items, "ints.dafsa")
        v1 = ours("int", items, "ints-v1.dafsa", version=1)
        ducer.Map.build(os.path.join(folder, "ints.ducer"), ((w.encode(), v) for w, v in items))
        record = marisa_trie.RecordTrie("<I", ((w, (v,)) for w, v in items))
        record.save(os.path.join(folder, "ints.marisa"))
        intdawg = dawg.IntCompletionDAWG(items)
        intdawg.save(os.path.join(folder, "ints.dawg"))
        layout = section_of(mine)
        packed = layout.size - VALUES_FIXED_SIZE
        print(f"\nword -> int ({label}): bytes")
        print("| file | bytes | bytes a word |")
        print("|---|--:|--:|")
        for what, size in (
            ("ours, version 2 (word numbers and values)", mine.header.file_size),
            ("ours, version 1", v1.header.file_size),
            ("ducer Map", _file_bytes(os.path.join(folder, "ints.ducer"))),
            ('marisa-trie RecordTrie("<I")', _file_bytes(os.path.join(folder, "ints.marisa"))),
            ("dawg2 IntCompletionDAWG", _file_bytes(os.path.join(folder, "ints.dawg"))),
        ):
            print(f"| {what} | {size:,} | {size / len(words):.2f} |")
        print(
            f"the ints alone: bit-packed {packed:,} bytes ({layout.width} bits a value); varints with an offset "
            f"every 32 values {_varint_bytes(ints):,} bytes (measured, not written)"
        )
        if label.startswith("random"):
            m = ducer.Map(open(os.path.join(folder, "ints.ducer"), "rb").read())
            table = dict(items)
            for key, raw in zip(keys, encoded):
                assert mine[key] == m[raw] == record[key][0][0] == intdawg[key] == table[key] == v1[key]
            sides: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]] = {}
            for kernel in compiled.available("census"):
                with _kernel(kernel):
                    d = NativeDictionary(os.path.join(folder, "ints.dafsa"))
                    d[keys[0]]
                sides[f"ours d[word] ({kernel})"] = (_subscript(d), keys if kernel == "c" else keys[: max(1, len(keys) // 10)])
            sides["ducer m[key]"] = (_subscript(m), encoded)
            sides["marisa rt[key]"] = (_subscript(record), keys)
            sides["dawg2 d[key]"] = (_subscript(intdawg), keys)
            sides["dict"] = (_subscript(table), keys)
            print(f"\nword -> int: d[word] in process (load {load()})")
            _report_times(_turns(sides, repeat), "ducer m[key]", "ours d[word] (c)")

    for label, make in (
        ("words of the list, about 40 bytes", lambda: _phrase(rng, words)),
        ("random hexadecimal, 40 bytes", lambda: rng.randbytes(20).hex()),
    ):
        texts = [make() for _ in words]
        items = list(zip(words, texts))
        mine = ours("text", items, "texts.dafsa")
        marisa_trie.BytesTrie((w, t.encode()) for w, t in items).save(os.path.join(folder, "texts.marisa"))
        bytesdawg = dawg.BytesDAWG((w, t.encode()) for w, t in items)
        bytesdawg.save(os.path.join(folder, "texts.dawg"))
        raw = sum(len(t.encode()) for t in texts)
        print(f"\nword -> text ({label}; {raw / len(texts):.1f} bytes on average, {raw:,} in all): bytes")
        print("| file | bytes | bytes a word |")
        print("|---|--:|--:|")
        for what, size in (
            ("ours, version 2 (word numbers and values)", mine.header.file_size),
            ("marisa-trie BytesTrie", _file_bytes(os.path.join(folder, "texts.marisa"))),
            ("dawg2 BytesDAWG", _file_bytes(os.path.join(folder, "texts.dawg"))),
        ):
            print(f"| {what} | {size:,} | {size / len(words):.2f} |")
        if label.startswith("words"):
            bytestrie = marisa_trie.BytesTrie()
            bytestrie.load(os.path.join(folder, "texts.marisa"))
            table = dict(items)
            for key in keys:
                assert mine[key] == bytestrie[key][0].decode() == bytesdawg[key][0].decode() == table[key]
            sides = {"ours d[word] (c)": (_subscript(mine), keys)}
            sides["marisa bt[key]"] = (_subscript(bytestrie), keys)
            sides["dawg2 d[key]"] = (_subscript(bytesdawg), keys)
            sides["dict"] = (_subscript(table), keys)
            print(f"\nword -> text: d[word] in process (load {load()})")
            _report_times(_turns(sides, repeat), "marisa bt[key]", "ours d[word] (c)")

    # The build: the same words, with values and without, as processes and in process.
    listing = os.path.join(folder, "words.txt")
    pairs = os.path.join(folder, "pairs.txt")
    with open(listing, "w", encoding="utf-8") as out:
        out.writelines(word + "\n" for word in words)
    with open(pairs, "w", encoding="utf-8") as out:
        out.writelines(f"{word}\t{value}\n" for word, value in zip(words, uniform))
    command = [sys.executable, "-m", "boggle_dafsa", "build", "-q", "-o", os.path.join(folder, "built.dafsa")]

    def child_cpu(arguments: list[str]) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command + arguments, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def own_cpu(**options: Any) -> float:
        from boggle_dafsa.dictionaries.build import build_dictionary

        before = resource.getrusage(resource.RUSAGE_SELF)
        build_dictionary(options.pop("source"), os.path.join(folder, "built.dafsa"), **options)
        after = resource.getrusage(resource.RUSAGE_SELF)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    cpu: dict[str, list[float]] = {
        "process, words": [],
        "process, --values int": [],
        "in process, words": [],
        "in process, values": [],
    }
    for _ in range(builds):
        cpu["process, words"].append(child_cpu([listing]))
        cpu["process, --values int"].append(child_cpu(["--values", "int", pairs]))
        cpu["in process, words"].append(own_cpu(source=listing))
        cpu["in process, values"].append(own_cpu(source=pairs, values="int"))
    print(f"\nbuild of {name} (CPU seconds, median of {builds}; load {load()})")
    print("| build | words | with int values | ratio |")
    print("|---|--:|--:|--:|")
    for where, plain, valued in (
        ("a process (`boggle-dafsa build`)", "process, words", "process, --values int"),
        ("in process (`build_dictionary`)", "in process, words", "in process, values"),
    ):
        a, b = statistics.median(cpu[plain]), statistics.median(cpu[valued])
        print(f"| {where} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
    shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average after: {load()}")


def one_side(name: str, side: str, sample: int, seed: int) -> None:
    """Make the int map (ours and ducer's) and look ``sample`` random words up twice on ``side``."""
    import tempfile

    import ducer

    from boggle_dafsa.automaton.reader import NativeDictionary
    from boggle_dafsa.automaton.stream import NativeWriter

    words = list(open_dictionary(name))
    rng = random.Random(seed)
    items = [(word, rng.randrange(1 << 20)) for word in words]
    keys = rng.sample(words, min(sample, len(words)))
    encoded = [key.encode("utf-8") for key in keys]
    with tempfile.TemporaryDirectory() as folder:
        writer = NativeWriter(values="int")
        writer.add_items(items)
        writer.write(os.path.join(folder, "ints.dafsa"))
        d = NativeDictionary(os.path.join(folder, "ints.dafsa"))
        m = ducer.Map(ducer.Map.build(":memory:", ((w.encode(), v) for w, v in items)))
        d[keys[0]], keys[0] in d, m[encoded[0]]  # armed on every side alike
        for _ in range(2):
            if side == "ours":
                for key in keys:
                    d[key]
            elif side == "ducer":
                for raw in encoded:
                    m[raw]
            elif side == "in":
                for key in keys:
                    key in d  # noqa: B015
        d.close()


def _phrase(rng: random.Random, words: Sequence[str]) -> str:
    # Words of the list in lower case, joined by spaces, to about 40 bytes.
    parts: list[str] = []
    while sum(map(len, parts)) + len(parts) < 40:
        parts.append(rng.choice(words).lower())
    return " ".join(parts)


def _subscript(mapping: Any) -> Callable[[Any], Any]:
    # A loop of `mapping[key]` over the keys, through its slot, as a user writes it: no call
    # of ours between (the loop's own cost is in every side, alike).
    def loop(keys: Sequence[Any]) -> None:
        for key in keys:
            mapping[key]

    return loop


@contextmanager
def _kernel(name: str) -> Iterator[None]:
    saved = os.environ.get(compiled.PURE_VARIABLE)
    os.environ[compiled.PURE_VARIABLE] = "1" if name == compiled.PYTHON else "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[compiled.PURE_VARIABLE]
        else:
            os.environ[compiled.PURE_VARIABLE] = saved


if __name__ == "__main__":
    main()
