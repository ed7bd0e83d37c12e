"""``search``: Zyzzyva's word-study conditions, any number combined (AND), in one walk.

Every condition that can be read letter by letter is an automaton, and their product is
walked with the dictionary's (:func:`boggle_dafsa.query.walk.search`, compiled on native
files), so a branch no answer lies on is never entered:

- ``pattern``, ``regex``, ``anagram``, ``subanagram``: the query module's own automata;
- ``length``, ``vowels``, ``distinct``, ``includes``, ``excludes``, ``points``: one
  :class:`Counters` automaton, whose state is the counts along the path, each capped where
  it stops mattering (so the lazily built DFA stays small) and pruned where a bound allows:
  a maximum passed, an excluded letter met, or (with a longest length) too few letters
  left to place the included letters. Only the counts whose bound prunes hard are walked
  (see :func:`search_words`): every count is also checked on each word the walk yields;
- ``takes_prefix`` (``PREFIX+word`` is a word) and ``in_`` (a word of another
  dictionary): that dictionary itself as an automaton (:class:`Follow`), started at
  ``PREFIX``'s state or at the root.

The conditions that need the whole word are checked on each word the walk yields:
``takes_suffix``, ``not_takes_prefix``, ``not_takes_suffix`` and ``not_in`` (one lookup
each), ``hooks`` (an index of the words one letter longer), ``anagrams`` (the alphagram index:
sorted letters to the words spelled with them, built once per dictionary and length and
kept in memory; ``query.anagram`` without blanks reads it too) and ``probability`` (each
word's rank, built once per dictionary, bag and number of blanks).

Probability is Zyzzyva's: the number of sets of tiles of the bag that spell the word
(:meth:`.tiles.TileBag.combinations`, with 0, 1 or 2 blanks). Ranks are per length: the
words of a length in order of that number, most probable first, ties broken by alphagram
and, within an alphagram, by byte order, numbered from 1; anagrams take consecutive ranks.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from boggle_dafsa.errors import QueryError
from boggle_dafsa.query.automata import VOWELS, Anagram, Automaton, Length, everything
from boggle_dafsa.query.parse import Regex, parse_pattern
from boggle_dafsa.query.tiles import MAX_PROBABILITY_BLANKS, TileBag, bag_for
from boggle_dafsa.query.walk import check_deadline
from boggle_dafsa.query.walk import search as walk_search
from boggle_dafsa.words.normalize import fold

#: Most letters and blanks in an ``anagram`` or ``subanagram`` rack (as ``query.anagram``).
MAX_RACK = 64
#: Most words a sorted search holds in memory (past it: a one-line error).
MAX_SORTED = 2_000_000
#: Most words of one length an index (anagram groups, probability ranks, hooks) holds.
MAX_INDEXED = 1_000_000
#: Most words a dictionary may hold for an exact anagram to read the alphagram index
#: (:func:`exact_anagrams`); past it, or when the number is not known at once, it walks.
MAX_GROUPED_WORDS = 2_000_000
#: Most characters whose normalized form an index remembers (the racks' letters).
MAX_REMEMBERED_LETTERS = 4096
#: Most alphagrams whose made answers (``query.anagram``'s hit objects) an index keeps;
#: past it, they are forgotten all at once and made again as asked.
MAX_KEPT_ANSWERS = 65_536
#: The orders ``sort`` takes.
SORTS = ("alpha", "length", "points", "probability", "expected")
#: What ``hooks`` takes: a word with a front hook, a back hook, or an inner hook (the
#: word without its first or its last letter is a word).
HOOK_KINDS = ("front", "back", "inner")


def parse_range(text: str, what: str) -> tuple[int, int | None]:
    """``MIN-MAX``, ``MIN-``, ``-MAX`` or ``N`` as (min, max); max None: no bound."""
    low, dash, high = text.strip().partition("-")
    try:
        lo = int(low) if low.strip() else 0
        hi = (int(high) if high.strip() else None) if dash else lo
    except ValueError:
        raise QueryError(f"bad {what} range {text!r}: MIN-MAX, MIN-, -MAX or N (whole numbers)") from None
    return _bounds((lo, hi), what, text)


def _bounds(value: Any, what: str, shown: str | None = None) -> tuple[int, int | None]:
    if isinstance(value, str):
        return parse_range(value, what)
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value, value)
    try:
        low, high = value
    except (TypeError, ValueError):
        raise QueryError(f"bad {what} range {value!r}: a (min, max) pair") from None
    low = 0 if low is None else low
    shown = repr(value) if shown is None else repr(shown)
    for bound in (low, high):
        if bound is not None and (not isinstance(bound, int) or isinstance(bound, bool) or bound < 0):
            raise QueryError(f"bad {what} range {shown}: bounds are whole numbers, 0 or more")
    if high is not None and low > high:
        raise QueryError(f"bad {what} range {shown}: the minimum is above the maximum")
    return low, high


def _within(number: int, bounds: tuple[int, int | None]) -> bool:
    return number >= bounds[0] and (bounds[1] is None or number <= bounds[1])


# -- the counters along the path ---------------------------------------------------------------


class Counters:
    """Length, vowels, distinct letters, included and excluded letters and points, counted
    along the path. A state is ``(length, vowels, seen, included, excluded, points)``; a
    component no condition asks for stays at its start value."""

    def __init__(
        self,
        length: tuple[int, int | None] | None = None,
        vowels: tuple[int, int | None] | None = None,
        distinct: tuple[int, int | None] | None = None,
        includes: dict[str, int] | None = None,
        excludes: dict[str, int] | None = None,
        points: tuple[int, int | None] | None = None,
        values: dict[str, int] | None = None,
    ) -> None:
        self.length = length or (0, None)
        self.room = self.length[1]  # the longest word: what the pruning by room counts on
        self.vowels = vowels
        self.distinct = distinct
        self.include_letters = tuple(sorted(includes or {}))
        self.include_need = tuple((includes or {})[letter] for letter in self.include_letters)
        self.exclude_letters = {letter: i for i, letter in enumerate(sorted(excludes or {}))}
        self.exclude_limit = tuple((excludes or {})[letter] for letter in sorted(excludes or {}))
        self.points = points
        self.values = values or {}
        self.top_value = max(self.values.values(), default=0)
        self._letters: dict[str, tuple[int, int, int, int]] = {}

    def start(self) -> tuple | None:
        seen: Any = frozenset() if self.distinct else None
        state = (0, 0, seen, (0,) * len(self.include_letters), (0,) * len(self.exclude_limit), 0)
        return self._alive(state)

    def _alive(self, state: tuple) -> tuple | None:
        # None where no word can complete the path; else the state with its counts capped.
        n, v, seen, inc, exc, pts = state
        room = self.room
        left = None if room is None else room - n
        if left is not None and left < 0:
            return None
        if self.vowels is not None:
            low, high = self.vowels
            if high is not None and v > high:
                return None
            if left is not None and v + left < low:
                return None
            if high is None:
                v = min(v, low)
        if self.distinct is not None and seen is not True:
            low, high = self.distinct
            if high is not None and len(seen) > high:
                return None
            if left is not None and len(seen) + left < low:
                return None
            if high is None and len(seen) >= low:
                seen = True  # satisfied for good: one state for all the sets past it
        if inc and left is not None and sum(need - have for need, have in zip(self.include_need, inc)) > left:
            return None
        if self.points is not None:
            low, high = self.points
            if high is not None and pts > high:
                return None
            if left is not None and pts + left * self.top_value < low:
                return None
            if high is None:
                pts = min(pts, low)
        if room is None:
            n = min(n, self.length[0])  # only the minimum length still matters
        return n, v, seen, inc, exc, pts

    def _letter(self, letter: str) -> tuple[int, int, int, int]:
        # What a letter does to the counts: (excluded index or -1, vowel 0/1, included
        # index or -1, value), worked out once per letter.
        found = self._letters.get(letter)
        if found is None:
            include = self.include_letters.index(letter) if letter in self.include_letters else -1
            found = self._letters[letter] = (
                self.exclude_letters.get(letter, -1),
                int(self.vowels is not None and fold(letter) in VOWELS),
                include,
                self.values.get(letter, 0) if self.points is not None else 0,
            )
        return found

    def step(self, state: tuple, letter: str) -> tuple | None:
        n, v, seen, inc, exc, pts = state
        excluded, vowel, included, value = self._letter(letter)
        if excluded >= 0:
            if exc[excluded] + 1 >= self.exclude_limit[excluded]:
                return None
            exc = exc[:excluded] + (exc[excluded] + 1,) + exc[excluded + 1 :]
        if seen is not None and seen is not True:
            seen = seen | {letter}
        if included >= 0 and inc[included] < self.include_need[included]:
            inc = inc[:included] + (inc[included] + 1,) + inc[included + 1 :]
        return self._alive((n + 1, v + vowel, seen, inc, exc, pts + value))

    def is_match(self, state: tuple) -> bool:
        n, v, seen, inc, _, pts = state
        return (
            n >= self.length[0]
            and (self.vowels is None or v >= self.vowels[0])
            and (seen is None or seen is True or len(seen) >= self.distinct[0])  # type: ignore[index]
            and inc == self.include_need
            and (self.points is None or pts >= self.points[0])
        )

    def can_match(self, state: tuple) -> bool:
        return True


_UNKNOWN = object()


class Product:
    """Words that every one of ``automata`` matches, like :class:`~.automata.Intersection`,
    with each automaton's own transitions remembered: a product state is new far more
    often than each of its parts, so a pattern or regex steps once per state of its own,
    not once per state of the product. A state that steps is one where every part can
    still match (``can_match`` is checked on the parts as they step)."""

    def __init__(self, *automata: Automaton[Any]) -> None:
        self.automata = automata
        self._steps: list[dict[tuple[Any, str], Any]] = [{} for _ in automata]
        self._matches: list[dict[Any, bool]] = [{} for _ in automata]

    def start(self) -> tuple | None:
        states = []
        for automaton in self.automata:
            state = automaton.start()
            if state is None or not automaton.can_match(state):
                return None
            states.append(state)
        return tuple(states)

    def step(self, state: tuple, letter: str) -> tuple | None:
        after = []
        for automaton, steps, sub in zip(self.automata, self._steps, state):
            nxt = steps.get((sub, letter), _UNKNOWN)
            if nxt is _UNKNOWN:
                nxt = automaton.step(sub, letter)
                if nxt is not None and not automaton.can_match(nxt):
                    nxt = None
                steps[(sub, letter)] = nxt
            if nxt is None:
                return None
            after.append(nxt)
        return tuple(after)

    def is_match(self, state: tuple) -> bool:
        for automaton, matches, sub in zip(self.automata, self._matches, state):
            found = matches.get(sub)
            if found is None:
                found = matches[sub] = automaton.is_match(sub)
            if not found:
                return False
        return True

    def can_match(self, state: tuple) -> bool:
        return True


class Follow:
    """A dictionary read as an automaton from one of its states: the words ``w`` such that
    the path from ``start`` spelling ``w`` ends on a word (from the root: the words of the
    dictionary; from ``PREFIX``'s state: the ``w`` with ``PREFIX+w`` a word)."""

    def __init__(self, dictionary: Any, start: Any) -> None:
        self.dictionary = dictionary
        self._start = start

    def start(self) -> Any:
        return self._start

    def step(self, state: Any, letter: str) -> Any:
        return self.dictionary.step(state, letter)

    def is_match(self, state: Any) -> bool:
        return bool(self.dictionary.is_word(state))

    def can_match(self, state: Any) -> bool:
        return True


# -- the indexes built once per dictionary --------------------------------------------------


class IndexTooLarge(QueryError):
    """More words of one length than an index holds (:data:`MAX_INDEXED`)."""


class _Index:
    """What is built once per dictionary, a length at a time (the lengths a search meets):
    the alphagram groups, probability ranks per bag and number of blanks, hooks. It holds
    no reference to its dictionary, so that the cache lets the dictionary go."""

    __slots__ = ("groups", "ranks", "hooks", "hook_rows", "counts", "too_large", "asked", "letters", "same", "answers", "racks")

    def __init__(self) -> None:
        #: length -> alphagram -> its word (a str) or words (a tuple), in byte order.
        self.groups: dict[int, dict[str, str | tuple[str, ...]]] = {}
        self.ranks: dict[tuple[Any, ...], dict[str, int]] = {}
        self.hooks: dict[int, tuple[dict[str, str], dict[str, str]]] = {}
        #: length -> word -> (front hooks, back hooks, front inner hook, back inner hook).
        self.hook_rows: dict[int, dict[str, tuple[str, str, bool, bool]]] = {}
        #: length -> word -> how many words have its letters (itself included).
        self.counts: dict[int, dict[str, int]] = {}
        #: The lengths found to have more words than an index holds, with the limit then
        #: (:data:`MAX_INDEXED`): not walked again while it stands; an exact anagram walks them.
        self.too_large: dict[int, int] = {}
        #: Exact anagrams walked so far, by length (the second builds the length's groups).
        self.asked: dict[int, int] = {}
        #: A rack's character -> its normalized letters, as the dictionary normalizes it.
        self.letters: dict[str, str] = {}
        #: The characters of ``letters`` that normalize to themselves.
        self.same: set[str] = set()
        #: Alphagram -> what :func:`exact_answer` made of its words (at most
        #: :data:`MAX_KEPT_ANSWERS`): ``query.anagram``'s immutable hit objects, made once.
        self.answers: dict[str, Any] = {}
        #: A rack as asked -> (its length's groups, its alphagram), for the racks the index
        #: answered (at most :data:`MAX_KEPT_ANSWERS`): asked again, neither normalized nor sorted.
        self.racks: dict[str, tuple[dict[str, str | tuple[str, ...]], str]] = {}


_INDEXES: weakref.WeakKeyDictionary[Any, _Index] = weakref.WeakKeyDictionary()


#: The indexes of dictionaries that take no weak reference, by id (the dictionary kept
#: alive beside its index, so that the id is never another's).
_HELD: dict[int, tuple[Any, _Index]] = {}


#: The dictionary last asked for (a weak reference) and its index: a program asking one
#: dictionary again and again finds it without making a weak reference each time.
_RECENT: tuple[Any, _Index] | None = None


def _index(dictionary: Any) -> _Index:
    global _RECENT
    recent = _RECENT  # one read: another thread may replace it, never half of it
    if recent is not None and recent[0]() is dictionary:
        return recent[1]
    try:
        found = _INDEXES.get(dictionary)
    except TypeError:  # no weak reference (nor hash) to it: kept by id, for good
        held = _HELD.get(id(dictionary))
        if held is None:
            held = _HELD[id(dictionary)] = (dictionary, _Index())
        return held[1]
    if found is None:
        found = _INDEXES[dictionary] = _Index()
    _RECENT = (weakref.ref(dictionary), found)
    return found


def _too_large(length: int) -> IndexTooLarge:
    return IndexTooLarge(
        f"too many words of {length} letters to index (more than {MAX_INDEXED:,}): "
        "anagram groups, probability ranks and hooks need them all in memory"
    )


def _words_of_length(dictionary: Any, length: int) -> Iterator[str]:
    for count, word in enumerate(walk_search(dictionary, Length(length, length)), 1):
        if not count & 0x3FFF:
            check_deadline()
            if count > MAX_INDEXED:
                raise _too_large(length)
        yield word


def alphagram(word: str) -> str:
    """The word's letters in byte order (``RETAINS`` → ``AEINRST``)."""
    return "".join(sorted(word))


def _grouped(words: Iterable[str], keys: Iterable[str]) -> dict[str, str | tuple[str, ...]]:
    # Alphagram -> its words in the order given (byte order): a str for one, a tuple for more.
    lists: dict[str, list[str]] = {}
    for word, key in zip(words, keys):
        found = lists.get(key)
        if found is None:
            lists[key] = [word]
        else:
            found.append(word)
    return {key: found[0] if len(found) == 1 else tuple(found) for key, found in lists.items()}


def alphagram_groups(dictionary: Any, length: int) -> dict[str, str | tuple[str, ...]]:
    """Alphagram → the words of ``dictionary`` of ``length`` letters spelled with those
    letters, in byte order (one word as a ``str``, two or more as a tuple): the alphagram
    index, built once per dictionary and length (one walk of the words of that length) and
    kept in memory while the dictionary lives. More than :data:`MAX_INDEXED` words of that
    length: :class:`IndexTooLarge`, a one-line error."""
    index = _index(dictionary)
    groups = index.groups.get(length)
    if groups is None:
        if index.too_large.get(length, -1) >= MAX_INDEXED:
            raise _too_large(length)  # known from an earlier walk: not walked again
        try:
            words = list(_words_of_length(dictionary, length))
        except IndexTooLarge:
            index.too_large[length] = MAX_INDEXED
            raise
        groups = index.groups[length] = _grouped(words, map(alphagram, words))
    return groups


def group_size(group: str | tuple[str, ...] | None) -> int:
    """How many words a group of :func:`alphagram_groups` holds (None: none)."""
    return 0 if group is None else 1 if isinstance(group, str) else len(group)


def anagram_count(dictionary: Any, word: str) -> int:
    """How many words of ``dictionary`` are spelled with the letters of ``word`` (itself
    included; ``word`` normalized like the dictionary's words): one look-up in the
    alphagram index."""
    return group_size(alphagram_groups(dictionary, len(word)).get(alphagram(word)))


def _known_size(dictionary: Any) -> int | None:
    # The number of words, when known without a walk: a native file's header, a foreign
    # file's sidecar, marisa's own count; None otherwise.
    bounds = getattr(dictionary, "_walk_bounds", None)
    count = bounds()[1] if bounds is not None else None
    if count is None:
        count = getattr(dictionary, "_count", None)
    if count is None and type(dictionary).__name__ == "MarisaDictionary":
        count = len(dictionary)
    return count if isinstance(count, int) else None


def exact_anagrams(dictionary: Any, letters: str) -> tuple[str, ...] | None:
    """The words spelled with exactly ``letters`` (no blanks; each character normalized
    like the dictionary's words, as ``query.anagram`` does), in byte order, read from the
    alphagram index; None where the walk answers instead: the first exact anagram of each
    length (one walk costs less than building the length's groups: a command run once
    walks, a program asking again reads the index), a character never seen or not a
    letter (the walk normalizes it, or refuses it in one line), a dictionary of more than
    :data:`MAX_GROUPED_WORDS` words or of a size not known at once, a length with more
    than :data:`MAX_INDEXED` words."""
    found = _exact(dictionary, letters)
    if found is None:
        return None
    words = found[1].get(found[2])
    if words is None:
        return ()
    return (words,) if isinstance(words, str) else words


def exact_answer(dictionary: Any, letters: str, make: Callable[[tuple[str, ...]], Any]) -> Any:
    """``make(words)`` for :func:`exact_anagrams`'s words of ``letters``, made once per
    alphagram and kept in the index (so ``make`` must give something immutable: a tuple of
    immutable objects); None where :func:`exact_anagrams` is None."""
    found = _exact(dictionary, letters)
    if found is None:
        return None
    index, groups, key = found
    kept = index.answers.get(key)
    if kept is None:
        words = groups.get(key)
        kept = make(() if words is None else (words,) if isinstance(words, str) else words)
        answers = index.answers
        if len(answers) >= MAX_KEPT_ANSWERS:
            answers.clear()
        answers[key] = kept
    return kept


def _exact(dictionary: Any, letters: str) -> tuple[_Index, dict[str, str | tuple[str, ...]], str] | None:
    # (the index, the groups of the rack's length, the rack's alphagram), or None (see exact_anagrams).
    index = _index(dictionary)
    known = index.racks.get(letters)
    if known is not None:
        return index, known[0], known[1]
    if index.same.issuperset(letters):
        tiles = letters
    else:
        memo = index.letters
        if not _remember_letters(dictionary, index, letters):
            return None
        tiles = "".join([memo[char] for char in letters])
    length = len(tiles)
    groups = index.groups.get(length)
    if groups is None:
        if index.too_large.get(length, -1) >= MAX_INDEXED or not letters:
            return None
        asked = index.asked[length] = index.asked.get(length, 0) + 1
        if asked < 2:
            return None
        size = _known_size(dictionary)
        if size is None or size > MAX_GROUPED_WORDS:
            return None
        try:
            groups = alphagram_groups(dictionary, length)
        except IndexTooLarge:
            return None
    key = "".join(sorted(tiles))
    racks = index.racks
    if len(racks) >= MAX_KEPT_ANSWERS:
        racks.clear()
    racks[letters] = (groups, key)
    return index, groups, key


def _remember_letters(dictionary: Any, index: _Index, letters: str) -> bool:
    # Normalize the characters the memo lacks; False if one is not a letter or the memo is full.
    memo = index.letters
    for char in set(letters) - memo.keys():
        if len(memo) >= MAX_REMEMBERED_LETTERS:
            return False
        key = dictionary.normalize(char)
        if not key:
            return False
        memo[char] = key
        if key == char:
            index.same.add(char)
    return True


def probability_ranks(dictionary: Any, bag: TileBag, blanks: int, length: int) -> dict[str, int]:
    """Word → probability rank, for the words of ``length`` letters (1: the most probable;
    the order is in the module's docstring); built once per dictionary, bag, blanks and length."""
    index = _index(dictionary)
    key = (bag.key, blanks, length)
    ranks = index.ranks.get(key)
    if ranks is not None:
        return ranks
    groups = alphagram_groups(dictionary, length)  # each group's words in byte order
    combinations = bag.combinations
    order = sorted((-combinations(letters, blanks), letters) for letters in groups)
    ranks = {}
    rank = 1
    for _, letters in order:
        group = groups[letters]
        for word in (group,) if isinstance(group, str) else group:
            ranks[word] = rank
            rank += 1
    index.ranks[key] = ranks
    return ranks


def hook_letters(dictionary: Any, length: int) -> tuple[dict[str, str], dict[str, str]]:
    """(front, back) for the words of ``length`` letters: each maps a word (any string of
    that length, in fact) to the letters that make a word in front of it, after it. Built
    once per dictionary and length from the words one letter longer, in one walk."""
    index = _index(dictionary)
    found = index.hooks.get(length)
    if found is None:
        front: dict[str, str] = {}
        back: dict[str, str] = {}
        for word in _words_of_length(dictionary, length + 1):  # byte order: letters in order
            tail, head = word[1:], word[:-1]
            front[tail] = front.get(tail, "") + word[0]
            back[head] = back.get(head, "") + word[-1]
        found = index.hooks[length] = (front, back)
    return found


def hook_rows(dictionary: Any, length: int) -> dict[str, tuple[str, str, bool, bool]]:
    """Word → (front hooks, back hooks, it is a front inner hook, a back inner hook: see
    :func:`inner_hooks`) for each word of ``length`` letters: what the ``hooks`` column
    shows, one look-up a word. Built once per dictionary and length, from
    :func:`hook_letters` and a look-up of each word without its first and its last letter."""
    index = _index(dictionary)
    rows = index.hook_rows.get(length)
    if rows is None:
        front, back = hook_letters(dictionary, length)
        contains = dictionary.__contains__
        rows = {}
        for word in _words_of_length(dictionary, length):
            inner = length > 1
            rows[word] = (
                front.get(word, ""),
                back.get(word, ""),
                inner and contains(word[1:]),
                inner and contains(word[:-1]),
            )
        index.hook_rows[length] = rows
    return rows


def anagram_counts(dictionary: Any, length: int) -> dict[str, int]:
    """Word → how many words of ``dictionary`` are spelled with its letters (itself
    included), for each word of ``length`` letters: :func:`anagram_count` of every word,
    one look-up a word. Built once per dictionary and length from the alphagram index."""
    index = _index(dictionary)
    counts = index.counts.get(length)
    if counts is None:
        counts = {}
        for group in alphagram_groups(dictionary, length).values():
            if isinstance(group, str):
                counts[group] = 1
            else:
                size = len(group)
                for word in group:
                    counts[word] = size
        index.counts[length] = counts
    return counts


def front_hooks(dictionary: Any, word: str) -> str:
    """The letters that make a word in front of ``word``, in byte order."""
    return hook_letters(dictionary, len(word))[0].get(word, "")


def back_hooks(dictionary: Any, word: str) -> str:
    """The letters that make a word after ``word``, in byte order."""
    return hook_letters(dictionary, len(word))[1].get(word, "")


def probability_rank(dictionary: Any, word: str, bag: TileBag, blanks: int = 2) -> int:
    """The word's probability rank among the words of its length (see :func:`probability_ranks`)."""
    return probability_ranks(dictionary, bag, blanks, len(word))[word]


# -- the search ---------------------------------------------------------------------------------


def _letters(dictionary: Any, text: str, what: str) -> str:
    key = dictionary.normalize(text) if text else None
    if not key:
        raise QueryError(f"{what} {text!r} is not letters")
    return key  # type: ignore[no-any-return]


def _rack(dictionary: Any, letters: str, sub: bool) -> Anagram:
    if len(letters) > MAX_RACK:
        raise QueryError(f"rack too long ({len(letters)} letters and blanks, at most {MAX_RACK})")
    blanks = letters.count("?")
    rest = letters.replace("?", "")
    tiles = "".join(_letters(dictionary, char, "rack letter") for char in rest)
    if not tiles and not blanks:
        raise QueryError("empty rack")
    return Anagram(tiles, blanks, sub)


def _other(dictionary: Any, other: Any, what: str) -> Any:
    if isinstance(other, str):
        from boggle_dafsa.dictionaries.resolve import open_dictionary

        other = open_dictionary(other)
    if getattr(other, "policy", None) != getattr(dictionary, "policy", None):
        raise QueryError(
            f"{what}: cannot compare a dictionary of policy {dictionary.policy.value} with one of policy "
            f"{other.policy.value}: build them with the same policy"
        )
    return other


def _hook_kinds(hooks: Any) -> tuple[str, ...]:
    kinds = tuple(hooks.split(",")) if isinstance(hooks, str) else tuple(hooks)
    for kind in kinds:
        if kind not in HOOK_KINDS:
            raise QueryError(f"bad hooks {kind!r}: front, back or inner")
    return kinds


_VOWEL_LETTERS = "".join(sorted(VOWELS))


def count_vowels(word: str) -> int:
    """The vowels of ``word``: its letters whose folded form is one of AEIOUY (as ``@``)."""
    if word.isascii():  # folding an ASCII letter is upper-casing it
        upper = word.upper()
        return sum(map(upper.count, _VOWEL_LETTERS))
    return sum(fold(letter) in VOWELS for letter in word)


def has_front_hook(dictionary: Any, word: str) -> bool:
    """True if some letter put in front of ``word`` makes a word."""
    step, is_word = dictionary.step, dictionary.is_word
    for _, state in dictionary.children(dictionary.root):
        after = step(state, word)
        if after is not None and is_word(after):
            return True
    return False


def has_back_hook(dictionary: Any, word: str) -> bool:
    """True if some letter put after ``word`` makes a word."""
    end = dictionary.step(dictionary.root, word)
    return end is not None and any(dictionary.is_word(state) for _, state in dictionary.children(end))


def inner_hooks(dictionary: Any, word: str) -> tuple[bool, bool]:
    """(``word`` without its first letter is a word, ``word`` without its last letter is one)."""
    return (len(word) > 1 and word[1:] in dictionary, len(word) > 1 and word[:-1] in dictionary)


#: The conditions of :func:`search_words` (and so of ``query.search``): its keyword-only
#: parameters that select words, in the order of the ``search`` command's flags. ``in_`` and
#: ``not_in`` (they name dictionaries), ``tiles``, ``probability_blanks``, ``sort`` and
#: ``expected`` (they say how, not which) are apart. The command's flags and ``/api/search``'s
#: parameters are these names; ``tests/test_search_verb.py`` checks them against the signature.
SEARCH_CONDITIONS = (
    "pattern",
    "regex",
    "anagram",
    "subanagram",
    "length",
    "includes",
    "excludes",
    "vowels",
    "distinct",
    "points",
    "takes_prefix",
    "takes_suffix",
    "not_takes_prefix",
    "not_takes_suffix",
    "hooks",
    "anagrams",
    "probability",
)


def search_words(
    dictionary: Any,
    automaton: Automaton[Any] | None = None,
    limit: int | None = None,
    kernel: str = "auto",
    *,
    pattern: str | None = None,
    regex: str | None = None,
    anagram: str | None = None,
    subanagram: str | None = None,
    length: Any = None,
    includes: str | None = None,
    excludes: str | None = None,
    vowels: Any = None,
    distinct: Any = None,
    points: Any = None,
    takes_prefix: str | None = None,
    takes_suffix: str | None = None,
    not_takes_prefix: str | None = None,
    not_takes_suffix: str | None = None,
    hooks: Any = None,
    anagrams: Any = None,
    probability: Any = None,
    in_: Any = None,
    not_in: Any = None,
    tiles: str | TileBag | None = None,
    probability_blanks: int = 2,
    sort: str | None = None,
    expected: Any = None,
    **more: Any,
) -> Iterator[str]:
    """The words of ``dictionary`` meeting every condition given (and ``automaton`` if
    given), in byte order unless ``sort``, at most ``limit``. ``in`` may be given as
    ``in_`` or, through ``**``, as ``"in"``. ``sort="expected"``: by the expected Boggle
    points per game of the word's anagram group, highest first (then by alphagram, then
    byte order), from ``expected`` (a table of :mod:`boggle_dafsa.study.expected`, or an
    embedded dictionary's name: ``"fr"``, ``"enable2k"``). Conditions are checked here,
    before the first word: a bad one raises :class:`QueryError`."""
    for name in more:
        if name != "in":
            raise TypeError(f"search() got an unexpected condition {name!r}")
    if "in" in more:
        if in_ is not None:
            raise TypeError("search() got both 'in' and 'in_'")
        in_ = more["in"]
    if sort is not None and sort not in SORTS:
        raise QueryError(f"bad sort {sort!r}: {', '.join(SORTS)}")
    table = None
    if sort == "expected":
        from boggle_dafsa.study.expected import table_of

        table = table_of(expected)
    if limit is not None and limit < 0:
        raise QueryError(f"bad limit {limit}: 0 or more")
    if not 0 <= probability_blanks <= MAX_PROBABILITY_BLANKS:
        raise QueryError(f"bad number of blanks {probability_blanks}: 0 to {MAX_PROBABILITY_BLANKS}")
    d = dictionary
    automata: list[Automaton[Any]] = [] if automaton is None else [automaton]
    if pattern is not None:
        automata.append(parse_pattern(pattern, d.normalize))
    if regex is not None:
        automata.append(Regex(regex, d.normalize))
    if anagram is not None:
        automata.append(_rack(d, anagram, False))
    if subanagram is not None:
        automata.append(_rack(d, subanagram, True))
    need_bag = points is not None or probability is not None or sort in ("points", "probability")
    bag = bag_for(tiles, d) if need_bag or tiles is not None else None
    counted = {
        "length": None if length is None else _bounds(length, "length"),
        "vowels": None if vowels is None else _bounds(vowels, "vowels"),
        "distinct": None if distinct is None else _bounds(distinct, "distinct"),
        "points": None if points is None else _bounds(points, "points"),
    }
    include = exclude = None
    if includes is not None:
        letters = _letters(d, includes, "includes")
        include = {letter: letters.count(letter) for letter in set(letters)}
    if excludes is not None:
        letters = _letters(d, excludes, "excludes")
        exclude = {letter: letters.count(letter) for letter in set(letters)}
    if takes_prefix is not None:
        automata.append(Follow(d, d.step(d.root, _letters(d, takes_prefix, "prefix"))))
    if in_ is not None:
        other = _other(d, in_, "in")
        automata.append(Follow(other, other.root))
    # The counters last: the parts before them prune more and have fewer states. Each
    # count the walk keeps multiplies the states of the query, and so the (dictionary
    # state, query state) pairs the walk visits: a count goes into the walk only where its
    # bound prunes hard (a maximum of vowels or distinct letters of at most a third of the
    # longest length, or 2 without one; of points, at most twice the longest length, or 8;
    # the included letters when the longest length is known). Every count is checked on
    # the word as well (one pass over its letters), so a minimum, which prunes only at the
    # end of a path, costs no state. A rack (anagram, subanagram) bounds the walk more
    # tightly than any count: with one, every count is checked on the word.
    room = counted["length"][1] if counted["length"] else None
    racked = anagram is not None or subanagram is not None
    walked: dict[str, tuple[int, int | None] | None] = {}
    for name in ("vowels", "distinct", "points"):
        bounds = counted[name]
        high = None if bounds is None else bounds[1]
        if name == "points":
            tight = high is not None and high <= (8 if room is None else 2 * room)
        else:
            tight = high is not None and high <= (2 if room is None else room // 3)
        walked[name] = (0, high) if tight and not racked else None
    walked_include = include if room is not None and not racked else None
    walked_exclude = None if racked else exclude
    walked_length = None if racked else counted["length"]
    if walked_length or walked_exclude or walked_include or any(walked.values()):
        automata.append(
            Counters(
                walked_length,
                walked["vowels"],
                walked["distinct"],
                walked_include,
                walked_exclude,
                walked["points"],
                bag.values if bag is not None else None,
            )
        )
    checks: list[Callable[[str], bool]] = []
    if counted["length"] is not None and walked_length is None:
        length_bounds = counted["length"]
        checks.append(lambda word: _within(len(word), length_bounds))
    if exclude and walked_exclude is None:
        checks.append(lambda word: all(word.count(letter) < times for letter, times in exclude.items()))
    if counted["vowels"] is not None:
        vowel_bounds = counted["vowels"]
        checks.append(lambda word: _within(count_vowels(word), vowel_bounds))
    if counted["distinct"] is not None:
        distinct_bounds = counted["distinct"]
        checks.append(lambda word: _within(len(set(word)), distinct_bounds))
    if counted["points"] is not None:
        assert bag is not None
        points_bounds, word_points = counted["points"], bag.points
        checks.append(lambda word: _within(word_points(word), points_bounds))
    if include and walked_include is None:
        checks.append(lambda word: all(word.count(letter) >= times for letter, times in include.items()))
    if takes_suffix is not None:
        suffix = _letters(d, takes_suffix, "suffix")
        checks.append(lambda word: word + suffix in d)
    if not_takes_prefix is not None:
        bad_prefix = _letters(d, not_takes_prefix, "prefix")
        checks.append(lambda word: bad_prefix + word not in d)
    if not_takes_suffix is not None:
        bad_suffix = _letters(d, not_takes_suffix, "suffix")
        checks.append(lambda word: word + bad_suffix not in d)
    if not_in is not None:
        excluded = _other(d, not_in, "not in")
        checks.append(lambda word: word not in excluded)
    if hooks is not None:
        for kind in _hook_kinds(hooks):
            if kind == "front":
                checks.append(lambda word: bool(front_hooks(d, word)))
            elif kind == "back":
                checks.append(lambda word: bool(back_hooks(d, word)))
            else:
                checks.append(lambda word: any(inner_hooks(d, word)))
    if anagrams is not None:
        anagram_bounds = _bounds(anagrams, "anagrams")
        checks.append(lambda word: _within(anagram_count(d, word), anagram_bounds))
    if probability is not None:
        rank_bounds = _bounds(probability, "probability")
        assert bag is not None
        checks.append(_rank_check(d, bag, probability_blanks, rank_bounds))
    query: Automaton[Any]
    if not automata:
        query = everything()
    elif len(automata) == 1:
        query = automata[0]
    else:
        query = Product(*automata)
    walk_limit = limit if not checks and sort in (None, "alpha") else None
    words = walk_search(d, query, walk_limit, kernel)
    if len(checks) == 1:
        words = filter(checks[0], words)
    elif checks:
        words = filter(_every(checks), words)
    if sort in (None, "alpha"):
        return words if walk_limit is not None or limit is None else islice(words, limit)
    return _sorted(d, words, sort, bag, probability_blanks, limit, table)  # type: ignore[arg-type]


def _every(checks: list[Callable[[str], bool]]) -> Callable[[str], bool]:
    # One function for the checks, cheapest first, stopping at the first that fails.
    def every(word: str) -> bool:
        for check in checks:
            if not check(word):
                return False
        return True

    return every


def _rank_check(d: Any, bag: TileBag, blanks: int, bounds: tuple[int, int | None]) -> Callable[[str], bool]:
    # The ranks are built at the first word the walk yields, not before the walk starts.
    by_length: dict[int, dict[str, int]] = {}

    def check(word: str) -> bool:
        ranks = by_length.get(len(word))
        if ranks is None:
            ranks = by_length[len(word)] = probability_ranks(d, bag, blanks, len(word))
        return _within(ranks[word], bounds)

    return check


def _sorted(
    d: Any, words: Iterator[str], sort: str, bag: TileBag, blanks: int, limit: int | None, table: Any = None
) -> Iterator[str]:
    found = list(islice(words, MAX_SORTED + 1))
    if len(found) > MAX_SORTED:
        raise QueryError(f"too many words to sort (more than {MAX_SORTED:,}): narrow the search, or leave out the sort")
    if sort == "length":
        found.sort(key=len)  # stable: byte order within a length
    elif sort == "points":
        found.sort(key=lambda word: -bag.points(word))
    elif sort == "expected":
        expected_of = table.expected

        def by_expected(word: str) -> tuple[float, str]:
            group = alphagram(word)
            return -expected_of(group), group

        found.sort(key=by_expected)  # stable: byte order within a group
    else:
        found.sort(key=lambda word: (len(word), probability_rank(d, word, bag, blanks)))
    yield from found[:limit]


__all__ = [
    "Counters",
    "Follow",
    "Product",
    "HOOK_KINDS",
    "SORTS",
    "alphagram",
    "IndexTooLarge",
    "alphagram_groups",
    "anagram_count",
    "exact_anagrams",
    "group_size",
    "back_hooks",
    "front_hooks",
    "hook_letters",
    "hook_rows",
    "anagram_counts",
    "has_back_hook",
    "has_front_hook",
    "inner_hooks",
    "parse_range",
    "probability_rank",
    "probability_ranks",
    "search_words",
]
