"""Word numbers (issue 33): ``d.index(word)``, ``d.word(i)``, the word-number section of the
native format (docs/format.md), its checks, and ``lookup --index``, ``dump --index``."""

from __future__ import annotations

import itertools
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from boggle_dafsa import compiled
from boggle_dafsa.automaton import compact, fileformat, numbering
from boggle_dafsa.automaton.fileformat import INDEX_FIXED_SIZE, WordCounts, encode_word_numbers, index_parts
from boggle_dafsa.automaton.reader import NativeDictionary
from boggle_dafsa.automaton.stream import NativeWriter
from boggle_dafsa.cli import app
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.words.normalize import Policy, normalize
from helpers.kernels import BUILDER, CENSUS, builder_kernel, each, forced

runner = CliRunner()
POLICIES = [Policy.FOLD, Policy.EXACT, Policy.RAW]


def numbered(data: bytes, kernel: str) -> NativeDictionary:
    """The dictionary of ``data``, its index and word armed with ``kernel``."""
    with forced(kernel):
        d = opened(data)
        d._arm()
        assert (d._lookup is not None) == (kernel == "c")
    return d


def written(words: list[str], policy: Policy = Policy.FOLD, version: int = 2, index: bool = True, kernel: str = "c") -> bytes:
    """The file of the sorted, unique, normalized ``words`` (by the builder kernel named, if built)."""
    import io

    writer = NativeWriter(builder_kernel(kernel))
    writer.add_words(words)
    stream = io.BytesIO()
    writer.write_to(stream, policy, None, version, index)
    return stream.getvalue()


def opened(data: bytes) -> NativeDictionary:
    return NativeDictionary.of_buffer(data, "test.dafsa")


def keys(raw: list[str], policy: Policy) -> list[str]:
    return sorted({key for key in (normalize(word, policy) for word in raw) if key}, key=lambda w: w.encode("utf-8"))


def check_round_trip(d: NativeDictionary, words: list[str]) -> None:
    assert len(d) == len(words)
    for number, word in enumerate(words):
        assert d.index(word) == number
        assert d.word(number) == word
    for wrong in (len(words), len(words) + 7, -1):
        with pytest.raises(IndexError):
            d.word(wrong)


WORD = st.text(alphabet="ABCDEFÉçz-' 1", min_size=1, max_size=9)


@settings(max_examples=30, deadline=None)
@given(
    raw=st.lists(WORD, max_size=40),
    policy=st.sampled_from(POLICIES),
    version=st.sampled_from([1, 2]),
    index=st.booleans(),
    kernel=st.sampled_from(CENSUS),
)
def test_index_and_word_round_trip_every_word(raw: list[str], policy: Policy, version: int, index: bool, kernel: str) -> None:
    words = keys(raw, policy)
    data = written(words, policy, version, index)
    d = numbered(data, kernel)
    assert d.stores_word_numbers is index
    check_round_trip(d, words)
    # Absent keys: prefixes and extensions of words, and strangers.
    present = set(words)
    for word in words[:5]:
        for other in (word[:-1], word + "A", word + "Z", "Q" + word):
            if other and other not in present and normalize(other, policy) == other:
                with pytest.raises(KeyError):
                    d.index(other)


@settings(max_examples=30, deadline=None)
@given(raw=st.lists(st.text(alphabet="ABCDE", min_size=1, max_size=7), max_size=60), version=st.sampled_from([1, 2]))
def test_the_stored_section_is_the_one_computed_and_the_kernels_write_the_same(raw: list[str], version: int) -> None:
    words = keys(raw, Policy.FOLD)
    files = {name: written(words, version=version, kernel=name) for name in BUILDER}
    assert len(set(files.values())) == 1  # the compiled and the Python builder: the same bytes
    data = next(iter(files.values()))
    with_section, without = opened(data), opened(written(words, version=version, index=False))
    h = with_section.header
    start = h.header_size + h.body_size
    assert (
        data[start:]
        == encode_word_numbers(without.states, h.word_count)
        == encode_word_numbers(with_section.states, h.word_count)
    )
    assert h.file_size == len(data) and without.header.file_size == start
    assert [with_section.index(w) for w in words] == [without.index(w) for w in words] == list(range(len(words)))


@each("census")
@pytest.mark.parametrize("version", [1, 2])
def test_a_word_over_many_states_and_counts_past_a_byte(version: int, kernel: str) -> None:
    # Counts of 255 and more go through the escape table; a state with many children.
    words = sorted({"".join(letters) for letters in itertools.product("ABCD", repeat=5)} | {"A", "AB", "ABCDABCD"})
    d = numbered(written(words, version=version), kernel)
    counts = d.word_counts()
    assert counts.escapes  # 256 words and more below each of the root's children: escaped
    check_round_trip(d, words)


