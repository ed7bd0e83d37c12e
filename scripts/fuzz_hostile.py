"""Fuzz the readers of untrusted input with hypothesis: the grid parser, the word-list
reader, opening arbitrary (or mutated) bytes as a dictionary then walking it, and set
algebra (union, intersect, diff) over such dictionaries into an output that exists, is
sometimes a symbolic link, and must never be damaged or written through.

The only exceptions allowed are the library's one-line errors (``BoggleError``); anything
else (IndexError, RecursionError, UnicodeError, a hang caught by hypothesis' deadline...)
is a failure, which hypothesis shrinks and prints.

    python scripts/fuzz_hostile.py                      # a short run (CI runs it as a test)
    python scripts/fuzz_hostile.py --examples 20000     # the long run (figures in docs/reliability.md)
    python scripts/fuzz_hostile.py --only setops        # some targets only

Each target runs ``--examples`` inputs; the script prints, per target, the inputs run,
the time, and the share of inputs refused with a one-line error.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from itertools import islice
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.grid import Grid, parse_shape
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.formats import open_path, write_dictionary
from boggle_dafsa.query.setops import write_set
from boggle_dafsa.solver import find, solve
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.wordlist import decode, parse_words, read_wordlist, stream_wordlist

GRID_ALPHABET = "AbcQué/ / x\n\t\u0301ß*×0-.'" + "/" * 5
#: The words of the dictionaries that are mutated (sorted, normalized).
SEEDS = ["ARBRE", "CHAT", "CHIEN", "ELEVE", "NICHE", "NICHER", "ZOO"]
outcomes: dict[str, Counter[str]] = {}


def tally(target: str, outcome: str) -> None:
    outcomes.setdefault(target, Counter())[outcome] += 1


def fuzz_grid(text: str, shape: str) -> None:
    try:
        grid = Grid.parse(text)
        assert Grid.parse(str(grid)).faces == grid.faces or any(len(face) > 1 for face in grid.faces)
        find(grid, "AB")
        tally("grid", "parsed")
    except BoggleError:
        tally("grid", "refused")
    try:
        parse_shape(shape)
    except BoggleError:
        pass


def fuzz_wordlist(data: bytes, folder: Path) -> None:
    try:
        text, encoding = decode(data, "fuzz")
        parse_words(text, source="fuzz", encoding=encoding)
        tally("wordlist", "read")
    except BoggleError:
        tally("wordlist", "refused")
    path = folder / "list.txt"
    path.write_bytes(data)
    try:
        stream = stream_wordlist(path)
        for _ in stream.blocks():
            pass
    except BoggleError:
        pass
    # The raw policy: the whole-list reader (verify, marisa, dawg) and the streamed one
    # (build, here in blocks of 7 bytes) keep the same keys, or both refuse the list.
    kept: list[list[str] | None] = []
    for read in (lambda: read_wordlist(path, Policy.RAW).words, lambda: _raw_streamed(path)):
        try:
            kept.append(read())
        except BoggleError:
            kept.append(None)
    if kept[0] != kept[1] and not (kept[0] is None and kept[1] == []):  # an empty list: refused by the whole one only
        raise AssertionError(f"raw readers disagree: whole {kept[0]!r}, streamed {kept[1]!r}")
    tally("wordlist raw", "read" if kept[0] is not None else "refused")


def _raw_streamed(path: Path) -> list[str]:
    stream = stream_wordlist(path, Policy.RAW)
    stream.block_bytes = 7
    return sorted(set(b"".join(stream.blocks()).decode("utf-8").split("\n")) - {""})


def _mutated(data: bytes, rng: random.Random, changes: int) -> bytes:
    out = bytearray(data)
    for _ in range(changes):
        action = rng.randrange(4)
        position = rng.randrange(len(out)) if out else 0
        if action == 0 and out:
            out[position] = rng.randrange(256)
        elif action == 1 and out:
            out[position : position + 4] = rng.randrange(1 << 32).to_bytes(4, "little")
        elif action == 2:
            del out[position : position + rng.randrange(1, 16)]
        else:
            out[position:position] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
    return bytes(out)


def fuzz_dictionary(format: str, seed: int, changes: int, raw: bytes, folder: Path, originals: dict[str, bytes]) -> None:
    rng = random.Random(seed)
    data = raw if format == "raw" else _mutated(originals[format], rng, changes)
    path = folder / f"fuzz.{format}"
    path.write_bytes(data)
    sidecar = folder / f"fuzz.{format}.meta.json"
    if sidecar.exists():
        sidecar.unlink()  # a file without sidecar: nothing vouches for it
    try:
        dictionary = open_path(path)
        list(islice(dictionary.complete(""), 5000))
        list(islice(dictionary.complete("CH"), 100))
        _ = "CHAT" in dictionary, dictionary.has_prefix("NI"), len(dictionary)
        solve(Grid.parse("CHAT/NIEZ/OOER/LEVE"), dictionary)
        tally(f"dictionary {format}", "opened")
    except BoggleError:
        tally(f"dictionary {format}", "refused")


def fuzz_setops(
    operation: str, formats: list[str], seed: int, changes: int, through_link: bool, folder: Path, originals: dict[str, bytes]
) -> None:
    rng = random.Random(seed)
    inputs = []
    for number, format in enumerate(formats):
        path = folder / f"set{number}.{format}"
        path.write_bytes(_mutated(originals[format], rng, changes) if rng.random() < 0.7 else originals[format])
        inputs.append(path)
    output, victim = folder / "set-output.dafsa", folder / "victim.txt"
    for path in (output, victim):
        if path.is_symlink():
            path.unlink()
    victim.write_bytes(b"precious\n")
    if through_link:
        output.unlink(missing_ok=True)
        output.symlink_to(victim)
    else:
        output.write_bytes(originals["native"])
    before = output.read_bytes()
    try:
        opened = [open_path(path) for path in inputs]
        words = [set(dictionary) for dictionary in opened]
        write_set(opened, operation, output)
    except BoggleError as error:
        assert "\n" not in str(error), str(error)
        assert output.read_bytes() == before and output.is_symlink() == through_link, "output damaged by a refusal"
        tally("setops", "refused")
    else:
        expected = (
            set.union(*words)
            if operation == "union"
            else set.intersection(*words)
            if operation == "intersect"
            else words[0].difference(*words[1:])
        )
        assert not output.is_symlink(), "wrote through a link"
        assert set(open_path(output)) == expected, "wrong words"
        tally("setops", "written")
    assert victim.read_bytes() == b"precious\n", "wrote through a link"
    assert not [entry for entry in os.listdir(folder) if entry.endswith(".tmp")], "temporary file left"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300, help="inputs per target")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="+", metavar="TARGET", help="run these targets only (grid, wordlist, dictionary, setops)")
    arguments = parser.parse_args()
    config = settings(
        max_examples=arguments.examples, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    os.environ.setdefault("BOGGLE_DAFSA_CACHE", str(folder / "cache"))
    originals = {}
    for format in ("native", "dawg", "marisa"):
        write_dictionary(SEEDS, folder / f"seed.{format}", format)
        originals[format] = (folder / f"seed.{format}").read_bytes()

    targets = {
        "grid": given(st.text(alphabet=GRID_ALPHABET, max_size=200), st.text(max_size=20))(fuzz_grid),
        "wordlist": given(st.binary(max_size=400) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "replace")))(
            lambda data: fuzz_wordlist(data, folder)
        ),
        "dictionary": given(
            # marisa is probed in a child process per new file: fewer of them.
            st.sampled_from(["native"] * 4 + ["dawg"] * 4 + ["marisa", "raw"]),
            st.integers(0, 1 << 30),
            st.integers(1, 6),
            st.binary(max_size=300),
        )(lambda format, seed, changes, raw: fuzz_dictionary(format, seed, changes, raw, folder, originals)),
        "setops": given(
            st.sampled_from(["union", "intersect", "diff"]),
            st.lists(st.sampled_from(["native", "native", "dawg"]), min_size=1, max_size=3),
            st.integers(0, 1 << 30),
            st.integers(1, 4),
            st.booleans(),
        )(
            lambda operation, formats, seed, changes, link: fuzz_setops(
                operation, formats, seed, changes, link, folder, originals
            )
        ),
    }
    print(f"{arguments.examples} inputs per target (hypothesis, derandomized); python {sys.version.split()[0]}")
    unknown = set(arguments.only or ()) - set(targets)
    if unknown:
        parser.error(f"unknown target {', '.join(sorted(unknown))} (known: {', '.join(targets)})")
    for name, target in targets.items():
        if arguments.only and name not in arguments.only:
            continue
        started = time.perf_counter()
        config(target)()
        elapsed = time.perf_counter() - started
        print(
            f"{name:<11} {elapsed:7.1f} s   "
            + ", ".join(
                f"{label.removeprefix(name).strip()} {key} {count:,}".strip()
                for label, counter in sorted(outcomes.items())
                if label.startswith(name)
                for key, count in sorted(counter.items())
            )
        )
    print("no failure: every input was read or refused with a one-line error")


if __name__ == "__main__":
    main()
