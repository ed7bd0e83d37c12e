"""Reading word lists as people actually have them, and normalizing their words.

Accepted: one word a line (LF, CRLF or CR), blank lines, words separated by semicolons or
commas; UTF-8 or ISO-8859-15 (detected), UTF-16 and UTF-32 with a byte order mark;
unsorted, with duplicates. Under the raw policy, one key a line (LF or CRLF), nothing
split, and UTF-8 only: no other encoding guessed, no byte order mark, no lone CR. How bytes become text is :mod:`.decoding`'s (re-exported here).
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from boggle_dafsa.errors import WordListError, opening
from boggle_dafsa.files.limits import (
    MAX_LINE_BYTES,
    MAX_LIST_BYTES,
    MAX_READ_BYTES,
    MAX_WORD_CHARS,
    check_word,
    format_bytes,
    read_limited,
)
from boggle_dafsa.words.decoding import FALLBACK_ENCODING, check_raw_encoding, decode, decode_raw, encoding_hint
from boggle_dafsa.words.decoding import UTF8_BOM as _BOM
from boggle_dafsa.words.decoding import WIDE_BOMS as _WIDE_BOMS
from boggle_dafsa.words.normalize import Policy, fold, rejection

# An item between separators: line breaks of every convention, semicolons, commas.
_ITEM = re.compile(r"[^\r\n;,]+")


@dataclass
class WordList:
    """A word list after reading and normalization."""

    source: str
    encoding: str
    policy: Policy
    #: The kept words, normalized, sorted in code point (= UTF-8 byte) order, without duplicates.
    words: list[str]
    #: Non-empty items read from the file, before normalization.
    items: int = 0
    #: Items dropped by normalization, counted by reason.
    dropped: Counter[str] = field(default_factory=Counter)
    #: A sentence for the user when the guessed encoding probably lost characters (see :func:`encoding_hint`).
    hint: str | None = None
    #: The list's bytes when they were read already (standard input); else the file is read.
    data: bytes | None = field(default=None, repr=False)

    @property
    def duplicates(self) -> int:
        """Items that normalized to a word already kept."""
        return self.items - sum(self.dropped.values()) - len(self.words)

    @property
    def digest(self) -> str:
        """SHA-256 of the normalized list (see :func:`digest_words`)."""
        return digest_words(self.words)


def digest_words(sorted_words: Iterable[str]) -> str:
    """SHA-256 hex digest of the words joined by newlines, each followed by one (UTF-8)."""
    import hashlib  # a few ms to import: readers of dice and batch files never need it

    hasher = hashlib.sha256()
    for word in sorted_words:
        hasher.update(word.encode("utf-8"))
        hasher.update(b"\n")
    return hasher.hexdigest()


def read_wordlist(
    path: str | Path, policy: Policy = Policy.FOLD, encoding: str | None = None, data: bytes | None = None
) -> WordList:
    """Read, decode, split and normalize the word list at ``path``.

    ``data``, if given, is the list's bytes, already read (standard input): ``path`` then
    only names it in messages.

    Raises :class:`WordListError` (one line: what and where) for a missing, unreadable,
    empty, binary or undecodable file, or one where no word survives normalization. A raw
    list (:attr:`Policy.RAW`) is UTF-8 only (:func:`~boggle_dafsa.words.decoding.decode_raw`).
    """
    if policy is Policy.RAW:
        check_raw_encoding(encoding)
        data = read_bytes(path) if data is None else data
        wordlist = _parse_raw(decode_raw(data, str(path)), str(path), "utf-8")
        if not wordlist.words:
            raise WordListError(f"{path}: word list is empty")
        return wordlist
    data = read_bytes(path, stop_at_nul=encoding is None) if data is None else data
    text, used_encoding = decode(data, str(path), encoding)
    wordlist = parse_words(text, policy, source=str(path), encoding=used_encoding)
    if encoding is None:
        wordlist.hint = encoding_hint(data, used_encoding)
    if not wordlist.words:
        what = "is empty" if wordlist.items == 0 else f"has no word left after normalization ({_dropped_summary(wordlist)})"
        raise WordListError(f"{path}: word list {what}")
    return wordlist


def read_bytes(path: str | Path, limit: int = MAX_READ_BYTES, *, stop_at_nul: bool = True) -> bytes:
    """The bytes of a user-given file, with one-line errors for every way it can fail.

    At most ``limit`` bytes (more is an error); reading stops early at a NUL byte unless
    ``stop_at_nul`` is false (see :func:`boggle_dafsa.files.limits.read_limited`).
    """
    return read_limited(path, limit, WordListError, "file", stop_at_nul=stop_at_nul)


def parse_words(text: str, policy: Policy = Policy.FOLD, source: str = "<text>", encoding: str = "utf-8") -> WordList:
    """Split ``text`` into items and normalize them into a :class:`WordList`."""
    if policy is Policy.RAW:
        return _parse_raw(text, source, encoding)
    kept: list[str] = []
    dropped: Counter[str] = Counter()
    items = 0
    for chunk in _chunks(text, source):
        # Normalization works per character, so a whole chunk of the list is normalized
        # in one pass (several times faster than word by word); separators stay as they are.
        chunk = fold(chunk) if policy is Policy.FOLD else unicodedata.normalize("NFC", chunk)
        for word in split_items(chunk, source):
            items += 1
            if word.isalpha():
                kept.append(word)
            else:
                reason = rejection(word, policy)
                dropped[reason.value if reason else "other character"] += 1
    # Sorting a list and skipping repeats needs far less memory than a set of every word.
    kept.sort()
    words = [word for word, following in zip(kept, kept[1:] + [""]) if word != following]
    return WordList(source=source, encoding=encoding, policy=policy, words=words, items=items, dropped=dropped)


def raw_lines(text: str, source: str = "<text>", first_line: int = 1) -> list[str]:
    """The keys of ``text`` under :attr:`Policy.RAW`: its non-empty lines exactly as given.

    Lines end at a line feed; the carriage return of a CRLF ending goes with it. Nothing
    else is touched: spaces, ``,``, ``;``, digits, any character but a line break: a
    carriage return elsewhere in a line is a :class:`WordListError` naming its line (a key
    holds no line break). ``text`` is whole lines of the list from line ``first_line``.
    """
    lines = text.split("\n")
    keys = [line[:-1] if line.endswith("\r") else line for line in lines]
    if "\r" in text:
        for number, key in enumerate(keys, first_line):
            if "\r" in key:
                raise WordListError(
                    f"{source}:{number}: a carriage return inside a line: a raw key holds no line break (lines end at LF or CRLF)"
                )
    for key in keys:
        if len(key) > MAX_WORD_CHARS:
            check_word(key, WordListError, source)
    return [key for key in keys if key]


def _parse_raw(text: str, source: str, encoding: str) -> WordList:
    # Policy.RAW: one key a line, nothing dropped but empty lines.
    kept = raw_lines(text, source)
    items = len(kept)
    kept.sort()  # code point order is UTF-8 byte order
    words = [word for word, following in zip(kept, kept[1:] + [""]) if word != following]
    return WordList(source=source, encoding=encoding, policy=Policy.RAW, words=words, items=items)


def split_items(text: str, source: str = "<text>") -> Iterator[str]:
    """The non-empty items of ``text``, stripped: what lies between line breaks, ``;`` and ``,``.

    An item over :data:`~boggle_dafsa.files.limits.MAX_WORD_CHARS` characters is a
    :class:`WordListError` (located in ``source``), never split.
    """
    for match in _ITEM.finditer(text):
        item = match.group().strip()
        if item:
            yield check_word(item, WordListError, source) if len(item) > MAX_WORD_CHARS else item


def _chunks(text: str, source: str, size: int = 1 << 18) -> Iterator[str]:
    # Pieces of about `size` characters cut just after a separator: normalizing piece by
    # piece keeps only one small copy of the text alive at a time.
    start = 0
    while start < len(text):
        end = start + size
        if end < len(text):
            cut = max(text.rfind(separator, start, end) for separator in "\n\r;,")
            if cut < start:
                # No separator in `size` characters: an item far over the limit, which
                # cutting here would split into words.
                check_word(text[start:end], WordListError, source)
            end = cut + 1
        yield text[start:end]
        start = end


def _dropped_summary(wordlist: WordList) -> str:
    return ", ".join(f"{count} dropped: {reason}" for reason, count in wordlist.dropped.most_common())


# -- streaming: the list read block by block, for builds that never hold it whole -----------

#: Bytes of the file read at a time when streaming.
STREAM_BLOCK_BYTES = 1 << 20
_BLANK_LINES = re.compile(r"\n{2,}")
_BLANK_BYTE_LINES = re.compile(rb"\n{2,}")
_ALL_BUT_CONTROLS = bytes(b for b in range(256) if not 0x80 <= b <= 0x9F)
#: codecs' names of the encodings whose line breaks are single bytes found in no other character.
_BYTEWISE_ENCODINGS = {"utf-8", "ascii", "latin-1"} | {f"iso8859-{n}" for n in range(1, 17)} | {"cp1252"}


@dataclass
class WordStream:
    """A word list read block by block: normalized words out, counts kept on the way.

    ``blocks()`` yields UTF-8 blocks of the kept words, one a line, each line ending in
    a newline, in the file's order (unsorted, repeats kept). Only one block of the file is
    in memory at a time. The counts (``items``, ``dropped``, ``kept``) are complete once
    the blocks are exhausted.
    """

    source: str
    encoding: str
    policy: Policy
    items: int = 0
    #: Items dropped by normalization, counted by reason.
    dropped: Counter[str] = field(default_factory=Counter)
    #: Items kept (repeats included): ``items`` less the dropped ones.
    kept: int = 0
    #: Bytes of the file (for progress).
    file_bytes: int = 0
    #: Bytes of the file read so far.
    bytes_read: int = 0
    block_bytes: int = STREAM_BLOCK_BYTES
    #: Refuse NUL bytes (binary data) on the way: when no encoding was forced.
    refuse_nul: bool = True
    #: The encoding was given (not detected).
    forced: bool = False
    #: A sentence for the user when the guessed encoding probably lost characters (see :func:`encoding_hint`).
    hint: str | None = None
    #: The list's bytes when they were read already (standard input); else the file is read.
    data: bytes | None = field(default=None, repr=False)

    def blocks(self) -> Iterator[bytes]:
        """The kept words, block by block (see the class docstring)."""
        if self.policy is Policy.RAW:
            yield from self._raw_blocks()
            return

        # In UTF-8 and the ISO-8859 family a line break is one byte that no other
        # character contains: blocks are cut as bytes, and ASCII blocks never decoded.
        bytewise = codecs.lookup(self.encoding).name in _BYTEWISE_ENCODINGS
        decoder = codecs.getincrementaldecoder(self.encoding)(errors="strict")
        carry_bytes, carry = b"", ""
        lines_before = 0
        with opening(self.source, WordListError, "file"), self._open() as stream:
            first = True
            while True:
                # The first read is long enough for any byte order mark.
                raw = stream.read(max(self.block_bytes, 4) if first else self.block_bytes)
                end = not raw
                self.bytes_read += len(raw)
                if self.bytes_read > MAX_LIST_BYTES:
                    raise WordListError(f"{self.source}: word list larger than {format_bytes(MAX_LIST_BYTES)}, the limit")
                if first and raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
                if first and not self.forced and self.refuse_nul:  # a pipe: no detection pass was made
                    wide = _wide_encoding(raw)
                    if wide:
                        self.encoding, self.refuse_nul, bytewise = wide, False, False
                        decoder = codecs.getincrementaldecoder(wide)(errors="strict")
                first = False
                nul = raw.find(b"\0") if self.refuse_nul else -1
                if nul >= 0:
                    line = lines_before + raw.count(b"\n", 0, nul) + 1
                    raise WordListError(f"{self.source}:{line}: binary file (NUL byte), not a word list")
                if bytewise:
                    data = carry_bytes + raw
                    # Cut after the last line break: an item never spans two blocks.
                    cut = len(data) if end else max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
                    data, carry_bytes = data[:cut], data[cut:]
                    if len(carry_bytes) > MAX_LINE_BYTES:
                        raise _long_line(self.source, lines_before + data.count(b"\n") + 1)
                    if data.isascii():
                        block = self._ascii(data)
                        lines_before += data.count(b"\n")
                        if block:
                            yield block
                        if end:
                            return
                        continue
                    raw = data  # whole lines: decoded on their own
                try:
                    text = carry + decoder.decode(raw, final=end or bytewise)
                except UnicodeDecodeError as error:  # a forced encoding, or a pipe, that does not fit
                    line = lines_before + raw.count(b"\n", 0, max(error.start, 0)) + 1
                    what = f"cannot decode as {self.encoding} ({error.reason})"
                    if not self.forced and self.refuse_nul:  # only pipes are not checked beforehand
                        what += ": a list read from a pipe must be UTF-8, or say which encoding it is"
                    raise WordListError(f"{self.source}:{line}: {what}") from None
                except UnicodeError as error:  # codecs such as punycode raise the bare UnicodeError
                    raise WordListError(f"{self.source}: cannot decode as {self.encoding} ({str(error)[:100]!r})") from None
                lines_before += raw.count(b"\n")
                if not end and not bytewise:
                    cut = max(text.rfind("\n"), text.rfind("\r")) + 1
                    text, carry = text[:cut], text[cut:]
                    if len(carry) > MAX_LINE_BYTES:
                        raise _long_line(self.source, lines_before + 1)
                if text:
                    block = self._normalized(text).encode("utf-8")
                    if block:
                        yield block
                if end:
                    return

    def _raw_blocks(self) -> Iterator[bytes]:
        # Policy.RAW: UTF-8 only, cut after the last line feed of each block, each block of
        # whole lines checked and split as the whole-list reader does (decode_raw, raw_lines).
        carry = b""
        lines_before = 0
        with opening(self.source, WordListError, "file"), self._open() as stream:
            while True:
                raw = stream.read(self.block_bytes)
                end = not raw
                self.bytes_read += len(raw)
                if self.bytes_read > MAX_LIST_BYTES:
                    raise WordListError(f"{self.source}: word list larger than {format_bytes(MAX_LIST_BYTES)}, the limit")
                data = carry + raw
                cut = len(data) if end else data.rfind(b"\n") + 1
                data, carry = data[:cut], data[cut:]
                if len(carry) > MAX_LINE_BYTES:
                    raise _long_line(self.source, lines_before + data.count(b"\n") + 1)
                if data:
                    keys = raw_lines(decode_raw(data, self.source, lines_before + 1), self.source, lines_before + 1)
                    lines_before += data.count(b"\n")
                    self.items += len(keys)
                    self.kept += len(keys)
                    if keys:
                        yield "".join(key + "\n" for key in keys).encode("utf-8")
                if end:
                    return

    def _open(self) -> BinaryIO:
        # The list's bytes: the file, or those given (already read from standard input).
        return io.BytesIO(self.data) if self.data is not None else open(self.source, "rb")

    def _ascii(self, data: bytes) -> bytes:
        # `_normalized` for an ASCII block, on bytes: folding ASCII is upper-casing it.
        if self.policy is Policy.FOLD:
            data = data.upper()
        lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if not lines.replace(b"\n", b"").isalpha():
            return self._normalized(data.decode("ascii")).encode("ascii")
        if b"\n\n" in lines or lines.startswith(b"\n"):
            lines = _BLANK_BYTE_LINES.sub(b"\n", lines).lstrip(b"\n")
        if lines and not lines.endswith(b"\n"):
            lines += b"\n"
        count = lines.count(b"\n")
        self.items += count
        self.kept += count
        return lines

    def _normalized(self, text: str) -> str:
        # The kept words of `text`, one a line, each ending in "\n"; counts updated (fold and
        # exact: a raw list is `_raw_blocks`').
        text = fold(text) if self.policy is Policy.FOLD else unicodedata.normalize("NFC", text)
        lines = text.replace("\r\n", "\n").replace("\r", "\n")
        if lines.replace("\n", "").isalpha():
            # The common case, one word a line and letters only: no item to look at one by one.
            if "\n\n" in lines or lines.startswith("\n"):
                lines = _BLANK_LINES.sub("\n", lines).lstrip("\n")
            if lines and not lines.endswith("\n"):
                lines += "\n"
            count = lines.count("\n")
            self.items += count
            self.kept += count
            return lines
        kept: list[str] = []
        for word in split_items(lines, self.source):
            self.items += 1
            if word.isalpha():
                kept.append(word)
            else:
                reason = rejection(word, self.policy)
                self.dropped[reason.value if reason else "other character"] += 1
        self.kept += len(kept)
        return "".join(word + "\n" for word in kept)


def stream_wordlist(
    path: str | Path, policy: Policy = Policy.FOLD, encoding: str | None = None, data: bytes | None = None
) -> WordStream:
    """Open the word list at ``path`` for reading block by block (see :class:`WordStream`).

    The encoding is settled first, in one pass over the file that holds one block at a
    time: the given one, else UTF-8 (BOM allowed), else ISO-8859-15. A missing, unreadable
    or binary file raises :class:`WordListError` here. A raw list (:attr:`Policy.RAW`) is
    UTF-8, never guessed: no pass, each block checked as it is read.
    """
    source = str(path)
    if policy is Policy.RAW:
        check_raw_encoding(encoding)
        with opening(path, WordListError, "file"):
            size = len(data) if data is not None else os.stat(path).st_size
        return WordStream(source=source, encoding="utf-8", policy=policy, file_bytes=size, forced=True, data=data)
    if encoding:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise WordListError(f"unknown encoding {encoding!r}") from None

    if data is None:
        with opening(path, WordListError, "file"):
            regular = stat.S_ISREG(os.stat(path).st_mode)
    if data is None and not regular:
        # A pipe or a device can be read once only: no detection pass, UTF-8 unless told.
        return WordStream(
            source=source, encoding=encoding or "utf-8", policy=policy, refuse_nul=not encoding, forced=bool(encoding)
        )
    forced = bool(encoding)
    size = 0
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="strict")
    is_utf8 = True
    lines_before = 0
    # For encoding_hint: the bytes 0x80-0x9F, and whether Windows-1252 reads them all.
    controls, example, cp1252 = 0, b"", True
    with opening(path, WordListError, "file"), open(path, "rb") if data is None else io.BytesIO(data) as stream:
        first = True
        while True:
            raw = stream.read(STREAM_BLOCK_BYTES)
            wide = None
            if first and not encoding:
                wide = encoding = _wide_encoding(raw)
            if first and raw.startswith(_BOM):
                encoding = encoding or "utf-8"
            first = False
            size += len(raw)
            if size > MAX_LIST_BYTES:
                raise WordListError(f"{source}: word list larger than {format_bytes(MAX_LIST_BYTES)}, the limit")
            if not forced and not wide:
                nul = raw.find(b"\0")
                if nul >= 0:
                    line = lines_before + raw.count(b"\n", 0, nul) + 1
                    raise WordListError(f"{source}:{line}: binary file (NUL byte), not a word list")
            if not encoding:
                found = raw.translate(None, _ALL_BUT_CONTROLS)
                if found:
                    controls += len(found)
                    example = example or found[:1]
                    if cp1252:
                        try:
                            found.decode("cp1252")
                        except UnicodeDecodeError:
                            cp1252 = False
                if is_utf8:
                    try:
                        utf8.decode(raw, final=not raw)
                    except UnicodeDecodeError:
                        is_utf8 = False
            lines_before += raw.count(b"\n")
            if not raw:
                break
    if size == 0:
        raise WordListError(f"{source}: word list is empty")
    used = encoding or ("utf-8" if is_utf8 else FALLBACK_ENCODING)
    hint = None
    if not encoding and used == FALLBACK_ENCODING and controls:
        # The same sentences as encoding_hint, from the counts of the pass.
        if not cp1252:
            hint = f"{controls} bytes in 0x80-0x9F are control characters in {FALLBACK_ENCODING}; the words that hold them were dropped"
        else:
            hint = (
                f"{controls} bytes in 0x80-0x9F (such as {example.decode('cp1252')!r} in Windows-1252) are control "
                f"characters in {FALLBACK_ENCODING}: `encoding` cp1252 would keep them"
            )
    return WordStream(
        source=source, encoding=used, policy=policy, file_bytes=size, refuse_nul=False, forced=forced, hint=hint, data=data
    )


def _long_line(source: str, line: int) -> WordListError:
    return WordListError(f"{source}:{line}: line longer than {format_bytes(MAX_LINE_BYTES)}, the limit")


def _wide_encoding(data: bytes) -> str | None:
    # UTF-16 or UTF-32 when `data` starts with its byte order mark (its codec drops the mark).
    for mark, wide in _WIDE_BOMS:
        if data.startswith(mark):
            return wide
    return None
