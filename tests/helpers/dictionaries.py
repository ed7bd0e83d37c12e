"""Helpers for tests of code that needs a dictionary: build a small one from a list of words,
the same list in every format, and the small lexicon that the prover's tests and its fuzzer (scripts/fuzz_prove.py) prove on."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.dictionaries.build import compile_words
from boggle_dafsa.files.atomic import write_atomically
from boggle_dafsa.formats import FORMATS, open_path, write_dictionary
from boggle_dafsa.words.normalize import Policy, normalize

#: Words over A C E O S T that cross on small grids: every class of a 2x3 or 3x3 proof is quick.
PROOF_WORDS = tuple(
    "cat act tac cats scat taco coat coats ascot stoa oats oast tacos toast sea eat tea ate east seat teas sate oat"
    " tao cast coast taste state tot tots sot toe toes tete otto cocoa sec secs".split()
)
#: Buckets of PROOF_WORDS' letters, each letter in exactly one: for the cells, and for the corners.
PROOF_BUCKETS = "AE CO ST"
PROOF_CORNERS = "AEO CST"


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


@contextmanager
def every_format_file(words: list[str], policy: Policy = Policy.FOLD) -> Iterator[list[Path]]:
    """``words`` (a sorted list of keys) written in every format of the registry (``FORMATS``:
    native first), in a temporary folder deleted afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name in FORMATS:
            path = Path(folder) / f"words.{name}"
            write_dictionary(words, path, name, {"policy": policy})
            paths.append(path)
        yield paths


@contextmanager
def every_format(words: list[str], policy: Policy = Policy.FOLD) -> Iterator[list[Any]]:
    """``words`` as a dictionary of every format (native first), opened; closed and deleted afterwards."""
    with every_format_file(words, policy) as paths:
        opened = [open_path(path) for path in paths]
        try:
            yield opened
        finally:
            for dictionary in opened:
                getattr(dictionary, "close", lambda: None)()
