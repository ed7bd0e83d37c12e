"""Commands about grids: solve (every word on a grid, or a batch of grids) and find (one word)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from . import app
from .common import IMPLICIT_DICTIONARY, DictOption, TimeoutOption, load_dictionary, time_limit

GRID_HELP = "The grid, e.g. IDXTMHEIERVNTLLU or IDXT/MHEI/ERVN/TLLU (see above); '-' or nothing: standard input."
ShapeOption = Annotated[
    Optional[str],
    typer.Option(
        "--shape", "-s", help="Shape the faces fill: N for NxN, or sizes like 3x5 or 4x4x4.", show_default=False
    ),
]
QuOption = Annotated[bool, typer.Option("--qu", "--q-is-qu", help="Read a lone Q as the QU face.")]
AdjacencyOption = Annotated[
    str, typer.Option("--adjacency", help="Which cells touch: king (8 neighbours in 2-D) or orthogonal (4).")
]


DiceNameOption = Annotated[
    Optional[str],
    typer.Option(
        "--dice",
        help="Take the rules of this dice set (fr, en-classic, en, big, or a dice file): its scoring, its minimum length and, without -d, its dictionary.",
        show_default=False,
    ),
]


@app.command()
def solve(
    grid: Annotated[Optional[str], typer.Argument(help=GRID_HELP, show_default=False)] = None,
    dictionary: DictOption = None,
    shape: ShapeOption = None,
    q_is_qu: QuOption = False,
    dice: DiceNameOption = None,
    min_length: Annotated[
        Optional[int],
        typer.Option("--min-length", "-m", help="Shortest word, in letters (default: the scoring's, 3 for classic).", show_default=False),
    ] = None,
    scoring: Annotated[
        Optional[str],
        typer.Option("--scoring", help="Score table: classic, big (minimum 4 letters) or letters (default: the dice set's, else classic).", show_default=False),
    ] = None,
    adjacency: AdjacencyOption = "king",
    scores: Annotated[bool, typer.Option("--scores", help="Print score<TAB>word.")] = False,
    paths: Annotated[bool, typer.Option("--paths", help="Add one path per word, as (row,col) coordinates.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print words, scores, paths and totals as JSON.")] = False,
    show_totals: Annotated[bool, typer.Option("--totals", help="End with the totals (words, points) on standard output.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the totals on standard error.")] = False,
    summary: Annotated[
        bool, typer.Option("--summary", help="One line per grid: GRID<TAB>words<TAB>points, without the words (for scoring many grids).")
    ] = False,
    batch: Annotated[
        Optional[str],
        typer.Option("--batch", help="Solve a file of grids, one a line ('-': standard input).", show_default=False),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Spread a --batch over this many threads (compiled kernel) or processes.")] = 1,
    timeout: TimeoutOption = None,
    dask: Annotated[
        Optional[str],
        typer.Option("--dask", help="Solve a --batch on the Dask cluster whose scheduler is at this address (needs the [dask] extra).", show_default=False),
    ] = None,
) -> None:
    """Print every dictionary word that can be traced on GRID, best first.

    Words run through adjacent cells (8 neighbours in 2-D, 26 in 3-D), each cell once, 3 letters or more by default; sorted by score, then length, then alphabetically. The totals go to standard error (--totals: at the end of standard output).

    GRID: IDXTMHEIERVNTLLU is a square read row by row (a run whose length is not a square, like SALUT, is one row). IDXT/MHEI/ERVN/TLLU gives the rows of any rectangle (S/A/L/U/T is a column). Faces separated by spaces are how multi-letter faces are written (QU E/S T). // separates the layers of a 3-D grid (AB/CD//EF/GH), or --shape 4x4x4 fills a flat run. Case and accents do not matter.

    '-' or no GRID: the grid is read from standard input, faces separated by spaces or newlines (-s 4 for 4x4).
    """
    from ..resolve import dictionary_spec_for
    from ..results import Rendering, SolveOptions, run_batch, run_solve

    options = SolveOptions.from_arguments(min_length, scoring, adjacency, shape, q_is_qu, dice)
    if summary and (scores or paths or json_output):
        from ..errors import BoggleError

        raise BoggleError("--summary prints totals only: not with --scores, --paths or --json")
    rendering = Rendering(scores=scores, paths=paths, json=json_output, summary=summary)
    spec = dictionary_spec_for(dictionary, options.language)
    if dask and batch is None:
        from ..errors import BoggleError

        raise BoggleError("--dask solves a --batch on a cluster: give --batch FILE")
    with time_limit(timeout, "solve"):
        if batch is not None:
            run_batch(batch, grid, spec, options, rendering, jobs=jobs, show_totals=show_totals, quiet=quiet, dask=dask)
        else:
            words = load_dictionary(spec, announce=False)  # the totals line names it
            run_solve(grid, words, options, rendering, jobs=jobs, show_totals=show_totals, quiet=quiet, dictionary_note=IMPLICIT_DICTIONARY[0] if IMPLICIT_DICTIONARY else None)


@app.command()
def find(
    grid: Annotated[str, typer.Argument(help="The grid, as for `solve` ('-': standard input).")],
    word: Annotated[str, typer.Argument(help="The word to trace.")],
    dictionary: DictOption = None,
    shape: ShapeOption = None,
    q_is_qu: QuOption = False,
    adjacency: AdjacencyOption = "king",
    json_output: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
    timeout: TimeoutOption = None,
) -> None:
    """Say whether WORD can be traced on GRID, with one path, and whether it is a word.

    Exit status 0 if WORD can be traced, 1 if not (2 for bad input).
    """
    from ..results import SolveOptions, run_find

    options = SolveOptions.from_arguments(None, None, adjacency, shape, q_is_qu)
    with time_limit(timeout, "find"):
        found = run_find(grid, word, load_dictionary(dictionary), options, json_output=json_output)
    if not found:
        raise typer.Exit(1)
