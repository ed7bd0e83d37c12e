"""The fast batch path: grid texts read as Grid.parse reads them, results rendered as the general renderers do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.grid import Grid
from boggle_dafsa.board.scoring import CLASSIC
from boggle_dafsa.errors import GridError
from boggle_dafsa.output.batch import Renderer
from boggle_dafsa.output.jsonable import result_json
from boggle_dafsa.output.render import Rendering, format_totals, render_lines
from boggle_dafsa.output.rows import GRID, PATH, POINTS, SUMMARY_LINE, WORD, WORDS, RowFormat, SummaryFormat
from boggle_dafsa.solver import PreparedSolver, solve
from boggle_dafsa.solver.fastbatch import QuickGrids, Solved, mode_for, solve_texts
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import each

texts = st.one_of(
    st.text("abcqQXyZ/", max_size=20),
    st.lists(st.text("AbQqE", min_size=1, max_size=4), min_size=1, max_size=5).map("/".join),
    st.text("aBcQé /.1", max_size=12),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(texts, st.booleans(), st.booleans(), st.sampled_from([None, (2, 2), (1, 4), (2, 2, 2), (4, 4)]))
def test_quick_grids_read_what_grid_parse_reads(text: str, exact: bool, q_is_qu: bool, shape: tuple[int, ...] | None) -> None:
    policy = Policy.EXACT if exact else Policy.FOLD
    normalizer = lambda word: normalize(word, policy)  # noqa: E731
    quick = QuickGrids(normalizer, q_is_qu=q_is_qu, shape=shape).parse(text.strip())
    try:
        grid = Grid.parse(text, shape=shape, normalize=normalizer, q_is_qu=q_is_qu)
    except GridError:
        assert quick is None  # a bad grid is left to Grid.parse, which says what is wrong
        return
    if quick is not None:
        assert quick == (grid.shape, grid.faces, str(grid))


def test_quick_grids_take_the_common_forms() -> None:
    quick = QuickGrids(normalize, q_is_qu=True)
    assert quick.parse("idxt/mhei/ervn/tllu") == ((4, 4), tuple("IDXTMHEIERVNTLLU"), "IDXT/MHEI/ERVN/TLLU")
    assert quick.parse("IDXTMHEIERVNTLLU")[2] == "IDXT/MHEI/ERVN/TLLU"  # type: ignore[index]
    assert quick.parse("QAB/CDE")[1][0] == "QU"  # type: ignore[index]
    assert quick.parse("QU A/B C") is None and quick.parse("élan") is None and quick.parse("AB//CD") is None


@each("solver")
@pytest.mark.parametrize(
    ("scores", "paths", "as_json", "summary"),
    [
        (False, False, False, False),
        (True, False, False, False),
        (False, True, False, False),
        (True, True, False, False),
        (False, False, True, False),
        (False, False, False, True),
    ],
)
def test_rendered_as_the_general_renderers_do(
    tmp_path: Path, kernel: str, scores: bool, paths: bool, as_json: bool, summary: bool
) -> None:
    dictionary = dictionary_from_words(["chat", "chien", "niche", "nicher", "ache", "hache", "quai", "aqua"], tmp_path)
    lines = [(1, "CHAT/IENE/RQAI/UNEH"), (3, "QAUI/NICH/EREA/HCIN"), (4, "AB/CD"), (7, "chaine")]
    renderer = Renderer(CLASSIC.score, scores=scores, paths=paths, as_json=as_json, summary=summary)
    solved = list(
        solve_texts(
            lines,
            lambda text: Grid.parse(text, normalize=dictionary.normalize, q_is_qu=True),
            QuickGrids(dictionary.normalize, q_is_qu=True),
            lambda shape: PreparedSolver(dictionary, shape, kernel=kernel),
            mode_for(scores, paths, as_json, summary),
            chunk=2,
            rows=renderer.row_style,
        )
    )
    assert [item.line for item in solved] == [1, 3, 4, 7]
    for (number, text), item in zip(lines, solved):
        grid = Grid.parse(text, normalize=dictionary.normalize, q_is_qu=True)
        hits = solve(grid, dictionary)
        count, points = len(hits), sum(hit.points for hit in hits)
        rendered, words, total = renderer(item)
        assert (words, total) == (count, points)
        if summary:
            assert rendered == f"{grid}\t{count}\t{points}"
        elif as_json:
            assert rendered == json.dumps(result_json(grid, hits, line=number), ensure_ascii=False)
        else:
            body = [f"# {grid}\t{format_totals(count, points)}", *render_lines(grid, hits, Rendering(scores=scores, paths=paths))]
            assert rendered == "\n".join(body) + "\n"
    assert any(renderer(item)[1] for item in solved)


def test_a_bad_grid_stops_after_the_grids_before_it(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["abc"], tmp_path)
    lines = [(1, "ABC/DEF"), (2, "AB/C"), (3, "ABC/DEF")]
    seen: list[int] = []
    with pytest.raises(GridError) as raised:
        for item in solve_texts(
            lines, lambda text: Grid.parse(text), QuickGrids(normalize), lambda shape: PreparedSolver(dictionary, shape), "totals"
        ):
            seen.append(item.line)
    assert seen == [1] and raised.value.line == 2  # type: ignore[attr-defined]


def test_solved_carries_the_mode_result(tmp_path: Path) -> None:
    dictionary = dictionary_from_words(["abc", "abcd"], tmp_path)
    [item] = solve_texts([(5, "AB/DC")], Grid.parse, None, lambda shape: PreparedSolver(dictionary, shape), "words")
    assert item == Solved(5, "AB/DC", (2, 2), (2, ["ABCD", "ABC"]))


@pytest.mark.slow
def test_summary_from_the_command_line(tmp_path: Path) -> None:
    from conftest import run_cli

    dictionary = dictionary_from_words(["chat", "chien", "niche", "ache", "hache"], tmp_path)
    batch = tmp_path / "grids.txt"
    batch.write_text("chat/iene/rqai/uneh\n# a comment\n\nAB/CD\n")
    result = run_cli("solve", "--batch", str(batch), "--summary", "-d", dictionary.path, "-q")
    assert result.returncode == 0, result.stderr
    grid = Grid.parse("chat/iene/rqai/uneh")
    hits = solve(grid, dictionary)
    assert result.stdout == f"{grid}\t{len(hits)}\t{sum(h.points for h in hits)}\nAB/CD\t0\t0\n"
    assert len(hits) >= 2
    single = run_cli("solve", "CHAT/IENE/RQAI/UNEH", "--summary", "-d", dictionary.path)
    assert single.stdout == result.stdout.splitlines(keepends=True)[0]
    refused = run_cli("solve", "--batch", str(batch), "--summary", "--json", "-d", dictionary.path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--summary" in refused.stderr
    threads = run_cli("solve", "--batch", str(batch), "--summary", "-d", dictionary.path, "-q", "--jobs", "2")
    assert threads.stdout == result.stdout


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([(2, 2), (3, 4), (4, 4), (2, 5)]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.data(),
)
def test_a_chunk_read_at_once_reads_as_grid_parse(
    shape: tuple[int, int], rows: bool, exact: bool, q_is_qu: bool, data: st.DataObject
) -> None:
    policy = Policy.EXACT if exact else Policy.FOLD
    normalizer = lambda word: normalize(word, policy)  # noqa: E731
    height, width = shape
    boards = data.draw(st.lists(st.text("abQqEz", min_size=height * width, max_size=height * width), min_size=1, max_size=6))
    if rows:
        boards = ["/".join(board[start : start + width] for start in range(0, len(board), width)) for board in boards]
    quick = QuickGrids(normalizer, q_is_qu=q_is_qu)
    bulk = quick.bulk(boards)
    grids = [Grid.parse(board, normalize=normalizer, q_is_qu=q_is_qu) for board in boards]
    if bulk is None:
        assert any(grid.shape != shape for grid in grids)  # a flat run that is not a square reads as one row
        return
    read_shape, letters, shown = bulk
    assert read_shape == shape and [grid.shape for grid in grids] == [shape] * len(grids)
    assert shown == [str(grid) for grid in grids]
    faces = [("QU" if letter == "Q" else "qu" if letter == "q" else letter) if q_is_qu else letter for letter in letters]
    assert faces == [face for grid in grids for face in grid.faces]


batch_lines_text = st.one_of(
    st.text("abqQEs", min_size=16, max_size=16),  # a flat 4x4 run, the usual line
    st.lists(st.text("abqQEs", min_size=4, max_size=4), min_size=4, max_size=4).map("/".join),  # rows
    st.sampled_from(["", "# a comment", "  ABQE/SSAB/EQAB/BASE  ", "AB/CD", "ABC", "QUAB/E S A B", "AB/C", "a b/c d"]),
)


@pytest.mark.slow
@each("solver")
@settings(max_examples=60, deadline=None)
@given(
    raw=st.lists(batch_lines_text, min_size=0, max_size=14),
    chunk=st.integers(1, 6),
    q_is_qu=st.booleans(),
    threads=st.integers(1, 2),
    stream=st.booleans(),
)
def test_summary_chunks_give_what_each_grid_gives(
    tmp_path_factory: pytest.TempPathFactory,
    kernel: str,
    raw: list[str],
    chunk: int,
    q_is_qu: bool,
    threads: int,
    stream: bool,
) -> None:
    # The summary of a batch read whole, chunks written by the kernel, against each grid
    # parsed, solved and printed alone: the same lines, and a bad grid stopping at the
    # same place with its line number.
    from boggle_dafsa.solver.fastbatch import summary_chunks

    dictionary = dictionary_from_words(
        ["base", "abase", "quas", "sabe", "beas", "abbe", "squab", "seas"], tmp_path_factory.mktemp("d")
    )
    parse = lambda text: Grid.parse(text, normalize=dictionary.normalize, q_is_qu=q_is_qu)  # noqa: E731
    expected: list[str] = []
    bad_line = None
    for number, line in enumerate(raw, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            grid = parse(text)
        except GridError:
            bad_line = number
            break
        hits = solve(grid, dictionary)
        expected.append(f"{grid}\t{len(hits)}\t{sum(hit.points for hit in hits)}")
    renderer = Renderer(CLASSIC.score, scores=False, paths=False, as_json=False, summary=True)
    got: list[str] = []
    counted = [0, 0, 0]
    # A file's lines (a list) or standard input's (a stream, read a chunk at a time).
    groups = summary_chunks(
        iter(raw) if stream else raw,
        parse,
        QuickGrids(dictionary.normalize, q_is_qu=q_is_qu),
        lambda shape: PreparedSolver(dictionary, shape, kernel=kernel),
        renderer,
        threads=threads,
        chunk=chunk,
    )
    try:
        for _, text, grids, words, points in groups:
            assert text.count("\n") == grids - 1
            got.extend(text.split("\n"))
            counted = [counted[0] + grids, counted[1] + words, counted[2] + points]
    except GridError as error:
        assert error.line == bad_line  # type: ignore[attr-defined]
    else:
        assert bad_line is None
    assert got == expected
    assert counted == [
        len(expected),
        sum(int(line.split("\t")[1]) for line in expected),
        sum(int(line.split("\t")[2]) for line in expected),
    ]


@each("solver")
def test_summary_rows_check_their_arguments(tmp_path: Path, kernel: str) -> None:
    dictionary = dictionary_from_words(["base", "quiz"], tmp_path)
    prepared = PreparedSolver(dictionary, (2, 2), kernel=kernel)
    codes = prepared.encode(("B", "A", "S", "E")) + prepared.encode(("QU", "A", "S", "E"))
    assert prepared.run_summary(codes, b"BASEQASE", 2, True) == ("BA/SE\t1\t1\nQU A/S E\t0\t0", 1, 1)
    assert prepared.run_summary(codes, b"BASEQASE", 4, False) == ("BASE\t1\t1\nQASE\t0\t0", 1, 1)
    # The letters are shown as given (an exact dictionary's lower case: q reads qu).
    assert prepared.run_summary(codes, b"baseqase", 2, True) == ("ba/se\t1\t1\nqu a/s e\t0\t0", 1, 1)
    assert prepared.run_summary(b"", b"", 2, True) == ("", 0, 0)
    # Any template the output module gives: the kernel fills the marks, whatever surrounds them.
    own = SummaryFormat(f"[{WORDS}|{GRID}|{POINTS}]", " ; ", "//", "_")
    assert prepared.run_summary(codes, b"BASEQASE", 2, True, summary=own) == ("[1|BA//SE|1] ; [0|QU_A//S_E|0]", 1, 1)
    solver = prepared._codes.solver  # type: ignore[union-attr]
    line = (SUMMARY_LINE.template, SUMMARY_LINE.between, SUMMARY_LINE.row_separator, SUMMARY_LINE.face_separator)
    for letters, width, message in (
        (b"BASE", 2, "letters for"),
        (b"BASEQASE", 3, "do not divide"),
        (b"BASE\xe9ASE", 2, "ASCII"),
        (b"BASE\0ASE", 2, "ASCII"),
    ):
        with pytest.raises(ValueError, match=message):
            solver.summary_rows(codes, letters, width, False, *line)
    for template in (f"{GRID}{PATH}", GRID * 16):  # a field a summary has not; too many fields
        with pytest.raises(ValueError, match="field"):
            solver.summary_rows(codes, b"BASEQASE", 2, False, template, *line[1:])


@each("solver")
def test_rows_fill_any_template(tmp_path: Path, kernel: str) -> None:
    dictionary = dictionary_from_words(["base", "bas", "sea"], tmp_path)
    prepared = PreparedSolver(dictionary, (2, 2), kernel=kernel)
    row = RowFormat(f"<{POINTS}:{WORD}:{PATH}:{WORD}>", "|", "-")
    cells = ["a", "b", "c", "d"]
    assert prepared.rows_many([("B", "A", "S", "E")], cells, row) == [
        (3, 3, "<1:BASE:a-b-c-d:BASE>|<1:BAS:a-b-c:BAS>|<1:SEA:c-d-b:SEA>")
    ]
    solver = prepared._codes.solver  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="field"):
        solver.rows_many(prepared.encode(("B", "A", "S", "E")), cells, f"{WORD}{GRID}", "|", "-")


@pytest.mark.slow
def test_a_summary_from_a_file_is_what_standard_input_gives(tmp_path: Path) -> None:
    # A file is read whole, standard input as a stream a chunk at a time (its line breaks,
    # CRLF here, dropped as a file's are); the kernel writes the chunks of both.
    import random

    from conftest import run_cli

    dictionary = dictionary_from_words(["base", "abase", "quas", "sabe", "beas", "abbe", "squab", "seas"], tmp_path)
    rng = random.Random(3)
    lines = ["".join(rng.choice("ABQES") for _ in range(16)) for _ in range(700)]
    lines[300:300] = ["# a comment", "", "ab/cd", "QUAB/E S A B"]
    batch = tmp_path / "grids.txt"
    batch.write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))
    for extra in ([], ["--qu"], ["--jobs", "2"]):
        from_file = run_cli("solve", "--batch", str(batch), "--summary", "-d", dictionary.path, *extra)
        from_stdin = run_cli(
            "solve", "--batch", "-", "--summary", "-d", dictionary.path, *extra, input=batch.read_bytes().decode("ascii")
        )
        assert from_file.returncode == 0, from_file.stderr
        assert from_file.stdout == from_stdin.stdout and from_file.stderr == from_stdin.stderr
        assert from_file.stdout.count("\n") == 702 and "702 grids" in from_file.stderr
