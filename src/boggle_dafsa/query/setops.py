"""Set algebra between dictionaries: union, intersection and difference, written as a new
minimal native dictionary.

Each input lists its words in byte order, lazily; the inputs are merged as sorted streams
(like the merge step of merge sort) and the merged stream goes straight into the builder,
which itself only keeps the automaton and one word. No word list is ever held in memory.
Inputs of any format may be combined, provided they share a normalization policy: a folded
``ELEVE`` and an exact ``élève`` are different words, and mixing them would make a
dictionary that normalizes half its words wrongly.

Values (issue 33) are kept: when every input a word of the result can come from holds
values of one kind (``union``: all of them; ``intersect``: at least one, whose values are
kept; ``diff``: the first), the result holds them too. A word held by several inputs with
different values is refused in one line, unless ``values_merge`` says which to keep:
``first`` or ``last`` (of the inputs in the order given), ``sum`` or ``max`` (ints).
Inputs that cannot give every word a value (a union with a set of words) are refused
unless ``no_values``, which writes the words alone.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boggle_dafsa.automaton.builder import StateLimitError
from boggle_dafsa.errors import DictionaryError, QueryError
from boggle_dafsa.files.limits import refuse_overwriting
from boggle_dafsa.formats import write_dictionary
from boggle_dafsa.words.normalize import Policy, fold

#: The operations, by name.
OPERATIONS = ("union", "intersect", "diff")
#: How a word held with several values keeps one (by the kind of the values).
VALUE_MERGES = {"int": ("first", "last", "sum", "max"), "text": ("first", "last"), "bytes": ("first", "last")}


@dataclass(frozen=True)
class SetReport:
    """What a set operation wrote."""

    output: Path
    operation: str
    words: int
    states: int
    transitions: int
    file_bytes: int
    #: The kind of the values kept (None: a set of words).
    values: str | None = None


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


def values_kind(dictionaries: Sequence[Any], operation: str, no_values: bool = False) -> str | None:
    """The kind of values the result of ``operation`` keeps (None: a set of words), or
    :class:`QueryError` for inputs whose values cannot all be kept (see the module docstring).

    Only values a writer stores count (``int``, ``text``, ``bytes``): a marisa file's key
    ids are the file's own numbering, not values to carry over."""
    if no_values:
        return None
    kinds = [_kind_of(d) for d in dictionaries]
    contributing = kinds[:1] if operation == "diff" else kinds
    valued = [kind for kind in contributing if kind is not None]
    if not valued:
        return None
    if len(set(valued)) > 1:
        names = ", ".join(f"{_name(d)} ({kind})" for d, kind in zip(dictionaries, kinds) if kind)
        raise QueryError(f"{operation}: values of different kinds ({names}): give `no_values` to write the words alone")
    if operation == "union" and None in kinds:
        plain = next(_name(d) for d, kind in zip(dictionaries, kinds) if kind is None)
        raise QueryError(
            f"union: {plain} holds no values, so some words would have none: give `no_values` to write the words alone"
        )
    return valued[0]


def _kind_of(dictionary: Any) -> str | None:
    kind = getattr(dictionary, "value_kind", None) if getattr(dictionary, "has_values", False) else None
    return kind if kind in VALUE_MERGES else None


def merged_items(
    dictionaries: Sequence[Any],
    operation: str,
    kind: str,
    merge: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[str, Any]]:
    """The ``(word, value)`` pairs of ``operation`` over ``dictionaries``, in byte order,
    one at a time: the words of :func:`merged`, each with the value of the inputs that hold
    it (those with values of ``kind``), one kept by ``merge`` when they differ (None: refuse)."""
    if operation not in OPERATIONS:
        raise QueryError(f"unknown set operation {operation!r} (known: {', '.join(OPERATIONS)})")
    if merge is not None and merge not in VALUE_MERGES[kind]:
        raise QueryError(f"`values_merge` {merge}: for {kind} values, one of {', '.join(VALUE_MERGES[kind])}")
    check_policies(dictionaries)
    check_letters(dictionaries)
    count = len(dictionaries)
    valued = [_kind_of(d) == kind for d in dictionaries]

    def tagged(dictionary: Any, source: int) -> Iterator[tuple[str, int, Any]]:
        if valued[source]:
            words = _Words(dictionary)
            for word in _checked(words):
                yield word, source, words.value
        else:
            for word in _checked(dictionary):
                yield word, source, None

    streams = [tagged(d, i) for i, d in enumerate(dictionaries)]
    current: str | None = None
    found: list[tuple[int, Any]] = []
    total = sum(len(d) for d in dictionaries) if progress is not None else 0
    read = 0
    for word, source, value in heapq.merge(*streams, key=_by_word_and_source):
        read += 1
        if progress is not None and not read & 0x3FFF:
            progress(read, total)
        if word != current:
            if current is not None:
                yield from _kept(operation, current, found, count, merge, dictionaries)
            current, found = word, []
        found.append((source, value))
    if current is not None:
        yield from _kept(operation, current, found, count, merge, dictionaries)
    if progress is not None:
        progress(read, total)


