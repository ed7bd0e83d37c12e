"""Streaming construction: sorted words in, a native file out, neither the list nor a trie in memory.

Words travel in *blocks*: UTF-8 bytes, one word a line, each line ending in ``\\n``. A
kernel offers three things, the same in C (``_builder.c``) and in Python (here):

* ``Builder(max_states=limits.MAX_STATES)``: ``add_lines(block) -> new words`` (words
  non-decreasing: an equal word is a duplicate and skipped, a smaller one raises
  ``ValueError("out of order", word, previous)``), ``finish()``, ``stats() -> dict`` and
  ``write_body(stream) -> (crc32, cells, root cell)``, which writes the file's cells with
  ``stream.write``. ``add_lines`` and ``finish`` raise ``ValueError("too many states",
  max_states, words)`` rather than register one state more than ``max_states``;
* ``sort_lines(block) -> (sorted unique block, non-empty lines)``: one run of the sort;
* ``merge_runs(paths, sink, block_bytes) -> lines``: merges sorted run files and hands
  ``sink`` the sorted unique lines in blocks.

:class:`NativeWriter` feeds a builder and writes the file; :func:`sort_blocks` is the
external sort (runs sorted in memory, spilled to temporary files, merged). Both kernels
give the same bytes: the tests compare them. ``BOGGLE_DAFSA_PURE=1`` forces Python.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import io
import os
import re
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, BinaryIO

from boggle_dafsa import compiled
from boggle_dafsa.automaton.builder import IncrementalBuilder, StateLimitError, UnsortedInputError
from boggle_dafsa.automaton.compact import CompactLayout, compact_body
from boggle_dafsa.automaton.fileformat import (
    _LITTLE_ENDIAN,
    DEFAULT_VERSION,
    FLAG_VALUES,
    FLAG_WORD_NUMBERS,
    VERSIONS,
    Header,
    NativeLayout,
    body_cells,
    check_writable,
    header_size_for,
    pack_header,
    word_numbers,
    words_blocks,
)
from boggle_dafsa.automaton.values import int_range, pack_ints
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.files import limits, reaper
from boggle_dafsa.files.atomic import atomic_file
from boggle_dafsa.words.normalize import Policy

if TYPE_CHECKING:
    from boggle_dafsa.automaton.values import ValueColumn

#: Bytes of words handed on at a time (one call into the kernel, one progress report).
BLOCK_BYTES = 1 << 20
#: Bytes of words sorted in memory before a run is spilled to disk: the sort's memory
#: is about four times this (the text, a record per word and its radix copy, the sorted
#: text): 16 MB keeps a 10-million-word build near 100 MB at no cost in speed.
RUN_BYTES = 16 << 20

PURE_VARIABLE = compiled.PURE_VARIABLE
#: The most states a native file can number (cells are 32-bit), as in ``_builder.c``.
_HARD_MAX_STATES = 0xFFFFFFFE


# -- the Python kernel --------------------------------------------------------------------


def python_pair_split(block: bytes, ints: bool) -> tuple[bytes, Any, bytes, bytes] | None:
    """The twin of ``_builder.pair_split``: sorted records ``KEY\\0VALUE\\n`` taken apart at
    once (the words, the values: an array('q') of ints or a list of str, the first and the
    last key), or None (a key repeated or out of order, a record without a NUL, an int
    that is not a sign and 1 to 19 digits within 64 bits)."""
    import operator
    from array import array

    if not block or not block.endswith(b"\n"):
        return None
    fields = block[:-1].replace(b"\0", b"\n").split(b"\n")
    keys, raws = fields[0::2], fields[1::2]
    if len(keys) != len(raws) or block.count(b"\0") != len(keys) or any(map(operator.ge, keys, keys[1:])):
        return None
    if not ints:
        return b"\n".join(keys) + b"\n", [raw.decode("utf-8") for raw in raws], keys[0], keys[-1]
    for raw in raws:
        digits = raw[1:] if raw[:1] in (b"+", b"-") else raw
        if not (digits.isdigit() and len(digits) <= 19):
            return None
    try:
        values = array("q", map(int, raws))
    except OverflowError:
        return None
    return b"\n".join(keys) + b"\n", values, keys[0], keys[-1]


#: The lines pair_records takes as they are (policy code: fold, exact, raw; ints or text).
_PAIR_LINES = {
    (ints, raw): re.compile(
        (rb"(?:[^\t\n\r\0]+" if raw else rb"(?:[A-Za-z]+") + (rb"\t[+-]?[0-9]{1,18}\n)*" if ints else rb"\t[^\n\r\0]*\n)*")
    )
    for ints in (False, True)
    for raw in (False, True)
}


def python_pair_records(data: bytes, policy: int, ints: bool) -> bytes | None:
    """The twin of ``_builder.pair_records``: the sort records ``KEY\\0VALUE\\n`` of a block of
    ``WORD<TAB>VALUE`` lines when every line needs no look of its own (see the C), else None."""
    if not data:
        return b""
    if not _PAIR_LINES[(ints, policy == 2)].fullmatch(data):
        return None
    out = []
    for line in data[:-1].split(b"\n"):
        key, _, value = line.partition(b"\t")
        out.append((key.upper() if policy == 0 else key) + b"\0" + value + b"\n")
    return b"".join(out)


class PythonBuilder:
    """The pure-Python twin of ``_builder.Builder`` (see the module docstring)."""

    def __init__(self, *, max_states: int = limits.MAX_STATES) -> None:
        if not 1 <= max_states <= _HARD_MAX_STATES:
            raise ValueError(f"max_states must be between 1 and {_HARD_MAX_STATES}")
        self._builder = IncrementalBuilder(max_states)
        self._automaton: Any = None

    def add_lines(self, data: bytes) -> int:
        """Add the words of ``data`` (UTF-8, one a line); return how many were new."""
        if self._automaton is not None:
            raise RuntimeError("builder already finished")
        add, added = self._builder.add, 0
        try:
            for line in data.decode("utf-8").split("\n"):
                if line:
                    try:
                        added += add(line)
                    except UnsortedInputError:
                        raise ValueError("out of order", line, self._builder.previous) from None
        except StateLimitError as error:
            raise ValueError("too many states", error.limit, error.words) from None
        return added

    def finish(self) -> None:
        """Register the rest of the path and the root."""
        if self._automaton is not None:
            raise RuntimeError("builder already finished")
        try:
            self._automaton = self._builder.finish()
        except StateLimitError as error:
            raise ValueError("too many states", error.limit, error.words) from None

    def stats(self) -> dict[str, Any]:
        """words, states, transitions, finals, longest, alphabet (once finished), root."""
        automaton = self._automaton
        if automaton is None:
            b = self._builder
            return {
                "words": b.count,
                "states": len(b.finals),
                "transitions": b.transitions,
                "finals": sum(b.finals),
                "longest": b.longest,
                "alphabet": "",
                "root": 0,
            }
        return {
            "words": automaton.word_count,
            "states": automaton.state_count,
            "transitions": automaton.transition_count,
            "finals": sum(automaton.finals),
            "longest": automaton.longest_word,
            "alphabet": automaton.alphabet,
            "root": automaton.root,
        }

    def write_body(self, stream: Any) -> tuple[int, int, int]:
        """Write the cells with ``stream.write``; return (crc32, cells, root cell)."""
        if self._automaton is None:
            raise RuntimeError("finish() the builder first")
        cells, root = body_cells(self._automaton)
        if not _LITTLE_ENDIAN:
            cells.byteswap()
        body = cells.tobytes()
        stream.write(body)
        return zlib.crc32(body), len(cells), root


def python_sort_lines(data: bytes) -> tuple[bytes, int]:
    """The non-empty lines of ``data`` sorted bytewise, each once, each ending in a newline; and their count."""
    lines = [line for line in data.split(b"\n") if line]
    unique = sorted(set(lines))
    return b"".join(line + b"\n" for line in unique), len(lines)


def python_merge_runs(paths: Sequence[str | Path], sink: Callable[[bytes], object], block_bytes: int) -> int:
    """Merge sorted run files into sorted unique lines, handed to ``sink`` in blocks."""
    files = [open(path, "rb") for path in paths]
    try:
        streams = [(line.rstrip(b"\n") for line in file) for file in files]
        block: list[bytes] = []
        size = emitted = 0
        last = None
        for line in heapq.merge(*streams):
            if not line or line == last:
                continue
            last = line
            emitted += 1
            block.append(line + b"\n")
            size += len(line) + 1
            if size >= block_bytes:
                sink(b"".join(block))
                block.clear()
                size = 0
        if block:
            sink(b"".join(block))
        return emitted
    finally:
        for file in files:
            file.close()


def python_compact_body(cells: bytes, root: int, alphabet_size: int) -> tuple[bytes, int]:
    """The version 2 body of a version 1 body (little-endian cells): (bytes, root offset)."""
    if _LITTLE_ENDIAN:
        view: Any = memoryview(cells).cast("I")
    else:  # pragma: no cover - big-endian hosts
        from array import array

        view = array("I", cells)
        view.byteswap()
    return compact_body(view, root, alphabet_size)


PYTHON_KERNEL = SimpleNamespace(
    name="python",
    pack_ints=pack_ints,
    int_range=int_range,
    pair_records=python_pair_records,
    pair_split=python_pair_split,
    Builder=PythonBuilder,
    sort_lines=python_sort_lines,
    merge_runs=python_merge_runs,
    compact_body=python_compact_body,
    words_blocks=words_blocks,
)


def kernels() -> dict[str, Any]:
    """Every kernel available here, by name: always "python", "c" when the extension is built."""
    found: dict[str, Any] = {"python": PYTHON_KERNEL}
    _builder = compiled.built("builder")
    if _builder is None:
        return found
    found["c"] = SimpleNamespace(
        name="c",
        Builder=_builder.Builder,
        sort_lines=_builder.sort_lines,
        merge_runs=_builder.merge_runs,
        compact_body=_builder.compact_body,
        words_blocks=_builder.words_blocks,
        pack_ints=_builder.pack_ints,
        int_range=_builder.int_range,
        pair_records=_builder.pair_records,
        pair_split=_builder.pair_split,
    )
    return found


def default_kernel() -> Any:
    """The C kernel if built and not disabled by ``BOGGLE_DAFSA_PURE``, else Python."""
    return kernels()["c"] if compiled.choose("builder") == compiled.C else PYTHON_KERNEL


def kernel_status() -> str:
    """Which kernel builds, and why: ``c (compiled)``, ``python (BOGGLE_DAFSA_PURE=1)`` or
    ``python (the C extension is not built)``."""
    return compiled.status("builder")


# -- writing a native file from sorted blocks ----------------------------------------------


@dataclass(frozen=True)
class NativeStats:
    """What a native file holds, as written."""

    words: int
    states: int
    transitions: int
    file_bytes: int
    digest: str


class NativeWriter:
    """Feeds sorted blocks to a builder, hashing the unique words, then writes the file.

    ``add_block`` raises :class:`UnsortedInputError` at the first word smaller than the
    one before it; equal words are duplicates and are skipped. ``add_block`` and ``write``
    raise :class:`StateLimitError` when the automaton would need more than ``max_states``
    states (default ``limits.MAX_STATES``, read when the writer is made), whatever the kernel.
    """

    def __init__(self, kernel: Any = None, max_states: int | None = None, values: str | None = None) -> None:
        self.kernel = kernel or default_kernel()
        self.builder = self.kernel.Builder(max_states=max_states or limits.MAX_STATES)
        self.hasher = hashlib.sha256()
        self.words = 0
        self._finished = False
        self._last = b""  # the last word added, for the digest of blocks with duplicates
        #: The values of the words (``values``: "int", "text" or "bytes"), one per word in
        #: order, written after the body (docs/format.md); None: a set of words.
        self.values: ValueColumn | None = None
        if values is not None:
            from boggle_dafsa.automaton.values import ValueColumn

            self.values = ValueColumn(values)

    def add_block(self, data: bytes, values: Sequence[Any] | None = None) -> int:
        """Add the sorted words of ``data`` (one a line); return how many were new.

        With values (a writer made with ``values``), ``values`` holds one per line of
        ``data``, and every word must be new (one value a word: a repeated word raises
        :class:`UnsortedInputError`).
        """
        if self.values is not None:
            if data and not data.endswith(b"\n"):
                data += b"\n"
            if b"\n\n" in data or data.startswith(b"\n"):  # blank lines: no word, no value
                data = b"".join(line + b"\n" for line in data.split(b"\n") if line)
            lines = data.count(b"\n")
            if values is None or len(values) != lines:
                raise ValueError(f"{lines:,} words and {0 if values is None else len(values):,} values: one value a word")
            if not lines:
                return 0
        elif values is not None:
            raise ValueError("values given to a writer of words only: make it with NativeWriter(values=kind)")
        if not data:
            return 0
        if not data.endswith(b"\n"):
            data += b"\n"
        try:
            added = self.builder.add_lines(data)
        except ValueError as error:
            _state_limit(error)
            if len(error.args) == 3 and error.args[0] == "out of order":
                word, previous = error.args[1], error.args[2]
                raise UnsortedInputError(
                    f"word {word!r} is out of order after {previous!r} (word {self.words + _index(data, word, previous):,})"
                ) from None
            raise
        lines = data.count(b"\n")
        if self.values is not None:
            if added != lines:
                raise UnsortedInputError("a word is repeated: with values, each word once (one value a word)")
            self.values.extend(values)  # type: ignore[arg-type]
        if added == lines:
            self.hasher.update(data)
            self._last = data[data.rfind(b"\n", 0, len(data) - 1) + 1 : -1]
        else:  # duplicates (or blank lines): hash each word once, as digest_words does
            for line in data.split(b"\n"):
                if line and line != self._last:
                    self.hasher.update(line + b"\n")
                    self._last = line
        self.words += added
        return added

    def add_words(self, words: Iterable[str], block_words: int = 65536) -> None:
        """Add sorted ``words`` (normalized str), in blocks."""
        block: list[str] = []
        for word in words:
            block.append(word)
            if len(block) == block_words:
                self.add_block(("\n".join(block) + "\n").encode("utf-8"))
                block.clear()
        if block:
            self.add_block(("\n".join(block) + "\n").encode("utf-8"))

    def add_items(self, items: Iterable[tuple[str, Any]], block_words: int = 65536) -> None:
        """Add sorted, unique ``(word, value)`` pairs (normalized words), in blocks (a writer with values)."""
        words: list[str] = []
        values: list[Any] = []
        for word, value in items:
            words.append(word)
            values.append(value)
            if len(words) == block_words:
                self.add_block(("\n".join(words) + "\n").encode("utf-8"), values)
                words.clear()
                values = []
        if words:
            self.add_block(("\n".join(words) + "\n").encode("utf-8"), values)

    def stats(self) -> dict[str, Any]:
        """The builder's counts so far (see the kernels)."""
        return self.builder.stats()

    def write(
        self,
        path: str | Path,
        policy: Policy = Policy.FOLD,
        digest: str | None = None,
        version: int = DEFAULT_VERSION,
        index: bool = True,
    ) -> NativeStats:
        """Finish the automaton and write the file (format ``version``) to ``path`` atomically.

        Raises :class:`~boggle_dafsa.automaton.fileformat.FormatLimitError` before the
        file is opened when ``version`` cannot hold the words (``check_writable``).
        """
        # Before the file is opened: a build over the state limit, or an alphabet too wide for
        # version 1, creates nothing.
        self._finish()
        check_writable(self.builder.stats()["alphabet"], version)
        with atomic_file(path) as stream:
            return self.write_to(stream, policy, digest, version, index, name=str(path))

    def _finish(self) -> None:
        if self._finished:
            return
        try:
            self.builder.finish()
        except ValueError as error:
            _state_limit(error)
            raise
        self._finished = True

    def write_to(
        self,
        stream: BinaryIO,
        policy: Policy = Policy.FOLD,
        digest: str | None = None,
        version: int = DEFAULT_VERSION,
        index: bool = True,
        name: str | None = None,
    ) -> NativeStats:
        """Finish the automaton and write the file to ``stream`` (seekable, at its start):
        room for the header, the body, then the header over the room.

        ``digest`` is the list's SHA-256 for the header; by default, that of the words added.
        ``version`` 2 (compact edges): by the builder straight from its states when it can
        (the compiled one), else from the version 1 cells in memory; the same bytes either way.
        ``index``: write the word-number section after the body (docs/format.md), the default.
        """
        if version not in VERSIONS:
            raise ValueError(f"unknown format version {version} (known: {', '.join(map(str, VERSIONS))})")
        self._finish()
        stats = self.builder.stats()
        check_writable(stats["alphabet"], version)
        digest = digest or self.hasher.hexdigest()
        room = bytes(header_size_for(stats["alphabet"]))
        if version == 2:
            body, root = self._compact_body(len(stats["alphabet"]))
            crc, count = zlib.crc32(body), len(body)
            stream.write(room)
            stream.write(body)
        else:
            stream.write(room)
            crc, count, root = self.builder.write_body(stream)
        section = b""
        if index:
            if version == 1:
                stream.seek(len(room))
                body = stream.read(4 * count)
            section = word_numbers_of(body, version, root, stats["alphabet"], stats["longest"], stats["words"])
            stream.seek(len(room) + len(body))
            stream.write(section)
        value_section = b""
        if self.values is not None:
            value_section = self.values.encode(self.kernel)
            stream.seek(len(room) + (len(body) if version == 2 else 4 * count) + len(section))
            stream.write(value_section)
        header = Header(
            policy,
            stats["alphabet"],
            stats["words"],
            stats["states"],
            stats["transitions"],
            stats["finals"],
            stats["longest"],
            root,
            count,
            crc,
            digest,
            version,
            flags=(FLAG_WORD_NUMBERS if index else 0) | (FLAG_VALUES if self.values is not None else 0),
            index_bytes=len(section),
            values_bytes=len(value_section),
        )
        stream.seek(0)
        stream.write(pack_header(header))
        stream.flush()
        stream.seek(0)
        # Named by the caller: a temporary file's stream is named by its descriptor (a number).
        with_values = {} if self.values is None else {"values": self.values}
        read_back(stream.read(), name or "<memory>", self.hasher.hexdigest(), self.words, self.kernel, **with_values)
        return NativeStats(stats["words"], stats["states"], stats["transitions"], header.file_size, digest)

    def _compact_body(self, alphabet_size: int) -> tuple[bytes, int]:
        # The compiled builder lays version 2 out from its own states: no version 1 cells
        # written, read back and numbered again (the build's cost on top of version 1).
        direct = getattr(self.builder, "compact_body", None)
        if direct is not None:
            return direct()
        cells_stream = io.BytesIO()
        _, _, root = self.builder.write_body(cells_stream)
        return self.kernel.compact_body(cells_stream.getbuffer(), root, alphabet_size)


