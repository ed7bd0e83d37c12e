"""Dictionary queries walked on the automaton: patterns, anagrams, fuzzy matches, regexes, ranges.

Every query here is an automaton (see :mod:`.automata`) intersected with the dictionary's by
one search (:func:`search`), so each works on every format (``formats.registry``) and gives
the same results on all of them. Queries are normalized like the dictionary's words: on a
folded dictionary ``élève`` is ``ELEVE``.

>>> from boggle_dafsa import open_dictionary
>>> from boggle_dafsa import query
>>> d = open_dictionary("enable2k")
>>> list(query.match(d, "C?A*S", limit=3))  # in byte order
['CEANOTHUS', 'CEANOTHUSES', 'CEASEFIRES']
>>> [hit.display() for hit in query.anagram(d, "RETAINS")]
['ANESTRI', 'ANTSIER', 'NASTIER', 'RATINES', 'RETAINS', 'RETINAS', 'RETSINA', 'STAINER', 'STEARIN']
>>> query.fuzzy(d, "BOGLE", 1)[:3]  # nearest first
[(0, 'BOGLE'), (1, 'BOGGLE'), (1, 'BOGIE')]
>>> list(query.grep(d, "(^RE|UN)DO$"))
['REDO', 'UNDO']

Set algebra (:func:`union`, :func:`intersect`, :func:`difference`) lives in :mod:`.setops`.
:data:`VERBS` holds the verbs as their users ask them (a :class:`Verb` each: name, function,
help): the command line makes its query commands from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any, NamedTuple

from boggle_dafsa.errors import QueryError
from boggle_dafsa.query.automata import Anagram, Automaton, Intersection, LazyDFA, Length, Levenshtein, Pattern, Range
from boggle_dafsa.query.conditions import SEARCH_CONDITIONS, anagram_count, exact_anagrams, exact_answer, search_words
from boggle_dafsa.query.parse import Regex, parse_pattern
from boggle_dafsa.query.walk import fuzzy_native, native_layout, search_states
from boggle_dafsa.query.walk import search as _walk_search

#: Largest ``fuzzy`` distance, and longest ``fuzzy`` word (the rows of its automaton).
MAX_DISTANCE = 10
MAX_FUZZY_WORD = 64
#: Most letters and blanks in an ``anagram`` rack.
MAX_RACK = 64


def search(
    dictionary: Any, automaton: Automaton[Any] | None = None, limit: int | None = None, kernel: str = "auto", **conditions: Any
) -> Iterator[str]:
    """The words of ``dictionary`` that ``automaton`` matches and that meet every one of
    ``conditions`` (Zyzzyva's: ``pattern``, ``regex``, ``anagram``, ``length=(5, 7)``,
    ``takes_suffix="S"``... see :func:`.conditions.search_words`), in byte order unless
    ``sort``, at most ``limit``; streamed, in one walk of the automaton where it can."""
    if automaton is not None and not conditions:
        return _walk_search(dictionary, automaton, limit, kernel)

    return search_words(dictionary, automaton, limit, kernel, **conditions)


def _key(dictionary: Any, text: str, what: str) -> str:
    key = dictionary.normalize(text)
    if not key:
        raise QueryError(f"{what} {text!r} is not a word (letters only)")
    return key  # type: ignore[no-any-return]


def match(
    dictionary: Any, pattern: str, min_length: int = 0, max_length: int | None = None, limit: int | None = None
) -> Iterator[str]:
    """The words matching ``pattern`` (``?``, ``*``, ``[ABC]``, ``[^ABC]``, ``@``, ``#``), in byte order."""
    automaton: Automaton[Any] = parse_pattern(pattern, dictionary.normalize)
    if min_length or max_length is not None:
        automaton = Intersection(automaton, Length(min_length, max_length))
    return search(dictionary, automaton, limit)


def grep(dictionary: Any, regex: str, limit: int | None = None) -> Iterator[str]:
    """The words that ``regex`` matches whole, in byte order."""
    return search(dictionary, Regex(regex, dictionary.normalize), limit)


def word_range(dictionary: Any, start: str | None = None, end: str | None = None, limit: int | None = None) -> Iterator[str]:
    """The words ``w`` with ``start <= w < end`` (either bound optional), in byte order."""
    low = _key(dictionary, start, "start") if start else None
    high = _key(dictionary, end, "end") if end else None
    return search(dictionary, Range(low, high), limit)


class AnagramHit:
    """A word found by :func:`anagram`; where its blanks stand is worked out when asked.

    Immutable: the hits of an exact anagram are made once per alphagram and handed to
    every call that asks for them (:func:`.conditions.exact_answer`)."""

    __slots__ = ("word", "_rack")
    word: str
    _rack: Anagram | None

    def __init__(self, word: str, rack: Anagram | None) -> None:
        object.__setattr__(self, "word", word)
        object.__setattr__(self, "_rack", rack)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"AnagramHit is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"AnagramHit is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple[Any, tuple[str, Anagram | None]]:
        return AnagramHit, (self.word, self._rack)

    @property
    def blanks(self) -> tuple[int, ...]:
        """Positions of the letters that blanks became (tiles are used first, from the left)."""
        rack = self._rack
        return tuple(rack.blank_positions(self.word)) if rack is not None and rack.blanks else ()

    def display(self) -> str:
        """The word with the letters that blanks became in lower case (as Zyzzyva shows them)."""
        blanks = self.blanks
        if not blanks:
            return self.word
        return "".join(letter.lower() if i in blanks else letter for i, letter in enumerate(self.word))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnagramHit) and (self.word, self.blanks) == (other.word, other.blanks)

    def __hash__(self) -> int:
        return hash(self.word)

    def __repr__(self) -> str:
        return f"AnagramHit({self.display()!r})"


