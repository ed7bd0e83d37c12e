"""Telling the three formats apart from a file's first bytes: every magic number is here.

* native: starts with the native magic (``automaton/fileformat.py: MAGIC``);
* marisa: starts with ``We love Marisa.`` and a NUL byte;
* dawg: starts with its number of dictionary units, a little-endian u32 that is a
  non-zero multiple of 256, so its first byte is NUL (which no text file starts with);
  the file size must then match the units and the guide (see ``dawg.layout``).

The extension of the file plays no part.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from boggle_dafsa.automaton.fileformat import MAGIC as NATIVE_MAGIC
from boggle_dafsa.errors import DictionaryError, opening

#: Every marisa file starts with these 16 bytes (kept here so that detecting a native
#: file does not import marisa_trie).
MARISA_MAGIC = b"We love Marisa.\x00"
_HEAD_SIZE = max(len(NATIVE_MAGIC), len(MARISA_MAGIC), 4)


def detect_format(path: str | Path) -> str:
    """The format of the dictionary file at ``path``: "native", "marisa" or "dawg".

    Raises :class:`DictionaryError` if the file is missing, unreadable or none of them.
    """
    with opening(path, DictionaryError, "dictionary file"):
        # Checked before opening: opening a named pipe for reading would wait forever.
        if not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path):
            raise DictionaryError(f"{path}: not a regular file (a dictionary must be a file it can map)")
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            head = stream.read(_HEAD_SIZE)
    if size == 0:
        raise DictionaryError(f"{path}: empty file, not a dictionary")
    if head.startswith(NATIVE_MAGIC[:4]):
        return "native"  # the native reader tells a bad or truncated header apart
    if head.startswith(MARISA_MAGIC[:8]):
        return "marisa"
    if len(head) >= 4 and head[0] == 0 and int.from_bytes(head[:4], "little") >= 256:
        return "dawg"
    raise DictionaryError(f"{path}: not a dictionary (native, marisa or dawg)")
