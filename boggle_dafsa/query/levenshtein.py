"""The fuzzy walk of a native file: a row of the edit-distance table per depth, no query DFA.

:class:`~.automata.Levenshtein` walked through :class:`~.automata.LazyDFA` works on every
format, but each new (row, letter) is computed by a Python call. On a native file,
:func:`fuzzy_native` walks the mapped cells keeping, for each depth of the walk, the row of
the table after the letters read so far (entries capped at k + 1), computed from the
parent's row when the walk goes down a letter. A branch whose row has no entry within k is
abandoned (no longer word can come back within k); in ``prefix`` mode a branch below a
matching prefix is walked to the end without rows (every word there matches).

The compiled kernel is ``fuzzy`` in ``_walk.c``; :func:`_fuzzy_python` is its twin, line
for line, with the same inputs and outputs (``BOGGLE_DAFSA_PURE=1`` selects it).
"""

from __future__ import annotations

from typing import Any

from ..errors import DictionaryError
from .walk import max_depth, select_kernel

FINAL_FLAG = 1 << 31
LETTER_MASK = FINAL_FLAG - 1


def fuzzy_native(
    dictionary: Any, word: str, k: int, transpositions: bool = False, prefix: bool = False, limit: int | None = None, kernel: str = "auto"
) -> list[tuple[str, int]]:
    """(word, distance) for the words of the native ``dictionary`` within ``k`` edits of
    ``word`` (``prefix``: whose closest prefix is), in byte order, at most ``limit``."""
    arguments = (
        dictionary.cells, dictionary.root, dictionary.alphabet, word, k, transpositions, prefix,
        max_depth(dictionary), -1 if limit is None else limit,
    )
    try:
        if select_kernel(kernel) == "compiled":
            from ._walk import fuzzy

            words, distances = fuzzy(*arguments)
        else:
            words, distances = _fuzzy_python(*arguments)
    except ValueError as error:
        if not str(error).startswith("damaged: "):
            raise
        raise DictionaryError(f"{dictionary.path}: damaged dictionary ({str(error)[9:]})") from None
    return list(zip(words, distances))


def _damaged(what: str) -> ValueError:
    return ValueError(f"damaged: {what}")


def _fuzzy_python(
    cells: Any, root: int, alphabet: str, word: str, k: int, transpositions: bool, prefix: bool, depth_limit: int, limit: int
) -> tuple[list[str], list[int]]:
    # The twin of _walk.c's fuzzy(): same checks, same order, same results.
    n = len(cells)
    width = len(alphabet)
    m = len(word)
    cap = k + 1
    words: list[str] = []
    distances: list[int] = []
    if limit == 0:
        return words, distances
    if not 0 <= root < n:
        raise _damaged("the root points outside the file")
    rows: list[tuple[int, ...]] = [tuple(min(i, cap) for i in range(m + 1))]
    memo: dict[tuple[Any, ...], tuple[tuple[int, ...], bool]] = {}
    letters: list[str] = []
    head = cells[root]
    bits = head & LETTER_MASK
    if bits >> width:
        raise _damaged("a letter outside the alphabet")
    # A frame: [state, head, letter bits left, best distance of a prefix, row live?]
    stack: list[list[Any]] = [[root, head, bits, rows[0][m], True]]
    while stack:
        frame = stack[-1]
        bits = frame[2]
        if not bits:
            stack.pop()
            if stack:
                letters.pop()
            continue
        low = bits & -bits
        frame[2] = bits ^ low
        bit = low.bit_length() - 1
        letter = alphabet[bit]
        depth = len(stack) - 1
        live, best, dist = False, frame[3], cap
        if frame[4]:
            row = rows[depth]
            before = rows[depth - 1] if transpositions and depth > 0 else None
            last = letters[depth - 1] if transpositions and depth > 0 else ""
            # The row after `letter` depends only on these: worked out once per query (the
            # compiled kernel recomputes it, cheaper there than a lookup).
            key = (row, letter, before, last)
            known = memo.get(key)
            if known is None:
                nxt = [min(row[0] + 1, cap)]
                for i in range(1, m + 1):
                    cost = row[i - 1] + (word[i - 1] != letter)
                    if row[i] + 1 < cost:
                        cost = row[i] + 1
                    if nxt[i - 1] + 1 < cost:
                        cost = nxt[i - 1] + 1
                    if before is not None and i > 1 and word[i - 1] == last and word[i - 2] == letter and before[i - 2] + 1 < cost:
                        cost = before[i - 2] + 1
                    nxt.append(cost if cost < cap else cap)
                known = memo[key] = (tuple(nxt), min(nxt) <= k)
            nxt_row, live = known
            del rows[depth + 1:]
            rows.append(nxt_row)
            dist = nxt_row[m]
            best = min(best, dist)
        if not live and not (prefix and best <= k):
            continue  # nothing below can match
        slot = frame[0] + 1 + (frame[1] & (low - 1)).bit_count()
        if slot >= n:
            raise _damaged("a transition points outside the file")
        child = cells[slot]
        if child >= n:
            raise _damaged("a transition points outside the file")
        child_head = cells[child]
        found = best if prefix else dist
        if child_head & FINAL_FLAG and found <= k:
            words.append("".join(letters) + letter)
            distances.append(found)
            if len(words) == limit:
                break
        below = child_head & LETTER_MASK
        if not below:
            continue
        if below >> width:
            raise _damaged("a letter outside the alphabet")
        if depth + 1 > depth_limit:
            raise _damaged("a path longer than its longest word")
        letters.append(letter)
        stack.append([child, child_head, below, best, live])
    return words, distances
