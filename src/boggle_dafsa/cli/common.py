"""What every command shares: opening the dictionary, printing JSON, and user errors as one line."""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, overload

import typer
from typer.core import TyperGroup

from boggle_dafsa.cli.terminal import is_terminal
from boggle_dafsa.errors import BoggleError, GridError

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.cli.compat import Context as ClickContext
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.solver.batch import SolveOptions

PROGRAM = "boggle-dafsa"


def fail(message: str, exit_code: int = 2) -> NoReturn:
    """Print ``message`` as one line on stderr and exit with ``exit_code``."""
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    raise typer.Exit(exit_code)


@contextmanager
def time_limit(seconds: float | None, what: str) -> Iterator[None]:
    """Raise :class:`BoggleError` in the main thread once ``seconds`` have passed (None: no limit).

    A SIGALRM timer: Python runs its handler between bytecodes, which stops any Python
    code at once. The solver kernels also get the deadline (``solver.time_limit``): the
    compiled one runs without the GIL, out of the handler's reach, and looks at the clock
    itself.
    """
    if seconds is None:
        yield
        return
    if not seconds > 0:
        raise BoggleError(f"--timeout must be a positive number of seconds, not {seconds}")

    from boggle_dafsa.solver import python as native
    from boggle_dafsa.solver import time_limit as search_limit

    message = f"{what}: gave up after the time limit of {seconds:g} s (--timeout)"

    def expire(signum: int, frame: object) -> None:
        raise BoggleError(message)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with search_limit(seconds):
            yield
    except TimeoutError as error:
        if str(error) != native.TIMEOUT_MESSAGE:
            raise
        raise BoggleError(message) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def shortened(message: str, most: int = 400) -> str:
    """``message`` cut in its middle to at most about ``most`` characters: errors quote
    the user's input, which may be a 600 kB line."""
    if len(message) <= most:
        return message
    return f"{message[: most - 150]} [...] {message[-140:]}"


def one_standard_input(**readers: bool) -> None:
    """Refuse a command line where several inputs read standard input (``-``): it can be read once.

    ``readers`` maps each input's name (as the user wrote it) to whether it reads standard input.
    """
    takers = [name for name, reads in readers.items() if reads]
    if len(takers) > 1:
        both = "both" if len(takers) == 2 else "all"
        raise BoggleError(f"{', '.join(takers[:-1])} and {takers[-1]} {both} read standard input ('-'): it can be read once")


@overload
def dice_argument(name: str) -> DiceSet | str: ...
@overload
def dice_argument(name: None) -> None: ...
def dice_argument(name: str | None) -> DiceSet | str | None:
    """A ``--dice`` value as the library takes it: for ``-``, the dice file on standard input, read here."""
    if name != "-":
        return name
    from boggle_dafsa.board.dice import read_dice

    if is_terminal(sys.stdin):
        print("reading the dice file from standard input (end with Ctrl-D)", file=sys.stderr)
    return read_dice(sys.stdin.buffer)


def print_json(value: object) -> None:
    """Print ``value`` as indented JSON (json is imported here: most runs never need it)."""
    from boggle_dafsa.output.jsonable import dumps

    typer.echo(dumps(value, indent=2))


def emit_results(
    results: Iterable[Any], line: Any, as_json: bool, count: bool, json_item: Any = None, none_fails: bool = True
) -> None:
    """Print a listing's ``results``: lines (``line(result)``), their count, or a JSON array
    (of ``json_item(result)``); exit 1 if there were none (unless not ``none_fails``)."""
    found = 0
    if count:
        found = sum(1 for _ in results)
        typer.echo(str(found))
    elif as_json:
        # A JSON list written an item at a time, as print_json would indent it: the
        # results stream, in bounded memory, whatever their number.
        from boggle_dafsa.output.jsonable import dumps

        out = sys.stdout
        for result in results:
            item = dumps(json_item(result) if json_item else result, indent=2).replace("\n", "\n  ")
            out.write(("[\n  " if not found else ",\n  ") + item)
            found += 1
        out.write("\n]\n" if found else "[]\n")
        out.flush()
    else:
        out = sys.stdout
        for result in results:
            out.write(line(result) + "\n")
            found += 1
        out.flush()
    if not found and none_fails:
        raise typer.Exit(1)


#: How to name the dictionary that answered when no -d chose it ("build/dictionary.dafsa,
#: 5 words"), for the totals line; None when it was given explicitly.
IMPLICIT_DICTIONARY: list[str] = []


