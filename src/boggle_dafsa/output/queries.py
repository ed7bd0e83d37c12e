"""The texts of the dictionary and query commands, one function per form, written once here.

``lookup``, ``dump --index`` and ``--values``, ``verify``, ``inspect``, the query verbs' answers
(:func:`hit_writers`: ``anagram``, ``fuzzy``...), ``hooks`` and the set
algebra (``union``, ``intersect``, ``diff``): pure functions from the library's answers to
lines (a word list's words, ``match``'s and ``grep``'s, are written as they are; the word-study
columns are :mod:`.columns`; the JSON of every verb is :mod:`.jsonable`). Rows are
tab-separated with the word last, as every listing's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from boggle_dafsa.output.render import render_value

if TYPE_CHECKING:
    from boggle_dafsa.dictionaries.verify import Verification
    from boggle_dafsa.output.columns import WordColumns
    from boggle_dafsa.query import Hooks
    from boggle_dafsa.query.setops import SetReport


def lookup_line(word: str, found: bool, number: int | None = None, value: Any = None, *, valued: bool = False) -> str:
    """``lookup``'s row: ``WORD<TAB>no`` for a word absent, else ``WORD<TAB>yes``, or its
    ``number`` (``--index``) and its value (``valued``: ``--values``), tab-separated."""
    if not found:
        return f"{word}\tno"
    shown = [] if number is None else [str(number)]
    if valued:
        shown.append(render_value(value))
    answer = "\t".join(shown) or "yes"
    return f"{word}\t{answer}"


def dump_rows(pairs: Iterable[tuple[str, Any]], *, index: bool, values: bool) -> Iterator[str]:
    """``dump --index``'s and ``--values``' rows, from (word, value) pairs in the file's order:
    ``NUMBER<TAB>WORD`` (numbered from 0), ``WORD<TAB>VALUE``, or both, ``NUMBER<TAB>WORD<TAB>VALUE``."""
    for number, (word, value) in enumerate(pairs):
        line = f"{number}\t{word}" if index else word
        yield f"{line}\t{render_value(value)}" if values else line


def verify_lines(result: Verification, words: int) -> Iterator[str]:
    """``verify``'s report of a dictionary of ``words`` words: ``ok: ...``, or the counts of
    the differences and the first of them (``- missing``, ``+ extra``)."""
    if result.ok:
        yield f"ok: {words:,} words, checksums hold"
        return
    yield f"differs: {result.missing_count:,} missing, {result.extra_count:,} extra"
    yield from (f"- {word}" for word in result.missing)
    yield from (f"+ {word}" for word in result.extra)


def inspect_lines(info: dict[str, Any]) -> Iterator[str]:
    """``inspect``'s table: a field a line, its name (underscores as spaces) padded to the
    longest, counts with thousands separators."""
    width = max(map(len, info))
    for key, value in info.items():
        shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else f"{value}"
        yield f"{key.replace('_', ' '):<{width}}  {shown}"


def fuzzy_line(hit: tuple[int, str], columns: WordColumns | None = None) -> str:
    """``fuzzy``'s row: ``DISTANCE<TAB>WORD``, the word after its columns when asked."""
    return f"{hit[0]}\t{columns.line(hit[1]) if columns is not None else hit[1]}"


def hit_writers(hit: object, columns: WordColumns | None = None) -> tuple[Callable[[Any], str], Callable[[Any], Any] | None]:
    """How a query verb's answers of the kind of ``hit`` are written (``boggle_dafsa.query.VERBS``):
    (its row, its JSON item, None for the hit as it is). A word is written as it is, an
    anagram as shown (the letters blanks became in lower case), a (distance, word) pair as
    ``DISTANCE<TAB>WORD``; the word after its ``columns`` when asked."""
    if isinstance(hit, str):
        return (columns.line, columns.fields) if columns is not None else (str, None)
    from boggle_dafsa.output.jsonable import anagram_json, fuzzy_json  # not for words: JSON is imported when asked
    from boggle_dafsa.query import AnagramHit

    if isinstance(hit, tuple):
        if columns is None:
            return fuzzy_line, fuzzy_json
        return (lambda pair: fuzzy_line(pair, columns)), (lambda pair: fuzzy_json(pair, columns))
    if isinstance(hit, AnagramHit):
        if columns is None:
            return AnagramHit.display, anagram_json
        shown = columns
        return (lambda found: shown.line(found.word, found.display())), (lambda found: anagram_json(found, shown))
    raise TypeError(f"no row for a query answer of type {type(hit).__name__}")


def hooks_lines(found: Hooks) -> list[str]:
    """``hooks``' rows: ``front<TAB>LETTER<TAB>WORD`` for each front hook, then ``back``'s."""
    return [f"front\t{c}\t{c}{found.word}" for c in found.front] + [f"back\t{c}\t{found.word}{c}" for c in found.back]


def set_report(report: SetReport, policy: str) -> str:
    """What ``union``, ``intersect`` and ``diff`` say of the file they wrote."""
    held = f", {report.values} values" if report.values else ""
    return (
        f"wrote {report.output} (native, policy {policy}): {report.words:,} words{held}, "
        f"{report.states:,} states, {report.file_bytes:,} bytes"
    )
