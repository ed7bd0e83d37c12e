"""The one seam for compiled parts (boggle_dafsa.compiled): BOGGLE_DAFSA_PURE, kernel names, --version."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boggle_dafsa import compiled

PACKAGE = Path(compiled.__file__).resolve().parent


@pytest.mark.parametrize(
    "value, expected",
    [
        ("1", True),
        ("true", True),
        ("TRUE", True),
        ("yes", True),
        (" on ", True),
        ("", False),
        ("0", False),
        ("false", False),
        ("no", False),
        ("off", False),
        (None, False),
    ],
)
def test_pure_reads_true_and_false_words(monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool) -> None:
    if value is None:
        monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(compiled.PURE_VARIABLE, value)
    assert compiled.pure() is expected
    for name in compiled.PARTS:
        assert compiled.choose(name) == ("python" if expected or compiled.built(name) is None else "c")
        assert (compiled.load(name) is None) == (expected or compiled.built(name) is None)


@pytest.mark.parametrize("value", ["2", "maybe", "y", "nope", "-1"])
def test_anything_else_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(compiled.PURE_VARIABLE, value)
    with pytest.raises(compiled.KernelSettingError, match=re.escape(repr(value))):
        compiled.pure()


def test_asking_for_an_unknown_kernel_names_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    with pytest.raises(compiled.KernelSettingError, match="auto, c, python"):
        compiled.choose("solver", "compiled")
    assert compiled.choose("solver", "python") == "python"


def _version(value: str | None) -> subprocess.CompletedProcess[str]:
    env = {key: val for key, val in os.environ.items() if key != compiled.PURE_VARIABLE}
    if value is not None:
        env[compiled.PURE_VARIABLE] = value
    return subprocess.run(
        [sys.executable, "-m", "boggle_dafsa", "--version"], capture_output=True, text=True, env=env, timeout=60
    )


@pytest.mark.parametrize("value", ["1", "true", "yes"])
@pytest.mark.slow
def test_version_names_every_part_on_python_when_pure(value: str) -> None:
    shown = _version(value).stdout
    assert shown.startswith("boggle-dafsa ")
    for name in compiled.PARTS:
        assert f"{name} kernel: python ({compiled.PURE_VARIABLE}={value})" in shown


@pytest.mark.parametrize("value", [None, "0", "false"])
@pytest.mark.slow
def test_version_names_every_part_on_its_compiled_kernel_where_built(value: str | None) -> None:
    shown = _version(value).stdout
    for name in compiled.PARTS:
        expected = "c (compiled)" if compiled.built(name) is not None else "python (the C extension is not built)"
        assert f"{name} kernel: {expected}" in shown


def test_a_malformed_setting_is_one_line_and_exit_2() -> None:
    result = _version("maybe")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "BOGGLE_DAFSA_PURE='maybe'" in result.stderr


def test_every_compiled_source_is_a_registered_part() -> None:
    sources = {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) for path in PACKAGE.rglob("_*.c")}
    assert sources <= {part.module for part in compiled.PARTS.values()}


def test_only_the_seam_reads_the_environment_variable() -> None:
    readers = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if re.search(r"environ[^\n]*(PURE_VARIABLE|BOGGLE_DAFSA_PURE)", path.read_text(encoding="utf-8"))
    ]
    assert readers == ["compiled.py"]


def _every_part_says(expected_pure: bool, tmp_path: Path) -> dict[str, str]:
    # What each part runs now, asked the way each asks the seam (at the call).
    from boggle_dafsa.automaton import reader, stream
    from boggle_dafsa.cli import version_text
    from boggle_dafsa.query import walk
    from boggle_dafsa.search import prove
    from boggle_dafsa.solver import PreparedSolver, kernel_status, prepared_solver
    from boggle_dafsa.solver.kernels import kernel_for, select
    from helpers.dictionaries import dictionary_from_words

    dictionary = dictionary_from_words(["abc", "abd"], tmp_path, name=f"seam{int(expected_pure)}.dafsa")
    census = reader._compiled_census()
    prover = prove.compiled_kernel()
    return {
        "solver select": select(dictionary, "auto", cells=16).name,
        "solver prepared": PreparedSolver(dictionary, (2, 2)).kernel,
        "solver kept": prepared_solver(dictionary, (2, 2)).kernel,
        "solver status": kernel_status().split()[0],
        "solver inspect": kernel_for(dictionary).split()[0],
        "builder": stream.default_kernel().name,
        "builder status": stream.kernel_status().split()[0],
        "query walk": walk.select_kernel(),
        "census": "python" if census is None else "c",
        "prover": "python" if prover is None else "c",
        **{f"--version {name}": version_text().split(f"{name} kernel: ")[1].split()[0] for name in compiled.PARTS},
    }


def test_the_variable_set_after_import_reaches_every_part_at_its_next_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Every part asks the seam at call time (compiled.py's docstring): a kernel read once at
    # import (as solver/kernels.py did) would still say "c" here.
    import boggle_dafsa.cli  # noqa: F401 - everything imported, with the variable unset
    import boggle_dafsa.search.prove  # noqa: F401
    import boggle_dafsa.solver  # noqa: F401

    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    before = _every_part_says(False, tmp_path)
    for part, kernel in before.items():
        name = next(name for name in compiled.PARTS if part.removeprefix("--version ").startswith(name))
        assert kernel == ("c" if compiled.built(name) is not None else "python"), part
    monkeypatch.setenv(compiled.PURE_VARIABLE, "1")
    assert _every_part_says(True, tmp_path) == dict.fromkeys(before, "python")
    monkeypatch.setenv(compiled.PURE_VARIABLE, "0")
    assert _every_part_says(False, tmp_path) == before


def test_one_list_of_kernels_names_generic_for_the_solver_only() -> None:
    for name, part in compiled.PARTS.items():
        built = compiled.built(name) is not None
        assert compiled.available(name) == (("c",) if built else ()) + ("python",) + (
            (compiled.GENERIC,) if name == "solver" else ()
        )
        assert part.kernels[:2] == compiled.KERNELS
    assert compiled.choose("solver", "generic") == "generic"
    with pytest.raises(compiled.KernelSettingError, match="auto, c, python, generic"):
        compiled.choose("solver", "cursor")
    with pytest.raises(compiled.KernelSettingError, match=r"auto, c, python\)"):
        compiled.choose("query walk", "generic")


def test_the_docs_name_the_kernels_and_the_parts_of_the_seam() -> None:
    # CONTRIBUTING.md's kernel names are compiled.PARTS's (c and python for every part, each
    # other kernel with its part), and every list of the parts the docs give is PARTS, in order.
    root = Path(__file__).resolve().parent.parent  # the checkout's docs (the package may be an installed wheel)
    contributing = (root / "CONTRIBUTING.md").read_text(encoding="utf-8")
    sentence = " ".join(contributing.split("- the kernel names are the seam's:", 1)[1].split(";", 1)[0].split())
    others = [(kernel, name) for name, part in compiled.PARTS.items() for kernel in part.others]
    assert re.findall(r"`(\w+)`", sentence) == [*compiled.KERNELS, *(kernel for kernel, _ in others)]
    assert all(f"`{kernel}` for the {name}" in sentence for kernel, name in others)
    lists = 0
    for page in (root / "CONTRIBUTING.md", root / "docs" / "commands.md"):
        for listed in re.findall(r"\((solver, [^)]*)\)", " ".join(page.read_text(encoding="utf-8").split())):
            lists += 1
            assert [name for name in listed.split(", ") if not name.startswith("`")] == list(compiled.PARTS), page.name
    assert lists >= 2


def test_a_kernel_named_runs_where_built_whatever_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from boggle_dafsa.solver.kernels import select
    from helpers.dictionaries import dictionary_from_words

    dictionary = dictionary_from_words(["abc"], tmp_path)
    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    kernels = compiled.available("solver")
    monkeypatch.setenv(compiled.PURE_VARIABLE, "1")
    assert compiled.available("solver") == kernels  # the variable decides what "auto" runs, not the list
    for kernel in kernels:
        assert select(dictionary, kernel, cells=4).name == kernel
    assert select(dictionary, "auto", cells=4).name == "python"


@pytest.mark.slow
@pytest.mark.parametrize("value", ["1", ""])
def test_inspect_names_the_solver_kernel_the_variable_chooses(tmp_path: Path, value: str) -> None:
    # The installed console script, in a new process: what `inspect --json` says runs a search.
    from conftest import COMMAND

    from helpers.dictionaries import dictionary_from_words

    dictionary = dictionary_from_words(["abc"], tmp_path)
    shown = subprocess.run(
        [COMMAND, "inspect", "-d", dictionary.path, "--json"],
        env={**os.environ, compiled.PURE_VARIABLE: value},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    expected = "python (BOGGLE_DAFSA_PURE=1)" if value else "c" if compiled.built("solver") is not None else "python ("
    assert f'"solver_kernel": "{expected}' in shown.stdout


def test_the_tests_take_their_kernels_from_the_twin_fixture() -> None:
    # One list of kernels per part (tests/helpers/kernels.py, from compiled.available): a test
    # that types its own list, or asks a part's alias for one, stops following PARTS.
    from helpers import kernels

    assert set(kernels.TWINS) == set(compiled.PARTS)
    for name in compiled.PARTS:
        assert kernels.TWINS[name] == tuple(kernel for kernel in compiled.available(name) if kernel in compiled.KERNELS)
    typed = re.compile(
        r"""[\[(]\s*["'](?:c|python)["']\s*,\s*["'](?:c|python)["']"""  # a list or tuple of kernel names
        r"""|\*\(\[["']c["']\]\s*if"""  # ["python", *(["c"] if ...)]
        r"""|\bavailable_kernels\(\)|(?<!`)compiled\.available\(|\bkernels\(\)"""  # a part's own list
    )
    tests = Path(__file__).resolve().parent
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(tests.glob("test_*.py"))
        if path.name != "test_seam.py"  # which tests the seam's list itself
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if typed.search(line) and not line.strip().startswith(('"', "'"))  # code a child process runs
    ]
    assert not found, found
    # The check sees what it looks for.
    assert typed.search('KERNELS = ["python", *(["c"] if COMPILED else [])]') and typed.search(
        "for k in walk.available_kernels():"
    )
