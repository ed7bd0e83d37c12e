"""The file formats of a dictionary, behind the one ``Dictionary`` interface.

Each format is one record of :mod:`.registry` (its name, magic, reader, writer); today:

* ``native``: our minimal DAFSA (``boggle_dafsa.automaton``), the default;
* ``marisa``: a marisa-trie file (the ``marisa-trie`` package), the smallest;
* ``dawg``: a dawgdic CompletionDAWG (the ``DAWG``/``dawg2`` packages, ``dawg-python``),
  written here in pure Python.

This module is the only way a dictionary file is written (:func:`write_dictionary`,
which ``build`` uses) or opened by its content (:func:`open_path`, after
:func:`~.detect.detect_format`), through the records. Readers and writers are
imported on first use, so opening a native file never imports marisa_trie. Foreign
files keep our metadata in a sidecar, ``<file>.meta.json`` (see ``sidecar.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boggle_dafsa.formats.detect import detect_format
from boggle_dafsa.formats.registry import FORMATS, format_named
from boggle_dafsa.words.normalize import Policy

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

__all__ = ["FORMATS", "Written", "detect_format", "open_path", "write_dictionary"]


class Written:
    """What :func:`write_dictionary` wrote: the file's size, and the automaton's counts when known.

    A plain class with slots, not a NamedTuple: cheaper to create at import (start-up time).
    """

    __slots__ = ("file_bytes", "states", "transitions")

    def __init__(self, file_bytes: int, states: int | None = None, transitions: int | None = None) -> None:
        self.file_bytes = file_bytes
        self.states = states
        self.transitions = transitions


def write_dictionary(
    words: Iterable[str],
    path: str | Path,
    format: str = "native",
    meta: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Written:
    """Write the sorted unique normalized ``words`` to ``path`` in ``format``, atomically.

    For ``native``, ``words`` may be any iterable of sorted words (a generator, a merge):
    it is streamed into the builder and never held whole.

    ``meta`` may give ``policy`` (a :class:`Policy` or its value, default fold),
    ``source_sha256`` (the digest of the normalized list, computed when absent) and, for
    ``native``, ``format_version`` (1 or 2, default the newest).
    Foreign formats also get their sidecar. ``progress`` (native only) is called now
    and then with the number of words added.
    """
    record = format_named(format)  # UnknownFormatError, a ValueError
    from boggle_dafsa.words.wordlist import digest_words

    meta = meta or {}
    policy = Policy(meta.get("policy", Policy.FOLD))
    write = record.write_function()
    if record.streams:
        # Streamed: `words` may be any iterable, never held whole; the digest is made on the way.
        stats = write(words, path, policy, meta.get("source_sha256"), progress, version=meta.get("format_version"))
        return Written(stats.file_bytes, stats.states, stats.transitions)
    words = words if isinstance(words, Sequence) else list(words)
    write(words, path, policy, meta.get("source_sha256") or digest_words(words))
    return Written(Path(path).stat().st_size)


def open_path(path: str | Path) -> Dictionary[Any]:
    """Open the dictionary file at ``path``, whatever its format (told by its first bytes)."""
    return format_named(detect_format(path)).open(path)
