"""Query commands: match, anagram, fuzzy, grep, range, prefixes, hooks, and the set algebra
union, intersect, diff. Thin: each parses its options and prints what ``boggle_dafsa.query``
returns.

Every listing prints one result a line with the word as the last field, streams as results
come (except fuzzy and anagram --sub, which sort first), takes --limit, --count and --json,
and exits 1 when nothing is found (as grep does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import emit_results as _emit
from boggle_dafsa.cli.common import lexicon, load_dictionary, print_json
from boggle_dafsa.cli.options import CountOption, DictOption, InputsArgument, JsonOption, LimitOption, OutputOption, QuietOption

ColumnsOption = Annotated[
    Optional[str],
    typer.Option(
        "--columns",
        help="Columns before each word: hooks, probability, anagrams, points, expected (comma-separated; see `search`).",
        show_default=False,
    ),
]


def _columns(d: Any, columns: str | None, spec: str | None) -> Any:
    # The word-study columns asked for (output.columns), or None; `expected` reads the
    # table of the dictionary `spec` names.
    from boggle_dafsa.output.columns import WordColumns, parse_columns

    names = parse_columns(columns)
    return WordColumns(d, names, expected=lexicon(spec) if "expected" in names else None) if names else None


@app.command()
def match(
    pattern: Annotated[
        str,
        typer.Argument(
            help="? a letter, * any run, [ABC] one of, [^ABC] or [!ABC] none of, @ a vowel, # a consonant, \\* a * (a backslash takes punctuation literally)."
        ),
    ],
    dictionary: DictOption = None,
    min_length: Annotated[int, typer.Option("--min-length", "-m", min=0, help="Shortest word.")] = 0,
    max_length: Annotated[
        Optional[int], typer.Option("--max-length", "-M", min=0, help="Longest word.", show_default=False)
    ] = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
    columns: ColumnsOption = None,
) -> None:
    """Print the words matching PATTERN, in byte order (quote it: the shell expands * and ?)."""
    from boggle_dafsa.query import match as run

    d = load_dictionary(dictionary)
    shown = _columns(d, columns, dictionary)
    words = run(d, pattern, min_length, max_length, limit)
    _emit(words, shown.line if shown else str, as_json, count, shown.fields if shown else None)


@app.command()
def anagram(
    letters: Annotated[str, typer.Argument(help="The letters; ? is a blank (any letter).")],
    dictionary: DictOption = None,
    sub: Annotated[bool, typer.Option("--sub", help="Words made of some of the letters (a rack), longest first.")] = False,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
    columns: ColumnsOption = None,
) -> None:
    """Print the words made of exactly LETTERS; the letters blanks became are in lower case."""
    from boggle_dafsa.output.jsonable import anagram_json
    from boggle_dafsa.query import iter_anagram as run

    d = load_dictionary(dictionary)
    shown = _columns(d, columns, dictionary)
    hits = run(d, letters, sub=sub, limit=limit)
    if shown is None:
        _emit(hits, lambda hit: hit.display(), as_json, count, anagram_json)
        return
    _emit(
        hits,
        lambda hit: shown.line(hit.word, hit.display()),
        as_json,
        count,
        lambda hit: anagram_json(hit, shown),
    )


@app.command()
def fuzzy(
    word: Annotated[str, typer.Argument(help="The word to come close to.")],
    dictionary: DictOption = None,
    distance: Annotated[int, typer.Option("--distance", "-k", min=0, help="Most edits (insert, delete, substitute).")] = 1,
    transpositions: Annotated[
        bool, typer.Option("--transpositions", "-t", help="Swapping two adjacent letters is one edit.")
    ] = False,
    prefix: Annotated[bool, typer.Option("--prefix", help="Words that start within DISTANCE edits of WORD.")] = False,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
    columns: ColumnsOption = None,
) -> None:
    """Print DISTANCE<TAB>WORD for the words within --distance edits of WORD, nearest first."""
    from boggle_dafsa.output.jsonable import fuzzy_json
    from boggle_dafsa.output.queries import fuzzy_line
    from boggle_dafsa.query import iter_fuzzy as run

    d = load_dictionary(dictionary)
    shown = _columns(d, columns, dictionary)
    hits = run(d, word, distance, transpositions=transpositions, prefix=prefix, limit=limit)
    if shown is None:
        _emit(hits, fuzzy_line, as_json, count, fuzzy_json)
        return
    _emit(
        hits,
        lambda hit: fuzzy_line(hit, shown),
        as_json,
        count,
        lambda hit: fuzzy_json(hit, shown),
    )


@app.command()
def grep(
    regex: Annotated[
        str, typer.Argument(help="Letters, ., [classes], ?, *, +, {m,n}, |, (groups), matched against whole words.")
    ],
    dictionary: DictOption = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
    columns: ColumnsOption = None,
) -> None:
    """Print the words that REGEX matches whole, in byte order."""
    from boggle_dafsa.query import grep as run

    d = load_dictionary(dictionary)
    shown = _columns(d, columns, dictionary)
    _emit(run(d, regex, limit), shown.line if shown else str, as_json, count, shown.fields if shown else None)


@app.command(name="range")
def range_(
    dictionary: DictOption = None,
    start: Annotated[Optional[str], typer.Option("--start", "-s", help="First word (included).", show_default=False)] = None,
    end: Annotated[
        Optional[str], typer.Option("--end", "-e", help="Words before this one (excluded).", show_default=False)
    ] = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
) -> None:
    """Print the words from --start (included) to --end (excluded), in byte order."""
    from boggle_dafsa.query import word_range

    d = load_dictionary(dictionary)
    _emit(word_range(d, start, end, limit), str, as_json, count)


@app.command()
def prefixes(
    word: Annotated[str, typer.Argument(help="The word whose beginnings to look up.")],
    dictionary: DictOption = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
) -> None:
    """Print the words that are prefixes of WORD (itself included), shortest first."""
    from boggle_dafsa.query import prefixes as run

    d = load_dictionary(dictionary)
    found = run(d, word)
    _emit(found if limit is None else found[:limit], str, as_json, count)


@app.command()
def hooks(
    word: Annotated[str, typer.Argument(help="The word to hook (it need not be a word itself).")],
    dictionary: DictOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
) -> None:
    """Print the letters that make a word before WORD (front) or after it (back): SIDE<TAB>LETTER<TAB>WORD."""
    from boggle_dafsa.output.jsonable import hooks_json
    from boggle_dafsa.output.queries import hooks_lines
    from boggle_dafsa.query import hooks as run

    d = load_dictionary(dictionary)
    found = run(d, word)
    if as_json and not count:
        print_json(hooks_json(found))
        if not found.front and not found.back:
            raise typer.Exit(1)
        return
    _emit(hooks_lines(found), str, False, count)


ValuesMergeOption = Annotated[
    str | None,
    typer.Option(
        "--values-merge",
        help="Inputs with values: what a word held with different values keeps: first or last (of the inputs in the order given), sum or max (int values). Without, different values are refused.",
    ),
]
NoValuesOption = Annotated[bool, typer.Option("--no-values", help="Write the words alone, whatever values the inputs hold.")]


def _set_command(
    operation: str, inputs: list[str], output: Path, quiet: bool, values_merge: str | None = None, no_values: bool = False
) -> None:
    from boggle_dafsa.cli.progress import progress_bar
    from boggle_dafsa.output.queries import set_report
    from boggle_dafsa.query.setops import write_set

    opened = [load_dictionary(spec) for spec in inputs]
    with progress_bar(operation) as progress:
        report = write_set(opened, operation, output, progress, values_merge, no_values=no_values)
    if not quiet:
        typer.echo(set_report(report, opened[0].policy.value))


@app.command()
def union(
    inputs: InputsArgument,
    output: OutputOption,
    quiet: QuietOption = False,
    values_merge: ValuesMergeOption = None,
    no_values: NoValuesOption = False,
) -> None:
    """Write the words of any of the INPUTS as a new minimal native dictionary (with their
    values when every input holds values)."""
    _set_command("union", inputs, output, quiet, values_merge, no_values)


@app.command()
def intersect(
    inputs: InputsArgument,
    output: OutputOption,
    quiet: QuietOption = False,
    values_merge: ValuesMergeOption = None,
    no_values: NoValuesOption = False,
) -> None:
    """Write the words of all of the INPUTS as a new minimal native dictionary (with the
    values of the inputs that hold values)."""
    _set_command("intersect", inputs, output, quiet, values_merge, no_values)


@app.command()
def diff(
    inputs: InputsArgument,
    output: OutputOption,
    quiet: QuietOption = False,
    no_values: NoValuesOption = False,
) -> None:
    """Write the words of the first input that none of the others holds, as a new native
    dictionary (with the first input's values, if it holds values)."""
    _set_command("diff", inputs, output, quiet, None, no_values)
