"""Reading a native dictionary in place, through mmap.

Opening maps the file and checks its header only, so it takes the same time for ten
words or a million, and processes that open the same file share its pages.
Every query walks the mapped cells directly; nothing is decoded up front.
"""

from __future__ import annotations

import mmap
import os
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from boggle_dafsa import compiled
from boggle_dafsa.automaton.compact import CompactLayout, expand, project
from boggle_dafsa.automaton.fileformat import (
    _LITTLE_ENDIAN,
    FINAL_FLAG,
    FIXED_SIZE,
    ONE_CELL_LETTERS,
    Header,
    NativeLayout,
    decode_header,
    index_crc_holds,
    layout_of,
)
from boggle_dafsa.automaton.lookup import Lookups
from boggle_dafsa.automaton.numbering import WordNumbers
from boggle_dafsa.automaton.values import Values
from boggle_dafsa.errors import DictionaryError, opening
from boggle_dafsa.files.atomic import write_atomically
from boggle_dafsa.words.normalize import Policy

__all__ = ["FINAL_FLAG", "NativeDictionary"]


# Values' has_values and value_kind are properties (read from the file's header) where the base
# has plain class attributes (False and None for a set of words): mypy calls that an override.
class NativeDictionary(Values, Lookups, WordNumbers):  # type: ignore[override]
    """A dictionary in the native DAFSA format, mapped from its file.

    A state is the index of its first cell; see ``docs/format.md``.
    """

    format_name = "native"

    def __init__(self, path: str | Path) -> None:
        """Map ``path`` and check its header (raises :class:`DictionaryError`)."""
        self.path = str(path)
        with opening(path, DictionaryError, "dictionary file"), open(path, "rb") as stream:
            identity = os.fstat(stream.fileno())
            size = identity.st_size
            if size < FIXED_SIZE:
                head = stream.read(FIXED_SIZE)
                decode_header(head, self.path, size)  # raises: bad magic or truncated
            self._map: Any = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        self._setup(size, (identity.st_dev, identity.st_ino, size, identity.st_mtime_ns))

    @classmethod
    def of_buffer(cls, data: Any, source: str) -> NativeDictionary:
        """The dictionary held by ``data`` (bytes, or a mapping of a file being written), named ``source``.

        What a writer reads back before it renames its file into place: the same checks as
        a file (header, then the census on demand), and no verdict kept for it.
        """
        self = cls.__new__(cls)
        self.path = source
        self._map = data
        if len(data) < FIXED_SIZE:
            decode_header(bytes(data), source, len(data))  # raises: bad magic or truncated
        self._setup(len(data), None)
        return self

    def _setup(self, size: int, identity: tuple[int, ...] | None) -> None:
        # What opening does once the bytes are mapped: the header, the layout, the identity.
        self.header: Header = decode_header(self._map, self.path, size)
        body = memoryview(self._map)[self.header.header_size : self.header.header_size + self.header.body_size]
        self.policy: Policy = self.header.policy
        self.header_cells: int = self.header.header_cells
        #: The format version: 1 (cells) or 2 (compact edges).
        self.version: int = self.header.version
        self._expanded: NativeLayout | None = None
        # Over 31 letters: the letters kept and the cells of their part (see layout_for()).
        self._projected: tuple[frozenset[str], NativeLayout] | None = None
        #: How the states are read (the format's one Python definition), in place.
        self.states: NativeLayout | CompactLayout
        if self.version >= 2:
            self.cells: Any = None
            self.states = CompactLayout(body, self.header.root, self.header.alphabet, self.header.longest_word, self.path)
        else:
            if _LITTLE_ENDIAN:
                #: The cells (version 1), in place on the mapped file.
                self.cells = body.cast("I")
            else:  # pragma: no cover - big-endian hosts pay one copy at open
                from array import array

                swapped = array("I", body.tobytes())
                swapped.byteswap()
                self.cells = swapped
            self.states = layout_of(self.header, self.cells, self.path)
        #: Bit index of each letter in a state header.
        self.letter_bits: Mapping[str, int] = self.states.letter_bits
        self._checked = False
        # What the census verdict is kept under (see checked()): the file's identity, and its
        # body checksum, in case it is rewritten within one tick of the clock.
        self._identity = None if identity is None else (*identity, self.header.body_crc32)
        if self.is_word(self.states.root):
            # No writer stores the empty word, and every kernel assumes it absent.
            raise DictionaryError(f"{self.path}: damaged dictionary (it holds the empty word)")

    @property
    def alphabet(self) -> str:
        """The letters, in bit (and byte) order."""
        return self.header.alphabet

    def layout(self) -> NativeLayout | None:
        """The cells as the fast kernels (the solver's) read them, once :meth:`checked`;
        None over 31 letters.

        A version 2 file is expanded into version 1 cells in memory the first time a kernel
        asks (``_builder.expand``, or its twin): opening it never decodes anything, and the
        cursor (``step``, ``children``, iteration, set algebra, ``verify``) walks it in place.
        """
        cells = self._cells()
        if cells is not None:
            self.checked()
        return cells

    def layout_for(self, letters: Iterable[str]) -> NativeLayout | None:
        """The cells the solver reads for a grid whose faces hold ``letters``.

        Up to 31 letters, :meth:`layout`. Over 31 (a wide alphabet, which one-cell headers
        cannot hold), the part of the automaton spelled with the alphabet's letters among
        ``letters`` only, remapped to at most 31 bits (:func:`compact.project`): every
        word a grid of those faces can hold is there. None when they are more than 31 (or
        none). Kept: a grid whose letters it covers reuses it, and a grid that brings new
        ones widens it while the union fits 31 letters (random boards of one dice set
        settle on one part), else it is made afresh for that grid's letters.
        """
        if len(self.header.alphabet) <= ONE_CELL_LETTERS:
            return self.layout()
        wanted = frozenset(letters).intersection(self.header.alphabet)
        if not wanted or len(wanted) > ONE_CELL_LETTERS:
            return None
        current = self._projected
        if current is not None:
            if wanted <= current[0]:
                return current[1]
            if len(wanted | current[0]) <= ONE_CELL_LETTERS:
                wanted |= current[0]
        self.checked()  # the census bounds every walk, the projection's too
        try:
            layout = project(self.states, "".join(wanted))
        except ValueError as error:
            raise self._walk_error(error) from None
        self._projected = (wanted, layout)
        return layout

    def _cells(self) -> NativeLayout | None:
        # The version 1 cells, in place or expanded (see layout()), before any census.
        if len(self.header.alphabet) > ONE_CELL_LETTERS:
            return None
        if isinstance(self.states, NativeLayout):
            return self.states
        if self._expanded is None:
            try:
                cells, root = expand(self.states)
            except ValueError as error:
                raise self._walk_error(error) from None
            self._expanded = NativeLayout.of(cells, root, self.alphabet, self.header.longest_word, self.path)
        return self._expanded

    def checked(self) -> None:
        """Prove, once, that the cells hold what the header says, or raise "damaged".

        The checksums only catch accidents: a file can be consistent and still describe
        2**40 words in 588 bytes, or states that lead nowhere, which any walk (a query, a
        solve) would explore for ever. One pass over the states (compiled: ``census`` in
        ``automaton/_census.c``; its twin :meth:`_check_below`) checks that the automaton is
        acyclic, that every state leads to a word, and that it holds exactly the header's
        word count and longest word: every walk is then bounded by the header.
        """
        if self._checked:
            return
        if self._identity is None:  # a buffer read back: counted, never remembered
            self.census()
            self._checked = True
            return
        if self._identity in _SOUND or _recalled(self._identity):
            _SOUND.add(self._identity)
            self._checked = True
            return
        self.census()
        _SOUND.add(self._identity)
        _record(self._identity)
        self._checked = True

    @staticmethod
    def _known_sound(key: tuple[Any, ...]) -> bool:
        """True if a verdict "sound" is kept under ``key`` (in this process or the cache folder)."""
        if key in _SOUND or _recalled(key):
            _SOUND.add(key)
            return True
        return False

    @staticmethod
    def _remember_sound(key: tuple[Any, ...]) -> None:
        """Keep the verdict "sound" under ``key``, in this process and the cache folder."""
        _SOUND.add(key)
        _record(key)

    def census(self) -> None:
        """The check of :meth:`checked`, run now (no verdict kept)."""
        h = self.header
        cells = self._cells()
        census = _compiled_census() if cells is not None else None
        if cells is not None and census is not None:
            try:
                words, longest, _states = census(cells.cells, cells.root, len(h.alphabet), h.longest_word, h.word_count)
            except ValueError as error:
                raise self._walk_error(error) from None
        else:
            self._check_below(self.root, h.longest_word, h.word_count, whole=True)
            words, longest = self.__dict__["_counted"][self.root]
        if words != h.word_count:
            raise self._damaged(f"{words:,} words, its header says {h.word_count:,}")
        if longest != h.longest_word:
            raise self._damaged(f"its longest word has {longest:,} letters, its header says {h.longest_word:,}")

    def _check_below(self, start: int, max_depth: int | None, max_words: int | None, whole: bool = False) -> None:
        # One census of the whole automaton proves every walk below any state.
        if whole:
            super()._check_below(start, max_depth, max_words)
        else:
            self.checked()

    # -- the cursor ---------------------------------------------------------------------

    @property
    def root(self) -> int:
        """The state of the empty prefix."""
        return self.states.root

    def is_word(self, state: int) -> bool:
        """True if the prefix that led to ``state`` is a word."""
        try:
            return self.states.is_final(state)
        except IndexError:
            raise self._outside() from None

    def _walk_error(self, error: ValueError) -> Exception:
        # A version 2 walk's ValueError("damaged: what") as the library's one-line error.
        return self._damaged(str(error).removeprefix("damaged: "))

    def _outside(self) -> DictionaryError:
        # Checksums only catch accidents: a file can be consistent yet point outside itself.
        return DictionaryError(f"{self.path}: damaged dictionary (a transition points outside the file): rebuild it")

    def children(self, state: int) -> Iterator[tuple[str, int]]:
        """The (letter, child) pairs of ``state``, in letter order."""
        alphabet = self.alphabet
        try:
            for bit, child in self.states.children(state):
                yield alphabet[bit], child
        except IndexError:
            raise self._outside() from None
        except ValueError as error:
            raise self._walk_error(error) from None

    # -- the set of words ---------------------------------------------------------------

    def __len__(self) -> int:
        return self.header.word_count

    def _walk_bounds(self) -> tuple[int | None, int | None]:
        return self.header.longest_word, self.header.word_count

    #: Most words listed by one call of the compiled walk (which returns them in one list);
    #: larger dictionaries are listed by the cursor, a word at a time.
    COMPILED_LISTING_WORDS = 2_000_000

    def _complete_key(self, prefix: str, limit: int | None) -> Iterator[str]:
        """The words starting with the normalized ``prefix`` in byte order, at most ``limit``.

        On a version 2 file, when the compiled query walk is built, they are listed by the
        query walk (:func:`boggle_dafsa.query.walk.search` with a prefix pattern): the
        compiled ``walk`` over the version 1 cells the file expands into, chunk by chunk
        (over 31 letters, the generic walk of the cursor), instead of the cursor's walk in
        Python: the same words, as bounded (paths by the longest word, words by the
        header's count, exactly that many from the root). Every word (no prefix, no limit) is
        streamed by :meth:`_listed` whatever the version: the query walk's chunks are listed
        whole before the first word, 173,528 small strings for ENABLE2K (10 MB), whose
        allocator arenas stayed in the process after it (the few objects made among them keep
        them: a prover's worker kept 10 MB that way, issue 35).
        """
        words = self.header.word_count
        if not prefix and limit is None:
            listing = compiled.load("builder")
            if listing is not None and self._cells() is not None:
                yield from self._listed(listing, None)
                return
        if self.version < 2 or words > self.COMPILED_LISTING_WORDS or compiled.load("query walk") is None:
            listing = None if prefix else compiled.load("builder")
            if listing is not None and self._cells() is not None:
                yield from self._listed(listing, limit)
                return
            yield from super()._complete_key(prefix, limit)
            return
        if limit == 0:
            return
        from boggle_dafsa.query.automata import Letters, Pattern
        from boggle_dafsa.query.walk import search

        pattern = Pattern([*(Letters(letter) for letter in prefix), None])
        found = list(search(self, pattern, words + 1 if limit is None else min(limit, words + 1)))
        if len(found) > words or (not prefix and limit is None and len(found) != words):
            raise self._damaged(f"{len(found):,} words, its header says {words:,}")
        yield from found

    def _listed(self, listing: Any, limit: int | None) -> Iterator[str]:
        """Every word (at most ``limit``), listed by the compiled ``words_blocks`` (what a
        writer reads back with) over the version 1 cells: for version 1 files and for
        version 2 files past :data:`COMPILED_LISTING_WORDS`, which the cursor would list
        at about 10 µs a word (4 million words: 72 CPU-s for ``dump``; this way, a few).

        The walk runs in a thread of its own and hands blocks of about 64 KiB through a
        queue of four, so memory stays flat whatever the size; a consumer that stops early
        (a limit, a closed pipe, Ctrl-C) stops the walk at its next block.
        """
        import queue

        if limit == 0:
            return
        self.checked()
        cells = self._cells()
        assert cells is not None
        header = self.header
        letters = [letter.encode("utf-8") for letter in header.alphabet]
        blocks: queue.Queue[Any] = queue.Queue(maxsize=4)
        stop = threading.Event()

        class Stopped(Exception):
            pass

        def sink(block: bytes) -> None:
            while True:
                if stop.is_set():
                    raise Stopped
                try:
                    blocks.put(block, timeout=0.05)
                    return
                except queue.Full:
                    continue

        def produce() -> None:
            try:
                listing.words_blocks(
                    cells.cells, cells.root, len(letters), header.longest_word, header.word_count, letters, sink, 1 << 16
                )
                outcome: Any = None
            except Stopped:
                return
            except BaseException as error:  # handed to the consumer, which raises it
                outcome = error
            while not stop.is_set():
                try:
                    blocks.put(("end", outcome), timeout=0.05)
                    return
                except queue.Full:
                    continue

        worker = threading.Thread(target=produce, name="boggle-dafsa listing", daemon=True)
        worker.start()
        emitted = 0
        try:
            while True:
                item = blocks.get()
                if isinstance(item, tuple):
                    if isinstance(item[1], ValueError):
                        raise self._walk_error(item[1])
                    if item[1] is not None:
                        raise item[1]
                    return
                for word in item.decode("utf-8").split("\n")[:-1]:
                    yield word
                    emitted += 1
                    if emitted == limit:
                        return
        finally:
            stop.set()
            while True:  # let a producer waiting on a full queue see the stop
                try:
                    blocks.get_nowait()
                except queue.Empty:
                    break
            worker.join(timeout=1)

    def info(self) -> dict[str, Any]:
        """What ``inspect`` shows about this dictionary."""
        h = self.header
        return {
            "path": self.path,
            "format": self.format_name,
            "format_version": h.version,
            "policy": h.policy.value,
            "alphabet": h.alphabet,
            "words": h.word_count,
            "states": h.state_count,
            "transitions": h.transition_count,
            "final_states": h.final_count,
            "longest_word": h.longest_word,
            "bytes": h.file_size,
            "bytes_per_word": round(h.file_size / max(h.word_count, 1), 3),
            "source_sha256": h.source_digest,
            "body_crc32": f"{h.body_crc32:08x}",
            "word_numbers": "stored" if h.has_word_numbers else "not stored (computed in memory on first use)",
            "values": self.values_info(),
        }

    # -- integrity ----------------------------------------------------------------------

    def body_intact(self) -> bool:
        """True if the cells match the checksum recorded in the header (and the word-number
        and value sections, if any, their own: the counts are checked against the automaton's
        by :meth:`check_word_numbers`)."""
        h = self.header
        data = memoryview(self._map)
        intact = zlib.crc32(data[h.header_size : h.header_size + h.body_size]) == h.body_crc32
        if intact and h.has_word_numbers:
            start = h.header_size + h.body_size
            intact = index_crc_holds(data[start : start + h.index_bytes])
        if intact and h.has_values:
            from boggle_dafsa.automaton.values import crc_holds

            intact = crc_holds(data[h.values_at : h.values_at + h.values_bytes])
        return intact

    def close(self) -> None:
        """Release the mapping (the dictionary is unusable afterwards)."""
        self._release_values()
        self._release_lookup()
        if isinstance(self.cells, memoryview):
            self.cells.release()
        if isinstance(self.states, CompactLayout) and isinstance(self.states.body, memoryview):
            self.states.body.release()
        if hasattr(self._map, "close"):
            self._map.close()

    def __repr__(self) -> str:
        return f"NativeDictionary({self.path!r}, words={len(self)})"


# Files found sound in this process, by (device, inode, size, mtime_ns, body CRC); the verdicts are
# also kept in the cache folder, so that a file is counted once, not once per run (the
# Python twin takes half a second on ENABLE2K, the compiled census a millisecond or two).
_SOUND: set[tuple[int, ...]] = set()


def _verdict_file(key: tuple[int, ...]) -> Path | None:
    from boggle_dafsa.files.folders import private_cache_dir

    folder = private_cache_dir()
    return None if folder is None else folder / "native-census" / "-".join(map(str, key))


def _recalled(key: tuple[int, ...]) -> bool:
    file = _verdict_file(key)
    try:
        return file is not None and file.read_bytes() == b"ok"
    except OSError:
        return False


def _record(key: tuple[int, ...]) -> None:
    # Only "sound" is kept: a damaged file is refused again (quickly) each time.
    file = _verdict_file(key)
    if file is None:
        return
    try:
        write_atomically(file, b"ok")
    except DictionaryError:
        pass  # only a cache


def _compiled_census() -> Any:
    # The compiled census, unless missing or BOGGLE_DAFSA_PURE=1 asks for the Python twin.
    module = compiled.load("census")
    return None if module is None else module.census
