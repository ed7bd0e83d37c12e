"""Expected Boggle points per game of each anagram group, from randomly rolled boards.

scheibo/boggle's measure (its ``tools/anagrams.js``): roll many boards of a dice set, solve
each, and credit every word found to its anagram group (its alphagram, ``AEINRST``); a
group's expected points per game is the points its words score on a board, averaged over
the boards. A group that is worth knowing in Boggle is one whose words are often on the
board and long enough to score: this orders study by what it brings in play, which no
Scrabble probability does.

- The boards are the game's own (:func:`boggle_dafsa.board.dice.roll` from a seed, one
  :class:`~boggle_dafsa.board.dice.SplitMix64` stream): ``N`` boards from seed ``S`` are
  the grids ``generate_grids(dice, S, N)`` gives, so a run is reproducible anywhere, and it
  is resumable: the generator's state after the last board is kept with the sums.
- Each chunk of boards is solved and tallied by the prepared solver in one call
  (:meth:`~boggle_dafsa.solver.prepared.PreparedSolver.tally_codes`: the compiled kernel
  when it is built, its Python twin otherwise), with the dice set's rules: the kernel
  counts each word found by its number into its group's sums, no word is built.
- Per group the sums kept are ``found`` (Σ over boards of k, the group's words on the
  board) and ``squares`` (Σ k²): the mean points per game are ``points × found / N`` and
  their standard error ``points × sqrt((squares/N − (found/N)²) / (N − 1))``, exact per
  board (all the words of a group have its length, so one score).

A :class:`Tally` is written and read as text (:func:`write_tally`, :func:`read_tally`):
``# key: value`` header lines (dice, dictionary, seed, boards, the generator's state,
scoring, CPU seconds), then one line per group, ``ALPHAGRAM<TAB>found<TAB>squares``,
by expected points, highest first. The tables shipped with the package
(``data/expected/DICE-DICTIONARY.tsv.xz``) are such files; :func:`expected_table` reads
one for ``search --sort expected``, the ``expected`` column and ``quiz --order expected``.
"""

from __future__ import annotations

import lzma
import math
import os
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from boggle_dafsa.errors import BoggleError, QueryError
from boggle_dafsa.solver.prepared import PreparedSolver

#: Boards rolled and tallied at a time (a run stopped loses at most these).
CHUNK = 50_000
#: The tables shipped with the package: (dice set, dictionary) → file in data/expected/.
SHIPPED = {("fr", "fr"): "fr-fr.tsv.xz", ("en", "enable2k"): "en-enable2k.tsv.xz"}
#: The dice set a dictionary's expected points come from by default.
DEFAULT_DICE = {"fr": "fr", "enable2k": "en"}
#: Format of the file (bumped if the lines change).
FORMAT = "boggle-dafsa expected points 1"
#: Most groups a tally file may hold (a file longer than this is not one of ours).
MAX_GROUPS = 5_000_000

_MASK64 = (1 << 64) - 1


def alphagram(word: str) -> str:
    """The word's letters in byte order: its anagram group (as the quiz and search key it)."""
    return "".join(sorted(word))


@dataclass
class Tally:
    """The running sums of a run: per anagram group, the words found over the boards
    (``found``) and the sum over boards of their number squared (:meth:`squares`)."""

    dice: str
    dictionary: str
    seed: int
    #: The rules the boards were scored by: its name and points per length.
    scoring: str
    points: tuple[int, ...]
    min_length: int
    boards: int = 0
    #: Words in the dictionary (a resumed run on another list is refused).
    words: int = 0
    #: The SplitMix64 state after the last board (the next run goes on from it).
    state: int | None = None
    cpu_seconds: float = 0.0
    found: Counter[str] = field(default_factory=Counter)
    #: Σ (k² − k) per group: what Σ k² adds to ``found`` (0, and absent, for a group never
    #: found twice on one board, most of them).
    extra: Counter[str] = field(default_factory=Counter)

    def squares(self, group: str) -> int:
        """Σ over boards of k², k the words of ``group`` on the board."""
        return self.found.get(group, 0) + self.extra.get(group, 0)

    def points_of(self, group: str) -> int:
        """Points a word of ``group`` scores (its length's)."""
        length = len(group)
        if length < self.min_length:
            return 0
        return self.points[min(length, len(self.points) - 1)]

    def expected(self, group: str) -> float:
        """Mean points per game the words of ``group`` bring (0.0 for a group never found)."""
        if not self.boards:
            return 0.0
        return self.points_of(group) * self.found.get(group, 0) / self.boards

    def error(self, group: str) -> float:
        """Standard error of :meth:`expected` (the boards' spread over the square root of their number)."""
        n = self.boards
        if n < 2:
            return math.inf if n else 0.0
        mean = self.found.get(group, 0) / n
        variance = max(self.squares(group) / n - mean * mean, 0.0) * n / (n - 1)
        return self.points_of(group) * math.sqrt(variance / n)

    def ranked(self) -> list[str]:
        """The groups found, by expected points, highest first (then by alphagram)."""
        return sorted(self.found, key=lambda group: (-self.points_of(group) * self.found[group], group))


