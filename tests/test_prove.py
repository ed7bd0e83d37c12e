"""The prover against brute force (every board of small shapes), its kernels against each
other, its bound against exact scores, against `best`, and the command (log, resume, Ctrl-C)."""

from __future__ import annotations

import itertools
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from boggle_dafsa import compiled as seam
from boggle_dafsa.board.dice import DiceSet
from boggle_dafsa.board.scoring import CLASSIC, LETTERS
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.search import prove as P
from boggle_dafsa.search.best import Canonical, Scorer
from helpers.dictionaries import PROOF_BUCKETS as BUCKETS
from helpers.dictionaries import PROOF_CORNERS as CORNERS
from helpers.dictionaries import PROOF_WORDS as WORDS
from helpers.dictionaries import dictionary_from_words
from helpers.kernels import PROVER, each, requires_c

#: Words with QU, for --qu (alphabet A E I O Q S T U).
QU_WORDS = ["quest", "quote", "quota", "aqua", "equate", "suet", "set", "seat", "east", "toque", "quiet", "quit", "suit"]


@pytest.fixture(scope="module")
def small_dict(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(dictionary_from_words(WORDS, tmp_path_factory.mktemp("prove")).path)


def brute_force(dictionary: str, spec: P.ProofSpec, others: str = "") -> dict[str, tuple[int, int]]:
    """Every board over the spec's faces and a dead cell (without dice: a letter no word holds,
    the proof's ``.``) scored by the solver: canonical text -> (points, words) of those >= N.

    ``others``: letters no word holds, put on boards as well and printed as ``.``: each must
    score as ``.`` does."""
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    opened = open_dictionary(dictionary)
    scoring = {"classic": CLASSIC, "letters": LETTERS}[spec.scoring]
    scorer = Scorer(
        opened, spec.shape, scoring=scoring, min_length=spec.min_length, adjacency=spec.adjacency, objective=spec.objective
    )
    canonical = Canonical(spec.shape, any(len(face) > 1 for face in spec.faces))
    found: dict[str, tuple[int, int]] = {}
    dead = () if spec.dice else (P.DEAD, *others)
    boards = list(itertools.product((*spec.faces, *dead), repeat=spec.cells))
    for board, (words, points) in zip(boards, scorer.totals_many(boards)):
        if (points if spec.objective == "points" else words) >= spec.minimum:
            key = canonical.key(tuple(P.DEAD if face in dead else face for face in board))
            assert found.get(key, (points, words)) == (points, words), "a letter no word holds scores as a dead cell"
            found[key] = (points, words)
    return found


def proven(spec: P.ProofSpec, kernel: str) -> dict[str, tuple[int, int]]:
    return {text: (points, words) for text, points, words in P.prove(spec, kernel=kernel).boards()}


CASES = [
    # shape, minimum, options
    ((2, 2), 3, {}),
    ((2, 3), 6, {}),
    ((3, 2), 4, {"objective": "words"}),
    ((2, 3), 8, {"scoring": "letters"}),
    ((2, 3), 3, {"adjacency": "orthogonal"}),
    ((2, 3), 5, {"min_length": 4}),
    ((1, 6), 2, {}),
]
#: The cases above with every one but the first (a 2x2 board, well under half a second)
#: marked slow: the proof against brute force takes 1 to 6 s a case on this machine.
CASES_FIRST_FAST = [pytest.param(*case, marks=() if index == 0 else pytest.mark.slow) for index, case in enumerate(CASES)]


@each("prover")
@pytest.mark.parametrize(("shape", "minimum", "options"), CASES_FIRST_FAST)
def test_the_proof_finds_exactly_the_boards_brute_force_finds(
    small_dict: str, kernel: str, shape: tuple[int, int], minimum: int, options: dict[str, object]
) -> None:
    spec = P.make_spec(small_dict, shape, minimum, buckets=BUCKETS, corner_buckets=CORNERS, **options)  # type: ignore[arg-type]
    expected = brute_force(small_dict, spec)
    assert expected, "a case with no board proves nothing"
    assert proven(spec, kernel) == expected


@each("prover")
def test_qu_faces_prove_as_brute_force(tmp_path: Path, kernel: str) -> None:
    dictionary = str(dictionary_from_words(QU_WORDS, tmp_path).path)
    spec = P.make_spec(dictionary, (2, 2), 2, q_is_qu=True, buckets="AEIOU QST")
    assert "QU" in spec.faces and "Q" not in spec.faces
    expected = brute_force(dictionary, spec)
    assert any("QU" in text for text in expected)
    assert proven(spec, kernel) == expected


@pytest.mark.slow
@settings(max_examples=25)
@given(
    words=st.lists(st.text(alphabet="ABCE", min_size=2, max_size=4), min_size=1, max_size=30),
    shape=st.sampled_from([(2, 2), (1, 4), (2, 3)]),
    minimum=st.integers(1, 6),
    objective=st.sampled_from(["points", "words"]),
    split=st.integers(1, 3),
)
def test_any_word_list_proves_as_brute_force(
    tmp_path_factory: pytest.TempPathFactory,
    words: list[str],
    shape: tuple[int, int],
    minimum: int,
    objective: str,
    split: int,
) -> None:
    dictionary = str(dictionary_from_words(words, tmp_path_factory.mktemp("any")).path)
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    alphabet = open_dictionary(dictionary).alphabet
    buckets = " ".join(part for part in (alphabet[:split], alphabet[split:]) if part)
    spec = P.make_spec(dictionary, shape, minimum, objective=objective, buckets=buckets, min_length=2)
    expected = brute_force(dictionary, spec)
    for kernel in PROVER:
        assert proven(spec, kernel) == expected


@pytest.mark.slow
@settings(max_examples=20)
@given(
    words=st.lists(st.text(alphabet="ABC", min_size=2, max_size=4), min_size=1, max_size=20),
    shape=st.sampled_from([(2, 2), (1, 4), (1, 5)]),
    minimum=st.integers(1, 4),
    objective=st.sampled_from(["points", "words"]),
)
def test_boards_of_letters_no_word_holds_are_printed_with_dead_cells(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], shape: tuple[int, int], minimum: int, objective: str
) -> None:
    # Every board of any letters: the dictionary's, and X and Y, which no word holds, printed
    # as dead cells ('.'); a board the proof does not print has fewer than N.
    dictionary = str(dictionary_from_words(words, tmp_path_factory.mktemp("dead")).path)
    spec = P.make_spec(dictionary, shape, minimum, objective=objective, min_length=2)
    assert "X" not in spec.faces and P.DEAD not in spec.faces
    expected = brute_force(dictionary, spec, others="XY")
    for kernel in PROVER:
        assert proven(spec, kernel) == expected


