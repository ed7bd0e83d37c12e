"""Playing Boggle: one player's round at the console, and scoring several players' lists.

:class:`Game` holds a grid, every word on it (from the solver) and what the player found;
:func:`run_console` is the timed read-answer loop; :func:`score_players` applies the
rule of the table game, where a word found by two players or more scores for nobody.
The ``render_*`` functions turn results into text; the ``*_json`` ones into JSON data.
"""

from __future__ import annotations

import math
import shlex
import signal
import textwrap
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from .errors import BoggleError
from .scoring import CLASSIC, Scoring

if TYPE_CHECKING:
    from .dice import DiceSet
    from .dictionary import Dictionary
    from .grid import Grid
    from .solver import Hit


class Reason(str, Enum):
    """Why a word is refused; the values are what the player reads."""

    NOT_A_WORD = "not a word"
    NOT_ON_GRID = "not on the grid"
    TOO_SHORT = "too short"
    ALREADY_FOUND = "already found"


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

    @property
    def accepted(self) -> bool:
        """True if the word counts."""
        return self.reason is None


class Judge:
    """Checks words against one grid: a word, on the grid, long enough.

    Built once per grid: it solves the grid, so every check is a dictionary lookup.
    """

    def __init__(
        self, grid: Grid, dictionary: Dictionary, scoring: Scoring = CLASSIC, min_length: int | None = None
    ) -> None:
        """Solve ``grid`` with ``dictionary``; words shorter than ``min_length`` (default:
        the scoring's minimum) are refused."""
        from .dice import normalized_grid
        from .solver import solve

        self.grid = normalized_grid(grid, dictionary)
        self.dictionary = dictionary
        self.scoring = scoring
        self.min_length = scoring.min_length if min_length is None else min_length
        #: Every word of the grid, sorted as ``solve`` sorts them.
        self.hits: list[Hit] = solve(self.grid, dictionary, min_length=self.min_length, scoring=scoring)
        self.hits_by_word: dict[str, Hit] = {hit.word: hit for hit in self.hits}

    def check(self, raw: str) -> Verdict:
        """The verdict on ``raw`` alone (whether someone found it already is the caller's business)."""
        raw = raw.strip()
        word = self.dictionary.normalize(raw)
        if word is None:
            return Verdict(raw, None, reason=Reason.NOT_A_WORD)
        if len(word) < self.min_length:
            return Verdict(raw, word, reason=Reason.TOO_SHORT)
        hit = self.hits_by_word.get(word)
        if hit is not None:
            return Verdict(raw, word, points=hit.score)
        # Not on the grid: say whether it is at least a word, which is what players argue about.
        reason = Reason.NOT_ON_GRID if word in self.dictionary else Reason.NOT_A_WORD
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
    ) -> None:
        """Solve ``grid``; ``dice``, ``seed`` and ``dictionary_spec`` are only recorded for
        the report, which tells how to replay the grid."""
        self.judge = Judge(grid, dictionary, scoring, min_length)
        self.dice = dice
        self.seed = seed
        self.dictionary_spec = dictionary_spec
        #: Accepted words, in the order found.
        self.found: list[str] = []
        self.refused: list[Verdict] = []
        self.score = 0

    @classmethod
    def from_dice(
        cls,
        dice_set: DiceSet,
        seed: int,
        dictionary: Dictionary,
        *,
        dice: str | None = None,
        dictionary_spec: str | None = None,
    ) -> Game:
        """A game on the first grid that ``seed`` rolls from ``dice_set``, with its rules.

        ``dice`` is how the player named the set (default: its name) and ``dictionary_spec``
        the dictionary they asked for, if any: the report repeats both in its replay hint.
        """
        from .dice import SplitMix64, roll_grid

        grid = roll_grid(dice_set, SplitMix64(seed))
        return cls(
            grid,
            dictionary,
            dice_set.scoring,
            dice_set.min_length,
            dice=dice_set.name if dice is None else dice,
            seed=seed,
            dictionary_spec=dictionary_spec,
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
        """Judge ``raw`` and, if it is accepted, count it."""
        verdict = self.judge.check(raw)
        if verdict.accepted and verdict.word in self.found:
            verdict = Verdict(verdict.raw, verdict.word, reason=Reason.ALREADY_FOUND)
        if verdict.accepted:
            assert verdict.word is not None
            self.found.append(verdict.word)
            self.score += verdict.points
        else:
            self.refused.append(verdict)
        return verdict

    def report(self, ended: EndReason | None = None, seconds: float | None = None) -> Report:
        """Score, words found, words missed (both sorted as ``solve`` sorts them)."""
        from .solver import totals

        found = set(self.found)
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
        )


