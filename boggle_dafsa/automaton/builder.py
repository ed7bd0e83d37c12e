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


def build_automaton(words: Iterable[str], progress: Callable[[int], None] | None = None) -> Automaton:
    """Build the minimal DAFSA of ``words``, which must be sorted and free of duplicates.

    ``progress``, if given, is called now and then with the number of words added so far.
    """
    register: dict[tuple, int] = {}
    finals: list[bool] = []
    labels: list[tuple] = []

    # The unfrozen path: the states of the previous word's prefixes, depth 0 = root.
    path_final: list[bool] = [False]
    path_edges: list[list] = [[]]
    previous = ""
    count = 0
    longest = 0

    def freeze_down_to(depth: int) -> None:
        # Replace every path state deeper than `depth` by its registered equivalent.
        for d in range(len(path_final) - 1, depth, -1):
            flat = tuple(path_edges[d])
            signature = (path_final[d], flat) if path_final[d] else flat
            state = register.get(signature)
            if state is None:
                state = len(finals)
                register[signature] = state
                finals.append(path_final[d])
                labels.append(flat)
            path_edges[d - 1] += (previous[d - 1], state)
            del path_final[d], path_edges[d]

    for word in words:
        if word <= previous and count:
            what = "duplicate" if word == previous else "out of order"
            raise UnsortedInputError(f"word {word!r} is {what} after {previous!r}: input must be sorted and unique")
        if not word:
            raise UnsortedInputError("empty word")
        common = 0
        limit = min(len(word), len(previous))
        while common < limit and word[common] == previous[common]:
            common += 1
        freeze_down_to(common)
        previous = word
        for _ in range(common, len(word)):
            path_final.append(False)
            path_edges.append([])
        path_final[-1] = True
        count += 1
        if len(word) > longest:
            longest = len(word)
        if progress is not None and not count & 0x3FFF:
            progress(count)

    freeze_down_to(0)
    # The root is registered like any state: an empty list gives the one-state automaton.
    finals.append(path_final[0])
    labels.append(tuple(path_edges[0]))
    if progress is not None:
        progress(count)
    return Automaton(finals=finals, labels=labels, root=len(finals) - 1, word_count=count, longest_word=longest)
