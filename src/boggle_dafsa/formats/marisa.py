"""marisa-trie files: the smallest of the three formats, read through ``marisa_trie``'s mmap.

marisa cannot be walked one letter at a time from Python, so a state is the prefix itself:
``step`` appends the face and asks the trie whether any key starts with the result. That
costs a search from the root for each step, which is why the solver is slower on marisa
than on the formats with a real cursor (see ``scripts/bench_formats.py``).

marisa's C++ library trusts its input: a damaged file can crash the process. Files we write
come with a sidecar holding their SHA-256, checked before the file is handed to marisa. And
every file, with a sidecar or not, is first opened and walked in full by a child process
(see :func:`probe`): if that child dies or fails, the file is refused; its verdict is
remembered by the file's device, inode, size and modification time, so a file is probed once.
"""

from __future__ import annotations

import mmap
import os
import sys
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import marisa_trie

from boggle_dafsa.errors import DictionaryError, opening
from boggle_dafsa.files.atomic import write_atomically
from boggle_dafsa.files.folders import private_cache_dir
from boggle_dafsa.formats.foreign import ForeignDictionary
from boggle_dafsa.formats.registry import MARISA_MAGIC
from boggle_dafsa.formats.sidecar import (
    describe,
    file_sha256,
    matching_sidecar,
    read_back_keys,
    read_sidecar,
    write_with_sidecar,
)
from boggle_dafsa.words.normalize import Policy

FORMAT = "marisa"
# Answers of `step` kept per dictionary: a grid reaches the same prefix by many paths.
_PREFIX_CACHE_SIZE = 1 << 16


def write_marisa(words: Sequence[str], path: str | Path, policy: Policy = Policy.FOLD, source_sha256: str | None = None) -> None:
    """Write the sorted unique ``words`` as a marisa-trie file, with its sidecar.

    Nodes are kept in label order, so that the trie lists its keys in byte order.
    """
    data = marisa_trie.Trie(words, order=marisa_trie.LABEL_ORDER).tobytes()
    written = marisa_trie.Trie()
    written.frombytes(data)
    read_back_keys(path, words, written.iterkeys())
    write_with_sidecar(path, data, describe(list(words), FORMAT, data, policy, source_sha256))
    # marisa made these bytes and read them back whole in this process: the file needs no
    # probe in a child process when it is opened (until it changes: the verdict's key is
    # its inode, size and modification time, as every verdict's).
    try:
        identity = os.stat(path)
    except OSError:
        return
    key = (identity.st_dev, identity.st_ino, identity.st_size, identity.st_mtime_ns)
    _verdicts[key] = None
    _remember(key, None)


