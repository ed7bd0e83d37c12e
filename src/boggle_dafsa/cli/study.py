"""``boggle-dafsa search``: Zyzzyva's word-study conditions combined (a thin layer over
:func:`boggle_dafsa.query.search`). A module of its own: its many options are built only
when it runs."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Annotated, Any, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import load_dictionary
from boggle_dafsa.cli.options import CountOption, DictOption, JsonOption, LimitOption


def _text(help: str, *names: str) -> Any:
    return typer.Option(*names, help=help, show_default=False)


Text = Optional[str]


@app.command()
def search(
    dictionary: DictOption = None,
    pattern: Annotated[Text, _text("Match a pattern (as `match`: ?, *, [ABC], @, #).", "--pattern")] = None,
    regex: Annotated[Text, _text("Match a regular expression whole (as `grep`).", "--regex")] = None,
    anagram: Annotated[Text, _text("Anagrams of these letters (? a blank).", "--anagram")] = None,
    subanagram: Annotated[Text, _text("Words made of some of these letters (? a blank).", "--subanagram")] = None,
    length: Annotated[Text, _text("Letters: MIN-MAX, MIN-, -MAX or N.", "--length")] = None,
    includes: Annotated[Text, _text("Holds these letters (AAB: two A's and a B at least).", "--includes")] = None,
    excludes: Annotated[Text, _text("Holds none of these letters (SS: fewer than two S's).", "--excludes")] = None,
    vowels: Annotated[Text, _text("Vowels (AEIOUY): MIN-MAX.", "--vowels")] = None,
    distinct: Annotated[Text, _text("Distinct letters: MIN-MAX.", "--distinct")] = None,
    points: Annotated[Text, _text("Scrabble points (--tiles): MIN-MAX.", "--points")] = None,
    takes_prefix: Annotated[Text, _text("PREFIX+word is a word.", "--takes-prefix")] = None,
    takes_suffix: Annotated[Text, _text("word+SUFFIX is a word.", "--takes-suffix")] = None,
    not_takes_prefix: Annotated[Text, _text("PREFIX+word is not a word.", "--not-takes-prefix")] = None,
    not_takes_suffix: Annotated[Text, _text("word+SUFFIX is not a word.", "--not-takes-suffix")] = None,
    hooks: Annotated[
        Text, _text("Has a front hook, a back hook, or an inner one (without its first or last letter, a word).", "--hooks")
    ] = None,
    anagrams: Annotated[Text, _text("Words with these letters, itself included: MIN-MAX.", "--anagrams")] = None,
    probability: Annotated[
        Text, _text("Probability rank within its length (1: most probable): MIN-MAX.", "--probability")
    ] = None,
    in_: Annotated[Text, _text("A word of this dictionary too.", "--in")] = None,
    not_in: Annotated[Text, _text("Not a word of this dictionary.", "--not-in")] = None,
    tiles: Annotated[
        Text, _text("Tile bag for points and probability: en, fr, or a file (default: fr for -d fr, else en).", "--tiles")
    ] = None,
    probability_blanks: Annotated[
        int, typer.Option("--probability-blanks", min=0, max=2, help="Blanks the probability counts (0, 1 or 2).")
    ] = 2,
    sort: Annotated[Text, _text("Order: alpha (default), length, points (highest first), probability.", "--sort")] = None,
    columns: Annotated[
        Text, _text("Columns before each word: hooks, probability, anagrams, points (comma-separated).", "--columns")
    ] = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
) -> None:
    """Print the words meeting every condition given, in byte order (or --sort)."""
    from boggle_dafsa.output.columns import WordColumns, parse_columns
    from boggle_dafsa.query.conditions import search_words

    conditions: dict[str, Any] = {
        "pattern": pattern,
        "regex": regex,
        "anagram": anagram,
        "subanagram": subanagram,
        "length": length,
        "includes": includes,
        "excludes": excludes,
        "vowels": vowels,
        "distinct": distinct,
        "points": points,
        "takes_prefix": takes_prefix,
        "takes_suffix": takes_suffix,
        "not_takes_prefix": not_takes_prefix,
        "not_takes_suffix": not_takes_suffix,
        "hooks": hooks,
        "anagrams": anagrams,
        "probability": probability,
    }
    names = parse_columns(columns)
    d = load_dictionary(dictionary)
    if in_ is not None:
        conditions["in_"] = load_dictionary(in_, announce=False)
    if not_in is not None:
        conditions["not_in"] = load_dictionary(not_in, announce=False)
    words = search_words(
        d,
        None,
        limit,
        tiles=tiles,
        probability_blanks=probability_blanks,
        sort=sort,
        **{name: value for name, value in conditions.items() if value is not None},
    )
    shown = WordColumns(d, names, tiles, probability_blanks) if names else None
    _emit(words, as_json, count, shown)


def _emit(words: Iterable[str], as_json: bool, count: bool, shown: Any = None) -> None:
    # Lines, a count, or {"words": [...]} written a word at a time: the words stream.
    found = 0
    out = sys.stdout
    if count:
        found = sum(1 for _ in words)
        out.write(f"{found}\n")
    elif as_json:
        from boggle_dafsa.output.jsonable import dumps

        for word in words:
            item = shown.fields(word) if shown else {"word": word}
            out.write(('{\n  "words": [\n    ' if not found else ",\n    ") + dumps(item))
            found += 1
        out.write("\n  ]\n}\n" if found else '{\n  "words": []\n}\n')
    else:
        line = shown.line if shown else str
        for word in words:
            out.write(line(word) + "\n")
            found += 1
    out.flush()
    if not found:
        raise typer.Exit(1)
