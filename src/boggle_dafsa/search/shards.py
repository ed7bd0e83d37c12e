"""A proof in parts: shards that any array engine runs, and the merge of their logs.

A shard ``(I, N)`` is the classes whose number is ``I`` modulo ``N``. The classes are
numbered by the proof's specification alone (its buckets, shape and rules: see
:meth:`~boggle_dafsa.search.prove.ProofSpec.classes`), so the same specification and ``N``
give every machine the same part, whatever its state; and since classes are numbered in the
order of their buckets (dear classes first, cheap ones last), every ``N``-th of them is a
part of about the same cost as the others.

Each shard appends its classes to its own log (:func:`~boggle_dafsa.search.prove.open_log`:
a line a class, flushed, sealed by a digest of its content, of the proof's specification and
dictionary, and of the line before it). :func:`merge` reads the logs of every shard and
makes the proof a single run makes, or says why it cannot:

* a log edited, cut short or of another proof is refused in one line naming it and the line
  (:class:`~boggle_dafsa.errors.BoggleError`, exit 2);
* every board a log names is scored again by the solver;
* a class proven twice (a shard run again with a new log on the same file; a log given
  twice) is taken once if both proofs found the same boards, and refused otherwise;
* classes no log holds are reported (:class:`IncompleteProof`, exit 1: their count, the
  first of them and their shards).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search.prove import ClassResult, ProofResult, ProofSpec, add_dead_boards, check_boards, log_entries

#: Most shards of a proof (an array job's size: AWS Batch takes 10,000, Kubernetes more).
MAX_SHARDS = 1_000_000
#: Classes missing named in the message of :class:`IncompleteProof`.
SHOWN_MISSING = 5


class IncompleteProof(BoggleError):
    """The logs merged do not hold every class of the proof (exit 1: no input is wrong, the
    proof is not done). ``missing``: the classes no log holds; ``shards``: the shard counts
    the logs were written with."""

    exit_code = 1

    def __init__(self, message: str, missing: list[int], shards: list[int]) -> None:
        super().__init__(message)
        self.missing = missing
        self.shards = shards


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` as (I, N): shard I of N, I from 0 to N-1 (raises :class:`BoggleError`)."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None:
        raise BoggleError(f"shard {text!r}: expected I/N, e.g. 3/8 (shard 3 of 8, numbered from 0)")
    index, count = int(match[1]), int(match[2])
    if not 1 <= count <= MAX_SHARDS:
        raise BoggleError(f"shard {text!r}: the number of shards must be 1 to {MAX_SHARDS:,}")
    if index >= count:
        raise BoggleError(f"shard {text!r}: shards are numbered 0 to {count - 1} (an array job's index)")
    return index, count


def shard_classes(total: int, index: int, count: int) -> list[int]:
    """The classes of shard ``index`` of ``count`` in a proof of ``total`` classes: those
    whose number is ``index`` modulo ``count`` (none when there are fewer classes than shards)."""
    if not 0 <= index < count:
        raise ValueError(f"shard {index} of {count}")
    return list(range(index, total, count))


def merge(spec: ProofSpec, paths: Sequence[str | Path]) -> ProofResult:
    """The proof of ``spec`` made of the classes in the logs at ``paths``, every line checked
    and every board scored again; what a single run of the whole proof gives.

    Raises :class:`BoggleError` (one line naming the log and the line) for a log edited, cut
    short or holding a line of another proof, a board that is not what its line says, or a
    class proven twice with other boards; :class:`IncompleteProof` when classes are missing.
    """
    if not paths:
        raise BoggleError("no log to merge")
    total = len(spec.classes())
    kept: dict[int, tuple[str | Path, int, ClassResult]] = {}
    shards: set[int] = set()
    for path in paths:
        entries, _ = log_entries(path, spec, whole=True, shards=shards)
        for number, result in entries:
            first = kept.get(result.index)
            if first is None:
                kept[result.index] = (path, number, result)
            elif first[2].boards != result.boards:
                raise BoggleError(
                    f"{path}:{number}: class {result.index} is proven with other boards than at {first[0]}:{first[1]}: "
                    "these logs cannot be trusted together"
                )
    check_boards(spec, list(kept.values()))
    missing = [index for index in range(total) if index not in kept]
    if missing:
        raise IncompleteProof(missing_text(missing, sorted(shards)), missing, sorted(shards))
    return add_dead_boards(ProofResult(spec, total, {index: entry[2] for index, entry in sorted(kept.items())}))


def missing_text(missing: Sequence[int], shards: Sequence[int]) -> str:
    """``12 of the proof's classes are in no log (3, 11, 19, 27, 35, ...), of shard 3/8``:
    the count, the first few, and for the logs' shard count(s), the shards they belong to."""
    shown = ", ".join(str(index) for index in missing[:SHOWN_MISSING]) + (", ..." if len(missing) > SHOWN_MISSING else "")
    text = f"{len(missing):,} of the proof's classes {'is' if len(missing) == 1 else 'are'} in no log ({shown})"
    if len(shards) == 1:  # logs of one shard count: name the shards to run again
        count = shards[0]
        parts = sorted({index % count for index in missing})
        listed = ", ".join(f"{part}/{count}" for part in parts[:SHOWN_MISSING]) + (", ..." if len(parts) > SHOWN_MISSING else "")
        text += f", of shard{'s' if len(parts) > 1 else ''} {listed}"
    return text
