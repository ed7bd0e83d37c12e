"""Reading a native dictionary in place, through mmap.

Opening maps the file and checks its header only, so it takes the same time for ten
words or a million, and processes that open the same file share its pages.
Every query walks the mapped cells directly; nothing is decoded up front.
"""

from __future__ import annotations

import mmap
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from boggle_dafsa.automaton.fileformat import (
    _LITTLE_ENDIAN,
    FINAL_FLAG,
    FIXED_SIZE,
    Header,
    NativeLayout,
    decode_header,
    layout_of,
)
from boggle_dafsa.dictionary import DictionaryBase
from boggle_dafsa.errors import DictionaryError, opening
from boggle_dafsa.words.normalize import Policy

__all__ = ["FINAL_FLAG", "NativeDictionary"]


class NativeDictionary(DictionaryBase[int]):
    """A dictionary in the native DAFSA format, mapped from its file.

    A state is the index of its first cell; see ``docs/format.md``.
    """

    format_name = "native"

    def __init__(self, path: str | Path) -> None:
        """Map ``path`` and check its header (raises :class:`DictionaryError`)."""
        self.path = str(path)
        with opening(path, DictionaryError, "dictionary file"), open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size < FIXED_SIZE:
                head = stream.read(FIXED_SIZE)
                decode_header(head, self.path, size)  # raises: bad magic or truncated
            self._map = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        self.header: Header = decode_header(self._map, self.path, size)
        body = memoryview(self._map)[self.header.header_size :]
        if _LITTLE_ENDIAN:
            #: The cells, in place on the mapped file.
            self.cells: Any = body.cast("I")
        else:  # pragma: no cover - big-endian hosts pay one copy at open
            from array import array

            swapped = array("I", body.tobytes())
            swapped.byteswap()
            self.cells = swapped
        self.policy: Policy = self.header.policy
        self.header_cells: int = self.header.header_cells
        #: Bit index of each letter in a state header.
        self.letter_bits: dict[str, int] = {letter: bit for bit, letter in enumerate(self.header.alphabet)}
        self._final_bit = 32 * self.header_cells - 1

        self._layout = layout_of(self.header, self.cells, self.path)

    @property
    def alphabet(self) -> str:
        """The letters, in bit (and byte) order."""
        return self.header.alphabet

    def layout(self) -> NativeLayout | None:
        """The cells as a solver kernel reads them; None when the states have wide headers."""
        return self._layout

    # -- the cursor ---------------------------------------------------------------------

    @property
    def root(self) -> int:
        """The state of the empty prefix."""
        return self.header.root

    def step(self, state: int, letters: str) -> int | None:
        """Follow each character of ``letters`` from ``state``; None if no word continues so."""
        cells = self.cells
        bits = self.letter_bits
        try:  # free in CPython 3.11 unless raised
            for letter in letters:
                bit = bits.get(letter)
                if bit is None:
                    return None
                if self.header_cells == 1:
                    head = cells[state]
                    if not head >> bit & 1:
                        return None
                    state = cells[state + 1 + (head & ((1 << bit) - 1)).bit_count()]
                else:
                    head = self._head(state)
                    if not head >> bit & 1:
                        return None
                    state = cells[state + self.header_cells + (head & ((1 << bit) - 1)).bit_count()]
        except IndexError:
            raise self._outside() from None
        return state

    def is_word(self, state: int) -> bool:
        """True if the prefix that led to ``state`` is a word."""
        try:
            if self.header_cells == 1:
                return bool(self.cells[state] & FINAL_FLAG)
            return bool(self._head(state) >> self._final_bit & 1)
        except IndexError:
            raise self._outside() from None

    def _head(self, state: int) -> int:
        # The header bitset of a state, whatever its width.
        head = 0
        for i in range(self.header_cells):
            head |= self.cells[state + i] << (32 * i)
        return head

    def _outside(self) -> DictionaryError:
        # Checksums only catch accidents: a file can be consistent yet point outside itself.
        return DictionaryError(f"{self.path}: damaged dictionary (a transition points outside the file): rebuild it")

    def children(self, state: int) -> Iterator[tuple[str, int]]:
        """The (letter, child) pairs of ``state``, in letter order."""
        try:
            head = self._head(state)
            child = state + self.header_cells
            letters = head & ~(1 << self._final_bit)
            alphabet = self.alphabet
            while letters:
                low = letters & -letters
                yield alphabet[low.bit_length() - 1], self.cells[child]
                child += 1
                letters ^= low
        except IndexError:
            raise self._outside() from None

    # -- the set of words ---------------------------------------------------------------

    def __len__(self) -> int:
        return self.header.word_count

    def _walk_bounds(self) -> tuple[int | None, int | None]:
        return self.header.longest_word, self.header.word_count

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
        }

    # -- integrity ----------------------------------------------------------------------

    def body_intact(self) -> bool:
        """True if the cells match the checksum recorded in the header."""
        return zlib.crc32(memoryview(self._map)[self.header.header_size :]) == self.header.body_crc32

    def close(self) -> None:
        """Release the mapping (the dictionary is unusable afterwards)."""
        if isinstance(self.cells, memoryview):
            self.cells.release()
        self._map.close()

    def __repr__(self) -> str:
        return f"NativeDictionary({self.path!r}, words={len(self)})"
