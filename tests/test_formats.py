"""The marisa and dawg formats: same words, same answers as native, files others can read."""

from __future__ import annotations

import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

import dawg_python
import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boggle_dafsa.board.grid import Grid
from boggle_dafsa.cli import app
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.formats import FORMATS, detect_format, open_path, write_dictionary
from boggle_dafsa.formats.dawgdic import completion_dawg_bytes
from boggle_dafsa.formats.sidecar import sidecar_path
from boggle_dafsa.solver import solve
from boggle_dafsa.words.normalize import Policy
from helpers import strategies
from helpers.kernels import BUILDER, requires_c

runner = CliRunner()

# Letters that take one, two and three bytes in UTF-8 (É, Ñ; ẞ), and a QU face's letters.
LETTERS = "ABCEQUÉÑẞ"
word_lists = strategies.word_lists(LETTERS, min_size=1, max_size=40)


def write_all(words: list[str], folder: Path, policy: Policy = Policy.EXACT) -> dict[str, Path]:
    """``words`` written in every format into ``folder``."""
    paths = {}
    for format in FORMATS:
        paths[format] = folder / f"words.{format}"
        write_dictionary(words, paths[format], format, {"policy": policy})
    return paths


def prefixes_of(words: list[str]) -> set[str]:
    return {word[:n] for word in words for n in range(len(word) + 1)}


# -- the dawgdic writer -------------------------------------------------------------------


