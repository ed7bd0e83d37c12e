"""The alphagram index (issue 33): exact anagrams and anagram counts read from it answer
what the walk answers, in the same order, on every format and with both walk kernels.

The walk is the oracle: ``walk.search`` of the rack's :class:`~.automata.Anagram`
automaton, with the kernel named; the index is built under the kernel chosen by
``BOGGLE_DAFSA_PURE``, so each kernel builds its own, in a dictionary opened afresh.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import query
from boggle_dafsa.errors import QueryError
from boggle_dafsa.formats import open_path, write_dictionary
from boggle_dafsa.query import automata, conditions, walk
from boggle_dafsa.words.normalize import Policy
from helpers import strategies
from helpers.dictionaries import every_format_file, normalized_words
from helpers.kernels import WALK, forced

LETTERS = "ABCDEÉ"
word_lists = strategies.word_lists(LETTERS, as_given=True)
racks = st.text(LETTERS + "abcé", min_size=1, max_size=7)


def walked(d: Any, rack: str, limit: int | None = None, kernel_name: str = "auto") -> list[str]:
    """The exact anagrams of ``rack`` found by walking, as ``query.anagram`` did before the index."""
    tiles = "".join(d.normalize(char) for char in rack)
    return list(walk.search(d, automata.Anagram(tiles), limit, kernel_name))


def each_opened(paths: list[Path]) -> Iterator[tuple[str, Any]]:
    """Each file opened afresh (a new index), native once per walk kernel, under that kernel."""
    for name in WALK:
        with forced(name):
            d = open_path(paths[0])
            yield name, d
            d.close()
    for path in paths[1:]:
        d = open_path(path)
        yield "auto", d
        getattr(d, "close", lambda: None)()


@pytest.mark.slow
@given(word_lists, st.lists(racks, min_size=1, max_size=6), st.sampled_from([Policy.FOLD, Policy.EXACT]), st.data())
def test_index_answers_what_the_walk_answers(words: list[str], asked: list[str], policy: Policy, data: Any) -> None:
    limit = data.draw(st.one_of(st.none(), st.integers(0, 3)))
    with every_format_file(normalized_words(words, policy), policy) as paths:
        for name, d in each_opened(paths):
            # Each rack three times: the first of a length walks, the second builds the
            # length's groups, the third reads them.
            for rack in asked * 3:
                try:
                    expected = walked(d, rack, kernel_name=name)
                except QueryError as error:
                    with pytest.raises(QueryError, match=str(error)):
                        query.anagram(d, rack)
                    continue
                assert [hit.word for hit in query.anagram(d, rack)] == expected
                assert [hit.word for hit in query.anagram(d, rack, limit=limit)] == expected[:limit]
                assert [hit.word for hit in query.iter_anagram(d, rack, limit=limit)] == expected[:limit]
                assert all(hit.blanks == () and hit.display() == hit.word for hit in query.anagram(d, rack))
                assert query.anagram_words(d, rack) == tuple(expected)
                key = "".join(d.normalize(char) for char in rack)
                assert conditions.anagram_count(d, key) == len(expected)


@pytest.mark.slow
@given(word_lists, racks)
def test_index_against_sorted_letters(words: list[str], rack: str) -> None:
    # A scan of the list: the words whose sorted letters are the rack's, in byte order.
    words = normalized_words(words)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "words.dafsa"
        write_dictionary(words, path, "native", {"policy": Policy.FOLD})
        d = open_path(path)
        key = sorted("".join(d.normalize(char) or "" for char in rack))
        expected = [word for word in words if sorted(word) == key]
        for _ in range(3):
            assert query.anagram_words(d, rack) == tuple(expected)
        assert conditions.exact_anagrams(d, rack) == tuple(expected)  # read from the index now
        groups = conditions.alphagram_groups(d, len(key))
        assert sum(map(conditions.group_size, groups.values())) == sum(len(word) == len(key) for word in words)
        d.close()


def test_first_rack_of_a_length_walks_the_second_builds(tmp_path: Path) -> None:
    path = tmp_path / "words.dafsa"
    write_dictionary(["ACT", "CAT", "TAC", "TACT"], path, "native", {"policy": Policy.FOLD})
    d = open_path(path)
    index = conditions._index(d)
    assert conditions.exact_anagrams(d, "TCA") is None and 3 not in index.groups  # walked
    assert conditions.exact_anagrams(d, "tca") == ("ACT", "CAT", "TAC")  # built, read
    assert index.groups[3] == {"ACT": ("ACT", "CAT", "TAC")}
    assert conditions.exact_anagrams(d, "XYZ") == ()
    assert [hit.word for hit in query.anagram(d, "tact")] == ["TACT"]
    assert [hit.word for hit in query.anagram(d, "TACT")] == ["TACT"]
    assert index.groups[4] == {"ACTT": "TACT"}  # one word: the word itself, no tuple
    # A character that is not a letter: the walk's one-line error, index or not.
    for rack in ("CA1", "CA1"):
        with pytest.raises(QueryError, match="rack letter '1'"):
            query.anagram(d, rack)
    with pytest.raises(QueryError, match="empty rack"):
        query.anagram(d, "")


def test_past_the_limits_the_walk_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    words = ["".join(letters) for letters in product("ABCDEFGHIJKLMNOPQRSTUVWXYZ", repeat=3)]  # 17,576
    path = tmp_path / "words.dafsa"
    write_dictionary(words, path, "native", {"policy": Policy.FOLD})
    cat = ["ACT", "ATC", "CAT", "CTA", "TAC", "TCA"]
    monkeypatch.setattr(conditions, "MAX_INDEXED", 1000)  # looked at every 16,384 words
    d = open_path(path)
    for _ in range(3):
        assert [hit.word for hit in query.anagram(d, "CAT")] == cat
    assert conditions._index(d).too_large == {3: 1000} and not conditions._index(d).groups  # learnt once
    with pytest.raises(QueryError, match=r"^too many words of 3 letters to index \(more than 1,000\)"):
        conditions.anagram_count(d, "CAT")
    monkeypatch.setattr(conditions, "MAX_INDEXED", 1_000_000)
    monkeypatch.setattr(conditions, "MAX_GROUPED_WORDS", len(words) - 1)  # one word too many: walked
    d = open_path(path)
    for _ in range(3):
        assert query.anagram_words(d, "TAC") == tuple(cat)
    assert not conditions._index(d).groups
    monkeypatch.setattr(conditions, "MAX_GROUPED_WORDS", len(words))
    for _ in range(2):
        assert query.anagram_words(d, "TAC") == tuple(cat)
    assert len(conditions._index(d).groups[3]) == 26 * 27 * 28 // 6  # the multisets of 3 letters


@pytest.mark.slow
def test_anagram_counts_of_every_enable2k_word_equal_a_scan(enable2k_path: Path) -> None:
    words = sorted({word.upper() for word in enable2k_path.read_text(encoding="ascii").split()})
    scan = Counter("".join(sorted(word)) for word in words)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "enable2k.dafsa"
        write_dictionary(words, path, "native", {"policy": Policy.FOLD})
        d = open_path(path)
        for word in words:
            expected = scan["".join(sorted(word))]
            assert conditions.anagram_count(d, word) == expected, word
            assert len(query.anagram_words(d, word)) == expected, word
        d.close()


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.text("ABCDE", min_size=1, max_size=5), min_size=1, max_size=40),
    st.lists(st.text("ABCDEabcdeÉé", min_size=1, max_size=5), max_size=8),
    st.integers(1, 6),
)
def test_counts_and_racks_asked_again_equal_a_scan(words: list[str], racks: list[str], kept: int) -> None:
    # Every word's number of anagrams, and each rack asked four times (walked, built, read,
    # read back from the kept racks and answers, at most `kept` of each), against a scan.
    words = normalized_words(words)
    scan: dict[str, list[str]] = {}
    for word in words:
        scan.setdefault("".join(sorted(word)), []).append(word)
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(conditions, "MAX_KEPT_ANSWERS", kept)
        path = Path(folder) / "words.dafsa"
        write_dictionary(words, path, "native", {"policy": Policy.FOLD})
        d = open_path(path)
        for word in words * 2:
            assert conditions.anagram_count(d, word) == len(scan["".join(sorted(word))]), word
        for rack in [*racks, *words] * 4:
            expected = scan.get("".join(sorted(rack.upper().replace("É", "E"))), [])
            hits = query.anagram(d, rack)
            assert [hit.word for hit in hits] == expected, rack
            hits.clear()  # the caller's own list: the next call is not changed
            assert [hit.word for hit in query.anagram(d, rack, limit=1)] == expected[:1]
            assert [hit.word for hit in query.iter_anagram(d, rack)] == expected
            assert query.anagram_words(d, rack) == tuple(expected)
        index = conditions._index(d)
        assert len(index.answers) <= kept and len(index.racks) <= kept
        d.close()


def test_a_hit_is_immutable(tmp_path: Path) -> None:
    import copy
    import pickle

    path = tmp_path / "words.dafsa"
    write_dictionary(["ACT", "CAT"], path, "native", {"policy": Policy.FOLD})
    d = open_path(path)
    for _ in range(3):  # walked, built, read: the same hits every time after
        first = query.anagram(d, "TAC")[0]
    assert first is query.anagram(d, "tac")[0]  # made once, handed to every call
    with pytest.raises(AttributeError, match="immutable"):
        first.word = "DOG"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del first.word
    assert first.word == "ACT" and copy.copy(first) == first and pickle.loads(pickle.dumps(first)) == first
