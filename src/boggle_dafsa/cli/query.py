"""Query commands: one made from each record of ``boggle_dafsa.query.VERBS`` (match, anagram,
fuzzy, grep, range, prefixes, hooks), and the set algebra union, intersect, diff. Thin: each
parses its options and prints what ``boggle_dafsa.query`` returns.

Every listing prints one result a line with the word as the last field, streams as results
come (except fuzzy and anagram --sub, which sort first), takes --limit, --count and --json,
and exits 1 when nothing is found (as grep does).
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from itertools import chain
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import emit_results as _emit
from boggle_dafsa.cli.common import lexicon, load_dictionary, print_json
from boggle_dafsa.cli.options import CountOption, DictOption, InputsArgument, JsonOption, LimitOption, OutputOption, QuietOption
from boggle_dafsa.query import VERBS, Verb

ColumnsOption = Annotated[
    Optional[str],
    typer.Option(
        "--columns",
        help="Columns before each word: hooks, probability, anagrams, points, expected (comma-separated; see `search`).",
        show_default=False,
    ),
]

#: The one-letter form of a query verb's option, by the library parameter it sets (the long
#: form is the parameter's name, ``min_length`` as ``--min-length``).
SHORT = {"min_length": "m", "max_length": "M", "distance": "k", "transpositions": "t", "start": "s", "end": "e"}


def _columns(d: Any, columns: str | None, spec: str | None) -> Any:
    # The word-study columns asked for (output.columns), or None; `expected` reads the
    # table of the dictionary `spec` names.
    from boggle_dafsa.output.columns import WordColumns, parse_columns

    names = parse_columns(columns)
    return WordColumns(d, names, expected=lexicon(spec) if "expected" in names else None) if names else None


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _spelled(text: str, names: Any) -> str:
    # A parameter of the verb named in backquotes (`distance`) is written as its option.
    return re.sub(r"`(\w+)`", lambda found: _flag(found[1]) if found[1] in names else found[0], text)


def _parameters(verb: Verb) -> list[inspect.Parameter]:
    """The command's parameters, in the order its help lists them: the verb's positional
    inputs, -d, its options, then --limit, --count, --json and --columns."""
    signature = list(inspect.signature(verb.function).parameters.values())[1:]  # after the dictionary
    hints = typing.get_type_hints(verb.function)
    names = {parameter.name for parameter in signature}
    given, options = [], []
    for parameter in signature:
        if parameter.name == "limit":
            continue
        kind = hints[parameter.name]
        if isinstance(kind, types.UnionType):  # `int | None` as typer reads it
            kind = Optional[tuple(arm for arm in typing.get_args(kind) if arm is not type(None))[0]]
        text = _spelled(verb.parameters[parameter.name], names)
        if parameter.default is inspect.Parameter.empty:
            given.append(_keyword(parameter.name, Annotated[kind, typer.Argument(help=text)]))
            continue
        short = [f"-{SHORT[parameter.name]}"] if parameter.name in SHORT else []
        settings: dict[str, Any] = {"help": text}
        if kind in (int, Optional[int]):  # every number a query takes is a count or a length
            settings["min"] = 0
        if parameter.default is None:
            settings["show_default"] = False
        option = typer.Option(_flag(parameter.name), *short, **settings)
        options.append(_keyword(parameter.name, Annotated[kind, option], parameter.default))
    tail = [_keyword("limit", LimitOption, None)] if "limit" in names else []
    tail += [_keyword("count", CountOption, False), _keyword("as_json", JsonOption, False)]
    if verb.columns:
        tail.append(_keyword("columns", ColumnsOption, None))
    return [*given, _keyword("dictionary", DictOption, None), *options, *tail]


def _keyword(name: str, annotation: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)


def _command(verb: Verb) -> Callable[..., None]:
    """The command of ``verb``: opens the dictionary, asks ``verb.function`` and prints its answer."""

    def command(dictionary: str | None, count: bool, as_json: bool, columns: str | None = None, **given: Any) -> None:
        d = load_dictionary(dictionary)
        shown = _columns(d, columns, dictionary) if verb.columns else None
        _print_answer(verb.function(d, **given), shown, as_json, count)

    parameters = _parameters(verb)
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    command.__doc__ = _spelled(verb.help, {parameter.name for parameter in parameters})
    command.__name__ = command.__qualname__ = verb.name
    return command


def _print_answer(answer: Any, shown: Any, as_json: bool, count: bool) -> None:
    # A stream of hits (words, anagrams, (distance, word) pairs), written as the first one
    # says (output.queries.hit_writers), or the hooks of a word.
    from boggle_dafsa.output.queries import hit_writers
    from boggle_dafsa.query import Hooks

    if isinstance(answer, Hooks):
        from boggle_dafsa.output.jsonable import hooks_json
        from boggle_dafsa.output.queries import hooks_lines

        if as_json and not count:
            print_json(hooks_json(answer))
            if not answer.front and not answer.back:
                raise typer.Exit(1)
            return
        _emit(hooks_lines(answer), str, False, count)
        return
    hits = iter(answer)
    first = next(hits, None)
    if first is None:
        _emit((), str, as_json, count)
        return
    line, item = hit_writers(first, shown)
    _emit(chain((first,), hits), line, as_json, count, item)


for _verb in VERBS:
    app.command(name=_verb.name)(_command(_verb))


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
