"""Every JSON object the commands print and the web API sends: one schema, built here.

A word's value is ``"points"`` everywhere (results, verdicts, reports, score sheets);
paths are lists of coordinates. Builders return plain data for :func:`json.dumps`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING, Any

from boggle_dafsa.output.rows import PATH, POINTS, WORD, RowFormat

if TYPE_CHECKING:
    from boggle_dafsa.board.dice import DiceSet
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.game.rounds import Report, ScoreSheet, Verdict
    from boggle_dafsa.output.columns import WordColumns
    from boggle_dafsa.query import AnagramHit, Hooks
    from boggle_dafsa.search.best import SearchResult
    from boggle_dafsa.search.prove import Estimate, ProofResult
    from boggle_dafsa.solver import Hit
    from boggle_dafsa.study.history import Stats
    from boggle_dafsa.study.schedule import Card
    from boggle_dafsa.study.session import Verdict as QuizVerdict


def path_json(grid: Grid, path: Iterable[int]) -> list[list[int]]:
    """A path as a list of coordinates."""
    return [list(grid.coordinates(cell)) for cell in path]


def word_json(word: str, points: int, path: list[Any]) -> dict[str, Any]:
    """A found word's object: ``{"word", "points", "path"}`` (the batch path fills the same
    object as a template, :func:`json_row`)."""
    return {"word": word, "points": points, "path": path}


def _json_row() -> RowFormat:
    # The word's JSON object with marks for its fields: word_json is the one definition.
    sentinel = -7_293_811_451  # a number no field holds, replaced by the POINTS mark
    text = dumps(word_json(WORD, sentinel, [PATH]))
    text = text.replace(str(sentinel), POINTS).replace(dumps(PATH), PATH).replace(dumps(WORD), '"' + WORD + '"')
    return RowFormat(text, ", ", ", ", json=True)


def result_json(grid: Grid, hits: list[Hit], **extra: Any) -> dict[str, Any]:
    """The JSON object of a result: grid, shape, words (word, points, path) and totals."""
    from boggle_dafsa.solver import totals

    count, points = totals(hits)
    words = [word_json(hit.word, hit.points, path_json(grid, hit.path)) for hit in hits]
    return result_object(str(grid), list(grid.shape), words, count, points, **extra)


def bonus_json(grid: Grid, name: str, hits: list[Hit]) -> dict[str, Any]:
    """A grid's bonus words (``solve --bonus``): the full list's name, each word with its path (0 points), their count."""
    return {
        "list": name,
        "words": [word_json(hit.word, hit.points, path_json(grid, hit.path)) for hit in hits],
        "totals": {"words": len(hits)},
    }


def result_object(grid: str, shape: list[Any], words: list[Any], count: int, points: int, **extra: Any) -> dict[str, Any]:
    """The result's object from its parts (``extra`` first: ``line`` in a batch)."""
    return {**extra, "grid": grid, "shape": shape, "words": words, "totals": {"words": count, "points": points}}


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, **options)``, non-ASCII kept."""
    # json costs a few ms to import: only runs that print JSON pay for it.
    import json

    return json.dumps(value, ensure_ascii=False, **options)


_json_rows: list[RowFormat] = []


def json_row() -> RowFormat:
    """A word's JSON object as a row template, objects joined by ``, `` inside a result's
    ``"words"`` (what the batch path's kernels fill); made on first use (json's import)."""
    if not _json_rows:
        _json_rows.append(_json_row())
    return _json_rows[0]


def find_json(grid: Grid, word: str, path: tuple[int, ...] | None, points: int | None) -> dict[str, Any]:
    """The answer of ``find``: the word, whether and where it is on the grid, whether it is a word."""
    return {
        "word": word,
        "found": path is not None,
        "path": path_json(grid, path) if path else None,
        "in_dictionary": points is not None,
        "points": points or 0,
    }


def hits_json(hits: Iterable[Hit]) -> list[dict[str, Any]]:
    return [{"word": hit.word, "points": hit.points} for hit in hits]


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "input": verdict.raw,
        "word": verdict.word,
        "accepted": verdict.accepted,
        "points": verdict.points,
        "reason": verdict.reason.value if verdict.reason else None,
        "bonus": verdict.bonus,
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
        "found": hits_json(report.found),
        "refused": [verdict_json(verdict) for verdict in report.refused],
        "missed": hits_json(report.missed),
        "total": {"words": report.total_words, "points": report.total_points},
        "share": {"words": report.word_share, "points": report.point_share},
        "review": review_json(report),
        # Without a bonus list: null. Bonus words are counted apart and never scored.
        "bonus": None
        if report.bonus_spec is None
        else {
            "list": report.bonus_spec,
            "found": hits_json(report.bonus_found),
            "missed": hits_json(report.bonus_missed),
            "total": report.total_bonus,
        },
    }


def review_json(report: Report) -> dict[str, Any]:
    """The game arranged for study (:mod:`boggle_dafsa.game.review`): the missed words by
    length and by starting cell, the missed anagrams of words found, the board's best
    words, the list to study."""
    from boggle_dafsa.game.review import review

    arranged = review(report)
    return {
        "by_length": [{"length": length, "words": words} for length, words in arranged.by_length],
        "by_cell": [{"cell": list(report.grid.coordinates(cell)), "words": words} for cell, words in arranged.by_cell],
        "anagrams": [{"found": word, "missed": missed} for word, missed in arranged.anagrams],
        "best": [{"word": hit.word, "points": hit.points, "found": hit.word in arranged.found} for hit in arranged.best],
        "study": arranged.study,
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
                "words": [{**verdict_json(word.verdict), "points": word.points, "shared": word.shared} for word in player.words],
            }
            for player in sheet.players
        ],
        "table": [
            {
                "word": hit.word,
                "points": hit.points,
                "found_by": [player.name for player, entry in zip(sheet.players, entries) if entry is not None],
            }
            for hit, entries in sheet.rows()
        ],
    }


def dice_set_json(dice_set: DiceSet) -> dict[str, object]:
    """A set as JSON data."""
    return {
        "name": dice_set.name,
        "title": dice_set.title,
        "shape": list(dice_set.shape),
        "min_length": dice_set.min_length,
        "scoring": dice_set.scoring.name,
        "dictionary": dice_set.language,
        "source": dice_set.source,
        "dice": [list(die) for die in dice_set.dice],
    }


def search_json(result: SearchResult, count: int = 5) -> dict[str, Any]:
    """``best --json``: what was searched, the ``count`` best boards (each with the command
    that solves it), the work done."""
    from boggle_dafsa.output.render import search_replay_command

    spec = result.spec
    return {
        "dictionary": spec.dictionary,
        "shape": list(spec.shape),
        "dice": spec.dice.name if spec.dice else None,
        "letters": "".join(spec.letters) if spec.dice is None else None,
        "first_letters": "".join(spec.common) or None,
        "scoring": spec.scoring,
        "min_length": spec.min_length,
        "adjacency": spec.adjacency,
        "objective": spec.objective,
        "method": spec.method,
        "pool": spec.pool if spec.method == "hillclimb" else None,
        "seed": result.seed,
        "runs": len(result.runs),
        "scored": result.scored,
        "seconds": round(sum(run.seconds for run in result.runs), 3),
        "best": [
            {
                "grid": found.text(spec.shape),
                "score": found.score,
                "points": found.points,
                "words": found.words,
                "found_by": runs,
                "replay": search_replay_command(spec, found),
            }
            for found, runs in result.best(count)
        ],
    }


def proof_json(proof: ProofResult, dice: str | None = None) -> dict[str, Any]:
    """``prove --json``: every board with its points and words, and the work done (and the
    dice set whose boards were proven, when one was)."""
    from boggle_dafsa.output.proof import grid_text

    spec = proof.spec
    return {
        "boards": [{"grid": grid_text(spec, text), "points": points, "words": words} for text, points, words in proof.boards()],
        "classes": proof.classes,
        "cpu_seconds": round(proof.cpu_seconds, 3),
        "minimum": spec.minimum,
        "objective": spec.objective,
        "shape": "x".join(map(str, spec.shape)),
        **({"dice": dice} if dice else {}),
    }


def shard_json(proof: ProofResult, part: tuple[int, int], total: int) -> dict[str, Any]:
    """``prove --shard I/N --json``: the part (``[I, N]``), the proof's ``total`` classes, then
    the shard's proof as :func:`proof_json` gives it."""
    return {"shard": list(part), "of": total, **proof_json(proof)}


