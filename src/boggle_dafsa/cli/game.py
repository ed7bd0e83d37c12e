"""Commands about playing: dice, generate, play, score."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from boggle_dafsa.cli.base import app
from boggle_dafsa.cli.common import (
    PROGRAM,
    dice_argument,
    load_dictionary,
    one_standard_input,
    print_json,
    read_grid,
    user_message,
)
from boggle_dafsa.cli.options import (
    BonusOption,
    DiceOption,
    EncodingOption,
    GameDictOption,
    JsonOption,
    MinLengthOption,
    RulesDiceOption,
    RulesDictOption,
    ScoringOption,
    SeedOption,
)
from boggle_dafsa.cli.terminal import is_terminal
from boggle_dafsa.errors import BoggleError


@app.command()
def dice(
    name: Annotated[
        Optional[str], typer.Argument(help="A set name or a dice file ('-': standard input): show its dice.", show_default=False)
    ] = None,
    json_output: JsonOption = False,
) -> None:
    """List the dice sets, or show the dice of one."""
    from boggle_dafsa.board.dice import builtin_sets, load_dice
    from boggle_dafsa.output.jsonable import dice_set_json
    from boggle_dafsa.output.render import render_dice_set, render_dice_sets

    sets = [load_dice(dice_argument(name))] if name else builtin_sets()
    if json_output:
        print_json([dice_set_json(s) for s in sets])
    else:
        typer.echo(render_dice_set(sets[0]) if name else render_dice_sets(sets))


@app.command()
def generate(
    dice_name: DiceOption = "fr",
    seed: SeedOption = None,
    count: Annotated[int, typer.Option("--count", "-n", help="How many grids.")] = 1,
    min_words: Annotated[int, typer.Option("--min-words", help="Roll again until the grid holds this many words.")] = 0,
    min_score: Annotated[int, typer.Option("--min-score", help="Roll again until the grid is worth this many points.")] = 0,
    max_attempts: Annotated[int, typer.Option("--max-attempts", help="Give up after this many rolls for one grid.")] = 1000,
    dictionary: GameDictOption = None,
) -> None:
    """Roll random grids, one a line, in the syntax `solve` reads (the seed goes to stderr if not given)."""
    from boggle_dafsa.board.dice import GridQuality, generate_grids, load_dice, random_seed
    from boggle_dafsa.dictionaries.resolve import dictionary_spec_for

    dice_set = load_dice(dice_argument(dice_name))
    quality = None
    if min_words or min_score:
        words = load_dictionary(dictionary_spec_for(dictionary, dice_set.language))
        quality = GridQuality(words, dice_set.scoring, min_words, min_score)
    chosen_seed = random_seed() if seed is None else seed
    grids = generate_grids(dice_set, chosen_seed, count, quality=quality, max_attempts=max_attempts)
    if seed is None:
        typer.echo(f"seed: {chosen_seed}", err=True)
    for grid in grids:
        typer.echo(str(grid))


@app.command()
def play(
    dice_name: DiceOption = "fr",
    seconds: Annotated[float, typer.Option("--time", "-t", help="Seconds to play; 0 for no limit.")] = 180,
    seed: SeedOption = None,
    dictionary: GameDictOption = None,
    json_output: JsonOption = False,
    daily: Annotated[
        bool,
        typer.Option(
            "--daily",
            help="Play today's puzzle (UTC): the grid everybody gets today with this dice set; ends with a result to share.",
        ),
    ] = False,
    clean: Annotated[
        bool,
        typer.Option(
            "--clean/--no-clean",
            help="Leave the family-friendly blocklist out of the grid's words: never shown nor scored (default: on).",
        ),
    ] = True,
    bonus: BonusOption = None,
    missed_file: Annotated[
        Optional[str],
        typer.Option(
            "--missed",
            help="At the end, write the words you missed to this file, one a line, longest first: "
            "`boggle-dafsa quiz --list FILE` studies them.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Play a grid at the console: type words one a line; an empty line ends the game.

    --daily: today's grid for the dice set, the same as /daily on any server (see docs/game.md).

    --bonus FULL: the words of FULL that the game's dictionary lacks are bonus words, answered and listed apart, never scored.

    With --json, the final report is JSON on standard output and the game itself goes to standard error.

    The grid is the first one `generate --seed N` gives. The dictionary is -d, else $BOGGLE_DAFSA_DICT, else the one that suits the dice set (fr or en).

    Standard input may be a pipe (one word a line), so games can be scripted.
    """
    from boggle_dafsa.board.dice import load_dice, random_seed
    from boggle_dafsa.dictionaries.resolve import dictionary_spec_for
    from boggle_dafsa.game.console import run_console
    from boggle_dafsa.game.rounds import Game, check_seconds
    from boggle_dafsa.output.jsonable import report_json
    from boggle_dafsa.output.render import render_grid, render_report

    check_seconds(seconds)
    if missed_file is not None:
        from boggle_dafsa.files.limits import refuse_overwriting

        refuse_overwriting(missed_file, [path for path in (dictionary, bonus, dice_name) if path], BoggleError)
    if dice_name == "-":
        raise BoggleError("--dice -: play reads the player's words from standard input: give the dice as a file")
    dice_set = load_dice(dice_name)
    day = None
    if daily:
        from boggle_dafsa.board.dice import BUILTIN_SETS
        from boggle_dafsa.game.daily import daily_seed, today

        if seed is not None:
            raise BoggleError("--daily plays today's grid: not with --seed")
        if dice_name not in BUILTIN_SETS:
            raise BoggleError(f"--daily plays a dice set of the package ({', '.join(BUILTIN_SETS)}), not {dice_name!r}")
        day = today()
        seed = daily_seed(day, dice_name)
    spec = dictionary_spec_for(dictionary, dice_set.language)
    words = load_dictionary(spec)
    chosen_seed = random_seed() if seed is None else seed
    blocked: frozenset[str] = frozenset()
    if clean:
        from boggle_dafsa.dictionaries.resolve import embedded_name, resolve_spec
        from boggle_dafsa.game.clean import blocked_words

        blocked = blocked_words(embedded_name(resolve_spec(spec)[0]), dice_set.language)
    full = None
    if bonus is not None:
        from boggle_dafsa.game.bonus import check_bonus_policy

        full = load_dictionary(bonus)
        check_bonus_policy(words, full)
    game = Game.from_dice(
        dice_set,
        chosen_seed,
        words,
        dice=dice_name,
        dictionary_spec=dictionary,
        blocked=blocked,
        bonus=full,
        bonus_spec=bonus,
    )
    screen = sys.stderr if json_output else sys.stdout
    title = f"{dice_set.title}, seed {game.seed}, words of {dice_set.min_length} letters or more"
    if bonus is not None:
        title += f", bonus words of {bonus}"
    if day is not None:
        title = f"Daily puzzle of {day.isoformat()} (UTC): {title}"
    from boggle_dafsa.game.terminal import can_run_live

    if can_run_live(sys.stdin, screen):
        # A terminal at both ends: the screen redrawn in place (game/terminal.py, prompt_toolkit).
        from boggle_dafsa.game.terminal import run_live

        ended = run_live(game, seconds=seconds, title=title, output=screen)
    else:
        print(title, file=screen)
        print(render_grid(game.grid), file=screen)
        ended = run_console(game, seconds=seconds, stdin=sys.stdin, out=screen, interactive=is_terminal(sys.stdin))
    report = game.report(ended, seconds=seconds)
    study_hint = None
    if missed_file is not None:
        from boggle_dafsa.files.atomic import write_atomically
        from boggle_dafsa.game.review import review

        write_atomically(missed_file, "".join(f"{word}\n" for word in review(report).study).encode())
        quiz = ["boggle-dafsa", "quiz", *(["-d", spec] if spec else []), "--list", missed_file]
        import shlex

        study_hint = f"The words you missed are in {missed_file}: study them with {shlex.join(quiz)}"
    share = None
    if day is not None:
        from boggle_dafsa.game.daily import share_text

        share = share_text(
            day, dice_name, report.score, [hit.word for hit in report.found], report.total_words, report.total_points
        )
    if json_output:
        data = report_json(report)
        if share is not None and day is not None:
            data["daily"] = {"date": day.isoformat(), "share": share}
        print_json(data)
    else:
        typer.echo(render_report(report))
        if study_hint is not None:
            typer.echo(study_hint)
        if share is not None:
            from boggle_dafsa.output.render import share_block

            typer.echo(share_block(share))


