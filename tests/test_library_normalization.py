"""One normalization for the library: ``in``, ``has_prefix``, ``complete``, ``find`` and
``compile_words`` treat what they are given as the command line does, in every format."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given
from hypothesis import strategies as st

from boggle_dafsa import Grid, find, open_dictionary
from boggle_dafsa.board.grid import neighbours
from boggle_dafsa.dictionaries.build import compile_words
from boggle_dafsa.errors import DictionaryError, WordListError
from boggle_dafsa.formats import FORMATS, open_path, write_dictionary
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.dictionaries import normalized_words

# Letters in both cases, accented and not, ligatures; a hyphen and a space to be refused.
RAW = st.text(alphabet="abceéèEÉÈCçÇœŒzZ", min_size=1, max_size=6)
QUERY = st.text(alphabet="abceéèEÉÈCçÇœŒzZ -", max_size=6)


def variants(word: str) -> list[str]:
    return [word, word.lower(), word.upper(), word.swapcase(), f" {word} "]


@pytest.fixture(scope="module", params=FORMATS)
def fmt(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.slow
@given(words=st.lists(RAW, min_size=1, max_size=20), queries=st.lists(QUERY, max_size=10))
def test_set_methods_normalize_like_a_scan_of_the_list(
    fmt: str, tmp_path_factory: pytest.TempPathFactory, words: list[str], queries: list[str]
) -> None:
    keys = normalized_words(words)
    path = tmp_path_factory.mktemp("d") / f"d.{fmt}"
    write_dictionary(keys, path, fmt)
    d = open_path(path)
    for query in [*words, *queries, *(v for word in words for v in variants(word[:3]))]:
        key = normalize(query)
        # The oracle: normalize once, then scan the list.
        assert (query in d) == (key in keys), query
        if query:
            assert d.has_prefix(query) == (key is not None and any(k.startswith(key) for k in keys)), query
            expected = [] if key is None else [k for k in keys if k.startswith(key)]
            assert list(d.complete(query)) == expected, query
            assert list(d.complete(query, limit=1)) == expected[:1], query
    assert list(d) == keys and len(d) == len(keys)


def test_the_issue_examples() -> None:
    fr = open_dictionary("fr")
    assert "arbre" in fr and "Élève" in fr and " arbre " in fr and "arbre-" not in fr
    assert list(fr.complete("arbr", 3)) == ["ARBRE", "ARBRES", "ARBRISSEAU"]
    assert fr.has_prefix("élé") and not fr.has_prefix("é-")
    assert open_dictionary("FR") is not None and len(open_dictionary("FR")) == len(fr) == len(open_dictionary("Fr"))


@given(st.data())
@pytest.mark.slow
def test_find_normalizes_the_word_as_the_faces_are(data: st.DataObject) -> None:
    faces = data.draw(st.lists(st.sampled_from("AEINTUC"), min_size=16, max_size=16))
    grid = Grid((4, 4), faces)
    table = neighbours(grid.shape, "king")
    # A random path on the grid, spelled with accents and in lower case.
    path = [data.draw(st.integers(0, 15))]
    for _ in range(data.draw(st.integers(0, 6))):
        free = [cell for cell in table[path[-1]] if cell not in path]
        if not free:
            break
        path.append(data.draw(st.sampled_from(free)))
    word = "".join(grid.faces[cell] for cell in path)
    accented = word.lower().replace("e", "é").replace("c", "ç")
    for spelled in (word, word.lower(), accented):
        found = find(grid, spelled)
        assert found is not None and "".join(grid.faces[cell] for cell in found) == word, spelled
    assert find(grid, word[:1] + "-" + word[1:]) is None


def test_find_on_a_grid_kept_exact_compares_exactly() -> None:
    grid = Grid.from_faces(["a", "b", "c", "é"], (2, 2))
    assert find(grid, "abé") == (0, 1, 3) and find(grid, "ABE") is None
    assert find(grid, "ABE", policy=Policy.EXACT) is None


@given(st.lists(RAW, min_size=1, max_size=20))
@pytest.mark.slow
def test_compile_words_refuses_words_queries_would_not_reach(words: list[str]) -> None:
    keys = normalized_words(words)
    if keys != sorted(set(words)):
        with pytest.raises(WordListError, match="not normalized|not a word"):
            compile_words(sorted(set(words)))
    assert compile_words(words, normalize=True) == compile_words(keys)


@pytest.mark.parametrize("word", ["A B", "A-B", "", "L'A"])
def test_compile_words_refuses_what_is_not_letters(word: str) -> None:
    with pytest.raises((WordListError, ValueError)):
        compile_words([word])
    with pytest.raises((WordListError, ValueError)):
        compile_words(["A", word], normalize=True)


def test_compile_words_exact_policy_keeps_case(tmp_path: Path) -> None:
    path = tmp_path / "exact.dafsa"
    path.write_bytes(compile_words(["Arbre", "arbre"], Policy.EXACT))
    d = open_path(path)
    assert list(d) == ["Arbre", "arbre"] and "ARBRE" not in d
    with pytest.raises(WordListError, match="not normalized"):
        compile_words(["e\u0301"], Policy.EXACT)  # decomposed: stored composed (NFC) or not at all


@pytest.mark.slow
def test_a_wrong_name_lists_the_embedded_ones() -> None:
    with pytest.raises(DictionaryError, match=r"nor an embedded dictionary \(fr, en, enable2k\)"):
        open_dictionary("frr")
    result = run_cli("lookup", "arbre", "-d", "frr")
    assert result.returncode == 2 and "fr, en, enable2k" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    upper = run_cli("lookup", "arbre", "-d", "FR")
    assert upper.returncode == 0 and upper.stdout == "ARBRE\tyes\n"
