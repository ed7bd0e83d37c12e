"""Every text the commands print: result lines, totals, grids, game reports, score sheets, dice sets.

Pure functions from library values to strings; the command line (and anything else)
writes them where it likes. JSON is in :mod:`.jsonable`.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.game.rounds import PlayerWord, Report, ScoreSheet, Verdict
    from boggle_dafsa.search.best import Found, SearchResult, SearchSpec
    from boggle_dafsa.solver import Hit


# -- solver results ----------------------------------------------------------------------


class Rendering:
    """How results are printed: ``--scores``, ``--paths``, ``--json``, ``--summary``.

    A plain class with slots, not a NamedTuple: cheaper to create at import (start-up time).
    """

    __slots__ = ("scores", "paths", "json", "summary")

    def __init__(self, scores: bool = False, paths: bool = False, json: bool = False, summary: bool = False) -> None:
        self.scores = scores
        self.paths = paths
        self.json = json
        #: One line per grid, ``GRID<TAB>words<TAB>points``.
        self.summary = summary


def format_path(grid: Grid, path: Iterable[int]) -> str:
    """A path as coordinates, e.g. ``(3,3) (2,3) (1,3)``."""
    from boggle_dafsa.output.rows import PATH_ROW

    return PATH_ROW.cell_separator.join(PATH_ROW.cell(grid.coordinates(cell)) for cell in path)


def format_totals(count: int, points: int) -> str:
    """``1,045 words, 3,625 points``."""
    return f"{count:,} word{'' if count == 1 else 's'}, {points:,} point{'' if points == 1 else 's'}"


def solve_totals(count: int, points: int, dictionary: str | None = None, bonus: int | None = None) -> str:
    """``solve``'s totals line on standard error: ``2 words, 2 points``, then the dictionary
    that answered when no ``-d`` chose it (``(build/dictionary.dafsa, 3 words)``) and the
    number of bonus words of ``--bonus``."""
    line = format_totals(count, points) if dictionary is None else f"{format_totals(count, points)} ({dictionary})"
    return line if bonus is None else f"{line}; {bonus} bonus word{'' if bonus == 1 else 's'}"


def batch_totals(grids: int, count: int, points: int) -> str:
    """The last line of ``solve --batch``: ``3 grids: 1,045 words, 3,625 points``."""
    return f"{grids:,} grid{'' if grids == 1 else 's'}: {format_totals(count, points)}"


def block_header(grid: str, count: int, points: int) -> str:
    """The first line of one grid's block in a batch: ``# GRID<TAB>totals``."""
    return f"# {grid}\t{format_totals(count, points)}"


def render_lines(grid: Grid, hits: Iterable[Hit], rendering: Rendering) -> Iterator[str]:
    """The text lines of a result: a word a line, with ``score<TAB>`` and ``<TAB>path`` on request."""
    from boggle_dafsa.output.rows import row_format

    row = row_format(scores=rendering.scores, paths=rendering.paths)
    for hit in hits:
        yield row.fill(hit.word, hit.points, [row.cell(grid.coordinates(cell)) for cell in hit.path] if rendering.paths else ())


def render_block(grid: Grid, hits: list[Hit], rendering: Rendering) -> str:
    """One grid of a batch: ``# GRID<TAB>totals``, then its lines."""
    from boggle_dafsa.solver import totals

    return "\n".join([block_header(str(grid), *totals(hits)), *render_lines(grid, hits, rendering)]) + "\n"


def render_find(grid: Grid, word: str, path: tuple[int, ...] | None, points: int | None) -> str:
    """The answer of ``find``: where ``word`` is on the grid, and its points if it is a word (None: not one)."""
    where = f"on the grid: {format_path(grid, path)}" if path else "not on the grid"
    what = f"in the dictionary ({points} point{'' if points == 1 else 's'})" if points is not None else "not in the dictionary"
    return f"{word}: {where}; {what}"


# -- games -------------------------------------------------------------------------------


def format_clock(seconds: float) -> str:
    """``161.2`` → ``2:42`` (rounded up: the clock shows 0:00 only when time is up)."""
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def render_grid(grid: Grid) -> str:
    """The grid in a frame, rows and columns numbered from 0 as in ``solve --paths`` and
    ``find`` (2-D; other shapes print as text). Two lines a row: a 6x6 grid fits beside
    the answers on a 24-line terminal. A blank face shows as ``·``."""
    from boggle_dafsa.board.dice import display_face

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
    if verdict.accepted and verdict.bonus:
        return f"  {shown}: bonus word, not scored (score {score})"
    if verdict.accepted:
        plural = "" if verdict.points == 1 else "s"
        return f"  {shown}: +{verdict.points} point{plural} (score {score})"
    return f"  {shown}: refused, {verdict.reason.value if verdict.reason else ''}"


def share_block(share: str) -> str:
    """After a daily game: a blank line, then the text to share (no spoilers)."""
    return f"\nTo share (no spoilers):\n{share}"


def serving_line(url: str, lan: str | None) -> str:
    """What ``serve`` says once it listens: where, and the address other devices use on the network."""
    others = f"; other devices: {lan}" if lan else ""
    return f"boggle-dafsa: serving on {url}{others} (Ctrl-C to stop)"


def bonus_heading(name: str, count: int) -> str:
    """The line before a grid's bonus words in ``solve --bonus``."""
    return f"Bonus words (of {name}, not in the game's list; not scored): {count}"


