"""The typer application every command module registers on (``@app.command()``).

Kept apart from ``cli/__init__.py`` so that command modules import it without
importing each other: ``main`` imports only the module of the verb it runs.
"""

from __future__ import annotations

import typer

from boggle_dafsa.cli.common import UserErrorGroup

HELP = "Compile word lists into minimal automata (DAFSA) and solve, generate and play Boggle grids."

# -h as well as --help, on every command (click passes help_option_names down to subcommands).
# Completion (--install-completion, --show-completion) imports nothing more at start-up:
# typer's completion module is loaded with typer anyway (see docs/performance.md).
app = typer.Typer(
    cls=UserErrorGroup,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    help=HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root() -> None:
    # A callback keeps the app a group when one module holds a single command (`serve`),
    # so that `boggle-dafsa serve` stays a subcommand whichever modules are loaded.
    pass