@pytest.mark.slow
@each("census")
def test_a_wide_alphabet_round_trips(kernel: str) -> None:
    words = sorted({chr(0x4E00 + i) + chr(0x4E00 + j) for i in range(40) for j in range(0, 40, 3)})
    for version in (1, 2):  # version 1: headers of two cells, the twins walk them
        with forced(kernel):
            check_round_trip(opened(written(words, Policy.RAW, version)), words)


def test_an_empty_dictionary_has_no_numbers() -> None:
    d = opened(written([]))
    with pytest.raises(IndexError):
        d.word(0)
    with pytest.raises(KeyError):
        d.index("A")


def test_index_normalizes_as_in_does_and_refuses_what_is_no_word() -> None:
    d = opened(written(["CHAT", "ELEVE", "ZOO"]))
    assert d.index("élève") == 1 and d.index("chat") == 0
    for wrong in ("", "CHA", "CHATS", "c-h", "123"):
        with pytest.raises(KeyError):
            d.index(wrong)
    with pytest.raises(TypeError):
        d.word("1")  # type: ignore[arg-type]


# -- damaged sections -------------------------------------------------------------------


def section_of(data: bytes) -> tuple[int, fileformat.Header]:
    header = fileformat.decode_header(data, "x", len(data))
    return header.header_size + header.body_size, header


def resealed(data: bytes, offset: int, value: bytes) -> bytes:
    """``data`` with ``value`` at ``offset`` of its word-number section, its CRC recomputed (only the walks can tell)."""
    start, _ = section_of(data)
    out = bytearray(data)
    out[start + offset : start + offset + len(value)] = value
    struct.pack_into("<I", out, start + 8, zlib.crc32(bytes(out[start + 12 :])))
    return bytes(out)


WORDS = sorted({a + b for a in "ABCD" for b in "ABCDE"} | {a + b + "S" for a in "ABCD" for b in "AE"} | {"ABCDE", "EA", "EB"})


def parts(data: bytes) -> tuple[int, int, int, int, int]:
    start, header = section_of(data)
    _, _, _, units, counted, escapes = struct.unpack_from("<4sIIIII", data, start)
    return index_parts(units, counted, escapes)


@each("census")
@pytest.mark.parametrize("version", [1, 2])
def test_a_count_larger_than_the_words_is_refused(version: int, kernel: str) -> None:
    data = written(WORDS, version=version)
    counts_at = parts(data)[2]
    d = numbered(resealed(data, counts_at, bytes([len(WORDS) + 1])), kernel)
    with pytest.raises(DictionaryError, match="damaged dictionary"):
        d.index("AB")
    with pytest.raises(DictionaryError, match="damaged dictionary"):
        d.word(0)


def outcomes(d: NativeDictionary) -> list[object]:
    """Each word's number, then each number's word, or the error in its place."""
    found: list[object] = []
    for call, arguments in ((d.index, WORDS), (d.word, range(len(WORDS)))):
        for argument in arguments:
            try:
                found.append(call(argument))  # type: ignore[operator]
            except DictionaryError as error:
                assert "damaged dictionary" in str(error) and "\n" not in str(error)
                found.append(str(error))
    return found


def lies(data: bytes) -> Iterator[bytes]:
    """``data`` with each count of its section changed to 1, one more, and the word count, resealed."""
    _, _, counts_at, table_at, _ = parts(data)
    start = section_of(data)[0]
    for ordinal in range(table_at - counts_at):
        original = data[start + counts_at + ordinal]
        for lie in sorted({1, original + 1, len(WORDS)} - {original}):
            yield resealed(data, counts_at + ordinal, bytes([lie]))


@pytest.mark.parametrize("version", [1, 2])
def test_a_lying_count_is_refused_before_any_answer(version: int) -> None:
    # Resealed (its CRC holds), a lie is refused at the first index or word: the section is
    # recounted once a file, so no answer ever comes from it.
    data = written(WORDS, version=version)
    told = 0
    for bad in lies(data):
        for kernel in CENSUS:
            found = outcomes(numbered(bad, kernel))
            assert all(isinstance(answer, str) and "does not match its automaton" in answer for answer in found)
        told += 1
    assert told >= 2 * (parts(data)[3] - parts(data)[2])