@app.command()
def score(
    grid: Annotated[str, typer.Argument(help="The grid, in the syntax `solve` reads ('-': standard input).")],
    player_files: Annotated[
        list[str],
        typer.Argument(help="One file of words per player, named after the player ('-': standard input, player 'stdin')."),
    ],
    dictionary: RulesDictOption = None,
    dice_name: RulesDiceOption = None,
    scoring: ScoringOption = None,
    min_length: MinLengthOption = None,
    json_output: JsonOption = False,
    encoding: EncodingOption = None,
) -> None:
    """Score several players on one grid: a word found by two players or more scores 0 for everyone."""
    from boggle_dafsa.dictionaries.resolve import dictionary_spec_for
    from boggle_dafsa.game.rounds import Judge, player_names, read_player_file, score_players
    from boggle_dafsa.output.jsonable import score_sheet_json
    from boggle_dafsa.output.render import render_score_sheet
    from boggle_dafsa.solver.batch import SolveOptions

    if player_files.count("-") > 1:
        raise BoggleError("'-' given for two player files: standard input can be read once")
    one_standard_input(**{"the grid": grid == "-", "a player file": "-" in player_files, "--dice": dice_name == "-"})
    options = SolveOptions.from_arguments(min_length, scoring, "king", None, False, dice_argument(dice_name))
    words = load_dictionary(dictionary_spec_for(dictionary, options.language))
    # The grid as `solve` reads it, standard input ('-') included.
    judge = Judge(read_grid(grid, words, options), words, options.scoring, options.min_length)
    lists: dict[str, list[str]] = {}
    for name, path in zip(player_names(player_files), player_files):
        lists[name], hint = read_player_file(sys.stdin.buffer if path == "-" else path, encoding)
        if hint:
            # As build and verify say it: refused words may come from the guessed encoding.
            print(f"{PROGRAM}: note: {user_message(hint)}", file=sys.stderr)
    sheet = score_players(judge, lists)
    if json_output:
        print_json(score_sheet_json(sheet))
    else:
        typer.echo(render_score_sheet(sheet))
