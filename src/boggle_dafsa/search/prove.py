"""Proof of the best board: every board of a shape with at least N points, by branch and bound.

The method is the one Dan Vanderkam published (hybrid-boggle, arXiv 2507.02117); this
is an implementation of our own:

* **Classes.** The letters are split into buckets (three for most cells and, by default,
  one of every letter for the corners up to 12 cells, two past them, see
  :func:`default_buckets`). A *class* gives each cell one bucket:
  it holds every board whose cells show a letter of their bucket. The classes partition
  the boards; only one class of each symmetry orbit is proven (rotations and
  reflections map corners to corners, so bucket tuples are compared directly).
* **Bound.** For one class, every word that some board of it could hold is found by a
  depth-first walk of the grid's paths and of a trie of the words, each cell trying
  every letter of its bucket. Each *word instance* (a path and its letters) is inserted
  into an *orderly tree*: its (cell, letter) pairs sorted by one fixed cell order, so
  that sum nodes (points of the words that end there, plus their children) and choice
  nodes (one cell's letter: the most of the children) for the same cell merge. A word
  found on the same set of cells with the same letters (two paths) is counted once.
  The bound of the root is at least the points of any board of the class: a board
  picks one letter at each choice node, and its words are a subset of the instances.
* **Branch.** Cells are fixed one at a time in that same order. Because every word's
  pairs are sorted, the choice nodes of the next cell are exactly those of the current
  *frontier* (the sum nodes reached so far) for that cell: fixing a letter replaces
  each of them by its child for the letter, and the bound falls by the difference. A
  branch whose bound is below N is dropped; a board whose every cell is fixed with a
  bound of at least N is a *candidate*, re-scored exactly by the solver.

The tree building and the branching of one class are done by the compiled kernel
(``_prove.c``) when it is built, else by :func:`prove_class_python`, its twin, which
gives the same bounds and the same candidates in the same order (the tests compare
them). ``BOGGLE_DAFSA_PURE=1`` forces the twin.

A proof is a list of classes (tasks); :func:`prove` runs them here, in ``jobs``
processes, and writes each finished class to a log that :func:`read_log` reads back to
resume. :func:`estimate` proves a random sample of classes and projects the whole.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import random
import re
import signal
import statistics
import sys
import threading
import time
from array import array
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from boggle_dafsa import compiled
from boggle_dafsa import compiled as seam
from boggle_dafsa.board.grid import BLANK, format_shape, neighbours
from boggle_dafsa.board.rules import check_adjacency, check_min_length, check_objective, scoring_of
from boggle_dafsa.board.scoring import Scoring, get_scoring
from boggle_dafsa.dictionaries.resolve import open_dictionary, resolve_spec
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search import logs
from boggle_dafsa.search.best import Canonical, Scorer, symmetries
from boggle_dafsa.search.lifeline import follow_parent
from boggle_dafsa.search.logs import LogWriter, dictionary_identity
from boggle_dafsa.solver.parallel import dask_as_completed, file_digest, open_shipped, require_dask

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.dictionary import Dictionary

#: Most cells the prover takes (the compiled kernel's masks hold 32 cells).
MAX_CELLS = 32
#: Most faces (letters) the compiled kernel takes; the twin takes any number.
MAX_KERNEL_FACES = 32
#: Most bytes of word instances' records a unit of the node budget (the compiled kernel
#: keeps every instance a while: the cells and 4 bytes, to a multiple of 8, see
#: :func:`record_bytes`; held to RECORDS_PER_NODE of the budget too, which binds first up
#: to 4x4: 6.6 bytes a unit on 3x4, 9.8 on 4x4).
RECORD_BYTES = 10
#: Bytes per unit of the node budget in the compiled kernel, at its peak: the records
#: (RECORD_BYTES at most, given back as the tree is made from them) beside the tree's
#: nodes (8 bytes each) while the tree is made, then the tree and the nodes its forcing
#: merges (8 bytes each, at most 9/5 of the budget in all: 14.4).
NODE_BYTES = 18
#: Default MB of one class (``--memory``, a bound: its tree's nodes, 8 bytes each, and what
#: it merges take about half of it). 28 million nodes, a little more than the 25 million
#: of before: a worker no larger than hybrid-boggle's (ENABLE2K 3x4, 40 sampled classes:
#: the largest tree 27.2 million nodes, the process's peak 317 MB, the peer's 333 MB).
DEFAULT_MEMORY_MB = 480
#: Default most tree nodes (and word instances) of one class at a time, DEFAULT_MEMORY_MB
#: at NODE_BYTES: a class whose tree would be larger is split in two and each half proven apart.
DEFAULT_NODE_BUDGET = DEFAULT_MEMORY_MB * (1 << 20) // NODE_BYTES
#: Most candidate boards one class may yield before the proof gives up (raise N).
MAX_CANDIDATES = 5_000_000
#: The largest node budget (the kernel's node numbers are 32-bit).
MAX_NODE_BUDGET = 1 << 30
#: Most nodes of a class's tree and of the trees its forcing merges, over the node budget.
MERGED_NODES = (9, 5)
#: Most word instances (records) of a class, over the node budget. A class's tree has
#: more nodes than 1/0.41 = 2.44 a record, or nearly (measured: 2.4-2.7 on French 3x4
#: classes, 3.0-3.8 on ENABLE2K), so a class with more records would exceed the budget
#: anyway: it is split as soon as its walk passes them, not after sorting them and building
#: most of its tree (a failed French 3x4 attempt cost 2.6 CPU-s that way, now about 0.5).
RECORDS_PER_NODE = (41, 100)
#: Bits of a bound in the compiled kernel's nodes (8 bytes: a child link and its flag, a
#: bound and a label): a class whose word instances add up to 2**27 points or more is split
#: as one over the budget (2**27 is 134 million points; at the default memory budget a
#: class reaches RECORDS_PER_NODE's limit first, as no word scores 12 points or more).
MAX_BOUND_BITS = 27
#: Forcing (merging the fixed cell into the tree) goes on while a branch's bound is above
#: this many times N; below it, the frontier's depth-first bound takes over (measured:
#: see docs/proofs.md).
SWITCH_FACTOR = 2.0
#: The last cells are never forced (the depth-first bound is cheaper there).
UNFORCED_CELLS = 4
#: Letters that the default buckets count as vowels (after the dictionary's normalization).
VOWELS = frozenset("AEIOUY")


# -- the kernel seam ----------------------------------------------------------------------


def compiled_kernel() -> Any | None:
    """The compiled prover (``_prove``), or None when it is not built or ``BOGGLE_DAFSA_PURE`` is set."""
    return compiled.load("prover")


# -- the words as a trie over faces -------------------------------------------------------


class Lexicon:
    """The words of a dictionary that fit a shape, as a trie over face indices.

    ``faces`` are the faces a cell may show (one letter each, or QU). Node 0 is the
    root; node ``i`` has a child for face ``f`` when bit ``f`` of ``masks[i]`` is set, and
    its children are numbered ``firsts[i]``, ``firsts[i] + 1``, ... in face order.
    ``values[i]`` is what the word ending at node ``i`` is worth (points, or 1 for the
    words objective; 0 when no counted word ends there).
    """

    def __init__(self, faces: Sequence[str], masks: Sequence[int], firsts: Sequence[int], values: Sequence[int]) -> None:
        self.faces = tuple(faces)
        # One bytes object, a (mask, first, value) triple of 32-bit ints a node, that the
        # compiled kernel reads in place (bytes: immutable, so what it checked stays true),
        # and the twin through strided views: a proof process holds its trie once (ENABLE2K
        # 3x4: 329,096 nodes, 3.9 MB; 6.6 MB in three arrays of 4 and 8 bytes beside the
        # kernel's copy before), never as lists (an int object a node, 35 MB). More than 32
        # faces (the twin only) keeps lists.
        #: The nodes as the compiled kernel reads them, or None (masks over 32 bits).
        self.nodes: bytes | None = None
        try:
            import array

            self.nodes = array.array("I", itertools.chain.from_iterable(zip(masks, firsts, values))).tobytes()
        except OverflowError:
            self.masks: Sequence[int] = list(masks)
            self.firsts: Sequence[int] = list(firsts)
            self.values: Sequence[int] = list(values)
        else:
            view = memoryview(self.nodes).cast("I")
            self.masks, self.firsts, self.values = view[0::3], view[1::3], view[2::3]
        self._capsule: Any = None

    def __len__(self) -> int:
        return len(self.masks)

    def child(self, node: int, face: int) -> int:
        """The child of ``node`` for ``face``, or -1."""
        mask = self.masks[node]
        if not mask >> face & 1:
            return -1
        return self.firsts[node] + (mask & ((1 << face) - 1)).bit_count()

    def capsule(self, kernel: Any) -> Any:
        """The trie as the compiled kernel holds it (checked once, then kept)."""
        if self._capsule is None:
            if self.nodes is None:
                raise ValueError("lexicon: the compiled prover takes 32 faces at most")
            self._capsule = kernel.lexicon(self.nodes, len(self.faces))
        return self._capsule


def tokenize(word: str, faces: frozenset[str], longest_face: int) -> list[tuple[str, ...]]:
    """Every way to spell ``word`` with ``faces`` (usually one; none if a letter has no face)."""
    ways: list[tuple[str, ...]] = []

    def extend(start: int, sofar: tuple[str, ...]) -> None:
        if start == len(word):
            ways.append(sofar)
            return
        for size in range(1, longest_face + 1):
            piece = word[start : start + size]
            if len(piece) == size and piece in faces:
                extend(start + size, (*sofar, piece))

    extend(0, ())
    return ways


def build_lexicon(words: Iterable[str], faces: Sequence[str], cells: int, value: Callable[[str], int]) -> Lexicon:
    """The trie of ``words`` spelled with ``faces`` in at most ``cells`` faces; ``value(word)`` is its worth."""
    face_set = frozenset(faces)
    index = {face: number for number, face in enumerate(faces)}
    longest = max(len(face) for face in faces)
    # Nested dicts first (face index -> child), then numbered breadth-first so that each
    # node's children are consecutive.
    root: dict[int, Any] = {}
    worth: dict[int, int] = {}  # id(node dict) -> value
    for word in words:
        if len(word) > cells * longest:
            continue
        points = value(word)
        if points <= 0:  # its prefixes come with the words that count
            continue
        for way in tokenize(word, face_set, longest):
            if len(way) > cells:
                continue
            node = root
            for face in way:
                node = node.setdefault(index[face], {})
            worth[id(node)] = max(worth.get(id(node), 0), points)
    masks: list[int] = []
    firsts: list[int] = []
    values: list[int] = []
    queue = [root]
    position = 0
    while position < len(queue):
        node = queue[position]
        position += 1
        mask = 0
        for number in node:
            mask |= 1 << number
        masks.append(mask)
        firsts.append(len(queue))
        values.append(worth.get(id(node), 0))
        queue.extend(node[number] for number in sorted(node))
    return Lexicon(faces, masks, firsts, values)


# -- what is proven -----------------------------------------------------------------------


@dataclass(frozen=True)
class ProofSpec:
    """Everything a proof needs, in plain values (sent to other processes as it is)."""

    dictionary: str
    shape: tuple[int, ...]
    minimum: int
    faces: tuple[str, ...]
    #: Buckets of letters (faces) for most cells, and for the corners.
    buckets: tuple[tuple[str, ...], ...]
    corner_buckets: tuple[tuple[str, ...], ...]
    scoring: str = "classic"
    min_length: int | None = None
    adjacency: str = "king"
    objective: str = "points"
    dictionary_digest: str | None = None
    #: Most tree nodes of one class at a time (larger classes are split).
    node_budget: int = DEFAULT_NODE_BUDGET
    #: The dice boards must be rolled with, each die's faces as the dictionary normalizes
    #: them (empty: free letters); a board uses as many dice as it has cells.
    dice: tuple[tuple[str, ...], ...] = ()

    def key(self) -> str:
        """A short digest of what decides the result (for logs and resuming)."""
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        values.pop("dictionary")
        values.pop("node_budget")  # splits change the work, not the boards
        if not self.dice:
            values.pop("dice")  # the keys of proofs without dice are those logged before dice
        text = json.dumps(values, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def cells(self) -> int:
        return math.prod(self.shape)

    def corners(self) -> list[bool]:
        """For each cell, whether it is a corner (every coordinate at an end of its axis)."""
        strides = [math.prod(self.shape[axis + 1 :]) for axis in range(len(self.shape))]
        result = []
        for cell in range(self.cells):
            coordinates = [cell // stride % size for stride, size in zip(strides, self.shape)]
            result.append(all(value in (0, size - 1) for value, size in zip(coordinates, self.shape)))
        return result

    def classes(self) -> ClassList:
        """The classes to prove, one per symmetry orbit: a bucket number per cell (corners
        number the corner buckets). With dice, only the classes that the dice can fill (a
        distinct die for each cell with a face in its bucket). Made once per spec and process."""
        return _classes(self)

    def letter_sets(self, numbers: Sequence[int]) -> list[list[int]]:
        """The face indices each cell of class ``numbers`` may show. With dice, only the
        faces that some roll of the class shows there (see :func:`dice_filter`)."""
        index = {face: number for number, face in enumerate(self.faces)}
        corners = self.corners()
        sets = [
            sorted(index[face] for face in (self.corner_buckets if corner else self.buckets)[number])
            for corner, number in zip(corners, numbers)
        ]
        if self.dice:
            filtered = dice_filter(self.die_masks(), sets)
            return sets if filtered is None else filtered  # None: never for a class of classes()
        return sets

    def die_masks(self) -> tuple[int, ...]:
        """Each die's faces as a bit mask of face indices."""
        return _die_masks(self)


