#!/usr/bin/env python3
"""Regenerate the embedded word lists in src/boggle_dafsa/data/ from their sources.

Sources: Debian's `wfrench` (/usr/share/dict/french), `wamerican`
(/usr/share/dict/american-english) and `scowl` (/usr/share/dict/scowl/) packages
(`apt-get install wfrench wamerican scowl`), and ENABLE2K from ../shared/wordlists/enable2k.txt.

Game fit: a list keeps only the entries its source gives as ordinary words. wamerican is
made from SCOWL's categories (words, proper names, capitalized words, abbreviations,
contractions, roman numerals, hacker jargon) and writes proper nouns and most acronyms
with capitals: an English entry is kept when it is all lower case and SCOWL (same
version) files it under "words" in some spelling variety (up to size 80), or ENABLE2K has it, so YODA,
TUDOR, USDA, STDIO and XIV go and TREE, STAT and INTRO stay. wfrench has no capitalized
entry (its entries are common nouns: LONDRES is the cigar `londrès`, PIERRE a stone),
so French keeps every entry.

Each list is then normalized with the default policy (upper case, accents removed, letters
only), sorted, deduplicated and written xz-compressed, one word a line.
Deterministic: same sources, same bytes.
"""

from __future__ import annotations

import argparse
import lzma
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from boggle_dafsa.errors import BoggleError  # noqa: E402
from boggle_dafsa.words.wordlist import WordList, parse_words, read_wordlist  # noqa: E402

SOURCES = {
    "fr": Path("/usr/share/dict/french"),
    "en": Path("/usr/share/dict/american-english"),
    "enable2k": ROOT.parent / "shared" / "wordlists" / "enable2k.txt",
}
#: SCOWL's lists by category, from Debian's `scowl` package (the version wamerican is made from).
SCOWL = Path("/usr/share/dict/scowl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", choices=list(SOURCES), default=list(SOURCES), help="which lists (default: all)")
    args = parser.parse_args()
    out_dir = ROOT / "src" / "boggle_dafsa" / "data"
    digests = _read_digests(out_dir / "SHA256SUMS")
    for name in args.names:
        try:
            wordlist = game_words(name)
        except (BoggleError, OSError) as error:
            sys.exit(
                f"make_data.py: {name}: {error} (install Debian's wfrench, wamerican and scowl; ENABLE2K comes from ../shared)"
            )
        text = "".join(word + "\n" for word in wordlist.words).encode("utf-8")
        # preset 9 with the default check: about 5x smaller than the text, decompressed in ~50 ms.
        packed = lzma.compress(text, preset=9 | lzma.PRESET_EXTREME)
        (out_dir / f"{name}.txt.xz").write_bytes(packed)
        digests[name] = wordlist.digest
        print(f"{name}: {len(wordlist.words)} words, {len(text)} bytes -> {len(packed)} bytes, sha256 {wordlist.digest}")
    # The cache names compiled files after these digests (src/boggle_dafsa/resolve.py).
    (out_dir / "SHA256SUMS").write_text("".join(f"{digest}  {name}\n" for name, digest in digests.items()), "ascii")


def game_words(name: str) -> WordList:
    """The normalized list ``name``, without the entries its source marks as not ordinary words."""
    if name != "en":
        return read_wordlist(SOURCES[name])
    entries = SOURCES[name].read_text("utf-8").splitlines()
    ordinary = scowl_words()
    players = set(read_wordlist(SOURCES["enable2k"]).words)
    lower = [entry for entry in entries if entry == entry.lower()]
    # A lower-case entry SCOWL files only as an abbreviation or as jargon (STAT, INTRO, BOT;
    # STDIO, BLDG) stays when ENABLE2K, the Boggle players' list, has it as a word.
    kept = [entry for entry in lower if entry in ordinary or players.intersection(parse_words(entry).words)]
    elsewhere = sum(1 for entry in lower if entry not in ordinary)
    print(
        f"en: {len(entries)} entries; {len(entries) - len(lower)} with a capital dropped; {elsewhere} lower-case "
        f"entries SCOWL does not file as words: {len(lower) - len(kept)} dropped, {elsewhere - len(lower) + len(kept)} kept by ENABLE2K"
    )
    return parse_words("\n".join(kept) + "\n", source=str(SOURCES[name]))


def scowl_words() -> set[str]:
    """Every entry SCOWL files under "words" (files VARIETY-words.SIZE) in any spelling variety,
    up to size 80 (95, "insane", holds XIV and the like)."""
    files = sorted(path for path in SCOWL.glob("*-words.*") if int(path.suffix[1:]) <= 80)
    if not files:
        raise OSError(f"{SCOWL}: no SCOWL word files")
    return {line for path in files for line in path.read_text("utf-8").splitlines()}


def _read_digests(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    return {name: digest for digest, _, name in (line.partition("  ") for line in path.read_text("ascii").splitlines())}


if __name__ == "__main__":
    main()
