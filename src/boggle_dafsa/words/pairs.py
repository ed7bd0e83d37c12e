"""Word lists with a value a line, ``WORD<TAB>VALUE``: what ``build --values`` reads (issue 33).

Each non-empty line is a word, a tab, and its value: the word is normalized by the policy
as a word list's is (dropped, and counted, if it is no word of letters), the value is the
rest of the line (after the first tab) exactly, but for the line's end (LF or CRLF): an
``int`` is decimal ASCII digits with an optional sign, in 64 bits; a ``text`` is any text.
Lines without a tab, a carriage return inside a line, a bad int: one line naming the line.

In bounded memory, as a word list is built: :class:`PairStream` turns the list into sort
*records*, ``KEY\\0LINE\\0VALUE`` (the line number in ten digits, so that the records of
one word sort in the order of their lines), which the external sort of
:mod:`~boggle_dafsa.automaton.stream` sorts as it sorts words; :class:`PairMerger` reads
them back in order and hands the writer each word once with one value. A word given twice
with two values is refused in one line naming both lines, unless ``merge`` says which to
keep: ``first`` or ``last`` (the value of the earliest or the latest line), ``sum`` or
``max`` (ints).
"""

from __future__ import annotations

import codecs
import io
import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, AnyStr, BinaryIO

from boggle_dafsa.errors import WordListError, opening
from boggle_dafsa.files.limits import MAX_LINE_BYTES, MAX_LIST_BYTES, MAX_WORD_CHARS, format_bytes
from boggle_dafsa.words.normalize import Policy, normalize, rejection
from boggle_dafsa.words.wordlist import stream_wordlist

#: The kinds of value ``build --values`` reads.
KINDS = ("int", "text")
#: How to keep one value when a word comes with several: by kind.
MERGES = {"int": ("first", "last", "sum", "max"), "text": ("first", "last")}
#: Digits of a line number in a record (a list is at most 1 GiB: fewer lines than 10^10).
LINE_DIGITS = 10
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 63) - 1
#: Bytes read at a time.
BLOCK_BYTES = 1 << 20


def check_merge(kind: str, merge: str | None) -> None:
    """Raise :class:`WordListError` unless ``merge`` (None: refuse two values) suits ``kind``."""
    if kind not in KINDS:
        raise WordListError(f"`values` {kind}: the kinds are {', '.join(KINDS)}")
    if merge is not None and merge not in MERGES[kind]:
        raise WordListError(f"`values_merge` {merge}: for {kind} values, one of {', '.join(MERGES[kind])}")


def parse_int(text: str) -> int | None:
    """The int of ``text`` (decimal ASCII digits, an optional sign, spaces around), None if it is none or past 64 bits."""
    text = text.strip()
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not (digits.isascii() and digits.isdigit()):
        return None
    value = int(text)
    return value if _INT_MIN <= value <= _INT_MAX else None


#: Lines that need no look one by one: a word of ASCII letters, a tab, an int of at most
#: 18 digits (below 2^63 whatever they are); the same with any text without a NUL.
_PLAIN_INTS = re.compile(r"(?:[A-Za-z]+\t[+-]?[0-9]{1,18}\n)*")
_PLAIN_TEXTS = re.compile(r"(?:[A-Za-z]+\t[^\n\r\0]*\n)*")
_RAW_INTS = re.compile(r"(?:[^\t\n\r\0]+\t[+-]?[0-9]{1,18}\n)*")
_RAW_TEXTS = re.compile(r"(?:[^\t\n\r\0]+\t[^\n\r\0]*\n)*")


