"""``python -m boggle_dafsa ...``: the ``boggle-dafsa`` command, for when the script is not on PATH."""

from .cli import main

main()
