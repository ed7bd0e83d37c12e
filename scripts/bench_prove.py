#!/usr/bin/env python3
"""Side-by-side proof: `boggle-dafsa prove` and hybrid-boggle's `break_all`, same machine, same run.

Each runs as a child process; its CPU time is the children's user + system time
(``resource.getrusage``), its peak memory the children's largest resident set. The
boards each reports are put in one canonical form (smallest text of the eight
symmetric images) and compared. The load average is printed at the start and the end:
on a busy machine, the ratio of the two CPU times is the figure to read.

hybrid-boggle is built beside the project, never vendored::

    git clone <hybrid-boggle> /work/peers/hybrid-boggle   (the search tool's fetch, here)
    python3.12 -m venv .venv && .venv/bin/pip install pybind11 tqdm && ./build.sh (c++ line)
    stubs/google/cloud/storage.py  (its cloud upload, never called: a stub module)

With ``--sample N --seed S``, both prove the same N classes only (ours by ``prove
--estimate``, the peer by ``break_all --board_ids``, its numbers of the same classes), and
each projects its CPU time over every class: the whole-process CPU of the sample, times
the classes over N (so each side's start-up counts against it).

Usage::

    python scripts/bench_prove.py --min 500                      # ENABLE2K 3x3, both
    python scripts/bench_prove.py --min 500 --our-corner-buckets ABCDEFGHIJKLMNOPQRSTUVWXYZ   # whole proofs, each its own buckets
    python scripts/bench_prove.py --min 500 --ours-only -d fr     # French, no peer
    python scripts/bench_prove.py -s 3x4 --min 1500 --sample 300 --seed 3 --peer-only --ours-cpu 13000   # a whole run's CPU against the peer's projection
    python scripts/bench_prove.py -s 3x4 --min 1500 --sample 100 --seed 1   # 3x4, same sample
    python scripts/bench_prove.py -s 3x4 --min 1500 --sample 100 --seed 1 \
        --our-corner-buckets ABCDEFGHIJKLMNOPQRSTUVWXYZ   # ours with its own buckets: projections compared
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from boggle_dafsa.search import prove as P  # noqa: E402
from boggle_dafsa.search.best import Canonical  # noqa: E402

INNER = "AEIJOU BCDFGMPQVWXZ HKLNRSTY"
CORNERS = "AEIOSUY BCDFGHJKLMNPQRTVWXZ"


def timed(command: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[str, float, float, int]:
    """(stdout, CPU seconds, wall seconds, peak RSS in kB) of the command's own process and its workers.

    The child's own usage (``wait4``): its CPU and the largest resident set of it and the
    processes it waited for (its workers), not that of every child so far."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env={**os.environ, **(env or {})}, cwd=cwd)
        assert child.stdout is not None
        output = child.stdout.read().decode()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        wall = time.perf_counter() - started
        if child.returncode != 0:
            errors.seek(0)
            sys.exit(f"{command[0]} failed ({child.returncode}): {errors.read()[-2000:].decode(errors='replace')}")
    return output, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss


def compare_classes(ours: dict[int, dict], peer: dict[int, dict], peer_peak_kb: int | None = None) -> None:
    """Class by class: our process's peak resident memory in the class (``peak_kb``: its base,
    the trie and the class's tree) against the peer's tree arena for it (``total_bytes``, a
    part of its process's memory only, so a bound in its favour), and the CPU of each."""
    both = sorted(set(ours) & set(peer))
    if not both:
        print("class by class: no class in both logs")
        return
    rows = [(index, ours[index]["peak_kb"] / 1024, peer[index]["total_bytes"] / 2**20) for index in both]
    within = sum(1 for _, mine, theirs in rows if mine <= theirs)
    worst = max(rows, key=lambda row: row[1] / row[2] if row[2] else float("inf"))
    print(
        f"class by class, memory: our process's peak in the class <= the peer's tree arena on {within} of {len(rows)} "
        f"classes; largest ratio {worst[1] / worst[2]:.2f} (class {worst[0]}: ours {worst[1]:.0f} MB, its arena {worst[2]:.0f} MB)"
    )
    if peer_peak_kb:
        # The peer's process beside its arena: its peak less its largest arena (its classes
        # run one after another in one process, each arena freed after its class), a base
        # that every class of it holds too.
        base = max(0.0, peer_peak_kb / 1024 - max(line["total_bytes"] for line in peer.values()) / 2**20)
        within = sum(1 for _, mine, theirs in rows if mine <= theirs + base)
        worst = max(rows, key=lambda row: row[1] / (row[2] + base))
        print(
            f"class by class, memory with the peer's base ({base:.0f} MB: its peak RSS less its largest arena): "
            f"ours <= its base + arena on {within} of {len(rows)} classes; largest ratio {worst[1] / (worst[2] + base):.2f} "
            f"(class {worst[0]}: ours {worst[1]:.0f} MB, its {worst[2] + base:.0f} MB)"
        )
    ratios = sorted(ours[index]["seconds"] / peer[index]["elapsed_s"] for index in both if peer[index]["elapsed_s"] > 0)
    if ratios:
        print(
            f"class by class, CPU ours / peer: median {ratios[len(ratios) // 2]:.2f}, "
            f"range {ratios[0]:.2f}-{ratios[-1]:.2f} ({len(ratios)} classes)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-d", "--dict", default="enable2k")
    parser.add_argument("-s", "--shape", default="3x3")
    parser.add_argument("--min", type=int, default=500)
    parser.add_argument("--buckets", default=INNER)
    parser.add_argument("--corner-buckets", default=CORNERS)
    parser.add_argument(
        "--our-buckets", default=None, help="our buckets, if not the peer's (then each side samples its own classes)"
    )
    parser.add_argument("--our-corner-buckets", default=None, help="our corner buckets, if not the peer's")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--peer", default="/work/peers/hybrid-boggle", help="hybrid-boggle's checkout (built)")
    parser.add_argument("--peer-python", default=None, help="its interpreter (default: PEER/.venv/bin/python)")
    parser.add_argument("--peer-dict", default=None, help="its word list (default: PEER/wordlists/enable2k.txt)")
    parser.add_argument("--ours-only", action="store_true")
    parser.add_argument("--peer-only", action="store_true", help="run the peer alone (its sample projected)")
    parser.add_argument(
        "--ours-cpu",
        type=float,
        default=None,
        help="with --peer-only: the CPU seconds of our whole proof, measured elsewhere (a long run), for the ratio",
    )
    parser.add_argument("--peer-first", action="store_true", help="run the peer before ours")
    parser.add_argument("--sample", type=int, default=0, help="prove only this many classes, drawn at random (both tools)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of the sample")
    parser.add_argument("--memory", type=int, default=None, help="our --memory (MB a class)")
    parser.add_argument(
        "--peer-switchover", type=int, default=None, help="break_all's --switchover_score (its 4x4 run: 8000; default 1.7 N)"
    )
    args = parser.parse_args()
    shape = tuple(int(size) for size in args.shape.split("x"))
    canonical = Canonical(shape, False)
    print(f"load average at start: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    spec = P.make_spec(args.dict, shape, args.min, buckets=args.buckets, corner_buckets=args.corner_buckets)
    classes = spec.classes()
    chosen = P.sample_classes(len(classes), args.sample, args.seed) if args.sample else []
    our_buckets = args.our_buckets or args.buckets
    our_corners = args.our_corner_buckets or args.corner_buckets
    own = (our_buckets, our_corners) != (args.buckets, args.corner_buckets)
    our_classes = classes
    if own:
        our_spec = P.make_spec(args.dict, shape, args.min, buckets=our_buckets, corner_buckets=our_corners)
        our_classes = our_spec.classes()
    if own and chosen:
        print(
            f"sample: {args.sample} of our {len(our_classes)} classes ({our_buckets!r} / {our_corners!r}) and "
            f"{len(chosen)} of the peer's {len(classes)} ({args.buckets!r} / {args.corner_buckets!r}), seed {args.seed}; "
            "each projected to its whole proof"
        )
    elif chosen:
        print(f"sample: {len(chosen)} of {len(classes)} classes (seed {args.seed}), the same for both")
    if own and not chosen:
        print(f"whole proofs, each with its own buckets: our {len(our_classes)} classes, the peer's {len(classes)}")

    def ours() -> set[str]:
        command = [
            sys.executable,
            "-c",
            "from boggle_dafsa.cli import main; main()",
            "prove",
            "-d",
            args.dict,
            "-s",
            args.shape,
            "--min",
            str(args.min),
            "--buckets",
            our_buckets,
            "--corner-buckets",
            our_corners,
            "--jobs",
            str(args.jobs),
            "--json",
        ]
        if args.memory:
            command += ["--memory", str(args.memory)]
        if chosen:
            command += ["--estimate", "--sample", str(args.sample), "--seed", str(args.seed)]
        out, cpu, wall, peak = timed(command)
        data = json.loads(out)
        if chosen:
            per_class["ours"] = {row["class"]: row for row in data.get("per_class", [])}
            results["ours"] = cpu * len(our_classes) / data["sampled"]
            peaks["ours"] = peak
            print(
                f"boggle-dafsa prove --estimate: {data['sampled']} classes in {cpu:.1f} CPU-s ({wall:.1f} s wall; "
                f"{data['sample_cpu_seconds']:.1f} in the classes), projected {cpu * len(our_classes) / data['sampled'] / 3600:.2f} "
                f"CPU-hours, largest tree {data['peak_tree_nodes']:,} nodes, peak RSS {peak / 1024:.0f} MB"
            )
            print(f"  its classes' spread: {interval(data.get('relative_margin_95'), data.get('sample_for_25_percent'))}")
            return set()
        boards = {canonical.key(tuple(board["grid"].replace("/", ""))) for board in data["boards"]}
        top = data["boards"][0] if data["boards"] else None
        print(
            f"boggle-dafsa prove: {len(boards)} boards >= {args.min}, top {top}, {data['classes']} classes, "
            f"{cpu:.1f} CPU-s ({wall:.1f} s wall), peak RSS {peak / 1024:.0f} MB"
        )
        results["ours"] = cpu
        peaks["ours"] = peak
        return boards

    def peer() -> set[str]:
        root = Path(args.peer)
        python = args.peer_python or str(root / ".venv" / "bin" / "python")
        words = args.peer_dict or str(root / "wordlists" / "enable2k.txt")
        buckets = f"{args.buckets.lower()}, corner:{args.corner_buckets.lower()}"
        size = f"{shape[0]}{shape[1]}"
        command = [
            python,
            "-m",
            "boggle.break_all",
            buckets,
            str(args.min),
            "--size",
            size,
            "--dictionary",
            words,
            "--num_threads",
            str(args.jobs),
            "--output_base",
            str(Path(logs) / "peer"),
        ]
        if args.peer_switchover:
            command += ["--switchover_score", str(args.peer_switchover)]
        if chosen:
            command += ["--board_ids", ",".join(str(peer_id(classes[index])) for index in chosen)]
        env = {"PYTHONPATH": f"{root}{os.pathsep}{root / 'stubs'}"}
        out, cpu, wall, peak = timed(command, env=env, cwd=str(root))
        # its log, a line a class: each class's seconds, for the spread of its projection
        lines = [json.loads(line) for log in sorted(Path(logs).glob("*.ndjson")) for line in log.open()]
        times = [line["elapsed_s"] for line in lines]
        if chosen:
            by_peer_id = {peer_id(classes[index]): index for index in chosen}
            per_class["peer"] = {by_peer_id[line["id"]]: line for line in lines if line["id"] in by_peer_id}
        if chosen:
            results["peer"] = cpu * len(classes) / len(chosen)
            peaks["peer"] = peak
            print(
                f"hybrid-boggle break_all --board_ids: {len(chosen)} classes in {cpu:.1f} CPU-s ({wall:.1f} s wall), "
                f"projected {cpu * len(classes) / len(chosen) / 3600:.2f} CPU-hours, peak RSS {peak / 1024:.0f} MB"
            )
            print(f"  {peer_phases(lines)}")
            if len(times) == len(chosen):
                projected, margin = P.projection(times, len(classes))
                needed = P.sample_needed(times, len(classes))
                print(f"  its classes' spread: {interval(margin / projected if projected else None, needed)}")
            return set()
        listed = out.split("breaking failure(s):\n", 1)[1].split() if "breaking failure(s):" in out else []
        boards = {canonical.key(tuple(board.upper())) for board in listed}
        print(
            f"hybrid-boggle break_all: {len(boards)} boards >= {args.min} ({len(listed)} before symmetry), "
            f"{cpu:.1f} CPU-s ({wall:.1f} s wall), peak RSS {peak / 1024:.0f} MB"
        )
        results["peer"] = cpu
        peaks["peer"] = peak
        return boards

    def peer_phases(lines: list[dict]) -> str:
        # where its time went, from its log (seconds, wall): the tree (its collect, sort and
        # build), the forcing (its levels past 0, which the tree is not part of) and the bound
        tree = [sum(line.get("tree_secs", [0.0, 0.0, 0.0])[k] for line in lines) for k in range(3)]
        forcing = sum(sum(line.get("secs_by_level", [])[1:]) for line in lines)
        bound = sum(sum(line.get("bound_secs", [])) for line in lines)
        return (
            f"its phases (its log): tree {sum(tree):.1f} s (collect {tree[0]:.1f}, sort {tree[1]:.1f}, build {tree[2]:.1f}), "
            f"forcing {forcing:.1f} s, bound {bound:.1f} s"
        )

    def peer_id(numbers: tuple[int, ...]) -> int:
        # break_all's number of a class: the bucket of cell i (x = i // height, y = i % height,
        # which is our cell i of a rows x columns grid) is digit i, in the base of that
        # cell's bucket count, the first cell the least significant.
        corners = spec.corners()
        number, weight = 0, 1
        for cell, bucket in enumerate(numbers):
            number += bucket * weight
            weight *= len(spec.corner_buckets if corners[cell] else spec.buckets)
        return number

    def interval(relative: float | None, needed: int | None) -> str:
        if relative is None or needed is None:
            return "no spread from one class"
        return f"95% interval ±{relative * 100:.0f}% of the projection; --sample {needed} for ±25%"

    logs = tempfile.mkdtemp(prefix="bench-prove-peer-")
    results: dict[str, float] = {}
    peaks: dict[str, int] = {}
    # each side's classes one by one (our class numbers): ours from --estimate's JSON, the peer's from its log
    per_class: dict[str, dict[int, dict]] = {}
    order = [peer, ours] if args.peer_first else [ours, peer]
    if args.ours_only:
        order = [ours]
    if args.peer_only:
        order = [peer]
        if args.ours_cpu is not None:
            results["ours"] = args.ours_cpu
    try:
        found = {function.__name__: function() for function in order}
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    print(f"load average at end: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    if "ours" in peaks and "peer" in peaks:
        print(f"peak RSS ratio ours / peer: {peaks['ours'] / peaks['peer']:.2f}")
    if "ours" in per_class and "peer" in per_class:
        compare_classes(per_class["ours"], per_class["peer"], peaks.get("peer") if args.jobs == 1 else None)
    if chosen and "peer" in results and "ours" in results:
        what = "projected CPU of the whole proof" if own else f"CPU on the same {len(chosen)} classes"
        if args.peer_only:
            what = "our whole proof's CPU (--ours-cpu) against the peer's projection"
        print(f"CPU ratio ours / peer, {what}: {results['ours'] / results['peer']:.2f}")
    elif "peer" in found and "ours" in found:
        same = found["ours"] == found["peer"]
        print(
            f"same boards: {same}"
            + (
                ""
                if same
                else f" (only ours: {sorted(found['ours'] - found['peer'])}, only peer: {sorted(found['peer'] - found['ours'])})"
            )
        )
        print(f"CPU ratio ours / peer: {results['ours'] / results['peer']:.2f}")


if __name__ == "__main__":
    main()
