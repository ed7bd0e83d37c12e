"""Playing Boggle: one player's round at the console, and scoring several players' lists.

:class:`Game` holds a grid, every word on it (from the solver) and what the player found;
a game may name a second, fuller list beside its own (the *common* list): the words of
the full list outside the common one are **bonus words**, listed apart, counted and never
scored, as Squaredle does (:class:`Judge`'s ``bonus``);
:func:`run_console` is the timed read-answer loop; :func:`score_players` applies the
rule of the table game, where a word found by two players or more scores for nobody.
The ``render_*`` functions turn results into text; the ``*_json`` ones into JSON data.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from boggle_dafsa.board.dice import SplitMix64, normalized_grid, roll_grid
from boggle_dafsa.board.scoring import CLASSIC, Scoring
from boggle_dafsa.errors import BoggleError, WordListError
from boggle_dafsa.files.limits import MAX_SMALL_FILE_BYTES, read_limited
from boggle_dafsa.solver import solve, totals
from boggle_dafsa.words.decoding import decode, encoding_hint
from boggle_dafsa.words.wordlist import split_items

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.solver import Hit


class Reason(str, Enum):
    """Why a word is refused; the values are what the player reads."""

    NOT_A_WORD = "not a word"
    NOT_ON_GRID = "not on the grid"
    TOO_SHORT = "too short"
    ALREADY_FOUND = "already found"
    #: A word of the family-friendly blocklist, in a clean game (:mod:`boggle_dafsa.game.clean`).
    BLOCKED = "not allowed in a clean game"


@dataclass(frozen=True)
class Verdict:
    """The answer to one submitted word."""

    #: What the player typed (stripped).
    raw: str
    #: Its normalized form (None when normalization leaves no word, e.g. "l'eau").
    word: str | None
    points: int = 0
    #: None when the word is accepted.
    reason: Reason | None = None
    #: True for a bonus word: accepted, counted apart, worth no points (:class:`Judge`'s ``bonus``).
    bonus: bool = False

    @property
    def accepted(self) -> bool:
        """True if the word counts."""
        return self.reason is None


class Judge:
    """Checks words against one grid: a word, on the grid, long enough, not blocked.

    Built once per grid: it solves the grid, so every check is a dictionary lookup. With a
    ``bonus`` list (the full list beside ``dictionary``, the common one), a word of the
    full list that the common one lacks is a bonus word: accepted, worth no points.
    """

    def __init__(
        self,
        grid: Grid,
        dictionary: Dictionary,
        scoring: Scoring = CLASSIC,
        min_length: int | None = None,
        *,
        blocked: Collection[str] = frozenset(),
        bonus: Dictionary | None = None,
    ) -> None:
        """Solve ``grid`` with ``dictionary``; words shorter than ``min_length`` (default:
        the scoring's minimum) are refused. ``blocked`` (a clean game's blocklist,
        :func:`boggle_dafsa.game.clean.blocked_words`): words left out of the grid's words,
        as if the grid did not hold them, and refused when typed. ``bonus``: the full list,
        whose words outside ``dictionary`` are the grid's bonus words (blocked ones left
        out too); it must normalize words as ``dictionary`` does (:class:`BoggleError` if not)."""
        self.grid = normalized_grid(grid, dictionary)
        self.dictionary = dictionary
        self.scoring = scoring
        self.min_length = scoring.min_length if min_length is None else min_length
        self.blocked: frozenset[str] = frozenset(blocked)
        #: Every word of the grid, sorted as ``solve`` sorts them (blocked words left out).
        self.hits: list[Hit] = [
            hit
            for hit in solve(self.grid, dictionary, min_length=self.min_length, scoring=scoring)
            if hit.word not in self.blocked
        ]
        self.hits_by_word: dict[str, Hit] = {hit.word: hit for hit in self.hits}
        self.bonus = bonus
        #: The grid's bonus words (in ``bonus``, not in ``dictionary``), sorted as ``solve`` sorts them.
        self.bonus_hits: list[Hit] = []
        if bonus is not None:
            from boggle_dafsa.game.bonus import bonus_hits, check_bonus_policy

            check_bonus_policy(dictionary, bonus)
            full = solve(self.grid, bonus, min_length=self.min_length, scoring=scoring)
            self.bonus_hits = bonus_hits(full, dictionary, self.blocked)
        self.bonus_by_word: dict[str, Hit] = {hit.word: hit for hit in self.bonus_hits}

    def hit(self, word: str | None) -> Hit | None:
        """The grid's hit of ``word`` (normalized), a scoring word or a bonus one; None if neither."""
        if word is None:
            return None
        return self.hits_by_word.get(word) or self.bonus_by_word.get(word)

    def check(self, raw: str) -> Verdict:
        """The verdict on ``raw`` alone (whether someone found it already is the caller's business)."""
        raw = raw.strip()
        word = self.dictionary.normalize(raw)
        if word is None:
            return Verdict(raw, None, reason=Reason.NOT_A_WORD)
        if len(word) < self.min_length:
            return Verdict(raw, word, reason=Reason.TOO_SHORT)
        if word in self.blocked:
            return Verdict(raw, word, reason=Reason.BLOCKED)
        hit = self.hits_by_word.get(word)
        if hit is not None:
            return Verdict(raw, word, points=hit.points)
        if word in self.bonus_by_word:
            return Verdict(raw, word, bonus=True)
        # Not on the grid: say whether it is at least a word, which is what players argue about.
        known = word in self.dictionary or (self.bonus is not None and word in self.bonus)
        reason = Reason.NOT_ON_GRID if known else Reason.NOT_A_WORD
        return Verdict(raw, word, reason=reason)


