"""A proof in shards (issue 35): `prove --shard I/N` proves the classes numbered I modulo N into
its own log, and `prove --merge LOG...` makes of the shards' logs the proof a single run makes,
or refuses them in one line (edited, cut short, of another proof: exit 2; classes missing:
exit 1). The merge of any N shards is the single run (hypothesis, against brute force too); a
3x3 proof in 8 shards, two of them killed with SIGKILL while they prove and run again, merges
to the single run's list."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_prove import brute_force
from typer.testing import CliRunner

from boggle_dafsa.cli import app
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search import prove as P
from boggle_dafsa.search.shards import IncompleteProof, merge, parse_shard, shard_classes
from helpers.dictionaries import PROOF_BUCKETS as BUCKETS
from helpers.dictionaries import PROOF_CORNERS as CORNERS
from helpers.dictionaries import PROOF_WORDS as WORDS
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import PROVER

runner = CliRunner()
PROGRAM = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]
#: The proof of the fast tests: 2x2, 6 classes.
SMALL = ("-s", "2x2", "--min", "3", "--buckets", BUCKETS, "--corner-buckets", CORNERS)


def cli(*args: str) -> tuple[int, str, str]:
    """The command run in this process (typer's runner: the same exit codes and lines as the
    installed script, without starting Python): its status, standard output and error."""
    result = runner.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shards")


@pytest.fixture(scope="module")
def small_dict(folder: Path) -> str:
    return str(dictionary_from_words(WORDS, folder).path)


def write_shards(spec: P.ProofSpec, count: int, folder: Path, kernel: str = "auto") -> list[Path]:
    """Each shard of ``count`` proven and logged as the command does: the logs."""
    paths = []
    total = len(spec.classes())
    for index in range(count):
        path = folder / f"shard-{index}-of-{count}.ndjson"
        path.unlink(missing_ok=True)
        with P.open_log(path, spec) as log:
            P.prove(
                spec,
                only=shard_classes(total, index, count),
                kernel=kernel,
                on_result=lambda result, i=index: log.write(result.to_json(spec.key(), (i, count))),  # type: ignore[misc]
            )
        paths.append(path)
    return paths


# -- the parts --------------------------------------------------------------------------------


@given(total=st.integers(0, 300), count=st.integers(1, 40))
def test_the_shards_partition_the_classes_evenly(total: int, count: int) -> None:
    parts = [shard_classes(total, index, count) for index in range(count)]
    assert sorted(index for part in parts for index in part) == list(range(total))
    sizes = [len(part) for part in parts]
    assert max(sizes) - min(sizes) <= 1


def test_a_shard_is_defined_by_the_class_numbers_alone() -> None:
    # Arithmetic on the class numbers (which the spec alone gives), no state of the process:
    # the same arguments give the same list on any machine.
    assert shard_classes(1863, 5, 16) == list(range(5, 1863, 16))
    assert shard_classes(3, 5, 8) == [] and shard_classes(0, 0, 1) == []


@pytest.mark.parametrize(
    ("text", "expected"), [("0/1", (0, 1)), ("3/8", (3, 8)), (" 7 / 8 ", (7, 8)), ("9999/10000", (9999, 10000))]
)
def test_shards_are_parsed(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["8/8", "3", "-1/8", "1/0", "a/b", "1/2/3", "", "0/10000000"])
def test_bad_shards_are_refused_in_one_line(text: str) -> None:
    with pytest.raises(BoggleError) as error:
        parse_shard(text)
    assert "\n" not in str(error.value) and "--" not in str(error.value)  # the library names no flag


# -- the merge is the single run ----------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=15)
@given(
    words=st.lists(st.text(alphabet="ABCE", min_size=2, max_size=4), min_size=1, max_size=25),
    shape=st.sampled_from([(2, 2), (1, 4), (1, 5)]),
    minimum=st.integers(1, 5),
    count=st.integers(1, 9),
    kernel=st.sampled_from(PROVER),
)
def test_the_merge_of_any_shards_is_the_single_run(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], shape: tuple[int, int], minimum: int, count: int, kernel: str
) -> None:
    folder = tmp_path_factory.mktemp("any")
    dictionary = str(dictionary_from_words(words, folder).path)
    spec = P.make_spec(dictionary, shape, minimum, min_length=2)
    single = P.prove(spec, kernel=kernel)
    merged = merge(spec, write_shards(spec, count, folder, kernel))
    assert merged.boards() == single.boards()
    assert {text: (points, words) for text, points, words in merged.boards()} == brute_force(dictionary, spec)
    assert merged.classes == single.classes == len(spec.classes()) and merged.complete


@pytest.mark.slow
def test_the_merge_of_the_shards_prints_what_the_single_run_prints(small_dict: str, tmp_path: Path) -> None:
    logs = []
    for index in range(4):
        log = str(tmp_path / f"shard{index}.ndjson")
        output = ["--json"] if index % 2 else []
        status, shard, error = cli("prove", "-d", small_dict, *SMALL, *output, "--shard", f"{index}/4", "--log", log)
        assert status == 0, error
        if output:
            assert json.loads(shard)["shard"] == [index, 4]
        else:
            assert shard.startswith(f"shard {index}/4: ")
        logs.append(log)
    for output in ([], ["--json"]):
        single_log = str(tmp_path / f"single{len(output)}.ndjson")
        status, single, error = cli("prove", "-d", small_dict, *SMALL, *output, "--log", single_log)
        assert status == 0, error
        # The merge of one whole log: the same bytes (the same classes, the same CPU seconds).
        status, again, error = cli("prove", "-d", small_dict, *SMALL, *output, "--merge", single_log)
        assert status == 0, error
        assert again == single
        # The merge of the four shards' logs: the same list; the CPU seconds are the shards'.
        status, merged, error = cli("prove", "-d", small_dict, *SMALL, *output, "--merge", *logs)
        assert status == 0, error
        if output:
            assert {**json.loads(merged), "cpu_seconds": 0} == {**json.loads(single), "cpu_seconds": 0}
        else:
            # the same lines; the first says the CPU seconds, the shards' here
            assert merged.split("\n", 1)[1] == single.split("\n", 1)[1]
            assert merged.split(" CPU-s")[0].rsplit(", ", 1)[0] == single.split(" CPU-s")[0].rsplit(", ", 1)[0]


def test_identical_duplicates_are_taken_once(small_dict: str, tmp_path: Path) -> None:
    spec = P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    logs = write_shards(spec, 2, tmp_path)
    # A log given twice, and a shard proven again into its own log (two chains in one file).
    with P.open_log(logs[0], spec) as log:
        P.prove(spec, only=shard_classes(6, 0, 2), on_result=lambda result: log.write(result.to_json(spec.key(), (0, 2))))
    assert merge(spec, [*logs, logs[1]]).boards() == P.prove(spec).boards()


# -- refused ------------------------------------------------------------------------------------


@pytest.fixture
def shard_logs(small_dict: str, tmp_path: Path) -> list[Path]:
    spec = P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    return write_shards(spec, 3, tmp_path)


def refused(small_dict: str, logs: list[Path], status: int = 2) -> str:
    code, out, error = cli("prove", "-d", small_dict, *SMALL, "--merge", *map(str, logs))
    assert code == status, error
    assert out == "" and error.count("\n") == 1 and error.startswith("boggle-dafsa: "), error
    return error


def test_an_edited_log_is_refused_at_its_line(small_dict: str, shard_logs: list[Path]) -> None:
    lines = shard_logs[1].read_text().splitlines(keepends=True)
    edited = next(number for number, line in enumerate(lines) if '"boards": [[' in line)
    data = json.loads(lines[edited])
    data["boards"][0][1] = 999
    lines[edited] = json.dumps(data) + "\n"
    shard_logs[1].write_text("".join(lines))
    message = refused(small_dict, shard_logs)
    assert f"{shard_logs[1]}:{edited + 1}: the line fails its digest" in message


def test_a_line_removed_in_the_middle_is_refused(small_dict: str, shard_logs: list[Path]) -> None:
    lines = shard_logs[0].read_text().splitlines(keepends=True)
    assert len(lines) >= 2
    shard_logs[0].write_text("".join(lines[1:]))
    assert f"{shard_logs[0]}:1: the line fails its digest" in refused(small_dict, shard_logs)


def test_a_log_cut_short_is_refused_at_its_last_line(small_dict: str, shard_logs: list[Path]) -> None:
    text = shard_logs[2].read_text()
    shard_logs[2].write_text(text[: len(text) - 7])  # as a shard killed while writing its last line
    count = text.count("\n")
    assert f"{shard_logs[2]}:{count}: the last line is cut short" in refused(small_dict, shard_logs)


def test_a_log_of_another_proof_is_refused(small_dict: str, shard_logs: list[Path], tmp_path: Path) -> None:
    other = P.make_spec(small_dict, (2, 2), 4, buckets=BUCKETS, corner_buckets=CORNERS)  # another minimum
    (tmp_path / "other").mkdir()
    [foreign] = write_shards(other, 1, tmp_path / "other")
    message = refused(small_dict, [*shard_logs, foreign])
    assert f"{foreign}:1: a line of another proof" in message


def test_a_log_of_another_dictionary_is_refused(small_dict: str, shard_logs: list[Path], tmp_path: Path) -> None:
    # The same letters and classes, another word: another proof; its lines given this
    # proof's key fail their digests (which cover the dictionary's content).
    other = str(dictionary_from_words([*WORDS, "cote"], tmp_path, name="other.dafsa").path)
    spec = P.make_spec(other, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    ours = P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    assert spec.classes() == ours.classes()
    (tmp_path / "other").mkdir()
    logs = write_shards(spec, 3, tmp_path / "other")
    assert f"{logs[0]}:1: a line of another proof" in refused(small_dict, logs)
    logs[0].write_text(logs[0].read_text().replace(spec.key(), ours.key()))
    assert f"{logs[0]}:1: the line fails its digest" in refused(small_dict, logs)


def test_a_class_proven_twice_with_other_boards_is_refused(small_dict: str, shard_logs: list[Path]) -> None:
    spec = P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    entries, _ = P.log_entries(shard_logs[0], spec)
    number, result = next((number, result) for number, result in entries if result.boards)
    forged = dataclasses.replace(result, boards=result.boards[1:])
    with P.open_log(shard_logs[1], spec) as log:  # sealed as the command seals: the digests pass
        log.write(forged.to_json(spec.key(), (0, 3)))
    count = shard_logs[1].read_text().count("\n")
    message = refused(small_dict, shard_logs)
    assert (
        f"{shard_logs[1]}:{count}: class {result.index} is proven with other boards than at {shard_logs[0]}:{number}" in message
    )


def test_missing_classes_are_counted_and_named(small_dict: str, shard_logs: list[Path]) -> None:
    message = refused(small_dict, [shard_logs[0], shard_logs[2]], status=1)
    assert "2 of the proof's classes are in no log (1, 4), of shard 1/3" in message
    # Lines removed at the end of a log: the classes missing, not a refused log.
    lines = shard_logs[2].read_text().splitlines(keepends=True)
    shard_logs[2].write_text("".join(lines[:-1]))
    assert "of the proof's classes is in no log" in refused(small_dict, shard_logs, status=1)
    with pytest.raises(IncompleteProof) as error:
        merge(P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS), shard_logs)
    assert len(error.value.missing) == 1 and error.value.shards == [3]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--shard", "1/3"], "--shard needs --log"),
        (["--shard", "3/3", "--log", "x.ndjson"], "numbered 0 to 2"),
        (["--shard", "0/3", "--log", "x.ndjson", "--estimate"], "exclude each other"),
        (["--merge"], "--merge takes the logs"),
        (["--merge", "a.ndjson", "--log", "b.ndjson"], "does not go with --log"),
        (["--merge", "a.ndjson", "--jobs", "2"], "does not go with --jobs"),
        (["a.ndjson"], "takes no argument"),
        (["--merge", "nothing.ndjson"], "nothing.ndjson: no such proof log"),
    ],
)
def test_bad_shard_and_merge_options_are_one_line_and_exit_2(
    small_dict: str, extra: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In this process (typer's runner gives the script's exit codes and lines); the installed
    # script is run once, below, for the whole way from the shell.
    monkeypatch.chdir(tmp_path)
    status, _, error = cli("prove", "-d", small_dict, *SMALL, *extra)
    assert status == 2 and "Traceback" not in error
    assert error.count("\n") == 1 and says in error, error
    assert not (tmp_path / "x.ndjson").exists()


def test_a_bad_shard_from_the_installed_script_is_one_line_and_exit_2(small_dict: str, tmp_path: Path) -> None:
    result = run_cli("prove", "-d", small_dict, *SMALL, "--shard", "3/3", "--log", "x.ndjson", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "numbered 0 to 2" in result.stderr, result.stderr
    assert not (tmp_path / "x.ndjson").exists()


# -- the bar: 8 shards, two killed while they prove -------------------------------------------


def _run_shard(small_dict: str, index: int, log: Path, *, pure: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "BOGGLE_DAFSA_PURE": "1" if pure else "0"}
    args = ["prove", "-d", small_dict, "-s", "3x3", "--min", "36", "--buckets", BUCKETS, "--corner-buckets", CORNERS]
    return subprocess.Popen(
        [*PROGRAM, *args, "--shard", f"{index}/8", "--resume", str(log), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.slow
def test_eight_shards_two_killed_while_proving_merge_to_the_single_run(small_dict: str, tmp_path: Path) -> None:
    args = ["prove", "-d", small_dict, "-s", "3x3", "--min", "36", "--buckets", BUCKETS, "--corner-buckets", CORNERS]
    single = run_cli(*args, "--json")
    assert single.returncode == 0, single.stderr
    total = json.loads(single.stdout)["classes"]
    assert total == 639
    logs = [tmp_path / f"shard-{index}.ndjson" for index in range(8)]
    # Shards 2 and 5 run the Python twin (70 ms a class here, the compiled kernel 2 ms): killed
    # with SIGKILL once a few classes are logged, they are inside a class.
    for index in (2, 5):
        process = _run_shard(small_dict, index, logs[index], pure=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (logs[index].exists() and logs[index].read_text().count("\n") >= 5):
            time.sleep(0.05)
        assert process.poll() is None, "the shard ended before it was killed"
        process.send_signal(signal.SIGKILL)
        process.communicate()
        done = logs[index].read_text().count("\n")
        assert 5 <= done < len(shard_classes(total, index, 8)), done
        # killed: its log is refused by the merge until the shard runs again
    killed = run_cli(*args, "--merge", *map(str, logs[2:3]))
    assert killed.returncode in (1, 2) and killed.stderr.count("\n") == 1
    # Every shard (the killed ones again, with the same command): each resumes its log.
    for index in range(8):
        process = _run_shard(small_dict, index, logs[index])
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert json.loads(out)["shard"] == [index, 8]
    merged = run_cli(*args, "--merge", *map(str, logs), "--json")
    assert merged.returncode == 0, merged.stderr
    assert {**json.loads(merged.stdout), "cpu_seconds": 0} == {**json.loads(single.stdout), "cpu_seconds": 0}
    lines = sum(log.read_text().count("\n") for log in logs)
    assert lines == total  # each class proven and logged once: a class cut by the kill was not logged


# -- the recipes of docs/sharding.md ------------------------------------------------------------

SHARDING = Path(__file__).resolve().parent.parent / "docs" / "sharding.md"


def _installed_env() -> dict[str, str]:
    # the installed command beside this interpreter, as tests/test_readme.py runs the docs
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.slow
def test_the_xargs_recipe_runs_end_to_end_and_merges_to_the_single_run(tmp_path: Path) -> None:
    [block] = re.findall(r"^```sh\n(.*?)^```", SHARDING.read_text("utf-8"), flags=re.MULTILINE | re.DOTALL)
    shards, merging = block.strip().splitlines()
    assert shards.startswith("seq 0 3 | xargs -P 2 ") and "--shard {}/4 --resume shard-{}.ndjson" in shards
    env = _installed_env()
    for _ in range(2):  # the same line again (a rerun after a kill): every shard resumes, none proves again
        subprocess.run(["sh", "-c", shards], cwd=tmp_path, env=env, check=True, timeout=600)
    logs = sorted(tmp_path.glob("shard-*.ndjson"))
    assert [log.name for log in logs] == [f"shard-{index}.ndjson" for index in range(4)]
    assert sum(log.read_text().count("\n") for log in logs) == 6  # the 6 classes of ENABLE2K 2x3, once each
    merged = subprocess.run(["sh", "-c", merging + " --json"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert merged.returncode == 0, merged.stderr
    single = subprocess.run(
        ["sh", "-c", merging.split(" --merge")[0] + " --json"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert {**json.loads(merged.stdout), "cpu_seconds": 0} == {**json.loads(single.stdout), "cpu_seconds": 0}


@pytest.mark.slow
def test_the_image_s_entry_point_takes_each_engine_s_index(small_dict: str, tmp_path: Path) -> None:
    # The ENTRYPOINT of the page's Dockerfile, run by sh as the image runs it, with the
    # index in each engine's variable (Docker is not needed: the line is the recipe).
    text = SHARDING.read_text("utf-8")
    entry = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", text, flags=re.MULTILINE)[1])  # type: ignore[index]
    assert entry[:2] == ["sh", "-c"]
    args = ["-d", small_dict, *SMALL]
    env = {**_installed_env(), "SHARDS": "4", "LOGS": str(tmp_path)}
    for name in ("SHARD_INDEX", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"):
        env.pop(name, None)
    engines = ["JOB_COMPLETION_INDEX", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "SHARD_INDEX"]
    for index, variable in enumerate(engines):
        done = subprocess.run([*entry, *args], env={**env, variable: str(index)}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"shard {index}/4: ")
    logs = [str(tmp_path / f"shard-{index}.ndjson") for index in range(4)]
    status, merged, error = cli("prove", *args, "--merge", *logs)
    assert status == 0, error
    assert merged.split("\n", 1)[1] == cli("prove", *args)[1].split("\n", 1)[1]
    # No index: the task fails at once, saying so.
    lost = subprocess.run([*entry, *args], env=env, capture_output=True, text=True, timeout=60)
    assert lost.returncode != 0 and "no shard index" in lost.stderr


# -- logs at a URL (the [cloud] extra: fsspec) ---------------------------------------------------


@pytest.fixture
def memory_store() -> Iterator[Any]:
    fsspec = pytest.importorskip("fsspec", reason="the [cloud] extra is not installed")
    filesystem = fsspec.filesystem("memory")

    def clear() -> None:  # before and after: the memory file system lives as long as the process
        if filesystem.exists("/proof"):
            filesystem.rm("/proof", recursive=True)

    clear()
    yield filesystem
    clear()


@pytest.mark.slow
def test_shards_log_to_a_url_and_merge_from_it(small_dict: str, memory_store: Any) -> None:
    # memory:// stands for s3:// or gs://: the same fsspec calls (no append: the log is put
    # whole after each class).
    urls = [f"memory://proof/shard-{index}.ndjson" for index in range(3)]
    for index, url in enumerate(urls):
        status, _, error = cli("prove", "-d", small_dict, *SMALL, "--shard", f"{index}/3", "--resume", url)
        assert status == 0, error
    status, merged, error = cli("prove", "-d", small_dict, *SMALL, "--merge", *urls, "--json")
    assert status == 0, error
    status, single, error = cli("prove", "-d", small_dict, *SMALL, "--json")
    assert {**json.loads(merged), "cpu_seconds": 0} == {**json.loads(single), "cpu_seconds": 0}
    # A last line cut short (a writer killed mid-upload elsewhere): refused by the merge,
    # dropped by --resume, which proves that class again and puts the log whole.
    text = memory_store.cat_file("/proof/shard-1.ndjson").decode()
    memory_store.pipe_file("/proof/shard-1.ndjson", text[:-9].encode())
    assert f"{urls[1]}:{text.count(chr(10))}: the last line is cut short" in refused(small_dict, urls)
    status, _, error = cli("prove", "-d", small_dict, *SMALL, "--shard", "1/3", "--resume", urls[1])
    assert status == 0, error
    assert memory_store.cat_file("/proof/shard-1.ndjson").decode().count("\n") == text.count("\n")
    status, again, error = cli("prove", "-d", small_dict, *SMALL, "--merge", *urls, "--json")
    assert status == 0 and json.loads(again)["boards"] == json.loads(single)["boards"]


def test_a_url_without_the_extra_or_its_file_system_is_one_line(
    small_dict: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    status, _, error = cli("prove", "-d", small_dict, *SMALL, "--merge", "nosuch://bucket/p.ndjson")
    assert status == 2 and error.count("\n") == 1 and "nosuch://bucket/p.ndjson: " in error, error
    monkeypatch.setitem(sys.modules, "fsspec", None)  # as if the [cloud] extra were not installed
    status, _, error = cli("prove", "-d", small_dict, *SMALL, "--shard", "0/2", "--log", "s3://bucket/p.ndjson")
    assert status == 2 and error.count("\n") == 1, error
    assert "needs the [cloud] extra: pip install 'boggle-dafsa[cloud]'" in error
