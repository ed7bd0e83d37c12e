#!/usr/bin/env python3
"""Benchmark building and opening dictionaries: boggle-dafsa against marisa-trie, dawg2 and gzip.

For each embedded word list (normalized, one word a line) it measures, every figure in a
fresh subprocess so that peak memory belongs to one build only:

* build time: wall time of the build call alone (interpreter start-up and imports excluded),
  median and min over ``--repeat`` runs, the methods taking turns so noise spreads evenly;
* peak RSS of the child (VmHWM from /proc/self/status; ``ru_maxrss`` where there is no
  /proc, but on Linux that one inherits the parent's peak across exec), and the same
  above a bare child interpreter;
* file size, and its ratio to dawg2's ``DAWG`` of the same list;
* open time: median and min over ``--opens`` opens in one child.

Every file built is read back in a child of its own (ours listed by our reader, marisa's
and CompletionDAWG's keys, DAWG's looked up one by one, gzip's decompressed) and compared
with the list: a build whose file does not hold the list's words gets a note in place of
its time, never a figure.

"ours" is ``build_dictionary(list, out)``: it reads, decodes and normalizes the raw list
before building and writing (with fsync). marisa and dawg get a ready list of words, so
"ours, ready list" (``compile_words(words)`` + the same atomic write) is the fair
comparison. A 10-word dictionary is opened too, to show that opening does not grow with
size. Machines here are noisy: trust the ratios within one run more than absolute figures.

    python scripts/bench_build.py [--lists fr en enable2k] [--repeat 5] [--opens 200]
    python scripts/bench_build.py --lists fr --sizes 1000000 3000000 10000000 --size-repeat 3

``--sizes`` adds the scaling table: synthetic lists of N distinct words
(``scripts/make_synthetic.py``, unsorted, written to the temporary folder and removed
after use), built by ours from the file and by dawg2 from the list in memory. Each
child's build also reports its CPU seconds, which a shared machine disturbs less than
wall time.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "boggle_dafsa" / "data"
DEFAULT_OUTPUT = Path(tempfile.gettempdir()) / "bench_build_result.md"

# Targets from the issue (French list, this 2-core machine).
TARGET_BUILD_SECONDS = 2.0
TARGET_PEAK_MB = 64.0
TARGET_OPEN_US = 1000.0
TARGET_SIZE_RATIO = 1.5
# From the streaming-builder issue: French build ≤ 2× dawg2's DAWG; 10 M words ≤ 500 MB.
TARGET_DAWG_RATIO = 2.0
TARGET_10M_PEAK_MB = 500.0

# Run in each child as `python -c CHILD task-json`; prints one JSON object on stdout.
# Everything a task needs is imported before the clock starts; the word list handed to
# marisa/dawg is read before it too (it is part of their peak RSS, as it is of ours).
CHILD = r'''
import json, resource, statistics, sys, time
from pathlib import Path

task = json.loads(sys.argv[1])
kind, method = task["kind"], task.get("method")


def ready_words():
    return Path(task["list"]).read_text(encoding="utf-8").split()


def build():
    import os
    cpu = os.times()
    result = _build()
    after = os.times()
    result["cpu"] = (after.user - cpu.user) + (after.system - cpu.system)
    return result


def _build():
    out = Path(task["out"])
    if method in ("ours", "ours_pure", "ours_v1"):
        from boggle_dafsa.dictionaries.build import build_dictionary
        version = {"format_version": 1} if method == "ours_v1" else {}
        started = time.perf_counter()
        build_dictionary(task["list"], out, **version)
    elif method == "ours_ready":
        from boggle_dafsa.dictionaries.build import compile_words
        from boggle_dafsa.files.atomic import write_atomically
        words = ready_words()
        started = time.perf_counter()
        write_atomically(out, compile_words(words))
    elif method == "marisa":
        import marisa_trie
        words = ready_words()
        started = time.perf_counter()
        marisa_trie.Trie(words).save(str(out))
    elif method in ("dawg", "completion_dawg"):
        import dawg
        words = ready_words()
        cls = dawg.DAWG if method == "dawg" else dawg.CompletionDAWG
        started = time.perf_counter()
        cls(words).save(str(out))
    elif method == "gzip":
        import gzip
        data = Path(task["list"]).read_bytes()
        started = time.perf_counter()
        out.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    elif method == "dict_trie":
        # What a user would otherwise do at every start: load the list into nested dicts.
        started = time.perf_counter()
        root = {}
        for word in ready_words():
            node = root
            for letter in word:
                node = node.setdefault(letter, {})
            node["$"] = True
        return {"seconds": time.perf_counter() - started, "size": None}
    else:
        raise SystemExit(f"unknown method {method}")
    return {"seconds": time.perf_counter() - started, "size": out.stat().st_size}


def opener():
    """A function that opens the file once (and closes it when the format can)."""
    path = task["path"]
    if method == "ours":
        from boggle_dafsa.automaton.reader import NativeDictionary
        def open_once():
            d = NativeDictionary(path)
            d.close()
        def check():
            with NativeDictionary(path) as d:
                return task["probe"] in d
    elif method == "marisa":
        import marisa_trie
        def open_once():
            marisa_trie.Trie().mmap(path)
        def check():
            return task["probe"] in marisa_trie.Trie().mmap(path)
    elif method in ("dawg", "completion_dawg"):
        import dawg
        cls = dawg.DAWG if method == "dawg" else dawg.CompletionDAWG
        def open_once():
            cls().load(path)
        def check():
            return task["probe"] in cls().load(path)
    elif method == "gzip":
        import gzip
        def open_once():
            gzip.decompress(Path(path).read_bytes()).split()
        def check():
            return task["probe"].encode() in set(gzip.decompress(Path(path).read_bytes()).split())
    else:
        raise SystemExit(f"unknown method {method}")
    return open_once, check


def open_times():
    open_once, check = opener()
    if not check():  # outside the clock: the file really answers
        raise SystemExit(f"{method}: {task['probe']!r} not found in {task['path']}")
    times = []
    budget = time.perf_counter() + task["budget"]
    for _ in range(task["count"]):
        started = time.perf_counter()
        open_once()
        times.append(time.perf_counter() - started)
        if time.perf_counter() > budget:
            break
    return {"median_us": statistics.median(times) * 1e6, "min_us": min(times) * 1e6, "opens": len(times)}


def read_back():
    """Whether the file a build wrote holds exactly the list's words (in a child of its own,
    after the build's child: never inside a measured build). A time is printed only for a
    file that reads back (the 1M-, 3M- and 7M-word files once timed here did not open)."""
    out = Path(task["out"])
    if method == "dict_trie":
        return {"ok": True, "why": ""}
    if method == "gzip":
        import gzip
        same = gzip.decompress(out.read_bytes()) == Path(task["list"]).read_bytes()
        return {"ok": same, "why": "" if same else "the list does not decompress back"}
    expected = sorted(set(ready_words()), key=lambda word: word.encode("utf-8"))
    if method.startswith("ours"):
        from boggle_dafsa.formats import open_path
        found = list(open_path(out))
    elif method == "marisa":
        import marisa_trie
        trie = marisa_trie.Trie()
        trie.load(str(out))
        found = sorted(trie.keys(), key=lambda word: word.encode("utf-8"))
    else:
        import dawg
        loaded = (dawg.DAWG if method == "dawg" else dawg.CompletionDAWG)().load(str(out))
        if method == "completion_dawg":
            found = sorted(loaded.keys(), key=lambda word: word.encode("utf-8"))
        else:  # a DAWG does not list its keys: each one looked up, and the count of prefixes
            found = expected if all(word in loaded for word in expected) else []
    if found == expected:
        return {"ok": True, "why": ""}
    return {"ok": False, "why": f"{len(found):,} words read back, {len(expected):,} in the list" + ("" if len(found) != len(expected) else ", other words")}


def peak_rss_kb():
    """This process's peak RSS in KiB.

    VmHWM where there is /proc: Linux's ru_maxrss survives exec, so after subprocess's
    vfork it starts at the *parent's* peak; VmHWM belongs to the new address space only.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS


