"""How bytes from users become text: word lists, grids, batch, player and dice files.

The given encoding, else UTF-8 (a BOM allowed), UTF-16 and UTF-32 by their byte order
mark, else ISO-8859-15, which decodes any byte; and the note to give when that last guess
probably lost characters. A raw list (``build --policy raw``) is UTF-8 only, never
guessed: :func:`decode_raw`. A module of its own, light to import: every command that reads
a grid from standard input or a file needs it, most never need the rest of
:mod:`.wordlist` (start-up time).
"""

from __future__ import annotations

import codecs
import re

from boggle_dafsa.errors import WordListError

UTF8_BOM = b"\xef\xbb\xbf"
# Byte order marks of the wider Unicode encodings, UTF-32 first (its LE mark starts with UTF-16's).
WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
FALLBACK_ENCODING = "iso-8859-15"


def decode(data: bytes, source: str, encoding: str | None = None) -> tuple[str, str]:
    """Decode ``data``: the given encoding, else UTF-8 (BOM allowed), else ISO-8859-15.

    UTF-16 and UTF-32 are recognized by their byte order mark. Returns the text and the
    encoding used. Binary data (a NUL byte) is refused.
    """
    if encoding is None:
        for mark, wide in WIDE_BOMS:
            if data.startswith(mark):
                encoding = wide  # its codec reads the mark and drops it
                break
    # A NUL byte means binary data, unless the user named an encoding that has them (UTF-16).
    nul = -1 if encoding else data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise WordListError(f"{source}:{line}: binary file (NUL byte), not a word list")
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
        encoding = encoding or "utf-8"
    candidates = [encoding] if encoding else ["utf-8", FALLBACK_ENCODING]
    for candidate in candidates:
        try:
            return data.decode(candidate), candidate
        except LookupError:
            raise WordListError(f"unknown encoding {candidate!r}") from None
        except UnicodeDecodeError as error:
            if candidate is candidates[-1]:
                line = data.count(b"\n", 0, error.start) + 1
                raise WordListError(f"{source}:{line}: cannot decode byte 0x{data[error.start]:02x} as {candidate}") from None
        except UnicodeError as error:
            # Codecs such as punycode and idna raise the bare UnicodeError, with no position.
            raise WordListError(f"{source}: cannot decode as {candidate} ({str(error)[:100]!r})") from None
    raise AssertionError("unreachable")


def decode_raw(data: bytes, source: str, first_line: int = 1) -> str:
    """Decode the bytes of a raw list (:attr:`~boggle_dafsa.words.normalize.Policy.RAW`): UTF-8, only.

    Each line is kept exactly as given, so nothing is guessed: no other encoding, no byte
    order mark dropped (one at the start is refused, as is a NUL byte or a byte that is not
    UTF-8, each naming its line). ``data`` is whole lines of the list, starting at line
    ``first_line`` (a block of a streamed list: its first block starts at line 1).
    """
    if first_line == 1 and data.startswith(UTF8_BOM):
        raise WordListError(
            f"{source}:1: a byte order mark (EF BB BF): a raw list is UTF-8 without one (each line is kept as given)"
        )
    nul = data.find(b"\0")
    if nul >= 0:
        line = first_line + data.count(b"\n", 0, nul)
        raise WordListError(f"{source}:{line}: binary file (NUL byte), not a word list")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise raw_decode_error(data, source, error.start, first_line) from None


def raw_decode_error(data: bytes, source: str, position: int, first_line: int = 1) -> WordListError:
    """The one-line error for the byte at ``position`` of ``data``, which is not UTF-8, in a raw list."""
    line = first_line + data.count(b"\n", 0, position)
    return WordListError(
        f"{source}:{line}: byte 0x{data[position]:02x} is not UTF-8: a raw list is UTF-8 only (each line is kept as given)"
    )


def check_raw_encoding(encoding: str | None) -> None:
    """Refuse an ``encoding`` other than UTF-8 for a raw list (None: UTF-8, the only one)."""
    if encoding is None:
        return

    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise WordListError(f"unknown encoding {encoding!r}") from None
    if name != "utf-8":
        raise WordListError(f"encoding {encoding!r}: a raw list (`policy` raw) is UTF-8 only, each line kept as given")


def encoding_hint(data: bytes, used_encoding: str) -> str | None:
    """Why the guessed ``used_encoding`` may have lost characters, and which one keeps them.

    ISO-8859-15 reads bytes 0x80-0x9F as invisible control characters, so words that hold
    them are dropped; in a Windows-1252 list those bytes are letters and punctuation
    (0x9C is œ, 0x8C Œ, 0x92 an apostrophe). None when there is nothing to say.
    """
    if used_encoding != FALLBACK_ENCODING:
        return None

    controls = re.findall(rb"[\x80-\x9f]", data)
    if not controls:
        return None
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return f"{len(controls)} bytes in 0x80-0x9F are control characters in {FALLBACK_ENCODING}; the words that hold them were dropped"
    example = bytes([controls[0][0]]).decode("cp1252")
    return f"{len(controls)} bytes in 0x80-0x9F (such as {example!r} in Windows-1252) are control characters in {FALLBACK_ENCODING}: `encoding` cp1252 would keep them"
