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
