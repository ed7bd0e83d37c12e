"""Compiling a word list into a dictionary file: the library behind ``boggle-dafsa build``.

A native build streams: the list is read block by block, sorted in bounded memory
(runs spilled to temporary files and merged, ``automaton.stream.sort_blocks``) unless it
is said to be sorted already, and the words go one block at a time into the streaming
builder, which writes the file. Memory is the automaton plus a few blocks and one run.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boggle_dafsa.automaton import stream

# Imported here, not in the functions: this module is only imported to build, and a
# build's measured time should not include them.
from boggle_dafsa.automaton.builder import StateLimitError, UnsortedInputError
from boggle_dafsa.automaton.fileformat import DEFAULT_VERSION, VERSIONS, FormatLimitError
from boggle_dafsa.automaton.stream import NativeWriter, sort_blocks
from boggle_dafsa.errors import BoggleError, WordListError
from boggle_dafsa.files.limits import MAX_WORD_CHARS, refuse_overwriting
from boggle_dafsa.formats import write_dictionary
from boggle_dafsa.formats.native import compile_words, native_writer
from boggle_dafsa.formats.registry import format_named
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.wordlist import read_wordlist, stream_wordlist

__all__ = ["DEFAULT_OUTPUT", "BuildProgress", "BuildReport", "build_dictionary", "compile_words"]

DEFAULT_OUTPUT = Path("build") / "dictionary.dafsa"


@dataclass(frozen=True)
class BuildReport:
    """What a build read, kept and wrote."""

    source: str
    encoding: str
    policy: Policy
    #: Non-empty items read from the file, before normalization.
    items: int
    #: Distinct words kept (the dictionary's words).
    words: int
    #: Items dropped by normalization, counted by reason.
    dropped: Counter[str]
    output: Path
    format: str
    states: int | None
    transitions: int | None
    file_bytes: int
    seconds: float
    #: A sentence for the user when the guessed encoding probably lost characters.
    hint: str | None = None
    #: The kind of the values stored (``int``, ``text``), None for a set of words.
    values: str | None = None
    #: How a word given twice kept one value (``first``, ``last``, ``sum``, ``max``; None: it may not).
    values_merge: str | None = None

    @property
    def duplicates(self) -> int:
        """Items that normalized to a word already kept."""
        return self.items - sum(self.dropped.values()) - self.words

    @property
    def bytes_per_word(self) -> float:
        """File bytes divided by the number of words kept."""
        return self.file_bytes / max(self.words, 1)


@dataclass
class BuildProgress:
    """Where a build is, as told to a ``progress`` callback now and then."""

    #: "reading" (and sorting runs), "merging", "building" or "writing".
    phase: str
    #: Items read from the list so far (reading), or words added to the automaton.
    words: int = 0
    #: States registered so far (building), when known.
    states: int = 0
    #: Sorted runs spilled to temporary files so far.
    runs: int = 0
    #: Bytes of the list read, and in all.
    bytes_read: int = 0
    file_bytes: int = 0
    #: Seconds since the build started.
    seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter, repr=False)


def build_dictionary(
    source: str | Path,
    output: str | Path = DEFAULT_OUTPUT,
    *,
    policy: Policy = Policy.FOLD,
    encoding: str | None = None,
    format: str = "native",
    progress: Callable[[BuildProgress], None] | None = None,
    assume_sorted: bool = False,
    run_bytes: int | None = None,
    temporary_folder: str | Path | None = None,
    kernel: Any = None,
    data: bytes | None = None,
    format_version: int | None = None,
    index: bool = True,
    values: str | None = None,
    values_merge: str | None = None,
) -> BuildReport:
    """Read the word list ``source`` and write its dictionary to ``output`` atomically.

    ``assume_sorted``: the list is sorted already (after normalization; repeats allowed):
    it is not sorted again, and the first word out of order raises
    :class:`WordListError`. Otherwise it is sorted in runs of ``run_bytes`` (default
    ``automaton.stream.RUN_BYTES``) spilled to ``temporary_folder`` (default the system's)
    when it does not fit in one. ``progress``, if given, is called now and then with a
    :class:`BuildProgress`. ``kernel`` chooses the builder (see ``automaton.stream``).
    ``data``, if given, is the list's bytes already read (standard input), named ``source``.
    ``format_version``: of a native file, 1 or 2 (default: the newest, 2). ``index``: of
    a native file, write its word-number section (``d.index``, ``d.word``; docs/format.md).
    ``values`` (``int`` or ``text``): the list is ``WORD<TAB>VALUE`` lines
    (:mod:`~boggle_dafsa.words.pairs`), and the native file holds a value per word
    (``d[word]``); a word given twice with two values is refused unless ``values_merge``
    (``first``, ``last``, ``sum``, ``max``) says which to keep.
    """
    # Only native streams (its writer is the streamed path below); every other format is
    # read whole and written by its record's writer, whatever it is.
    streamed = format_named(format).streams
    if format_version is not None and (not streamed or format_version not in VERSIONS):
        known = ", ".join(map(str, VERSIONS))
        raise BoggleError(
            f"format version {format_version}: native files have versions {known}"
            if streamed
            else f"`format_version` is for native files, not {format}"
        )
    if values is not None or values_merge is not None:
        from boggle_dafsa.words.pairs import check_merge

        if values is None:
            raise BoggleError("`values_merge` is for a list with values: give `values` int|text")
        check_merge(values, values_merge)
        if not streamed:
            raise BoggleError(f"`values`: only native files hold values, not {format} (build a native one)")
    started = time.perf_counter()
    output = Path(output)
    if data is None:
        refuse_overwriting(output, [source], BoggleError)
    if values is not None:
        return _build_map(
            source, output, policy, encoding, data, values, values_merge, progress, assume_sorted, run_bytes,
            temporary_folder, kernel, format_version, index, started,
        )  # fmt: skip
    if not streamed:
        # Read whole, then built and written by the format's writer in one call (marisa-trie,
        # the dawgdic port): the phases are all there is to report.
        if progress is not None:
            progress(BuildProgress("reading", started=started, seconds=time.perf_counter() - started))
        wordlist = read_wordlist(source, policy=policy, encoding=encoding, data=data)
        if progress is not None:
            progress(BuildProgress("building", words=len(wordlist.words), started=started, seconds=time.perf_counter() - started))
        write_dictionary(wordlist.words, output, format, {"policy": policy.value, "source_sha256": wordlist.digest})
        return BuildReport(
            str(source),
            wordlist.encoding,
            policy,
            wordlist.items,
            len(wordlist.words),
            wordlist.dropped,
            output,
            format,
            None,
            None,
            output.stat().st_size,
            time.perf_counter() - started,
            wordlist.hint,
        )

    stream = stream_wordlist(source, policy=policy, encoding=encoding, data=data)
    writer = native_writer(kernel)
    tell = _Teller(progress, stream, writer, started)
    try:
        if assume_sorted:
            try:
                for block in stream.blocks():
                    writer.add_block(block)
                    tell("building")
            except UnsortedInputError as error:
                raise WordListError(f"{source}: not sorted: {error} (leave out `assume_sorted` to sort it)") from None
        else:
            _sort_into(stream.blocks(), writer.add_block, tell, run_bytes, temporary_folder)
    except StateLimitError as error:
        raise WordListError(f"{source}: {error}") from None
    longest = writer.stats().get("longest", 0)
    if longest > MAX_WORD_CHARS:
        # Checked once here rather than item by item on the way, which would cost the
        # streamed reader a pass over every block: the line limit already bounded memory.
        raise WordListError(f"{source}: a word of {longest:,} characters: at most {MAX_WORD_CHARS:,} (words are never split)")
    written = _write(source, stream, tell, output, policy, format_version, index)
    return BuildReport(
        stream.source,
        stream.encoding,
        policy,
        stream.items,
        written.words,
        stream.dropped,
        output,
        format,
        written.states,
        written.transitions,
        written.file_bytes,
        time.perf_counter() - started,
        stream.hint,
    )


def _build_map(
    source: str | Path,
    output: Path,
    policy: Policy,
    encoding: str | None,
    data: bytes | None,
    kind: str,
    merge: str | None,
    progress: Callable[[BuildProgress], None] | None,
    assume_sorted: bool,
    run_bytes: int | None,
    temporary_folder: str | Path | None,
    kernel: Any,
    format_version: int | None,
    index: bool,
    started: float,
) -> BuildReport:
    # A list of WORD<TAB>VALUE lines, as a word list is built: records sorted in bounded
    # memory (words, then lines), each word handed to the writer once with its one value.
    from boggle_dafsa.words.pairs import PairMerger, numbered_merge, open_pairs

    writer = NativeWriter(kernel, values=kind)
    pairs = open_pairs(str(source), policy, kind, encoding, data, numbered_merge(merge), writer.kernel)
    tell = _Teller(progress, pairs, writer, started)
    merger = PairMerger(kind, merge, str(source), writer.add_block, pairs, writer.kernel)

    import gc

    # The blocks make lists of many small objects and no cycle: the collector would walk
    # them again and again for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if assume_sorted:
            for block in pairs.records():
                merger.add(block)
                tell("building")
        else:
            _sort_into(pairs.records(), merger.add, tell, run_bytes, temporary_folder)
        merger.finish()
    except StateLimitError as error:
        raise WordListError(f"{source}: {error}") from None
    except UnsortedInputError as error:  # no word is handed over twice: a fault of the merge
        raise WordListError(f"{source}: {error}") from None
    finally:
        if collecting:
            gc.enable()
    written = _write(source, pairs, tell, output, policy, format_version, index)
    return BuildReport(
        pairs.source,
        pairs.encoding,
        policy,
        pairs.items,
        written.words,
        pairs.dropped,
        output,
        "native",
        written.states,
        written.transitions,
        written.file_bytes,
        time.perf_counter() - started,
        None,
        kind,
        merge,
    )


class _Teller:
    """Tells a streamed build's ``progress`` (None: nobody) where it is, called with the phase:
    while reading, the bytes and items of the list read so far (``reader``: a word list's
    stream or a list of pairs); after, the words and states of ``writer``."""

    def __init__(self, progress: Callable[[BuildProgress], None] | None, reader: Any, writer: Any, started: float) -> None:
        self.progress = progress
        self.reader = reader
        self.writer = writer
        self.started = started
        self.state = BuildProgress("reading", file_bytes=reader.file_bytes, started=started)

    def __call__(self, phase: str) -> None:
        if self.progress is None:
            return
        state = self.state
        state.phase = phase
        state.bytes_read = self.reader.bytes_read
        state.seconds = time.perf_counter() - self.started
        if phase == "reading":
            state.words = self.reader.kept
        else:
            state.words = self.writer.words
            state.states = self.writer.stats()["states"]
        self.progress(state)


def _sort_into(
    blocks: Iterator[bytes], add: Callable[[bytes], Any], tell: _Teller, run_bytes: int | None, folder: str | Path | None
) -> None:
    # The records of `blocks` sorted in bounded memory (runs spilled to `folder` past
    # `run_bytes`) and handed to `add` in order, the phases told as they go.
    def read() -> Iterator[bytes]:
        for block in blocks:
            yield block
            tell("reading")

    def added(block: bytes) -> None:
        add(block)
        tell("merging" if tell.state.runs else "building")

    def spilled(runs: int) -> None:
        tell.state.runs = runs

    sort_blocks(read(), added, kernel=tell.writer.kernel, run_bytes=run_bytes or _run_bytes(), folder=folder, on_spill=spilled)


def _write(
    source: str | Path, reader: Any, tell: _Teller, output: Path, policy: Policy, format_version: int | None, index: bool
) -> Any:
    # The built automaton written to `output` (its counts), or one line: a list without a
    # word (`reader`'s items and what normalization dropped), a file past the format's limits.
    writer = tell.writer
    if not writer.words:
        what = "is empty" if reader.items == 0 else f"has no word left after normalization ({_dropped_summary(reader.dropped)})"
        raise WordListError(f"{source}: word list {what}")
    tell("writing")
    try:
        return writer.write(output, policy, version=format_version or DEFAULT_VERSION, index=index)
    except (StateLimitError, FormatLimitError) as error:
        raise WordListError(f"{source}: {error}") from None


def _dropped_summary(dropped: Counter[str]) -> str:
    return ", ".join(f"{count} dropped: {reason}" for reason, count in dropped.most_common())


def _run_bytes() -> int:
    # Read at call time, so that a test can make runs tiny.
    return stream.RUN_BYTES
