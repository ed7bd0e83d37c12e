"""``python -m boggle_dafsa ...`` and the ``boggle-dafsa`` console script: the command."""

from __future__ import annotations

import sys


def main() -> None:
    """Run the command, Ctrl-C included from the first instant.

    The command's imports (typer, click, rich, the verb's module) take a tenth of a second
    or more, several under load: a Ctrl-C among them would end in Python's traceback of
    ``KeyboardInterrupt``. Imported here, inside the same answer to Ctrl-C as the command
    (one line, exit 130); this module imports nothing else first.
    """
    try:
        from boggle_dafsa.cli import main as command
    except KeyboardInterrupt:
        print("boggle-dafsa: interrupted", file=sys.stderr)
        sys.exit(130)
    command()


if __name__ == "__main__":
    main()
