"""Telling the formats apart from a file's first bytes, by asking each record of the registry.

Each format's magic and the test of a file's first bytes are its record's
(:mod:`.registry`): native starts with the native magic, marisa with ``We love
Marisa.`` and a NUL byte, dawg with its number of dictionary units (a little-endian u32,
a non-zero multiple of 256, so a NUL first byte). The extension of the file plays no part.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from boggle_dafsa.errors import DictionaryError, opening
from boggle_dafsa.formats.registry import HEAD_SIZE, MARISA_MAGIC, claiming, spoken

__all__ = ["MARISA_MAGIC", "detect_format"]


def detect_format(path: str | Path) -> str:
    """The format of the dictionary file at ``path``: one of :data:`.registry.FORMATS`.

    Raises :class:`DictionaryError` if the file is missing, unreadable or none of them.
    """
    with opening(path, DictionaryError, "dictionary file"):
        # Checked before opening: opening a named pipe for reading would wait forever.
        if not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path):
            raise DictionaryError(f"{path}: not a regular file (a dictionary must be a file it can map)")
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            head = stream.read(HEAD_SIZE)
    if size == 0:
        raise DictionaryError(f"{path}: empty file, not a dictionary")
    record = claiming(head)
    if record is None:
        raise DictionaryError(f"{path}: not a dictionary ({spoken()})")
    return record.name
