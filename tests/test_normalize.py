from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.normalize import Policy, Rejection, fold, normalize, rejection


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
