"""The console game on a terminal: one screen redrawn in place, with a live countdown.

Built on prompt_toolkit (imported only by ``play``, never at start-up): its prompt redraws
itself on a timer, so the clock moves while nobody types; it gives line editing and a
history (arrow keys recall earlier words) for free; the grid, the last answers and the
clock are part of the prompt, so they never scroll away; and it can be stopped from its
own event loop when the time is up, which discards a half-typed word instead of leaving
it on the shell's next prompt. Piped input never comes here: ``console.run_console`` reads it
line by line, as before.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from boggle_dafsa.board.dice import display_face
from boggle_dafsa.game.rounds import EndReason, Game, Verdict, check_seconds
from boggle_dafsa.output.render import format_clock

if TYPE_CHECKING:
    from boggle_dafsa.board.grid import Grid

#: How often the countdown is redrawn while nobody types (seconds).
REFRESH = 0.25
#: Below this many seconds left the clock turns red.
HURRY = 10
#: What a blank face looks like on the screen.
BLANK_SHOWN = "·"

STYLE = {
    "title": "bold",
    "axis": "ansibrightblack",
    "face": "bold",
    "blank": "ansibrightblack",
    "accepted": "ansigreen",
    "refused": "ansired",
    "clock": "bold",
    "clock.hurry": "ansired bold",
    "score": "ansicyan",
    "bonus": "ansiyellow",
}


class _TimeUp(Exception):
    pass


def grid_lines(grid: Grid) -> list[list[tuple[str, str]]]:
    """The grid as styled lines, rows and columns numbered from 0 as in ``solve --paths``."""
    if len(grid.shape) != 2:
        return [[("class:face", str(grid))]]
    rows, columns = grid.shape
    width = max(3, max(len(face) for face in grid.faces) + 2)
    label = len(str(rows - 1)) + 1
    lines = [[("class:axis", " " * label + "".join(str(column).center(width) for column in range(columns)))]]
    for row, faces in enumerate(grid.rows()):
        line: list[tuple[str, str]] = [("class:axis", f"{row:>{label - 1}} ")]
        for face in faces:
            if face == ".":
                line.append(("class:blank", BLANK_SHOWN.center(width)))
            else:
                line.append(("class:face", display_face(face).center(width)))
        lines.append(line)
    return lines


def verdict_line(verdict: Verdict, score: int) -> list[tuple[str, str]]:
    """One answer, coloured: accepted with its points, or refused with the reason."""
    shown = verdict.word or verdict.raw
    if verdict.accepted and verdict.bonus:
        return [("class:bonus", f"  {shown}: bonus word, not scored (score {score})")]
    if verdict.accepted:
        plural = "" if verdict.points == 1 else "s"
        return [("class:accepted", f"  {shown}: +{verdict.points} point{plural} (score {score})")]
    return [("class:refused", f"  {shown}: refused, {verdict.reason.value if verdict.reason else ''}")]


def run_live(
    game: Game,
    *,
    seconds: float,
    title: str,
    output: TextIO,
    clock: Callable[[], float] = time.monotonic,
) -> EndReason:
    """Play ``game`` on the terminal of ``output`` (its input is the terminal's, standard input).

    Ends like the plain game: on an empty line, Ctrl-D, Ctrl-C, or when ``seconds``
    (0: untimed) have passed. The final screen (grid and answers) stays on the terminal.
    """
    from prompt_toolkit import PromptSession, print_formatted_text
    from prompt_toolkit.formatted_text import FormattedText
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.output import create_output
    from prompt_toolkit.styles import Style

    check_seconds(seconds)
    deadline = clock() + seconds if seconds else None
    answers: list[list[tuple[str, str]]] = []
    screen_output = create_output(stdout=output)
    session: PromptSession[str] = PromptSession(history=InMemoryHistory(), output=screen_output, erase_when_done=True)
    style = Style.from_dict(STYLE)
    help_line = "type a word and Enter; an empty line or Ctrl-D ends the game"

    def remaining() -> float | None:
        return None if deadline is None else max(0.0, deadline - clock())

    def frame(rows: int) -> list[tuple[str, str]]:
        parts: list[tuple[str, str]] = [("class:title", title + "\n")]
        for line in grid_lines(game.grid):
            parts += line + [("", "\n")]
        found = len(game.found)
        bonus = f", {len(game.bonus_found)} bonus" if game.judge.bonus is not None else ""
        parts.append(("class:score", f"score {game.score}, {found} word{'' if found == 1 else 's'}{bonus}  "))
        parts.append(("class:axis", help_line + "\n"))
        # The answers that fit under the grid on this terminal, newest last.
        room = max(1, rows - len(game.grid.rows()) - 5)
        for answer in answers[-room:]:
            parts += answer + [("", "\n")]
        return parts

    def message() -> FormattedText:
        rows = session.app.output.get_size().rows if session.app.is_running else 24
        left = remaining()
        if left is None:
            prompt = [("class:clock", "> ")]
        else:
            prompt = [("class:clock.hurry" if left < HURRY else "class:clock", f"[{format_clock(left)}]"), ("", " > ")]
        return FormattedText(frame(rows) + prompt)

    def ring_at_deadline() -> None:
        # Runs inside prompt_toolkit's event loop, when the prompt starts: the alarm that
        # ends it, even while the player is halfway through a word.
        import asyncio

        left = remaining()
        if left is None:
            return
        app = session.app

        def ring() -> None:
            if app.is_running and not app.future.done():  # type: ignore[union-attr]
                app.exit(exception=_TimeUp())

        asyncio.get_running_loop().call_later(left, ring)

    def show_final(last: str) -> None:
        print_formatted_text(FormattedText(frame(10_000)), style=style, output=screen_output, end="")
        print_formatted_text(last, output=screen_output)

    ended: EndReason
    try:
        while True:
            if deadline is not None and clock() >= deadline:
                raise _TimeUp
            line = session.prompt(message, style=style, refresh_interval=REFRESH, pre_run=ring_at_deadline)
            if deadline is not None and clock() >= deadline:
                raise _TimeUp  # typed after the bell: does not count
            if not line.strip():
                ended = EndReason.EMPTY_WORD
                break
            answers.append(verdict_line(game.submit(line), game.score))
    except _TimeUp:
        show_final("Time is up!")
        return EndReason.TIME_UP
    except EOFError:
        ended = EndReason.END_OF_INPUT
    except KeyboardInterrupt:
        ended = EndReason.INTERRUPTED
    show_final("")
    return ended


def can_run_live(stdin: Any, output: Any) -> bool:
    """True if the game can be drawn live: both ends are terminals and prompt_toolkit is installed."""
    try:
        if not (stdin.isatty() and output.isatty()):
            return False
    except (AttributeError, ValueError):
        return False

    return importlib.util.find_spec("prompt_toolkit") is not None
