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