#: Results a sorting query (``fuzzy``, ``anagram --sub``) sorts in memory; past it, it walks
#: again once per distance or length, streaming: memory stays bounded by this.
SORT_IN_MEMORY = 100_000


def anagram(dictionary: Any, letters: str, sub: bool = False, limit: int | None = None) -> list[AnagramHit]:
    """The words made of exactly ``letters`` (``?``: a blank, any letter), in byte order;
    ``sub``: of some of them (a rack), longest first, then in byte order.

    Without blanks (and without ``sub``) the words are read from the alphagram index
    (:func:`.conditions.alphagram_groups`: sorted letters to the words, built once per
    dictionary and length, from the second exact anagram of that length on), as the walk
    would find them, in the same order; blanks and ``sub`` walk."""
    if not sub and "?" not in letters and len(letters) <= MAX_RACK and (limit is None or limit >= 0):
        hits = exact_answer(dictionary, letters, _exact_hits)
        if hits is not None:
            return list(hits if limit is None else hits[:limit])
    return list(_walk_anagram(dictionary, letters, sub, limit))


def _exact_hits(words: tuple[str, ...]) -> tuple[AnagramHit, ...]:
    # What an exact anagram answers, made once per alphagram (AnagramHit is immutable).
    return tuple(AnagramHit(word, None) for word in words)


def anagram_words(dictionary: Any, letters: str) -> tuple[str, ...]:
    """The words made of exactly ``letters`` (``?``: a blank), in byte order, as a tuple:
    :func:`anagram`'s words without their hit objects. Without blanks, read from the
    alphagram index as from a dict of sorted letters (from the second rack of a length on:
    see :func:`.conditions.exact_anagrams`); ``len()`` of it is the number of anagrams."""
    if "?" not in letters and len(letters) <= MAX_RACK:
        words = exact_anagrams(dictionary, letters)
        if words is not None:
            return words
    return tuple(hit.word for hit in _walk_anagram(dictionary, letters, False, None))


def iter_anagram(dictionary: Any, letters: str, sub: bool = False, limit: int | None = None) -> Iterator[AnagramHit]:
    """:func:`anagram`, streamed: memory stays bounded whatever the number of words."""
    if not sub and "?" not in letters and len(letters) <= MAX_RACK and (limit is None or limit >= 0):
        hits = exact_answer(dictionary, letters, _exact_hits)
        if hits is not None:
            return iter(hits if limit is None else hits[:limit])
    return _walk_anagram(dictionary, letters, sub, limit)


def _walk_anagram(dictionary: Any, letters: str, sub: bool, limit: int | None) -> Iterator[AnagramHit]:
    # The walk: blanks, --sub, and the exact anagrams the index does not answer.
    if len(letters) > MAX_RACK:
        raise QueryError(f"rack too long ({len(letters)} letters and blanks, at most {MAX_RACK})")
    blanks = letters.count("?")
    tiles = "".join(_key(dictionary, char, "rack letter") for char in letters if char != "?") if blanks < len(letters) else ""
    if not tiles and not blanks:
        raise QueryError("empty rack")
    automaton = Anagram(tiles, blanks, sub)
    if not sub:
        return (AnagramHit(word, automaton) for word in search(dictionary, automaton, limit))
    return _sub_anagrams(dictionary, automaton, len(tiles) + blanks, limit)