#: The longest time limit: a day. Longer ones are surely typing mistakes, and the alarm
#: clock cannot be set for much longer ones (or for infinity).
MAX_SECONDS = 24 * 60 * 60


def check_seconds(seconds: float) -> None:
    """Refuse a time limit that is not between 0 (untimed) and :data:`MAX_SECONDS`."""
    if not 0 <= seconds <= MAX_SECONDS:  # also refuses NaN
        raise BoggleError(
            f"the time limit (--time) must be between 0 (untimed) and {MAX_SECONDS} seconds (24 h), not {seconds:g}"
        )


class _TimeUp(Exception):
    """Raised by the alarm to stop waiting for a word that will come too late."""


class _Countdown:
    """The time left, and an alarm that interrupts a blocked read when it runs out.

    The alarm only raises while the loop waits for input: a word being judged is never
    cut in half. Without SIGALRM (Windows, or off the main thread) the time is checked
    after each line only.
    """

    def __init__(self, seconds: float, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.deadline = clock() + seconds if seconds else None
        self.waiting = False
        self.expired = False
        self._previous: Any = None
        self._armed = False

    def __enter__(self) -> _Countdown:
        if (
            self.deadline is not None
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        ):
            self._previous = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, max(self.deadline - self.clock(), 0.001))
            self._armed = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)

    def _ring(self, _signum: int, _frame: FrameType | None) -> None:
        self.expired = True
        if self.waiting:
            raise _TimeUp

    def remaining(self) -> float | None:
        """Seconds left (None if untimed)."""
        return None if self.deadline is None else max(self.deadline - self.clock(), 0.0)

    def is_over(self) -> bool:
        """True once the time is up."""
        remaining = self.remaining()
        return self.expired or (remaining is not None and remaining <= 0)


def format_clock(seconds: float) -> str:
    """``161.2`` → ``2:42`` (rounded up: the clock shows 0:00 only when time is up)."""
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


#: Longest line `play` reads (a word is at most MAX_WORD_CHARS; the rest is room).
_MAX_LINE = 4096


def run_console(
    game: Game,
    *,
    seconds: float,
    stdin: TextIO,
    out: TextIO,
    interactive: bool,
    clock: Callable[[], float] = time.monotonic,
) -> EndReason:
    """Read words from ``stdin`` one a line and answer each on ``out`` until the game ends.

    It ends on an empty line, the end of input, Ctrl-C, or when ``seconds`` (0: untimed)
    have passed; a word typed after the time is up does not count. With ``interactive``
    the prompt shows the time left, e.g. ``[2:41] > ``.
    """
    check_seconds(seconds)
    write = out.write
    if seconds:
        write(f"You have {format_clock(seconds)} to find words. An empty line ends the game.\n")
    else:
        write("Untimed game. An empty line ends the game.\n")
    out.flush()
    countdown = _Countdown(seconds, clock)
    try:
        with countdown:
            while True:
                if interactive:
                    remaining = countdown.remaining()
                    write("> " if remaining is None else f"[{format_clock(remaining)}] > ")
                    out.flush()
                countdown.waiting = True
                try:
                    if countdown.is_over():
                        raise _TimeUp
                    line = stdin.readline(_MAX_LINE + 1)
                    if len(line) > _MAX_LINE:
                        raise BoggleError(f"standard input: a line of more than {_MAX_LINE:,} characters, not a word")
                finally:
                    countdown.waiting = False
                if countdown.is_over():
                    raise _TimeUp
                if not line:
                    if interactive:
                        write("\n")
                    return EndReason.END_OF_INPUT
                if not line.strip():
                    return EndReason.EMPTY_WORD
                write(render_verdict(game.submit(line), game.score) + "\n")
                out.flush()
    except _TimeUp:
        write("\nTime is up!\n" if interactive else "Time is up!\n")
        return EndReason.TIME_UP
    except KeyboardInterrupt:
        write("\n")
        return EndReason.INTERRUPTED


