"""Errors the user can cause: each one becomes a one-line message and exit status 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class BoggleError(Exception):
    """Base of every error caused by the user's input (files, grids, options).

    The CLI prints ``boggle-dafsa: <message>`` and exits with :attr:`exit_code`;
    the message must say what is wrong and where (file, line) on one line.
    """

    exit_code = 2


class WordListError(BoggleError):
    """A word list cannot be read: missing, binary, undecodable, empty."""


class DictionaryError(BoggleError):
    """A dictionary file cannot be used: missing, not a dictionary, truncated, corrupted, too new."""


class GridError(BoggleError):
    """A grid cannot be parsed or does not fit the requested shape."""


class DiceError(BoggleError):
    """A dice set is unknown or malformed."""


class StorageError(BoggleError):
    """A write to the web server's database failed (a full disk, a read-only or failing file system): HTTP 503."""

    status = 503


def write_failure(error: BaseException) -> str:
    """The line a player reads when a write failed: ``could not save this (No space left on device)``."""
    detail = (error.strerror if isinstance(error, OSError) else None) or str(error) or type(error).__name__
    if isinstance(error, StorageError):
        return str(error)
    return "the server could not save this (" + " ".join(detail.split())[:200] + "): try again later"


@contextmanager
def opening(path: object, error: type[BoggleError], what: str) -> Iterator[None]:
    """Turn the OS errors of opening or reading the user's file ``path`` into one-line ``error``s.

    ``what`` names the expected kind of file in the message ("word list", "dictionary file", ...).
    """
    try:
        yield
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a {what}") from None
    except PermissionError:
        raise error(f"{path}: permission denied") from None
    except OSError as os_error:
        raise error(f"{path}: cannot read ({os_error.strerror or os_error})") from None


class QueryError(BoggleError):
    """A query cannot be run: a malformed pattern or regex (with its column), a bound exceeded."""


class NoValuesError(DictionaryError, TypeError):
    """``d[word]`` (or ``get``, ``items``, ``values``) on a dictionary that holds no values,
    only words: a ``TypeError`` too, as subscripting a set is."""
