"""Finding every dictionary word that can be traced on a grid, and tracing one word.

:func:`solve` walks the grid depth-first while stepping the dictionary's automaton one
face at a time, and abandons a path as soon as no word starts with it: a prefix is
never looked up again from the root. Two kernels do the walk and give the same words:

* a fast one for the native format, which reads the mapped cells itself (a bit test
  and a popcount per letter, see ``automaton/reader.py``);
* a generic one through the cursor interface (``step``/``is_word``), for every other
  dictionary (marisa, dawg, stand-ins in tests) and for alphabets over 31 letters.

:func:`find` traces one word without a dictionary, with an explicit stack, so that a
5,000-letter word on a 100x100 grid is no matter for Python's recursion limit.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import BoggleError, DictionaryError, GridError
from .grid import ADJACENCIES, Grid, neighbours, parse_shape
from .scoring import CLASSIC, Scoring

if TYPE_CHECKING:
    from .dictionary import Dictionary

#: The final flag of a one-cell state header in the native format (automaton.reader.FINAL_FLAG).
_FINAL = 1 << 31
#: Deepest path the recursive kernel walks (Python's default limit is 1,000 frames).
_MAX_RECURSION = 400


class Hit(NamedTuple):
    """A word found on a grid: its score and one path (cell numbers, see :meth:`Grid.coordinates`).

    A named tuple rather than a frozen dataclass: as immutable, and three times cheaper
    to create, which shows on boards of a thousand words.
    """

    word: str
    score: int
    path: tuple[int, ...]

    def coordinates(self, grid: Grid) -> tuple[tuple[int, ...], ...]:
        """The path as coordinates: (row, col) pairs in 2-D, n-tuples in n-D."""
        return tuple(grid.coordinates(cell) for cell in self.path)


def sort_key(hit: Hit) -> tuple[int, int, str]:
    """The order of results: score descending, then length descending, then alphabetical."""
    return (-hit.score, -len(hit.word), hit.word)


def solve(
    grid: Grid,
    dictionary: Dictionary,
    *,
    min_length: int | None = None,
    scoring: Scoring = CLASSIC,
    adjacency: str = "king",
) -> list[Hit]:
    """Every word of ``dictionary`` that can be traced on ``grid``, best first.

    A word is traced through adjacent cells (``adjacency``: "king" or "orthogonal"),
    each used once, and has at least ``min_length`` letters (default: the scoring's
    minimum; a QU face is two letters). Each word comes once, with the path that is
    smallest cell by cell when the faces are single letters. Sorted by :func:`sort_key`.
    """
    if min_length is None:
        min_length = scoring.min_length
    table = neighbours(grid.shape, adjacency)
    if _has_native_cells(dictionary) and _fits_recursion(dictionary, len(grid.faces)):
        found = _search_native(grid.faces, table, dictionary, min_length)
    else:
        found = _search_generic(grid.faces, table, dictionary, min_length)
    return _ranked_hits(found, scoring)


def _ranked_hits(found: dict[str, tuple[int, ...]], scoring: Scoring) -> list[Hit]:
    # Sorted by (score desc, length desc, word asc), cheaply: C-level sorts of the words
    # do it when the score never drops as words grow (every table here); a general
    # sort otherwise. Points depend on the length only: one table lookup per length.
    words = sorted(found)
    words.sort(key=len, reverse=True)  # stable: alphabetical within a length
    if not words:
        return []
    points = [scoring.score("?" * length) for length in range(len(words[0]) + 1)]
    if any(shorter > longer for shorter, longer in zip(points, points[1:])):
        words.sort(key=lambda word: -points[len(word)])  # stable again
    return [Hit(word, points[len(word)], found[word]) for word in words]


def totals(hits: Iterable[Hit]) -> tuple[int, int]:
    """(number of words, total points) of ``hits``."""
    count = points = 0
    for hit in hits:
        count += 1
        points += hit.score
    return count, points


def _has_native_cells(dictionary: Any) -> bool:
    # The fast kernel needs the native layout with one header cell (alphabets of up to
    # 31 letters); duck-typed so the solver does not import the reader.
    return (
        getattr(dictionary, "format_name", None) == "native"
        and getattr(dictionary, "header_cells", None) == 1
        and hasattr(dictionary, "cells")
        and hasattr(dictionary, "letter_bits")
    )


def _fits_recursion(dictionary: Any, cells: int) -> bool:
    # The native kernel recurses once per face of a path: its depth is bounded by the
    # grid's size and the longest word. Beyond a few hundred, the explicit stack of the
    # generic kernel is used instead of raising Python's recursion limit.
    header = getattr(dictionary, "header", None)
    longest = getattr(header, "longest_word", cells)
    return min(cells, longest) <= _MAX_RECURSION


# -- the generic kernel ------------------------------------------------------------------


def _search_generic(
    faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], dictionary: Dictionary, min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path, walking the grid through ``dictionary.step`` and ``is_word``."""
    step = dictionary.step
    is_word = dictionary.is_word
    root = dictionary.root
    found: dict[str, tuple[int, ...]] = {}
    for start, face in enumerate(faces):
        state = step(root, face)
        if state is None:
            continue
        # Each entry: (cell, automaton state after its face, word so far, path so far).
        # Pushed in reverse so that neighbours are explored in increasing order.
        stack = [(start, state, face, (start,))]
        while stack:
            cell, state, word, path = stack.pop()
            if len(word) >= min_length and word not in found and is_word(state):
                found[word] = path
            for next_cell in reversed(table[cell]):
                if next_cell in path:
                    continue
                next_state = step(state, faces[next_cell])
                if next_state is not None:
                    stack.append((next_cell, next_state, word + faces[next_cell], path + (next_cell,)))
    return found


