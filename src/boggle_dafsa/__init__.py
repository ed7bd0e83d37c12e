"""boggle-dafsa: minimal memory-mapped automata for word lists, and a Boggle solver on top.

The public names, each imported on its first use so that ``import boggle_dafsa`` (and the
command line) stays fast; ``help(boggle_dafsa)`` shows each one's signature below.

Dictionaries:

* ``open_dictionary(spec)``: an embedded list (``fr``, ``en``, ``enable2k``) or a file
  (native ``.dafsa``, or any format of ``formats.registry``), opened behind one interface;
* ``Dictionary``: that interface (``in``, ``has_prefix``, ``complete``, the cursor
  ``root``/``step``/``is_word``);
* ``NativeDictionary``: the memory-mapped reader of the native format;
* ``build_dictionary(source, output)``: a word list file into a native dictionary (what
  ``boggle-dafsa build`` runs); ``compile_words(sorted_words)``: the file's bytes;
  ``build_automaton(words)``: the minimal DAFSA of sorted words, in memory.

Words: ``read_wordlist(path)`` (decoded, split and normalized), ``normalize(word, policy)``
and ``Policy`` (how words are folded or kept).

Boards: ``Grid`` (a grid of faces in any number of dimensions, ``Grid.parse``),
``solve(grid, dictionary)`` (every word on it, best first) and ``find(grid, word)`` (one
path tracing a word).

Errors: ``BoggleError``, the base of every error caused by the user's input. And
``__version__``.

Further, by module: :mod:`boggle_dafsa.query` (``match``, ``anagram``, ``fuzzy``,
``grep``...), :mod:`boggle_dafsa.solver` (``PreparedSolver``, ``time_limit``),
:mod:`boggle_dafsa.board` (dice sets, scoring), :mod:`boggle_dafsa.formats`.

>>> from boggle_dafsa import open_dictionary
>>> d = open_dictionary("fr")
>>> "arbre" in d, d.has_prefix("arb")  # normalized as -d fr does
(True, True)
>>> list(d.complete("arbr", limit=3))
['ARBRE', 'ARBRES', 'ARBRISSEAU']
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # What the type checker and editors see: the real names and signatures. At run time each
    # name is imported on its first use (__getattr__ below), so that `import boggle_dafsa`
    # and the command line's start-up stay fast.
    from boggle_dafsa.automaton.builder import build_automaton
    from boggle_dafsa.automaton.reader import NativeDictionary
    from boggle_dafsa.board.grid import Grid
    from boggle_dafsa.dictionaries.build import build_dictionary, compile_words
    from boggle_dafsa.dictionaries.resolve import open_dictionary
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.errors import BoggleError
    from boggle_dafsa.solver import find, solve
    from boggle_dafsa.words.normalize import Policy, normalize
    from boggle_dafsa.words.wordlist import read_wordlist

__version__ = "0.1.0"

_LAZY = {
    "open_dictionary": "boggle_dafsa.dictionaries.resolve",
    "build_dictionary": "boggle_dafsa.dictionaries.build",
    "compile_words": "boggle_dafsa.dictionaries.build",
    "read_wordlist": "boggle_dafsa.words.wordlist",
    "NativeDictionary": "boggle_dafsa.automaton.reader",
    "build_automaton": "boggle_dafsa.automaton.builder",
    "Policy": "boggle_dafsa.words.normalize",
    "normalize": "boggle_dafsa.words.normalize",
    "Dictionary": "boggle_dafsa.dictionary",
    "BoggleError": "boggle_dafsa.errors",
    "Grid": "boggle_dafsa.board.grid",
    "solve": "boggle_dafsa.solver",
    "find": "boggle_dafsa.solver",
}

__all__ = [
    "BoggleError",
    "Dictionary",
    "Grid",
    "NativeDictionary",
    "Policy",
    "__version__",
    "build_automaton",
    "build_dictionary",
    "compile_words",
    "find",
    "normalize",
    "open_dictionary",
    "read_wordlist",
    "solve",
]


def __dir__() -> list[str]:
    # The lazy names too, so that help() and editors list them (dir() imports nothing).
    return sorted({*globals(), *_LAZY})


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'boggle_dafsa' has no attribute {name!r}")
    return getattr(import_module(module), name)
