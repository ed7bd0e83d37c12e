"""The solver: both kernels against brute force, the published ENABLE2K boards, and `find`."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.board.scoring import BIG, CLASSIC, LETTERS, Scoring
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.solver import Hit, find, solve, sort_key, totals
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.dictionaries import dictionary_from_words


class SetDictionary:
    """The cursor interface over a Python set: a state is the prefix itself (an oracle)."""

    format_name = "set"
    policy = Policy.FOLD

    def __init__(self, words: Iterable[str]) -> None:
        self.words = {key for word in words if (key := normalize(word))}
        self.prefixes = {word[:i] for word in self.words for i in range(len(word) + 1)}

    @property
    def root(self) -> str:
        return ""

    def step(self, state: str, letters: str) -> str | None:
        following = state + letters
        return following if following in self.prefixes else None

    def is_word(self, state: str) -> bool:
        return state in self.words

    def normalize(self, text: str) -> str | None:
        return normalize(text)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.words))


def traceable(grid: Grid, word: str, adjacency: str = "king") -> bool:
    """Brute force, independent of the solver: can ``word`` be spelled by a path on ``grid``?"""
    table = neighbours(grid.shape, adjacency)

    def extend(cell: int, rest: str, used: frozenset[int]) -> bool:
        if not rest:
            return True
        return any(
            other not in used
            and rest.startswith(grid.faces[other])
            and extend(other, rest[len(grid.faces[other]) :], used | {other})
            for other in table[cell]
        )

    return any(
        word.startswith(face) and extend(cell, word[len(face) :], frozenset({cell})) for cell, face in enumerate(grid.faces)
    )


def assert_valid(grid: Grid, hit: Hit, adjacency: str = "king") -> None:
    """The path spells the word, through adjacent cells, each once."""
    table = neighbours(grid.shape, adjacency)
    assert "".join(grid.faces[cell] for cell in hit.path) == hit.word
    assert len(set(hit.path)) == len(hit.path)
    assert all(b in table[a] for a, b in zip(hit.path, hit.path[1:]))


# -- the checks of the issue --------------------------------------------------------------


@pytest.fixture(scope="module")
def french() -> NativeDictionary:
    return open_dictionary("fr")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def enable2k() -> NativeDictionary:
    """ENABLE2K, the embedded copy: the published boards are checked on every run."""
    return open_dictionary("enable2k")  # type: ignore[return-value]


@pytest.mark.slow
def test_the_enable2k_list_built_as_words_gives_the_embedded_dictionary(
    tmp_path: Path, enable2k_path: Path, enable2k: NativeDictionary
) -> None:
    # The published list (lower case), built by the builder from its words, is the embedded
    # dictionary the cache compiled: the same words and the same best board.
    words = enable2k_path.read_text(encoding="utf-8").split()
    built = dictionary_from_words(words, tmp_path)
    assert len(built) == len(enable2k) == 173_528
    grid = Grid.parse("perslatgsineters")
    assert solve(grid, built) == solve(grid, enable2k)


def test_unite_and_vert_on_the_french_grid(french: NativeDictionary) -> None:
    grid = Grid.parse("IDXT/MHEI/ERVN/TLLU", normalize=french.normalize)
    hits = {hit.word: hit for hit in solve(grid, french)}
    assert hits["UNITE"].coordinates(grid) == ((3, 3), (2, 3), (1, 3), (0, 3), (1, 2))
    assert hits["VERT"].coordinates(grid) == ((2, 2), (1, 2), (2, 1), (3, 0))
    for hit in hits.values():
        assert_valid(grid, hit)
        assert hit.word in french
    for word in ("UNITE", "VERT"):
        path = find(grid, word)
        assert path is not None
        assert_valid(grid, Hit(word, 0, path))


@pytest.mark.parametrize(
    ("text", "words", "points"),
    [
        ("perslatgsineters", 1045, 3625),
        ("streaedlp", None, 545),
        ("pers/late/sind", None, 1651),
        ("ligdrmanesietildsracsepes", None, 10406),
    ],
)
def test_published_enable2k_boards(enable2k: NativeDictionary, text: str, words: int | None, points: int) -> None:
    hits = solve(Grid.parse(text), enable2k)
    count, total = totals(hits)
    assert total == points
    if words is not None:
        assert count == words


# -- properties against brute force -------------------------------------------------------

ALPHABET = "ABES"
SHAPES = [(1, 1), (1, 2), (1, 5), (4, 1), (2, 2), (2, 3), (3, 3), (4, 4), (2, 2, 2), (1, 3, 2), (2, 2, 3)]
words_strategy = st.lists(st.text(ALPHABET, min_size=1, max_size=7), min_size=1, max_size=60)


@st.composite
def boards(draw: st.DrawFn, multi_letter: bool = False) -> Grid:
    shape = draw(st.sampled_from(SHAPES))
    faces = st.sampled_from(list(ALPHABET) + (["QU", "EA", "X"] if multi_letter else ["X"]))
    return Grid(shape, tuple(draw(st.lists(faces, min_size=math.prod(shape), max_size=math.prod(shape)))))


def check_against_brute_force(
    grid: Grid, words: list[str], dictionary: object, min_length: int, scoring: Scoring, adjacency: str
) -> list[Hit]:
    hits = solve(grid, dictionary, min_length=min_length, scoring=scoring, adjacency=adjacency)  # type: ignore[arg-type]
    expected = {w for w in {normalize(w) for w in words} if w and len(w) >= min_length and traceable(grid, w, adjacency)}
    assert {hit.word for hit in hits} == expected
    assert len(hits) == len(expected)
    for hit in hits:
        assert_valid(grid, hit, adjacency)
        assert hit.points == scoring.score(hit.word)
    assert hits == sorted(hits, key=sort_key)
    return hits


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    boards(multi_letter=True),
    words_strategy.map(lambda ws: ws + ["QUE", "SEA", "EAS", "QUEASE"]),
    st.integers(1, 4),
    st.sampled_from([CLASSIC, BIG, LETTERS]),
    st.sampled_from(["king", "orthogonal"]),
)
def test_both_kernels_find_exactly_the_traceable_words(
    tmp_path_factory: pytest.TempPathFactory,
    grid: Grid,
    words: list[str],
    min_length: int,
    scoring: Scoring,
    adjacency: str,
) -> None:
    native = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    fast = check_against_brute_force(grid, words, native, min_length, scoring, adjacency)
    generic = check_against_brute_force(grid, words, SetDictionary(words), min_length, scoring, adjacency)
    assert [(h.word, h.points) for h in fast] == [(h.word, h.points) for h in generic]
    if all(len(face) == 1 for face in grid.faces):
        # Single-letter faces: both report the path that is smallest cell by cell.
        assert fast == generic


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(boards(), st.data())
def test_every_word_traced_on_a_grid_is_found(tmp_path_factory: pytest.TempPathFactory, grid: Grid, data: st.DataObject) -> None:
    # Words read along random paths of the grid itself: all must be found, with find too.
    table = neighbours(grid.shape)
    words = []
    for _ in range(5):
        path = [data.draw(st.integers(0, len(grid) - 1))]
        for _ in range(data.draw(st.integers(0, 6))):
            free = [cell for cell in table[path[-1]] if cell not in path]
            if not free:
                break
            path.append(data.draw(st.sampled_from(free)))
        words.append("".join(grid.faces[cell] for cell in path))
    native = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    found = {hit.word for hit in solve(grid, native, min_length=1)}
    assert set(words) <= found
    for word in words:
        path = find(grid, word)
        assert path is not None
        assert_valid(grid, Hit(word, 0, path))


@settings(max_examples=40, deadline=None)
@given(boards(multi_letter=True), st.text(ALPHABET + "QUX", min_size=1, max_size=8), st.sampled_from(["king", "orthogonal"]))
def test_find_agrees_with_brute_force(grid: Grid, word: str, adjacency: str) -> None:
    path = find(grid, word, adjacency=adjacency)
    assert (path is not None) == traceable(grid, word, adjacency)
    if path is not None:
        assert_valid(grid, Hit(word, 0, path), adjacency)


@pytest.mark.slow
def test_the_other_formats_plug_in(tmp_path: Path, french: NativeDictionary) -> None:
    from boggle_dafsa.formats import open_path, write_dictionary

    words = [word for word in french.complete("") if len(word) <= 6][:20000]
    native = dictionary_from_words(words, tmp_path)
    grid = Grid.parse("IDXT/MHEI/ERVN/TLLU")
    expected = solve(grid, native)
    assert expected
    for format in ("marisa", "dawg"):
        path = tmp_path / f"words.{format}"
        write_dictionary(words, path, format)
        assert [(hit.word, hit.points) for hit in solve(grid, open_path(path))] == [(h.word, h.points) for h in expected]


def test_the_layout_carries_the_final_flag_of_the_format(tmp_path: Path) -> None:
    from boggle_dafsa.automaton.reader import FINAL_FLAG

    for version in (1, 2):
        dictionary = dictionary_from_words(["ab", "abc"], tmp_path, version=version, name=f"v{version}.dafsa")
        layout = dictionary.layout()  # version 2: the cells expanded from the compact edges
        assert layout is not None and layout.final_flag == FINAL_FLAG
        for prefix in ("a", "ab", "abc"):
            state = dictionary.step(dictionary.root, prefix.upper())
            cell = layout.step(layout.root, prefix.upper())
            assert state is not None and cell is not None
            assert bool(layout.cells[cell] & layout.final_flag) == dictionary.is_word(state)


# -- corners ------------------------------------------------------------------------------


def test_a_one_cell_grid_and_min_length(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["a", "qu", "b"], tmp_path)
    assert [hit.word for hit in solve(Grid.parse("A"), dictionary, min_length=1)] == ["A"]
    assert solve(Grid.parse("A"), dictionary) == []
    # A QU face is two letters: it meets a minimum of 2 on its own.
    assert [hit.word for hit in solve(Grid((1, 1), ("QU",)), dictionary, min_length=2)] == ["QU"]
    assert [hit.word for hit in solve(Grid((1, 1), ("QU",)), dictionary, min_length=3)] == []


def test_letters_outside_the_alphabet_form_no_word(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["tas", "sat", "ta"], tmp_path)
    grid = Grid.parse("TAΩ/ÇSZ")
    assert [hit.word for hit in solve(grid, dictionary)] == ["SAT", "TAS"]
    assert [hit.word for hit in solve(grid, SetDictionary(["tas", "sat", "ta"]))] == ["SAT", "TAS"]


def test_results_are_sorted_by_score_then_length_then_alphabet(tmp_path: Path) -> None:
    # On a 2x2 grid every cell touches every other: any arrangement of ABCD is traced.
    dictionary = dictionary_from_words(["dab", "cab", "abcd", "bac", "dcba", "abc", "ab"], tmp_path)
    grid = Grid.parse("AB/CD")
    hits = solve(grid, dictionary)
    assert [(hit.word, hit.points) for hit in hits] == [("ABCD", 1), ("DCBA", 1), ("ABC", 1), ("BAC", 1), ("CAB", 1), ("DAB", 1)]
    assert [(hit.word, hit.points) for hit in solve(grid, dictionary, scoring=LETTERS, min_length=2)][:3] == [
        ("ABCD", 4),
        ("DCBA", 4),
        ("ABC", 3),
    ]
    # A table whose points fall with length still sorts by score first.
    odd = Scoring("odd", 3, (0, 0, 0, 5, 1), "shorter is better")
    assert [hit.word for hit in solve(grid, dictionary, scoring=odd)] == ["ABC", "BAC", "CAB", "DAB", "ABCD", "DCBA"]


def test_words_appear_once_even_when_traced_many_ways(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["aaa"], tmp_path)
    hits = solve(Grid.parse("AAA/AAA/AAA"), dictionary)
    assert [(hit.word, hit.path) for hit in hits] == [("AAA", (0, 1, 2))]


def test_a_word_longer_than_the_recursion_limit(tmp_path: Path) -> None:
    rng = random.Random(3)
    word = "".join(rng.choice("ABCDEFGH") for _ in range(1200))
    dictionary = dictionary_from_words([word, word[:5]], tmp_path)
    grid = Grid.parse(word + "/")
    assert [hit.word for hit in solve(grid, dictionary)] == [word, word[:5]]


# -- find ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_find_a_5000_letter_word_on_a_100x100_snake() -> None:
    rng = random.Random(7)
    size = 100
    faces = [rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(size * size)]
    snake = [row * size + (col if row % 2 == 0 else size - 1 - col) for row in range(50) for col in range(size)]
    word = "".join(faces[cell] for cell in snake)
    grid = Grid((size, size), tuple(faces))
    path = find(grid, word)
    assert path is not None and len(path) == 5000
    assert_valid(grid, Hit(word, 0, path))
    # The whole grid filled with one letter: a path of 9,999 cells exists and is found.
    uniform = Grid((size, size), ("A",) * (size * size))
    long_path = find(uniform, "A" * 9999)
    assert long_path is not None and len(set(long_path)) == 9999


def test_find_says_no() -> None:
    grid = Grid.parse("ABC/DEF")
    assert find(grid, "ABCF") == (0, 1, 2, 5)
    assert find(grid, "ABCA") is None  # a cell is used once
    assert find(grid, "AF") is None
    assert find(grid, "ABCDEFA") is None
    assert find(grid, "") is None
    assert find(grid, "AE", adjacency="orthogonal") is None
    assert find(grid, "AE") == (0, 4)


class CountingTable(tuple):  # type: ignore[type-arg]
    """A neighbour table that counts its lookups: the work `find` does, without a clock."""

    lookups = 0

    def __getitem__(self, cell):  # type: ignore[no-untyped-def, override]
        CountingTable.lookups += 1
        return super().__getitem__(cell)


@pytest.fixture
def counted_lookups(monkeypatch: pytest.MonkeyPatch) -> type[CountingTable]:
    from boggle_dafsa.solver import trace

    CountingTable.lookups = 0
    monkeypatch.setattr(trace, "neighbours", lambda shape, adjacency="king": CountingTable(neighbours(shape, adjacency)))
    return CountingTable


def test_find_refuses_without_searching_when_the_letters_are_missing(counted_lookups: type[CountingTable]) -> None:
    # A 5x5 grid of A and a word ending in B: once a search over every path of A's.
    assert find(Grid.parse("AAAAA/AAAAA/AAAAA/AAAAA/AAAAA"), "A" * 20 + "B") is None
    assert find(Grid.parse("AAA/AAA"), "AAAAB") is None
    assert find(Grid.parse("AAA/AAA"), "A" * 7) is None  # more A than the grid holds
    assert find(Grid.parse("QU A/A E"), "QUEUE") is None  # two U, one on the grid
    assert counted_lookups.lookups == 0


def test_find_refuses_letters_that_never_follow_each_other(counted_lookups: type[CountingTable]) -> None:
    # The two Bs are in opposite corners: BB follows nowhere, whatever the As do.
    grid = Grid.parse("BAAA/AAAA/AAAA/AAAB")
    assert find(grid, "A" * 14 + "BB") is None
    assert counted_lookups.lookups <= len(grid)  # the pairs are listed, nothing is searched
    # A letter ends a face and begins the next: the pair UE spans QU and E.
    assert find(Grid.parse("QU E/X X"), "QUE") == (0, 1)


def test_find_starts_from_the_rarer_end(counted_lookups: type[CountingTable]) -> None:
    # 10 As and a B in two far corners: from an A, every path of As is tried before the Bs
    # fail; from a B (the rarer end, the word reversed), the second B is out of reach at once.
    grid = Grid.parse("BAAA/AAAA/AAAB")
    assert find(grid, "A" * 9 + "BAB") is None
    assert counted_lookups.lookups < 100
    path = find(grid, "A" * 10 + "B")
    assert path is not None and path[-1] in (0, 11)
    assert_valid(grid, Hit("A" * 10 + "B", 0, path))
    # Multi-letter faces are reversed with the word.
    faces = Grid.parse("A A/A QU")
    assert find(faces, "AQU") == (0, 3)
    assert find(faces, "AUQ") is None


@st.composite
def mostly_a(draw: st.DrawFn) -> Grid:
    shape = draw(st.sampled_from([(2, 3), (3, 3), (2, 2, 2), (1, 5)]))
    faces = st.sampled_from(["A", "A", "A", "B", "QU"])
    return Grid(shape, tuple(draw(st.lists(faces, min_size=math.prod(shape), max_size=math.prod(shape)))))


@settings(max_examples=100, deadline=None)
@given(mostly_a(), st.lists(st.sampled_from(["A", "A", "B", "QU", "U"]), min_size=1, max_size=7).map("".join))
@pytest.mark.slow
def test_find_agrees_with_brute_force_when_one_end_is_rare(grid: Grid, word: str) -> None:
    # Grids of mostly A: the ends of a word are often unequally common, so both directions run.
    path = find(grid, word)
    assert (path is not None) == traceable(grid, word)
    if path is not None:
        assert_valid(grid, Hit(word, 0, path))
