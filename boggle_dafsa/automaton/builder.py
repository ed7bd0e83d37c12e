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
    #: ``edges[s]`` lists (letter, child) in increasing letter order.
    edges: list[tuple[tuple[str, int], ...]]
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
        return sum(len(e) for e in self.edges)

    @property
    def alphabet(self) -> str:
        """Every letter that labels a transition, in code point order."""
        return "".join(sorted({letter for edges in self.edges for letter, _ in edges}))


class UnsortedInputError(ValueError):
    """The words given to the builder are not strictly increasing."""


def build_automaton(words: Iterable[str], progress: Callable[[int], None] | None = None) -> Automaton:
    """Build the minimal DAFSA of ``words``, which must be sorted and free of duplicates.

    ``progress``, if given, is called now and then with the number of words added so far.
    """
    register: dict[tuple, int] = {}
    finals: list[bool] = []
    edges: list[tuple[tuple[str, int], ...]] = []

    # The unfrozen path: the states of the previous word's prefixes, depth 0 = root.
    path_final: list[bool] = [False]
    path_edges: list[list[tuple[str, int]]] = [[]]
    previous = ""
    count = 0
    longest = 0

    def freeze_down_to(depth: int) -> None:
        # Replace every path state deeper than `depth` by its registered equivalent.
        for d in range(len(path_final) - 1, depth, -1):
            signature = (path_final[d], tuple(path_edges[d]))
            state = register.get(signature)
            if state is None:
                state = len(finals)
                register[signature] = state
                finals.append(signature[0])
                edges.append(signature[1])
            path_edges[d - 1].append((previous[d - 1], state))
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
    root_signature = (path_final[0], tuple(path_edges[0]))
    finals.append(root_signature[0])
    edges.append(root_signature[1])
    if progress is not None:
        progress(count)
    return Automaton(finals=finals, edges=edges, root=len(finals) - 1, word_count=count, longest_word=longest)
