"""The twin fixture: one list of kernels per compiled part, from the seam, for every test that
runs "over every available kernel" and compares the twins.

Each list is ``compiled.available(part)`` (never typed in a test), so a part registered in
``compiled.PARTS`` is tested on every kernel it has here, and a pure-Python installation runs
the twins it has (``("python",)``). :func:`each` parametrizes a test over a part's twins;
:func:`forced` runs the kernels that "auto" picks (a dictionary's lookups, a walk) on one of them.

``BOGGLE_DAFSA_REQUIRE_C=1`` (CI) turns a part that is not built into an error at import, so
that a comparison is never skipped silently where the kernels should all be built."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from boggle_dafsa import compiled
from boggle_dafsa.automaton.stream import kernels as builders

if os.environ.get("BOGGLE_DAFSA_REQUIRE_C") == "1":  # pragma: no cover - CI guard
    _unbuilt = [name for name in compiled.PARTS if compiled.built(name) is None]
    if _unbuilt:
        raise RuntimeError(f"BOGGLE_DAFSA_REQUIRE_C=1 but these compiled parts are not built: {', '.join(_unbuilt)}")


def twins(part: str) -> tuple[str, ...]:
    """The kernels of ``part`` that are a compiled part or its twin: ``("c", "python")`` where built, else ``("python",)``."""
    return tuple(name for name in compiled.available(part) if name in compiled.KERNELS)


#: Every part's twins, by the part's name in ``compiled.PARTS``.
TWINS: dict[str, tuple[str, ...]] = {part: twins(part) for part in compiled.PARTS}
SOLVER = TWINS["solver"]
BUILDER = TWINS["builder"]
WALK = TWINS["query walk"]
CENSUS = TWINS["census"]
PROVER = TWINS["prover"]
#: The solver's kernels with ``"generic"`` (any dictionary, through its cursor), which has no twin.
SOLVER_ALL = compiled.available("solver")


def each(part: str, argname: str = "kernel") -> pytest.MarkDecorator:
    """Parametrize a test over the twins of ``part`` (its argument ``argname`` takes each name)."""
    return pytest.mark.parametrize(argname, TWINS[part])


def built(part: str) -> bool:
    """Whether the compiled kernel of ``part`` is built here (whatever ``BOGGLE_DAFSA_PURE`` says)."""
    return compiled.built(part) is not None


def requires_c(part: str) -> pytest.MarkDecorator:
    """Skip a test that reads the compiled kernel of ``part`` itself where it is not built."""
    return pytest.mark.skipif(not built(part), reason=f"the compiled {part} is not built")


def builder_kernel(name: str) -> Any:
    """The builder kernel ``name`` (``"c"`` or ``"python"``) as the writer takes it
    (``automaton.stream.kernels``), or None where it is not built (a writer then takes the default)."""
    return builders().get(name)


@contextmanager
def forced(name: str) -> Iterator[None]:
    """Inside, "auto" runs kernel ``name`` (``"c"`` or ``"python"``) in every part: the seam reads
    ``BOGGLE_DAFSA_PURE`` at each call (a dictionary arms its lookups, a walk starts)."""
    saved = os.environ.get(compiled.PURE_VARIABLE)
    os.environ[compiled.PURE_VARIABLE] = "1" if name == compiled.PYTHON else "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[compiled.PURE_VARIABLE]
        else:
            os.environ[compiled.PURE_VARIABLE] = saved
