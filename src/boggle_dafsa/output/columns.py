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
        from boggle_dafsa.query.tiles import bag_for

        self.dictionary = dictionary
        self.names = names
        self.bag = bag_for(tiles, dictionary) if {"points", "probability"} & set(names) or tiles is not None else None
        self.blanks = blanks
        self.expected: Any = None
        if "expected" in names:
            from boggle_dafsa.study.expected import table_of

            self.expected = table_of(expected)
        self._held: dict[tuple[str, int], Any] = {}

    def fields(self, word: str) -> dict[str, Any]:
        """The JSON fields of ``word``'s columns (``"word"`` first)."""
        d = self.dictionary
        length = len(word)
        found: dict[str, Any] = {"word": word}
        for name in self.names:
            if name == "hooks":
                front, back = self._by_length("hooks", length, lambda: conditions.hook_letters(d, length))
                found["front_hooks"] = front.get(word, "")
                found["back_hooks"] = back.get(word, "")
                found["inner_hooks"] = list(conditions.inner_hooks(d, word))
            elif name == "probability":
                bag, blanks = self.bag, self.blanks
                assert bag is not None
                ranks = self._by_length("probability", length, lambda: conditions.probability_ranks(d, bag, blanks, length))
                found["probability"] = ranks[word]
            elif name == "anagrams":
                groups = self._by_length("anagrams", length, lambda: conditions.alphagram_groups(d, length))
                found["anagrams"] = conditions.group_size(groups.get(conditions.alphagram(word)))
            elif name == "points":
                found["points"] = self.bag.points(word)  # type: ignore[union-attr]
            else:
                found["expected"] = round(self.expected.expected(conditions.alphagram(word)), 4)  # type: ignore[union-attr]
        return found

    def _by_length(self, name: str, length: int, make: Any) -> Any:
        # The index of a column for one length, asked of the dictionary's cache once.
        key = (name, length)
        found = self._held.get(key)
        if found is None:
            found = self._held[key] = make()
        return found

    def line(self, word: str, shown: str | None = None) -> str:
        """The text line of ``word``: its columns, tab-separated, then ``shown`` (default the word)."""
        fields = self.fields(word)
        parts: list[str] = []
        for name in self.names:
            if name == "hooks":
                front_inner, back_inner = fields["inner_hooks"]
                parts.append((fields["front_hooks"] or "-") + (INNER_MARK if front_inner else ""))
                parts.append((INNER_MARK if back_inner else "") + (fields["back_hooks"] or "-"))
            elif name == "expected":
                parts.append(f"{fields[name]:.4f}")
            else:
                parts.append(str(fields[name]))
        parts.append(word if shown is None else shown)
        return "\t".join(parts)


__all__ = ["COLUMNS", "INNER_MARK", "WordColumns", "parse_columns"]
