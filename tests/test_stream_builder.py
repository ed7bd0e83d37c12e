"""The streaming builder: every kernel writes the same bytes as the reference builder; the
external sort sorts whatever the run size; --sorted stops at the first word out of order;
an interrupted build leaves no file behind."""

from __future__ import annotations

import codecs
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.automaton.builder import UnsortedInputError, build_automaton
from boggle_dafsa.automaton.compact import encode
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.automaton.stream import NativeWriter, sort_blocks
from boggle_dafsa.dictionaries.build import build_dictionary
from boggle_dafsa.errors import WordListError
from boggle_dafsa.formats.native import write_native
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.wordlist import digest_words, read_wordlist
from helpers.kernels import BUILDER, builder_kernel, built, each

kernel_names = each("builder")

ascii_words = st.lists(st.text(alphabet="ABCDE", min_size=1, max_size=8), max_size=60)
# Exact policy keeps any letter: several UTF-8 lengths, and over 32 letters (two header cells).
unicode_letters = st.characters(categories=("Lu", "Ll", "Lo"), max_codepoint=0x2FFFF)
unicode_words = st.lists(st.text(alphabet=unicode_letters, min_size=1, max_size=6), max_size=60)
mixed_words = st.one_of(
    ascii_words, unicode_words, st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJÉÑßœ𝔸", min_size=1, max_size=5))
)


def reference_file(words: list[str], policy: Policy = Policy.FOLD) -> bytes:
    """The file the plain in-memory builder and encoder give for sorted unique ``words``
    (with the word-number section, as the writers write by default)."""
    return encode(build_automaton(words), policy, digest_words(words), index=True)


def block(words: list[str]) -> bytes:
    return "".join(word + "\n" for word in words).encode("utf-8")


def letters(number: int) -> str:
    """``number`` written with the letters A–Z (a distinct word for each number)."""
    word = ""
    while True:
        number, digit = divmod(number, 26)
        word += chr(65 + digit)
        if not number:
            return word


def test_the_python_kernel_is_always_there() -> None:
    assert "python" in BUILDER


@pytest.mark.slow
@kernel_names
@given(words=mixed_words, policy=st.sampled_from(Policy), cut=st.integers(min_value=1, max_value=7))
def test_every_kernel_writes_the_reference_bytes(
    tmp_path_factory: pytest.TempPathFactory, kernel: str, words: list[str], policy: Policy, cut: int
) -> None:
    unique = sorted(set(words))
    writer = NativeWriter(builder_kernel(kernel))
    # Blocks of any size, and each word given twice: repeats are skipped, not counted.
    doubled = [word for word in unique for _ in range(2)]
    for start in range(0, len(doubled), cut):
        writer.add_block(block(doubled[start : start + cut]))
    path = tmp_path_factory.mktemp("k") / "d.dafsa"
    stats = writer.write(path, policy)
    assert path.read_bytes() == reference_file(unique, policy)
    assert stats.words == len(unique) and stats.file_bytes == path.stat().st_size
    assert stats.digest == digest_words(unique)


