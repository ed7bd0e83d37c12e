from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.words.normalize import Policy, Rejection, fold, normalize, rejection


def test_fold_removes_accents_and_ligatures() -> None:
    assert normalize("élève") == "ELEVE"
    assert normalize("Œuvre") == "OEUVRE"
    assert normalize("cæcum") == "CAECUM"
    assert normalize("garçon") == "GARCON"
    assert normalize("  naïf ") == "NAIF"
    assert normalize("Straße") == "STRASSE"


def test_words_with_other_characters_are_dropped_with_a_reason() -> None:
    assert normalize("aujourd'hui") is None
    assert rejection("aujourd'hui") is Rejection.APOSTROPHE
    assert rejection("arc-en-ciel") is Rejection.HYPHEN
    assert rejection("mp3") is Rejection.DIGIT
    assert rejection("pomme de terre") is Rejection.SPACE
    assert rejection("a.b") is Rejection.OTHER
    assert rejection("arbre") is None


def test_exact_policy_keeps_case_and_accents() -> None:
    assert normalize("Élève", Policy.EXACT) == "Élève"
    assert normalize("e\u0301te\u0301", Policy.EXACT) == "été"  # composed to NFC
    assert normalize("Élève", "exact") == "Élève"  # type: ignore[arg-type]


@given(st.lists(st.text(alphabet="abcÉéèçœŒæÆßñÑ'-1 ", min_size=1, max_size=8), max_size=30))
def test_folding_a_whole_text_equals_folding_each_word(words: list[str]) -> None:
    # The word-list reader folds whole chunks at once: it must agree with word-by-word folding.
    assert fold("\n".join(words)) == "\n".join(fold(w) for w in words)


@pytest.mark.slow
def test_fold_is_idempotent_over_every_code_point() -> None:
    # Folding is per character (the test above and the one below): folding every code
    # point joined by newlines folds each of them, and folding the result again must
    # change nothing, or `build` would keep words (Ǽ -> Æ) that no query folds to (AE).
    chars = [chr(code) for code in range(0x110000) if code != 0x0A]
    folded = fold("\n".join(chars))
    assert folded.count("\n") == len(chars) - 1
    assert fold(folded) == folded
    assert fold("Ǽ") == fold("Æ") == "AE" and fold("ǣ") == "AE"


@given(st.characters(blacklist_characters="\n"))
def test_folding_one_code_point_alone_or_among_others_agrees(char: str) -> None:
    assert fold(f"A\n{char}\nB").split("\n")[1] == fold(char)


@pytest.mark.slow
@given(st.text())
def test_normalization_is_idempotent_on_any_text(text: str) -> None:
    assert fold(fold(text)) == fold(text)
    for policy in Policy:
        key = normalize(text, policy)
        if key is not None:
            assert normalize(key, policy) == key