@functools.lru_cache(maxsize=4)
def _die_masks(spec: ProofSpec) -> tuple[int, ...]:
    index = {face: number for number, face in enumerate(spec.faces)}
    return tuple(sum(1 << index[face] for face in set(die)) for die in spec.dice)


class ClassList(Sequence[tuple[int, ...]]):
    """The classes of a proof in their order, each a tuple of bucket numbers (one a cell),
    held as one byte a cell: a 4x4 proof's million classes take 17 MB, where a tuple each
    took 190 MB in every process of the proof."""

    __slots__ = ("_cells", "_data")

    def __init__(self, cells: int, data: array[int]) -> None:
        self._cells = cells
        self._data = data

    def __len__(self) -> int:
        return len(self._data) // self._cells

    @overload
    def __getitem__(self, index: int) -> tuple[int, ...]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, ...]]: ...
    def __getitem__(self, index: int | slice) -> tuple[int, ...] | list[tuple[int, ...]]:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"class {index} of {len(self)}")
        start = index * self._cells
        return tuple(self._data[start : start + self._cells])

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        cells, data = self._cells, self._data
        for start in range(0, len(data), cells):
            yield tuple(data[start : start + cells])

    def __eq__(self, other: object) -> bool:
        """The same classes in the same order (as another list of them, or any sequence of tuples)."""
        if isinstance(other, ClassList):
            return self._cells == other._cells and self._data == other._data
        if isinstance(other, Sequence):
            return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<ClassList of {len(self):,} classes of {self._cells} cells>"


@functools.lru_cache(maxsize=4)
def _classes(spec: ProofSpec) -> ClassList:
    # Every tuple of bucket numbers whose images under the shape's symmetries are none of them
    # smaller: a 4x4 proof looks at 8.5 million (itemgetters: 9 CPU-s, where a tuple built
    # for each image took 42).
    corners = spec.corners()
    choices = [range(len(spec.corner_buckets if corner else spec.buckets)) for corner in corners]
    images = [itemgetter(*image) for image in symmetries(spec.shape)[1:]]
    kept = array("B" if max(len(spec.buckets), len(spec.corner_buckets)) <= 256 else "H")
    for numbers in itertools.product(*choices):
        for image in images:
            if image(numbers) < numbers:
                break
        else:
            kept.extend(numbers)
    if not spec.dice:
        return ClassList(spec.cells, kept)
    # Whether the dice can fill a class depends only on the buckets of its cells, not on
    # where they lie: one matching per multiset of buckets.
    index = {face: number for number, face in enumerate(spec.faces)}
    inner = [sum(1 << index[face] for face in bucket) for bucket in spec.buckets]
    corner = [sum(1 << index[face] for face in bucket) for bucket in spec.corner_buckets]
    dice = spec.die_masks()
    fits: dict[tuple[int, ...], bool] = {}
    result = array(kept.typecode)
    for numbers in ClassList(spec.cells, kept):
        masks = tuple(sorted((corner if is_corner else inner)[number] for is_corner, number in zip(corners, numbers)))
        if masks not in fits:
            fits[masks] = _match([[die for die, faces in enumerate(dice) if faces & mask] for mask in masks]) is not None
        if fits[masks]:
            result.extend(numbers)
    return ClassList(spec.cells, result)


def _match(allowed: Sequence[Sequence[int]], owner: dict[int, int] | None = None) -> dict[int, int] | None:
    """A die for every cell, no die twice (``allowed[cell]``: the dice it may take), as
    {die: cell}; None if there is none. ``owner`` is a partial matching to extend."""
    owner = {} if owner is None else owner

    def place(cell: int, tried: set[int]) -> bool:
        # Kuhn's augmenting paths: at most a few dozen dice.
        for die in allowed[cell]:
            if die not in tried:
                tried.add(die)
                if die not in owner or place(owner[die], tried):
                    owner[die] = cell
                    return True
        return False

    placed = set(owner.values())
    for cell in range(len(allowed)):
        if cell not in placed and not place(cell, set()):
            return None
    return owner


def dice_filter(dice: Sequence[int], sets: Sequence[Sequence[int]]) -> list[list[int]] | None:
    """The faces each cell may show in some roll of ``dice`` (face masks) that gives every
    cell a face of ``sets[cell]`` (a distinct die per cell; dice may be left over); None
    when there is no such roll.

    A face stays at a cell when some die that shows it there is matched to the cell by
    a matching of every cell: the die the first matching gave the cell, a die left free,
    or a die whose cell can take another die (an augmenting path that avoids it).
    """
    masks = [sum(1 << face for face in faces) for faces in sets]
    allowed = [[die for die, faces in enumerate(dice) if faces & mask] for mask in masks]
    first = _match(allowed)
    if first is None:
        return None
    given = {cell: die for die, cell in first.items()}
    result = []
    for cell, faces in enumerate(sets):
        shown = 0
        for die in allowed[cell]:
            if die == given[cell] or die not in first:
                shown |= dice[die]
                continue
            if dice[die] & masks[cell] & ~shown == 0:
                continue  # nothing new to learn from this die
            # The cell takes `die` (and no other cell may): its former die is free, and
            # the cell that had `die` looks for another by an augmenting path.
            displaced = first[die]
            owner = {other: owner_cell for other, owner_cell in first.items() if owner_cell not in (cell, displaced)}
            owner[die] = cell
            rest = [[die] if c == cell else [other for other in allowed[c] if other != die] for c in range(len(sets))]
            if _match(rest, owner) is not None:
                shown |= dice[die]
        result.append([face for face in faces if shown >> face & 1])
    return result


