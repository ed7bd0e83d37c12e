#!/usr/bin/env python3
"""Build big maps (a value per word) as a user would, and prove that they read back whole.

For each size, a list of N distinct random words of 10 upper-case letters (seeded), each
with a value (``--kind int``: a random int below 2^20; ``text``: about 40 bytes of words
drawn from a vocabulary of 5,000), in random order, is built with
``boggle-dafsa build --values KIND`` (the word-number section stored, as by default); then

* the file must be over 16 MiB (``--min-mib``), and say so in ``inspect`` with its values;
* ``boggle-dafsa dump --values FILE | cmp - <(LC_ALL=C sort LIST)`` must hold: every pair
  back, byte for byte, in the file's order;
* ``boggle-dafsa verify`` must say ok (checksums, the words) on the list's words;
* in process, ``d[word]`` for ``--sample`` words drawn at random must be their values and
  ``d.word(d.index(word))`` the word, on the compiled reader, and a tenth of them on the
  Python twins (``BOGGLE_DAFSA_PURE=1``).

Every command runs as a process, its CPU seconds and peak memory reported (those of
``build`` of the words alone too, for comparison). Exit status 0 if every file read back.

    python scripts/check_big_maps.py --keys 2097152 --kind int
    python scripts/check_big_maps.py --keys 1048576 --kind text
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
COMMAND = [sys.executable, "-m", "boggle_dafsa"]


def write_list(path: Path, words_path: Path, count: int, kind: str, seed: int) -> dict[str, str]:
    """``count`` distinct random words with values, one pair a line, unsorted; their words
    alone to ``words_path``; a sample of the pairs returned."""
    rng = random.Random(seed)
    vocabulary = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9))) for _ in range(5000)]
    seen: set[str] = set()
    sample: dict[str, str] = {}
    with path.open("w", encoding="ascii") as out, words_path.open("w", encoding="ascii") as words:
        while len(seen) < count:
            word = "".join(rng.choices(LETTERS, k=10))
            if word in seen:
                continue
            seen.add(word)
            if kind == "int":
                value = str(rng.randrange(1 << 20))
            else:
                parts: list[str] = []
                while sum(map(len, parts)) + len(parts) < 40:
                    parts.append(rng.choice(vocabulary))
                value = " ".join(parts)
            out.write(f"{word}\t{value}\n")
            words.write(word + "\n")
            if len(sample) < 100_000 and rng.random() < 0.05:
                sample[word] = value
    return sample


def run(command: list[str] | str, *, shell: bool = False, env: dict[str, str] | None = None) -> tuple[int, float, int, str]:
    """(exit status, CPU seconds of the child, its peak memory in MiB, its output's last line):
    the child's own figures (``os.wait4``), its children's not counted."""
    process = subprocess.Popen(
        ["bash", "-c", command] if shell else command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )  # type: ignore[arg-type]
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    last = (output.strip().splitlines() or [""])[-1]
    return process.returncode, cpu, usage.ru_maxrss // 1024, last


def check(count: int, kind: str, seed: int, sample_size: int, min_mib: float, folder: Path) -> bool:
    pairs, words = folder / "input", folder / "words.txt"
    started = time.perf_counter()
    sample = write_list(pairs, words, count, kind, seed)
    print(
        f"\n{count:,} words with {kind} values: list of {pairs.stat().st_size:,} bytes ({time.perf_counter() - started:.1f} s to write)"
    )
    env = {**os.environ, "LC_ALL": "C", "PYTHONPATH": str(ROOT / "src")}
    target = folder / "map.dafsa"
    ok = True
    status, cpu, memory, last = run([*COMMAND, "build", str(words), "-o", str(folder / "words.dafsa"), "-q"], env=env)
    plain = (folder / "words.dafsa").stat().st_size if status == 0 else 0
    print(f"build (the words alone, for comparison): exit {status}, {cpu:.1f} CPU-s, peak {memory} MiB: {plain:,} bytes")
    status, cpu, memory, last = run([*COMMAND, "build", "--values", kind, str(pairs), "-o", str(target), "-q"], env=env)
    size = target.stat().st_size if target.exists() else 0
    print(
        f"build --values {kind}: exit {status}, {cpu:.1f} CPU-s, peak {memory} MiB: {size:,} bytes ({size / 2**20:.1f} MiB) {last}"
    )
    ok &= status == 0 and size > min_mib * 2**20
    status, cpu, memory, last = run([*COMMAND, "inspect", str(target)], env=env)
    print(f"inspect: exit {status}")
    for line in subprocess.run([*COMMAND, "inspect", str(target)], env=env, capture_output=True, text=True).stdout.splitlines():
        if line.startswith(("word numbers", "values", "bytes ", "format version", "words ")):
            print(f"    {line}")
    script = f"set -o pipefail; {' '.join(COMMAND)} dump --values {target} | cmp - <(LC_ALL=C sort {pairs})"
    status, cpu, memory, last = run(script, shell=True, env=env)
    print(
        f"dump --values | cmp - <(LC_ALL=C sort input): exit {status}, {cpu:.1f} CPU-s (dump and sort), peak {memory} MiB {last}"
    )
    ok &= status == 0
    status, cpu, memory, last = run([*COMMAND, "verify", str(words), str(target)], env=env)
    print(f"verify: exit {status}, {cpu:.1f} CPU-s: {last}")
    ok &= status == 0

    sys.path.insert(0, str(ROOT / "src"))
    from boggle_dafsa import compiled
    from boggle_dafsa.automaton.reader import NativeDictionary

    chosen = random.Random(seed + 1).sample(sorted(sample), min(sample_size, len(sample)))
    for kernel, keys in (("c", chosen), ("python", chosen[: max(1, len(chosen) // 10)])):
        os.environ[compiled.PURE_VARIABLE] = "1" if kernel == "python" else "0"
        d = NativeDictionary(target)
        cpu = time.process_time()
        good = all(str(d[key]) == sample[key] and d.word(d.index(key)) == key for key in keys)
        cpu = time.process_time() - cpu
        walks = getattr(d._value_reader, "walks", "python")
        print(
            f"d[word] and d.word(d.index(word)) on {len(keys):,} words ({kernel}, walks: {walks}): {'ok' if good else 'WRONG'} ({cpu:.2f} CPU-s)"
        )
        ok &= good
        d.close()
    os.environ.pop(compiled.PURE_VARIABLE, None)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, nargs="+", default=[1 << 21])
    parser.add_argument("--kind", choices=("int", "text"), default="int")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--sample", type=int, default=20_000)
    parser.add_argument("--min-mib", type=float, default=16.0, help="each file must be larger than this")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    ok = True
    for count in args.keys:
        folder = Path(tempfile.mkdtemp(prefix="check-big-maps."))
        try:
            ok &= check(count, args.kind, args.seed, args.sample, args.min_mib, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("every map read back" if ok else "A MAP DID NOT READ BACK")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
