"""The README is true: its examples run word for word in sh, and its command table is the app's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")

#: README lines not run here, and why: the test runs on an installed package, in a temporary folder.
NOT_RUN = {
    r"^pip install": "installs the package: done before the tests run",
    r"^python -m pytest": "the suite itself",
    r"^python scripts/": "benchmarks and data scripts, run by hand",
    r"^(ruff|mypy)\b": "lint and type checks: .ci/run runs them with the [lint] extra",
    r"boggle-dafsa serve": "a server that runs until Ctrl-C (tests/test_serve_cli.py starts it)",
    r"boggle-dafsa best (?!-d small\.dafsa)": "searches of minutes to hours (tests/test_search.py runs `best` on small lists)",
    r"^dask |--dask": "needs a Dask cluster (tests/test_search.py starts one on 127.0.0.1)",
}


def sh_blocks() -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)


def runnable_lines() -> list[str]:
    lines = []
    for block in sh_blocks():
        for line in block.splitlines():
            if line.strip() and not line.lstrip().startswith("#") and not any(re.search(pattern, line) for pattern in NOT_RUN):
                lines.append(line)
    return lines


def test_the_readme_examples_run_in_sh_from_a_fresh_cache(tmp_path: Path) -> None:
    """Every sh line of the README, in order, in one empty folder, with an empty cache and no
    terminal: none may fail with a usage or input error (exit 2) or a traceback."""
    lines = runnable_lines()
    assert any(line.startswith("boggle-dafsa dump -d fr > francais.txt") for line in lines)
    bin_folder = Path(sys.executable).parent  # the installed boggle-dafsa, beside this interpreter
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}", "BOGGLE_DAFSA_CACHE": str(tmp_path / "cache")}
    work = tmp_path / "work"
    work.mkdir()
    has_graphviz = shutil.which("dot") is not None
    for line in lines:
        if "dot -Tpng" in line and not has_graphviz:
            continue  # "needs Graphviz", says the line
        result = subprocess.run(["sh", "-c", line], cwd=work, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        # lookup's example has a non-word on purpose: exit 1 is an answer, not a failure.
        assert result.returncode in (0, 1), f"{line}\n{result.stderr}"
        assert "Traceback" not in result.stderr, f"{line}\n{result.stderr}"
        if result.returncode == 1:
            assert "lookup" in line or "find" in line, f"{line}\n{result.stderr}"
    assert (work / "build" / "dictionary.dafsa").is_file() and (work / "small.dafsa").is_file()


def test_the_readme_python_examples_run(tmp_path: Path) -> None:
    blocks = re.findall(r"^```python\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) >= 2  # the solver's and the queries'
    for code in blocks:
        result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{code}\n{result.stderr}"


def test_the_score_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    setup = [line for line in runnable_lines() if line.startswith("printf") and ("alice" in line or "bob" in line or "chloé" in line)]
    for line in setup:
        subprocess.run(["sh", "-c", line], cwd=tmp_path, check=True, env=env)
    [shown] = re.findall(r"^\$ (boggle-dafsa score .*?)\n(.*?)^```", README, flags=re.MULTILINE | re.DOTALL)
    result = subprocess.run(["sh", "-c", shown[0]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.stdout == shown[1]


# -- the command table ---------------------------------------------------------------------


def readme_commands() -> dict[str, str]:
    """The command reference table: command name -> the usage written for it."""
    section = README.split("## Command reference", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)([^`]*)` \|", section, flags=re.MULTILINE)
    return {name: usage.replace("\\|", "|") for name, usage in rows}


def app_commands() -> dict[str, str]:
    """Each command of the app and its --help text, as the installed command prints them."""
    env = {**os.environ, "COLUMNS": "250", "TERM": "dumb", "NO_COLOR": "1"}
    listing = subprocess.run([sys.executable, "-m", "boggle_dafsa", "--help"], capture_output=True, text=True, env=env, timeout=60)
    names = re.findall(r"^[│|]? {1,2}([a-z][a-z-]+) {2,}\S", listing.stdout, flags=re.MULTILINE)
    assert names, listing.stdout + listing.stderr
    helps = {}
    for name in names:
        result = subprocess.run([sys.executable, "-m", "boggle_dafsa", name, "--help"], capture_output=True, text=True, env=env, timeout=60)
        assert result.returncode == 0, result.stderr
        helps[name] = result.stdout
    return helps


def test_the_readme_command_table_is_the_apps() -> None:
    documented = readme_commands()
    helps = app_commands()
    assert sorted(documented) == sorted(helps)
    for name, usage in documented.items():
        for option in re.findall(r"--[a-z][a-z-]*", usage):
            assert option in helps[name], f"README gives {name} {option}, which `{name} --help` does not show"
