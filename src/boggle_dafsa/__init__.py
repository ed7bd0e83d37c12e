"""boggle-dafsa: minimal memory-mapped automata for word lists, and a Boggle solver on top.

The names below are imported on first use, so that ``import boggle_dafsa`` (and the
command line) stays fast::

    from boggle_dafsa import open_dictionary
    d = open_dictionary("fr")          # or a path to a .dafsa, marisa or dawg file
    "arbre" in d, d.has_prefix("arb"), list(d.complete("arbr", limit=5))  # normalized as -d fr does
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
    from boggle_dafsa.build import build_dictionary, compile_words
    from boggle_dafsa.dictionary import Dictionary
    from boggle_dafsa.errors import BoggleError
    from boggle_dafsa.resolve import open_dictionary
    from boggle_dafsa.solver import find, solve
    from boggle_dafsa.words.normalize import Policy, normalize
    from boggle_dafsa.words.wordlist import read_wordlist

__version__ = "0.1.0"

_LAZY = {
    "open_dictionary": "boggle_dafsa.resolve",
    "build_dictionary": "boggle_dafsa.build",
    "compile_words": "boggle_dafsa.build",
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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'boggle_dafsa' has no attribute {name!r}")
    return getattr(import_module(module), name)
