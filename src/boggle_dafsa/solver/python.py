"""The native kernel in Python: the grid walked over a native file's cells, read directly.

The twin of the compiled kernel (``_native.c``): the same arguments (plain data: a
:class:`NativeLayout`, the faces, the neighbour table, the minimum length) and the
same result, a dict from each word to its first path. A bit test and a popcount per
letter (see :class:`~boggle_dafsa.automaton.fileformat.NativeLayout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from time import monotonic
from typing import TYPE_CHECKING, Any, Literal

from boggle_dafsa.errors import DictionaryError, GridError

if TYPE_CHECKING:
    from boggle_dafsa.automaton.fileformat import NativeLayout

#: Deepest path this kernel walks: it recurses once per face (Python's limit is 1,000 frames).
MAX_DEPTH = 400


# The clock's rules, shared with the neighbourhood walk (solver/hood.py).
from boggle_dafsa.solver.budget import CHECK_EVERY, TIMEOUT_MESSAGE  # noqa: E402


def search(
    layout: NativeLayout,
    faces: tuple[str, ...],
    table: tuple[tuple[int, ...], ...],
    min_length: int,
    deadline: float | None = None,
) -> dict[str, tuple[int, ...]]:
    """Word → first path of every word of at least ``min_length`` letters on the grid.

    ``faces[cell]`` is the face of a cell, ``table[cell]`` its neighbours in increasing
    order. Each word comes with the first path a depth-first walk meets, start cells
    and neighbours in increasing order. Raises ``IndexError`` when the cells point
    outside themselves (a damaged file); recursion is one frame per face of a path, so
    the caller keeps ``min(len(faces), layout.longest_word)`` within :data:`MAX_DEPTH`.
    With a ``deadline`` (``time.monotonic()`` seconds), raises ``TimeoutError`` once past
    it, looking at the clock every :data:`CHECK_EVERY` steps.

    Each face is translated once per grid into the bits of its letters. A state's header
    tells which letters can follow, so a neighbour costs one AND when its first letter
    cannot; ``reach[cell]`` holds the first-letter bits of the cell's neighbours, so a
    state that shares none with it is not even visited.
    """
    cells = layout.cells
    letter_bits = layout.letter_bits
    # NativeLayout's state arithmetic (the format's one definition), inlined in the loop.
    final = layout.final_flag
    first = layout.header_cells

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

    longest = layout.longest_word
    countdown = [CHECK_EVERY]  # steps left before the next look at the clock

    def visit(cell: int, state: int, head: int, used: int, word: str, depth: int) -> None:
        # `state` (header `head`) is reached by `word`, spelled by trail[:depth] + `cell`.
        if len(word) > longest:
            # A path longer than every word: a cycle, or a lying header. The walk is so
            # bounded by the longest word whatever the file says (as in the C twin).
            raise IndexError("a path longer than the longest word")
        if deadline is not None:
            countdown[0] -= 1
            if not countdown[0]:
                countdown[0] = CHECK_EVERY
                if monotonic() > deadline:
                    raise TimeoutError(TIMEOUT_MESSAGE)
        trail[depth] = cell
        for other, bit, letter, face in steps[cell]:
            if head & letter and not used & bit:
                # The child's index follows the header, after those of the smaller
                # letters: as many as the header has bits below this letter's.
                child = cells[state + first + (head & (letter - 1)).bit_count()]
                child_head = cells[child]
                longer = word + face
                if child_head & final and len(longer) >= min_length and longer not in found:
                    found[longer] = (*trail[: depth + 1], other)
                if child_head & reach[other]:
                    visit(other, child, child_head, used | bit, longer, depth + 1)
        if long_steps[cell]:
            for other, bit, letter, later, face in long_steps[cell]:
                if head & letter and not used & bit:
                    after = _follow(layout, cells[state + first + (head & (letter - 1)).bit_count()], later)
                    if after is None:
                        continue
                    child_head = cells[after]
                    longer = word + face
                    if child_head & final and len(longer) >= min_length and longer not in found:
                        found[longer] = (*trail[: depth + 1], other)
                    if child_head & reach[other]:
                        visit(other, after, child_head, used | bit, longer, depth + 1)

    if deadline is not None and monotonic() > deadline:
        raise TimeoutError(TIMEOUT_MESSAGE)
    for start, entry in enumerate(onto):
        if entry is None:
            continue
        face = entry[-1]
        state = _follow(layout, layout.root, (entry[2].bit_length() - 1, *(entry[3] if len(entry) == 5 else ())))
        if state is None:
            continue
        head = cells[state]
        if head & final and len(face) >= min_length and face not in found:
            found[face] = (start,)
        if head & reach[start]:
            visit(start, state, head, 1 << start, face, 0)
    return found


def _follow(layout: NativeLayout, state: int, bits: Iterable[int]) -> int | None:
    # Step from `state` by each letter bit in turn (the later letters of a face like QU).
    for bit in bits:
        after = layout.child(state, bit)
        if after is None:
            return None
        state = after
    return state


def numbered_words(layout: NativeLayout) -> list[str]:
    """The words of ``layout`` by the compiled kernel's numbers (its ``number_words``):
    word ``i`` is the one it numbers ``i``. A state's own word comes first, then its
    children's words in letter (bit) order. Raises ``IndexError`` for a damaged file: an
    index outside the cells, or a path longer than the longest word (a cycle)."""
    alphabet = layout.alphabet
    longest = layout.longest_word
    words: list[str] = []
    # (state, its word); children pushed in reverse so that they pop in letter order.
    stack = [(layout.root, "")]
    size = len(layout.cells)
    while stack:
        state, word = stack.pop()
        if not 0 <= state < size:
            raise IndexError("a state outside the cells")
        if layout.is_final(state):
            words.append(word)
        children = list(layout.children(state))
        if children and len(word) >= longest:
            raise IndexError("a path longer than the longest word")
        for bit, child in reversed(children):
            stack.append((child, word + alphabet[bit]))
    return words


# -- the twin of the compiled Solver --------------------------------------------------------

#: Face codes (see :class:`Solver`): 0..30 a letter by its bit, 31 a face that spells no
#: word, 32..255 the multi-letter faces registered with :meth:`Solver.set_face`.
DEAD = 31
FIRST_LONG = 32
#: What :meth:`Solver.solve_many` returns per grid, by mode number.
TOTALS, WORDS, HITS, FOUND = range(4)
#: The field marks of the templates that :meth:`Solver.rows_many` and :meth:`Solver.summary_rows`
#: fill (the formats themselves are :mod:`boggle_dafsa.output.rows`'s).
MARK_WORD, MARK_POINTS, MARK_PATH, MARK_GRID, MARK_WORDS = "\x01", "\x02", "\x03", "\x04", "\x05"
_MARKS = {chr(code) for code in range(1, 6)}
MAX_PIECES = 16


class Solver:
    """The pure-Python twin of ``_native.Solver``: same constructor, methods and results.

    A search prepared once per dictionary layout (``cells``, ``root``, ``longest`` word,
    ``alphabet``), neighbour ``table``, ``min_length`` and ``points`` by length (the last
    entry for longer words). Grids come as face codes, one byte per cell, grid after grid;
    results are ``hit_type(word, score, path)``; a damaged file raises ``error_type``
    naming ``source``. :func:`search` does the walk.
    """

    def __init__(
        self,
        cells: Any,
        root: int,
        longest: int,
        alphabet: str,
        table: Sequence[Sequence[int]],
        min_length: int,
        points: Sequence[int],
        hit_type: Any,
        error_type: type[Exception],
        source: str,
    ) -> None:
        if len(alphabet) > 31:
            raise ValueError("the compiled kernel reads alphabets of at most 31 letters")
        if not points:
            raise ValueError("points must not be empty")
        self._table = tuple(tuple(row) for row in table)
        for cell, row in enumerate(self._table):
            for other in row:
                if not 0 <= other < len(self._table) or other == cell:
                    raise ValueError(f"neighbour {other} of cell {cell} is not another cell")
        from boggle_dafsa.automaton.fileformat import NativeLayout

        self._layout = NativeLayout.of(cells, root, alphabet, longest, source)
        self._alphabet = alphabet
        self._min_length = min_length
        self._points = tuple(points)
        self._hit = hit_type
        self._error = error_type
        self._faces: dict[int, str] = dict(enumerate(alphabet))
        self._faces[DEAD] = "\0"  # in no alphabet: the face spells no word
        self.cell_count = len(self._table)
        #: Word → its number (:func:`numbered_words`), made at the first tally.
        self._numbers: dict[str, int] | None = None

    @property
    def numbered(self) -> bool:
        """False: this twin finds words already found with a dict, it numbers none (the C
        kernel numbers a sound file's words after a few grids, see ``number_words``)."""
        return False

    def number_words(self) -> bool:
        """What the C kernel does to skip hashing words (see :attr:`numbered`): nothing here."""
        return False

    def rows_many(
        self, codes: bytes, cells: Sequence[str], template: str, between: str, cell_separator: str, timeout: float = 0.0
    ) -> list[tuple[int, int, str]]:
        """(words, points, text) of each grid: its hits as rows of ``template`` (see :func:`rows_result`)."""
        check_template(template, MARK_WORD + MARK_POINTS + MARK_PATH)
        if len(cells) != self.cell_count:
            raise ValueError(f"{len(cells)} cell texts for {self.cell_count} cells")
        return [rows_result(hits, cells, template, between, cell_separator) for hits in self.solve_many(codes, HITS, timeout)]

    def summary_rows(
        self,
        codes: bytes,
        letters: bytes,
        width: int,
        q_is_qu: bool,
        template: str,
        between: str,
        row_separator: str,
        face_separator: str,
        timeout: float = 0.0,
    ) -> tuple[str, int, int]:
        """(text, words, points) of the grids of ``codes``: a line per grid (see :func:`summary_text`)."""
        check_template(template, MARK_GRID + MARK_WORDS + MARK_POINTS)
        codes, letters = bytes(codes), bytes(letters)
        if len(letters) != len(codes):
            raise ValueError(f"{len(letters)} letters for {len(codes)} face codes")
        if width < 1 or self.cell_count % width:
            raise ValueError(f"rows of {width} cells do not divide grids of {self.cell_count}")
        if not letters.isascii() or b"\0" in letters:
            raise ValueError("letters must be ASCII characters other than NUL")
        totals = self.solve_many(codes, TOTALS, timeout)
        return summary_text(totals, letters, self.cell_count, width, q_is_qu, template, between, row_separator, face_separator)

    def set_face(self, code: int, letters: bytes) -> None:
        """Register face ``code`` (32..255) as the letters of bits ``letters`` (2 or 3)."""
        if not FIRST_LONG <= code <= 255 or not 2 <= len(letters) <= 3:
            raise ValueError("a face code is 32..255 and has 2 or 3 letters")
        if any(bit >= len(self._alphabet) for bit in letters):
            raise ValueError("a letter bit outside the alphabet")
        self._faces[code] = "".join(self._alphabet[bit] for bit in letters)

    def solve(self, codes: bytes, mode: int = HITS, timeout: float = 0.0) -> Any:
        """One grid's result (see :meth:`solve_many`)."""
        results = self.solve_many(codes, mode, timeout)
        if len(results) != 1:
            raise ValueError(f"one grid of {self.cell_count} cells expected")
        return results[0]

    def solve_many(self, codes: bytes, mode: int = HITS, timeout: float = 0.0) -> list[Any]:
        """Each grid's result: (words, points), (points, [word...]), [Hit...] or {word: path} by ``mode``.

        Raises ``TimeoutError`` when the search takes more than ``timeout`` seconds (0: no limit).
        """
        deadline = monotonic() + timeout if timeout > 0 else None
        if mode not in (TOTALS, WORDS, HITS, FOUND):
            raise ValueError("mode must be 0, 1, 2 or 3")
        codes = bytes(codes)
        n = self.cell_count
        if len(codes) % n:
            raise ValueError(f"{len(codes)} face codes are not whole grids of {n} cells")
        for at, code in enumerate(codes):
            if code not in self._faces:
                raise ValueError(f"face code {code} at {at} is not registered")
        if mode == TOTALS and n <= 64:
            return self._totals_by_runs(codes, deadline)
        results = []
        for start in range(0, len(codes), n):
            faces = tuple(self._faces[code] for code in codes[start : start + n])
            try:
                found = search(self._layout, faces, self._table, self._min_length, deadline)
            except IndexError:
                raise self._error(f"{self._layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None
            results.append(shape_result(found, self._points, mode, self._hit))
        return results

    def tally_many(self, codes: bytes, groups: Any, found: Any, squares: Any, timeout: float = 0.0) -> int:
        """Search each grid of ``codes`` and add its words to tallies by group: ``groups``
        (uint32 per word number, :func:`numbered_words`) gives each word's group; for each
        group ``g``, ``k`` its words on a grid, ``found[g] += k`` and ``squares[g] += k * k``
        (writable uint64 buffers, one item per group). The grids tallied."""
        n = self.cell_count
        codes = bytes(codes)
        if len(codes) % n:
            raise ValueError(f"{len(codes)} face codes are not whole grids of {n} cells")
        group_of = _items(groups, "I", "groups")
        found_sum = _items(found, "Q", "found")
        square_sum = _items(squares, "Q", "squares")
        if found_sum.readonly or square_sum.readonly:
            raise TypeError("found and squares must be writable buffers")
        if len(found_sum) != len(square_sum) or len(found_sum) > 0xFFFFFFFF:
            raise ValueError("found and squares must have the same number of groups (below 2**32)")
        if n > 64:
            raise ValueError("tally_many needs numbered words (a sound file) and grids of at most 64 cells")
        if self._numbers is None:
            try:
                self._numbers = {word: number for number, word in enumerate(numbered_words(self._layout))}
            except IndexError:
                raise ValueError("tally_many needs numbered words (a sound file) and grids of at most 64 cells") from None
        numbers = self._numbers
        if len(group_of) != len(numbers):
            raise ValueError(f"groups gives {len(group_of)} words, the dictionary numbers {len(numbers)}")
        total = len(found_sum)
        for word, group in enumerate(group_of):
            if group >= total:
                raise ValueError(f"word {word} is given group {group} of {total}")
        grids = 0
        for words in self.solve_many(codes, FOUND, timeout):
            counts: dict[int, int] = {}
            for word in words:
                group = group_of[numbers[word]]
                counts[group] = counts.get(group, 0) + 1
            for group, k in counts.items():
                found_sum[group] = (found_sum[group] + k) & 0xFFFFFFFFFFFFFFFF
                square_sum[group] = (square_sum[group] + k * k) & 0xFFFFFFFFFFFFFFFF
            grids += 1
        return grids

    def _totals_by_runs(self, codes: bytes, deadline: float | None) -> list[tuple[int, int]]:
        # (words, points) of each grid, the runs of grids that differ in one cell walked
        # together (as the C kernel does, see boggle_dafsa.solver.hood).
        from boggle_dafsa.solver.hood import hood_totals, runs

        n = self.cell_count
        results: list[tuple[int, int]] = []
        for first, end, wild in runs(codes, n):
            faces = tuple(self._faces[code] for code in codes[first * n : (first + 1) * n])
            try:
                if wild < 0:
                    found = search(self._layout, faces, self._table, self._min_length, deadline)
                    results.append(shape_result(found, self._points, TOTALS, self._hit))
                    continue
                shown = [codes[grid * n + wild] for grid in range(first, end)]
                variants = list(dict.fromkeys(shown))
                totals = hood_totals(
                    self._layout,
                    faces,
                    wild,
                    [self._faces[code] for code in variants],
                    self._table,
                    self._min_length,
                    self._points,
                    deadline,
                )
            except IndexError:
                raise self._error(f"{self._layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None
            by_code = dict(zip(variants, totals))
            results.extend(by_code[code] for code in shown)
        return results


def _items(buffer: Any, kind: Literal["I", "Q"], what: str) -> memoryview[int]:
    # A buffer seen as items of `kind` ("I": uint32, "Q": uint64), as the C kernel reads it.
    view = memoryview(buffer).cast("B")
    size = 4 if kind == "I" else 8
    if len(view) % size:
        raise ValueError(f"{what}: not whole aligned items of {size} bytes")
    return view.cast(kind)


def shape_result(found: dict[str, tuple[int, ...]], points: Sequence[int], mode: int, hit_type: Any) -> Any:
    """A kernel's word → path in the form of ``mode`` (see :meth:`Solver.solve_many`), ranked
    by score, length, then word (:func:`boggle_dafsa.solver.sort_key`)."""
    last = len(points) - 1
    if mode == FOUND:
        return found
    if mode == TOTALS:
        return (len(found), sum(points[min(len(word), last)] for word in found))
    # C-level sorts: alphabetical, then stable by length, then by points if they ever drop.
    words = sorted(found)
    words.sort(key=len, reverse=True)
    if any(shorter > longer for shorter, longer in zip(points, points[1:])):
        words.sort(key=lambda word: -points[min(len(word), last)])
    if mode == WORDS:
        return (sum(points[min(len(word), last)] for word in words), words)
    return [hit_type(word, points[min(len(word), last)], found[word]) for word in words]


def check_template(template: str, allowed: str) -> None:
    """Raise ValueError, as the C kernel does, for a mark ``template`` may not hold or too many marks."""
    marks = [character for character in template if character in _MARKS]
    for mark in marks:
        if mark not in allowed:
            raise ValueError(f"the template holds field {ord(mark)}, which this output has not")
    if len(marks) >= MAX_PIECES:
        raise ValueError("the template holds too many fields")


def _replace(template: str, fields: dict[str, str]) -> str:
    for mark, text in fields.items():
        template = template.replace(mark, text)
    return template


def rows_result(
    hits: Sequence[Any], cells: Sequence[str], template: str, between: str, cell_separator: str
) -> tuple[int, int, str]:
    """(words, points, text) of ranked ``hits``, the text as :meth:`Solver.rows_many` gives it:
    ``template`` per hit with its marks filled (:data:`MARK_WORD`, :data:`MARK_POINTS`, :data:`MARK_PATH`:
    ``cells[cell]`` for each cell joined by ``cell_separator``), rows joined by ``between``."""
    text = between.join(
        [
            _replace(
                template,
                {MARK_WORD: hit.word, MARK_POINTS: str(hit.points), MARK_PATH: cell_separator.join([cells[c] for c in hit.path])},
            )
            for hit in hits
        ]
    )
    return len(hits), sum(hit.points for hit in hits), text


def summary_text(
    totals: Sequence[tuple[int, int]],
    letters: bytes,
    cells: int,
    width: int,
    q_is_qu: bool,
    template: str,
    between: str,
    row_separator: str,
    face_separator: str,
) -> tuple[str, int, int]:
    """(text, words, points) of grids of ``cells`` cells whose (words, points) are ``totals``,
    as :meth:`Solver.summary_rows` gives them: ``template`` per grid (:data:`MARK_GRID`, :data:`MARK_WORDS`,
    :data:`MARK_POINTS`), lines joined by ``between``, and the sums. The grid is its ``letters`` (one
    ASCII byte per cell) in rows of ``width`` joined by ``row_separator``; with ``q_is_qu``, Q
    and q read QU and qu, and the faces of such a grid are joined by ``face_separator``."""
    text = letters.decode("ascii")
    lines = []
    for number, (count, points) in enumerate(totals):
        shown = text[number * cells : (number + 1) * cells]
        if q_is_qu and ("Q" in shown or "q" in shown):
            rows = [
                face_separator.join(shown[start : start + width]).replace("Q", "QU").replace("q", "qu")
                for start in range(0, cells, width)
            ]
        else:
            rows = [shown[start : start + width] for start in range(0, cells, width)]
        lines.append(_replace(template, {MARK_GRID: row_separator.join(rows), MARK_WORDS: str(count), MARK_POINTS: str(points)}))
    return between.join(lines), sum(count for count, _ in totals), sum(points for _, points in totals)


class TooManyFaces(Exception):
    """More different multi-letter faces than free codes (224)."""


class FaceCodes:
    """Faces to codes for one low-level solver (compiled or twin): letters by their bit,
    multi-letter faces registered with the solver as they come."""

    def __init__(self, solver: Any, layout: NativeLayout) -> None:
        self.solver = solver
        self.layout = layout
        self._codes: dict[str, int] = dict(layout.letter_bits)
        self._next = FIRST_LONG

    def encode(self, faces: Sequence[str]) -> bytes:
        """One byte per face (raises :class:`TooManyFaces` when the codes run out)."""
        codes = self._codes
        try:
            return bytes(map(codes.__getitem__, faces))
        except KeyError:
            return bytes(codes[face] if face in codes else self._register(face) for face in faces)

    def _register(self, face: str) -> int:
        bits = [self.layout.letter_bits.get(letter) for letter in face]
        if not 2 <= len(bits) <= 3 or None in bits:
            code = DEAD  # a letter outside the alphabet (or a blank): the face spells no word
        elif self._next > 255:
            raise TooManyFaces
        else:
            code = self._next
            self._next += 1
            self.solver.set_face(code, bytes(bits))  # type: ignore[arg-type]
        self._codes[face] = code
        return code


def twin_result(
    layout: NativeLayout,
    faces: Sequence[str],
    table: tuple[tuple[int, ...], ...],
    min_length: int,
    points: Sequence[int],
    mode: int,
    hit_type: Any,
    timeout: float = 0.0,
) -> Any:
    """One grid of more than 224 different multi-letter faces (codes are one byte): this
    kernel searches it, with the same result, as long as its recursion allows (and
    within ``timeout`` seconds, as :meth:`Solver.solve_many`)."""
    if min(len(faces), layout.longest_word) > MAX_DEPTH:
        raise GridError("a grid of more than 224 different multi-letter faces and paths this deep: use kernel='generic'")
    try:
        found = search(layout, tuple(faces), table, min_length, monotonic() + timeout if timeout > 0 else None)
    except IndexError:
        raise DictionaryError(f"{layout.source}: damaged dictionary (run `boggle-dafsa verify`)") from None
    return shape_result(found, points, mode, hit_type)
