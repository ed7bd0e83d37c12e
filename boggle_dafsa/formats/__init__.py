"""The three file formats of a dictionary, behind the one ``Dictionary`` interface.

* ``native``: our minimal DAFSA (``boggle_dafsa.automaton``), the default;
* ``marisa``: a marisa-trie file (the ``marisa-trie`` package), the smallest;
* ``dawg``: a dawgdic CompletionDAWG (the ``DAWG``/``dawg2`` packages, ``dawg-python``),
  written here in pure Python.

Foreign files keep our metadata in a sidecar, ``<file>.meta.json`` (see ``sidecar.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..normalize import Policy
from .detect import detect_format, open_path

FORMATS = ("native", "marisa", "dawg")

__all__ = ["FORMATS", "detect_format", "open_path", "write_dictionary"]


def write_dictionary(words: Sequence[str], path: str | Path, format: str = "native", meta: Mapping[str, Any] | None = None) -> None:
    """Write the sorted unique normalized ``words`` to ``path`` in ``format``, atomically.

    ``meta`` may give ``policy`` (a :class:`Policy` or its value, default fold) and
    ``source_sha256`` (the digest of the normalized list, computed when absent).
    Foreign formats also get their sidecar.
    """
    from ..wordlist import digest_words

    meta = meta or {}
    policy = Policy(meta.get("policy", Policy.FOLD))
    digest = meta.get("source_sha256") or digest_words(words)
    if format == "native":
        from ..automaton.fileformat import write_atomically
        from ..build import compile_words

        write_atomically(path, compile_words(list(words), policy))
    elif format == "marisa":
        from .marisa import write_marisa

        write_marisa(words, path, policy, digest)
    elif format == "dawg":
        from .dawg import write_dawg

        write_dawg(words, path, policy, digest)
    else:
        raise ValueError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
