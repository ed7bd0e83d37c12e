"""One search for every query: the dictionary's automaton and the query's, walked in step.

The walk is depth-first over the dictionary's ``children`` (in letter order, so words come
out in byte order), stepping the query's :class:`~.automata.LazyDFA` with each letter and
never entering a branch where the query cannot match. Two things keep it fast in Python:

- the query automaton is a lazily built DFA of integer states, so a step is a dict lookup;
- a minimal dictionary shares the ends of words between many prefixes, so the same
  (dictionary state, query state) pair is met again and again: a pair found to hold no
  match is remembered and skipped the next time (a pattern like ``*ING`` visits each pair
  once instead of every prefix of the list).

On a native file the walk reads the mapped cells itself (a bit test and a popcount per
letter, as the solver does); any other dictionary is walked through its ``children``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, islice
from typing import Any

from boggle_dafsa import compiled
from boggle_dafsa.errors import DictionaryError
from boggle_dafsa.query.automata import Automaton, LazyDFA, Levenshtein

#: Set to 1 to use the Python twin of every compiled kernel (read by :mod:`boggle_dafsa.compiled`).
PURE_VARIABLE = compiled.PURE_VARIABLE
#: Deepest walk on a format that does not say how long its longest word is (a damaged
#: file could otherwise send the walk round a cycle for ever).
DEFAULT_MAX_DEPTH = 4096
#: Most (dictionary state, query state) pairs remembered as dead; past it the walk goes on
#: without remembering more (slower, same results): memory stays bounded.
MAX_DEAD_PAIRS = 4_000_000


#: Words the compiled walks hand back in their first call (the first answers show at
#: once), then in calls of up to CHUNK_WORDS: memory stays flat whatever the language.
FIRST_CHUNK = 256
CHUNK_WORDS = 16384
#: Steps (cells visited) of a compiled walk between two returns to Python, where Ctrl-C,
#: --timeout and the deadlines of :func:`boggle_dafsa.solver.time_limit` are seen: a few
#: milliseconds of work.
STEP_BUDGET = 1 << 18


def search(dictionary: Any, automaton: Automaton[Any], limit: int | None = None, kernel: str = "auto") -> Iterator[str]:
    """The words of ``dictionary`` that ``automaton`` matches, in byte order, at most ``limit``.

    Streams: words come as the walk finds them, in bounded memory, whatever the size of
    the language (see :data:`CHUNK_WORDS`)."""
    if native_layout(dictionary) and select_kernel(kernel) == compiled.C:
        # The compiled walk returns its words a chunk at a time: iterate each chunk without
        # a Python frame per word.
        ensure_sound(dictionary)
        dfa = LazyDFA(automaton)
        if limit == 0 or dfa.start < 0:
            return iter(())
        return chain.from_iterable(chunk for chunk, _ in _compiled_chunks(dictionary, dfa, limit))
    return (word for word, _ in search_states(dictionary, automaton, limit, kernel))


def ensure_sound(dictionary: Any) -> None:
    """Raise "damaged" unless the dictionary's automaton holds what its file says (once per
    dictionary): then no walk can meet a cycle, a state leading nowhere, or more or longer
    words than the header says. Formats that state no bounds (marisa) are bounded by
    their own reader."""
    checked = getattr(dictionary, "checked", None)
    if checked is not None:
        checked()
        return
    bounds = getattr(dictionary, "_walk_bounds", None)
    if bounds is not None:
        max_depth, max_words = bounds()
        dictionary._check_below(dictionary.root, max_depth, max_words)


def check_deadline() -> None:
    """Raise ``TimeoutError`` if the deadline of an enclosing
    :func:`boggle_dafsa.solver.time_limit` has passed (the walks' work budget)."""
    from boggle_dafsa.solver.prepared import _seconds_left  # only once a walk has run long enough to look

    _seconds_left()


def search_states(
    dictionary: Any, automaton: Automaton[Any] | LazyDFA, limit: int | None = None, kernel: str = "auto"
) -> Iterator[tuple[str, Any]]:
    """Like :func:`search`, with the automaton's state at each word (a distance, blanks...).

    ``kernel``: on a native file, "c" (the C walk), "python" (its twin) or "auto"
    (compiled if built and ``BOGGLE_DAFSA_PURE`` is not set); other formats always use the
    generic walk.
    """
    dfa = automaton if isinstance(automaton, LazyDFA) else LazyDFA(automaton)
    if limit == 0 or dfa.start < 0:
        return
    states = dfa.states
    ensure_sound(dictionary)
    if not native_layout(dictionary):
        pairs: Iterator[tuple[str, int]] = _walk_generic(dictionary, dfa)
    elif select_kernel(kernel) == compiled.C:
        pairs = _walk_compiled(dictionary, dfa, limit)
    else:
        pairs = _walk_native(dictionary, dfa)
    for count, (word, sid) in enumerate(pairs, 1):
        yield word, states[sid]
        if count == limit:
            return


def select_kernel(kernel: str = "auto") -> str:
    """The kernel ``kernel`` stands for ("auto": "c" unless not built or ``BOGGLE_DAFSA_PURE`` is set)."""
    try:
        return compiled.choose("query walk", kernel)
    except compiled.KernelSettingError as error:
        raise ValueError(str(error)) from None


def _compiled_walk() -> Any:
    module = compiled.built("query walk")
    return None if module is None else module.walk


def _compiled_chunks(dictionary: Any, dfa: LazyDFA, limit: int | None) -> Iterator[tuple[list[str], list[int]]]:
    # _walk_native in C (_walk.c), a call per chunk of words or per STEP_BUDGET steps,
    # each resuming from the cursor where the previous one stopped.
    walk = _compiled_walk()
    layout = dictionary.layout()
    cells, root, alphabet, depth = layout.cells, layout.root, layout.alphabet, max_depth(dictionary)
    cursor = None
    chunk = FIRST_CHUNK
    left = limit
    while True:
        want = chunk if left is None else min(chunk, left)
        try:
            words, sids, cursor = walk(cells, root, alphabet, dfa, depth, want, MAX_DEAD_PAIRS, cursor, STEP_BUDGET)
        except ValueError as error:
            raise _damaged(dictionary, error) from None
        if words:
            yield words, sids
            if left is not None:
                left -= len(words)
            chunk = min(4 * chunk, CHUNK_WORDS)
        if cursor is None or left == 0:
            return
        check_deadline()


def _walk_compiled(dictionary: Any, dfa: LazyDFA, limit: int | None) -> Iterator[tuple[str, int]]:
    for words, sids in _compiled_chunks(dictionary, dfa, limit):
        yield from zip(words, sids)


def native_layout(dictionary: Any) -> bool:
    """True if ``dictionary`` is a native file the fast walks can read as one-cell state
    headers: a version 1 file in place, a version 2 file expanded (its census expands it
    anyway, see NativeDictionary.checked): the walks then stream, chunk by chunk."""
    return getattr(dictionary, "format_name", None) == "native" and dictionary.layout() is not None


def max_depth(dictionary: Any) -> int:
    """The longest word the dictionary can hold, as far as it says (else a safe bound)."""
    header = getattr(dictionary, "header", None)
    if header is not None and getattr(header, "longest_word", None) is not None:
        return int(header.longest_word)
    sidecar = getattr(dictionary, "sidecar", None)
    if sidecar is not None and getattr(sidecar, "longest_word", None):
        return int(sidecar.longest_word)
    return DEFAULT_MAX_DEPTH


def _walk_generic(dictionary: Any, dfa: LazyDFA) -> Iterator[tuple[str, int]]:
    children = dictionary.children
    is_word = dictionary.is_word
    trans, accept, step = dfa.trans, dfa.accept, dfa.step
    depth_limit = max_depth(dictionary)
    root = dictionary.root
    # Pairs are remembered only where states are shared: a marisa state is its prefix, unique.
    remember = isinstance(root, int)
    dead: set[tuple[Any, int]] = set()
    letters: list[str] = []
    # A frame: [children iterator, query state, (dictionary state, query state), found a word below?]
    stack: list[list[Any]] = [[iter(children(root)), dfa.start, None, False]]
    steps = 0
    while stack:
        steps += 1
        if not steps & 0xFFFF:  # the work budget, as STEP_BUDGET in C
            check_deadline()
        frame = stack[-1]
        sid = frame[1]
        for letter, child in frame[0]:
            nxt = trans[sid].get(letter)
            if nxt is None:
                nxt = step(sid, letter)
            if nxt < 0:
                continue
            key = (child, nxt)
            if remember and key in dead:
                continue
            letters.append(letter)
            if len(letters) > depth_limit:
                raise DictionaryError(
                    f"{getattr(dictionary, 'path', 'dictionary')}: damaged dictionary (a path longer than its longest word)"
                )
            found = False
            if accept[nxt] and is_word(child):
                found = True
                yield "".join(letters), nxt
            stack.append([iter(children(child)), nxt, key, found])
            break
        else:
            stack.pop()
            if frame[2] is None:
                continue
            letters.pop()
            if frame[3]:
                stack[-1][3] = True
            elif remember and len(dead) < MAX_DEAD_PAIRS:
                dead.add(frame[2])


def fuzzy_native(
    dictionary: Any,
    word: str,
    k: int,
    transpositions: bool = False,
    prefix: bool = False,
    limit: int | None = None,
    kernel: str = "auto",
) -> Iterator[tuple[str, int]]:
    """(word, distance) for the words of the native ``dictionary`` within ``k`` edits of
    ``word`` (``prefix``: whose closest prefix is), in byte order, at most ``limit``.

    The compiled kernel (``fuzzy`` in ``_walk.c``) keeps a row of the edit-distance table
    per depth of the walk, computed from its parent's row, with no query DFA: in C a row
    costs less than a table lookup. Its Python twin is the :class:`~.automata.Levenshtein`
    automaton through :func:`_walk_native`, without the dead-pair memo (the C walk has
    none, and on a damaged file the memo could skip a branch that C finds damaged).
    """
    ensure_sound(dictionary)
    if select_kernel(kernel) == "python":
        automaton = Levenshtein(word, k, transpositions, prefix)
        dfa = LazyDFA(automaton)
        found = islice(_walk_native(dictionary, dfa, max_dead=0), limit)
        return ((hit, automaton.distance(dfa.states[sid])) for hit, sid in found)
    return _fuzzy_compiled(dictionary, word, k, transpositions, prefix, limit)


def _fuzzy_compiled(
    dictionary: Any, word: str, k: int, transpositions: bool, prefix: bool, limit: int | None
) -> Iterator[tuple[str, int]]:
    # fuzzy in C, a chunk at a time as _compiled_chunks.
    fuzzy = compiled.built("query walk").fuzzy  # type: ignore[union-attr]

    layout = dictionary.layout()
    cells, root, alphabet, depth = layout.cells, layout.root, layout.alphabet, max_depth(dictionary)
    cursor = None
    chunk = FIRST_CHUNK
    left = limit
    while left != 0:
        want = chunk if left is None else min(chunk, left)
        try:
            words, distances, cursor = fuzzy(
                cells, root, alphabet, word, k, transpositions, prefix, depth, want, cursor, STEP_BUDGET
            )
        except ValueError as error:
            raise _damaged(dictionary, error) from None
        yield from zip(words, distances)
        if left is not None:
            left -= len(words)
        chunk = min(4 * chunk, CHUNK_WORDS)
        if cursor is None:
            return
        check_deadline()


def _damaged(dictionary: Any, error: ValueError) -> Exception:
    # The compiled walks' ValueError("damaged: what") as the library's error; others as they are.
    if not str(error).startswith("damaged: "):
        return error
    return DictionaryError(f"{dictionary.path}: damaged dictionary ({str(error)[9:]})")


def _walk_native(dictionary: Any, dfa: LazyDFA, max_dead: int = MAX_DEAD_PAIRS) -> Iterator[tuple[str, int]]:
    # _walk_generic on the mapped cells, with the hot loop kept in local variables. A state is
    # the index of its header cell: bit i says letter i of the alphabet follows, the top bit
    # says final, and the children's indices follow in letter order (see docs/format.md), so
    # the child of letter bit `low` sits popcount(head & (low - 1)) cells after the header.
    # Query transitions are kept per query state as a list indexed by letter bit, with two
    # masks: the bits already computed, and the bits that lead somewhere. A node's letters
    # are then filtered with one AND: dead letters cost nothing.
    # The state arithmetic of NativeLayout (the format's one definition), inlined.
    layout = dictionary.layout()
    cells = layout.cells
    alphabet = layout.alphabet
    width = len(alphabet)
    final_flag = layout.final_flag
    letter_mask = layout.letter_mask
    first = layout.header_cells
    accept = dfa.accept
    depth_limit = max_depth(dictionary)
    size = len(cells)
    table: list[list[int]] = []
    known: list[int] = []
    alive: list[int] = []

    def learn(sid: int, unknown: int) -> None:
        while len(table) < len(dfa.states):
            table.append([-1] * width)
            known.append(0)
            alive.append(0)
        row = table[sid]
        live = alive[sid]
        rest = unknown
        while rest:
            low = rest & -rest
            rest ^= low
            bit = low.bit_length() - 1
            nxt = dfa.step(sid, alphabet[bit])
            row[bit] = nxt
            if nxt >= 0:
                live |= low
        while len(table) < len(dfa.states):  # step() may have met new states
            table.append([-1] * width)
            known.append(0)
            alive.append(0)
        alive[sid] = live
        known[sid] |= unknown

    dead: set[int] = set()
    letters: list[str] = []
    stack: list[tuple[int, int, int, int, int, bool]] = []
    state = layout.root
    sid = dfa.start
    key = -1
    found = False
    steps = 0
    try:
        head = cells[state]
        learn(sid, head & letter_mask)
        bits = head & alive[sid]
        while True:
            steps += 1
            if not steps & 0xFFFF:  # the work budget, as STEP_BUDGET in C
                check_deadline()
            if bits:
                low = bits & -bits
                bits ^= low
                nxt = table[sid][low.bit_length() - 1]
                child = cells[state + first + (head & (low - 1)).bit_count()]
                if child >= size:
                    # Before the memo of dead pairs: a child outside the file would make the
                    # key of another (nxt * size + child) and be skipped unread (as _walk.c checks it).
                    raise IndexError(child)
                pair = nxt * size + child
                if pair in dead:
                    continue
                child_head = cells[child]
                letters.append(alphabet[low.bit_length() - 1])
                hit = False
                if child_head & final_flag and accept[nxt]:
                    hit = True
                    yield "".join(letters), nxt
                below = child_head & letter_mask
                if not below:  # a leaf: no frame needed
                    letters.pop()
                    if hit:
                        found = True
                    continue
                if len(letters) > depth_limit:
                    raise DictionaryError(f"{dictionary.path}: damaged dictionary (a path longer than its longest word)")
                stack.append((state, head, bits, sid, key, found))
                state, head, sid, key, found = child, child_head, nxt, pair, hit
                if below & ~known[sid]:
                    learn(sid, below & ~known[sid])
                bits = below & alive[sid]
            else:
                if not stack:
                    return
                letters.pop()
                below_found = found
                if not found and len(dead) < max_dead:
                    dead.add(key)
                state, head, bits, sid, key, found = stack.pop()
                if below_found:
                    found = True
    except IndexError:
        raise DictionaryError(
            f"{dictionary.path}: damaged dictionary (a transition points outside the file): rebuild it"
        ) from None
