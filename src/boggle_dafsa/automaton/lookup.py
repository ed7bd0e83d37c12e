"""The lookups of a native dictionary: ``in``, ``has_prefix`` and the cursor's ``step``.

Bounded whatever the file says (issue 31):

* a key longer than the header's longest word is answered "no" at once, before any read;
* the first lookup runs the census (:meth:`NativeDictionary.checked`), as every other walk
  does: it proves the automaton acyclic and holding exactly the header's words, no longer
  than its longest word, or refuses the file as "damaged". A walk from the root then
  visits at most ``longest_word`` states, and in each reads at most one edge per letter of
  the alphabet (labels strictly increase): no lookup reads more than the census did.

Fast (issue 33): once the census has passed, the lookups go through the compiled
``Lookup`` of the census part (``automaton/_census.c``), which walks the mapped body in
place (version 1 cells, version 2 compact edges; for ``in`` and ``has_prefix`` on version 2,
a table of the body decoded once when the Lookup is made: "the table" in ``_census.c``,
``Lookup.table_bytes`` its memory) and makes the key of a text itself when
the policy makes it a character at a time from characters it knows (:func:`pieces`: ASCII
and the Latin letters up to U+024F, whose folded or exact forms it is given); any other
text is normalized here first. Where the part is built, ``word in d`` is the ``sq_contains``
slot of the compiled base ``Contains``: Python's ``in`` reaches C with no Python frame
between, and asks :meth:`Lookups._contains` (the twin) only for what C does not answer.
The twin is the layouts' ``step`` (:class:`~.fileformat.NativeLayout`,
:class:`~.compact.CompactLayout`), used where the part is not built or
``BOGGLE_DAFSA_PURE=1`` (read at a dictionary's first lookup, even after import).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from boggle_dafsa import compiled
from boggle_dafsa.automaton.compact import CompactLayout
from boggle_dafsa.automaton.fileformat import Header, NativeLayout
from boggle_dafsa.dictionary import DictionaryBase
from boggle_dafsa.words.normalize import Policy, normalize

#: The policy codes of the compiled ``Lookup`` (``POLICY_FOLD``... in ``_census.c``).
POLICY_CODES = {Policy.FOLD: 0, Policy.EXACT: 1, Policy.RAW: 2}
#: The code points whose piece of a key the compiled ``Lookup`` is given (``TEXT_TABLE``).
TEXT_TABLE = 0x250


@lru_cache(maxsize=None)
def pieces(policy: Policy) -> tuple[str | None, ...]:
    """What each code point below :data:`TEXT_TABLE` becomes in a key under ``policy``
    (``é`` → ``E`` when folding, ``ß`` → ``SS``), None for a character that is not a letter
    (white space, which normalizing strips at the ends, digits, punctuation): the compiled
    lookup makes the key of a text of such letters a character at a time, which is the
    policy's own key for them (``tests/test_lookup.py`` checks it over every pair)."""
    table: list[str | None] = []
    for point in range(TEXT_TABLE):
        char = chr(point)
        key = None if char.isspace() else normalize(char, policy)
        table.append(key if key is not None and 1 <= len(key) <= 2 else None)
    return tuple(table)


class _PythonContains:
    """The base of :class:`Lookups` where the census part is not built: ``in`` is the twin."""

    __slots__ = ()
    #: The compiled base's Lookup, which ``in`` reads in C (an annotation only: never set here).
    _fast: Any

    def _contains(self, word: object) -> bool:
        raise NotImplementedError

    def __contains__(self, word: object) -> bool:
        return self._contains(word)

    def _getitem(self, word: str) -> Any:
        raise NotImplementedError

    def __getitem__(self, word: str) -> Any:
        # d[word] (automaton/values.py): where the part is built, the compiled base's slot.
        return self._getitem(word)


def _contains_base() -> type:
    # The compiled base (its sq_contains slot is `in`) when the part is built, whatever
    # BOGGLE_DAFSA_PURE says: the variable decides at arming whether it gets a Lookup.
    module = compiled.built("census")
    base = getattr(module, "Contains", None)
    return _PythonContains if base is None else base  # type: ignore[no-any-return]


if TYPE_CHECKING:
    _ContainsBase = _PythonContains
else:
    _ContainsBase = _contains_base()


class Lookups(_ContainsBase, DictionaryBase[int]):
    """``in``, ``has_prefix`` and ``step`` of :class:`~.reader.NativeDictionary`, bounded by its census."""

    header: Header
    states: NativeLayout | CompactLayout
    #: The compiled lookup once armed (None: not yet, or the Python twin).
    _lookup: Any = None
    #: True once the census has passed and the kernel is chosen.
    _armed = False

    def checked(self) -> None:
        raise NotImplementedError

    def _outside(self) -> Exception:
        raise NotImplementedError

    def _walk_error(self, error: ValueError) -> Exception:
        raise NotImplementedError

    def _arm(self) -> Any:
        # The census first (or "damaged"), then the kernel: the compiled Lookup, or None.
        self.checked()

        module = compiled.load("census")
        lookup = None
        if module is not None:
            states = self.states
            body: Any
            if isinstance(states, CompactLayout):
                body, width = states.body, 0
            else:
                body, width = states.cells, states.header_cells
            h = self.header
            lookup = module.Lookup(
                body, h.version, states.root, h.alphabet, width, h.longest_word, POLICY_CODES[h.policy], pieces(h.policy)
            )
        self._lookup = lookup
        if lookup is not None and not isinstance(self, _PythonContains):
            self._fast = lookup  # `in` in C from now on
        self._armed = True
        return lookup

    def _release_lookup(self) -> None:
        # Before the file is unmapped: the compiled lookup holds the body's buffer (and
        # `in` then asks _contains, whose lookup says "closed").
        if self._lookup is not None:
            self._lookup.release()

    def _lookup_error(self, error: Exception) -> Exception:
        if isinstance(error, IndexError):
            return self._outside()
        return self._walk_error(error) if isinstance(error, ValueError) else error

    def _contains(self, word: object) -> bool:
        """``word in d`` in Python: what the compiled slot asks when it does not answer
        (before arming, on the twin, for a text it does not normalize, after an error),
        and all of ``in`` where the part is not built."""
        return DictionaryBase.__contains__(self, word)

    def has_prefix(self, prefix: str) -> bool:
        """True if some word starts with ``prefix`` (normalized by the dictionary's policy)."""
        lookup = self._lookup
        if lookup is not None:
            try:
                answer = lookup.prefix(prefix)
            except (IndexError, ValueError) as error:
                raise self._lookup_error(error) from None
            if answer is not None:
                return bool(answer)
        return super().has_prefix(prefix)

    def _has_key(self, key: str) -> bool:
        if len(key) > self.header.longest_word:
            return False
        lookup = self._lookup if self._armed else self._arm()
        if lookup is None:
            return super()._has_key(key)
        try:
            return bool(lookup.has_key(key))
        except (IndexError, ValueError) as error:
            raise self._lookup_error(error) from None

    def step(self, state: int, letters: str) -> int | None:
        """Follow each character of ``letters`` from ``state``; None if no word continues so
        (at once if they are more than the longest word's letters)."""
        if len(letters) > self.header.longest_word:
            return None
        lookup = self._lookup if self._armed else self._arm()
        try:
            if lookup is not None:
                return lookup.step(state, letters)  # type: ignore[no-any-return]
            return self.states.step(state, letters)
        except (IndexError, ValueError) as error:
            raise self._lookup_error(error) from None
