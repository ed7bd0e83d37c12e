"""Writing a file whole or not at all: :func:`write_atomically` and :func:`atomic_file`.

Every file the package writes (dictionaries, sidecars, caches, verdicts, the lists a user
asks for) goes through here: a temporary file in the target's folder, flushed to disk and
renamed over the target, or removed on any failure; the reaper (:mod:`.reaper`) removes
it even after SIGKILL. :func:`fault_point` marks the steps where the tests kill a write.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from boggle_dafsa.errors import DictionaryError


def write_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file appears whole or not at all (see :func:`atomic_file`)."""
    with atomic_file(path) as stream:
        stream.write(data)
        fault_point("written")


@contextmanager
def atomic_file(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write, which replaces ``path`` whole when the block ends without error.

    The file is a temporary one in the same folder (it may be seeked and rewritten); it
    is flushed to disk and renamed over ``path`` at the end, or removed on any failure
    (an interruption included), leaving an existing ``path`` untouched.
    A symbolic link at ``path`` is replaced by the file, never written through (as
    ``sed -i`` does); a folder, device or pipe there is refused. A new file gets the
    mode the umask gives, a replaced regular file keeps its mode. A writer killed even
    with SIGKILL leaves no temporary file: its reaper (:mod:`boggle_dafsa.files.reaper`)
    removes it; without a reaper, the next write to the same path does.
    """
    from boggle_dafsa.files import reaper  # only writers need it (it imports subprocess)

    target = Path(os.path.abspath(path))
    try:
        existing = os.lstat(target)
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
    mode = None
    if existing is not None:
        if stat.S_ISREG(existing.st_mode):
            mode = stat.S_IMODE(existing.st_mode)
        elif not stat.S_ISLNK(existing.st_mode):
            raise DictionaryError(f"{path}: exists and is not a regular file (a folder, a device, a pipe): not replacing it")
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _remove_stale_temporaries(folder, target.name)
        temporary, descriptor = _create_temporary(folder, target.name)
    except OSError as error:
        raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        fault_point("created")
        with os.fdopen(descriptor, "w+b") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        fault_point("synced")
        os.replace(temporary, target)
        reaper.done(temporary)
        fault_point("renamed")
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        reaper.done(temporary)
        if isinstance(error, OSError):
            raise DictionaryError(f"{path}: cannot write ({error.strerror or error})") from None
        raise


#: Temporary files are named ``.NAME.PID.RANDOM.tmp``, NAME cut to this length so that
#: a name near the filesystem's limit still has room for the rest.
_TEMPORARY_NAME_LENGTH = 64


def _create_temporary(folder: Path, name: str) -> tuple[Path, int]:
    # os.open with 0o666, not mkstemp (0o600): the umask then gives the new file its mode.
    # Read and write: a writer reads its file back before the rename (stream.read_back).
    import secrets  # only writers need it

    from boggle_dafsa.files import reaper

    while True:
        temporary = folder / f".{name[:_TEMPORARY_NAME_LENGTH]}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        # Listed before it exists: whenever this process dies from now on, the reaper
        # removes it (see files/reaper.py).
        reaper.listed(temporary)
        try:
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            return temporary, os.open(temporary, flags, 0o666)
        except FileExistsError:
            reaper.done(temporary)  # someone else's name
        except BaseException:
            reaper.done(temporary)
            raise


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    # A writer killed with SIGKILL cannot clean up: its temporary file is removed here,
    # once its process is gone (a live one may still be writing it).
    prefix = f".{name[:_TEMPORARY_NAME_LENGTH]}."
    try:
        candidates = [entry for entry in os.listdir(folder) if entry.startswith(prefix) and entry.endswith(".tmp")]
    except OSError:
        return
    for entry in candidates:
        pid_text = entry[len(prefix) :].split(".")[0]
        if not pid_text.isdigit() or _process_alive(int(pid_text)):
            continue
        try:
            os.unlink(folder / entry)
        except OSError:
            pass


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process: not ours to judge
    return True


#: Environment variable of the fault-injection hook (tests only): ``N`` kills the process
#: with SIGKILL at the Nth step of the writes it does (see :func:`fault_point`).
FAULT_VARIABLE = "BOGGLE_DAFSA_TEST_KILL_AT_STEP"
_steps_taken = 0
#: In-process hook (tests only): called with each step's name; it may raise to interrupt.
fault_hook: Callable[[str], None] | None = None


def fault_point(step: str) -> None:
    """A step of a write where the tests may kill the process (``$BOGGLE_DAFSA_TEST_KILL_AT_STEP``).

    The tests kill a build at each step in turn and check that the previous dictionary
    is still usable and that no temporary file is left.
    """
    global _steps_taken
    if fault_hook is not None:
        fault_hook(step)
    wanted = os.environ.get(FAULT_VARIABLE)
    if not wanted:
        return
    _steps_taken += 1
    if str(_steps_taken) == wanted:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
