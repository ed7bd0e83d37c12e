#!/usr/bin/env python3
"""Fuzz the compiled prover (search/_prove.c) under ASan and UBSan.

Builds the extension with -fsanitize=address,undefined into a temporary folder, runs itself
again with the sanitizer runtimes preloaded, then (1) compares the kernel with its Python
twin on every class of small proofs (bounds, tree sizes, branches, candidates, budgets
that split), with the default forcing and with forcing down to the last cell, (2) compares
them on valid tries of random words with random grids, orders, budgets and switch points,
and (3) hands the kernel random, mostly hostile tries, tables, sets and orders: each must
be refused with ValueError or proven without a sanitizer report.

    python scripts/fuzz_prove.py --rounds 3000 --seed 1
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import struct
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "boggle_dafsa" / "search" / "_prove.c"


def build(folder: str) -> str:
    target = os.path.join(folder, "_prove" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(
        [
            "gcc",
            "-O1",
            "-g",
            "-fsanitize=address,undefined",
            "-fno-omit-frame-pointer",
            "-std=c99",
            "-fPIC",
            "-shared",
            f"-I{sysconfig.get_paths()['include']}",
            str(SOURCE),
            "-o",
            target,
        ],
        check=True,
    )
    return target


def fuzz(module_path: str, rounds: int, seed: int) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers/: the test helpers, kept out of the wheel
    from boggle_dafsa.search import prove as P
    from helpers.dictionaries import PROOF_BUCKETS, PROOF_CORNERS, PROOF_WORDS, dictionary_from_words

    spec = importlib.util.spec_from_file_location("_prove", module_path)
    assert spec is not None and spec.loader is not None
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    dictionary = str(dictionary_from_words(PROOF_WORDS, tempfile.mkdtemp()).path)
    compared = 0
    for shape, minimum, budget in [((2, 3), 4, 10**7), ((3, 3), 36, 10**7), ((3, 3), 36, 200), ((1, 6), 2, 10**7)]:
        proof = P.make_spec(dictionary, shape, minimum, buckets=PROOF_BUCKETS, corner_buckets=PROOF_CORNERS)
        context = P.context_for(proof, "python")
        for numbers in proof.classes():
            sets = proof.letter_sets(numbers)
            # the defaults, then forcing down to the last cell whatever the bound
            for forcing in ({}, {"switch": 0, "force_depth": len(sets)}):
                twin = P.prove_class_python(context.lexicon, context.table, sets, context.order, minimum, budget, **forcing)
                compiled = P.prove_class_kernel(
                    kernel, context.lexicon, context.table, sets, context.order, minimum, budget, **forcing
                )
                assert twin == compiled, (shape, numbers, forcing)
                compared += 1
    # Valid tries of random words over random faces: the kernel goes deep, and must still
    # agree with its twin.
    rng = random.Random(seed)
    for _ in range(rounds // 10):
        faces = "ABCDE"[: rng.randint(1, 5)]
        words = {"".join(rng.choice(faces) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 40))}
        cells = rng.randint(1, 7)
        lexicon = P.build_lexicon(words, faces, cells, lambda word: rng.randint(1, 3))
        sets = [sorted(rng.sample(range(len(faces)), rng.randint(1, len(faces)))) for _ in range(cells)]
        table = [tuple(c for c in range(cells) if c != i and rng.random() < 0.6) for i in range(cells)]
        order = list(range(cells))
        rng.shuffle(order)
        minimum, budget = rng.randint(0, 12), rng.choice([3, 20, 100, 10**6])
        forcing = {"switch": rng.randint(0, 20), "force_depth": rng.randint(0, cells + 1)}
        arguments = (lexicon, table, sets, order, minimum, budget)
        twin = P.prove_class_python(*arguments, **forcing)
        compiled = P.prove_class_kernel(kernel, *arguments, **forcing)
        assert twin == compiled, (words, sets, table, order, minimum, budget, forcing)
        compared += 1
    rng = random.Random(seed)
    accepted = 0
    for round_ in range(rounds):
        if round_ % 2:
            # A valid trie of random words with a few bytes changed: most changes are caught
            # by the kernel's checks, and those that pass make a trie it must prove safely.
            faces = "ABCDE"[: rng.randint(1, 5)]
            words = {"".join(rng.choice(faces) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 40))}
            valid = P.build_lexicon(words, faces, rng.randint(1, 7), lambda word: rng.randint(1, 3)).nodes
            assert valid is not None
            damaged = bytearray(valid)
            for _ in range(rng.randint(1, 3)):
                spot = rng.randrange(len(damaged))
                damaged[spot] = rng.choice([rng.getrandbits(8), (damaged[spot] + rng.choice([-1, 1])) % 256])
            nodes = bytes(damaged)
            face_count = rng.choice([len(faces), rng.randint(1, 40)])
        else:
            count = rng.randint(1, 20)
            masks = [rng.getrandbits(rng.choice([1, 2, 3, 6, 32])) for _ in range(count)]
            # Mostly well-formed child indices (after the node), sometimes not.
            firsts = [i + 1 + rng.randint(-2, 3) for i in range(count)]
            values = [rng.randint(-1, 5) for _ in range(count)]
            nodes = b"".join(struct.pack("=Iii", *node) for node in zip(masks, firsts, values))
            face_count = rng.randint(1, 40)
        if rng.random() < 0.05:  # a size that is no whole number of nodes
            nodes = nodes[: rng.randrange(len(nodes))]
        try:
            capsule = kernel.lexicon(nodes, face_count)
        except ValueError:
            continue
        accepted += 1
        cells = rng.randint(1, 8)
        sets = [rng.getrandbits(6) for _ in range(cells)]
        table = [tuple(c for c in range(cells) if c != i and rng.random() < 0.6) for i in range(cells)]
        order = list(range(cells))
        rng.shuffle(order)
        try:
            kernel.prove_class(
                capsule,
                table,
                sets,
                order,
                rng.randint(0, 5),
                rng.choice([100, 10**6]),
                1000,
                rng.randint(-1, 9),
                rng.randint(-1, 9),
            )
        except ValueError:
            pass
    print(f"{compared} classes equal to the twin; {accepted} of {rounds} random tries accepted and proven; no sanitizer report")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--module", help=argparse.SUPPRESS)  # set when run again under the sanitizers
    args = parser.parse_args()
    if args.module:
        fuzz(args.module, args.rounds, args.seed)
        return
    with tempfile.TemporaryDirectory() as folder:
        module = build(folder)
        runtimes = [
            subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=True).stdout.strip()
            for name in ("libasan.so", "libubsan.so")
        ]
        env = {
            **os.environ,
            "LD_PRELOAD": ":".join(runtimes),
            "ASAN_OPTIONS": "detect_leaks=0",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
        }
        subprocess.run(
            [sys.executable, __file__, "--rounds", str(args.rounds), "--seed", str(args.seed), "--module", module],
            env=env,
            check=True,
        )


if __name__ == "__main__":
    main()
