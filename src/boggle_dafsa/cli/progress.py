"""Every progress bar of the command line, drawn on standard error when it is a terminal: the
one module that imports rich's progress.

* :func:`progress_bar` and :func:`bar_when_slow`: a job's phase, the share done and a
  status (build, verify, the set algebra, a batch, compiling a word list into the cache);
* :class:`CountBar`: a job of units (runs, classes) with the time left, and its two uses,
  :class:`SearchBar` (``best``) and :class:`ProofBar` (``prove``), with the estimates of the
  time left they show (:func:`eta_seconds`, :class:`TimeLeft`).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, TextIO

from boggle_dafsa.cli.terminal import is_terminal

if TYPE_CHECKING:
    from boggle_dafsa.search.best import RunResult
    from boggle_dafsa.search.prove import ClassResult

#: What the library calls: (done, in all). The bar's own callback also takes, by keyword,
#: a new ``description`` (the phase) and a ``status`` shown after the bar; ``total`` may be
#: None when it is not known (the bar then pulses, with the time elapsed).
Progress = Callable[[int, int], None]


@contextmanager
def progress_bar(description: str, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """A progress callback drawing a bar on ``stream`` (default stderr), or None when it is not
    a terminal: pipes, files and CI logs get no bar and pay nothing (rich is not even imported).

    The bar is erased when the operation ends, so what the command prints next stays tidy.
    """
    stream = sys.stderr if stream is None else stream
    if not is_terminal(stream):
        yield None
        return
    # rich comes with typer; imported here only, once a bar is wanted.
    from rich.console import Console
    from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as RichProgress

    columns = (
        TextColumn("{task.description:<8}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[status]}"),
    )
    # redirect_stdout=False: rich would otherwise route the command's own output (the results
    # of a batch, going to a file or a pipe) through the bar's console, onto the terminal.
    with RichProgress(
        *columns, console=Console(file=stream), transient=True, redirect_stdout=False, redirect_stderr=False
    ) as bar:
        task = bar.add_task(description, total=None, status="")

        def update(done: int, total: int | None, *, description: str | None = None, status: str | None = None) -> None:
            fields: dict[str, str] = {}
            if description is not None:
                fields["description"] = description
            if status is not None:
                fields["status"] = status
            if total is None:
                # rich's update() reads total=None as "unchanged": a phase of unknown length
                # after one of known length (reading, then building) clears it itself.
                for shown in bar.tasks:
                    if shown.id == task:
                        shown.total = shown.finished_time = None  # finished_time would stop the clock
            bar.update(task, completed=done, total=total, **fields)  # type: ignore[arg-type]

        yield update


@contextmanager
def bar_when_slow(description: str, stream: TextIO | None = None, after: float = 0.25) -> Iterator[Progress | None]:
    """As :func:`progress_bar`, but the bar appears only at a report that comes ``after``
    seconds or more into the operation: for calls that are usually instant (opening a
    dictionary) and sometimes long (compiling a word list into the cache on its first
    use). A bar that would flash for a tenth of a second is not drawn."""
    stream = sys.stderr if stream is None else stream
    if not is_terminal(stream):
        yield None
        return
    with ExitStack() as stack:
        shown: list[Callable[..., None]] = []
        started = time.monotonic()

        def update(done: int, total: int | None, **fields: str) -> None:
            if not shown:
                if time.monotonic() - started < after:
                    return
                bar = stack.enter_context(progress_bar(description, stream))
                assert bar is not None  # stream is a terminal
                shown.append(bar)
            shown[0](done, total, **fields)

        yield update


class TimeLeft:
    """The time left of a job of ``total`` tasks (``done`` of them done before it started),
    from when each task finishes: the mean wall time a task has taken in this run, times the
    tasks left, counted down from the last task finished.

    It is honest only if the tasks finished are like those left: a proof hands it its classes
    in a seeded shuffled order (:func:`boggle_dafsa.search.prove.proof_order`). In the order
    the classes are numbered, the cheapest come last, and the time left was overstated (1.3
    times after 10% of an ENABLE2K 3x3 proof, 2.4 times at half: docs/proofs.md). Rich's own
    estimate, the speed of the last 30 s, follows the same order, and a 4x4 class may take
    longer than 30 s.
    """

    def __init__(self, total: int, done: int = 0, now: float | None = None) -> None:
        self.total = total
        self.done = done
        self.finished = 0
        self.started = time.monotonic() if now is None else now
        self.last = self.started

    def finish(self, now: float | None = None) -> None:
        """One task finished (at ``now``, time.monotonic()'s clock by default)."""
        self.finished += 1
        self.last = time.monotonic() if now is None else now

    def left(self, now: float | None = None) -> float | None:
        """Seconds left at ``now`` (None before the first task of this run finished)."""
        if self.finished == 0:
            return None
        now = time.monotonic() if now is None else now
        remaining = max(0, self.total - self.done - self.finished)
        per_task = (self.last - self.started) / self.finished
        return max(0.0, per_task * remaining - (now - self.last))


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


class CountBar:
    """The bar of a job of ``total`` units (a search's runs, a proof's classes), ``done`` of
    them done before it started, on standard error: the unit, the bar, done/total, the time
    elapsed, the time left when ``time_left`` gives it (seconds, or None while unknown),
    then a status. Draw it only on a terminal (``is_terminal(sys.stderr)``): rich is
    imported when one is made."""

    def __init__(self, unit: str, total: int, done: int = 0, time_left: Callable[[], float | None] | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress
        from rich.text import Text

        columns: list[ProgressColumn] = [TextColumn(unit), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
        if time_left is not None:
            left = time_left

            class TimeLeftColumn(ProgressColumn):
                # Counted down between units: rich's own, the speed of the last 30 s, jumps.
                def render(self, task: object) -> Text:
                    seconds = left()
                    if seconds is None:
                        return Text("-:--:--", style="progress.remaining")
                    minutes, second = divmod(int(seconds), 60)
                    hours, minute = divmod(minutes, 60)
                    return Text(f"{hours}:{minute:02d}:{second:02d}", style="progress.remaining")

            columns += [TextColumn("ETA"), TimeLeftColumn()]
        columns.append(TextColumn("{task.fields[status]}"))
        self._progress = RichProgress(*columns, console=Console(stderr=True), transient=True)
        self._task = self._progress.add_task(unit, total=total, completed=done, status="")

    @property
    def task(self) -> object:
        """rich's task (its ``completed`` and ``fields["status"]``: what the tests read)."""
        return self._progress.tasks[0]

    def start(self) -> None:
        self._progress.start()

    def stop(self) -> None:
        self._progress.stop()

    def advance(self, units: int, status: str) -> None:
        """``units`` more done (0: the status alone changes)."""
        self._progress.update(self._task, advance=units, status=status)


class SearchBar:
    """``best``'s bar: runs done, the best score so far, boards scored per second and the
    time left (:func:`eta_seconds`).

    Hears of runs under way (:meth:`during`, from any thread: processes and Dask workers
    report through one) and of runs finished (:meth:`update`).
    """

    def __init__(self, total: int, done: int) -> None:
        self.bar = CountBar("runs", total, done)
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
        self.bar.start()

    def stop(self) -> None:
        self.bar.stop()

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
        self.bar.advance(advance, f"best {self._best:,}  {rate:,.0f} boards/s  {eta}")


class ProofBar:
    """``prove``'s bar: classes done, boards found and the time left (:class:`TimeLeft`, from
    the classes of this run, proven in a shuffled order: an honest sample)."""

    def __init__(self, total: int, done: int) -> None:
        self._left = TimeLeft(total, done)
        self.bar = CountBar("classes", total, done, time_left=self._left.left)
        self._boards: set[str] = set()

    def start(self) -> None:
        self.bar.start()

    def stop(self) -> None:
        self.bar.stop()

    def update(self, result: ClassResult) -> None:
        self._left.finish()
        self._boards.update(text for text, _, _ in result.boards)
        self.bar.advance(1, f"{len(self._boards):,} boards")
