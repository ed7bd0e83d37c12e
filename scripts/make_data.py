#!/usr/bin/env python3
"""Regenerate the embedded word lists in src/boggle_dafsa/data/ from their sources.

Sources: Debian's `wfrench` (/usr/share/dict/french) and `wamerican`
(/usr/share/dict/american-english) packages (`apt-get install wfrench wamerican`),
and ENABLE2K from ../shared/wordlists/enable2k.txt. Each list is normalized with the
default policy (upper case, accents removed, letters only), sorted, deduplicated and
written xz-compressed, one word a line. Deterministic: same sources, same bytes.
"""

from __future__ import annotations

import argparse
import lzma
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from boggle_dafsa.errors import BoggleError  # noqa: E402
from boggle_dafsa.words.wordlist import read_wordlist  # noqa: E402

SOURCES = {
    "fr": Path("/usr/share/dict/french"),
    "en": Path("/usr/share/dict/american-english"),
    "enable2k": ROOT.parent / "shared" / "wordlists" / "enable2k.txt",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", choices=list(SOURCES), default=list(SOURCES), help="which lists (default: all)")
    args = parser.parse_args()
    out_dir = ROOT / "src" / "boggle_dafsa" / "data"
    digests = _read_digests(out_dir / "SHA256SUMS")
    for name in args.names:
        try:
            wordlist = read_wordlist(SOURCES[name])
        except BoggleError as error:
            sys.exit(f"make_data.py: {name}: {error} (install Debian's wfrench and wamerican; ENABLE2K comes from ../shared)")
        text = "".join(word + "\n" for word in wordlist.words).encode("utf-8")
        # preset 9 with the default check: about 5x smaller than the text, decompressed in ~50 ms.
        packed = lzma.compress(text, preset=9 | lzma.PRESET_EXTREME)
        (out_dir / f"{name}.txt.xz").write_bytes(packed)
        digests[name] = wordlist.digest
        print(f"{name}: {len(wordlist.words)} words, {len(text)} bytes -> {len(packed)} bytes, sha256 {wordlist.digest}")
    # The cache names compiled files after these digests (src/boggle_dafsa/resolve.py).
    (out_dir / "SHA256SUMS").write_text("".join(f"{digest}  {name}\n" for name, digest in digests.items()), "ascii")


def _read_digests(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    return {name: digest for digest, _, name in (line.partition("  ") for line in path.read_text("ascii").splitlines())}


if __name__ == "__main__":
    main()
