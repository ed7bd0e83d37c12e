"""What every command shares: opening the dictionary, printing JSON, and user errors as one line."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

import typer
from typer.core import TyperGroup

from ..errors import BoggleError

if TYPE_CHECKING:
    from ..dictionary import Dictionary
    from .compat import Context as ClickContext

PROGRAM = "boggle-dafsa"

def fail(message: str, exit_code: int = 2) -> NoReturn:
    """Print ``message`` as one line on stderr and exit with ``exit_code``."""
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    raise typer.Exit(exit_code)


def print_json(value: object) -> None:
    """Print ``value`` as indented JSON (json is imported here: most runs never need it)."""
    from ..jsonable import dumps

    typer.echo(dumps(value, indent=2))


#: How to name the dictionary that answered when no -d chose it ("build/dictionary.dafsa,
#: 5 words"), for the totals line; None when it was given explicitly.
IMPLICIT_DICTIONARY: list[str] = []


def load_dictionary(spec: str | None, *, announce: bool = True) -> Dictionary:
    """Open the dictionary a command was given (see :func:`boggle_dafsa.open_dictionary`).

    When no -d chose it and it is not the embedded default (a ``build/dictionary.dafsa``
    found in the folder, or ``$BOGGLE_DAFSA_DICT``), one line on stderr says which one
    answered, unless ``announce`` is False (commands with a totals line say it there).
    """
    from ..resolve import DEFAULT_EMBEDDED, describe, open_dictionary, resolve_spec

    chosen, implicit = resolve_spec(spec)
    dictionary = open_dictionary(chosen)
    if implicit:
        IMPLICIT_DICTIONARY[:] = [describe(dictionary, chosen)]
        if announce and chosen != DEFAULT_EMBEDDED:
            print(f"{PROGRAM}: dictionary {IMPLICIT_DICTIONARY[0]} (no -d given)", file=sys.stderr)
    return dictionary


def with_dictionary(totals: str) -> str:
    """``totals`` followed by the dictionary that answered, when no -d chose it."""
    return f"{totals} ({IMPLICIT_DICTIONARY[0]})" if IMPLICIT_DICTIONARY else totals


def check_stray_dictionaries(arguments: list[str], verb: str) -> None:
    """Refuse an argument that names a dictionary or word list file: it belongs after -d."""
    from ..resolve import looks_like_dictionary

    for argument in arguments:
        if looks_like_dictionary(argument):
            fail(f"{verb}: {argument!r} is a file that looks like a dictionary: to use it, write -d {argument}")


#: The option that sets each library parameter: library messages name parameters as `name`.
OPTIONS = {
    "count": "--count",
    "max_attempts": "--max-attempts",
    "max_states": "--max-states",
    "min_length": "--min-length",
    "min_score": "--min-score",
    "min_words": "--min-words",
    "seconds": "--time",
}


def user_message(error: BoggleError) -> str:
    """The message of ``error`` with each `parameter` it names written as its option."""
    import re

    return re.sub(r"`(\w+)`", lambda match: OPTIONS.get(match[1], match[0]), str(error))


class UserErrorGroup(TyperGroup):
    """A command group that turns :class:`BoggleError` into one line on stderr and its exit code.

    Done here, around every subcommand, so that the commands stay free of try/except and
    typer's test runner sees the same behaviour as the installed script.
    """

    def invoke(self, ctx: ClickContext) -> object:
        try:
            return super().invoke(ctx)
        except BoggleError as error:
            print(f"{PROGRAM}: {user_message(error)}", file=sys.stderr)
            raise typer.Exit(error.exit_code) from None
        except BrokenPipeError:
            # `dump | head` closes the pipe early: not an error. Point stdout at /dev/null
            # so that the interpreter's final flush does not complain either.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0) from None
        except KeyboardInterrupt:
            print(f"{PROGRAM}: interrupted", file=sys.stderr)
            raise typer.Exit(130) from None
