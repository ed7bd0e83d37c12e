"""The limits on what the user's files may hold, and bounded reading.

A dictionary tool is handed files from strangers: a word list that is ``/dev/zero``, a
line of 100 MB, endless standard input. Every input is read through :func:`read_limited`
or :func:`read_line`, so each is a one-line error within seconds, in bounded memory.
docs/reliability.md lists these limits.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from boggle_dafsa.errors import BoggleError, opening

#: Largest word list that ``build`` streams into a native file (bytes): it holds a block
#: at a time, so this only bounds the time an endless input (``yes |``) takes.
MAX_LIST_BYTES = 1 << 30
#: Largest word list read whole (bytes): foreign formats, ``verify``, ``-d words.txt``.
MAX_READ_BYTES = 128 << 20
#: Longest line of a word list (bytes); a line may hold several items (``;`` or ``,``).
MAX_LINE_BYTES = 1 << 20
#: Longest item of a word list or player file (characters): a longer one is an error,
#: never split. Real words have at most a few dozen letters.
MAX_WORD_CHARS = 1024
#: Most states of an automaton ``build`` makes: about 1 GB in the builder. Real lists
#: stay far below (325,313 French words: 36,863 states), but a list of random strings
#: needs about one state per letter.
MAX_STATES = 1 << 22
#: Most words a dictionary file without a stated count (a dawg file without sidecar)
#: may hold: no list ``build`` reads has more. A file of a few states can encode 2**1000.
MAX_DICTIONARY_WORDS = 1 << 30
#: Largest player file, dice file, or grid read from standard input (bytes).
MAX_SMALL_FILE_BYTES = 1 << 20
#: Largest batch file of grids (bytes); each of its lines is a grid (``grid.MAX_GRID_CHARS``).
MAX_BATCH_BYTES = 128 << 20

_CHUNK = 1 << 20


def read_limited(
    source: str | Path | BinaryIO,
    limit: int,
    error: type[BoggleError],
    what: str,
    *,
    stop_at_nul: bool = False,
) -> bytes:
    """The bytes of ``source`` (a path, or a binary stream such as standard input).

    Raises ``error`` (one line) for a file that cannot be read or holds more than
    ``limit`` bytes; reads at most ``limit + 1`` bytes, so endless input is no matter.
    With ``stop_at_nul``, reading stops at the first chunk holding a NUL byte: the caller
    refuses binary data anyway, and ``/dev/zero`` never ends.
    """
    name = getattr(source, "name", None) if not isinstance(source, (str, Path)) else source
    label = "standard input" if name in (None, 0, "<stdin>") else str(name)
    if isinstance(source, (str, Path)):
        with opening(source, error, what), open(source, "rb") as stream:
            return _read(stream, limit, error, what, label, stop_at_nul)
    try:
        return _read(source, limit, error, what, label, stop_at_nul)
    except OSError as os_error:
        raise error(f"{label}: cannot read ({os_error.strerror or os_error})") from None


def _read(stream: BinaryIO, limit: int, error: type[BoggleError], what: str, label: str, stop_at_nul: bool) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = stream.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if stop_at_nul and b"\0" in chunk:
            break
    data = b"".join(chunks)
    if len(data) > limit and not (stop_at_nul and b"\0" in data):
        raise error(f"{label}: {what} larger than {format_bytes(limit)}, the limit")
    return data


def read_line(stream: BinaryIO, limit: int, error: type[BoggleError], where: str) -> bytes:
    """One line of ``stream`` (b"" at the end), refused as ``error`` if over ``limit`` bytes."""
    line = stream.readline(limit + 1)
    if len(line) > limit and not line.endswith(b"\n"):
        raise error(f"{where}: line longer than {format_bytes(limit)}, the limit")
    return line


def check_word(item: str, error: type[BoggleError], where: str) -> str:
    """``item`` if it has at most :data:`MAX_WORD_CHARS` characters, else ``error``."""
    if len(item) > MAX_WORD_CHARS:
        raise error(f"{where}: an item of {len(item):,} characters ({item[:20]!r}...): at most {MAX_WORD_CHARS:,}")
    return item


def format_bytes(count: int) -> str:
    """``134217728`` → ``128 MiB``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count:,} bytes"


def refuse_overwriting(output: str | Path, inputs: list[str | Path], error: type[BoggleError]) -> None:
    """Raise ``error`` if ``output`` is one of ``inputs`` (the same file, by any name or
    link): writing it would replace an input by the output, often before it is read."""
    for source in inputs:
        try:
            same = os.path.samefile(output, source)
        except (OSError, ValueError):
            continue  # either does not exist (yet): they cannot be the same file
        if same:
            raise error(f"{output}: is the input {source}: write the output elsewhere")
