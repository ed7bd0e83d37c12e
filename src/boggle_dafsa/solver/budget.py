"""How the Python kernels bound a search in time (as the C kernel does, see ``Budget`` in _native.c)."""

from __future__ import annotations

#: Steps into a state between two looks at the clock, when a search has a deadline (as in the C twin).
CHECK_EVERY = 1024
#: What every kernel says when a search runs out of time.
TIMEOUT_MESSAGE = "the search took longer than its time limit"
