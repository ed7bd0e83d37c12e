"""``query.search(d, **conditions)`` and ``boggle-dafsa search`` against a scan of the list.

Every condition, alone and in random combinations of up to four, must give what the
obvious scan of the word list gives (``re`` for patterns and regexes, ``Counter`` for
letters, set membership for hooks and prefixes, a sort of the whole list for probability
ranks), on small random lists and on samples of the embedded ENABLE2K and French lists,
with every kernel of the native walk; probability counts must equal a count of the draws
from a small bag, tile by tile.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections import Counter
from itertools import combinations
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import open_dictionary, query
from boggle_dafsa.errors import QueryError
from boggle_dafsa.formats import FORMATS, write_dictionary
from boggle_dafsa.query import conditions
from boggle_dafsa.query.tiles import BAGS, TileBag, bag_for
from helpers import strategies
from helpers.dictionaries import dictionary_from_words, every_format
from helpers.kernels import WALK, forced

# -- the oracle: each condition as a scan of the list -----------------------------------------

VOWELS = set("AEIOUY")
REGEX_OF_TOKEN = {"?": ".", "*": ".*", "@": "[AEIOUY]", "#": "[^AEIOUY]", "[!CE]": "[^CE]"}


def within(number: int, bounds: tuple[int, int | None]) -> bool:
    return number >= bounds[0] and (bounds[1] is None or number <= bounds[1])


def fits_rack(word: str, rack: str, sub: bool) -> bool:
    missing = sum((Counter(word) - Counter(rack.replace("?", ""))).values())
    return missing <= rack.count("?") and (sub or len(word) == len(rack))


def brute_ranks(words: list[str], bag: TileBag, blanks: int) -> dict[str, int]:
    """Each word's rank among the words of its length: by draws (most first), alphagram, word."""
    ranks = {}
    for length in {len(word) for word in words}:
        same = [word for word in words if len(word) == length]
        same.sort(key=lambda word: (-bag.combinations(word, blanks), "".join(sorted(word)), word))
        ranks.update({word: rank for rank, word in enumerate(same, 1)})
    return ranks