class MarisaDictionary(ForeignDictionary):
    """A marisa-trie file, mapped from disk. A state is the prefix read so far."""

    format_name = FORMAT

    def __init__(self, path: str | Path) -> None:
        """Check and map ``path`` (raises :class:`DictionaryError`)."""
        path = str(path)
        with opening(path, DictionaryError, "dictionary file"), open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            head = stream.read(len(MARISA_MAGIC))
            identity = os.fstat(stream.fileno())
            sidecar = read_sidecar(path, FORMAT)
            if sidecar is not None and size:
                # Checked before marisa sees a byte: it does not check its input.
                with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as content:
                    sidecar = matching_sidecar(path, content, sidecar)
            elif sidecar is not None:
                sidecar = matching_sidecar(path, b"", sidecar)
        if head != MARISA_MAGIC:
            raise DictionaryError(f"{path}: not a marisa file (bad magic)")
        # Even a file its sidecar vouches for: a digest proves the file is the one the
        # sidecar describes, not that whoever wrote the pair meant well.
        probe(path, identity)
        self.file_bytes = size
        self.file_identity = identity
        self._trie = marisa_trie.Trie()
        try:
            self._trie.mmap(path)
        except Exception as error:  # marisa reports a short or inconsistent file as RuntimeError
            raise DictionaryError(f"{path}: damaged marisa file ({_first_line(error)})") from None
        self._prefixes: dict[str, bool] = {}
        super().__init__(path, sidecar)

    # -- the cursor ---------------------------------------------------------------------

    @property
    def root(self) -> str:
        """The state of the empty prefix."""
        return ""

    def step(self, state: str, letters: str) -> str | None:
        """``state + letters`` if some word starts with it, else None."""
        prefix = state + letters
        known = self._prefixes.get(prefix)
        if known is None:
            # iterkeys stops at the first key; has_keys_with_prefix is deprecated.
            known = next(self._trie.iterkeys(prefix), None) is not None
            if len(self._prefixes) >= _PREFIX_CACHE_SIZE:
                self._prefixes.clear()
            self._prefixes[prefix] = known
        return prefix if known else None

    def is_word(self, state: str) -> bool:
        """True if the prefix ``state`` is a word."""
        return state in self._trie

    # -- the set of words ---------------------------------------------------------------

    def _has_key(self, key: str) -> bool:
        return key in self._trie

    def __len__(self) -> int:
        return len(self._trie)

    def _complete_key(self, prefix: str, limit: int | None) -> Iterator[str]:
        """The words starting with the normalized ``prefix`` in byte order, at most ``limit``."""
        if limit == 0:
            return iter(())
        keys = self._trie.keys(prefix)
        # Our files list keys in byte order already (label order): then this sort is one
        # linear pass. Files from elsewhere may use marisa's default weight order.
        keys.sort()
        return iter(keys if limit is None else keys[:limit])

    def sample_word(self) -> str | None:
        """Any one word, without listing them all."""
        return next(self._trie.iterkeys(), None)

    # -- values (issue 33): a marisa Trie holds its key ids -----------------------------

    #: A marisa Trie numbers its keys (``key_id``): those are its values, as ``trie[key]``
    #: gives them in marisa-trie. Not values to carry over: set algebra leaves them out.
    has_values = True
    value_kind = "key id"

    def values_info(self) -> str:
        """What ``inspect`` says of the values: marisa's key ids."""
        return "key ids (marisa's own numbering: d[word] is trie.key_id(word))"

    def __getitem__(self, word: str) -> int:
        """The key id of ``word`` (normalized): marisa-trie's ``trie[key]``; KeyError if it is no word."""
        key = self.key(word) if isinstance(word, str) and word else None
        if key is None or key not in self._trie:
            raise KeyError(word)
        return int(self._trie.key_id(key))

    def get(self, word: str, default: Any = None) -> Any:
        """The key id of ``word``, or ``default`` if it is no word."""
        try:
            return self[word]
        except KeyError:
            return default

    def items(self, prefix: str = "") -> Iterator[tuple[str, Any]]:
        """The (word, key id) pairs of the words starting with ``prefix``, in byte order."""
        key = self.key(prefix) if prefix else ""
        if key is None:
            return iter(())
        return iter(sorted(self._trie.items(key)))

    def values(self) -> Iterator[Any]:
        """The key ids, in the words' byte order."""
        return (value for _, value in self.items())

    # -- integrity and description ------------------------------------------------------

    def body_intact(self) -> bool:
        """True if the file still matches the digest in its sidecar (True when there is none)."""
        if self.sidecar is None:
            return True
        return file_sha256(Path(self.path).read_bytes()) == self.sidecar.file_sha256

    def file_info(self) -> dict[str, Any]:
        return {"key_order": "byte order" if self._in_byte_order() else "marisa weight order"}

    def _in_byte_order(self) -> bool:
        keys = islice(self._trie.iterkeys(), 10_000)
        previous = ""
        for key in keys:
            if key < previous:
                return False
            previous = key
        return True

    def __repr__(self) -> str:
        return f"MarisaDictionary({self.path!r})"


#: Longest a probe may take (a sound file of a million words takes about a second).
PROBE_SECONDS = 60.0
#: Address space a probe may use: a damaged file may make marisa allocate without end.
PROBE_MEMORY = 2 << 30
# Verdicts of this process: (device, inode, size, mtime_ns) -> error message or None.
_verdicts: dict[tuple[int, int, int, int], str | None] = {}

