"""Best-board search: symmetries, moves, the hill climb against brute force, dice, determinism, logs, Dask."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa.board.dice import DiceSet, SplitMix64, load_dice
from boggle_dafsa.board.grid import Grid, neighbours
from boggle_dafsa.board.rules import OBJECTIVES
from boggle_dafsa.board.scoring import CLASSIC, LETTERS
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search import best as S
from boggle_dafsa.search.best import Board
from boggle_dafsa.solver import solve, totals
from helpers.dictionaries import dictionary_from_words

WORDS = ["cat", "act", "tac", "cats", "scat", "taco", "coat", "coats", "ascot", "stoa", "oats", "oast", "tacos"]


@pytest.fixture(scope="module")
def small_dict(tmp_path_factory: pytest.TempPathFactory) -> str:
    return dictionary_from_words(WORDS, tmp_path_factory.mktemp("search")).path


# -- symmetries ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "count"), [((4, 4), 8), ((3, 3), 8), ((3, 4), 4), ((1, 5), 2), ((3, 3, 3), 48), ((2, 3, 3), 16)]
)
def test_symmetries_are_the_grid_automorphisms(shape: tuple[int, ...], count: int) -> None:
    found = S.symmetries(shape)
    assert len(found) == count
    cells = math.prod(shape)
    assert found[0] == tuple(range(cells))
    for adjacency in ("king", "orthogonal"):
        table = neighbours(shape, adjacency)
        edges = {(a, b) for a in range(cells) for b in table[a]}
        for permutation in found:
            assert sorted(permutation) == list(range(cells))
            # A symmetry maps adjacent cells to adjacent cells.
            assert {(permutation[a], permutation[b]) for a, b in edges} == edges


square_boards = st.integers(2, 5).flatmap(
    lambda side: st.lists(st.sampled_from("ABCDEQ"), min_size=side * side, max_size=side * side).map(
        lambda faces: (side, tuple(faces))
    )
)


@given(square_boards)
@pytest.mark.slow
def test_the_eight_symmetries_of_a_square_board_share_one_key(sided: tuple[int, tuple[str, ...]]) -> None:
    side, board = sided
    grid = [board[row * side : (row + 1) * side] for row in range(side)]
    rotate = lambda g: [tuple(g[side - 1 - c][r] for c in range(side)) for r in range(side)]  # noqa: E731
    mirror = lambda g: [tuple(reversed(row)) for row in g]  # noqa: E731
    images = []
    current = grid
    for _ in range(4):
        images += [current, mirror(current)]
        current = rotate(current)
    canonical = S.Canonical((side, side), multi_letter=False)
    keys = {canonical.key(tuple(itertools.chain.from_iterable(image))) for image in images}
    assert len(keys) == 1
    key = keys.pop()
    # The key is the smallest image, and an image of the board.
    assert key == min("".join(itertools.chain.from_iterable(image)) for image in images)
    assert canonical.board(key) in {tuple(itertools.chain.from_iterable(image)) for image in images}


@given(st.lists(st.sampled_from(["A", "QU", "TH", "E"]), min_size=6, max_size=6))
def test_keys_of_multi_letter_faces_are_unambiguous(board: list[str]) -> None:
    canonical = S.Canonical((2, 3), multi_letter=True)
    key = canonical.key(tuple(board))
    assert canonical.board(key) in {tuple(board[i] for i in p) for p in S.symmetries((2, 3))}


# -- moves --------------------------------------------------------------------------------


@given(st.lists(st.sampled_from("ABC"), min_size=4, max_size=4))
def test_free_neighbours_are_every_board_one_edit_away(board: list[str]) -> None:
    space = S.FreeLetters("ABC", 4)
    found = list(space.neighbours(tuple(board)))
    assert len(found) == len(set(found))
    expected = set()
    for other in itertools.product("ABC", repeat=4):
        differ = [i for i in range(4) if other[i] != board[i]]
        swapped = len(differ) == 2 and other[differ[0]] == board[differ[1]] and other[differ[1]] == board[differ[0]]
        if len(differ) == 1 or swapped:
            expected.add(other)
    assert set(found) == expected


def _is_roll(dice_set: DiceSet, state: S.Roll) -> bool:
    dice = [die for die, _ in state]
    return sorted(dice) == list(range(len(dice_set.dice))) and all(0 <= face < len(dice_set.dice[die]) for die, face in state)


@given(st.integers(0, 2**64 - 1))
@settings(max_examples=30)
@pytest.mark.slow
def test_dice_moves_keep_a_roll_of_the_set(seed: int) -> None:
    dice_set = load_dice("fr")
    space = S.DiceBoards(dice_set)
    rng = SplitMix64(seed)
    state = space.random(rng)
    assert _is_roll(dice_set, state)
    for neighbour in space.neighbours(state):
        assert _is_roll(dice_set, neighbour)
        assert sum(a != b for a, b in zip(neighbour, state)) in (1, 2)
    for _ in range(20):
        state = space.random_move(state, rng)
        assert _is_roll(dice_set, state)
        assert S.rollable(dice_set, space.board(state))


@given(st.lists(st.sampled_from("ABCD"), min_size=3, max_size=3), st.data())
@settings(max_examples=80)
@pytest.mark.slow
def test_rollable_agrees_with_brute_force(board: list[str], data: st.DataObject) -> None:
    dice = tuple(tuple(data.draw(st.lists(st.sampled_from("ABCD"), min_size=2, max_size=2))) for _ in range(3))
    dice_set = DiceSet("t", "t", dice, (1, 3), CLASSIC, None, "test")
    brute = any(all(board[cell] in dice[die] for cell, die in enumerate(order)) for order in itertools.permutations(range(3)))
    assert S.rollable(dice_set, board) == brute


# -- the hill climb -----------------------------------------------------------------------


@given(
    words=st.lists(st.text(alphabet="ABC", min_size=2, max_size=4), min_size=1, max_size=8),
    objective=st.sampled_from(["points", "words"]),
    seed=st.integers(0, 1000),
)
@settings(max_examples=12)
def test_a_pool_as_large_as_the_space_finds_the_brute_force_best(
    words: list[str], objective: str, seed: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # 2x2 boards over A, B, C: 81 boards, fewer up to symmetry. A pool that holds them all
    # never drops one, and every board is some edits from the start: the climb is exhaustive.
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("brute"))
    path = dictionary.path
    spec = S.make_spec(path, (2, 2), pool=81, objective=objective, scoring="letters", min_length=2)
    column = 1 if objective == "points" else 0
    brute = max(
        totals(solve(Grid((2, 2), board), dictionary, scoring=LETTERS, min_length=2))[column]
        for board in itertools.product("ABC", repeat=4)
    )
    result = S.search(spec, seed=seed, runs=1)
    best, _ = result.best(1)[0]
    assert best.score == brute
    words_found, points = totals(solve(Grid((2, 2), best.board), dictionary, scoring=LETTERS, min_length=2))
    assert (best.words, best.points) == (words_found, points)


@given(words=st.lists(st.text(alphabet="ABCDEFGH", min_size=1, max_size=6), min_size=1, max_size=30))
@settings(max_examples=25, deadline=None)
def test_common_letters_are_those_in_enough_words(words: list[str]) -> None:
    letters = tuple("ABCDEFGH")
    held = {letter: sum(letter in word for word in words) for letter in letters}
    expected = tuple(letter for letter in letters if held[letter] >= S.COMMON_SHARE * len(words))
    if len(expected) < 2 or len(expected) == len(letters):
        expected = ()
    assert S.common_letters(words, letters) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.slow
def test_the_climb_ends_on_a_local_optimum_over_every_letter(tmp_path: Path, quick: bool) -> None:
    # Z is in 3 words of 39, too few to be common: the climb starts without it, yet the
    # best boards hold a Z (its words are the longest), and the climb must end on one.
    # Quick: swaps deferred and hints followed in the first phase, which skip edits; the
    # second phase makes every edit of the final pool all the same.
    words = sorted({"".join(letters) for size in (2, 3) for letters in itertools.permutations("aest", size)})
    words += ["zesta", "tazes", "sezat"]
    dictionary = dictionary_from_words(words, tmp_path)
    spec = S.make_spec(dictionary.path, (2, 3), pool=6, quick=quick)
    assert "Z" in spec.letters and "Z" not in spec.common and spec.common
    assert spec.defer_swaps == quick and (spec.hint_margin is not None) == quick
    brute = max(totals(solve(Grid((2, 3), board), dictionary))[1] for board in itertools.product(spec.letters, repeat=6))
    canonical = S.Canonical((2, 3), False)
    for seed in range(3):
        run = S.run_one(spec, seed, 0, keep=6)
        assert run.best[0].score == brute and "Z" in run.best[0].board
        # No board one edit from the final pool, with any letter, would have entered it.
        kept = {canonical.key(found.board) for found in run.best}
        for found in run.best:
            for board in S.FreeLetters(spec.letters, 6).neighbours(found.board):
                if canonical.key(board) not in kept:
                    assert totals(solve(Grid((2, 3), board), dictionary))[1] <= run.best[-1].score


@pytest.mark.parametrize("jobs", [1, 2])
def test_runs_report_their_progress_as_they_go(small_dict: str, jobs: int) -> None:
    spec = S.make_spec(small_dict, (3, 3), pool=6)
    heard: list[tuple[int, int, int]] = []
    result = S.search(spec, seed=4, runs=3, jobs=jobs, on_progress=lambda *report: heard.append(report), report_every=0)
    assert_progress_fits(heard, result)
    assert [run.best for run in result.runs] == [run.best for run in S.search(spec, seed=4, runs=3).runs]


def assert_progress_fits(heard: list[tuple[int, int, int]], result: S.SearchResult) -> None:
    # Every run told of its progress while it ran, never of more than it did in the end.
    for run in result.runs:
        reports = [(scored, best) for number, scored, best in heard if number == run.run]
        assert reports, f"run {run.run} never reported"
        assert [scored for scored, _ in reports] == sorted(scored for scored, _ in reports)
        assert reports[-1][0] <= run.scored and max(best for _, best in reports) <= run.best[0].score
    assert {number for number, _, _ in heard} == {run.run for run in result.runs}


def test_reported_scores_are_the_solver_s(small_dict: str) -> None:
    spec = S.make_spec(small_dict, (3, 3), pool=8)
    result = S.search(spec, seed=3, runs=2)
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    dictionary = open_dictionary(small_dict)
    for run in result.runs:
        scores = [found.score for found in run.best]
        assert scores == sorted(scores, reverse=True)
        for found in run.best:
            count, points = totals(solve(Grid((3, 3), found.board), dictionary, scoring=CLASSIC))
            assert (found.words, found.points, found.score) == (count, points, points)
    assert result.best(1)[0][0].score >= 10  # "ascot", "coats", "tacos"... fit on 3x3


@pytest.mark.parametrize(("method", "quick"), [("hillclimb", False), ("hillclimb", True), ("anneal", False)])
def test_same_seed_same_result_whatever_the_jobs(tmp_path: Path, method: str, quick: bool) -> None:
    # Quick: deferred swaps, and hints in a first phase without Z (in 1 word of 14).
    dictionary = dictionary_from_words([*WORDS, "zoas"], tmp_path).path
    spec = S.make_spec(dictionary, (3, 3), pool=4, method=method, steps=300, stall=100, quick=quick)
    assert bool(spec.common) == (method == "hillclimb") and (spec.hint_margin is not None) == quick
    one = S.search(spec, seed=11, runs=3, jobs=1)
    again = S.search(spec, seed=11, runs=3, jobs=1)
    two = S.search(spec, seed=11, runs=3, jobs=2)
    best = [(run.run, run.best) for run in one.runs]
    assert best == [(run.run, run.best) for run in again.runs] == [(run.run, run.best) for run in two.runs]
    assert one.best() == two.best()
    other = S.search(spec, seed=12, runs=3, jobs=1)
    assert [run.best for run in other.runs] != [run.best for run in one.runs]


def test_dice_search_finds_rollable_boards(tmp_path: Path) -> None:
    # Six dice for a 2x3 tray; words that need the dice on the right faces and cells.
    dice = tuple(tuple(die) for die in ["ARBXYZ", "TAEXYZ", "RIEXYZ", "ATRXYZ", "BEXXYZ", "IRAXYZ"])
    dice_set = DiceSet("six", "six", dice, (2, 3), CLASSIC, None, "test")
    path = dictionary_from_words(["arbre", "bar", "rat", "tara", "rate", "taire", "air", "rire", "tri"], tmp_path).path
    spec = S.make_spec(path, (2, 3), dice=dice_set, pool=6)
    assert spec.scoring == "classic" and not spec.letters
    result = S.search(spec, seed=1, runs=2)
    for found, _ in result.best():
        assert S.rollable(dice_set, found.board)
    assert result.best(1)[0][0].score >= 3
    assert S.search(spec, seed=1, runs=2).best() == result.best()


def test_anneal_finds_a_scoring_board(small_dict: str) -> None:
    spec = S.make_spec(small_dict, (3, 3), method="anneal", steps=2000, stall=300)
    best, runs = S.search(spec, seed=2, runs=1).best(1)[0]
    assert best.score >= 5 and runs == 1


def test_log_and_resume_skip_the_runs_done(small_dict: str, tmp_path: Path) -> None:
    spec = S.make_spec(small_dict, (3, 3), pool=5)
    log = tmp_path / "search.ndjson"
    first = S.search(spec, seed=4, runs=2)
    with S.open_log(log, spec, 4) as stream:  # sealed lines (tests/test_logs.py)
        for run in first.runs:
            stream.write(run.to_json(spec.key()))
    with log.open("a") as cut:
        cut.write('{"spec": "cut sho')  # an interrupted last line
    done = S.read_log(log, spec, 4)
    assert sorted(done) == [0, 1]
    assert S.read_log(log, spec, 5) == {}  # another seed
    ran: list[int] = []
    resumed = S.search(spec, seed=4, runs=4, done=done, on_result=lambda run: ran.append(run.run))
    assert sorted(ran) == [2, 3]
    fresh = S.search(spec, seed=4, runs=4)
    assert [run.best for run in resumed.runs] == [run.best for run in fresh.runs]
    log.write_text("not json\n{}\n")
    with pytest.raises(BoggleError, match=r"ndjson:1: not a line of a search log"):
        S.read_log(log, spec, 4)


def test_bad_parameters_are_one_line_errors(small_dict: str) -> None:
    for kwargs, message in [
        ({"pool": 0}, "pool"),
        ({"objective": "fun"}, "objective"),
        ({"method": "magic"}, "method"),
        ({"exclude_letters": "acost"}, "no letters"),
        ({"scoring": "nope"}, "scoring"),
    ]:
        with pytest.raises(BoggleError, match=message):
            S.make_spec(small_dict, (3, 3), **kwargs)  # type: ignore[arg-type]
    with pytest.raises(BoggleError, match="dice"):
        S.make_spec(small_dict, (3, 3), dice=load_dice("fr"))
    spec = S.make_spec(small_dict, (3, 3))
    with pytest.raises(BoggleError, match="runs"):
        S.search(spec, seed=1, runs=0)


def test_excluded_letters_never_appear(small_dict: str) -> None:
    spec = S.make_spec(small_dict, (3, 3), exclude_letters="O", pool=6)
    assert "O" not in spec.letters
    for run in S.search(spec, seed=9, runs=2).runs:
        for found in run.best:
            assert "O" not in found.board


def test_run_seeds_differ_and_repeat() -> None:
    seeds = [S.run_seed(7, run) for run in range(100)]
    assert len(set(seeds)) == 100
    assert seeds == [S.run_seed(7, run) for run in range(100)]


def test_a_copy_of_the_dictionary_is_used_when_the_path_is_not_the_file(small_dict: str, tmp_path: Path) -> None:
    copy = tmp_path / "moved.dafsa"
    copy.write_bytes(Path(small_dict).read_bytes())
    spec = S.make_spec(str(copy), (3, 3), pool=4)
    expected = S.run_one(spec, 1, 0)
    copy.unlink()
    S._CONTEXTS.clear()
    with pytest.raises(BoggleError, match="not on this machine"):
        S.run_one(spec, 1, 0)
    assert S.run_one(spec, 1, 0, Path(small_dict).read_bytes()).best == expected.best


# -- the command ---------------------------------------------------------------------------


def test_the_progress_display_counts_runs_under_way_and_ignores_late_reports() -> None:
    from boggle_dafsa.cli.progress import SearchBar

    progress = SearchBar(total=3, done=0)
    task = progress.bar.task
    progress.during(0, 1_000, 40)
    progress.during(1, 500, 55)
    assert "best 55" in task.fields["status"] and task.completed == 0
    progress.update(S.RunResult(0, 9, (S.Found(("A",), 60, 1, 60),), 1_200, 1.0))
    assert "best 60" in task.fields["status"] and task.completed == 1
    progress.during(0, 1_100, 70)  # run 0 is done: a report that arrives after it counts no more
    assert "best 60" in task.fields["status"] and progress._running == {1: 500}
    assert progress._scored == 1_200


@pytest.mark.slow
def test_best_command_text_json_log_and_resume(small_dict: str, tmp_path: Path) -> None:
    from conftest import run_cli

    log = tmp_path / "runs.ndjson"
    args = ["best", "-d", small_dict, "-s", "3x3", "--seed", "5", "--runs", "2", "--pool", "6"]
    text = run_cli(*args, "--log", str(log))
    assert text.returncode == 0, text.stderr
    assert text.stderr == ""  # no progress display on a pipe, and the seed was given
    first = text.stdout.splitlines()[0]
    grid, summary = first.split("\t")
    assert "points" in summary and "found by" in summary
    assert f"boggle-dafsa solve {grid} -d {small_dict} --totals" in text.stdout
    assert len(log.read_text().splitlines()) == 2
    # The replay command gives the points announced.
    replay = run_cli("solve", grid, "-d", small_dict, "--totals", "-q")
    assert replay.stdout.splitlines()[-1].endswith(summary.split(" (")[0].split(", ")[0])

    resumed = run_cli(*args[:-4], "--runs", "3", "--pool", "6", "--resume", str(log), "--json")
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["runs"] == 3 and data["seed"] == 5 and data["best"][0]["grid"]
    assert len(log.read_text().splitlines()) == 3  # only the third run was run and logged
    fresh = run_cli(*args[:-4], "--runs", "3", "--pool", "6", "--json")
    assert json.loads(fresh.stdout)["best"] == data["best"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pool", "0"], "pool"),
        (["--objective", "fun"], "objective"),
        (["--runs", "0"], "runs"),
        (["--jobs", "0"], "jobs"),
        (["-s", "0x3"], "shape"),
        (["--dice", "nope"], "dice"),
        (["--exclude-letters", "ACOST"], "no letters"),
    ],
)
def test_best_command_bad_input(small_dict: str, args: list[str], message: str) -> None:
    from conftest import run_cli

    result = run_cli("best", "-d", small_dict, "-s", "3x3", "--seed", "1", *args)
    assert result.returncode == 2
    assert result.stderr.startswith("boggle-dafsa: ") and len(result.stderr.splitlines()) == 1
    assert message in result.stderr


# -- Dask ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_dask_and_local_runs_give_the_same_boards(small_dict: str, cluster: object) -> None:
    spec = S.make_spec(small_dict, (3, 3), pool=6)
    local = S.search(spec, seed=21, runs=3, jobs=1)
    remote = S.search(spec, seed=21, runs=3, dask=cluster.scheduler_address)  # type: ignore[attr-defined]
    assert [(run.run, run.best) for run in remote.runs] == [(run.run, run.best) for run in local.runs]
    assert remote.best() == local.best()


@pytest.mark.slow
def test_dask_runs_report_their_progress_as_they_go(small_dict: str, cluster: object) -> None:
    spec = S.make_spec(small_dict, (3, 3), pool=6)
    heard: list[tuple[int, int, int]] = []
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    result = S.search(spec, seed=4, runs=3, dask=address, on_progress=lambda *report: heard.append(report), report_every=0)
    assert_progress_fits(heard, result)
    assert [run.best for run in result.runs] == [run.best for run in S.search(spec, seed=4, runs=3).runs]


@pytest.mark.slow
def test_dask_workers_get_the_dictionary_they_cannot_see(cluster: object, tmp_path: Path) -> None:
    # The search names a file that the workers see with other words (as on another
    # machine): they must use the copy they were sent, which the digest identifies.
    from boggle_dafsa.solver import parallel as D

    meant = dictionary_from_words(["tea", "eat", "ate", "seat", "east", "teas"], tmp_path / "meant")
    spec = S.make_spec(meant.path, (2, 3), pool=5)
    local = [S.run_one(spec, 8, run) for run in range(2)]
    sent = tmp_path / "sent.dafsa"
    sent.write_bytes(Path(meant.path).read_bytes())
    other = dictionary_from_words(["zzz"], tmp_path / "other")
    Path(meant.path).write_bytes(Path(other.path).read_bytes())
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    remote = sorted(D.dask_as_completed(address, S.run_one, [(spec, 8, 0), (spec, 8, 1)], str(sent)), key=lambda r: r.run)
    assert [run.best for run in remote] == [run.best for run in local]
    assert local[0].best[0].score > 0


@pytest.mark.slow
def test_dask_as_completed_keeps_at_most_its_window_on_the_cluster(cluster: object) -> None:
    # The calls are taken from their iterable only as results come back: never more than
    # `window` ahead of what was yielded, and every result once, whatever the order.
    from boggle_dafsa.solver import parallel as D

    address = cluster.scheduler_address  # type: ignore[attr-defined]
    taken = 0
    ahead: list[int] = []

    def calls() -> Iterator[tuple[int, int]]:
        nonlocal taken
        for number in range(40):
            taken += 1
            yield (
                number,
                1,
            )  # pow(number, 1, data): the worker's answer is the number (a builtin: no test module on the workers)

    results = []
    for result in D.dask_as_completed(address, pow, calls(), None, window=3):
        results.append(result)
        ahead.append(taken - len(results))  # calls on the cluster, this one's result back
    assert sorted(results) == list(range(40))
    assert max(ahead) == 3 and ahead[-1] == 0


@pytest.mark.slow
def test_batch_on_dask_is_the_local_batch_in_order(small_dict: str, cluster: object, tmp_path: Path) -> None:
    from conftest import run_cli

    from boggle_dafsa.solver import parallel as D

    rng = SplitMix64(3)
    grids = ["".join("ACOST"[rng.below(5)] for _ in range(9)) for _ in range(1100)]
    batch = tmp_path / "grids.txt"
    batch.write_text("\n".join(grids) + "\n")
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    for extra in ([], ["--json"]):
        local = run_cli("solve", "--batch", str(batch), "-d", small_dict, *extra)
        remote = run_cli("solve", "--batch", str(batch), "-d", small_dict, "--dask", address, *extra)
        assert remote.returncode == 0, remote.stderr
        assert remote.stdout == local.stdout and remote.stderr == local.stderr
    assert D.BATCH_CHUNK < len(grids)  # several chunks, put back in order
    batch.write_text("ACOS/TACO/STAC\n" * 1001 + "AB/C\n")
    bad = run_cli("solve", "--batch", str(batch), "-d", small_dict, "--dask", address)
    assert bad.returncode == 2 and "line 1002" in bad.stderr
    assert bad.stdout.count("# ") == 1001


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(
    data=st.data(),
    shape=st.sampled_from([(2, 2), (2, 3), (3, 3), (4, 4)]),
    objective=st.sampled_from(OBJECTIVES),
    swaps=st.booleans(),
)
def test_the_neighbours_scored_on_codes_are_those_scored_one_by_one(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, shape: tuple[int, ...], objective: str, swaps: bool
) -> None:
    # Scorer.neighbours_at_least (edits made on face codes, a batch the kernel cuts into
    # runs) against FreeLetters.neighbours scored board by board with solve().
    words = data.draw(st.lists(st.text("AEQUST", min_size=2, max_size=7), min_size=1, max_size=60))
    dictionary = dictionary_from_words([*words, "QUEST", "SQUAT", "TEAS"], tmp_path_factory.mktemp("d"))
    letters = ("A", "E", "QU", "S", "T", "U")
    cells = math.prod(shape)
    board = tuple(data.draw(st.lists(st.sampled_from(letters), min_size=cells, max_size=cells)))
    scorer = S.Scorer(dictionary, shape, scoring=CLASSIC, objective=objective)
    column = 1 if objective == "points" else 0
    expected = [
        (totals(solve(Grid(shape, neighbour), dictionary))[column], neighbour)
        for neighbour in S.FreeLetters(letters, cells, swaps).neighbours(board)
    ]
    assert scorer.neighbours_at_least(board, letters, swaps, None) == expected
    worst = data.draw(st.integers(0, max([score for score, _ in expected], default=0) + 1))
    assert scorer.neighbours_at_least(board, letters, swaps, worst) == [item for item in expected if item[0] >= worst]
    # Edits left out by number (cell * letters + letter, then the swaps of cells in
    # order), and the table of what each edit scored (-1: not scored), against the same
    # boards scored one by one.
    edits: list[Board] = []
    for cell in range(cells):
        for letter in letters:
            edits.append((*board[:cell], letter, *board[cell + 1 :]))
    for first in range(cells):
        for second in range(first + 1, cells):
            swapped = list(board)
            swapped[first], swapped[second] = board[second], board[first]
            edits.append(tuple(swapped) if swaps else board)  # no swap: never scored
    skip = data.draw(st.lists(st.booleans(), min_size=len(edits), max_size=len(edits)))
    seen: set[bytes] = set()
    table: list[int] = []
    kept = scorer.neighbours_at_least(board, letters, swaps, worst, seen, skip, table)
    left_out = {edit for edit, skipped in zip(edits, skip) if skipped}
    assert kept == [(score, edit) for score, edit in expected if score >= worst and edit not in left_out]
    scores = {edit: score for score, edit in expected}
    assert table == [-1 if skipped or edit == board else scores[edit] for edit, skipped in zip(edits, skip)]
    assert len(seen) == sum(1 for edit, skipped in zip(edits, skip) if edit != board and not skipped)


def test_neighbours_already_scored_are_left_out(tmp_path: Path) -> None:
    # With a set of the face codes scored, a board's neighbours come once: a second call,
    # or a neighbour of a neighbour met again, is not scored again.
    dictionary = dictionary_from_words(["TEAS", "SEAT", "EATS", "QUEST", "SET", "TEA"], tmp_path)
    scorer = S.Scorer(dictionary, (2, 2), scoring=CLASSIC)
    letters = ("A", "E", "S", "T")
    seen: set[bytes] = set()
    first = scorer.neighbours_at_least(("T", "E", "A", "S"), letters, True, None, seen)
    assert first == scorer.neighbours_at_least(("T", "E", "A", "S"), letters, True, None)
    assert first and len(seen) == len(first) and scorer.scored == 2 * len(first)
    assert scorer.neighbours_at_least(("T", "E", "A", "S"), letters, True, None, seen) == []
    again = scorer.neighbours_at_least(("T", "E", "A", "T"), letters, True, None, seen)  # a neighbour's neighbours
    everything = scorer.neighbours_at_least(("T", "E", "A", "T"), letters, True, None)
    assert again is not None and everything is not None
    assert again == [item for item in everything if item not in first]  # TEAS itself included: never a neighbour before
