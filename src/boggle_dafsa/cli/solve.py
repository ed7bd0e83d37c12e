"""The solve command: every word on a grid, or on each grid of a batch.

The front ends read grids from arguments, standard input or a batch file and write
what :mod:`boggle_dafsa.output.render` and :mod:`boggle_dafsa.output.jsonable` make of the results.
"""

# No `from __future__ import annotations` here: typer reads the commands' annotations
# with typing.get_type_hints, which compiles every string annotation again, several times
# per command, at each start (milliseconds of `solve`'s start-up budget). Names imported
# for type checking only are quoted instead.
import sys
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import (
    dice_argument,
    implicit_dictionary,
    load_dictionary,
    one_standard_input,
    open_with_progress,
    read_grid,
    time_limit,
)
from boggle_dafsa.cli.options import (
    GRID_HELP,
    AdjacencyOption,
    BonusOption,
    DaskOption,
    MinLengthOption,
    QuOption,
    RulesDiceOption,
    RulesDictOption,
    ScoringOption,
    ShapeOption,
    TimeoutOption,
)
from boggle_dafsa.cli.terminal import is_terminal
from boggle_dafsa.errors import BoggleError, GridError

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.output.render import Rendering
    from boggle_dafsa.solver.batch import SolveOptions


@app.command()
def solve(
    grid: Annotated[Optional[str], typer.Argument(help=GRID_HELP, show_default=False)] = None,
    dictionary: RulesDictOption = None,
    shape: ShapeOption = None,
    q_is_qu: QuOption = False,
    dice: RulesDiceOption = None,
    min_length: MinLengthOption = None,
    scoring: ScoringOption = None,
    adjacency: AdjacencyOption = "king",
    scores: Annotated[bool, typer.Option("--scores", help="Print score<TAB>word.")] = False,
    paths: Annotated[bool, typer.Option("--paths", help="Add one path per word, as (row,col) coordinates.")] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON, on one line (--pretty: indented).")
    ] = False,
    pretty: Annotated[bool, typer.Option("--pretty", help="Indent the JSON for reading (implies --json).")] = False,
    show_totals: Annotated[
        bool, typer.Option("--totals", help="End with the totals (words, points) on standard output.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the totals on standard error.")] = False,
    summary: Annotated[
        bool,
        typer.Option(
            "--summary", help="One line per grid: GRID<TAB>words<TAB>points, without the words (for scoring many grids)."
        ),
    ] = False,
    batch: Annotated[
        Optional[str],
        typer.Option("--batch", help="Solve a file of grids, one a line ('-': standard input).", show_default=False),
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Spread a --batch over this many threads (compiled kernel) or processes.")
    ] = 1,
    timeout: TimeoutOption = None,
    dask: DaskOption = None,
    clean: Annotated[
        bool,
        typer.Option(
            "--clean/--no-clean",
            help="Leave out the words of the family-friendly blocklist, as a clean game does (default: off; one grid only).",
        ),
    ] = False,
    bonus: BonusOption = None,
) -> None:
    """Print every dictionary word that can be traced on GRID, best first.

    Words run through adjacent cells (8 neighbours in 2-D, 26 in 3-D), each cell once, 3 letters or more by default; sorted by score, then length, then alphabetically. The totals go to standard error (--totals: at the end of standard output).

    GRID: IDXTMHEIERVNTLLU is a square read row by row (a run whose length is not a square, like SALUT, is one row). IDXT/MHEI/ERVN/TLLU gives the rows of any rectangle (S/A/L/U/T is a column). Faces separated by spaces are how multi-letter faces are written (QU E/S T). // separates the layers of a 3-D grid (AB/CD//EF/GH), or --shape 4x4x4 fills a flat run. Case and accents do not matter.

    '-' or no GRID: the grid is read from standard input, faces separated by spaces or newlines (-s 4 for 4x4).
    """
    from boggle_dafsa.dictionaries.resolve import dictionary_spec_for
    from boggle_dafsa.output.render import Rendering
    from boggle_dafsa.solver.batch import SolveOptions

    one_standard_input(**{"the grid": batch is None and grid in (None, "-"), "--batch": batch == "-", "--dice": dice == "-"})
    options = SolveOptions.from_arguments(min_length, scoring, adjacency, shape, q_is_qu, dice_argument(dice))
    if pretty and batch is not None:
        raise BoggleError("--pretty indents one grid's JSON: a --batch prints one JSON object a line")
    json_output = json_output or pretty
    if summary and (scores or paths or json_output):
        raise BoggleError("--summary prints totals only: not with --scores, --paths or --json")
    rendering = Rendering(scores=scores, paths=paths, json=json_output, summary=summary)
    spec = dictionary_spec_for(dictionary, options.language)
    if dask and batch is None:
        raise BoggleError("--dask solves a --batch on a cluster: give --batch FILE")
    blocked: frozenset[str] = frozenset()
    if clean:
        from boggle_dafsa.dictionaries.resolve import embedded_name, resolve_spec
        from boggle_dafsa.game.clean import blocked_words

        if batch is not None:
            raise BoggleError("--clean filters one grid's words: not with --batch")
        blocked = blocked_words(embedded_name(resolve_spec(spec)[0]), options.language)
    if bonus is not None and (batch is not None or summary):
        raise BoggleError("--bonus lists one grid's bonus words: not with --batch or --summary")
    with time_limit(timeout, "solve"):
        if batch is not None:
            run_batch(batch, grid, spec, options, rendering, jobs=jobs, show_totals=show_totals, quiet=quiet, dask=dask)
        else:
            words = load_dictionary(spec, announce=False)  # the totals line names it
            full = None
            if bonus is not None:
                from boggle_dafsa.game.bonus import check_bonus_policy

                full = load_dictionary(bonus, announce=False)
                check_bonus_policy(words, full)
            run_solve(
                grid,
                words,
                options,
                rendering,
                jobs=jobs,
                show_totals=show_totals,
                quiet=quiet,
                pretty=pretty,
                blocked=blocked,
                bonus=None if full is None else (bonus or "", full),
            )


