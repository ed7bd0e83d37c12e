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
TUDOR, USDA, STDIO and XIV go and TREE, STAT and INTRO stay; then, as a second and independent
source must agree, only the words ENABLE2K has too (ANALYTICALALLY, NEGLIG and SMURF go). wfrench has no capitalized
entry (its entries are common nouns: LONDRES is the cigar `londrès`, PIERRE a stone),
so French keeps every entry.

Each list is then normalized with the default policy (upper case, accents removed, letters
only), sorted, deduplicated and written xz-compressed, one word a line.
Deterministic: same sources, same bytes.

The family-friendly blocklists (``blocklist``: data/blocklist-en.txt, data/blocklist-fr.txt)
come from the npm package ``naughty-words`` (the List of Dirty, Naughty, Obscene and
Otherwise Bad Words, CC-BY-4.0; ``npm pack naughty-words@1.2.0``, or ``--naughty-words DIR``
for its unpacked folder): its one-word entries of the language, normalized, less
:data:`KEPT` (entries whose first sense is an ordinary word: a rooster, a sheaf, a tench),
plus :data:`ADDED` (slurs it lacks, curated here), plus their plurals (:func:`plurals`)
that the language's embedded lists hold. Only words some embedded list holds are written.
"""

from __future__ import annotations

import argparse
import json
import lzma
import subprocess
import sys
import tarfile
import tempfile
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

#: The blocklists' source: the npm package of LDNOOBW (CC-BY-4.0), this version.
NAUGHTY_WORDS = "naughty-words@1.2.0"
#: Each blocklist: its language's file in naughty-words, and the embedded lists it is made for.
BLOCKLISTS = {"en": ("en", ("en", "enable2k")), "fr": ("fr", ("fr",))}
#: Entries of naughty-words kept playable: their first sense is an ordinary word (a rooster,
#: a rifle's butt, courage, a bird, a sheaf, a tench, to sweep a chimney), a torture
#: (bastinado, strappado), or conversation. Curated here, each one looked at.
KEPT = {
    "en": {
        "BASTINADO",
        "BONDAGE",
        "BUTT",
        "COCK",
        "COCKS",
        "DINGLEBERRIES",
        "DINGLEBERRY",
        "DOMINATION",
        "ESCORT",
        "EUNUCH",
        "FIGGING",
        "FINGERING",
        "GROPE",
        "HARDCORE",
        "HOOKER",
        "INTERCOURSE",
        "PLAYBOY",
        "POOF",
        "SCAT",
        "SCISSORING",
        "SHRIMPING",
        "SKEET",
        "SNATCH",
        "SNOWBALLING",
        "SPUNK",
        "STRAPPADO",
        "SUCK",
        "SUCKS",
        "SWINGER",
        "THROATING",
        "TIT",
        "UNDRESSING",
    },
    "fr": {
        "BAISER",
        "BANDER",
        "BITTE",
        "BOURRE",
        "BOURREE",
        "FOLLE",
        "GERBE",
        "GUEULE",
        "JOUIR",
        "PEDALE",
        "RAMONER",
        "SUCE",
        "TANCHE",
        "TRIQUE",
    },
}
#: Slurs and obscenities naughty-words lacks (ethnic, racial and homophobic slurs and their
#: plurals), curated here from the words the embedded lists hold.
ADDED = {
    "en": {
        "DAGO",
        "DAGOES",
        "DAGOS",
        "GOOK",
        "GOOKS",
        "HONKIE",
        "HONKIES",
        "HONKY",
        "JIGABOOS",
        "KIKES",
        "NIGGAS",
        "NIGGERS",
        "PISS",
        "PISSED",
        "PISSES",
        "SPICS",
        "SPIK",
        "SPIKS",
        "TRANNIES",
        "TRANNY",
        "WOP",
        "WOPS",
        "FUCKED",
        "FUCKER",
        "FUCKERS",
        "MOTHERFUCKERS",
        "SHITTED",
        "SHITTIER",
        "SHITTIEST",
        "RAPED",
        "WHORED",
    },
    "fr": {
        "BAMBOULA",
        "BICOT",
        "BICOTS",
        "BOUGNOUL",
        "BOUGNOULE",
        "BOUGNOULES",
        "BOUGNOULS",
        "CHINETOQUE",
        "CHINETOQUES",
        "ENCULER",
        "ENCULES",
        "ENCULEES",
        "NEGRESSE",
        "NEGRESSES",
        "NIAKOUE",
        "NIAKOUES",
        "TARLOUZE",
        "TARLOUZES",
        "YOUPIN",
        "YOUPINE",
        "YOUPINES",
        "YOUPINS",
    },
}


def plurals(language: str, word: str) -> tuple[str, ...]:
    """``word`` and its plural, blocked with it when the language's lists hold it: S, or ES after
    S, X, CH or SH in English. Other inflections are listed in :data:`ADDED`: a suffix added
    blindly blocks ordinary words (SPIC+ED is SPICED, SPIK+ES is SPIKES, CON+E is CONE)."""
    if language == "en" and word.endswith(("S", "X", "CH", "SH")):
        return (word, word + "ES")
    return (word, word + "S")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", choices=[*SOURCES, []], help="which lists (default: all)")
    parser.add_argument("--blocklists", action="store_true", help="write only the blocklists (from the embedded lists)")
    parser.add_argument("--naughty-words", metavar="DIR", help="the unpacked naughty-words package (default: npm pack it)")
    args = parser.parse_args()
    out_dir = ROOT / "src" / "boggle_dafsa" / "data"
    if args.blocklists:
        write_blocklists(out_dir, args.naughty_words)
        return
    digests = _read_digests(out_dir / "SHA256SUMS")
    for name in args.names or list(SOURCES):
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
    # The cache names compiled files after these digests (src/boggle_dafsa/dictionaries/resolve.py).
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
    # A second, independent source must agree (issue 36): SCOWL's large sizes hold misspellings
    # and odd derivations (ANALYTICALALLY, NEGLIG, INTERNESHIP, LOONEYIES, DEMAGOGRY, SHUCKSES)
    # and trademarks (SMURF) that players would dispute. ENABLE2K, compiled apart from SCOWL
    # for word games, is that source: a word is kept when ENABLE2K has it too.
    ordinary_words = set(parse_words("\n".join(kept) + "\n").words)
    # ENABLE2K has no word of one letter (by design): English's two, A and I, stay.
    agreed = sorted(ordinary_words & (players | {"A", "I"}))
    print(f"en: {len(ordinary_words)} words; {len(ordinary_words) - len(agreed)} that ENABLE2K lacks dropped: {len(agreed)} kept")
    return parse_words("\n".join(agreed) + "\n", source=str(SOURCES[name]))


def scowl_words() -> set[str]:
    """Every entry SCOWL files under "words" (files VARIETY-words.SIZE) in any spelling variety,
    up to size 80 (95, "insane", holds XIV and the like)."""
    files = sorted(path for path in SCOWL.glob("*-words.*") if int(path.suffix[1:]) <= 80)
    if not files:
        raise OSError(f"{SCOWL}: no SCOWL word files")
    return {line for path in files for line in path.read_text("utf-8").splitlines()}


def write_blocklists(out_dir: Path, package: str | None) -> None:
    """Write ``blocklist-LANG.txt`` for each of :data:`BLOCKLISTS` from naughty-words (see the module's doc)."""
    with tempfile.TemporaryDirectory() as scratch:
        if package is None:
            subprocess.run(["npm", "pack", NAUGHTY_WORDS, "--silent"], cwd=scratch, check=True, stdout=subprocess.DEVNULL)  # noqa: S603,S607
            with tarfile.open(next(Path(scratch).glob("naughty-words-*.tgz"))) as packed:
                packed.extractall(scratch, filter="data")
            package = str(Path(scratch) / "package")
        for language, (source, lists) in BLOCKLISTS.items():
            entries = json.loads((Path(package) / f"{source}.json").read_text("utf-8"))
            held = set().union(*(_embedded(out_dir, name) for name in lists))
            listed = {word for entry in entries if " " not in entry for word in parse_words(entry + "\n").words}
            base = (listed - KEPT[language]) | ADDED[language]
            blocked = {form for word in base for form in plurals(language, word)} & held
            blocked -= KEPT[language]
            header = (
                f"# Family-friendly blocklist ({language}): {len(blocked)} words of {', '.join(lists)}, never shown nor scored in a\n"
                f"# clean game. Made by scripts/make_data.py --blocklists from the npm package {NAUGHTY_WORDS}\n"
                "# (LDNOOBW, CC-BY-4.0) with the words curated there; see src/boggle_dafsa/data/README.md.\n"
            )
            path = out_dir / f"blocklist-{language}.txt"
            path.write_text(header + "".join(word + "\n" for word in sorted(blocked)), "utf-8")
            print(f"blocklist-{language}: {len(blocked)} words ({len(listed)} one-word entries of naughty-words {source})")


def _embedded(out_dir: Path, name: str) -> set[str]:
    return set(lzma.decompress((out_dir / f"{name}.txt.xz").read_bytes()).decode("utf-8").split())


def _read_digests(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    return {name: digest for digest, _, name in (line.partition("  ") for line in path.read_text("ascii").splitlines())}


if __name__ == "__main__":
    main()
