"""The Solve page (``/``) and ``/api/solve``: every word on a grid, what ``boggle-dafsa solve
GRID --json`` prints."""

from html import escape
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from boggle_dafsa.board.grid import Grid
from boggle_dafsa.board.scoring import CLASSIC, SCORINGS
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.formats.registry import spoken
from boggle_dafsa.solver import Hit
from boggle_dafsa.solver.batch import SolveOptions
from boggle_dafsa.web.guard import CLIENT_KEY, bounded
from boggle_dafsa.web.payloads import solution_payload
from boggle_dafsa.web.settings import dice_set
from boggle_dafsa.web.site import example, page, render_page

#: Grids of up to this many cells are solved on the event loop itself (see ``solve``).
INLINE_CELLS = 64


def _solve_example() -> dict[str, Any]:
    # Built by the same code as the answers, so that the example follows the schema; the
    # totals are those of the whole grid (the example shows its best word only).
    grid = Grid.parse("IDXT/MHEI/ERVN/TLLU")
    best = Hit("VULNERE", 5, (10, 15, 14, 11, 6, 9, 8))
    return {**solution_payload(grid, [best]), "totals": {"words": 71, "points": 99}}


SOLVE_EXAMPLE = _solve_example()


def scoring_options() -> str:
    """The Scoring menu's options: the default, then a score table of ``SCORINGS`` each (its
    shortest word when it is not the default's; its description as the option's title)."""
    options = [f'<option value="">{CLASSIC.name} (default)</option>']
    for name, table in SCORINGS.items():
        label = name if table.min_length == CLASSIC.min_length else f"{name} ({table.min_length}+ letters)"
        options.append(f'<option value="{name}" title="{escape(table.description)}">{escape(label)}</option>')
    return "\n          ".join(options)


def add_solve_routes(app: FastAPI) -> None:
    """The Solve page and ``/api/solve``."""
    catalog, limits, guard = app.state.catalog, app.state.limits, app.state.guard
    html = render_page("solve", "/").replace(
        "<!-- SCORINGS: web/solve.py writes an option per score table of board/scoring.py -->", scoring_options()
    )
    app.get("/", include_in_schema=False)(page(html))

    @app.get(
        "/api/solve",
        summary="Every word on a grid: what `boggle-dafsa solve GRID --json` prints",
        responses=example(SOLVE_EXAMPLE),
    )
    async def solve(
        request: Request,
        grid: Annotated[
            str,
            Query(
                min_length=1,
                max_length=limits.grid_chars,
                description="The grid in the GRID syntax of `solve`, e.g. IDXT/MHEI/ERVN/TLLU.",
            ),
        ],
        dict: Annotated[str | None, Query(max_length=64, description="A dictionary of `/api/dictionaries`.")] = None,
        dice: Annotated[
            str | None, Query(max_length=32, description="Take the scoring and minimum length of this dice set.")
        ] = None,
        scoring: Annotated[str | None, Query(max_length=32, description=f"{spoken(SCORINGS)}.")] = None,
        min_length: Annotated[int | None, Query(ge=1, le=64)] = None,
        adjacency: Annotated[str, Query(max_length=32, description="king or orthogonal.")] = "king",
        qu: Annotated[bool, Query(description="Read a lone Q as the QU face.")] = False,
        clean: Annotated[bool, Query(description="Leave out the family-friendly blocklist (as a clean game does).")] = False,
    ) -> JSONResponse:
        if dice is not None:
            dice_set(dice)  # only built-in sets
        # Small grids are solved on the event loop (a millisecond: cheaper than a thread hop,
        # and no two threads fight over the GIL); opening a dictionary for the first time
        # (a second) and big grids (up to 0.1 s) go to a worker thread, so that rooms' clocks
        # and other requests are not held up.
        if catalog.is_open(dict):
            name, words = catalog.get(dict)
        else:
            name, words = await run_in_threadpool(catalog.get, dict)
        options = SolveOptions.from_arguments(min_length, scoring, adjacency, None, qu, dice)
        parsed = options.parse(grid, words)
        if len(parsed) > limits.cells:
            raise BoggleError(f"the grid has {len(parsed)} cells; this server solves grids of {limits.cells} at most")
        # Every solve has a deadline (limits.solve_seconds), and each client a share of the
        # worker threads: a heavy grid gets a 503, and the others are served meanwhile.
        with guard.solving(request.scope.get(CLIENT_KEY, "unknown")):
            if len(parsed) <= INLINE_CELLS and len(parsed.shape) == 2:
                hits = bounded(limits.solve_seconds, lambda: options.solve(parsed, words))
            else:
                hits = await run_in_threadpool(bounded, limits.solve_seconds, lambda: options.solve(parsed, words))
        if clean:
            from boggle_dafsa.game.clean import blocked_words

            blocked = blocked_words(name, dice_set(dice).language if dice is not None else None)
            hits = [hit for hit in hits if hit.word not in blocked]
        return JSONResponse(solution_payload(parsed, hits))
