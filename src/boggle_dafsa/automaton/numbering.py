"""Word numbers: ``d.index(word)``, the word's rank in the file's (byte) order, and its
inverse ``d.word(number)``, a minimal perfect hash of the words for free (issue 33).

Each walks one path from the root, reading at each state the counts of the children it
passes (the words below each, from the file's word-number section, docs/format.md): the
words before a word are the words it extends (the final states on its path) and the
words below every smaller letter on its way. A walk costs what a lookup costs, plus a
count read per child passed. Compiled: ``number_of`` and ``word_of`` of the census part's
``Lookup`` (``automaton/_census.c``) over the mapped body, once the census has passed and
where ``BOGGLE_DAFSA_PURE`` does not ask for Python; their twins :func:`index_of` and
:func:`word_at`, which define them.

A file without the section (built with ``--no-index``, or before it existed) still
answers: the section is made in memory on the first call (one walk over every state,
:func:`~boggle_dafsa.automaton.fileformat.word_numbers`: compiled, 10 ms for ENABLE2K;
its twin ``encode_word_numbers`` about 0.4 s), then read the same way. ``inspect`` says
which.

Nothing read is trusted: the section is checked whole once (its CRC-32, its sizes, every
count between 1 and the header's word count: :class:`~.fileformat.WordCounts`), and each
walk checks that the counts add up along its path (a child's count no more than what its
state's count leaves to it and its later siblings, a last child's count what the others
leave, one word at a state without edges). Those cannot see lies that make up for each
other below a path, so a stored section is also recounted from the automaton and compared
byte for byte before its first use, once a file (the verdict kept as the census's, by the
file's identity and the section's CRC). Anything else is "damaged dictionary".
"""

from __future__ import annotations

import operator
from typing import Any

from boggle_dafsa.automaton.compact import CompactLayout
from boggle_dafsa.automaton.fileformat import Header, NativeLayout, WordCounts, word_numbers

_ADD_UP = "damaged: its word counts do not add up"


def _child_count(counts: WordCounts, states: NativeLayout | CompactLayout, child: int, left: int, later: int) -> int:
    # The words below `child`, an edge followed by `later` more of its state's edges, of
    # the `left` words its state has below it from this edge on.
    stored = counts.count(states.unit(child)) if states.has_edges(child) else 1
    if not later:
        if left < 1 or (stored is not None and stored != left):
            raise ValueError(_ADD_UP)
        return left
    if stored is None:
        raise ValueError("damaged: a state's word count is missing")
    if stored > left - later:
        raise ValueError(_ADD_UP)
    return stored


def index_of(states: NativeLayout | CompactLayout, counts: WordCounts, word_count: int, key: str) -> int | None:
    """The number of the normalized ``key`` (its rank among the words), None if it is no word.

    The Python definition of ``index``: ValueError ("damaged: ...") if the counts do not
    add up along the path, IndexError (version 1) if a cell points outside the file.
    """
    if not word_count or len(key) > states.longest_word:
        return None
    letter_bits = states.letter_bits
    state, left, rank = states.root, word_count, 0
    for letter in key:
        bit = letter_bits.get(letter)
        if bit is None:
            return None
        if states.is_final(state):  # the word so far comes before every longer one
            rank += 1
            left -= 1
        edges = list(states.children(state))
        for place, (label, child) in enumerate(edges):
            later = len(edges) - 1 - place
            if label == bit:
                left = _child_count(counts, states, child, left, later)
                state = child
                break
            if label > bit:
                return None
            below = _child_count(counts, states, child, left, later)
            rank += below
            left -= below
        else:
            return None
    if not states.is_final(state):
        return None
    if not states.has_edges(state) and left != 1:
        raise ValueError(_ADD_UP)
    return rank


def word_at(states: NativeLayout | CompactLayout, counts: WordCounts, word_count: int, number: int) -> str:
    """The word of number ``number`` (0 <= number < word_count, checked by the caller).

    The Python definition of ``word``: the same checks as :func:`index_of`, and a path
    longer than the longest word is "damaged".
    """
    alphabet = states.alphabet
    state, left, rest = states.root, word_count, number
    letters: list[str] = []
    while True:
        if states.is_final(state):
            if not rest:
                if not states.has_edges(state) and left != 1:
                    raise ValueError(_ADD_UP)
                return "".join(letters)
            rest -= 1
            left -= 1
        edges = list(states.children(state))
        if not edges or len(letters) >= states.longest_word:
            raise ValueError(_ADD_UP)
        # rest < left holds here and below: the last edge always takes what is left.
        for place, (label, child) in enumerate(edges):
            below = _child_count(counts, states, child, left, len(edges) - 1 - place)
            if rest < below:
                break
            rest -= below
            left -= below
        letters.append(alphabet[label])
        state, left = child, below


