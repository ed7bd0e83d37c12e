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
from boggle_dafsa.cli.terminal import is_terminal

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
    from boggle_dafsa.errors import BoggleError
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
    progress = _Progress(total_runs, len([run for run in done if run < total_runs])) if is_terminal(sys.stderr) else None
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


def eta_seconds(to_do: int, finished: int, finished_boards: int, running_boards: int, rate: float) -> float | None:
    """Seconds left for ``to_do`` runs (this session's), of which ``finished`` are done after
    scoring ``finished_boards`` boards and those under way have scored ``running_boards``,
    at ``rate`` boards a second; None until a run has finished (a run stops when it stalls:
    how long one takes is known only from those done).

    Runs score about as many boards each, so the work left is the mean of the finished
    ones times the runs left, less what the runs under way have done already.
    """
    if finished >= to_do:
        return 0.0
    if finished == 0 or finished_boards <= 0 or rate <= 0:
        return None
    left = finished_boards / finished * (to_do - finished) - running_boards
    return max(left, 0.0) / rate


def format_eta(seconds: float | None) -> str:
    """``ETA 1:05`` (``ETA 1:02:05`` past an hour), ``ETA ?`` while unknown."""
    if seconds is None:
        return "ETA ?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"ETA {hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"ETA {rest // 60}:{rest % 60:02d}"


class _Progress:
    """Runs done, the best score so far, boards scored per second and the time left, on
    standard error (a terminal).

    Hears of runs under way (:meth:`during`, from any thread: processes and Dask workers
    report through one) and of runs finished (:meth:`update`).
    """

    def __init__(self, total: int, done: int) -> None:
        import threading
        import time

        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("runs"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("runs", total=total, completed=done, status="")
        self._to_do = total - done  # runs of this session: the rate is this session's
        self._done = 0
        self._best = 0
        self._scored = 0  # by the runs finished
        self._running: dict[int, int] = {}  # run under way -> boards it scored so far
        self._finished: set[int] = set()  # a report may come after its run's result
        self._lock = threading.Lock()
        self._clock = time.perf_counter
        self._started = self._clock()

    def start(self) -> None:
        self._progress.start()

    def stop(self) -> None:
        self._progress.stop()

    def during(self, run: int, scored: int, best: int) -> None:
        with self._lock:
            if run in self._finished:
                return
            self._best = max(self._best, best)
            self._running[run] = scored
            self._show(0)

    def update(self, run: RunResult) -> None:
        with self._lock:
            self._best = max(self._best, run.best[0].score if run.best else 0)
            self._scored += run.scored
            self._running.pop(run.run, None)
            self._finished.add(run.run)
            self._done += 1
            self._show(1)

    def _show(self, advance: int) -> None:
        # Boards per second of wall time since the start: all processes or workers together.
        running = sum(self._running.values())
        rate = (self._scored + running) / max(self._clock() - self._started, 1e-9)
        eta = format_eta(eta_seconds(self._to_do, self._done, self._scored, running, rate))
        self._progress.update(self._task, advance=advance, status=f"best {self._best:,}  {rate:,.0f} boards/s  {eta}")
