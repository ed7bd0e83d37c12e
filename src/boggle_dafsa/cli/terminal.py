"""Whether a stream is a terminal: the one test behind every bar, prompt and hint of the command line.

A module of its own, importing nothing, so that any command can ask without importing the
progress bars (and so rich).
"""

from __future__ import annotations

from typing import TextIO


def is_terminal(stream: TextIO | None) -> bool:
    """True if ``stream`` is a terminal (False for pipes, files, closed, replaced or missing streams)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False
