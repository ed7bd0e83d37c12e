"""The ``boggle-dafsa`` command: a thin typer layer over the library, one module per group of verbs.

Each module of this package registers its commands on :data:`.base.app` with
``@app.command()``; :data:`VERBS` says which module holds which verb, so that
:func:`main` imports only the module of the verb it runs (start-up time), and
``--help`` or an unknown verb imports them all.

A verb's module imports the library inside its commands, not at its top: ``--help`` (and
shell completion) import every verb's module, and pay only for what the commands' options need.

Adding a verb: write it in a module here (``from .base import app`` then
``@app.command()``), and add one line ``"verb": "module"`` to :data:`VERBS`. A query verb
is a record of ``boggle_dafsa.query.VERBS`` instead, whose command :mod:`.query` makes: a
verb that :data:`VERBS` does not name is looked for there first.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
from importlib import import_module
from typing import Any

import typer

from boggle_dafsa.cli.base import app as _app
from boggle_dafsa.cli.common import PROGRAM
from boggle_dafsa.cli.compat import NoArgsIsHelpError, UsageError
from boggle_dafsa.compiled import KernelSettingError, pure, version_parts

#: Verb → the module of this package that defines it, in the order ``--help`` lists them;
#: the query verbs (``boggle_dafsa.query.VERBS``, whose commands :mod:`.query` makes from the
#: records) are not here: a run of another verb never imports the query library to learn them.
VERBS: dict[str, str] = {
    "best": "best",
    "build": "dictionary",
    "dump": "dictionary",
    "verify": "dictionary",
    "inspect": "dictionary",
    "lookup": "dictionary",
    "complete": "dictionary",
    "dot": "dictionary",
    "dice": "game",
    "generate": "game",
    "play": "game",
    "score": "game",
    "union": "query",
    "intersect": "query",
    "diff": "query",
    "search": "study",
    "quiz": "study",
    "serve": "serve",
    "solve": "solve",
    "find": "find",
    "prove": "prove",
}


#: The module that makes a command of each query verb (``boggle_dafsa.query.VERBS``).
QUERY_MODULE = "query"


def load_commands(verb: str | None = None) -> typer.Typer:
    """The app with the module of ``verb`` registered: the one :data:`VERBS` names, else the
    query module if ``verb`` is a query verb, else every module (for None or an unknown verb)."""
    if verb in VERBS:
        import_module(f"{__name__}.{VERBS[verb]}")
        return _app
    if verb is not None and not verb.startswith("-"):
        import_module(f"{__name__}.{QUERY_MODULE}")
        if verb in command_names():
            return _app
    for module in dict.fromkeys(VERBS.values()):
        import_module(f"{__name__}.{module}")
    return _app


def command_names() -> list[str]:
    """The names of the commands registered so far, in the order ``--help`` lists them."""
    return [info.name or info.callback.__name__.lower().replace("_", "-") for info in _app.registered_commands if info.callback]


def __getattr__(name: str) -> Any:
    # `from boggle_dafsa.cli import app` (tests, embedding) gets the app with every command.
    if name == "app":
        return load_commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point of the console script: runs the command, usage errors as one line."""
    # What is imported so far (typer, click, rich's pieces, the app) lives until the process
    # ends: moved out of the cyclic collector's sight, so that the collections that the
    # command's own imports trigger do not scan all of it again. The collector still runs
    # for everything made from here on. 8% fewer instructions for `solve GRID -q`
    # (docs/performance.md). Here, not at import: a program that imports the app is left alone.
    gc.freeze()
    args = sys.argv[1:]

    try:
        pure()  # a malformed BOGGLE_DAFSA_PURE is one line, before any kernel is loaded
    except KernelSettingError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        sys.exit(2)
    if args == ["--version"]:
        print(version_text())
        sys.exit(0)
    if sys.stdin is None:  # started with stdin closed: read as empty input
        sys.stdin = open(os.devnull)
    if sys.stdout is None:
        print(f"{PROGRAM}: standard output is closed", file=sys.stderr)
        sys.exit(2)
    try:
        code = load_commands(args[0] if args else None)(args=args, prog_name=PROGRAM, standalone_mode=False)
        sys.stdout.flush()
    except NoArgsIsHelpError as help_request:
        print(help_request.format_message())
        code = 2
    except UsageError as error:
        # typer would draw a framed box of several lines; errors here are one line.
        where = f"{error.ctx.command_path}: " if error.ctx and error.ctx.command_path != PROGRAM else ""
        command = error.ctx.command_path if error.ctx else PROGRAM
        print(
            f"{PROGRAM}: {where.removeprefix(PROGRAM + ' ')}{error.format_message()}{_stray_hint(args)} (see `{command} --help`)",
            file=sys.stderr,
        )
        code = 2
    except (typer.Abort, KeyboardInterrupt):  # KeyboardInterrupt: during the verb module's import
        print(f"{PROGRAM}: interrupted", file=sys.stderr)
        code = 130
    except OSError as error:
        # What is left of OSError here is writing our output: a full disk, a closed pipe.
        if error.errno not in _OUTPUT_ERRORS:
            raise
        print(f"{PROGRAM}: cannot write the output ({error.strerror})", file=sys.stderr)
        # The interpreter flushes stdout once more on exit: let that flush go nowhere.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 2
    sys.exit(code if isinstance(code, int) else 0)


def version_text() -> str:
    """``boggle-dafsa 0.1.0 (solver kernel: c (compiled); builder kernel: c (compiled); query walk
    kernel: c (compiled))``: the version and the kernel that runs each compiled part."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("boggle-dafsa")
    except PackageNotFoundError:  # run from a source tree that was never installed
        number = "unknown version"
    return f"{PROGRAM} {number} ({version_parts()})"


_OUTPUT_ERRORS = {errno.ENOSPC, errno.EIO, errno.EBADF, errno.EFBIG, errno.EDQUOT, errno.EPIPE}


def _stray_hint(args: list[str]) -> str:
    """``; FILE looks like a dictionary: give it with -d FILE`` for the first such argument."""
    from boggle_dafsa.dictionaries.resolve import looks_like_dictionary

    for before, argument in zip(["", *args], args):
        if before not in ("-d", "--dict") and not argument.startswith("-") and looks_like_dictionary(argument):
            return f"; {argument!r} looks like a dictionary file: give it with -d {argument}"
    return ""
