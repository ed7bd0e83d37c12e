"""Progress bars for long operations, drawn on standard error when it is a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TextIO

from boggle_dafsa.cli.terminal import is_terminal

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
