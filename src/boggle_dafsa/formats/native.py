"""Writing the native format, for the registry (reading it is :mod:`boggle_dafsa.automaton.reader`).

Every native file is written by the streaming builder (``automaton.stream``): compiled
when the extension is built, in Python otherwise, the same bytes either way.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from boggle_dafsa.automaton.builder import UnsortedInputError
from boggle_dafsa.automaton.fileformat import DEFAULT_VERSION
from boggle_dafsa.automaton.stream import NativeStats, NativeWriter
from boggle_dafsa.errors import WordListError
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.normalize import normalize as normalize_word

#: Words handed to the builder at a time.
_BLOCK_WORDS = 65536


def native_writer(kernel: Any = None) -> NativeWriter:
    """A streaming writer of the native format: ``add_block``/``add_words`` sorted words, then ``write``."""
    return NativeWriter(kernel)


def write_native(
    sorted_words: Iterable[str],
    path: str | Path,
    policy: Policy = Policy.FOLD,
    digest: str | None = None,
    progress: Callable[[int], None] | None = None,
    kernel: Any = None,
    version: int | None = None,
    index: bool = True,
) -> NativeStats:
    """Write the native file of ``sorted_words`` (an iterable: never held whole) atomically.

    The streaming entry point for producers of sorted words (set algebra, merges): memory
    is the automaton only. Raises :class:`UnsortedInputError` at the first word out of
    order or repeated. ``kernel``: see ``automaton.stream.kernels``.
    """
    writer = _fed(sorted_words, progress, kernel)
    return writer.write(path, policy, digest, version or DEFAULT_VERSION, index)


def write_native_items(
    sorted_items: Iterable[tuple[str, Any]],
    path: str | Path,
    kind: str,
    policy: Policy = Policy.FOLD,
    digest: str | None = None,
    kernel: Any = None,
    version: int | None = None,
    index: bool = True,
) -> NativeStats:
    """Write the native file of ``sorted_items`` (``(word, value)``, words sorted and unique;
    values of ``kind``: ``int``, ``text`` or ``bytes``) atomically, a value per word
    (docs/format.md): the streaming entry point for set algebra over maps."""
    writer = NativeWriter(kernel, values=kind)
    writer.add_items(sorted_items, _BLOCK_WORDS)
    return writer.write(path, policy, digest, version or DEFAULT_VERSION, index)


def compile_words(
    sorted_words: Iterable[str],
    policy: Policy = Policy.FOLD,
    progress: Callable[[int], None] | None = None,
    *,
    normalize: bool = False,
    version: int = DEFAULT_VERSION,
    index: bool = True,
) -> bytes:
    """The native dictionary file (format ``version``) of ``sorted_words``, as bytes.

    The words must be normalized by ``policy`` (for ``fold``: upper case, no accent,
    letters only), sorted and unique: a word that is not raises
    :class:`~boggle_dafsa.errors.WordListError` naming it, rather than writing a file
    whose queries, which are normalized, could never reach it. ``index``: with the
    word-number section (``d.index``, ``d.word``), the default. With ``normalize=True``
    the words are normalized, sorted and deduplicated here instead (a word that is not
    letters still raises).
    """
    if normalize:
        keys = set()
        for word in sorted_words:
            key = normalize_word(word, policy)
            if key is None:
                raise _not_normalized(word, policy, None)
            keys.add(key)
        sorted_words = sorted(keys)
    # The file holds every word anyway: a list costs nothing more, and is checked by slices.
    words = sorted_words if isinstance(sorted_words, list) else list(sorted_words)
    _check(words, policy)
    return encode_words(words, policy, None, progress, version, index)[0]


def _check(words: list[str], policy: Policy) -> None:
    """Raise unless each of ``words`` is its own normalized form under ``policy``."""
    for start in range(0, len(words), 4096):
        chunk = words[start : start + 4096]
        # A slice of upper-case ASCII letters only is folded already: three scans of one
        # string for the usual lists, rather than a normalization per word.
        try:
            joined: str | None = "".join(chunk)
        except TypeError:
            joined = None  # not all text: the loop below names the culprit
        if policy is Policy.FOLD and joined is not None and joined.isascii() and joined.isalpha() and joined.isupper():
            continue
        for word in chunk:
            key = normalize_word(word, policy) if isinstance(word, str) else None
            if key != word:
                raise _not_normalized(word, policy, key)


def _not_normalized(word: object, policy: Policy, key: str | None) -> Exception:
    if key is None:
        return WordListError(f"{word!r} is not a word of letters: compile_words takes letters only")
    return WordListError(
        f"{word!r} is not normalized for the {policy.value} policy (it would be looked up as {key!r}): "
        "normalize the words first, or pass normalize=True"
    )


def encode_words(
    sorted_words: Iterable[str],
    policy: Policy,
    digest: str | None,
    progress: Callable[[int], None] | None = None,
    version: int = DEFAULT_VERSION,
    index: bool = True,
) -> tuple[bytes, int, int]:
    """(the file, its states, its transitions) for ``sorted_words`` whose list has ``digest``
    (computed from the words when None)."""
    writer = _fed(sorted_words, progress)
    stream = io.BytesIO()
    stats = writer.write_to(stream, policy, digest, version, index)
    return stream.getvalue(), stats.states, stats.transitions


def _fed(sorted_words: Iterable[str], progress: Callable[[int], None] | None, kernel: Any = None) -> NativeWriter:
    writer = NativeWriter(kernel)
    block: list[str] = []

    def flush() -> None:
        added = writer.add_block(("\n".join(block) + "\n").encode("utf-8"))
        if added != len(block):
            raise UnsortedInputError("a word is repeated: input must be sorted and unique")
        block.clear()
        if progress is not None:
            progress(writer.words)

    for word in sorted_words:
        if not word:
            raise UnsortedInputError("empty word")
        block.append(word)
        if len(block) == _BLOCK_WORDS:
            flush()
    if block:
        flush()
    return writer
