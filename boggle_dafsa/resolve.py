"""Which dictionary a command uses, and the embedded dictionaries compiled on first use."""

from __future__ import annotations

import os
from pathlib import Path

from .dictionary import Dictionary
from .errors import DictionaryError

ENV_VARIABLE = "BOGGLE_DAFSA_DICT"
CACHE_VARIABLE = "BOGGLE_DAFSA_CACHE"
DEFAULT_BUILD = Path("build") / "dictionary.dafsa"
DATA_DIR = Path(__file__).resolve().parent / "data"
#: Embedded word lists: name -> what it is.
EMBEDDED = {
    "fr": "French, from Debian's wfrench (325,313 words)",
    "en": "American English, from Debian's wamerican (73,603 words)",
    "enable2k": "ENABLE2K, the standard list of Boggle solvers (173,528 words)",
}
DEFAULT_EMBEDDED = "fr"


def open_dictionary(spec: str | None = None) -> Dictionary:
    """Open the dictionary named by ``spec``.

    ``spec`` is a file path (native, marisa or dawg, detected from its bytes) or the
    name of an embedded list (``fr``, ``en``, ``enable2k``). Without one:
    ``$BOGGLE_DAFSA_DICT``, else ``build/dictionary.dafsa`` if it exists, else ``fr``.
    """
    if not spec:
        spec = os.environ.get(ENV_VARIABLE) or (str(DEFAULT_BUILD) if DEFAULT_BUILD.is_file() else DEFAULT_EMBEDDED)
    # An embedded name wins over a file or folder of that name in the current
    # folder (write ./fr for such a file): `play` and `-d fr` must not depend on the cwd.
    if spec not in EMBEDDED:
        return open_path(spec)
    compiled = embedded_path(spec)
    try:
        return open_path(compiled)
    except DictionaryError:
        # Only a cache: a damaged copy (disk full, a killed process) is compiled again.
        compiled.unlink(missing_ok=True)
        return open_path(embedded_path(spec))


def dictionary_spec_for(spec: str | None, language: str | None) -> str | None:
    """The dictionary to play with: ``spec`` (``-d``) if given, else $BOGGLE_DAFSA_DICT, else
    the embedded dictionary of the dice set's ``language``, else (None) the default one."""
    return spec or os.environ.get(ENV_VARIABLE) or language


def open_path(path: str | Path) -> Dictionary:
    """Open a dictionary file of any supported format (detected from its bytes)."""
    from .formats import open_path as open_any_format

    return open_any_format(path)


def cache_dir() -> Path:
    """Where compiled embedded dictionaries are kept: $BOGGLE_DAFSA_CACHE, else the user cache."""
    configured = os.environ.get(CACHE_VARIABLE)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "boggle-dafsa"


def embedded_path(name: str) -> Path:
    """The compiled file of embedded list ``name``, compiling it first if needed.

    The file name carries the size and modification time of the compressed source,
    so a changed source gives a new file and an unchanged one is never rebuilt.
    """
    source = DATA_DIR / f"{name}.txt.xz"
    try:
        stat = source.stat()
    except OSError:
        raise DictionaryError(f"embedded list {name!r} is missing from the installation ({source})") from None
    file_name = f"{name}-{stat.st_size}-{stat.st_mtime_ns}.dafsa"
    cached = cache_dir() / file_name
    if cached.is_file():
        return cached
    import tempfile

    for folder in (cache_dir(), Path(tempfile.gettempdir()) / f"boggle-dafsa-{os.getuid()}"):
        target = folder / file_name
        if target.is_file():
            return target
        try:
            _compile_embedded(source, target)
        except DictionaryError:
            continue  # not writable here: try the next folder
        for stale in folder.glob(f"{name}-*.dafsa"):
            if stale != target:  # compiled from an older source
                stale.unlink(missing_ok=True)
        return target
    raise DictionaryError(f"cannot write the compiled {name!r} dictionary to {cache_dir()} or the temporary folder")


def _compile_embedded(source: Path, target: Path) -> None:
    import lzma

    from .automaton.fileformat import write_atomically
    from .build import compile_words
    from .normalize import Policy

    words = lzma.decompress(source.read_bytes()).decode("utf-8").split()
    write_atomically(target, compile_words(words, Policy.FOLD))
