"""The builder gives the minimal automaton of any list, and the file gives back what went in."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa.automaton.builder import UnsortedInputError, build_automaton
from boggle_dafsa.automaton.compact import encode
from boggle_dafsa.dictionaries.build import compile_words
from boggle_dafsa.words.normalize import Policy
from boggle_dafsa.words.wordlist import read_wordlist
from helpers.dictionaries import dictionary_from_words, normalized_words

small_words = st.lists(st.text(alphabet="ABCDE", min_size=1, max_size=6), max_size=40)
# Beyond 31 letters a state header takes two cells: exercise that layout too.
wide_words = st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJÉÑß", min_size=1, max_size=5), max_size=40)


def minimal_counts(words: set[str]) -> tuple[int, int]:
    """States and transitions of the minimal automaton, counted independently of the builder.

    Myhill–Nerode: the states of the minimal DFA of a finite language (without the dead
    state) are its distinct right languages {s : p+s in L} over the prefixes p of its words;
    each has one transition per distinct first letter of its suffixes.
    """
    right_languages = set()
    for prefix in {w[:i] for w in words for i in range(len(w) + 1)} | {""}:
        right_languages.add(frozenset(w[len(prefix) :] for w in words if w.startswith(prefix)))
    transitions = sum(len({s[0] for s in language if s}) for language in right_languages)
    return len(right_languages), transitions


@given(small_words)
def test_build_is_minimal(words: list[str]) -> None:
    unique = sorted(set(words))
    automaton = build_automaton(unique)
    assert (automaton.state_count, automaton.transition_count) == minimal_counts(set(unique))
    assert automaton.word_count == len(unique)


@pytest.mark.slow
@given(small_words)
def test_round_trip_through_the_file(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    d = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    expected = sorted(set(words))
    assert list(d) == expected
    assert len(d) == len(expected)
    for word in expected:
        assert word in d
        assert d.has_prefix(word[:-1])
    assert all(w + "Z" not in d for w in expected)


@pytest.mark.slow
@given(wide_words)
def test_round_trip_with_a_wide_alphabet(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    d = dictionary_from_words(words, tmp_path_factory.mktemp("d"), policy=Policy.EXACT)
    expected = normalized_words(words, Policy.EXACT)
    assert list(d) == expected
    assert all(w in d for w in expected)
    assert d.header_cells == 0 and d.version == 2  # version 2 has no cells: any alphabet, same bytes per edge
    v1 = dictionary_from_words(words, tmp_path_factory.mktemp("d1"), policy=Policy.EXACT, version=1)
    assert list(v1) == expected
    assert v1.header_cells == (2 if len(v1.alphabet) > 31 else 1)


@pytest.mark.slow
@given(small_words, st.text(alphabet="ABCDE", max_size=3), st.integers(min_value=0, max_value=5))
def test_complete_lists_words_with_the_prefix_in_order(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], prefix: str, limit: int
) -> None:
    d = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    expected = [w for w in sorted(set(words)) if w.startswith(prefix)]
    assert list(d.complete(prefix)) == expected
    assert list(d.complete(prefix, limit)) == expected[:limit]
    assert d.has_prefix(prefix) == bool(expected)


def test_stepping_letter_by_letter(tmp_path: Path) -> None:
    d = dictionary_from_words(["chien", "chat", "niche", "nicher", "zoo"], tmp_path)
    state = d.step(d.root, "NI")
    assert state is not None and not d.is_word(state)
    state = d.step(state, "CHE")
    assert state is not None and d.is_word(state)
    assert d.is_word(d.step(state, "R"))
    assert d.step(state, "S") is None
    assert d.step(d.root, "É") is None  # outside the alphabet: no word, no error
    assert d.step(d.root, "") == d.root


def test_unsorted_or_duplicate_input_is_refused() -> None:
    with pytest.raises(UnsortedInputError, match="out of order"):
        build_automaton(["B", "A"])
    with pytest.raises(UnsortedInputError, match="duplicate"):
        build_automaton(["A", "A"])


def test_empty_list_gives_a_valid_empty_dictionary(tmp_path: Path) -> None:
    d = dictionary_from_words([], tmp_path)
    assert len(d) == 0 and list(d) == [] and "A" not in d and not d.is_word(d.root)


@given(small_words)
def test_same_list_same_bytes(words: list[str]) -> None:
    unique = sorted(set(words))
    assert compile_words(unique) == compile_words(list(unique))
    automaton = build_automaton(unique)
    assert encode(automaton, Policy.FOLD, "00" * 32) == encode(build_automaton(unique), Policy.FOLD, "00" * 32)


def test_the_seed_example_automaton(tmp_path: Path) -> None:
    # chien, chat, niche, nicher, zoo: the suffix states of "niche"/"nicher" and "chien" merge.
    words = ["CHAT", "CHIEN", "NICHE", "NICHER", "ZOO"]
    automaton = build_automaton(words)
    assert (automaton.state_count, automaton.transition_count) == minimal_counts(set(words))


@pytest.mark.slow
def test_enable2k_counts(enable2k_path: Path) -> None:
    wl = read_wordlist(enable2k_path)
    automaton = build_automaton(wl.words)
    assert len(wl.words) == 173_528
    assert (automaton.state_count, automaton.transition_count) == (54_335, 123_451)


@pytest.mark.parametrize(
    ("name", "words", "states", "transitions"),
    [
        ("fr", 325_313, 36_863, 89_016),
        ("en", 62_803, 22_677, 49_654),
    ],
)
def test_embedded_list_counts(name: str, words: int, states: int, transitions: int) -> None:
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    info = open_dictionary(name).info()
    assert (info["words"], info["states"], info["transitions"]) == (words, states, transitions)
