"""``boggle-dafsa search``: Zyzzyva's word-study conditions combined (a thin layer over
:func:`boggle_dafsa.query.search`), and ``boggle-dafsa quiz``, the cardbox quiz over the
words a search finds (a thin layer over :mod:`boggle_dafsa.study`; the same condition
flags, declared once). A module of its own: its many options are built only when it runs."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import PROGRAM, load_dictionary
from boggle_dafsa.cli.common import lexicon as lexicon_of
from boggle_dafsa.cli.options import CountOption, DictOption, JsonOption, LimitOption
from boggle_dafsa.cli.terminal import is_terminal
from boggle_dafsa.errors import BoggleError


def _text(help: str, *names: str) -> Any:
    return typer.Option(*names, help=help, show_default=False)


Text = Optional[str]


# The conditions, declared once: `search` and `quiz` take the same flags.
PatternOpt = Annotated[Text, _text("Match a pattern (as `match`: ?, *, [ABC], @, #).", "--pattern")]
RegexOpt = Annotated[Text, _text("Match a regular expression whole (as `grep`).", "--regex")]
AnagramOpt = Annotated[Text, _text("Anagrams of these letters (? a blank).", "--anagram")]
SubanagramOpt = Annotated[Text, _text("Words made of some of these letters (? a blank).", "--subanagram")]
LengthOpt = Annotated[Text, _text("Letters: MIN-MAX, MIN-, -MAX or N.", "--length")]
IncludesOpt = Annotated[Text, _text("Holds these letters (AAB: two A's and a B at least).", "--includes")]
ExcludesOpt = Annotated[Text, _text("Holds none of these letters (SS: fewer than two S's).", "--excludes")]
VowelsOpt = Annotated[Text, _text("Vowels (AEIOUY): MIN-MAX.", "--vowels")]
DistinctOpt = Annotated[Text, _text("Distinct letters: MIN-MAX.", "--distinct")]
PointsOpt = Annotated[Text, _text("Scrabble points (--tiles): MIN-MAX.", "--points")]
TakesPrefixOpt = Annotated[Text, _text("PREFIX+word is a word.", "--takes-prefix")]
TakesSuffixOpt = Annotated[Text, _text("word+SUFFIX is a word.", "--takes-suffix")]
NotTakesPrefixOpt = Annotated[Text, _text("PREFIX+word is not a word.", "--not-takes-prefix")]
NotTakesSuffixOpt = Annotated[Text, _text("word+SUFFIX is not a word.", "--not-takes-suffix")]
HooksOpt = Annotated[
    Text, _text("Has a front hook, a back hook, or an inner one (without its first or last letter, a word).", "--hooks")
]
AnagramsOpt = Annotated[Text, _text("Words with these letters, itself included: MIN-MAX.", "--anagrams")]
ProbabilityOpt = Annotated[Text, _text("Probability rank within its length (1: most probable): MIN-MAX.", "--probability")]
InOpt = Annotated[Text, _text("A word of this dictionary too.", "--in")]
NotInOpt = Annotated[Text, _text("Not a word of this dictionary.", "--not-in")]
TilesOpt = Annotated[
    Text, _text("Tile bag for points and probability: en, fr, or a file (default: fr for -d fr, else en).", "--tiles")
]
BlanksOpt = Annotated[int, typer.Option("--probability-blanks", min=0, max=2, help="Blanks the probability counts (0, 1 or 2).")]


def search_conditions(values: dict[str, Any]) -> dict[str, Any]:
    """The conditions given among a command's parameters (``locals()``), with ``--in`` and
    ``--not-in`` opened: the keywords of :func:`boggle_dafsa.query.conditions.search_words`."""
    from boggle_dafsa.query.conditions import SEARCH_CONDITIONS

    conditions = {name: values[name] for name in SEARCH_CONDITIONS if values.get(name) is not None}
    if values.get("in_") is not None:
        conditions["in_"] = load_dictionary(values["in_"], announce=False)
    if values.get("not_in") is not None:
        conditions["not_in"] = load_dictionary(values["not_in"], announce=False)
    return conditions


@app.command()
def search(
    dictionary: DictOption = None,
    pattern: PatternOpt = None,
    regex: RegexOpt = None,
    anagram: AnagramOpt = None,
    subanagram: SubanagramOpt = None,
    length: LengthOpt = None,
    includes: IncludesOpt = None,
    excludes: ExcludesOpt = None,
    vowels: VowelsOpt = None,
    distinct: DistinctOpt = None,
    points: PointsOpt = None,
    takes_prefix: TakesPrefixOpt = None,
    takes_suffix: TakesSuffixOpt = None,
    not_takes_prefix: NotTakesPrefixOpt = None,
    not_takes_suffix: NotTakesSuffixOpt = None,
    hooks: HooksOpt = None,
    anagrams: AnagramsOpt = None,
    probability: ProbabilityOpt = None,
    in_: InOpt = None,
    not_in: NotInOpt = None,
    tiles: TilesOpt = None,
    probability_blanks: BlanksOpt = 2,
    sort: Annotated[
        Text,
        _text(
            "Order: alpha (default), length, points (highest first), probability, expected (Boggle points per game of its anagram group, highest first).",
            "--sort",
        ),
    ] = None,
    columns: Annotated[
        Text, _text("Columns before each word: hooks, probability, anagrams, points, expected (comma-separated).", "--columns")
    ] = None,
    limit: LimitOption = None,
    count: CountOption = False,
    as_json: JsonOption = False,
) -> None:
    """Print the words meeting every condition given, in byte order (or --sort)."""
    from boggle_dafsa.output.columns import WordColumns, parse_columns
    from boggle_dafsa.query.conditions import search_words

    values = dict(locals())
    names = parse_columns(columns)
    d = load_dictionary(dictionary)
    conditions = search_conditions(values)
    table = lexicon_of(dictionary) if sort == "expected" or "expected" in names else None
    words = search_words(
        d,
        None,
        limit,
        tiles=tiles,
        probability_blanks=probability_blanks,
        sort=sort,
        expected=table,
        **conditions,
    )
    shown = WordColumns(d, names, tiles, probability_blanks, expected=table) if names else None
    _emit(words, as_json, count, shown)


def _emit(words: Iterable[str], as_json: bool, count: bool, shown: Any = None) -> None:
    # Lines, a count, or {"words": [...]} written a word at a time: the words stream.
    found = 0
    out = sys.stdout
    if count:
        found = sum(1 for _ in words)
        out.write(str(found) + "\n")
    elif as_json:
        from boggle_dafsa.output.jsonable import dumps

        for word in words:
            item = shown.fields(word) if shown else {"word": word}
            out.write(('{\n  "words": [\n    ' if not found else ",\n    ") + dumps(item))
            found += 1
        out.write("\n  ]\n}\n" if found else '{\n  "words": []\n}\n')
    else:
        line = shown.line if shown else str
        for word in words:
            out.write(line(word) + "\n")
            found += 1
    out.flush()
    if not found:
        raise typer.Exit(1)


@app.command()
def quiz(
    dictionary: DictOption = None,
    pattern: PatternOpt = None,
    regex: RegexOpt = None,
    anagram: AnagramOpt = None,
    subanagram: SubanagramOpt = None,
    length: LengthOpt = None,
    includes: IncludesOpt = None,
    excludes: ExcludesOpt = None,
    vowels: VowelsOpt = None,
    distinct: DistinctOpt = None,
    points: PointsOpt = None,
    takes_prefix: TakesPrefixOpt = None,
    takes_suffix: TakesSuffixOpt = None,
    not_takes_prefix: NotTakesPrefixOpt = None,
    not_takes_suffix: NotTakesSuffixOpt = None,
    hooks: HooksOpt = None,
    anagrams: AnagramsOpt = None,
    probability: ProbabilityOpt = None,
    in_: InOpt = None,
    not_in: NotInOpt = None,
    tiles: TilesOpt = None,
    probability_blanks: BlanksOpt = 2,
    word_list: Annotated[
        Optional[Path],
        typer.Option(
            "--list",
            help="Add the anagram groups of the words of this file (one a line, as `search` prints them).",
            show_default=False,
        ),
    ] = None,
    stats: Annotated[
        bool, typer.Option("--stats", help="Show the cardbox: cards per box, due today, answered today and ever.")
    ] = False,
    questions: Annotated[
        Optional[int], typer.Option("--questions", min=1, help="Ask at most N questions.", show_default=False)
    ] = None,
    schedule: Annotated[
        str,
        typer.Option(
            "--schedule",
            help="cardbox: Zyzzyva's boxes (1, 4, 7 ... 480 days); fsrs: FSRS-5's memory model (default parameters, 90% retention).",
        ),
    ] = "cardbox",
    order: Annotated[
        str,
        typer.Option(
            "--order",
            help="due: the longest overdue first; expected: the highest expected Boggle points per game first (fr, enable2k).",
        ),
    ] = "due",
    today: Annotated[
        Text, _text("The day taken as today, YYYY-MM-DD (for tests and scripting; default: today's local date).", "--today")
    ] = None,
    data: Annotated[
        Optional[Path],
        typer.Option(
            "--data",
            help="The history's folder (default: $XDG_DATA_HOME/boggle-dafsa, else ~/.local/share/boggle-dafsa).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Study anagram groups in a cardbox (Zyzzyva's schedule): the questions due today.

    The conditions of `search` (or --list FILE) add the anagram groups of the words they
    find to the dictionary's cardbox, and the session asks those that are due; without
    them it asks every card due. A question is an alphagram ("AEINRST: 9 words"): type the
    words it spells, one a line or several on a line; an empty line ends the question. Right
    (every word, none wrong): the card moves up a box; wrong: back to box 0. With
    --schedule fsrs the due dates are FSRS-5's (right is Good, wrong is Again). Each answer
    is kept at once; Ctrl-C ends the session (exit 130), the end of input too.
    """
    from boggle_dafsa.output import study as texts
    from boggle_dafsa.query.conditions import SEARCH_CONDITIONS
    from boggle_dafsa.study.expected import table_of
    from boggle_dafsa.study.history import History
    from boggle_dafsa.study.session import ORDERS, alphagrams, answers_of, keeper, ordered, run_quiz, scheduler

    values = dict(locals())
    day = _day(today)
    conditions_given = [name for name in (*SEARCH_CONDITIONS, "in_", "not_in") if values.get(name) is not None]
    if stats:
        if conditions_given or word_list is not None or questions is not None:
            raise BoggleError("--stats shows the cardbox: not with conditions, --list or --questions")
        lexicon = lexicon_of(dictionary)
        with History(data, write=False) as history:
            _print_stats(lexicon, history.stats(lexicon, day), day)
        return
    if order not in ORDERS:
        raise BoggleError(f"--order {order!r}: {', '.join(ORDERS)}")
    schedule_chosen = scheduler(schedule)
    d = load_dictionary(dictionary)
    lexicon = lexicon_of(dictionary)
    table = table_of(lexicon) if order == "expected" else None  # before any card is added
    with History(data) as history:
        among = None
        if conditions_given or word_list is not None:
            words = _quiz_words(d, values, word_list, tiles, probability_blanks)
            if not words:
                print(f"{PROGRAM}: no words to quiz", file=sys.stderr)
                raise typer.Exit(1)
            among = alphagrams(words)
            added = history.add(lexicon, among, day)
            print(texts.groups_added(len(among), added))
        cards = ordered(history.due(lexicon, day, among), order, table)
        waiting = len(cards)
        if questions is not None:
            cards = cards[:questions]
        if not cards:
            nxt = history.stats(lexicon, day).next_due
            print(texts.nothing_due(day, nxt))
            return
        print(texts.questions_due(waiting, len(cards), day))
        interactive = is_terminal(sys.stdin)
        summary = run_quiz(
            cards,
            answers=lambda question: answers_of(d, question),
            normalize=lambda word: d.normalize(word),
            record=keeper(history, lexicon, schedule_chosen, day),
            stdin=sys.stdin,
            out=sys.stdout,
            interactive=interactive,
        )
        if summary.interrupted:
            done = texts.answered(summary.asked, summary.right)
            print(f"{PROGRAM}: quiz interrupted ({done}; kept in {history.path})", file=sys.stderr)
            raise typer.Exit(130)
        print(texts.quiz_done(summary.asked, summary.right, len(history.due(lexicon, day, among))))


def _day(text: str | None) -> Any:
    if text is None:
        return date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise BoggleError(f"--today {text!r}: a date as YYYY-MM-DD") from None


def _quiz_words(d: Any, values: dict[str, Any], word_list: Path | None, tiles: str | None, blanks: int) -> list[str]:
    from boggle_dafsa.query.conditions import search_words

    words: list[str] = []
    if word_list is not None:
        from boggle_dafsa.words.wordlist import read_wordlist

        listed = read_wordlist(word_list).words
        words = [word for word in listed if word in d]
        if len(words) < len(listed):
            left = len(listed) - len(words)
            print(
                f"{PROGRAM}: {word_list}: {left:,} word{'s' if left != 1 else ''} not in the dictionary, left out",
                file=sys.stderr,
            )
    conditions = search_conditions(values)
    if conditions:
        found = search_words(d, None, None, tiles=tiles, probability_blanks=blanks, **conditions)
        if word_list is not None:
            keep = set(found)
            words = [word for word in words if word in keep]
        else:
            words = list(found)
    return words


def _print_stats(lexicon: str, stats: Any, day: Any) -> None:
    from boggle_dafsa.output.study import cardbox_stats

    print("\n".join(cardbox_stats(lexicon, stats, day)))