def estimate_json(projected: Estimate, seed: int) -> dict[str, Any]:
    """``prove --estimate --json``: the projection of the whole proof from a sample of its
    classes, and the ``seed`` that drew the sample."""
    low, high = projected.interval_hours
    return {
        "classes": projected.classes,
        "sampled": projected.sampled,
        "sample_cpu_seconds": round(projected.cpu_seconds, 3),
        "projected_cpu_seconds": round(projected.projected, 1),
        "margin_95": round(projected.margin, 1),
        "projected_cpu_hours": round(projected.projected / 3600, 3),
        "interval_95_cpu_hours": [round(low, 3), round(high, 3)],
        "relative_margin_95": round(projected.margin / projected.projected, 4) if projected.projected > 0 else None,
        "sample_for_25_percent": projected.sample_for_25,
        "peak_tree_nodes": projected.peak_nodes,
        "peak_tree_bytes": projected.peak_bytes,
        "boards_in_sample": projected.boards,
        "seed": seed,
        "per_class": [
            {
                "class": result.index,
                "seconds": round(result.seconds, 4),
                "nodes": result.nodes,
                "splits": result.splits,
                "candidates": result.candidates,
                "peak_kb": result.peak_kb,
            }
            for result in projected.per_class
        ],
    }


# -- the word queries (`match`, `anagram`, `fuzzy`, `grep`, `hooks`, `complete`): what
# `--json` prints and the web API's /api/<verb> answers. Listings are JSON arrays of
# words, or of these objects.