def _wrapped(hits: Sequence[Hit], width: int = 78) -> str:
    # Bonus words are worth nothing: one wrapped run, in solve order (longest first).
    return textwrap.fill(
        "  ".join(hit.word for hit in hits),
        width=width,
        initial_indent="  ",
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _by_points(hits: Sequence[Hit], width: int = 78) -> Iterator[str]:
    # One block per score, highest first, words wrapped: compact even for 300 missed words.
    groups: dict[int, list[str]] = {}
    for hit in hits:
        groups.setdefault(hit.points, []).append(hit.word)
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
    lines.extend(render_review(report))
    lines.append(
        f"You found {_share(len(report.found), report.total_words, 'words')} "
        f"and {_share(report.score, report.total_points, 'points')}."
    )
    if report.bonus_spec is not None:
        # Apart from the score, as Squaredle lists them: words of the full list only.
        lines.append(
            f"Bonus words (of {report.bonus_spec}, not in the game's list; not scored): "
            f"{_share(len(report.bonus_found), report.total_bonus, 'found')}."
        )
        if report.bonus_found:
            lines.append(_wrapped(report.bonus_found))
        if report.bonus_missed:
            lines.append(f"Bonus words missed: {len(report.bonus_missed)}:")
            lines.append(_wrapped(report.bonus_missed))
    if report.seed is not None:
        lines.append(f"Replay this grid with: {replay_command(report)}")
    return "\n".join(lines)


def render_review(report: Report) -> list[str]:
    """The game arranged for study (:mod:`boggle_dafsa.game.review`), a few lines: the missed
    words counted by length, the missed anagrams of words found, the board's best words."""
    from boggle_dafsa.game.review import review

    arranged = review(report)
    lines = []
    if arranged.by_length:
        counts = ", ".join(f"{length} letters {len(words)}" for length, words in arranged.by_length)
        lines.append(f"Missed by length: {counts}.")
    if arranged.anagrams:
        pairs = "; ".join(f"{word}: {', '.join(missed)}" for word, missed in arranged.anagrams)
        lines.append(textwrap.fill(f"Anagrams of your words, missed: {pairs}.", width=78, subsequent_indent="  "))
    if arranged.best and report.total_words:
        best = "  ".join(f"{hit.word}{'*' if hit.word in arranged.found else ''}" for hit in arranged.best)
        lines.append(textwrap.fill(f"The board's best (* found): {best}", width=78, subsequent_indent="  "))
    return lines


def replay_command(report: Report) -> str:
    """The command that plays ``report``'s grid again, quoted for a POSIX shell."""
    words = ["boggle-dafsa", "play"]
    if report.dice:
        words += ["--dice", report.dice]
    if report.dictionary_spec:
        words += ["-d", report.dictionary_spec]
    if report.bonus_spec:
        words += ["--bonus", report.bonus_spec]
    words += ["--seed", str(report.seed)]
    import shlex

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
        lines.append(line(hit.word, str(hit.points), [_mark(entry) for entry in entries]))
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


# -- dice sets ---------------------------------------------------------------------------


def render_dice_sets(sets: list[DiceSet]) -> str:
    """A table of dice sets: name, grid, minimum length, scoring, dictionary, title."""
    from boggle_dafsa.board.grid import format_shape

    header = ("name", "grid", "min", "scoring", "dict", "title")
    rows = [header] + [
        (s.name, format_shape(s.shape), str(s.min_length), s.scoring.name, s.language or "-", s.title) for s in sets
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header) - 1)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows)


def render_dice_set(dice_set: DiceSet) -> str:
    """One set in full: its rules, its source and its dice."""
    from boggle_dafsa.board.dice import die_text
    from boggle_dafsa.board.grid import format_shape

    lines = [
        f"{dice_set.name}: {dice_set.title}",
        f"grid {format_shape(dice_set.shape)}, words of {dice_set.min_length} letters or more, "
        f"scoring {dice_set.scoring.name} ({dice_set.scoring.description}), dictionary {dice_set.language or '-'}",
        f"source: {dice_set.source}",
    ]
    lines += [
        " ".join(die_text(die) for die in dice_set.dice[start : start + dice_set.shape[1]])
        for start in range(0, len(dice_set.dice), dice_set.shape[1])
    ]
    return "\n".join(lines)


def render_search(result: SearchResult, top: int) -> str:
    """What ``best`` prints: the best boards, one block each, then what the search did."""
    spec, runs = result.spec, len(result.runs)
    lines = []
    for found, found_by in result.best(top):
        lines.append(
            f"{found.text(spec.shape)}\t{found.points:,} points, {found.words:,} words (found by {found_by} of {runs} runs)"
        )
        lines.append(f"  {search_replay_command(spec, found)}")
    seconds = sum(run.seconds for run in result.runs)
    lines.append(f"{runs} runs, {result.scored:,} boards scored in {round(seconds, 3):,.1f} s of runs (seed {result.seed})")
    return "\n".join(lines)


def search_replay_command(spec: SearchSpec, found: Found) -> str:
    """The command that solves a board ``best`` found, with the rules of the search."""
    import shlex

    parts = ["boggle-dafsa", "solve", found.text(spec.shape), "-d", spec.dictionary]
    if spec.scoring != "classic":
        parts += ["--scoring", spec.scoring]
    if spec.min_length is not None:
        parts += ["--min-length", str(spec.min_length)]
    if spec.adjacency != "king":
        parts += ["--adjacency", spec.adjacency]
    parts.append("--totals")
    return " ".join(shlex.quote(part) for part in parts)


def render_value(value: object) -> str:
    """A word's value as ``dump --values`` and ``lookup --values`` print it: an int in
    decimal, a text as it is, bytes in hexadecimal."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)
