"""Which dictionary a command uses, and the cache of dictionaries compiled on first use.

Two kinds of input are compiled into the cache: the embedded word lists (``fr``, ``en``,
``enable2k``) and plain word lists given where a dictionary is expected (``-d words.txt``).
A cached file is named after the **content** it was compiled from, never after a file's
date, so installations sharing one cache share its files, and nothing here ever deletes
a cached file: a file another installation (or another process) still uses stays valid.
"""

from __future__ import annotations

import lzma
import os
from collections.abc import Callable
from pathlib import Path

from boggle_dafsa.dictionary import Dictionary
from boggle_dafsa.errors import DictionaryError, WordListError
from boggle_dafsa.files.atomic import write_atomically
from boggle_dafsa.files.folders import cache_dir, fallback_cache_dir, private_temporary_folder
from boggle_dafsa.formats import open_path as open_any_format
from boggle_dafsa.formats.detect import detect_format
from boggle_dafsa.formats.registry import REGISTRY

ENV_VARIABLE = "BOGGLE_DAFSA_DICT"
DEFAULT_BUILD = Path("build") / "dictionary.dafsa"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
#: SHA-256 of each embedded list's normalized words (the digest its compiled header holds);
#: written by scripts/make_data.py, checked by the tests against the lists themselves.
DIGESTS_FILE = DATA_DIR / "SHA256SUMS"
#: Embedded word lists: name -> what it is.
EMBEDDED = {
    "fr": "French, from Debian's wfrench (325,313 words)",
    "en": "American English, from Debian's wamerican: its ordinary words that ENABLE2K has too (62,803)",
    "enable2k": "ENABLE2K, the standard list of Boggle solvers (173,528 words)",
}
DEFAULT_EMBEDDED = "fr"
#: Characters of a content digest kept in a cached file's name (96 bits: no accidental clash).
_NAME_DIGEST = 24


def resolve_spec(spec: str | None = None) -> tuple[str, bool]:
    """The dictionary ``spec`` stands for, and whether it was chosen implicitly.

    Without ``spec``: ``$BOGGLE_DAFSA_DICT``, else ``build/dictionary.dafsa`` if it
    exists, else ``fr``; the second value is then True, so that a front end can say
    which dictionary answered.
    """
    if spec:
        return spec, False
    chosen = os.environ.get(ENV_VARIABLE) or (str(DEFAULT_BUILD) if DEFAULT_BUILD.is_file() else DEFAULT_EMBEDDED)
    return chosen, True


#: Called while a list is compiled into the cache: (words compiled, words in all).
CompileProgress = Callable[[int, int], None]


def open_dictionary(spec: str | None = None, *, progress: CompileProgress | None = None) -> Dictionary:
    """Open the dictionary named by ``spec``.

    ``spec`` is a dictionary file (any format of ``formats.registry``, told by its bytes), a
    plain word list (compiled on first use into the cache, keyed by its content), or the
    name of an embedded list (``fr``, ``en``, ``enable2k``). Without one:
    ``$BOGGLE_DAFSA_DICT``, else ``build/dictionary.dafsa`` if it exists, else ``fr``.
    ``progress`` is called only when a list is compiled (about a second for 300,000 words).
    """
    spec, _ = resolve_spec(spec)
    # An embedded name (in any case: -d FR) wins over a file or folder of that name in the
    # current folder (write ./fr for such a file): `play` and `-d fr` must not depend on the cwd.
    name = embedded_name(spec)
    if name is not None:
        return _open_cached(
            embedded_path(name, progress=progress),
            embedded_digest(name),
            lambda target: _compile_embedded(name, target, progress),
        )

    try:
        detect_format(spec)
    except DictionaryError as error:
        if not os.path.lexists(spec):
            # A mistyped name as often as a missing file: say which names there are.
            raise DictionaryError(f"{error}, nor an embedded dictionary ({', '.join(EMBEDDED)})") from None
        if "not a dictionary" not in str(error):
            raise  # unreadable, empty, a pipe: nothing a word list would change
        return open_wordlist(spec, error, progress=progress)
    return open_path(spec)


def embedded_name(spec: str) -> str | None:
    """The embedded list ``spec`` names, whatever its case (``FR`` is ``fr``), else None."""
    name = spec.lower()
    return name if name in EMBEDDED else None


def open_wordlist(
    path: str | Path, not_a_dictionary: DictionaryError | None = None, *, progress: CompileProgress | None = None
) -> Dictionary:
    """Open the plain word list at ``path`` as a dictionary (default folding policy).

    Its bytes are hashed: the first use compiles it into the cache, later uses of the same
    content open that file. A file that is not a word list either (binary, undecodable)
    raises ``not_a_dictionary``, the error of the dictionary reader, extended to say so.
    """
    import hashlib

    from boggle_dafsa.words.wordlist import read_bytes

    data = read_bytes(path)
    content = hashlib.sha256(data).hexdigest()
    file_name = f"list-{content[:_NAME_DIGEST]}.dafsa"

    def compile_list(target: Path) -> None:
        from boggle_dafsa.dictionaries.build import compile_words
        from boggle_dafsa.words.wordlist import decode, parse_words

        try:
            text, encoding = decode(data, str(path))
        except WordListError as error:
            if not_a_dictionary is None:
                raise
            raise DictionaryError(f"{not_a_dictionary} nor a word list ({str(error).removeprefix(f'{path}:')})") from None
        words = parse_words(text, source=str(path), encoding=encoding).words
        if not words:
            raise DictionaryError(f"{path}: a word list with no word in it, not a dictionary")
        write_atomically(target, compile_words(words, progress=_counted(progress, len(words))))

    for folder in cache_folders():
        target = folder / file_name
        if target.is_file():
            try:
                return open_path(target)
            except DictionaryError:
                pass  # damaged (a cut write, a full disk): compiled again below, by atomic replacement
        try:
            compile_list(target)
        except DictionaryError as error:
            if "cannot write" in str(error):
                continue  # not writable here: try the next folder
            raise
        return open_path(target)
    target = private_temporary_folder() / file_name
    compile_list(target)
    return open_path(target)


