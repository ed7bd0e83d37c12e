"""The Dask runner (``solver/parallel.py``) as each of its users reaches it: without the
[dask] extra, ``best``, ``prove`` and ``solve --batch`` say which extra to install in one
line; a scheduler that cannot be reached, or a server that is not one, is refused in one
line within bounded time. What each user computes on a cluster is tested with the user:
``tests/test_search.py`` (best, batches) and ``tests/test_prove.py`` (proofs)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search import best as S
from boggle_dafsa.search import prove as P
from helpers.dictionaries import PROOF_BUCKETS, PROOF_CORNERS, PROOF_WORDS, dictionary_from_words

#: Every test here starts a process or waits on a socket: the slow subset.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small_dict(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(dictionary_from_words(PROOF_WORDS, tmp_path_factory.mktemp("parallel")).path)


#: Each user's command on a cluster, and the same run through the library.
COMMANDS = {
    "prove": ["prove", "--min", "5", "--dask", "tcp://127.0.0.1:8786"],
    "best": ["best", "-s", "3x3", "--seed", "1", "--dask", "127.0.0.1:1"],
    "solve --batch": ["solve", "--batch", "-", "--dask", "127.0.0.1:1"],
}
RUNS: dict[str, Callable[[str, str], object]] = {
    "prove": lambda d, address: P.prove(
        P.make_spec(d, (2, 2), 3, buckets=PROOF_BUCKETS, corner_buckets=PROOF_CORNERS), dask=address
    ),
    "best": lambda d, address: S.search(S.make_spec(d, (3, 3), pool=4), seed=1, runs=1, dask=address),
}


@pytest.mark.parametrize("user", sorted(COMMANDS))
def test_without_the_extra_each_user_says_which_extra_to_install(small_dict: str, user: str) -> None:
    # `distributed` made unimportable, as on an installation without the [dask] extra.
    hide = "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
    command, *options = COMMANDS[user]
    result = subprocess.run(
        [sys.executable, "-c", hide + "from boggle_dafsa.cli import main; main()", command, "-d", small_dict, *options],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    lines = [line for line in result.stderr.splitlines() if not line.startswith("seed:")]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "pip install 'boggle-dafsa[dask]'" in lines[0]


@pytest.mark.parametrize("user", sorted(RUNS))
def test_an_unreachable_scheduler_is_one_line_in_bounded_time(
    small_dict: str, monkeypatch: pytest.MonkeyPatch, user: str
) -> None:
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    from boggle_dafsa.solver import parallel as D

    monkeypatch.setattr(D, "CONNECT_TIMEOUT", 2)  # refused at once; the client retries until this
    started = time.monotonic()
    with pytest.raises(BoggleError, match="cannot reach the Dask scheduler"):
        RUNS[user](small_dict, "tcp://127.0.0.1:9")
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("answer", [b"", b"HTTP/1.0 400 Bad request\r\n\r\n"])
def test_a_server_that_is_not_a_scheduler_is_refused_in_bounded_time(
    small_dict: str, monkeypatch: pytest.MonkeyPatch, answer: bytes
) -> None:
    # A server that says nothing first (a web server waits for a request), or something
    # whose first 8 bytes, read as a length, would ask the Dask client for exabytes.
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    from boggle_dafsa.solver import parallel as D

    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            held.append(connection)
            connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    monkeypatch.setattr(D, "CONNECT_TIMEOUT", 2)
    started = time.monotonic()
    try:
        with pytest.raises(BoggleError, match="does not answer as a Dask scheduler"):
            RUNS["prove"](small_dict, f"tcp://127.0.0.1:{server.getsockname()[1]}")
    finally:
        server.close()
        for connection in held:
            connection.close()
    assert time.monotonic() - started < 10
