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
def test_version_names_every_part_on_python_when_pure(value: str) -> None:
    shown = _version(value).stdout
    for name in compiled.PARTS:
        assert f"{name} kernel: python ({compiled.PURE_VARIABLE}={value})" in shown


@pytest.mark.parametrize("value", [None, "0", "false"])
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
