"""boggle-dafsa: minimal memory-mapped automata for word lists, and a Boggle solver on top.

The names below are imported on first use, so that ``import boggle_dafsa`` (and the
command line) stays fast::

    from boggle_dafsa import open_dictionary
    d = open_dictionary("fr")          # or a path to a .dafsa, marisa or dawg file
    "arbre" in d, d.has_prefix("arb"), list(d.complete("arbr", limit=5))  # normalized as -d fr does
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

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

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'boggle_dafsa' has no attribute {name!r}")
    return getattr(import_module(module), name)
