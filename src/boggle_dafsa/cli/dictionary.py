"""Commands about dictionaries: build, dump, verify, inspect, lookup, complete, dot."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import (
    PROGRAM,
    check_stray_dictionaries,
    emit_results,
    fail,
    load_dictionary,
    print_json,
    user_message,
)
from boggle_dafsa.cli.options import (
    CountOption,
    DictArgument,
    DictOption,
    EncodingOption,
    JsonOption,
    LimitOption,
    QuietOption,
    pick_dictionary,
)
from boggle_dafsa.cli.terminal import is_terminal
from boggle_dafsa.formats.registry import DEFAULT, REGISTRY, spoken
from boggle_dafsa.words.normalize import Policy

if TYPE_CHECKING:
    from boggle_dafsa.dictionaries.build import BuildProgress, BuildReport

#: build --format's help: every format of the registry and what it is, the default first.
FORMAT_HELP = (
    "File format: "
    + spoken(f"{record.name} ({record.description}{', the default' if record is DEFAULT else ''})" for record in REGISTRY)
    + "."
)


def _build_status(update: Callable[..., None]) -> Callable[[BuildProgress], None]:
    """The library's build reports drawn on the progress bar ``update``: the phase, the share
    of the list read while reading (else the words so far), and the counts after the bar."""

    phase, started, seen = "", 0.0, 0.0

    def report(progress: BuildProgress) -> None:
        nonlocal phase, started, seen
        if progress.phase != phase:
            # Throughput is per phase (merging counts its words anew), from the last report.
            phase, started = progress.phase, seen
        seen = progress.seconds
        parts = [f"{progress.words:,} words"]
        if progress.runs:
            parts.append(f"{progress.runs} sorted run{'s' if progress.runs > 1 else ''} spilled")
        if progress.states:
            parts.append(f"{progress.states:,} states")
        if progress.phase != "writing" and progress.seconds > started:
            parts.append(f"{progress.words / (progress.seconds - started) / 1000:,.0f}k words/s")
        if progress.phase == "reading" and progress.file_bytes:
            done, total = progress.bytes_read, progress.file_bytes
        else:
            done, total = progress.words, None
        update(done, total, description=progress.phase, status=" · ".join(parts))

    return report


@app.command()
def build(
    wordlist: Annotated[
        Path,
        typer.Argument(
            help="Word list: one word a line, or separated by ; or , (UTF-8 or ISO-8859-15, UTF-16/32 with a BOM); - for standard input."
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the dictionary.")] = Path(
        "build/dictionary.dafsa"
    ),
    format: Annotated[str, typer.Option("--format", "-f", help=FORMAT_HELP)] = DEFAULT.name,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact", help="Store words exactly as given (case and accents kept) instead of folding them (--policy exact)."
        ),
    ] = False,
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            help="fold (default: upper case, accents removed, letters only), exact (case and accents kept, letters only) or raw (any key: each line kept byte for byte, nothing split or dropped but empty lines; UTF-8 only, never re-decoded).",
        ),
    ] = None,
    format_version: Annotated[
        int | None,
        typer.Option(
            "--format-version",
            help="Native format version: 2 (default: compact edges) or 1 (one cell per state and transition, as before).",
        ),
    ] = None,
    index: Annotated[
        bool,
        typer.Option(
            "--index/--no-index",
            help="Native files: store the word numbers (what lookup --index, dump --index and d.index() read; about a quarter more bytes in version 2). Without, they are computed on first use.",
        ),
    ] = True,
    values: Annotated[
        str | None,
        typer.Option(
            "--values",
            help="int or text: the list is WORD<TAB>VALUE lines, and the file holds each word's value (d[word], lookup --values, dump --values). Native files.",
        ),
    ] = None,
    values_merge: Annotated[
        str | None,
        typer.Option(
            "--values-merge",
            help="What a word given twice with two values keeps: first or last (the earliest or latest line's), sum or max (int values). Without, two values for a word are refused.",
        ),
    ] = None,
    encoding: EncodingOption = None,
    sorted_input: Annotated[
        bool,
        typer.Option(
            "--sorted",
            help="The list is sorted already (after normalization): skip the sort, stop at the first word out of order.",
        ),
    ] = False,
    quiet: QuietOption = False,
) -> None:
    """Compile WORDLIST into a minimal automaton file (default build/dictionary.dafsa).

    Lists of any size are sorted in bounded memory (runs spilled to the temporary folder,
    $TMPDIR, and merged); --sorted skips that for a list already in order.
    """
    from boggle_dafsa.dictionaries.build import build_dictionary

    # A termination request unwinds like Ctrl-C, so that temporary files are removed.
    signal.signal(signal.SIGTERM, _exit_on_signal)

    from boggle_dafsa.cli.progress import progress_bar

    if policy is not None and policy not in {p.value for p in Policy}:
        fail(f"unknown policy {policy!r} (known: {', '.join(p.value for p in Policy)})")
    if policy is not None and exact and policy != Policy.EXACT.value:
        fail(f"--exact and --policy {policy} disagree: give one of them")
    chosen = Policy(policy) if policy is not None else Policy.EXACT if exact else Policy.FOLD
    source, data = _source_or_stdin(wordlist)
    with progress_bar("reading") if not quiet else nullcontext(None) as update:
        report = build_dictionary(
            source,
            output,
            data=data,
            policy=chosen,
            encoding=encoding,
            format=format,
            progress=_build_status(update) if update is not None else None,
            assume_sorted=sorted_input,
            format_version=format_version,
            index=index,
            values=values,
            values_merge=values_merge,
        )
    if not quiet:
        typer.echo(_summary(report))


def _source_or_stdin(path: Path) -> tuple[str | Path, bytes | None]:
    """``path``, or for ``-`` the bytes of standard input (named "standard input" in messages)."""
    if str(path) != "-":
        return path, None
    if is_terminal(sys.stdin):
        print("reading the word list from standard input (end with Ctrl-D)", file=sys.stderr)
    return "standard input", sys.stdin.buffer.read()


def _exit_on_signal(number: int, frame: object) -> None:
    raise SystemExit(128 + number)


def _summary(report: BuildReport) -> str:
    dropped = sum(report.dropped.values())
    reasons = ", ".join(f"{reason} {count:,}" for reason, count in report.dropped.most_common())
    lines = [
        f"wrote {report.output} ({report.format}, policy {report.policy.value})",
        f"  words read    {report.items:,} ({report.encoding})",
        f"  words kept    {report.words:,}",
        f"  duplicates    {report.duplicates:,}",
        f"  dropped       {dropped:,}" + (f" ({reasons})" if reasons else ""),
    ]
    if report.values is not None:
        merged = f", a word given twice keeps the {report.values_merge}" if report.values_merge in ("first", "last") else ""
        merged = merged or (f", a word given twice keeps the {report.values_merge} of its values" if report.values_merge else "")
        lines.append(f"  values        {report.values}{merged}")
    if report.states is not None:
        lines.append(f"  states        {report.states:,}")
        lines.append(f"  transitions   {report.transitions:,}")
    lines.append(f"  file bytes    {report.file_bytes:,} ({report.bytes_per_word:.2f} bytes/word)")
    lines.append(f"  time          {report.seconds:.2f} s")
    if report.hint:
        lines.append(f"  note          {user_message(report.hint)}")
    return "\n".join(lines)


IndexFlag = Annotated[
    bool,
    typer.Option("--index", help="Print each word's number (its rank in the file's order, from 0) before it, and a tab."),
]


ValuesFlag = Annotated[
    bool,
    typer.Option("--values", help="Print each word's value after it and a tab (a dictionary built with --values)."),
]


def _numbered(d: object) -> None:
    """Refuse --index in one line for a dictionary without word numbers (marisa, dawg)."""
    if not callable(getattr(d, "index", None)) or not callable(getattr(d, "word", None)):
        fail(f"--index: {getattr(d, 'format_name', 'this')} dictionaries have no word numbers: build a native one")


def _valued(d: object) -> None:
    """Refuse --values in one line for a dictionary that holds no values."""
    if not getattr(d, "has_values", False):
        fail(f"--values: {getattr(d, 'path', 'the dictionary')} holds no values, only words (build it with --values int|text)")


@app.command()
def dump(file: DictArgument = None, dictionary: DictOption = None, index: IndexFlag = False, values: ValuesFlag = False) -> None:
    """Print every word, one a line, in byte order (of FILE or -d, else the default dictionary);
    with --index, NUMBER<TAB>WORD (the numbers count from 0, in this order); with --values,
    WORD<TAB>VALUE (NUMBER<TAB>WORD<TAB>VALUE with both)."""
    d = load_dictionary(pick_dictionary(file, dictionary))
    if index:
        _numbered(d)
    if values:
        _valued(d)
    out = sys.stdout.buffer
    batch: list[str] = []
    if index or values:
        from boggle_dafsa.output.queries import dump_rows

        pairs = d.items() if values else ((word, None) for word in d)  # type: ignore[attr-defined]
        rows: Iterable[str] = dump_rows(pairs, index=index, values=values)
    else:
        rows = d
    for row in rows:
        batch.append(row)
        if len(batch) == 4096:
            out.write(("\n".join(batch) + "\n").encode("utf-8"))
            batch.clear()
    if batch:
        out.write(("\n".join(batch) + "\n").encode("utf-8"))
    out.flush()


@app.command()
def verify(
    wordlist: Annotated[Path, typer.Argument(help="The word list the dictionary should hold; - for standard input.")],
    file: DictArgument = None,
    dictionary: DictOption = None,
    encoding: EncodingOption = None,
) -> None:
    """Check that the dictionary (FILE or -d) holds exactly the normalized words of WORDLIST and is intact.

    Exit 0 if so, 1 with the first differences otherwise, 2 if it is damaged.
    """
    from boggle_dafsa.cli.progress import progress_bar
    from boggle_dafsa.dictionaries.verify import verify as verify_dictionary
    from boggle_dafsa.words.wordlist import read_wordlist

    d = load_dictionary(pick_dictionary(file, dictionary))
    source, data = _source_or_stdin(wordlist)
    listed = read_wordlist(source, policy=d.policy, encoding=encoding, data=data)
    if listed.hint:
        # As build says it: the differences below may come from the guessed encoding.
        print(f"{PROGRAM}: note: {user_message(listed.hint)}", file=sys.stderr)
    with progress_bar("verifying") as progress:
        result = verify_dictionary(d, listed, progress=progress)
    from boggle_dafsa.output.queries import verify_lines

    for line in verify_lines(result, len(d)):
        typer.echo(line)
    if not result.ok:
        raise typer.Exit(1)


@app.command()
def inspect(
    file: DictArgument = None,
    dictionary: DictOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a dictionary's format, policy, alphabet, counts, sizes and digests, and how it was chosen."""
    from boggle_dafsa.dictionaries.resolve import resolve_spec
    from boggle_dafsa.solver.kernels import kernel_for

    spec = pick_dictionary(file, dictionary)
    chosen, implicit = resolve_spec(spec)
    opened = load_dictionary(spec, announce=False)
    how = f"{chosen} (no -d given: {_why_default(chosen)})" if implicit else chosen
    info = {"dictionary": how, **opened.info(), "solver_kernel": kernel_for(opened)}
    if as_json:
        print_json(info)
        return
    from boggle_dafsa.output.queries import inspect_lines

    for line in inspect_lines(info):
        typer.echo(line)