def word_numbers_of(body: bytes, version: int, root: int, alphabet: str, longest: int, words: int) -> bytes:
    """The word-number section of a body of format ``version`` (root ``root``), counted over
    the body in place (:func:`~.fileformat.word_numbers`: compiled, or its twin)."""
    states: NativeLayout | CompactLayout
    if version == 2:
        states = CompactLayout(body, root, alphabet, longest, "<body>")
    else:
        cells: Any = memoryview(body).cast("I")
        if not _LITTLE_ENDIAN:  # pragma: no cover - big-endian hosts
            from array import array

            cells = array("I", body)
            cells.byteswap()
        states = NativeLayout.of(cells, root, alphabet, longest, "<body>")
    try:
        return word_numbers(states, words)
    except ValueError as error:
        raise DictionaryError(f"the body just built does not count ({error}): nothing was written: please report this") from None


#: The blocks in which a writer reads its words back (see :func:`read_back`).
READ_BACK_BLOCK = 1 << 20


def read_back(data: bytes, source: str, digest: str, words: int, kernel: Any = None, values: ValueColumn | None = None) -> None:
    """Raise :class:`DictionaryError` (one line) unless the native file ``data`` opens, its
    checksums and census hold, and its words, listed, are ``words`` words whose SHA-256
    (each followed by a newline, as :func:`~boggle_dafsa.words.wordlist.digest_words`) is ``digest``;
    and, given ``values`` (the column written), unless its value section holds exactly them
    (ints compared one by one, text and bytes by the SHA-256 of their canonical stream),
    and a file without ``values`` holds none.

    What every native writer runs on its own output before the file is renamed into place,
    so that a writer's fault can never leave a damaged file behind an exit status of 0 (as
    the version 2 writer of 2026-11 did past 1 MiB). The words are listed by the builder
    kernel's ``words_blocks`` (compiled: about 20 ns a word) over the version 1 cells, or
    by the cursor over 31 letters.
    """
    from boggle_dafsa.automaton.reader import NativeDictionary  # and the compiled census: a written file only

    kernel = kernel or default_kernel()

    def wrong(what: str) -> DictionaryError:
        return DictionaryError(
            f"{source}: the file just written does not read back ({what}); nothing was written: please report this"
        )

    try:
        dictionary = NativeDictionary.of_buffer(data, source)
        if not dictionary.body_intact():
            raise wrong("its body checksum")
        dictionary.checked()  # a buffer: the census, run now, no verdict kept
        dictionary.check_word_numbers()
        header = dictionary.header
        if header.word_count != words:
            raise wrong(f"{header.word_count:,} words, {words:,} were added")
        _read_back_values(dictionary, values, wrong)
        hasher = hashlib.sha256()
        cells = dictionary._cells()
        if cells is not None:
            letters = [letter.encode("utf-8") for letter in header.alphabet]
            try:
                listed = kernel.words_blocks(
                    cells.cells,
                    cells.root,
                    len(letters),
                    header.longest_word,
                    header.word_count,
                    letters,
                    hasher.update,
                    READ_BACK_BLOCK,
                )
            except ValueError as error:
                raise wrong(str(error).removeprefix("damaged: ")) from None
        else:
            listed = 0
            for word in dictionary:
                hasher.update(word.encode("utf-8") + b"\n")
                listed += 1
    except DictionaryError as error:
        if "does not read back" in str(error):
            raise
        raise wrong(str(error).removeprefix(f"{source}: ")) from None
    if listed != words or hasher.hexdigest() != digest:
        raise wrong("other words than those added")


