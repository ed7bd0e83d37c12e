"""The Dictionary protocol, format by format: one walk through `children` lists every word.

A query module walks any format through this interface only, so each format must
give the same alphabet, children in byte order, and the same answers to `in`,
`has_prefix` and `complete` as a Python set of the words.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.dictionary import Dictionary
from boggle_dafsa.formats import FORMATS, open_path, write_dictionary
from boggle_dafsa.words.normalize import Policy
from helpers import strategies

# One-, two- and three-byte letters in UTF-8: byte order is code point order.
LETTERS = "ABCEQUÉÑẞ"
word_lists = strategies.word_lists(LETTERS, longest=6, max_size=30)


def walk(dictionary: Dictionary[Any], state: Any, spelled: str) -> Iterator[str]:
    """Every word below ``state``, depth first through ``children`` only."""
    if dictionary.is_word(state):
        yield spelled
    letters = [letter for letter, _ in dictionary.children(state)]
    assert letters == sorted(letters, key=lambda letter: letter.encode("utf-8"))
    for letter, child in dictionary.children(state):
        assert dictionary.step(state, letter) == child
        yield from walk(dictionary, child, spelled + letter)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(word_lists, st.text(alphabet=LETTERS, max_size=3))
def test_every_format_answers_like_a_set(words: list[str], probe: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for format in FORMATS:
            path = Path(folder) / f"words.{format}"
            write_dictionary(words, path, format, {"policy": Policy.EXACT})
            with open_path(path) as dictionary:
                assert isinstance(dictionary, Dictionary)
                assert dictionary.format_name == format
                assert dictionary.alphabet == "".join(sorted({letter for word in words for letter in word}))
                assert list(walk(dictionary, dictionary.root, "")) == words
                assert list(dictionary) == words
                assert len(dictionary) == len(words)
                assert (probe in dictionary) == (probe in words)
                assert dictionary.has_prefix(probe) == any(word.startswith(probe) for word in words)
                assert list(dictionary.complete(probe, 2)) == [w for w in words if w.startswith(probe)][:2]