def scan(words: list[str], cond: dict[str, Any], other: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    """The words of ``words`` meeting every condition of ``cond``, by brute force."""
    vocabulary = set(words)
    bag = BAGS["en"] if "tiles" not in cond else cond["tiles"]
    blanks = cond.get("probability_blanks", 2)
    alphagrams = Counter("".join(sorted(word)) for word in words)
    ranks = brute_ranks(words, bag, blanks) if "probability" in cond else {}
    letters = {letter for word in words for letter in word}

    def ok(word: str) -> bool:
        for name, value in cond.items():
            if name == "pattern":
                tokens = re.findall(r"\[[^\]]*\]|.", value)
                if not re.fullmatch("".join(REGEX_OF_TOKEN.get(t, t) for t in tokens), word):
                    return False
            elif name == "regex" and not re.fullmatch(value, word):
                return False
            elif name == "anagram" and not fits_rack(word, value, False):
                return False
            elif name == "subanagram" and not fits_rack(word, value, True):
                return False
            elif name == "length" and not within(len(word), value):
                return False
            elif name == "vowels" and not within(sum(letter in VOWELS for letter in word), value):
                return False
            elif name == "distinct" and not within(len(set(word)), value):
                return False
            elif name == "points" and not within(sum(bag.values.get(letter, 0) for letter in word), value):
                return False
            elif name == "includes" and Counter(value) - Counter(word):
                return False
            elif name == "excludes" and any(word.count(letter) >= times for letter, times in Counter(value).items()):
                return False
            elif name == "takes_prefix" and value + word not in vocabulary:
                return False
            elif name == "takes_suffix" and word + value not in vocabulary:
                return False
            elif name == "not_takes_prefix" and value + word in vocabulary:
                return False
            elif name == "not_takes_suffix" and word + value in vocabulary:
                return False
            elif name == "hooks":
                if value == "front" and not any(letter + word in vocabulary for letter in letters):
                    return False
                if value == "back" and not any(word + letter in vocabulary for letter in letters):
                    return False
                if value == "inner" and not (len(word) > 1 and (word[1:] in vocabulary or word[:-1] in vocabulary)):
                    return False
            elif name == "anagrams" and not within(alphagrams["".join(sorted(word))], value):
                return False
            elif name == "probability" and not within(ranks[word], value):
                return False
            elif name == "in" and word not in other:
                return False
            elif name == "not_in" and word in other:
                return False
        return True

    return [word for word in words if ok(word)]


# -- the conditions drawn at random -------------------------------------------------------------


def ranges(top: int) -> st.SearchStrategy[tuple[int, int | None]]:
    return st.tuples(st.integers(0, top), st.one_of(st.none(), st.integers(0, top))).map(
        lambda pair: (pair[0], None if pair[1] is None else max(pair[0], pair[1]))
    )


def condition_strategies(letters: str, words: list[str]) -> dict[str, st.SearchStrategy[Any]]:
    tokens = st.sampled_from([*letters[:4], "?", "*", "@", "#", f"[{letters[:2]}]", f"[^{letters[:2]}]"])
    some = st.text(letters, min_size=1, max_size=3)
    common = [word[:2] for word in words[:50]] or ["A"]
    return {
        "pattern": st.lists(tokens, min_size=1, max_size=5).map("".join),
        "regex": st.sampled_from(
            [f"{letters[0]}.*", f"({letters[0]}|{letters[1]})+.?", f".*[^{letters[2]}]", ".{2,4}", f"{letters[1]}*{letters[3]}.*"]
        ),
        "anagram": st.text(letters + "?", min_size=1, max_size=6),
        "subanagram": st.text(letters + "?", min_size=1, max_size=7),
        "length": ranges(8),
        "vowels": ranges(4),
        "distinct": ranges(6),
        "points": ranges(16),
        "includes": some,
        "excludes": some,
        "takes_prefix": st.one_of(some, st.sampled_from(common)),
        "takes_suffix": some,
        "not_takes_prefix": some,
        "not_takes_suffix": some,
        "hooks": st.sampled_from(["front", "back", "inner"]),
        "anagrams": ranges(3),
        "probability": ranges(40),
        "in": st.just(True),
        "not_in": st.just(True),
    }


def conditions_of(letters: str, words: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    strategies = condition_strategies(letters, words)
    names = st.lists(st.sampled_from(sorted(strategies)), min_size=1, max_size=4, unique=True)
    return names.flatmap(lambda chosen: st.fixed_dictionaries({name: strategies[name] for name in chosen}))


def run_search(d: Any, cond: dict[str, Any], other_d: Any) -> list[str]:
    keywords = dict(cond)
    for name in ("in", "not_in"):
        if name in keywords:
            keywords[name] = other_d
    return list(query.search(d, **keywords))


def check(d: Any, words: list[str], cond: dict[str, Any], other: list[str], other_d: Any) -> None:
    expected = scan(words, cond, other)
    for name in WALK:
        with forced(name):
            assert run_search(d, cond, other_d) == expected, (name, cond)


# -- small random lists ---------------------------------------------------------------------------

LETTERS = "ABCDE"
word_lists = strategies.word_lists(LETTERS)


@pytest.mark.slow
@given(st.data(), word_lists, word_lists)
@settings(max_examples=80)
def test_every_condition_alone_and_combined_is_a_scan_of_the_list(
    data: st.DataObject, words: list[str], extra: list[str]
) -> None:
    cond = data.draw(conditions_of(LETTERS, words))
    other = sorted(set(words[::2]) | set(extra))
    with tempfile.TemporaryDirectory() as folder:
        d = dictionary_from_words(words, folder)
        other_d = dictionary_from_words(other, folder, name="other.dafsa")
        try:
            check(d, words, cond, other, other_d)
        finally:
            d.close()
            other_d.close()


CONDITIONS = sorted(condition_strategies(LETTERS, []))

#: Keyword-only parameters of `search_words` that are not conditions: they name dictionaries
#: (`in_`, `not_in`, which the command and the route open first) or say how to count and order.
NOT_CONDITIONS = {"in_", "not_in", "tiles", "probability_blanks", "sort", "expected"}


def test_the_one_list_of_conditions_is_the_signature_of_search() -> None:
    # SEARCH_CONDITIONS is what the command and /api/search read: a keyword that search_words
    # takes and the list lacks (or the reverse) fails here, not in one of its two users.
    import inspect

    from boggle_dafsa.cli.study import search as command

    assert inspect.signature(query.search).parameters["conditions"].kind is inspect.Parameter.VAR_KEYWORD
    keywords = [
        name
        for name, parameter in inspect.signature(conditions.search_words).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert [name for name in keywords if name not in NOT_CONDITIONS] == list(conditions.SEARCH_CONDITIONS)
    assert query.SEARCH_CONDITIONS is conditions.SEARCH_CONDITIONS
    flags = [name for name in inspect.signature(command).parameters if name in conditions.SEARCH_CONDITIONS]
    assert flags == list(conditions.SEARCH_CONDITIONS)  # every one a flag, in the list's order
    assert set(conditions.SEARCH_CONDITIONS) < set(CONDITIONS)  # and every one against the oracle


@pytest.mark.slow
@pytest.mark.parametrize("name", CONDITIONS)
@given(data=st.data(), words=word_lists, extra=word_lists)
@settings(max_examples=12)
def test_each_condition_alone_is_a_scan_of_the_list(name: str, data: st.DataObject, words: list[str], extra: list[str]) -> None:
    cond = {name: data.draw(condition_strategies(LETTERS, words)[name])}
    other = sorted(set(words[1::2]) | set(extra))
    with tempfile.TemporaryDirectory() as folder:
        d = dictionary_from_words(words, folder)
        other_d = dictionary_from_words(other, folder, name="other.dafsa")
        try:
            check(d, words, cond, other, other_d)
        finally:
            d.close()
            other_d.close()


@pytest.mark.slow
@given(st.data(), word_lists)
@settings(max_examples=30)
def test_every_format_gives_the_same_words(data: st.DataObject, words: list[str]) -> None:
    cond = data.draw(conditions_of(LETTERS, words))
    cond.pop("in", None), cond.pop("not_in", None)
    expected = scan(words, cond)
    with every_format(words) as dictionaries:
        for name, d in zip(FORMATS, dictionaries):
            assert list(query.search(d, **cond)) == expected, name


# -- samples of the embedded lists --------------------------------------------------------------


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, list[str], Any, list[str]]]:
    """3,000 words of ENABLE2K and of the French list (seeded), each with another sample."""
    folder = tmp_path_factory.mktemp("samples")
    found = {}
    for name in ("enable2k", "fr"):
        everything = list(open_dictionary(name))
        rng = random.Random(34)
        words = sorted(rng.sample(everything, 3000))
        other = sorted(set(rng.sample(everything, 3000)) | set(words[::3]))
        found[name] = (
            dictionary_from_words(words, folder, name=f"{name}.dafsa"),
            words,
            dictionary_from_words(other, folder, name=f"{name}-other.dafsa"),
            other,
        )
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name", ["enable2k", "fr"])
@given(data=st.data())
@settings(max_examples=25)
def test_conditions_on_samples_of_the_embedded_lists(samples: dict[str, Any], name: str, data: st.DataObject) -> None:
    d, words, other_d, other = samples[name]
    cond = data.draw(conditions_of("ESAIRNT", words))
    if "points" in cond or "probability" in cond:
        cond["tiles"] = BAGS["fr" if name == "fr" else "en"]
    cond_scan = dict(cond)
    check(d, words, cond_scan, set(other), other_d)  # type: ignore[arg-type]


@pytest.mark.slow
def test_blank_heavy_racks_on_a_sample(samples: dict[str, Any]) -> None:
    d, words, _, _ = samples["enable2k"]
    for rack in ["??", "???S", "E???", "AEINST??", "Q???"]:
        for sub in (False, True):
            name = "subanagram" if sub else "anagram"
            for extra in ({}, {"length": (3, 5)}, {"points": (0, 8)}, {"vowels": (0, 1)}):
                cond = {name: rack, **extra}
                check(d, words, cond, [], None)


# -- probability: counted draws -------------------------------------------------------------------


def brute_draws(bag: TileBag, word: str, blanks: int) -> int:
    """The sets of len(word) tiles of the bag, tile by tile, that spell ``word`` with at most ``blanks`` blanks."""
    tiles = [letter for letter, count in sorted(bag.counts.items()) for _ in range(count)] + ["?"] * bag.blanks
    need = Counter(word)
    found = 0
    for drawn in combinations(range(len(tiles)), len(word)):
        letters = Counter(tiles[i] for i in drawn)
        used = letters.pop("?", 0)
        if used <= blanks and not letters - need and sum((need - letters).values()) == used:
            found += 1
    return found


small_bags = st.builds(
    lambda counts, blanks: TileBag(
        "small", {letter: n for letter, n in zip("ABCD", counts) if n}, dict.fromkeys("ABCD", 1), blanks
    ),
    st.lists(st.integers(0, 3), min_size=4, max_size=4),
    st.integers(0, 3),
)


@pytest.mark.slow
@given(small_bags, st.text("ABCDE", min_size=1, max_size=4), st.integers(0, 2))
@settings(max_examples=150)
def test_probability_is_a_count_of_draws_from_the_bag(bag: TileBag, word: str, blanks: int) -> None:
    assert bag.combinations(word, blanks) == brute_draws(bag, word, blanks)


@pytest.mark.slow
def test_probability_ranks_of_enable2k() -> None:
    # The seven-letter words, most probable first: ADEINOR (4 Ds and 4 Ls in the English bag:
    # a tie with AEILNOR, broken by alphagram), then AEILNOR's two anagrams in byte order.
    d = open_dictionary("enable2k")
    top = list(query.search(d, length=(7, 7), probability=(1, 3), sort="probability", tiles="en"))
    assert top == ["ANEROID", "AILERON", "ALIENOR"]
    ranks = conditions.probability_ranks(d, BAGS["en"], 2, 7)
    assert sorted(ranks.values()) == list(range(1, len(ranks) + 1))
    assert BAGS["en"].combinations("ADEINOR") == BAGS["en"].combinations("AEILNOR")


def test_the_embedded_bags() -> None:
    assert sum(BAGS["en"].counts.values()) + BAGS["en"].blanks == 100
    assert sum(BAGS["fr"].counts.values()) + BAGS["fr"].blanks == 102
    assert BAGS["en"].points("QUIZ") == 22 and BAGS["fr"].points("KIWI") == 22
    # The default bag goes by the file the embedded list is compiled into (fr-DIGEST.dafsa).
    for path, bag in [("cache/fr-1221b27914e9.dafsa", "fr"), ("cache/enable2k-d5ec7b3b.dafsa", "en"), ("mots.dafsa", "en")]:
        assert bag_for(None, SimpleNamespace(path=path)) is BAGS[bag]


def test_a_table_file_is_a_bag(tmp_path: Path) -> None:
    table = tmp_path / "bag.txt"
    table.write_text("# a tiny bag\nA 2 1\nB 1 5\n? 1\n", "utf-8")
    bag = bag_for(str(table))
    assert bag.counts == {"A": 2, "B": 1} and bag.blanks == 1 and bag.points("ABBA") == 12
    table.write_text("A two 1\n", "utf-8")
    with pytest.raises(QueryError, match="line 1"):
        bag_for(str(table))


# -- the library's contract -----------------------------------------------------------------------

WORDS = ["ARE", "AREA", "ARES", "BARE", "CARE", "CARES", "EAR", "EARS", "ERA", "ERAS", "RACE", "RACES", "SCARE", "SEAR"]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("small"))


