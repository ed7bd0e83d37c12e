"""How bytes from users become text: word lists, grids, batch, player and dice files.

The given encoding, else UTF-8 (a BOM allowed), UTF-16 and UTF-32 by their byte order
mark, else ISO-8859-15, which decodes any byte; and the note to give when that last guess
probably lost characters. A module of its own, light to import: every command that reads
a grid from standard input or a file needs it, most never need the rest of
:mod:`.wordlist` (start-up time).
"""

from __future__ import annotations

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


def encoding_hint(data: bytes, used_encoding: str) -> str | None:
    """Why the guessed ``used_encoding`` may have lost characters, and which one keeps them.

    ISO-8859-15 reads bytes 0x80-0x9F as invisible control characters, so words that hold
    them are dropped; in a Windows-1252 list those bytes are letters and punctuation
    (0x9C is œ, 0x8C Œ, 0x92 an apostrophe). None when there is nothing to say.
    """
    if used_encoding != FALLBACK_ENCODING:
        return None
    import re

    controls = re.findall(rb"[\x80-\x9f]", data)
    if not controls:
        return None
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return f"{len(controls)} bytes in 0x80-0x9F are control characters in {FALLBACK_ENCODING}; the words that hold them were dropped"
    example = bytes([controls[0][0]]).decode("cp1252")
    return f"{len(controls)} bytes in 0x80-0x9F (such as {example!r} in Windows-1252) are control characters in {FALLBACK_ENCODING}: `encoding` cp1252 would keep them"
