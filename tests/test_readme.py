"""The README and docs/ are true: their examples run word for word in sh, their Python
examples run, and docs/commands.md documents every command and option of the app."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

README = ROOT / "README.md"
#: The pages whose examples the tests run: the README, then every page of docs/.
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
COMMANDS_PAGE = ROOT / "docs" / "commands.md"

#: Lines not run here, and why: the tests run on an installed package, in a temporary folder.
NOT_RUN = {
    r"^pip install": "installs the package: done before the tests run",
    r"^python -m pytest": "the suite itself",
    r"^python scripts/": "benchmarks and data scripts, run by hand",
    r"^(ruff|mypy)\b": "lint and type checks: tests/test_lint.py runs them with the [lint] extra",
    r"boggle-dafsa serve": "a server that runs until Ctrl-C (tests/test_serve_cli.py starts it)",
    r"boggle-dafsa best (?!-d small\.dafsa)": "searches of minutes to hours (tests/test_search.py runs `best` on small lists)",
    r"^dask |--dask": "needs a Dask cluster (tests/test_search.py starts one on 127.0.0.1)",
}


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def runnable_lines(text: str) -> list[str]:
    lines = []
    for block in sh_blocks(text):
        for line in block.splitlines():
            if line.strip() and not line.lstrip().startswith("#") and not any(re.search(pattern, line) for pattern in NOT_RUN):
                lines.append(line)
    return lines


def command_env(cache: Path) -> dict[str, str]:
    bin_folder = Path(sys.executable).parent  # the installed boggle-dafsa, beside this interpreter
    return {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}", "BOGGLE_DAFSA_CACHE": str(cache)}


def run_lines(lines: list[str], work: Path, env: dict[str, str]) -> None:
    """Each line, in order, in one folder, with no terminal: none may fail with a usage or
    input error (exit 2) or a traceback."""
    has_graphviz = shutil.which("dot") is not None
    for line in lines:
        if "dot -Tpng" in line and not has_graphviz:
            continue  # "needs Graphviz", says the line
        result = subprocess.run(
            ["sh", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
        # lookup's example has a non-word on purpose: exit 1 is an answer, not a failure.
        assert result.returncode in (0, 1), f"{line}\n{result.stderr}"
        assert "Traceback" not in result.stderr, f"{line}\n{result.stderr}"
        if result.returncode == 1:
            assert "lookup" in line or "find" in line, f"{line}\n{result.stderr}"


@pytest.mark.slow
def test_the_readme_examples_run_in_sh_from_a_fresh_cache(tmp_path: Path) -> None:
    """Every sh line of the README, in order, in one empty folder, with an empty cache."""
    lines = runnable_lines(README.read_text("utf-8"))
    assert any(line.startswith("boggle-dafsa dump -d fr > francais.txt") for line in lines)
    work = tmp_path / "work"
    work.mkdir()
    run_lines(lines, work, command_env(tmp_path / "cache"))
    assert (work / "build" / "dictionary.dafsa").is_file() and (work / "small.dafsa").is_file()


DOC_PAGES_WITH_EXAMPLES = [page for page in PAGES[1:] if runnable_lines(page.read_text("utf-8"))]


@pytest.mark.slow
@pytest.mark.parametrize("page", DOC_PAGES_WITH_EXAMPLES, ids=page_id)
def test_the_docs_examples_run_in_sh(page: Path, tmp_path: Path) -> None:
    """Each page of docs/ on its own: its sh lines, in order, in one empty folder (a page
    makes the files its examples use). The suite's cache: the README's test shows a fresh one."""
    work = tmp_path / "work"
    work.mkdir()
    text = page.read_text("utf-8")
    env = command_env(Path(os.environ["BOGGLE_DAFSA_CACHE"]))
    run_lines(runnable_lines(text), work, env)
    # Then the outputs the page shows (a block that starts with `$ COMMAND`), where the files
    # the command names are those the page's examples made: what it prints, line for line
    # ("…" stands for what changes from run to run: digests, times).
    for command, shown in shown_outputs(text):
        files = [word for word in shlex.split(command)[1:] if "." in word and not word.startswith("-")]
        if not all((work / name).exists() for name in files):
            continue
        result = subprocess.run(
            ["sh", "-c", command], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
        )
        printed = (result.stdout + result.stderr).splitlines()
        expected = shown.splitlines()
        assert len(printed) == len(expected), f"{page_id(page)}: {command}\n{result.stdout}{result.stderr}"
        for line, pattern in zip(printed, expected):
            assert re.fullmatch(".*".join(map(re.escape, pattern.split("…"))), line), (
                f"{page_id(page)}: {command}\n{line!r} is not {pattern!r}"
            )


def shown_outputs(text: str) -> list[tuple[str, str]]:
    """The (command, output) pairs a page shows: a plain block whose first line is `$ COMMAND`."""
    return re.findall(r"^```\n\$ (.*?)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_the_docs_show_outputs_that_are_checked() -> None:
    shown = {command for page in PAGES[1:] for command, _ in shown_outputs(page.read_text("utf-8"))}
    assert "boggle-dafsa grep 'CH(A|T' -d enable2k" in shown and "boggle-dafsa inspect -d fr.dawg" in shown


def test_the_docs_have_examples_to_run() -> None:
    # The pages of capabilities show commands; a regex that stopped finding them would pass silently.
    names = {page.name for page in DOC_PAGES_WITH_EXAMPLES}
    assert {"solve.md", "queries.md", "best.md", "game.md"} <= names, names


@pytest.mark.slow
@pytest.mark.parametrize("page", [page for page in PAGES if python_blocks(page.read_text("utf-8"))], ids=page_id)
def test_the_python_examples_run(page: Path, tmp_path: Path) -> None:
    for code in python_blocks(page.read_text("utf-8")):
        result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{code}\n{result.stderr}"


def test_the_readme_and_docs_show_python_examples() -> None:
    assert len(python_blocks(README.read_text("utf-8"))) >= 2  # the solver's and the queries'
    assert python_blocks((ROOT / "docs" / "solve.md").read_text("utf-8"))
    assert python_blocks((ROOT / "docs" / "queries.md").read_text("utf-8"))


@pytest.mark.parametrize("page", [README, ROOT / "docs" / "game.md"], ids=page_id)
@pytest.mark.slow
def test_the_score_example_prints_what_the_page_shows(page: Path, tmp_path: Path) -> None:
    text = page.read_text("utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    setup = [
        line
        for line in runnable_lines(text)
        if line.startswith("printf") and ("alice" in line or "bob" in line or "chloé" in line)
    ]
    assert len(setup) == 3
    for line in setup:
        subprocess.run(["sh", "-c", line], cwd=tmp_path, check=True, env=env)
    [shown] = re.findall(r"^\$ (boggle-dafsa score .*?)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    result = subprocess.run(["sh", "-c", shown[0]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.stdout == shown[1]


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 300
    # The door opens on every room: each page of docs/ is linked from it.
    for page in PAGES[1:]:
        assert f"]({page_id(page)}" in text, f"the README links to no {page_id(page)}"
    # Every page it links to exists.
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_the_docs_links_lead_somewhere() -> None:
    for page in [*PAGES[1:], ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md"]:
        for target, anchor in re.findall(r"\]\(([^)#:]*)(?:#([^)]*))?\)", page.read_text("utf-8")):
            linked = (page.parent / target).resolve() if target else page
            assert linked.exists(), f"{page_id(page)}: {target}"
            if anchor and linked.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", linked.read_text("utf-8"), flags=re.MULTILINE)
                slugs = {re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-") for heading in headings}
                assert anchor in slugs, f"{page_id(page)}: {target}#{anchor}"


# -- the command reference -----------------------------------------------------------------


def documented_commands() -> dict[str, str]:
    """docs/commands.md's table: command name -> the usage written for it."""
    section = COMMANDS_PAGE.read_text("utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)([^`]*)` \|", section, flags=re.MULTILINE)
    return {name: usage.replace("\\|", "|") for name, usage in rows}