# -- rolling ------------------------------------------------------------------------------


def roll_codes(face_codes: list[list[int]], state: int, count: int) -> tuple[bytes, int]:
    """(the face codes of ``count`` boards rolled one after another, the generator's state
    after them), from SplitMix64 ``state``: exactly :func:`boggle_dafsa.board.dice.roll`'s
    draws (the dice shuffled over the cells by Fisher-Yates, then a face of each, every
    draw by rejection, without modulo bias), written out here with the generator inline
    (a board in ~10 µs rather than ~30). ``face_codes[die][face]``: the code of that face."""
    dice = len(face_codes)
    sizes = [len(faces) for faces in face_codes]
    out = bytearray(dice * count)
    at = 0
    s = state & _MASK64
    golden, m1, m2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
    limits = {bound: (1 << 64) - (1 << 64) % bound for bound in {*range(2, dice + 1), *sizes}}
    for _ in range(count):
        order = list(range(dice))
        for last in range(dice - 1, 0, -1):
            bound = last + 1
            limit = limits[bound]
            while True:
                s = (s + golden) & _MASK64
                z = ((s ^ (s >> 30)) * m1) & _MASK64
                z = ((z ^ (z >> 27)) * m2) & _MASK64
                z ^= z >> 31
                if z < limit:
                    break
            other = z % bound
            order[last], order[other] = order[other], order[last]
        for die in order:
            bound = sizes[die]
            limit = limits[bound]
            while True:
                s = (s + golden) & _MASK64
                z = ((s ^ (s >> 30)) * m1) & _MASK64
                z = ((z ^ (z >> 27)) * m2) & _MASK64
                z ^= z >> 31
                if z < limit:
                    break
            out[at] = face_codes[die][z % bound]
            at += 1
    return bytes(out), s


# -- the run ------------------------------------------------------------------------------


def new_tally(dice_set: Any, dictionary_name: str, seed: int) -> Tally:
    """An empty tally of ``dice_set`` (a :class:`~boggle_dafsa.board.dice.DiceSet`) on the
    dictionary named ``dictionary_name``, from ``seed``."""
    scoring = dice_set.scoring
    return Tally(
        dice=dice_set.name,
        dictionary=dictionary_name,
        seed=seed,
        scoring=scoring.name,
        points=tuple(scoring.points),
        min_length=dice_set.min_length,
        state=seed & _MASK64,
    )