def anagram_json(hit: AnagramHit, columns: WordColumns | None = None) -> dict[str, Any]:
    """An ``anagram`` result: the word, as shown (blanks' letters in lower case), where its
    blanks stand; after the fields of ``columns`` (``--columns``) when given."""
    found = {"word": hit.word, "shown": hit.display(), "blanks": list(hit.blanks)}
    return {**columns.fields(hit.word), **found} if columns else found


def fuzzy_json(hit: tuple[int, str], columns: WordColumns | None = None) -> dict[str, Any]:
    """A ``fuzzy`` result: its distance (edits) and the word, then the fields of ``columns``."""
    found = {"distance": hit[0], "word": hit[1]}
    return {**found, **columns.fields(hit[1])} if columns else found


def hooks_json(found: Hooks) -> dict[str, Any]:
    """``hooks``: the word (normalized) and the letters that make a word in front of it and after it."""
    return {"word": found.word, "front": found.front, "back": found.back}


# The quiz in the browser (web/study.py): cards, verdicts, the cardbox's figures.


def quiz_card_json(card: Card, words: int | None = None) -> dict[str, Any]:
    """A card of the cardbox: its question (an alphagram), box, due date (YYYY-MM-DD), right
    and wrong answers and streak (as :class:`~boggle_dafsa.study.schedule.Card`); ``words``:
    how many words the question spells, when known."""
    found: dict[str, Any] = {
        "question": card.question,
        "box": card.box,
        "due": card.due.isoformat(),
        "right": card.right,
        "wrong": card.wrong,
        "streak": card.streak,
    }
    if card.stability is not None and card.difficulty is not None:
        # FSRS's memory (a card the cardbox schedules has none).
        found["stability"] = card.stability
        found["difficulty"] = card.difficulty
        found["reviewed"] = card.reviewed.isoformat() if card.reviewed else None
    if words is not None:
        found["words"] = words
    return found


def quiz_answer_json(verdict: QuizVerdict, card: Card, line: str) -> dict[str, Any]:
    """An answer judged: right or not, the answers found, the words typed that are none, the
    answers missed, the card after it, and the sentence the terminal's quiz prints."""
    return {
        "right": verdict.right,
        "found": list(verdict.found),
        "wrong": list(verdict.wrong),
        "missed": list(verdict.missed),
        "card": quiz_card_json(card, len(verdict.found) + len(verdict.missed)),
        "line": line,
    }


def quiz_stats_json(stats: Stats, today: date) -> dict[str, Any]:
    """``quiz --stats`` as JSON: cards per box, never asked, due, answers of ``today`` and ever."""
    return {
        "today": today.isoformat(),
        "cards": stats.cards,
        "boxes": {str(box): count for box, count in sorted(stats.boxes.items())},
        "new": stats.new,
        "due": stats.due,
        "next_due": stats.next_due.isoformat() if stats.next_due else None,
        "answered_today": stats.answered_today,
        "right_today": stats.right_today,
        "answered": stats.answered,
        "right": stats.right,
    }