# -- several players ---------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerWord:
    """One word of a player's list and what it is worth."""

    verdict: Verdict
    #: True if another player found it too (it then scores 0 for everyone).
    shared: bool = False

    @property
    def points(self) -> int:
        """What the word scores for this player."""
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


def read_player_words(path: str | Path) -> list[str]:
    """The raw words of a player file, read exactly as a word list is (encoding, BOM,
    line breaks, ``;`` and ``,`` between words, blank lines)."""
    from .wordlist import decode, read_bytes, split_items

    from .limits import MAX_SMALL_FILE_BYTES

    text, _encoding = decode(read_bytes(path, MAX_SMALL_FILE_BYTES), str(path))
    return list(split_items(text))


def player_names(paths: Sequence[str]) -> list[str]:
    """Each player's name: the file's name without its extension.

    Raises :class:`BoggleError` when two files give the same name (the same file twice,
    or ``x/alice.txt`` and ``y/alice.txt``): their words would be mixed up.
    """
    names = [Path(path).stem or path for path in paths]
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


# -- text --------------------------------------------------------------------------------


def render_grid(grid: Grid) -> str:
    """The grid in a frame, rows and columns numbered from 0 as in ``solve --paths`` and
    ``find`` (2-D; other shapes print as text). Two lines a row: a 6x6 grid fits beside
    the answers on a 24-line terminal. A blank face shows as ``·``."""
    from .dice import display_face

    if len(grid.shape) != 2:
        return str(grid)
    rows, columns = grid.shape
    width = max(5, max(len(face) for face in grid.faces) + 4)
    margin = " " * (len(str(rows - 1)) + 2)
    rule = margin + "+" + "+".join("-" * width for _ in range(columns)) + "+"
    numbers = margin + " " + " ".join(str(column).center(width) for column in range(columns))
    lines = [numbers.rstrip(), rule]
    for row, faces in enumerate(grid.rows()):
        label = f" {row:>{len(str(rows - 1))}} "
        cells = "|".join(("·" if face == "." else display_face(face)).center(width) for face in faces)
        lines += [f"{label}|{cells}|", rule]
    return "\n".join(lines)


def render_verdict(verdict: Verdict, score: int) -> str:
    """One answer: ``MAISON: +2 (score 7)`` or ``MASION: refused, not a word``."""
    shown = verdict.word or verdict.raw
    if verdict.accepted:
        plural = "" if verdict.points == 1 else "s"
        return f"  {shown}: +{verdict.points} point{plural} (score {score})"
    return f"  {shown}: refused, {verdict.reason.value if verdict.reason else ''}"


def _by_points(hits: Sequence[Hit], width: int = 78) -> Iterator[str]:
    # One block per score, highest first, words wrapped: compact even for 300 missed words.
    groups: dict[int, list[str]] = {}
    for hit in hits:
        groups.setdefault(hit.score, []).append(hit.word)
    labels = {points: f"{points} pt{'' if points == 1 else 's'}" for points in groups}
    label_width = max((len(label) for label in labels.values()), default=0)
    for points, words in groups.items():
        label = f"  {labels[points]:>{label_width}}  "
        yield textwrap.fill(
            "  ".join(words),
            width=width,
            initial_indent=label,
            subsequent_indent=" " * len(label),
            break_long_words=False,
            break_on_hyphens=False,
        )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _share(part: int, whole: int, unit: str) -> str:
    share = f" ({100 * part / whole:.0f}%)" if whole else ""
    return f"{part} of {whole} {unit}{share}"


def render_report(report: Report) -> str:
    """The end-of-game text: score, words found, words missed, shares."""
    lines = [f"Game over ({report.ended.value})." if report.ended else "Game over."]
    lines.append(f"Score: {_count(report.score, 'point')}, {_count(len(report.found), 'word')}.")
    if report.found:
        lines.append("Found:")
        lines.extend(_by_points(report.found))
    if report.missed:
        missed_points = report.total_points - report.score
        lines.append(f"Missed: {_count(len(report.missed), 'word')}, {_count(missed_points, 'point')}:")
        lines.extend(_by_points(report.missed))
    lines.append(
        f"You found {_share(len(report.found), report.total_words, 'words')} "
        f"and {_share(report.score, report.total_points, 'points')}."
    )
    if report.seed is not None:
        lines.append(f"Replay this grid with: {replay_command(report)}")
    return "\n".join(lines)


