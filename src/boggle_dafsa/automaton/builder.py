"""Building the minimal DAFSA of a sorted word list.

The algorithm is the incremental construction for sorted input of Daciuk, Mihov,
Watson & Watson (2000): words are added in order; when a word leaves the path of
the previous one, the states that fall off that path can never change again, so
each is replaced by an equivalent state already registered, or registered itself.
Memory stays proportional to the automaton plus one word, never to a trie.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.files.limits import MAX_STATES


@dataclass(frozen=True)
class Automaton:
    """A minimal acyclic automaton held in memory, before it is written to a file.

    States are numbered 0..n-1 in the order they were registered: children
    always have smaller numbers than their parents, and ``root`` is the last.
    """

    #: ``finals[s]`` is True when state ``s`` ends a word.
    finals: list[bool]
    #: ``labels[s]`` is the flat tuple (letter, child, letter, child, ...) in letter order:
    #: flat rather than pairs because it is also the state's key in the register, and one
    #: tuple a state instead of one a transition keeps the French build under 64 MB.
    labels: list[tuple]
    root: int
    word_count: int
    longest_word: int

    @property
    def state_count(self) -> int:
        """Number of states."""
        return len(self.finals)

    @property
    def transition_count(self) -> int:
        """Number of transitions (edges)."""
        return sum(len(flat) for flat in self.labels) // 2

    @property
    def alphabet(self) -> str:
        """Every letter that labels a transition, in code point order."""
        return "".join(sorted({letter for flat in self.labels for letter in flat[::2]}))


class UnsortedInputError(ValueError):
    """The words given to the builder are not strictly increasing."""


class StateLimitError(DictionaryError):
    """The automaton would need more states than the builder's cap (``limits.MAX_STATES``)."""

    def __init__(self, limit: int, words: int) -> None:
        super().__init__(f"the automaton needs more than {limit:,} states (after {words:,} words): over the limit")
        self.limit = limit
        self.words = words


class IncrementalBuilder:
    """Builds the minimal DAFSA one word at a time; words must come in increasing order.

    ``add`` skips a word equal to the last one (and says so); ``finish`` registers what is
    left of the path and the root and returns the automaton. This is the pure-Python
    builder; ``stream.py`` wraps it, and ``_builder.c`` is its compiled twin.

    Registering more than ``max_states`` states (the root included) raises
    :class:`StateLimitError`: memory stays bounded whatever the list.
    """

    def __init__(self, max_states: int = MAX_STATES) -> None:
        if max_states < 1:
            raise ValueError("max_states must be at least 1")
        self.max_states = max_states
        self.register: dict[tuple, int] = {}
        self.finals: list[bool] = []
        self.labels: list[tuple] = []
        # The unfrozen path: the states of the previous word's prefixes, depth 0 = root.
        self.path_final: list[bool] = [False]
        self.path_edges: list[list] = [[]]
        self.previous = ""
        self.count = 0
        self.longest = 0
        self.transitions = 0

    def _freeze_down_to(self, depth: int) -> None:
        # Replace every path state deeper than `depth` by its registered equivalent.
        path_final, path_edges, previous = self.path_final, self.path_edges, self.previous
        register, finals, labels = self.register, self.finals, self.labels
        for d in range(len(path_final) - 1, depth, -1):
            flat = tuple(path_edges[d])
            signature = (path_final[d], flat) if path_final[d] else flat
            state = register.get(signature)
            if state is None:
                state = len(finals)
                if state >= self.max_states:
                    raise StateLimitError(self.max_states, self.count)
                register[signature] = state
                finals.append(path_final[d])
                labels.append(flat)
                self.transitions += len(flat) // 2
            path_edges[d - 1] += (previous[d - 1], state)
            del path_final[d], path_edges[d]

    def add(self, word: str) -> bool:
        """Add ``word``; False if it equals the last word added (nothing done).

        Raises :class:`UnsortedInputError` for an empty word or one smaller than the last.
        """
        previous = self.previous
        if self.count and word <= previous:
            if word == previous:
                return False
            raise UnsortedInputError(f"word {word!r} is out of order after {previous!r}: input must be sorted")
        if not word:
            raise UnsortedInputError("empty word")
        common = 0
        limit = min(len(word), len(previous))
        while common < limit and word[common] == previous[common]:
            common += 1
        self._freeze_down_to(common)
        self.previous = word
        for _ in range(common, len(word)):
            self.path_final.append(False)
            self.path_edges.append([])
        self.path_final[-1] = True
        self.count += 1
        if len(word) > self.longest:
            self.longest = len(word)
        return True

    def finish(self) -> Automaton:
        """Register the rest of the path and the root; the builder is spent afterwards."""
        self._freeze_down_to(0)
        # The root is registered like any state: an empty list gives the one-state automaton.
        if len(self.finals) >= self.max_states:
            raise StateLimitError(self.max_states, self.count)
        self.finals.append(self.path_final[0])
        self.labels.append(tuple(self.path_edges[0]))
        self.register.clear()
        return Automaton(
            finals=self.finals, labels=self.labels, root=len(self.finals) - 1, word_count=self.count, longest_word=self.longest
        )


def build_automaton(words: Iterable[str], progress: Callable[[int], None] | None = None) -> Automaton:
    """Build the minimal DAFSA of ``words``, which must be sorted and free of duplicates.

    ``progress``, if given, is called now and then with the number of words added so far.
    """
    builder = IncrementalBuilder()
    add = builder.add
    for word in words:
        if not add(word):
            raise UnsortedInputError(f"word {word!r} is duplicate after {word!r}: input must be sorted and unique")
        if progress is not None and not builder.count & 0x3FFF:
            progress(builder.count)
    automaton = builder.finish()
    if progress is not None:
        progress(builder.count)
    return automaton