@pytest.mark.parametrize("version", [1, 2])
def test_the_walks_check_that_the_counts_add_up_on_their_path(version: int) -> None:
    # The walks themselves, given a lying section (what the recount would have refused):
    # the compiled ones and their twins give the same answers and refuse the same walks,
    # and each lie is refused by some walk that reads it.
    data = written(WORDS, version=version)
    sound = numbered(data, CENSUS[0])
    h = sound.header
    for bad in lies(data):
        start = section_of(bad)[0]
        section = bad[start:]
        counts = WordCounts(section, sound.states.units, h.word_count, h.state_count)
        walks: list[list[object]] = []
        for kernel in CENSUS:
            found: list[object] = []
            for word in WORDS:
                try:
                    if kernel == "c":
                        found.append(sound._lookup.number_of(word, section, h.word_count))
                    else:
                        found.append(numbering.index_of(sound.states, counts, h.word_count, word))
                except ValueError as error:
                    found.append(str(error))
            for number in range(len(WORDS)):
                try:
                    if kernel == "c":
                        found.append(sound._lookup.word_of(number, section, h.word_count))
                    else:
                        found.append(numbering.word_at(sound.states, counts, h.word_count, number))
                except ValueError as error:
                    found.append(str(error))
            walks.append(found)
        assert all(found == walks[0] for found in walks)
        assert any(isinstance(answer, str) and answer.startswith("damaged: ") for answer in walks[0][: len(WORDS)]) or any(
            isinstance(answer, str) and answer.startswith("damaged: ") for answer in walks[0][len(WORDS) :]
        )


@each("census")
@pytest.mark.parametrize("version", [1, 2])
def test_a_damaged_section_is_refused_in_one_line(version: int, kernel: str) -> None:
    data = written(WORDS, version=version)
    start, header = section_of(data)
    bitmap_at, directory_at, counts_at, _, size = parts(data)
    crafted = {
        "checksum": data[: start + size - 1] + bytes([data[start + size - 1] ^ 1]),
        "zero count": resealed(data, counts_at, b"\0"),
        "bitmap": resealed(data, bitmap_at, bytes([data[start + bitmap_at] ^ 0x80])),
        "directory": resealed(data, directory_at + 4, struct.pack("<I", 1000)) if directory_at + 8 <= counts_at else None,
        "escape": resealed(data, counts_at, b"\xff"),
    }
    for name, bad in crafted.items():
        if bad is None:
            continue
        d = numbered(bad, kernel)
        with pytest.raises(DictionaryError, match="damaged dictionary") as caught:
            d.word(0)
        assert "\n" not in str(caught.value), name
        assert not d.body_intact() if name == "checksum" else d.body_intact()


def test_verify_recomputes_every_stored_count(tmp_path: Path) -> None:
    data = written(WORDS)
    counts_at, table_at = parts(data)[2:4]
    # A count no walk of the first word reads, resealed: only the recount sees it.
    bad = resealed(data, table_at - 1, bytes([data[section_of(data)[0] + table_at - 1] % 200 + 1]))
    d = opened(bad)
    with pytest.raises(DictionaryError, match="does not match its automaton"):
        d.check_word_numbers()
    opened(data).check_word_numbers()


def test_the_header_refuses_unknown_flags_and_a_cut_section() -> None:
    data = bytearray(written(WORDS))
    cut = bytes(data[:-1])
    with pytest.raises(DictionaryError, match="truncated"):
        opened(cut)
    header_size = struct.unpack_from("<I", data, 12)[0]
    data[17] |= 0x04  # bit 1 is the value section's (issue 33): bit 2 is unknown
    struct.pack_into("<I", data, 92, 0)
    struct.pack_into("<I", data, 92, zlib.crc32(bytes(data[:header_size])))
    with pytest.raises(DictionaryError, match="upgrade"):
        opened(bytes(data))


def test_a_section_shorter_than_its_fields_say_is_refused() -> None:
    data = written(WORDS)
    start, _ = section_of(data)
    with pytest.raises(ValueError, match="damaged"):
        WordCounts(data[start : start + INDEX_FIXED_SIZE], 10, 10, 10)


# -- the commands -----------------------------------------------------------------------


