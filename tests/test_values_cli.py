"""``build --values``, ``--values-merge``, ``lookup --values``, ``dump --values`` (issue 33):
WORD<TAB>VALUE lists in, the same pairs out, against an oracle of the list."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import COMMAND
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.cli import app
from boggle_dafsa.dictionaries.build import build_dictionary
from boggle_dafsa.errors import WordListError
from boggle_dafsa.words.normalize import Policy, normalize
from boggle_dafsa.words.pairs import parse_int
from helpers.kernels import BUILDER, builder_kernel

runner = CliRunner()


def oracle(lines: list[str], kind: str, merge: str | None, policy: Policy) -> dict[str, Any] | str:
    """What the list means: each word's one value, or "refused" (two values, no merge)."""
    found: dict[str, list[Any]] = {}
    for line in lines:
        word, _, raw = line.partition("\t")
        key = normalize(word, policy)
        if key is None:
            continue
        found.setdefault(key, []).append(parse_int(raw) if kind == "int" else raw)
    out: dict[str, Any] = {}
    for key, seen in found.items():
        if merge is None:
            if len(set(seen)) > 1:
                return "refused"
            out[key] = seen[0]
        else:
            kept = {"first": seen[0], "last": seen[-1], "max": max(seen)}
            out[key] = sum(seen) if merge == "sum" else kept[merge]
    return out


WORD = st.sampled_from(["chat", "CHAT", "chien", "élève", "ELEVE", "zoo", "a", "abc", "ab", "ba", "x-y", "1a", "é"])
INT = st.integers(min_value=-(1 << 40), max_value=1 << 40)
TEXT = st.text(alphabet=st.characters(blacklist_characters="\n\r\0", blacklist_categories=("Cs",)), max_size=12)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    kind=st.sampled_from(["int", "text"]),
    policy=st.sampled_from([Policy.FOLD, Policy.EXACT]),
    sorted_input=st.booleans(),
    tiny_runs=st.booleans(),
)
def test_a_list_of_pairs_builds_the_map_it_says(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, kind: str, policy: Policy, sorted_input: bool, tiny_runs: bool
) -> None:
    merges = [None, "first", "last", "sum", "max"] if kind == "int" else [None, "first", "last"]
    merge = data.draw(st.sampled_from(merges))
    pairs = data.draw(st.lists(st.tuples(WORD, INT if kind == "int" else TEXT), min_size=1, max_size=30))
    lines = [f"{word}\t{value}" for word, value in pairs]
    if sorted_input:  # sorted by normalized word, stable: the lines of a word keep their order
        lines.sort(key=lambda line: (normalize(line.partition("\t")[0], policy) or "").encode("utf-8"))
    folder = tmp_path_factory.mktemp("pairs")
    source = folder / "pairs.txt"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    expected = oracle(lines, kind, merge, policy)
    kept = {} if expected == "refused" else expected
    try:
        build_dictionary(
            source,
            folder / "map.dafsa",
            policy=policy,
            values=kind,
            values_merge=merge,
            assume_sorted=sorted_input,
            run_bytes=64 if tiny_runs else None,
        )
    except WordListError as error:
        message = str(error)
        assert "\n" not in message
        if expected == "refused":
            assert "two values" in message and "lines " in message, message
        else:
            assert not kept and "no word left" in message, message
        return
    assert expected != "refused"
    d = NativeDictionary(folder / "map.dafsa")
    items = sorted(kept.items(), key=lambda item: item[0].encode("utf-8"))
    assert list(d.items()) == items
    for word, value in items:
        assert d[word] == value


def test_two_values_for_a_word_name_both_lines(tmp_path: Path) -> None:
    source = tmp_path / "pairs.txt"
    source.write_text("chat\t3\nchien\t1\n\nCHAT\t3\nzoo\t0\nChat\t4\n", encoding="utf-8")
    result = runner.invoke(app, ["build", "--values", "int", str(source), "-o", str(tmp_path / "m.dafsa")])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert "lines 1 and 6 give 'CHAT' two values ('3' and '4')" in result.output
    assert not (tmp_path / "m.dafsa").exists()


@pytest.mark.parametrize(
    ("text", "kind", "what"),
    [
        ("chat 3\n", "int", "pairs.txt:1: no tab"),
        ("chat\t3\nchien\ttrois\n", "int", "pairs.txt:2: 'trois' is not an int"),
        ("chat\t99999999999999999999\n", "int", "is not an int of 64 bits"),
        ("chat\t3\rx\n", "text", "pairs.txt:1: a carriage return inside a line"),
    ],
)
def test_a_bad_line_is_refused_with_its_number(tmp_path: Path, text: str, kind: str, what: str) -> None:
    source = tmp_path / "pairs.txt"
    source.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["build", "--values", kind, str(source), "-o", str(tmp_path / "m.dafsa")])
    assert result.exit_code == 2 and what in result.output and result.output.count("\n") == 1, result.output
    assert not (tmp_path / "m.dafsa").exists()