# -- one player --------------------------------------------------------------------------


class EndReason(str, Enum):
    """What ended a game."""

    EMPTY_WORD = "empty word"
    END_OF_INPUT = "end of input"
    INTERRUPTED = "interrupted"
    TIME_UP = "time is up"


@dataclass(frozen=True)
class Report:
    """The end of a game: what was found, what was missed, and the shares."""

    grid: Grid
    score: int
    #: Found and missed words, sorted as ``solve`` sorts them.
    found: list[Hit]
    missed: list[Hit]
    refused: list[Verdict]
    total_words: int
    total_points: int
    ended: EndReason | None = None
    #: The dice set as the player named it (``--dice``): a set name or a file path.
    dice: str | None = None
    seed: int | None = None
    seconds: float | None = None
    #: The dictionary the player asked for (``-d``), None if it was not given.
    dictionary_spec: str | None = None
    #: The bonus words found and missed (sorted as ``solve`` sorts them); both empty
    #: without a bonus list (then ``bonus_spec`` is None).
    bonus_found: list[Hit] = field(default_factory=list)
    bonus_missed: list[Hit] = field(default_factory=list)
    #: The full list the player named for bonus words (``--bonus``), None for none.
    bonus_spec: str | None = None

    @property
    def total_bonus(self) -> int:
        """How many bonus words the grid holds."""
        return len(self.bonus_found) + len(self.bonus_missed)

    @property
    def word_share(self) -> float:
        """Share of the grid's words found (0 when the grid has none)."""
        return len(self.found) / self.total_words if self.total_words else 0.0

    @property
    def point_share(self) -> float:
        """Share of the grid's points scored (0 when the grid has none)."""
        return self.score / self.total_points if self.total_points else 0.0


