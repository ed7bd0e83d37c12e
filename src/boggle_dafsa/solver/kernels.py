"""The solver's kernels and the one place that chooses among them.

A kernel turns (a dictionary, the grid's faces, the neighbour table, a minimum length)
into a dict from each word to its first path; :func:`select` picks one. Registered,
in the order "auto" tries them:

* "c" — the compiled native kernel (``_native.c``), when it was built and
  ``BOGGLE_DAFSA_PURE=1`` is not set;
* "python" — its pure-Python twin (:mod:`.python`), for native files of up to 31 letters;
* "generic" — any dictionary, through its cursor (:mod:`.generic`).

The names and which of them this installation has are the seam's
(:func:`boggle_dafsa.compiled.available`, ``"solver"``); whether "auto" may take "c" is
asked of the seam at each :func:`select`, never at import, as every other part does.

Adding a kernel is one :func:`register` call. A kernel over the native layout only
needs a function ``search(layout, faces, table, min_length)`` and :class:`LayoutKernel`
(see :func:`_register_compiled`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from boggle_dafsa import compiled as seam
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.solver import python as native

#: Word → first path: what every kernel returns.
Found = dict[str, tuple[int, ...]]

if TYPE_CHECKING:
    from boggle_dafsa.automaton.fileformat import NativeLayout
    from boggle_dafsa.dictionary import Dictionary

    #: The signature of a kernel over the native layout (Python twin and compiled alike);
    #: for the type checker only (a string in a Callable is compiled at import).
    LayoutSearch = Callable[[NativeLayout, tuple[str, ...], tuple[tuple[int, ...], ...], int], Found]


class Kernel(Protocol):
    """A way to find every word of a dictionary on a grid."""

    @property
    def name(self) -> str:
        """The name ``solve(kernel=...)`` takes."""
        ...

    @property
    def compiled(self) -> bool:
        """True for compiled code (never loaded when ``BOGGLE_DAFSA_PURE=1``)."""
        ...

    def accepts(self, dictionary: Dictionary[Any], cells: int) -> bool:
        """True if this kernel can search ``dictionary`` on a grid of ``cells`` cells."""
        ...

    def search(
        self, dictionary: Dictionary[Any], faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
    ) -> Found:
        """Word → first path (see :func:`boggle_dafsa.solver.solve` for which path)."""
        ...


class LayoutKernel:
    """A kernel that reads the cells of a native file itself, through :meth:`layout`.

    Plain classes with slots rather than NamedTuples: cheaper to create at import.
    """

    __slots__ = ("name", "function", "compiled", "max_depth", "solver_class")

    def __init__(
        self,
        name: str,
        function: LayoutSearch,
        compiled: bool = False,
        max_depth: int | None = None,
        solver_class: Any = None,
    ) -> None:
        self.name = name
        self.function = function
        self.compiled = compiled
        #: Deepest path the function can walk (None: any); deeper grids go to another kernel.
        self.max_depth = max_depth
        #: Its solver prepared per shape and rules (``native.Solver`` or ``_native.Solver``),
        #: which :class:`~.prepared.PreparedSolver` uses; None if it has none.
        self.solver_class = solver_class

    def accepts(self, dictionary: Dictionary[Any], cells: int) -> bool:
        """True for a dictionary with a native layout and paths within :attr:`max_depth`."""
        layout = native_layout(dictionary)
        if layout is None:
            return False
        return self.max_depth is None or min(cells, layout.longest_word) <= self.max_depth

    def search(
        self, dictionary: Dictionary[Any], faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
    ) -> Found:
        """Run :attr:`function` over the dictionary's layout."""
        layout = native_layout(dictionary)
        if layout is None:
            raise ValueError(f"kernel {self.name!r} needs a native dictionary of at most 31 letters")
        try:
            return self.function(layout, faces, table, min_length)
        except IndexError:
            # Only a damaged file points outside its cells.
            raise DictionaryError(f"{layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None


class CursorKernel:
    """A kernel that walks any dictionary through its cursor."""

    __slots__ = ("name", "function", "compiled")

    def __init__(
        self,
        name: str,
        function: Callable[[Dictionary[Any], tuple[str, ...], tuple[tuple[int, ...], ...], int], Found],
        compiled: bool = False,
    ) -> None:
        self.name = name
        self.function = function
        self.compiled = compiled

    def accepts(self, dictionary: Dictionary[Any], cells: int) -> bool:
        """Always true: every dictionary has a cursor."""
        return True

    def search(
        self, dictionary: Dictionary[Any], faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
    ) -> Found:
        """Run :attr:`function` over the dictionary."""
        return self.function(dictionary, faces, table, min_length)


def native_layout(dictionary: object) -> NativeLayout | None:
    """The :class:`NativeLayout` a layout kernel walks, or None: only the native reader has
    one (and only for alphabets of up to 31 letters); every other dictionary answers None."""
    layout = getattr(dictionary, "layout", None)
    return layout() if callable(layout) else None


_REGISTRY: dict[str, Kernel] = {}


def register(kernel: Kernel) -> None:
    """Make ``kernel`` available; "auto" tries compiled kernels first, then in registration order."""
    _REGISTRY[kernel.name] = kernel


def available_kernels() -> tuple[str, ...]:
    """``compiled.available("solver")``: the kernels this installation runs when asked by name
    (a thin alias of the seam, kept as public API)."""
    return seam.available("solver")


def _named(name: str) -> Kernel | None:
    # The kernel registered as `name`; the compiled one is registered on first need, so
    # that a process that never asks for it never loads it.
    if name == seam.C and name not in _REGISTRY:
        _register_compiled()
    return _REGISTRY.get(name)


def _ordered() -> list[Kernel]:
    # The kernels "auto" tries, compiled first when the seam says so now.
    compiled = seam.missing("solver") is None
    if compiled:
        _named(seam.C)
    kernels = list(_REGISTRY.values())
    return [k for k in kernels if k.compiled and compiled] + [k for k in kernels if not k.compiled]


def select(dictionary: Dictionary[Any], kernel: str = "auto", *, cells: int = 0) -> Kernel:
    """The kernel that will search ``dictionary`` on a grid of ``cells`` cells.

    "auto" takes the first available kernel that accepts the dictionary (compiled
    first); a name asks for that kernel, and raises ``ValueError`` if it is not
    available or cannot read this dictionary.
    """
    if kernel == "auto":
        for candidate in _ordered():
            if candidate.accepts(dictionary, cells):
                return candidate
        raise AssertionError("the generic kernel accepts every dictionary")
    chosen = _named(kernel)
    if chosen is None:
        raise ValueError(f"unknown or unavailable kernel {kernel!r} (available: {', '.join(available_kernels())})")
    if not chosen.accepts(dictionary, cells):
        raise ValueError(f"kernel {kernel!r} cannot search this dictionary on this grid")
    return chosen


def _generic_search(
    dictionary: Dictionary[Any], faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
) -> Found:
    # A native file over 31 letters: the layout kernels walk the part of it spelled with
    # the grid's letters, remapped to at most 31 bits (NativeDictionary.layout_for); the
    # cursor when that part is over 31 letters or too deep for them.
    if native_layout(dictionary) is None and hasattr(dictionary, "layout_for"):
        layout = dictionary.layout_for({letter for face in faces for letter in face})
        if layout is not None:
            for candidate in _ordered():
                if isinstance(candidate, LayoutKernel) and (
                    candidate.max_depth is None or min(len(faces), layout.longest_word) <= candidate.max_depth
                ):
                    try:
                        return candidate.function(layout, faces, table, min_length)
                    except IndexError:
                        raise DictionaryError(f"{layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None
    # Imported on first use: native files, the common case, never need it (start-up time).
    from boggle_dafsa.solver.generic import search

    return search(dictionary, faces, table, min_length)


def _register_builtin() -> None:
    register(LayoutKernel(seam.PYTHON, native.search, max_depth=native.MAX_DEPTH, solver_class=native.Solver))
    register(CursorKernel(seam.GENERIC, _generic_search))


def _register_compiled() -> None:
    # The C twin of `python.search`, when it was built: same arguments, same result.
    if seam.built("solver") is not None:
        from boggle_dafsa.solver import c

        register(LayoutKernel(seam.C, c.search, compiled=True, solver_class=c.Solver))


def kernel_for(dictionary: Dictionary[Any]) -> str:
    """The kernel "auto" runs on ``dictionary`` (for a 4x4 grid), with why when it is not compiled."""
    name = select(dictionary, "auto", cells=16).name
    missing = seam.missing("solver")
    if name == seam.PYTHON and missing is not None:
        return f"python ({missing})"
    if name == seam.GENERIC:
        if hasattr(dictionary, "layout_for"):
            fast = _ordered()[0].name
            return f"generic (over 31 letters: the part a grid's letters spell, remapped to 31 bits, walked by {fast})"
        return "generic (the cursor: no native layout)"
    return name


def kernel_status() -> str:
    """``compiled.status("solver")`` (a thin alias, kept as public API): which kernel searches
    native dictionaries, and why: ``c (compiled)``, or ``python (the C extension is not
    built)`` / ``python (BOGGLE_DAFSA_PURE=1)``."""
    return seam.status("solver")


_register_builtin()
