"""The bad-input battery: every command against hostile inputs, as real processes limited
to 2 GB of address space, with a time limit. None may print a traceback, hang, or die of
a signal; a refusal is one line on stderr and exit status 2.

Inputs: endless or enormous word lists, batch files, player files, dice files, grids and
standard input (/dev/zero, a 100 MB line, 100 MB of stdin, a 100,000-slash grid);
dictionaries whose checksums hold but whose automaton has a cycle or whose header lies,
combinatorial dawg files, damaged marisa files, absurd sidecars; outputs that cannot be
written. The cases are a representative cut (the suite must stay quick), chosen so that
each reader and each command is hit at least once.
"""

from __future__ import annotations

import os
import resource
import shlex
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from boggle_dafsa.build import compile_words
from boggle_dafsa.formats import write_dictionary
from boggle_dafsa.formats.sidecar import sidecar_path

#: The address-space limit of every command of the battery.
MEMORY = 2 << 30
#: Generous: a hang is caught, a loaded machine is not.
SECONDS = 90
COMMAND = f"{shlex.quote(sys.executable)} -c 'from boggle_dafsa.cli import main; main()'"
#: 100 MB of the letter a, without a line break, on standard input (never on disk).
HUNDRED_MB_LINE = "head -c 100000000 /dev/zero | tr '\\0' a"


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(shell: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """Run ``shell`` (where ``BD`` is the command) under the memory limit."""
    return subprocess.run(
        ["bash", "-c", "set -o pipefail; " + shell.replace("BD", COMMAND)],
        cwd=folder, capture_output=True, text=True, timeout=SECONDS, preexec_fn=_limit,
        stdin=subprocess.DEVNULL, env={**os.environ, "BOGGLE_DAFSA_DICT": str(folder / "small.dafsa")},
    )


def assert_clean(result: subprocess.CompletedProcess[str], shell: str, *, refused: bool = True) -> None:
    where = f"{shell}\n--- stderr:\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr, where
    assert result.returncode in ((2,) if refused else (0, 1, 2)), where
    if result.returncode == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("boggle-dafsa: "), where
        assert len(lines[0]) < 500, where


# -- hostile dictionaries ---------------------------------------------------------------


def _native_with_cycle(folder: Path, lie: bool) -> Path:
    """A native file whose checksums hold but whose automaton loops: the last state of
    ABC points back to the root state, so ABCABCABC... never ends. ``lie`` also makes the
    header claim 2**32 - 1 words of 2**32 - 1 letters."""
    data = bytearray(compile_words(["ABC", "ABD"]))
    header_size = struct.unpack_from("<I", data, 12)[0]
    cells = memoryview(data)[header_size:].cast("I")
    root = struct.unpack_from("<I", data, 44)[0]  # the root field of the fixed header
    # Walk A, B, C and turn C's target into the root.
    state = root
    for letter_bit in (0, 1):
        head = cells[state]
        state = cells[state + 1 + (head & ((1 << letter_bit) - 1)).bit_count()]
    head = cells[state]
    slot = state + 1 + (head & ((1 << 2) - 1)).bit_count()
    cells[slot] = root
    cells.release()
    if lie:
        struct.pack_into("<I", data, 24, 0xFFFFFFFF)  # words
        struct.pack_into("<I", data, 40, 0xFFFFFFFF)  # longest word
    struct.pack_into("<I", data, 52, zlib.crc32(bytes(data[header_size:])))
    struct.pack_into("<I", data, 92, 0)
    struct.pack_into("<I", data, 92, zlib.crc32(bytes(data[:header_size])))
    path = folder / ("cycle-lying.dafsa" if lie else "cycle.dafsa")
    path.write_bytes(bytes(data))
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "small.txt").write_text("chat\nchien\nniche\nnicher\nzoo\n")
    write_dictionary(["CHAT", "CHIEN", "NICHE", "NICHER", "ZOO"], folder / "small.dafsa")
    _native_with_cycle(folder, lie=False)
    _native_with_cycle(folder, lie=True)
    # Every string of A and B of 16 letters: 65,536 keys in a file of 17 states. The
    # sidecar says 5 words: its digest holds, its count does not.
    keys = ["".join("AB"[(n >> bit) & 1] for bit in range(16)) for n in range(1 << 16)]
    write_dictionary(sorted(keys), folder / "combinatorial.dawg", "dawg")
    meta = sidecar_path(folder / "combinatorial.dawg")
    meta.write_text(meta.read_text().replace('"words": 65536', '"words": 5'))
    write_dictionary(["CHAT", "ZOO"], folder / "nested.dawg", "dawg")
    sidecar_path(folder / "nested.dawg").write_text("[" * 30_000 + "]" * 30_000)
    (folder / "slashes.txt").write_text("A" + "/" * 100_000 + "B\n")
    (folder / "batch-line.txt").write_bytes(b"A" * 3_000_000)
    (folder / "dice.txt").write_bytes(b"AB" * 300_000)
    return folder


