"""Progress bars for long operations, drawn on standard error when it is a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

#: What the library calls: (done, in all).
Progress = Callable[[int, int], None]


@contextmanager
def progress_bar(description: str, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """A progress callback drawing a bar on ``stream`` (default stderr), or None when it is not
    a terminal: pipes, files and CI logs get no bar and pay nothing (rich is not even imported).

    The bar is erased when the operation ends, so what the command prints next stays tidy.
    """
    stream = sys.stderr if stream is None else stream
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if not interactive:
        yield None
        return
    # rich comes with typer; imported here only, once a bar is wanted.
    from rich.console import Console
    from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as RichProgress

    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with RichProgress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