def load_dictionary(spec: str | None, *, announce: bool = True) -> Dictionary:
    """Open the dictionary a command was given (see :func:`boggle_dafsa.open_dictionary`).

    When no -d chose it and it is a ``build/dictionary.dafsa`` found in the folder (the
    choice nobody sees coming), one line on stderr says which one answered, unless
    ``announce`` is False (commands with a totals line say it there, for any implicit choice).
    """
    from boggle_dafsa.dictionaries.resolve import DEFAULT_BUILD, describe, resolve_spec

    chosen, implicit = resolve_spec(spec)
    dictionary = open_with_progress(chosen)
    if implicit:
        IMPLICIT_DICTIONARY[:] = [describe(dictionary, chosen)]
        if announce and chosen == str(DEFAULT_BUILD):
            print(f"{PROGRAM}: dictionary {IMPLICIT_DICTIONARY[0]} (no -d given)", file=sys.stderr)
    return dictionary


def open_with_progress(spec: str | None) -> Dictionary:
    """:func:`boggle_dafsa.open_dictionary`, with a progress bar on a terminal while a word
    list is compiled into the cache on its first use (about a second per 300,000 words)."""
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    if not is_terminal(sys.stderr):
        return open_dictionary(spec)  # the usual case: nothing more to import
    from boggle_dafsa.cli.progress import bar_when_slow

    with bar_when_slow("compiling") as update:
        return open_dictionary(spec, progress=update)


def read_grid(text: str | None, dictionary: Dictionary, options: SolveOptions) -> Grid:
    """The grid of a command: ``text`` in the GRID syntax, or standard input for None or ``-``."""
    if text is not None and text != "-":
        return options.parse(text, dictionary)
    from boggle_dafsa.files.limits import MAX_SMALL_FILE_BYTES, read_limited
    from boggle_dafsa.words.decoding import decode

    if is_terminal(sys.stdin):
        print("reading the grid from standard input (end with Ctrl-D)", file=sys.stderr)
    # Bytes decoded like every other input (UTF-8, else ISO-8859-15), whatever the locale says.
    data = read_limited(sys.stdin.buffer, MAX_SMALL_FILE_BYTES, GridError, "grid", stop_at_nul=True)
    if b"\0" in data:
        raise GridError("standard input: binary data (NUL byte), not a grid")
    text, _ = decode(data, "standard input")
    return options.parse(text, dictionary, worddle=True)


def implicit_dictionary() -> str | None:
    """The dictionary that answered, for the totals line, when no -d chose it; else None."""
    return IMPLICIT_DICTIONARY[0] if IMPLICIT_DICTIONARY else None


def check_stray_dictionaries(arguments: list[str], verb: str) -> None:
    """Refuse an argument that names a dictionary or word list file: it belongs after -d."""
    from boggle_dafsa.dictionaries.resolve import looks_like_dictionary

    for argument in arguments:
        if looks_like_dictionary(argument):
            fail(f"{verb}: {argument!r} is a file that looks like a dictionary: to use it, write -d {argument}")


#: The option that sets each library parameter: library messages name parameters as `name`.
OPTIONS = {
    "assume_sorted": "--sorted",
    "count": "--count",
    "dask": "--dask",
    "encoding": "--encoding",
    "exclude_letters": "--exclude-letters",
    "folder": "--data",
    "format_version": "--format-version",
    "jobs": "--jobs",
    "log": "--log",
    "max_attempts": "--max-attempts",
    "max_states": "--max-states",
    "min_length": "--min-length",
    "min_score": "--min-score",
    "min_words": "--min-words",
    "minimum": "--min",
    "no_values": "--no-values",
    "policy": "--policy",
    "pool": "--pool",
    "q_is_qu": "--qu",
    "runs": "--runs",
    "sample": "--sample",
    "seconds": "--time",
    "stall": "--stall",
    "steps": "--steps",
    "values": "--values",
    "values_merge": "--values-merge",
}


def user_message(error: BoggleError | str) -> str:
    """The message of ``error`` (or a note) with each `parameter` it names written as its option."""
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
            print(f"{PROGRAM}: {shortened(user_message(error))}", file=sys.stderr)
            raise typer.Exit(error.exit_code) from None
        except BrokenPipeError:
            # `dump | head` closes the pipe early: not an error. Point stdout at /dev/null
            # so that the interpreter's final flush does not complain either.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(0) from None
        except KeyboardInterrupt:
            print(f"{PROGRAM}: interrupted", file=sys.stderr)
            raise typer.Exit(130) from None
        except MemoryError:
            # The input limits keep memory bounded, but a limit of the process (ulimit -v)
            # may be lower still: one line, not a traceback.
            print(f"{PROGRAM}: out of memory", file=sys.stderr)
            raise typer.Exit(2) from None


def lexicon(spec: str | None) -> str:
    """The dictionary ``spec`` names, as the study keys it (the quiz's cardbox, the
    expected-points tables): an embedded list by its name, a file by its absolute path."""
    from boggle_dafsa.dictionaries.resolve import embedded_name, resolve_spec

    chosen, _implicit = resolve_spec(spec)
    return embedded_name(chosen) or os.path.abspath(chosen)
