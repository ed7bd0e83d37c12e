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
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from boggle_dafsa.automaton.fileformat import Buffer
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.files.atomic import write_atomically
from boggle_dafsa.words.normalize import Policy

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
    #: While a build replaces the file: the fields of the file it replaces (see
    #: :func:`write_with_sidecar`), only ``file_bytes`` and ``file_sha256`` if it had no sidecar.
    previous: dict[str, Any] | None = None

    def to_fields(self) -> dict[str, Any]:
        """The sidecar's fields, as JSON values (without ``previous``)."""
        fields = asdict(self)
        fields.pop("previous")
        fields["policy"] = self.policy.value
        return fields

    def to_json(self) -> str:
        """The sidecar as the JSON text of its file."""
        return _dumps(self.to_fields()).decode("utf-8")


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


def read_back_keys(path: str | Path, words: Sequence[str], keys: Iterable[str]) -> None:
    """Raise :class:`DictionaryError` unless ``keys`` (read back from the bytes a foreign
    writer is about to write) are exactly the sorted ``words``: every writer reads back
    what it wrote before the file is renamed into place (see ``stream.read_back``)."""
    found = sorted(keys, key=lambda key: key.encode("utf-8"))
    if found != list(words):
        raise DictionaryError(
            f"{path}: the file just written does not read back ({len(found):,} keys, {len(words):,} words added, "
            "or other keys); nothing was written: please report this"
        )


def write_with_sidecar(path: str | Path, data: bytes, sidecar: Sidecar) -> None:
    """Write a foreign dictionary file and its sidecar so that an interruption at any
    instant leaves a usable pair: the previous one or the new one.

    Two renames cannot happen at once, so the sidecar speaks for both files while the
    data file is replaced: (1) the new sidecar, also describing the previous file under
    ``previous``; (2) the data file; (3) the new sidecar alone. A reader accepts a file
    that matches either description (:func:`matching_sidecar`). Should (2) fail, the
    previous sidecar is put back.
    """
    meta = sidecar_path(path)
    previous_text = _previous_sidecar_text(path, meta)
    previous = _previous_entry(path, sidecar.format, previous_text)
    fields = sidecar.to_fields()
    # Without a usable previous file, the new sidecar alone goes first: a data file it
    # does not describe (none, or a damaged one) was not usable before either.
    write_atomically(meta, _dumps(fields if previous is None else {**fields, "previous": previous}))
    try:
        write_atomically(path, data)
    except BaseException:
        # Interrupted after the rename, the sidecar already describes the new file too.
        if not _holds(path, data):
            _restore(meta, previous_text)
        raise
    if previous is not None:
        write_atomically(meta, _dumps(fields))


def _restore(meta: Path, previous_text: str | None) -> None:
    try:
        if previous_text is None:
            meta.unlink(missing_ok=True)
        else:
            write_atomically(meta, previous_text.encode("utf-8"))
    except (OSError, DictionaryError):
        pass


def _holds(path: str | Path, data: bytes) -> bool:
    try:
        with open(path, "rb") as stream:
            return stream.read(len(data) + 1) == data
    except OSError:
        return False


