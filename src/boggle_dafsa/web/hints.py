"""Hints for a player stuck on a grid, the winner line of a room, and the server's LAN address.

Two hints, as in Lexica and Squaredle: the first letter (and length) of a word the player
has not found yet, and, once the player has found :data:`CELL_HINT_SHARE` of the grid's
words, how many of the words still to find start on each cell. They are off by default
in rooms (a room is a contest) and on in solo games.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boggle_dafsa.game.rounds import Game

#: Share of the grid's words a player must have found before the cell counts are given.
CELL_HINT_SHARE = 0.4


def hint_payload(game: Game) -> dict[str, Any]:
    """The hints for ``game`` as it stands.

    ``letter``: the first letter and length of the best-scoring word not found yet
    (the longest, then the first in byte order: what a player gains most from), or None
    when every word is found. ``cells``: once ``found >= 40 %`` of the words, for each
    cell, how many words not found yet start there (on the path the solver gives each
    word), else None.
    """
    found = set(game.found)
    left = [hit for hit in game.hits if hit.word not in found]
    total = len(game.hits)
    answer: dict[str, Any] = {
        "found": len(found),
        "total": total,
        "letter": None,
        "cells": None,
        "cells_after": CELL_HINT_SHARE,
    }
    if left:
        best = min(left, key=lambda hit: (-hit.points, -len(hit.word), hit.word))
        answer["letter"] = {"first": game.grid.faces[best.path[0]], "length": len(best.word), "points": best.points}
    if total and len(found) >= CELL_HINT_SHARE * total:
        counts = [0] * len(game.grid.faces)
        for hit in left:
            counts[hit.path[0]] += 1
        answer["cells"] = counts
    return answer


def winner_line(scores: Sequence[tuple[str, int]]) -> str | None:
    """``Alice wins with 12 points``, ``Alice and Bob tie with 9 points``, or None without players."""
    if not scores:
        return None
    best = max(score for _, score in scores)
    winners = [name for name, score in scores if score == best]
    points = f"{best} point{'' if best == 1 else 's'}"
    if len(winners) == 1:
        return f"{winners[0]} wins with {points}"
    names = ", ".join(winners[:-1]) + f" and {winners[-1]}"
    return f"{names} tie with {points}"


def lan_address() -> str | None:
    """This machine's address on its local network (the one others would use to reach it),
    or None. Found by the route the system would take, without sending anything: a UDP
    socket's ``connect`` only picks the interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 9))  # any non-local address: nothing is sent
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address