@dataclass
class PairStream:
    """A ``WORD<TAB>VALUE`` list read block by block into sort records (see the module docstring).

    Records are ``KEY\\0VALUE`` (equal ones are one: a word given twice with the same value
    is one word), or with ``numbered`` ``KEY\\0LINE\\0VALUE`` (every line kept, in the
    order of the lines: what ``first``, ``last`` and ``sum`` need). The counts (``items``,
    ``dropped``, ``kept``) are complete once :meth:`records` is exhausted.
    """

    source: str
    encoding: str
    policy: Policy
    kind: str
    numbered: bool = False
    items: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    kept: int = 0
    file_bytes: int = 0
    bytes_read: int = 0
    data: bytes | None = field(default=None, repr=False)
    #: The builder kernel (``automaton.stream``): its ``pair_records`` makes the records of
    #: a block whose lines need no look each (compiled, or its twin); None: line by line.
    kernel: Any = field(default=None, repr=False)

    def lines(self) -> Iterator[tuple[int, str]]:
        """(number, text) of every line of the list (its end left out), decoded."""
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="strict")
        carry = ""
        line = 1
        first = True
        for raw in self._chunks():
            end = not raw
            try:
                text = carry + decoder.decode(raw, final=end)
            except UnicodeDecodeError as error:
                raise WordListError(f"{self.source}: cannot decode as {self.encoding} ({error.reason})") from None
            if first and text.startswith("\ufeff"):
                text = text[1:]
            first = False
            text, carry = self._whole_lines(text, "\n", end, line)
            if text:
                yield line, text
                line += text.count("\n") + (0 if text.endswith("\n") else 1)

    def records(self) -> Iterator[bytes]:
        """Blocks of records (UTF-8, one a line), in the file's order."""
        pair = getattr(self.kernel, "pair_records", None)
        if pair is None or self.numbered or self.encoding != "utf-8":
            for line, text in self.lines():
                block = self._block(text, line)
                if block:
                    yield block
            return
        # UTF-8 (checked whole by the encoding's pass, or line by line below): a block of
        # plain lines goes from bytes to records at once, the others line by line.
        code = _POLICY_CODES[self.policy]
        ints = self.kind == "int"
        for line, raw, count in self._byte_blocks():
            records = None if b"\n\n" in raw or raw.startswith(b"\n") else pair(raw, code, ints)
            if records is None:
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    number = line + raw.count(b"\n", 0, max(error.start, 0))
                    raise WordListError(f"{self.source}:{number}: cannot decode as utf-8 ({error.reason})") from None
                records = self._block(text, line)
            else:
                self.items += count
                self.kept += count
            if records:
                yield records

    def _byte_blocks(self) -> Iterator[tuple[int, bytes, int]]:
        # (number of its first line, bytes, lines) of blocks of whole lines, each ending in LF.
        carry = b""
        line = 1
        first = True
        for raw in self._chunks():
            if first and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            first = False
            data, carry = self._whole_lines(carry + raw, b"\n", not raw, line)
            if data:
                if not data.endswith(b"\n"):
                    data += b"\n"
                count = data.count(b"\n")
                yield line, data, count
                line += count

    def _chunks(self) -> Iterator[bytes]:
        # The file's bytes, a block at a time, counted in `bytes_read` and refused past the
        # limit on a list's size; an empty block last, at its end.
        with opening(self.source, WordListError, "file"), self._open() as stream:
            while True:
                raw = stream.read(BLOCK_BYTES)
                self.bytes_read += len(raw)
                if self.bytes_read > MAX_LIST_BYTES:
                    raise WordListError(f"{self.source}: word list larger than {format_bytes(MAX_LIST_BYTES)}, the limit")
                yield raw
                if not raw:
                    return

    def _whole_lines(self, data: AnyStr, newline: AnyStr, end: bool, line: int) -> tuple[AnyStr, AnyStr]:
        # (the whole lines of `data`, text or bytes from line number `line`, and what follows
        # the last of them): all of it at the end of the file; a line left longer than the
        # limit on a line's length is refused.
        cut = len(data) if end else data.rfind(newline) + 1
        data, carry = data[:cut], data[cut:]
        if len(carry) > MAX_LINE_BYTES:
            where = line + data.count(newline)
            raise WordListError(f"{self.source}:{where}: line longer than {format_bytes(MAX_LINE_BYTES)}, the limit")
        return data, carry

    def _open(self) -> BinaryIO:
        return io.BytesIO(self.data) if self.data is not None else open(self.source, "rb")

    def _block(self, text: str, line: int) -> bytes:
        # The records of `text`, whole lines from line number `line`.
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        if not text.endswith("\n"):
            text += "\n"
        if not self.numbered and "\n\n" not in text and not text.startswith("\n"):
            # Every line a word and a value that need no look one by one: the block at once.
            policy, ints = self.policy, self.kind == "int"
            if policy is Policy.RAW:
                plain = (_RAW_INTS if ints else _RAW_TEXTS).fullmatch(text)
            else:
                plain = (_PLAIN_INTS if ints else _PLAIN_TEXTS).fullmatch(text)
            if plain:
                count = text.count("\n")
                self.items += count
                self.kept += count
                if ints:
                    return (text.upper() if policy is Policy.FOLD else text).replace("\t", "\0").encode("utf-8")
                if text.count("\t") == count and policy is not Policy.FOLD:  # one tab a line: it becomes the NUL
                    return text.replace("\t", "\0").encode("utf-8")
                fold = policy is Policy.FOLD
                return "".join(f"{key.upper() if fold else key}\0{value}\n" for key, value in _split(text)).encode("utf-8")
        return self._lines(text, line)

    def _lines(self, text: str, line: int) -> bytes:
        # The records of `text` one line at a time (any key, any value, every check).
        lines = text.split("\n")
        lines.pop()  # after the last line end
        policy, ints, source, numbered = self.policy, self.kind == "int", self.source, self.numbered
        out: list[str] = []
        append = out.append
        dropped = self.dropped
        for number, entry in enumerate(lines, line):
            if not entry:
                continue
            key, tab, value = entry.partition("\t")
            if not tab:
                raise WordListError(f"{source}:{number}: no tab: `values` reads WORD<TAB>VALUE lines")
            if "\r" in entry:
                raise WordListError(f"{source}:{number}: a carriage return inside a line (lines end at LF or CRLF)")
            if "\0" in entry:
                raise WordListError(f"{source}:{number}: a NUL character")
            self.items += 1
            if ints and parse_int(value) is None:
                raise WordListError(f"{source}:{number}: {value[:40]!r} is not an int of 64 bits (decimal digits, a sign)")
            normal = normalize(key, policy)
            if normal is None:
                reason = rejection(key, policy)
                dropped[reason.value if reason else "other character"] += 1
                continue
            if len(normal) > MAX_WORD_CHARS:
                raise WordListError(f"{source}:{number}: a word of {len(normal):,} characters: at most {MAX_WORD_CHARS:,}")
            append(f"{normal}\0{number:0{LINE_DIGITS}d}\0{value}\n" if numbered else f"{normal}\0{value}\n")
        self.kept += len(out)
        return "".join(out).encode("utf-8")

    def lines_of(self, key: str) -> list[tuple[int, str]]:
        """(number, value) of every line whose word is ``key`` (normalized): what an error
        about a word given twice names, read again from the list."""
        found: list[tuple[int, str]] = []
        for line, text in self.lines():
            for number, entry in enumerate(text.split("\n"), line):
                word, tab, value = entry.rstrip("\r").partition("\t")
                if tab and normalize(word, self.policy) == key:
                    found.append((number, value))
        return found


