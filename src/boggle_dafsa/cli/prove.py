"""``boggle-dafsa prove``: every board of a shape with at least N points (a thin layer over :mod:`boggle_dafsa.search.prove`)."""

# No `from __future__ import annotations` here, as in solve.py: typer evaluates the
# commands' annotations at each start. Names imported for type checking only are quoted.
import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import PROGRAM, dice_argument, is_terminal, print_json
from boggle_dafsa.cli.options import (
    AdjacencyOption,
    DaskOption,
    DictOption,
    JsonOption,
    MinLengthOption,
    QuOption,
    ScoringOption,
    SeedOption,
)
from boggle_dafsa.cli.progress import ProofBar
from boggle_dafsa.errors import BoggleError

if TYPE_CHECKING:
    from boggle_dafsa.search.prove import ClassResult, ProofResult, ProofSpec


@app.command()
def prove(
    minimum: Annotated[
        int,
        typer.Option(
            "--min", help="Print every board with at least this many points (words with --objective words).", show_default=False
        ),
    ],
    dictionary: DictOption = None,
    shape: Annotated[
        str, typer.Option("--shape", "-s", help="Shape of the boards: N for NxN, or sizes like 3x4 (32 cells at most).")
    ] = "3x3",
    objective: Annotated[str, typer.Option("--objective", help="What --min counts: points or words.")] = "points",
    dice: Annotated[
        Optional[str],
        typer.Option(
            "--dice",
            help="Prove only boards this dice set can roll, a die per cell (fr, en-classic, en, big, super-big, or a dice file, - for standard input); its scoring and, without -d, its dictionary.",
            show_default=False,
        ),
    ] = None,
    scoring: ScoringOption = None,
    min_length: MinLengthOption = None,
    q_is_qu: QuOption = False,
    adjacency: AdjacencyOption = "king",
    buckets: Annotated[
        Optional[str],
        typer.Option(
            "--buckets",
            help="Letter buckets of the board classes, e.g. 'AEIJOU BCDFGMPQVWXZ HKLNRSTY' (default: vowels, common and rare consonants).",
            show_default=False,
        ),
    ] = None,
    corner_buckets: Annotated[
        Optional[str],
        typer.Option(
            "--corner-buckets",
            help="Buckets of the corner cells (default: one bucket of every letter up to 12 cells; past them two, the vowels and the consonant that ends the most words, then the rest).",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Processes proving classes on this machine.")] = 1,
    dask: DaskOption = None,
    log: Annotated[
        Optional[str], typer.Option("--log", help="Append each proven class to this ndjson file.", show_default=False)
    ] = None,
    resume: Annotated[
        Optional[str],
        typer.Option(
            "--resume",
            help="Skip the classes of this proof already in this log, once its lines pass their digests and its boards are scored again (and append to it).",
            show_default=False,
        ),
    ] = None,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate", help="Prove a random sample of classes only, and project the whole proof's CPU time and memory."
        ),
    ] = False,
    sample: Annotated[int, typer.Option("--sample", help="Classes the estimate proves.")] = 100,
    seed: SeedOption = None,
    memory: Annotated[
        int, typer.Option("--memory", help="Most MB of tree per class: a class that needs more is split in two.")
    ] = 480,  # search.prove.DEFAULT_MEMORY_MB (the module is imported late: start-up time)
    shard: Annotated[
        Optional[str],
        typer.Option(
            "--shard",
            help="Prove part I of N only (I from 0 to N-1, an array job's index): the classes numbered I modulo N, the same on any machine; needs --log or --resume, and --merge makes the proof of all the parts' logs.",
            show_default=False,
        ),
    ] = None,
    merge: Annotated[
        bool,
        typer.Option(
            "--merge",
            help="Prove nothing: make the proof of the logs given (every shard's), each line checked, every board scored again, every class there once; print it as a single run does.",
        ),
    ] = False,
    logs: Annotated[
        Optional[list[str]], typer.Argument(help="The logs of --merge.", show_default=False, metavar="[LOG]...")
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """Prove which boards of a shape have at least --min points: print every one, best first, one per symmetry class.

    Boards are split into classes (a bucket of letters per cell); each class is bounded from above and split cell by cell until its bound falls below --min, and every board left is scored exactly. A board not printed has fewer points than --min. Progress shows on a terminal only; Ctrl-C stops (resume with --resume LOG). --shard I/N proves one part of N into its log (an array job's task); --merge LOG... makes the proof of all the parts' logs.
    """
    from boggle_dafsa.board.dice import load_dice
    from boggle_dafsa.board.grid import parse_shape
    from boggle_dafsa.dictionaries.resolve import dictionary_spec_for
    from boggle_dafsa.search import prove as P
    from boggle_dafsa.search.shards import parse_shard, shard_classes

    if memory < 1:
        raise BoggleError(f"--memory must be at least 1 MB, not {memory}")
    most = P.MAX_NODE_BUDGET * P.NODE_BYTES >> 20
    if memory > most:
        raise BoggleError(f"--memory must be at most {most:,} MB, not {memory:,} (the most nodes a class's tree may hold)")
    _check_parts(shard, merge, logs or [], log=log, resume=resume, estimate=estimate, dask=dask, jobs=jobs)
    part = parse_shard(shard) if shard else None  # before the dictionary is opened: a typo is told at once
    if dask:
        from boggle_dafsa.solver.parallel import check_address, require_dask

        require_dask()  # before the dictionary is opened: say at once what is missing or wrong
        check_address(dask)
        if jobs != 1:
            raise BoggleError("--jobs and --dask exclude each other (the cluster's workers are the processes)")
    dice_set = load_dice(dice_argument(dice)) if dice else None
    spec = P.make_spec(
        dictionary_spec_for(dictionary, dice_set.language if dice_set else None),
        parse_shape(shape),
        minimum,
        buckets=buckets,
        corner_buckets=corner_buckets,
        scoring=scoring,
        min_length=min_length,
        adjacency=adjacency,
        objective=objective,
        q_is_qu=q_is_qu,
        node_budget=max(100, memory * (1 << 20) // P.NODE_BYTES),
        dice=dice_set,
    )
    classes = len(spec.classes())
    if merge:
        _merged(spec, logs or [], json_output, dice_set.name if dice_set else None)
        return
    if estimate:
        chosen_seed = seed if seed is not None else 1
        bar = ProofBar(min(sample, classes), 0) if is_terminal(sys.stderr) else None
        try:
            if bar is not None:
                bar.start()
            projected = P.estimate(spec, sample, chosen_seed, jobs=jobs, dask=dask, on_result=bar.update if bar else None)
        finally:
            if bar is not None:
                bar.stop()
        if json_output:
            from boggle_dafsa.output.jsonable import estimate_json

            print_json(estimate_json(projected, chosen_seed))
        else:
            from boggle_dafsa.output.proof import estimate_text

            typer.echo(estimate_text(projected))
        return
    only = shard_classes(classes, *part) if part else None
    done = P.read_log(resume, spec, strict=True) if resume else {}
    log_path = log or resume
    log_stream = P.open_log(log_path, spec) if log_path else None
    key = spec.key()
    wanted = classes if only is None else len(only)
    bar = ProofBar(wanted, len(done) if only is None else len(done.keys() & set(only))) if is_terminal(sys.stderr) else None

    logged = [len(done)]

    def finished(result: "ClassResult") -> None:
        if log_stream is not None:
            log_stream.write(result.to_json(key, part))  # sealed: see search/logs.py
            logged[0] += 1
        if bar is not None:
            bar.update(result)

    try:
        if bar is not None:
            bar.start()
        proof = P.prove(spec, jobs=jobs, dask=dask, done=done, only=only, on_result=finished)
    except KeyboardInterrupt:
        if log_path:
            # Every class in the log is whole (flushed after each), so the same command with
            # --resume goes on where this one stopped: say it, ready to paste.
            typer.echo(
                f"{PROGRAM}: {logged[0]:,} of {wanted:,} classes are in {log_path}; go on with: {resume_command(sys.argv, log_path)}",
                err=True,
            )
        raise
    finally:
        if bar is not None:
            bar.stop()
        if log_stream is not None:
            log_stream.close()
    _print_proof(proof, json_output, dice_set.name if dice_set else None, part, classes)


def _print_proof(
    proof: "ProofResult", json_output: bool, dice: "str | None", part: "tuple[int, int] | None" = None, total: int = 0
) -> None:
    """A proof (a shard of one, of ``total`` classes, when ``part`` is given), as text or JSON."""
    if json_output:
        from boggle_dafsa.output.jsonable import proof_json, shard_json

        print_json(proof_json(proof, dice) if part is None else shard_json(proof, part, total))
    else:
        from boggle_dafsa.output.proof import proof_text, shard_text

        typer.echo(proof_text(proof, dice) if part is None else shard_text(proof, part, total))


def _check_parts(
    shard: "str | None",
    merge: bool,
    logs: "list[str]",
    *,
    log: "str | None",
    resume: "str | None",
    estimate: bool,
    dask: "str | None",
    jobs: int,
) -> None:
    """Refuse the options that do not go with --shard or --merge, in one line."""
    if logs and not merge:
        raise BoggleError(f"{logs[0]!r}: prove takes no argument but the logs of --merge (prove ... --merge LOG...)")
    if merge:
        if not logs:
            raise BoggleError("--merge takes the logs to merge: prove ... --merge LOG...")
        given = [name for name, value in (("--shard", shard), ("--log", log), ("--resume", resume), ("--dask", dask)) if value]
        given += ["--estimate"] if estimate else []
        given += ["--jobs"] if jobs != 1 else []
        if given:
            raise BoggleError(f"--merge proves nothing: it does not go with {', '.join(given)}")
    if shard is not None:
        if estimate:
            raise BoggleError("--shard and --estimate exclude each other (the estimate samples the whole proof)")
        if not (log or resume):
            raise BoggleError("--shard needs --log FILE or --resume FILE: --merge makes the proof of the shards' logs")


def _merged(spec: "ProofSpec", logs: "list[str]", json_output: bool, dice: "str | None") -> None:
    """The proof made of the shards' logs, printed as a single run prints it."""
    from boggle_dafsa.search.shards import IncompleteProof
    from boggle_dafsa.search.shards import merge as merge_logs

    try:
        proof = merge_logs(spec, logs)
    except IncompleteProof as error:
        how = "run their shards again with --shard I/N --resume LOG" if error.shards else "prove them with --resume LOG"
        raise IncompleteProof(f"{error}: {how}, then merge again", error.missing, error.shards) from None
    _print_proof(proof, json_output, dice)


def resume_command(argv: "list[str]", log_path: str) -> str:
    """The command line ``argv`` ran, with its ``--log`` turned into ``--resume`` (quoted for a shell)."""
    import shlex

    words = ["boggle-dafsa", *argv[1:]]
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("--log", "--resume"):
            skip = True
            continue
        if word.startswith(("--log=", "--resume=")):
            continue
        out.append(word)
    return shlex.join([*out, "--resume", log_path])