def _why_default(chosen: str) -> str:
    from boggle_dafsa.dictionaries.resolve import DEFAULT_BUILD, ENV_VARIABLE

    if chosen == str(DEFAULT_BUILD):
        return f"{DEFAULT_BUILD} exists in this folder"

    return f"${ENV_VARIABLE}" if os.environ.get(ENV_VARIABLE) else "the default"


@app.command()
def lookup(
    words: Annotated[
        list[str],
        typer.Argument(help="Words to look up (normalized like the dictionary); - reads them from standard input, one a line."),
    ],
    dictionary: DictOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing: only the exit status.")] = False,
    index: Annotated[
        bool,
        typer.Option(
            "--index",
            help="Print each word's number (its rank in the file's order, from 0) instead of yes; no for a word absent.",
        ),
    ] = False,
    values: Annotated[
        bool,
        typer.Option(
            "--values", help="Print each word's value instead of yes (after its number with --index); no for a word absent."
        ),
    ] = False,
) -> None:
    """Say whether each WORD is in the dictionary. Exit 0 if all are, 1 otherwise."""
    check_stray_dictionaries(words, "lookup")
    d = load_dictionary(dictionary)
    if index:
        _numbered(d)
    if values:
        _valued(d)
    if words == ["-"]:
        from boggle_dafsa.words.wordlist import decode, split_items

        text, _ = decode(sys.stdin.buffer.read(), "standard input")
        words = list(split_items(text))
    from boggle_dafsa.output.queries import lookup_line

    all_found = True
    for raw in words:
        key = d.normalize(raw)
        found = key is not None and key in d
        all_found &= found
        if not quiet:
            number = d.index(key) if found and index else None  # type: ignore[attr-defined]
            value = d[key] if found and values else None  # type: ignore[index]
            typer.echo(lookup_line(key or raw, found, number, value, valued=values))
    if not all_found:
        raise typer.Exit(1)


@app.command()
def complete(
    prefix: Annotated[str, typer.Argument(help="The beginning of the words.")],
    dictionary: DictOption = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
) -> None:
    """Print the words that start with PREFIX, in byte order."""
    from boggle_dafsa.query import complete as run

    check_stray_dictionaries([prefix], "complete")
    d = load_dictionary(dictionary)
    # Exit 0 when none start so: a completion that finds nothing is no error.
    emit_results(run(d, prefix, limit), str, as_json, count, none_fails=False)


@app.command()
def dot(
    file: DictArgument = None,
    dictionary: DictOption = None,
    max_states: Annotated[int, typer.Option("--max-states", help="Refuse larger automata.")] = 2000,
) -> None:
    """Print the automaton as Graphviz DOT (`| dot -Tpng > a.png`), for small dictionaries."""
    from boggle_dafsa.automaton.dot import to_dot

    for line in to_dot(load_dictionary(pick_dictionary(file, dictionary)), max_states):  # type: ignore[arg-type]
        typer.echo(line)
