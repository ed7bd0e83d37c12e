"""The one seam for every compiled part: which C extensions exist, and which kernel runs each.

Every compiled extension is an optional twin of pure-Python code. This module alone

* knows the extensions (:data:`PARTS`: a part's name, what it does, its module);
* reads ``BOGGLE_DAFSA_PURE`` (:func:`pure`): unset, empty, ``0``, ``false``, ``no`` or
  ``off``: compiled parts run where they were built; ``1``, ``true``, ``yes`` or ``on``: pure
  Python everywhere; anything else is a one-line :class:`KernelSettingError`;
* loads an extension (:func:`load`), or says why it will not (:func:`missing`);
* answers the two questions every part asks: which kernels it has here
  (:func:`available`, a tuple of names) and which one runs and why (:func:`status`, the
  text ``--version`` prints; :func:`choose`, the name).

**When it is read: at each call, never at import.** Every part (the solver, the builder,
the query walks, the census, the prover, ``--version``) asks this module at the moment a
call needs a kernel (a search, a build, a walk, a census), so setting the variable after
``import boggle_dafsa`` takes effect at the next call of every part alike. What a call has
already made keeps its kernel: a :class:`~boggle_dafsa.solver.PreparedSolver`, a
dictionary whose compiled lookups are armed. ``BOGGLE_DAFSA_PURE`` decides what "auto"
runs; a kernel asked for by name runs where it is built (the tests compare the twins so).

The kernel names: ``"c"`` (compiled) and ``"python"`` (its twin) for every part, and for
the solver a third, ``"generic"`` (:data:`GENERIC`: any dictionary, walked through its
cursor; it has no compiled twin). Adding an extension: one :class:`Part` in :data:`PARTS`
and one ``Extension`` in ``setup.py``; its Python module asks :func:`load` for it (at each
call) and falls back to its twin on None.
"""

from __future__ import annotations

import os
from importlib import import_module
from types import ModuleType

from boggle_dafsa.errors import BoggleError

#: The environment variable that forces every pure-Python twin.
PURE_VARIABLE = "BOGGLE_DAFSA_PURE"
#: The kernel names: a compiled part, or its pure-Python twin.
C, PYTHON = "c", "python"
KERNELS = (C, PYTHON)
#: The solver's third kernel: any dictionary, through its cursor (no compiled twin).
GENERIC = "generic"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


class KernelSettingError(BoggleError):
    """``BOGGLE_DAFSA_PURE`` holds a value that is neither true nor false, or a kernel is unknown."""


class Part:
    """One compiled extension: its name in ``--version``, what it does, its module."""

    __slots__ = ("name", "module", "twin", "others")

    def __init__(self, name: str, module: str, twin: str, others: tuple[str, ...] = ()) -> None:
        self.name = name
        #: The dotted name of the extension module (``setup.py`` builds it).
        self.module = module
        #: The dotted name of the pure-Python module that is its twin.
        self.twin = twin
        #: The part's kernels besides "c" and "python", tried after them ("generic").
        self.others = others

    @property
    def kernels(self) -> tuple[str, ...]:
        """Every kernel name of this part, in the order "auto" tries them."""
        return (*KERNELS, *self.others)


#: Every compiled part, in the order ``--version`` names them.
PARTS: dict[str, Part] = {
    part.name: part
    for part in (
        Part("solver", "boggle_dafsa.solver._native", "boggle_dafsa.solver.python", (GENERIC,)),
        Part("builder", "boggle_dafsa.automaton._builder", "boggle_dafsa.automaton.stream"),
        Part("query walk", "boggle_dafsa.query._walk", "boggle_dafsa.query.walk"),
        Part("census", "boggle_dafsa.automaton._census", "boggle_dafsa.dictionary"),
        Part("prover", "boggle_dafsa.search._prove", "boggle_dafsa.search.prove"),
    )
}


def pure() -> bool:
    """True when ``BOGGLE_DAFSA_PURE`` asks for pure Python everywhere.

    Read at each call (cheap), never cached: every part asks through :func:`load`,
    :func:`missing`, :func:`choose` or :func:`status` when a call needs a kernel, so that a
    test or a program may change it after import; a value that is
    neither true nor false raises :class:`KernelSettingError` (the CLI's one-line error).
    """
    value = os.environ.get(PURE_VARIABLE, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise KernelSettingError(
        f"{PURE_VARIABLE}={os.environ[PURE_VARIABLE]!r}: expected 1, true or yes (pure Python everywhere) "
        "or 0, false, no or unset (compiled kernels where built)"
    )


_loaded: dict[str, ModuleType | None] = {}


def built(name: str) -> ModuleType | None:
    """The extension of part ``name`` if it was built (whatever ``BOGGLE_DAFSA_PURE`` says), else None."""
    if name not in _loaded:
        try:
            _loaded[name] = import_module(PARTS[name].module)
        except ImportError:
            _loaded[name] = None
    return _loaded[name]


def load(name: str) -> ModuleType | None:
    """The extension of part ``name``, or None when it must not or cannot run (then use its twin)."""
    return None if pure() else built(name)


def missing(name: str) -> str | None:
    """Why part ``name`` runs on its Python twin (``"BOGGLE_DAFSA_PURE=1"``, not built), or None."""
    if pure():
        return f"{PURE_VARIABLE}={os.environ[PURE_VARIABLE].strip()}"
    if built(name) is None:
        return "the C extension is not built"
    return None


def status(name: str) -> str:
    """``c (compiled)``, ``python (BOGGLE_DAFSA_PURE=1)`` or ``python (the C extension is not built)``."""
    why = missing(name)
    return f"{C} (compiled)" if why is None else f"{PYTHON} ({why})"


def choose(name: str, kernel: str = "auto") -> str:
    """The kernel ``kernel`` stands for, for part ``name``: "auto" is "c" unless :func:`missing` says why not.

    Asking for "c" where it is not built (or forced off) raises :class:`KernelSettingError`.
    """
    if kernel == "auto":
        return C if missing(name) is None else PYTHON
    known = PARTS[name].kernels
    if kernel not in known:
        raise KernelSettingError(f"unknown kernel {kernel!r} (known: auto, {', '.join(known)})")
    if kernel == C and built(name) is None:
        raise KernelSettingError(f"the compiled {name} kernel is not built in this installation")
    return kernel


def available(name: str) -> tuple[str, ...]:
    """The kernels part ``name`` runs here when asked for by name, in the order "auto" tries them.

    ``("c", "python")`` when built, else ``("python",)``; the solver adds ``"generic"``.
    ``BOGGLE_DAFSA_PURE`` does not change it (it decides what "auto" runs: :func:`choose`).
    The one list of kernels: every part and every test's twin fixture takes it from here.
    """
    part = PARTS[name]
    return part.kernels if built(name) is not None else (PYTHON, *part.others)


def version_parts() -> str:
    """``solver kernel: c (compiled); builder kernel: ...``: what ``--version`` says of each part."""
    return "; ".join(f"{name} kernel: {status(name)}" for name in PARTS)