@pytest.mark.parametrize(
    ("options", "what"),
    [
        (["--values", "text", "--values-merge", "sum"], "--values-merge sum: for text values, one of first, last"),
        (["--values", "float"], "--values float: the kinds are int, text"),
        (["--values-merge", "first"], "--values-merge is for a list with values"),
        (["--values", "int", "--format", "marisa"], "only native files hold values, not marisa"),
    ],
)
def test_options_that_do_not_go_together_are_refused(tmp_path: Path, options: list[str], what: str) -> None:
    source = tmp_path / "pairs.txt"
    source.write_text("chat\t3\n", encoding="utf-8")
    result = runner.invoke(app, ["build", *options, str(source), "-o", str(tmp_path / "m.dafsa")])
    assert result.exit_code == 2 and what in result.output, result.output


def test_merging_keeps_what_it_says(tmp_path: Path) -> None:
    source = tmp_path / "pairs.txt"
    source.write_text("chat\t3\nchien\t1\nCHAT\t-5\nchat\t9\n", encoding="utf-8")
    for merge, value in (("first", 3), ("last", 9), ("sum", 7), ("max", 9)):
        target = tmp_path / f"{merge}.dafsa"
        result = runner.invoke(app, ["build", "--values", "int", "--values-merge", merge, str(source), "-o", str(target)])
        assert result.exit_code == 0, result.output
        assert NativeDictionary(target)["chat"] == value
        assert f"values        int, a word given twice keeps the {merge}" in result.output


def test_lookup_and_dump_print_the_values(tmp_path: Path) -> None:
    source = tmp_path / "pairs.txt"
    source.write_text("zoo\tle zoo\tde Vincennes\nchat\tun félin\nchien\t\n", encoding="utf-8")
    target = tmp_path / "m.dafsa"
    assert runner.invoke(app, ["build", "--values", "text", str(source), "-o", str(target), "-q"]).exit_code == 0
    result = runner.invoke(app, ["dump", "--values", str(target)])
    assert result.output == "CHAT\tun félin\nCHIEN\t\nZOO\tle zoo\tde Vincennes\n"
    result = runner.invoke(app, ["dump", "--values", "--index", str(target)])
    assert result.output.splitlines()[2] == "2\tZOO\tle zoo\tde Vincennes"
    result = runner.invoke(app, ["lookup", "-d", str(target), "--values", "chat", "ours"])
    assert result.exit_code == 1 and result.output == "CHAT\tun félin\nOURS\tno\n"
    result = runner.invoke(app, ["lookup", "-d", str(target), "--values", "--index", "zoo"])
    assert result.exit_code == 0 and result.output == "ZOO\t2\tle zoo\tde Vincennes\n"
    result = runner.invoke(app, ["inspect", str(target)])
    assert "values" in result.output and "text (1 deflated blocks of 32 values" in result.output


