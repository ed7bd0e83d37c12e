"""Shared fixtures: small dictionaries built on the fly, and ENABLE2K as a plain word list."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
#: The installed console script: beside this interpreter (a venv), else on PATH.
COMMAND = shutil.which("boggle-dafsa", path=str(Path(sys.executable).parent)) or shutil.which("boggle-dafsa") or "boggle-dafsa"

settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two test workers a core, at most four more workers than cores.

    A third of the suite's time is spent waiting, not computing: for servers and browsers,
    child processes, game clocks and Dask clusters. With one worker a core the cores idle
    then (the suite on 2 cores: 985 CPU-s in 895 s of wall time, 1.1 cores used).
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return min(2 * cores, cores + 4)


#: The longest test files, longest first (`--junitxml`'s times summed by file, 2026-11-27): under
#: `-n` each file goes whole to one worker, in the order collected, so these start first
#: and the short files fill the other workers around them, instead of a long file starting
#: last and running alone. The order only changes the wall time: a file missing here runs
#: after these, as before.
LONGEST_FIRST = (
    "test_prove.py",
    "test_web_a11y.py",
    "test_web_api.py",
    "test_lifeline.py",
    "test_readme.py",
    "test_trust.py",
    "test_web_arena.py",
    "test_hostile.py",
    "test_web_phone.py",
    "test_web_e2e.py",
    "test_search_verb.py",
    "test_trust_web_server.py",
    "test_shards.py",
    "test_formats.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


# The suite's own cache of compiled dictionaries, set when this file is imported: before
# any test module is collected and before any fixture (module-scoped ones included) can
# open a dictionary, so the user's cache is never read, written or cleaned by the tests
# (tests/test_resolve.py checks it). Every test and subprocess inherits it.
TEST_CACHE = Path(tempfile.mkdtemp(prefix="boggle-dafsa-test-cache-"))
os.environ["BOGGLE_DAFSA_CACHE"] = str(TEST_CACHE)

# A shell starts a background job (`cmd &`, as .ci/run's lanes) with Ctrl-C and Ctrl-\
# ignored, and an ignored signal stays ignored in every process started from it: the
# commands the tests interrupt would never see their SIGINT. Handled (not ignored) here,
# they are back to their defaults in each child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
# Under nohup, hangups are ignored likewise: this run goes on ignoring them (a handler that
# does nothing), while the commands the tests hang up on get the default back.
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, lambda number, frame: None)
# The same for the server's data folder (rooms, daily results): `serve` run by a test
# never reads or writes the user's ~/.local/share.
TEST_DATA = Path(tempfile.mkdtemp(prefix="boggle-dafsa-test-data-"))
os.environ["XDG_DATA_HOME"] = str(TEST_DATA)
os.environ.pop("BOGGLE_DAFSA_DICT", None)


def pytest_report_header(config: pytest.Config) -> str:
    """Which copy of the package the suite tests: the src layout means always the installed one."""
    import boggle_dafsa

    where = Path(boggle_dafsa.__file__).resolve().parent
    kind = "this checkout's src/ (editable install)" if where == ROOT / "src" / "boggle_dafsa" else "an installed copy"
    return f"boggle_dafsa under test: {where} ({kind})"


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(TEST_CACHE, ignore_errors=True)
    shutil.rmtree(TEST_DATA, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's $BOGGLE_DAFSA_DICT; all share the suite's cache (a test may move it)."""
    monkeypatch.delenv("BOGGLE_DAFSA_DICT", raising=False)
    monkeypatch.setenv("BOGGLE_DAFSA_CACHE", str(TEST_CACHE))


@pytest.fixture(scope="session")
def enable2k_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ENABLE2K as it is published (lower case, one word a line, LF), written from the copy the
    package embeds: the tests read nothing outside the repository."""
    import lzma

    from boggle_dafsa.dictionaries.resolve import DATA_DIR

    words = lzma.decompress((DATA_DIR / "enable2k.txt.xz").read_bytes()).decode("ascii")
    path = tmp_path_factory.mktemp("enable2k") / "enable2k.txt"
    path.write_text(words.lower(), encoding="ascii")
    return path


@pytest.fixture(autouse=True)
def _pages_closed() -> Iterator[None]:
    """Every page a test opened is closed after it (see helpers.harness.close_pages)."""
    yield
    harness = sys.modules.get("helpers.harness")
    if harness is not None:
        harness.close_pages()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for a module of browser tests (each skips itself where Chromium or playwright is missing)."""
    from helpers.harness import headless_chromium

    with headless_chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A local Dask cluster of two worker processes for a module of tests (each skips itself
    without the [dask] extra): best, batches and proofs on it are compared with local runs."""
    distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, memory_limit="400MiB"
    ) as local_cluster:
        yield local_cluster


def run_cli(*args: str, input: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None):
    """Run the command as a process of its own, its output captured: forked from a warm
    interpreter (tests/helpers/warm.py: 0.3 CPU-s of start-up saved a command), in a fresh one
    where the environment's start-up variables differ or BOGGLE_DAFSA_TEST_FRESH=1."""
    from helpers.warm import run_command

    return run_command(list(args), input=input, cwd=cwd, env={**os.environ, **(env or {})}, timeout=120)


#: Tests that took a second or more without the ``slow`` mark: listed at the end of a run, so
#: that the fast subset (``-m "not slow"``) stays fast as tests are added (CONTRIBUTING.md).
_UNMARKED_SLOW: list[tuple[float, str]] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.duration >= 1.0 and "slow" not in report.keywords:
        _UNMARKED_SLOW.append((report.duration, report.nodeid))


#: The folder beside the repository that development machines have (word lists, seeds): the
#: tests must never read it, so that a fresh clone runs them alone. Every file this process
#: opens is checked (an audit hook: the word lists a test would read are opened here).
SHARED_FOLDER = str(ROOT.parent / "shared") + os.sep
_OPENED_OUTSIDE: set[str] = set()


def _audit_open(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.abspath(os.fsdecode(args[0]))  # type: ignore[arg-type]
        if path.startswith(SHARED_FOLDER):
            _OPENED_OUTSIDE.add(path)


sys.addaudithook(_audit_open)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _OPENED_OUTSIDE:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _OPENED_OUTSIDE:
        terminalreporter.write_sep("!", "the tests read files outside the repository (use the embedded lists)")
        for path in sorted(_OPENED_OUTSIDE):
            terminalreporter.write_line(path)
    if _UNMARKED_SLOW:
        terminalreporter.write_sep("-", "tests of a second or more not marked slow (mark them: CONTRIBUTING.md)")
        for duration, nodeid in sorted(_UNMARKED_SLOW, reverse=True):
            terminalreporter.write_line(f"{duration:5.1f} s  {nodeid}")