def test_keywords_and_bounds(small: Any) -> None:
    assert list(query.search(small, takes_suffix="S", length=(3, 3))) == ["ARE", "EAR", "ERA"]
    assert list(query.search(small, hooks="front", length=3)) == ["ARE", "EAR"]
    assert list(query.search(small, anagrams=(3, None), length=(4, 4))) == ["ARES", "EARS", "ERAS", "SEAR"]
    assert list(query.search(small, **{"in": small}, pattern="C*")) == ["CARE", "CARES"]
    assert list(query.search(small, pattern="*S", sort="length", limit=3)) == ["ARES", "EARS", "ERAS"]
    assert list(query.search(small, pattern="*E", sort="points")) == ["SCARE", "BARE", "CARE", "RACE", "ARE"]
    # With an automaton of one's own, as before.
    assert list(query.search(small, query.Pattern([None]), limit=2)) == ["ARE", "AREA"]


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"length": (5, 3)}, "minimum is above the maximum"),
        ({"length": "x-3"}, "bad length range"),
        ({"vowels": (-1, 2)}, "whole numbers"),
        ({"hooks": "middle"}, "front, back or inner"),
        ({"sort": "size"}, "bad sort"),
        ({"includes": "1"}, "not letters"),
        ({"anagram": "A" * 65}, "rack too long"),
        ({"pattern": "[A"}, "pattern"),
        ({"probability_blanks": 3}, "blanks"),
        ({"tiles": "klingon"}, "unknown tiles"),
    ],
)
def test_bad_conditions_raise_before_the_first_word(small: Any, keywords: dict[str, Any], message: str) -> None:
    with pytest.raises(QueryError, match=message):
        query.search(small, **keywords)


