"""The word queries on the web (/api/match, /api/anagram, /api/grep, /api/fuzzy, /api/hooks,
/api/complete): each answers what the command prints with --json (or --count) for the same
query, refuses bad queries in one line, and is bounded as a solve is."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip("httpx", reason="the test client needs httpx")

from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from boggle_dafsa.cli import app as cli_app  # noqa: E402
from boggle_dafsa.web.app import create_app  # noqa: E402
from boggle_dafsa.web.settings import Limits  # noqa: E402

runner = CliRunner()


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = create_app()
    for name in ("fr", "en", "enable2k"):  # opened once here, not in the first test of each
        app.state.catalog.get(name)
        runner.invoke(cli_app, ["lookup", "A", "-d", name])
    return TestClient(app)


def cli_json(*arguments: str) -> Any:
    """What ``boggle-dafsa ARGUMENTS --json`` prints, run in this process (the command's own code)."""
    result = runner.invoke(cli_app, [*arguments, "--json"])
    assert result.exit_code in (0, 1), result.output  # 1: nothing found, and [] printed
    return json.loads(result.stdout)


def error_of(response: Any) -> str:
    body = response.json()
    assert set(body) == {"error"}, body
    assert "\n" not in body["error"] and body["error"]
    return str(body["error"])


# (the endpoint's parameters, the command line): a sample of each verb, options included.
QUERIES = [
    ("match", {"pattern": "C?A*S", "d": "enable2k"}, ["match", "C?A*S", "-d", "enable2k"]),
    ("match", {"pattern": "@#@#@#@#@#", "dict": "enable2k", "limit": 7}, ["match", "@#@#@#@#@#", "-d", "enable2k", "-n", "7"]),
    ("match", {"pattern": "*[^AEIOU]Q*", "d": "en", "max_length": 7}, ["match", "*[^AEIOU]Q*", "-d", "en", "-M", "7"]),
    ("match", {"pattern": "él?v*", "d": "fr", "min_length": 7}, ["match", "él?v*", "-d", "fr", "--min-length", "7"]),
    ("match", {"pattern": "QQQ*", "d": "fr"}, ["match", "QQQ*", "-d", "fr"]),
    ("anagram", {"letters": "RETAINS", "d": "enable2k"}, ["anagram", "RETAINS", "-d", "enable2k"]),
    ("anagram", {"letters": "QUIZ??", "d": "enable2k", "sub": "true"}, ["anagram", "QUIZ??", "--sub", "-d", "enable2k"]),
    ("anagram", {"letters": "élève?", "d": "fr", "limit": 3}, ["anagram", "élève?", "-d", "fr", "--limit", "3"]),
    ("grep", {"regex": "(RE|UN)+DO", "d": "enable2k"}, ["grep", "(RE|UN)+DO", "-d", "enable2k"]),
    ("grep", {"regex": "A[^AEIOU]{6}", "d": "enable2k"}, ["grep", "A[^AEIOU]{6}", "-d", "enable2k"]),
    ("grep", {"regex": "(CH|N)I.*E", "d": "fr", "limit": 20}, ["grep", "(CH|N)I.*E", "-d", "fr", "-n", "20"]),
    ("fuzzy", {"word": "bogle", "d": "enable2k"}, ["fuzzy", "bogle", "-d", "enable2k"]),
    (
        "fuzzy",
        {"word": "élèev", "d": "fr", "distance": 2, "transpositions": "true"},
        ["fuzzy", "élèev", "-d", "fr", "-k", "2", "--transpositions"],
    ),
    ("fuzzy", {"word": "catepil", "d": "enable2k", "prefix": "true"}, ["fuzzy", "catepil", "--prefix", "-d", "enable2k"]),
    ("hooks", {"word": "are", "d": "enable2k"}, ["hooks", "are", "-d", "enable2k"]),
    ("hooks", {"word": "élève", "d": "fr"}, ["hooks", "élève", "-d", "fr"]),
    ("hooks", {"word": "zzzx", "d": "en"}, ["hooks", "zzzx", "-d", "en"]),
    ("complete", {"prefix": "arbr", "d": "fr"}, ["complete", "arbr", "-d", "fr"]),
    ("complete", {"prefix": "Cartoon", "d": "enable2k", "limit": 4}, ["complete", "Cartoon", "-d", "enable2k", "-n", "4"]),
    ("complete", {"prefix": "xqz", "d": "en"}, ["complete", "xqz", "-d", "en"]),
]
# Zyzzyva's columns (--columns) on each listing that takes them: each builds its columns'
# indexes (once per dictionary, in the server and in the command), a second under load.
COLUMN_QUERIES = [
    (
        "match",
        {"pattern": "QI*", "d": "enable2k", "columns": "hooks,points"},
        ["match", "QI*", "-d", "enable2k", "--columns", "hooks,points"],
    ),
    (
        "anagram",
        {"letters": "RETAIN?", "d": "enable2k", "limit": 5, "columns": "probability,anagrams"},
        ["anagram", "RETAIN?", "-d", "enable2k", "-n", "5", "--columns", "probability,anagrams"],
    ),
    (
        "grep",
        {"regex": "QU?IZ+", "d": "en", "columns": "anagrams"},
        ["grep", "QU?IZ+", "-d", "en", "--columns", "anagrams"],
    ),
    (
        "fuzzy",
        {"word": "bogle", "d": "enable2k", "columns": "hooks"},
        ["fuzzy", "bogle", "-d", "enable2k", "--columns", "hooks"],
    ),
]


@pytest.mark.parametrize(
    "verb, params, arguments",
    [*QUERIES, *(pytest.param(*query, marks=pytest.mark.slow) for query in COLUMN_QUERIES)],
    ids=[" ".join(query[2][:2]) for query in [*QUERIES, *COLUMN_QUERIES]],
)
def test_each_endpoint_answers_what_the_command_prints_with_json(
    client: TestClient, verb: str, params: dict[str, Any], arguments: list[str]
) -> None:
    response = client.get(f"/api/{verb}", params=params)
    assert response.status_code == 200, response.text
    assert response.json() == cli_json(*arguments)
    if "limit" not in params:  # well under the server's limit of results: the whole list
        assert "x-more-results" not in response.headers


@pytest.mark.parametrize(
    "verb, params, arguments",
    [
        ("match", {"pattern": "@#@#@#@#@#", "d": "enable2k"}, ["match", "@#@#@#@#@#", "-d", "enable2k"]),
        ("anagram", {"letters": "TAC?", "d": "fr", "sub": "true"}, ["anagram", "TAC?", "-d", "fr", "--sub"]),
        ("hooks", {"word": "are", "d": "enable2k"}, ["hooks", "are", "-d", "enable2k"]),
        ("complete", {"prefix": "arbr", "d": "fr", "limit": 2}, ["complete", "arbr", "-d", "fr", "-n", "2"]),
    ],
)
def test_count_answers_what_the_command_counts(
    client: TestClient, verb: str, params: dict[str, Any], arguments: list[str]
) -> None:
    response = client.get(f"/api/{verb}", params={**params, "count": "true"})
    assert response.status_code == 200, response.text
    assert response.json() == int(runner.invoke(cli_app, [*arguments, "--count"]).stdout)


def test_a_list_is_cut_at_the_server_limit_and_says_so() -> None:
    client = TestClient(create_app(limits=Limits(query_results=5)))
    response = client.get("/api/match", params={"pattern": "C?A*S", "d": "enable2k"})
    assert response.json() == cli_json("match", "C?A*S", "-d", "enable2k", "--limit", "5")
    assert response.headers["x-more-results"] == "true"
    response = client.get("/api/match", params={"pattern": "C?A*S", "d": "enable2k", "limit": 2})
    assert len(response.json()) == 2 and response.headers["x-more-results"] == "true"
    exact = client.get("/api/grep", params={"regex": "(RE|UN)+DO", "d": "enable2k", "limit": 2})
    assert exact.json() == ["REDO", "UNDO"] and "x-more-results" not in exact.headers
    response = client.get("/api/match", params={"pattern": "C*", "limit": 6})
    assert response.status_code == 400 and "5 results at most" in error_of(response)


@pytest.mark.parametrize(
    "verb, params, status, message",
    [
        ("grep", {"regex": "CH(A|T", "d": "enable2k"}, 400, "unbalanced parenthesis ( at column 3"),
        ("match", {"pattern": "C[A", "d": "fr"}, 400, "column"),
        ("match", {"pattern": "A" * 1001, "d": "fr"}, 400, "at most 1,000"),
        ("grep", {"regex": "A{500}"}, 400, "100"),
        ("fuzzy", {"word": "ab", "distance": 11}, 400, "distance 11 out of range"),
        ("fuzzy", {"word": "123"}, 400, "not a word"),
        ("anagram", {"letters": "?" * 65}, 400, "rack too long"),
        ("complete", {"prefix": "a1"}, 400, "not letters"),
        ("hooks", {"word": "!!"}, 400, "not a word"),
        ("match", {"pattern": "C*", "columns": "hooks,colour"}, 400, "unknown column 'colour'"),
        ("match", {"pattern": "C*", "d": "/etc/passwd"}, 400, "unknown dictionary"),
        ("match", {"pattern": "C*", "d": "fr", "dict": "en"}, 400, "two dictionaries"),
        ("match", {}, 422, "pattern"),
        ("match", {"pattern": "C*", "limit": -1}, 422, "limit"),
        ("fuzzy", {"word": "ab", "distance": "x"}, 422, "distance"),
    ],
)
def test_bad_queries_are_one_line(client: TestClient, verb: str, params: dict[str, Any], status: int, message: str) -> None:
    response = client.get(f"/api/{verb}", params=params)
    assert response.status_code == status, response.text
    assert message in error_of(response)


def test_the_queries_take_a_solve_slot_and_its_deadline() -> None:
    busy = TestClient(create_app(limits=Limits(solves_per_client=0)))
    response = busy.get("/api/match", params={"pattern": "C*"})
    assert response.status_code == 429 and "being solved" in error_of(response)
    # fuzzy -k 10 on a two-letter word walks most of the list: far more than 0.05 s.
    hurried = TestClient(create_app(limits=Limits(solve_seconds=0.05)))
    response = hurried.get("/api/fuzzy", params={"word": "ab", "distance": 10, "d": "enable2k", "count": "true"})
    assert response.status_code == 503 and "narrower query" in error_of(response)
    assert hurried.get("/api/match", params={"pattern": "C?A*S", "d": "enable2k"}).status_code == 200  # and it goes on


def test_the_openapi_description_lists_the_word_queries(client: TestClient) -> None:
    paths = client.get("/api/openapi.json").json()["paths"]
    for verb, argument in [
        ("match", "pattern"),
        ("anagram", "letters"),
        ("grep", "regex"),
        ("fuzzy", "word"),
        ("hooks", "word"),
        ("complete", "prefix"),
    ]:
        names = {p["name"] for p in paths[f"/api/{verb}"]["get"]["parameters"]}
        assert {argument, "d", "dict", "count"} <= names, verb
        assert f"boggle-dafsa {verb}" in paths[f"/api/{verb}"]["get"]["summary"]
