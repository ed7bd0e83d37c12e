"""The texts ``prove`` prints: the boards of a proof (or of a shard), and the projection of ``prove --estimate``.

Pure functions from :mod:`boggle_dafsa.search.prove`'s results to strings (their JSON is
:func:`.jsonable.proof_json` and :func:`.jsonable.estimate_json`); the command line writes
them. The estimate names the command's ``--sample``: it says what to run next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boggle_dafsa.board.grid import Grid

if TYPE_CHECKING:
    from boggle_dafsa.search.prove import Estimate, ProofResult, ProofSpec


def grid_text(spec: ProofSpec, key: str) -> str:
    """A board of the proof (its class key: the faces, space-separated when one is QU) as
    ``solve`` takes it: ``ABC/DEF``."""
    faces = tuple(key.split(" ")) if any(len(face) > 1 for face in spec.faces) else tuple(key)
    return str(Grid(spec.shape, faces))


def proof_text(proof: ProofResult, dice: str | None = None) -> str:
    """What ``prove`` prints: how many boards reach the minimum (of those dice ``dice`` can
    roll), the work done, then a line per board, best first."""
    spec = proof.spec
    boards = proof.boards()
    unit = "points" if spec.objective == "points" else "words"
    rolled = f" that dice {dice} can roll" if dice else ""
    lines = [
        f"{len(boards):,} board{'s' if len(boards) != 1 else ''}{rolled} with at least {spec.minimum:,} {unit} "
        f"({proof.classes:,} classes, {proof.cpu_seconds:,.1f} CPU-s):"
    ]
    for text, points, words in boards:
        lines.append(f"{points:>6,} points {words:>5,} words  {grid_text(spec, text)}")
    return "\n".join(lines)


def shard_text(proof: ProofResult, part: tuple[int, int], total: int) -> str:
    """What ``prove --shard I/N`` prints: the shard's part of the proof's ``total`` classes,
    the boards among them, and that the proof is the merge of the shards' logs."""
    spec = proof.spec
    boards = proof.boards()
    unit = "points" if spec.objective == "points" else "words"
    lines = [
        f"shard {part[0]}/{part[1]}: {proof.classes:,} of the proof's {total:,} classes ({proof.cpu_seconds:,.1f} CPU-s), "
        f"{len(boards):,} board{'s' if len(boards) != 1 else ''} with at least {spec.minimum:,} {unit} among them; "
        f"the proof is the merge of the {part[1]:,} shards' logs (--merge)"
    ]
    for text, points, words in boards:
        lines.append(f"{points:>6,} points {words:>5,} words  {grid_text(spec, text)}")
    return "\n".join(lines)


def estimate_text(projected: Estimate) -> str:
    """What ``prove --estimate`` prints: the sample, the projected CPU time and its 95%
    interval, the sample a ±25% interval needs, the largest tree, the boards found."""
    hours = projected.projected / 3600
    low, high = projected.interval_hours
    relative = f" (±{projected.margin / projected.projected:.0%})" if projected.projected > 0 else ""
    needed = projected.sample_for_25
    enough = (
        "a sample of one class tells no spread: --sample 2 or more for the interval"
        if needed is None
        else f"--sample {needed:,} for ±25%" + (" (this sample is enough)" if needed <= projected.sampled else "")
    )
    return (
        f"sample: {projected.sampled:,} of {projected.classes:,} classes in {projected.cpu_seconds:,.1f} CPU-s\n"
        f"projected: {projected.projected:,.0f} CPU-s ± {projected.margin:,.0f} (95%), {hours:,.2f} CPU-hours for the whole proof\n"
        f"95% interval: {low:,.2f} to {high:,.2f} CPU-hours{relative}; {enough}\n"
        f"largest tree: {projected.peak_nodes:,} nodes, about {projected.peak_bytes / (1 << 20):,.0f} MB per process\n"
        f"boards found in the sample: {projected.boards:,}"
    )