def replay_command(report: Report) -> str:
    """The command that plays ``report``'s grid again, quoted for a POSIX shell."""
    words = ["boggle-dafsa", "play"]
    if report.dice:
        words += ["--dice", report.dice]
    if report.dictionary_spec:
        words += ["-d", report.dictionary_spec]
    words += ["--seed", str(report.seed)]
    return shlex.join(words)


def render_score_sheet(sheet: ScoreSheet) -> str:
    """The table of who found what (words as rows, players as columns), totals, invalid words."""
    names = [player.name for player in sheet.players]
    rows = sheet.rows()
    word_width = max([len("word"), len("TOTAL"), *(len(hit.word) for hit, _ in rows)])
    widths = [max(len(name), 3) for name in names]

    def line(first: str, points: str, cells: Sequence[str]) -> str:
        return (f"{first:<{word_width}}  {points:>3}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths))).rstrip()

    lines = [line("word", "pts", names)]
    for hit, entries in rows:
        lines.append(line(hit.word, str(hit.score), [_mark(entry) for entry in entries]))
    lines.append(line("TOTAL", "", [str(player.score) for player in sheet.players]))
    lines.append("(a number: points of a word one player found alone; =: found by several, 0 points; .: not found)")
    invalid = [(player.name, word) for player in sheet.players for word in player.invalid]
    if invalid:
        lines.append("Refused:")
        for name, word in invalid:
            verdict = word.verdict
            shown = verdict.raw if verdict.word in (None, verdict.raw) else f"{verdict.raw} ({verdict.word})"
            lines.append(f"  {name}: {shown}: {verdict.reason.value if verdict.reason else ''}")
    return "\n".join(lines)


def _mark(entry: PlayerWord | None) -> str:
    if entry is None:
        return "."
    return "=" if entry.shared else str(entry.points)


# -- JSON --------------------------------------------------------------------------------


def _hits_json(hits: Iterable[Hit]) -> list[dict[str, Any]]:
    return [{"word": hit.word, "points": hit.score} for hit in hits]


def _verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "input": verdict.raw,
        "word": verdict.word,
        "accepted": verdict.accepted,
        "points": verdict.points,
        "reason": verdict.reason.value if verdict.reason else None,
    }


def _whole(seconds: float | None) -> float | None:
    # 180, not 180.0, for the usual whole-second limits.
    return int(seconds) if seconds is not None and float(seconds).is_integer() else seconds


def report_json(report: Report) -> dict[str, Any]:
    """The end-of-game report as JSON data."""
    return {
        "grid": str(report.grid),
        "shape": list(report.grid.shape),
        "dice": report.dice,
        "seed": report.seed,
        "time": _whole(report.seconds),
        "ended": report.ended.value if report.ended else None,
        "score": report.score,
        "found": _hits_json(report.found),
        "refused": [_verdict_json(verdict) for verdict in report.refused],
        "missed": _hits_json(report.missed),
        "total": {"words": report.total_words, "points": report.total_points},
        "share": {"words": report.word_share, "points": report.point_share},
    }


def score_sheet_json(sheet: ScoreSheet) -> dict[str, Any]:
    """The multiplayer result as JSON data."""
    return {
        "grid": str(sheet.judge.grid),
        "scoring": sheet.judge.scoring.name,
        "min_length": sheet.judge.min_length,
        "players": [
            {
                "name": player.name,
                "score": player.score,
                "words": [
                    {**_verdict_json(word.verdict), "points": word.points, "shared": word.shared}
                    for word in player.words
                ],
            }
            for player in sheet.players
        ],
        "table": [
            {
                "word": hit.word,
                "points": hit.score,
                "found_by": [player.name for player, entry in zip(sheet.players, entries) if entry is not None],
            }
            for hit, entries in sheet.rows()
        ],
    }
