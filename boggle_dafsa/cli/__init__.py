"""The ``boggle-dafsa`` command: a thin typer layer over the library, one module per group of verbs."""

from __future__ import annotations

import typer

from .common import UserErrorGroup

app = typer.Typer(
    cls=UserErrorGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Compile word lists into minimal automata (DAFSA) and solve, generate and play Boggle grids.",
)

# Each module registers its commands on `app`; imported for that side effect.
from . import dictionary_commands  # noqa: E402,F401

for _optional in ("solve_commands", "game_commands"):
    # Modules of later milestones register themselves when present.
    try:
        __import__(f"{__name__}.{_optional}")
    except ModuleNotFoundError as _missing:
        if _missing.name != f"{__name__}.{_optional}":
            raise


def main() -> None:
    """Entry point of the console script."""
    app(prog_name="boggle-dafsa")
