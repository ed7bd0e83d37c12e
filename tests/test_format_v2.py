"""Format version 2 (compact edges): what goes in comes out, every kernel agrees, damage is refused.

Version 1 and version 2 files of the same list hold the same words; the C and Python
writers give the same bytes; the expansion of a version 2 body into cells (what the solver
reads) gives exactly the cells a version 1 build writes, in C and in Python.
"""

from __future__ import annotations

import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import compiled, query
from boggle_dafsa.automaton import compact, fileformat
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.board.grid import Grid
from boggle_dafsa.dictionaries.build import build_dictionary, compile_words
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.solver import solve
from boggle_dafsa.words.normalize import Policy
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import BUILDER, WALK, builder_kernel, forced, requires_c

WORDS = st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=9), max_size=80)
# Any key (the raw policy): alphabets of any size, labels over 15 escaped.
KEYS = st.lists(
    st.text(st.characters(blacklist_characters="\n\r\0", blacklist_categories=("Cs",)), min_size=1, max_size=8), max_size=40
)


def both(tmp: Path, words: list[str], policy: Policy = Policy.FOLD) -> tuple[NativeDictionary, NativeDictionary]:
    """The version 1 and version 2 files of the sorted unique ``words``."""
    ready = sorted(set(words))
    for version in (1, 2):
        (tmp / f"v{version}.dafsa").write_bytes(compile_words(ready, policy, version=version))
    return NativeDictionary(tmp / "v1.dafsa"), NativeDictionary(tmp / "v2.dafsa")


def c_and_python_expansions(layout: compact.CompactLayout) -> list[bytes]:
    found = [bytes(compact.expand_compact(layout)[0])]
    walk = compiled.built("builder")
    if walk is not None:
        found.append(bytes(walk.expand(layout.body, layout.root >> 1, layout.alphabet_size)[0]))
    return found