def dictionary_spec_for(spec: str | None, language: str | None) -> str | None:
    """The dictionary to play with: ``spec`` (``-d``) if given, else $BOGGLE_DAFSA_DICT, else
    the embedded dictionary of the dice set's ``language``, else (None) the default one."""
    return spec or os.environ.get(ENV_VARIABLE) or language


def open_path(path: str | Path) -> Dictionary:
    """Open a dictionary file of any supported format (detected from its bytes)."""
    return open_any_format(path)


def cache_folders() -> list[Path]:
    """The cache folder, then the fallback used when it cannot be written (if it is safe:
    see :func:`fallback_cache_dir`)."""
    fallback = fallback_cache_dir()
    return [cache_dir()] if fallback is None else [cache_dir(), fallback]


def embedded_digest(name: str) -> str:
    """The SHA-256 of embedded list ``name``'s normalized words, from ``data/SHA256SUMS``."""
    try:
        lines = DIGESTS_FILE.read_text("utf-8").splitlines()  # ASCII: UTF-8's codec is loaded already
    except OSError:
        raise DictionaryError(f"the digests of the embedded lists are missing from the installation ({DIGESTS_FILE})") from None
    for line in lines:
        digest, _, listed = line.partition("  ")
        if listed == name:
            return digest
    raise DictionaryError(f"embedded list {name!r} has no digest in {DIGESTS_FILE}")


def embedded_path(name: str, *, progress: CompileProgress | None = None) -> Path:
    """The compiled file of embedded list ``name``, compiling it first if needed (``progress``
    as for :func:`open_dictionary`).

    The file name carries the digest of the list's words, so installations with the same
    list share one file and a changed list gets a new one; nothing is ever deleted.
    """
    digest = embedded_digest(name)
    file_name = f"{name}-{digest[:_NAME_DIGEST]}.dafsa"
    if (cache_dir() / file_name).is_file():
        return cache_dir() / file_name  # the usual case, without looking at the fallback folder
    folders = cache_folders()
    for folder in folders:
        if (folder / file_name).is_file():
            return folder / file_name
    for folder in folders:
        target = folder / file_name
        try:
            _compile_embedded(name, target, progress)
        except DictionaryError as error:
            if "cannot write" in str(error):
                continue  # not writable here: try the next folder
            raise
        return target
    target = private_temporary_folder() / file_name
    _compile_embedded(name, target, progress)
    return target


def _open_cached(path: Path, digest: str, compile: Callable[[Path], None]) -> Dictionary:
    """Open the cached ``path``; if it is damaged or holds other words than ``digest``, compile it again."""
    try:
        dictionary = open_path(path)
        if dictionary.info().get("source_sha256") == digest:
            return dictionary
    except DictionaryError:
        pass  # only a cache: a damaged copy (disk full, a killed process) is compiled again
    compile(path)
    return open_path(path)


def _counted(progress: CompileProgress | None, total: int) -> Callable[[int], None] | None:
    # The builder counts words added; a progress bar also wants the total.
    return None if progress is None else lambda done: progress(done, total)


def _compile_embedded(name: str, target: Path, progress: CompileProgress | None = None) -> None:
    from boggle_dafsa.dictionaries.build import compile_words

    source = DATA_DIR / f"{name}.txt.xz"
    try:
        packed = source.read_bytes()
    except OSError:
        raise DictionaryError(f"embedded list {name!r} is missing from the installation ({source})") from None
    words = lzma.decompress(packed).decode("utf-8").split()
    write_atomically(target, compile_words(words, progress=_counted(progress, len(words))))


def describe(dictionary: Dictionary, spec: str) -> str:
    """How to name the dictionary that answered, for a user who did not choose it:
    ``build/dictionary.dafsa, 5 words`` or ``fr, 325,313 words``."""
    count = len(dictionary)
    return f"{spec}, {count:,} word{'' if count == 1 else 's'}"


#: The extensions of word lists as people name them (a dictionary's are its format's suffix).
_LIST_SUFFIXES = (".txt", ".lst", ".dic")


def looks_like_dictionary(argument: str) -> bool:
    """True if ``argument`` names an existing file that is a dictionary (from its first
    bytes), or a file with a dictionary's or word list's extension: a stray argument
    that was surely meant for ``-d``."""
    path = Path(argument)
    try:
        if not path.is_file():
            return False
    except OSError:
        return False

    if path.suffix.lower() in (*(record.suffix for record in REGISTRY), *_LIST_SUFFIXES):
        return True

    try:
        detect_format(path)
    except DictionaryError:
        return False
    return True