LINES = {
    # word lists
    "build /dev/zero": "BD build /dev/zero -o out.dafsa",
    "build a 100 MB line": f"{HUNDRED_MB_LINE} | BD build /dev/stdin -o out.dafsa",
    "build marisa from a 100 MB line": f"{HUNDRED_MB_LINE} > big.txt; BD build big.txt --format marisa -o out.marisa; s=$?; rm big.txt; exit $s",
    "build with punycode": "BD build small.txt --encoding punycode -o out.dafsa",
    "build with idna": "BD build small.txt --encoding idna -o out.dafsa",
    "build to a too-long name": "BD build small.txt -o " + "n" * 300,
    "build into a folder": "BD build small.txt -o .",
    "build to a pipe": "rm -f fifo; mkfifo fifo; BD build small.txt -o fifo",
    "verify against /dev/zero": "BD verify /dev/zero",
    "verify against a 100 MB line": f"{HUNDRED_MB_LINE} | BD verify /dev/stdin",
    "-d /dev/zero": "BD dump -d /dev/zero",
    # grids and batch files
    "a grid of 100,000 slashes": "BD solve $(cat slashes.txt)",
    "a grid of 100 MB on stdin": f"{HUNDRED_MB_LINE} | BD solve",
    "a grid from /dev/zero": "BD solve < /dev/zero",
    "a 1000x1000 grid": "BD solve -s 1000x1000 A",
    "batch of /dev/zero": "BD solve --batch /dev/zero",
    "batch line of 3 MB": "BD solve --batch batch-line.txt",
    "batch of a 100 MB line on stdin": f"{HUNDRED_MB_LINE} | BD solve --batch -",
    "find with a word of 100,000 letters": "BD find AB/CD $(head -c 100000 /dev/zero | tr '\\0' a) > /dev/null; [ $? = 1 ]",
    # player and dice files
    "player file /dev/zero": "BD score AB/CD /dev/zero",
    "player file with a 100 MB line": f"{HUNDRED_MB_LINE} | BD score AB/CD /dev/stdin",
    "dice file /dev/zero": "BD generate --dice /dev/zero",
    "dice file of one long line": "BD generate --dice dice.txt",
    "play with a 100 MB line": f"{HUNDRED_MB_LINE} | BD play --time 0 --seed 1",
    # hostile dictionaries
    "complete --limit 10**30 on dawg": "BD complete A --limit 1000000000000000000000000000000 -d combinatorial.dawg",
    "nested sidecar": "BD dump -d nested.dawg",
}
for command in ("dump", "complete AB", "inspect", "verify small.txt", "solve ABCA/BCAB/CABC/ABCA", "lookup ABC", "dot"):
    for name in ("cycle.dafsa", "cycle-lying.dafsa", "combinatorial.dawg"):
        LINES[f"{command.split()[0]} on {name}"] = f"BD {command} -d {name} > /dev/null"


#: Cases where a success is as good as a refusal (idna decodes an ASCII list).
ACCEPTED = {"build with idna", "build with punycode", "find with a word of 100,000 letters"}


@pytest.mark.parametrize("name", sorted(LINES))
def test_no_traceback_no_hang_bounded_memory(folder: Path, name: str) -> None:
    shell = LINES[name]
    assert_clean(run(shell, folder), shell, refused=" on " not in name and name not in ACCEPTED)
    assert not [entry for entry in os.listdir(folder) if entry.endswith(".tmp")]


@pytest.mark.parametrize("name", ["cycle.dafsa", "cycle-lying.dafsa", "combinatorial.dawg"])
def test_walking_a_hostile_dictionary_is_refused_as_damaged(folder: Path, name: str) -> None:
    for command in ("dump", "complete A", "verify small.txt"):
        shell = f"BD {command} -d {name} > /dev/null"
        result = run(shell, folder)
        assert_clean(result, shell)
        assert "damaged" in result.stderr, shell


def test_the_checker_can_fail(folder: Path) -> None:
    crash = run("python3 -c 'raise ValueError(1)'", folder)
    with pytest.raises(AssertionError):
        assert_clean(crash, "crash")


def test_timeout_ends_finds_worst_case_cleanly(folder: Path) -> None:
    # The worst case of `find` (see its docstring: some 40 s) given one second.
    word = "A" * 11 + "BAB" + "A" * 11
    shell = f"BD find BAAAA/AAAAA/AAAAA/AAAAA/AAAAB {word} --timeout 1"
    result = run(shell, folder)
    assert_clean(result, shell)
    assert "time limit of 1 s" in result.stderr
    quick = run("BD find AB/CD ABCD --timeout 60 -d small.dafsa", folder)
    assert quick.returncode == 0 and "on the grid" in quick.stdout
