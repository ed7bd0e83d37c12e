#!/usr/bin/env python3
"""One proof run three ways in the same run: here (one process), on a Dask cluster, with dice.

For ``prove --dask``: a ``LocalCluster`` on 127.0.0.1 (``--workers`` processes of one
thread each) is started by this script, and the same proof is run by the command through
it; the boards must be those of the local run. For ``prove --dice``: the same proof over
the boards a dice set can roll; their boards must be a subset of the free ones (every
one of them that the dice can roll, as ``rollable`` says through the proof's matching).

For each run: the boards, the proof's CPU seconds (the classes' own CPU, summed over the
processes or the workers' task threads that proved them), the command's own CPU (user +
system of the child, which for Dask is the client alone), wall time and the command's
peak RSS (its own process: for ``--jobs`` or Dask, not its workers'). The load average is printed at the start and the end.

Usage::

    python scripts/bench_prove_runs.py                                   # ENABLE2K 3x3 >= 500, en-classic dice
    python scripts/bench_prove_runs.py -d fr --min 700 --dice fr --default-buckets
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

INNER = "AEIJOU BCDFGMPQVWXZ HKLNRSTY"
CORNERS = "AEIOSUY BCDFGHJKLMNPQRTVWXZ"


def run(command: list[str]) -> tuple[dict, float, float, int]:
    """(the proof's JSON, the command's CPU seconds, wall seconds, its peak RSS in kB).

    The child's own usage (``wait4``), not that of every child so far."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors)
        assert child.stdout is not None
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        wall = time.perf_counter() - started
        if child.returncode != 0:
            errors.seek(0)
            sys.exit(f"{' '.join(command)} failed ({child.returncode}): {errors.read()[-2000:].decode(errors='replace')}")
    return json.loads(output), usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss


def report(name: str, data: dict, cpu: float, wall: float, peak: int) -> None:
    top = data["boards"][0] if data["boards"] else None
    print(
        f"{name}: {len(data['boards'])} boards, top {top}, {data['classes']} classes, "
        f"proof {data['cpu_seconds']:.1f} CPU-s, command {cpu:.1f} CPU-s, {wall:.1f} s wall, peak RSS {peak // 1024} MB",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-d", "--dict", default="enable2k")
    parser.add_argument("-s", "--shape", default="3x3")
    parser.add_argument("--min", type=int, default=500)
    parser.add_argument("--dice", default="en-classic")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--default-buckets", action="store_true", help="the command's buckets, not ENABLE2K's of the paper")
    arguments = parser.parse_args()

    from distributed import LocalCluster

    program = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]
    proof = ["prove", "-d", arguments.dict, "-s", arguments.shape, "--min", str(arguments.min), "--json"]
    if not arguments.default_buckets:
        proof += ["--buckets", INNER, "--corner-buckets", CORNERS]
    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()), flush=True)
    local = run([*program, *proof])
    report("local, one process", *local)
    with LocalCluster(
        n_workers=arguments.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        remote = run([*program, *proof, "--dask", cluster.scheduler_address])
    report(f"Dask LocalCluster, {arguments.workers} workers", *remote)
    dice = run([*program, *proof, "--dice", arguments.dice])
    report(f"dice {arguments.dice}", *dice)
    print("load average at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    free = {(board["grid"], board["points"]) for board in local[0]["boards"]}
    print("Dask boards are the local boards:", remote[0]["boards"] == local[0]["boards"])
    print("dice boards among the free boards:", {(b["grid"], b["points"]) for b in dice[0]["boards"]} <= free)
    print(f"dice boards: {len(dice[0]['boards'])} of the {len(free)} free boards")


if __name__ == "__main__":
    main()
