"""``boggle-dafsa best``: search for the richest grid (a thin layer over :mod:`boggle_dafsa.search.best`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import dice_argument, print_json
from boggle_dafsa.cli.options import (
    AdjacencyOption,
    DaskOption,
    JsonOption,
    MinLengthOption,
    RulesDictOption,
    ScoringOption,
    SeedOption,
)
from boggle_dafsa.cli.progress import SearchBar
from boggle_dafsa.cli.terminal import is_terminal
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.search.best import RunResult


@app.command()
def best(
    dictionary: RulesDictOption = None,
    shape: Annotated[
        Optional[str],
        typer.Option(
            "--shape",
            "-s",
            help="Shape of the grids: N for NxN, or sizes like 3x4 or 4x4x4 (default: the dice set's, else 4x4).",
            show_default=False,
        ),
    ] = None,
    dice: Annotated[
        Optional[str],
        typer.Option(
            "--dice",
            help="Search only grids this dice set can roll (fr, en-classic, en, big, super-big, or a dice file, - for standard input); its scoring and, without -d, its dictionary.",
            show_default=False,
        ),
    ] = None,
    exclude_letters: Annotated[
        str, typer.Option("--exclude-letters", help="Letters never used on free-letter grids, e.g. QXZ.")
    ] = "",
    scoring: ScoringOption = None,
    min_length: MinLengthOption = None,
    adjacency: AdjacencyOption = "king",
    objective: Annotated[str, typer.Option("--objective", help="What to maximize: points or words.")] = "points",
    method: Annotated[
        str, typer.Option("--method", help="hillclimb (a pool hill climb) or anneal (simulated annealing).")
    ] = "hillclimb",
    pool: Annotated[
        Optional[int],
        typer.Option("--pool", help="Boards the hill climb keeps (default: by shape, see docs/best.md).", show_default=False),
    ] = None,
    all_letters: Annotated[
        bool,
        typer.Option(
            "--all-letters",
            help="Climb with every letter from the start (default: the letters of at least 8% of the words first, then all).",
        ),
    ] = False,
    steps: Annotated[int, typer.Option("--steps", help="Moves of one annealing run.")] = 200_000,
    stall: Annotated[
        int, typer.Option("--stall", help="Annealing restarts from its best board after this many moves without a better one.")
    ] = 20_000,
    runs: Annotated[
        Optional[int],
        typer.Option(
            "--runs", "-n", help="Independent runs; the best boards of all are kept (default: by shape).", show_default=False
        ),
    ] = None,
    seed: SeedOption = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes running the runs on this machine.")] = 1,
    dask: DaskOption = None,
    log: Annotated[
        Optional[str], typer.Option("--log", help="Append each finished run to this ndjson file.", show_default=False)
    ] = None,
    resume: Annotated[
        Optional[str],
        typer.Option(
            "--resume",
            help="Skip the runs of this search already in this log, once its lines pass their digests and its boards are scored again (and append to it).",
            show_default=False,
        ),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="How many of the best boards to show.")] = 5,
    json_output: JsonOption = False,
) -> None:
    """Search for the grid with the most points (or words): free letters, or what a dice set can roll.

    Runs are independent pool hill climbs (or annealings), each seeded from --seed and its number alone, so the result is the same on any machine and any number of processes or Dask workers. Progress shows on a terminal only. Prints the best boards with their score, words and the command that solves them.
    """
    from boggle_dafsa.board.dice import load_dice, random_seed
    from boggle_dafsa.board.grid import parse_shape
    from boggle_dafsa.dictionaries.resolve import dictionary_spec_for
    from boggle_dafsa.search.best import default_pool, default_runs, make_spec, open_log, read_log, search

    dice_set = load_dice(dice_argument(dice)) if dice else None
    grid_shape = parse_shape(shape) if shape else (tuple(dice_set.shape) if dice_set else (4, 4))
    if top < 1:
        raise BoggleError(f"--top must be at least 1, not {top}")
    spec = make_spec(
        dictionary_spec_for(dictionary, dice_set.language if dice_set else None),
        grid_shape,
        dice=dice_set,
        exclude_letters=exclude_letters,
        scoring=scoring,
        min_length=min_length,
        adjacency=adjacency,
        objective=objective,
        method=method,
        pool=default_pool(grid_shape) if pool is None else pool,
        steps=steps,
        stall=stall,
        common_first=not all_letters,
    )
    chosen_seed = random_seed() if seed is None else seed
    if seed is None:
        typer.echo(f"seed: {chosen_seed}", err=True)
    total_runs = default_runs(grid_shape, spec.defer_swaps) if runs is None else runs
    done = read_log(resume, spec, chosen_seed) if resume else {}
    log_path = log or resume
    log_stream = open_log(log_path, spec, chosen_seed) if log_path else None
    progress = SearchBar(total_runs, len([run for run in done if run < total_runs])) if is_terminal(sys.stderr) else None
    key = spec.key()

    def finished(run: RunResult) -> None:
        if log_stream is not None:
            log_stream.write(run.to_json(key))  # sealed: see search/logs.py
        if progress is not None:
            progress.update(run)

    try:
        if progress is not None:
            progress.start()
        result = search(
            spec,
            seed=chosen_seed,
            runs=total_runs,
            jobs=jobs,
            dask=dask,
            done=done,
            on_result=finished,
            on_progress=progress.during if progress is not None else None,
        )
    finally:
        if progress is not None:
            progress.stop()
        if log_stream is not None:
            log_stream.close()
    if json_output:
        from boggle_dafsa.output.jsonable import search_json

        print_json(search_json(result, top))
    else:
        from boggle_dafsa.output.render import render_search

        typer.echo(render_search(result, top))
