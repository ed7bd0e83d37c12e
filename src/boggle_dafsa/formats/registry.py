"""The dictionary formats, one record each: the only list of them.

Every place that names the formats takes them from :data:`REGISTRY`: the detection of a
file's format (:func:`.detect.detect_format`, which asks each record in turn), the one
write and open path (``formats/__init__``), ``build``'s check of ``--format``, the help
texts of ``-d`` and ``--format`` (``cli/``, through :func:`spoken`) and the error for a
file of no known format. docs/foreign-formats.md's table and lists are checked against it
(``tests/test_formats.py``).

Adding a format: a module with its reader class and writer function, and one
:class:`Format` here (the docs' table row then, which a test asks for).

Nothing heavy is imported here: readers and writers are named by their dotted path and
imported on first use (opening a native file never imports ``marisa_trie``); a plain
class with slots, not a dataclass or NamedTuple (start-up time: every command's help
reads this module).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boggle_dafsa.automaton.fileformat import MAGIC as NATIVE_MAGIC
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary

#: Every marisa file starts with these 16 bytes (kept here so that detecting a native
#: file does not import marisa_trie).
MARISA_MAGIC = b"We love Marisa.\x00"


class UnknownFormatError(BoggleError, ValueError):
    """A format name that no record has (a ``ValueError`` too, as the library raised before)."""


class Format:
    """One dictionary format: its name, how its files are told apart, opened and written."""

    __slots__ = ("name", "description", "suffix", "magic", "claims", "reader", "writer", "streams")

    def __init__(
        self,
        name: str,
        description: str,
        suffix: str,
        magic: bytes,
        claims: Callable[[bytes], bool],
        reader: str,
        writer: str,
        streams: bool = False,
    ) -> None:
        #: What ``--format`` takes, what ``d.format_name`` and ``inspect`` say.
        self.name = name
        #: A few words for help texts and the docs' table ("minimal DAFSA").
        self.description = description
        #: The file suffix ``build -o`` is shown with in the docs (detection ignores it).
        self.suffix = suffix
        #: The bytes its files start with (b"" when it has no fixed magic: dawg).
        self.magic = magic
        #: Whether a file's first bytes (at most :data:`HEAD_SIZE`) are of this format.
        self.claims = claims
        #: ``module:Class`` of its reader, called with the path.
        self.reader = reader
        #: ``module:function`` of its writer: ``(words, path, policy, digest)`` for a format
        #: written in one call, or, when :attr:`streams`, ``(words, path, policy, digest,
        #: progress, version=)`` returning its counts (``NativeStats``).
        self.writer = writer
        #: Written from a stream of sorted words, never held whole (sorted in bounded
        #: memory by ``build``, with versions and a progress report); else read whole.
        #: Only native streams: ``build``'s streamed path is its writer's.
        self.streams = streams

    def __repr__(self) -> str:
        return f"Format({self.name!r})"

    def open(self, path: str | Path) -> Dictionary[Any]:
        """Open the file at ``path`` as this format (raises :class:`DictionaryError`)."""
        return _named(self.reader)(path)  # type: ignore[no-any-return]

    def write_function(self) -> Callable[..., Any]:
        """The writer (see :attr:`writer` for its signature), imported now."""
        return _named(self.writer)  # type: ignore[no-any-return]


def _named(dotted: str) -> Any:
    module, _, name = dotted.partition(":")
    return getattr(import_module(module), name)


def _is_dawg(head: bytes) -> bool:
    # Its number of dictionary units, a little-endian u32 that is a non-zero multiple of
    # 256: its first byte is NUL, which no text file starts with (the size is checked by
    # the reader, dawg.layout).
    return len(head) >= 4 and head[0] == 0 and int.from_bytes(head[:4], "little") >= 256


#: Every format, in the order detection asks them and help texts name them; the first is
#: the default.
REGISTRY: tuple[Format, ...] = (
    Format(
        "native",
        "minimal DAFSA",
        ".dafsa",
        NATIVE_MAGIC,
        # Its first 4 bytes suffice: the native reader tells a bad or truncated header apart.
        lambda head: head.startswith(NATIVE_MAGIC[:4]),
        "boggle_dafsa.automaton.reader:NativeDictionary",
        "boggle_dafsa.formats.native:write_native",
        streams=True,
    ),
    Format(
        "marisa",
        "marisa-trie",
        ".marisa",
        MARISA_MAGIC,
        # Its first 8 bytes suffice: the marisa reader says "bad magic" for the rest.
        lambda head: head.startswith(MARISA_MAGIC[:8]),
        "boggle_dafsa.formats.marisa:MarisaDictionary",
        "boggle_dafsa.formats.marisa:write_marisa",
    ),
    Format(
        "dawg",
        "dawgdic",
        ".dawg",
        b"",
        _is_dawg,
        "boggle_dafsa.formats.dawg:DawgDictionary",
        "boggle_dafsa.formats.dawg:write_dawg",
    ),
)
#: The format names, in :data:`REGISTRY`'s order.
FORMATS: tuple[str, ...] = tuple(record.name for record in REGISTRY)
#: The format ``build`` writes unless told otherwise.
DEFAULT = REGISTRY[0]
#: How many first bytes :attr:`Format.claims` is given.
HEAD_SIZE = max(4, *(len(record.magic) for record in REGISTRY))
_BY_NAME = {record.name: record for record in REGISTRY}


def format_named(name: str) -> Format:
    """The record of format ``name`` (raises :class:`UnknownFormatError` naming the known ones)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownFormatError(f"unknown format {name!r} (known: {', '.join(FORMATS)})") from None


def claiming(head: bytes) -> Format | None:
    """The first format whose files start as ``head`` does, or None."""
    return next((record for record in REGISTRY if record.claims(head)), None)


def spoken(names: Iterable[str] = FORMATS, conjunction: str = "or") -> str:
    """``native, marisa or dawg``: names as a sentence says them."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"