def _split(text: str) -> Iterator[tuple[str, str]]:
    # (key, value) of each line of `text` (lines of one tab at least, ending in "\n").
    for entry in text[:-1].split("\n"):
        key, _, value = entry.partition("\t")
        yield key, value


_POLICY_CODES = {Policy.FOLD: 0, Policy.EXACT: 1, Policy.RAW: 2}


def open_pairs(
    path: str,
    policy: Policy,
    kind: str,
    encoding: str | None = None,
    data: bytes | None = None,
    numbered: bool = False,
    kernel: Any = None,
) -> PairStream:
    """Open the ``WORD<TAB>VALUE`` list at ``path`` (its encoding settled as a word list's:
    :func:`~boggle_dafsa.words.wordlist.stream_wordlist`)."""
    settled = stream_wordlist(path, policy=policy, encoding=encoding, data=data)
    encoding = settled.encoding
    if codecs.lookup(encoding).name == "utf-8":
        encoding = "utf-8"
    return PairStream(str(path), encoding, policy, kind, numbered, file_bytes=settled.file_bytes, data=data, kernel=kernel)


def numbered_merge(merge: str | None) -> bool:
    """True if ``merge`` needs the records in the order of their lines (``first``, ``last``),
    or every one of them (``sum``); refusing two values, or keeping the largest, does not."""
    return merge in ("first", "last", "sum")


