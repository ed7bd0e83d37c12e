"""Tile bags: how many tiles of each letter a word game has, what each is worth, and
Zyzzyva's probability of a word (the number of ways to draw its letters from the bag).

The two embedded bags are the standard Scrabble sets, as Wikipedia lists them
("Scrabble letter distributions", English and French editions), each with 2 blanks:

- ``en``: 100 tiles. A×9 B×2 C×2 D×4 E×12 F×2 G×3 H×2 I×9 J×1 K×1 L×4 M×2 N×6 O×8 P×2
  Q×1 R×6 S×4 T×6 U×4 V×2 W×2 X×1 Y×2 Z×1; 1 point: A E I L N O R S T U, 2: D G, 3: B C
  M P, 4: F H V W Y, 5: K, 8: J X, 10: Q Z.
- ``fr``: 102 tiles. A×9 B×2 C×2 D×3 E×15 F×2 G×2 H×2 I×8 J×1 K×1 L×5 M×3 N×6 O×6 P×2
  Q×1 R×6 S×6 T×6 U×6 V×2 W×1 X×1 Y×1 Z×1; 1 point: A E I L N O R S T U, 2: D G M,
  3: B C P, 4: F H V, 8: J Q, 10: K W X Y Z.

Any other bag is a table file (:func:`read_bag`): one line per letter, ``LETTER COUNT
VALUE``, and ``? COUNT`` for the blanks; ``#`` starts a comment. A letter the bag lacks is
worth 0 points and can only be drawn as a blank.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from math import comb
from pathlib import Path

from boggle_dafsa.errors import QueryError, opening

#: Most blanks a probability may count (Zyzzyva offers 0, 1 or 2).
MAX_PROBABILITY_BLANKS = 2


class TileBag:
    """A game's tiles: ``counts`` and ``values`` by letter, and ``blanks`` (worth 0)."""

    __slots__ = ("name", "counts", "values", "blanks", "top_value", "key", "_ways", "_value_of")

    def __init__(self, name: str, counts: dict[str, int], values: dict[str, int], blanks: int = 2) -> None:
        self.name = name
        self.counts = dict(counts)
        self.values = dict(values)
        self.blanks = blanks
        self.top_value = max(self.values.values(), default=0)
        #: What probabilities depend on: the counts and the blanks (the name does not).
        self.key = (tuple(sorted(self.counts.items())), blanks)
        self._ways: dict[tuple[str, int], tuple[int, int, int]] = {}
        self._value_of: defaultdict[str, int] = defaultdict(int, self.values)

    def points(self, word: str) -> int:
        """The word's face value: the sum of its tiles' values (0 for a letter the bag lacks)."""
        return sum(map(self._value_of.__getitem__, word))

    def combinations(self, word: str, blanks: int = 2) -> int:
        """Zyzzyva's probability of ``word``: the number of distinct sets of ``len(word)`` tiles
        of the bag that spell it, using at most ``blanks`` of the bag's blanks for letters.

        Each set is counted once: a set with ``k`` blanks stands for the letters it lacks, so
        the count is the sum, over the multisets M of at most ``blanks`` letters of the
        word, of C(bag blanks, |M|) times the product over its letters of C(tiles of the
        letter, times in the word - times in M)."""
        if not 0 <= blanks <= MAX_PROBABILITY_BLANKS:
            raise QueryError(f"bad number of blanks {blanks}: 0 to {MAX_PROBABILITY_BLANKS}")
        # ways_k: the number of tile sets for the letters so far that leave out k of them
        # (k blanks stand for them), a polynomial in the blanks multiplied letter by letter.
        ways0, ways1, ways2 = 1, 0, 0
        table = self._ways
        for letter, times in Counter(word).items():
            factors = table.get((letter, times))
            if factors is None:
                tiles = self.counts.get(letter, 0)
                factors = (comb(tiles, times), comb(tiles, times - 1), comb(tiles, times - 2) if times >= 2 else 0)
                table[(letter, times)] = factors
            a0, a1, a2 = factors
            ways2 = ways2 * a0 + ways1 * a1 + ways0 * a2
            ways1 = ways1 * a0 + ways0 * a1
            ways0 = ways0 * a0
        total = ways0
        if blanks >= 1:
            total += ways1 * self.blanks
        if blanks >= 2:
            total += ways2 * comb(self.blanks, 2)
        return total


def _bag(name: str, spec: str, values: str) -> TileBag:
    counts = {item[0]: int(item[1:]) for item in spec.split()}
    points: dict[str, int] = {}
    for group in values.split():
        value, letters = group.split(":")
        points.update(dict.fromkeys(letters, int(value)))
    return TileBag(name, counts, points, 2)


#: The embedded bags (sources in the module's docstring).
BAGS = {
    "en": _bag(
        "en",
        "A9 B2 C2 D4 E12 F2 G3 H2 I9 J1 K1 L4 M2 N6 O8 P2 Q1 R6 S4 T6 U4 V2 W2 X1 Y2 Z1",
        "1:AEILNORSTU 2:DG 3:BCMP 4:FHVWY 5:K 8:JX 10:QZ",
    ),
    "fr": _bag(
        "fr",
        "A9 B2 C2 D3 E15 F2 G2 H2 I8 J1 K1 L5 M3 N6 O6 P2 Q1 R6 S6 T6 U6 V2 W1 X1 Y1 Z1",
        "1:AEILNORSTU 2:DGM 3:BCP 4:FHV 8:JQ 10:KWXYZ",
    ),
}


def read_bag(path: str | Path, normalize: object = None) -> TileBag:
    """A bag from a table file: ``LETTER COUNT VALUE`` a line, ``? COUNT`` for the blanks."""
    with opening(path, QueryError, "tile table"):
        text = Path(path).read_text("utf-8")
    counts: dict[str, int] = {}
    values: dict[str, int] = {}
    blanks = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        try:
            if line[0] == "?" and len(line) in (2, 3):
                blanks = int(line[1])
                continue
            letter, count, value = line
            letter = normalize(letter) if callable(normalize) else letter.upper()
            if not letter or len(letter) != 1:
                raise ValueError
            counts[letter], values[letter] = int(count), int(value)
        except ValueError:
            raise QueryError(f"{path}: line {number}: not 'LETTER COUNT VALUE' or '? COUNT': {raw.strip()!r}") from None
        if counts[letter] < 0 or values[letter] < 0 or blanks < 0:
            raise QueryError(f"{path}: line {number}: negative count or value")
    if not counts:
        raise QueryError(f"{path}: no tiles (a line per letter: LETTER COUNT VALUE)")
    return TileBag(str(path), counts, values, blanks)


def bag_for(spec: str | TileBag | None, dictionary: object = None) -> TileBag:
    """The bag ``spec`` names ("en", "fr", a table file, a :class:`TileBag`); None: ``fr`` for
    a dictionary compiled from the embedded French list, else ``en``."""
    if isinstance(spec, TileBag):
        return spec
    if spec is None:
        stem = Path(str(getattr(dictionary, "path", ""))).name.lower()
        return BAGS["fr"] if stem == "fr" or stem.startswith(("fr-", "fr.")) else BAGS["en"]
    if spec.lower() in BAGS:
        return BAGS[spec.lower()]
    if not Path(spec).exists():
        raise QueryError(f"unknown tiles {spec!r}: en, fr, or a table file (LETTER COUNT VALUE a line)")
    return read_bag(spec, getattr(dictionary, "normalize", None))


__all__ = ["BAGS", "MAX_PROBABILITY_BLANKS", "TileBag", "bag_for", "read_bag"]