def test_an_unknown_keyword_is_a_type_error(small: Any) -> None:
    with pytest.raises(TypeError, match="suffix"):
        query.search(small, suffix="S")


# -- the command -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("cli") / "words.dafsa"
    write_dictionary(WORDS, path, "native")
    return str(path)


@pytest.mark.slow
def test_the_command(small_file: str, tmp_path: Path) -> None:
    result = run_cli("search", "-d", small_file, "--takes-suffix", "S", "--length", "3-3")
    assert (result.returncode, result.stdout, result.stderr) == (0, "ARE\nEAR\nERA\n", "")
    result = run_cli("search", "-d", small_file, "--pattern", "*S", "--count")
    assert result.stdout == "5\n"
    result = run_cli("search", "-d", small_file, "--anagram", "AER", "--json")
    assert json.loads(result.stdout) == {"words": [{"word": "ARE"}, {"word": "EAR"}, {"word": "ERA"}]}
    result = run_cli("search", "-d", small_file, "--subanagram", "SCARE", "--sort", "length", "--limit", "2", "--hooks", "back")
    assert result.stdout == "ARE\nEAR\n"
    result = run_cli("search", "-d", small_file, "--in", small_file, "--not-in", small_file)
    assert (result.returncode, result.stdout) == (1, "")
    result = run_cli(
        "search", "-d", small_file, "--length", "3", "--points", "3-", "--vowels", "-2", "--distinct", "3", "--excludes", "S"
    )
    assert result.stdout == "ARE\nEAR\nERA\n"
    result = run_cli(
        "search", "-d", small_file, "--probability", "1-1", "--length", "4", "--anagrams", "1-4", "--not-takes-prefix", "B"
    )
    assert result.returncode == 0 and len(result.stdout.split()) == 1
    result = run_cli("search", "-d", small_file, "--takes-prefix", "S", "--not-takes-suffix", "D", "--includes", "AC")
    assert result.stdout == "CARE\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["--length", "9-3"],
        ["--hooks", "middle"],
        ["--sort", "size"],
        ["--regex", "CH(A"],
        ["--points", "many"],
        ["--in", "no-such-file"],
    ],
)
def test_the_command_refuses_bad_input_in_one_line(small_file: str, args: list[str]) -> None:
    result = run_cli("search", "-d", small_file, *args)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr


