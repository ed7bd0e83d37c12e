"""The find command: whether one word can be traced on a grid, with one path.

A module of its own, so that running `solve` does not build this command's options
(typer builds every command a module registers: start-up time), and the reverse.
"""

# No `from __future__ import annotations` here, as in solve.py: typer evaluates the
# commands' annotations at each start. Names imported for type checking only are quoted.
from typing import TYPE_CHECKING, Annotated

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import load_dictionary, read_grid, time_limit
from boggle_dafsa.cli.options import AdjacencyOption, DictOption, JsonOption, QuOption, ShapeOption, TimeoutOption
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.solver.batch import SolveOptions


@app.command()
def find(
    grid: Annotated[str, typer.Argument(help="The grid, as for `solve` ('-': standard input).")],
    word: Annotated[str, typer.Argument(help="The word to trace.")],
    dictionary: DictOption = None,
    shape: ShapeOption = None,
    q_is_qu: QuOption = False,
    adjacency: AdjacencyOption = "king",
    json_output: JsonOption = False,
    timeout: TimeoutOption = None,
) -> None:
    """Say whether WORD can be traced on GRID, with one path, and whether it is a word.

    Exit status 0 if WORD can be traced, 1 if not (2 for bad input).
    """
    from boggle_dafsa.solver.batch import SolveOptions

    options = SolveOptions.from_arguments(None, None, adjacency, shape, q_is_qu)
    with time_limit(timeout, "find"):
        found = run_find(grid, word, load_dictionary(dictionary), options, json_output=json_output)
    if not found:
        raise typer.Exit(1)


def run_find(grid_text: str, word: str, dictionary: "Dictionary", options: "SolveOptions", *, json_output: bool = False) -> bool:
    """``boggle-dafsa find GRID WORD``: print whether WORD can be traced (and a path) and is a word."""
    from boggle_dafsa.solver import find

    grid = read_grid(grid_text, dictionary, options)
    key = dictionary.normalize(word)
    if not key:
        raise BoggleError(f"{word!r} is not a word: letters only")
    path = find(grid, key, adjacency=options.adjacency, policy=dictionary.policy)
    points = options.scoring.score(key) if key in dictionary else None
    if json_output:
        from boggle_dafsa.output.jsonable import dumps, find_json

        print(dumps(find_json(grid, key, path, points)))
    else:
        from boggle_dafsa.output.render import render_find

        print(render_find(grid, key, path, points))
    return path is not None
