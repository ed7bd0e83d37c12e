"""The query commands as users run them: output shapes, exit codes, one-line errors, formats."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from conftest import run_cli
from typer.testing import CliRunner

from boggle_dafsa import query
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


# -- the commands made from the library's table of verbs (query.VERBS) ----------------------


def test_every_command_has_one_home_and_every_query_verb_is_a_command() -> None:
    # A command is in cli.VERBS (its module) or in query.VERBS (made by cli/query.py), not both;
    # the table's verbs are listed by --help together, in the table's order.
    from boggle_dafsa.cli import VERBS as MODULES
    from boggle_dafsa.cli import command_names, load_commands

    load_commands()
    names = command_names()
    table = [verb.name for verb in query.VERBS]
    assert len(set(names)) == len(names) and not set(MODULES) & set(table)
    assert sorted(names) == sorted([*MODULES, *table])
    start = names.index(table[0])
    assert names[start : start + len(table)] == table


@pytest.mark.slow
def test_a_query_verb_run_imports_only_the_query_commands() -> None:
    # `match` is in no line of cli.VERBS: it is found in the query module, the others stay unloaded.
    import subprocess
    import sys

    code = (
        "import sys\nfrom boggle_dafsa.cli import load_commands\nload_commands('match')\n"
        "print(sorted(m for m in sys.modules if m.startswith('boggle_dafsa.cli.')))"
    )
    modules = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'boggle_dafsa.cli.query'" in modules and "'boggle_dafsa.cli.solve'" not in modules and "study" not in modules


def test_each_record_gives_the_help_of_every_input_of_its_function() -> None:
    for verb in query.VERBS:
        inputs = list(inspect.signature(verb.function).parameters)[1:]  # after the dictionary
        assert sorted(verb.parameters) == sorted(name for name in inputs if name != "limit"), verb.name
        for text in (verb.help, *verb.parameters.values()):
            assert set(re.findall(r"`(\w+)`", text)) <= set(inputs), text
            assert "--" not in text  # the library names parameters; the command line writes the options


def _repeated(dictionary: object, word: str, times: int = 1, whole: bool = False, limit: int | None = None) -> Iterator[str]:
    # A throwaway verb: the words that start with WORD said TIMES times (WHOLE: that word alone).
    start = word * times
    found = query.complete(dictionary, start, limit)
    return (found_word for found_word in found if not whole or found_word == dictionary.normalize(start))


@pytest.mark.slow
def test_a_new_record_of_the_table_is_a_command(files: dict[str, Path]) -> None:
    # A new verb needs no command written: its inputs are the command's argument and options
    # (typed, defaulted and checked as its signature says), its help is the record's.
    from boggle_dafsa.cli.query import _command

    verb = query.Verb(
        "repeated",
        _repeated,
        "Print the words that start with WORD `times` times.",
        {"word": "W.", "times": "How many.", "whole": "Alone."},
    )
    app = typer.Typer()
    app.command(name="repeated")(_command(verb))
    app.command(name="other")(lambda: None)  # two commands: a group, run as the app runs them
    runner = CliRunner()
    d = str(files["native"])
    help_text = runner.invoke(app, ["repeated", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}).output
    assert "with WORD --times times" in help_text and "--whole" in help_text and "--limit" in help_text
    assert "--columns" not in help_text and "[default: 1]" in help_text
    assert runner.invoke(app, ["repeated", "ch", "-d", d]).output == "CHAT\nCHATS\nCHIEN\n"
    assert runner.invoke(app, ["repeated", "t", "-d", d, "--times", "0", "--count"]).output == "11\n"
    assert json.loads(runner.invoke(app, ["repeated", "ch", "-d", d, "-n", "1", "--json"]).output) == ["CHAT"]
    assert runner.invoke(app, ["repeated", "chat", "-d", d, "--whole"]).output == "CHAT\n"
    nothing = runner.invoke(app, ["repeated", "q", "-d", d])
    assert (nothing.exit_code, nothing.output) == (1, "")
    assert runner.invoke(app, ["repeated", "ch", "-d", d, "--times", "-1"]).exit_code == 2  # counts are 0 or more
