"""Neighbourhoods: the totals of grids that differ from one another in one cell only, in one walk.

The twin of ``_native_hood.h``. A *run* is a list of grids equal but for one cell (the
*wild* cell), each showing one of a few *variants* there: every board one letter away
from another in a given cell, which is most of what the best-board climb scores. The run
is walked once with the wild cell as a wildcard: a path that avoids it spells the same
word on every grid of the run (the run's *base* words, found once); a path that steps
onto it branches there over the variants, each branch walking on as that grid would. A
word counts for a variant when one of the variant's paths spells it and no base path
does (a word already counted for the run).

:func:`runs` cuts a batch of grids (face codes, one byte per cell) into such runs, the
way the compiled kernel does for a batch of totals; :func:`hood_totals` walks one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from time import monotonic
from typing import TYPE_CHECKING

from boggle_dafsa.solver.budget import CHECK_EVERY, TIMEOUT_MESSAGE

if TYPE_CHECKING:
    from boggle_dafsa.automaton.fileformat import NativeLayout

#: The shortest run walked together (below, each grid alone costs less); as in the C kernel.
MIN_RUN = 3
#: The most different faces of the wild cell in one run (a word's variants are the bits of 32).
MAX_VARIANTS = 32


def runs(codes: bytes, cells: int) -> Iterator[tuple[int, int, int]]:
    """Cut the grids of ``codes`` (``cells`` bytes each) into runs: (first grid, end, wild cell).

    A run of at least :data:`MIN_RUN` grids that differ from the first in one cell only
    (the same cell, at most :data:`MAX_VARIANTS` faces there) has that cell; any other
    grid comes alone, with wild cell -1.
    """
    grids = len(codes) // cells
    g = 0
    while g < grids:
        first = codes[g * cells : (g + 1) * cells]
        wild = -1
        if g + 1 < grids:
            second = codes[(g + 1) * cells : (g + 2) * cells]
            differ = [cell for cell in range(cells) if first[cell] != second[cell]]
            if len(differ) == 1:
                wild = differ[0]
        end = g + 1
        if wild >= 0:
            head, tail = first[:wild], first[wild + 1 :]
            faces = {first[wild]}
            while end < grids:
                other = codes[end * cells : (end + 1) * cells]
                if other[:wild] != head or other[wild + 1 :] != tail:
                    break
                if other[wild] not in faces:
                    if len(faces) == MAX_VARIANTS:
                        break
                    faces.add(other[wild])
                end += 1
        if wild >= 0 and end - g >= MIN_RUN:
            yield g, end, wild
        else:
            yield g, g + 1, -1
        g = end if wild >= 0 and end - g >= MIN_RUN else g + 1


def hood_totals(
    layout: NativeLayout,
    faces: Sequence[str],
    wild: int,
    variants: Sequence[str],
    table: Sequence[Sequence[int]],
    min_length: int,
    points: Sequence[int],
    deadline: float | None = None,
) -> list[tuple[int, int]]:
    """(words, points) of the grid ``faces`` with ``faces[wild]`` replaced by each of ``variants``.

    ``faces[wild]`` itself is not read. A face whose letters are not all in the
    dictionary's alphabet spells nothing. Raises ``IndexError`` when the cells point
    outside themselves or a path grows longer than the longest word (a damaged file), and
    ``TimeoutError`` past ``deadline`` (``time.monotonic()`` seconds), looking at the clock
    every :data:`~boggle_dafsa.solver.budget.CHECK_EVERY` steps, as the kernels do.
    """
    cells = layout.cells
    letter_bits = layout.letter_bits
    final = layout.final_flag
    longest = layout.longest_word

    def bits_of(face: str) -> tuple[str, tuple[int, ...]] | None:
        bits = tuple(letter_bits.get(letter, -1) for letter in face)
        return (face, bits) if bits and -1 not in bits else None

    shown = [bits_of(face) for face in faces]
    options = [bits_of(face) for face in variants]

    # The first-letter bits of each cell's neighbours: on the grid of each variant, and for
    # the base paths (on every grid) with the wild cell showing any variant.
    def first_bit(face: tuple[str, tuple[int, ...]] | None) -> int:
        return 0 if face is None else 1 << face[1][0]

    def reach_with(wild_bits: int) -> list[int]:
        reach = []
        for cell in range(len(faces)):
            bits = 0
            for other in table[cell]:
                bits |= wild_bits if other == wild else first_bit(shown[other])
            reach.append(bits)
        return reach

    reach_variant = [reach_with(first_bit(option)) for option in options]
    union = 0
    for option in options:
        union |= first_bit(option)
    reach_base = reach_with(union)
    base: set[str] = set()
    # By word: the variants whose paths through the wild cell spell it.
    later: dict[str, set[int]] = {}
    countdown = [CHECK_EVERY]

    def enter(state: int, face: tuple[str, tuple[int, ...]], cell: int, used: int, word: str, variant: int) -> None:
        # Step from `state` (reached by `word`) onto `cell`, showing `face` (its letters and
        # their bits), on the paths of `variant` (-1: a base path, which avoids the wild cell).
        for bit in face[1]:
            child = layout.child(state, bit)  # the format's one definition (NativeLayout)
            if child is None:
                return
            state = child
        head = cells[state]
        word += face[0]
        if head & final and len(word) >= min_length:
            if variant < 0:
                base.add(word)
            else:
                later.setdefault(word, set()).add(variant)
        # Walked on only when a neighbour's first letter follows (as search() does, which
        # also checks the length only then: a damaged file is reported when, and only
        # when, the search of one of the run's grids meets its damage).
        if not head & (reach_base[cell] if variant < 0 else reach_variant[variant][cell]):
            return
        if len(word) > longest:
            raise IndexError("a path longer than the longest word")
        if deadline is not None:
            countdown[0] -= 1
            if not countdown[0]:
                countdown[0] = CHECK_EVERY
                if monotonic() > deadline:
                    raise TimeoutError(TIMEOUT_MESSAGE)
        used |= 1 << cell
        for other in table[cell]:
            if used >> other & 1:
                continue
            if other == wild:
                for number, option in enumerate(options):
                    if option is not None:
                        enter(state, option, other, used, word, number)
            else:
                shown_face = shown[other]
                if shown_face is not None:
                    enter(state, shown_face, other, used, word, variant)

    if deadline is not None and monotonic() > deadline:
        raise TimeoutError(TIMEOUT_MESSAGE)
    for start in range(len(faces)):
        if start == wild:
            for number, option in enumerate(options):
                if option is not None:
                    enter(layout.root, option, start, 0, "", number)
        else:
            face = shown[start]
            if face is not None:
                enter(layout.root, face, start, 0, "", -1)
    last = len(points) - 1
    base_points = sum(points[min(len(word), last)] for word in base)
    totals = [[len(base), base_points] for _ in variants]
    for word, found in later.items():
        if word in base:
            continue
        worth = points[min(len(word), last)]
        for number in found:
            totals[number][0] += 1
            totals[number][1] += worth
    return [(words, total) for words, total in totals]
