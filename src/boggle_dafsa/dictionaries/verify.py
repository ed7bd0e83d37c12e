"""Proving what a dictionary holds: integrity checks and the round trip against a word list."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from boggle_dafsa.dictionary import Dictionary
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.words.wordlist import WordList


@dataclass
class Verification:
    """The result of comparing a dictionary with the normalized words of a list."""

    #: Words of the list that the dictionary lacks (the first ones, in byte order).
    missing: list[str] = field(default_factory=list)
    #: Words of the dictionary that the list lacks (the first ones, in byte order).
    extra: list[str] = field(default_factory=list)
    missing_count: int = 0
    extra_count: int = 0

    @property
    def ok(self) -> bool:
        """True when the dictionary holds exactly the list's words."""
        return not self.missing_count and not self.extra_count


def check_integrity(dictionary: Dictionary) -> None:
    """Raise :class:`DictionaryError` if the dictionary's own checksums fail."""
    body_intact = getattr(dictionary, "body_intact", None)
    if body_intact is not None and not body_intact():
        raise DictionaryError(f"{getattr(dictionary, 'path', 'dictionary')}: damaged (checksum of the cells does not match)")
    # A native file's word-number section, if any: every stored count against the automaton's.
    check_word_numbers = getattr(dictionary, "check_word_numbers", None)
    if check_word_numbers is not None:
        check_word_numbers()


def verify(
    dictionary: Dictionary, wordlist: WordList, keep: int = 10, progress: Callable[[int, int], None] | None = None
) -> Verification:
    """Check integrity, then compare every word of ``dictionary`` with ``wordlist.words``.

    ``progress``, if given, is called now and then with (list words compared, list words in all).
    """
    check_integrity(dictionary)
    result = Verification()
    expected: Iterable[str] = wordlist.words if progress is None else _counted(wordlist.words, progress)
    # A native file's count is exact once walked (its census proved it): past the end of
    # the list, the extras are counted rather than listed, so that a dictionary of 2**31
    # words checked against a short list answers at once.
    exact = getattr(dictionary, "checked", None) is not None
    if exact and len(dictionary) > 2 * len(wordlist.words) + keep:
        # Far more words than the list: a merge could walk billions of words before the
        # list's last one; a look-up per list word costs its length instead.
        return _by_lookup(dictionary, wordlist.words, expected, keep)
    found = _Tally(iter(dictionary))
    tail = False
    for side, word in _merge_differences(found, expected):
        if side == "tail":
            tail = exact
        elif side == "missing":
            result.missing_count += 1
            if len(result.missing) < keep:
                result.missing.append(word)
        else:
            result.extra_count += 1
            if len(result.extra) < keep:
                result.extra.append(word)
            elif tail:
                result.extra_count += len(dictionary) - found.count
                break
    return result


def _by_lookup(dictionary: Dictionary, words: list[str], expected: Iterable[str], keep: int) -> Verification:
    """:func:`verify` for a dictionary of exactly ``len(dictionary)`` words, many more than ``words``."""
    result = Verification()
    listed = set()
    for word in expected:
        if word in dictionary:
            listed.add(word)
        else:
            result.missing_count += 1
            if len(result.missing) < keep:
                result.missing.append(word)
    result.extra_count = len(dictionary) - len(listed)
    # The first extras in byte order: among the first len(listed) + keep words of the dictionary.
    for word in iter(dictionary):
        if len(result.extra) == min(keep, result.extra_count):
            break
        if word not in listed:
            result.extra.append(word)
    return result


class _Tally:
    """An iterator that counts what it has given."""

    def __init__(self, words: Iterator[str]) -> None:
        self.words = words
        self.count = 0

    def __iter__(self) -> _Tally:
        return self

    def __next__(self) -> str:
        word = next(self.words)
        self.count += 1
        return word


def _merge_differences(found: Iterator[str], expected: Iterable[str]) -> Iterator[tuple[str, str]]:
    # Both sides are sorted: one merge pass finds every difference in linear time.
    sentinel = None
    current = next(found, sentinel)
    for word in expected:
        while current is not None and current < word:
            yield "extra", current
            current = next(found, sentinel)
        if current == word:
            current = next(found, sentinel)
        else:
            yield "missing", word
    yield "tail", ""  # the list is done: every word left is extra
    while current is not None:
        yield "extra", current
        current = next(found, sentinel)


def _counted(words: list[str], progress: Callable[[int, int], None], every: int = 4096) -> Iterator[str]:
    for done, word in enumerate(words):
        if done % every == 0:
            progress(done, len(words))
        yield word
    progress(len(words), len(words))