result = {"bare": dict, "build": build, "open": open_times, "read_back": read_back}[kind]()
result["maxrss_kb"] = peak_rss_kb()
print(json.dumps(result))
'''

# Display names, in table order; "ready" methods get a prepared list of words.
METHODS = {
    "ours": "ours (raw list)",
    "ours_ready": "ours (ready list)",
    "ours_pure": "ours, pure-Python kernel (BOGGLE_DAFSA_PURE=1)",
    "ours_v1": "ours, format version 1 (raw list, `build --format-version 1`)",
    "marisa": "marisa-trie",
    "dawg": "dawg2 DAWG",
    "completion_dawg": "dawg2 CompletionDAWG",
    "gzip": "gzip -9 of the list",
    "dict_trie": "dict-of-dicts trie loaded from the list (no file; load = every start)",
}
# Which built file each method opens ("ours_ready" writes the same bytes as "ours").
OPENED_AS = {"ours": "ours", "marisa": "marisa", "dawg": "dawg", "completion_dawg": "completion_dawg", "gzip": "gzip"}


class ChildFailed(Exception):
    """A measuring subprocess exited with an error."""


def run_child(task: dict[str, object], timeout: float = 600.0) -> dict[str, float]:
    """Run one measuring task in a fresh interpreter and return its JSON result."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")])))
    if task.get("method") == "ours_pure":
        env["BOGGLE_DAFSA_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(task)], capture_output=True, text=True, timeout=timeout, env=env
    )
    if done.returncode != 0:
        last_line = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise ChildFailed(f"{task.get('method')}: {last_line}")
    return json.loads(done.stdout)


def check_read_back(method: str, list_path: Path, out: Path, row: Row) -> bool:
    """True if the file ``method`` just built holds the list's words; else the row's note
    says why, and the build's time is never printed."""
    try:
        verdict = run_child({"kind": "read_back", "method": method, "list": str(list_path), "out": str(out)}, timeout=3600)
    except (ChildFailed, subprocess.TimeoutExpired) as error:
        row.note = f"the file does not read back ({error}): no time printed"
        return False
    if not verdict["ok"]:
        row.note = f"the file does not read back ({verdict['why']}): no time printed"
        return False
    return True


@dataclass
class Row:
    """The measurements of one method on one list."""

    list_name: str
    words: int
    method: str
    seconds: list[float] = field(default_factory=list)
    maxrss_kb: list[int] = field(default_factory=list)
    size: int | None = None
    open_median_us: float | None = None
    open_min_us: float | None = None
    note: str = ""

    @property
    def build_median(self) -> float | None:
        """Median build seconds, if any build succeeded."""
        return statistics.median(self.seconds) if self.seconds else None

    @property
    def peak_mb(self) -> float | None:
        """Median peak RSS of the builds, MiB."""
        return statistics.median(self.maxrss_kb) / 1024 if self.maxrss_kb else None


def machine_line() -> str:
    """nproc, CPU, Python and competitor versions, for the table header."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = []
    for dist in ("marisa-trie", "DAWG2"):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{dist} not installed")
    return f"nproc {usable}, {cpu}, Python {platform.python_version()} ({platform.system()} {platform.machine()}), " + ", ".join(
        versions
    )


def unpack_lists(names: list[str], folder: Path) -> dict[str, Path]:
    """Decompress the embedded lists to ``folder``, plus a 10-word "tiny" list taken from the first."""
    paths = {}
    for name in names:
        path = folder / f"{name}.txt"
        path.write_bytes(lzma.decompress((DATA / f"{name}.txt.xz").read_bytes()))
        paths[name] = path
    words = paths[names[0]].read_text(encoding="utf-8").split()
    step = len(words) // 10
    tiny = folder / "tiny.txt"
    tiny.write_text("".join(words[i * step] + "\n" for i in range(10)), encoding="utf-8")
    paths["tiny"] = tiny
    return paths


def available_methods() -> tuple[list[str], list[str]]:
    """The methods whose library imports here, and a note for each one skipped."""
    methods, notes = ["ours", "ours_ready", "ours_v1"], []
    for method, module in (("marisa", "marisa_trie"), ("dawg", "dawg")):
        # In a child, so that the parent stays a bare interpreter and a crash stays contained.
        done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
            notes.append(f"{METHODS[method]} skipped: `import {module}` failed ({reason})")
            continue
        methods += ["marisa"] if method == "marisa" else ["dawg", "completion_dawg"]
    return methods + ["gzip", "dict_trie"], notes


def measure(
    paths: dict[str, Path], methods: list[str], repeat: int, opens: int, folder: Path, log: Callable[[str], None]
) -> list[Row]:
    """Build every list with every method ``repeat`` times (taking turns), then time opens."""
    rows: dict[tuple[str, str], Row] = {}
    for list_name, list_path in paths.items():
        words = len(list_path.read_text(encoding="utf-8").split())
        for method in methods:
            rows[list_name, method] = Row(list_name, words, method)
    for list_name, list_path in paths.items():
        rounds = 1 if list_name == "tiny" else repeat
        for round_number in range(rounds):
            log(f"  {list_name}: build round {round_number + 1}/{rounds}")
            for method in methods:
                row = rows[list_name, method]
                if row.note:
                    continue
                out = folder / f"{list_name}.{method}"
                try:
                    result = run_child({"kind": "build", "method": method, "list": str(list_path), "out": str(out)})
                except (ChildFailed, subprocess.TimeoutExpired) as error:
                    row.note = f"build failed: {error}"
                    continue
                if not check_read_back(method, list_path, out, row):
                    continue
                row.seconds.append(result["seconds"])
                row.maxrss_kb.append(int(result["maxrss_kb"]))
                row.size = None if result["size"] is None else int(result["size"])
        probe = list_path.read_text(encoding="utf-8").split()[-1]
        log(f"  {list_name}: opens")
        for method, opened in OPENED_AS.items():
            row = rows.get((list_name, method))
            if row is None or row.note or row.size is None:
                continue
            # Decompressing a whole list takes tens of ms: cap it by time, not count.
            task = {
                "kind": "open", "method": opened, "path": str(folder / f"{list_name}.{opened}"),
                "probe": probe, "count": opens, "budget": 3.0,
            }  # fmt: skip
            try:
                result = run_child(task)
            except (ChildFailed, subprocess.TimeoutExpired) as error:
                row.note = f"open failed: {error}"
                continue
            row.open_median_us, row.open_min_us = result["median_us"], result["min_us"]
    return list(rows.values())


def same_as_pure(paths: dict[str, Path], folder: Path) -> list[str]:
    """Notes saying whether ours (C kernel) wrote the same bytes as the pure-Python kernel."""
    notes = []
    for list_name, list_path in paths.items():
        ours = folder / f"{list_name}.ours"
        if list_name == "tiny" or not ours.is_file():
            continue
        pure = folder / f"{list_name}.ours_pure"
        try:
            run_child({"kind": "build", "method": "ours_pure", "list": str(list_path), "out": str(pure)})
        except (ChildFailed, subprocess.TimeoutExpired) as error:
            notes.append(f"{list_name}: pure-Python build failed ({error})")
            continue
        same = ours.read_bytes() == pure.read_bytes()
        notes.append(
            f"{list_name}: the file is {'byte for byte the same as' if same else '**NOT** the same as'} "
            "the pure-Python builder's (the builder before the compiled one)"
        )
    return notes


@dataclass
class SizeRow:
    """One synthetic list size: ours (from the file) and dawg2 (from the list in memory)."""

    words: int
    list_bytes: int = 0
    runs: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def median(self, method: str, key: str) -> float | None:
        values = self.runs.get(method, {}).get(key)
        return statistics.median(values) if values else None


def measure_sizes(sizes: list[int], methods: list[str], repeat: int, folder: Path, log: Callable[[str], None]) -> list[SizeRow]:
    """Build synthetic lists of each size with ours and dawg2, taking turns; lists removed after use."""
    rows = []
    contenders = ["ours"] + (["dawg"] if "dawg" in methods else [])
    for count in sizes:
        row = SizeRow(count)
        rows.append(row)
        list_path = folder / f"synthetic-{count}.txt"
        log(f"  synthetic {count:,}: generating")
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_synthetic.py"), str(count), str(list_path)], check=True)
        row.list_bytes = list_path.stat().st_size
        try:
            for round_number in range(repeat):
                log(f"  synthetic {count:,}: build round {round_number + 1}/{repeat}")
                for method in contenders:
                    out = folder / f"synthetic.{method}"
                    try:
                        result = run_child(
                            {"kind": "build", "method": method, "list": str(list_path), "out": str(out)}, timeout=3600
                        )
                    except (ChildFailed, subprocess.TimeoutExpired) as error:
                        row.notes.append(f"{method} failed: {error}")
                        continue
                    checked = Row(f"synthetic {count:,}", count, method)
                    if not check_read_back(method, list_path, out, checked):
                        row.notes.append(f"{method}: {checked.note}")
                        continue
                    measured = row.runs.setdefault(method, {"seconds": [], "cpu": [], "peak_mb": []})
                    measured["seconds"].append(result["seconds"])
                    measured["cpu"].append(result["cpu"])
                    measured["peak_mb"].append(result["maxrss_kb"] / 1024)
                    row.sizes[method] = int(result["size"])
                    out.unlink(missing_ok=True)
                    Path(f"{out}.meta.json").unlink(missing_ok=True)
        finally:
            list_path.unlink(missing_ok=True)
    return rows


def render_sizes(rows: list[SizeRow], repeat: int) -> list[str]:
    """The scaling table and its targets."""

    def fmt(value: float | None, pattern: str = "{:.2f}") -> str:
        return "–" if value is None else pattern.format(value)

    lines = [
        "",
        "### Scaling: synthetic lists (scripts/make_synthetic.py, unsorted)",
        "",
        f"Median of {repeat} fresh processes. ours = `build_dictionary(file)` (read, normalize, sort in spilled runs, "
        "build, write); dawg2 = `dawg.DAWG(words).save()`, handed the list already in memory (its peak includes it). "
        "CPU s = user + system seconds of the child.",
        "",
        "| words | list MB | ours s | ours CPU s | dawg2 s | dawg2 CPU s | ours ÷ dawg2 (wall, CPU) "
        "| ours peak MB | dawg2 peak MB | ours file bytes | dawg2 file bytes |",
        "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    targets = []
    for row in rows:
        ours_s, dawg_s = row.median("ours", "seconds"), row.median("dawg", "seconds")
        ours_cpu, dawg_cpu = row.median("ours", "cpu"), row.median("dawg", "cpu")
        ours_mb, dawg_mb = row.median("ours", "peak_mb"), row.median("dawg", "peak_mb")
        ratio = "–"
        if ours_s and dawg_s and ours_cpu and dawg_cpu:
            ratio = f"{ours_s / dawg_s:.2f}, {ours_cpu / dawg_cpu:.2f}"
        lines.append(
            f"| {row.words:,} | {row.list_bytes / 2**20:.0f} | {fmt(ours_s)} | {fmt(ours_cpu)} | {fmt(dawg_s)} "
            f"| {fmt(dawg_cpu)} | {ratio} | {fmt(ours_mb, '{:.0f}')} | {fmt(dawg_mb, '{:.0f}')} "
            f"| {row.sizes.get('ours', 0):,} | {row.sizes.get('dawg', 0):,} |"
        )
        if ours_s and dawg_s and ours_mb and dawg_mb:
            ok = ours_s <= dawg_s and ours_mb <= dawg_mb
            targets.append(
                f"- {row.words:,} words: build ≤ dawg2's ({ours_s:.2f} s vs {dawg_s:.2f} s) and peak ≤ dawg2's "
                f"({ours_mb:.0f} MB vs {dawg_mb:.0f} MB) — {'met' if ok else '**MISSED**'}"
            )
        if row.words >= 10_000_000 and ours_mb:
            targets.append(
                f"- {row.words:,} words: peak ≤ {TARGET_10M_PEAK_MB:g} MB: {ours_mb:.0f} MB — "
                f"{'met' if ours_mb <= TARGET_10M_PEAK_MB else '**MISSED**'}"
            )
        targets += [f"- {row.words:,} words: {note}" for note in row.notes]
    return lines + ["", "Targets (scaling):", ""] + targets


def fmt_seconds(row: Row) -> str:
    """Build seconds: "median (min)", or the single figure."""
    if not row.seconds:
        return "–"
    if len(row.seconds) == 1:
        return f"{row.seconds[0]:.3f}"
    return f"{row.build_median:.3f} ({min(row.seconds):.3f})"


def fmt_open(row: Row) -> str:
    """Open µs: "median (min)"."""
    if row.open_median_us is None:
        return "–" if row.method != "ours_ready" else "= ours"
    return f"{row.open_median_us:,.1f} ({row.open_min_us:,.1f})"


def render(rows: list[Row], bare_kb: float, header: list[str], notes: list[str], repeat: int, opens: int) -> str:
    """The Markdown report: header, table, ratios, targets."""
    by_key = {(row.list_name, row.method): row for row in rows}
    lines = header + [
        "",
        f"Build: median (min) of {repeat} fresh processes (1 for tiny), seconds of the build call only. "
        f"Peak RSS: median of those processes' peak (VmHWM); a bare interpreter peaks at {bare_kb / 1024:.1f} MB. "
        f"Open: median (min) over up to {opens} opens in one process (gzip: decompress + split, capped at 3 s), µs.",
        "",
        "| list | words | method | build s | peak RSS MB | above bare MB | file bytes | ÷ dawg2 DAWG | open µs |",
        "|---|--:|---|--:|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        dawg = by_key.get((row.list_name, "dawg"))
        ratio = f"{row.size / dawg.size:.2f}" if row.size and dawg and dawg.size else "–"
        peak = f"{row.peak_mb:.1f}" if row.peak_mb is not None else "–"
        above = f"{row.peak_mb - bare_kb / 1024:.1f}" if row.peak_mb is not None else "–"
        size = f"{row.size:,}" if row.size is not None else "–"
        method = METHODS[row.method] + (f" — {row.note}" if row.note else "")
        lines.append(
            f"| {row.list_name} | {row.words:,} | {method} | {fmt_seconds(row)} | {peak} | {above} "
            f"| {size} | {ratio} | {fmt_open(row)} |"
        )

    lines += ["", "Ratios in this run (ours from a ready list ÷ competitor; < 1 means ours is smaller/faster):", ""]
    lists = list(dict.fromkeys(row.list_name for row in rows if row.list_name != "tiny"))
    for list_name in lists:
        ours = by_key[list_name, "ours_ready"]
        parts = []
        for method in ("marisa", "dawg", "completion_dawg"):
            other = by_key.get((list_name, method))
            if not other or not other.seconds or not ours.seconds:
                continue
            parts.append(
                f"{METHODS[method]}: build ×{ours.build_median / other.build_median:.2f}, "
                f"peak above bare ×{(ours.peak_mb - bare_kb / 1024) / max(other.peak_mb - bare_kb / 1024, 0.1):.2f}, "
                f"size ×{ours.size / other.size:.2f}"
            )
        lines.append(f"- {list_name}: " + ("; ".join(parts) or "no competitor measured"))

    lines += ["", "Targets (from the issue):", ""]
    lines += check_targets(by_key, lists, bare_kb)
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def check_targets(by_key: dict[tuple[str, str], Row], lists: list[str], bare_kb: float) -> list[str]:
    """One line per target: met or MISSED, with the figure."""

    def verdict(ok: bool) -> str:
        return "met" if ok else "**MISSED**"

    lines = []
    french = by_key.get(("fr", "ours"))
    if french and french.seconds:
        lines.append(
            f"- French build ≤ {TARGET_BUILD_SECONDS:g} s (raw list, read + normalize + build + write): "
            f"median {french.build_median:.2f} s — {verdict(french.build_median <= TARGET_BUILD_SECONDS)}"
        )
        above = french.peak_mb - bare_kb / 1024
        lines.append(
            f"- French build ≤ {TARGET_PEAK_MB:g} MB peak: {french.peak_mb:.1f} MB peak RSS — "
            f"{verdict(french.peak_mb <= TARGET_PEAK_MB)}"
            f" ({above:.1f} MB above a bare interpreter — {verdict(above <= TARGET_PEAK_MB)})"
        )
    else:
        lines.append("- French targets: French list not measured (add `--lists fr`)")
    dawg_fr = by_key.get(("fr", "dawg"))
    if french and french.seconds and dawg_fr and dawg_fr.seconds:
        ratio = french.build_median / dawg_fr.build_median
        lines.append(
            f"- French build (raw list) ≤ {TARGET_DAWG_RATIO:g}× dawg2 DAWG (ready list): {french.build_median:.3f} s / "
            f"{dawg_fr.build_median:.3f} s = {ratio:.2f}× — {verdict(ratio <= TARGET_DAWG_RATIO)}"
        )
    opened = [row for (_, method), row in by_key.items() if method == "ours" and row.open_median_us is not None]
    if opened:
        worst = max(opened, key=lambda row: row.open_median_us or 0.0)
        lines.append(
            f"- open ≤ {TARGET_OPEN_US / 1000:g} ms whatever the size: slowest median {worst.open_median_us:.1f} µs "
            f"({worst.list_name}); "
            + ", ".join(f"{row.list_name} {row.open_median_us:.1f} µs" for row in opened)
            + f" — {verdict(worst.open_median_us <= TARGET_OPEN_US)}"
        )
    for list_name in lists:
        ours, dawg = by_key[list_name, "ours"], by_key.get((list_name, "dawg"))
        if ours.size and dawg and dawg.size:
            ratio = ours.size / dawg.size
            lines.append(
                f"- {list_name} file ≤ {TARGET_SIZE_RATIO:g}× dawg2 DAWG: "
                f"{ours.size:,} / {dawg.size:,} = {ratio:.2f}× — "
                f"{verdict(ratio <= TARGET_SIZE_RATIO)}"
            )
        else:
            lines.append(f"- {list_name} file ≤ {TARGET_SIZE_RATIO:g}× dawg2 DAWG: dawg2 not measured")
        # Format version 2 (issue 22): the default file no larger than marisa-trie's nor dawg2's.
        peers = [(name, by_key.get((list_name, method))) for name, method in (("marisa-trie", "marisa"), ("dawg2", "dawg"))]
        sizes = [(name, row.size) for name, row in peers if row and row.size]
        if ours.size and sizes:
            ok = all(ours.size <= size for _, size in sizes)
            lines.append(
                f"- {list_name} default file ≤ marisa-trie's and dawg2's: {ours.size:,} vs "
                + ", ".join(f"{name} {size:,}" for name, size in sizes)
                + f" — {verdict(ok)}"
            )
        v1 = by_key.get((list_name, "ours_v1"))
        if ours.size and ours.seconds and v1 and v1.size and v1.seconds:
            lines.append(
                f"- {list_name} version 2 vs version 1: size {ours.size:,} / {v1.size:,} = {ours.size / v1.size:.2f}×, "
                f"build {ours.build_median:.3f} s / {v1.build_median:.3f} s = {ours.build_median / v1.build_median:.2f}× "
                f"(≤ 1.10: {verdict(ours.build_median <= 1.10 * v1.build_median)}), peak {ours.peak_mb:.1f} / "
                f"{v1.peak_mb:.1f} MB = {ours.peak_mb / v1.peak_mb:.2f}× (≤ 1.10: {verdict(ours.peak_mb <= 1.10 * v1.peak_mb)})"
            )
    if french and french.size:
        per_word = french.size / french.words
        lines.append(f"- fr ≤ 1.0 byte per word: {per_word:.3f} — {verdict(per_word <= 1.0)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--lists", nargs="+", default=["fr", "en"], choices=["fr", "en", "enable2k"], help="embedded lists (default: fr en)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="fresh-process builds per list and method (default 5)")
    parser.add_argument("--opens", type=int, default=200, help="opens timed per file (default 200)")
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help=f"also write the report here (default {DEFAULT_OUTPUT})"
    )
    parser.add_argument("--sizes", nargs="*", type=int, default=[], help="synthetic list sizes for the scaling table")
    parser.add_argument("--size-repeat", type=int, default=3, help="builds per synthetic size and method (default 3)")
    args = parser.parse_args()
    if args.repeat < 1 or args.opens < 1:
        parser.error("--repeat and --opens must be at least 1")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    command = shlex.join(["python", "scripts/bench_build.py", *sys.argv[1:]])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_build.") as temporary:
        folder = Path(temporary)
        paths = unpack_lists(args.lists, folder)
        methods, notes = available_methods()
        bare_kb = statistics.median(run_child({"kind": "bare"})["maxrss_kb"] for _ in range(3))
        log(f"bare interpreter: {bare_kb / 1024:.1f} MB; methods: {', '.join(methods)}")
        rows = measure(paths, methods, args.repeat, args.opens, folder, log)
        same_notes = same_as_pure(paths, folder)
        size_rows = measure_sizes(args.sizes, methods, args.size_repeat, folder, log) if args.sizes else []
    header = [
        "## Build and open benchmark",
        "",
        f"Machine: {machine_line()}.  ",
        f"Command: `{command}` (run from the repository root; took {time.perf_counter() - started:.0f} s).",
    ]
    notes += [
        "ours (raw list) includes reading, decoding and normalizing the list, and an fsync'd atomic write; "
        "marisa and dawg2 get a ready list of words and a plain save.",
        f"tiny = 10 words taken from the {args.lists[0]} list, to show that opening does not grow with size.",
        "dawg2 `load` reads the whole file into memory; marisa `mmap` and ours map it.",
    ]
    report = render(rows, bare_kb, header, notes + same_notes, args.repeat, args.opens)
    if size_rows:
        report += "\n".join(render_sizes(size_rows, args.size_repeat)) + "\n"
    print(report, end="")
    args.output.write_text(report, encoding="utf-8")
    log(f"written to {args.output}")


if __name__ == "__main__":
    main()
