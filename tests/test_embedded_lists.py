"""The embedded lists are fit for games: names, acronyms and jargon out, ordinary words in.

How they are made (and what was dropped, with counts) is in src/boggle_dafsa/data/README.md.
"""

from __future__ import annotations

import pytest
from conftest import run_cli

from boggle_dafsa.dictionaries.resolve import open_dictionary

# What players would dispute: names, acronyms, jargon, abbreviations, roman numerals.
NOT_ENGLISH = "yoda usda stdio demeter tudor ioctl bldg xiv xor nasa gmail".split()
# A sample of ordinary words of every kind (the most common English words, plurals, verb
# forms, comparatives), words that are also names (bill, rose, mark), and words SCOWL
# files only as abbreviations but word-game lists accept (stat, intro).
ENGLISH = (
    "tree quiet the and that was for are with his they this from have had word but what some "
    "can out other were all there when your how said each she which their time will way about "
    "many then them write would like these long make thing see him two has look more day could "
    "come did number sound people over know water than call first who may down side been find "
    "trees quieter quietest writing wrote written bill rose mark jack stat intro zoo quiz jazz"
).split()
NOT_FRENCH = "marseille bruxelles lyon europe".split()
# LONDRES is the cigar londrès (a common noun in wfrench and in French word-game lists).
FRENCH = "arbre élève arbres élèves être noël pierre seine londres œuvre garçon".split()


@pytest.mark.parametrize("word", NOT_ENGLISH)
def test_english_has_no_names_acronyms_or_jargon(word: str) -> None:
    assert word.upper() not in open_dictionary("en")


@pytest.mark.parametrize("word", ENGLISH)
def test_english_keeps_ordinary_words(word: str) -> None:
    assert word.upper() in open_dictionary("en")


@pytest.mark.parametrize("word", NOT_FRENCH)
def test_french_has_no_city_names(word: str) -> None:
    assert word.upper() not in open_dictionary("fr")


@pytest.mark.parametrize("word", FRENCH)
def test_french_keeps_ordinary_words(word: str) -> None:
    assert open_dictionary("fr").normalize(word) in open_dictionary("fr")


@pytest.mark.slow
def test_english_words_are_letters_only_and_unique() -> None:
    words = list(open_dictionary("en"))
    assert len(words) == len(set(words)) == 62_803
    assert all(word.isascii() and word.isalpha() and word.isupper() for word in words)


@pytest.mark.parametrize(
    ("name", "absent", "present"),
    [
        ("en", ["yoda", "usda", "stdio", "demeter"], ["tree", "quiet"]),
        ("fr", ["marseille", "bruxelles"], ["arbre", "élève"]),
    ],
)
def test_lookup_as_the_issue_runs_it(name: str, absent: list[str], present: list[str]) -> None:
    result = run_cli("lookup", *absent, *present, "-d", name)
    answers = dict(line.split("\t") for line in result.stdout.splitlines())
    assert list(answers.values()) == ["no"] * len(absent) + ["yes"] * len(present), result.stdout


#: Words of wamerican that players would dispute (issue 36): misspellings, odd derivations
#: and a trademark from SCOWL's large sizes; ENABLE2K, the second source, lacks them.
DISPUTED = ["analyticalally", "neglig", "interneship", "looneyies", "demagogry", "shuckses", "smurf"]


@pytest.mark.slow
def test_english_keeps_only_what_enable2k_agrees_with() -> None:
    result = run_cli("lookup", *DISPUTED, "a", "i", "zoo", "-d", "en")
    answers = dict(line.split("\t") for line in result.stdout.splitlines())
    assert list(answers.values()) == ["no"] * len(DISPUTED) + ["yes"] * 3, result.stdout
    english, players = open_dictionary("en"), open_dictionary("enable2k")
    assert {word for word in english if word not in players} == {"A", "I"}  # ENABLE2K has no one-letter word