# -- the native kernel -------------------------------------------------------------------


def _search_native(
    faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], dictionary: Any, min_length: int
) -> dict[str, tuple[int, ...]]:
    """Word → first path, reading the native dictionary's cells directly.

    Each face is translated once per grid into the bits of its letters. A state's header
    tells which letters can follow, so a neighbour costs one AND when its first letter
    cannot; ``reach[cell]`` holds the first-letter bits of the cell's neighbours, so a
    state that shares none with it is not even visited.
    """
    cells = dictionary.cells
    letter_bits = dictionary.letter_bits

    # What stepping onto each cell takes: (the cell, its bit in the `used` mask, its
    # first letter's bit in a state header, its face) for a one-letter face, with the
    # later letters' bits before the face for a longer one (QU); None when a letter is
    # outside the alphabet (the cell then spells no word).
    onto: list[tuple[Any, ...] | None] = []
    for cell, face in enumerate(faces):
        bit = letter_bits.get(face)  # most faces are one letter
        if bit is not None:
            onto.append((cell, 1 << cell, 1 << bit, face))
            continue
        bits = [letter_bits.get(letter) for letter in face]
        if len(bits) == 1 or None in bits:
            onto.append(None)
        else:
            onto.append((cell, 1 << cell, 1 << bits[0], tuple(bits[1:]), face))  # type: ignore[operator]

    # For each cell, the steps onto its neighbours: one-letter faces in `steps`, longer
    # ones apart in `long_steps` so that the common case pays nothing for them; and
    # `reach`, the first-letter bits of all of them.
    steps: list[tuple[tuple[int, int, int, str], ...]] = []
    long_steps: list[tuple[tuple[int, int, int, tuple[int, ...], str], ...]] = []
    reach: list[int] = []
    for cell in range(len(faces)):
        short: list[Any] = []
        long: list[Any] = []
        mask = 0
        for other in table[cell]:
            entry = onto[other]
            if entry is not None:
                (short if len(entry) == 4 else long).append(entry)
                mask |= entry[2]
        steps.append(tuple(short))
        long_steps.append(tuple(long))
        reach.append(mask)

    found: dict[str, tuple[int, ...]] = {}
    # trail[:depth + 1] is the path to the cell being visited (cheaper than a list's
    # append and pop around each call).
    trail = [0] * len(faces)

    def visit(cell: int, state: int, head: int, used: int, word: str, depth: int) -> None:
        # `state` (header `head`) is reached by `word`, spelled by trail[:depth] + `cell`.
        trail[depth] = cell
        for other, bit, letter, face in steps[cell]:
            if head & letter and not used & bit:
                # The child's index follows the header, after those of the smaller
                # letters: as many as the header has bits below this letter's.
                child = cells[state + 1 + (head & (letter - 1)).bit_count()]
                child_head = cells[child]
                longer = word + face
                if child_head & _FINAL and len(longer) >= min_length and longer not in found:
                    found[longer] = (*trail[: depth + 1], other)
                if child_head & reach[other]:
                    visit(other, child, child_head, used | bit, longer, depth + 1)
        if long_steps[cell]:
            for other, bit, letter, later, face in long_steps[cell]:
                if head & letter and not used & bit:
                    child = _follow(cells, cells[state + 1 + (head & (letter - 1)).bit_count()], later)
                    if child is None:
                        continue
                    child_head = cells[child]
                    longer = word + face
                    if child_head & _FINAL and len(longer) >= min_length and longer not in found:
                        found[longer] = (*trail[: depth + 1], other)
                    if child_head & reach[other]:
                        visit(other, child, child_head, used | bit, longer, depth + 1)

    try:
        for start, entry in enumerate(onto):
            if entry is None:
                continue
            face = entry[-1]
            state = _follow(cells, dictionary.root, (entry[2].bit_length() - 1, *(entry[3] if len(entry) == 5 else ())))
            if state is None:
                continue
            head = cells[state]
            if head & _FINAL and len(face) >= min_length and face not in found:
                found[face] = (start,)
            if head & reach[start]:
                visit(start, state, head, 1 << start, face, 0)
    except IndexError:
        # Only a damaged file points outside its cells.
        where = getattr(dictionary, "path", "dictionary")
        raise DictionaryError(f"{where}: damaged dictionary (run `boggle-dafsa verify`)") from None
    return found


