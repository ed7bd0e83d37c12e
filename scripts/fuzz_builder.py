"""Fuzz the compiled builder (``src/boggle_dafsa/automaton/_builder.c``) against its Python twins.

Each round draws a random word list (ASCII, accented and astral letters, repeats) and runs
every compiled entry point next to its twin: the streaming builder and file writer (format
versions 1 and 2), the projection of a version 2 body onto a few letters (also on a damaged
body), the listing a writer reads its file back with (also on damaged cells), the run sort, the run merge, and dawgdic's three stages. Both must give the same
bytes. Then hostile inputs: bytes that are not UTF-8, words out of order, blank lines,
random bytes, run files with garbage, dawg lists that do not fit together, and a small cap
on states (both kernels must stop at the same state, with the same error). Every outcome
must be a result or a ValueError, never a crash, and both kernels must agree on which.

    python scripts/fuzz_builder.py                 # 1,000 rounds
    python scripts/fuzz_builder.py --rounds 100    # a short run
    python scripts/fuzz_builder.py --asan          # the same run on an AddressSanitizer build

``--asan`` compiles ``_builder.c`` with ``-fsanitize=address,undefined`` into a temporary
folder and runs the fuzz in a child interpreter with the sanitizers' runtimes preloaded
(``fuzz_kernel.run_under_asan``).
Exit status 0 if every round passed.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import random
import sys
import tempfile
from array import array
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fuzz_kernel import run_under_asan  # noqa: E402

from boggle_dafsa.automaton import compact as codec  # noqa: E402
from boggle_dafsa.automaton import fileformat, stream  # noqa: E402
from boggle_dafsa.formats import dawgdic  # noqa: E402

LETTERS = "ABCDEZaéÉßœ𝔸"


def load_compiled(path: str | None) -> ModuleType:
    """The compiled module: the installed one, or the build at ``path``."""
    if path is None:
        from boggle_dafsa.automaton import _builder  # type: ignore[attr-defined]

        return _builder
    spec = importlib.util.spec_from_file_location("boggle_dafsa.automaton._builder", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(call: Any) -> tuple[str, Any]:
    """("ok", result) or ("error", None) for a ValueError; anything else propagates."""
    try:
        return "ok", call()
    except ValueError as error:
        # The state cap's error carries (cap, words added): the kernels must agree on those.
        return "error", error.args if error.args[:1] == ("too many states",) else None


def body(kernel_builder: Any, data: bytes, max_states: int = stream.limits.MAX_STATES) -> tuple[str, Any]:
    def run() -> tuple[bytes, Any]:
        builder = kernel_builder(max_states=max_states)
        builder.add_lines(data)
        builder.finish()
        out = io.BytesIO()
        answer = builder.write_body(out)
        # Version 2: the compiled builder lays it out from its states, the twin from the cells.
        alphabet_size = len(builder.stats()["alphabet"])
        direct = getattr(builder, "compact_body", None)
        compact = direct() if direct else stream.python_compact_body(out.getvalue(), answer[2], alphabet_size)
        return out.getvalue(), answer, builder.stats(), compact

    return outcome(run)


def fuzz(rounds: int, seed: int, module_path: str | None) -> int:
    c = load_compiled(module_path)
    python = stream.PYTHON_KERNEL
    rng = random.Random(seed)
    for number in range(rounds):
        words = sorted({"".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(0, 400))})
        data = "".join(word + "\n" for word in words).encode("utf-8")
        # The builder and writer, on good and hostile blocks.
        cases = [
            data,
            data + data[: len(data) // 3],
            b"\n\n" + data,
            bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))),
        ]
        lines = data.split(b"\n")
        if len(lines) > 3:
            i = rng.randrange(len(lines) - 1)
            cases.append(b"\n".join(lines[:i] + [lines[i] + b"\xff"] + lines[i + 1 :]))
            cases.append(b"\n".join(reversed(lines)))
        for case in cases:
            compiled, twin = body(c.Builder, case), body(python.Builder, case)
            if compiled != twin:
                print(f"round {number}: builder differs on {case[:60]!r}: {compiled[0]} vs {twin[0]}")
                return 1
        # The state cap: both stop at the same state, after the same words.
        cap = rng.randint(1, 300)
        if body(c.Builder, data, cap) != body(python.Builder, data, cap):
            print(f"round {number}: the kernels differ under a cap of {cap} states")
            return 1
        # One run of the sort, and a merge of several.
        shuffled = lines[:]
        rng.shuffle(shuffled)
        blob = b"\n".join(shuffled + [bytes(rng.randrange(1, 256) for _ in range(rng.randint(0, 9)))])
        if c.sort_lines(blob) != python.sort_lines(blob):
            print(f"round {number}: sort_lines differs")
            return 1
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for k in range(rng.randint(1, 5)):
                chosen = sorted({rng.choice(lines) for _ in range(rng.randint(0, 30))} - {b""})
                path = os.path.join(folder, f"run{k}")
                with open(path, "wb") as out:
                    out.write(b"".join(line + b"\n" for line in chosen) + (b"\n" if rng.random() < 0.2 else b""))
                paths.append(path)
            got: list[list[bytes]] = [[], []]
            block = rng.randint(1, 64)
            counts = (c.merge_runs(paths, got[0].append, block), python.merge_runs(paths, got[1].append, block))
            if counts[0] != counts[1] or b"".join(got[0]) != b"".join(got[1]):
                print(f"round {number}: merge_runs differs")
                return 1
        # dawgdic's stages, compiled against Python: the lists, then the units and guide.
        keys = [word.encode("utf-8") for word in words]
        if keys:
            twin = dawgdic._build_dawg_python(keys)
            labels, children, last, merging = c.dawg_lists(b"".join(key + b"\n" for key in keys))
            if (labels, children, last, merging) != (
                bytes(twin.labels),
                array("I", twin.children).tobytes(),
                bytes(twin.last),
                bytes(twin.merging),
            ):
                print(f"round {number}: dawg lists differ")
                return 1
            units = dawgdic._DictionaryBuilder(twin).build()
            if c.dawg_dictionary(labels, children, last, merging) != (
                array("I", units).tobytes(),
                bytes(dawgdic.build_guide(twin, units)),
            ):
                print(f"round {number}: dawg units or guide differ")
                return 1
        # The projection of a version 2 body onto a few letters (the solver's wide
        # alphabets): expand(..., keep) against project_cells, on the body and on a
        # damaged copy; the same cells or both a ValueError.
        if words:
            built = c.Builder()
            built.add_lines(data)
            built.finish()
            alphabet = built.stats()["alphabet"]
            compact, root = built.compact_body()
            for damaged in (False, True):
                v2 = bytearray(compact)
                if damaged and v2:
                    v2[rng.randrange(len(v2))] ^= 1 << rng.randrange(8)
                kept = [letter for letter in alphabet if rng.random() < 0.6][:31]
                keep = bytes(kept.index(letter) if letter in kept else 0xFF for letter in alphabet)
                layout = codec.CompactLayout(bytes(v2), root, alphabet, 64, "fuzz")
                got = outcome(
                    lambda: tuple(
                        bytes(part) if not isinstance(part, int) else part
                        for part in c.expand(bytes(v2), root, len(alphabet), keep)
                    )
                )
                want = outcome(lambda: (codec.project_cells(layout, keep)[0].tobytes(), 0))
                if got != want:
                    print(f"round {number}: the projection differs (damaged: {damaged})")
                    return 1
        # The listing a writer reads its file back with (words_blocks), on the version 1
        # cells of the round's list and on damaged copies: the same blocks, or both a
        # ValueError (with the same message).
        if words:
            built = c.Builder()
            built.add_lines(data)
            built.finish()
            cells_out = io.BytesIO()
            _, _, cells_root = built.write_body(cells_out)
            alphabet = built.stats()["alphabet"]
            letters = [letter.encode("utf-8") for letter in alphabet]
            longest = max(len(word) for word in words)
            if len(alphabet) <= fileformat.ONE_CELL_LETTERS:
                for damaged in (False, True, True):
                    cells = bytearray(cells_out.getvalue())
                    if damaged:
                        cells[rng.randrange(len(cells))] ^= 1 << rng.randrange(8)
                    view = memoryview(bytes(cells)).cast("I")
                    max_words = len(words) + rng.choice((0, 0, -1, 5))
                    block = rng.randint(64, 400)
                    listed: list[list[bytes]] = [[], []]

                    def listing(kernel: Any, sink: list[bytes]) -> Any:
                        try:
                            return "ok", kernel.words_blocks(
                                view, cells_root, len(letters), longest, max_words, letters, sink.append, block
                            )
                        except ValueError as error:
                            return "error", str(error)

                    got = (listing(c, listed[0]), listing(python, listed[1]))
                    if got[0] != got[1] or (got[0][0] == "ok" and listed[0] != listed[1]):
                        print(f"round {number}: words_blocks differs (damaged: {damaged}): {got[0]} vs {got[1]}")
                        return 1
                    if not damaged and max_words >= len(words) and (got[0] != ("ok", len(words)) or b"".join(listed[0]) != data):
                        print(f"round {number}: words_blocks does not list the words written")
                        return 1
        # Lists that do not fit together must be refused, not followed.
        n = rng.randint(1, 40)
        garbage = (
            bytes(rng.randrange(256) for _ in range(n)),
            bytes(rng.randrange(256) for _ in range(4 * n)),
            bytes(rng.randrange(2) for _ in range(n - 1)) + b"\x01",
            bytes(rng.randrange(2) for _ in range(n)),
        )
        outcome(lambda: c.dawg_dictionary(*garbage))
        outcome(lambda: c.dawg_lists(bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))))
    print(f"{rounds} rounds: the compiled builder and its twins agree")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000, help="rounds to run (default 1,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--asan", action="store_true", help="run on an AddressSanitizer build")
    parser.add_argument("--module", help=argparse.SUPPRESS)  # the build to load (set by --asan)
    args = parser.parse_args()
    if not args.asan:
        return fuzz(args.rounds, args.seed, args.module)
    source = ROOT / "src" / "boggle_dafsa" / "automaton" / "_builder.c"
    return run_under_asan(__file__, source, ["--rounds", str(args.rounds), "--seed", str(args.seed)], census=False)


if __name__ == "__main__":
    sys.exit(main())