def _dumps(fields: dict[str, Any]) -> bytes:
    return (json.dumps(fields, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _previous_sidecar_text(path: str | Path, meta: Path) -> str | None:
    try:
        return _read_text(meta)
    except DictionaryError:
        return None


def _previous_entry(path: str | Path, format: str, previous_text: str | None) -> dict[str, Any] | None:
    # What describes the file now at `path`, if it is a usable dictionary: its sidecar's
    # fields, or only its size and digest when it has no sidecar (it is then read as a
    # file without one). A file its sidecar does not describe is not worth keeping.
    try:
        with open(path, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                return None
            content = stream.read()
    except OSError:
        return None
    if previous_text is None:
        return {"file_bytes": len(content), "file_sha256": file_sha256(content)}
    try:
        old = matching_sidecar(path, content, _parse(previous_text, path, format, sidecar_path(path)))
    except DictionaryError:
        return None
    return {"file_bytes": len(content), "file_sha256": file_sha256(content)} if old is None else old.to_fields()


#: Largest sidecar read: real ones are under 1 kB (the alphabet is most of it).
MAX_SIDECAR_BYTES = 64 * 1024
#: Bounds of the numeric fields; beyond them a sidecar is absurd, not merely large.
_MAX_COUNT = 1 << 48
_MAX_LONGEST_WORD = 1 << 16


def read_sidecar(path: str | Path, format: str) -> Sidecar | None:
    """The sidecar of the ``format`` file at ``path``, or None if there is none.

    Raises :class:`DictionaryError` for a sidecar that cannot be read, is not a regular
    file, is over :data:`MAX_SIDECAR_BYTES`, is malformed (every field is checked for
    type and range), or describes another format.
    """
    meta = sidecar_path(path)
    text = _read_text(meta)
    if text is None:
        return None
    return _parse(text, path, format, meta)


def matching_sidecar(path: str | Path, data: Buffer, sidecar: Sidecar) -> Sidecar | None:
    """The description of ``data`` in ``sidecar``: itself, or the previous file it also
    describes while a build replaces the file (None: the previous file had no sidecar).

    Raises :class:`DictionaryError` when neither describes ``data``.
    """
    if len(data) != sidecar.file_bytes and not sidecar.previous:
        raise DictionaryError(
            f"{path}: {len(data)} bytes, its sidecar says {sidecar.file_bytes}: "
            f"damaged, or replaced without {sidecar_path(path).name}"
        )
    digest = file_sha256(data)
    if len(data) == sidecar.file_bytes and digest == sidecar.file_sha256:
        return sidecar
    previous = sidecar.previous
    if previous and len(data) == previous.get("file_bytes") and digest == previous.get("file_sha256"):
        if set(previous) == {"file_bytes", "file_sha256"}:
            return None
        return _from_fields(previous, sidecar.format)
    raise DictionaryError(
        f"{path}: does not match the digest in its sidecar: damaged, or replaced without {sidecar_path(path).name}"
    )


def _read_text(meta: Path) -> str | None:
    # Bounded and regular: a sidecar is a small file; a pipe, a device or a huge file is refused.
    try:
        info = os.stat(meta)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise DictionaryError(f"{meta}: cannot read sidecar ({error.strerror or error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise DictionaryError(f"{meta}: sidecar is not a regular file")
    if info.st_size > MAX_SIDECAR_BYTES:
        raise DictionaryError(f"{meta}: sidecar of {info.st_size:,} bytes is too large (at most {MAX_SIDECAR_BYTES:,})")
    try:
        with open(meta, "rb") as stream:
            data = stream.read(MAX_SIDECAR_BYTES + 1)
        if len(data) > MAX_SIDECAR_BYTES:
            raise DictionaryError(f"{meta}: sidecar is too large (at most {MAX_SIDECAR_BYTES:,} bytes)")
        return data.decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise DictionaryError(f"{meta}: cannot read sidecar ({getattr(error, 'strerror', None) or error})") from None


def _parse(text: str, path: str | Path, format: str, meta: Path) -> Sidecar:
    try:
        fields: Any = json.loads(text)
        if not isinstance(fields, dict):
            raise ValueError("not a JSON object")
        version = fields.get("version", SIDECAR_VERSION)
        if not isinstance(version, int) or isinstance(version, bool) or version > SIDECAR_VERSION:
            raise DictionaryError(
                f"{meta}: sidecar version {str(version)[:20]} is newer than this tool reads: upgrade boggle-dafsa"
            )
        sidecar = _from_fields(fields, None)
        previous = fields.get("previous")
        if previous is not None:
            if not isinstance(previous, dict):
                raise TypeError("previous should be an object")
            if set(previous) == {"file_bytes", "file_sha256"}:
                _check_file_fields(previous)
            else:
                _from_fields(previous, sidecar.format)
            sidecar = Sidecar(**{**asdict(sidecar), "previous": previous})
    except (ValueError, KeyError, TypeError, RecursionError) as error:
        raise DictionaryError(f"{meta}: malformed sidecar ({str(error)[:200]}): delete it or rebuild the dictionary") from None
    if sidecar.format != format:
        raise DictionaryError(f"{meta}: sidecar describes a {sidecar.format[:20]} file, but {path} is a {format} file")
    return sidecar


def _from_fields(fields: dict[str, Any], format: str | None) -> Sidecar:
    source = fields.get("source_sha256")
    sidecar = Sidecar(
        format=_typed(fields, "format", str),
        policy=Policy(_typed(fields, "policy", str)),
        alphabet=_typed(fields, "alphabet", str),
        words=_bounded(fields, "words", _MAX_COUNT),
        longest_word=_bounded(fields, "longest_word", _MAX_LONGEST_WORD),
        source_sha256=source if isinstance(source, str) and _is_digest(source) else None,
        file_bytes=_bounded(fields, "file_bytes", _MAX_COUNT),
        file_sha256=_typed(fields, "file_sha256", str),
        tool=str(fields.get("tool", ""))[:200],
        version=SIDECAR_VERSION,
    )
    _check_file_fields(fields)
    if format is not None and sidecar.format != format:
        raise ValueError(f"previous file of format {sidecar.format[:20]}")
    if len(set(sidecar.alphabet)) != len(sidecar.alphabet):
        raise ValueError("alphabet repeats a letter")
    return sidecar


def _check_file_fields(fields: dict[str, Any]) -> None:
    _bounded(fields, "file_bytes", _MAX_COUNT)
    if not _is_digest(_typed(fields, "file_sha256", str)):
        raise ValueError("file_sha256 should be 64 hexadecimal digits")


def _is_digest(text: str) -> bool:
    return len(text) == 64 and all(ch in "0123456789abcdef" for ch in text)


def _bounded(fields: dict[str, Any], name: str, most: int) -> int:
    value: int = _typed(fields, name, int)
    if not 0 <= value <= most:
        raise ValueError(f"{name} out of range")
    return value


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
