"""What every page shares: the page shell, the service worker, the manifest and the static
files, and the API every page reads (``/api/dictionaries``, ``/api/dice``, ``/api/roll``; how
others reach this server, ``/api/server``, and a QR code of a link, ``/api/qr``).

Each page group has a module of its own that adds its routes to the application
(:func:`boggle_dafsa.web.app.create_app` assembles them): ``solve``, ``play``,
``rooms_routes``, ``daily``, ``words``, ``apidocs``; the pages are set in the shell here.
"""

import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from string import Template
from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from boggle_dafsa.board.dice import builtin_sets, random_seed
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.output.jsonable import dice_set_json
from boggle_dafsa.web.payloads import roll_payload
from boggle_dafsa.web.settings import dice_set

STATIC = Path(__file__).resolve().parent / "static"
PAGES = Path(__file__).resolve().parent / "pages"
#: The largest seed: dice are rolled by a 64-bit generator.
MAX_SEED = (1 << 64) - 1

ROLL_EXAMPLE = {
    "dice": "fr",
    "title": "French 4x4",
    "seed": 42,
    "grid": "IEFA/AEFE/MHAL/ETTE",
    "shape": [4, 4],
    "faces": list("IEFAAEFEMHALETTE"),
    "scoring": "classic",
    "min_length": 3,
    "dictionary": "fr",
}


def render_page(name: str, path: str) -> str:
    """The HTML of the page at ``path``: its own part (``pages/NAME.html``, its ``<main>``) set in
    ``pages/page.html``, the head and the header's links that every page shares, its own link
    marked as the current one."""
    shell = (PAGES / "page.html").read_text(encoding="utf-8")
    shell = shell.replace(f'<a href="{path}">', f'<a href="{path}" aria-current="page">', 1)
    main = (PAGES / f"{name}.html").read_text(encoding="utf-8").rstrip("\n")
    return Template(shell).substitute(title=name.title(), name=name, main=main)


def page(html: str) -> Callable[[], Awaitable[HTMLResponse]]:
    """A route that serves ``html`` (a page, rendered once)."""

    async def serve_page() -> HTMLResponse:
        return HTMLResponse(html)

    return serve_page


def example(value: Any) -> dict[int | str, dict[str, Any]]:
    """An OpenAPI ``responses`` entry: routes return JSONResponse, so the schema is shown by example."""
    return {200: {"description": "Success", "content": {"application/json": {"example": value}}}}


def add_site_routes(app: FastAPI) -> None:
    """The files every page loads: ``/sw.js``, ``/manifest.webmanifest`` and ``/static/``."""

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> FileResponse:
        # At the root, so that its scope is every page (a worker controls the pages under its own path).
        return FileResponse(STATIC / "sw.js", media_type="text/javascript", headers={"cache-control": "no-cache"})

    @app.get("/manifest.webmanifest", include_in_schema=False)
    async def manifest() -> FileResponse:
        return FileResponse(STATIC / "manifest.webmanifest", media_type="application/manifest+json")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def add_server_routes(app: FastAPI) -> None:
    """The API every page reads: the server's address and QR codes, its dictionaries and dice
    sets, and a rolled grid."""
    catalog = app.state.catalog
    app.state.lan_url = None  # set by web.run.serve when listening on every interface

    @app.get("/api/server", summary="How others reach this server: its address on the local network, if it listens there")
    def server_info() -> JSONResponse:
        return JSONResponse({"lan_url": app.state.lan_url})

    @app.get("/api/qr", summary="A QR code (SVG) of a link, e.g. a room's, to open it on a phone")
    def qr_code(text: Annotated[str, Query(min_length=1, max_length=512, description="The text to encode (a URL).")]) -> Response:
        try:
            import segno
        except ImportError:
            raise BoggleError("QR codes need the [web] extra (segno is missing)") from None

        svg = io.BytesIO()
        segno.make(text, error="m").save(svg, kind="svg", scale=4, border=2, title=f"QR code: {text}")
        return Response(svg.getvalue(), media_type="image/svg+xml", headers={"cache-control": "max-age=86400"})

    @app.get("/api/dictionaries", summary="The dictionaries this server offers")
    def dictionaries_list() -> JSONResponse:
        return JSONResponse(catalog.describe())

    @app.get("/api/dice", summary="The dice sets, with their rules and dice")
    def dice_list() -> JSONResponse:
        return JSONResponse([dice_set_json(s) for s in builtin_sets()])

    @app.get("/api/roll", summary="Roll a grid from a dice set", responses=example(ROLL_EXAMPLE))
    def roll(
        dice: Annotated[str, Query(max_length=32, description="A dice set of `/api/dice`.")] = "fr",
        seed: Annotated[int | None, Query(ge=0, le=MAX_SEED, description="Same seed, same grid (default: random).")] = None,
    ) -> JSONResponse:
        return JSONResponse(roll_payload(dice_set(dice), random_seed() if seed is None else seed, catalog))