def _by_word_and_source(entry: tuple[str, int, Any]) -> tuple[str, int]:
    return entry[0], entry[1]


class _Words:
    """A dictionary's words through its ``items()``, the last one's value kept in :attr:`value`."""

    def __init__(self, dictionary: Any) -> None:
        self._dictionary = dictionary
        self.value: Any = None
        self.path = getattr(dictionary, "path", dictionary)
        self.policy = dictionary.policy

    def __iter__(self) -> Iterator[str]:
        for word, value in self._dictionary.items():
            self.value = value
            yield word


def _kept(
    operation: str, word: str, found: list[tuple[int, Any]], count: int, merge: str | None, dictionaries: Sequence[Any]
) -> Iterator[tuple[str, Any]]:
    # The word with its one value, if the operation keeps it.
    if not _keep(operation, len(found), found[0][0] == 0, count):
        return
    given = [(source, value) for source, value in found if value is not None]
    value = given[0][1]
    if len(given) > 1 and any(other != value for _, other in given[1:]):
        if merge is None:
            first, second = given[0], next(pair for pair in given[1:] if pair[1] != value)
            raise QueryError(
                f"{operation}: {word!r} has the value {first[1]!r:.40} in {_name(dictionaries[first[0]])} and "
                f"{second[1]!r:.40} in {_name(dictionaries[second[0]])}: give `values_merge` to say which to keep"
            )
        if merge == "last":
            value = given[-1][1]
        elif merge == "sum":
            value = sum(other for _, other in given)
            if not -(1 << 63) <= value < 1 << 63:
                raise QueryError(f"{operation}: the sum of the values of {word!r} passes 64 bits")
        elif merge == "max":
            value = max(other for _, other in given)
    yield word, value


def _keep(operation: str, holders: int, in_first: bool, count: int) -> bool:
    if operation == "union":
        return True
    if operation == "intersect":
        return holders == count
    return in_first and holders == 1


def write_set(
    dictionaries: Sequence[Any],
    operation: str,
    output: str | Path,
    progress: Callable[[int, int], None] | None = None,
    values_merge: str | None = None,
    no_values: bool = False,
) -> SetReport:
    """Write ``operation`` over ``dictionaries`` to ``output`` as a native dictionary (atomically).

    ``progress``: see :func:`merged`. Values: kept as the module docstring says
    (``values_merge``, ``no_values``)."""
    refuse_overwriting(output, [d.path for d in dictionaries if getattr(d, "path", None)], DictionaryError)
    count = 0

    def counted(words: Iterator[str]) -> Iterator[str]:
        nonlocal count
        for word in words:
            count += 1
            yield word

    if operation not in OPERATIONS:
        raise QueryError(f"unknown set operation {operation!r} (known: {', '.join(OPERATIONS)})")
    if not dictionaries:
        raise QueryError(f"{operation} needs at least one dictionary")
    kind = values_kind(dictionaries, operation, no_values)
    if kind is None and values_merge is not None:
        raise QueryError("`values_merge`: the result holds no values (no input it comes from holds any)")
    try:
        if kind is not None:
            from boggle_dafsa.formats.native import write_native_items

            pairs = merged_items(dictionaries, operation, kind, values_merge, progress)

            def counted_pairs() -> Iterator[tuple[str, Any]]:
                nonlocal count
                for pair in pairs:
                    count += 1
                    yield pair

            stats = write_native_items(counted_pairs(), output, kind, dictionaries[0].policy)
            return SetReport(Path(output), operation, count, stats.states, stats.transitions, stats.file_bytes, kind)
        # The public write path streams an iterable into the builder and digests it on the way.
        written = write_dictionary(
            counted(merged(dictionaries, operation, progress)), output, "native", {"policy": dictionaries[0].policy}
        )
    except StateLimitError as error:
        raise DictionaryError(f"{output}: {operation}: {error}") from None
    return SetReport(Path(output), operation, count, written.states or 0, written.transitions or 0, written.file_bytes)