@pytest.mark.slow
@given(words=mixed_words)
def test_c_and_python_kernels_agree_byte_for_byte(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    if not built("builder"):
        pytest.skip("the C extension is not built here")
    folder = tmp_path_factory.mktemp("twins")
    unique = sorted(set(words))
    files = []
    for name in BUILDER:
        write_native(unique, folder / name, Policy.EXACT, kernel=builder_kernel(name))
        files.append((folder / name).read_bytes())
    assert files[0] == files[1]
    assert list(NativeDictionary(folder / "c")) == unique


@pytest.mark.slow
@kernel_names
@given(words=mixed_words, data=st.data())
def test_kernels_refuse_the_first_word_out_of_order(kernel: str, words: list[str], data: st.DataObject) -> None:
    unique = sorted(set(words))
    if len(unique) < 2:
        return
    i = data.draw(st.integers(min_value=1, max_value=len(unique) - 1))
    writer = NativeWriter(builder_kernel(kernel))
    message = f"word {unique[0]!r} is out of order after {unique[i]!r} (word {i + 2})"
    with pytest.raises(UnsortedInputError, match=re.escape(message)):
        writer.add_block(block(unique[: i + 1] + [unique[0]]))


@kernel_names
def test_kernels_refuse_bytes_that_are_not_utf8(kernel: str) -> None:
    writer = NativeWriter(builder_kernel(kernel))
    with pytest.raises(ValueError):
        writer.add_block(b"ABC\n\xff\xfe\n")


@pytest.mark.slow
@kernel_names
@given(
    lines=st.lists(st.text(alphabet="ABCÉ𝔸", max_size=5), max_size=80),
    run_bytes=st.integers(min_value=1, max_value=64),
    block_bytes=st.integers(min_value=1, max_value=32),
)
def test_external_sort_with_tiny_runs(
    tmp_path_factory: pytest.TempPathFactory, kernel: str, lines: list[str], run_bytes: int, block_bytes: int
) -> None:
    folder = tmp_path_factory.mktemp("sort")
    got: list[bytes] = []
    spills: list[int] = []
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    blocks = [piece + b"\n" for piece in data.split(b"\n")[:-1]]
    count = sort_blocks(
        blocks,
        got.append,
        kernel=builder_kernel(kernel),
        run_bytes=run_bytes,
        block_bytes=block_bytes,
        folder=folder,
        on_spill=spills.append,
    )
    expected = sorted({line for line in lines if line}, key=lambda word: word.encode("utf-8"))
    assert b"".join(got) == block(expected)
    assert count == len(expected)
    assert all(piece.endswith(b"\n") for piece in got)
    if len(data) > run_bytes:
        assert spills  # the runs really went to disk...
    assert list(folder.iterdir()) == []  # ...and are gone


@pytest.mark.slow
@kernel_names
def test_build_with_runs_spilled_matches_the_in_memory_build(tmp_path: Path, kernel: str) -> None:
    import lzma

    from boggle_dafsa.dictionaries.resolve import DATA_DIR

    words = lzma.decompress((DATA_DIR / "en.txt.xz").read_bytes()).decode().split()[::7]
    import random

    random.Random(3).shuffle(words)
    source = tmp_path / "list.txt"
    source.write_text("\n".join(word.lower() for word in words + words[:500]) + "\n", encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    report = build_dictionary(
        source, tmp_path / "d.dafsa", run_bytes=20_000, temporary_folder=temporary, kernel=builder_kernel(kernel)
    )
    expected = read_wordlist(source)
    assert (tmp_path / "d.dafsa").read_bytes() == reference_file(expected.words)
    assert report.words == len(expected.words) and report.duplicates == 500
    assert list(temporary.iterdir()) == []


@pytest.mark.slow
def test_sorted_flag_builds_the_same_file_and_stops_at_the_first_word_out_of_order(tmp_path: Path) -> None:
    from conftest import run_cli

    source = tmp_path / "sorted.txt"
    source.write_text("abc\nABC\nabd\nb\nc\n", encoding="utf-8")
    plain, fast = tmp_path / "plain.dafsa", tmp_path / "fast.dafsa"
    assert run_cli("build", str(source), "-o", str(plain), "-q").returncode == 0
    done = run_cli("build", str(source), "-o", str(fast), "--sorted")
    assert done.returncode == 0, done.stderr
    assert "duplicates    1" in done.stdout
    assert fast.read_bytes() == plain.read_bytes()

    source.write_text("ABC\nABD\nB\nAZ\nC\n", encoding="utf-8")
    refused = run_cli("build", str(source), "-o", str(fast), "--sorted")
    assert refused.returncode == 2
    assert refused.stderr == (
        f"boggle-dafsa: {source}: not sorted: word 'AZ' is out of order after 'B' (word 4) (leave out --sorted to sort it)\n"
    )
    assert fast.read_bytes() == plain.read_bytes()  # the old dictionary stays as it was
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.slow
def test_progress_goes_to_a_terminal_only(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    source = tmp_path / "list.txt"
    source.write_text("".join(f"W{'A' * (i % 7)}B{letters(i)}\n" for i in range(30_000, 0, -1)), encoding="utf-8")
    out = tmp_path / "d.dafsa"
    from conftest import COMMAND

    child = pexpect.spawn(COMMAND, ["build", str(source), "-o", str(out)], timeout=120, encoding="utf-8", dimensions=(24, 150))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # The bar's last frame, drawn when the build ends (then erased): the phase and the counts.
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)
    assert re.search(r"writing .*30,000 words · [0-9,]+ states", shown), shown
    piped = subprocess.run([COMMAND, "build", str(source), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""


def _runs_open(pid: int, folder: Path) -> int:
    # Run files have no name on Linux: they are seen among the build's open files.
    count = 0
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(entry).startswith(f"{folder}/")
        except OSError:
            pass
    return count


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="run files are unnamed only where /proc/self/fd exists")
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_an_interrupted_build_leaves_no_temporary_file(tmp_path: Path, how: signal.Signals) -> None:
    # A list big enough to take a while, read through a pipe that never ends: the build is
    # surely still sorting (runs spilled) when the signal comes. Even SIGKILL, which no
    # process can clean up after, leaves nothing: the runs and the output have no name
    # until the output is complete.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    feeder = (
        "import sys, itertools\n"
        "for i in itertools.count():\n"
        "    sys.stdout.write(''.join(f'W{j}Q{i}\\n' for j in range(i * 997 % 1000, 200000, 1000)).translate(str.maketrans('0123456789', 'ABCDEFGHIJ')))\n"
    )
    script = (
        "import os, sys\n"
        "os.environ['TMPDIR'] = sys.argv[2]\n"
        "import tempfile; tempfile.tempdir = None\n"
        "import boggle_dafsa.automaton.stream as s; s.RUN_BYTES = 20000\n"
        "from boggle_dafsa.cli import main; sys.argv = ['boggle-dafsa', 'build', '/dev/stdin', '-o', sys.argv[1]]; main()\n"
    )
    feed = subprocess.Popen([sys.executable, "-c", feeder], stdout=subprocess.PIPE)
    build = subprocess.Popen(
        [sys.executable, "-c", script, str(out_folder / "d.dafsa"), str(temporary)],
        stdin=feed.stdout,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert feed.stdout is not None
    feed.stdout.close()
    try:
        deadline = time.monotonic() + 120
        while _runs_open(build.pid, temporary) < 2 and time.monotonic() < deadline:
            assert build.poll() is None, build.stderr.read() if build.stderr else ""
            time.sleep(0.05)
        assert _runs_open(build.pid, temporary) >= 2, "no run was spilled"
        assert list(temporary.iterdir()) == []
        build.send_signal(how)
        build.wait(timeout=120)
    finally:
        feed.kill()
        feed.wait()
        if build.poll() is None:
            build.kill()
    assert build.returncode != 0
    assert list(temporary.iterdir()) == []
    assert list(out_folder.iterdir()) == []


@kernel_names
def test_kernel_stats(kernel: str) -> None:
    builder = builder_kernel(kernel).Builder()
    assert builder.add_lines(b"AB\nAB\nAC\n") == 2
    assert builder.stats()["words"] == 2
    builder.finish()
    stats = builder.stats()
    assert (stats["words"], stats["states"], stats["transitions"], stats["alphabet"]) == (2, 3, 3, "ABC")


def test_empty_and_blank_lists_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "blank.txt"
    source.write_text("\n\n  \n", encoding="utf-8")
    with pytest.raises(WordListError, match="is empty"):
        build_dictionary(source, tmp_path / "d.dafsa")
    source.write_text("a1\nb-c\n", encoding="utf-8")
    with pytest.raises(WordListError, match="no word left"):
        build_dictionary(source, tmp_path / "d.dafsa")
    assert not (tmp_path / "d.dafsa").exists()


list_texts = st.lists(
    st.one_of(
        st.text(alphabet="abcXYZéÉœßñ- '1 \t", min_size=0, max_size=8),
        st.sampled_from(["chat", "CHAT", "Chat", "élève", "eleve", "", "  ", "a;b", "c,d", "x\r\ny", "mot\r"]),
    ),
    max_size=40,
)


@pytest.mark.slow
@given(
    items=list_texts,
    separator=st.sampled_from(["\n", "\r\n", "\r", ";", ","]),
    block_bytes=st.integers(1, 40),
    policy=st.sampled_from(Policy),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "iso-8859-15", "cp1252", "utf-16", "utf-32"]),
    forced=st.booleans(),
)
def test_streamed_reading_keeps_what_whole_reading_keeps(
    tmp_path_factory: pytest.TempPathFactory,
    items: list[str],
    separator: str,
    block_bytes: int,
    policy: Policy,
    encoding: str,
    forced: bool,
) -> None:
    from boggle_dafsa.words.wordlist import stream_wordlist

    text = separator.join(items)
    if encoding == "cp1252":
        text += "\nsœur’s"  # 0x9C and 0x92: a hint for ISO-8859-15 readers
    source = tmp_path_factory.mktemp("list") / "list.txt"
    source.write_bytes(text.encode(encoding))
    given = encoding if forced else None
    try:
        whole = read_wordlist(source, policy=policy, encoding=given)
    except WordListError:
        with pytest.raises(WordListError):
            build_dictionary(source, source.with_suffix(".dafsa"), policy=policy, encoding=given)
        return
    stream = stream_wordlist(source, policy=policy, encoding=given)
    stream.block_bytes = block_bytes
    kept = [word for block in stream.blocks() for word in block.decode("utf-8").split("\n") if word]
    assert sorted(set(kept)) == whole.words
    assert (stream.items, stream.dropped, stream.kept, stream.hint) == (whole.items, whole.dropped, len(kept), whole.hint)
    assert codecs.lookup(stream.encoding) == codecs.lookup(whole.encoding)


def test_a_build_from_bytes_already_read(tmp_path: Path) -> None:
    data = "chat\nzoo\nchat\n".encode("utf-16")
    report = build_dictionary("<stdin>", tmp_path / "d.dafsa", data=data)
    assert (report.source, report.words, report.duplicates) == ("<stdin>", 2, 1)
    assert list(NativeDictionary(tmp_path / "d.dafsa")) == ["CHAT", "ZOO"]
    with pytest.raises(WordListError, match="^<stdin>: word list is empty"):
        build_dictionary("<stdin>", tmp_path / "e.dafsa", data=b"")


# -- the cap on states: the same limit, the same error, in both kernels ------------------


def _outcome(kernel: str, data: bytes, max_states: int) -> tuple:
    builder = builder_kernel(kernel).Builder(max_states=max_states)
    try:
        builder.add_lines(data)
        builder.finish()
    except ValueError as error:
        return ("refused", *error.args)
    stats = builder.stats()
    return ("built", stats["words"], stats["states"])


@given(words=mixed_words, max_states=st.integers(min_value=1, max_value=40))
@pytest.mark.slow
def test_every_kernel_stops_at_the_same_state_with_the_same_error(words: list[str], max_states: int) -> None:
    data = block(sorted(set(words), key=lambda word: word.encode("utf-8")))
    outcomes = {kernel: _outcome(kernel, data, max_states) for kernel in BUILDER}
    assert len(set(outcomes.values())) == 1, outcomes
    outcome = outcomes["python"]
    # Against the unlimited builder: refused exactly when the automaton has more states.
    full = build_automaton([w for w in data.decode("utf-8").split("\n") if w]).state_count
    assert (outcome[0] == "refused") == (full > max_states), (outcome, full)
    if outcome[0] == "refused":
        assert outcome[1:3] == ("too many states", max_states)


def test_the_compiled_default_cap_is_the_documented_limit() -> None:
    from boggle_dafsa.files import limits

    if not built("builder"):
        pytest.skip("the compiled builder is not built")
    from boggle_dafsa.automaton import _builder  # type: ignore[attr-defined]

    assert _builder.MAX_STATES == limits.MAX_STATES
    with pytest.raises(ValueError, match="max_states"):
        _builder.Builder(max_states=0)


@kernel_names
def test_a_build_over_the_state_cap_is_one_line_and_writes_nothing(
    tmp_path: Path, kernel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boggle_dafsa.files import limits

    monkeypatch.setattr(limits, "MAX_STATES", 1000)
    source = tmp_path / "random.txt"
    # 300 random words of 8 letters, sorted: few shared endings, some 2,000 states.
    rng = random.Random(1)
    source.write_text("".join(sorted("".join(rng.choices("ABCDEFGHIJ", k=8)) + "\n" for _ in range(300))))
    output = tmp_path / "out" / "d.dafsa"
    for sorted_flag in (False, True):
        with pytest.raises(WordListError) as caught:
            build_dictionary(source, output, kernel=builder_kernel(kernel), assume_sorted=sorted_flag)
        message = str(caught.value)
        assert message.startswith(f"{source}: the automaton needs more than 1,000 states (after ")
        assert message.endswith(" words): over the limit") and "\n" not in message
        assert not output.parent.exists() or list(output.parent.iterdir()) == []
    monkeypatch.setattr(limits, "MAX_STATES", 1 << 22)
    build_dictionary(source, output, kernel=builder_kernel(kernel))
    assert len(list(NativeDictionary(output))) == 300
