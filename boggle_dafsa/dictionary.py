"""The interface every dictionary offers, whatever its file format.

A dictionary is a set of normalized words plus a *cursor*: a way to walk the
automaton one letter at a time, which is what the solver builds on.
States are opaque, hashable values: only ``root``, ``step`` and ``is_word`` give them meaning.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any, Protocol, TypeVar, runtime_checkable

from .normalize import Policy

#: What a state is depends on the format: a cell index (native), a unit index (dawg), a prefix (marisa).
State = TypeVar("State", bound=Hashable)


@runtime_checkable
class Dictionary(Protocol[State]):
    """A read-only set of words with a letter-by-letter cursor.

    Words given to ``in``, ``has_prefix`` and ``complete`` must already be
    normalized (see :meth:`normalize`); iteration is in byte order of the
    UTF-8 encoding (which is also code point order).
    """

    #: Short name of the file format: "native", "marisa" or "dawg".
    format_name: str
    #: The normalization policy the words were stored with.
    policy: Policy

    @property
    def root(self) -> State:
        """The state of the empty prefix."""
        ...

    def step(self, state: State, letters: str) -> State | None:
        """Follow every character of ``letters`` (one grid face, e.g. "E" or "QU") from ``state``.

        Returns None as soon as no word starts with the prefix reached.
        """
        ...

    def is_word(self, state: State) -> bool:
        """True if the prefix that led to ``state`` is a word."""
        ...

    def normalize(self, text: str) -> str | None:
        """Normalize a word, query or grid face by this dictionary's policy (None: not letters)."""
        ...

    def __contains__(self, word: object) -> bool: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[str]: ...

    def has_prefix(self, prefix: str) -> bool:
        """True if some word starts with ``prefix`` (the prefix itself included)."""
        ...

    def complete(self, prefix: str, limit: int | None = None) -> Iterator[str]:
        """The words that start with ``prefix``, in byte order, at most ``limit`` of them."""
        ...

    def info(self) -> dict[str, Any]:
        """What ``inspect`` shows: format, policy, alphabet, counts, sizes, digests."""
        ...
