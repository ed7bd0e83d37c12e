"""Best-board search: the richest grid of a shape for a dictionary and a score table.

Two seeded methods look for it, over free letters or over what a dice set can roll:

* ``hillclimb``, a pool hill climb (μ+λ): the pool holds the ``pool`` best boards met so
  far; every board one edit away from a board that just entered it (one cell changed,
  or two cells swapped; with dice: one die turned to another face, or two dice swapped)
  is scored, and the best ``pool`` of the pool and those neighbours make the next pool.
  It stops when no new board enters. Boards are compared up to the symmetries of the
  shape (rotations and reflections): each is keyed by its smallest symmetric image, so
  the eight images of a square board are scored once. Over free letters the climb first
  uses the dictionary's common letters (:data:`COMMON_SHARE`), then, from the pool it
  reached, every letter: the final pool is a local optimum over the whole alphabet.
* ``anneal``, simulated annealing: random edits, a worse board accepted with
  probability ``exp(-loss / temperature)``, the temperature falling geometrically, and a
  restart from the best board met when nothing improved for a while.

A search is many independent runs (``runs``); run ``i`` draws from its own generator,
seeded from the search seed and ``i`` alone, so the best boards do not depend on how
many processes or Dask workers run them, nor in which order they finish.

Scoring goes through one call, :meth:`Scorer.score_many` (boards → objective values),
backed by the solver's batch interface when it has one, else by :func:`solve`.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import math
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from boggle_dafsa.board.dice import DiceSet, SplitMix64, roll
from boggle_dafsa.board.grid import Grid, format_shape
from boggle_dafsa.board.rules import check_adjacency, check_min_length, check_objective, scoring_of
from boggle_dafsa.board.scoring import Scoring, get_scoring
from boggle_dafsa.dictionaries.resolve import open_dictionary, resolve_spec
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.files.limits import MAX_WORD_CHARS, format_bytes
from boggle_dafsa.query import match
from boggle_dafsa.search import logs
from boggle_dafsa.search.lifeline import follow_parent
from boggle_dafsa.search.logs import LogWriter, dictionary_identity
from boggle_dafsa.solver import solve, totals
from boggle_dafsa.solver.parallel import open_shipped
from boggle_dafsa.solver.python import TooManyFaces

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: What a board is worth to the search (its points, or its number of words): board.rules.OBJECTIVES.
METHODS: tuple[str, ...] = ("hillclimb", "anneal")

#: Default pool of the hill climb, and runs of a search, when no shape says otherwise.
DEFAULT_POOL = 100
DEFAULT_RUNS = 2
#: Default steps of one annealing run, and steps without a better board before a restart.
DEFAULT_STEPS = 200_000
DEFAULT_STALL = 20_000
#: A letter is common when at least this share of the dictionary's words hold it: the
#: first phase of the hill climb uses those only (ENABLE2K: all but K W Z X Q J).
COMMON_SHARE = 0.08
#: A generation of the hill climb expands at most the pool's size over this of its fresh
#: boards, the best first (2: the half), but never fewer than EXPAND_AT_LEAST: a small
#: pool (3x3, 3x4) is expanded whole, which its optima need (3x4 ENABLE2K with the half:
#: 8 seeds of 10). Measured with scripts/bench_best.py, see docs/best.md.
EXPAND_SHARE = 2
EXPAND_AT_LEAST = 100
#: Beyond this many cells the hill climb over free letters defers swaps and, in its first
#: phase, follows hints (see :func:`default_quick`); not on 3x3 and 3x4, whose optima then
#: came less often (3x4 ENABLE2K with deferred swaps alone: 8 seeds of 10).
QUICK_BEYOND = 12
#: Hints of the first phase over free letters: a board made by changing one cell of a
#: pool board skips the edits (one-cell changes, swaps) that scored on that parent so far
#: below what the pool needs that, shifted by the change of score between the two, they
#: fall this share of the board's score or more below the pool's worst.
#: Measured with scripts/bench_best.py, see docs/best.md.
HINT_MARGIN = 0.15
#: Most face codes of neighbours a climb remembers as scored (then it forgets them: only
#: time is lost), about 100 MB.
MAX_REMEMBERED = 2_000_000
#: Seconds between two progress reports of a run (see :func:`run_one`).
REPORT_EVERY = 1.0
#: Most symmetries used for canonical keys: beyond, only the reflections along each axis.
_MAX_SYMMETRIES = 384

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

Board = tuple[str, ...]


#: Bounds on what a search may be asked (each keeps memory or time within reason).
MAX_POOL = 100_000
MAX_STEPS = 10**9
MAX_RUNS = 100_000
#: Largest search log read by ``--resume``, and its longest line (a run is a few kB).
MAX_LOG_BYTES = 256 << 20
MAX_LOG_LINE = 1 << 20


def default_pool(shape: Sequence[int]) -> int:
    """The hill climb's pool for grids of ``shape``, chosen on ENABLE2K (see docs/best.md)."""
    cells = math.prod(shape)
    return 50 if cells <= 9 else 100 if cells <= 12 else 250


def default_quick(shape: Sequence[int]) -> bool:
    """Whether the hill climb over free letters defers swaps and follows hints on grids of
    ``shape`` (beyond :data:`QUICK_BEYOND` cells; see docs/best.md)."""
    return math.prod(shape) > QUICK_BEYOND


def default_runs(shape: Sequence[int], quick: bool = False) -> int:
    """Independent runs of a search of grids of ``shape`` (see docs/best.md): 3 for a quick
    hill climb (``quick``: its spec defers swaps), whose runs end on the best board less
    often but cost less than half as much, else 2."""
    return 3 if quick else 2


# -- symmetries ---------------------------------------------------------------------------


