"""What a server offers and how far it goes: its dictionaries, by name, its dice sets, and its limits."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boggle_dafsa.board.dice import BUILTIN_SETS, load_dice
from boggle_dafsa.dictionaries.resolve import EMBEDDED, embedded_name, open_dictionary
from boggle_dafsa.errors import BoggleError
from boggle_dafsa.game.bonus import FULL_LISTS

if TYPE_CHECKING:
    from boggle_dafsa.dictionary import Dictionary


@dataclass(frozen=True)
class Limits:
    """Every bound the server enforces; a request past one gets a clear error, never a crash."""

    #: Characters of a grid as typed (``IDXT/MHEI/...``).
    grid_chars: int = 2000
    #: Cells of a grid: a 20x20 grid solves in about 0.1 s with the French list.
    cells: int = 400
    #: Characters of a submitted word, of a player's name.
    word_chars: int = 64
    name_chars: int = 24
    #: Words submitted in one game (solo, or by one player of a room).
    words_per_game: int = 1000
    #: Bytes of a request body, of a query string, of a WebSocket message.
    body_bytes: int = 64 * 1024
    query_bytes: int = 4096
    message_bytes: int = 4096
    #: Rooms open at once, players in one room.
    rooms: int = 100
    players_per_room: int = 16
    #: Length of a game, in seconds (a room's, or the Play page's).
    min_seconds: int = 1
    max_seconds: int = 3600
    #: A room nobody touched for this long is closed when a new one is needed; one that no
    #: player ever joined, after room_unused_seconds.
    room_idle_seconds: int = 900
    room_unused_seconds: int = 120
    #: Open connections (HTTP and WebSocket) the server accepts at once (uvicorn answers 503 past it).
    connections: int = 512
    #: Open connections of one address (past it a new one gets a 429 and is closed at once):
    #: its WebSockets and a few tabs' requests; six addresses together reach `connections`.
    connections_per_client: int = 96
    #: Seconds a request's headers and body may take to arrive, from its first byte (a new
    #: connection's first request: from the connection): past it the connection is closed.
    request_seconds: float = 10.0
    #: Pages open at once for one player (a phone and a laptop, a few tabs).
    pages_per_player: int = 4
    #: A WebSocket that has not joined its room after this long is closed.
    join_seconds: int = 120
    # -- what one client may take (by address: see web/guard.py); each well below the global
    # cap, yet enough for a class behind one address (a school's NAT)
    #: Requests per second of one address (a bucket of request_burst): 429 past it.
    requests_per_second: float = 50.0
    request_burst: int = 200
    #: WebSockets open at once: one address, the whole server (below `connections`, so
    #: that plain requests still get through).
    sockets_per_client: int = 64
    sockets: int = 384
    #: Messages a second on one WebSocket, and from one address's WebSockets together
    #: (token buckets of message_burst, client_message_burst): past either the socket is
    #: closed with code 1008 and the reason.
    messages_per_second: float = 20.0
    message_burst: int = 60
    client_messages_per_second: float = 100.0
    client_message_burst: int = 300
    #: Rooms one address may have open at once (of `rooms`).
    rooms_per_client: int = 20
    #: Solves running at once: one address, the whole server; and the longest a solve
    #: (or a game's judging) may take before the client gets a 503.
    solves_per_client: int = 4
    solves: int = 16
    solve_seconds: float = 10.0
    #: Results of a word query (/api/match, /api/anagram...) at most: a ``limit`` above is
    #: refused, none gives this many. The query runs as a solve does: in a solve's slot,
    #: under solve_seconds.
    query_results: int = 1000
    #: The daily puzzle: results that count, and games started, from one address in a UTC
    #: day (all dice sets together): 429 past them. A class behind one NAT fits; a script
    #: inventing players does not get far (docs/web.md, "The daily puzzle is fair").
    daily_results_per_client: int = 40
    daily_starts_per_client: int = 120
    #: The arena: names made from one address in a day, players from one address on one
    #: board (a class behind one NAT fits; a script inventing players does not get far).
    arena_names_per_client: int = 40
    arena_players_per_client: int = 40
    #: Take the client's address from the last entry of X-Forwarded-For (only behind a
    #: proxy that sets it: `serve --trust-proxy`).
    trust_proxy: bool = False


class DictionaryCatalog:
    """The dictionaries a server offers, by name: the embedded ones and those given with ``-d``.

    Clients choose among these names; nothing a client sends is ever taken as a path.
    Files given with ``-d`` are opened at once (so a bad file stops the server before it
    starts); embedded lists are opened on first use (compiling one takes about a second).
    """

    def __init__(self, specs: list[str] | tuple[str, ...] = ()) -> None:
        """Offer the embedded dictionaries and ``specs`` (files or embedded names, as ``-d`` takes them)."""
        #: name -> (spec, description, kind); insertion order is the order clients see.
        self._entries: dict[str, tuple[str, str, str]] = {}
        self._opened: dict[str, Dictionary] = {}
        self._lock = threading.Lock()
        given: list[str] = []
        for spec in specs:
            if (name := embedded_name(spec)) is not None:
                given.append(name)
                continue
            dictionary = open_dictionary(spec)  # raises DictionaryError: the server does not start
            name = self._unique_name(Path(spec).stem or "dictionary", EMBEDDED)
            self._entries[name] = (spec, f"{Path(spec).name} ({len(dictionary):,} words)", "file")
            self._opened[name] = dictionary
            given.append(name)
        for name, description in EMBEDDED.items():
            self._entries[name] = (name, description, "embedded")
        #: The dictionary used when a client names none: the first ``-d``, else French.
        self.default = given[0] if given else "fr"

    def _unique_name(self, stem: str, taken: object) -> str:
        name, number = stem, 2
        while name in self._entries or name in taken:  # type: ignore[operator]
            name, number = f"{stem}-{number}", number + 1
        return name

    def names(self) -> list[str]:
        """Every name a client may ask for."""
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def describe(self) -> list[dict[str, object]]:
        """The list ``/api/dictionaries`` returns (names and descriptions, never server paths)."""
        return [
            {"name": name, "description": description, "kind": kind, "default": name == self.default}
            for name, (_spec, description, kind) in self._entries.items()
        ]

    def get(self, name: str | None) -> tuple[str, Dictionary]:
        """(name, dictionary) for ``name`` (None: the default); raises :class:`BoggleError` for an unknown name."""
        name = name or self.default
        if name not in self._entries:
            raise BoggleError(f"unknown dictionary {name!r} (this server has: {', '.join(self._entries)})")
        with self._lock:  # two first requests must not compile the same list twice
            if name not in self._opened:
                self._opened[name] = open_dictionary(self._entries[name][0])
            return name, self._opened[name]

    def is_open(self, name: str | None) -> bool:
        """True if ``name`` (None: the default) is open already, so that :meth:`get` returns at once."""
        return (name or self.default) in self._opened

    def bonus_for(self, common: str, asked: str | None) -> tuple[str, Dictionary] | None:
        """The full list of a game on the dictionary ``common``, whose other words are bonus
        words (:mod:`boggle_dafsa.game.bonus`): ``asked`` names one of this server's
        dictionaries; :data:`AUTO` takes the embedded pair's (``enable2k`` for ``en``) if the
        server offers it; None or "" (or ``common`` itself): none."""
        if asked == AUTO:
            asked = FULL_LISTS.get(common)
            if asked not in self:
                return None
        if not asked or asked == common:
            return None
        return self.get(asked)

    def for_language(self, name: str | None, language: str | None) -> tuple[str, Dictionary]:
        """The dictionary to play a dice set with: ``name`` if given, else the set's
        language if the server has it, else the default."""
        if not name and language in self._entries:
            name = language
        return self.get(name)


#: What a game asks for when it leaves its bonus list to the server: the embedded pair's.
AUTO = "auto"
#: The description of a request's ``bonus`` field.
BONUS_HELP = (
    'The full list whose words outside the dictionary are bonus words, counted and not scored: "auto" (the default)'
    " takes enable2k for en; null, none; or a dictionary of `/api/dictionaries` (docs/game.md#bonus-words)."
)


def dice_set(name: str) -> Any:
    """The built-in dice set ``name`` (a :class:`~boggle_dafsa.board.dice.DiceSet`): a client
    never names a file. Raises :class:`BoggleError` for any other name."""
    # Only the sets shipped with the package: a client never names a file.
    if name not in BUILTIN_SETS:
        raise BoggleError(f"unknown dice set {name!r} (known: {', '.join(BUILTIN_SETS)})")
    return load_dice(name)
