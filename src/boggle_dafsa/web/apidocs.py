"""The API's documentation page (``/api/docs``), served whole by this server: no request
leaves the machine, so it works without internet and tells nobody else who reads it.

FastAPI's own page loads Swagger UI from a CDN (and its favicon from FastAPI's site). Here
the same Swagger UI comes from the ``swagger-ui-bundle-v2`` package (part of the ``[web]``
extra: the files of the ``swagger-ui-dist`` release it names, maintained by the
Connexion project), served under ``/api/docs/assets/``, with Swagger UI's online
validator badge turned off (it is an image from swagger.io).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/api/docs/assets"


def swagger_ui_folder() -> Path | None:
    """Where the installed Swagger UI files are, or None without the package."""
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:
        return None
    folder = Path(swagger_ui_path)
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def add_docs_routes(app: FastAPI, openapi_url: str) -> None:
    """``/api/docs``: Swagger UI on ``openapi_url``, from local files."""
    folder = swagger_ui_folder()
    if folder is not None:
        app.mount(ASSETS, StaticFiles(directory=folder), name="swagger-ui")

    @app.get("/api/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        if folder is None:
            return HTMLResponse(
                "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>API — boggle-dafsa</title></head>"
                f"<body><main><h1>API</h1><p>The browsable page needs the [web] extra (swagger-ui-bundle-v2 is missing); "
                f"the description is at <a href='{openapi_url}'>{openapi_url}</a>.</p></main></body></html>"
            )
        page = get_swagger_ui_html(
            openapi_url=openapi_url,
            title="API — boggle-dafsa",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            # No deep links: each is a link inside the operation's button (nested
            # controls, which screen readers cannot reach: axe-core's nested-interactive).
            swagger_ui_parameters={"validatorUrl": None, "deepLinking": False},
        )
        return HTMLResponse(in_site_shell(bytes(page.body).decode("utf-8")))


def in_site_shell(html: str) -> str:
    """Swagger UI's page in the site's: a language, the header of every page (its links back
    to the game, the high-contrast button of ``theme.js``), Swagger UI in a ``<main>``, and
    ``apidocs.css`` (the header, and Swagger UI's colours darkened to a contrast of 4.5:1)."""
    # The pages' folder, named here rather than imported from app (which imports this module).
    shell = (Path(__file__).resolve().parent / "pages" / "page.html").read_text(encoding="utf-8")
    header = shell[shell.index("<header>") : shell.index("</header>") + len("</header>")]
    header = header.replace('<a href="/api/docs">', '<a href="/api/docs" aria-current="page">', 1)
    html = html.replace("<html>", '<html lang="en">', 1)
    html = html.replace(
        "</head>",
        '<link rel="stylesheet" href="/static/apidocs.css">\n'
        '    <script type="module" src="/static/js/theme.js"></script>\n'
        '    <script type="module" src="/static/js/apidocs.js"></script>\n    </head>',
        1,
    )
    html = html.replace('<div id="swagger-ui">\n    </div>', f'{header}\n    <main id="swagger-ui"></main>', 1)
    return html
