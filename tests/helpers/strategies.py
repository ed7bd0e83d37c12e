"""Hypothesis strategies the tests share: random word lists over a few letters, the input of
every property that compares a dictionary's answers with a scan of its list."""

from __future__ import annotations

from hypothesis import strategies as st


def word_lists(
    letters: str = "ABCDE", *, longest: int = 7, min_size: int = 0, max_size: int = 60, as_given: bool = False
) -> st.SearchStrategy[list[str]]:
    """Lists of words of 1 to ``longest`` of ``letters``, ``min_size`` to ``max_size`` of them
    drawn: sorted and unique (a dictionary's list), or ``as_given`` (repeats, any order, a
    list as a user has it, for the code that normalizes and sorts it)."""
    words = st.lists(st.text(letters, min_size=1, max_size=longest), min_size=min_size, max_size=max_size)
    return words if as_given else words.map(lambda listed: sorted(set(listed)))