class Game:
    """One player's round on one grid."""

    def __init__(
        self,
        grid: Grid,
        dictionary: Dictionary,
        scoring: Scoring = CLASSIC,
        min_length: int | None = None,
        *,
        dice: str | None = None,
        seed: int | None = None,
        dictionary_spec: str | None = None,
        blocked: Collection[str] = frozenset(),
        bonus: Dictionary | None = None,
        bonus_spec: str | None = None,
    ) -> None:
        """Solve ``grid``; ``dice``, ``seed``, ``dictionary_spec`` and ``bonus_spec`` (how
        the player named ``bonus``) are only recorded for the report, which tells how to
        replay the grid. ``blocked`` and ``bonus``: see :class:`Judge`."""
        self._start(Judge(grid, dictionary, scoring, min_length, blocked=blocked, bonus=bonus), dice, seed, dictionary_spec)
        self.bonus_spec = bonus_spec

    def _start(self, judge: Judge, dice: str | None, seed: int | None, dictionary_spec: str | None) -> None:
        self.judge = judge
        self.dice = dice
        self.seed = seed
        self.dictionary_spec = dictionary_spec
        self.bonus_spec = None
        #: Accepted words, in the order found (bonus words apart, in :attr:`bonus_found`).
        self.found: list[str] = []
        #: Bonus words, in the order found: counted, never scored.
        self.bonus_found: list[str] = []
        self.refused: list[Verdict] = []
        self.score = 0

    @classmethod
    def on(cls, judge: Judge, *, seed: int | None = None, bonus_spec: str | None = None) -> Game:
        """A game on ``judge``'s grid, with its rules, blocklist and bonus list, sharing its
        solve: a room or the arena solves a board once for all its players."""
        game = cls.__new__(cls)
        game._start(judge, None, seed, None)
        game.bonus_spec = bonus_spec
        return game

    @classmethod
    def from_dice(
        cls,
        dice_set: DiceSet,
        seed: int,
        dictionary: Dictionary,
        *,
        dice: str | None = None,
        dictionary_spec: str | None = None,
        blocked: Collection[str] = frozenset(),
        bonus: Dictionary | None = None,
        bonus_spec: str | None = None,
    ) -> Game:
        """A game on the first grid that ``seed`` rolls from ``dice_set``, with its rules.

        ``dice`` is how the player named the set (default: its name) and ``dictionary_spec``
        the dictionary they asked for, if any: the report repeats both in its replay hint.
        """
        grid = roll_grid(dice_set, SplitMix64(seed))
        return cls(
            grid,
            dictionary,
            dice_set.scoring,
            dice_set.min_length,
            dice=dice_set.name if dice is None else dice,
            seed=seed,
            dictionary_spec=dictionary_spec,
            blocked=blocked,
            bonus=bonus,
            bonus_spec=bonus_spec,
        )

    @property
    def grid(self) -> Grid:
        """The grid being played (faces normalized by the dictionary)."""
        return self.judge.grid

    @property
    def hits(self) -> list[Hit]:
        """Every word of the grid, sorted as ``solve`` sorts them."""
        return self.judge.hits

    def submit(self, raw: str) -> Verdict:
        """Judge ``raw`` and, if it is accepted, count it (a bonus word apart, with no points)."""
        verdict = self.judge.check(raw)
        if verdict.accepted and verdict.word in (self.bonus_found if verdict.bonus else self.found):
            verdict = Verdict(verdict.raw, verdict.word, reason=Reason.ALREADY_FOUND)
        if verdict.accepted and verdict.bonus:
            assert verdict.word is not None
            self.bonus_found.append(verdict.word)
        elif verdict.accepted:
            assert verdict.word is not None
            self.found.append(verdict.word)
            self.score += verdict.points
        else:
            self.refused.append(verdict)
        return verdict

    def report(self, ended: EndReason | None = None, seconds: float | None = None) -> Report:
        """Score, words found, words missed (both sorted as ``solve`` sorts them)."""
        found = set(self.found)
        bonus = set(self.bonus_found)
        total_words, total_points = totals(self.hits)
        return Report(
            grid=self.grid,
            score=self.score,
            found=[hit for hit in self.hits if hit.word in found],
            missed=[hit for hit in self.hits if hit.word not in found],
            refused=list(self.refused),
            total_words=total_words,
            total_points=total_points,
            ended=ended,
            dice=self.dice,
            seed=self.seed,
            seconds=seconds,
            dictionary_spec=self.dictionary_spec,
            bonus_found=[hit for hit in self.judge.bonus_hits if hit.word in bonus],
            bonus_missed=[hit for hit in self.judge.bonus_hits if hit.word not in bonus],
            # A bonus list always has a name in the report (one given without is "the full list").
            bonus_spec=self.bonus_spec if self.bonus_spec is not None or self.judge.bonus is None else "the full list",
        )


#: The longest time limit: a day. Longer ones are surely typing mistakes, and the alarm
#: clock cannot be set for much longer ones (or for infinity).
MAX_SECONDS = 24 * 60 * 60


def check_seconds(seconds: float) -> None:
    """Refuse a time limit that is not between 0 (untimed) and :data:`MAX_SECONDS`."""
    if not 0 <= seconds <= MAX_SECONDS:  # also refuses NaN
        raise BoggleError(
            f"the time limit (`seconds`) must be between 0 (untimed) and {MAX_SECONDS} seconds (24 h), not {seconds:g}"
        )


