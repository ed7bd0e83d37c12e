#!/usr/bin/env python3
"""Build big dictionaries as a user would, and prove that they read back whole.

For each size, a list of N distinct random keys of 10 letters (seeded; about 10 bytes of
version 2 body a key, so 2**17 keys pass 1 MiB and 2**21 pass 16 MiB: 20 MB) or a synthetic
inflected list (``--synthetic N``: ``make_synthetic.py``, shaped like a real language) is
built with ``boggle-dafsa build --policy raw`` by the compiled writer and, with
``--python``, by the pure-Python one (``BOGGLE_DAFSA_PURE=1``); then

* ``boggle-dafsa dump`` must give the list back byte for byte (``LC_ALL=C sort -u`` of it),
* ``boggle-dafsa verify`` must say ok,
* the compiled and Python writers' files must be the same bytes.

Every command runs as a process (what a user runs), its CPU seconds and peak memory
reported. Exit status 0 if every file read back. The version 2 writer of 2026-11 wrote
every body over 1 MiB with truncated references: its files failed all three checks.

    python scripts/check_big_writes.py --keys 131072 2097152            # what CI runs
    python scripts/check_big_writes.py --keys 4194304                   # near the state cap (31 MB)
    python scripts/check_big_writes.py --keys 131072 --python            # both writers (Python: minutes)
    python scripts/check_big_writes.py --synthetic 7000000               # a 7-million-word list
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def random_keys(path: Path, count: int, seed: int) -> None:
    """``count`` distinct random keys of 10 letters, one a line, unsorted."""
    rng = random.Random(seed)
    seen: set[str] = set()
    with path.open("w", encoding="ascii") as out:
        while len(seen) < count:
            key = "".join(rng.choices(LETTERS, k=10))
            if key not in seen:
                seen.add(key)
                out.write(key + "\n")


def run(command: list[str], *, env: dict[str, str] | None = None, stdout: object = subprocess.PIPE) -> tuple[int, float, str]:
    """(exit status, CPU seconds of the child, its stderr's last line)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True)  # type: ignore[call-overload]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return done.returncode, cpu, last


def check(list_path: Path, folder: Path, writers: list[str], label: str) -> bool:
    """Build ``list_path`` with each writer and check that every file reads back."""
    command = shutil.which("boggle-dafsa") or sys.executable
    base = [command] if command.endswith("boggle-dafsa") else [sys.executable, "-m", "boggle_dafsa"]
    expected = folder / "expected.txt"
    subprocess.run(["sort", "-u", "-o", str(expected), str(list_path)], env=dict(os.environ, LC_ALL="C"), check=True)
    files: dict[str, bytes] = {}
    ok = True
    for writer in writers:
        env = dict(os.environ)
        env.pop("BOGGLE_DAFSA_PURE", None)
        if writer == "python":
            env["BOGGLE_DAFSA_PURE"] = "1"
        out = folder / f"{writer}.dafsa"
        status, cpu, last = run([*base, "build", str(list_path), "-o", str(out), "--policy", "raw"], env=env)
        if status:
            print(f"  {label} {writer}: build failed ({status}): {last}")
            ok = False
            continue
        size = out.stat().st_size
        dumped = folder / "dumped.txt"
        with dumped.open("w") as sink:
            dump_status, dump_cpu, _ = run([*base, "dump", "-d", str(out)], env=env, stdout=sink)
        same = dump_status == 0 and subprocess.run(["cmp", "-s", str(dumped), str(expected)]).returncode == 0
        verify_status, verify_cpu, verify_last = run([*base, "verify", str(list_path), str(out)], env=env)
        print(
            f"  {label} {writer}: {size:,} bytes, build {cpu:.1f} CPU-s; dump {'= the list' if same else 'DIFFERS'} "
            f"({dump_cpu:.1f} CPU-s); verify {'ok' if verify_status == 0 else 'FAILED: ' + verify_last} ({verify_cpu:.1f} CPU-s)"
        )
        ok = ok and same and verify_status == 0
        files[writer] = out.read_bytes()
        dumped.unlink()
    if len(files) == 2:
        same_bytes = files["c"] == files["python"]
        print(f"  {label}: the compiled and Python writers' files are {'the same bytes' if same_bytes else 'DIFFERENT'}")
        ok = ok and same_bytes
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, nargs="*", default=[], help="lists of N random 10-letter keys")
    parser.add_argument("--synthetic", type=int, nargs="*", default=[], help="synthetic inflected lists of N words")
    parser.add_argument("--python", action="store_true", help="the pure-Python writer too (slow: about 0.4 ms a key)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not args.keys and not args.synthetic:
        parser.error("give --keys or --synthetic sizes")
    writers = ["c", "python"] if args.python else ["c"]
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}, writers: {', '.join(writers)}")
    ok = True
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="big-writes-") as name:
        folder = Path(name)
        for count in args.keys:
            list_path = folder / "keys.txt"
            random_keys(list_path, count, args.seed)
            ok = check(list_path, folder, writers, f"{count:,} random keys") and ok
            list_path.unlink()
        for count in args.synthetic:
            list_path = folder / "synthetic.txt"
            subprocess.run([sys.executable, str(ROOT / "scripts" / "make_synthetic.py"), str(count), str(list_path)], check=True)
            lowered = folder / "synthetic-lower.txt"
            # Raw keys are taken as given: the list is built as it is.
            list_path.rename(lowered)
            ok = check(lowered, folder, writers, f"{count:,} synthetic words") and ok
            lowered.unlink()
    print(f"{'every file read back' if ok else 'SOME FILES DID NOT READ BACK'} ({time.monotonic() - started:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
