"""The compiled kernel ("c") behind the seam's plain signature, like ``native.search``.

``_native.Solver`` is prepared per dictionary, shape and rules (see :mod:`.prepared`,
which :func:`boggle_dafsa.solver.solve` uses and which also ranks and builds the hits
in C). :func:`search` keeps a few prepared solvers for callers of the plain kernel
signature (word → first path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.solver import _native  # type: ignore[attr-defined]
from boggle_dafsa.solver.python import FOUND, FaceCodes, TooManyFaces, twin_result

if TYPE_CHECKING:
    from boggle_dafsa.automaton.fileformat import NativeLayout

#: The low-level solver class of this kernel.
Solver = _native.Solver

# (layout, table) ids and min_length -> (layout, table, codes): the layout and the table
# are kept with their solver, so that their ids stay theirs.
_KEPT: dict[tuple[int, int, int], tuple[Any, Any, FaceCodes]] = {}


def search(
    layout: NativeLayout, faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path of every word of at least ``min_length`` letters (as ``native.search``)."""
    key = (id(layout), id(table), min_length)
    entry = _KEPT.get(key)
    if entry is None or entry[0] is not layout or entry[1] is not table:
        if len(_KEPT) >= 16:
            _KEPT.clear()
        entry = _KEPT[key] = (layout, table, _codes(layout, table, min_length))
    codes = entry[2]
    try:
        encoded = codes.encode(faces)
    except TooManyFaces:
        # Other grids' faces took the codes: afresh for this one.
        codes = _codes(layout, table, min_length)
        _KEPT[key] = (layout, table, codes)
        try:
            encoded = codes.encode(faces)
        except TooManyFaces:
            return twin_result(layout, faces, table, min_length, (0,), FOUND, tuple)  # type: ignore[no-any-return]
    return codes.solver.solve(encoded, FOUND)  # type: ignore[no-any-return]


def _codes(layout: NativeLayout, table: tuple[tuple[int, ...], ...], min_length: int) -> FaceCodes:
    solver = Solver(
        layout.cells,
        layout.root,
        layout.longest_word,
        layout.alphabet,
        table,
        min_length,
        (0,),
        tuple,
        DictionaryError,
        layout.source,
    )
    return FaceCodes(solver, layout)
