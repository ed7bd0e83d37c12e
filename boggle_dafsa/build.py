"""Compiling a word list into a dictionary file: the library behind ``boggle-dafsa build``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .automaton.builder import build_automaton
from .automaton.fileformat import encode, write_atomically
from .errors import BoggleError
from .normalize import Policy
from .wordlist import WordList, digest_words, read_wordlist

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


def compile_words(sorted_words: list[str], policy: Policy = Policy.FOLD, progress: Callable[[int], None] | None = None) -> bytes:
    """The native dictionary file of ``sorted_words`` (normalized, sorted, unique), as bytes."""
    automaton = build_automaton(sorted_words, progress)
    return encode(automaton, policy, digest_words(sorted_words))


def build_dictionary(
    source: str | Path,
    output: str | Path = DEFAULT_OUTPUT,
    *,
    policy: Policy = Policy.FOLD,
    encoding: str | None = None,
    format: str = "native",
    progress: Callable[[int, int], None] | None = None,
) -> BuildReport:
    """Read the word list ``source`` and write its dictionary to ``output`` atomically.

    ``progress``, if given, is called now and then with (words added, words in all).
    """
    from .formats import FORMATS

    if format not in FORMATS:
        raise BoggleError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    started = time.perf_counter()
    wordlist = read_wordlist(source, policy=policy, encoding=encoding)
    output = Path(output)
    states = transitions = None
    if format == "native":
        total = len(wordlist.words)
        automaton = build_automaton(wordlist.words, (lambda done: progress(done, total)) if progress else None)
        data = encode(automaton, policy, wordlist.digest)
        write_atomically(output, data)
        states, transitions, size = automaton.state_count, automaton.transition_count, len(data)
    else:
        from .formats import write_dictionary

        write_dictionary(wordlist.words, output, format, {"policy": policy.value, "source_sha256": wordlist.digest})
        size = output.stat().st_size
    return BuildReport(wordlist, output, format, states, transitions, size, time.perf_counter() - started)
