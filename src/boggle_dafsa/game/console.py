"""Playing at the console: the loop that reads words, answers each, and keeps the clock.

The only module of the game that reads and writes streams; it is given them
(``stdin``, ``out``), so that tests and other front ends can drive it.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.rounds import EndReason, check_seconds
from boggle_dafsa.output.render import format_clock, render_verdict

if TYPE_CHECKING:
    from boggle_dafsa.game.rounds import Game


class _TimeUp(Exception):
    """Raised by the alarm to stop waiting for a word that will come too late."""


class _Countdown:
    """The time left, and an alarm that interrupts a blocked read when it runs out.

    The alarm only raises while the loop waits for input: a word being judged is never
    cut in half. Without SIGALRM (Windows, or off the main thread) the time is checked
    after each line only.
    """

    def __init__(self, seconds: float, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.deadline = clock() + seconds if seconds else None
        self.waiting = False
        self.expired = False
        self._previous: Any = None
        self._armed = False

    def __enter__(self) -> _Countdown:
        if self.deadline is not None and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, max(self.deadline - self.clock(), 0.001))
            self._armed = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)

    def _ring(self, _signum: int, _frame: FrameType | None) -> None:
        self.expired = True
        if self.waiting:
            raise _TimeUp

    def remaining(self) -> float | None:
        """Seconds left (None if untimed)."""
        return None if self.deadline is None else max(self.deadline - self.clock(), 0.0)

    def is_over(self) -> bool:
        """True once the time is up."""
        remaining = self.remaining()
        return self.expired or (remaining is not None and remaining <= 0)


#: Longest line `play` reads (a word is at most MAX_WORD_CHARS; the rest is room).
_MAX_LINE = 4096


def run_console(
    game: Game,
    *,
    seconds: float,
    stdin: TextIO,
    out: TextIO,
    interactive: bool,
    clock: Callable[[], float] = time.monotonic,
) -> EndReason:
    """Read words from ``stdin`` one a line and answer each on ``out`` until the game ends.

    It ends on an empty line, the end of input, Ctrl-C, or when ``seconds`` (0: untimed)
    have passed; a word typed after the time is up does not count. With ``interactive``
    the prompt shows the time left, e.g. ``[2:41] > ``.
    """
    check_seconds(seconds)
    write = out.write
    if seconds:
        write(f"You have {format_clock(seconds)} to find words. An empty line ends the game.\n")
    else:
        write("Untimed game. An empty line ends the game.\n")
    out.flush()
    countdown = _Countdown(seconds, clock)
    try:
        with countdown:
            while True:
                if interactive:
                    remaining = countdown.remaining()
                    write("> " if remaining is None else f"[{format_clock(remaining)}] > ")
                    out.flush()
                countdown.waiting = True
                try:
                    if countdown.is_over():
                        raise _TimeUp
                    line = stdin.readline(_MAX_LINE + 1)
                    if len(line) > _MAX_LINE:
                        raise BoggleError(f"standard input: a line of more than {_MAX_LINE:,} characters, not a word")
                finally:
                    countdown.waiting = False
                if countdown.is_over():
                    raise _TimeUp
                if not line:
                    if interactive:
                        write("\n")
                    return EndReason.END_OF_INPUT
                if not line.strip():
                    return EndReason.EMPTY_WORD
                write(render_verdict(game.submit(line), game.score) + "\n")
                out.flush()
    except _TimeUp:
        write("\nTime is up!\n" if interactive else "Time is up!\n")
        return EndReason.TIME_UP
    except KeyboardInterrupt:
        write("\n")
        return EndReason.INTERRUPTED
