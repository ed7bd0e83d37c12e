"""The ``boggle-dafsa`` command: a thin typer layer over the library, one module per group of verbs."""

from __future__ import annotations

import sys

import typer

from .common import UserErrorGroup

HELP = "Compile word lists into minimal automata (DAFSA) and solve, generate and play Boggle grids."
PROGRAM = "boggle-dafsa"

app = typer.Typer(cls=UserErrorGroup, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, help=HELP)

# Each module registers its commands on `app`; imported for that side effect.
from . import dictionary_commands, game_commands, solve_commands  # noqa: E402,F401


def main() -> None:
    """Entry point of the console script."""
    app_for(sys.argv[1:])(prog_name=PROGRAM)


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
    single = typer.Typer(cls=UserErrorGroup, add_completion=False, pretty_exceptions_enable=False, help=HELP)
    # A callback keeps the copy a group even with one command, so `solve` stays a subcommand.
    single.callback()(_no_options)
    single.registered_commands = wanted
    return single


def _no_options() -> None:
    """Compile word lists into minimal automata (DAFSA) and solve, generate and play Boggle grids."""


def _command_name(info: typer.models.CommandInfo) -> str:
    return info.name or info.callback.__name__.replace("_", "-")  # type: ignore[union-attr]