def _follow(cells: Any, state: int, bits: Iterable[int]) -> int | None:
    # Step from `state` by each letter bit in turn (the later letters of a face like QU).
    for bit in bits:
        head = cells[state]
        if not head >> bit & 1:
            return None
        state = cells[state + 1 + (head & ((1 << bit) - 1)).bit_count()]
    return state


# -- tracing one word --------------------------------------------------------------------


def find(grid: Grid, word: str, *, adjacency: str = "king") -> tuple[int, ...] | None:
    """One path tracing ``word`` (already normalized) on ``grid``, or None.

    Checks placement only, not the dictionary. Depth-first with an explicit stack (no
    recursion limit), trying a cell only if its face matches the next letters of ``word``,
    from start cells in increasing order: the first path found is returned.
    """
    if not word:
        return None
    table = neighbours(grid.shape, adjacency)
    faces = grid.faces
    length = len(word)
    # Cells whose face matches `word` at each position, computed once.
    starts = [cell for cell, face in enumerate(faces) if word.startswith(face)]
    for start in starts:
        path = _trace_from(start, word, faces, table, length)
        if path is not None:
            return path
    return None


def _trace_from(
    start: int, word: str, faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], length: int
) -> tuple[int, ...] | None:
    # Each frame: (cell, position in `word` after its face, iterator over candidate next cells).
    used = bytearray(len(faces))
    path = [start]
    used[start] = 1
    position = len(faces[start])
    if position == length:
        return (start,)
    stack: list[tuple[int, Iterator[int]]] = [(position, iter(table[start]))]
    while stack:
        position, candidates = stack[-1]
        for cell in candidates:
            face = faces[cell]
            if not used[cell] and word.startswith(face, position):
                end = position + len(face)
                if end == length:
                    path.append(cell)
                    return tuple(path)
                used[cell] = 1
                path.append(cell)
                stack.append((end, iter(table[cell])))
                break
        else:
            stack.pop()
            used[path.pop()] = 0
    return None


# -- rendering results -------------------------------------------------------------------


@dataclass(frozen=True)
class Rendering:
    """How results are printed: ``--scores``, ``--paths``, ``--json``."""

    scores: bool = False
    paths: bool = False
    json: bool = False


def format_path(grid: Grid, path: Iterable[int]) -> str:
    """A path as coordinates, e.g. ``(3,3) (2,3) (1,3)``."""
    return " ".join("(" + ",".join(map(str, grid.coordinates(cell))) + ")" for cell in path)


def format_totals(count: int, points: int) -> str:
    """``1,045 words, 3,625 points``."""
    return f"{count:,} word{'' if count == 1 else 's'}, {points:,} point{'' if points == 1 else 's'}"


def render_lines(grid: Grid, hits: Iterable[Hit], rendering: Rendering) -> Iterator[str]:
    """The text lines of a result: a word a line, with ``score<TAB>`` and ``<TAB>path`` on request."""
    for hit in hits:
        line = f"{hit.score}\t{hit.word}" if rendering.scores else hit.word
        if rendering.paths:
            line += "\t" + format_path(grid, hit.path)
        yield line


def result_json(grid: Grid, hits: list[Hit], **extra: Any) -> dict[str, Any]:
    """The JSON object of a result: grid, shape, words (word, score, path) and totals."""
    count, points = totals(hits)
    return {
        **extra,
        "grid": str(grid),
        "shape": list(grid.shape),
        "words": [
            {"word": hit.word, "score": hit.score, "path": [list(grid.coordinates(cell)) for cell in hit.path]}
            for hit in hits
        ],
        "totals": {"words": count, "points": points},
    }


# -- batches -----------------------------------------------------------------------------


