"""The dictionary commands, through typer's runner and as real subprocesses."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COMMAND, run_cli
from typer.testing import CliRunner

from boggle_dafsa.cli import app

runner = CliRunner()
WORDS = "chien\r\nchat\r\nniche\r\nnicher\r\nzoo\r\naujourd'hui\r\nchat\r\nélève\r\n"


@pytest.fixture
def wordlist(tmp_path: Path) -> Path:
    path = tmp_path / "mots.txt"
    path.write_text(WORDS, encoding="utf-8")
    return path


@pytest.fixture
def built(tmp_path: Path, wordlist: Path) -> Path:
    out = tmp_path / "d.dafsa"
    result = runner.invoke(app, ["build", str(wordlist), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_build_prints_a_summary(tmp_path: Path, wordlist: Path) -> None:
    result = runner.invoke(app, ["build", str(wordlist), "-o", str(tmp_path / "x.dafsa")])
    assert result.exit_code == 0
    assert "words read    8" in result.output
    assert "words kept    6" in result.output
    assert "duplicates    1" in result.output
    assert "dropped       1 (apostrophe 1)" in result.output
    assert "states" in result.output and "bytes/word" in result.output


@pytest.mark.slow
def test_dump_verify_lookup_complete(built: Path, wordlist: Path) -> None:
    dump = runner.invoke(app, ["dump", "-d", str(built)])
    assert dump.output.split() == ["CHAT", "CHIEN", "ELEVE", "NICHE", "NICHER", "ZOO"]
    assert runner.invoke(app, ["verify", str(wordlist), "-d", str(built)]).exit_code == 0
    found = runner.invoke(app, ["lookup", "Élève", "niche", "-d", str(built)])
    assert found.exit_code == 0 and "ELEVE\tyes" in found.output
    missing = runner.invoke(app, ["lookup", "niche", "chiens", "-d", str(built)])
    assert missing.exit_code == 1 and "CHIENS\tno" in missing.output
    assert runner.invoke(app, ["complete", "ni", "-d", str(built)]).output.split() == ["NICHE", "NICHER"]
    assert runner.invoke(app, ["complete", "ch", "--limit", "1", "-d", str(built)]).output.split() == ["CHAT"]


def test_verify_reports_differences(built: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("chien\nchat\nloup\n", encoding="utf-8")
    result = runner.invoke(app, ["verify", str(other), "-d", str(built)])
    assert result.exit_code == 1
    assert "1 missing, 4 extra" in result.output
    assert "- LOUP" in result.output and "+ ELEVE" in result.output


def test_verify_detects_a_damaged_file(built: Path, wordlist: Path) -> None:
    data = bytearray(built.read_bytes())
    data[-2] ^= 0x10
    built.write_bytes(bytes(data))
    result = runner.invoke(app, ["verify", str(wordlist), "-d", str(built)])
    assert result.exit_code == 2
    assert "checksum" in result.output


def test_inspect_json(built: Path) -> None:
    info = json.loads(runner.invoke(app, ["inspect", "--json", "-d", str(built)]).output)
    assert info["format"] == "native" and info["words"] == 6 and info["policy"] == "fold"
    assert info["alphabet"] == "ACEHILNORTVZ"
    assert len(info["source_sha256"]) == 64


@pytest.mark.slow
def test_exact_policy_keeps_accents(tmp_path: Path, wordlist: Path) -> None:
    out = tmp_path / "exact.dafsa"
    assert runner.invoke(app, ["build", str(wordlist), "-o", str(out), "--exact"]).exit_code == 0
    assert "élève" in runner.invoke(app, ["dump", "-d", str(out)]).output.split()
    assert runner.invoke(app, ["lookup", "Élève", "-d", str(out)]).exit_code == 1  # case is kept


def test_dot_draws_small_automata(built: Path) -> None:
    result = runner.invoke(app, ["dot", "-d", str(built)])
    assert result.output.startswith("digraph dafsa {")
    assert result.output.count("doublecircle") >= 1 and '[label="Z"]' in result.output
    refused = runner.invoke(app, ["dot", "-d", str(built), "--max-states", "2"])
    assert refused.exit_code == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["build", "/no/such/list.txt"], "/no/such/list.txt: no such file"),
        (["dump", "-d", "/no/such.dafsa"], "no such dictionary file"),
        (["build", "LIST", "--format", "zip"], "unknown format 'zip'"),
    ],
)
def test_bad_input_one_line_exit_2(args: list[str], message: str, wordlist: Path) -> None:
    args = [str(wordlist) if a == "LIST" else a for a in args]
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_not_a_dictionary_and_truncated(tmp_path: Path, built: Path) -> None:
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    truncated = tmp_path / "cut.dafsa"
    truncated.write_bytes(built.read_bytes()[:-3])
    for path, message in [
        (binary, r"image\.png: not a dictionary .* nor a word list \(3: binary file"),
        (truncated, "truncated"),
    ]:
        result = run_cli("lookup", "CHAT", "-d", str(path))
        assert result.returncode == 2 and re.search(message, result.stderr) and "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_word_list_given_as_the_dictionary(tmp_path: Path) -> None:
    """-d words.txt: compiled on first use into the cache (keyed by its content), then reused."""
    text = tmp_path / "words.txt"
    text.write_text("chat\nchien\n")
    cache = tmp_path / "cache"
    assert run_cli("lookup", "CHAT", "-d", str(text), env={"BOGGLE_DAFSA_CACHE": str(cache)}).returncode == 0
    assert run_cli("dump", "-d", str(text), env={"BOGGLE_DAFSA_CACHE": str(cache)}).stdout.split() == ["CHAT", "CHIEN"]
    assert len(list(cache.glob("list-*.dafsa"))) == 1


@pytest.mark.slow
def test_failed_build_keeps_the_existing_dictionary(tmp_path: Path, built: Path) -> None:
    before = built.read_bytes()
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = run_cli("build", str(empty), "-o", str(built))
    assert result.returncode == 2
    assert built.read_bytes() == before


@pytest.mark.slow
def test_default_dictionary_order(tmp_path: Path, wordlist: Path) -> None:
    # build with no -o writes build/dictionary.dafsa, which later commands then use.
    assert run_cli("build", str(wordlist), "-q", cwd=tmp_path).returncode == 0
    assert (tmp_path / "build" / "dictionary.dafsa").is_file()
    assert run_cli("dump", cwd=tmp_path).stdout.split() == ["CHAT", "CHIEN", "ELEVE", "NICHE", "NICHER", "ZOO"]
    # $BOGGLE_DAFSA_DICT wins over build/dictionary.dafsa; -d wins over both.
    assert run_cli("lookup", "ABACA", cwd=tmp_path, env={"BOGGLE_DAFSA_DICT": "fr"}).returncode == 0
    assert (
        run_cli(
            "lookup", "ZOO", "-d", str(tmp_path / "build" / "dictionary.dafsa"), cwd=tmp_path, env={"BOGGLE_DAFSA_DICT": "fr"}
        ).returncode
        == 0
    )
    # Elsewhere, the embedded French dictionary.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_cli("lookup", "ARBRE", cwd=elsewhere).returncode == 0


@pytest.mark.slow
def test_dump_sort_cmp_round_trip_on_the_embedded_french_list(tmp_path: Path) -> None:
    import lzma

    from boggle_dafsa.dictionaries.resolve import DATA_DIR

    source = tmp_path / "francais.txt"
    source.write_bytes(lzma.decompress((DATA_DIR / "fr.txt.xz").read_bytes()))
    assert run_cli("build", str(source), "-q", cwd=tmp_path).returncode == 0
    env = {**os.environ, "LC_ALL": "C"}
    script = f"{COMMAND} dump | sort | cmp - <(sort {source})"
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_dump_into_a_closed_pipe_is_quiet() -> None:
    result = subprocess.run(["bash", "-c", f"{COMMAND} dump -d en | head -1"], capture_output=True, text=True, timeout=120)
    assert result.stdout == "A\n" and result.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["complete", "AR", "--limit", "-1"], "complete: Invalid value for '--limit'"),
        (["solve", "IDXT/MHEI/ERVN/TLLU", "--bogus"], "solve: No such option: --bogus"),
        (["lookup"], "lookup: Missing argument"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("boggle-dafsa: "), result.stderr
    assert message in result.stderr and "--help" in result.stderr


@pytest.mark.slow
def test_embedded_names_win_over_same_named_folders(tmp_path: Path) -> None:
    (tmp_path / "fr").mkdir()
    result = run_cli("lookup", "ARBRE", "-d", "fr", cwd=tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_forced_utf16_list(tmp_path: Path) -> None:
    source = tmp_path / "utf16.txt"
    source.write_bytes("chat\nélève\n".encode("utf-16"))
    out = tmp_path / "d.dafsa"
    assert runner.invoke(app, ["build", str(source), "-o", str(out), "--encoding", "utf-16"]).exit_code == 0
    assert runner.invoke(app, ["dump", "-d", str(out)]).output.split() == ["CHAT", "ELEVE"]
    # Without --encoding, the byte order mark says UTF-16; without the mark, NUL bytes mean a binary file.
    assert run_cli("build", str(source), "-o", str(out)).returncode == 0
    assert runner.invoke(app, ["dump", "-d", str(out)]).output.split() == ["CHAT", "ELEVE"]
    source.write_bytes("chat\nélève\n".encode("utf-16-le"))
    refused = run_cli("build", str(source), "-o", str(out))
    assert refused.returncode == 2 and "binary file" in refused.stderr


@pytest.mark.slow
def test_closed_or_full_standard_streams(tmp_path: Path) -> None:
    import shlex

    command = f"{shlex.quote(sys.executable)} -c 'from boggle_dafsa.cli import main; main()'"
    cases = {
        f"{command} dump -d en >/dev/full": "cannot write the output (No space left on device)",
        f"{command} solve <&-": "empty grid",
        f"{command} dump -d en >&-": "standard output is closed",
    }
    for script, message in cases.items():
        result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, script
        assert result.stderr == f"boggle-dafsa: {message}" + result.stderr[len(message) + 14 :], result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.slow
def test_named_pipes_are_neither_read_as_dictionaries_nor_replaced(tmp_path: Path, wordlist: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    looked_up = run_cli("lookup", "CHAT", "-d", str(pipe))
    assert looked_up.returncode == 2 and "not a regular file" in looked_up.stderr
    built = run_cli("build", str(wordlist), "-o", str(pipe))
    assert built.returncode == 2 and "not a regular file" in built.stderr
    assert not pipe.is_file()


def test_build_notes_the_encoding_option_by_its_name(tmp_path: Path) -> None:
    # The library names the parameter (`encoding`); the command line names its option.
    source = tmp_path / "cp1252.txt"
    source.write_bytes("cœur\nsœur\narbre\n".encode("cp1252"))
    result = runner.invoke(app, ["build", str(source), "-o", str(tmp_path / "x.dafsa")])
    assert result.exit_code == 0, result.output
    assert "--encoding cp1252 would keep them" in result.output and "`" not in result.output


def test_build_replaces_a_symbolic_link_instead_of_writing_through_it(tmp_path: Path, wordlist: Path) -> None:
    # As `sed -i` does: a link planted at the output path must not redirect the write.
    target = tmp_path / "victim.txt"
    target.write_text("precious\n")
    link = tmp_path / "link.dafsa"
    link.symlink_to(target)
    assert runner.invoke(app, ["build", str(wordlist), "-o", str(link)]).exit_code == 0
    assert not link.is_symlink() and link.is_file()
    assert target.read_text() == "precious\n"
    assert runner.invoke(app, ["lookup", "CHAT", "-d", str(link)]).exit_code == 0


@pytest.mark.slow
def test_cells_pointing_outside_the_file_are_one_line_errors(tmp_path: Path) -> None:
    # A file whose checksums hold but whose root points past the last cell.
    import struct
    import zlib

    from boggle_dafsa.automaton import fileformat
    from boggle_dafsa.dictionaries.build import compile_words

    good = bytearray(compile_words(["AB"], version=1))  # its cells, changed below
    header_size = struct.unpack_from("<I", good, 12)[0]
    body = bytearray(good[header_size:])
    struct.pack_into("<I", body, 4, 999)  # the root's child on A: far outside
    good[header_size:] = body
    struct.pack_into("<I", good, 52, zlib.crc32(bytes(body)))
    struct.pack_into("<I", good, fileformat._HEADER_CRC_OFFSET, fileformat._header_crc(good, header_size))
    path = tmp_path / "outside.dafsa"
    path.write_bytes(bytes(good))
    words = tmp_path / "words.txt"
    words.write_text("ab\n")
    for args in (["lookup", "AB"], ["dump"], ["complete", "A"], ["verify", str(words)], ["solve", "AB"]):
        result = run_cli(*args, "-d", str(path))
        assert result.returncode == 2, (args, result.stderr)
        assert "points outside the file" in result.stderr or "damaged" in result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr


@pytest.mark.slow
def test_a_latin_9_grid_on_standard_input(tmp_path: Path) -> None:
    import subprocess

    words = tmp_path / "w.txt"
    words.write_text("acte\nété\n", encoding="utf-8")
    dictionary = tmp_path / "d.dafsa"
    assert run_cli("build", str(words), "-o", str(dictionary), "-q").returncode == 0
    result = subprocess.run(
        [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "solve", "-s", "2", "-d", str(dictionary), "-q"],
        input="a c\nt \xe9\n".encode("iso-8859-15"),
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split() == ["ACTE"]