# -- several players ---------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerWord:
    """One word of a player's list and what it is worth."""

    verdict: Verdict
    #: True if another player found it too (it then scores 0 for everyone).
    shared: bool = False

    @property
    def points(self) -> int:
        """What the word scores for this player (a bonus word: 0)."""
        return 0 if self.shared or not self.verdict.accepted else self.verdict.points


@dataclass
class Player:
    """A player's list, checked."""

    name: str
    words: list[PlayerWord] = field(default_factory=list)

    @property
    def score(self) -> int:
        """The player's total."""
        return sum(word.points for word in self.words)

    @property
    def valid(self) -> list[PlayerWord]:
        """The accepted words (shared or not)."""
        return [word for word in self.words if word.verdict.accepted]

    @property
    def invalid(self) -> list[PlayerWord]:
        """The refused words, with their reason."""
        return [word for word in self.words if not word.verdict.accepted]


@dataclass
class ScoreSheet:
    """Every player's checked list, on one grid."""

    judge: Judge
    players: list[Player]

    def rows(self) -> list[tuple[Hit, list[PlayerWord | None]]]:
        """Every valid word anybody found, sorted as ``solve`` sorts them, with each
        player's entry for it (None if the player did not find it)."""
        entries = [{word.verdict.word: word for word in player.valid} for player in self.players]
        return [
            (hit, [found.get(hit.word) for found in entries])
            for hit in self.judge.hits
            if any(hit.word in found for found in entries)
        ]


def read_player_words(source: str | Path | BinaryIO, encoding: str | None = None) -> list[str]:
    """The raw words of a player file (a path, or a binary stream such as standard input
    handed over by the caller), read exactly as a word list is (encoding, BOM, line
    breaks, ``;`` and ``,`` between words, blank lines), at most ``limits.MAX_SMALL_FILE_BYTES``."""
    return read_player_file(source, encoding)[0]


def read_player_file(source: str | Path | BinaryIO, encoding: str | None = None) -> tuple[list[str], str | None]:
    """As :func:`read_player_words`, with the note to give the player when the guessed
    encoding probably lost characters (see :func:`boggle_dafsa.words.wordlist.encoding_hint`), or None."""
    data = read_limited(source, MAX_SMALL_FILE_BYTES, WordListError, "file", stop_at_nul=True)
    label = str(source) if isinstance(source, (str, Path)) else "standard input"
    text, used = decode(data, label, encoding)
    hint = encoding_hint(data, used)
    return list(split_items(text)), None if hint is None else f"{label}: {hint}"


def player_names(paths: Sequence[str]) -> list[str]:
    """Each player's name: the file's name without its extension (``stdin`` for ``-``).

    Raises :class:`BoggleError` when two files give the same name (the same file twice,
    or ``x/alice.txt`` and ``y/alice.txt``): their words would be mixed up.
    """
    names = ["stdin" if path == "-" else Path(path).stem or path for path in paths]
    for name in names:
        if names.count(name) > 1:
            clashing = ", ".join(path for path, other in zip(paths, names) if other == name)
            raise BoggleError(f"two players named {name!r} ({clashing}): give each player a file of their own name")
    return names


def score_players(judge: Judge, lists: Mapping[str, Iterable[str]]) -> ScoreSheet:
    """Check each player's words against ``judge``'s grid; words found by two players or
    more score 0 for everyone. A word a player lists twice is refused the second time."""
    players: list[Player] = []
    for name, raw_words in lists.items():
        player = Player(name)
        seen: set[str] = set()
        for raw in raw_words:
            verdict = judge.check(raw)
            if verdict.accepted and verdict.word in seen:
                verdict = Verdict(verdict.raw, verdict.word, reason=Reason.ALREADY_FOUND)
            if verdict.accepted:
                assert verdict.word is not None
                seen.add(verdict.word)
            player.words.append(PlayerWord(verdict))
        players.append(player)
    finders: dict[str, int] = {}
    for player in players:
        for word in player.valid:
            assert word.verdict.word is not None
            finders[word.verdict.word] = finders.get(word.verdict.word, 0) + 1
    for player in players:
        player.words = [
            PlayerWord(word.verdict, shared=word.verdict.accepted and finders[word.verdict.word or ""] > 1)
            for word in player.words
        ]
    return ScoreSheet(judge, players)