# The probe: open the file, read every key as UTF-8, look each one up, and check that the
# count agrees. It runs in a child: if marisa crashes on a damaged file, only the child dies.
_PROBE_CODE = """
import resource, sys
limit = int(sys.argv[2])
hard = resource.getrlimit(resource.RLIMIT_AS)[1]
if hard != resource.RLIM_INFINITY:
    limit = min(limit, hard)
resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
import marisa_trie
trie = marisa_trie.Trie()
trie.mmap(sys.argv[1])
def damaged(why):
    # A verdict on the file, reached by reading it to the end: exit status 3.
    print(why, file=sys.stderr)
    sys.exit(3)
count = 0
try:
    for key in trie.iterkeys():
        count += 1
        if key not in trie or not trie.keys(key) or len(key) > 65536:
            damaged("a key is not found again")
except UnicodeDecodeError as error:
    if error.start > 0 and error.object[error.start:error.start + 1] == b"\\xff":  # a key, 0xFF, a value
        damaged("a BytesTrie or RecordTrie file (its keys hold values after a 0xFF byte): boggle-dafsa reads marisa Trie files")
    damaged(f"UnicodeDecodeError: {error}")
if count != len(trie):
    damaged("its key count is wrong")
"""
#: The exit status of a probe that read the file to the end and found it damaged.
_PROBE_DAMAGED = 3


def probe(path: str, identity: os.stat_result) -> None:
    """Raise :class:`DictionaryError` unless a child process can open and walk ``path``.

    marisa's C++ reader trusts its input: a damaged or hostile file could otherwise take
    this process down.
    The verdict is kept for the life of the process and, in the cache folder, across
    processes, keyed by the file's device, inode, size and modification time.
    """
    key = (identity.st_dev, identity.st_ino, identity.st_size, identity.st_mtime_ns)
    if key not in _verdicts:
        _verdicts[key] = _remembered(key)
    if key not in _verdicts or _verdicts[key] == "unknown":
        verdict, final = _run_probe(path)
        if not final:
            # The probe did not run to the end (out of memory under a limit, killed, timed
            # out, a crash): this run refuses the file, but nothing is kept as its verdict.
            raise DictionaryError(f"{path}: damaged marisa file, or too large to check here ({verdict})")
        _verdicts[key] = verdict
        _remember(key, verdict)
    verdict = _verdicts[key]
    if verdict is not None:
        raise DictionaryError(f"{path}: damaged marisa file ({verdict})")


def _run_probe(path: str) -> tuple[str | None, bool]:
    # (error or None, whether the probe ran to the end: only then is it the file's verdict).
    import subprocess

    try:
        result = subprocess.run(
            [sys.executable, "-c", _PROBE_CODE, os.path.abspath(path), str(PROBE_MEMORY)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        return f"checking it took more than {PROBE_SECONDS:.0f} s", False
    except OSError as error:
        return f"cannot start the process that checks it: {error.strerror or error}", False
    if result.returncode == 0:
        return None, True
    lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
    if result.returncode == _PROBE_DAMAGED and lines:
        return lines[-1][:200], True
    if result.returncode < 0:
        return f"marisa crashed reading it (signal {-result.returncode})", False
    if any("MemoryError" in line or "bad_alloc" in line for line in lines):
        return "out of memory while checking it", False
    return (lines[-1][:200] if lines else f"the check failed with status {result.returncode}"), False


def _verdict_file(key: tuple[int, int, int, int]) -> Path | None:
    folder = private_cache_dir()
    return None if folder is None else folder / "marisa-probes" / "-".join(map(str, key))


def _remembered(key: tuple[int, int, int, int]) -> str | None:
    # "unknown" when no verdict is kept; a kept one is "ok" or the error message.
    file = _verdict_file(key)
    try:
        text = file.read_text(encoding="utf-8")[:300] if file is not None else "unknown"
    except (OSError, UnicodeDecodeError):
        return "unknown"
    return None if text == "ok" else text


def _remember(key: tuple[int, int, int, int], verdict: str | None) -> None:
    file = _verdict_file(key)
    if file is None:
        return
    try:
        write_atomically(file, (verdict or "ok").encode("utf-8"))
    except DictionaryError:
        pass  # only a cache


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