@pytest.mark.slow
@given(word_lists)
def test_dawg_python_reads_our_dawg_files(words: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "w.dawg"
        write_dictionary(words, path, "dawg", {"policy": Policy.EXACT})
        loaded = dawg_python.CompletionDAWG().load(str(path))
        assert loaded.keys() == words
        for prefix in sorted(prefixes_of(words))[:20]:
            assert loaded.keys(prefix) == [w for w in words if w.startswith(prefix)]
        ours = open_path(path)
        for word in words:
            assert word in loaded
            # Stepping letter by letter reaches dawg_python's unit for the word.
            state = ours.root
            for letter in word:
                state = ours.step(state, letter)
            assert state == loaded.dct.follow_bytes(word.encode("utf-8"), 0)
        assert "ZZ" not in loaded


@pytest.mark.slow
@settings(max_examples=100)
@given(word_lists)
def test_dawg_files_are_byte_identical_to_dawg2(words: list[str]) -> None:
    dawg = pytest.importorskip("dawg")
    assert completion_dawg_bytes(words) == dawg.CompletionDAWG(words).tobytes()


@pytest.mark.slow
def test_dawg_file_of_enable2k_is_byte_identical_to_dawg2(enable2k_path: Path) -> None:
    dawg = pytest.importorskip("dawg")
    words = sorted(enable2k_path.read_text().upper().split())
    assert completion_dawg_bytes(words) == dawg.CompletionDAWG(words).tobytes()


def test_empty_dawg_is_dawgdic_empty_dictionary() -> None:
    data = completion_dawg_bytes([])
    assert len(data) == 4 + 256 * 4 + 4  # one block of units, no guide
    dawg = pytest.importorskip("dawg")
    assert data == dawg.CompletionDAWG([]).tobytes()


def test_dawg_writer_refuses_unsorted_input() -> None:
    with pytest.raises(ValueError, match="sorted"):
        completion_dawg_bytes(["B", "A"])


# -- the readers --------------------------------------------------------------------------


@pytest.mark.slow
@given(word_lists)
def test_every_format_answers_like_the_word_list(words: list[str]) -> None:
    inside = prefixes_of(words)
    outside = {p + letter for p in inside for letter in "AÉZ"} - inside
    with tempfile.TemporaryDirectory() as folder:
        for format, path in write_all(words, Path(folder)).items():
            d = open_path(path)
            assert d.format_name == format
            assert d.policy is Policy.EXACT
            assert list(d) == words and len(d) == len(words)
            assert all(word in d for word in words)
            assert not any(word in d for word in outside if word not in words)
            for prefix in sorted(inside):
                expected = [w for w in words if w.startswith(prefix)]
                assert list(d.complete(prefix)) == expected
                assert list(d.complete(prefix, 2)) == expected[:2]
                assert d.has_prefix(prefix)
                # The cursor: one step per letter, or the whole prefix at once (a face).
                state = d.root
                for letter in prefix:
                    state = d.step(state, letter)
                    assert state is not None
                assert d.is_word(state) == (prefix in words)
                assert d.step(d.root, prefix) == state
            for prefix in outside:
                assert not d.has_prefix(prefix) and d.step(d.root, prefix) is None
                assert list(d.complete(prefix)) == []


@pytest.fixture(scope="module")
def enable_sample(enable2k_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every third ENABLE2K word, upper case, in the three formats."""
    words = sorted(enable2k_path.read_text().upper().split())[::3]
    return write_all(words, tmp_path_factory.mktemp("enable"), Policy.FOLD)


@pytest.fixture(scope="module")
def enable_opened(enable_sample: dict[str, Path]) -> dict[str, Any]:
    """The three files of :func:`enable_sample`, opened once: a dawg file's opening checks
    its whole guide (0.4 CPU-s here), which forty examples need not repeat."""
    return {format: open_path(path) for format, path in enable_sample.items()}


faces = st.sampled_from(list("AAEEIOUSTRNLDCMPBGHQU") + ["QU"])


@pytest.mark.slow
@settings(max_examples=40)
@given(st.lists(faces, min_size=16, max_size=16))
def test_the_solver_finds_the_same_words_on_every_format(enable_opened: dict[str, Any], grid_faces: list[str]) -> None:
    grid = Grid((4, 4), tuple(grid_faces))
    results = {format: solve(grid, dictionary) for format, dictionary in enable_opened.items()}
    words = {format: [(hit.word, hit.points) for hit in hits] for format, hits in results.items()}
    assert words["marisa"] == words["native"] and words["dawg"] == words["native"]
    # The path of a word is the smallest cell by cell when the faces are single letters.
    if all(len(face) == 1 for face in grid_faces):
        paths = {format: [hit.path for hit in hits] for format, hits in results.items()}
        assert paths["marisa"] == paths["native"] and paths["dawg"] == paths["native"]


@pytest.mark.slow
def test_solver_on_a_known_grid(enable_sample: dict[str, Path]) -> None:
    grid = Grid((4, 4), tuple("PERSLATGSINETERS".replace("", " ").split()))
    counts = {format: len(solve(grid, open_path(path))) for format, path in enable_sample.items()}
    assert len(set(counts.values())) == 1 and counts["native"] > 200


# -- the commands on every format -----------------------------------------------------------

WORDLIST = "chien\nchat\nniche\nnicher\nzoo\nélève\nŒuvre\nbœuf\nÑandú\n"
GRID = "CHIE/ATNR/ZOOV/BELE"


@pytest.fixture
def built(tmp_path: Path) -> dict[str, Path]:
    source = tmp_path / "mots.txt"
    source.write_text(WORDLIST, encoding="utf-8")
    paths = {}
    for format in FORMATS:
        paths[format] = tmp_path / f"d.{format}"
        result = runner.invoke(app, ["build", str(source), "-o", str(paths[format]), "--format", format, "-q"])
        assert result.exit_code == 0, result.output
    return paths


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["dump"],
        ["verify", "LIST"],
        ["lookup", "élève", "BOEUF", "chiens"],
        ["complete", "ni"],
        ["complete", "ch", "--limit", "1"],
        ["complete", "Œ"],
        ["solve", GRID],
        ["solve", GRID, "--min-length", "4", "--json"],
        ["find", GRID, "chien"],
        ["find", GRID, "niche"],
        ["score", GRID, "ANA", "BOB"],
    ],
)
def test_commands_give_identical_results_on_every_format(built: dict[str, Path], command: list[str]) -> None:
    folder = built["native"].parent
    (folder / "ana.txt").write_text("chat\nzoo\nchien\n", encoding="utf-8")
    (folder / "bob.txt").write_text("CHAT\nchiens\n", encoding="utf-8")
    files = {"LIST": "mots.txt", "ANA": "ana.txt", "BOB": "bob.txt"}
    outputs = set()
    for path in built.values():
        args = [str(folder / files[arg]) if arg in files else arg for arg in command]
        result = runner.invoke(app, args + ["-d", str(path)])
        outputs.add((result.exit_code, result.output))
    assert len(outputs) == 1, outputs
    assert next(iter(outputs))[1]  # and they printed something


@pytest.mark.slow
def test_dump_sort_cmp_round_trip(built: dict[str, Path]) -> None:
    expected = sorted(["CHIEN", "CHAT", "NICHE", "NICHER", "ZOO", "ELEVE", "OEUVRE", "BOEUF", "NANDU"])
    for path in built.values():
        result = run_cli("dump", "-d", str(path))
        assert result.returncode == 0 and result.stdout == "".join(w + "\n" for w in expected)


@pytest.mark.slow
def test_inspect_names_the_format_and_where_the_policy_comes_from(built: dict[str, Path]) -> None:
    for format, path in built.items():
        info = json.loads(runner.invoke(app, ["inspect", "--json", "-d", str(path)]).output)
        assert info["format"] == format and info["policy"] == "fold" and info["words"] == 9
        assert info["bytes"] == path.stat().st_size
        if format != "native":
            assert info["policy_source"] == "from sidecar"
            assert info["sidecar"] == str(sidecar_path(path))
    sidecar_path(built["dawg"]).unlink()
    info = json.loads(runner.invoke(app, ["inspect", "--json", "-d", str(built["dawg"])]).output)
    assert info["policy"] == "fold" and info["policy_source"] == "default: no sidecar"
    assert "source_sha256" not in info and info["words"] == 9


# -- files from elsewhere, without sidecar ------------------------------------------------------


def test_files_of_other_tools_open_without_sidecar(tmp_path: Path) -> None:
    import marisa_trie

    lower = sorted(["bœuf", "chat", "élève", "zoo"])
    marisa_trie.Trie(lower).save(str(tmp_path / "lower.marisa"))  # marisa's default key order
    (tmp_path / "lower.dawg").write_bytes(completion_dawg_bytes(lower))
    for name in ("lower.marisa", "lower.dawg"):
        d = open_path(tmp_path / name)
        # Lower-case words can only have been stored exactly: queries are not folded.
        assert d.policy is Policy.EXACT and "not folded" in d.info()["policy_source"]
        assert list(d) == lower and d.normalize("élève") in d
        assert d.info()["alphabet"] == "".join(sorted(set("".join(lower))))


def test_dawg2_files_open(tmp_path: Path) -> None:
    dawg = pytest.importorskip("dawg")
    words = ["ETE", "ETES", "NINO", "ZOO"]
    dawg.CompletionDAWG(words).save(str(tmp_path / "x.dawg"))
    d = open_path(tmp_path / "x.dawg")
    assert list(d) == words and d.policy is Policy.FOLD and d.info()["policy_source"] == "default: no sidecar"
    assert d.normalize("été") in d
    accented = ["ÉTÉ", "NIÑO"]  # accents kept: stored exactly, whatever the case
    dawg.CompletionDAWG(accented).save(str(tmp_path / "accented.dawg"))
    assert open_path(tmp_path / "accented.dawg").policy is Policy.EXACT
    dawg.DAWG(words).save(str(tmp_path / "plain.dawg"))
    with pytest.raises(DictionaryError, match="without a completion guide"):
        open_path(tmp_path / "plain.dawg")


# -- detection and damage ---------------------------------------------------------------------


def test_detection_reads_bytes_not_names(tmp_path: Path) -> None:
    paths = write_all(["CHAT", "CHIEN"], tmp_path, Policy.FOLD)
    for format, path in paths.items():
        disguised = tmp_path / f"disguised{format}.txt"
        disguised.write_bytes(path.read_bytes())
        assert detect_format(disguised) == format
        assert list(open_path(disguised)) == ["CHAT", "CHIEN"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"chat\nchien\n", f"not a dictionary ({', '.join(FORMATS[:-1])} or {FORMATS[-1]})"),
        (bytes(range(1, 256)) * 4, "not a dictionary"),
        (b"\x00\x01\x00\x00" + bytes(100), "truncated dawg file"),
        (b"\x00\x03\x00\x00" + bytes(8000), "dawg file has trailing bytes"),
        (b"\x00\x01\x00\x00" + bytes(1024) + b"\x05\x00\x00\x00" + bytes(10), "damaged dawg file (guide of 5 units"),
        (b"\x00\x01\x00\x00" + bytes(1024), "without a completion guide"),
        (b"We love Marisa.\x00" + bytes(10), "damaged marisa file"),
    ],
)
def test_not_a_dictionary_is_one_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "file.bin"
    path.write_bytes(content)
    with pytest.raises(DictionaryError, match=re.escape(message)):
        open_path(path)


def test_missing_and_directory(tmp_path: Path) -> None:
    with pytest.raises(DictionaryError, match="no such dictionary file"):
        open_path(tmp_path / "none.dawg")
    with pytest.raises(DictionaryError, match="is a directory"):
        open_path(tmp_path)


@pytest.mark.parametrize("format", ["marisa", "dawg"])
def test_damage_is_caught_by_the_sidecar(tmp_path: Path, format: str) -> None:
    path = write_all(["CHAT", "CHIEN", "NICHE"], tmp_path, Policy.FOLD)[format]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(DictionaryError, match="does not match the digest in its sidecar"):
        open_path(path)
    path.write_bytes(bytes(data[:-4]))
    with pytest.raises(DictionaryError, match=r"bytes, its sidecar says|truncated"):
        open_path(path)


def test_malformed_or_foreign_sidecar(tmp_path: Path) -> None:
    paths = write_all(["CHAT"], tmp_path, Policy.FOLD)
    meta = sidecar_path(paths["dawg"])
    meta.write_text("{not json")
    with pytest.raises(DictionaryError, match="malformed sidecar"):
        open_path(paths["dawg"])
    meta.write_text(sidecar_path(paths["marisa"]).read_text())
    with pytest.raises(DictionaryError, match="describes a marisa file"):
        open_path(paths["dawg"])


@pytest.fixture(scope="module")
def small_dawg(enable2k_path: Path) -> bytes:
    """A whole dawg file of 3,000 ENABLE2K words."""
    return completion_dawg_bytes(sorted(enable2k_path.read_text().upper().split())[::60])


@pytest.mark.slow
@settings(max_examples=150)
@given(seed=st.integers(0, 2**32), flips=st.integers(1, 30))
def test_damaged_dawg_without_sidecar_never_crashes(small_dawg: bytes, seed: int, flips: int) -> None:
    # Without a sidecar nothing vouches for the file: answers may be wrong, but reading
    # must end, with words or with a one-line DictionaryError.
    rng = random.Random(seed)
    content = bytearray(small_dawg)
    for _ in range(flips):
        content[rng.randrange(len(content))] ^= 1 << rng.randrange(8)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bad.dawg"
        path.write_bytes(bytes(content))
        try:
            d = open_path(path)
            for count, _word in enumerate(d):
                assert count < 100_000
            list(d.complete("A", 100))
            # A damaged file may give wrong answers, but never a crash or a hang.
            state = d.step(d.root, "QU")
            if state is not None:
                d.is_word(state)
        except DictionaryError as error:
            assert "\n" not in str(error)


@pytest.mark.slow
@pytest.mark.parametrize("keep", [16, 100, 5000])
def test_truncated_marisa_without_sidecar_is_one_line(tmp_path: Path, enable_sample: dict[str, Path], keep: int) -> None:
    # A subprocess: marisa's C++ code is not ours to trust with damaged input.
    path = tmp_path / "cut.marisa"
    path.write_bytes(enable_sample["marisa"].read_bytes()[:keep])
    result = run_cli("lookup", "CHAT", "-d", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "damaged marisa file" in result.stderr


def test_writes_are_atomic(tmp_path: Path) -> None:
    for format in ("marisa", "dawg"):
        target = tmp_path / "blocked" / f"d.{format}"
        (tmp_path / "blocked").write_text("a file where a folder should be")
        with pytest.raises(DictionaryError, match="cannot write"):
            write_dictionary(["CHAT"], target, format)
    path = tmp_path / "d.dawg"
    write_dictionary(["CHAT"], path, "dawg")
    before = path.read_bytes()
    with pytest.raises(ValueError):
        write_dictionary(["NICHE", "CHAT"], path, "dawg")  # unsorted: fails before writing
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked", "d.dawg", "d.dawg.meta.json"]


@pytest.mark.slow
def test_random_lists_round_trip_through_every_format(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = sorted(
        {"".join(rng.choice("AÀBCÇDEÉÈFGHIJKLMNOPQRSTUVWXYZ") for _ in range(rng.randint(1, 12))) for _ in range(3000)}
    )
    for format, path in write_all(words, tmp_path, Policy.FOLD).items():
        d = open_path(path)
        assert list(d) == words, format
        assert d.info()["words"] == len(words)


@pytest.mark.parametrize("format", ["marisa", "dawg"])
def test_no_file_is_written_when_its_sidecar_cannot_be(tmp_path: Path, format: str) -> None:
    from boggle_dafsa.formats import write_dictionary

    target = tmp_path / f"words.{format}"
    (tmp_path / f"words.{format}.meta.json").mkdir()  # the sidecar's place is taken
    with pytest.raises(DictionaryError):
        write_dictionary(["CHAT", "CHIEN"], target, format)
    assert not target.exists()


def test_an_empty_dawg_file_has_no_prefix(tmp_path: Path) -> None:
    # dawgdic fills the free units with labels that can match a letter by chance.
    from boggle_dafsa.formats import open_path, write_dictionary

    path = tmp_path / "empty.dawg"
    write_dictionary([], path, "dawg")
    with open_path(path) as dictionary:
        assert [dictionary.has_prefix(letter) for letter in "AZaz"] == [False] * 4
        assert list(dictionary) == [] and "A" not in dictionary


@given(st.lists(st.binary(min_size=1, max_size=6).filter(lambda key: b"\0" not in key and b"\n" not in key), max_size=60))
@pytest.mark.slow
@requires_c("builder")
def test_dawg_builder_kernels_give_the_same_lists(keys: list[bytes]) -> None:
    from boggle_dafsa.formats.dawgdic import build_dawg

    keys = sorted(set(keys))
    python, compiled = build_dawg(keys, "python"), build_dawg(keys, "c")
    assert (python.labels, list(python.children), python.last, python.merging) == (
        compiled.labels,
        list(compiled.children),
        compiled.last,
        compiled.merging,
    )


def test_the_compiled_dawg_builder_refuses_what_the_python_one_refuses() -> None:
    from boggle_dafsa.formats.dawgdic import build_dawg

    for kernel in BUILDER:
        for bad in ([b"B", b"A"], [b"A", b"A"], [b"A\0"], [b""]):
            with pytest.raises(ValueError):
                build_dawg(bad, kernel)


@pytest.mark.slow
@settings(max_examples=100)
@given(word_lists)
@requires_c("builder")
def test_dawg_writer_kernels_write_the_same_bytes(words: list[str]) -> None:
    assert completion_dawg_bytes(words, "c") == completion_dawg_bytes(words, "python")


@pytest.mark.slow
@requires_c("builder")
def test_dawg_writer_kernels_agree_on_a_large_list() -> None:
    # Many blocks: exercises fixing blocks while others are still being filled.
    import lzma

    from boggle_dafsa.dictionaries.resolve import DATA_DIR

    words = lzma.decompress((DATA_DIR / "en.txt.xz").read_bytes()).decode().split()
    data = completion_dawg_bytes(words, "c")
    assert data == completion_dawg_bytes(words, "python")
    dawg = pytest.importorskip("dawg")
    assert data == dawg.CompletionDAWG(words).tobytes()


# -- the registry: the one list of formats ------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
FORMATS_PAGE = ROOT / "docs" / "foreign-formats.md"


def test_each_record_claims_its_own_files_and_no_other(tmp_path: Path) -> None:
    # Every format's file is claimed by its record alone, and reopened by it.
    from boggle_dafsa.formats.registry import HEAD_SIZE, REGISTRY, claiming

    assert FORMATS == tuple(record.name for record in REGISTRY)
    for format, path in write_all(["CHAT", "CHIEN"], tmp_path, Policy.FOLD).items():
        head = path.read_bytes()[:HEAD_SIZE]
        assert [record.name for record in REGISTRY if record.claims(head)] == [format]
        record = claiming(head)
        assert record is not None and record.open(path).format_name == format
        assert head.startswith(record.magic)  # b"" for a format without a fixed magic
        assert record.suffix.startswith(".") and record.suffix != ".txt"


def test_an_unknown_format_names_the_known_ones(tmp_path: Path) -> None:
    from boggle_dafsa.errors import BoggleError
    from boggle_dafsa.formats.registry import spoken

    for error in (ValueError, BoggleError):
        with pytest.raises(error, match=re.escape(f"unknown format 'zip' (known: {', '.join(FORMATS)})")):
            write_dictionary(["A"], tmp_path / "a", "zip")
    assert spoken(["a"]) == "a" and spoken(["a", "b"]) == "a or b" and spoken(["a", "b", "c"], "and") == "a, b and c"


@pytest.mark.slow
def test_the_help_names_every_format() -> None:
    from boggle_dafsa.formats.registry import REGISTRY, spoken

    # The words of each help, whatever the width it was wrapped at (its box's edges left out).
    build, solve_help = (
        " ".join(runner.invoke(app, [verb, "--help"], env={"COLUMNS": "500", "TERM": "dumb"}).output.replace("│", " ").split())
        for verb in ("build", "solve")
    )
    assert f"Dictionary: a file ({spoken()})" in solve_help
    for record in REGISTRY:
        assert f"{record.name} ({record.description}" in build


def _format_table() -> list[list[str]]:
    text = FORMATS_PAGE.read_text(encoding="utf-8")
    table = text.split("| `--format` |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in table]


def test_the_docs_table_is_the_registry() -> None:
    # docs/foreign-formats.md has a row per record, in its order: name, suffix, description.
    from boggle_dafsa.formats.registry import DEFAULT, REGISTRY

    rows = _format_table()
    assert [row[0].split()[0] for row in rows] == [f"`{record.name}`" for record in REGISTRY]
    assert [row[0].endswith("(default)") for row in rows] == [record is DEFAULT for record in REGISTRY]
    assert [row[1] for row in rows] == [f"`{record.suffix}`" for record in REGISTRY]
    assert all(record.description in row[2] for record, row in zip(REGISTRY, rows))
    # "Telling the formats apart": a bullet per record, in its order, with its magic.
    section = FORMATS_PAGE.read_text(encoding="utf-8").split("## Telling the formats apart", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"^\* \*\*(\w+)\*\*: (.*)$", section, re.MULTILINE)
    assert [name for name, _ in bullets] == list(FORMATS)
    for record, (_, line) in zip(REGISTRY, bullets):
        assert repr(record.magic.rstrip(b"\0"))[2:-1] in line


def test_every_list_of_formats_in_the_docs_is_whole() -> None:
    # A choice that names native and another format ("native, marisa or dawg",
    # native|marisa|dawg) names them all, in the registry's order: a new format fails here
    # until every such list has it. Choices among foreign formats alone are about those.
    name = "|".join(FORMATS)
    listing = re.compile(rf"\b(?:{name})(?:(?:, | or |\\?\|)(?:{name})\b)+")
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = 0
    for page in pages:
        for match in listing.finditer(page.read_text(encoding="utf-8")):
            names = re.findall(rf"\b(?:{name})\b", match[0])
            if "native" in names:
                found += 1
                assert tuple(names) == FORMATS, f"{page.name}: {match[0]!r}"
    assert found >= 1  # the check sees the error message quoted in foreign-formats.md