def run(
    tally: Tally,
    dice_set: Any,
    dictionary: Any,
    boards: int,
    *,
    chunk: int = CHUNK,
    kernel: str = "auto",
    after_chunk: Callable[[Tally], None] | None = None,
) -> Tally:
    """Roll ``boards`` more boards of ``dice_set`` after those of ``tally``, solve them in
    ``dictionary`` and add their words to ``tally`` (in place; returned). ``after_chunk`` is
    called after each ``chunk`` boards (to save the tally: a run stopped loses at most a
    chunk). The boards are tallied by :meth:`~boggle_dafsa.solver.prepared.PreparedSolver.tally_codes`
    (``kernel``: "c", "python" or "auto"), which builds no word: each word found counts by
    its number."""
    if (dice_set.name, dice_set.scoring.name, dice_set.min_length) != (tally.dice, tally.scoring, tally.min_length):
        raise BoggleError(
            f"the tally is of dice {tally.dice} ({tally.scoring}), not of {dice_set.name} ({dice_set.scoring.name})"
        )
    if boards < 0 or chunk < 1:
        raise BoggleError(f"bad run: {boards} boards by chunks of {chunk}")
    start = time.process_time()
    solver = PreparedSolver(dictionary, dice_set.shape, min_length=dice_set.min_length, scoring=dice_set.scoring, kernel=kernel)
    face_codes = _face_codes(dice_set, dictionary, solver)
    # Each word's group by the kernel's word numbers; a group is an index into the sums.
    names: dict[str, int] = {}
    numbered = solver.numbered_words()
    if tally.words and tally.words != len(numbered):
        raise BoggleError(f"the tally was made with a dictionary of {tally.words:,} words, not {len(numbered):,}")
    tally.words = len(numbered)
    groups = array("I", [names.setdefault(alphagram(word), len(names)) for word in numbered])
    del numbered
    group_names = list(names)
    found = array("Q", bytes(8 * len(names)))
    squares = array("Q", bytes(8 * len(names)))
    state = tally.seed & _MASK64 if tally.state is None else tally.state
    left = boards
    while left > 0:
        count = min(chunk, left)
        codes, state = roll_codes(face_codes, state, count)
        solver.tally_codes(codes, groups, found, squares)
        # The chunk's sums into the tally, and the arrays cleared for the next one.
        for index, k in enumerate(found):
            if k:
                name = group_names[index]
                tally.found[name] += k
                extra = squares[index] - k
                if extra:
                    tally.extra[name] += extra
        found = array("Q", bytes(8 * len(names)))
        squares = array("Q", bytes(8 * len(names)))
        left -= count
        tally.boards += count
        tally.state = state
        now = time.process_time()
        tally.cpu_seconds += now - start
        start = now
        if after_chunk is not None:
            after_chunk(tally)
    return tally


def _face_codes(dice_set: Any, dictionary: Any, solver: Any) -> list[list[int]]:
    # The code of each face of each die, normalized as the dictionary's words are (a
    # face the dictionary cannot spell stays as it is, and finds nothing).
    cells = solver.cell_count
    codes = []
    for die in dice_set.dice:
        row = []
        for face in die:
            normalized = dictionary.normalize(face) or face
            row.append(solver.encode((normalized,) * cells)[0])
        codes.append(row)
    return codes


# -- the file -----------------------------------------------------------------------------


