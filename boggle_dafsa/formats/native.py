"""Writing the native format, for the registry (reading it is :mod:`boggle_dafsa.automaton.reader`)."""

from __future__ import annotations

from collections.abc import Callable

from ..automaton.builder import build_automaton
from ..automaton.fileformat import encode
from ..normalize import Policy


def compile_words(sorted_words: list[str], policy: Policy = Policy.FOLD, progress: Callable[[int], None] | None = None) -> bytes:
    """The native dictionary file of ``sorted_words`` (normalized, sorted, unique), as bytes."""
    from ..wordlist import digest_words

    return encode_words(sorted_words, policy, digest_words(sorted_words), progress)[0]


def encode_words(
    sorted_words: list[str], policy: Policy, digest: str, progress: Callable[[int], None] | None = None
) -> tuple[bytes, int, int]:
    """(the file, its states, its transitions) for ``sorted_words`` whose list has ``digest``."""
    automaton = build_automaton(sorted_words, progress)
    return encode(automaton, policy, digest), automaton.state_count, automaton.transition_count