# -- the front ends ----------------------------------------------------------------------


def run_solve(
    grid_text: str | None,
    dictionary: "Dictionary",
    options: "SolveOptions",
    rendering: "Rendering",
    *,
    jobs: int = 1,
    show_totals: bool = False,
    quiet: bool = False,
    pretty: bool = False,
    blocked: frozenset[str] = frozenset(),
    bonus: "tuple[str, Dictionary] | None" = None,
) -> None:
    """``boggle-dafsa solve GRID``: print the words of one grid, totals on stderr or at the end.

    JSON is one line (what programs read, and a page of a terminal for 70 words) unless
    ``pretty``: indented by two spaces. ``blocked``: words left out (``--clean``).
    ``bonus``: (its name, the full list) whose other words are listed apart, after the
    words and their totals, worth 0 points (``--bonus``)."""
    if jobs != 1:
        raise BoggleError("--jobs spreads a --batch over processes: give --batch FILE")
    from boggle_dafsa.output.render import format_totals, render_lines, solve_totals
    from boggle_dafsa.output.rows import summary_line
    from boggle_dafsa.solver import totals

    grid = read_grid(grid_text, dictionary, options)
    out = sys.stdout
    if rendering.summary and not blocked:
        from boggle_dafsa.solver import score_only

        count, points = score_only(
            grid, dictionary, min_length=options.min_length, scoring=options.scoring, adjacency=options.adjacency
        )
        out.write(summary_line(str(grid), count, points) + "\n")
        out.flush()
        return
    hits = [hit for hit in options.solve(grid, dictionary) if hit.word not in blocked]
    count, points = totals(hits)
    if rendering.summary:
        out.write(summary_line(str(grid), count, points) + "\n")
        out.flush()
        return
    extra = []
    if bonus is not None:
        from boggle_dafsa.game.bonus import bonus_hits

        extra = bonus_hits(options.solve(grid, bonus[1]), dictionary, blocked)
    if rendering.json:
        from boggle_dafsa.output.jsonable import bonus_json, dumps, result_json

        layout: dict[str, object] = {"indent": 2} if pretty else {"separators": (",", ":")}
        result = result_json(grid, hits)
        if bonus is not None:
            result["bonus"] = bonus_json(grid, bonus[0], extra)
        out.write(dumps(result, **layout) + "\n")
    else:
        for line in render_lines(grid, hits, rendering):
            out.write(line + "\n")
        if show_totals:
            out.write(format_totals(count, points) + "\n")
        if bonus is not None:
            from boggle_dafsa.output.render import bonus_heading

            # After the words and their totals: a program reading the words stops at the blank line.
            out.write("\n" + bonus_heading(bonus[0], len(extra)) + "\n")
            for line in render_lines(grid, extra, rendering):
                out.write(line + "\n")
    out.flush()
    if not quiet and not show_totals and not rendering.json:
        print(solve_totals(count, points, implicit_dictionary(), None if bonus is None else len(extra)), file=sys.stderr)


