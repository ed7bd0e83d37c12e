"""Errors the user can cause: each one becomes a one-line message and exit status 2."""


class BoggleError(Exception):
    """Base of every error caused by the user's input (files, grids, options).

    The CLI prints ``boggle-dafsa: <message>`` and exits with :attr:`exit_code`;
    the message must say what is wrong and where (file, line) on one line.
    """

    exit_code = 2


class WordListError(BoggleError):
    """A word list cannot be read: missing, binary, undecodable, empty."""


class DictionaryError(BoggleError):
    """A dictionary file cannot be used: missing, not a dictionary, truncated, corrupted, too new."""


class GridError(BoggleError):
    """A grid cannot be parsed or does not fit the requested shape."""


class DiceError(BoggleError):
    """A dice set is unknown or malformed."""
