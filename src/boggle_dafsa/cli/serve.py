"""`boggle-dafsa serve`: the web pages and the JSON API (extra [web])."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import fail


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; 0.0.0.0 lets other devices of the network in.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="Port to listen on (0: any free port).")] = 8000,
    dictionaries: Annotated[
        Optional[list[str]],
        typer.Option(
            "--dict",
            "-d",
            help="Offer this dictionary too (a file, or fr, en, enable2k); repeat for several. The first is the default.",
            show_default=False,
        ),
    ] = None,
    data: Annotated[
        Optional[str],
        typer.Option(
            "--data",
            help="Folder of the server's database (rooms, daily results), kept across restarts. Default: $XDG_DATA_HOME/boggle-dafsa, else ~/.local/share/boggle-dafsa.",
            show_default=False,
        ),
    ] = None,
    arena_dice: Annotated[
        str, typer.Option("--arena-dice", help="The dice set of the arena's boards (one of `boggle-dafsa dice`).")
    ] = "fr",
    arena_minutes: Annotated[
        float,
        typer.Option(
            "--arena-minutes", help="A new arena board every this many minutes (0.25 to 60; whole seconds).", min=0.25, max=60
        ),
    ] = 3,
    trust_proxy: Annotated[
        bool,
        typer.Option(
            "--trust-proxy",
            help="Behind a reverse proxy: take each client's address from the last X-Forwarded-For entry (for the per-client quotas). Never without such a proxy: clients could claim any address.",
        ),
    ] = False,
) -> None:
    """Serve the Solve, Play, Daily, Arena, Rooms and Words pages and the JSON API (/api/docs) until Ctrl-C.

    Rooms (grid, players, clock), the daily puzzle's results and the arena are kept in SQLite in the data folder: stop and start the server and they are back."""
    try:
        from boggle_dafsa.web.run import serve as run_server
    except ImportError as error:
        fail(f"the web server needs the [web] extra ({error.name} is missing): pip install '.[web]' in the repository")

    def announce(url: str, lan: str | None) -> None:
        # 0.0.0.0 is no address to give friends: the one of this machine on the network is.
        from boggle_dafsa.output.render import serving_line

        typer.echo(serving_line(url, lan))

    try:
        from boggle_dafsa.errors import BoggleError
        from boggle_dafsa.files.folders import data_dir
        from boggle_dafsa.web.arena import ArenaSettings
        from boggle_dafsa.web.settings import Limits, dice_set

        seconds = round(arena_minutes * 60)
        if abs(seconds - arena_minutes * 60) > 1e-6:
            raise BoggleError(f"--arena-minutes {arena_minutes:g} is not a whole number of seconds")
        dice_set(arena_dice)  # a dice set of the package, or one line
        run_server(
            host,
            port,
            dictionaries or (),
            announce=announce,
            data=data or data_dir(),
            limits=Limits(trust_proxy=trust_proxy),
            arena=ArenaSettings(arena_dice, seconds),
        )
    except KeyboardInterrupt:
        pass
    typer.echo("boggle-dafsa: stopped", err=True)