def _sub_anagrams(dictionary: Any, automaton: Anagram, rack: int, limit: int | None) -> Iterator[AnagramHit]:
    # Longest first: sorted in memory when few, else one streaming walk per length.
    words = list(islice(search(dictionary, automaton), SORT_IN_MEMORY + 1))
    if len(words) <= SORT_IN_MEMORY:
        words.sort(key=len, reverse=True)  # stable: byte order within a length
        yield from (AnagramHit(word, automaton) for word in words[:limit])
        return
    del words
    left = limit
    for length in range(rack, 0, -1):
        for word in search(dictionary, Intersection(automaton, Length(length, length)), left):
            yield AnagramHit(word, automaton)
            if left is not None:
                left -= 1
                if not left:
                    return


def fuzzy(
    dictionary: Any, word: str, distance: int = 1, transpositions: bool = False, prefix: bool = False, limit: int | None = None
) -> list[tuple[int, str]]:
    """(distance, word) for the words within ``distance`` edits of ``word``, nearest first
    (then byte order); ``prefix``: words that start within that many edits."""
    return list(iter_fuzzy(dictionary, word, distance, transpositions, prefix, limit))


def iter_fuzzy(
    dictionary: Any, word: str, distance: int = 1, transpositions: bool = False, prefix: bool = False, limit: int | None = None
) -> Iterator[tuple[int, str]]:
    """:func:`fuzzy`, streamed: memory stays bounded whatever the number of words."""
    if not 0 <= distance <= MAX_DISTANCE:
        raise QueryError(f"distance {distance} out of range (0 to {MAX_DISTANCE})")
    key = _key(dictionary, word, "word")
    if len(key) > MAX_FUZZY_WORD:
        raise QueryError(f"word too long for fuzzy ({len(key)} letters, at most {MAX_FUZZY_WORD})")
    return _fuzzy_sorted(dictionary, key, distance, transpositions, prefix, limit)


def _fuzzy_walk(dictionary: Any, key: str, distance: int, transpositions: bool, prefix: bool) -> Iterator[tuple[int, str]]:
    # (distance, word) in byte order.
    if native_layout(dictionary):
        # A row per depth walked on the mapped cells (compiled, or its Python twin).
        return ((d, w) for w, d in fuzzy_native(dictionary, key, distance, transpositions, prefix))
    automaton = Levenshtein(key, distance, transpositions, prefix)
    return ((automaton.distance(state), found) for found, state in search_states(dictionary, automaton))


def _fuzzy_sorted(
    dictionary: Any, key: str, distance: int, transpositions: bool, prefix: bool, limit: int | None
) -> Iterator[tuple[int, str]]:
    # Nearest first: sorted in memory when few, else one streaming walk per distance.
    found = list(islice(_fuzzy_walk(dictionary, key, distance, transpositions, prefix), SORT_IN_MEMORY + 1))
    if len(found) <= SORT_IN_MEMORY:
        found.sort()
        yield from found[:limit]
        return
    del found
    left = limit
    for exact in range(distance + 1):
        for hit in _fuzzy_walk(dictionary, key, exact, transpositions, prefix):
            if hit[0] != exact:
                continue
            yield hit
            if left is not None:
                left -= 1
                if not left:
                    return


def complete(dictionary: Any, prefix: str, limit: int | None = None) -> Iterator[str]:
    """The words that start with ``prefix`` (normalized like the dictionary; empty: every
    word), in byte order, at most ``limit``; raises :class:`QueryError` for a prefix that is
    not letters."""
    key = dictionary.normalize(prefix) if prefix else ""
    if key is None:
        raise QueryError(f"prefix {prefix!r} holds characters that are not letters")
    return dictionary.complete(key, limit)  # type: ignore[no-any-return]


def prefixes(dictionary: Any, word: str, limit: int | None = None) -> list[str]:
    """The words that are prefixes of ``word`` (itself included), shortest first, at most ``limit``."""
    key = _key(dictionary, word, "word")
    state = dictionary.root
    found = []
    for i, letter in enumerate(key):
        state = dictionary.step(state, letter)
        if state is None:
            break
        if dictionary.is_word(state):
            found.append(key[: i + 1])
    return found if limit is None else found[:limit]


