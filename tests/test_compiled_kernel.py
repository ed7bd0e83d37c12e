"""The compiled kernel and its Python twin: identical words, paths, scores and order, on any grid.

Every test here runs over every available native kernel ("c" when the extension is
built, "python" always) and compares them with each other and with brute force.
Without the extension the comparisons are skipped, unless BOGGLE_DAFSA_REQUIRE_C=1
(CI's main environment), where a missing extension is a failure.
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.board.scoring import BIG, CLASSIC, LETTERS, Scoring
from boggle_dafsa.errors import DictionaryError, GridError
from boggle_dafsa.output.jsonable import json_row
from boggle_dafsa.output.rows import PATH_ROW, SCORED_PATH_ROW
from boggle_dafsa.solver import Hit, PreparedSolver, solve, sort_key
from boggle_dafsa.solver import python as native
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import SOLVER, built, each, requires_c

COMPILED = built("solver")
needs_c = requires_c("solver")
# The compiled kernel also with its dictionary's words numbered (which it does by itself
# after a few grids): "c numbered".
VARIANTS = [*SOLVER, *(["c numbered"] if COMPILED else [])]


def prepared_variant(dictionary: object, shape: tuple[int, ...], variant: str, **options: object) -> PreparedSolver:
    """A PreparedSolver of kernel ``variant`` (see VARIANTS)."""
    prepared = PreparedSolver(dictionary, shape, kernel=variant.split()[0], **options)  # type: ignore[arg-type]
    if variant == "c numbered":
        assert prepared._codes is not None and prepared._codes.solver.number_words()
    return prepared


def traceable(faces: tuple[str, ...], table: tuple[tuple[int, ...], ...], word: str) -> bool:
    """Brute force: can ``word`` be spelled by a path of adjacent cells, each used once?"""

    def extend(cell: int, rest: str, used: frozenset[int]) -> bool:
        if not rest:
            return True
        return any(
            other not in used and rest.startswith(faces[other]) and extend(other, rest[len(faces[other]) :], used | {other})
            for other in table[cell]
        )

    return any(word.startswith(face) and extend(cell, word[len(face) :], frozenset({cell})) for cell, face in enumerate(faces))


@st.composite
def shapes(draw: st.DrawFn) -> tuple[int, ...]:
    # 1-D (a line: one row), 2-D, 3-D and 4-D, at most 36 cells.
    dimensions = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4 if dimensions < 3 else 3), min_size=dimensions, max_size=dimensions))
    if dimensions == 1:
        sizes = [1, draw(st.integers(1, 9))]
    while math.prod(sizes) > 36:
        sizes[sizes.index(max(sizes))] -= 1
    return tuple(sizes)


LETTERS_FOLD = "ABEQSU"
LETTERS_EXACT = "aBeéQuß"


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(
    shape=shapes(),
    exact=st.booleans(),
    data=st.data(),
    min_length=st.integers(1, 4),
    scoring=st.sampled_from([CLASSIC, BIG, LETTERS]),
    adjacency=st.sampled_from(["king", "orthogonal"]),
)
def test_the_kernels_agree_with_each_other_and_with_brute_force(
    tmp_path_factory: pytest.TempPathFactory,
    shape: tuple[int, ...],
    exact: bool,
    data: st.DataObject,
    min_length: int,
    scoring: Scoring,
    adjacency: str,
) -> None:
    letters = LETTERS_EXACT if exact else LETTERS_FOLD
    policy = Policy.EXACT if exact else Policy.FOLD
    words = data.draw(st.lists(st.text(letters, min_size=1, max_size=7), min_size=1, max_size=50))
    words += ["QUE", "SQUAB", "QUASE"] if not exact else ["Queé", "aßQu"]
    multi = ["QU", "EA", "SQU"] if not exact else ["Qu", "eé", "ßa"]
    faces = tuple(
        data.draw(
            st.lists(
                st.sampled_from([*letters, *multi, "X" if not exact else "Z"]),
                min_size=math.prod(shape),
                max_size=math.prod(shape),
            )
        )
    )
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("d"), policy)
    grid = Grid(shape, faces)
    results = {}
    for variant in VARIANTS:
        kernel = variant.split()[0]
        prepared = prepared_variant(dictionary, shape, variant, adjacency=adjacency, min_length=min_length, scoring=scoring)
        assert prepared.kernel == kernel
        found = prepared.found(grid)
        hits = prepared.solve(grid)
        cells = [f"<{cell}é>" for cell in range(len(faces))]  # any text, UTF-8 in C
        formats = [PATH_ROW, SCORED_PATH_ROW, json_row()]
        rows = [prepared.rows_many([grid], cells, row) for row in formats]
        assert rows == [[native.rows_result(hits, cells, row.template, row.between, row.cell_separator)] for row in formats]
        results[variant] = (list(found.items()), hits, prepared.words_many([grid]), prepared.totals_many([grid]), rows)
        assert hits == solve(grid, dictionary, min_length=min_length, scoring=scoring, adjacency=adjacency, kernel=kernel)
    first = results[VARIANTS[0]]
    for variant in VARIANTS[1:]:
        assert results[variant] == first, variant
    found_items, hits, [(points, words_ranked)], [(count, total)], _ = first
    # Brute force: exactly the traceable words of the list, each with a valid path.
    table = neighbours(shape, adjacency)
    keys = {key for word in words if (key := normalize(word, policy))}
    expected = {word for word in keys if len(word) >= min_length and traceable(faces, table, word)}
    assert {hit.word for hit in hits} == expected
    assert [hit.word for hit in hits] == words_ranked
    assert hits == sorted(hits, key=sort_key)
    assert count == len(hits) and total == points == sum(hit.points for hit in hits)
    for hit in hits:
        assert isinstance(hit, Hit)
        assert hit.points == scoring.score(hit.word)
        assert "".join(faces[cell] for cell in hit.path) == hit.word
        assert len(set(hit.path)) == len(hit.path)
        assert all(b in table[a] for a, b in zip(hit.path, hit.path[1:]))


@pytest.mark.slow
@needs_c
@settings(max_examples=25, deadline=None)
@given(data=st.data(), threads=st.integers(1, 3))
def test_a_batch_gives_what_each_grid_gives_alone(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, threads: int
) -> None:
    words = data.draw(st.lists(st.text("ABEQSU", min_size=2, max_size=6), min_size=5, max_size=60)) + ["QUE"]
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("d"))
    grids = [
        Grid((3, 3), tuple(data.draw(st.lists(st.sampled_from(["A", "B", "E", "S", "QU", "X"]), min_size=9, max_size=9))))
        for _ in range(data.draw(st.integers(0, 12)))
    ]
    compiled = PreparedSolver(dictionary, (3, 3), kernel="c")
    python = PreparedSolver(dictionary, (3, 3), kernel="python")
    alone = [python.solve(grid) for grid in grids]
    assert compiled.solve_many(grids, threads=threads) == alone
    assert compiled.words_many(grids, threads=threads) == [
        (sum(h.points for h in hits), [h.word for h in hits]) for hits in alone
    ]
    assert compiled.totals_many(grids, threads=threads) == [(len(hits), sum(h.points for h in hits)) for hits in alone]
    codes = b"".join(compiled.encode(grid.faces) for grid in grids)
    assert compiled.run_codes(codes, "hits", threads=threads) == alone


@st.composite
def totals_shapes(draw: st.DrawFn) -> tuple[int, ...]:
    # Up to 65 cells: the compiled kernel's totals search takes grids of at most 64 (its
    # visited cells are the bits of a word), 65 go to its general search.
    return draw(st.sampled_from([(1, 1), (2, 3), (4, 4), (5, 5), (7, 9), (8, 8), (4, 4, 4), (1, 64), (5, 13), (2, 2, 2, 2)]))


@pytest.mark.slow
@needs_c
@settings(max_examples=40, deadline=None)
@given(
    shape=totals_shapes(),
    data=st.data(),
    min_length=st.integers(1, 4),
    scoring=st.sampled_from([CLASSIC, BIG, LETTERS]),
    adjacency=st.sampled_from(["king", "orthogonal"]),
)
def test_the_totals_search_counts_what_the_twin_finds(
    tmp_path_factory: pytest.TempPathFactory,
    shape: tuple[int, ...],
    data: st.DataObject,
    min_length: int,
    scoring: Scoring,
    adjacency: str,
) -> None:
    # The compiled kernel's totals (a search of its own once the words are numbered,
    # finding them in another order) against the twin's hits, grid by grid.
    words = data.draw(st.lists(st.text("ABEQSU", min_size=1, max_size=9), min_size=1, max_size=80))
    fixed = ["QUE", "SQUAB", "QUASE", "BEAUS", "BASQUE", "ESQUE", "ABQUA", "SQUASQU", "EQUS"]
    dictionary = dictionary_from_words([*words, *fixed], tmp_path_factory.mktemp("d"))
    cells = math.prod(shape)
    face = st.sampled_from(["A", "B", "E", "S", "U", "QU", "SQU", "X", "Q"])
    grids = [
        Grid(shape, tuple(data.draw(st.lists(face, min_size=cells, max_size=cells)))) for _ in range(data.draw(st.integers(1, 6)))
    ]
    options = {"adjacency": adjacency, "min_length": min_length, "scoring": scoring}
    compiled = prepared_variant(dictionary, shape, "c numbered", **options)
    twin = PreparedSolver(dictionary, shape, kernel="python", **options)
    expected = [(len(hits), sum(hit.points for hit in hits)) for hits in twin.solve_many(grids)]
    assert compiled.totals_many(grids) == expected
    assert compiled.totals_many(grids, threads=2) == expected
    assert twin.totals_many(grids) == expected


@needs_c
@pytest.mark.slow
def test_any_order_of_the_neighbour_table_gives_the_twins_paths(tmp_path: Path) -> None:
    # The first path of a word follows the table's order of neighbours, whatever it is
    # (the kernels' own tables are in increasing order; here each row reversed or
    # shuffled), also in the compiled kernel's search by letters (words numbered).
    import random

    from boggle_dafsa.solver._native import Solver as Compiled
    from boggle_dafsa.solver.python import Solver as Twin

    rng = random.Random(4)
    words = sorted({"".join(rng.choice("AEBSQU") for _ in range(rng.randint(2, 7))) for _ in range(400)})
    dictionary = dictionary_from_words([*words, "QUEUE", "SQUAB", "BAQUES"], tmp_path)
    layout = dictionary.layout()
    table = [list(row) for row in neighbours((5, 5))]
    for number, row in enumerate(table):
        row.reverse() if number % 2 else rng.shuffle(row)
    solvers = []
    for kind in (Compiled, Twin):
        solver = kind(
            layout.cells,
            layout.root,
            layout.longest_word,
            layout.alphabet,
            table,
            2,
            (0, 1, 1, 2, 3, 5),
            Hit,
            DictionaryError,
            "x",
        )
        solver.set_face(32, bytes([layout.letter_bits["Q"], layout.letter_bits["U"]]))
        solvers.append(solver)
    assert solvers[0].number_words()
    bits = [layout.letter_bits[letter] for letter in "AEBSU"] + [32]
    codes = bytes(rng.choice(bits) for _ in range(25 * 30))
    for mode in (1, 2, 3, 0):
        assert solvers[0].solve_many(codes, mode) == solvers[1].solve_many(codes, mode), mode
    assert sum(words for words, _ in solvers[1].solve_many(codes, 0)) > 100


def test_grids_beyond_64_cells_and_deep_paths(tmp_path: Path) -> None:
    # No 64-cell limit: a 9x9 grid, and a 300-letter word snaking along a 1x300 line.
    word = "".join("ABESQ"[(i * 7 + i // 5) % 5] for i in range(300))
    dictionary = dictionary_from_words([word, word[:5], word[100:110], "ABE", "SABE"], tmp_path)
    line = Grid((1, 300), tuple(word))
    square = Grid((9, 9), tuple(("ABESQ" * 20)[:81]))
    for grid in (line, square):
        answers = [PreparedSolver(dictionary, grid.shape, kernel=kernel).solve(grid) for kernel in SOLVER]
        assert all(answer == answers[0] for answer in answers)
    assert {hit.word for hit in answers[0]} >= {"ABE"}
    if COMPILED:
        assert [hit.word for hit in PreparedSolver(dictionary, line.shape, kernel="c").solve(line)][0] == word


def test_cells_of_more_than_64_neighbours(tmp_path: Path) -> None:
    # 3x3x3x3: the centre has 80 neighbours, more than the masked search takes (the
    # compiled kernel then tries each neighbour in turn), and QU faces among them.
    faces = tuple(("A", "B", "E", "S", "QU", "X", "E", "A", "B")[(i * 5 + i // 7) % 9] for i in range(81))
    words = ["ABE", "SABE", "QUE", "BASQUE", "ABBESS", "SEA", "BEES", "ABASE", "QUASE"]
    dictionary = dictionary_from_words(words, tmp_path)
    grid = Grid((3, 3, 3, 3), faces)
    answers = [prepared_variant(dictionary, grid.shape, variant).solve(grid) for variant in VARIANTS]
    assert all(answer == answers[0] for answer in answers)
    table = neighbours(grid.shape, "king")
    assert max(map(len, table)) == 80
    assert {hit.word for hit in answers[0]} == {word for word in words if traceable(faces, table, word)}


@needs_c
def test_the_compiled_solver_numbers_the_words_after_a_few_grids(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["ABE", "BEA", "SEA", "ABBE", "QUE"], tmp_path)
    grids = [Grid((2, 2), faces) for faces in (("A", "B", "E", "S"), ("S", "E", "A", "B"), ("QU", "E", "A", "B"))] * 4
    prepared = PreparedSolver(dictionary, (2, 2), kernel="c")
    assert prepared._codes is not None
    solver = prepared._codes.solver
    first = [prepared.solve(grid) for grid in grids[:3]]
    assert not solver.numbered  # three grids: not worth numbering yet
    many = prepared.solve_many(grids)
    assert solver.numbered
    assert many == first * 4 == PreparedSolver(dictionary, (2, 2), kernel="python").solve_many(grids)


@needs_c
def test_a_damaged_file_is_not_numbered_and_still_reported(tmp_path: Path) -> None:
    # A cycle through the root: no numbering (the search keeps hashing letters) and the
    # search reports the damage as before.
    path = _damaged(tmp_path, {1: 0}, longest=3)
    with pytest.raises(DictionaryError, match="damaged"):
        PreparedSolver(NativeDictionary(path), (3, 3), kernel="c")  # the census sees it first
    dictionary = NativeDictionary(path)
    dictionary._checked = True  # past the census: the kernel's own checks
    prepared = PreparedSolver(dictionary, (3, 3), kernel="c")
    assert prepared._codes is not None and not prepared._codes.solver.number_words()
    with pytest.raises(DictionaryError, match="damaged"):
        prepared.solve(Grid((3, 3), ("A",) * 9))


def _dense(tmp_path: Path) -> tuple[NativeDictionary, Grid]:
    # Every A...A up to 14 letters on a 4x4x4 block of A: more paths than any machine walks.
    return dictionary_from_words(["A" * length for length in range(1, 15)], tmp_path), Grid((4, 4, 4), ("A",) * 64)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_time_limit_stops_a_dense_search(tmp_path: Path, variant: str) -> None:
    from boggle_dafsa.solver import time_limit

    dictionary, grid = _dense(tmp_path)
    prepared = prepared_variant(dictionary, grid.shape, variant)
    for call in (lambda: prepared.solve(grid), lambda: prepared.totals_many([grid] * 3)):
        with time_limit(0.2), pytest.raises(TimeoutError, match="time limit"):
            call()
    assert prepared._codes is not None
    with pytest.raises(TimeoutError, match="time limit"):
        prepared._codes.solver.solve(prepared.encode(grid.faces), 0, 0.2)
    # A limit already spent: refused before searching; an outer limit that ends sooner holds.
    with time_limit(60), time_limit(0.0), pytest.raises(TimeoutError):
        prepared.solve(grid)
    with time_limit(0.2), time_limit(3600), pytest.raises(TimeoutError):
        prepared.solve(grid)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_time_limit_not_reached_changes_nothing(tmp_path: Path, variant: str) -> None:
    from boggle_dafsa.solver import time_limit

    dictionary = dictionary_from_words(["ABE", "BEA", "SEA", "ABBE", "QUE", "BASE", "SABE"], tmp_path)
    grids = [Grid.parse("AB/ES"), Grid.parse("SE/AB"), Grid.parse("BA/SE")]
    prepared = prepared_variant(dictionary, (2, 2), variant)
    unlimited = prepared.solve_many(grids), prepared.totals_many(grids), [prepared.solve(grid) for grid in grids]
    with time_limit(3600):
        limited = prepared.solve_many(grids), prepared.totals_many(grids), [prepared.solve(grid) for grid in grids]
    assert limited == unlimited
    assert unlimited[0] == PreparedSolver(dictionary, (2, 2), kernel="python").solve_many(grids)


@pytest.mark.slow
@pytest.mark.parametrize("pure", ["", "1"])
def test_the_command_stops_a_dense_search_at_its_timeout(tmp_path: Path, pure: str) -> None:
    # Without the deadline inside the compiled kernel, this command would run for ages:
    # its call holds no GIL, so the timer's handler would wait for it.
    from conftest import COMMAND

    dictionary, grid = _dense(tmp_path)
    environment = {**os.environ, "BOGGLE_DAFSA_PURE": pure}
    for extra in ([], ["--json"]):
        out = subprocess.run(
            [COMMAND, "solve", "A" * 64, "--shape", "4x4x4", "-d", dictionary.path, "--timeout", "1", *extra],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 2, out.stderr
        assert out.stderr.strip().splitlines() == ["boggle-dafsa: solve: gave up after the time limit of 1 s (--timeout)"]
    quick = subprocess.run(
        [COMMAND, "solve", "AAAA", "-d", dictionary.path, "--timeout", "60", "-q"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert quick.returncode == 0 and quick.stdout.split() == ["AAAA", "AAA"]


def _damaged(
    tmp_path: Path, change: dict[int, int], longest: int | None = None, words: tuple[str, ...] = ("abc", "abd", "bcd", "abcabc")
) -> Path:
    """A copy of a small version 1 dictionary of ``words`` with cells changed (by index from the root's cell)."""
    from boggle_dafsa.automaton import fileformat

    good = dictionary_from_words(list(words), tmp_path, version=1)
    data = bytearray(Path(good.path).read_bytes())
    body, root = good.header.header_size, good.root
    for offset, value in change.items():
        struct.pack_into("<I", data, body + 4 * (root + offset), value)
    if longest is not None:
        import zlib

        fields = list(fileformat._FIXED.unpack_from(data))
        fields[10] = longest
        fields[-1] = 0
        fileformat._FIXED.pack_into(data, 0, *fields)
        struct.pack_into("<I", data, fileformat._HEADER_CRC_OFFSET, zlib.crc32(bytes(data[: good.header.header_size])))
    good.close()
    damaged = tmp_path / "damaged.dafsa"
    damaged.write_bytes(bytes(data))
    return damaged


@each("solver")
def test_a_cell_pointing_outside_the_file_is_a_dictionary_error(tmp_path: Path, kernel: str) -> None:
    path = _damaged(tmp_path, {1: 0x0FFFFFFF})  # the root's first child, far outside
    with pytest.raises(DictionaryError, match="damaged"):
        solve(Grid.parse("ABC/DEF"), NativeDictionary(path), kernel=kernel)


@each("solver")
def test_a_multi_letter_face_leading_to_the_last_index_is_a_dictionary_error(tmp_path: Path, kernel: str) -> None:
    # After QU's Q, the U's child is 0xFFFFFFFF: outside the file like any other index
    # (the C kernel once took that one value for "no word goes on" and said nothing).
    words = ("que", "abc")
    good = dictionary_from_words(list(words), tmp_path / "good")
    layout = good.layout()
    cells, root, bits = layout.cells, layout.root, layout.letter_bits
    head = cells[root]
    q = cells[root + 1 + (head & ((1 << bits["Q"]) - 1)).bit_count()]
    slot = q + 1 + (cells[q] & ((1 << bits["U"]) - 1)).bit_count()
    good.close()
    dictionary = NativeDictionary(_damaged(tmp_path, {slot - root: 0xFFFFFFFF}, words=words))
    with pytest.raises(DictionaryError, match="damaged"):
        dictionary.checked()  # the census (automaton/_census.c) refuses it before any search
    dictionary._checked = True  # past the census: the kernels' own checks
    for grid in (Grid((2, 2), ("QU", "E", "A", "B")), Grid((2, 2), ("A", "QU", "E", "B"))):  # QU first, QU next
        with pytest.raises(DictionaryError, match="damaged"):
            solve(grid, dictionary, kernel=kernel)
        if kernel == "c":
            prepared = prepared_variant(dictionary, grid.shape, "c")
            with pytest.raises(DictionaryError, match="damaged"):
                prepared.totals_many([grid] * 10)  # numbered after a few grids: the totals search


@each("solver")
def test_a_cycle_is_cut_by_the_longest_word(tmp_path: Path, kernel: str) -> None:
    # The root's first child (A) points back to the root: AAAA... is a prefix forever.
    path = _damaged(tmp_path, {1: 0}, longest=3)
    dictionary = NativeDictionary(path)
    with pytest.raises(DictionaryError, match="damaged"):
        solve(Grid((3, 3), ("A",) * 9), dictionary, kernel=kernel)


@needs_c
def test_the_compiled_solver_refuses_bad_arguments(tmp_path: Path) -> None:
    from boggle_dafsa.solver._native import Solver

    dictionary = dictionary_from_words(["abc"], tmp_path)
    layout = dictionary.layout()
    args = (layout.cells, layout.root, layout.longest_word, layout.alphabet)
    solver = Solver(*args, neighbours((2, 2)), 3, (0, 1), Hit, DictionaryError, "x")
    with pytest.raises(ValueError, match="not registered"):
        solver.solve(bytes([0, 1, 2, 40]))
    with pytest.raises(ValueError, match="whole grids"):
        solver.solve_many(bytes([0, 1, 2]))
    with pytest.raises(ValueError, match="32..255"):
        solver.set_face(5, bytes([0, 1]))
    with pytest.raises(ValueError, match="outside the alphabet"):
        solver.set_face(40, bytes([0, 30]))
    with pytest.raises(ValueError, match="not another cell"):
        Solver(*args, ((1,), (7,)), 3, (0, 1), Hit, DictionaryError, "x")
    with pytest.raises(TypeError):
        Solver(object(), *args[1:], neighbours((2, 2)), 3, (0, 1), Hit, DictionaryError, "x")
    assert solver.solve(bytes([0, 1, 2, 31]), 0) == (1, 1)  # ABC, one point


@pytest.mark.slow
@needs_c
def test_both_copies_of_the_compiled_search_agree(tmp_path: Path) -> None:
    # On x86 the searches are compiled twice, for any CPU and for CPUs with popcnt, and
    # the module picks one at import; BOGGLE_DAFSA_PLAIN_SEARCH=1 makes it pick the first.
    import random

    rng = random.Random(5)
    words = sorted({"".join(rng.choice("ABEILNORSTQU") for _ in range(rng.randint(2, 8))) for _ in range(3000)})
    dictionary = dictionary_from_words([*words, "QUE", "QUOTA", "SQUARE"], tmp_path)
    code = (
        "import sys, random; from boggle_dafsa.solver import PreparedSolver, _native; "
        "from boggle_dafsa.automaton.reader import NativeDictionary; "
        "rng = random.Random(7); faces = ['A', 'B', 'E', 'I', 'L', 'N', 'O', 'R', 'S', 'T', 'QU']; "
        "grids = [tuple(rng.choice(faces) for _ in range(25)) for _ in range(40)]; "
        "prepared = PreparedSolver(NativeDictionary(sys.argv[1]), (5, 5)); "
        "print(_native.SEARCH, prepared.totals_many(grids), prepared.solve_many(grids[:10]))"
    )
    outputs = {}
    for plain in ("1", ""):
        environment = {**os.environ, "BOGGLE_DAFSA_PLAIN_SEARCH": plain}
        outputs[plain] = subprocess.run(
            [sys.executable, "-c", code, dictionary.path],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
    assert outputs["1"].startswith("plain ")
    assert outputs["1"].split(" ", 1)[1] == outputs[""].split(" ", 1)[1]
    assert "(0, 0), (0, 0)" not in outputs[""]  # words were found


def test_a_prepared_solver_checks_shapes(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["abc"], tmp_path)
    prepared = PreparedSolver(dictionary, (2, 2))
    with pytest.raises(GridError):
        prepared.solve(Grid((1, 4), tuple("ABCD")))
    with pytest.raises(GridError):
        prepared.solve(("A", "B"))


def test_many_different_multi_letter_faces(tmp_path: Path) -> None:
    # 256 different two-letter faces, more than the one-byte codes hold: still solved, alike.
    letters = "ABCDEFGHIJKLMNOP"
    faces = [a + b for a in letters for b in letters]
    grids = [Grid((2, 2), tuple(faces[i : i + 4])) for i in range(0, 256, 4)]
    words = [grid.faces[0] + grid.faces[1] for grid in grids]
    dictionary = dictionary_from_words(words, tmp_path)
    answers = [PreparedSolver(dictionary, (2, 2), kernel=kernel).solve_many(grids) for kernel in SOLVER]
    assert all(answer == answers[0] for answer in answers)
    assert [[hit.word for hit in hits] for hits in answers[0]] == [[word] for word in words]
    big = Grid((16, 16), tuple(faces))  # 256 different faces in one grid
    answers = [PreparedSolver(dictionary, (16, 16), kernel=kernel).solve(big) for kernel in SOLVER]
    assert all(answer == answers[0] for answer in answers)
    assert {hit.word for hit in answers[0]} == set(words)


def test_foreign_dictionaries_use_the_generic_kernel(tmp_path: Path) -> None:
    from boggle_dafsa.formats import open_path, write_dictionary

    words = ["ABC", "ABD", "BAD", "CAB"]
    native = dictionary_from_words(words, tmp_path)
    target = tmp_path / "words.marisa"
    write_dictionary(list(native), target, "marisa")
    foreign = open_path(target)
    prepared = PreparedSolver(foreign, (2, 2))
    assert prepared.kernel == "generic"
    grid = Grid.parse("AB/DC")
    assert prepared.solve(grid) == PreparedSolver(native, (2, 2), kernel="python").solve(grid)
