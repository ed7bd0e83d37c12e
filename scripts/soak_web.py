"""Soak the real web server: mixed traffic from several loopback addresses, memory and latency.

Starts ``boggle-dafsa serve`` on 127.0.0.1 (a free port, a temporary data folder), then runs
``--clients`` clients, each from its own address (127.0.0.2, 127.0.0.3, ...: the server's
quotas are by address), each at about ``--rate`` requests per second (under the server's
per-address rate), for ``--seconds`` (default 10 minutes). The mix: solves of rolled 4x4
and 5x5 grids (55 %), rolls (15 %), solo games judged (15 %), a room's WebSocket joined,
a word sent and closed (15 %; each client keeps one room). Every ``--every`` seconds it
prints the server's resident memory and the latency percentiles of the interval; at the
end the whole run's, the errors by status, and the load average at the start and the end.

Traffic only to 127.0.0.1, from 127.0.0.0/8.

    python scripts/soak_web.py --seconds 180
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any

import httpx
import psutil

ADDRESS = re.compile(r"serving on (http://\S+)")


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class Client(threading.Thread):
    """One client address sending the mix until ``stop`` is set."""

    def __init__(self, base: str, source: str, rate: float, seed: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.base, self.source, self.rate, self.stop = base, source, rate, stop
        self.rng = random.Random(seed)
        self.latencies: list[tuple[float, float]] = []  # (when, seconds)
        self.statuses: Counter[str] = Counter()
        self.room: str | None = None
        self.tokens: dict[str, str] = {}
        self.lock = threading.Lock()

    def run(self) -> None:
        with httpx.Client(transport=httpx.HTTPTransport(local_address=self.source), timeout=30) as http:
            while not self.stop.is_set():
                started = time.monotonic()
                try:
                    status = self.one(http)
                except (httpx.HTTPError, OSError) as error:
                    status = type(error).__name__
                took = time.monotonic() - started
                with self.lock:
                    self.latencies.append((started, took))
                    self.statuses[str(status)] += 1
                time.sleep(max(0.0, 1.0 / self.rate - took))

    def one(self, http: httpx.Client) -> int:
        pick = self.rng.random()
        if pick < 0.55:
            dice = "fr" if self.rng.random() < 0.7 else "big"
            grid = http.get(f"{self.base}api/roll", params={"dice": dice, "seed": self.rng.randrange(1 << 40)}).json()["grid"]
            return http.get(f"{self.base}api/solve", params={"grid": grid, "dice": dice}).status_code
        if pick < 0.70:
            return http.get(f"{self.base}api/roll", params={"dice": "fr"}).status_code
        if pick < 0.85:
            body = {"dice": "fr", "seed": self.rng.randrange(1 << 40), "words": ["maison", "rat", "tes", "zzz"], "end": True}
            return http.post(f"{self.base}api/play", json=body).status_code
        return self.room_visit(http)

    def room_visit(self, http: httpx.Client) -> int:
        from websockets.sync.client import connect

        if self.room is None:
            made = http.post(f"{self.base}api/rooms", json={"dice": "fr", "seconds": 3600})
            if made.status_code != 201:
                return made.status_code
            self.room = made.json()["room"]
        name = f"player{self.rng.randrange(6)}"
        host, port = self.base.split("//")[1].strip("/").split(":")
        sock = socket.create_connection((host, int(port)), timeout=10, source_address=(self.source, 0))
        with connect(f"ws://{host}:{port}/ws/rooms/{self.room}", sock=sock, open_timeout=10) as ws:
            ws.send(_json({"type": "join", "name": name, "token": self.tokens.get(name)}))
            while True:
                message = _parse(ws.recv(timeout=10))
                if message.get("type") == "joined":
                    self.tokens[name] = message["token"]
                    break
                if message.get("type") == "error":
                    return 409
            ws.send(_json({"type": "word", "word": self.rng.choice(["maison", "rat", "tes", "ses"])}))
            ws.send(_json({"type": "ping"}))
            while _parse(ws.recv(timeout=10)).get("type") != "pong":
                pass
        return 101


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def _parse(text: Any) -> dict[str, Any]:
    import json

    data = json.loads(text)
    return data if isinstance(data, dict) else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="How long to run (default 600).")
    parser.add_argument("--clients", type=int, default=8, help="Client addresses, 127.0.0.2 upwards (default 8).")
    parser.add_argument("--rate", type=float, default=10.0, help="Requests per second of each client (default 10).")
    parser.add_argument("--every", type=float, default=30.0, help="Seconds between two reports (default 30).")
    args = parser.parse_args()
    if not 1 <= args.clients <= 200 or not 0 < args.seconds <= 24 * 3600:
        parser.error("--clients 1 to 200, --seconds up to a day")
    print(f"load average at the start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    data = tempfile.mkdtemp(prefix="soak-web-")
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from boggle_dafsa.cli import main; main()",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--data",
            data,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        match = ADDRESS.search(server.stdout.readline())
        if match is None:
            print("the server did not start", file=sys.stderr)
            return 1
        base = match.group(1)
        process = psutil.Process(server.pid)
        # Warm up: the dictionaries compiled or mapped once, before memory is measured.
        with httpx.Client(timeout=120) as http:
            for dice in ("fr", "big"):
                http.get(
                    f"{base}api/solve",
                    params={"grid": http.get(f"{base}api/roll", params={"dice": dice}).json()["grid"], "dice": dice},
                )
        start_rss = process.memory_info().rss
        stop = threading.Event()
        clients = [Client(base, f"127.0.0.{2 + i}", args.rate, i, stop) for i in range(args.clients)]
        began = time.monotonic()
        for client in clients:
            client.start()
        rss = [start_rss]
        last = began
        print(
            f"server {base} pid {server.pid}: rss {start_rss / 2**20:.1f} MB after warm-up; {args.clients} clients at {args.rate:g}/s for {args.seconds:g} s"
        )
        while time.monotonic() - began < args.seconds:
            time.sleep(min(args.every, max(0.0, args.seconds - (time.monotonic() - began))))
            now = time.monotonic()
            window = [took for c in clients for when, took in list(c.latencies) if last <= when < now]
            rss.append(process.memory_info().rss)
            print(
                f"{now - began:7.0f} s  rss {rss[-1] / 2**20:7.1f} MB  requests {len(window):6d}  "
                f"p50 {percentile(window, 0.5) * 1000:6.1f} ms  p99 {percentile(window, 0.99) * 1000:7.1f} ms",
                flush=True,
            )
            last = now
        stop.set()
        for client in clients:
            client.join(30)
        every = [took for c in clients for _, took in c.latencies]
        statuses: Counter[str] = Counter()
        for client in clients:
            statuses.update(client.statuses)
        print(
            f"total: {len(every)} requests in {time.monotonic() - began:.0f} s; p50 {percentile(every, 0.5) * 1000:.1f} ms, "
            f"p99 {percentile(every, 0.99) * 1000:.1f} ms, max {max(every, default=0) * 1000:.1f} ms"
        )
        print(
            f"rss: {start_rss / 2**20:.1f} MB after warm-up, {rss[-1] / 2**20:.1f} MB at the end, {max(rss) / 2**20:.1f} MB at most"
        )
        print(f"statuses: {dict(sorted(statuses.items()))}")
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return 0 if server.poll() is None else 1
    finally:
        server.send_signal(2)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        import shutil

        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
