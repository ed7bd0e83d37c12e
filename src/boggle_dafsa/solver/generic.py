"""The generic kernel: the grid walked through any dictionary's cursor (``step``/``is_word``).

It serves every format (marisa, dawg, stand-ins in tests), native files whose
alphabets are too wide for the native layout, and paths too deep for recursion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary


def search(
    dictionary: Dictionary[Any], faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path, walking the grid through ``dictionary.step`` and ``is_word``."""
    step = dictionary.step
    is_word = dictionary.is_word
    root = dictionary.root
    found: dict[str, tuple[int, ...]] = {}
    # A path spells at least one letter a cell: one longer than the longest word the file
    # states can only come from a cycle (a damaged file), not from a word.
    longest = getattr(dictionary, "_walk_bounds", lambda: (None, None))()[0]
    for start, face in enumerate(faces):
        state = step(root, face)
        if state is None:
            continue
        # Each entry: (cell, automaton state after its face, word so far, path so far).
        # Pushed in reverse so that neighbours are explored in increasing order.
        stack: list[tuple[int, Any, str, tuple[int, ...]]] = [(start, state, face, (start,))]
        while stack:
            cell, state, word, path = stack.pop()
            if longest is not None and len(path) > longest:
                from boggle_dafsa.errors import DictionaryError

                raise DictionaryError(
                    f"{getattr(dictionary, 'path', 'dictionary')}: damaged dictionary (paths longer than its longest word)"
                )
            if len(word) >= min_length and word not in found and is_word(state):
                found[word] = path
            for next_cell in reversed(table[cell]):
                if next_cell in path:
                    continue
                next_state = step(state, faces[next_cell])
                if next_state is not None:
                    stack.append((next_cell, next_state, word + faces[next_cell], path + (next_cell,)))
    return found
