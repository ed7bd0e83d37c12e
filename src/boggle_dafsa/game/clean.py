"""The family-friendly filter: words a clean game never shows nor scores.

A blocklist per language (``data/blocklist-en.txt``, ``data/blocklist-fr.txt``, made by
``scripts/make_data.py --blocklists``; their source is in ``data/README.md``): slurs,
obscenities and sexual words of the embedded lists. A clean game, as on Squaredle, treats
a blocked word as absent from its grid: it is not in the grid's words, totals, missed list
or hints, and typed, it is refused (:attr:`~boggle_dafsa.game.rounds.Reason.BLOCKED`), with
no points. Daily puzzles, rooms, the Play page and ``play`` are clean by default;
``solve`` is not (``--clean`` filters it); ``lookup`` and the word queries never filter.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

#: Where the blocklists are (beside the embedded word lists).
DATA_DIR = Path(__file__).resolve().parent.parent / "data"

#: The blocklist of each embedded dictionary (``enable2k`` shares ``en``'s).
LANGUAGES = {"fr": "fr", "en": "en", "enable2k": "en"}


@cache
def blocklist(language: str) -> frozenset[str]:
    """The blocked words of ``language`` (``en`` or ``fr``), normalized (upper case, no accents)."""
    text = (DATA_DIR / f"blocklist-{language}.txt").read_text("utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def blocked_words(dictionary: str | None = None, language: str | None = None) -> frozenset[str]:
    """The words a clean game on ``dictionary`` leaves out: the blocklist of the embedded
    dictionary of that name, else of ``language`` (a dice set's, e.g. ``fr``), else
    every blocklist together (a dictionary of the player's own, of no known language)."""
    for name in (dictionary, language):
        if name in LANGUAGES:
            return blocklist(LANGUAGES[name])
    return frozenset().union(*(blocklist(code) for code in sorted(set(LANGUAGES.values()))))
