"""Load on `/api/solve`: requests per second and latency percentiles, 4x4 French grids, loopback only.

    python scripts/bench_web.py                      # starts `boggle-dafsa serve` on 127.0.0.1
    python scripts/bench_web.py --requests 3000 --concurrency 1 8 32

The server is the real one (`boggle-dafsa serve`, one uvicorn process); the load generator
is a small asyncio HTTP/1.1 client in this process, with keep-alive connections, so both
share this machine's cores. Every grid is rolled from the French dice with seed 1 (the
grids of the other benchmarks). Each run is bounded in requests and in time, and only
127.0.0.1 is ever contacted. As a same-run baseline, the in-process cost of what the route
does (parse, solve, build and encode the JSON) is timed on the same grids.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import urllib.parse
from pathlib import Path
from urllib.parse import urlsplit

# tests/helpers/: the test helpers, kept out of the wheel.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from boggle_dafsa.board.dice import generate_grids, load_dice  # noqa: E402
from helpers.harness import live_server  # noqa: E402

#: No run lasts longer than this, whatever --requests says.
MAX_SECONDS = 60.0


def grids(count: int) -> list[str]:
    return [str(grid) for grid in generate_grids(load_dice("fr"), 1, count)]


async def client(
    host: str, port: int, paths: list[str], start: int, step: int, count: int, latencies: list[float], deadline: float
) -> int:
    """One keep-alive connection sending ``count`` requests, one after the other; returns errors."""
    reader, writer = await asyncio.open_connection(host, port)
    errors = 0
    try:
        for number in range(count):
            if time.perf_counter() > deadline:
                break
            path = paths[(start + number * step) % len(paths)]
            began = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = await reader.readexactly(length)
            latencies.append(time.perf_counter() - began)
            if status != 200 or not body.startswith(b"{"):
                errors += 1
    finally:
        writer.close()
    return errors


async def load(url: str, paths: list[str], total: int, concurrency: int) -> tuple[float, list[float], int]:
    """(wall seconds, latencies, errors) of ``total`` requests over ``concurrency`` connections."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    assert host == "127.0.0.1", "loopback only"
    latencies: list[float] = []
    each = max(1, total // concurrency)
    began = time.perf_counter()
    deadline = began + MAX_SECONDS
    errors = await asyncio.gather(
        *(client(host, port, paths, start, concurrency, each, latencies, deadline) for start in range(concurrency))
    )
    return time.perf_counter() - began, latencies, sum(errors)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def in_process(texts: list[str]) -> float:
    """Median µs per grid of what the route does, without HTTP: parse, solve, result JSON, encode."""
    from boggle_dafsa.dictionaries.resolve import open_dictionary
    from boggle_dafsa.solver.batch import SolveOptions
    from boggle_dafsa.web.payloads import solution_payload

    words = open_dictionary("fr")
    options = SolveOptions()
    timings = []
    for text in texts:
        began = time.perf_counter()
        grid = options.parse(text, words)
        json.dumps(solution_payload(grid, options.solve(grid, words)))
        timings.append(time.perf_counter() - began)
    return statistics.median(timings) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per run (default 2000)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32], help="connections at once, one run each")
    parser.add_argument("--grids", type=int, default=300)
    args = parser.parse_args()
    if not 1 <= args.requests <= 100_000 or not all(1 <= c <= 256 for c in args.concurrency):
        parser.error("at most 100,000 requests and 256 connections")
    texts = grids(args.grids)
    paths = ["/api/solve?" + urllib.parse.urlencode({"grid": text, "dict": "fr"}) for text in texts]
    baseline = in_process(texts)
    print(f"{args.grids} French 4x4 grids (dice fr, seed 1); in process: {baseline:,.0f} µs per grid (parse, solve, JSON)")
    print("| connections | requests | requests/s | p50 ms | p99 ms | errors |")
    print("|--:|--:|--:|--:|--:|--:|")
    with live_server() as url:
        asyncio.run(load(url, paths, 200, 4))  # warm-up: the dictionary is opened, code paths are hot
        for concurrency in args.concurrency:
            wall, latencies, errors = asyncio.run(load(url, paths, args.requests, concurrency))
            rate = len(latencies) / wall
            print(
                f"| {concurrency} | {len(latencies):,} | {rate:,.0f} | {percentile(latencies, 0.5) * 1e3:.1f} "
                f"| {percentile(latencies, 0.99) * 1e3:.1f} | {errors} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
