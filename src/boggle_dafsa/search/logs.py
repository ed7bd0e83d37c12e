"""The ndjson logs of ``prove`` and ``best``: each line sealed by a digest, chained to the line before.

A line's digest (BLAKE2b, 128 bits, in its ``"digest"`` field) covers its canonical JSON
(sorted keys, compact), the *identity* of the run that wrote it (what the run's ``spec``
key says, the seed of a search, and the dictionary's content digest: a line of another
proof or dictionary never passes) and the digest of the line before it in the file (a
line without one, of an older version, by the digest of its text): a line edited, or a
line removed before a line of the run, breaks the chain at the next line of the run.

What a cut tail means is unchanged: the last line of a run killed while writing it has
no newline, and is dropped (not read, and cut off before the next line is written).
Removing whole lines at the end cannot be told from a run killed earlier: those classes
or runs are done again.

The digest is a check, not a signature: it is made of what the log and the dictionary
hold, so whoever reads this code can seal a forged line. That is why ``--resume`` also
scores again every board a log names (see ``prove.read_log`` and ``best.read_log``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from boggle_dafsa.dictionaries.resolve import embedded_digest, embedded_name
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.files.limits import read_limited

#: What a line's digest is (32 hex digits), told apart from anything else in the field.
_DIGEST = re.compile(r"[0-9a-f]{32}")
#: Bytes of a log read back at a time when looking for its last lines.
_BLOCK = 1 << 16
#: What every line's digest starts from: the first line of a file has no line before it.
START = ""
#: The longest line a log is looked into for (a class or a run is a few kB).
MAX_LINE = 16 << 20


def dictionary_identity(dictionary: str, digest: str | None) -> str:
    """What names a dictionary's content: the SHA-256 of its file, or of an embedded
    list's words (``data/SHA256SUMS``), else its name as given."""
    if digest:
        return f"file:{digest}"

    name = embedded_name(dictionary)
    return f"embedded:{name}:{embedded_digest(name)}" if name is not None else f"name:{dictionary}"


def line_digest(identity: str, previous: str, record: dict[str, Any]) -> str:
    """The digest of ``record`` (a log line less its ``digest`` field) written by the run
    ``identity`` after a line whose chain value is ``previous``."""
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    text = "\0".join(("boggle-dafsa log 1", identity, previous, body))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def chain_value(line: str, data: Any) -> str:
    """What the next line's digest covers of ``line`` (``data``: its JSON, or None): its
    digest, or for a line without one (an older version's, not JSON) the digest of its text."""
    if isinstance(data, dict):
        digest = data.get("digest")
        if isinstance(digest, str) and _DIGEST.fullmatch(digest):
            return digest
    return hashlib.blake2b(line.encode(), digest_size=16).hexdigest()


def lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, complete) of a log's text: the last is incomplete when the
    text does not end with a newline (a run killed while writing it)."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
        ended = True
    else:
        ended = False
    for number, line in enumerate(parts, start=1):
        yield number, line.rstrip("\r"), ended or number < len(parts)


def check(path: str | Path, number: int, identity: str, previous: str, data: dict[str, Any], what: str) -> None:
    """Raise :class:`BoggleError` (one line) unless line ``number`` of the log at ``path``
    is sealed by the run ``identity`` after ``previous`` (``what``: "proof", "search")."""
    digest = data.get("digest")
    if digest is None:
        raise BoggleError(
            f"{path}:{number}: a line without a digest (written before 2026-11-27): this {what} log cannot be "
            "checked; start over with `log` in a new file"
        )
    record = {name: value for name, value in data.items() if name != "digest"}
    if not isinstance(digest, str) or digest != line_digest(identity, previous, record):
        raise BoggleError(
            f"{path}:{number}: the line fails its digest (it was edited, a line before it removed, or it was "
            f"written with another dictionary): this {what} log cannot be trusted; start over with `log` in a new file"
        )