class WordNumbers:
    """``index`` and ``word`` of :class:`~.reader.NativeDictionary` (a mixin)."""

    header: Header
    states: NativeLayout | CompactLayout
    path: str
    _map: Any
    _counts: WordCounts | None = None
    _lookup: Any
    _armed: bool

    def _arm(self) -> Any:
        raise NotImplementedError

    def _number_kernel(self) -> Any:
        # The compiled Lookup (automaton/_census.c: number_of, word_of) once armed, if it
        # walks this body (version 2, or version 1 of one-cell headers); else None: the twins.
        lookup = self._lookup if self._armed else self._arm()
        if lookup is None or (isinstance(self.states, NativeLayout) and self.states.header_cells != 1):
            return None
        return lookup

    def checked(self) -> None:
        raise NotImplementedError

    def _known_sound(self, key: tuple[Any, ...]) -> bool:
        raise NotImplementedError

    def _remember_sound(self, key: tuple[Any, ...]) -> None:
        raise NotImplementedError

    def key(self, text: str) -> str | None:
        raise NotImplementedError

    def _walk_error(self, error: ValueError) -> Exception:
        raise NotImplementedError

    def _outside(self) -> Exception:
        raise NotImplementedError

    @property
    def stores_word_numbers(self) -> bool:
        """True if the file holds a word-number section (else the counts are computed in memory on first use)."""
        return self.header.has_word_numbers

    def word_counts(self) -> WordCounts:
        """The checked counts of the word-number section (or computed, for a file without
        one), after the census; "damaged dictionary" if they are not sound."""
        counts = self._counts
        if counts is not None:
            return counts
        self.checked()
        h = self.header
        try:
            if h.has_word_numbers:
                start = h.header_size + h.body_size
                data = bytes(self._map[start : start + h.index_bytes])
                counts = WordCounts(data, self.states.units, h.word_count, h.state_count)
                self._prove_section(data)
            else:
                data = word_numbers(self.states, h.word_count)
                counts = WordCounts(data, self.states.units, h.word_count, h.state_count)
        except ValueError as error:
            raise self._walk_error(error) from None
        except IndexError:
            raise self._outside() from None
        self._counts = counts
        return counts

    def _prove_section(self, data: bytes) -> None:
        # Once a file (as the census: its verdict kept by the file's identity, in this
        # process and the cache folder): the stored section is the one its automaton gives,
        # every count recounted (compiled: milliseconds). The checks along each path cannot
        # see lies that make up for each other below it (a count one too high beside one one
        # too low, and one below that); this can.
        # The verdicts are the reader's (_known_sound, _remember_sound): asked of the
        # dictionary, so that this module never imports the reader that imports it.
        identity = getattr(self, "_identity", None)
        key = None if identity is None else (*identity, "word-numbers", data[8:12].hex())  # and the section's CRC
        if key is not None and self._known_sound(key):
            return
        if word_numbers(self.states, self.header.word_count) != data:
            raise ValueError("damaged: its word-number section does not match its automaton")
        if key is not None:
            self._remember_sound(key)

    def check_word_numbers(self) -> None:
        """Raise "damaged dictionary" unless the word-number section (if any) is exactly the
        one its automaton gives (every count recomputed): what ``verify`` and a writer's
        read-back check."""
        h = self.header
        if not h.has_word_numbers:
            return
        self.checked()
        start = h.header_size + h.body_size
        try:
            expected = word_numbers(self.states, h.word_count)
        except ValueError as error:
            raise self._walk_error(error) from None
        except IndexError:
            raise self._outside() from None
        if bytes(self._map[start : start + h.index_bytes]) != expected:
            raise self._walk_error(ValueError("damaged: its word-number section does not match its automaton"))

    def index(self, word: str) -> int:
        """The number of ``word`` (normalized by the dictionary's policy): its rank in the
        file's order, 0 to ``len(d) - 1``. KeyError if it is not a word of the dictionary."""
        key = self.key(word) if isinstance(word, str) and word else None
        if key is None:
            raise KeyError(word)
        counts = self.word_counts()
        kernel = self._number_kernel()
        try:
            if kernel is not None:
                number = kernel.number_of(key, counts.data, self.header.word_count)
            else:
                number = index_of(self.states, counts, self.header.word_count, key)
        except ValueError as error:
            raise self._walk_error(error) from None
        except IndexError:
            raise self._outside() from None
        if number is None:
            raise KeyError(word)
        return number

    def word(self, number: int) -> str:
        """The word of number ``number`` (0 to ``len(d) - 1``), the inverse of :meth:`index`.
        IndexError out of that range (negative numbers included)."""
        number = operator.index(number)
        if not 0 <= number < self.header.word_count:
            raise IndexError(f"word number {number} out of range (this dictionary has {self.header.word_count:,} words)")
        counts = self.word_counts()
        kernel = self._number_kernel()
        try:
            if kernel is not None:
                return kernel.word_of(number, counts.data, self.header.word_count)  # type: ignore[no-any-return]
            return word_at(self.states, counts, self.header.word_count, number)
        except ValueError as error:
            raise self._walk_error(error) from None
        except IndexError:
            raise self._outside() from None
