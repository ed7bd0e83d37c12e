#!/usr/bin/env python3
"""Expected Boggle points per game of each anagram group, over randomly rolled boards.

    python scripts/expected_points.py --dice fr -d fr --boards 1000000 \\
        --out src/boggle_dafsa/data/expected/fr-fr.tsv.xz
    python scripts/expected_points.py --dice en -d enable2k --boards 1000000 \\
        --out src/boggle_dafsa/data/expected/en-enable2k.tsv.xz

Rolls ``--boards`` boards of the dice set from ``--seed`` (the game's own rolls: the grids
``generate_grids(dice, seed, N)`` gives), solves them by chunks with the dice set's rules,
and tallies each anagram group's words (:mod:`boggle_dafsa.study.expected`). The tally is
written to ``--out`` after every chunk, atomically: stopped at any point (Ctrl-C, a kill),
the run goes on from the last chunk with ``--resume``, and a finished table grows by the
same command with a larger ``--boards`` and ``--resume`` (the boards continue the
generator's stream, so N boards in one run or in several are the same boards). Prints,
per chunk, the boards, the CPU seconds of this process and boards per CPU second, the load;
at the end the top groups with their standard errors (``--top``), as a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from boggle_dafsa.board.dice import load_dice
from boggle_dafsa.dictionaries.resolve import open_dictionary
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.study import expected


def top_table(tally: expected.Tally, dictionary: object, top: int) -> str:
    """The ``top`` groups as a Markdown table: rank, group, its words, points per game ± error."""
    from boggle_dafsa.query import anagram_words

    lines = [
        "| rank | group | words | points a word | expected points per game | standard error |",
        "|---:|---|---|---:|---:|---:|",
    ]
    for rank, group in enumerate(tally.ranked()[:top], 1):
        words = " ".join(anagram_words(dictionary, group))
        lines.append(
            f"| {rank} | {group} | {words} | {tally.points_of(group)} | {tally.expected(group):.4f} | {tally.error(group):.4f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", default="fr", help="dice set (fr, en, ... or a dice file)")
    parser.add_argument("-d", "--dictionary", default=None, help="dictionary (default: the dice set's)")
    parser.add_argument("--boards", type=int, default=1_000_000, help="boards in all (with --resume: the total to reach)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=expected.CHUNK, help="boards between two saves")
    parser.add_argument("--out", type=Path, required=True, help="the table (.tsv, or .tsv.xz compressed)")
    parser.add_argument("--resume", action="store_true", help="go on from the table in --out")
    parser.add_argument("--top", type=int, default=20, help="groups shown at the end")
    parser.add_argument("--kernel", default="auto", help="solver kernel: auto, c or python")
    args = parser.parse_args()
    try:
        dice_set = load_dice(args.dice)
        name = args.dictionary or dice_set.language
        if name is None:
            raise BoggleError(f"dice {dice_set.name} names no dictionary: give -d")
        dictionary = open_dictionary(name)
        if args.resume:
            tally = expected.read_tally(args.out)
            if (tally.dice, tally.dictionary) != (dice_set.name, name):
                raise BoggleError(
                    f"{args.out}: a table of dice {tally.dice} on {tally.dictionary}, not {dice_set.name} on {name}"
                )
        elif args.out.exists():
            raise BoggleError(f"{args.out}: exists (--resume to go on from it)")
        else:
            tally = expected.new_tally(dice_set, name, args.seed)
        left = args.boards - tally.boards
        print(
            f"dice {dice_set.name}, dictionary {name}: {tally.boards:,} boards done, {max(left, 0):,} to go "
            f"(seed {tally.seed}, chunks of {args.chunk:,}); load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        begun = time.process_time()
        first = tally.boards

        def saved(tally: expected.Tally) -> None:
            expected.write_tally(tally, args.out, preset=1)
            spent = time.process_time() - begun
            done = tally.boards - first
            print(
                f"  {tally.boards:>10,} boards  {spent:8.1f} CPU-s this run  {done / spent if spent else 0:9,.0f} boards/CPU-s"
                f"  load {os.getloadavg()[0]:.2f}",
                flush=True,
            )

        if left > 0:
            expected.run(tally, dice_set, dictionary, left, chunk=args.chunk, kernel=args.kernel, after_chunk=saved)
            expected.write_tally(tally, args.out)  # the last save, smaller
        spent = time.process_time() - begun
        print(
            f"\n{tally.boards:,} boards (seed {tally.seed}), {len(tally.found):,} groups found; "
            f"{spent:.1f} CPU-s this run (setup included), {tally.cpu_seconds:.1f} CPU-s in the table's runs; "
            f"load {os.getloadavg()[0]:.2f}\n"
        )
        print(top_table(tally, dictionary, args.top))
    except BoggleError as error:
        print(f"expected_points.py: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\nexpected_points.py: interrupted; the last whole chunk is kept in {args.out} (--resume)", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