class PairMerger:
    """Sorted records in (:meth:`add`), each word once with its one value out: ``sink(block,
    values)``, a block of words (one a line) and their values, for the writer."""

    def __init__(
        self,
        kind: str,
        merge: str | None,
        source: str,
        sink: Callable[[bytes, Any], object],
        pairs: PairStream | None = None,
        kernel: Any = None,
    ) -> None:
        check_merge(kind, merge)
        self.kind, self.merge, self.source, self.sink, self.pairs = kind, merge, source, sink, pairs
        #: The builder kernel: its ``pair_split`` takes a block of records apart at once.
        self.kernel = kernel
        self.numbered = numbered_merge(merge)
        self.words = 0
        self._carry = b""  # the last record of a block: the next block may hold its word again
        self._key: bytes | None = None
        self._value: Any = None
        self._raw = b""

    def add(self, block: bytes) -> None:
        """Records of ``block`` (sorted by key, then line or value)."""
        block = self._carry + block
        cut = block.rfind(b"\n", 0, len(block) - 1) + 1
        block, self._carry = block[:cut], block[cut:]
        if not block:
            return
        split = getattr(self.kernel, "pair_split", None)
        if not self.numbered and split is not None:
            parts = split(block, self.kind == "int")
            waiting = self._key
            # Strictly increasing keys, from the word waiting to the carried record's: each
            # word once, in order: the whole block at once.
            if parts is not None and parts[3] < self._carry.partition(b"\0")[0] and (waiting is None or waiting < parts[2]):
                words, values, _, _ = parts
                if self.kind == "int" and not isinstance(values, array):
                    values = array("q", values) if isinstance(values, list) else _int_array(values)
                if waiting is not None:
                    words = waiting + b"\n" + words
                    values = (array("q", [self._value]) + values) if self.kind == "int" else [self._value, *values]
                    self._key = None
                self.sink(words, values)
                self.words += len(values)
                return
        self._one_by_one(block)

    def _one_by_one(self, block: bytes) -> None:
        ints, numbered = self.kind == "int", self.numbered
        keys: list[bytes] = []
        values: list[Any] = []
        key_now = self._key
        for record in block[:-1].split(b"\n"):
            if numbered:
                key, line, raw = record.split(b"\0", 2)
            else:
                key, _, raw = record.partition(b"\0")
                line = b""
            if key == key_now:
                self._combine(key, line, raw)
                continue
            if key_now is not None:
                if key < key_now:
                    where = f":{int(line)}" if line else ""
                    raise WordListError(
                        f"{self.source}{where}: not sorted: {key.decode('utf-8', 'replace')!r} after "
                        f"{key_now.decode('utf-8', 'replace')!r} (leave out `assume_sorted` to sort it)"
                    )
                keys.append(key_now)
                values.append(self._value)
            key_now, self._raw = key, raw
            self._value = int(raw) if ints else _text(raw)
        # The last word waits: the next block may hold it again.
        self._key = key_now
        if keys:
            self.sink(b"\n".join(keys) + b"\n", values)
            self.words += len(keys)

    def _combine(self, key: bytes, line: bytes, raw: bytes) -> None:
        # Another value for the word `key` (records of a word sort by line when numbered).
        merge = self.merge
        value: Any = int(raw) if self.kind == "int" else _text(raw)
        if merge is None:
            if value != self._value:
                raise self._two_values(key, raw)
            return
        if merge == "last":
            self._value, self._raw = value, raw
        elif merge == "sum":
            total = self._value + value
            if not _INT_MIN <= total <= _INT_MAX:
                word = key.decode("utf-8", "replace")
                raise WordListError(f"{self.source}:{int(line)}: the sum of the values of {word!r} passes 64 bits")
            self._value = total
        elif merge == "max":
            self._value = max(self._value, value)
        # "first": the value of the earliest line stays.

    def _two_values(self, key: bytes, raw: bytes) -> WordListError:
        word = key.decode("utf-8")
        first, second = self._raw.decode("utf-8")[:40], raw.decode("utf-8")[:40]
        where = f"{self.source}: two lines"
        if self.pairs is not None:  # the lines, read again (an error's cost only)
            found = self.pairs.lines_of(word)
            if found:
                value = found[0][1]
                other = next((number for number, text in found if _same(text, value, self.kind) is False), None)
                if other is not None:
                    where = f"{self.source}: lines {found[0][0]} and {other}"
        return WordListError(
            f"{where} give {word!r} two values ({first!r} and {second!r}): one value a word "
            f"(`values_merge` {'|'.join(MERGES[self.kind])} says which to keep)"
        )

    def finish(self) -> None:
        """Hand over what waits (the carried record and the last word)."""
        if self._carry:
            block, self._carry = self._carry, b""
            self._one_by_one(block if block.endswith(b"\n") else block + b"\n")
        if self._key is not None:
            self.sink(self._key + b"\n", [self._value])
            self.words += 1
            self._key = None


def _int_array(raw: bytes) -> array[int]:
    # The 64-bit values pair_split gives, as bytes in native order.
    values = array("q")
    values.frombytes(raw)
    return values


def _text(raw: bytes) -> str:
    return raw.decode("utf-8")


def _same(text: str, value: str, kind: str) -> bool:
    if kind == "int":
        return parse_int(text) == parse_int(value)
    return text == value
