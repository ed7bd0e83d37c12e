"""Normalization policies: how a raw word (or grid face, or query) becomes a dictionary key.

The policy is recorded in every compiled dictionary, so that queries, grids and
player words are normalized exactly as the word list was.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum
from functools import lru_cache


class Policy(str, Enum):
    """How words are normalized before they are stored or looked up."""

    #: Upper case, accents removed (NFD, combining marks dropped), Œ→OE, Æ→AE, ß→SS.
    FOLD = "fold"
    #: Words kept exactly as given (case and accents kept, NFC-composed).
    EXACT = "exact"
    #: Any key: each line kept byte for byte (no folding, no NFC, no stripping, any character).
    RAW = "raw"


# Ligatures that NFD does not decompose but that French and other word lists use.
_LIGATURES = {"Œ": "OE", "œ": "oe", "Æ": "AE", "æ": "ae", "ß": "ss", "ẞ": "SS"}


class Rejection(str, Enum):
    """Why a raw word was dropped; the values are the labels shown in build summaries."""

    APOSTROPHE = "apostrophe"
    HYPHEN = "hyphen"
    DIGIT = "digit"
    SPACE = "space"
    OTHER = "other character"


def normalize(word: str, policy: Policy = Policy.FOLD) -> str | None:
    """Return the normalized form of ``word`` under ``policy``, or None if it must be dropped.

    A word is dropped when, after normalization, it is empty or holds anything but letters.
    Under :attr:`Policy.RAW` a key is itself: only an empty one, or one that holds a line
    break, LF or CR (a key is a line), is dropped.
    """
    if policy is Policy.RAW:
        return word if word and "\n" not in word and "\r" not in word else None
    key = _normalize_cached(word, policy)
    return key if key and key.isalpha() else None


def rejection(word: str, policy: Policy = Policy.FOLD) -> Rejection | None:
    """Return why ``normalize`` drops ``word`` (None if it is kept or empty)."""
    if policy is Policy.RAW:
        return Rejection.OTHER if "\n" in word or "\r" in word else None
    key = _normalize_cached(word, policy)
    if not key or key.isalpha():
        return None
    if "'" in key or "’" in key:
        return Rejection.APOSTROPHE
    if "-" in key:
        return Rejection.HYPHEN
    if any(ch.isdigit() for ch in key):
        return Rejection.DIGIT
    if any(ch.isspace() for ch in key):
        return Rejection.SPACE
    return Rejection.OTHER


@lru_cache(maxsize=4096)
def _normalize_cached(word: str, policy: Policy) -> str:
    # Cached because grids and games normalize the same few faces and words again and again.
    word = word.strip()
    if Policy(policy) is Policy.EXACT:
        return unicodedata.normalize("NFC", word)
    return fold(word)


def fold(text: str) -> str:
    """Upper-case ``text`` and strip its accents and ligatures (no check on what remains).

    Idempotent: ``fold(fold(x)) == fold(x)`` (tested over every code point), so a word
    ``build`` keeps is the key every query of it folds to. That is why accents go before
    ligatures: Ǽ is Æ with an accent, and must end as AE, not as Æ.

    Works character by character, so folding a whole word list at once gives the
    same result as folding each word, only much faster.
    """
    if text.isascii():
        return text.upper()
    return _fold_once(text)


def _fold_once(text: str) -> str:
    # One name for every stage, so that each copy of a long text is freed as the next is made.
    text = unicodedata.normalize("NFD", text)
    marks = "".join(sorted(ch for ch in set(text) if unicodedata.combining(ch)))
    if marks:
        text = re.sub(f"[{re.escape(marks)}]+", "", text)
    # str.replace and re.sub rather than str.translate: several times faster on long
    # non-ASCII texts, which is what a whole word list is.
    for ligature, letters in _LIGATURES.items():
        if ligature in text:
            text = text.replace(ligature, letters)
    text = unicodedata.normalize("NFC", text)
    return text.upper()