class LogWriter:
    """Appends sealed lines to a log: the chain goes on from the file's last line.

    A last line cut short (no newline: a run killed while writing it) is cut off first,
    so that what follows starts on a line of its own.
    """

    def __init__(self, path: str | Path, identity: str) -> None:
        self.path = path
        self.identity = identity
        self.previous = START
        self._stream: IO[str] | _Uploaded
        if is_url(path):
            self._stream = _Uploaded(str(path))
            self.previous = self._stream.previous
            return
        try:
            with open(path, "rb+") as stream:
                last = _cut_tail(stream, path)
            if last is not None:
                text = last.decode("utf-8", errors="replace").rstrip("\r")
                try:
                    data = json.loads(text)
                except ValueError:
                    data = None
                self.previous = chain_value(text, data)
        except FileNotFoundError:
            pass
        except OSError as error:
            raise BoggleError(f"{path}: cannot open the log ({error.strerror})") from None
        try:
            self._stream = open(path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            raise BoggleError(f"{path}: cannot open the log ({error.strerror})") from None

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line, sealed, and flush it."""
        digest = line_digest(self.identity, self.previous, record)
        self._stream.write(json.dumps({**record, "digest": digest}) + "\n")
        self._stream.flush()
        self.previous = digest

    def close(self) -> None:
        self._stream.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- logs at a URL (an object store: the [cloud] extra) ------------------------------------

#: Most bytes of a log read back: a shard's log of a 4x4 proof is a few MB, the whole proof's
#: tens of MB (a line a class); beyond, it is no log of ours.
MAX_READ = 1 << 30
#: What a URL starts with (``s3://``, ``gs://``, ``memory://``...): a log not on a path here.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(path: str | Path) -> bool:
    """Whether ``path`` is a URL (``s3://bucket/p.ndjson``), read and written through fsspec."""
    return isinstance(path, str) and _URL.match(path) is not None


def url_filesystem(url: str) -> tuple[Any, str]:
    """The fsspec file system of ``url`` and the path in it (:class:`BoggleError`, one line,
    without the [cloud] extra or the file system's own package)."""
    try:
        import fsspec
    except ImportError:
        raise BoggleError(
            f"{url}: a log at a URL needs the [cloud] extra: pip install 'boggle-dafsa[cloud]' "
            "(and the file system's package: s3fs for s3://, gcsfs for gs://)"
        ) from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as error:  # "Install s3fs to access S3", an unknown protocol
        raise BoggleError(f"{url}: {' '.join(str(error).split())}") from None


def read_bytes(path: str | Path, what: str, limit: int = MAX_READ) -> bytes | None:
    """The bytes of the log at ``path`` (a file, or a URL), None if there is none; at most
    ``limit`` (more: :class:`BoggleError`, one line)."""
    if not is_url(path):
        if not os.path.exists(path):
            return None
        return read_limited(path, limit, BoggleError, what, stop_at_nul=True)
    filesystem, inner = url_filesystem(str(path))
    try:
        if not filesystem.exists(inner):
            return None
        with filesystem.open(inner, "rb") as stream:
            data = stream.read(limit + 1)
    except OSError as error:
        raise BoggleError(f"{path}: cannot read the log ({' '.join(str(error).split())})") from None
    if len(data) > limit:
        raise BoggleError(f"{path}: more than {limit >> 20:,} MiB: not a {what}")
    return bytes(data)


class _Uploaded:
    """A log at a URL, as :class:`LogWriter` writes it: its text kept here and put whole after
    each line (object stores have no append; a put replaces the object at once, so a reader
    never sees half a line). A last line cut short is dropped first, as in a file."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._filesystem, self._inner = url_filesystem(url)
        data = read_bytes(url, "log") or b""
        text = data.decode("utf-8", errors="replace")
        text = text[: text.rfind("\n") + 1]  # a line without its newline: dropped
        self._parts = [text]
        self.previous = START
        complete = [line for _, line, _ in lines(text)]
        if complete:
            try:
                data_of_last = json.loads(complete[-1])
            except ValueError:
                data_of_last = None
            self.previous = chain_value(complete[-1], data_of_last)
        self.flush()  # the log exists (and its cut tail is gone) from the start, as a file's

    def write(self, text: str) -> None:
        self._parts.append(text)

    def flush(self) -> None:
        body = "".join(self._parts)
        self._parts = [body]
        try:
            self._filesystem.pipe_file(self._inner, body.encode("utf-8"))
        except OSError as error:
            raise BoggleError(f"{self.url}: cannot write the log ({' '.join(str(error).split())})") from None

    def close(self) -> None:
        pass


def _cut_tail(stream: IO[bytes], path: str | Path) -> bytes | None:
    """Cut a last line without a newline off the file, and return the last complete line
    (without its newline; None if there is none)."""
    size = stream.seek(0, os.SEEK_END)
    end = _last_newline(stream, size, path)  # the last complete line ends at this newline
    if end + 1 != size:
        stream.truncate(max(end + 1, 0))
    if end < 0:
        return None
    start = _last_newline(stream, end, path)
    stream.seek(start + 1)
    return stream.read(end - start - 1)


def _last_newline(stream: IO[bytes], before: int, path: str | Path) -> int:
    """The offset of the last newline before offset ``before`` (-1: none, the file's start),
    read backwards by blocks, at most :data:`MAX_LINE` bytes back."""
    position = before
    while position > 0:
        if before - position > MAX_LINE:
            raise BoggleError(f"{path}: not a log (a line longer than {MAX_LINE >> 20} MiB); `log` takes a new file")
        start = max(0, position - _BLOCK)
        stream.seek(start)
        found = stream.read(position - start).rfind(b"\n")
        if found >= 0:
            return start + found
        position = start
    return -1