def test_probability_counts_draws_on_a_few_cases() -> None:
    # The fast subset's share of the property above.
    bag = TileBag("tiny", {"A": 3, "B": 1, "C": 2}, dict.fromkeys("ABC", 1), 2)
    for word, blanks in [("AB", 0), ("AAB", 1), ("BB", 2), ("ABCD", 2), ("CCC", 1)]:
        assert bag.combinations(word, blanks) == brute_draws(bag, word, blanks), (word, blanks)


# -- the columns ---------------------------------------------------------------------------------


@pytest.mark.slow
@given(word_lists)
@settings(max_examples=25)
def test_columns_are_a_scan_of_the_list(words: list[str]) -> None:
    from boggle_dafsa.output.columns import WordColumns

    vocabulary = set(words)
    bag = BAGS["en"]
    ranks = brute_ranks(words, bag, 2)
    alphagrams = Counter("".join(sorted(word)) for word in words)
    with tempfile.TemporaryDirectory() as folder:
        d = dictionary_from_words(words, folder)
        try:
            shown = WordColumns(d, ("hooks", "probability", "anagrams", "points"), "en")
            for word in words:
                assert shown.fields(word) == {
                    "word": word,
                    "front_hooks": "".join(sorted({w[0] for w in vocabulary if w[1:] == word})),
                    "back_hooks": "".join(sorted({w[-1] for w in vocabulary if w[:-1] == word})),
                    "inner_hooks": [len(word) > 1 and word[1:] in vocabulary, len(word) > 1 and word[:-1] in vocabulary],
                    "probability": ranks[word],
                    "anagrams": alphagrams["".join(sorted(word))],
                    "points": bag.points(word),
                }
            # Strings that are not words (the words without their first letter, and with
            # another last one): their hooks and anagrams all the same; a line is its fields.
            others = {word[1:] for word in words if word[1:] not in vocabulary} | {word[:-1] + "Z" for word in words}
            unranked = WordColumns(d, ("hooks", "anagrams", "points"), "en")
            for other in sorted(others - vocabulary):
                fields = unranked.fields(other)
                assert fields["front_hooks"] == "".join(sorted({w[0] for w in vocabulary if w[1:] == other}))
                assert fields["back_hooks"] == "".join(sorted({w[-1] for w in vocabulary if w[:-1] == other}))
                assert fields["anagrams"] == alphagrams["".join(sorted(other))]
                front_inner, back_inner = fields["inner_hooks"]
                front = (fields["front_hooks"] or "-") + ("·" if front_inner else "")
                back = ("·" if back_inner else "") + (fields["back_hooks"] or "-")
                assert unranked.line(other) == f"{front}\t{back}\t{fields['anagrams']}\t{fields['points']}\t{other}"
        finally:
            d.close()


