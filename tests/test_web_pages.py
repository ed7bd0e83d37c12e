"""Pages for everyone, server side: the API docs from local files (no request leaves the machine)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")

from fastapi.testclient import TestClient  # noqa: E402

from boggle_dafsa.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def test_the_api_docs_reference_no_outside_host_and_their_assets_load(client: TestClient) -> None:
    page = client.get("/api/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    assert not re.search(r"(?:src|href)=[\"']?(?:https?:)?//", page.text), page.text
    assert '"validatorUrl": null' in page.text  # Swagger UI's badge is an image from swagger.io
    for asset in re.findall(r"(?:src|href)=\"(/[^\"]+)\"", page.text):
        answer = client.get(asset)
        assert answer.status_code == 200 and len(answer.content) > 500, asset
    assert client.get("/api/openapi.json").json()["info"]["title"] == "boggle-dafsa"


def test_the_solve_page_offers_every_score_table_and_the_api_names_them(client: TestClient) -> None:
    # The Scoring menu and /api/solve's documentation derive from board.scoring.SCORINGS.
    from boggle_dafsa.board.scoring import SCORINGS

    page = client.get("/").text
    menu = page.split('<select id="scoring">', 1)[1].split("</select>", 1)[0]
    assert re.findall(r'<option value="(\w*)"', menu) == ["", *SCORINGS]
    assert "SCORINGS" not in page  # the placeholder was filled
    parameters = client.get("/api/openapi.json").json()["paths"]["/api/solve"]["get"]["parameters"]
    described = next(parameter for parameter in parameters if parameter["name"] == "scoring")["description"]
    assert all(name in described for name in SCORINGS)
