"""Where compiled dictionaries and small verdicts are kept, and which folders are safe.

A folder in the shared temporary folder is used only if this user alone can write to
it: another user could otherwise create it first, or plant links in it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
from pathlib import Path

from boggle_dafsa.errors import DictionaryError

CACHE_VARIABLE = "BOGGLE_DAFSA_CACHE"


def cache_dir() -> Path:
    """Where compiled dictionaries are kept: $BOGGLE_DAFSA_CACHE, else the user cache."""
    configured = os.environ.get(CACHE_VARIABLE)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "boggle-dafsa"


def data_dir() -> Path:
    """Where what the user keeps lives (the quiz's history, the server's database):
    $XDG_DATA_HOME/boggle-dafsa, else ~/.local/share/boggle-dafsa."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "boggle-dafsa"


def fallback_cache_dir() -> Path | None:
    """The cache folder in the temporary folder, ``boggle-dafsa-UID``, if it is safe to use.

    It is created 0700, and used only if it is a real folder (not a link), owned by this
    user and writable by no one else (the checks ssh-agent and pip make): in a shared
    /tmp another user could create it first, or plant links in it. None otherwise.
    """
    import tempfile  # here: solve's path must not load it (tests/test_imports.py; typer loads it in some versions, not all)

    folder = Path(tempfile.gettempdir()) / f"boggle-dafsa-{os.getuid()}"
    return folder if private_folder(folder) else None


def private_folder(folder: Path) -> bool:
    """Create ``folder`` (0700) if it is missing; True if it is a real folder of this user's
    that no one else can write to."""
    try:
        return own_folder(folder) is None
    except OSError:
        return False


def own_folder(folder: Path, mask: int = 0o022, *, parents: bool = False) -> str | None:
    """Create ``folder`` (0700) if it is missing, and its parents as usual with ``parents``;
    why it is not this user's own folder (:func:`unsafe` with ``mask``), None if it is.
    Raises :class:`OSError` if it cannot be created."""
    if parents:
        folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    return unsafe(folder, mask)


def unsafe(path: Path, mask: int, *, folder: bool = True) -> str | None:
    """Why ``path`` is not this user's own, in a few words (None: it is): a symbolic link,
    not a folder (``folder``) or not a regular file, someone else's, or mode bits of
    ``mask`` set (0o022: others may write to it; 0o077: others may read it too)."""
    try:
        info = os.lstat(path)
    except OSError as error:
        return error.strerror or str(error)
    if stat.S_ISLNK(info.st_mode):
        return f"a symbolic link (to {os.readlink(path)})"
    if folder and not stat.S_ISDIR(info.st_mode):
        return "not a folder"
    if not folder and not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_uid != os.getuid():
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & mask:
        what = "read or write" if mask & 0o044 else "write to"
        return f"others may {what} it (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def private_cache_dir() -> Path | None:
    """A cache folder for small verdicts: the user cache folder if it can be written, else
    the fallback in the temporary folder if it is safe, else None (nothing is kept)."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
    except OSError:
        pass
    return fallback_cache_dir()


def private_temporary_folder() -> Path:
    """A new folder only this user can enter (``mkdtemp``: 0700, random name), removed
    when the process exits: where a dictionary is compiled when no cache folder will do.
    The mapped file stays readable after its removal."""
    try:
        import tempfile  # here, as above

        folder = Path(tempfile.mkdtemp(prefix="boggle-dafsa-"))
    except OSError as error:
        raise DictionaryError(f"cannot write to {cache_dir()} or the temporary folder ({error.strerror or error})") from None
    atexit.register(shutil.rmtree, folder, True)
    return folder
