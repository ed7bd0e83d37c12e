"""The queries as automata: each one reads a word letter by letter and says whether it matches.

This is fst's design: a query is an :class:`Automaton` (a start state, ``step``, ``is_match``,
``can_match``), and one search (:func:`boggle_dafsa.query.search`) walks the dictionary's
automaton and the query's in step, abandoning a branch the moment ``can_match`` says no word
below it can match. Queries never see the dictionary's format.

Automaton states are plain hashable values, so that :class:`LazyDFA` can number them and
remember every transition: each distinct (state, letter) is computed once per query, and the
search then runs on integer tables. That is what keeps a Levenshtein or regex query fast
in pure Python.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any, Protocol, TypeVar

from boggle_dafsa.errors import QueryError
from boggle_dafsa.words.normalize import fold

S = TypeVar("S", bound=Hashable)

#: The vowels of ``@`` (and the letters ``#`` excludes), compared after folding: É is a vowel.
VOWELS = frozenset("AEIOUY")
#: Past this many distinct automaton states, a query is refused as too complex (memory bound).
MAX_DFA_STATES = 500_000


class Automaton(Protocol[S]):
    """A query read one letter at a time. ``step`` returns None where no word can match."""

    def start(self) -> S | None:
        """The state before any letter."""
        ...

    def step(self, state: S, letter: str) -> S | None:
        """The state after ``letter``, or None if no word continuing so can match."""
        ...

    def is_match(self, state: S) -> bool:
        """True if the letters read so far form a matching word."""
        ...

    def can_match(self, state: S) -> bool:
        """False if no continuation from ``state`` can ever match (the search prunes there)."""
        ...


# -- letter classes -------------------------------------------------------------------------


class Letters:
    """A set of letters: listed ones, or every letter but the listed ones (``negated``)."""

    __slots__ = ("members", "negated")

    def __init__(self, members: Iterable[str] = (), negated: bool = False) -> None:
        self.members = frozenset(members)
        self.negated = negated

    def __contains__(self, letter: object) -> bool:
        return (letter in self.members) != self.negated

    def empty(self) -> bool:
        """True if no letter at all is in the set."""
        return not self.negated and not self.members

    def __repr__(self) -> str:
        return f"[{'^' if self.negated else ''}{''.join(sorted(self.members))}]"


class Vowels(Letters):
    """``@`` (vowels) or, negated, ``#`` (consonants): a letter whose folded form is in AEIOUY."""

    __slots__ = ()

    def __contains__(self, letter: object) -> bool:
        return isinstance(letter, str) and (fold(letter) in VOWELS) != self.negated

    def empty(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "#" if self.negated else "@"


ANY = Letters(negated=True)


# -- the lazily determinized automaton the search runs on --------------------------------------


class LazyDFA:
    """An automaton whose states are numbered and whose transitions are remembered as they are met.

    ``trans[sid]`` maps a letter to the next state number (-1: dead); ``accept[sid]`` says
    whether state ``sid`` matches; ``states[sid]`` is the automaton's own state.
    """

    def __init__(self, automaton: Automaton[Any], max_states: int = MAX_DFA_STATES) -> None:
        self.automaton = automaton
        self.max_states = max_states
        self.states: list[Any] = []
        self.trans: list[dict[str, int]] = []
        self.accept: list[bool] = []
        self._ids: dict[Any, int] = {}
        self.start = self._intern(automaton.start())

    def _intern(self, state: Any) -> int:
        if state is None or not self.automaton.can_match(state):
            return -1
        sid = self._ids.get(state)
        if sid is None:
            sid = len(self.states)
            if sid >= self.max_states:
                raise QueryError(f"query too complex: more than {self.max_states:,} automaton states")
            self._ids[state] = sid
            self.states.append(state)
            self.trans.append({})
            self.accept.append(self.automaton.is_match(state))
        return sid

    def step(self, sid: int, letter: str) -> int:
        """The state after ``letter`` from ``sid`` (-1 if dead), computed once then remembered."""
        known = self.trans[sid].get(letter)
        if known is None:
            known = self._intern(self.automaton.step(self.states[sid], letter))
            self.trans[sid][letter] = known
        return known


# -- the queries ----------------------------------------------------------------------------


class Pattern:
    """A Zyzzyva-style pattern: a token per position, ``None`` for ``*``.

    A state is the set of positions the pattern may be at, as a bit mask (bit ``len(tokens)``:
    the end). ``*`` positions are closed over at once (a star may match nothing).
    """

    def __init__(self, tokens: list[Letters | None]) -> None:
        # Runs of stars are one star: `*****` costs what `*` costs.
        squeezed: list[Letters | None] = []
        for token in tokens:
            if token is None and squeezed and squeezed[-1] is None:
                continue
            squeezed.append(token)
        self.tokens = squeezed
        n = len(squeezed)
        self._end = 1 << n
        # closure[i]: position i plus every position a run of stars from i skips to.
        self._closure = [0] * (n + 1)
        for i in range(n, -1, -1):
            self._closure[i] = (1 << i) | (self._closure[i + 1] if i < n and squeezed[i] is None else 0)
        # A position is live if the end can still be reached from it (an empty class cannot).
        live = self._end
        for i in range(n - 1, -1, -1):
            token = squeezed[i]
            if live >> (i + 1) & 1 and (token is None or not token.empty()):
                live |= 1 << i
        self._live = live

    def start(self) -> int:
        return self._closure[0]

    def step(self, state: int, letter: str) -> int | None:
        tokens, closure = self.tokens, self._closure
        after = 0
        while state:
            low = state & -state
            i = low.bit_length() - 1
            state ^= low
            if i == len(tokens):
                continue
            token = tokens[i]
            if token is None:
                after |= closure[i]
            elif letter in token:
                after |= closure[i + 1]
        after &= self._live
        return after or None

    def is_match(self, state: int) -> bool:
        return bool(state & self._end)

    def can_match(self, state: int) -> bool:
        return bool(state & self._live)


class Length:
    """Words of ``low`` to ``high`` letters (``high`` None: no bound). A state is the length so far,
    capped where it stops mattering (at ``high``, else at ``low``) so that the DFA stays small."""

    def __init__(self, low: int = 0, high: int | None = None) -> None:
        self.low, self.high = low, high

    def start(self) -> int:
        return 0

    def step(self, state: int, letter: str) -> int | None:
        if self.high is not None:
            return state + 1 if state < self.high else None
        return min(state + 1, self.low)

    def is_match(self, state: int) -> bool:
        return state >= self.low

    def can_match(self, state: int) -> bool:
        return True


class Intersection:
    """Words that every one of ``automata`` matches. A state is the tuple of their states."""

    def __init__(self, *automata: Automaton[Any]) -> None:
        self.automata = automata

    def start(self) -> tuple | None:
        states = tuple(a.start() for a in self.automata)
        return None if any(s is None for s in states) else states

    def step(self, state: tuple, letter: str) -> tuple | None:
        after = []
        for automaton, sub in zip(self.automata, state):
            nxt = automaton.step(sub, letter)
            if nxt is None or not automaton.can_match(nxt):
                return None
            after.append(nxt)
        return tuple(after)

    def is_match(self, state: tuple) -> bool:
        return all(a.is_match(s) for a, s in zip(self.automata, state))

    def can_match(self, state: tuple) -> bool:
        return all(a.can_match(s) for a, s in zip(self.automata, state))


class Anagram:
    """Words made of exactly ``letters`` plus ``blanks`` wildcards (``sub``: of some of them).

    A state is the multiset of what is left, as one integer in mixed radix: a digit per
    distinct letter (tiles left) and one for the blanks left, so that a step is a division
    and a subtraction and the empty rack is 0. A letter uses a tile while one is left, then
    a blank: which positions the blanks took is :meth:`blank_positions`.
    """

    def __init__(self, letters: str, blanks: int = 0, sub: bool = False) -> None:
        self.distinct = sorted(set(letters))
        self._tiles = {letter: letters.count(letter) for letter in self.distinct}
        self.blanks = blanks
        self.sub = sub
        # place[letter]: the value of one tile of it; the blanks' digit comes first (place 1).
        self._place: dict[str, tuple[int, int]] = {}
        place = blanks + 1
        start = blanks
        for letter in self.distinct:
            count = self._tiles[letter]
            self._place[letter] = (place, count + 1)
            start += count * place
            place *= count + 1
        self._blank_base = blanks + 1
        self._start = start

    def start(self) -> int:
        return self._start

    def step(self, state: int, letter: str) -> int | None:
        where = self._place.get(letter)
        if where is not None and state // where[0] % where[1]:
            return state - where[0]
        if state % self._blank_base:
            return state - 1
        return None

    def is_match(self, state: int) -> bool:
        return self.sub or state == 0

    def can_match(self, state: int) -> bool:
        return True

    def blank_positions(self, word: str) -> list[int]:
        """Where the blanks went in ``word``: tiles are used first, from the left, so the
        blanks are the last occurrences of each letter the tiles fall short of."""
        positions: list[int] = []
        tiles = self._tiles
        for letter in set(word):
            excess = word.count(letter) - tiles.get(letter, 0)
            end = len(word)
            while excess > 0:
                end = word.rindex(letter, 0, end)
                positions.append(end)
                excess -= 1
        positions.sort()
        return positions


class Levenshtein:
    """Words within ``k`` edits of ``word`` (insert, delete, substitute; ``transpositions``:
    swapping two adjacent letters is one edit too, the optimal-string-alignment distance).

    A state is the last row of the edit-distance table, each entry capped at k+1 (plus,
    with transpositions, the row before and the letter read last). ``prefix``: words whose
    some prefix is within k edits; the state then also keeps the best distance met so far.
    """

    def __init__(self, word: str, k: int, transpositions: bool = False, prefix: bool = False) -> None:
        self.word, self.k = word, k
        self.transpositions, self.prefix = transpositions, prefix
        self._cap = k + 1

    def start(self) -> tuple:
        row = tuple(min(i, self._cap) for i in range(len(self.word) + 1))
        return (row, None, "", row[-1]) if self.prefix or self.transpositions else (row,)

    def step(self, state: tuple, letter: str) -> tuple | None:
        word, cap = self.word, self._cap
        row = state[0]
        new = [min(row[0] + 1, cap)]
        for i in range(1, len(row)):
            cost = row[i - 1] + (word[i - 1] != letter)
            if row[i] + 1 < cost:
                cost = row[i] + 1
            if new[i - 1] + 1 < cost:
                cost = new[i - 1] + 1
            if (
                self.transpositions
                and i > 1
                and word[i - 1] == state[2]
                and word[i - 2] == letter
                and state[1] is not None
                and state[1][i - 2] + 1 < cost
            ):
                cost = state[1][i - 2] + 1
            new.append(cost if cost < cap else cap)
        after = tuple(new)
        if len(state) == 1:
            return (after,)
        best = min(state[3], after[-1])
        # The previous row and letter matter only to transpositions: dropping them keeps states few.
        return (after, row if self.transpositions else None, letter if self.transpositions else "", best)

    def distance(self, state: tuple) -> int:
        """The distance of the word read (``prefix``: of its closest prefix)."""
        return state[3] if self.prefix else state[0][-1]

    def is_match(self, state: tuple) -> bool:
        return self.distance(state) <= self.k

    def can_match(self, state: tuple) -> bool:
        return min(state[0]) <= self.k or (self.prefix and state[3] <= self.k)


class Range:
    """Words ``w`` with ``start <= w < end`` in code point order (either bound may be None).

    A state is (letters read, still equal to start's prefix?, still equal to end's prefix?).
    """

    def __init__(self, start: str | None = None, end: str | None = None) -> None:
        self.low, self.high = start, end

    def start(self) -> tuple[int, bool, bool]:
        return 0, self.low is not None, self.high is not None

    def step(self, state: tuple[int, bool, bool], letter: str) -> tuple[int, bool, bool] | None:
        depth, on_low, on_high = state
        if on_low:
            assert self.low is not None
            if depth < len(self.low):
                if letter < self.low[depth]:
                    return None
                on_low = letter == self.low[depth]
            else:
                on_low = False  # longer than `start`, which it extends: greater
        if on_high:
            assert self.high is not None
            if depth >= len(self.high) or letter > self.high[depth]:
                return None
            on_high = letter == self.high[depth]
        # Off both bounds, the depth no longer matters: one state for the whole interior.
        return (depth + 1 if on_low or on_high else 0), on_low, on_high

    def is_match(self, state: tuple[int, bool, bool]) -> bool:
        depth, on_low, on_high = state
        if on_low and self.low is not None and depth < len(self.low):
            return False  # a proper prefix of start: smaller
        if on_high and self.high is not None and depth == len(self.high):
            return False  # equal to end, which is excluded
        return True

    def can_match(self, state: tuple[int, bool, bool]) -> bool:
        return True


def everything() -> Pattern:
    """The automaton that matches every word (``*``)."""
    return Pattern([None])


__all__ = [
    "ANY",
    "Anagram",
    "Automaton",
    "Intersection",
    "LazyDFA",
    "Length",
    "Letters",
    "Levenshtein",
    "Pattern",
    "Range",
    "Vowels",
    "everything",
]
