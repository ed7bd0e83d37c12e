"""dawgdic ``CompletionDAWG`` files: writing them, and reading them in place through mmap.

The files are those of the ``DAWG``/``dawg2`` packages and of ``dawg-python``
(``dawg_python.CompletionDAWG().load(path)``); ``dawgdic.py`` describes the layout. Our
writer produces the same bytes as ``dawg2`` for the same words.

Reading does what ``dawg_python``'s ``Dictionary.follow_char`` and ``Completer`` do, on
the mapped units rather than on a copy: opening costs the same for any size, and a step is
a few integer operations inline instead of several method calls. A state is the index
of a dictionary unit; the root is 0.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
from array import array
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from boggle_dafsa.errors import DictionaryError, opening
from boggle_dafsa.files.limits import MAX_DICTIONARY_WORDS
from boggle_dafsa.formats.dawgdic import EXTENSION_BIT, HAS_LEAF_BIT, IS_LEAF_BIT, LABEL_MASK, completion_dawg_bytes
from boggle_dafsa.formats.foreign import ForeignDictionary
from boggle_dafsa.formats.sidecar import (
    describe,
    file_sha256,
    matching_sidecar,
    read_back_keys,
    read_sidecar,
    write_with_sidecar,
)
from boggle_dafsa.words.normalize import Policy

FORMAT = "dawg"
#: Bound on the key length (bytes) of a file without sidecar: past it, the file is damaged.
_MAX_KEY_BYTES = 4096
_LITTLE_ENDIAN = array("I", [1]).tobytes()[0] == 1
# Faces and letters are few: their UTF-8 forms are kept, up to this many.
_ENCODED_CACHE_SIZE = 4096


def write_dawg(words: Sequence[str], path: str | Path, policy: Policy = Policy.FOLD, source_sha256: str | None = None) -> None:
    """Write the sorted unique ``words`` as a dawgdic CompletionDAWG file, with its sidecar."""
    data = completion_dawg_bytes(words)
    read_back_keys(path, words, DawgDictionary.of_buffer(data, str(path)))
    write_with_sidecar(path, data, describe(list(words), FORMAT, data, policy, source_sha256))


def layout(path: str | Path, size: int, read_u32: Any) -> tuple[int, int]:
    """(dictionary units, guide units) of a dawgdic file, checked against its ``size``.

    ``read_u32(offset)`` reads a little-endian u32 of the file. Raises
    :class:`DictionaryError` for a file that cannot be a whole CompletionDAWG.
    """
    units = read_u32(0)
    if units < 256 or units % 256:
        raise DictionaryError(f"{path}: not a dawg file (bad unit count)")
    dictionary_end = 4 + 4 * units
    if size == dictionary_end:
        raise DictionaryError(
            f"{path}: dawg file without a completion guide (saved from dawg.DAWG or dawg.IntDAWG): "
            "save it from dawg.CompletionDAWG or dawg.IntCompletionDAWG"
        )
    if size < dictionary_end + 4:
        raise DictionaryError(f"{path}: truncated dawg file ({size} bytes, its {units} units need {dictionary_end + 4})")
    guide = read_u32(dictionary_end)
    if guide not in (0, units):
        raise DictionaryError(f"{path}: damaged dawg file (guide of {guide} units for {units} dictionary units)")
    expected = dictionary_end + 4 + 2 * guide
    if size != expected:
        what = "truncated" if size < expected else "has trailing bytes"
        raise DictionaryError(f"{path}: dawg file {what} ({size} bytes, its header says {expected})")
    return units, guide


class DawgDictionary(ForeignDictionary):
    """A dawgdic CompletionDAWG file, mapped from disk."""

    format_name = FORMAT

    def __init__(self, path: str | Path) -> None:
        """Map ``path`` and check its sizes (raises :class:`DictionaryError`)."""
        path = str(path)
        with opening(path, DictionaryError, "dictionary file"), open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            if size < 8:
                raise DictionaryError(f"{path}: not a dawg file (only {size} bytes)")
            self._map: Any = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
        self._setup(path, size, read_sidecar(path, FORMAT))

    @classmethod
    def of_buffer(cls, data: bytes, source: str) -> DawgDictionary:
        """The dictionary held by ``data``, named ``source`` (what its writer reads back)."""
        self = cls.__new__(cls)
        if len(data) < 8:
            raise DictionaryError(f"{source}: not a dawg file (only {len(data)} bytes)")
        self._map = data
        self._setup(source, len(data), None)
        return self

    def _setup(self, path: str, size: int, sidecar: Any) -> None:
        # What opening does once the bytes are mapped: the layout, the sidecar's word.
        unit_count, guide_count = layout(path, size, lambda offset: struct.unpack_from("<I", self._map, offset)[0])
        self.unit_count = unit_count
        self.guide_count = guide_count
        view = memoryview(self._map)
        units = view[4 : 4 + 4 * unit_count]
        if _LITTLE_ENDIAN:
            #: The dictionary units, in place on the mapped file.
            self.units: Any = units.cast("I")
        else:  # pragma: no cover - big-endian hosts pay one copy at open
            self.units = array("I", units.tobytes())
            self.units.byteswap()
        if not guide_count:
            # No keys (dawgdic writes no guide then), but the root's units still chain the
            # double array's free list, where a step can land on a unit of the same label
            # by chance: units that all say "no such transition" instead.
            self.units = array("I", bytes(4 * 256))
        #: The guide: (first child label, next sibling label) per unit, in place.
        self.guide: Any = view[8 + 4 * unit_count :]
        self._encoded: dict[str, bytes] = {}
        if sidecar is not None:
            sidecar = matching_sidecar(path, self._map, sidecar)
        self._max_key_bytes = 4 * sidecar.longest_word if sidecar else _MAX_KEY_BYTES
        self._has_values: bool | None = None
        super().__init__(path, sidecar)
        sample = self.sample_word()
        if sample is not None and "\x01" in sample:
            # The DAWG package's BytesDAWG and RecordDAWG keep each value in its key, after
            # a 0x01 byte: their keys are not words, and a word may hold several values.
            raise DictionaryError(
                f"{path}: a BytesDAWG or RecordDAWG file (its keys hold values after a 0x01 byte): "
                "boggle-dafsa reads CompletionDAWG and IntCompletionDAWG files"
            )

    # -- the cursor ---------------------------------------------------------------------

    @property
    def root(self) -> int:
        """The state of the empty prefix."""
        return 0

    def step(self, state: int, letters: str) -> int | None:
        """Follow the UTF-8 bytes of ``letters`` from ``state``; None if no word continues so."""
        encoded = self._encoded.get(letters)
        if encoded is None:
            if not self.guide_count:
                # No key at all (dawgdic writes no guide then): the free units' labels,
                # chosen by dawgdic's fix_block, can still match a letter by chance.
                return None
            encoded = letters.encode("utf-8")
            if len(self._encoded) < _ENCODED_CACHE_SIZE:
                self._encoded[letters] = encoded
        # `_follow` inline, with literal masks: the solver's inner loop (a third faster).
        units = self.units
        try:
            for label in encoded:
                base = units[state]
                state ^= ((base >> 10) << ((base & 0x200) >> 6)) ^ label
                if units[state] & 0x800000FF != label:
                    return None
        except IndexError:
            raise self._damaged("transition out of range") from None
        return state

    def is_word(self, state: int) -> bool:
        """True if the prefix that led to ``state`` is a word."""
        return bool(self.units[state] & 0x100)  # HAS_LEAF_BIT, literal: called once a step

    # -- the set of words ---------------------------------------------------------------

    def _has_key(self, key: str) -> bool:
        state = self._follow(self.root, key.encode("utf-8"))
        return state is not None and self.is_word(state)

    def _complete_key(self, prefix: str, limit: int | None) -> Iterator[str]:
        """The words starting with the normalized ``prefix`` in byte order, at most ``limit``."""
        encoded = prefix.encode("utf-8")
        start = self._follow(self.root, encoded)
        if start is None or limit == 0 or not self.guide_count:
            return iter(())
        self._count_keys_below(start)
        keys = self._keys(start, encoded)
        # islice takes at most sys.maxsize; a larger limit is no limit.
        return self._decoded(keys if limit is None or limit >= sys.maxsize else islice(keys, limit))

    def _count_keys_below(self, start: int) -> None:
        """Count the keys below unit ``start`` through the guide, once per unit, before any
        walk: a cycle, a key longer than the longest word, or more keys than the sidecar
        says (without one, than :data:`~boggle_dafsa.files.limits.MAX_DICTIONARY_WORDS`) is a
        damaged file. A valid file of a few states can hold 2**1000 keys; listing them
        would never end."""
        most = self.sidecar.words if self.sidecar else MAX_DICTIONARY_WORDS
        counted: dict[int, tuple[int, int]] = self.__dict__.setdefault("_counted", {})
        units = self.units
        try:
            if start not in counted:
                on_path = {start}
                stack = [(start, self._guide_children(start))]
                while stack:
                    node, children = stack[-1]
                    for child in children:
                        if child in on_path:
                            raise self._damaged("the guide leads round in a circle")
                        if child not in counted:
                            on_path.add(child)
                            stack.append((child, self._guide_children(child)))
                            break
                    else:
                        stack.pop()
                        on_path.discard(node)
                        keys = int(bool(units[node] & HAS_LEAF_BIT)) + sum(counted[child][0] for child in children)
                        depth = max((counted[child][1] + 1 for child in children), default=0)
                        if keys > most or depth > self._max_key_bytes:
                            raise self._damaged(
                                f"more keys than {'its sidecar says' if self.sidecar else 'any word list'}, or longer ones"
                            )
                        counted[node] = (keys, depth)
        except IndexError:
            raise self._damaged("transition out of range") from None
        if start == 0 and self.sidecar is not None and counted[0][0] != most:
            raise self._damaged(f"{counted[0][0]:,} keys, its sidecar says {most:,}")

    def _guide_children(self, node: int) -> list[int]:
        # The units below `node`, as the guide lists them (labels strictly increasing).
        units, guide = self.units, self.guide
        children = []
        label = guide[2 * node]
        previous = 0
        while label:
            if label <= previous:
                raise self._damaged("guide siblings out of order")
            base = units[node]
            child = node ^ ((base >> 10) << ((base & EXTENSION_BIT) >> 6)) ^ label
            if units[child] & LABEL_MASK != label:
                raise self._damaged("the guide names a missing transition")
            children.append(child)
            previous = label
            label = guide[2 * child + 1]
        return children

    def _follow(self, state: int, encoded: bytes) -> int | None:
        units = self.units
        try:
            for label in encoded:
                # dawg_python's Dictionary.follow_char, inline.
                base = units[state]
                state ^= ((base >> 10) << ((base & EXTENSION_BIT) >> 6)) ^ label
                if units[state] & LABEL_MASK != label:
                    return None
        except IndexError:
            raise self._damaged("transition out of range") from None
        return state

    def _keys(self, start: int, prefix: bytes) -> Iterator[bytes]:
        """The keys below unit ``start`` in byte order: dawgdic's Completer, with bounds.

        The guide names each unit's first child and next sibling. In a damaged file it could
        lead round in circles: siblings must come in increasing label order, and keys may not
        grow past the longest word, so the walk always ends.
        """
        units, guide = self.units, self.guide
        max_length = max(self._max_key_bytes, len(prefix))
        key = bytearray(prefix)
        path: list[int] = []  # units above `node`, below `start`
        node = start
        try:
            if units[start] & HAS_LEAF_BIT:
                yield bytes(key)
            label = guide[2 * node]  # the next child of `node` to visit, 0 for none
            while True:
                if label:
                    base = units[node]
                    child = node ^ ((base >> 10) << ((base & EXTENSION_BIT) >> 6)) ^ label
                    if units[child] & LABEL_MASK != label:
                        raise self._damaged("the guide names a missing transition")
                    path.append(node)
                    key.append(label)
                    if len(key) > max_length:
                        raise self._damaged("a word longer than the longest word")
                    if units[child] & HAS_LEAF_BIT:
                        yield bytes(key)
                    node = child
                    label = guide[2 * node]
                    continue
                # No more children here: on to the next sibling of `node`, or up.
                while path:
                    sibling = guide[2 * node + 1]
                    node = path.pop()
                    last = key.pop()
                    if sibling:
                        if sibling <= last:
                            raise self._damaged("guide siblings out of order")
                        label = sibling
                        break
                else:
                    return
        except IndexError:
            raise self._damaged("transition out of range") from None

    # -- values (issue 33): the int dawgdic stores for each key --------------------------

    def _value_below(self, state: int) -> int:
        # The value of the key that ends at `state` (a unit with a leaf): dawgdic's, in the
        # unit its offset leads to (dawg_python's Dictionary.find).
        base = self.units[state]
        leaf = state ^ ((base >> 10) << ((base & EXTENSION_BIT) >> 6))
        unit = self.units[leaf]
        if not unit & IS_LEAF_BIT:
            raise self._damaged("a key without its value")
        return int(unit & ~IS_LEAF_BIT & 0xFFFFFFFF)

    @property
    def has_values(self) -> bool:  # type: ignore[override]
        """True if some key holds a value other than 0 (an IntCompletionDAWG's ints; a
        CompletionDAWG stores 0 for every key: a set of words)."""
        if self._has_values is None:
            units = self.units
            self._has_values = any(unit & IS_LEAF_BIT and unit & ~IS_LEAF_BIT for unit in units)
        return self._has_values

    @property
    def value_kind(self) -> str | None:  # type: ignore[override]
        """``int`` for a file whose keys hold values, else None."""
        return "int" if self.has_values else None

    def values_info(self) -> str:
        """What ``inspect`` says of the values."""
        if self.has_values:
            return "int (an IntCompletionDAWG's: the value dawgdic stores for each key)"
        return "none (a CompletionDAWG: every key holds 0)"

    def _value_of_key(self, key: str) -> int:
        if not self.has_values:
            raise self._no_values()
        state = self._follow(self.root, key.encode("utf-8"))
        if state is None or not self.is_word(state):
            raise KeyError(key)
        try:
            return self._value_below(state)
        except IndexError:
            raise self._damaged("transition out of range") from None

    def __getitem__(self, word: str) -> int:
        """The int the file holds for ``word`` (normalized): IntCompletionDAWG's ``d[key]``."""
        key = self.key(word) if isinstance(word, str) and word else None
        if key is None:
            if not self.has_values:
                raise self._no_values()
            raise KeyError(word)
        try:
            return self._value_of_key(key)
        except KeyError:
            raise KeyError(word) from None

    def get(self, word: str, default: Any = None) -> Any:
        """The value of ``word``, or ``default`` if it is no word."""
        try:
            return self[word]
        except KeyError:
            return default

    def items(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """The (word, value) pairs of the words starting with ``prefix``, in byte order."""
        if not self.has_values:
            raise self._no_values()
        return ((word, self._value_of_key(word)) for word in self.complete(prefix))

    def values(self) -> Iterator[Any]:
        """Every value, in the words' byte order."""
        return (value for _, value in self.items())

    def _decoded(self, keys: Iterator[bytes]) -> Iterator[str]:
        for key in keys:
            try:
                yield key.decode("utf-8")
            except UnicodeDecodeError:
                raise DictionaryError(
                    f"{self.path}: holds a key that is not UTF-8 text ({key[:40]!r}): not a word list"
                ) from None

    def _damaged(self, what: str) -> DictionaryError:
        return DictionaryError(f"{self.path}: damaged dawg file ({what})")

    # -- integrity and description ------------------------------------------------------

    def body_intact(self) -> bool:
        """True if the file still matches the digest in its sidecar (True when there is none)."""
        if self.sidecar is None:
            return True
        return file_sha256(self._map) == self.sidecar.file_sha256

    def file_info(self) -> dict[str, Any]:
        return {"dictionary_units": self.unit_count, "guide_units": self.guide_count}

    def close(self) -> None:
        """Release the mapping (the dictionary is unusable afterwards)."""
        if isinstance(self.units, memoryview):
            self.units.release()
        self.guide.release()
        if hasattr(self._map, "close"):  # not the bytes a writer reads back
            self._map.close()

    def __repr__(self) -> str:
        return f"DawgDictionary({self.path!r})"
