"""Helpers for tests of code that needs a dictionary: build a small one from a list of words."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from boggle_dafsa.automaton.fileformat import write_atomically
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.build import compile_words
from boggle_dafsa.words.normalize import Policy, normalize


def normalized_words(words: Iterable[str], policy: Policy = Policy.FOLD) -> list[str]:
    """The sorted unique normalized forms of ``words`` (dropped words left out)."""
    return sorted({key for word in words if (key := normalize(word, policy))})


def dictionary_from_words(
    words: Iterable[str], folder: str | Path, policy: Policy = Policy.FOLD, name: str = "test.dafsa", version: int | None = None
) -> NativeDictionary:
    """Compile ``words`` (normalized by ``policy``) into ``folder/name`` (format ``version``,
    default the newest) and open it."""
    from boggle_dafsa.automaton.fileformat import DEFAULT_VERSION

    path = Path(folder) / name
    write_atomically(path, compile_words(normalized_words(words, policy), policy, version=version or DEFAULT_VERSION))
    return NativeDictionary(path)
