"""The sidecar of a foreign dictionary file: what its format has no room for.

marisa and dawgdic files hold bare keys. What the native header records (normalization
policy, alphabet, word count, digest of the source list) is kept next to them, in
``<file>.meta.json``, written by ``build`` and read when the file is opened. The sidecar
also records the file's own size and SHA-256, so that a damaged file, or one replaced
without its sidecar, is refused instead of being trusted (marisa's C++ library does not
check its input and can crash on a damaged file).

A foreign file without a sidecar is used with documented defaults (see
``docs/foreign-formats.md``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..automaton.fileformat import Buffer, write_atomically
from ..errors import DictionaryError
from ..normalize import Policy

SUFFIX = ".meta.json"
#: Bumped when a field changes meaning; newer sidecars are refused.
SIDECAR_VERSION = 1


@dataclass(frozen=True)
class Sidecar:
    """What a sidecar records about its dictionary file."""

    format: str
    policy: Policy
    alphabet: str
    words: int
    #: Letters (code points) in the longest word.
    longest_word: int
    #: SHA-256 of the normalized list (``wordlist.digest_words``), if known.
    source_sha256: str | None
    file_bytes: int
    file_sha256: str
    tool: str
    version: int = SIDECAR_VERSION

    def to_json(self) -> str:
        """The sidecar as the JSON text of its file."""
        fields = asdict(self)
        fields["policy"] = self.policy.value
        return json.dumps(fields, ensure_ascii=False, indent=2) + "\n"


def sidecar_path(path: str | Path) -> Path:
    """Where the sidecar of the dictionary at ``path`` lives."""
    path = Path(path)
    return path.with_name(path.name + SUFFIX)


def file_sha256(data: Buffer) -> str:
    """SHA-256 hex digest of a dictionary file's bytes."""
    return hashlib.sha256(data).hexdigest()


def describe(words: list[str], format: str, data: bytes, policy: Policy, source_sha256: str | None) -> Sidecar:
    """The sidecar of ``data``, the ``format`` file of the sorted unique ``words``."""
    alphabet = "".join(sorted(set("".join(words))))
    return Sidecar(
        format=format,
        policy=policy,
        alphabet=alphabet,
        words=len(words),
        longest_word=max(map(len, words), default=0),
        source_sha256=source_sha256,
        file_bytes=len(data),
        file_sha256=file_sha256(data),
        tool=_tool_version(),
    )


def write_with_sidecar(path: str | Path, data: bytes, sidecar: Sidecar) -> None:
    """Write a foreign dictionary's sidecar and then the file itself, each atomically.

    The sidecar goes first: if it cannot be written, nothing is. Should the file's own
    write fail next, the new sidecar is removed again; any file left at ``path`` then
    disagrees with no sidecar rather than with a wrong one.
    """
    meta = sidecar_path(path)
    write_atomically(meta, sidecar.to_json().encode("utf-8"))
    try:
        write_atomically(path, data)
    except BaseException:
        meta.unlink(missing_ok=True)
        raise


def read_sidecar(path: str | Path, format: str) -> Sidecar | None:
    """The sidecar of the ``format`` file at ``path``, or None if there is none.

    Raises :class:`DictionaryError` for a sidecar that cannot be read, is malformed, or
    describes another format.
    """
    meta = sidecar_path(path)
    try:
        text = meta.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise DictionaryError(f"{meta}: cannot read sidecar ({getattr(error, 'strerror', None) or error})") from None
    try:
        fields: Any = json.loads(text)
        if not isinstance(fields, dict):
            raise ValueError("not a JSON object")
        version = fields.get("version", SIDECAR_VERSION)
        if not isinstance(version, int) or version > SIDECAR_VERSION:
            raise DictionaryError(f"{meta}: sidecar version {version} is newer than this tool reads: upgrade boggle-dafsa")
        sidecar = Sidecar(
            format=_typed(fields, "format", str),
            policy=Policy(_typed(fields, "policy", str)),
            alphabet=_typed(fields, "alphabet", str),
            words=_typed(fields, "words", int),
            longest_word=_typed(fields, "longest_word", int),
            source_sha256=fields.get("source_sha256") if isinstance(fields.get("source_sha256"), str) else None,
            file_bytes=_typed(fields, "file_bytes", int),
            file_sha256=_typed(fields, "file_sha256", str),
            tool=str(fields.get("tool", "")),
            version=version,
        )
    except (ValueError, KeyError, TypeError) as error:
        raise DictionaryError(f"{meta}: malformed sidecar ({error}): delete it or rebuild the dictionary") from None
    if sidecar.format != format:
        raise DictionaryError(f"{meta}: sidecar describes a {sidecar.format} file, but {path} is a {format} file")
    return sidecar


def check_file(path: str | Path, data: Buffer, sidecar: Sidecar) -> None:
    """Raise :class:`DictionaryError` unless ``data`` is the file the sidecar describes."""
    if len(data) != sidecar.file_bytes:
        raise DictionaryError(
            f"{path}: {len(data)} bytes, its sidecar says {sidecar.file_bytes}: "
            f"damaged, or replaced without {sidecar_path(path).name}"
        )
    if file_sha256(data) != sidecar.file_sha256:
        raise DictionaryError(
            f"{path}: does not match the digest in its sidecar: damaged, or replaced without {sidecar_path(path).name}"
        )


def _typed(fields: dict[str, Any], name: str, kind: type) -> Any:
    value = fields[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"{name} should be {kind.__name__}")
    return value


def _tool_version() -> str:
    try:
        from importlib.metadata import version

        return f"boggle-dafsa {version('boggle-dafsa')}"
    except Exception:  # not installed (running from a checkout)
        return "boggle-dafsa"