def test_column_lines(small: Any) -> None:
    from boggle_dafsa.output.columns import WordColumns, parse_columns

    shown = WordColumns(small, parse_columns("hooks,anagrams,points"), "en")
    assert shown.line("ARE") == "BC\tAS\t3\t3\tARE"
    assert shown.line("CARES") == "-·\t·-\t3\t7\tCARES"  # ARES and CARE: inner hooks; RACES, SCARE
    assert shown.line("ERA", "ErA") == "-\tS\t3\t3\tErA"
    with pytest.raises(QueryError, match="unknown column"):
        parse_columns("hooks,value")


@pytest.mark.slow
def test_columns_on_the_command_line(small_file: str) -> None:
    result = run_cli("search", "-d", small_file, "--length", "3", "--columns", "hooks,points")
    assert result.stdout == "BC\tAS\t3\tARE\nS\tS\t3\tEAR\n-\tS\t3\tERA\n"
    result = run_cli("search", "-d", small_file, "--anagram", "ERA", "--columns", "anagrams", "--json", "--limit", "1")
    assert json.loads(result.stdout) == {"words": [{"word": "ARE", "anagrams": 3}]}
    result = run_cli("match", "-d", small_file, "SC*", "--columns", "hooks,probability")
    assert result.stdout == "-·\t-\t3\tSCARE\n"  # CARES 1, RACES 2, SCARE 3: one alphagram
    result = run_cli("anagram", "-d", small_file, "RE?", "--columns", "points", "--json")
    assert json.loads(result.stdout)[0] == {"word": "ARE", "points": 3, "shown": "aRE", "blanks": [0]}
    result = run_cli("grep", "-d", small_file, "(B|C)ARE", "--columns", "anagrams,points")
    assert result.stdout == "1\t6\tBARE\n2\t6\tCARE\n"
    result = run_cli("fuzzy", "-d", small_file, "ERAS", "--columns", "hooks")
    assert result.stdout.splitlines()[0] == "0\t-\t·-\tERAS"
    result = run_cli("fuzzy", "-d", small_file, "ERAS", "--columns", "points", "--json", "--limit", "1")
    assert json.loads(result.stdout) == [{"distance": 0, "word": "ERAS", "points": 4}]
    result = run_cli("match", "-d", small_file, "SC*", "--columns", "value")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1


@pytest.mark.slow
def test_the_walks_time_budget_bounds_a_search_and_its_indexes() -> None:
    import time

    from boggle_dafsa.solver import time_limit

    for keywords in ({"length": (1, None), "vowels": (0, 30)}, {"anagrams": (2, None)}, {"probability": (1, 5)}):
        d = open_dictionary("enable2k")  # a fresh one: no index kept from another test
        with time_limit(0.0001):
            time.sleep(0.001)
            with pytest.raises(TimeoutError):
                list(query.search(d, **keywords))


def test_sorting_and_indexing_are_bounded_in_memory(small: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conditions, "MAX_SORTED", 3)
    with pytest.raises(QueryError, match="too many words to sort"):
        list(query.search(small, pattern="*S", sort="length"))
    assert list(query.search(small, pattern="*S", sort="length", length=(4, 4))) == ["ARES", "EARS", "ERAS"]


def test_an_index_of_too_many_words_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from itertools import product

    d = dictionary_from_words(["".join(letters) for letters in product("ABCDEFGHIJKLMNOPQRSTUVWXYZ", repeat=3)], tmp_path)
    monkeypatch.setattr(conditions, "MAX_INDEXED", 1000)  # looked at every 16,384 words
    with pytest.raises(QueryError, match="too many words of 3 letters to index"):
        list(query.search(d, anagrams=(2, None)))
    monkeypatch.setattr(conditions, "MAX_INDEXED", 20_000)
    assert len(list(query.search(d, anagrams=(6, 6)))) == 26 * 25 * 24