def symmetries(shape: Sequence[int]) -> list[tuple[int, ...]]:
    """The cell permutations that map a grid of ``shape`` onto itself, identity first.

    Each is a tuple ``p`` such that the image of faces ``f`` is ``[f[p[i]] for i ...]``:
    every permutation of axes of equal length, combined with a reflection along any set
    of axes (8 for a square, 4 for a rectangle, 48 for a cube). Both adjacencies keep
    them. In five dimensions or more only the reflections are used (there would be
    thousands).
    """
    shape = tuple(shape)
    dims = len(shape)
    axis_orders = [
        order for order in itertools.permutations(range(dims)) if all(shape[a] == shape[i] for i, a in enumerate(order))
    ]
    if len(axis_orders) << dims > _MAX_SYMMETRIES:
        axis_orders = [tuple(range(dims))]
    strides = [math.prod(shape[axis + 1 :]) for axis in range(dims)]
    coordinates = list(itertools.product(*(range(size) for size in shape)))
    found: dict[tuple[int, ...], None] = {}
    for order in axis_orders:
        for flips in itertools.product((False, True), repeat=dims):
            permutation = []
            for coords in coordinates:
                # Cell at `coords` of the image shows the face at these source coordinates.
                source = 0
                for i, axis in enumerate(order):
                    value = coords[i]
                    if flips[i]:
                        value = shape[i] - 1 - value
                    source += value * strides[axis]
                permutation.append(source)
            found.setdefault(tuple(permutation), None)
    return list(found)


class Canonical:
    """Keys of boards up to symmetry: the smallest text among a board's symmetric images."""

    def __init__(self, shape: Sequence[int], multi_letter: bool) -> None:
        """For boards of ``shape``; ``multi_letter``: faces may have several letters (joined by spaces)."""
        self._getters = [itemgetter(*permutation) for permutation in symmetries(shape)]
        self._separator = " " if multi_letter else ""

    def key(self, board: Board) -> str:
        """The canonical text of ``board`` (faces row-major; equal for all its symmetric images)."""
        join = self._separator.join
        return min(join(getter(board)) for getter in self._getters)

    def board(self, key: str) -> Board:
        """The faces of a key, row-major."""
        return tuple(key.split(" ")) if self._separator else tuple(key)


# -- scoring ------------------------------------------------------------------------------


