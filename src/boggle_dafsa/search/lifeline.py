"""Worker processes that die with their parent, however it dies.

A pool's worker proving a class or running a search works on for minutes after its
parent is gone (``kill -9``, the OOM killer, a closed terminal): nobody reads its result.
:func:`follow_parent`, called in each worker as it starts (a pool's initializer), ties it
to the process that started it:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker the instant
  its parent dies, even inside a compiled kernel that holds the GIL, even when the parent
  was killed with SIGKILL;
* everywhere, a watchdog thread that looks at the parent's id every quarter of a second
  and ends the worker once it has changed (the worker was re-parented): the fallback
  where ``prctl`` is missing. It runs whenever the worker's code lets go of the GIL (the
  compiled prover does while it proves).

The death signal follows the *thread* that forked the worker: pools are made and fed from
the thread that calls them, which lives as long as the pool.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

#: Seconds between two looks of the watchdog at its parent.
WATCH_EVERY = 0.25
#: prctl's option that sets the signal sent at the parent's death (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def death_signal(number: int) -> bool:
    """Have the kernel send signal ``number`` to this process when its parent dies (Linux);
    False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, number, 0, 0, 0)) == 0
    except (OSError, AttributeError, ValueError):
        return False


def follow_parent(parent: int) -> None:
    """End this process (exit 1, at once) when process ``parent``, which started it, ends."""
    death_signal(signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the signal was asked for

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_EVERY)
        os._exit(1)

    threading.Thread(target=watch, name="boggle-dafsa-lifeline", daemon=True).start()
