"""Compiling a word list into a dictionary file: the library behind ``boggle-dafsa build``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .errors import BoggleError
from .formats import FORMATS, write_dictionary
from .formats.native import compile_words
from .normalize import Policy
from .wordlist import WordList, read_wordlist

__all__ = ["DEFAULT_OUTPUT", "BuildReport", "build_dictionary", "compile_words"]

DEFAULT_OUTPUT = Path("build") / "dictionary.dafsa"


@dataclass(frozen=True)
class BuildReport:
    """What a build read, kept and wrote."""

    wordlist: WordList
    output: Path
    format: str
    states: int | None
    transitions: int | None
    file_bytes: int
    seconds: float

    @property
    def bytes_per_word(self) -> float:
        """File bytes divided by the number of words kept."""
        return self.file_bytes / max(len(self.wordlist.words), 1)


def build_dictionary(
    source: str | Path,
    output: str | Path = DEFAULT_OUTPUT,
    *,
    policy: Policy = Policy.FOLD,
    encoding: str | None = None,
    format: str = "native",
    progress: Callable[[int, int], None] | None = None,
    data: bytes | None = None,
) -> BuildReport:
    """Read the word list ``source`` and write its dictionary to ``output`` atomically.

    ``progress``, if given, is called now and then with (words added, words in all).
    ``data``, if given, is the list's bytes already read (standard input), named ``source``.
    """
    if format not in FORMATS:
        raise BoggleError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    started = time.perf_counter()
    wordlist = read_wordlist(source, policy=policy, encoding=encoding, data=data)
    output = Path(output)
    total = len(wordlist.words)
    written = write_dictionary(
        wordlist.words,
        output,
        format,
        {"policy": policy.value, "source_sha256": wordlist.digest},
        (lambda done: progress(done, total)) if progress else None,
    )
    return BuildReport(
        wordlist, output, format, written.states, written.transitions, written.file_bytes, time.perf_counter() - started
    )
