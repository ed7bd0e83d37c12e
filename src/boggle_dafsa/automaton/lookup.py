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
place (version 1 cells, version 2 compact edges) and makes the key of a text of ASCII
letters itself (folding its case under the fold policy); any other text is normalized
here first. Its Python twin is the layouts' ``step`` (:class:`~.fileformat.NativeLayout`,
:class:`~.fileformat.CompactLayout`), used where the part is not built or
``BOGGLE_DAFSA_PURE=1`` (read at a dictionary's first lookup).
"""

from __future__ import annotations

from typing import Any

from boggle_dafsa.automaton.fileformat import CompactLayout, Header, NativeLayout
from boggle_dafsa.dictionary import DictionaryBase
from boggle_dafsa.words.normalize import Policy

#: The policy codes of the compiled ``Lookup`` (``POLICY_FOLD``... in ``_census.c``).
POLICY_CODES = {Policy.FOLD: 0, Policy.EXACT: 1, Policy.RAW: 2}


class Lookups(DictionaryBase[int]):
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
        from boggle_dafsa import compiled

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
            lookup = module.Lookup(body, h.version, states.root, h.alphabet, width, h.longest_word, POLICY_CODES[h.policy])
        self._lookup = lookup
        self._armed = True
        return lookup

    def _release_lookup(self) -> None:
        # Before the file is unmapped: the compiled lookup holds the body's buffer.
        if self._lookup is not None:
            self._lookup.release()

    def _lookup_error(self, error: Exception) -> Exception:
        if isinstance(error, IndexError):
            return self._outside()
        return self._walk_error(error) if isinstance(error, ValueError) else error

    def __contains__(self, word: object) -> bool:
        lookup = self._lookup
        if lookup is not None:
            try:
                answer = lookup.word(word)
            except (IndexError, ValueError) as error:
                raise self._lookup_error(error) from None
            if answer is not None:
                return bool(answer)
        return super().__contains__(word)

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
