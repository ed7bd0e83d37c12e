"""Dice sets, a portable random generator, and rolling dice into grids.

A dice set is data: a text file per set in ``src/boggle_dafsa/data/dice/`` (format in the
README there), or the user's own file. Rolling shuffles the dice over the cells and
shows one face of each, all six equally likely.

Randomness comes from :class:`SplitMix64`, written out here, rather than from
:mod:`random`: the same seed must give the same grids on every machine and every
Python version, and :mod:`random` does not promise that for ``shuffle`` or ``randrange``.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from boggle_dafsa.board.grid import BLANK, MAX_FACE_LETTERS, Grid, parse_shape
from boggle_dafsa.board.scoring import Scoring, UnknownScoringError, get_scoring
from boggle_dafsa.errors import BoggleError, DiceError, GridError
from boggle_dafsa.words.decoding import decode

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: One die: its faces, upper case, "QU" for the Qu face, ``grid.BLANK`` (".") for a blank face.
Die = tuple[str, ...]

FACES_PER_DIE = 6

#: The sets shipped with the package, in the order ``boggle-dafsa dice`` lists them.
BUILTIN_SETS: tuple[str, ...] = ("fr", "en-classic", "en", "big", "super-big")


@dataclass(frozen=True)
class DiceSet:
    """A set of dice and the rules that go with it: grid shape, scoring, dictionary."""

    name: str
    title: str
    dice: tuple[Die, ...]
    #: (rows, columns).
    shape: tuple[int, int]
    scoring: Scoring
    #: The embedded dictionary that suits the set ("fr", "en"), None if the file names none.
    language: str | None
    #: Where the dice come from.
    source: str

    @property
    def min_length(self) -> int:
        """The shortest word that scores with this set."""
        return self.scoring.min_length

    @property
    def cells(self) -> int:
        """The number of cells of the grid, which is also the number of dice."""
        return self.shape[0] * self.shape[1]


# -- reading dice files -----------------------------------------------------------------

_HEADER = re.compile(r"^([A-Za-z][A-Za-z-]*)\s*:\s*(.*)$")
# A run-together die: single letters, or a multi-letter face in parentheses, e.g. HIMNU(Qu).
_RUN_TOGETHER_FACE = re.compile(r"\(([^()]*)\)|([^()])")
_YES = {"yes", "true", "1", "on"}
_NO = {"no", "false", "0", "off"}


def load_dice(name_or_path: str | DiceSet) -> DiceSet:
    """The built-in set called ``name_or_path``, else the dice file at that path (a set
    already read, such as :func:`read_dice`'s, is returned as it is).

    Raises :class:`DiceError` for an unknown name, an unreadable file or a malformed one.
    """
    if isinstance(name_or_path, DiceSet):
        return name_or_path
    if name_or_path in BUILTIN_SETS:
        data = (resources.files("boggle_dafsa") / "data" / "dice" / f"{name_or_path}.txt").read_bytes()
        return parse_dice(_decode(data, f"{name_or_path}.txt"), name=name_or_path, source=f"{name_or_path}.txt")
    path = Path(name_or_path)
    if not path.exists() and not _looks_like_path(name_or_path):
        raise DiceError(f"unknown dice set {name_or_path!r} (known: {', '.join(BUILTIN_SETS)}; or give a dice file)")
    from boggle_dafsa.files.limits import MAX_SMALL_FILE_BYTES, read_limited  # a dice file: the built-in sets need none

    data = read_limited(name_or_path, MAX_SMALL_FILE_BYTES, DiceError, "dice file", stop_at_nul=True)
    return parse_dice(_decode(data, name_or_path), name=path.stem, source=name_or_path)


def read_dice(stream: BinaryIO, source: str = "standard input") -> DiceSet:
    """The dice file read from ``stream`` (standard input, given by the caller), bounded
    like a dice file on disk; the set is named ``stdin``."""
    from boggle_dafsa.files.limits import MAX_SMALL_FILE_BYTES, read_limited

    data = read_limited(stream, MAX_SMALL_FILE_BYTES, DiceError, "dice file", stop_at_nul=True)
    return parse_dice(_decode(data, source), name="stdin", source=source)


def _decode(data: bytes, source: str) -> str:
    """The text of a dice file, decoded as word lists are: UTF-8 (BOM or not), else ISO-8859-15."""
    # Checked before ``decode``, whose message for this would call the file a word list.
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise DiceError(f"{source}:{line}: binary file (NUL byte), not a dice file")
    return decode(data, source)[0]


def builtin_sets() -> list[DiceSet]:
    """Every set shipped with the package."""
    return [load_dice(name) for name in BUILTIN_SETS]


def parse_dice(text: str, *, name: str, source: str) -> DiceSet:
    """Parse the text of a dice file (see ``data/dice/README.md``); ``source`` names it in errors."""
    headers: dict[str, str] = {}
    dice_lines: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        header = _HEADER.match(line)
        if header:
            key = header.group(1).lower()
            if key not in _HEADER_KEYS:
                raise DiceError(f"{source}:{number}: unknown header {key!r} (known: {', '.join(_HEADER_KEYS)})")
            if key in headers:
                raise DiceError(f"{source}:{number}: header {key!r} given twice")
            headers[key] = header.group(2).strip()
            headers[f"{key} line"] = str(number)
        else:
            dice_lines.append((number, line))

    def where(key: str) -> str:
        return f"{source}:{headers[f'{key} line']}"

    q_is_qu = False
    if "q-is-qu" in headers:
        flag = headers["q-is-qu"].lower()
        if flag not in _YES | _NO:
            raise DiceError(f"{where('q-is-qu')}: q-is-qu must be yes or no, not {headers['q-is-qu']!r}")
        q_is_qu = flag in _YES

    dice = tuple(_parse_die(line, f"{source}:{number}", q_is_qu) for number, line in dice_lines)
    if not dice:
        raise DiceError(f"{source}: no dice in the file")

    if "shape" in headers:
        shape = _parse_shape(headers["shape"], where("shape"))
    else:
        side = math.isqrt(len(dice))
        if side * side != len(dice):
            raise DiceError(f"{source}: {len(dice)} dice make no square grid; add a line such as 'shape: 4x5'")
        shape = (side, side)
    if shape[0] * shape[1] != len(dice):
        raise DiceError(f"{source}: {len(dice)} dice for a {shape[0]}x{shape[1]} grid, which needs {shape[0] * shape[1]}")

    try:
        scoring = get_scoring(headers.get("scoring", "classic").lower())
    except UnknownScoringError as error:
        raise DiceError(f"{where('scoring')}: {error}") from None
    language = headers.get("dictionary") or None
    title = headers.get("title") or name
    return DiceSet(
        name=name,
        title=title,
        dice=dice,
        shape=shape,
        scoring=scoring,
        language=language,
        source=headers.get("source") or source,
    )


_HEADER_KEYS = ("title", "shape", "scoring", "dictionary", "q-is-qu", "source")


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or "." in text


def _parse_shape(text: str, where: str) -> tuple[int, int]:
    """The ``shape:`` header, read as ``--shape`` is, but in two dimensions only: dice lie in a tray."""
    try:
        shape = parse_shape(text)
    except GridError:
        shape = ()
    if len(shape) != 2:
        raise DiceError(f"{where}: shape must be ROWSxCOLUMNS, e.g. 4x4, not {text!r}")
    return shape[0], shape[1]


def _parse_die(line: str, where: str, q_is_qu: bool) -> Die:
    """One die: faces separated by commas or spaces, or run together (HIMNU(Qu))."""
    if "," in line:
        faces = [face.strip() for face in line.split(",")]
    elif len(line.split()) > 1:
        faces = line.split()
    else:
        faces = []
        for match in _RUN_TOGETHER_FACE.finditer(line):
            if match.group(2) in ("(", ")"):
                raise DiceError(f"{where}: unbalanced parenthesis in die {line!r}")
            faces.append(match.group(1) if match.group(1) is not None else match.group(2))
        if line.count("(") != line.count(")"):
            raise DiceError(f"{where}: unbalanced parenthesis in die {line!r}")
    for face in faces:
        if not face:
            raise DiceError(f"{where}: empty face in die {line!r}")
        if face == BLANK:
            continue
        if not face.isalpha():
            raise DiceError(f"{where}: face {face!r} of die {line!r} is not letters only (a blank face is {BLANK!r})")
        if len(face) > MAX_FACE_LETTERS:  # grids refuse longer faces: generated grids must solve
            raise DiceError(f"{where}: face {face!r} of die {line!r} has {len(face)} letters, at most {MAX_FACE_LETTERS}")
    if len(faces) != FACES_PER_DIE:
        raise DiceError(f"{where}: die {line!r} has {len(faces)} faces, a die has {FACES_PER_DIE}")
    faces = [face.upper() for face in faces]
    if q_is_qu:
        faces = ["QU" if face == "Q" else face for face in faces]
    return tuple(faces)


# -- randomness ---------------------------------------------------------------------------

_MASK64 = (1 << 64) - 1


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea and Flood, 2014): 64-bit state, 64-bit outputs.

    Chosen because it is tiny, fully specified by a few integer operations, and so gives
    the same numbers everywhere; its first outputs for seed 0 are published
    (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F) and tested.
    """

    def __init__(self, seed: int) -> None:
        """Start from ``seed`` (any integer; taken modulo 2**64)."""
        self.state = seed & _MASK64

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform integer in ``range(bound)``, without modulo bias.

        Outputs at or above the largest multiple of ``bound`` are drawn again, so that
        every remainder is equally likely.
        """
        if not 0 < bound <= 1 << 64:
            raise ValueError(f"bound must be in 1..2**64, not {bound}")
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = self.next64()
            if value < limit:
                return value % bound

    def shuffle(self, items: list[object]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates: every permutation equally likely)."""
        for last in range(len(items) - 1, 0, -1):
            other = self.below(last + 1)
            items[last], items[other] = items[other], items[last]


def random_seed() -> int:
    """A fresh seed for a game nobody asked to replay: short enough to type back."""
    return secrets.randbelow(10**9)


# -- rolling ----------------------------------------------------------------------------

#: For each cell, row-major: (index of the die in the set, index of the face shown).
Roll = tuple[tuple[int, int], ...]


def roll(dice_set: DiceSet, rng: SplitMix64) -> Roll:
    """Shuffle the dice over the cells and pick the face each one shows."""
    order: list[int] = list(range(len(dice_set.dice)))
    rng.shuffle(order)  # type: ignore[arg-type]
    return tuple((die, rng.below(len(dice_set.dice[die]))) for die in order)


def roll_grid(dice_set: DiceSet, rng: SplitMix64) -> Grid:
    """One random grid of ``dice_set``."""
    return grid_of_roll(dice_set, roll(dice_set, rng))


def grid_of_roll(dice_set: DiceSet, rolled: Roll) -> Grid:
    """The grid that ``rolled`` shows."""
    faces = tuple(dice_set.dice[die][face] for die, face in rolled)
    return Grid(dice_set.shape, faces)


class GridQuality:
    """Whether a grid holds enough words and points (``--min-words``, ``--min-score``)."""

    def __init__(self, dictionary: Dictionary, scoring: Scoring, min_words: int = 0, min_score: int = 0) -> None:
        """Keep grids with at least ``min_words`` words and ``min_score`` points in ``dictionary``."""
        if min_words < 0 or min_score < 0:
            raise BoggleError("a grid's least words and points (`min_words`, `min_score`) cannot be negative")
        self.dictionary = dictionary
        self.scoring = scoring
        self.min_words = min_words
        self.min_score = min_score

    def __call__(self, grid: Grid) -> bool:
        """True if ``grid`` is rich enough."""
        from boggle_dafsa.solver import score_only  # upward (board/ is below solver/): docs/architecture.md

        # Totals only: with the compiled kernel, no word or hit is even built.
        words, points = score_only(normalized_grid(grid, self.dictionary), self.dictionary, scoring=self.scoring)
        return words >= self.min_words and points >= self.min_score

    def __str__(self) -> str:
        wanted = []
        if self.min_words:
            wanted.append(f"{self.min_words} word{'s' if self.min_words > 1 else ''}")
        if self.min_score:
            wanted.append(f"{self.min_score} point{'s' if self.min_score > 1 else ''}")
        return " and ".join(wanted) or "any number of words"


def normalized_grid(grid: Grid, dictionary: Dictionary) -> Grid:
    """``grid`` with each face normalized by ``dictionary``'s policy, as its words were.

    A folding dictionary gets the faces it expects (upper case, accents removed). An exact
    dictionary gets them as they are, case included: upper-case dice find nothing in an
    exact dictionary of lower-case words.
    """
    faces = tuple(dictionary.normalize(face) or face for face in grid.faces)
    return grid if faces == grid.faces else Grid(grid.shape, faces)


DEFAULT_MAX_ATTEMPTS = 1000


def generate_grids(
    dice_set: DiceSet,
    seed: int,
    count: int = 1,
    *,
    quality: GridQuality | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> Iterator[Grid]:
    """``count`` grids rolled from ``seed``; grids that ``quality`` refuses are rolled again.

    Each grid gets at most ``max_attempts`` rolls; past that a :class:`BoggleError` says so.
    """
    # Checked here, before the first grid is asked for, not when the generator starts.
    if count < 0:
        raise BoggleError(f"the number of grids (`count`) cannot be negative, not {count}")
    if max_attempts < 1:
        raise BoggleError(f"the rolls allowed for one grid (`max_attempts`) must be at least 1, not {max_attempts}")
    return _generate(dice_set, seed, count, quality, max_attempts)


def _generate(dice_set: DiceSet, seed: int, count: int, quality: GridQuality | None, max_attempts: int) -> Iterator[Grid]:
    rng = SplitMix64(seed)
    for number in range(1, count + 1):
        for _attempt in range(max_attempts):
            grid = roll_grid(dice_set, rng)
            if quality is None or quality(grid):
                yield grid
                break
        else:
            which = f"grid {number} of {count}" if count > 1 else "the grid"
            raise BoggleError(
                f"no grid with {quality} in {max_attempts} attempts for {which} "
                f"(dice {dice_set.name}, seed {seed}): ask for less or allow more attempts (`max_attempts`)"
            )


# -- listing ----------------------------------------------------------------------------


def display_face(face: str) -> str:
    """A face as printed on a die: ``QU`` → ``Qu``."""
    return face[:1] + face[1:].lower()


def die_text(die: Die) -> str:
    """A die as written in dice files: ``HIMNU(Qu)``."""
    return "".join(face if len(face) == 1 else f"({display_face(face)})" for face in die)
