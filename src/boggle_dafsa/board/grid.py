"""Boggle grids of any shape: parsing the GRID syntax, printing it back, and neighbour tables.

The syntax (see docs/solve.md, "The GRID syntax"):

* ``IDXTMHEIERVNTLLU``: a run of letters whose count is a square (4, 9, 16...) is a
  square grid, row by row; any other run (``SALUT``) is a single row.
* ``IDXT/MHEI/ERVN/TLLU``: rows separated by ``/``; ``//`` separates the layers of a
  3-D grid, ``///`` the blocks of a 4-D one, and so on. A trailing separator only says
  how many dimensions there are (``ABCD/`` is one row of four, not a 2x2 square).
* ``QU E S T/A B C D``: in a row (or a run) holding whitespace, each whitespace-separated
  token is one face, which is how multi-letter faces are written (3 letters at most:
  ``IDXT MHEI`` is refused, not read as two faces of four letters).
* ``.`` is a blank face (Super Big Boggle's blank dice faces): a cell no word can
  cross, written ``.`` in every syntax (``AB.D``, ``QU . E S``, on standard input too).
* A grid has 16 dimensions at most.
* Case and accents go through the dictionary's normalization (``é`` is ``E`` in French).

Cells are numbered row-major (the last coordinate varies fastest); a path is a tuple of
cell numbers and :meth:`Grid.coordinates` turns a number into its coordinates.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from boggle_dafsa.errors import GridError
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.normalize import normalize as normalize_word

#: The adjacencies :func:`neighbours` knows: every cell whose coordinates each differ by
#: at most one ("king", the Boggle rule), or by one along a single axis ("orthogonal").
ADJACENCIES: tuple[str, ...] = ("king", "orthogonal")
#: Most dimensions a grid may have (a 2x2x...x2 grid of 16 dimensions has 65,536 cells).
MAX_DIMENSIONS = 16
#: Most letters a face may have: real multi-letter faces (QU, TH, IN, ER...) have 2.
MAX_FACE_LETTERS = 3
#: A blank face: no letter, so no word goes through its cell (it is in no alphabet).
BLANK = "."
#: Most (cell, neighbour) pairs a neighbour table may hold: a 1000x1000 grid has about
#: 8 million, a 2x2x...x2 grid of 16 dimensions 4 billion (every cell touches every other).
MAX_ADJACENCIES = 1 << 24
#: Most cells a grid may have (128x128; a 100x100 grid has 10,000). The solver keeps a
#: cell-wide bitmask per cell, so its tables grow with cells²: 16 MB here, 62 GB for a
#: 1000x1000 grid, which is refused when it is parsed instead.
MAX_CELLS = 1 << 14
#: Longest grid text :meth:`Grid.parse` reads (enough for MAX_CELLS faces of 3 letters
#: with separators); a longer one is refused before any work is done on it.
MAX_GRID_CHARS = 1 << 18

Normalizer = Callable[[str], "str | None"]

#: Compiled on first use (re caches it): `solve GRID` without --shape never needs it.
_SHAPE_SEPARATOR = r"(?i)[x×*]"
_SLASH_RUN = re.compile(r"/+")


def _fold(text: str) -> str | None:
    return normalize_word(text, Policy.FOLD)


class Grid:
    """A grid of faces: ``shape`` (two dimensions or more) and the faces, row-major.

    Faces are already normalized (e.g. ``"E"``, ``"QU"``); build grids with :meth:`parse`,
    :meth:`parse_worddle` or :meth:`from_faces`, which normalize and check their input.
    Immutable, hashable and compared by value.
    """

    # A plain class rather than a frozen dataclass: `solve`'s start-up time (a dataclass
    # costs a millisecond or more to create at import).
    __slots__ = ("shape", "faces")
    shape: tuple[int, ...]
    faces: tuple[str, ...]

    def __init__(self, shape: Sequence[int], faces: Sequence[str]) -> None:
        # Accept lists too, and keep the grid hashable.
        object.__setattr__(self, "shape", tuple(shape))
        object.__setattr__(self, "faces", tuple(faces))
        if len(self.shape) < 2 or any(size < 1 for size in self.shape):
            raise GridError(f"bad grid shape {format_shape(self.shape)}: two dimensions or more, each at least 1")
        _check_dimensions(len(self.shape))
        _check_cells(self.shape)
        if len(self.faces) != math.prod(self.shape):
            raise GridError(f"{len(self.faces)} faces do not fill a {format_shape(self.shape)} grid")
        if not all(self.faces):
            raise GridError("a grid face is empty")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Grid is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Grid is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return self.shape == other.shape and self.faces == other.faces

    def __hash__(self) -> int:
        return hash((self.shape, self.faces))

    def __repr__(self) -> str:
        return f"Grid(shape={self.shape!r}, faces={self.faces!r})"

    def __reduce__(self) -> tuple[type[Grid], tuple[tuple[int, ...], tuple[str, ...]]]:
        # Pickled (to batch workers) as its constructor call: __setattr__ refuses the default way.
        return (Grid, (self.shape, self.faces))

    # -- building ------------------------------------------------------------------------

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        shape: Sequence[int] | None = None,
        normalize: Normalizer | None = None,
        q_is_qu: bool = False,
    ) -> Grid:
        """Parse the GRID syntax (see the module docstring).

        ``shape``, if given, is filled with the faces of a flat run in reading order, and
        must equal the shape that rows and layers spell otherwise. A text of several lines
        without ``/`` is read as :meth:`parse_worddle` reads it (lines are rows).
        ``normalize`` is the dictionary's normalization (default: upper case without
        accents); ``q_is_qu`` reads a lone Q as the QU face. Raises :class:`GridError`
        saying what and where.
        """
        if "\n" in text.strip() and "/" not in text:
            # Lines are rows, as on standard input (a board pasted from a file).
            return cls.parse_worddle(text, shape=shape, normalize=normalize, q_is_qu=q_is_qu)
        _check_length(text)
        normalize = normalize or _fold
        text = unicodedata.normalize("NFC", text).strip()
        # rstrip, not a regular expression: /+$ tries every slash of a long run (quadratic).
        stripped = text.rstrip("/")
        explicit_depth = len(text) - len(stripped)
        text = stripped.rstrip()
        if not text:
            raise GridError("empty grid")
        depth = max([explicit_depth, *(len(run) for run in _SLASH_RUN.findall(text))])
        # Checked before splitting, which recurses once per level.
        _check_dimensions(depth + 1, f"a run of {depth} slashes makes")
        wanted = tuple(shape) if shape is not None else None

        if depth == 0:
            raw = _split_faces(text)
            faces = [_normalize_face(face, normalize, q_is_qu, f"face {n}") for n, face in enumerate(raw, 1)]
            if wanted is None:
                side = math.isqrt(len(faces))
                wanted = (side, side) if side * side == len(faces) else (1, len(faces))
            return cls.from_faces(faces, wanted)

        nested_shape, raw = _split_nested(text, depth, location=())
        if wanted is not None and wanted != nested_shape:
            raise GridError(f"the grid is {format_shape(nested_shape)} but the shape given is {format_shape(wanted)}")
        faces = [_normalize_face(face, normalize, q_is_qu, _face_location(nested_shape, index)) for index, face in enumerate(raw)]
        return cls(nested_shape, tuple(faces))

    @classmethod
    def parse_worddle(
        cls,
        text: str,
        *,
        shape: Sequence[int] | None = None,
        normalize: Normalizer | None = None,
        q_is_qu: bool = False,
    ) -> Grid:
        """Parse a grid as read from standard input: faces separated by spaces or newlines.

        A text holding ``/`` is read as the GRID syntax. Otherwise the faces are taken in
        reading order (a line without spaces is a row of one-letter faces) and fill
        ``shape`` if given; else blank-line-separated blocks of equal lines make the
        layers of a 3-D grid, a square count makes a square, and equal lines make a
        rectangle. Raises :class:`GridError` when none of these applies.
        """
        if "/" in text:
            return cls.parse(text, shape=shape, normalize=normalize, q_is_qu=q_is_qu)
        _check_length(text)
        normalize = normalize or _fold
        text = unicodedata.normalize("NFC", text)
        blocks: list[list[list[str]]] = []
        for block in re.split(r"\n[ \t\r\f\v]*\n", text.strip()):
            lines = [_split_faces(line.strip()) for line in block.splitlines() if line.strip()]
            if lines:
                blocks.append(lines)
        raw = [face for block in blocks for line in block for face in line]
        if not raw:
            raise GridError("empty grid (nothing read from standard input)")
        faces = [_normalize_face(face, normalize, q_is_qu, f"face {n}") for n, face in enumerate(raw, 1)]
        count = len(faces)
        if shape is not None:
            return cls.from_faces(faces, tuple(shape))
        if len(blocks) > 1:
            layer_shapes = [_lines_shape(block, f"layer {n}") for n, block in enumerate(blocks, 1)]
            for number, layer_shape in enumerate(layer_shapes, start=1):
                if layer_shape != layer_shapes[0]:
                    raise GridError(
                        f"layer {number} is {format_shape(layer_shape)}, layer 1 is {format_shape(layer_shapes[0])} "
                        "(layers are separated by blank lines and must be equal)"
                    )
            return cls.from_faces(faces, (len(blocks), *layer_shapes[0]))
        side = math.isqrt(count)
        if side * side == count:
            return cls.from_faces(faces, (side, side))
        lines = blocks[0]
        if len({len(line) for line in lines}) == 1:
            return cls.from_faces(faces, (len(lines), len(lines[0])))
        raise GridError(f"{count} faces on lines of unequal length make no square grid: give the shape (e.g. 3x5)")

    @classmethod
    def from_faces(
        cls,
        faces: Iterable[str],
        shape: Sequence[int] | None = None,
        *,
        normalize: Normalizer | None = None,
        q_is_qu: bool = False,
    ) -> Grid:
        """A grid of ``faces`` in row-major order, filling ``shape`` (default: a square).

        Faces are normalized only if ``normalize`` is given (or ``q_is_qu`` is set).
        """
        faces = list(faces)
        if normalize is not None or q_is_qu:
            faces = [_normalize_face(face, normalize or _fold, q_is_qu, f"face {n}") for n, face in enumerate(faces, 1)]
        if not faces:
            raise GridError("empty grid")
        if shape is None:
            side = math.isqrt(len(faces))
            if side * side != len(faces):
                raise GridError(f"{len(faces)} faces make no square grid: give the shape")
            shape = (side, side)
        shape = tuple(shape)
        if len(faces) != math.prod(shape):
            raise GridError(f"{len(faces)} faces do not fit the shape {format_shape(shape)} ({math.prod(shape)} cells)")
        return cls(shape, tuple(faces))

    # -- reading -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.faces)

    def coordinates(self, index: int) -> tuple[int, ...]:
        """The coordinates of cell ``index``: (row, col) in 2-D, (layer, row, col) in 3-D..."""
        coordinates = []
        for size in reversed(self.shape):
            index, coordinate = divmod(index, size)
            coordinates.append(coordinate)
        return tuple(reversed(coordinates))

    def index(self, coordinates: Sequence[int]) -> int:
        """The cell number at ``coordinates`` (inverse of :meth:`coordinates`)."""
        index = 0
        for coordinate, size in zip(coordinates, self.shape, strict=True):
            if not 0 <= coordinate < size:
                raise IndexError(f"coordinates {tuple(coordinates)} outside a {format_shape(self.shape)} grid")
            index = index * size + coordinate
        return index

    def neighbours(self, adjacency: str = "king") -> tuple[tuple[int, ...], ...]:
        """``neighbours(adjacency)[i]``: the cells adjacent to cell ``i`` (cached per shape)."""
        return neighbours(self.shape, adjacency)

    def rows(self) -> list[tuple[str, ...]]:
        """The faces row by row (the rows of every layer, in order)."""
        width = self.shape[-1]
        return [self.faces[start : start + width] for start in range(0, len(self.faces), width)]

    def __str__(self) -> str:
        """The GRID syntax of this grid: ``Grid.parse(str(grid)) == grid``.

        Except for grids one face wide where a face has several letters: a row made of
        the single face ``QU`` reads back as the two faces Q and U.
        """
        separator = " " if any(len(face) > 1 for face in self.faces) else ""
        text = self._join(self.faces, self.shape, separator)
        if _needs_trailing_separator(self.shape):
            # A lone row (or layer) would read back as a square, or with fewer dimensions.
            text += "/" * (len(self.shape) - 1)
        return text

    @staticmethod
    def _join(faces: Sequence[str], shape: tuple[int, ...], separator: str) -> str:
        if len(shape) == 1:
            return separator.join(faces)
        step = len(faces) // shape[0]
        parts = [Grid._join(faces[i : i + step], shape[1:], separator) for i in range(0, len(faces), step)]
        return ("/" * (len(shape) - 1)).join(parts)


# -- shapes and neighbours ---------------------------------------------------------------


def parse_shape(text: str) -> tuple[int, ...]:
    """Parse ``-s``/``--shape``: ``4`` is 4x4, ``3x5`` three rows of five, ``4x4x4`` a cube.

    Raises :class:`GridError` for anything else.
    """
    # Split on the letter, then strip: \s*x\s* would rescan long runs of spaces (quadratic).
    parts = re.split(_SHAPE_SEPARATOR, text.strip()) if len(text) <= 1000 else []
    try:
        sizes = tuple(int(part.strip()) for part in parts)
    except ValueError:
        sizes = ()
    if not sizes or any(size < 1 for size in sizes):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise GridError(f"bad shape {shown!r}: expected N (for NxN) or sizes joined by x, like 3x5 or 4x4x4")
    _check_dimensions(len(sizes), "bad shape:")
    sizes = sizes * 2 if len(sizes) == 1 else sizes
    _check_cells(sizes)
    return sizes


def format_shape(shape: Sequence[int]) -> str:
    """``(4, 4)`` → ``4x4``."""
    return "x".join(str(size) for size in shape)


def check_adjacency(adjacency: str) -> str:
    """``adjacency`` if it is one of :data:`ADJACENCIES`, else a :class:`GridError` naming them (the one check)."""
    if adjacency not in ADJACENCIES:
        raise GridError(f"unknown adjacency {adjacency!r} (known: {', '.join(ADJACENCIES)})")
    return adjacency


@lru_cache(maxsize=64)
def neighbours(shape: tuple[int, ...], adjacency: str = "king") -> tuple[tuple[int, ...], ...]:
    """For each cell of a grid of ``shape``, the numbers of its adjacent cells, ascending.

    ``adjacency`` is ``"king"`` (coordinates each differ by at most one: the 8 neighbours
    of Boggle in 2-D, 26 in 3-D) or ``"orthogonal"`` (one coordinate differs by one).
    Raises :class:`GridError` for a table of more than :data:`MAX_ADJACENCIES` pairs.
    """
    check_adjacency(adjacency)
    _check_dimensions(len(shape))
    pairs = adjacency_count(shape, adjacency)
    if pairs > MAX_ADJACENCIES:
        raise GridError(
            f"a {format_shape(shape)} grid is too large: {pairs:,} pairs of adjacent cells "
            f"({adjacency}), at most {MAX_ADJACENCIES:,}"
        )
    strides = [math.prod(shape[axis + 1 :]) for axis in range(len(shape))]
    # An axis of length 1 offers no move: only the longer ones are walked, so the work is
    # the size of the table, however many dimensions of length 1 the shape has.
    axes = [(size, stride) for size, stride in zip(shape, strides) if size > 1]
    table = []
    # Row-major order over the longer axes is the order of the cell numbers.
    for coordinates in itertools.product(*(range(size) for size, _ in axes)):
        moves = [
            [delta for delta, ok in ((-stride, coordinate > 0), (stride, coordinate < size - 1)) if ok]
            for coordinate, (size, stride) in zip(coordinates, axes)
        ]
        cell = sum(coordinate * stride for coordinate, (_, stride) in zip(coordinates, axes))
        if adjacency == "king":
            offsets = [0]
            for axis_moves in moves:
                offsets = [offset + delta for offset in offsets for delta in (0, *axis_moves)]
            table.append(tuple(sorted(cell + offset for offset in offsets if offset)))
        else:
            table.append(tuple(sorted(cell + delta for axis_moves in moves for delta in axis_moves)))
    return tuple(table)


def adjacency_count(shape: Sequence[int], adjacency: str = "king") -> int:
    """The number of (cell, neighbour) pairs of a grid of ``shape``, without building the table."""
    cells = math.prod(shape)
    if adjacency == "king":
        # Along an axis of length n, n + 2(n - 1) coordinate pairs differ by at most one;
        # a pair of cells is adjacent when all its axes are such pairs and it is not a cell twice.
        return math.prod(3 * size - 2 for size in shape) - cells
    return sum(2 * (size - 1) * (cells // size) for size in shape)


def _check_dimensions(dimensions: int, prefix: str = "") -> None:
    if dimensions > MAX_DIMENSIONS:
        what = f"{prefix} a grid of" if prefix else "a grid has"
        raise GridError(f"{what} {dimensions} dimensions: at most {MAX_DIMENSIONS}")


def _check_cells(shape: Sequence[int]) -> None:
    cells = math.prod(shape)
    if cells > MAX_CELLS:
        raise GridError(f"a {format_shape(shape)} grid is too large: {cells:,} cells, at most {MAX_CELLS:,}")


def _check_length(text: str) -> None:
    if len(text) > MAX_GRID_CHARS:
        raise GridError(f"grid text of {len(text):,} characters is too long: at most {MAX_GRID_CHARS:,}")


# -- parsing helpers ---------------------------------------------------------------------


def _split_faces(text: str) -> list[str]:
    # Whitespace means the faces are spelled out; otherwise each letter (with the
    # combining accents that follow it) is a face.
    if any(ch.isspace() for ch in text):
        return text.split()
    faces: list[str] = []
    for ch in text:
        if faces and unicodedata.combining(ch):
            faces[-1] += ch
        else:
            faces.append(ch)
    return faces


def _split_nested(text: str, depth: int, location: tuple[int, ...]) -> tuple[tuple[int, ...], list[str]]:
    """Split ``text`` on runs of exactly ``depth`` slashes, recursively down to faces.

    Returns the shape the text spells and its raw faces in row-major order.
    """
    if depth == 0:
        row = _split_faces(text.strip())
        if not row:
            raise GridError(f"{_describe(location)} is empty")
        return (len(row),), row
    parts = re.split(rf"(?<!/)/{{{depth}}}(?!/)", text)
    shapes: list[tuple[int, ...]] = []
    faces: list[str] = []
    for number, part in enumerate(parts, start=1):
        if not part.strip():
            raise GridError(f"{_describe((*location, number), depth)} is empty")
        shape, part_faces = _split_nested(part, depth - 1, (*location, number))
        if shapes and shape != shapes[0]:
            raise GridError(_ragged_message(location, number, depth, shape, shapes[0]))
        shapes.append(shape)
        faces.extend(part_faces)
    return (len(parts), *shapes[0]), faces


def _faces(count: int) -> str:
    return f"{count} face" if count == 1 else f"{count} faces"


def _level_name(depth: int) -> str:
    # What a part between runs of `depth` slashes is called.
    return {1: "row", 2: "layer"}.get(depth, f"block (level {depth})")


def _describe(location: tuple[int, ...], depth: int | None = None) -> str:
    # "layer 2, row 3" for the location (2, 3) of a 3-D grid; `depth` is the level of the last number.
    if not location:
        return "the grid"
    depth = depth if depth is not None else len(location)
    levels = range(depth + len(location) - 1, depth - 1, -1)
    return ", ".join(f"{_level_name(level)} {number}" for level, number in zip(levels, location))


def _ragged_message(location: tuple[int, ...], number: int, depth: int, shape: tuple[int, ...], first: tuple[int, ...]) -> str:
    where = _describe((*location, number), depth)
    if depth == 1:
        return f"{where} has {_faces(shape[0])}, {_level_name(depth)} 1 has {_faces(first[0])} (rows must be equal)"
    return f"{where} is {format_shape(shape)}, {_level_name(depth)} 1 is {format_shape(first)} (ragged grid)"


def _lines_shape(lines: list[list[str]], where: str) -> tuple[int, int]:
    widths = {len(line) for line in lines}
    if len(widths) != 1:
        raise GridError(f"{where}: lines of unequal length ({', '.join(str(len(line)) for line in lines)} faces)")
    return (len(lines), len(lines[0]))


def _normalize_face(raw: str, normalize: Normalizer, q_is_qu: bool, where: str) -> str:
    """Normalize one face, raising :class:`GridError` (located by ``where``) if it is not letters."""
    if raw == BLANK:
        return BLANK
    for ch in raw:
        if not (ch.isalpha() or unicodedata.combining(ch)):
            what = f"{ch!r} is not a letter" if len(raw) == 1 else f"{ch!r} in face {raw!r} is not a letter"
            raise GridError(f"{where}: {what}")
    face = normalize(raw)
    if not face:
        raise GridError(f"{where}: face {raw!r} is empty once normalized")
    if len(face) > MAX_FACE_LETTERS:
        # Most likely rows written with spaces ("IDXT MHEI ERVN TLLU"), not long faces.
        raise GridError(
            f"{where}: face {raw!r} has {len(face)} letters, at most {MAX_FACE_LETTERS} "
            "(faces like QU have 2); separate rows with /, as in IDXT/MHEI/ERVN/TLLU"
        )
    if q_is_qu and face in ("Q", "q"):
        face += "U" if face == "Q" else "u"
    return face


def _face_location(shape: tuple[int, ...], index: int) -> str:
    # "layer 2, row 3, face 1" for face `index` of a grid of `shape` (numbers from 1).
    numbers = []
    for size in reversed(shape):
        index, position = divmod(index, size)
        numbers.append(position + 1)
    *outer, face = reversed(numbers)
    prefix = _describe(tuple(outer), 1) + ", " if outer else ""
    return f"{prefix}face {face}"


def _needs_trailing_separator(shape: tuple[int, ...]) -> bool:
    # Without separators a single row of 4, 9, 16... faces reads as a square, and a
    # grid of one layer reads with one dimension less: a trailing separator says so.
    if shape[0] != 1:
        return False
    if len(shape) > 2:
        return True
    return shape[1] > 1 and math.isqrt(shape[1]) ** 2 == shape[1]