@pytest.fixture
def wordlist(tmp_path: Path) -> Path:
    path = tmp_path / "mots.txt"
    path.write_text("chien\nchat\nniche\nnicher\nzoo\nélève\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("flags", [[], ["--no-index"], ["--format-version", "1"], ["--format-version", "1", "--no-index"]])
def test_dump_and_lookup_index(tmp_path: Path, wordlist: Path, flags: list[str]) -> None:
    out = tmp_path / "d.dafsa"
    assert runner.invoke(app, ["build", str(wordlist), "-o", str(out), "-q", *flags]).exit_code == 0
    dumped = runner.invoke(app, ["dump", "--index", str(out)])
    assert dumped.exit_code == 0
    assert dumped.output == "0\tCHAT\n1\tCHIEN\n2\tELEVE\n3\tNICHE\n4\tNICHER\n5\tZOO\n"
    looked = runner.invoke(app, ["lookup", "--index", "-d", str(out), "zoo", "élève", "chats"])
    assert looked.exit_code == 1
    assert looked.output == "ZOO\t5\nELEVE\t2\nCHATS\tno\n"
    shown = runner.invoke(app, ["inspect", str(out)])
    stored = "--no-index" not in flags
    assert ("word numbers    stored" in shown.output) is stored
    assert ("not stored" in shown.output) is not stored


@pytest.mark.slow
def test_the_section_costs_bytes_that_no_index_saves(tmp_path: Path, wordlist: Path) -> None:
    sizes = []
    for flags in ([], ["--no-index"]):
        out = tmp_path / f"d{len(flags)}.dafsa"
        assert runner.invoke(app, ["build", str(wordlist), "-o", str(out), "-q", *flags]).exit_code == 0
        sizes.append(out.stat().st_size)
        assert runner.invoke(app, ["verify", str(wordlist), str(out)]).exit_code == 0
    assert sizes[0] > sizes[1]


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 2])
def test_every_word_of_enable2k_round_trips(enable2k_path: Path, version: int) -> None:
    words = enable2k_path.read_text(encoding="ascii").split()
    words = sorted(set(word.upper() for word in words))
    data = written(words, version=version)
    d = numbered(data, CENSUS[0])
    assert d.stores_word_numbers and len(d) == 173_528
    check_round_trip(d, words)
    # The twins (about 0.3 ms a call): every 50th word, and the first and last.
    twin = numbered(data, "python")
    for number in [*range(0, len(words), 50), len(words) - 1]:
        assert twin.index(words[number]) == number and twin.word(number) == words[number]


@pytest.mark.skipif(not hasattr(compiled.built("census"), "word_numbers"), reason="the compiled census is not built")
@settings(max_examples=40, deadline=None)
@given(
    raw=st.lists(st.text(alphabet="ABCDEÉ", min_size=1, max_size=8), max_size=60),
    version=st.sampled_from([1, 2]),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), max_size=3),
)
def test_the_compiled_count_is_its_twin(raw: list[str], version: int, flips: list[tuple[int, int]]) -> None:
    # The section the compiled census part makes (word_numbers) is the Python twin's
    # (encode_word_numbers), byte for byte; on a damaged body both refuse, as "damaged".
    words = keys(raw, Policy.EXACT)
    d = opened(written(words, Policy.EXACT, version, index=False))
    module = compiled.built("census")
    assert fileformat.word_numbers(d.states, len(words)) == encode_word_numbers(d.states, len(words))
    h = d.header
    body = bytearray(written(words, Policy.EXACT, version, index=False)[h.header_size :])
    for where, mask in flips:
        if body:
            body[where % len(body)] ^= mask
    if version == 2:
        states: fileformat.NativeLayout | compact.CompactLayout = compact.CompactLayout(
            bytes(body), h.root, h.alphabet, h.longest_word, "x"
        )
        args: tuple[object, ...] = (bytes(body), 2, h.root, len(h.alphabet), h.longest_word, h.word_count)
    else:
        cells = memoryview(bytes(body)).cast("I")
        states = fileformat.NativeLayout.of(cells, h.root, h.alphabet, h.longest_word, "x")
        args = (cells, 1, h.root, len(h.alphabet), h.longest_word, h.word_count)
    try:
        twin: object = encode_word_numbers(states, h.word_count)
    except (ValueError, IndexError) as error:
        twin = type(error)
    try:
        made = module.word_numbers(*args)
        ours: object = made[:8] + twin[8:12] + made[12:] if isinstance(twin, bytes) else made  # the twin fills the CRC
    except (ValueError, IndexError) as error:
        ours = type(error)
    if isinstance(twin, bytes):
        assert ours == twin
    else:  # a damaged body: both refuse it
        assert ours in (ValueError, IndexError), (twin, ours)


def test_a_stored_section_is_recounted_once_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = written(WORDS)
    path = tmp_path / "d.dafsa"
    path.write_bytes(data)
    recounts: list[int] = []
    real = numbering.word_numbers

    def counted(*arguments: object) -> bytes:
        recounts.append(1)
        return real(*arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(numbering, "word_numbers", counted)
    for _ in range(3):
        with NativeDictionary(path) as d:
            assert d.word(3) == WORDS[3] and d.index(WORDS[5]) == 5
    assert len(recounts) == 1  # then the verdict, kept by the file's identity
    counts_at = parts(data)[2]
    lie = resealed(data, counts_at, bytes([data[section_of(data)[0] + counts_at] % 3 + 1]))
    assert lie != data
    liar = tmp_path / "lie.dafsa"
    liar.write_bytes(lie)
    with NativeDictionary(liar) as d, pytest.raises(DictionaryError, match="does not match its automaton"):
        d.word(0)