HELP_ENV = {**os.environ, "COLUMNS": "250", "TERM": "dumb", "NO_COLOR": "1"}


def app_command_names() -> list[str]:
    """The commands `boggle-dafsa --help` lists."""
    listing = subprocess.run(
        [sys.executable, "-m", "boggle_dafsa", "--help"], capture_output=True, text=True, env=HELP_ENV, timeout=60
    )
    names = re.findall(r"^[│|]? {1,2}([a-z][a-z-]+) {2,}\S", listing.stdout, flags=re.MULTILINE)
    assert names, listing.stdout + listing.stderr
    return names


@pytest.mark.slow
def test_every_command_has_a_row_in_the_command_reference() -> None:
    """The quick half (one process, in the fast subset): a new command without its row fails here."""
    assert sorted(documented_commands()) == sorted(app_command_names()), (
        "docs/commands.md's table and `boggle-dafsa --help` differ"
    )


#: Prints, as JSON, each named command's `--help` as the command prints it: `main()` run
#: once a command in one process (a process a command cost 0.5 CPU-s each, 22 s in all).
HELPS = """
import contextlib, io, json, sys
from boggle_dafsa.cli import main
helps = {}
for name in sys.argv[1:]:
    sys.argv = ["boggle-dafsa", name, "--help"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            main()
        except SystemExit as end:
            assert end.code in (0, None), (name, end.code)
    helps[name] = printed.getvalue()
print(json.dumps(helps))
"""