class Hooks(NamedTuple):
    """The letters that make a word when put in front of a word (``front``) or after it (``back``)."""

    word: str
    front: str
    back: str


def hooks(dictionary: Any, word: str) -> Hooks:
    """Front and back hooks of ``word`` (which need not be a word itself), in letter order."""
    key = _key(dictionary, word, "word")
    children = dictionary.children
    front = []
    for letter, state in children(dictionary.root):
        after = dictionary.step(state, key)
        if after is not None and dictionary.is_word(after):
            front.append(letter)
    back = []
    end = dictionary.step(dictionary.root, key)
    if end is not None:
        back = [letter for letter, state in children(end) if dictionary.is_word(state)]
    return Hooks(key, "".join(front), "".join(back))


class Verb(NamedTuple):
    """A query verb as its users ask it (``boggle-dafsa NAME``, the command line's help).

    ``function`` answers it, called with the dictionary and then by keyword: each of its
    parameters after the dictionary is an input of the verb, of the type and default its
    signature says (one without a default is given by position, the others are options;
    ``limit``, where there is one, is the shared "at most this many"), with its help in
    ``parameters``. ``help`` says what the verb does. In both, a parameter named in
    backquotes (`distance`) is written as the option that sets it. ``columns``: its answers
    are words, or carry one, and can be shown after the word-study columns. The answer is
    an iterable of words, :class:`AnagramHit`, (distance, word) pairs, or :class:`Hooks`:
    their rows and JSON are written by :mod:`boggle_dafsa.output.queries`."""

    name: str
    function: Callable[..., Any]
    help: str
    parameters: dict[str, str]
    columns: bool = False


#: The query verbs, in the order ``boggle-dafsa --help`` lists them: the command line makes
#: a command of each (``cli/query.py``), and a new verb is one more record here.
VERBS: tuple[Verb, ...] = (
    Verb(
        "match",
        match,
        "Print the words matching PATTERN, in byte order (quote it: the shell expands * and ?).",
        {
            "pattern": "? a letter, * any run, [ABC] one of, [^ABC] or [!ABC] none of, @ a vowel, # a consonant, "
            "\\* a * (a backslash takes punctuation literally).",
            "min_length": "Shortest word.",
            "max_length": "Longest word.",
        },
        columns=True,
    ),
    Verb(
        "anagram",
        iter_anagram,
        "Print the words made of exactly LETTERS; the letters blanks became are in lower case.",
        {
            "letters": "The letters; ? is a blank (any letter).",
            "sub": "Words made of some of the letters (a rack), longest first.",
        },
        columns=True,
    ),
    Verb(
        "fuzzy",
        iter_fuzzy,
        "Print DISTANCE<TAB>WORD for the words within `distance` edits of WORD, nearest first.",
        {
            "word": "The word to come close to.",
            "distance": "Most edits (insert, delete, substitute).",
            "transpositions": "Swapping two adjacent letters is one edit.",
            "prefix": "Words that start within DISTANCE edits of WORD.",
        },
        columns=True,
    ),
    Verb(
        "grep",
        grep,
        "Print the words that REGEX matches whole, in byte order.",
        {"regex": "Letters, ., [classes], ?, *, +, {m,n}, |, (groups), matched against whole words."},
        columns=True,
    ),
    Verb(
        "range",
        word_range,
        "Print the words from `start` (included) to `end` (excluded), in byte order.",
        {"start": "First word (included).", "end": "Words before this one (excluded)."},
    ),
    Verb(
        "prefixes",
        prefixes,
        "Print the words that are prefixes of WORD (itself included), shortest first.",
        {"word": "The word whose beginnings to look up."},
    ),
    Verb(
        "hooks",
        hooks,
        "Print the letters that make a word before WORD (front) or after it (back): SIDE<TAB>LETTER<TAB>WORD.",
        {"word": "The word to hook (it need not be a word itself)."},
    ),
)


__all__ = [
    "AnagramHit",
    "Automaton",
    "Hooks",
    "LazyDFA",
    "Pattern",
    "Regex",
    "SEARCH_CONDITIONS",
    "VERBS",
    "Verb",
    "anagram",
    "anagram_count",
    "anagram_words",
    "complete",
    "fuzzy",
    "grep",
    "hooks",
    "iter_anagram",
    "iter_fuzzy",
    "match",
    "parse_pattern",
    "prefixes",
    "search",
    "search_states",
    "word_range",
]