def test_values_of_a_set_of_words_are_refused_in_one_line(tmp_path: Path) -> None:
    source = tmp_path / "words.txt"
    source.write_text("chat\nchien\n", encoding="utf-8")
    target = tmp_path / "w.dafsa"
    assert runner.invoke(app, ["build", str(source), "-o", str(target), "-q"]).exit_code == 0
    for command in (["dump", "--values", str(target)], ["lookup", "-d", str(target), "--values", "chat"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2 and "holds no values, only words" in result.output
        assert result.output.count("\n") == 1
    assert "none (a set of words" in runner.invoke(app, ["inspect", str(target)]).output


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["int", "text"])
def test_dump_values_sorted_list_round_trips_through_cmp(tmp_path: Path, kind: str) -> None:
    """A normalized list, shuffled: ``dump --values`` prints it back sorted, byte for byte."""
    rng = random.Random(33)
    words = sorted({"".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.randint(1, 9))) for _ in range(3000)})
    lines = [
        f"{word}\t{rng.randrange(1 << 20) if kind == 'int' else ' '.join(rng.choice(words).lower() for _ in range(4))}"
        for word in words
    ]
    rng.shuffle(lines)
    source = tmp_path / "input"
    source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    env = {**os.environ, "LC_ALL": "C"}
    built = subprocess.run(
        ["bash", "-c", f"{COMMAND} build --values {kind} input -o map.dafsa -q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    script = "set -o pipefail; " + f"{COMMAND} dump --values map.dafsa | cmp - <(LC_ALL=C sort input)"
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# -- set algebra keeps values ------------------------------------------------------------------


def map_file(folder: Path, name: str, items: dict[str, Any], kind: str = "int") -> NativeDictionary:
    from boggle_dafsa.automaton.stream import NativeWriter

    writer = NativeWriter(values=kind)
    writer.add_items(sorted(items.items()))
    writer.write(folder / name)
    return NativeDictionary(folder / name)


def set_file(folder: Path, name: str, words: set[str]) -> NativeDictionary:
    from boggle_dafsa.automaton.stream import NativeWriter

    writer = NativeWriter()
    writer.add_words(sorted(words))
    writer.write(folder / name)
    return NativeDictionary(folder / name)


def set_oracle(maps: list[dict[str, int]], operation: str, merge: str | None) -> dict[str, int] | str:
    if operation == "union":
        words = set().union(*maps)
    elif operation == "intersect":
        words = set(maps[0]).intersection(*maps[1:])
    else:
        words = set(maps[0]).difference(*maps[1:])
    out: dict[str, int] = {}
    for word in words:
        given = [m[word] for m in maps if word in m] if operation != "diff" else [maps[0][word]]
        if len(set(given)) > 1:
            if merge is None:
                return "refused"
            given = {"first": given[:1], "last": given[-1:], "sum": [sum(given)], "max": [max(given)]}[merge]
        out[word] = given[0]
    return out


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(
    maps=st.lists(
        st.dictionaries(st.sampled_from(["A", "AB", "B", "BA", "C", "CAB", "Z"]), st.integers(-3, 3), min_size=1),
        min_size=1,
        max_size=3,
    ),
    operation=st.sampled_from(["union", "intersect", "diff"]),
    merge=st.sampled_from([None, "first", "last", "sum", "max"]),
)
def test_set_algebra_keeps_the_values_it_says(
    tmp_path_factory: pytest.TempPathFactory, maps: list[dict[str, int]], operation: str, merge: str | None
) -> None:
    from boggle_dafsa.errors import QueryError
    from boggle_dafsa.query.setops import write_set

    folder = tmp_path_factory.mktemp("sets")
    opened = [map_file(folder, f"in{i}.dafsa", m) for i, m in enumerate(maps)]
    expected = set_oracle(maps, operation, merge if operation != "diff" else None)
    try:
        report = write_set(opened, operation, folder / "out.dafsa", values_merge=merge if operation != "diff" else None)
    except QueryError as error:
        assert expected == "refused" and "give `values_merge`" in str(error) and "\n" not in str(error)
        return
    assert expected != "refused"
    assert report.values == "int" and report.words == len(expected)
    assert list(NativeDictionary(folder / "out.dafsa").items()) == sorted(expected.items())


def test_set_algebra_with_sets_and_kinds(tmp_path: Path) -> None:
    from boggle_dafsa.errors import QueryError
    from boggle_dafsa.query.setops import write_set

    counts = map_file(tmp_path, "counts.dafsa", {"CHAT": 3, "ZOO": 7})
    words = set_file(tmp_path, "words.dafsa", {"CHAT", "OURS"})
    notes = map_file(tmp_path, "notes.dafsa", {"CHAT": "un félin"}, "text")
    with pytest.raises(QueryError, match="words.dafsa holds no values, so some words would have none: give `no_values`"):
        write_set([counts, words], "union", tmp_path / "u.dafsa")
    report = write_set([counts, words], "union", tmp_path / "u.dafsa", no_values=True)
    assert report.values is None and list(NativeDictionary(tmp_path / "u.dafsa")) == ["CHAT", "OURS", "ZOO"]
    report = write_set([words, counts], "intersect", tmp_path / "i.dafsa")  # the values of the inputs that hold them
    assert report.values == "int" and list(NativeDictionary(tmp_path / "i.dafsa").items()) == [("CHAT", 3)]
    report = write_set([counts, words], "diff", tmp_path / "d.dafsa")
    assert list(NativeDictionary(tmp_path / "d.dafsa").items()) == [("ZOO", 7)]
    report = write_set([words, counts], "diff", tmp_path / "d2.dafsa")  # a set less a map: a set
    assert report.values is None and list(NativeDictionary(tmp_path / "d2.dafsa")) == ["OURS"]
    with pytest.raises(QueryError, match="values of different kinds"):
        write_set([counts, notes], "intersect", tmp_path / "k.dafsa")
    with pytest.raises(QueryError, match="`values_merge` sum: for text values, one of first, last"):
        write_set([notes, notes], "union", tmp_path / "t.dafsa", values_merge="sum")
    result = runner.invoke(
        app, ["union", str(tmp_path / "counts.dafsa"), str(tmp_path / "i.dafsa"), "-o", str(tmp_path / "c.dafsa")]
    )
    assert result.exit_code == 0 and "3 words" not in result.output and "int values" in result.output, result.output
    result = runner.invoke(
        app, ["union", str(tmp_path / "counts.dafsa"), str(tmp_path / "words.dafsa"), "-o", str(tmp_path / "x.dafsa")]
    )
    assert result.exit_code == 2 and "--no-values" in result.output and result.output.count("\n") == 1


LINE = st.builds(
    lambda word, tab, value: f"{word}{tab}{value}",
    st.text(alphabet="abcXYZé \r-\0\t", max_size=5),
    st.sampled_from(["\t", "\t", " ", ""]),
    st.one_of(st.integers(-(10**19), 10**19).map(str), st.text(alphabet="12a+-\t é\r\0", max_size=6)),
)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(LINE, max_size=8), policy=st.sampled_from([0, 1, 2]), ints=st.booleans())
def test_the_compiled_pair_kernels_are_their_twins(lines: list[str], policy: int, ints: bool) -> None:
    block = "".join(line + "\n" for line in lines).encode("utf-8")
    made = {name: builder_kernel(name).pair_records(block, policy, ints) for name in BUILDER}
    assert len(set(made.values())) == 1, made
    records = made["python"]
    if records is None:
        return
    # The records sorted as the external sort sorts them (bytewise, unique), then split.
    ordered = b"".join(line + b"\n" for line in sorted(set(records.split(b"\n")[:-1])))
    split = {name: builder_kernel(name).pair_split(ordered, ints) for name in BUILDER}
    flat = {
        name: None
        if parts is None
        else (
            parts[0],
            list(parts[1]) if not isinstance(parts[1], bytes) else list(memoryview(parts[1]).cast("q")),
            parts[2],
            parts[3],
        )
        for name, parts in split.items()
    }
    assert len({repr(value) for value in flat.values()}) == 1, flat


# -- reading the lines of a WORD<TAB>VALUE list, in blocks --------------------------------------

_PAIR_LINES = st.lists(
    st.tuples(st.text("abcé", min_size=1, max_size=6), st.integers(0, 99), st.sampled_from(["\n", "\r\n"])),
    min_size=1,
    max_size=12,
)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", BUILDER)
@given(lines=_PAIR_LINES, bom=st.booleans(), block=st.integers(4, 9), final=st.booleans())
@settings(max_examples=60, deadline=None)
def test_a_list_of_pairs_reads_the_same_in_any_blocks(
    kernel: str, lines: list[tuple[str, int, str]], bom: bool, block: int, final: bool
) -> None:
    # The records of a list do not depend on where its blocks are cut, nor on the path that
    # reads them (text decoded line by line, or bytes a block at a time through the kernel):
    # the same as the whole list read in one block, a BOM and CRLFs as any reader takes them.
    # Blocks of 4 bytes or more: the first holds the whole BOM, as a real one (1 MiB) does.
    from boggle_dafsa.words import pairs

    text = "".join(f"{word}\t{value}{end}" for word, value, end in lines)
    data = (b"\xef\xbb\xbf" if bom else b"") + (text if final else text.rstrip("\r\n")).encode("utf-8")

    def records(block_bytes: int, twin: object, numbered: bool) -> bytes:
        saved = pairs.BLOCK_BYTES
        pairs.BLOCK_BYTES = block_bytes
        try:
            stream = pairs.open_pairs("list.txt", Policy.FOLD, "int", data=data, numbered=numbered, kernel=twin)
            found = b"".join(stream.records())
        finally:
            pairs.BLOCK_BYTES = saved
        assert stream.bytes_read == len(data)
        return found

    whole = records(1 << 20, None, False)
    assert whole.count(b"\n") == len(lines)
    twin = builder_kernel(kernel)
    assert records(block, twin, False) == whole  # bytes a block at a time
    assert records(block, None, False) == whole  # text, line by line
    assert records(block, twin, True).count(b"\n") == len(lines)  # numbered: line by line too


@pytest.mark.parametrize("block", [1, 3, 7])
def test_a_line_too_long_is_refused_at_its_number_in_any_blocks(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # What is left of a line at a block's end is bounded (memory): past the limit, the line is
    # refused by its number, on either path.
    from boggle_dafsa.words import pairs

    monkeypatch.setattr(pairs, "BLOCK_BYTES", block)
    monkeypatch.setattr(pairs, "MAX_LINE_BYTES", 20)
    data = b"chat\t1\nchien\t2\n" + b"z" * 40 + b"\t3\nzoo\t4\n"
    for twin in (None, builder_kernel("python")):
        stream = pairs.open_pairs("list.txt", Policy.FOLD, "int", data=data, kernel=twin)
        with pytest.raises(WordListError, match=r"^list\.txt:3: line longer than 20 bytes, the limit$"):
            b"".join(stream.records())
