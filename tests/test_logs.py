"""The logs of ``prove`` and ``best`` are checked, not believed (issue 31, trust round three).

An audit edited logs and resumed them: a line's score made 999 was printed as proven, a
class's boards removed were dropped with exit 0. Now every line carries a digest of its
JSON, of the run that wrote it (spec, seed, dictionary content) and of the line before it,
and ``--resume`` scores every board a log names again. Edited lines, lines removed in the
middle, lines of another proof or dictionary, lines resealed by someone who read the code
and logs of older versions are refused in one line naming the log and the line; a tail cut
by a kill still resumes to what an uninterrupted run gives.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from typer.testing import CliRunner

from boggle_dafsa.cli import app
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search import best as S
from boggle_dafsa.search import logs
from boggle_dafsa.search import prove as P
from helpers.dictionaries import PROOF_BUCKETS as BUCKETS
from helpers.dictionaries import PROOF_CORNERS as CORNERS
from helpers.dictionaries import PROOF_WORDS as WORDS
from helpers.dictionaries import dictionary_from_words

runner = CliRunner()
#: The proof of these tests: 6 classes, 37 boards of at least 3 points.
PROVE = ("-s", "2x2", "--min", "3", "--buckets", BUCKETS, "--corner-buckets", CORNERS)
#: The search of these tests: 3 runs, a line each.
BEST = ("-s", "3x3", "--seed", "5", "--runs", "3", "--pool", "6")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("logs")


@pytest.fixture(scope="module")
def small_dict(folder: Path) -> str:
    return str(dictionary_from_words(WORDS, folder).path)


@pytest.fixture(scope="module")
def other_dict(folder: Path) -> str:
    # The same letters, three more words: the same faces, buckets and classes.
    return str(dictionary_from_words([*WORDS, "cote", "cotes", "stet"], folder, name="other.dafsa").path)


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def proof_log(small_dict: str, folder: Path) -> str:
    """The text of the log of the proof, written by the command."""
    log = folder / "proof.ndjson"
    invoke("prove", "-d", small_dict, *PROVE, "--log", str(log))
    return log.read_text()


@pytest.fixture(scope="module")
def search_log(small_dict: str, folder: Path) -> str:
    """The text of the log of the search, written by the command."""
    log = folder / "search.ndjson"
    invoke("best", "-d", small_dict, *BEST, "--log", str(log))
    return log.read_text()


def proof_spec(dictionary: str, shape: tuple[int, ...] = (2, 2), minimum: int = 3) -> P.ProofSpec:
    return P.make_spec(dictionary, shape, minimum, buckets=BUCKETS, corner_buckets=CORNERS)


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def written(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def resealed(path: Path, rows: list[dict[str, Any]], identity: str) -> Path:
    """The rows written with digests made again, as whoever read the code could."""
    previous = logs.START
    out = []
    for row in rows:
        body = {name: value for name, value in row.items() if name != "digest"}
        previous = logs.line_digest(identity, previous, body)
        out.append({**body, "digest": previous})
    return written(path, out)


def refused(read: Any, path: Path, line: int, match: str) -> None:
    with pytest.raises(BoggleError, match=rf"^{path}:{line}: .*{match}") as caught:
        read()
    assert "\n" not in str(caught.value)


# -- prove ----------------------------------------------------------------------------------


def test_every_line_of_a_proof_log_is_sealed_and_a_cut_tail_resumes_to_the_whole_proof(
    small_dict: str, proof_log: str, tmp_path: Path
) -> None:
    spec = proof_spec(small_dict)
    rows = records(proof_log)
    assert len(rows) == 6 and all(isinstance(row.get("digest"), str) and len(row["digest"]) == 32 for row in rows)
    whole = P.prove(spec).boards()
    lines = proof_log.splitlines()
    # As if killed: three classes written, the fourth cut short.
    log = tmp_path / "proof.ndjson"
    log.write_text("\n".join(lines[:3]) + "\n" + lines[3][:30])
    done = P.read_log(log, spec, strict=True)
    assert sorted(done) == sorted(row["class"] for row in rows[:3])  # in the proof's order (shuffled)
    with P.open_log(log, spec) as stream:
        resumed = P.prove(spec, done=done, on_result=lambda result: stream.write(result.to_json(spec.key())))
    assert resumed.boards() == whole
    # The log is whole again, and passes.
    assert sorted(P.read_log(log, spec, strict=True)) == list(range(6))
    assert P.prove(spec, done=P.read_log(log, spec)).boards() == whole


def test_a_proof_log_line_edited_is_refused(small_dict: str, proof_log: str, tmp_path: Path) -> None:
    spec = proof_spec(small_dict)
    rows = records(proof_log)
    number = next(index for index, row in enumerate(rows) if row["boards"])
    # A board's points made 999.
    edited = [dict(row) for row in rows]
    edited[number] = {**rows[number], "boards": [[rows[number]["boards"][0][0], 999, rows[number]["boards"][0][2]]]}
    log = written(tmp_path / "999.ndjson", edited)
    refused(lambda: P.read_log(log, spec, strict=True), log, number + 1, "fails its digest")
    # A class's boards removed: its line no longer passes either.
    edited[number] = {**rows[number], "boards": []}
    log = written(tmp_path / "dropped.ndjson", edited)
    refused(lambda: P.read_log(log, spec, strict=True), log, number + 1, "fails its digest")


def test_a_proof_log_with_a_line_removed_is_refused(small_dict: str, proof_log: str, tmp_path: Path) -> None:
    spec = proof_spec(small_dict)
    lines = proof_log.splitlines(keepends=True)
    middle = tmp_path / "middle.ndjson"
    middle.write_text("".join(lines[:2] + lines[3:]))
    refused(lambda: P.read_log(middle, spec, strict=True), middle, 3, "fails its digest")
    first = tmp_path / "first.ndjson"
    first.write_text("".join(lines[1:]))
    refused(lambda: P.read_log(first, spec, strict=True), first, 1, "fails its digest")


def test_a_resealed_proof_log_is_scored_again(small_dict: str, proof_log: str, tmp_path: Path) -> None:
    spec = proof_spec(small_dict)
    identity = P.log_identity(spec)
    rows = records(proof_log)
    number = next(index for index, row in enumerate(rows) if row["boards"])
    text, points, words = rows[number]["boards"][0]
    # Digests made again after the edit: the solver still says what the board scores.
    edited = [dict(row) for row in rows]
    edited[number] = {**rows[number], "boards": [[text, 999, words], *rows[number]["boards"][1:]]}
    log = resealed(tmp_path / "999.ndjson", edited, identity)
    refused(lambda: P.read_log(log, spec), log, number + 1, f"'{text}' scores {points} points and {words} words, not the 999")
    # A board of the class that scores under the minimum, with its true score.
    context = P.context_for(spec)
    canonical = {text for row in rows for text, _, _ in row["boards"]}
    grids = list(itertools.product(spec.faces, repeat=4))
    under = None
    for grid, (found_words, found_points) in zip(grids, context.scorer.totals_many(grids)):
        key = context.canonical.key(grid)
        if 0 < found_points < 3 and key == "".join(grid) and key not in canonical:
            under = (key, found_points, found_words)
            break
    assert under is not None
    for index, row in enumerate(rows):
        edited = [dict(row) for row in rows]
        edited[index] = {**row, "boards": [list(under), *row["boards"]]}
        log = resealed(tmp_path / f"under-{index}.ndjson", edited, identity)
        # In its own class, it is under the minimum; in another, not a board of that class.
        refused(lambda: P.read_log(log, spec), log, index + 1, "under the minimum 3|is not a board of class")
    under_minimum = 0
    for index in range(len(rows)):
        try:
            P.read_log(tmp_path / f"under-{index}.ndjson", spec)
        except BoggleError as error:
            under_minimum += "under the minimum" in str(error)
    assert under_minimum == 1


@pytest.mark.slow
def test_a_proof_log_of_another_dictionary_or_shape_is_refused(small_dict: str, other_dict: str, tmp_path: Path) -> None:
    spec = proof_spec(small_dict)
    key = spec.key()
    for name, dictionary, shape in [("dictionary", other_dict, "2x2"), ("shape", small_dict, "1x4")]:
        log = tmp_path / f"{name}.ndjson"
        invoke("prove", "-d", dictionary, *PROVE[:1], shape, *PROVE[2:], "--log", str(log))
        rows = records(log.read_text())
        assert rows[0]["spec"] != key
        # Its lines made to name this proof: their digests are of the other one.
        written(log, [{**row, "spec": key} for row in rows])
        refused(lambda: P.read_log(log, spec, strict=True), log, 1, "fails its digest")
    # Embedded lists differ by their content, though their names are left out of the spec's key.
    assert logs.dictionary_identity("en", None) != logs.dictionary_identity("enable2k", None)


def test_a_proof_log_of_an_older_version_is_refused(small_dict: str, proof_log: str, tmp_path: Path) -> None:
    spec = proof_spec(small_dict)
    log = written(tmp_path / "old.ndjson", [{k: v for k, v in row.items() if k != "digest"} for row in records(proof_log)])
    refused(lambda: P.read_log(log, spec, strict=True), log, 1, "without a digest .*start over with `log` in a new file")
    # The command line writes its option for the parameter.
    resumed = runner.invoke(app, ["prove", "-d", small_dict, *PROVE, "--resume", str(log)])
    assert resumed.exit_code == 2 and "start over with --log in a new file" in resumed.output


# -- best -----------------------------------------------------------------------------------


def search_spec(dictionary: str) -> S.SearchSpec:
    return S.make_spec(dictionary, (3, 3), pool=6)


def test_a_search_log_line_edited_or_removed_is_refused(small_dict: str, search_log: str, tmp_path: Path) -> None:
    spec = search_spec(small_dict)
    rows = records(search_log)
    assert len(rows) == 3 and all(len(row["digest"]) == 32 for row in rows)
    assert sorted(S.read_log(tmp_path / "none.ndjson", spec, 5)) == []
    edited = [dict(row) for row in rows]
    board, _, words, _ = rows[1]["best"][0]
    edited[1] = {**rows[1], "best": [[board, 999, words, 999], *rows[1]["best"][1:]]}
    log = written(tmp_path / "999.ndjson", edited)
    refused(lambda: S.read_log(log, spec, 5), log, 2, "fails its digest")
    # Resealed: scored again.
    log = resealed(tmp_path / "resealed.ndjson", edited, S.log_identity(spec, 5))
    refused(lambda: S.read_log(log, spec, 5), log, 2, "scores .* not the 999")
    lines = search_log.splitlines(keepends=True)
    middle = tmp_path / "middle.ndjson"
    middle.write_text(lines[0] + lines[2])
    refused(lambda: S.read_log(middle, spec, 5), middle, 2, "fails its digest")


def test_a_search_log_of_another_dictionary_is_refused(small_dict: str, other_dict: str, tmp_path: Path) -> None:
    spec = search_spec(small_dict)
    log = tmp_path / "other.ndjson"
    invoke("best", "-d", other_dict, *BEST, "--log", str(log))
    rows = records(log.read_text())
    written(log, [{**row, "spec": spec.key()} for row in rows])
    refused(lambda: S.read_log(log, spec, 5), log, 1, "fails its digest")
    # As an older version wrote it: no digests.
    old = written(tmp_path / "old.ndjson", [{k: v for k, v in row.items() if k != "digest"} for row in rows])
    refused(lambda: S.read_log(old, search_spec(other_dict), 5), old, 1, "without a digest")


def test_a_search_log_cut_short_resumes_and_stays_readable(small_dict: str, search_log: str, tmp_path: Path) -> None:
    spec = search_spec(small_dict)
    whole = json.loads(invoke("best", "-d", small_dict, *BEST, "--json"))["best"]
    lines = search_log.splitlines()
    log = tmp_path / "search.ndjson"
    log.write_text(lines[0] + "\n" + lines[1][:40])  # killed while writing the second run
    assert sorted(S.read_log(log, spec, 5)) == [0]
    for _ in range(2):  # resumed, then resumed again: the cut line is gone, not glued to the next
        resumed = json.loads(invoke("best", "-d", small_dict, *BEST, "--resume", str(log), "--json"))["best"]
        assert [{k: v for k, v in board.items() if k != "seconds"} for board in resumed] == [
            {k: v for k, v in board.items() if k != "seconds"} for board in whole
        ]
        assert sorted(S.read_log(log, spec, 5)) == [0, 1, 2] and len(log.read_text().splitlines()) == 3


# -- the commands ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_commands_refuse_an_edited_log_in_one_line(small_dict: str, proof_log: str, search_log: str, tmp_path: Path) -> None:
    for command, args, text, key in [("prove", PROVE, proof_log, "boards"), ("best", BEST, search_log, "best")]:
        rows = records(text)
        number = next(index for index, row in enumerate(rows) if row[key])
        rows[number][key][0][1] = 999
        log = written(tmp_path / f"{command}.ndjson", rows)
        before = log.read_bytes()
        result = run_cli(command, "-d", small_dict, *args, "--resume", str(log), "--json")
        assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
        assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"boggle-dafsa: {log}:{number + 1}: ")
        assert log.read_bytes() == before