def value_function(scoring: Scoring, min_length: int, objective: str) -> Callable[[str], int]:
    """What a word is worth: its points under ``scoring``, or 1 (objective "words"), 0 if too short."""
    if objective == "words":
        return lambda word: 1 if len(word) >= min_length else 0
    points = scoring.points
    top = len(points) - 1
    return lambda word: points[min(len(word), top)] if len(word) >= min_length and len(word) >= scoring.min_length else 0


#: Past this many cells, the corners' default is two buckets, not one (see :func:`default_corner_buckets`).
ONE_CORNER_BUCKET_CELLS = 12


def default_buckets(
    dictionary: Dictionary, faces: Sequence[str], cells: int = 9
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """Buckets for most cells (vowels; the commonest consonants; the rest), by how many
    words hold each letter, and the corners' (:func:`default_corner_buckets`).

    The consonants are split so that the common bucket holds the letters of about two
    thirds of the consonant occurrences (for ENABLE2K: D G H L N R S T, close to the
    split Vanderkam measured as good).
    """
    counts: dict[str, int] = dict.fromkeys(faces, 0)
    long_faces = [face for face in faces if len(face) > 1]
    # the corners' counts in the same pass (one reading of the dictionary, not two)
    endings: dict[str, int] | None = {} if cells > ONE_CORNER_BUCKET_CELLS else None
    shown = frozenset(faces)
    for word in dictionary:
        for letter in set(word):
            if letter in counts:
                counts[letter] += 1
        for face in long_faces:
            counts[face] += face in word
        if endings is not None:
            _count_ending(endings, word, shown)
    vowels = tuple(face for face in faces if face in VOWELS)
    consonants = sorted((face for face in faces if face not in VOWELS), key=lambda face: (-counts[face], face))
    total = sum(counts[face] for face in consonants) or 1
    common: list[str] = []
    running = 0
    for face in consonants:
        if running >= total * 0.55 and len(common) >= 2:
            break
        common.append(face)
        running += counts[face]
    rare = [face for face in consonants if face not in common]
    inner = tuple(bucket for bucket in (vowels, tuple(sorted(common)), tuple(sorted(rare))) if bucket)
    return inner, default_corner_buckets(dictionary, faces, cells, endings)


def _count_ending(endings: dict[str, int], word: str, shown: frozenset[str]) -> None:
    # the word's last face, when a consonant (a face of several letters, QU, ends it as one)
    last = word[-2:] if word[-2:] in shown else word[-1:]
    if last in shown and last not in VOWELS:
        endings[last] = endings.get(last, 0) + 1


def default_corner_buckets(
    dictionary: Iterable[str], faces: Sequence[str], cells: int, endings: dict[str, int] | None = None
) -> tuple[tuple[str, ...], ...]:
    """The corners' buckets by default: one, every face, up to ONE_CORNER_BUCKET_CELLS cells;
    past them two, the vowels and the consonant that ends the most words (S in ENABLE2K and
    in French: the paper's corner buckets), then the other faces.

    A corner touches 3 cells only, so on small grids branching on its letter inside a class
    (forcing) costs less than proving its buckets as separate classes: ENABLE2K 3x3 (>= 500)
    38.0 CPU-s against 62.5 with two corner buckets, French 3x3 (>= 700) 33.0 against 49.6,
    3x4 projections 2.93 against 4.46 CPU-hours. On 4x4 the one-bucket classes are too
    heavy: 4 of them took more than 22 CPU-minutes (over 6,100 CPU-hours projected, against
    2,700-4,700 with two buckets). docs/proofs.md has the runs.
    """
    if cells <= ONE_CORNER_BUCKET_CELLS or not faces:
        return (tuple(faces),) if faces else ()
    if endings is None:
        endings = {}
        shown = frozenset(faces)
        for word in dictionary:
            _count_ending(endings, word, shown)
    ending = max(sorted(endings), key=endings.__getitem__, default=None)
    first = tuple(face for face in faces if face in VOWELS or face == ending)
    rest = tuple(face for face in faces if face not in first)
    return tuple(bucket for bucket in (first, rest) if bucket)


def parse_buckets(
    text: str, faces: Sequence[str], normalize: Callable[[str], str | None], absent: Iterable[str] | None = None
) -> tuple[tuple[str, ...], ...]:
    """Buckets written as words of letters separated by spaces ("AEIOU BCD ..."): each face in exactly one.

    A face of several letters (a die's TH) is written in parentheses, as in dice files:
    "AEIOU (TH)BCD ...". With dice, letters of ``absent`` (the dictionary's letters that no die
    shows) are passed over, so that one string serves with and without dice; a bucket
    left empty is dropped.
    """
    index = {face: number for number, face in enumerate(faces)}
    skipped = frozenset(absent or ())
    buckets: list[tuple[str, ...]] = []
    seen: set[str] = set()
    for word in text.split():
        bucket: list[str] = []
        if word.count("(") != word.count(")") or re.search(r"\([^()]*(\(|$)|\(\)", word):
            raise BoggleError(f"bucket {word!r}: unbalanced or empty parentheses")
        for letter in re.findall(r"\(([^()]+)\)|([^()])", word):
            letter = letter[0] or letter[1]
            face = "".join(normalize(part) or part for part in letter) if len(letter) > 1 else normalize(letter) or letter
            if face == "Q" and "Q" not in index and "QU" in index:
                face = "QU"
            if face in seen:
                raise BoggleError(f"bucket {word!r}: {letter!r} is in two buckets")
            if face not in index and face in skipped:
                seen.add(face)
                continue
            if face not in index:
                kind = "a letter of the dictionary" if absent is None else "a face of the dice"
                raise BoggleError(f"bucket {word!r}: {letter!r} is not {kind}")
            seen.add(face)
            bucket.append(face)
        if bucket:
            buckets.append(tuple(sorted(bucket, key=index.__getitem__)))
    missing = [face for face in faces if face not in seen]
    if missing:
        raise BoggleError(f"buckets {text!r} leave out {''.join(missing)}: every letter must be in one bucket")
    return tuple(buckets)


def default_order(shape: Sequence[int], adjacency: str) -> list[int]:
    """The cell order of the trees and of the branching: cells with the most neighbours
    first (the centre of a 3x3), ties by the cell nearest the centre, then by number."""
    table = neighbours(tuple(shape), adjacency)
    strides = [math.prod(shape[axis + 1 :]) for axis in range(len(shape))]

    def distance(cell: int) -> float:
        return sum(abs(cell // stride % size - (size - 1) / 2) for stride, size in zip(strides, shape))

    return sorted(range(len(table)), key=lambda cell: (-len(table[cell]), distance(cell), cell))


def make_spec(
    dictionary: str | None,
    shape: Sequence[int],
    minimum: int,
    *,
    buckets: str | None = None,
    corner_buckets: str | None = None,
    scoring: str | None = None,
    min_length: int | None = None,
    adjacency: str = "king",
    objective: str = "points",
    q_is_qu: bool = False,
    node_budget: int = DEFAULT_NODE_BUDGET,
    dice: DiceSet | None = None,
) -> ProofSpec:
    """Check the parameters of a proof and describe it (raises :class:`BoggleError`).

    With ``dice``, only boards those dice can roll are proven (a distinct die on each
    cell, showing one of its faces): the faces are the dice's, the scoring by default
    theirs, and the shape may have fewer cells than there are dice (some stay in the box).
    """
    dictionary, _ = resolve_spec(dictionary or None)
    shape = tuple(shape)
    if math.prod(shape) > MAX_CELLS:
        raise BoggleError(f"a {format_shape(shape)} grid is too large to prove ({MAX_CELLS} cells at most)")
    if math.prod(shape) < 1:
        raise BoggleError("the grid has no cells")
    check_objective(objective)
    check_adjacency(adjacency)
    if dice is not None:
        if math.prod(shape) > len(dice.dice):
            raise BoggleError(
                f"dice {dice.name} are {len(dice.dice)}: too few for a {format_shape(shape)} grid ({math.prod(shape)} cells)"
            )
        if q_is_qu:
            raise BoggleError(f"`q_is_qu` does not go with dice: dice {dice.name} say which face shows QU")
    scoring_name = scoring_of(scoring, dice).name
    check_min_length(min_length)
    if minimum < 1:
        raise BoggleError(f"the minimum (`minimum`) must be at least 1, not {minimum}")
    if not 100 <= node_budget <= MAX_NODE_BUDGET:
        raise BoggleError(f"the node budget (`node_budget`) must be 100 to {MAX_NODE_BUDGET:,}, not {node_budget:,}")
    opened = open_dictionary(dictionary)
    faces = [letter for letter in opened.alphabet]
    if q_is_qu and "Q" in faces:
        faces[faces.index("Q")] = "QU"
    dice_faces: tuple[tuple[str, ...], ...] = ()
    absent: list[str] | None = None  # with dice: the dictionary's letters that no die shows
    if dice is not None:
        # The dice's faces as the dictionary normalizes them (as `best --dice` does), in
        # the dictionary's order (QU at Q's place), then the others (blank faces, letters
        # no word holds).
        dice_faces = tuple(tuple(opened.normalize(face) or face for face in die) for die in dice.dice)
        shown = {face for die in dice_faces for face in die}
        place = {face: number for number, face in enumerate(faces)}
        if "QU" in shown and "Q" in place:
            place["QU"] = place["Q"]
        absent = [face for face in faces if face not in shown]
        faces = sorted(shown, key=lambda face: (place.get(face, len(place)), face))
    if buckets:
        inner = parse_buckets(buckets, faces, opened.normalize, absent)
        # The corners' default does not follow --buckets: it follows the shape.
        corner = (
            parse_buckets(corner_buckets, faces, opened.normalize, absent)
            if corner_buckets
            else default_corner_buckets(opened, faces, math.prod(shape))
        )
    else:
        inner, corner = default_buckets(opened, faces, math.prod(shape))
        if corner_buckets:
            corner = parse_buckets(corner_buckets, faces, opened.normalize, absent)
    digest = None
    if getattr(opened, "path", None) and Path(dictionary).is_file():
        digest = file_digest(dictionary)
    return ProofSpec(
        dictionary=dictionary,
        shape=shape,
        minimum=minimum,
        faces=tuple(faces),
        buckets=inner,
        corner_buckets=corner,
        scoring=scoring_name,
        min_length=min_length,
        adjacency=adjacency,
        objective=objective,
        dictionary_digest=digest,
        node_budget=node_budget,
        dice=dice_faces,
    )


# -- one class: the tree, its bound, the branching (Python twin of _prove.c) ---------------


@dataclass
class KernelResult:
    """What the kernel says of one class: its root bound, tree size, branches and candidates."""

    bound: int
    nodes: int
    branches: int
    #: Boards whose bound is at least N, as one face index per cell, in branching order.
    candidates: list[tuple[int, ...]]
    #: False when the tree would have exceeded the node budget (nothing else is set then).
    complete: bool = True


def prove_class_python(
    lexicon: Lexicon,
    table: Sequence[Sequence[int]],
    sets: Sequence[Sequence[int]],
    order: Sequence[int],
    minimum: int,
    node_budget: int,
    max_candidates: int = MAX_CANDIDATES,
    switch: int | None = None,
    force_depth: int | None = None,
) -> KernelResult:
    """Bound class ``sets`` (face indices per cell) and branch on it: see the module's docstring.

    ``order`` is the cell order of the tree and of the branching. Cells are forced (merged
    into the tree) while a branch's bound is above ``switch`` and fewer than
    ``force_depth`` cells are fixed (defaults: :data:`SWITCH_FACTOR` times N, all cells but
    :data:`UNFORCED_CELLS`). Raises :class:`BoggleError` past ``max_candidates`` candidates.
    """
    cells = len(sets)
    if not 1 <= node_budget <= MAX_NODE_BUDGET:
        raise ValueError("prove_class: the node budget must be 1 to 2**30")
    switch, force_depth = forcing(minimum, cells, switch, force_depth)
    rank = [0] * cells
    for position, cell in enumerate(order):
        rank[cell] = position
    masks, firsts, values = lexicon.masks, lexicon.firsts, lexicon.values
    # A sum node is [points, bound, {rank: choice}]; a choice node is [bound, {face: sum}].
    root: list[Any] = [0, 0, {}]
    nodes = 1
    seen: set[tuple[int, int]] = set()
    path_cells: list[int] = []
    path_faces: list[int] = []
    used = [False] * cells

    class Budget(Exception):
        pass

    instances = points = 0
    stride = record_bytes(cells)

    def add(word: int) -> None:
        nonlocal nodes, instances, points
        instances += 1
        points += values[word]
        # as the compiled kernel, which keeps every instance a while (RECORD_BYTES a unit of
        # the budget, RECORDS_PER_NODE of the budget) and holds its bounds in MAX_BOUND_BITS bits
        if (
            instances * stride > node_budget * RECORD_BYTES
            or instances * RECORDS_PER_NODE[1] > node_budget * RECORDS_PER_NODE[0]
            or points >= 1 << MAX_BOUND_BITS
        ):
            raise Budget
        node = root
        for position, face in sorted(zip([rank[cell] for cell in path_cells], path_faces)):
            choices = node[2]
            choice = choices.get(position)
            if choice is None:
                choice = choices[position] = [0, {}]
                nodes += 1
            children = choice[1]
            child = children.get(face)
            if child is None:
                child = children[face] = [0, 0, {}]
                nodes += 1
            node = child
        if nodes > node_budget:
            raise Budget
        key = (id(node), word)
        if key not in seen:
            seen.add(key)
            node[0] += values[word]

    def visit(cell: int, trie: int) -> None:
        mask = masks[trie]
        used[cell] = True
        path_cells.append(cell)
        for face in sets[cell]:
            if mask >> face & 1:
                child = firsts[trie] + (mask & ((1 << face) - 1)).bit_count()
                path_faces.append(face)
                if values[child]:
                    add(child)
                if masks[child]:
                    for other in table[cell]:
                        if not used[other]:
                            visit(other, child)
                path_faces.pop()
        path_cells.pop()
        used[cell] = False

    try:
        for start in range(cells):
            visit(start, 0)
    except Budget:
        return KernelResult(0, 0, 0, [], complete=False)

    def settle(node: list[Any]) -> int:
        total = node[0]
        for choice in node[2].values():
            best = 0
            for child in choice[1].values():
                best = max(best, settle(child))
            choice[0] = best
            total += best
        node[1] = total
        return total

    bound = settle(root)
    # The frontier: for each rank, the choice nodes of the sum nodes reached so far.
    frontier: list[list[list[Any]]] = [[] for _ in range(cells)]
    candidates: list[tuple[int, ...]] = []
    board = [0] * cells
    branches = 0

    def faces_at(position: int) -> Sequence[int]:
        return sets[order[position]] if position < cells else ()

    # for each rank not fixed, for each face: the sum of the bounds of the frontier's
    # children of that face (kept as sum nodes are reached, put back after a branch)
    sums: list[dict[int, int]] = [{} for _ in range(cells)]

    def reach(node: list[Any]) -> int:
        # sum node ``node`` reached: its choice nodes onto the frontier, their children into the sums
        for rank, choice in node[2].items():
            frontier[rank].append(choice)
            row = sums[rank]
            for face, child in choice[1].items():
                row[face] = row.get(face, 0) + child[1]
        return int(node[0])

    def branch(position: int, points: int, faces: Sequence[int]) -> None:
        # ``points``: of the sum nodes reached so far; a board of the branch scores at most
        # that plus, for each cell not fixed, the most over its faces of its rank's sums
        # (every choice node of a cell takes the same face)
        nonlocal branches
        branches += 1
        if position == cells:
            if len(candidates) >= max_candidates:
                raise BoggleError(f"more than {max_candidates:,} candidate boards in one class: raise the minimum")
            candidates.append(tuple(board))
            return
        rest = sum(max((sums[later].get(face, 0) for face in faces_at(later)), default=0) for later in range(position + 1, cells))
        here = sums[position]
        cell = order[position]
        for face in faces:
            if points + rest + here.get(face, 0) < minimum:
                continue
            board[cell] = face
            sizes = [len(bucket) for bucket in frontier]
            saved = [dict(row) for row in sums[position + 1 :]]
            value = points
            for choice in frontier[position]:
                child = choice[1].get(face)
                if child is not None:
                    value += reach(child)
            branch(position + 1, value, faces_at(position + 1))
            for bucket, size in zip(frontier, sizes):
                del bucket[size:]
            sums[position + 1 :] = saved

    def branch_from(tree: list[Any], position: int, faces: Sequence[int]) -> None:
        for row in sums:
            row.clear()
        branch(position, reach(tree), faces)
        for bucket in frontier:
            bucket.clear()

    # Forcing: a cell fixed is merged into the tree (see _prove.c's explore); merged nodes
    # are counted as the kernel counts them (a shallow copy is one), to give up at the same
    # point (9/5 of ``node_budget`` nodes in all).
    limit = node_budget * MERGED_NODES[0] // MERGED_NODES[1]
    count = nodes

    class Limit(Exception):
        pass

    def made() -> None:
        nonlocal count
        if count >= limit:
            raise Limit
        count += 1

    def merge_choice(x: list[Any], y: list[Any]) -> list[Any]:
        made()
        children: dict[int, list[Any]] = {}
        for face in sorted(x[1].keys() | y[1].keys(), reverse=True):
            one, other = x[1].get(face), y[1].get(face)
            if one is not None and other is not None:
                children[face] = merge_sum(one, -1, other)
            else:
                made()
                children[face] = x[1][face] if one is not None else y[1][face]
        return [max((child[1] for child in children.values()), default=0), children]

    def merge_sum(a: list[Any], skip: int, b: list[Any] | None) -> list[Any]:
        made()
        points = a[0] + (b[0] if b is not None else 0)
        theirs: dict[int, list[Any]] = b[2] if b is not None else {}
        choices: dict[int, list[Any]] = {}
        for rank in sorted(a[2].keys() | theirs.keys()):
            if rank == skip:
                continue
            one, other = a[2].get(rank), theirs.get(rank)
            if one is not None and other is not None:
                choices[rank] = merge_choice(one, other)
            else:
                made()
                choices[rank] = a[2][rank] if one is not None else theirs[rank]
        return [points, points + sum(choice[0] for choice in choices.values()), choices]

    def merged_bound(a: list[Any], skip: int, b: list[Any]) -> int:
        # merge_sum's bound, choice nodes merged one level down only (see _prove.c)
        total = a[0] + b[0]
        for rank in a[2].keys() | b[2].keys():
            if rank == skip:
                continue
            one, other = a[2].get(rank), b[2].get(rank)
            if one is None or other is None:
                total += a[2][rank][0] if one is not None else b[2][rank][0]
            else:
                total += max(
                    (one[1][face][1] if face in one[1] else 0) + (other[1][face][1] if face in other[1] else 0)
                    for face in one[1].keys() | other[1].keys()
                )
        return total

    def explore(tree: list[Any], position: int) -> None:
        nonlocal branches, count
        if position >= cells or position >= force_depth or tree[1] <= switch:
            branch_from(tree, position, faces_at(position))
            return
        branches += 1
        bound = tree[1]
        choice = tree[2].get(position)
        cell = order[position]
        faces = sets[cell]
        for number, face in enumerate(faces):
            child = choice[1].get(face) if choice is not None else None
            loose = bound if choice is None else bound - choice[0] + (child[1] if child is not None else 0)
            estimate = loose if loose < minimum or child is None else merged_bound(tree, position, child)
            if estimate < minimum:
                continue
            board[cell] = face
            if child is not None and estimate <= switch:
                # the merge's bound would be at most the switch: branch() takes over now, from
                # this tree, and the merge is not made (see _prove.c's explore)
                branch_from(tree, position, [face])
                continue
            saved = count
            if choice is None:
                merged = tree
            else:
                try:
                    merged = merge_sum(tree, position, child)
                except Limit:
                    count = saved
                    branch_from(tree, position, faces[number:])
                    return
            if merged[1] >= minimum:
                explore(merged, position + 1)
            count = saved

    if bound >= minimum:
        explore(root, 0)
    return KernelResult(bound, nodes, branches, candidates)


def record_bytes(cells: int) -> int:
    """Bytes of one word instance's record in the compiled kernel (``cells`` cells)."""
    return (cells + 4 + 7) // 8 * 8


def forcing(minimum: int, cells: int, switch: int | None, force_depth: int | None) -> tuple[int, int]:
    """The switch score and the forcing depth of a class (the defaults filled in)."""
    if switch is None:
        switch = int(SWITCH_FACTOR * minimum)
    if force_depth is None:
        force_depth = max(0, cells - UNFORCED_CELLS)
    return switch, force_depth


def prove_class_kernel(
    kernel: Any,
    lexicon: Lexicon,
    table: Sequence[Sequence[int]],
    sets: Sequence[Sequence[int]],
    order: Sequence[int],
    minimum: int,
    node_budget: int,
    max_candidates: int = MAX_CANDIDATES,
    switch: int | None = None,
    force_depth: int | None = None,
) -> KernelResult:
    """:func:`prove_class_python` done by the compiled kernel (same arguments, same result)."""
    switch, force_depth = forcing(minimum, len(sets), switch, force_depth)
    face_masks = [sum(1 << face for face in faces) for faces in sets]
    result = kernel.prove_class(
        lexicon.capsule(kernel),
        [tuple(row) for row in table],
        face_masks,
        list(order),
        minimum,
        node_budget,
        max_candidates,
        switch,
        force_depth,
    )
    if result is None:
        raise BoggleError(f"more than {max_candidates:,} candidate boards in one class: raise the minimum")
    bound, nodes, branches, packed, complete = result
    cells = len(sets)
    candidates = [tuple(packed[start : start + cells]) for start in range(0, len(packed), cells)]
    return KernelResult(bound, nodes, branches, candidates, bool(complete))


# -- a proof: classes as tasks ------------------------------------------------------------


@dataclass(frozen=True)
class ClassResult:
    """One class proven: its boards of at least N points (canonical text, points, words)."""

    index: int
    boards: tuple[tuple[str, int, int], ...]
    bound: int
    nodes: int
    branches: int
    candidates: int
    splits: int
    seconds: float
    #: The proving process's peak resident memory while it proved the class, in kB (its
    #: base, the trie and the class's tree; sampled, see :class:`PeakMemory`); 0 where the
    #: system does not tell it.
    peak_kb: int = 0

    def to_json(self, key: str, shard: tuple[int, int] | None = None) -> dict[str, Any]:
        """The class as one line of the ndjson log (``shard``: (I, N), the part of the proof
        that proved it, written as ``"shard": [I, N]``; the merge names it for classes missing)."""
        return {
            "spec": key,
            **({"shard": list(shard)} if shard is not None else {}),
            "class": self.index,
            "boards": [list(board) for board in self.boards],
            "bound": self.bound,
            "nodes": self.nodes,
            "branches": self.branches,
            "candidates": self.candidates,
            "splits": self.splits,
            "seconds": round(self.seconds, 4),
            **({"peak_kb": self.peak_kb} if self.peak_kb else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClassResult:
        """A class read back from the log (raises KeyError, TypeError or ValueError if malformed)."""
        boards = tuple((str(text), int(points), int(words)) for text, points, words in data["boards"])
        return cls(
            int(data["class"]),
            boards,
            int(data["bound"]),
            int(data["nodes"]),
            int(data["branches"]),
            int(data["candidates"]),
            int(data["splits"]),
            float(data["seconds"]),
            int(data.get("peak_kb", 0)),
        )


#: A trie, or a class part's tree, of more nodes than this leaves enough garbage (or free
#: heap) to be worth a collection or a trim; below it the collection costs more than it frees.
_COLLECT_PAST_NODES = 100_000


class _Context:
    """What the classes of one proof share in a process: the trie, the scorer, the tables."""

    def __init__(self, spec: ProofSpec, dictionary: Dictionary, kernel: str = "auto") -> None:
        self.spec = spec
        scoring = get_scoring(spec.scoring)
        min_length = scoring.min_length if spec.min_length is None else spec.min_length
        self.lexicon = build_lexicon(
            iter(dictionary), spec.faces, spec.cells, value_function(scoring, min_length, spec.objective)
        )
        self.scorer = Scorer(
            dictionary,
            spec.shape,
            scoring=scoring,
            min_length=spec.min_length,
            adjacency=spec.adjacency,
            objective=spec.objective,
        )
        self.table = neighbours(spec.shape, spec.adjacency)
        self.order = default_order(spec.shape, spec.adjacency)
        self.classes = spec.classes()
        self.canonical = Canonical(spec.shape, any(len(face) > 1 for face in spec.faces))
        self.symmetries = symmetries(spec.shape)[1:]

        chosen = seam.choose("prover", kernel)
        compiled = seam.built("prover") if chosen == "c" else None
        if compiled is not None and len(spec.faces) > MAX_KERNEL_FACES:
            if kernel == "c":
                raise BoggleError(f"the compiled prover takes {MAX_KERNEL_FACES} letters at most")
            compiled = None
        self.kernel = compiled
        self.kernel_name = "c" if compiled is not None else "python"
        self._rollable: dict[tuple[int, ...], bool] = {}
        # The trie's nested dicts are garbage now: collected before the first class, so that a
        # process's resident memory under its classes is its own (ENABLE2K 3x4: 47 MB, not 57).
        # Not for a small trie: a full collection costs 70 ms or more in a large heap, whatever
        # little it frees (the suite's proofs of a few words made it 85% of their time).
        if len(self.lexicon.masks) > _COLLECT_PAST_NODES:
            gc.collect()
            give_back_memory()

    def images_of(self, sets: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
        """The symmetries but the identity that map ``sets`` (a class's faces, cell by cell) onto themselves."""
        key = tuple(tuple(faces) for faces in sets)
        return [image for image in self.symmetries if tuple(key[cell] for cell in image) == key]

    def rollable(self, board: Sequence[int]) -> bool:
        """Whether the proof's dice can roll ``board`` (face indices): a distinct die per cell."""
        key = tuple(sorted(board))  # the same faces anywhere: the same answer
        known = self._rollable.get(key)
        if known is None:
            dice = self.spec.die_masks()
            allowed = [[die for die, faces in enumerate(dice) if faces >> face & 1] for face in key]
            known = self._rollable[key] = _match(allowed) is not None
        return known

    def run(self, sets: Sequence[Sequence[int]], node_budget: int) -> KernelResult:
        arguments = (self.lexicon, self.table, sets, self.order, self.spec.minimum, node_budget)
        if self.kernel is not None:
            return prove_class_kernel(self.kernel, *arguments)
        return prove_class_python(*arguments)


_CONTEXTS: dict[tuple[str, str], _Context] = {}


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    # glibc's malloc_trim, or None (another C library, another system): see give_back_memory
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


#: How often (seconds) :class:`PeakMemory` reads the process's resident memory.
PEAK_INTERVAL = 0.005


class PeakMemory:
    """The process's peak resident memory while a ``with`` block runs, in kB (``peak_kb``):
    ``/proc/self/statm`` read every PEAK_INTERVAL seconds by a thread (the kernel lets the GIL
    go while it proves). 0 where the system does not tell it.

    Sampled, not the system's own high-water mark: that one (``VmHWM``) can be started again
    per class (``/proc/self/clear_refs``), but the process's ``ru_maxrss``, which ``time`` and
    a parent read, would then tell the last class's peak, not the process's.
    """

    def __init__(self, interval: float = PEAK_INTERVAL) -> None:
        self.interval = interval
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._page_kb = (os.sysconf("SC_PAGE_SIZE") // 1024) if hasattr(os, "sysconf") else 4

    def _resident_kb(self) -> int:
        try:
            with open("/proc/self/statm", "rb") as statm:
                return int(statm.read().split()[1]) * self._page_kb
        except (OSError, ValueError, IndexError):
            return 0

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_kb = max(self.peak_kb, self._resident_kb())

    def __enter__(self) -> PeakMemory:
        self.peak_kb = self._resident_kb()
        if self.peak_kb:
            self._thread = threading.Thread(target=self._sample, name="peak-memory", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.peak_kb:
            self.peak_kb = max(self.peak_kb, self._resident_kb())


def give_back_memory() -> None:
    """Return the C heap's free pages to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    # Freed memory stays in the process otherwise, and a worker's peak is its base plus one
    # class's tree: the trie's build and a class's candidate lists left 10-15 MB of free
    # pages in the heap (ENABLE2K 3x4: 60-65 MB resident under the classes, 50 after this).
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def context_for(spec: ProofSpec, kernel: str = "auto", data: bytes | None = None) -> _Context:
    """The context of ``spec`` in this process (made once: workers open the dictionary once)."""
    key = (spec.key(), seam.choose("prover", kernel))  # BOGGLE_DAFSA_PURE may change between calls
    context = _CONTEXTS.get(key)
    if context is None:
        context = _Context(spec, open_shipped(spec.dictionary, spec.dictionary_digest, data), kernel)
        _CONTEXTS.clear()
        _CONTEXTS[key] = context
    return context


def prove_one(spec: ProofSpec, index: int, kernel: str = "auto", data: bytes | None = None) -> ClassResult:
    """Prove class number ``index`` of ``spec``: its boards of at least N points, re-scored.

    A class whose tree would exceed the node budget is split in two on the first cell of the
    tree's order that has two letters or more, and each half proven (again split if need be).
    """
    context = context_for(spec, kernel, data)
    with PeakMemory() as peak:
        return _prove_one(context, spec, index, peak)


def _prove_one(context: _Context, spec: ProofSpec, index: int, peak: PeakMemory) -> ClassResult:
    # This thread's CPU: a Dask worker's other threads (its event loop, its profiler,
    # other tasks) are not the class's.
    started = time.thread_time()
    pending = [context.spec.letter_sets(context.classes[index])]
    bound = nodes = branches = candidates = splits = 0
    boards: dict[str, tuple[int, int]] = {}
    first = True
    while pending:
        sets = pending.pop()
        result = context.run(sets, spec.node_budget)  # the budget is not part of the context's key
        if not result.complete:
            # The first cell of the tree's order that has letters to share: the most words go
            # through it, so each half's tree is the smaller, and forcing fixes that cell first,
            # so the halves repeat little of each other's work (a corner, the widest cell with
            # one-bucket corners, halves little: on three ENABLE2K 3x4 classes, 60.7 CPU-s split
            # on the corner against 43.3 on the first cell).
            cut = next((cell for cell in context.order if len(sets[cell]) > 1), None)
            if cut is None:
                raise BoggleError("one board's tree exceeds the node budget: raise it")
            half = len(sets[cut]) // 2
            for part in (sets[cut][half:], sets[cut][:half]):
                pending.append([part if cell == cut else faces for cell, faces in enumerate(sets)])
            splits += 1
            continue
        if first:
            bound = result.bound
        first = False
        nodes = max(nodes, result.nodes)
        branches += result.branches
        candidates += len(result.candidates)
        _rescore(context, result.candidates, boards, sets)
        # Not held while the next part is proven: its candidates' tuples (ENABLE2K 3x4 class
        # 1331: 178,280 of them, 27 MB) were resident beside the next part's tree, the peak.
        # The heap trimmed after a large part only (a trim costs 1-9 ms in a large heap).
        large = result.nodes > _COLLECT_PAST_NODES
        del result
        if large:
            give_back_memory()
    ranked = sorted(((text, points, words) for text, (points, words) in boards.items()), key=lambda row: (-row[1], row[0]))
    # The seconds as the log keeps them (0.1 ms): a proof and the merge of its log say the same.
    seconds = round(time.thread_time() - started, 4)
    return ClassResult(index, tuple(ranked), bound, nodes, branches, candidates, splits, seconds, peak.peak_kb)


def _rescore(
    context: _Context,
    candidates: list[tuple[int, ...]],
    boards: dict[str, tuple[int, int]],
    sets: Sequence[Sequence[int]] | None = None,
) -> None:
    # Exact scores by the solver; boards kept once per symmetry orbit.
    faces = context.spec.faces
    minimum = context.spec.minimum
    column = 1 if context.spec.objective == "points" else 0
    chunk = 50_000
    if context.spec.dice:
        candidates = [board for board in candidates if context.rollable(board)]
    images = context.images_of(sets) if sets is not None and context.spec.cells > 1 else []
    if images:
        # A class (or part) whose letter sets a symmetry maps onto themselves holds a board
        # and its image: scored once, as they score the same and are kept under one key
        # (ENABLE2K 3x4 class 1331, mirrored top to bottom). Exact whichever is scored.
        getters = [itemgetter(*image) for image in images]
        seen: set[tuple[int, ...]] = set()
        unique = []
        for board in candidates:
            key = min(board, *(getter(board) for getter in getters))
            if key not in seen:
                seen.add(key)
                unique.append(board)
        candidates = unique
    for start in range(0, len(candidates), chunk):
        grids = [tuple(faces[face] for face in board) for board in candidates[start : start + chunk]]
        for grid, (words, points) in zip(grids, context.scorer.totals_many(grids)):
            if (words, points)[column] >= minimum:
                boards[context.canonical.key(grid)] = (points, words)


@dataclass
class ProofResult:
    """A whole proof: the classes proven and every board of at least N points."""

    spec: ProofSpec
    classes: int
    results: dict[int, ClassResult] = field(default_factory=dict)
    #: The boards of at least N with dead cells (:data:`DEAD`), once the proof is whole
    #: (:func:`add_dead_boards`): canonical text -> (points, words).
    dead: dict[str, tuple[int, int]] = field(default_factory=dict)

    def boards(self) -> list[tuple[str, int, int]]:
        """Every board of at least N (canonical text, points, words), best first (by the objective)."""
        found: dict[str, tuple[int, int]] = dict(self.dead)
        for result in self.results.values():
            for text, points, words in result.boards:
                found[text] = (points, words)
        column = 0 if self.spec.objective == "points" else 1
        return sorted(
            ((text, points, words) for text, (points, words) in found.items()),
            key=lambda row: (-(row[1], row[2])[column], row[0]),
        )

    @property
    def cpu_seconds(self) -> float:
        """CPU seconds of the classes (in the processes that proved them): summed exactly
        (``math.fsum``), so that the order the classes came in does not change the last digit."""
        return math.fsum(result.seconds for result in self.results.values())

    @property
    def complete(self) -> bool:
        return len(self.results) == self.classes


#: The face of a dead cell: it stands for every letter no word of the dictionary holds (the
#: grid syntax's blank face: no word goes through its cell).
DEAD = BLANK


def add_dead_boards(proof: ProofResult, scorer: Scorer | None = None) -> ProofResult:
    """Add to a whole proof (every class of its spec proven) its boards of at least N that
    hold dead cells (:data:`DEAD`: a letter no word holds), so that "a board not printed has
    fewer than N" holds for boards of any letters, not only the dictionary's. With dice (the
    faces are the dice's, all of them proven) there are none to add.

    No class holds them: a dead cell scores nothing, so a board with dead cells scores at
    most what the same board with any letter in their place scores (every word it holds
    is still there). So each of them, its dead cells given a letter, is a board of the proof,
    and it is reached from that board by making its cells dead one at a time, every board on
    the way scoring at least as much: a search from the proof's boards, each cell of each
    made dead, kept while it scores at least N (every board scored by the solver).
    """
    spec = proof.spec
    if spec.dice or not proof.complete:
        return proof
    live = proof.boards()
    if not live:
        return proof
    scorer = scorer or proof_scorer(spec)
    canonical = Canonical(spec.shape, any(len(face) > 1 for face in spec.faces))
    column = 1 if spec.objective == "points" else 0
    seen = {text for text, _, _ in live}
    frontier = [text for text, _, _ in live]
    dead: dict[str, tuple[int, int]] = {}
    while frontier:
        grids: list[tuple[str, ...]] = []
        for text in frontier:
            grid = canonical.board(text)
            for cell, face in enumerate(grid):
                if face != DEAD:
                    made = (*grid[:cell], DEAD, *grid[cell + 1 :])
                    key = canonical.key(made)
                    if key not in seen:
                        seen.add(key)
                        grids.append(made)
        frontier = []
        for start in range(0, len(grids), 50_000):
            chunk = grids[start : start + 50_000]
            for grid, (words, points) in zip(chunk, scorer.totals_many(chunk)):
                if (words, points)[column] >= spec.minimum:
                    key = canonical.key(grid)
                    dead[key] = (points, words)
                    frontier.append(key)
    proof.dead = dead
    return proof


def proof_scorer(spec: ProofSpec) -> Scorer:
    """The solver of the proof's boards, alone (not a class's context: its trie of the words
    takes seconds to make, for nothing in a process that proves no class)."""
    return Scorer(
        open_shipped(spec.dictionary, spec.dictionary_digest, None),
        spec.shape,
        scoring=get_scoring(spec.scoring),
        min_length=spec.min_length,
        adjacency=spec.adjacency,
        objective=spec.objective,
    )


def log_identity(spec: ProofSpec) -> str:
    """What every line of this proof's log is sealed with (see :mod:`boggle_dafsa.search.logs`):
    its spec key and its dictionary's content."""
    return f"prove:{spec.key()}:{dictionary_identity(spec.dictionary, spec.dictionary_digest)}"


def read_log(path: str | Path, spec: ProofSpec, *, strict: bool = False) -> dict[int, ClassResult]:
    """Classes of this proof (same spec) already in the ndjson log at ``path``, checked.

    Every line of this proof must pass its digest (chained: see
    :mod:`boggle_dafsa.search.logs`), and every board it names is scored again by the
    solver: it must be a board of its class, score what the line says, and reach the
    minimum (with dice, be one they roll). Else the log is refused in one line naming
    it and the line (:class:`BoggleError`). A last line cut short is dropped.

    With ``strict``, a log that holds classes of other proofs only is refused: resuming
    it would silently start over (the options differ from the run that wrote it).
    """
    entries, foreign = log_entries(path, spec)
    if strict and foreign and not entries:
        raise BoggleError(
            f"{path}: its {foreign} classes are of another proof (a dictionary, shape, minimum, "
            "bucket or rule differs; corners are one bucket by default since 2026-11-25); "
            "`log` starts this proof in it"
        )
    check_boards(spec, [(path, number, result) for number, result in entries])
    # A class logged twice (two proofs of it in one file): the last line is kept, as before.
    return {result.index: result for _, result in entries}


def log_entries(
    path: str | Path, spec: ProofSpec, *, whole: bool = False, shards: set[int] | None = None
) -> tuple[list[tuple[int, ClassResult]], int]:
    """The lines of this proof in the log at ``path`` as (line number, class), each line
    past its digest (not yet its boards: :func:`check_boards`), and how many lines are of
    other proofs. A missing file holds none. ``shards`` gathers the shard counts the lines
    were written with (their ``"shard": [I, N]``).

    ``whole`` (a merge): the log must be this proof's and nothing else, whole: a line of
    another proof, or a last line cut short (its writer killed while writing it), is
    refused in one line naming it, as an edited line is; else they are passed over.
    """
    key = spec.key()
    entries: list[tuple[int, ClassResult]] = []
    foreign = 0
    data = logs.read_bytes(path, "proof log")  # a file, or a URL (the [cloud] extra)
    if data is None:
        if whole:
            raise BoggleError(f"{path}: no such proof log")
        return entries, foreign
    if b"\0" in data:
        raise BoggleError(f"{path}: not a proof log (binary data)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BoggleError(f"{path}: cannot read the log ({error})") from None
    del data
    identity: str | None = None
    previous = logs.START
    total = len(spec.classes())
    lines = list(logs.lines(text))
    for number, line, complete in lines:
        if not complete:
            if whole:
                raise BoggleError(
                    f"{path}:{number}: the last line is cut short (the proof writing this log was killed while "
                    "writing it): resume that proof on this log first, then merge"
                )
            break  # cut short by a kill (no newline): that class is proven again
        if not line.strip():
            previous = logs.chain_value(line, None)  # as the writer sees it, if it is the last
            continue
        try:
            data = json.loads(line)
            ours = data.get("spec") == key
            result = ClassResult.from_json(data) if ours else None
        except (ValueError, KeyError, TypeError, AttributeError):
            # The last line of an interrupted proof may be cut short: that class is proven again.
            if number == len(lines) and not whole:
                break
            raise BoggleError(f"{path}:{number}: not a line of a proof log") from None
        if result is None:
            if whole:
                raise BoggleError(
                    f"{path}:{number}: a line of another proof (its dictionary, shape, minimum, buckets or a rule "
                    "differ from this proof's): this log is not one of this proof's"
                )
            foreign += 1
        else:
            if identity is None:
                identity = log_identity(spec)
            logs.check(path, number, identity, previous, data, "proof")
            if not 0 <= result.index < total:
                raise BoggleError(f"{path}:{number}: class {result.index} is not a class of this proof (0 to {total - 1:,})")
            entries.append((number, result))
            shard = data.get("shard")
            if shards is not None and isinstance(shard, list) and len(shard) == 2 and isinstance(shard[1], int):
                shards.add(shard[1])
        previous = logs.chain_value(line, data)
    return entries, foreign


def check_boards(spec: ProofSpec, entries: Sequence[tuple[str | Path, int, ClassResult]]) -> None:
    """Score again every board of ``entries`` (log, line number, class): each must be a
    board of the proof (with dice, one they roll) and of its line's class, score what the
    line says, and reach the minimum; else :class:`BoggleError` naming the log and line."""
    # A proof prints no board the solver did not score in this process.
    if not any(result.boards for _, _, result in entries):
        return
    scorer = proof_scorer(spec)
    canonical = Canonical(spec.shape, any(len(face) > 1 for face in spec.faces))
    dice = spec.die_masks()

    def rollable(board: Sequence[int]) -> bool:
        return _match([[die for die, faces in enumerate(dice) if faces >> face & 1] for face in board]) is not None

    classes = spec.classes()
    bucket_of = [
        {face: number for number, bucket in enumerate(spec.corner_buckets if corner else spec.buckets) for face in bucket}
        for corner in spec.corners()
    ]
    images = symmetries(spec.shape)
    index = {face: number for number, face in enumerate(spec.faces)}
    unit = "points" if spec.objective == "points" else "words"
    claims: list[tuple[str | Path, int, str, int, int]] = []
    grids: list[tuple[str, ...]] = []
    for path, number, result in entries:
        class_index = result.index
        for text, points, words in result.boards:
            grid = canonical.board(text)
            if (
                len(grid) != spec.cells
                or any(face not in index for face in grid)
                or canonical.key(grid) != text
                or (spec.dice and not rollable([index[face] for face in grid]))
            ):
                raise BoggleError(f"{path}:{number}: {text!r} is not a board of this proof: start over with `log` in a new file")
            buckets = tuple(bucket_of[cell].get(face, -1) for cell, face in enumerate(grid))
            if not 0 <= class_index < len(classes) or classes[class_index] != min(
                tuple(buckets[source] for source in image) for image in images
            ):
                raise BoggleError(
                    f"{path}:{number}: {text!r} is not a board of class {class_index}: start over with `log` in a new file"
                )
            claims.append((path, number, text, points, words))
            grids.append(grid)
    column = 0 if spec.objective == "points" else 1
    for (path, number, text, points, words), scored in zip(claims, scorer.totals_many(grids)):
        actual = (scored[1], scored[0])
        if actual != (points, words):
            raise BoggleError(
                f"{path}:{number}: {text!r} scores {actual[0]:,} points and {actual[1]:,} words, not the "
                f"{points:,} and {words:,} the log says: start over with `log` in a new file"
            )
        if actual[column] < spec.minimum:
            raise BoggleError(
                f"{path}:{number}: {text!r} has {actual[column]:,} {unit}, under the minimum {spec.minimum:,}: "
                "start over with `log` in a new file"
            )


def open_log(path: str | Path, spec: ProofSpec) -> Any:
    """The log at ``path`` opened for appending this proof's classes (a
    :class:`~boggle_dafsa.search.logs.LogWriter`: ``write(result.to_json(spec.key()))``),
    its last line dropped first if it was cut short (a proof killed while writing it)."""
    return LogWriter(path, log_identity(spec))


def prove(
    spec: ProofSpec,
    *,
    jobs: int = 1,
    dask: str | None = None,
    done: dict[int, ClassResult] | None = None,
    only: Sequence[int] | None = None,
    kernel: str = "auto",
    on_result: Callable[[ClassResult], None] | None = None,
) -> ProofResult:
    """Prove every class of ``spec`` (or those of ``only``) not in ``done``. A whole proof
    (no ``only``) holds its boards with dead cells too (:func:`add_dead_boards`).

    ``jobs`` processes on this machine (1: in this process), or the workers of the Dask
    cluster whose scheduler is at ``dask``. ``on_result`` hears of each class as it
    finishes, in any order; the result does not depend on it.
    """
    if jobs < 1 or jobs > 64:
        raise BoggleError(f"the number of processes (`jobs`) must be 1 to 64, not {jobs}")
    if dask and jobs != 1:
        raise BoggleError("`jobs` and `dask` exclude each other (the cluster's workers are the processes)")
    classes = spec.classes()
    wanted = list(range(len(classes))) if only is None else list(only)
    done = done or {}
    result = ProofResult(spec, len(wanted), {index: done[index] for index in wanted if index in done})
    todo = proof_order([index for index in wanted if index not in done])
    if dask:
        finished: Generator[ClassResult, None, None] = _on_dask(spec, todo, dask, kernel)
    elif jobs == 1 or len(todo) <= 1:
        finished = (prove_one(spec, index, kernel) for index in todo)
    else:
        finished = _pool(spec, todo, jobs, kernel)
    try:
        for class_result in finished:
            result.results[class_result.index] = class_result
            if on_result is not None:
                on_result(class_result)
    finally:
        # Ctrl-C or an error here (in on_result too): the processes or the cluster's
        # tasks are stopped now, not when the generator is collected.
        finished.close()
    if only is None:
        # The boards of letters no word holds. This process's solver if it proved classes.
        key = spec.key()
        context = next((context for (made, _), context in _CONTEXTS.items() if made == key), None)
        add_dead_boards(result, context.scorer if context is not None else None)
    return result


#: The seed of the order classes are proven in (see :func:`proof_order`).
PROOF_ORDER_SEED = 35


def proof_order(todo: Iterable[int]) -> list[int]:
    """The classes ``todo`` in the order a proof takes them: shuffled, with a fixed seed.

    The classes are numbered in the order of their buckets, the cheapest last (rare
    consonants on the first cells: a third of the cost of the first third, on ENABLE2K 3x3);
    proven in that order, the classes done are no sample of those left, and the time left
    that the bar tells was overstated (2.4 times at half of an ENABLE2K 3x3 proof). Shuffled,
    the classes done at any moment are a random sample of the whole, and the mean time of
    those done, times the classes left, is an honest estimate (:class:`~boggle_dafsa.cli.progress.TimeLeft`).
    The result does not depend on the order; the same classes give the same order.
    """
    order = sorted(todo)
    random.Random(PROOF_ORDER_SEED).shuffle(order)
    return order


def _on_dask(spec: ProofSpec, todo: list[int], address: str, kernel: str) -> Generator[ClassResult, None, None]:
    # Classes on a Dask cluster through the path `best --dask` takes (the dictionary file
    # shipped once to each worker), a few classes a task.
    require_dask()
    path = spec.dictionary if spec.dictionary_digest else None
    if path is not None and (not Path(path).is_file() or file_digest(path) != spec.dictionary_digest):
        raise BoggleError(f"{path}: changed since the proof was described")
    size = max(1, min(DASK_CLASSES_PER_TASK, len(todo) // 256))
    calls = [(spec, todo[start : start + size], kernel) for start in range(0, len(todo), size)]
    for results in dask_as_completed(address, _dask_task, calls, path):
        yield from results


#: Most classes of one Dask task (fewer when the proof has few classes, so that every worker gets some).
DASK_CLASSES_PER_TASK = 8


def _dask_task(spec: ProofSpec, indices: list[int], kernel: str, data: bytes | None) -> list[ClassResult]:
    # On a Dask worker: the classes of one task, stopping between classes once the task
    # is cancelled (the proof was stopped: its client is gone), as a pool's worker does.
    results: list[ClassResult] = []
    for index in indices:
        if results and _dask_cancelled():
            break
        results.append(prove_one(spec, index, kernel, data))
    return results


def _dask_cancelled() -> bool:
    # The worker marks a running task "cancelled" when its client releases it; a task
    # cannot be interrupted, but it can look between classes.
    return _dask_task_state() not in ("executing", None)


def _dask_task_state() -> str | None:
    """The state of the Dask task running this code, as its worker sees it ("executing",
    "cancelled"...; "gone" once forgotten), or None where that cannot be known (outside
    a task, another version of ``distributed``: the task then runs to its end)."""
    try:
        from distributed import get_worker

        worker = get_worker()
        task = worker.state.tasks.get(worker.get_current_task())
        return "gone" if task is None else str(task.state)
    except Exception:
        return None


#: The process that started this worker (set in each worker of the pool).
_PARENT: int | None = None


def _pool_task(spec: ProofSpec, indices: list[int], kernel: str) -> list[ClassResult]:
    results = []
    for index in indices:
        if _PARENT is not None and os.getppid() != _PARENT:
            os._exit(1)  # the proof was killed (kill -9): no orphan works on for nobody
        results.append(prove_one(spec, index, kernel))
    return results


def _pool_init(parent: int) -> None:
    # The parent alone answers Ctrl-C: a worker ignores SIGINT and is ended by it. A
    # worker dies with its parent, however the parent dies (kill -9 too), even inside a
    # class: see lifeline.
    global _PARENT
    _PARENT = parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    follow_parent(parent)


def _pool(spec: ProofSpec, todo: list[int], jobs: int, kernel: str) -> Generator[ClassResult, None, None]:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    # Tasks of a few classes (consecutive in the shuffled order of proof_order, so each
    # holds cheap and dear ones alike), a few tasks per process at a time: the log and the
    # bar move steadily.
    size = max(1, min(16, len(todo) // (jobs * 8)))
    chunks = [todo[start : start + size] for start in range(0, len(todo), size)]
    executor = ProcessPoolExecutor(min(jobs, len(chunks)), mp_context=context, initializer=_pool_init, initargs=(os.getpid(),))
    try:
        pending = set()
        queue = iter(chunks)
        for chunk in itertools.islice(queue, jobs * 2):
            pending.add(executor.submit(_pool_task, spec, chunk, kernel))
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield from future.result()
                following = next(queue, None)
                if following is not None:
                    pending.add(executor.submit(_pool_task, spec, following, kernel))
    except BaseException:
        # Ctrl-C or an error: the workers end now, not after the classes queued.
        for process in list(getattr(executor, "_processes", {}).values()):
            process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)


# -- estimate -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A projection of a whole proof from a random sample of its classes."""

    classes: int
    sampled: int
    cpu_seconds: float
    #: Projected CPU seconds of the whole proof and the half-width of its 95% interval.
    projected: float
    margin: float
    peak_nodes: int
    peak_bytes: int
    boards: int
    #: Classes a sample needs for a 95% interval within ±25% of the projection (from this
    #: sample's spread; None from a sample of one class).
    sample_for_25: int | None = None
    #: The sampled classes one by one, by class number (seconds, tree nodes, splits, peak kB).
    per_class: tuple[ClassResult, ...] = ()

    @property
    def interval_hours(self) -> tuple[float, float]:
        """The 95% interval of the whole proof's CPU-hours (its low end at least the sample's own)."""
        return max(self.cpu_seconds, self.projected - self.margin) / 3600, (self.projected + self.margin) / 3600


#: The normal quantile of a two-sided 95% interval.
Z_95 = 1.96


def projection(times: Sequence[float], total: int) -> tuple[float, float]:
    """The whole proof's CPU seconds projected from ``times`` (the classes of a simple
    random sample of ``total``), and the half-width of its 95% interval: the sample's mean
    times ``total``, and 1.96 standard errors of that (normal approximation, finite
    population corrected: a sample of every class has no margin)."""
    mean = statistics.fmean(times)
    spread = statistics.stdev(times) if len(times) > 1 else 0.0
    correction = math.sqrt(max(0.0, (total - len(times)) / max(1, total - 1)))
    return mean * total, Z_95 * spread / math.sqrt(len(times)) * correction * total


def sample_needed(times: Sequence[float], total: int, relative: float = 0.25) -> int | None:
    """The smallest sample whose 95% interval is within ±``relative`` of the projection, if
    the classes vary as ``times`` do: n0 = (1.96 s / (relative x mean))^2 for an endless
    population, n0 / (1 + (n0 - 1) / total) for ``total`` classes. None from fewer than two
    times (no spread), or times of no CPU."""
    if len(times) < 2 or relative <= 0:
        return None
    mean = statistics.fmean(times)
    if mean <= 0:
        return None
    endless = (Z_95 * statistics.stdev(times) / (relative * mean)) ** 2
    return max(2, min(total, math.ceil(endless / (1 + (endless - 1) / total))))


def sample_classes(total: int, sample: int, seed: int) -> list[int]:
    """The classes (numbers, ascending) that an estimate of ``sample`` out of ``total`` proves with ``seed``."""
    return sorted(random.Random(seed).sample(range(total), min(sample, total)))


def estimate(
    spec: ProofSpec,
    sample: int,
    seed: int,
    *,
    jobs: int = 1,
    dask: str | None = None,
    kernel: str = "auto",
    on_result: Callable[[ClassResult], None] | None = None,
) -> Estimate:
    """Prove ``sample`` classes drawn at random (seeded) and project the whole proof's CPU time.

    The projection is the sample's mean time per class times the classes; its margin the
    95% interval of that mean (normal approximation, finite population corrected: see
    :func:`projection`), and the sample a ±25% interval needs (:func:`sample_needed`).
    """
    if sample < 1:
        raise BoggleError(f"the sample (`sample`) must hold at least 1 class, not {sample}")
    total = len(spec.classes())
    chosen = sample_classes(total, sample, seed)
    result = prove(spec, jobs=jobs, dask=dask, only=chosen, kernel=kernel, on_result=on_result)
    times = [class_result.seconds for class_result in result.results.values()]
    projected, margin = projection(times, total)
    peak = max(class_result.nodes for class_result in result.results.values())
    return Estimate(
        total,
        len(times),
        sum(times),
        projected,
        margin,
        peak,
        peak * NODE_BYTES,
        len(result.boards()),
        sample_needed(times, total),
        tuple(sorted(result.results.values(), key=lambda class_result: class_result.index)),
    )
