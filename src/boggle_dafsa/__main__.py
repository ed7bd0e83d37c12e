"""``python -m boggle_dafsa ...``: the ``boggle-dafsa`` command, for when the script is not on PATH."""

from boggle_dafsa.cli import main

main()