def write_tally(tally: Tally, path: str | Path, *, preset: int = 6) -> None:
    """Write ``tally`` to ``path`` (xz-compressed when it ends in ``.xz``, at ``preset``:
    1 for the saves between chunks, a fifth of the time for a quarter more bytes)
    atomically: a temporary file beside it, flushed and renamed over it, so that a run
    stopped at any point leaves the last whole tally."""
    path = Path(path)
    lines = [
        f"# {FORMAT}",
        f"# dice: {tally.dice}",
        f"# dictionary: {tally.dictionary}",
        f"# words: {tally.words}",
        f"# scoring: {tally.scoring} {','.join(map(str, tally.points))} min {tally.min_length}",
        f"# seed: {tally.seed}",
        f"# boards: {tally.boards}",
        f"# state: {tally.state if tally.state is not None else tally.seed & _MASK64}",
        f"# cpu-seconds: {tally.cpu_seconds:.1f}",
        "# group<TAB>found<TAB>squares (found: the group's words over all boards; squares: the sum of their number per board, squared)",
    ]
    lines.extend(f"{group}\t{tally.found[group]}\t{tally.squares(group)}" for group in tally.ranked())
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if path.suffix == ".xz":
        data = lzma.compress(data, preset=preset)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def read_tally(path: str | Path) -> Tally:
    """The tally written to ``path`` by :func:`write_tally`; :class:`BoggleError` (one line,
    naming the file and line) for anything else."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        if path.suffix == ".xz":
            # Bounded: a tally of MAX_GROUPS groups is well under this.
            decompressor = lzma.LZMADecompressor()
            raw = decompressor.decompress(raw, max_length=64 << 20)
            if not decompressor.eof:
                raise BoggleError(f"{path}: not an expected-points table (too large, or cut)")
        text = raw.decode("utf-8")
    except (OSError, lzma.LZMAError, UnicodeDecodeError) as error:
        raise BoggleError(
            f"{path}: cannot read the expected-points table ({getattr(error, 'strerror', None) or error})"
        ) from None
    return parse_tally(text, str(path))


def parse_tally(text: str, source: str = "the table") -> Tally:
    """A tally from its text (see :func:`write_tally`)."""
    header: dict[str, str] = {}
    found: Counter[str] = Counter()
    extra: Counter[str] = Counter()
    lines = text.split("\n")
    if not lines or lines[0] != f"# {FORMAT}":
        raise BoggleError(f"{source} line 1: not an expected-points table (it begins {lines[0][:40]!r})")
    for number, line in enumerate(lines[1:], 2):
        if not line:
            continue
        if line.startswith("#"):
            key, colon, value = line[1:].strip().partition(":")
            if colon and " " not in key:
                header[key] = value.strip()
            continue
        parts = line.split("\t")
        try:
            group, k, k2 = parts[0], int(parts[1]), int(parts[2])
        except (IndexError, ValueError):
            raise BoggleError(f"{source} line {number}: not GROUP<TAB>found<TAB>squares") from None
        if len(parts) != 3 or not group or k < 1 or k2 < k or group in found:
            raise BoggleError(
                f"{source} line {number}: not GROUP<TAB>found<TAB>squares (found ≥ 1, squares ≥ found, once a group)"
            )
        if len(found) >= MAX_GROUPS:
            raise BoggleError(f"{source}: more than {MAX_GROUPS:,} groups")
        found[group] = k
        if k2 != k:
            extra[group] = k2 - k
    try:
        name, table, _min, minimum = header["scoring"].split(" ")
        tally = Tally(
            dice=header["dice"],
            dictionary=header["dictionary"],
            seed=int(header["seed"]),
            scoring=name,
            points=tuple(int(p) for p in table.split(",")),
            min_length=int(minimum),
            boards=int(header["boards"]),
            words=int(header.get("words", "0")),
            state=int(header["state"]),
            cpu_seconds=float(header.get("cpu-seconds", "0")),
            found=found,
            extra=extra,
        )
    except (KeyError, ValueError) as error:
        raise BoggleError(f"{source}: a header line is missing or bad ({error})") from None
    if tally.boards < 1 and found:
        raise BoggleError(f"{source}: words found on no board")
    return tally


# -- the tables shipped ---------------------------------------------------------------------

_TABLES: dict[tuple[str, str], Tally] = {}


def shipped_path(dice: str, dictionary: str) -> Any:
    """The shipped table of ``dice`` and ``dictionary`` (a resource path), or None."""
    name = SHIPPED.get((dice, dictionary))
    if name is None:
        return None
    return resources.files("boggle_dafsa") / "data" / "expected" / name


def expected_table(dictionary_name: str | None, dice: str | None = None) -> Tally:
    """The shipped expected-points table of a dictionary (an embedded list's name) and dice
    set (default: the dictionary's own, :data:`DEFAULT_DICE`), read once a process;
    :class:`BoggleError` (one line) where none was computed."""
    dice = dice or DEFAULT_DICE.get(dictionary_name or "")
    path = shipped_path(dice, dictionary_name) if dice and dictionary_name else None
    if path is None:
        known = ", ".join(f"{d} ({dice_name} dice)" for dice_name, d in SHIPPED)
        what = f"{dictionary_name or 'this dictionary'}" + (f" with {dice} dice" if dice else "")
        raise BoggleError(f"no expected points for {what}: computed for {known} (scripts/expected_points.py makes others)")
    assert dice is not None and dictionary_name is not None
    key = (dice, dictionary_name)
    table = _TABLES.get(key)
    if table is None:
        with resources.as_file(path) as real:
            table = _TABLES[key] = read_tally(real)
    return table


def table_of(expected: Any) -> Tally:
    """The table ``expected`` names: a :class:`Tally` as it is, an embedded dictionary's
    name as its shipped table (:func:`expected_table`); None is a one-line
    :class:`~boggle_dafsa.errors.QueryError`."""
    if expected is None:
        raise QueryError("expected points need a table: expected=TABLE, or an embedded dictionary's name (fr, enable2k)")
    if isinstance(expected, str):
        return expected_table(expected)
    if not isinstance(expected, Tally):
        raise QueryError(f"expected points need a table, not {type(expected).__name__}")
    return expected


def group_points(table: Tally, words: Iterable[str]) -> dict[str, float]:
    """Each word's anagram group's expected points per game in ``table``."""
    return {word: table.expected(alphagram(word)) for word in words}


__all__ = [
    "CHUNK",
    "SHIPPED",
    "Tally",
    "alphagram",
    "expected_table",
    "group_points",
    "new_tally",
    "parse_tally",
    "read_tally",
    "roll_codes",
    "run",
    "shipped_path",
    "table_of",
    "write_tally",
]
