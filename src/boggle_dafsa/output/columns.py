"""The word-study columns of a word list (``--columns hooks,probability,anagrams,points``):
each column's JSON fields and text fields, defined once for every listing that takes them.

- ``hooks``: JSON ``"front_hooks"`` and ``"back_hooks"`` (the letters, in byte order) and
  ``"inner_hooks"`` (``[front, back]``: the word without its first letter is a word,
  without its last); text, two fields: the front hooks then the back hooks (``-`` for
  none), a ``·`` after the front ones for a front inner hook and before the back ones for a
  back inner hook, as Zyzzyva marks them (``BC·`` and ``·AS``).
- ``probability``: the word's probability rank within its length (JSON ``"probability"``).
- ``anagrams``: how many words have its letters, itself included (``"anagrams"``).
- ``points``: its tiles' value (``"points"``, the one name of a word's value everywhere).
- ``expected``: the expected Boggle points per game of its anagram group
  (``"expected"``, a number; text with four decimals), from the table shipped for the
  dictionary (:mod:`boggle_dafsa.study.expected`: fr with the fr dice, enable2k with the
  en dice); 0 for a group never found on the boards rolled.

In text the columns come first, in the order asked, tab-separated, and the word last.
"""

from __future__ import annotations

from typing import Any

from boggle_dafsa.errors import QueryError
from boggle_dafsa.query import conditions
from boggle_dafsa.query.tiles import bag_for

#: The columns a listing takes, in the order ``--help`` gives them.
COLUMNS = ("hooks", "probability", "anagrams", "points", "expected")
#: Zyzzyva's mark of an inner hook.
INNER_MARK = "·"


def parse_columns(text: str | None) -> tuple[str, ...]:
    """``hooks,points`` as ("hooks", "points"); an unknown name is one line."""
    if not text:
        return ()
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    for name in names:
        if name not in COLUMNS:
            raise QueryError(f"unknown column {name!r}: {', '.join(COLUMNS)}")
    return tuple(dict.fromkeys(names))


class WordColumns:
    """The columns ``names`` of the words of ``dictionary`` (``tiles`` and ``blanks``: the
    bag and blanks of ``points`` and ``probability``; ``expected``: the expected-points
    table of ``expected``, a :class:`~boggle_dafsa.study.expected.Tally` or the name of an
    embedded dictionary whose shipped table to read)."""

    def __init__(self, dictionary: Any, names: tuple[str, ...], tiles: Any = None, blanks: int = 2, expected: Any = None) -> None:
        self.dictionary = dictionary
        self.names = names
        self.bag = bag_for(tiles, dictionary) if {"points", "probability"} & set(names) or tiles is not None else None
        self.blanks = blanks
        self.expected: Any = None
        if "expected" in names:
            from boggle_dafsa.study.expected import table_of

            self.expected = table_of(expected)
        self._held: dict[int, tuple[Any, Any, Any]] = {}

    def _length(self, length: int) -> tuple[Any, Any, Any]:
        # The indexes the columns read for words of one length: (hook rows, probability
        # ranks, anagram counts), each None when not asked; asked of the dictionary's
        # cache (conditions) once per length, then one look-up here.
        found = self._held.get(length)
        if found is None:
            d, names = self.dictionary, self.names
            found = self._held[length] = (
                conditions.hook_rows(d, length) if "hooks" in names else None,
                conditions.probability_ranks(d, self.bag, self.blanks, length) if self.bag and "probability" in names else None,
                conditions.anagram_counts(d, length) if "anagrams" in names else None,
            )
        return found

    def values(self, word: str) -> list[Any]:
        """The values of ``word``'s columns, in the order of :attr:`names`: the hooks as
        (front, back, front inner, back inner), the others as numbers."""
        hooks, ranks, counts = self._length(len(word))
        found: list[Any] = []
        for name in self.names:
            if name == "hooks":
                row = hooks.get(word)
                if row is None:  # not a word of the dictionary: its hooks all the same
                    front, back = conditions.hook_letters(self.dictionary, len(word))
                    row = (front.get(word, ""), back.get(word, ""), *conditions.inner_hooks(self.dictionary, word))
                found.append(row)
            elif name == "probability":
                found.append(ranks[word])
            elif name == "anagrams":
                count = counts.get(word)
                found.append(conditions.anagram_count(self.dictionary, word) if count is None else count)
            elif name == "points":
                found.append(self.bag.points(word))  # type: ignore[union-attr]
            else:
                found.append(round(self.expected.expected(conditions.alphagram(word)), 4))  # type: ignore[union-attr]
        return found

    def fields(self, word: str) -> dict[str, Any]:
        """The JSON fields of ``word``'s columns (``"word"`` first)."""
        found: dict[str, Any] = {"word": word}
        for name, value in zip(self.names, self.values(word)):
            if name == "hooks":
                found["front_hooks"], found["back_hooks"], front_inner, back_inner = value
                found["inner_hooks"] = [front_inner, back_inner]
            else:
                found[name] = value
        return found

    def line(self, word: str, shown: str | None = None) -> str:
        """The text line of ``word``: its columns, tab-separated, then ``shown`` (default the word)."""
        parts: list[str] = []
        for name, value in zip(self.names, self.values(word)):
            if name == "hooks":
                front, back, front_inner, back_inner = value
                parts.append((front or "-") + INNER_MARK if front_inner else front or "-")
                parts.append(INNER_MARK + (back or "-") if back_inner else back or "-")
            elif name == "expected":
                parts.append(f"{value:.4f}")
            else:
                parts.append(str(value))
        parts.append(word if shown is None else shown)
        return "\t".join(parts)


__all__ = ["COLUMNS", "INNER_MARK", "WordColumns", "parse_columns"]
