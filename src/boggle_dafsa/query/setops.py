"""Set algebra between dictionaries: union, intersection and difference, written as a new
minimal native dictionary.

Each input lists its words in byte order, lazily; the inputs are merged as sorted streams
(like the merge step of merge sort) and the merged stream goes straight into the builder,
which itself only keeps the automaton and one word. No word list is ever held in memory.
Inputs of any format may be combined, provided they share a normalization policy: a folded
``ELEVE`` and an exact ``élève`` are different words, and mixing them would make a
dictionary that normalizes half its words wrongly.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boggle_dafsa.errors import DictionaryError, QueryError

#: The operations, by name.
OPERATIONS = ("union", "intersect", "diff")


@dataclass(frozen=True)
class SetReport:
    """What a set operation wrote."""

    output: Path
    operation: str
    words: int
    states: int
    transitions: int
    file_bytes: int


def check_policies(dictionaries: Sequence[Any]) -> None:
    """Raise :class:`QueryError` unless every dictionary has the same normalization policy."""
    first = dictionaries[0]
    for other in dictionaries[1:]:
        if other.policy != first.policy:
            raise QueryError(
                f"cannot combine {_name(first)} (policy {first.policy.value}) with {_name(other)} "
                f"(policy {other.policy.value}): build them with the same policy"
            )


def check_letters(dictionaries: Sequence[Any]) -> None:
    """Raise :class:`DictionaryError` if a dictionary holds letters its policy never looks
    up (a fold dictionary with a lower-case or accented letter): written out, its words
    would be unreachable. Fold works letter by letter, so the alphabet tells; an exact
    dictionary's words are checked one by one as they are merged (see :func:`_checked`)."""
    from boggle_dafsa.words.normalize import Policy, fold

    for dictionary in dictionaries:
        if dictionary.policy is not Policy.FOLD:
            continue
        stray = [letter for letter in dictionary.alphabet if not (letter.isalpha() and fold(letter) == letter)]
        if stray:
            raise DictionaryError(
                f"{_name(dictionary)}: damaged dictionary (letters its policy fold never looks up: {''.join(stray[:10])!r})"
            )


def _name(dictionary: Any) -> str:
    return str(getattr(dictionary, "path", dictionary))


def _checked(dictionary: Any) -> Iterator[str]:
    # The merge is only right on sorted streams: a file that lists its words otherwise
    # (a marisa file in weight order read by another reader, a damaged file) is refused.
    from boggle_dafsa.words.normalize import Policy

    exact = dictionary.policy is Policy.EXACT
    if exact:
        from unicodedata import is_normalized
    previous = None
    for word in dictionary:
        if previous is not None and word <= previous:
            raise DictionaryError(f"{_name(dictionary)}: words not in byte order ({previous!r} then {word!r})")
        if exact and not (word.isalpha() and is_normalized("NFC", word)):
            raise DictionaryError(
                f"{_name(dictionary)}: damaged dictionary ({word[:40]!r} is not a word its policy exact looks up)"
            )
        previous = word
        yield word


def _tagged(dictionary: Any, source: int) -> Iterator[tuple[str, int]]:
    for word in _checked(dictionary):
        yield word, source


def merged(dictionaries: Sequence[Any], operation: str, progress: Callable[[int, int], None] | None = None) -> Iterator[str]:
    """The words of ``operation`` over ``dictionaries``, in byte order, one at a time.

    ``union``: in any of them; ``intersect``: in all of them; ``diff``: in the first and
    in none of the others. ``progress``, if given, is called now and then with the words
    read from the inputs so far and their total.
    """
    if operation not in OPERATIONS:
        raise QueryError(f"unknown set operation {operation!r} (known: {', '.join(OPERATIONS)})")
    if not dictionaries:
        raise QueryError(f"{operation} needs at least one dictionary")
    check_policies(dictionaries)
    check_letters(dictionaries)
    count = len(dictionaries)
    streams: list[Iterable[tuple[str, int]]] = [_tagged(d, i) for i, d in enumerate(dictionaries)]
    current: str | None = None
    holders = 0  # how many inputs hold `current`
    in_first = False
    total = sum(len(d) for d in dictionaries) if progress is not None else 0
    read = 0
    for word, source in heapq.merge(*streams):
        read += 1
        if progress is not None and not read & 0x3FFF:
            progress(read, total)
        if word != current:
            if current is not None and _keep(operation, holders, in_first, count):
                yield current
            current, holders, in_first = word, 0, False
        holders += 1
        in_first = in_first or source == 0
    if current is not None and _keep(operation, holders, in_first, count):
        yield current
    if progress is not None:
        progress(read, total)


def _keep(operation: str, holders: int, in_first: bool, count: int) -> bool:
    if operation == "union":
        return True
    if operation == "intersect":
        return holders == count
    return in_first and holders == 1


def write_set(
    dictionaries: Sequence[Any], operation: str, output: str | Path, progress: Callable[[int, int], None] | None = None
) -> SetReport:
    """Write ``operation`` over ``dictionaries`` to ``output`` as a native dictionary (atomically).

    ``progress``: see :func:`merged`."""
    from boggle_dafsa.files.limits import refuse_overwriting
    from boggle_dafsa.formats import write_dictionary

    refuse_overwriting(output, [d.path for d in dictionaries if getattr(d, "path", None)], DictionaryError)
    count = 0

    def counted(words: Iterator[str]) -> Iterator[str]:
        nonlocal count
        for word in words:
            count += 1
            yield word

    from boggle_dafsa.automaton.builder import StateLimitError

    # The public write path streams an iterable into the builder and digests it on the way.
    try:
        written = write_dictionary(
            counted(merged(dictionaries, operation, progress)), output, "native", {"policy": dictionaries[0].policy}
        )
    except StateLimitError as error:
        raise DictionaryError(f"{output}: {operation}: {error}") from None
    return SetReport(Path(output), operation, count, written.states or 0, written.transitions or 0, written.file_bytes)
