"""The minimal DAFSA: building it (builder), its file format (fileformat), reading it (reader)."""

from .builder import Automaton, build_automaton
from .fileformat import MAGIC, VERSION
from .reader import FINAL_FLAG, NativeDictionary

__all__ = ["Automaton", "build_automaton", "MAGIC", "VERSION", "FINAL_FLAG", "NativeDictionary"]
