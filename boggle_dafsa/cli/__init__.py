"""The ``boggle-dafsa`` command: a thin typer layer over the library, one module per group of verbs."""

from __future__ import annotations

import errno
import os
import sys

import typer

from .common import UserErrorGroup

HELP = "Compile word lists into minimal automata (DAFSA) and solve, generate and play Boggle grids."
PROGRAM = "boggle-dafsa"

# -h as well as --help, on every command (click passes help_option_names down to subcommands).
# Completion (--install-completion, --show-completion) imports nothing more at start-up:
# typer's completion module is loaded with typer anyway (see README, "Performance").
CONTEXT = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(
    cls=UserErrorGroup, no_args_is_help=True, add_completion=True, pretty_exceptions_enable=False, help=HELP, context_settings=CONTEXT
)

# Each module registers its commands on `app`; imported for that side effect.
from . import best, dictionary_commands, game_commands, query, serve, solve_commands  # noqa: E402,F401


def main() -> None:
    """Entry point of the console script: runs the command, usage errors as one line."""
    # The click that typer 0.26-0.28 vendors (pyproject pins that range).
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    args = sys.argv[1:]
    if args == ["--version"]:
        print(version_text())
        sys.exit(0)
    if sys.stdin is None:  # started with stdin closed: read as empty input
        sys.stdin = open(os.devnull)
    if sys.stdout is None:
        print(f"{PROGRAM}: standard output is closed", file=sys.stderr)
        sys.exit(2)
    try:
        code = app_for(args)(args=args, prog_name=PROGRAM, standalone_mode=False)
        sys.stdout.flush()
    except NoArgsIsHelpError as help_request:
        print(help_request.format_message())
        code = 2
    except UsageError as error:
        # typer would draw a framed box of several lines; errors here are one line.
        where = f"{error.ctx.command_path}: " if error.ctx and error.ctx.command_path != PROGRAM else ""
        command = error.ctx.command_path if error.ctx else PROGRAM
        print(f"{PROGRAM}: {where.removeprefix(PROGRAM + ' ')}{error.format_message()}{_stray_hint(args)} (see `{command} --help`)", file=sys.stderr)
        code = 2
    except typer.Abort:
        print(f"{PROGRAM}: interrupted", file=sys.stderr)
        code = 130
    except OSError as error:
        # What is left of OSError here is writing our output: a full disk, a closed pipe.
        if error.errno not in _OUTPUT_ERRORS:
            raise
        print(f"{PROGRAM}: cannot write the output ({error.strerror})", file=sys.stderr)
        # The interpreter flushes stdout once more on exit: let that flush go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 2
    sys.exit(code if isinstance(code, int) else 0)


def version_text() -> str:
    """``boggle-dafsa 0.1.0 (solver kernel: c (compiled); builder kernel: c (compiled))``:
    the version and the kernels in use."""
    from importlib.metadata import PackageNotFoundError, version

    from ..automaton.stream import kernel_status as builder_status
    from ..solver import kernel_status

    try:
        number = version("boggle-dafsa")
    except PackageNotFoundError:  # run from a source tree that was never installed
        number = "unknown version"
    return f"{PROGRAM} {number} (solver kernel: {kernel_status()}; builder kernel: {builder_status()})"


_OUTPUT_ERRORS = {errno.ENOSPC, errno.EIO, errno.EBADF, errno.EFBIG, errno.EDQUOT, errno.EPIPE}


def app_for(args: list[str]) -> typer.Typer:
    """The app to run for ``args``: ``app`` itself, or a copy holding only the command named first.

    typer turns every registered function into a click command before running one,
    which costs more than running most commands; a one-command copy skips that work.
    Its usage lines and errors are the same, since it is still a group named PROGRAM.
    """
    if not args:
        return app
    wanted = [info for info in app.registered_commands if _command_name(info) == args[0]]
    if not wanted:
        return app  # options or an unknown command: the full app explains
    single = typer.Typer(cls=UserErrorGroup, add_completion=True, pretty_exceptions_enable=False, help=HELP, context_settings=CONTEXT)
    # A callback keeps the copy a group even with one command, so `solve` stays a subcommand.
    single.callback()(_no_options)
    single.registered_commands = wanted
    return single


def _no_options() -> None:
    """Compile word lists into minimal automata (DAFSA) and solve, generate and play Boggle grids."""


def _command_name(info: typer.models.CommandInfo) -> str:
    return info.name or info.callback.__name__.replace("_", "-")  # type: ignore[union-attr]


def _stray_hint(args: list[str]) -> str:
    """``; FILE looks like a dictionary file: give it with -d FILE`` for the first such argument."""
    from ..resolve import looks_like_dictionary

    for before, argument in zip(["", *args], args):
        if before not in ("-d", "--dict") and not argument.startswith("-") and looks_like_dictionary(argument):
            return f"; {argument!r} looks like a dictionary file: give it with -d {argument}"
    return ""
