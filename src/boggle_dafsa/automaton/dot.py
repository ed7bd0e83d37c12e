"""Graphviz DOT of a native automaton, to look at small ones."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.errors import DictionaryError


def to_dot(dictionary: NativeDictionary, max_states: int = 2000) -> Iterator[str]:
    """Lines of a DOT digraph: states numbered breadth-first, finals double circles."""
    if not isinstance(dictionary, NativeDictionary):
        raise DictionaryError(f"dot draws native dictionaries only (this one is {dictionary.format_name})")
    states = dictionary.header.state_count
    if states > max_states:
        raise DictionaryError(
            f"{dictionary.path}: {states} states is too many to draw (limit {max_states}: raise it with `max_states`)"
        )
    number: dict[int, int] = {dictionary.root: 0}
    queue = deque([dictionary.root])
    yield "digraph dafsa {"
    yield "  rankdir=LR;"
    yield '  node [shape=circle, label=""];'
    while queue:
        state = queue.popleft()
        shape = "doublecircle" if dictionary.is_word(state) else "circle"
        yield f"  s{number[state]} [shape={shape}];"
        for letter, child in dictionary.children(state):
            if child not in number:
                number[child] = len(number)
                queue.append(child)
            label = letter.replace("\\", "\\\\").replace('"', '\\"')
            yield f'  s{number[state]} -> s{number[child]} [label="{label}"];'
    yield "}"