def test_dead_boards_are_found_from_the_proof_s_boards(tmp_path: Path) -> None:
    # "CAT" and "ACT" on three cells of a 2x2: the fourth cell holds any letter, Z too.
    dictionary = str(dictionary_from_words(["cat", "act", "cats"], tmp_path).path)
    spec = P.make_spec(dictionary, (2, 2), 2)
    boards = {text: points for text, points, _ in P.prove(spec).boards()}
    assert P.DEAD in "".join(boards) and all(points >= 2 for points in boards.values())
    scorer = P.proof_scorer(spec)
    canonical = Canonical((2, 2), False)
    [(_, dead_points)] = scorer.totals_many([tuple("CA.T")])
    [(_, z_points)] = scorer.totals_many([tuple("CAZT")])
    assert dead_points == z_points == 2 and boards[canonical.key(tuple("CA.T"))] == 2
    # With dice, the faces are the dice's: no dead cell is added.
    dice = make_dice(["CAT", "ACT", "TCA", "ZZZ"])
    assert P.DEAD not in "".join(text for text, _, _ in P.prove(P.make_spec(dictionary, (2, 2), 2, dice=dice)).boards())


@pytest.mark.slow
def test_a_tiny_node_budget_splits_classes_and_finds_the_same_boards(small_dict: str) -> None:
    spec = P.make_spec(small_dict, (3, 3), 37, buckets=BUCKETS, corner_buckets=CORNERS)
    kernel = PROVER[0]  # the twin gives the same classes (test below)
    whole = P.prove(spec, kernel=kernel)
    largest = max(class_result.nodes for class_result in whole.results.values())
    tight = P.make_spec(small_dict, (3, 3), 37, buckets=BUCKETS, corner_buckets=CORNERS, node_budget=largest * 2 // 3)
    result = P.prove(tight, kernel=kernel)
    assert sum(class_result.splits for class_result in result.results.values()) > 0
    assert whole.boards() and result.boards() == whole.boards()


#: The default switch from forcing to the depth-first bound, and forcing down to the last cell.
FORCINGS = [{}, {"switch": 0, "force_depth": 99}]


@pytest.mark.slow
@requires_c("prover")
@pytest.mark.parametrize("forcing", FORCINGS)
@pytest.mark.parametrize(("shape", "minimum", "budget"), [((2, 3), 4, 10**7), ((3, 3), 36, 10**7), ((3, 3), 36, 200)])
def test_the_compiled_kernel_and_its_twin_agree_on_every_class(
    small_dict: str, shape: tuple[int, int], minimum: int, budget: int, forcing: dict[str, int]
) -> None:
    spec = P.make_spec(small_dict, shape, minimum, buckets=BUCKETS, corner_buckets=CORNERS)
    context = P.context_for(spec, "python")
    kernel = seam.built("prover")  # built, even where BOGGLE_DAFSA_PURE is set
    compared = incomplete = 0
    for numbers in spec.classes():
        sets = spec.letter_sets(numbers)
        arguments = (context.lexicon, context.table, sets, context.order, minimum, budget)
        twin = P.prove_class_python(*arguments, **forcing)
        compiled = P.prove_class_kernel(kernel, *arguments, **forcing)
        assert compiled == twin
        compared += 1
        incomplete += not twin.complete
    assert compared == len(spec.classes())
    assert (incomplete > 0) == (budget < 10**6)


def test_a_symmetric_class_scores_each_board_and_its_image_once_and_finds_the_same_boards(small_dict: str) -> None:
    spec = P.make_spec(small_dict, (3, 3), 36, buckets=BUCKETS, corner_buckets=CORNERS)
    context = P.context_for(spec)
    kept = [sets for sets in map(spec.letter_sets, spec.classes()) if context.images_of(sets)][:8]
    assert kept, "no class of the proof is symmetric"
    scored: list[int] = []
    totals = context.scorer.totals_many
    context.scorer.totals_many = lambda grids: (scored.append(len(grids)), totals(grids))[1]  # type: ignore[method-assign]
    fewer = 0
    try:
        for sets in kept:
            images = context.images_of(sets)
            # Each image a symmetry that maps the class's letter sets onto themselves.
            assert all(tuple(tuple(sets[cell]) for cell in image) == tuple(map(tuple, sets)) for image in images)
            candidates = context.run(sets, spec.node_budget).candidates
            whole: dict[str, tuple[int, int]] = {}
            once: dict[str, tuple[int, int]] = {}
            P._rescore(context, candidates, whole)
            scored.clear()
            P._rescore(context, candidates, once, sets)
            assert once == whole
            orbits = {min(board, *(tuple(board[cell] for cell in image) for image in images)) for board in candidates}
            assert sum(scored) == len(orbits)
            fewer += len(orbits) < len(candidates)
    finally:
        del context.scorer.totals_many
    assert fewer > 0


@requires_c("prover")
def test_the_compiled_kernel_reads_the_trie_in_place_and_refuses_a_bad_one(small_dict: str) -> None:
    import gc
    import struct

    kernel = seam.built("prover")
    spec = P.make_spec(small_dict, (3, 3), 36, buckets=BUCKETS, corner_buckets=CORNERS)
    context = P.context_for(spec, "python")
    lexicon = context.lexicon
    assert lexicon.nodes is not None and len(lexicon.nodes) == 12 * len(lexicon)
    # The twin's views are the nodes' bytes: each node's child as the nested words say.
    assert [lexicon.child(0, face) >= 0 for face in range(len(spec.faces))] == [
        any(word.upper().startswith(face) for word in WORDS) for face in spec.faces
    ]
    sets = spec.letter_sets(spec.classes()[0])
    expected = P.prove_class_python(lexicon, context.table, sets, context.order, 36, 10**7)
    # The capsule keeps the bytes it reads: the lexicon gone, a class is proven the same.
    orphan = P.Lexicon(spec.faces, lexicon.masks, lexicon.firsts, lexicon.values)
    capsule = orphan.capsule(kernel)
    del orphan
    gc.collect()
    face_masks = [sum(1 << face for face in faces) for faces in sets]
    forcing = P.forcing(36, len(sets), None, None)
    result = kernel.prove_class(
        capsule, [tuple(row) for row in context.table], face_masks, list(context.order), 36, 10**7, 10**6, *forcing
    )
    assert (result[0], result[1], result[2]) == (expected.bound, expected.nodes, expected.branches)
    good = struct.pack("=Iii", 0b11, 1, 0) + struct.pack("=Iii", 0, 0, 1) * 2
    kernel.lexicon(good, 2)
    refused = [
        good[:-1],  # no whole number of nodes
        b"",
        struct.pack("=Iii", 0b11, 2, 0) + struct.pack("=Iii", 0, 0, 1) * 2,  # a child past the end
        struct.pack("=Iii", 0b11, 0, 0) + struct.pack("=Iii", 0, 0, 1) * 2,  # a child before its parent
        struct.pack("=Iii", 0b111, 1, 0) + struct.pack("=Iii", 0, 0, 1) * 2,  # a face past the faces
        struct.pack("=Iii", 0b11, 1, -1) + struct.pack("=Iii", 0, 0, 1) * 2,  # a negative value
    ]
    for nodes in refused:
        with pytest.raises(ValueError, match="lexicon"):
            kernel.lexicon(nodes, 2)
    with pytest.raises(TypeError):
        kernel.lexicon(bytearray(good), 2)  # mutable: what was checked could change


@pytest.mark.slow
def test_forcing_finds_the_candidates_of_the_frontier_bound_even_past_its_node_limit(small_dict: str) -> None:
    # Forced down to the last cell, with a budget that leaves room for few merged nodes:
    # some classes give up merging (and branch on the frontier from there), and every class
    # yields the same candidates as the frontier's bound alone; both kernels agree.
    spec = P.make_spec(small_dict, (3, 3), 20, buckets=BUCKETS, corner_buckets=CORNERS)
    context = P.context_for(spec, "python")
    kernel = P.compiled_kernel()
    gave_up = forced = records_bound = 0
    for place, numbers in enumerate(spec.classes()[::2]):
        arguments = (context.lexicon, context.table, spec.letter_sets(numbers), context.order, 20)
        # The compiled kernel where there is one (the twin costs far more a class: 67 against
        # 0.7 ms under cProfile), and the twin beside it on every fourth class: each result
        # compared whole.
        twin_too = kernel is None or place % 4 == 0

        def prove(budget: int, **forcing: int) -> Any:
            if kernel is None:
                return P.prove_class_python(*arguments, budget, **forcing)
            result = P.prove_class_kernel(kernel, *arguments, budget, **forcing)
            if twin_too:
                assert P.prove_class_python(*arguments, budget, **forcing) == result
            return result

        unforced = prove(10**7, switch=10**9)
        free = prove(10**7, switch=0, force_depth=99)
        # the smallest budget of a few steps from the tree's size that the class fits (its
        # word instances count against the budget too): little room left for merging
        budget = free.nodes
        while not (tight := prove(budget, switch=0, force_depth=99)).complete:
            budget += budget // 8 + 1  # past the records' limit (RECORDS_PER_NODE)
        records_bound += budget > free.nodes
        assert sorted(free.candidates) == sorted(tight.candidates) == sorted(unforced.candidates)
        assert free.branches <= unforced.branches
        forced += free.branches < unforced.branches
        gave_up += tight.branches != free.branches
    # some trees fit the budget that their word instances do not (split early, on the records)
    assert forced > 0 and gave_up > 0 and records_bound > 0


@pytest.mark.slow
@each("prover")
def test_forcing_every_cell_proves_as_brute_force(small_dict: str, kernel: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(P, "SWITCH_FACTOR", 0)
    monkeypatch.setattr(P, "UNFORCED_CELLS", 0)
    spec = P.make_spec(small_dict, (2, 3), 6, buckets=BUCKETS, corner_buckets=CORNERS)
    assert proven(spec, kernel) == brute_force(small_dict, spec)


def test_the_bound_of_a_class_is_never_below_a_board_of_it(small_dict: str) -> None:
    spec = P.make_spec(small_dict, (2, 3), 1, buckets=BUCKETS, corner_buckets=CORNERS)
    context = P.context_for(spec, "python")
    for numbers in spec.classes()[::3]:
        sets = spec.letter_sets(numbers)
        bound = P.prove_class_python(context.lexicon, context.table, sets, context.order, 10**9, 10**7).bound
        boards = [tuple(spec.faces[face] for face in board) for board in itertools.product(*sets)]
        assert max(points for _, points in context.scorer.totals_many(boards)) <= bound


@pytest.mark.slow
def test_the_classes_cover_every_board_once_up_to_symmetry(small_dict: str) -> None:
    spec = P.make_spec(small_dict, (3, 3), 1, buckets=BUCKETS, corner_buckets=CORNERS)
    kept = set(spec.classes())
    corners = spec.corners()
    all_classes = list(itertools.product(*[range(2 if corner else 3) for corner in corners]))
    from boggle_dafsa.search.best import symmetries

    for numbers in all_classes:
        images = {tuple(numbers[source] for source in image) for image in symmetries(spec.shape)}
        assert len(images & kept) == 1


@pytest.mark.parametrize(
    ("shape", "inner", "corner"), [((3, 3), 3, 2), ((2, 3), 2, 3), ((4, 4), 2, 1), ((3, 4), 2, 3), ((1, 5), 4, 3)]
)
def test_the_class_list_is_each_orbit_s_smallest_tuple_in_order(shape: tuple[int, int], inner: int, corner: int) -> None:
    from boggle_dafsa.search.best import symmetries

    letters = "ABCDEFGH"
    spec = P.ProofSpec("x", shape, 1, tuple(letters), tuple(map(tuple, letters[:inner])), tuple(map(tuple, letters[:corner])))
    classes = spec.classes()
    choices = [range(corner if is_corner else inner) for is_corner in spec.corners()]
    images = symmetries(shape)
    smallest = sorted(
        {min(tuple(numbers[source] for source in image) for image in images) for numbers in itertools.product(*choices)}
    )
    assert list(classes) == smallest and len(classes) == len(smallest) and classes == smallest
    assert [classes[number] for number in range(len(classes))] == smallest
    assert classes[-1] == smallest[-1] and classes[1::3] == smallest[1::3]
    with pytest.raises(IndexError):
        classes[len(classes)]


@pytest.mark.slow
def test_the_top_board_is_never_below_what_best_finds(tmp_path: Path) -> None:
    from boggle_dafsa.dictionaries.resolve import open_dictionary
    from boggle_dafsa.search import best as B

    # A real list cut to a few letters, so that a 3x3 proof takes seconds.
    letters = set("AEINRST")
    words = [word for word in open_dictionary("enable2k") if set(word) <= letters and len(word) <= 9]
    dictionary = str(dictionary_from_words(words, tmp_path).path)
    search = B.search(B.make_spec(dictionary, (2, 3)), seed=7, runs=2)
    top = search.best(1)[0][0]
    spec = P.make_spec(dictionary, (2, 3), top.points, buckets="AEI NRST", corner_buckets="AEIS NRT")
    boards = P.prove(spec).boards()
    assert boards and boards[0][1] >= top.points
    canonical = Canonical((2, 3), False)
    assert canonical.key(top.board) in {text for text, _, _ in boards}


@pytest.mark.slow
def test_default_buckets_partition_the_alphabet() -> None:
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    for name in ("enable2k", "fr"):
        opened = open_dictionary(name)
        inner, corner = P.default_buckets(opened, list(opened.alphabet))
        for buckets in (inner, corner):
            letters = [face for bucket in buckets for face in bucket]
            assert sorted(letters) == sorted(opened.alphabet)


@settings(max_examples=15, deadline=None)
@given(
    words=st.lists(st.text(alphabet="ABEOSTN", min_size=2, max_size=5), min_size=1, max_size=25),
    buckets=st.booleans(),
)
def test_past_12_cells_the_corners_are_the_vowels_and_the_commonest_last_consonant(
    tmp_path_factory: pytest.TempPathFactory, words: list[str], buckets: bool
) -> None:
    dictionary = dictionary_from_words(words, tmp_path_factory.mktemp("corners"))
    kept = list(dictionary)
    faces = dictionary.alphabet
    given = {"buckets": " ".join(faces)} if buckets and len(faces) > 1 else {}
    assert P.make_spec(str(dictionary.path), (3, 4), 5, **given).corner_buckets == (tuple(faces),)
    spec = P.make_spec(str(dictionary.path), (4, 4), 5, **given)
    counts: dict[str, int] = {}
    for word in kept:
        if word[-1] not in "AEIOUY":
            counts[word[-1]] = counts.get(word[-1], 0) + 1
    # the vowels and the consonant that ends the most words (ties: the first in the alphabet), then the rest
    ending = min(counts, key=lambda letter: (-counts[letter], letter)) if counts else None
    first = tuple(face for face in faces if face in "AEIOUY" or face == ending)
    rest = tuple(face for face in faces if face not in first)
    assert spec.corner_buckets == tuple(bucket for bucket in (first, rest) if bucket)


def test_corners_are_one_bucket_unless_given(small_dict: str) -> None:
    # With or without --buckets, the corners' default is one bucket of every face up to 12 cells.
    for spec in (P.make_spec(small_dict, (2, 3), 3), P.make_spec(small_dict, (2, 3), 3, buckets=BUCKETS)):
        assert spec.corner_buckets == (spec.faces,)
    given = P.make_spec(small_dict, (2, 3), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    assert len(given.corner_buckets) == len(CORNERS.split())
    # One corner bucket: a 2x3 class is set by its two middle cells alone.
    assert len(P.make_spec(small_dict, (2, 3), 3, buckets=BUCKETS).classes()) < len(given.classes())


def test_bad_buckets_are_refused(small_dict: str) -> None:
    with pytest.raises(BoggleError, match="leave out"):
        P.make_spec(small_dict, (2, 2), 3, buckets="AE CO")
    with pytest.raises(BoggleError, match="two buckets"):
        P.make_spec(small_dict, (2, 2), 3, buckets="AE CO STA")
    with pytest.raises(BoggleError, match="not a letter"):
        P.make_spec(small_dict, (2, 2), 3, buckets="AE CO STX")
    with pytest.raises(BoggleError, match="too large"):
        P.make_spec(small_dict, (6, 6), 3)


# -- the command --------------------------------------------------------------------------


@pytest.mark.slow
def test_the_command_prints_the_proof_as_json(small_dict: str) -> None:
    result = run_cli(
        "prove", "-d", small_dict, "-s", "2x3", "--min", "6", "--buckets", BUCKETS, "--corner-buckets", CORNERS, "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    spec = P.make_spec(small_dict, (2, 3), 6, buckets=BUCKETS, corner_buckets=CORNERS)
    expected = brute_force(small_dict, spec)
    assert len(data["boards"]) == len(expected)
    assert data["classes"] == len(spec.classes())
    points = [board["points"] for board in data["boards"]]
    assert points == sorted(points, reverse=True)
    top = data["boards"][0]
    assert (top["points"], top["words"]) == expected[top["grid"].replace("/", "")]
    text = run_cli("prove", "-d", small_dict, "-s", "2x3", "--min", "6", "--buckets", BUCKETS, "--corner-buckets", CORNERS)
    assert text.returncode == 0 and f"{len(expected):,} boards with at least 6 points" in text.stdout


@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(small_dict: str) -> None:
    for args in (
        ["--min", "0"],
        ["--min", "5", "--buckets", "AE"],
        ["--min", "5", "-s", "9x9"],
        ["--min", "5", "--objective", "letters"],
    ):
        result = run_cli("prove", "-d", small_dict, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.slow
def test_the_estimate_projects_from_a_sample(small_dict: str) -> None:
    result = run_cli(
        "prove",
        "-d",
        small_dict,
        "-s",
        "3x3",
        "--min",
        "36",
        "--buckets",
        BUCKETS,
        "--corner-buckets",
        CORNERS,
        "--estimate",
        "--sample",
        "20",
        "--seed",
        "3",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["sampled"] == 20 and data["classes"] == len(
        P.make_spec(small_dict, (3, 3), 36, buckets=BUCKETS, corner_buckets=CORNERS).classes()
    )
    assert data["projected_cpu_seconds"] >= data["sample_cpu_seconds"] and data["peak_tree_nodes"] > 0
    # The sampled classes one by one: the draw's classes, whose seconds make the sample's.
    rows = data["per_class"]
    assert [row["class"] for row in rows] == sorted(P.sample_classes(data["classes"], 20, 3))
    assert sum(row["seconds"] for row in rows) == pytest.approx(data["sample_cpu_seconds"], abs=0.01)
    assert max(row["nodes"] for row in rows) == data["peak_tree_nodes"]
    if sys.platform == "linux":
        assert all(row["peak_kb"] > 0 for row in rows)


@pytest.mark.slow
def test_a_log_resumes_to_the_same_list(small_dict: str, tmp_path: Path) -> None:
    args = ["prove", "-d", small_dict, "-s", "3x2", "--min", "5", "--buckets", BUCKETS, "--corner-buckets", CORNERS, "--json"]
    whole = json.loads(run_cli(*args).stdout)["boards"]
    log = tmp_path / "proof.ndjson"
    assert run_cli(*args, "--log", str(log)).returncode == 0
    lines = log.read_text().splitlines()
    # As if killed: half the classes, and the last line cut short.
    log.write_text("\n".join(lines[: len(lines) // 2]) + "\n" + lines[len(lines) // 2][:20])
    resumed = run_cli(*args, "--resume", str(log), "--jobs", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["boards"] == whole
    assert len(P.read_log(log, P.make_spec(small_dict, (3, 2), 5, buckets=BUCKETS, corner_buckets=CORNERS))) == len(lines)


@pytest.mark.slow
def test_resuming_a_log_of_another_proof_is_refused(small_dict: str, tmp_path: Path) -> None:
    args = ["prove", "-d", small_dict, "-s", "2x2", "--min", "3", "--buckets", BUCKETS, "--corner-buckets", CORNERS]
    log = tmp_path / "proof.ndjson"
    assert run_cli(*args, "--log", str(log)).returncode == 0
    before = log.read_bytes()
    # The same proof with other corner buckets (the default): not a class of it is in the log.
    other = run_cli(*args[:-2], "--resume", str(log))
    assert other.returncode == 2 and "Traceback" not in other.stderr
    assert other.stderr.count("\n") == 1 and "another proof" in other.stderr and str(log) in other.stderr
    assert log.read_bytes() == before
    # --log starts it in the same file; then --resume of either proof finds its classes.
    assert run_cli(*args[:-2], "--log", str(log)).returncode == 0
    assert run_cli(*args[:-2], "--resume", str(log)).returncode == 0
    assert run_cli(*args, "--resume", str(log)).returncode == 0


@pytest.mark.slow
def test_jobs_give_the_same_list(small_dict: str) -> None:
    spec = P.make_spec(small_dict, (3, 3), 36, buckets=BUCKETS, corner_buckets=CORNERS)
    assert P.prove(spec, jobs=2).boards() == P.prove(spec).boards()


def _descendants(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _start_proof(log: Path, output: int) -> tuple[subprocess.Popen[str], list[int]]:
    """`prove` of ENABLE2K 3x3 on two processes as a user starts it, logged to ``log``, its standard
    output and error to ``output``: returned once two classes are logged, with the ids of its workers."""
    command = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "prove", "-d", "enable2k", "-s", "3x3"]
    command += ["--min", "300", "--jobs", "2", "--log", str(log)]
    process = subprocess.Popen(command, stdout=output, stderr=output, text=True)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (log.exists() and log.read_text().count("\n") >= 2):
        time.sleep(0.2)
    return process, _descendants(process.pid)


def _assert_interrupted(started: float, status: int | None, printed: str, log: Path) -> None:
    """A proof stopped by one Ctrl-C at ``started``: within 5 s, exit 130, no traceback, every line of its log whole."""
    assert time.monotonic() - started < 5
    assert status == 130, printed
    assert "Traceback" not in printed
    for line in log.read_text().splitlines():
        json.loads(line)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_one_ctrl_c_stops_the_proof_and_its_workers(tmp_path: Path) -> None:
    log = tmp_path / "proof.ndjson"
    process, workers = _start_proof(log, subprocess.PIPE)
    assert workers, "the workers should be running"
    process.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, stderr = process.communicate(timeout=30)
    _assert_interrupted(started, process.returncode, stderr, log)
    # The line to go on with: the same command, its --log turned into --resume.
    said = [line for line in stderr.splitlines() if "go on with: " in line]
    assert len(said) == 1, stderr
    logged = log.read_text().count("\n")
    assert f"{logged:,} of " in said[0] and f"are in {log}" in said[0]
    again = shlex.split(said[0].split("go on with: ", 1)[1])
    assert again[:2] == ["boggle-dafsa", "prove"] and again[-2:] == ["--resume", str(log)] and "--log" not in again
    assert again[2:-2] == ["-d", "enable2k", "-s", "3x3", "--min", "300", "--jobs", "2"]
    time.sleep(0.5)
    assert not [
        pid
        for pid in workers
        if Path(f"/proc/{pid}").exists() and "Z" not in (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])
    ]


def test_pure_forces_the_twin(monkeypatch: pytest.MonkeyPatch, small_dict: str) -> None:
    monkeypatch.setenv("BOGGLE_DAFSA_PURE", "1")
    assert P.compiled_kernel() is None
    spec = P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS, corner_buckets=CORNERS)
    assert P.context_for(spec).kernel_name == "python"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_workers_of_a_killed_proof_stop_after_their_class(tmp_path: Path) -> None:
    process, workers = _start_proof(tmp_path / "proof.ndjson", subprocess.DEVNULL)
    assert workers
    process.kill()  # as kill -9: no handler runs in the parent
    process.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.2)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


# -- on a Dask cluster ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_proof_on_dask_is_the_local_proof(small_dict: str, cluster: object) -> None:
    spec = P.make_spec(small_dict, (3, 3), 36, buckets=BUCKETS, corner_buckets=CORNERS)
    local = P.prove(spec)
    heard: list[int] = []
    started = time.monotonic()
    remote = P.prove(spec, dask=cluster.scheduler_address, on_result=lambda result: heard.append(result.index))  # type: ignore[attr-defined]
    wall = time.monotonic() - started
    assert remote.boards() and remote.boards() == local.boards()
    assert sorted(heard) == sorted(remote.results) == list(range(len(spec.classes())))
    for index, result in local.results.items():
        assert remote.results[index].boards == result.boards and remote.results[index].bound == result.bound
    # The CPU is what the workers' task threads spent, class by class, summed: never more
    # than their two threads could spend in the time the proof took.
    # The proof sums its classes' seconds as fsum does (the merge of shards gives the same figure).
    assert remote.cpu_seconds == math.fsum(result.seconds for result in remote.results.values())
    assert 0 < remote.cpu_seconds <= 2 * wall


@pytest.mark.slow
def test_a_task_on_dask_sees_its_own_state(cluster: object) -> None:
    # What a task of a proof looks at between classes to stop once cancelled: readable
    # with this version of distributed (None would mean that tasks run to their end).
    from distributed import Client

    with Client(cluster.scheduler_address, set_as_default=False) as client:  # type: ignore[attr-defined]
        assert client.submit(P._dask_task_state, pure=False).result() == "executing"
    assert P._dask_task_state() is None and not P._dask_cancelled()


@pytest.mark.slow
def test_the_command_on_dask_logs_resumes_and_prints_the_local_list(small_dict: str, cluster: object, tmp_path: Path) -> None:
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    args = ["prove", "-d", small_dict, "-s", "3x3", "--min", "36", "--buckets", BUCKETS, "--corner-buckets", CORNERS, "--json"]
    local = json.loads(run_cli(*args).stdout)
    log = tmp_path / "proof.ndjson"
    remote = run_cli(*args, "--dask", address, "--log", str(log))
    assert remote.returncode == 0, remote.stderr
    data = json.loads(remote.stdout)
    assert data["boards"] == local["boards"] and data["classes"] == local["classes"]
    lines = log.read_text().splitlines()
    assert len(lines) == data["classes"]
    assert data["cpu_seconds"] == pytest.approx(sum(json.loads(line)["seconds"] for line in lines), abs=0.01)
    # As if killed: a third of the classes, the last line cut short; resumed on the cluster.
    log.write_text("\n".join(lines[: len(lines) // 3]) + "\n" + lines[len(lines) // 3][:25])
    resumed = run_cli(*args, "--dask", address, "--resume", str(log))
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["boards"] == local["boards"]
    assert sorted(json.loads(line)["class"] for line in log.read_text().splitlines()) == list(range(data["classes"]))
    estimate = run_cli(*args, "--dask", address, "--estimate", "--sample", "12", "--seed", "2")
    assert estimate.returncode == 0 and json.loads(estimate.stdout)["sampled"] == 12


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="a pseudo-terminal")
def test_the_bar_shows_a_proof_on_dask_and_one_ctrl_c_stops_it_and_its_tasks(
    small_dict: str, cluster: object, tmp_path: Path
) -> None:
    import re

    import pexpect
    from distributed import Client

    address = cluster.scheduler_address  # type: ignore[attr-defined]
    log = tmp_path / "proof.ndjson"
    # 27,135 classes of 3x4: minutes of work, stopped after a few, on a terminal.
    args = ["-c", "from boggle_dafsa.cli import main; main()", "prove", "-d", small_dict, "-s", "3x4", "--min", "40"]
    args += ["--buckets", BUCKETS, "--corner-buckets", CORNERS, "--dask", address, "--log", str(log)]
    env = {**os.environ, "NO_COLOR": "1"}
    child = pexpect.spawn(sys.executable, args, timeout=90, encoding="utf-8", dimensions=(40, 200), env=env)
    done: list[int] = []
    while len(done) < 2 or done[-1] < 3:
        child.expect(r"(\d+)/27,?135 \S+ ETA \S+ (\d+) boards")
        done.append(int(child.match.group(1)))
    assert done == sorted(done)
    child.sendintr()
    started = time.monotonic()
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    printed = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", child.before or "")
    _assert_interrupted(started, child.exitstatus, printed, log)
    assert "boggle-dafsa: interrupted" in printed
    # The cluster drops the proof's tasks: those under way stop after their class.
    with Client(address, set_as_default=False) as client:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (any(client.processing().values()) or client.who_has()):
            time.sleep(0.2)
        assert not any(client.processing().values())


@pytest.mark.slow
def test_a_bad_dask_address_is_one_line_and_exit_2(small_dict: str) -> None:
    # Without the [dask] extra: tests/test_parallel.py.
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    for address in ("nonsense", "http://127.0.0.1:1", "tls://127.0.0.1:8786", "127.0.0.1:99999", ":::"):
        result = run_cli("prove", "-d", small_dict, "--min", "5", "--dask", address)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, (address, result.stderr)
        assert "Dask scheduler address" in result.stderr
    result = run_cli("prove", "-d", small_dict, "--min", "5", "--dask", "127.0.0.1:8786", "--jobs", "2")
    assert result.returncode == 2 and "exclude each other" in result.stderr


# -- dice ---------------------------------------------------------------------------------------


def make_dice(dice: list[str], name: str = "test") -> DiceSet:
    faces = tuple(tuple(face.upper() for face in (die.split() if " " in die else die)) for die in dice)
    return DiceSet(name=name, title=name, dice=faces, shape=(1, len(faces)), scoring=CLASSIC, language=None, source=name)


def dice_brute_force(dictionary: str, spec: P.ProofSpec) -> dict[str, tuple[int, int]]:
    """Every board the spec's dice can roll (a distinct die per cell, some left over), scored."""
    found = brute_force(dictionary, spec)
    rollable: dict[tuple[str, ...], bool] = {}

    def rolls(board: tuple[str, ...]) -> bool:
        key = tuple(sorted(board))
        if key not in rollable:
            rollable[key] = any(
                all(face in spec.dice[die] for face, die in zip(key, chosen))
                for chosen in itertools.permutations(range(len(spec.dice)), len(key))
            )
        return rollable[key]

    def cells(text: str) -> tuple[str, ...]:
        # Canonical keys join the faces with spaces when some face has several letters.
        return tuple(text.split(" ")) if " " in text else tuple(text)

    return {text: value for text, value in found.items() if rolls(cells(text))}


@each("prover")
@pytest.mark.parametrize(("shape", "minimum", "options"), CASES_FIRST_FAST)
def test_a_proof_with_dice_finds_exactly_the_boards_they_roll(
    small_dict: str, kernel: str, shape: tuple[int, int], minimum: int, options: dict[str, object]
) -> None:
    # Six dice, with faces no word holds (Z), the same letter twice, one A only.
    dice = make_dice(["ACCTTZ", "EOOSTZ", "CCOOTZ", "STTZZZ", "EECSTT", "SSSTTZ"])
    spec = P.make_spec(small_dict, shape, minimum, buckets=BUCKETS + " Z", corner_buckets=CORNERS + "Z", dice=dice, **options)  # type: ignore[arg-type]
    assert "Z" in spec.faces
    expected = dice_brute_force(small_dict, spec)
    assert expected and expected != brute_force(small_dict, spec), "the dice should matter"
    assert proven(spec, kernel) == expected


@each("prover")
def test_dice_with_qu_and_multi_letter_faces_prove_as_brute_force(tmp_path: Path, kernel: str) -> None:
    dictionary = str(dictionary_from_words([*QU_WORDS, "test", "tests", "stet"], tmp_path).path)
    dice = make_dice(["QU A E I O U", "ST E E T O S", "S T U I A E", "A E QU T S O"])
    spec = P.make_spec(dictionary, (2, 2), 2, buckets="AEIOU Q(st)ST", dice=dice)
    assert "QU" in spec.faces and "ST" in spec.faces and "Q" not in spec.faces
    expected = dice_brute_force(dictionary, spec)
    assert any("QU" in text for text in expected) and any("ST" in text.split(" ") for text in expected)
    assert proven(spec, kernel) == expected


@pytest.mark.slow
@settings(max_examples=30)
@given(
    words=st.lists(st.text(alphabet="ABCE", min_size=2, max_size=4), min_size=1, max_size=30),
    dice=st.lists(st.text(alphabet="ABCEZ", min_size=6, max_size=6), min_size=4, max_size=6),
    shape=st.sampled_from([(2, 2), (1, 4), (2, 3)]),
    minimum=st.integers(1, 6),
    objective=st.sampled_from(["points", "words"]),
    split=st.integers(1, 3),
)
def test_any_word_list_and_dice_prove_as_brute_force(
    tmp_path_factory: pytest.TempPathFactory,
    words: list[str],
    dice: list[str],
    shape: tuple[int, int],
    minimum: int,
    objective: str,
    split: int,
) -> None:
    from boggle_dafsa.board.grid import format_shape

    dictionary = str(dictionary_from_words(words, tmp_path_factory.mktemp("any")).path)
    from boggle_dafsa.dictionaries.resolve import open_dictionary

    # The dictionary's letters (those on no die are passed over) and the dice's (Z maybe).
    alphabet = "".join(sorted(set(open_dictionary(dictionary).alphabet) | set("".join(dice))))
    buckets = " ".join(part for part in (alphabet[:split], alphabet[split:]) if part)
    dice_set = make_dice(dice)
    if len(dice) < shape[0] * shape[1]:
        with pytest.raises(BoggleError, match=f"too few for a {format_shape(shape)} grid"):
            P.make_spec(dictionary, shape, minimum, objective=objective, buckets=buckets, dice=dice_set)
        return
    spec = P.make_spec(dictionary, shape, minimum, objective=objective, buckets=buckets, min_length=2, dice=dice_set)
    expected = dice_brute_force(dictionary, spec)
    for kernel in PROVER:
        assert proven(spec, kernel) == expected


def test_the_dice_filter_keeps_exactly_the_faces_some_roll_shows() -> None:
    import random

    rng = random.Random(5)
    for _ in range(400):
        faces = rng.randint(2, 5)
        dice = [rng.randint(1, (1 << faces) - 1) for _ in range(rng.randint(1, 6))]
        sets = [sorted(rng.sample(range(faces), rng.randint(1, faces))) for _ in range(rng.randint(1, len(dice)))]
        shown: list[set[int]] = [set() for _ in sets]
        any_roll = False
        for chosen in itertools.permutations(range(len(dice)), len(sets)):
            if all(any(dice[die] >> face & 1 for face in sets[cell]) for cell, die in enumerate(chosen)):
                any_roll = True
                for cell, die in enumerate(chosen):
                    shown[cell] |= {face for face in sets[cell] if dice[die] >> face & 1}
        assert P.dice_filter(dice, sets) == ([sorted(faces) for faces in shown] if any_roll else None)


def test_classes_the_dice_cannot_fill_are_left_out(small_dict: str) -> None:
    # One die shows C or O, two show A or E, two S or T.
    dice = make_dice(["AAEEAE", "COCOCO", "SSTTST", "AESTAE", "AEAEAE"])
    free = P.make_spec(small_dict, (2, 2), 1, buckets=BUCKETS, corner_buckets=BUCKETS)
    spec = P.make_spec(small_dict, (2, 2), 1, buckets=BUCKETS, corner_buckets=BUCKETS, dice=dice)
    assert spec.key() != free.key() and spec.buckets == free.buckets
    kept = spec.classes()
    assert kept and len(kept) < len(free.classes())

    def fills(numbers: tuple[int, ...]) -> bool:
        buckets = [set(spec.buckets[number]) for number in numbers]
        return any(
            all(buckets[cell] & set(spec.dice[die]) for cell, die in enumerate(chosen))
            for chosen in itertools.permutations(range(len(spec.dice)), len(numbers))
        )

    assert kept == [numbers for numbers in free.classes() if fills(numbers)]
    assert any(numbers.count(spec.buckets.index(("C", "O"))) == 2 for numbers in free.classes())


@pytest.mark.slow
def test_the_command_proves_with_a_dice_file(small_dict: str, tmp_path: Path) -> None:
    dice_file = tmp_path / "six.txt"
    dice_file.write_text("shape: 2x3\nACCTTZ\nEOOSTZ\nCCOOTZ\nSTTZZZ\nEECSTT\nSSSTTZ\n")
    for shape in ("2x2", "2x3"):
        args = ["prove", "-d", small_dict, "-s", shape, "--min", "4", "--dice", str(dice_file), "--buckets", BUCKETS + " Z"]
        result = run_cli(*args, "--json")
        assert result.returncode == 0, result.stderr
        data = json.loads(result.stdout)
        rows, columns = map(int, shape.split("x"))
        spec = P.make_spec(
            small_dict, (rows, columns), 4, buckets=BUCKETS + " Z", dice=make_dice(dice_file.read_text().split()[2:])
        )
        expected = dice_brute_force(small_dict, spec)
        assert {board["grid"].replace("/", ""): (board["points"], board["words"]) for board in data["boards"]} == expected
        assert data["dice"] == "six" and data["classes"] == len(spec.classes())
        text = run_cli(*args)
        assert f"{len(expected):,} boards that dice six can roll" in text.stdout
    for args, message in (
        (["-s", "3x3"], "too few for a 3x3 grid"),
        (["--qu"], "--qu does not go with dice"),
        (["--buckets", "AE CO"], "leave out"),
        (["--buckets", "AE CO ST (TH)Z"], "'TH' is not a face of the dice"),
        (["--buckets", "AE CO S(T Z"], "unbalanced or empty parentheses"),
    ):
        result = run_cli("prove", "-d", small_dict, "--min", "4", "--dice", str(dice_file), "-s", "2x2", *args)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr
    unknown = run_cli("prove", "-d", small_dict, "--min", "4", "--dice", "nosuchset")
    assert unknown.returncode == 2 and "unknown dice set" in unknown.stderr


def test_a_dice_set_brings_its_scoring_and_one_that_is_given_wins(small_dict: str) -> None:
    from dataclasses import replace

    dice = replace(make_dice(["ACCTTZ", "EOOSTZ", "CCOOTZ", "STTZZZ"]), scoring=LETTERS)
    assert P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS + " Z", dice=dice).scoring == "letters"
    assert P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS + " Z", dice=dice, scoring="classic").scoring == "classic"
    assert P.make_spec(small_dict, (2, 2), 3, buckets=BUCKETS).dice == ()


def test_the_command_s_memory_default_is_the_library_s() -> None:
    import inspect

    from boggle_dafsa.cli import prove as command

    assert inspect.signature(command.prove).parameters["memory"].default == P.DEFAULT_MEMORY_MB
    assert P.DEFAULT_NODE_BUDGET * P.NODE_BYTES <= P.DEFAULT_MEMORY_MB << 20


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="the resident memory is read in /proc")
def test_a_class_s_peak_memory_is_its_own_not_the_largest_before_it() -> None:
    # A large class first, then a small one: the small one's peak is below the large one's by
    # most of the large tree (it would equal it if a class's peak were the process's so far).
    spec = P.make_spec("enable2k", (3, 3), 500)
    context = P.context_for(spec)
    sizes = {index: context.run(spec.letter_sets(context.classes[index]), spec.node_budget).nodes for index in range(0, 60, 6)}
    large, small = max(sizes, key=sizes.__getitem__), min(sizes, key=sizes.__getitem__)
    first, second = P.prove_one(spec, large), P.prove_one(spec, small)
    assert first.peak_kb > 0 and second.peak_kb > 0
    assert (first.peak_kb - second.peak_kb) * 1024 > (sizes[large] - sizes[small]) * 8 // 2, (first, second, sizes)
    # And the process's own peak, which `time` and a parent read, is still the largest class's.
    import resource

    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >= first.peak_kb * 0.95
    # And the log keeps it: a line read back is the class proven.
    assert P.ClassResult.from_json(second.to_json("key")) == second