@pytest.mark.slow
@given(words=WORDS)
def test_version_2_holds_what_version_1_holds(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    v1, v2 = both(tmp_path_factory.mktemp("v"), words)
    assert v2.version == 2 and v1.version == 1
    assert list(v2) == list(v1) == sorted(set(words))
    for word in set(words):
        assert word in v2 and v2.has_prefix(word[:-1])
        assert word + "Z" not in v2 or word + "Z" in set(words)
    # The expansion is the version 1 body, cell for cell, in C and in Python.
    assert isinstance(v2.states, compact.CompactLayout)
    for cells in c_and_python_expansions(v2.states):
        assert cells == bytes(v1.cells)


@pytest.mark.slow
@given(keys=KEYS)
def test_any_key_round_trips_in_both_versions(tmp_path_factory: pytest.TempPathFactory, keys: list[str]) -> None:
    v1, v2 = both(tmp_path_factory.mktemp("k"), keys, Policy.RAW)
    expected = sorted(set(keys))
    assert list(v2) == list(v1) == expected
    assert all(key in v2 for key in keys)
    assert isinstance(v2.states, compact.CompactLayout)
    if len(v2.alphabet) <= fileformat.ONE_CELL_LETTERS:
        for cells in c_and_python_expansions(v2.states):
            assert cells == bytes(v1.cells)
    else:
        assert v2.layout() is None  # wide alphabets: the cursor walks the bytes


@pytest.mark.slow
@requires_c("builder")
@given(keys=st.one_of(WORDS, KEYS))
def test_c_and_python_writers_give_the_same_bytes(keys: list[str]) -> None:
    from boggle_dafsa.automaton.stream import NativeWriter

    files = []
    for name in BUILDER:
        writer = NativeWriter(builder_kernel(name))
        writer.add_words(sorted(set(keys)))
        import io

        stream = io.BytesIO()
        writer.write_to(stream, Policy.RAW, version=2)
        files.append(stream.getvalue())
    assert files[0] == files[1]


@pytest.mark.slow
def test_sizes_of_the_embedded_lists_beat_version_1(tmp_path: Path) -> None:
    # The bar is against marisa-trie and dawg2 (scripts/bench_build.py); here, that
    # version 2 is well under half of version 1 and under a byte per word on fr.
    import lzma

    data = Path(fileformat.__file__).parent.parent / "data"
    words = lzma.decompress((data / "fr.txt.xz").read_bytes()).decode("utf-8").split()
    source = tmp_path / "fr.txt"
    source.write_text("\n".join(words) + "\n", encoding="utf-8")
    v2 = build_dictionary(source, tmp_path / "fr2.dafsa", index=False)
    v1 = build_dictionary(source, tmp_path / "fr1.dafsa", format_version=1, index=False)
    assert v2.file_bytes < 0.5 * v1.file_bytes
    # With the word-number section (the default), still under a byte a word (0.85).
    indexed = build_dictionary(source, tmp_path / "fr2i.dafsa")
    assert v2.file_bytes < indexed.file_bytes <= indexed.words


def test_solver_and_queries_agree_on_both_versions(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = ["".join(rng.choice("AEIRSTLNQU") for _ in range(rng.randint(2, 7))) for _ in range(3000)]
    v1, v2 = both(tmp_path, words)
    for _ in range(30):
        grid = Grid((4, 4), tuple(rng.choice("AEIRSTLNQU") for _ in range(16)))
        assert [(h.word, h.path) for h in solve(grid, v2)] == [(h.word, h.path) for h in solve(grid, v1)]
    for pattern in ("*", "A*", "?E?", "*S", "[AEI]*T"):
        assert list(query.match(v2, pattern)) == list(query.match(v1, pattern))
    assert query.fuzzy(v2, "RATES", 2) == query.fuzzy(v1, "RATES", 2)


def damaged_copy(tmp_path: Path, change: dict[int, int]) -> Path:
    """A version 2 file of a few words with body bytes changed (its header intact)."""
    d = dictionary_from_words(["ABC", "ABD", "BCD", "ABCABC", "ZOO"], tmp_path, name="good.dafsa", version=2)
    data = bytearray(Path(d.path).read_bytes())
    start, size = d.header.header_size, d.header.cell_count
    d.close()
    for offset, value in change.items():
        data[start + offset % size] = value
    path = tmp_path / "damaged.dafsa"
    path.write_bytes(data)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("change", [{0: 0x3F}, {0: 0xFF, 1: 0xFF}, {2: 0x2F}, {0: 0x1F}, {1: 0x7F}, {3: 0x30, 4: 0x00}])
def test_a_damaged_body_is_refused_in_one_line(tmp_path: Path, change: dict[int, int]) -> None:
    path = damaged_copy(tmp_path, change)
    for command in (["dump", str(path)], ["verify", "-", str(path)], ["match", "A*", "-d", str(path)]):
        done = run_cli(*command, input="ABC\nABD\nBCD\nABCABC\nZOO\n")
        assert done.returncode in (1, 2), (command, done.stdout, done.stderr)
        if done.returncode == 2:
            assert done.stderr.count("\n") == 1 and "damaged" in done.stderr and "Traceback" not in done.stderr
    # In process, every kernel: words or DictionaryError, never another exception.
    d = NativeDictionary(path)
    for name in compiled.KERNELS:
        with forced(name):
            try:
                list(query.match(d, "*"))
                solve(Grid((3, 3), tuple("ABCDZOABC")), d)
            except DictionaryError:
                pass


def test_verify_catches_any_changed_body_byte(tmp_path: Path) -> None:
    from boggle_dafsa.dictionaries.verify import check_integrity

    good = dictionary_from_words(["ABC", "ABD", "BCD"], tmp_path, name="good.dafsa", version=2)
    data = Path(good.path).read_bytes()
    start = good.header.header_size
    good.close()
    for offset in range(start, len(data)):
        damaged = bytearray(data)
        damaged[offset] ^= 0x41
        (tmp_path / "d.dafsa").write_bytes(damaged)
        with pytest.raises(DictionaryError):
            check_integrity(NativeDictionary(tmp_path / "d.dafsa"))


@pytest.mark.slow
def test_format_version_option(tmp_path: Path) -> None:
    source = tmp_path / "w.txt"
    source.write_text("chat\nchien\nniche\n", encoding="utf-8")
    for version in ("1", "2"):
        done = run_cli("build", str(source), "--format-version", version, "-o", str(tmp_path / f"{version}.dafsa"), "--quiet")
        assert done.returncode == 0, done.stderr
        assert struct.unpack_from("<H", (tmp_path / f"{version}.dafsa").read_bytes(), 8)[0] == int(version)
    default = run_cli("build", str(source), "-o", str(tmp_path / "d.dafsa"), "--quiet")
    assert default.returncode == 0 and (tmp_path / "d.dafsa").read_bytes() == (tmp_path / "2.dafsa").read_bytes()
    bad = run_cli("build", str(source), "--format-version", "3", "-o", str(tmp_path / "x.dafsa"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "format version 3" in bad.stderr
    assert not (tmp_path / "x.dafsa").exists()
    dumped = subprocess.run(
        [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "dump", str(tmp_path / "1.dafsa")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert dumped == "CHAT\nCHIEN\nNICHE\n"


@pytest.mark.slow
@given(keys=st.one_of(WORDS, KEYS), data=st.data())
def test_the_walks_of_the_edges_in_place_answer_as_a_scan(
    tmp_path_factory: pytest.TempPathFactory, keys: list[str], data: st.DataObject
) -> None:
    import re

    from boggle_dafsa.query import parse, walk

    _, v2 = both(tmp_path_factory.mktemp("w"), keys, Policy.RAW)
    words = sorted(set(keys))
    letters = sorted(set("".join(words))) or ["A"]
    tokens = data.draw(st.lists(st.sampled_from([*letters, "?", "*"]), min_size=1, max_size=5))
    # Pattern characters among the keys' letters are escaped (a backslash before punctuation).
    special = set("?*[]@#\\!^")
    pattern = "".join(t if t in "?*" else ("\\" + t if t in special else t) for t in tokens)
    if any(t not in "?*" and t in special and t.isalnum() for t in tokens):
        return
    regex = re.compile("".join(".*" if t == "*" else "." if t == "?" else re.escape(t) for t in tokens), re.DOTALL)
    automaton = parse.parse_pattern(pattern, v2.normalize)
    expected = [w for w in words if regex.fullmatch(w)]
    for kernel in WALK:
        assert [w for w, _ in walk.search_states(v2, automaton, None, kernel)] == expected
    if words:
        target = data.draw(st.sampled_from(words))
        assert target in {w for _, w in query.fuzzy(v2, target, 1)}


@pytest.mark.slow
@given(keys=st.one_of(WORDS, KEYS), prefix_length=st.integers(0, 3), limit=st.one_of(st.none(), st.integers(0, 5)))
def test_listing_by_the_compiled_walk_is_the_cursors(
    tmp_path_factory: pytest.TempPathFactory, keys: list[str], prefix_length: int, limit: int | None
) -> None:
    from boggle_dafsa.dictionary import DictionaryBase

    _, v2 = both(tmp_path_factory.mktemp("l"), keys, Policy.RAW)
    prefix = sorted(set(keys))[0][:prefix_length] if keys else ""
    # The compiled listing (the query walk over the expanded cells) against the cursor's walk in Python.
    assert list(v2.complete(prefix, limit)) == list(DictionaryBase._complete_key(v2, prefix, limit))


def test_a_header_that_lies_about_the_word_count_is_refused_by_the_listing(tmp_path: Path) -> None:
    import zlib

    d = dictionary_from_words(["ABC", "ABD", "BCD"], tmp_path, name="good.dafsa", version=2)
    data = bytearray(Path(d.path).read_bytes())
    size = d.header.header_size
    d.close()
    for words in (2, 4):
        struct.pack_into("<I", data, 24, words)
        struct.pack_into("<I", data, fileformat._HEADER_CRC_OFFSET, 0)
        struct.pack_into("<I", data, fileformat._HEADER_CRC_OFFSET, zlib.crc32(bytes(data[:size])))
        (tmp_path / "lying.dafsa").write_bytes(data)
        lying = NativeDictionary(tmp_path / "lying.dafsa")
        with pytest.raises(DictionaryError, match="damaged"):
            list(lying)
        lying.close()


def test_the_example_of_docs_format_md_is_what_the_writer_writes() -> None:
    import re

    page = (Path(__file__).resolve().parent.parent / "docs" / "format.md").read_text(encoding="utf-8")
    example = page.split("### Example", 1)[1].split("```", 2)[1]
    # Rows "offset  bytes   edge": the bytes, in hex, at each offset.
    rows = re.findall(r"^\s*(\d+)\s+((?:[0-9a-f]{2} ?)+)\s{2,}", example, flags=re.MULTILINE)
    documented = bytes.fromhex("".join(row[1].replace(" ", "") for row in rows))
    assert [int(row[0]) for row in rows] == sorted(int(row[0]) for row in rows) and rows[0][0] == "0"
    data = compile_words(["CHAT", "CHIEN", "NICHE", "NICHER", "ZOO"])
    header = fileformat.decode_header(data, "example", len(data))
    body = data[header.header_size : header.header_size + header.body_size]  # the word-number section follows
    assert body == documented and header.root == 0 and header.cell_count == 19


@requires_c("builder")
@settings(max_examples=60, deadline=None)
@given(
    keys=st.one_of(
        WORDS,
        KEYS,
        st.lists(st.text(st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF), min_size=1, max_size=4), max_size=20),
    )
)
def test_the_compiled_builder_lays_version_2_out_from_its_states_as_from_the_cells(keys: list[str]) -> None:
    # Builder.compact_body (straight from the states, what the build runs) against the
    # compact_body of the version 1 cells, in C and in Python (the definition).
    import io

    from boggle_dafsa.automaton.stream import python_compact_body

    ready = sorted(set(keys))
    if not ready:
        return
    c = builder_kernel("c")
    builder = c.Builder()
    builder.add_lines("".join(key + "\n" for key in ready).encode("utf-8"))
    builder.finish()
    stats = builder.stats()
    assert stats["alphabet"] == "".join(sorted(set("".join(ready))))
    cells = io.BytesIO()
    _, _, root = builder.write_body(cells)
    direct = builder.compact_body()
    assert direct == c.compact_body(cells.getbuffer(), root, len(stats["alphabet"]))
    assert direct == python_compact_body(cells.getvalue(), root, len(stats["alphabet"]))
    # And the body holds the keys: a depth-first walk of its edges lists them in order.
    layout = compact.CompactLayout(direct[0], direct[1], stats["alphabet"], stats["longest"], "test")
    found: list[str] = []

    def walk(state: int, prefix: str) -> None:
        if layout.is_final(state):
            found.append(prefix)
        for label, child in layout.edges(state):
            walk(child, prefix + stats["alphabet"][label])

    walk(layout.root, "")
    assert found == ready