def run_batch(
    batch: str,
    grid_text: str | None,
    dictionary_spec: str | None,
    options: "SolveOptions",
    rendering: "Rendering",
    *,
    jobs: int = 1,
    show_totals: bool = False,
    quiet: bool = False,
    dask: str | None = None,
) -> None:
    """``boggle-dafsa solve --batch FILE``: a block (or JSON line) per grid, streamed."""
    from boggle_dafsa.output.render import batch_totals
    from boggle_dafsa.solver.batch import MAX_JOBS, batch_lines, solve_batch

    if grid_text is not None:
        raise BoggleError("give a GRID or --batch FILE, not both")
    if not 1 <= jobs <= MAX_JOBS:
        # The command-line front end: the option is named.
        raise BoggleError(f"--jobs must be between 1 and {MAX_JOBS}, not {jobs}")
    dictionary = open_with_progress(dictionary_spec)
    grids = count = points = 0
    source = batch if batch != "-" else "standard input"
    lines = batch_lines(_batch_stream(batch))
    results = solve_batch(
        lines,
        dictionary,
        options,
        rendering,
        jobs=jobs,
        dictionary_spec=dictionary_spec,
        source=source,
        dask=dask,
        # Standard input typed at a terminal is answered grid by grid; files and pipes by chunks.
        chunk=1 if batch == "-" and is_terminal(sys.stdin) else 256,
        grouped=True,
    )
    with _batch_progress() as update:
        # A file's grids are counted up front (a pass over lines already in memory) when a bar is drawn.
        total = lines.count() if update is not None else None
        for result in results:
            sys.stdout.write(result.text + "\n")
            grids += result.grids
            count += result.words
            points += result.points
            if update is not None:
                update(grids, total, status=f"{count:,} words · {points:,} points")
    sys.stdout.flush()
    if not quiet:
        print(batch_totals(grids, count, points), file=sys.stdout if show_totals and not rendering.json else sys.stderr)


def _batch_progress() -> "AbstractContextManager[Callable[..., None] | None]":
    """A progress bar for a batch, when standard error is a terminal and standard output is
    not (results typed to the terminal show the progress themselves; a bar would be drawn
    across them), and only for a batch that runs a quarter of a second or more."""
    if is_terminal(sys.stdout) or not is_terminal(sys.stderr):
        return nullcontext(None)  # nothing more to import
    from boggle_dafsa.cli.progress import bar_when_slow

    return bar_when_slow("solving")


def _batch_stream(batch: str) -> Iterable[str]:
    """The lines of batch file ``batch``, decoded as word lists are (UTF-8, else ISO-8859-15).

    A file is read whole here, so that its errors come before any result and its encoding
    is decided once. Standard input (``-``) is streamed, so that grids are solved as they
    come, and decoded line by line.
    """
    from boggle_dafsa.words.decoding import decode

    if batch == "-":
        return _standard_input_lines()
    from boggle_dafsa.files.limits import MAX_BATCH_BYTES, read_limited

    data = read_limited(batch, MAX_BATCH_BYTES, GridError, "batch file", stop_at_nul=True)
    nul = data.find(b"\0")
    if nul >= 0:
        # Checked here, so that the message speaks of grids rather than of a word list.
        line = data.count(b"\n", 0, nul) + 1
        raise GridError(f"{batch} line {line}: binary file (NUL byte), not a file of grids")
    return decode(data, batch)[0].splitlines()


def _standard_input_lines() -> Iterator[str]:
    from boggle_dafsa.words.decoding import decode

    binary = getattr(sys.stdin, "buffer", None)
    if binary is None:  # a text stream in place of standard input (embedding, tests)
        yield from sys.stdin
        return
    from boggle_dafsa.board.grid import MAX_GRID_CHARS
    from boggle_dafsa.files.limits import read_line

    # A line is a grid: at most MAX_GRID_CHARS characters of up to 4 bytes each.
    while raw := read_line(binary, 4 * MAX_GRID_CHARS + 2, GridError, "standard input"):
        # Without its line break, as a file's lines are (the summary path takes a chunk of
        # bare lines as letters at once). ISO-8859-15 decodes any byte: a bad byte becomes a
        # bad grid, reported at its line.
        raw = raw.rstrip(b"\r\n")
        yield raw.decode("iso-8859-15") if b"\0" in raw else decode(raw, "standard input")[0]
