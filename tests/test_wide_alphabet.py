"""The solver on alphabets of more than 31 letters: the part of the automaton spelled with
a grid's letters, remapped to at most 31 bits, walked by the layout kernels; the cursor
(the generic kernel's own walk) is the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import compiled
from boggle_dafsa.automaton import compact, fileformat
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.dictionaries.build import compile_words
from boggle_dafsa.solver import generic, solve
from boggle_dafsa.words.normalize import Policy

# 40 letters: more than one-cell headers hold. Grids draw their faces from the first 30
# and a few from the rest, multi-letter faces included.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
WORDS = st.lists(st.text(alphabet=LETTERS, min_size=1, max_size=6), min_size=1, max_size=150)
FACES = st.one_of(st.sampled_from(LETTERS[:30]), st.sampled_from(LETTERS), st.sampled_from(["QU", "Ab", "ZZ", "é"]))


def dictionaries(tmp: Path, words: list[str]) -> list[NativeDictionary]:
    """The version 1 and version 2 files of ``words`` (raw: every letter kept)."""
    ready = sorted(set(words))
    found = []
    for version in (1, 2):
        path = tmp / f"v{version}.dafsa"
        path.write_bytes(compile_words(ready, Policy.RAW, version=version))
        found.append(NativeDictionary(path))
    return found


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(words=WORDS, grids=st.lists(st.lists(FACES, min_size=9, max_size=9), min_size=1, max_size=4))
def test_the_solver_on_a_wide_alphabet_finds_what_the_cursor_finds(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], grids: list[list[str]]
) -> None:
    table = neighbours((3, 3), "king")
    for dictionary in dictionaries(tmp_path_factory.mktemp("w"), words):
        if len(dictionary.alphabet) <= fileformat.ONE_CELL_LETTERS:
            continue
        for faces in grids:  # in turn: the kept part widens, or is made afresh
            grid = Grid((3, 3), faces)
            expected = {word: path for word, path in generic.search(dictionary, tuple(faces), table, 3).items() if len(word) >= 3}
            assert {hit.word: hit.path for hit in solve(grid, dictionary)} == expected
            letters = {letter for face in faces for letter in face} & set(dictionary.alphabet)
            layout = dictionary.layout_for(letters)
            assert layout is not None and letters <= set(layout.alphabet) and len(layout.alphabet) <= 31


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(words=WORDS, keep=st.sets(st.sampled_from(LETTERS), min_size=1, max_size=31))
def test_the_compiled_projection_is_its_twins(tmp_path_factory: pytest.TempPathFactory, words: list[str], keep: set[str]) -> None:
    # _builder.expand(..., keep) on the version 2 body, project_cells on both versions: the same cells.
    v1, v2 = dictionaries(tmp_path_factory.mktemp("p"), words)
    kept = "".join(letter for letter in v2.alphabet if letter in keep)
    bits = bytes(kept.index(letter) if letter in kept else 0xFF for letter in v2.alphabet)
    python_cells = [bytes(compact.project_cells(d.states, bits)[0]) for d in (v1, v2)]
    assert python_cells[0] == python_cells[1]
    codec = compiled.built("builder")
    if codec is not None:
        cells, root = codec.expand(v2.states.body, v2.states.root >> 1, v2.states.alphabet_size, bits)
        assert (bytes(cells), root) == (python_cells[1], 0)
    # The part holds exactly the words spelled with the kept letters.
    layout = compact.project(v2.states, kept)
    spelled = sorted(word for word in set(words) if set(word) <= set(kept))
    found: list[str] = []

    def walk(state: int, prefix: str) -> None:
        if layout.is_final(state):
            found.append(prefix)
        for bit, child in layout.children(state):
            walk(child, prefix + layout.alphabet[bit])

    walk(layout.root, "")
    assert found == spelled


def test_a_grid_of_more_than_31_letters_of_the_alphabet_walks_the_cursor(tmp_path: Path) -> None:
    words = [LETTERS[i : i + 3] for i in range(len(LETTERS) - 2)] + ["AKU", "nmB"]
    (tmp_path / "w.dafsa").write_bytes(compile_words(sorted(set(words)), Policy.RAW))
    dictionary = NativeDictionary(tmp_path / "w.dafsa")
    faces = list(LETTERS[:36])  # 36 letters of the alphabet: no 31-bit part holds them
    assert dictionary.layout_for(faces) is None
    grid = Grid((6, 6), faces)
    table = neighbours((6, 6), "king")
    expected = {word: path for word, path in generic.search(dictionary, tuple(faces), table, 3).items()}
    assert expected  # rows of the grid spell some of the words
    assert {hit.word: hit.path for hit in solve(grid, dictionary)} == expected


def test_a_small_grid_on_a_wide_alphabet_walks_the_kept_part(tmp_path: Path) -> None:
    # One grid, both versions, against the cursor; what `info` says of the kernel.
    from boggle_dafsa.solver.kernels import kernel_for

    words = sorted({"ABC", "ABCD", "BAD", "CAB", "DAB", "abc", "nml", "Abc"} | {LETTERS[i : i + 3] for i in range(38)})
    for dictionary in dictionaries(tmp_path, words):
        faces = ["A", "B", "C", "a", "D", "QU", "b", "c", "n"]
        expected = generic.search(dictionary, tuple(faces), neighbours((3, 3), "king"), 3)
        assert "ABCD" in expected and "abc" in expected
        assert {hit.word: hit.path for hit in solve(Grid((3, 3), faces), dictionary)} == expected
        assert dictionary.layout_for(set("ABCDQUabcn")).alphabet == "ABCDQUabcn"
        assert "remapped to 31 bits" in kernel_for(dictionary)


def test_a_damaged_body_is_refused_by_the_projection(tmp_path: Path) -> None:
    # A body byte changed: the projection refuses it in one line, as the expansion does.
    from boggle_dafsa.errors import DictionaryError

    path = tmp_path / "w.dafsa"
    path.write_bytes(compile_words(sorted({LETTERS[i : i + 4] for i in range(len(LETTERS) - 3)}), Policy.RAW))
    dictionary = NativeDictionary(path)
    assert dictionary.layout_for("ABCD") is not None
    data = bytearray(path.read_bytes())
    data[dictionary.header.header_size] ^= 0x0F  # the first edge's label
    path.write_bytes(bytes(data))
    with pytest.raises(DictionaryError):
        NativeDictionary(path).layout_for("ABCD")


def _wide_list(letters: int) -> str:
    """A list of 2,000 keys over ``letters`` CJK letters (each used)."""
    import random

    rng = random.Random(letters)
    alphabet = [chr(0x4E00 + i) for i in range(letters)]
    keys = [alphabet[i] + alphabet[(i + 1) % letters] for i in range(letters)]
    keys += ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 6))) for _ in range(2000 - letters)]
    return "\n".join(keys) + "\n"


@pytest.mark.slow
def test_version_1_refuses_an_alphabet_past_its_limit_before_writing_anything(tmp_path: Path) -> None:
    # Version 1 gives each state a header of alphabet_size // 32 + 1 cells: a 19 MB list over
    # a few thousand letters became a 7.6 GB file. Past 255 letters it is refused, in one line.
    from conftest import run_cli

    limit = 255  # docs/format.md
    wide, widest = tmp_path / "wide.txt", tmp_path / "widest.txt"
    wide.write_text(_wide_list(limit + 1), encoding="utf-8")
    widest.write_text(_wide_list(limit), encoding="utf-8")
    out = tmp_path / "out"
    for policy in ("raw", "exact"):
        refused = run_cli("build", str(wide), "--policy", policy, "--format-version", "1", "-o", str(out / "w.dafsa"))
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
        assert f"{wide}: format version 1 holds at most {limit} letters, these words have {limit + 1}" in refused.stderr
        assert not out.exists() or not list(out.iterdir())  # nothing written, no temporary left
    for source, version in ((widest, "1"), (wide, "2")):
        built = run_cli(
            "build", str(source), "--policy", "raw", "--format-version", version, "-o", str(out / f"{version}.dafsa"), "-q"
        )
        assert built.returncode == 0, built.stderr
    assert NativeDictionary(out / "1.dafsa").header.header_cells == limit // 32 + 1
    assert getattr(fileformat, "VERSION_1_MAX_LETTERS", None) == limit


def test_the_library_writers_refuse_version_1_past_the_limit_too(tmp_path: Path) -> None:
    from boggle_dafsa.errors import BoggleError

    limit = 255
    words = sorted({chr(0x4E00 + i) for i in range(limit + 1)})
    with pytest.raises(BoggleError, match=f"at most {limit} letters"):
        compile_words(words, Policy.RAW, version=1)
    assert compile_words(words[:limit], Policy.RAW, version=1) and compile_words(words, Policy.RAW, version=2)