@dataclass(frozen=True)
class SolveOptions:
    """What ``solve`` is asked, shared by every grid of a batch (and sent to workers)."""

    min_length: int | None = None
    scoring: Scoring = CLASSIC
    adjacency: str = "king"
    shape: tuple[int, ...] | None = None
    q_is_qu: bool = False

    @classmethod
    def from_arguments(
        cls, min_length: int | None, scoring: str, adjacency: str, shape: str | None, q_is_qu: bool
    ) -> SolveOptions:
        """Options from command-line values, checked (raises :class:`BoggleError`)."""
        from .scoring import SCORINGS

        if scoring not in SCORINGS:
            raise BoggleError(f"unknown scoring {scoring!r} (known: {', '.join(SCORINGS)})")
        if adjacency not in ADJACENCIES:
            raise BoggleError(f"unknown adjacency {adjacency!r} (known: {', '.join(ADJACENCIES)})")
        if min_length is not None and min_length < 1:
            raise BoggleError(f"--min-length must be at least 1, not {min_length}")
        return cls(min_length, SCORINGS[scoring], adjacency, parse_shape(shape) if shape else None, q_is_qu)

    def parse(self, text: str, dictionary: Dictionary, *, worddle: bool = False) -> Grid:
        """A grid in the GRID syntax (or the standard-input form), normalized as ``dictionary`` does."""
        parse = Grid.parse_worddle if worddle else Grid.parse
        return parse(text, shape=self.shape, normalize=dictionary.normalize, q_is_qu=self.q_is_qu)

    def solve(self, grid: Grid, dictionary: Dictionary) -> list[Hit]:
        """:func:`solve` with these options."""
        return solve(grid, dictionary, min_length=self.min_length, scoring=self.scoring, adjacency=self.adjacency)


@dataclass(frozen=True)
class BatchResult:
    """One grid of a batch, solved and rendered."""

    line: int
    text: str
    words: int
    points: int


