"""Removing a writer's temporary files even when it is killed with SIGKILL.

A process cannot clean up after SIGKILL (the OOM killer, ``kill -9``): its temporary
files would stay beside the user's dictionaries. So the first write of a process starts a
small *reaper* process, which reads from a pipe the names of the temporary files being
written (``+name``) and done with (``-name``). The pipe ends when the writer ends, however
it ends; the reaper then removes whatever is still listed, and exits. A writer that ends
normally has listed nothing by then, so the reaper simply exits.

If the reaper cannot be started (no fork allowed, a process limit), writes go on without
it, and ``atomic.atomic_file`` still removes the temporary files of dead writers at
the next write to the same path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

#: The reaper: reads "+name" / "-name" records, each ended by a NUL byte (which no path
#: holds), until the pipe ends, then removes what is left. Run with ``python -I -S``: it
#: imports nothing of ours.
_REAPER = r"""
import os, shutil, signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
listed, pending = set(), b""
while chunk := os.read(0, 65536):
    *records, pending = (pending + chunk).split(b"\0")
    for record in records:
        (listed.add if record[:1] == b"+" else listed.discard)(record[1:])
for name in listed:
    try:
        if os.path.isdir(name) and not os.path.islink(name):
            shutil.rmtree(name, ignore_errors=True)
        else:
            os.unlink(name)
    except OSError:
        pass
"""

_lock = threading.Lock()
_pipe: int | None = None  # the pipe to the reaper; None before the first write, or if it could not start
_owner = 0  # the process that tried to start it


def _forget() -> None:
    # In a forked child: the parent's reaper is the parent's (holding its pipe open would
    # only delay its clean-up); the child starts its own at its first write.
    global _pipe, _owner, _lock
    if _pipe is not None:
        try:
            os.close(_pipe)
        except OSError:
            pass
    _pipe, _owner, _lock = None, 0, threading.Lock()


os.register_at_fork(after_in_child=_forget)


def _start() -> int | None:
    global _pipe, _owner
    if _owner == os.getpid():
        return _pipe
    _owner = os.getpid()
    try:
        reaper = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _REAPER],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,  # a Ctrl-C to the writer's group leaves it be
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    assert reaper.stdin is not None
    # The descriptor alone is kept (not the Popen): the reaper outlives its Popen object,
    # and nobody waits for it (it is in its own session; init reaps it when we are gone).
    _pipe = os.dup(reaper.stdin.fileno())
    os.set_inheritable(_pipe, False)
    reaper.stdin.close()
    reaper.returncode = 0  # never waited for: tell Popen's finalizer not to warn
    return _pipe


def _tell(sign: bytes, path: str | Path) -> None:
    with _lock:
        pipe = _start()
        if pipe is None:
            return
        try:
            # One write of at most PIPE_BUF for a path under 4 KiB: atomic, so records
            # written by several threads never interleave.
            os.write(pipe, sign + os.fsencode(os.path.abspath(path)) + b"\0")
        except OSError:
            pass  # the reaper is gone: the next write's clean-up remains


def listed(path: str | Path) -> None:
    """Have ``path`` removed if this process dies before :func:`done` says otherwise."""
    _tell(b"+", path)


def done(path: str | Path) -> None:
    """``path`` is renamed or removed: the reaper must leave that name alone."""
    _tell(b"-", path)
