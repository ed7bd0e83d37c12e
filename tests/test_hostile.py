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
import random
import resource
import shlex
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from boggle_dafsa.dictionaries.build import compile_words
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
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        preexec_fn=_limit,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "BOGGLE_DAFSA_DICT": str(folder / "small.dafsa")},
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
    data = bytearray(compile_words(["ABC", "ABD"], version=1, index=False))  # its cells alone, poked below
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
    (folder / "over-the-cap.txt").write_bytes(_random_words(1_000_000, 14, seed=1))
    return folder


def _random_words(count: int, length: int, seed: int) -> bytes:
    """``count`` random words of ``length`` letters A–Z, one a line: they share almost no
    endings, so their automaton needs about one state per letter (a million words of 14
    letters: over 4,194,304 states, the builder's cap)."""
    table = bytes(65 + byte % 26 for byte in range(256))
    data = bytearray(random.Random(seed).randbytes(count * (length + 1)).translate(table))
    data[length :: length + 1] = b"\n" * count
    return bytes(data)


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
    "build a list over the state cap": "BD build over-the-cap.txt -o capped.dafsa; s=$?; [ ! -e capped.dafsa ] || exit 9; exit $s",
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


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LINES))
def test_no_traceback_no_hang_bounded_memory(folder: Path, name: str) -> None:
    shell = LINES[name]
    assert_clean(run(shell, folder), shell, refused=" on " not in name and name not in ACCEPTED)
    assert not [entry for entry in os.listdir(folder) if entry.endswith(".tmp")]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cycle.dafsa", "cycle-lying.dafsa", "combinatorial.dawg"])
def test_walking_a_hostile_dictionary_is_refused_as_damaged(folder: Path, name: str) -> None:
    for command in ("dump", "complete A", "verify small.txt"):
        shell = f"BD {command} -d {name} > /dev/null"
        result = run(shell, folder)
        assert_clean(result, shell)
        assert "damaged" in result.stderr, shell


@pytest.mark.slow
def test_the_checker_can_fail(folder: Path) -> None:
    crash = run("python3 -c 'raise ValueError(1)'", folder)
    with pytest.raises(AssertionError):
        assert_clean(crash, "crash")


@pytest.mark.slow
def test_timeout_ends_finds_worst_case_cleanly(folder: Path) -> None:
    # The worst case of `find` (see its docstring: some 40 s) given one second.
    word = "A" * 11 + "BAB" + "A" * 11
    shell = f"BD find BAAAA/AAAAA/AAAAA/AAAAA/AAAAB {word} --timeout 1"
    result = run(shell, folder)
    assert_clean(result, shell)
    assert "time limit of 1 s" in result.stderr
    quick = run("BD find AB/CD ABCD --timeout 60 -d small.dafsa", folder)
    assert quick.returncode == 0 and "on the grid" in quick.stdout


# -- set algebra: its outputs are written like build's ----------------------------------

SET_OPERATIONS = ("union", "intersect", "diff")


@pytest.mark.slow
@pytest.mark.parametrize("operation", SET_OPERATIONS)
def test_set_algebra_never_writes_through_a_link_nor_damages_its_output(folder: Path, operation: str) -> None:
    work = folder / f"set-{operation}"
    work.mkdir()
    (work / "precious.txt").write_text("precious\n")
    (work / "link.dafsa").symlink_to(work / "precious.txt")
    os.mkfifo(work / "fifo")
    shell = f"BD {operation} small.dafsa small.dafsa -o {work}/link.dafsa -q"
    result = run(shell, folder)
    assert_clean(result, shell, refused=False)
    assert result.returncode == 0 and not (work / "link.dafsa").is_symlink(), result.stderr
    assert (work / "precious.txt").read_text() == "precious\n"
    # A good output exists; every refusal below must leave it as it was, byte for byte.
    good = work / "good.dafsa"
    assert run(f"BD {operation} small.dafsa small.dafsa -o {good} -q", folder).returncode == 0
    before = good.read_bytes()
    refusals = [f"BD {operation} small.dafsa small.dafsa -o {target}" for target in (f"{work}/fifo", work, f"{work}/{'n' * 300}")]
    refusals += [
        f"BD {operation} small.dafsa {name} -o {good}"
        for name in ("cycle.dafsa", "cycle-lying.dafsa", "combinatorial.dawg", "nested.dawg", "/dev/zero", "missing.dafsa")
    ]
    for shell in refusals:
        assert_clean(run(shell, folder), shell)
        assert good.read_bytes() == before, shell
    assert (work / "fifo").is_fifo() and [e for e in os.listdir(work) if e.endswith(".tmp")] == []


def test_set_algebra_over_the_state_cap_is_one_line_and_leaves_the_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two dictionaries under the cap whose union is over it: the union stops with the
    # builder's line (the cap made small here: at 4M states the merge takes minutes), and
    # the output already there is untouched.
    from boggle_dafsa.errors import DictionaryError
    from boggle_dafsa.files import limits
    from boggle_dafsa.formats import open_path
    from boggle_dafsa.query.setops import write_set

    words = sorted(_random_words(300, 8, seed=2).decode().split())
    sizes = [write_dictionary(words[start::2], tmp_path / name).states for start, name in enumerate(("even.dafsa", "odd.dafsa"))]
    good = tmp_path / "good.dafsa"
    write_dictionary(["CHAT"], good)
    before = good.read_bytes()
    halves = [open_path(tmp_path / name) for name in ("even.dafsa", "odd.dafsa")]
    cap = write_set(halves, "union", tmp_path / "scratch.dafsa").states - 1
    assert max(sizes) <= cap  # each half under the cap, their union one state over it
    monkeypatch.setattr(limits, "MAX_STATES", cap)
    with pytest.raises(DictionaryError) as caught:
        write_set(halves, "union", good)
    message = str(caught.value)
    assert message.startswith(f"{good}: union: the automaton needs more than {cap:,} states") and "\n" not in message
    assert good.read_bytes() == before and [e for e in os.listdir(tmp_path) if e.endswith(".tmp")] == []
    write_set(halves, "intersect", good)  # under the cap: written
    assert list(open_path(good)) == []


@pytest.mark.slow
@pytest.mark.parametrize("operation", SET_OPERATIONS)
def test_set_algebra_killed_at_any_step_leaves_the_previous_output(folder: Path, operation: str) -> None:
    from boggle_dafsa.files.atomic import FAULT_VARIABLE

    work = folder / f"killed-{operation}"
    work.mkdir()
    write_dictionary(["ARBRE", "CHAT"], work / "other.dafsa")
    command = f"BD {operation} small.dafsa {work}/other.dafsa -o {work}/good.dafsa -q"
    assert run(command, folder).returncode == 0
    good = work / "good.dafsa"
    after, before = good.read_bytes(), (folder / "small.dafsa").read_bytes()
    step = 0
    while True:
        step += 1
        good.write_bytes(before)
        result = run(f"{FAULT_VARIABLE}={step} {command}", folder)
        if result.returncode == 0:
            break
        assert result.returncode in (-9, 128 + 9), result.stderr  # killed: directly, or as seen by bash
        assert good.read_bytes() in (before, after), f"after SIGKILL at step {step}"
        deadline = time.monotonic() + 60
        while [e for e in os.listdir(work) if e.endswith(".tmp")] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [e for e in os.listdir(work) if e.endswith(".tmp")] == [], f"after SIGKILL at step {step}"
    assert step >= 3 and good.read_bytes() == after
