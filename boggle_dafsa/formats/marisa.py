"""marisa-trie files: the smallest of the three formats, read through ``marisa_trie``'s mmap.

marisa cannot be walked one letter at a time from Python, so a state is the prefix itself:
``step`` appends the face and asks the trie whether any key starts with the result. That
costs a search from the root for each step, which is why the solver is slower on marisa
than on the formats with a real cursor (see ``scripts/bench_formats.py``).

marisa's C++ library trusts its input: a damaged file can crash the process. Files we write
come with a sidecar holding their SHA-256, checked before the file is handed to marisa; a
file without one is trusted as is, after a check of its magic and size.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import marisa_trie

from ..errors import DictionaryError, opening
from ..normalize import Policy
from .detect import MARISA_MAGIC
from .foreign import ForeignDictionary
from .sidecar import check_file, describe, file_sha256, read_sidecar, write_with_sidecar

FORMAT = "marisa"
# Answers of `step` kept per dictionary: a grid reaches the same prefix by many paths.
_PREFIX_CACHE_SIZE = 1 << 16


def write_marisa(words: Sequence[str], path: str | Path, policy: Policy = Policy.FOLD, source_sha256: str | None = None) -> None:
    """Write the sorted unique ``words`` as a marisa-trie file, with its sidecar.

    Nodes are kept in label order, so that the trie lists its keys in byte order.
    """
    data = marisa_trie.Trie(words, order=marisa_trie.LABEL_ORDER).tobytes()
    write_with_sidecar(path, data, describe(list(words), FORMAT, data, policy, source_sha256))


class MarisaDictionary(ForeignDictionary):
    """A marisa-trie file, mapped from disk. A state is the prefix read so far."""

    format_name = FORMAT

    def __init__(self, path: str | Path) -> None:
        """Check and map ``path`` (raises :class:`DictionaryError`)."""
        path = str(path)
        with opening(path, DictionaryError, "dictionary file"), open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            head = stream.read(len(MARISA_MAGIC))
            sidecar = read_sidecar(path, FORMAT)
            if sidecar is not None and size:
                # Checked before marisa sees a byte: it does not check its input.
                with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as content:
                    check_file(path, content, sidecar)
            elif sidecar is not None:
                check_file(path, b"", sidecar)
        if head != MARISA_MAGIC:
            raise DictionaryError(f"{path}: not a marisa file (bad magic)")
        self.file_bytes = size
        self._trie = marisa_trie.Trie()
        try:
            self._trie.mmap(path)
        except Exception as error:  # marisa reports a short or inconsistent file as RuntimeError
            raise DictionaryError(f"{path}: damaged marisa file ({_first_line(error)})") from None
        self._prefixes: dict[str, bool] = {}
        super().__init__(path, sidecar)

    # -- the cursor ---------------------------------------------------------------------

    @property
    def root(self) -> str:
        """The state of the empty prefix."""
        return ""

    def step(self, state: str, letters: str) -> str | None:
        """``state + letters`` if some word starts with it, else None."""
        prefix = state + letters
        known = self._prefixes.get(prefix)
        if known is None:
            # iterkeys stops at the first key; has_keys_with_prefix is deprecated.
            known = next(self._trie.iterkeys(prefix), None) is not None
            if len(self._prefixes) >= _PREFIX_CACHE_SIZE:
                self._prefixes.clear()
            self._prefixes[prefix] = known
        return prefix if known else None

    def is_word(self, state: str) -> bool:
        """True if the prefix ``state`` is a word."""
        return state in self._trie

    # -- the set of words ---------------------------------------------------------------

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and bool(word) and word in self._trie

    def __len__(self) -> int:
        return len(self._trie)

    def complete(self, prefix: str, limit: int | None = None) -> Iterator[str]:
        """The words starting with ``prefix`` in byte order, at most ``limit`` of them."""
        if limit == 0:
            return iter(())
        keys = self._trie.keys(prefix)
        # Our files list keys in byte order already (label order): then this sort is one
        # linear pass. Files from elsewhere may use marisa's default weight order.
        keys.sort()
        return iter(keys if limit is None else keys[:limit])

    def sample_word(self) -> str | None:
        """Any one word, without listing them all."""
        return next(self._trie.iterkeys(), None)

    # -- integrity and description ------------------------------------------------------

    def body_intact(self) -> bool:
        """True if the file still matches the digest in its sidecar (True when there is none)."""
        if self.sidecar is None:
            return True
        return file_sha256(Path(self.path).read_bytes()) == self.sidecar.file_sha256

    def file_info(self) -> dict[str, Any]:
        return {"key_order": "byte order" if self._in_byte_order() else "marisa weight order"}

    def _in_byte_order(self) -> bool:
        keys = islice(self._trie.iterkeys(), 10_000)
        previous = ""
        for key in keys:
            if key < previous:
                return False
            previous = key
        return True

    def __repr__(self) -> str:
        return f"MarisaDictionary({self.path!r})"


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