def batch_lines(stream: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, grid text) for each line of a batch, skipping blank lines and ``#`` comments."""
    for number, line in enumerate(stream, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


def solve_batch(
    lines: Iterable[tuple[int, str]],
    dictionary: Dictionary,
    options: SolveOptions,
    rendering: Rendering,
    *,
    jobs: int = 1,
    dictionary_spec: str | None = None,
    source: str = "-",
) -> Iterator[BatchResult]:
    """Solve and render each (line number, grid text), in order, as they come.

    Text gives a block per grid (``# GRID<TAB>totals`` then its words); JSON one line
    per grid. With ``jobs`` > 1 the grids are spread over that many processes, each of
    which opens ``dictionary_spec`` (the spec ``dictionary`` was opened from) itself:
    the file is mapped, so they share its pages. A bad grid raises :class:`GridError`
    naming ``source`` and its line.
    """
    if jobs <= 1:
        _worker.update(dictionary=dictionary, options=options, rendering=rendering, source=source)
        yield from map(_solve_line, lines)
        return
    import multiprocessing

    # The dictionary was opened here first, so a bad spec fails before any worker starts.
    with multiprocessing.Pool(jobs, _init_worker, (dictionary_spec, options, rendering, source)) as pool:
        # Ordered results; chunks amortize the messages without delaying the first grids much.
        yield from pool.imap(_solve_line, lines, chunksize=8)


# The state of a batch worker (the process itself when jobs == 1).
_worker: dict[str, Any] = {}


def _init_worker(dictionary_spec: str | None, options: SolveOptions, rendering: Rendering, source: str) -> None:
    from .resolve import open_dictionary

    _worker.update(dictionary=open_dictionary(dictionary_spec), options=options, rendering=rendering, source=source)


def _solve_line(numbered: tuple[int, str]) -> BatchResult:
    number, text = numbered
    dictionary = _worker["dictionary"]
    options: SolveOptions = _worker["options"]
    rendering: Rendering = _worker["rendering"]
    try:
        grid = options.parse(text, dictionary)
    except GridError as error:
        raise GridError(f"{_worker['source']} line {number}: {error}") from None
    hits = options.solve(grid, dictionary)
    count, points = totals(hits)
    if rendering.json:
        text = json.dumps(result_json(grid, hits, line=number), ensure_ascii=False)
    else:
        header = f"# {grid}\t{format_totals(count, points)}"
        text = "\n".join([header, *render_lines(grid, hits, rendering)]) + "\n"
    return BatchResult(number, text, count, points)


# -- the command-line front ends (`boggle-dafsa solve` and `find`) -----------------------


def read_grid(text: str | None, dictionary: Dictionary, options: SolveOptions) -> Grid:
    """The grid of a command: ``text`` in the GRID syntax, or standard input for None or ``-``."""
    if text is not None and text != "-":
        return options.parse(text, dictionary)
    if sys.stdin.isatty():
        print("reading the grid from standard input (end with Ctrl-D)", file=sys.stderr)
    return options.parse(sys.stdin.read(), dictionary, worddle=True)


def run_solve(
    grid_text: str | None,
    dictionary: Dictionary,
    options: SolveOptions,
    rendering: Rendering,
    *,
    jobs: int = 1,
    show_totals: bool = False,
    quiet: bool = False,
) -> None:
    """``boggle-dafsa solve GRID``: print the words of one grid, totals on stderr or at the end."""
    if jobs != 1:
        raise BoggleError("--jobs spreads a --batch over processes: give --batch FILE")
    grid = read_grid(grid_text, dictionary, options)
    hits = options.solve(grid, dictionary)
    count, points = totals(hits)
    out = sys.stdout
    if rendering.json:
        out.write(json.dumps(result_json(grid, hits), ensure_ascii=False, indent=2) + "\n")
    else:
        for line in render_lines(grid, hits, rendering):
            out.write(line + "\n")
        if show_totals:
            out.write(format_totals(count, points) + "\n")
    out.flush()
    if not quiet and not show_totals and not rendering.json:
        print(format_totals(count, points), file=sys.stderr)


def run_batch(
    batch: str,
    grid_text: str | None,
    dictionary_spec: str | None,
    options: SolveOptions,
    rendering: Rendering,
    *,
    jobs: int = 1,
    show_totals: bool = False,
    quiet: bool = False,
) -> None:
    """``boggle-dafsa solve --batch FILE``: a block (or JSON line) per grid, streamed."""
    from .resolve import open_dictionary

    if grid_text is not None:
        raise BoggleError("give a GRID or --batch FILE, not both")
    if jobs < 1:
        raise BoggleError(f"--jobs must be at least 1, not {jobs}")
    dictionary = open_dictionary(dictionary_spec)
    grids = count = points = 0
    with _open_batch(batch) as stream:
        results = solve_batch(
            batch_lines(_decoded(stream, batch)), dictionary, options, rendering,
            jobs=jobs, dictionary_spec=dictionary_spec, source=batch if batch != "-" else "standard input",
        )
        for result in results:
            sys.stdout.write(result.text + "\n")
            grids += 1
            count += result.words
            points += result.points
    sys.stdout.flush()
    if not quiet:
        summary = f"{grids:,} grid{'' if grids == 1 else 's'}: {format_totals(count, points)}"
        print(summary, file=sys.stdout if show_totals and not rendering.json else sys.stderr)


def _open_batch(batch: str) -> Any:
    import contextlib

    if batch == "-":
        return contextlib.nullcontext(sys.stdin)
    try:
        return open(batch, encoding="utf-8", newline=None)
    except FileNotFoundError:
        raise GridError(f"{batch}: no such file") from None
    except IsADirectoryError:
        raise GridError(f"{batch}: is a directory, not a file of grids") from None
    except OSError as error:
        raise GridError(f"{batch}: cannot read ({error.strerror or error})") from None


def _decoded(stream: Iterable[str], source: str) -> Iterator[str]:
    # Lines of a text stream, with a one-line error for bytes that are not UTF-8.
    try:
        yield from stream
    except UnicodeDecodeError:
        raise GridError(f"{source}: not UTF-8 text") from None


def run_find(
    grid_text: str, word: str, dictionary: Dictionary, options: SolveOptions, *, json_output: bool = False
) -> bool:
    """``boggle-dafsa find GRID WORD``: print whether WORD can be traced (and a path) and is a word."""
    grid = read_grid(grid_text, dictionary, options)
    key = dictionary.normalize(word)
    if not key:
        raise BoggleError(f"{word!r} is not a word: letters only")
    path = find(grid, key, adjacency=options.adjacency)
    known = key in dictionary
    if json_output:
        answer = {
            "word": key,
            "found": path is not None,
            "path": [list(grid.coordinates(cell)) for cell in path] if path else None,
            "in_dictionary": known,
            "score": options.scoring.score(key) if known else 0,
        }
        print(json.dumps(answer, ensure_ascii=False))
    else:
        where = f"on the grid: {format_path(grid, path)}" if path else "not on the grid"
        points = options.scoring.score(key)
        what = f"in the dictionary ({points} point{'' if points == 1 else 's'})" if known else "not in the dictionary"
        print(f"{key}: {where}; {what}")
    return path is not None
