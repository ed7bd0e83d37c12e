#!/usr/bin/env python3
"""Fuzz the compiled value reader (``ValueReader`` of ``automaton/_census.c``) with damaged maps.

Each round writes a small map (random words over an alphabet of 5 to 83 letters, int
values of a random width, format version 1 or 2), damages it one way, and makes the
compiled ``Lookup`` and ``ValueReader`` straight over its parts, with none of the checks
the library makes first (no census, no CRC, no recount of the word-number section): the
constructor and every call must end in a value or ``KeyError``, ``ValueError`` or
``IndexError``, never a crash or a read outside the buffers it is given. The damage: bytes
of the value section changed (its fields included), counts of the word-number section
changed, bytes of the body changed, or none. Every walk is tried both ways (the records,
and the cache with the body: ``records=False``); where a walk and the Python twin
(``numbering.index_of`` and ``values.ValueTable``) both answer, they answer alike.

    python scripts/fuzz_values.py                 # 1,000 damaged maps
    python scripts/fuzz_values.py --asan          # the same run on an AddressSanitizer build

``--asan`` compiles the census part with ``-fsanitize=address,undefined`` into a temporary
folder and runs the fuzz in a child interpreter with the sanitizers' runtimes preloaded
(``scripts/fuzz_kernel.py``): any out-of-bounds read aborts with a report. Exit status 0
if every round passed.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_kernel import CENSUS_SOURCE, load_census, run_under_asan  # noqa: E402

ALPHABET = "".join(chr(0x3B1 + i) for i in range(25)) + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "".join(chr(0x430 + i) for i in range(32))


def a_map(rng: random.Random) -> tuple[bytes, list[str], list[int]]:
    from boggle_dafsa.automaton.stream import NativeWriter
    from boggle_dafsa.words.normalize import Policy

    letters = ALPHABET[: rng.choice([5, 12, 31, 40, 64, 83])]
    words = sorted(
        {"".join(rng.choice(letters) for _ in range(rng.randint(1, 8))) for _ in range(rng.randint(1, 300))},
        key=lambda word: word.encode("utf-8"),
    )
    width = rng.choice([0, 1, 5, 20, 40, 63])
    ints = [rng.randrange(1 << width) - (1 << max(width - 1, 0)) if width else 7 for _ in words]
    import os

    from boggle_dafsa import compiled

    # Written and read back by the Python twins: the dictionary a writer reads back never
    # arms a compiled lookup (under --asan the census part is another build than the one
    # the reader's compiled base was taken from), and the fuzz makes its own below.
    os.environ[compiled.PURE_VARIABLE] = "1"
    try:
        writer = NativeWriter(values="int")
        writer.add_items(zip(words, ints))
        stream = io.BytesIO()
        writer.write_to(stream, Policy.RAW, None, rng.choice([1, 2]), True)
    finally:
        del os.environ[compiled.PURE_VARIABLE]
    return stream.getvalue(), words, ints


def damaged(rng: random.Random, data: bytes) -> tuple[str, bytearray]:
    from boggle_dafsa.automaton.fileformat import decode_header

    header = decode_header(data, "x", len(data))
    out = bytearray(data)
    how = rng.choice(["values", "counts", "body", "none"])
    if how == "values":
        start, end = header.values_at, header.values_at + header.values_bytes
    elif how == "counts":
        start, end = header.header_size + header.body_size + 24, header.values_at
    elif how == "body":
        start, end = header.header_size, header.header_size + header.body_size
    else:
        return how, out
    for _ in range(rng.randint(1, 4)):
        if end > start:
            out[rng.randrange(start, end)] = rng.randrange(256)
    return how, out


def fuzz(rounds: int, seed: int) -> int:
    from boggle_dafsa import compiled
    from boggle_dafsa.automaton.compact import CompactLayout
    from boggle_dafsa.automaton.fileformat import WordCounts, decode_header, layout_of
    from boggle_dafsa.automaton.lookup import POLICY_CODES, pieces
    from boggle_dafsa.automaton.numbering import index_of
    from boggle_dafsa.automaton.values import ValueTable
    from boggle_dafsa.errors import DictionaryError

    census = compiled.built("census")
    if census is None or not hasattr(census, "ValueReader"):
        print("the census part is not built", file=sys.stderr)
        return 1
    rng = random.Random(seed)
    outcomes: dict[str, int] = {}
    for round_ in range(rounds):
        data, words, ints = a_map(rng)
        how, bad = damaged(rng, data)
        try:
            header = decode_header(bytes(bad), "x", len(bad))
        except DictionaryError:
            outcomes["header refused"] = outcomes.get("header refused", 0) + 1
            continue
        h = header
        body = bytes(bad[h.header_size : h.header_size + h.body_size])
        counts = bytes(bad[h.header_size + h.body_size : h.values_at])
        section = bytes(bad[h.values_at : h.values_at + h.values_bytes])
        if h.version >= 2:
            states: Any = CompactLayout(body, h.root, h.alphabet, h.longest_word, "x")
            lookup_body, width = body, 0
        else:
            states = layout_of(h, memoryview(body).cast("I"), "x")
            lookup_body, width = states.cells, states.header_cells
        if h.version == 1 and width != 1:
            outcomes["wide version 1 (the twin's)"] = outcomes.get("wide version 1 (the twin's)", 0) + 1
            continue
        lookup = census.Lookup(
            lookup_body, h.version, states.root, h.alphabet, width, h.longest_word, POLICY_CODES[h.policy], pieces(h.policy)
        )
        try:
            table: Any = ValueTable(section, h.word_count, check=False)
            word_counts: Any = WordCounts(counts, states.units, h.word_count, h.state_count)
        except ValueError:
            table = word_counts = None
        probes = words[:40] + ["".join(rng.choice(h.alphabet or "A") for _ in range(rng.randint(1, 9))) for _ in range(20)]
        for records in (True, False):
            try:
                reader = census.ValueReader(lookup, counts, section, h.word_count, records=records)
            except (ValueError, IndexError):
                outcomes[f"{how}: refused"] = outcomes.get(f"{how}: refused", 0) + 1
                continue
            answered = 0
            for word in probes:
                try:
                    got = reader.get(word)
                except KeyError:
                    got = KeyError
                except (ValueError, IndexError):
                    continue
                answered += 1
                if table is None or word_counts is None:
                    continue
                try:
                    number = index_of(states, word_counts, h.word_count, word)
                    twin = KeyError if number is None else table.at(number)
                except (ValueError, IndexError):
                    continue
                if got != twin:
                    print(f"round {round_} ({how}, records={records}): {word!r}: C {got!r}, twin {twin!r}", file=sys.stderr)
                    return 1
            for start, stop in ((0, h.word_count), (-5, 3), (h.word_count - 2, h.word_count + 9)):
                try:
                    reader.range(start, stop)
                    if h.word_count:
                        reader.at(rng.randrange(h.word_count))
                except (ValueError, IndexError):
                    pass
            reader.release()
            what = f"{how}: answered" if answered else f"{how}: every call refused"
            outcomes[what] = outcomes.get(what, 0) + 1
        lookup.release()
        if (round_ + 1) % 100 == 0:
            print(f"{round_ + 1} rounds: {dict(sorted(outcomes.items()))}", flush=True)
    print(f"every round ended in a value or an error: {dict(sorted(outcomes.items()))}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--asan", action="store_true", help="run on an AddressSanitizer build of the census part")
    parser.add_argument("--module", help=argparse.SUPPRESS)  # set by --asan
    args = parser.parse_args()
    if not args.asan:
        if args.module:  # the sanitized build, made by --asan
            import os

            from fuzz_kernel import CENSUS_VARIABLE

            os.environ[CENSUS_VARIABLE] = args.module
        load_census()
        return fuzz(args.rounds, args.seed)
    return run_under_asan(__file__, CENSUS_SOURCE, ["--rounds", str(args.rounds), "--seed", str(args.seed)], census=False)


if __name__ == "__main__":
    sys.exit(main())
