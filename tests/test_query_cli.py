"""The query commands as users run them: output shapes, exit codes, one-line errors, formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

from boggle_dafsa.formats import FORMATS, open_path, write_dictionary
from helpers.dictionaries import normalized_words

WORDS = normalized_words(["chat", "chats", "chien", "niche", "nicher", "zoo", "élève", "élèves", "tact", "scat", "cat"])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {}
    for name in FORMATS:
        paths[name] = tmp_path / f"words.{name}"
        write_dictionary(WORDS, paths[name], name)
    return paths


QUERIES = [
    ["match", "C*"],
    ["match", "*E#", "--min-length", "5"],
    ["match", "élè?e*"],
    ["anagram", "TAC?", "--sub"],
    ["anagram", "HACT"],
    ["fuzzy", "chiens", "-k", "2", "--transpositions"],
    ["fuzzy", "nich", "--prefix"],
    ["grep", "(CH|N)I.*"],
    ["range", "--start", "CHI", "--end", "ZOO"],
    ["prefixes", "nichers"],
    ["hooks", "cat"],
]


@pytest.mark.slow
@pytest.mark.parametrize("args", QUERIES, ids=lambda a: " ".join(a))
def test_every_query_gives_the_same_lines_on_every_format(files: dict[str, Path], args: list[str]) -> None:
    outputs = []
    for path in files.values():
        result = run_cli(*args, "-d", str(path))
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        outputs.append(result.stdout)
    assert outputs[0] and outputs.count(outputs[0]) == len(outputs)


@pytest.mark.slow
def test_outputs(files: dict[str, Path]) -> None:
    d = str(files["native"])
    assert run_cli("match", "C*", "-d", d).stdout.split() == ["CAT", "CHAT", "CHATS", "CHIEN"]
    assert run_cli("match", "élève", "-d", d).stdout == "ELEVE\n"
    assert run_cli("anagram", "TAC?", "--sub", "-d", d).stdout == "ChAT\nsCAT\nTACt\nCAT\n"
    assert run_cli("fuzzy", "chiens", "-d", d).stdout == "1\tCHIEN\n"
    assert run_cli("hooks", "cat", "-d", d).stdout == "front\tS\tSCAT\n"
    assert run_cli("prefixes", "nichers", "-d", d).stdout == "NICHE\nNICHER\n"
    assert run_cli("range", "-s", "T", "-d", d).stdout == "TACT\nZOO\n"


@pytest.mark.slow
def test_limit_count_and_json(files: dict[str, Path]) -> None:
    d = str(files["dawg"])
    assert run_cli("match", "*", "-d", d, "--limit", "2").stdout == "CAT\nCHAT\n"
    assert run_cli("match", "*", "-d", d, "--count").stdout == f"{len(WORDS)}\n"
    assert json.loads(run_cli("fuzzy", "chat", "-d", d, "--json").stdout) == [
        {"distance": 0, "word": "CHAT"},
        {"distance": 1, "word": "CAT"},
        {"distance": 1, "word": "CHATS"},
    ]
    assert json.loads(run_cli("anagram", "cat?", "-d", d, "--json").stdout)[0] == {"word": "CHAT", "shown": "ChAT", "blanks": [1]}
    assert json.loads(run_cli("hooks", "cat", "-d", d, "--json").stdout) == {"word": "CAT", "front": "S", "back": ""}


@pytest.mark.slow
def test_nothing_found_exits_1(files: dict[str, Path]) -> None:
    result = run_cli("match", "QQ*", "-d", str(files["marisa"]))
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "")
    result = run_cli("grep", "Q+", "-d", str(files["marisa"]), "--count")
    assert (result.returncode, result.stdout) == (1, "0\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "CH[AT"], "boggle-dafsa: bad pattern 'CH[AT': unterminated class [ at column 3\n"),
        (["grep", "CH(A|T"], "boggle-dafsa: bad regex 'CH(A|T': unbalanced parenthesis ( at column 3\n"),
        (["grep", "A**{2,1}"], "boggle-dafsa: bad regex 'A**{2,1}': bad repetition {2,1}: 1 < 2 at column 4\n"),
        (["fuzzy", "chat", "-k", "50"], "boggle-dafsa: distance 50 out of range (0 to 10)\n"),
        (["fuzzy", "l'eau"], 'boggle-dafsa: word "l\'eau" is not a word (letters only)\n'),
        (["anagram", "AB3"], "boggle-dafsa: rack letter '3' is not a word (letters only)\n"),
    ],
)
def test_bad_queries_are_one_line_exit_2(files: dict[str, Path], args: list[str], message: str) -> None:
    result = run_cli(*args, "-d", str(files["native"]))
    assert (result.returncode, result.stdout, result.stderr) == (2, "", message)


@pytest.mark.slow
def test_set_algebra_commands(files: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "other.marisa"
    write_dictionary(normalized_words(["chat", "zèbre", "zoo"]), other, "marisa")
    out = tmp_path / "out.dafsa"
    result = run_cli("union", str(files["dawg"]), str(other), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {out} (native, policy fold): {len(WORDS) + 1} words")
    assert list(open_path(out)) == sorted(set(WORDS) | {"ZEBRE"})
    assert run_cli("intersect", str(files["native"]), str(other), "-o", str(out), "-q").stdout == ""
    assert list(open_path(out)) == ["CHAT", "ZOO"]
    run_cli("diff", str(other), str(files["marisa"]), "-o", str(out))
    assert list(open_path(out)) == ["ZEBRE"]