class Scorer:
    """Scores boards of one shape: ``score_many(boards)`` gives the objective of each.

    Uses the solver's prepared batch interface (one call for many grids, compiled when
    available) if this version has it, else :func:`boggle_dafsa.solver.solve` per board.
    """

    def __init__(
        self,
        dictionary: Dictionary,
        shape: Sequence[int],
        *,
        scoring: Scoring,
        min_length: int | None = None,
        adjacency: str = "king",
        objective: str = "points",
    ) -> None:
        check_objective(objective)
        self.dictionary = dictionary
        self.shape = tuple(shape)
        self.scoring = scoring
        self.min_length = scoring.min_length if min_length is None else min_length
        self.adjacency = adjacency
        self._column = 1 if objective == "points" else 0
        #: Boards scored so far.
        self.scored = 0
        self._prepared: Any = None
        #: The face code of each letter, by the letters of a call of :meth:`neighbours_at_least`.
        self._letter_codes: dict[tuple[str, ...], list[bytes]] = {}
        try:
            from boggle_dafsa.solver.prepared import PreparedSolver  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            pass
        else:
            self._prepared = PreparedSolver(
                dictionary, self.shape, adjacency=adjacency, min_length=self.min_length, scoring=scoring
            )

    def totals_many(self, boards: Sequence[Board]) -> list[tuple[int, int]]:
        """(words, points) of each board."""
        self.scored += len(boards)
        if self._prepared is not None:
            return list(self._prepared.totals_many(boards))

        return [
            totals(
                solve(
                    Grid(self.shape, board),
                    self.dictionary,
                    min_length=self.min_length,
                    scoring=self.scoring,
                    adjacency=self.adjacency,
                )
            )
            for board in boards
        ]

    def score_many(self, boards: Sequence[Board]) -> list[int]:
        """The objective (points or words) of each board."""
        column = self._column
        return [row[column] for row in self.totals_many(boards)]

    def neighbours_at_least(
        self,
        board: Board,
        letters: Sequence[str],
        swaps: bool,
        worst: int | None,
        seen: set[bytes] | None = None,
        skip: Sequence[bool] | None = None,
        table: list[int] | None = None,
    ) -> list[tuple[int, Board]] | None:
        """(score, board) of each board one edit from ``board`` that scores ``worst`` or more
        (None: all), in :meth:`FreeLetters.neighbours`' order, less those whose face codes
        are in ``seen`` (to which the others are added); None when this scorer has no
        compiled codes for them (then score the boards one by one with :meth:`score_many`).

        The edits are made on the boards' face codes, and the neighbours come to the kernel
        cell by cell, as runs of boards that differ in one cell (which it scores together,
        see :mod:`boggle_dafsa.solver.hood`), then the swaps.

        The edits are numbered: the change of cell ``c`` to ``letters[i]`` is
        ``c * len(letters) + i``, then the swaps of cells ``c < d`` in that order. Those
        whose entry in ``skip`` is true are left out (neither scored nor added to
        ``seen``); ``table``, if given, is set to the score of each edit by number (-1 for
        the edits not scored: left out, seen, or no change).
        """
        prepared = self._prepared
        if prepared is None or prepared.holds_dictionary:
            return None

        cells = len(board)
        try:
            codes = prepared.encode(board)
            letter_codes = self._letter_codes.get(tuple(letters))
            if letter_codes is None:
                letter_codes = self._letter_codes[tuple(letters)] = [
                    prepared.encode((letter,) * cells)[0:1] for letter in letters
                ]
        except TooManyFaces:
            return None
        parts: list[bytes] = []
        moves: list[tuple[int, int]] = []  # (cell, letter index), or (first cell, -1 - second cell)
        add_part, add_move = parts.append, moves.append
        remember = seen.add if seen is not None else None
        for cell in range(cells):
            head, tail, shown = codes[:cell], codes[cell + 1 :], codes[cell : cell + 1]
            for number, code in enumerate(letter_codes):
                if code != shown:
                    if skip is not None and skip[cell * len(letter_codes) + number]:
                        continue
                    changed = head + code + tail
                    if remember is not None:
                        if changed in seen:  # type: ignore[operator]
                            continue
                        remember(changed)
                    add_part(changed)
                    add_move((cell, number))
        if swaps:
            pair = cells * len(letter_codes) - 1
            for first in range(cells):
                for second in range(first + 1, cells):
                    pair += 1
                    if board[first] != board[second]:
                        if skip is not None and skip[pair]:
                            continue
                        swapped = bytearray(codes)
                        swapped[first], swapped[second] = codes[second], codes[first]
                        changed = bytes(swapped)
                        if remember is not None:
                            if changed in seen:  # type: ignore[operator]
                                continue
                            remember(changed)
                        add_part(changed)
                        add_move((first, -1 - second))
        if table is not None:
            table[:] = [-1] * (cells * len(letter_codes) + cells * (cells - 1) // 2)
        if not moves:
            return []
        totals = prepared.run_codes(b"".join(parts), "totals")
        self.scored += len(moves)
        column = self._column
        if table is not None:
            width = len(letter_codes)
            for (cell, other), row in zip(moves, totals):
                if other >= 0:
                    table[cell * width + other] = row[column]
                else:  # the swap of cell and -1 - other: the pairs in order after the letters
                    second = -1 - other
                    table[cells * width + cell * (2 * cells - cell - 1) // 2 + second - cell - 1] = row[column]
        if worst is None:
            picked: Iterable[int] = range(len(moves))
        else:
            picked = [index for index, row in enumerate(totals) if row[column] >= worst]
        found = []
        for index in picked:
            cell, other = moves[index]
            changed_board = list(board)
            if other >= 0:
                changed_board[cell] = letters[other]
            else:
                changed_board[cell], changed_board[-1 - other] = board[-1 - other], board[cell]
            found.append((totals[index][column], tuple(changed_board)))
        return found


# -- what is searched: free letters or a dice set ----------------------------------------


class Space(Protocol):
    """What is searched: states (a board, a roll of dice), their boards and the moves between them."""

    cells: int

    def random(self, rng: SplitMix64) -> Any:
        """A state drawn at random."""
        ...

    def board(self, state: Any) -> Board:
        """The board a state shows."""
        ...

    def neighbours(self, state: Any) -> Iterator[Any]:
        """Every state one move away."""
        ...

    def random_move(self, state: Any, rng: SplitMix64) -> Any:
        """A state one random move away."""
        ...


class FreeLetters:
    """Boards whose cells each show any of ``letters``. A state is the board itself."""

    def __init__(self, letters: Sequence[str], cells: int, swaps: bool = True) -> None:
        """``swaps``: whether exchanging two cells is a move (else only a cell changed)."""
        self.letters = tuple(letters)
        self.cells = cells
        self.swaps = swaps

    def random(self, rng: SplitMix64) -> Board:
        """A board of letters drawn uniformly."""
        letters = self.letters
        return tuple(letters[rng.below(len(letters))] for _ in range(self.cells))

    @staticmethod
    def board(state: Board) -> Board:
        """The faces a state shows."""
        return state

    def neighbours(self, state: Board) -> Iterator[Board]:
        """Every board one edit away: a cell changed to another letter, or two different cells swapped."""
        letters = self.letters
        for cell, face in enumerate(state):
            head, tail = state[:cell], state[cell + 1 :]
            for letter in letters:
                if letter != face:
                    yield (*head, letter, *tail)
        if self.swaps:
            yield from _swaps(state)

    def random_move(self, state: Board, rng: SplitMix64) -> Board:
        """One random edit: a swap a third of the time, else a cell changed."""
        cells = self.cells
        if cells > 1 and rng.below(3) == 0:
            first, second = rng.below(cells), rng.below(cells - 1)
            second += second >= first
            board = list(state)
            board[first], board[second] = board[second], board[first]
            return tuple(board)
        cell = rng.below(cells)
        letter = self.letters[rng.below(len(self.letters))]
        return (*state[:cell], letter, *state[cell + 1 :])


def _swaps(items: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    # Every tuple with two different entries of `items` exchanged.
    for first in range(len(items)):
        for second in range(first + 1, len(items)):
            if items[first] != items[second]:
                swapped = list(items)
                swapped[first], swapped[second] = swapped[second], swapped[first]
                yield tuple(swapped)


#: A state over dice: for each cell, (die index, face index).
Roll = tuple[tuple[int, int], ...]


class DiceBoards:
    """Boards a dice set can roll: each die on one cell, showing one face."""

    def __init__(self, dice_set: DiceSet, faces: Sequence[Sequence[str]] | None = None) -> None:
        """``faces``: the dice's faces as the dictionary normalizes them (default: as written)."""
        self.dice_set = dice_set
        self.faces = tuple(tuple(die) for die in (faces or dice_set.dice))
        self.cells = len(self.faces)

    def random(self, rng: SplitMix64) -> Roll:
        """A roll of the dice, as :func:`boggle_dafsa.board.dice.roll` makes it."""
        return roll(self.dice_set, rng)

    def board(self, state: Roll) -> Board:
        """The faces a roll shows."""
        faces = self.faces
        return tuple(faces[die][face] for die, face in state)

    def neighbours(self, state: Roll) -> Iterator[Roll]:
        """Every roll one move away: a die turned to another face, or two dice swapped."""
        faces = self.faces
        for cell, (die, face) in enumerate(state):
            head, tail = state[:cell], state[cell + 1 :]
            shown = faces[die][face]
            seen = {shown}
            for other in range(len(faces[die])):
                if faces[die][other] not in seen:  # a die with two equal faces: one move
                    seen.add(faces[die][other])
                    yield (*head, (die, other), *tail)
        board = self.board(state)
        for first in range(len(state)):
            for second in range(first + 1, len(state)):
                if board[first] != board[second]:
                    swapped = list(state)
                    swapped[first], swapped[second] = swapped[second], swapped[first]
                    yield tuple(swapped)

    def random_move(self, state: Roll, rng: SplitMix64) -> Roll:
        """One random move: a swap a third of the time, else a die turned."""
        cells = self.cells
        if cells > 1 and rng.below(3) == 0:
            first, second = rng.below(cells), rng.below(cells - 1)
            second += second >= first
            moved = list(state)
            moved[first], moved[second] = moved[second], moved[first]
            return tuple(moved)
        cell = rng.below(cells)
        die, _ = state[cell]
        return (*state[:cell], (die, rng.below(len(self.faces[die]))), *state[cell + 1 :])


def rollable(dice_set: DiceSet, board: Sequence[str], faces: Sequence[Sequence[str]] | None = None) -> bool:
    """True if ``dice_set`` can show ``board``: a matching of cells to distinct dice that have its faces."""
    dice = faces or dice_set.dice
    if len(board) != len(dice):
        return False
    # Augmenting paths (Kuhn's algorithm): at most a few hundred dice.
    owner: dict[int, int] = {}

    def place(cell: int, tried: set[int]) -> bool:
        for die, sides in enumerate(dice):
            if die not in tried and board[cell] in sides:
                tried.add(die)
                if die not in owner or place(owner[die], tried):
                    owner[die] = cell
                    return True
        return False

    return all(place(cell, set()) for cell in range(len(board)))


# -- a search's description ---------------------------------------------------------------


@dataclass(frozen=True)
class SearchSpec:
    """Everything a run needs, in plain values, so that it can be sent to another process.

    ``dictionary`` is what :func:`boggle_dafsa.open_dictionary` opens (a path or an
    embedded name); ``dictionary_digest`` the SHA-256 of that file when it is one, so a
    worker that cannot see it (or sees another file) uses the copy it was sent.
    """

    dictionary: str
    shape: tuple[int, ...]
    letters: tuple[str, ...] = ()
    dice: DiceSet | None = None
    scoring: str = "classic"
    min_length: int | None = None
    adjacency: str = "king"
    objective: str = "points"
    method: str = "hillclimb"
    pool: int = DEFAULT_POOL
    steps: int = DEFAULT_STEPS
    stall: int = DEFAULT_STALL
    dictionary_digest: str | None = None
    #: Letters of the hill climb's first phase (empty: all of ``letters`` from the start).
    common: tuple[str, ...] = ()
    #: Over free letters: a board's swaps a round after its one-cell changes (see _hillclimb).
    defer_swaps: bool = False
    #: Hints of the first phase (see HINT_MARGIN), or None.
    hint_margin: float | None = None

    def key(self) -> str:
        """A short digest of what decides the results (for logs and resuming)."""
        # Shallow: the dice set (a dataclass holding a Scoring) is replaced by its faces below.
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        values.pop("dictionary")  # the same file under another path is the same search
        for name in ("defer_swaps", "hint_margin"):  # later fields: off, the key they had before
            if not values[name]:
                values.pop(name)
        if self.dice is not None:
            values["dice"] = [list(die) for die in self.dice.dice]
        text = json.dumps(values, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_spec(
    dictionary: str | None,
    shape: Sequence[int],
    *,
    dice: DiceSet | None = None,
    exclude_letters: str = "",
    scoring: str | None = None,
    min_length: int | None = None,
    adjacency: str = "king",
    objective: str = "points",
    method: str = "hillclimb",
    pool: int = DEFAULT_POOL,
    steps: int = DEFAULT_STEPS,
    stall: int = DEFAULT_STALL,
    common_first: bool = True,
    quick: bool | None = None,
) -> SearchSpec:
    """Check the parameters of a search and describe it (raises :class:`BoggleError`).

    Opens the dictionary once to learn its alphabet (the free letters, less
    ``exclude_letters``), for a file its digest, and, for a hill climb over free letters
    that starts with the common letters (``common_first``), which letters are common.
    ``quick``: whether the hill climb over free letters defers swaps and follows hints
    (None: :func:`default_quick` of the shape).
    """
    dictionary, _ = resolve_spec(dictionary or None)
    check_objective(objective)
    check_adjacency(adjacency)
    if method not in METHODS:
        raise BoggleError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    if not 1 <= pool <= MAX_POOL:
        raise BoggleError(f"the pool (`pool`) must hold 1 to {MAX_POOL:,} boards, not {pool}")
    if not (1 <= steps <= MAX_STEPS and 1 <= stall <= MAX_STEPS):
        raise BoggleError(f"the steps and stall of annealing (`steps`, `stall`) must be 1 to {MAX_STEPS:,}")
    check_min_length(min_length, MAX_WORD_CHARS)
    shape = tuple(shape)
    quick = default_quick(shape) if quick is None else quick
    if math.prod(shape) > 4096:
        raise BoggleError(f"a {format_shape(shape)} grid is too large to search (4,096 cells at most)")
    scoring_name = scoring_of(scoring, dice).name
    opened = open_dictionary(dictionary)
    letters: tuple[str, ...] = ()
    common: tuple[str, ...] = ()
    if dice is not None:
        if tuple(dice.shape) != shape:
            raise BoggleError(f"dice {dice.name} fill a {format_shape(dice.shape)} grid, not {format_shape(shape)}")
    else:
        excluded = {opened.normalize(letter) or letter for letter in exclude_letters if not letter.isspace()}
        letters = tuple(letter for letter in opened.alphabet if letter not in excluded)
        if not letters:
            raise BoggleError("no letters left to search with (`exclude_letters` removes them all)")
        if common_first and method == "hillclimb":
            common = common_letters(opened, letters)
    digest = None
    path = getattr(opened, "path", None)
    if path and Path(dictionary).is_file():
        from boggle_dafsa.solver.parallel import file_digest

        digest = file_digest(dictionary)
    return SearchSpec(
        dictionary=dictionary,
        shape=shape,
        letters=letters,
        dice=dice,
        scoring=scoring_name,
        min_length=min_length,
        adjacency=adjacency,
        objective=objective,
        method=method,
        pool=pool,
        steps=steps,
        stall=stall,
        dictionary_digest=digest,
        common=common,
        defer_swaps=quick and dice is None and method == "hillclimb",
        hint_margin=HINT_MARGIN if quick and common else None,
    )


def common_letters(
    dictionary: Dictionary | Iterable[str], letters: Sequence[str], share: float = COMMON_SHARE
) -> tuple[str, ...]:
    """The ``letters`` held by at least ``share`` of the words of ``dictionary`` (all if fewer than two are).

    ``dictionary``: a dictionary, or its words.
    """
    # A dictionary's words at once through the query walk (compiled where built):
    # iterating it a word at a time took seconds of a search's start on ENABLE2K.
    words = list(match(dictionary, "*")) if hasattr(dictionary, "normalize") else list(dictionary)
    counts = Counter(itertools.chain.from_iterable(map(set, words)))
    for letter in letters:
        if len(letter) > 1:  # a multi-letter letter (a digraph of the alphabet)
            counts[letter] = sum(letter in word for word in words)
    common = tuple(letter for letter in letters if counts[letter] >= share * len(words))
    # Too few letters to climb with (a tiny list): no first phase.
    return common if len(common) >= 2 and len(common) < len(letters) else ()


# -- one run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A board and what it is worth."""

    board: Board
    score: int
    words: int
    points: int

    def text(self, shape: Sequence[int]) -> str:
        """The board in the GRID syntax."""
        return str(Grid(tuple(shape), self.board))


@dataclass(frozen=True)
class RunResult:
    """What one run found: its best boards (best first), boards scored, time taken."""

    run: int
    seed: int
    best: tuple[Found, ...]
    scored: int
    seconds: float

    def to_json(self, spec_key: str) -> dict[str, Any]:
        """The run as one line of the ndjson log."""
        return {
            "spec": spec_key,
            "run": self.run,
            "seed": self.seed,
            "best": [[list(found.board), found.score, found.words, found.points] for found in self.best],
            "scored": self.scored,
            "seconds": round(self.seconds, 3),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunResult:
        """A run read back from the log (raises KeyError, TypeError or ValueError if malformed)."""
        best = tuple(
            Found(tuple(str(face) for face in board), int(score), int(words), int(points))
            for board, score, words, points in data["best"]
        )
        return cls(int(data["run"]), int(data["seed"]), best, int(data["scored"]), float(data["seconds"]))


def run_seed(seed: int, run: int) -> int:
    """The seed of run ``run`` of a search seeded ``seed``: output ``run`` of SplitMix64(seed)."""
    return SplitMix64((seed + run * _GOLDEN) & _MASK64).next64()


class _Context:
    """What the runs of one spec share in a process: the dictionary, the scorer, the key maker."""

    def __init__(self, spec: SearchSpec, dictionary: Dictionary) -> None:
        self.spec = spec
        scoring = get_scoring(spec.scoring)
        self.scorer = Scorer(
            dictionary,
            spec.shape,
            scoring=scoring,
            min_length=spec.min_length,
            adjacency=spec.adjacency,
            objective=spec.objective,
        )
        self.space: Space
        #: The hill climb's first space (the common letters), then ``space``.
        self.first_space: Space
        if spec.dice is not None:
            dice_faces = [[dictionary.normalize(face) or face for face in die] for die in spec.dice.dice]
            self.space = DiceBoards(spec.dice, dice_faces)
            multi = any(len(face) > 1 for die in dice_faces for face in die)
        else:
            self.space = FreeLetters(spec.letters, math.prod(spec.shape))
            multi = any(len(letter) > 1 for letter in spec.letters)
        self.first_space = FreeLetters(spec.common, self.space.cells) if spec.common else self.space
        self.canonical = Canonical(spec.shape, multi)


_CONTEXTS: dict[str, _Context] = {}


def _context(spec: SearchSpec, data: bytes | None = None) -> _Context:
    # One per spec and process: workers of a pool or a Dask cluster open the dictionary once.
    key = spec.key()
    context = _CONTEXTS.get(key)
    if context is None:
        context = _Context(spec, _open_for(spec, data))
        _CONTEXTS.clear()  # a process serves one search at a time
        _CONTEXTS[key] = context
    return context


def _open_for(spec: SearchSpec, data: bytes | None) -> Dictionary:
    return open_shipped(spec.dictionary, spec.dictionary_digest, data)


#: Called during a run with (run, boards scored so far by the run, best score so far).
Report = Callable[[int, int, int], None]


class _Reporter:
    """Passes a run's progress to ``report`` at most every ``every`` seconds."""

    def __init__(self, run: int, scorer: Scorer, report: Report | None, every: float) -> None:
        self._run, self._scorer, self._report, self._every = run, scorer, report, every
        self._first = scorer.scored
        self._next = time.perf_counter() + every

    def __call__(self, best: int) -> None:
        if self._report is not None and time.perf_counter() >= self._next:
            self._report(self._run, self._scorer.scored - self._first, best)
            self._next = time.perf_counter() + self._every


def run_one(
    spec: SearchSpec,
    seed: int,
    run: int,
    data: bytes | None = None,
    keep: int = 5,
    *,
    report: Report | None = None,
    report_every: float = REPORT_EVERY,
) -> RunResult:
    """Run ``run`` of the search ``spec`` seeded ``seed``: its ``keep`` best boards.

    The same (spec, seed, run) gives the same result in any process. ``report``, if
    given, hears of the run's progress every ``report_every`` seconds or so.
    """
    context = _context(spec, data)
    started = time.perf_counter()
    scored_before = context.scorer.scored
    rng = SplitMix64(run_seed(seed, run))
    reporter = _Reporter(run, context.scorer, report, report_every)
    if spec.method == "hillclimb":
        ranked = _hillclimb(context, rng, reporter)
    else:
        ranked = _anneal(context, rng, reporter)
    best = []
    boards = [context.canonical.board(key) for _, key in ranked[:keep]]
    for (score, _), board, (words, points) in zip(ranked, boards, context.scorer.totals_many(boards)):
        best.append(Found(board, score, words, points))
    return RunResult(run, seed, tuple(best), context.scorer.scored - scored_before, time.perf_counter() - started)


def _hillclimb(context: _Context, rng: SplitMix64, reporter: _Reporter) -> list[tuple[int, str]]:
    """The pool hill climb: the final pool as (score, key), best first."""
    canonical, scorer, size = context.canonical.key, context.scorer, context.spec.pool
    space = context.first_space
    # The pool: key -> (score, state); a state is what moves apply to (a board, a roll).
    pool: dict[str, tuple[int, Any]] = {}
    starts: dict[str, Any] = {}
    for _ in range(size):
        state = space.random(rng)
        starts.setdefault(canonical(space.board(state)), state)
    expanded: set[str] = set()
    # The face codes of every neighbour scored (free letters): a board met again was
    # scored before, and the pool's worst only rises, so it cannot get in now if it did
    # not then (or is in). A fifth of the neighbours on ENABLE2K 4x4 (the boards between
    # two pool boards one cell apart), and every neighbour met in the first phase when
    # the second expands the pool again.
    scored_codes: set[bytes] = set()

    def rank(key: str) -> tuple[int, str]:
        # Best score first, then the smaller key: the same order in every process.
        return -pool[key][0], key

    def trim() -> None:
        for key in sorted(pool, key=rank)[size:]:
            del pool[key]

    keys = list(starts)
    for key, score in zip(keys, scorer.score_many([space.board(starts[key]) for key in keys])):
        pool[key] = (score, starts[key])
    trim()
    # Over free letters a board's swaps are scored a round after its one-cell changes,
    # and only if it is still in the pool then: while the pool climbs, most boards are
    # pushed out before (a swap costs the kernel five times a one-cell change).
    defer = context.spec.defer_swaps and isinstance(space, FreeLetters) and space.swaps
    margin = context.spec.hint_margin
    swapped: set[str] = set()
    # Hints, in the first phase over free letters (see HINT_MARGIN): the tables of what
    # each edit of a pool board scored (its one-cell changes, cell * letters + letter;
    # its swaps, by pair of cells in order), and for a board made by changing one cell of
    # another, (that parent's score, the cell, the parent's tables).
    tables: dict[str, tuple[list[int], list[int]]] = {}
    hints: dict[str, tuple[int, int, tuple[list[int], list[int]]]] = {}
    pairs = [(first, second) for first in range(space.cells) for second in range(first + 1, space.cells)]
    while True:
        reporter(max(score for score, _ in pool.values()))
        fresh = [key for key in pool if key not in expanded]
        waiting = [key for key in pool if key in expanded and key not in swapped] if defer else []
        if not fresh and not waiting and space is not context.space:
            # The common letters are exhausted: every board of the pool is expanded again
            # with every letter, and swapped again (without hints: the final pool is a
            # local optimum over every letter and every swap).
            space, expanded, swapped = context.space, set(), set()
            fresh = list(pool)
        if not fresh and not waiting:
            break
        hinted = defer and space is not context.space and margin is not None
        # Only a board at least as good as the pool's worst can enter it (and the worst
        # only rises): the others are scored and dropped without their key (the symmetric
        # images' smallest text, which costs more than scoring the board). A board scored
        # before is met again only when it scores as well, and the pool then decides as
        # it did. The neighbours of a board come cell by cell, which the kernel scores a
        # cell at a time (see boggle_dafsa.solver.hood).
        # `best`: the `size` best scores of distinct boards met (the pool's, the candidates'),
        # a heap whose smallest is the score a board needs to enter, rising as the
        # candidates come in.
        best = [score for score, _ in pool.values()]
        heapq.heapify(best)
        while len(best) > size:
            heapq.heappop(best)
        candidates: dict[str, tuple[int, Any]] = {}
        # The better part of the fresh boards first: a board pushed out of the pool
        # before its turn is never expanded (the climb ends, as before, on a pool whose
        # every board is expanded).
        fresh = sorted(fresh, key=rank)[: max(EXPAND_AT_LEAST, len(pool) // EXPAND_SHARE)]
        for key, swaps_only in sorted([(key, False) for key in fresh] + [(key, True) for key in waiting]):
            (swapped if swaps_only else expanded).add(key)
            own, state = pool[key]
            worst = best[0] if len(best) >= size else None
            scored = None
            own_tables = None
            if isinstance(space, FreeLetters):  # a state is its board
                if len(scored_codes) > MAX_REMEMBERED:
                    scored_codes.clear()
                letters = () if swaps_only else space.letters
                skip, table, hint = None, None, None
                if hinted:
                    own_tables = tables.setdefault(key, ([], []))
                    table = own_tables[1] if swaps_only else own_tables[0]
                    hint = hints.get(key)
                if hint is not None and worst is not None and margin is not None:
                    skip = _hint_skips(hint, own, worst, margin, swaps_only, len(letters), space.cells, pairs)
                swaps = swaps_only or (space.swaps and not defer)
                scored = scorer.neighbours_at_least(state, letters, swaps, worst, scored_codes, skip, table)
                if skip is not None and table is not None and hint is not None:
                    # What was skipped keeps its estimate, for this board's children.
                    parent_table = hint[2][1 if swaps_only else 0]
                    shift = own - hint[0]
                    table[: len(skip)] = [
                        (value + shift if value + shift > 0 else 0) if skipped else mine
                        for mine, skipped, value in zip(table, skip, parent_table)
                    ]
            if scored is None:
                if defer and swaps_only:
                    states = list(_swaps(state))
                elif defer and isinstance(space, FreeLetters):
                    states = list(FreeLetters(space.letters, space.cells, False).neighbours(state))
                else:
                    states = list(space.neighbours(state))
                scores = scorer.score_many([space.board(state) for state in states])
                scored = [(score, state) for score, state in zip(scores, states) if worst is None or score >= worst]
            for score, new_state in scored:
                if len(best) >= size and score < best[0]:
                    continue
                new_key = canonical(space.board(new_state))
                if new_key not in pool and new_key not in candidates:
                    candidates[new_key] = (score, new_state)
                    if own_tables is not None and not swaps_only:
                        changed = [cell for cell in range(len(state)) if state[cell] != new_state[cell]]
                        if len(changed) == 1:
                            hints[new_key] = (own, changed[0], own_tables)
                    if len(best) < size:
                        heapq.heappush(best, score)
                    else:
                        heapq.heappushpop(best, score)
        if candidates:
            pool.update(candidates)
            trim()
            for gone in [key for key in hints if key not in pool]:
                del hints[gone]
            for gone in [key for key in tables if key not in pool]:
                del tables[gone]
    return sorted(((score, key) for key, (score, _) in pool.items()), key=lambda item: (-item[0], item[1]))


def _hint_skips(
    hint: tuple[int, int, tuple[list[int], list[int]]],
    own: int,
    worst: int,
    margin: float,
    swaps_only: bool,
    letters: int,
    cells: int,
    pairs: Sequence[tuple[int, int]],
) -> list[bool] | None:
    """Which edits of a board (its one-cell changes, or its swaps) its hint says to skip.

    The board is its parent with one cell changed; an edit away from that cell is
    assumed to change the board's score as it changed the parent's: it is skipped when
    that estimate falls ``margin`` times the board's score or more below ``worst``.
    None when nothing is skipped (or the parent's table is not there).
    """
    parent_score, changed, parent_tables = hint
    parent_table = parent_tables[1] if swaps_only else parent_tables[0]
    if not parent_table:
        return None
    cut = worst - int(margin * own) - own + parent_score
    if swaps_only:
        skip = [0 <= value < cut and changed not in pair for value, pair in zip(parent_table, pairs)]
    else:
        skip = [0 <= value < cut and index // letters != changed for index, value in enumerate(parent_table[: letters * cells])]
    return skip if any(skip) else None


def _anneal(context: _Context, rng: SplitMix64, reporter: _Reporter) -> list[tuple[int, str]]:
    """Simulated annealing with restarts from the best board: the best boards met, as (score, key)."""
    space, canonical, scorer, spec = context.space, context.canonical.key, context.scorer, context.spec
    cache: dict[str, int] = {}

    def score(state: Any) -> tuple[int, str]:
        key = canonical(space.board(state))
        value = cache.get(key)
        if value is None:
            if len(cache) > 1_000_000:  # bounded memory on long runs
                cache.clear()
            value = cache[key] = scorer.score_many([space.board(state)])[0]
        return value, key

    state = space.random(rng)
    current, key = score(state)
    best: dict[str, int] = {key: current}
    best_state, best_score = state, current
    # The temperature starts where a loss of a tenth of a typical good score is often
    # accepted and falls to a hundredth of that over the run.
    start_temperature = None
    cooling = 0.01 ** (1 / spec.steps)
    temperature = 0.0
    since_better = 0
    for step in range(spec.steps):
        if step % 1024 == 0:
            reporter(best_score)
        candidate = space.random_move(state, rng)
        value, key = score(candidate)
        if start_temperature is None and value > 0:
            start_temperature = temperature = max(1.0, value / 4)
        accept = value >= current or (temperature > 0 and rng.next64() / 2**64 < math.exp((value - current) / temperature))
        if accept:
            state, current = candidate, value
            if value >= best_score:
                best[key] = value
        if value > best_score:
            best_state, best_score, since_better = candidate, value, 0
        else:
            since_better += 1
            if since_better >= spec.stall:
                state, current, since_better = best_state, best_score, 0
        temperature *= cooling
    return sorted(((value, key) for key, value in best.items()), key=lambda item: (-item[0], item[1]))


# -- many runs ----------------------------------------------------------------------------


@dataclass
class SearchResult:
    """All the runs of a search, and its best distinct boards."""

    spec: SearchSpec
    seed: int
    runs: list[RunResult] = field(default_factory=list)

    def best(self, count: int = 5) -> list[tuple[Found, int]]:
        """The ``count`` best distinct boards (up to symmetry) with how many runs found each."""
        canonical = Canonical(
            self.spec.shape, any(len(face) > 1 for run in self.runs for found in run.best for face in found.board)
        )
        found_by: dict[str, tuple[Found, set[int]]] = {}
        for run in sorted(self.runs, key=lambda run: run.run):
            for found in run.best:
                key = canonical.key(found.board)
                entry = found_by.setdefault(key, (found, set()))
                entry[1].add(run.run)
        ranked = sorted(found_by.items(), key=lambda item: (-item[1][0].score, item[0]))
        return [(found, len(runs)) for _, (found, runs) in ranked[:count]]

    @property
    def scored(self) -> int:
        """Boards scored by all runs."""
        return sum(run.scored for run in self.runs)


def log_identity(spec: SearchSpec, seed: int) -> str:
    """What every line of this search's log is sealed with (see :mod:`boggle_dafsa.search.logs`):
    its spec key, its seed and its dictionary's content."""
    return f"best:{spec.key()}:{seed}:{dictionary_identity(spec.dictionary, spec.dictionary_digest)}"


def open_log(path: str | Path, spec: SearchSpec, seed: int) -> Any:
    """The log at ``path`` opened for appending this search's runs (a
    :class:`~boggle_dafsa.search.logs.LogWriter`: ``write(run.to_json(spec.key()))``),
    its last line dropped first if it was cut short (a search killed while writing it)."""
    return LogWriter(path, log_identity(spec, seed))


def read_log(path: str | Path, spec: SearchSpec, seed: int) -> dict[int, RunResult]:
    """Runs of this search (same spec and seed) already in the ndjson log at ``path``, checked.

    Every line of this search must pass its digest (chained: see
    :mod:`boggle_dafsa.search.logs`), and every board it names is scored again by the
    solver: it must be a board of the search (its letters, or a roll of its dice) and
    score what the line says. Else the log is refused in one line naming it and the
    line (:class:`BoggleError`). A last line cut short is dropped.
    """
    key = spec.key()
    done: dict[int, RunResult] = {}
    numbers: dict[int, int] = {}  # run -> its line
    # Bounded, whatever the file is (/dev/zero, a 10 GB file, one endless line); a file or a URL.
    data = logs.read_bytes(path, "search log", MAX_LOG_BYTES)
    if data is None:
        return done
    if b"\0" in data:
        raise BoggleError(f"{path}: not a search log (binary data)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BoggleError(f"{path}: cannot read the log ({error})") from None
    del data
    identity = log_identity(spec, seed)
    previous = logs.START
    entries = list(logs.lines(text))
    for number, line, complete in entries:
        if len(line) > MAX_LOG_LINE:
            raise BoggleError(f"{path}:{number}: line longer than {format_bytes(MAX_LOG_LINE)}: not a line of a search log")
        if not complete:
            break  # cut short by a kill (no newline): the run is done again
        if not line.strip():
            previous = logs.chain_value(line, None)  # as the writer sees it, if it is the last
            continue
        try:
            record = json.loads(line)
            ours = record.get("spec") == key and record.get("seed") == seed
            result = RunResult.from_json(record) if ours else None
        except (ValueError, KeyError, TypeError, AttributeError):
            # The last line of an interrupted run may be cut short: the run is done again.
            if number == len(entries):
                break
            raise BoggleError(f"{path}:{number}: not a line of a search log") from None
        if result is not None:
            logs.check(path, number, identity, previous, record, "search")
            if not 0 <= result.run < MAX_RUNS:
                raise BoggleError(f"{path}:{number}: run number {result.run} out of range (0 to {MAX_RUNS - 1:,})")
            done[result.run] = result
            numbers[result.run] = number
        previous = logs.chain_value(line, record)
    if done:
        _check_boards(path, spec, done, numbers)
    return done


def _check_boards(path: str | Path, spec: SearchSpec, done: dict[int, RunResult], numbers: dict[int, int]) -> None:
    # Every board of the log scored again: the search prints no board the solver did not
    # score in this process.
    context = _context(spec)
    cells = math.prod(spec.shape)
    faces = context.space.faces if isinstance(context.space, DiceBoards) else None
    letters = set(spec.letters)
    claims: list[tuple[int, Found]] = []
    for run, result in sorted(done.items()):
        number = numbers[run]
        for found in result.best:
            board = found.board
            if len(board) != cells or (
                not rollable(spec.dice, board, faces) if spec.dice is not None else not letters.issuperset(board)
            ):
                raise BoggleError(
                    f"{path}:{number}: {''.join(board)!r} is not a board of this search: start over with `log` in a new file"
                )
            claims.append((number, found))
    column = 1 if spec.objective == "points" else 0
    for (number, found), (words, points) in zip(claims, context.scorer.totals_many([found.board for _, found in claims])):
        if (words, points) != (found.words, found.points) or (words, points)[column] != found.score:
            raise BoggleError(
                f"{path}:{number}: {Grid(spec.shape, found.board)} scores {points:,} points and {words:,} words, not the "
                f"{found.points:,} and {found.words:,} the log says: start over with `log` in a new file"
            )


def search(
    spec: SearchSpec,
    *,
    seed: int,
    runs: int = DEFAULT_RUNS,
    jobs: int = 1,
    dask: str | None = None,
    done: dict[int, RunResult] | None = None,
    on_result: Callable[[RunResult], None] | None = None,
    on_progress: Report | None = None,
    report_every: float = REPORT_EVERY,
) -> SearchResult:
    """Run ``runs`` runs of ``spec`` (those not in ``done``), here or on a Dask cluster.

    ``jobs`` processes on this machine (1: in this process), or the Dask scheduler at
    ``dask``. ``on_result`` is called in this process with each run as it finishes
    (in any order); the result does not depend on that order. ``on_progress`` hears
    of the runs under way (see :data:`Report`) about every ``report_every`` seconds,
    from another thread when the runs are elsewhere.
    """
    if not 1 <= runs <= MAX_RUNS:
        raise BoggleError(f"the number of runs (`runs`) must be 1 to {MAX_RUNS:,}, not {runs}")
    if jobs < 1 or jobs > 64:
        raise BoggleError(f"the number of processes (`jobs`) must be 1 to 64, not {jobs}")
    done = done or {}
    result = SearchResult(spec, seed, [done[run] for run in sorted(done) if run < runs])
    todo = [run for run in range(runs) if run not in done]
    if dask:
        from boggle_dafsa.solver.parallel import dask_as_completed, require_dask

        require_dask()

        path = spec.dictionary if spec.dictionary_digest else None
        if path is not None:
            from boggle_dafsa.solver.parallel import file_digest

            if not Path(path).is_file() or file_digest(path) != spec.dictionary_digest:
                raise BoggleError(f"{path}: changed since the search was described")
        finished: Iterable[RunResult] = dask_as_completed(
            dask,
            run_one,
            [(spec, seed, run) for run in todo],
            path,
            on_event=None if on_progress is None else lambda message: on_progress(*message),
            options={"report_every": report_every},
        )
    elif jobs == 1 or len(todo) <= 1:
        finished = (run_one(spec, seed, run, report=on_progress, report_every=report_every) for run in todo)
    else:
        finished = _pool_runs(spec, seed, todo, jobs, on_progress, report_every)
    for run_result in finished:
        result.runs.append(run_result)
        if on_result is not None:
            on_result(run_result)
    result.runs.sort(key=lambda run: run.run)
    return result


#: Where a process of the pool sends the progress of its runs (set in each process).
_PROGRESS_QUEUE: Any = None


def _pool_init(queue: Any, parent: int) -> None:
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue
    # Ctrl-C reaches the whole process group: the parent stops the workers itself (see
    # _pool_runs), so that one press stops everything without a traceback per worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    follow_parent(parent)  # a run ends with its parent, however it dies (kill -9 too)


def _pool_report(run: int, scored: int, best: int) -> None:
    _PROGRESS_QUEUE.put((run, scored, best))


def _pool_run(spec: SearchSpec, seed: int, run: int, report_every: float) -> RunResult:
    report = _pool_report if _PROGRESS_QUEUE is not None else None
    return run_one(spec, seed, run, report=report, report_every=report_every)


def _pool_runs(
    spec: SearchSpec, seed: int, todo: list[int], jobs: int, on_progress: Report | None, report_every: float
) -> Iterator[RunResult]:
    # "spawn" would re-import the caller; fork is what the batch solver uses too, where it exists.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    queue = context.Queue() if on_progress is not None else None
    relay = None
    if queue is not None and on_progress is not None:
        report = on_progress

        def pass_on() -> None:
            for message in iter(queue.get, None):
                report(*message)

        relay = threading.Thread(target=pass_on, daemon=True)
        relay.start()
    try:
        with ProcessPoolExecutor(
            min(jobs, len(todo)), mp_context=context, initializer=_pool_init, initargs=(queue, os.getpid())
        ) as executor:
            try:
                # A few runs queued per process, not all of them: memory stays flat whatever --runs.
                waiting = iter(todo)
                running = {executor.submit(_pool_run, spec, seed, run, report_every) for run in islice(waiting, 2 * jobs)}
                while running:
                    finished, running = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        yield future.result()
                        running |= {executor.submit(_pool_run, spec, seed, run, report_every) for run in islice(waiting, 1)}
            except BaseException:
                # Interrupted (Ctrl-C, an error, the caller gone): stop the workers now
                # rather than wait for their runs to end.
                _stop_workers(executor)
                raise
    finally:
        if queue is not None and relay is not None:
            queue.put(None)  # after the processes ended: their reports are all in the queue
            relay.join()


def _stop_workers(executor: Any) -> None:
    """Terminate the processes of a ``ProcessPoolExecutor`` and wait for them (no orphan)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join()
