"""The JSON the web API sends: the library's own JSON builders, plus the paths a page draws.

``/api/solve`` returns exactly what ``solve --json`` prints; game verdicts, reports and
score sheets are the ``play --json``/``score --json`` objects, with each accepted word's
path added so that the page can highlight it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boggle_dafsa.board.dice import SplitMix64, roll_grid
from boggle_dafsa.output.jsonable import report_json, result_json, score_sheet_json, verdict_json

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.game.rounds import Game, Report, ScoreSheet, Verdict
    from boggle_dafsa.solver import Hit
    from boggle_dafsa.web.settings import DictionaryCatalog


def solution_payload(grid: Grid, hits: list[Hit]) -> dict[str, Any]:
    """What ``boggle-dafsa solve GRID --json`` prints for ``grid``."""
    return result_json(grid, hits)


def roll_payload(dice: DiceSet, seed: int, catalog: DictionaryCatalog) -> dict[str, Any]:
    """The grid ``dice`` roll with ``seed``, as ``/api/roll`` and ``/api/daily`` send it, with the
    dictionary to play it with: the dice's language where the server has it, else its default."""
    grid = roll_grid(dice, SplitMix64(seed))
    language = dice.language if dice.language in catalog else None
    return {
        "dice": dice.name,
        "title": dice.title,
        "seed": seed,
        "grid": str(grid),
        "shape": list(grid.shape),
        "faces": list(grid.faces),
        "scoring": dice.scoring.name,
        "min_length": dice.min_length,
        "dictionary": language or catalog.default,
    }


def _path(game: Game, word: str | None) -> list[list[int]] | None:
    hit = game.judge.hit(word)  # a scoring word or a bonus one
    return None if hit is None else [list(cell) for cell in hit.coordinates(game.grid)]


def verdict_payload(game: Game, verdict: Verdict) -> dict[str, Any]:
    """One verdict as ``play --json`` writes it, with the word's path when it is on the grid."""
    return {**verdict_json(verdict), "path": _path(game, verdict.word) if verdict.accepted else None}


def found_payload(game: Game, word: str) -> dict[str, Any]:
    """A word the player found: the word, its points, its path."""
    hit = game.judge.hits_by_word[word]
    return {"word": word, "points": hit.points, "path": _path(game, word)}


def report_payload(report: Report) -> dict[str, Any]:
    """The end-of-game report as ``play --json`` prints it."""
    return report_json(report)


def score_sheet_payload(sheet: ScoreSheet) -> dict[str, Any]:
    """The multiplayer table as ``score --json`` prints it."""
    return score_sheet_json(sheet)
