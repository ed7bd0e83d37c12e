"""Options shared by several commands, declared once (typer ``Annotated`` aliases)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from boggle_dafsa.board.scoring import CLASSIC, SCORINGS
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.formats.registry import spoken

DictOption = Annotated[
    Optional[str],
    typer.Option(
        "--dict",
        "-d",
        help=f"Dictionary: a file ({spoken()}), a word list (compiled once into the cache), or fr, en, enable2k. "
        "Default: $BOGGLE_DAFSA_DICT, else build/dictionary.dafsa if present, else fr.",
        show_default=False,
    ),
]
#: -d for commands that take a dice set's rules (--dice): without it, the set's dictionary if any.
RulesDictOption = Annotated[
    Optional[str],
    typer.Option(
        "--dict",
        "-d",
        help=f"Dictionary: a file ({spoken()}), a word list, or fr, en, enable2k. "
        "Default: $BOGGLE_DAFSA_DICT, else the --dice set's (fr for French dice, en for English ones), "
        "else build/dictionary.dafsa if present, else fr.",
        show_default=False,
    ),
]
#: A dictionary given the way `fst words FILE` takes one, where nothing else is positional.
DictArgument = Annotated[
    Optional[str],
    typer.Argument(help="The dictionary (as -d: a file, a word list, or fr, en, enable2k).", show_default=False),
]
#: -d for commands that play with dice: without it, the set's own dictionary.
GameDictOption = Annotated[
    Optional[str],
    typer.Option(
        "--dict",
        "-d",
        help=f"Dictionary: a file ({spoken()}), a word list, or fr, en, enable2k. "
        "Default: $BOGGLE_DAFSA_DICT, else the dice set's (fr for French dice, en for English ones).",
        show_default=False,
    ),
]

#: --bonus: the full list beside the game's (common) one; its other words are bonus words.
BonusOption = Annotated[
    Optional[str],
    typer.Option(
        "--bonus",
        help="A fuller list beside -d (a file, a word list, or fr, en, enable2k): its words that -d lacks are bonus "
        "words, listed apart, counted and not scored (e.g. -d en --bonus enable2k; docs/game.md).",
        show_default=False,
    ),
]


def pick_dictionary(argument: str | None, option: str | None) -> str | None:
    """The dictionary of a command that takes it as an argument or as -d (not both)."""
    if argument and option and argument != option:
        raise BoggleError(f"two dictionaries given, {argument!r} and -d {option!r}: give one")
    return argument or option


JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
GRID_HELP = "The grid, e.g. IDXTMHEIERVNTLLU or IDXT/MHEI/ERVN/TLLU (see above); '-' or nothing: standard input."
ShapeOption = Annotated[
    Optional[str],
    typer.Option("--shape", "-s", help="Shape the faces fill: N for NxN, or sizes like 3x5 or 4x4x4.", show_default=False),
]
QuOption = Annotated[bool, typer.Option("--qu", "--q-is-qu", help="Read a lone Q as the QU face.")]
AdjacencyOption = Annotated[
    str, typer.Option("--adjacency", help="Which cells touch: king (8 neighbours in 2-D) or orthogonal (4).")
]
#: The dice set a game is rolled with.
DiceOption = Annotated[
    str,
    typer.Option(
        "--dice",
        help="Dice set: fr, en-classic, en, big, super-big (see `boggle-dafsa dice`), or a dice file ('-': standard input).",
    ),
]
#: A dice set whose rules (and, without -d, dictionary) a command takes.
RulesDiceOption = Annotated[
    Optional[str],
    typer.Option(
        "--dice",
        help="Take the rules of this dice set (fr, en-classic, en, big, super-big, or a dice file, '-' for standard input): its scoring, its minimum length and, without -d, its dictionary.",
        show_default=False,
    ),
]
MinLengthOption = Annotated[
    Optional[int],
    typer.Option(
        "--min-length",
        "-m",
        help=f"Shortest word, in letters (default: the scoring's, {CLASSIC.min_length} for {CLASSIC.name}).",
        show_default=False,
    ),
]
ScoringOption = Annotated[
    Optional[str],
    typer.Option(
        "--scoring",
        help="Score table: "
        + spoken(
            name if table.min_length == CLASSIC.min_length else f"{name} (minimum {table.min_length} letters)"
            for name, table in SCORINGS.items()
        )
        + f" (default: the dice set's, else {CLASSIC.name}).",
        show_default=False,
    ),
]
SeedOption = Annotated[
    Optional[int],
    typer.Option("--seed", help="Seed of the random draw: the same seed gives the same grids everywhere.", show_default=False),
]
TimeoutOption = Annotated[
    Optional[float],
    typer.Option(
        "--timeout",
        help="Give up after this many seconds, with one line and exit status 2 (dense grids, find's worst case).",
        show_default=False,
    ),
]
DaskOption = Annotated[
    Optional[str],
    typer.Option(
        "--dask",
        help="Run on the Dask cluster whose scheduler is at this address (needs the \\[dask] extra).",
        show_default=False,
    ),
]
#: Listings (complete and the query verbs).
LimitOption = Annotated[
    Optional[int], typer.Option("--limit", "-n", min=0, help="At most this many results.", show_default=False)
]
CountOption = Annotated[bool, typer.Option("--count", "-c", help="Print only how many results there are.")]
#: Word lists read by build and verify.
EncodingOption = Annotated[
    Optional[str], typer.Option("--encoding", help="Force the input encoding (default: UTF-8, else ISO-8859-15).")
]
#: Commands that write a file and report it.
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")]
OutputOption = Annotated[
    Path, typer.Option("--output", "-o", help="Where to write the new native dictionary.", show_default=False)
]
#: Several dictionaries as arguments (the set algebra).
InputsArgument = Annotated[
    list[str], typer.Argument(help="Dictionaries: files of any format, or fr, en, enable2k.", show_default=False)
]