def _read_back_values(dictionary: Any, values: ValueColumn | None, wrong: Callable[[str], DictionaryError]) -> None:
    # The values read back through the reader's own paths (the table, or the compiled reader
    # of ints), compared with the column that was written.
    if values is None:
        if dictionary.header.has_values:
            raise wrong("a value section no value was given for")
        return
    if not dictionary.header.has_values:
        raise wrong("no value section")
    table = dictionary.value_table()
    if table.kind != values.kind or table.layout.count != values.count:
        raise wrong(f"{table.layout.count:,} values of kind {table.kind}, {values.count:,} of kind {values.kind} were added")
    if values.kind == "int":
        # A block at a time, as 64-bit bytes: memory stays a block's, whatever the file
        # (2^21 ints as a list of Python ints would be 70 MB more).
        for start, chunk in dictionary._value_chunks(as_bytes=True):
            if chunk != values.ints[start : start + len(chunk) // 8].tobytes():
                raise wrong("other values than those added")
    elif table.canonical_digest() != values.digest():
        raise wrong("other values than those added")


def _state_limit(error: ValueError) -> None:
    # A kernel's ValueError("too many states", limit, words) becomes the one-line error.
    if len(error.args) == 3 and error.args[0] == "too many states":
        raise StateLimitError(error.args[1], error.args[2]) from None


def _index(data: bytes, word: str, previous: str) -> int:
    # The 1-based number, within the block, of the first `word` after `previous`.
    lines = [line for line in data.decode("utf-8").split("\n") if line]
    for number, (before, line) in enumerate(zip([""] + lines, lines), 1):
        if line == word and before == previous:
            return number
    return 1


# -- the external sort ---------------------------------------------------------------------


def sort_blocks(
    blocks: Iterable[bytes],
    sink: Callable[[bytes], object],
    *,
    kernel: Any = None,
    run_bytes: int = RUN_BYTES,
    block_bytes: int = BLOCK_BYTES,
    folder: str | Path | None = None,
    on_spill: Callable[[int], None] | None = None,
) -> int:
    """Sort the lines of ``blocks`` (unsorted, repeats allowed) and hand ``sink`` sorted unique blocks.

    Up to ``run_bytes`` of lines are sorted in memory at a time; when there is more, each
    such run is spilled to a temporary file (in ``folder``, default the system's temporary
    folder) and the runs are merged. The files are removed whatever happens, an
    interruption included (on Linux even SIGKILL: see :func:`_spill_files`). ``on_spill(runs)`` is told of each spill. Returns the number
    of unique lines.
    """
    kernel = kernel or default_kernel()
    pending: list[bytes] = []
    size = 0
    with contextlib.ExitStack() as files:
        runs: list[str] = []
        spill_file = _spill_files(files, folder)

        def sorted_run() -> bytes:
            # The blocks joined, then let go, before sorting: one copy of the run less at the peak.
            nonlocal size
            joined = b"".join(pending)
            pending.clear()
            size = 0
            return kernel.sort_lines(joined)[0]

        def spill() -> None:
            data = sorted_run()
            out, name = spill_file(len(runs))
            with out:
                out.write(data)
            runs.append(name)
            if on_spill is not None:
                on_spill(len(runs))

        for block in blocks:
            pending.append(block if block.endswith(b"\n") else block + b"\n")
            size += len(block)
            if size >= run_bytes:
                spill()
        if not runs:  # everything fitted in one run: no file at all
            data = sorted_run()
            lines = 0
            for piece in _cut(data, block_bytes):
                sink(piece)
                lines += piece.count(b"\n")
            return lines
        if pending:
            spill()
        return kernel.merge_runs(runs, sink, block_bytes)


def _spill_files(files: contextlib.ExitStack, folder: str | Path | None) -> Callable[[int], tuple[BinaryIO, str]]:
    """A maker of run files: ``make(number) -> (file to write and close, name to read it by)``.

    Where ``/proc/self/fd`` exists (Linux), a run is a file without a name (O_TMPFILE, or
    unlinked at once), read back through ``/proc/self/fd/N``: a build killed even by
    SIGKILL leaves nothing, since the system frees such a file with its last descriptor.
    Elsewhere, runs are named files in a private folder, removed when the sort ends or is
    interrupted, or by the process's reaper (:mod:`boggle_dafsa.files.reaper`) after SIGKILL.
    """
    if os.path.isdir(_PROC_FDS):

        def unnamed(number: int) -> tuple[BinaryIO, str]:
            run = files.enter_context(tempfile.TemporaryFile(prefix="boggle-dafsa-run.", dir=folder))
            # Written through a second descriptor (closed after writing, as a named run
            # is); `run` stays open until the sort ends, so the file lives until then.
            return os.fdopen(os.dup(run.fileno()), "wb"), f"{_PROC_FDS}/{run.fileno()}"

        return unnamed

    temporary = files.enter_context(tempfile.TemporaryDirectory(prefix="boggle-dafsa-sort.", dir=folder))
    reaper.listed(temporary)
    files.callback(reaper.done, temporary)  # runs before the folder is removed: harmless

    def named(number: int) -> tuple[BinaryIO, str]:
        name = os.path.join(temporary, f"run{number:05d}")
        return open(name, "wb"), name

    return named


#: Where Linux shows a process's open files, by descriptor.
_PROC_FDS = "/proc/self/fd"


def _cut(data: bytes, block_bytes: int) -> Iterator[bytes]:
    # Pieces of about `block_bytes`, each ending at a newline.
    start = 0
    while start < len(data):
        end = data.find(b"\n", min(start + block_bytes, len(data)) - 1)
        end = len(data) if end < 0 else end + 1
        yield data[start:end]
        start = end
