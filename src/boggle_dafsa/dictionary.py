"""The interface every dictionary offers, whatever its file format, and what they share.

A dictionary is a set of normalized words plus a *cursor*: a way to walk the
automaton one letter at a time, which is what the solver and queries build on.
States are opaque, hashable values: only ``root``, ``step``, ``is_word`` and
``children`` give them meaning. :class:`DictionaryBase` derives the rest (iteration,
``complete``, ``has_prefix``, ``in``) from the cursor, for formats with nothing faster.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from boggle_dafsa.errors import DictionaryError, NoValuesError
from boggle_dafsa.words.normalize import Policy, normalize

#: What a state is depends on the format: a cell index (native), a unit index (dawg), a prefix (marisa).
State = TypeVar("State", bound=Hashable)
_Self = TypeVar("_Self", bound="DictionaryBase[Any]")


@runtime_checkable
class Dictionary(Protocol[State]):
    """A read-only set of words with a letter-by-letter cursor.

    ``in``, ``has_prefix`` and ``complete`` normalize what they are given by the
    dictionary's policy (see :meth:`normalize`), as the command line does:
    ``"arbre" in d`` is ``"ARBRE" in d`` for a folding dictionary; text that is not
    letters is in no dictionary. The cursor (``step``) takes normalized faces.
    Iteration is in byte order of the UTF-8 encoding (which is also code point order).
    """

    #: Short name of the file format: one of ``formats.registry.FORMATS``.
    format_name: str
    #: The normalization policy the words were stored with.
    policy: Policy

    @property
    def alphabet(self) -> str:
        """Every letter of the words, in byte (code point) order."""
        ...

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

    def children(self, state: State) -> Iterator[tuple[str, State]]:
        """The (letter, state) pairs one letter below ``state``, in letter (byte) order."""
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

    def close(self) -> None:
        """Release the file (the dictionary is unusable afterwards)."""
        ...


class DictionaryBase(Generic[State]):
    """What every format derives from its cursor; a format overrides what it does faster.

    A subclass provides ``policy``, ``alphabet``, ``root``, ``step`` and ``is_word``
    (and ``info``); ``children`` steps by each letter of the alphabet unless overridden.
    The public set methods normalize their input here, once, then call ``_has_key`` and
    ``_complete_key``, which take normalized keys and which a format may override.
    """

    #: Where the dictionary was read from, for messages.
    path: str
    policy: Policy
    # -- what a subclass provides -----------------------------------------------------

    @property
    def alphabet(self) -> str:
        """Every letter of the words, in byte order."""
        raise NotImplementedError

    @property
    def root(self) -> State:
        raise NotImplementedError

    def step(self, state: State, letters: str) -> State | None:
        raise NotImplementedError

    def is_word(self, state: State) -> bool:
        raise NotImplementedError

    # -- derived from the cursor ------------------------------------------------------

    def children(self, state: State) -> Iterator[tuple[str, State]]:
        """The (letter, state) pairs one letter below ``state``, in letter (byte) order."""
        for letter in self.alphabet:
            child = self.step(state, letter)
            if child is not None:
                yield letter, child

    def normalize(self, text: str) -> str | None:
        """Normalize ``text`` by this dictionary's policy (None if not letters)."""
        return normalize(text, self.policy)

    def key(self, text: str) -> str | None:
        """``text`` as this dictionary stores it (None if it is not a word of letters).

        The fast path is for text already normalized (what the solver and games pass):
        folding upper-case ASCII letters changes nothing.
        """
        if text.isascii() and text.isalpha() and (text.isupper() or self.policy is Policy.EXACT):
            return text
        return normalize(text, self.policy)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return False
        key = self.key(word)
        return key is not None and self._has_key(key)

    def has_prefix(self, prefix: str) -> bool:
        """True if some word starts with ``prefix`` (normalized by the dictionary's policy)."""
        if not prefix:
            return self.sample_word() is not None
        key = self.key(prefix)
        # Every state a non-empty prefix reaches leads to a word.
        return key is not None and self.step(self.root, key) is not None

    def __iter__(self) -> Iterator[str]:
        return self._complete_key("", None)

    def sample_word(self) -> str | None:
        """Any one word, found quickly (None if there is none)."""
        return next(iter(self._complete_key("", 1)), None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def complete(self, prefix: str, limit: int | None = None) -> Iterator[str]:
        """The words starting with ``prefix`` (normalized by the dictionary's policy) in
        byte order, at most ``limit`` of them; none if ``prefix`` is not letters."""
        key = self.key(prefix) if prefix else ""
        return iter(()) if key is None else self._complete_key(key, limit)

    # -- on normalized keys (a format overrides what it does faster) --------------------

    def _has_key(self, key: str) -> bool:
        state = self.step(self.root, key)
        return state is not None and self.is_word(state)

    def _complete_key(self, prefix: str, limit: int | None) -> Iterator[str]:
        """The words starting with the normalized ``prefix`` in byte order, at most ``limit``."""
        start = self.step(self.root, prefix)
        if start is None or limit == 0:
            return
        emitted = 0
        # Depth and count bounds turn a damaged file (a cycle) into an error, not a hang;
        # the check below proves them for the whole walk before its first word.
        max_depth, max_words = self._walk_bounds()
        self._check_below(start, max_depth, max_words)
        letters: list[str] = list(prefix)
        if self.is_word(start):
            yield prefix
            emitted += 1
            if emitted == limit:
                return
        # One iterator of children per level below the prefix; `letters` spells the path.
        stack = [self.children(start)]
        while stack:
            for letter, child in stack[-1]:
                letters.append(letter)
                if max_depth is not None and len(letters) > max_depth:
                    raise self._damaged("path longer than the longest word")
                if self.is_word(child):
                    emitted += 1
                    if max_words is not None and emitted > max_words:
                        raise self._damaged("more words than the header says")
                    yield "".join(letters)
                    if emitted == limit:
                        return
                stack.append(self.children(child))
                break
            else:
                stack.pop()
                if stack:
                    letters.pop()

    def _walk_bounds(self) -> tuple[int | None, int | None]:
        # (longest word, number of words) when the file states them: bounds of a sound walk.
        return None, None

    def _check_below(self, start: State, max_depth: int | None, max_words: int | None) -> None:
        """Raise a "damaged" error unless the states below ``start`` form an acyclic graph
        whose words are no more (from the root: exactly as many), and no longer, than the
        file says. Without stated bounds there is nothing to check.

        One pass over the states below ``start`` (remembered: each state is counted once
        per dictionary), so that a file whose checksums hold yet whose automaton has a
        cycle, or whose header lies, is refused before the walk prints a word, whatever
        the limit. Without it, a cycle and a header claiming 2**32 words of 2**32 letters
        would print for ever.
        """
        if max_depth is None or max_words is None:
            return
        counted: dict[Any, tuple[int, int]] = self.__dict__.setdefault("_counted", {})
        if start not in counted:
            on_path = {start}
            stack = [(start, [child for _, child in self.children(start)])]
            while stack:
                state, children = stack[-1]
                for child in children:
                    if child in on_path:
                        raise self._damaged("its automaton has a cycle")
                    if child not in counted:
                        on_path.add(child)
                        stack.append((child, [grandchild for _, grandchild in self.children(child)]))
                        break
                else:
                    stack.pop()
                    on_path.discard(state)
                    words = int(self.is_word(state)) + sum(counted[child][0] for child in children)
                    depth = max((counted[child][1] + 1 for child in children), default=0)
                    if not words and state != self.root:
                        raise self._damaged("a state that leads to no word")
                    if words > max_words or depth > max_depth:
                        raise self._damaged("more or longer words than its header says")
                    counted[state] = (words, depth)
        if start == self.root and counted[start][0] != max_words:
            raise self._damaged(f"{counted[start][0]:,} words, its header says {max_words:,}")

    # -- values (issue 33): a format that holds them overrides these ------------------

    #: True if the dictionary holds a value per word (a map), not only words.
    has_values = False
    #: ``int``, ``text`` or ``bytes`` for a map; None for a set of words.
    value_kind: str | None = None

    def _no_values(self) -> Exception:
        what = getattr(self, "format_name", "this")
        return NoValuesError(
            f"{self.path}: holds no values, only words ({what} dictionary): build a native one with `values` int|text"
        )

    def values_info(self) -> str:
        """What ``inspect`` says of the values."""
        return "none (a set of words)"

    def __getitem__(self, word: str) -> Any:
        raise self._no_values()

    def get(self, word: str, default: Any = None) -> Any:
        """The value of ``word``, or ``default`` if it is no word (a dictionary with values)."""
        raise self._no_values()

    def items(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """The (word, value) pairs of the words starting with ``prefix`` (a dictionary with values)."""
        raise self._no_values()

    def values(self) -> Iterator[Any]:
        """Every value in the words' order (a dictionary with values)."""
        raise self._no_values()

    def _damaged(self, what: str) -> Exception:
        return DictionaryError(f"{self.path}: damaged dictionary ({what})")

    # -- the file ---------------------------------------------------------------------

    def close(self) -> None:
        """Release the file (the dictionary is unusable afterwards)."""

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