def app_commands() -> dict[str, str]:
    """Each command of the app and its --help text, as the installed command prints them."""
    names = app_command_names()
    result = subprocess.run([sys.executable, "-c", HELPS, *names], capture_output=True, text=True, env=HELP_ENV, timeout=120)
    assert result.returncode == 0, result.stderr
    helps = json.loads(result.stdout)
    # The same text as a process of its own prints (the first command's, checked).
    alone = subprocess.run(
        [sys.executable, "-m", "boggle_dafsa", names[0], "--help"], capture_output=True, text=True, env=HELP_ENV, timeout=60
    )
    assert alone.returncode == 0 and alone.stdout == helps[names[0]], alone.stderr
    return helps


#: Options every command has, or every command that reads a dictionary: documented once,
#: above the table, not on each row.
SHARED_OPTIONS = {"--help", "--dict", "--quiet"}


def help_options(help_text: str) -> list[set[str]]:
    """The options of a command's --help: each as the set of its names (long, aliases, short)."""
    options = []
    for line in help_text.splitlines():
        match = re.match(
            r"^[│|]\s+(?:\*\s+)?(--[a-z][a-z-]*(?:,--[a-z][a-z-]*)*)(?:\s+(-[a-zA-Z]))?\s", line
        )  # * marks a required one
        if match:
            names = set(match.group(1).split(","))
            if match.group(2):
                names.add(match.group(2))
            options.append(names)
    return options


@pytest.mark.slow
def test_every_command_is_documented_in_the_command_reference() -> None:
    """sqlite-utils style: the reference's table is the app's, command for command; every option
    of every command is on its row (by any of its names), and every option a row gives is one
    that `COMMAND --help` shows."""
    documented = documented_commands()
    helps = app_commands()
    assert sorted(documented) == sorted(helps), "docs/commands.md's table and `boggle-dafsa --help` differ"
    page = COMMANDS_PAGE.read_text("utf-8")
    for option in SHARED_OPTIONS:
        assert option in page
    for name, usage in documented.items():
        for option in re.findall(r"--[a-z][a-z-]*", usage):
            assert option in helps[name], f"docs/commands.md gives {name} {option}, which `{name} --help` does not show"
        options = help_options(helps[name])
        assert {"--help"} in [names & {"--help"} for names in options], helps[name]  # the parser reads the table
        written = set(re.findall(r"(?<![\w-])--?[a-zA-Z][a-z-]*", usage))
        for names in options:
            if not names & SHARED_OPTIONS:
                assert names & written, f"docs/commands.md's row for {name} lacks {sorted(names)}"
