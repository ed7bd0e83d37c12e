"""Parsing patterns and regular expressions into automata, with errors that point at a column.

Letters in a query go through the dictionary's normalization one by one (``normalize`` is
the dictionary's): with the folding policy ``é`` is ``E``, ``ß`` is ``SS``, and a French
query matches the folded words. Anything that cannot be a letter of a word is an error:
words hold letters only, so a digit could never match. A backslash takes the next character
literally (``\\*``): what the keys of the raw policy, which hold any character, need.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from boggle_dafsa.errors import QueryError
from boggle_dafsa.query.automata import ANY, Letters, Pattern, Vowels

Normalizer = Callable[[str], "str | None"]

#: A decomposed letter: the probe of whether a policy composes text (see :class:`_Reader`).
_DECOMPOSED = "e\u0301"
#: Longest pattern or regex accepted (characters).
MAX_QUERY_LENGTH = 1000
#: Largest bound of a regex repetition ``{m,n}``.
MAX_REPEAT = 100
#: Most NFA states a regex may compile to (``(ab){100}`` inside ``{100}`` would need 20,000).
MAX_NFA_STATES = 10_000


class Ranges(Letters):
    """A bracket class with ranges: the listed letters plus every letter within a range."""

    __slots__ = ("ranges",)

    def __init__(self, members: set[str], ranges: list[tuple[str, str]], negated: bool) -> None:
        super().__init__(members, negated)
        self.ranges = tuple(ranges)

    def __contains__(self, letter: object) -> bool:
        inside = letter in self.members or any(low <= letter <= high for low, high in self.ranges)  # type: ignore[operator]
        return inside != self.negated

    def empty(self) -> bool:
        return not self.negated and not self.members and not self.ranges


class _Reader:
    """A cursor over the query text that builds located errors."""

    def __init__(self, kind: str, text: str, normalize: Normalizer) -> None:
        if len(text) > MAX_QUERY_LENGTH:
            raise QueryError(f"{kind} too long ({len(text):,} characters, at most {MAX_QUERY_LENGTH:,})")
        self.kind = kind
        # Composed (NFC) as the words of fold and exact are; a policy that keeps decomposed
        # text as it is (raw keys) gets the query as typed.
        self.text = text if normalize(_DECOMPOSED) == _DECOMPOSED else unicodedata.normalize("NFC", text)
        self.pos = 0
        self.normalize = normalize

    def error(self, what: str, pos: int | None = None) -> QueryError:
        column = (self.pos if pos is None else pos) + 1
        return QueryError(f"bad {self.kind} {self.text!r}: {what} at column {column}")

    def peek(self) -> str | None:
        return self.text[self.pos] if self.pos < len(self.text) else None

    def letters(self, char: str, pos: int) -> str:
        """The normalized letters of ``char`` (one or more), or a located error."""
        key = self.normalize(char)
        if not key:
            raise self.error(f"{char!r} is not a letter", pos)
        return key

    def escaped(self, start: int) -> str:
        """The letters of the character after a backslash (at ``start``), taken literally.

        What a key of the raw policy needs to hold ``*``, ``?``, ``[`` or a backslash; under
        the other policies such a character is no letter, and the escape an error.
        """
        char = self.peek()
        if char is None:
            raise self.error("a backslash at the end escapes nothing", start)
        if char.isalnum():
            # \d, \w, \n...: classes and controls elsewhere, never a plain letter here.
            raise self.error(f"escape \\{char} is not supported (a backslash escapes punctuation only)", start)
        self.pos += 1
        return self.letters(char, start)

    def bracket(self, negations: str) -> Letters:
        """A ``[...]`` class; the ``[`` is already read. ``negations``: the characters that negate."""
        opened = self.pos - 1
        negated = False
        first = self.peek()
        if first is not None and first in negations:
            negated = True
            self.pos += 1
        members: set[str] = set()
        ranges: list[tuple[str, str]] = []
        while True:
            char = self.peek()
            if char is None:
                raise self.error("unterminated class [", opened)
            if char == "]":
                self.pos += 1
                break
            start = self.pos
            if char == "\\":
                char = self.escaped(start)  # a member, whatever it is
                self.pos -= 1
            low = self.single(char, start)
            self.pos += 1
            if self.peek() == "-" and self.pos + 1 < len(self.text) and self.text[self.pos + 1] != "]":
                high_pos = self.pos + 1
                high = self.single(self.text[high_pos], high_pos)
                if high < low:
                    raise self.error(f"empty range {low}-{high}", start)
                ranges.append((low, high))
                self.pos += 2
            else:
                members.add(low)
        if not members and not ranges:
            raise self.error("empty class", opened)
        return Ranges(members, ranges, negated) if ranges else Letters(members, negated)

    def single(self, char: str, pos: int) -> str:
        key = self.letters(char, pos)
        if len(key) != 1:
            raise self.error(f"{char!r} stands for {len(key)} letters ({key}), not one, in a class", pos)
        return key


# -- patterns -------------------------------------------------------------------------------


def parse_pattern(text: str, normalize: Normalizer) -> Pattern:
    """The :class:`Pattern` of ``text``: ``?`` a letter, ``*`` any run, ``[ABC]``, ``[^ABC]`` or
    ``[!ABC]``, ``@`` a vowel, ``#`` a consonant, anything else a letter."""
    reader = _Reader("pattern", text, normalize)
    if not reader.text:
        raise QueryError("bad pattern '': empty")
    tokens: list[Letters | None] = []
    while (char := reader.peek()) is not None:
        start = reader.pos
        reader.pos += 1
        if char == "?":
            tokens.append(ANY)
        elif char == "*":
            tokens.append(None)
        elif char == "@":
            tokens.append(Vowels())
        elif char == "#":
            tokens.append(Vowels(negated=True))
        elif char == "[":
            tokens.append(reader.bracket("^!"))
        elif char == "]":
            raise reader.error("unmatched ]", start)
        elif char == "\\":
            tokens.extend(Letters(letter) for letter in reader.escaped(start))
        else:
            tokens.extend(Letters(letter) for letter in reader.letters(char, start))
    return Pattern(tokens)


# -- regular expressions ----------------------------------------------------------------------

# The syntax tree: ("set", Letters) | ("cat", [nodes]) | ("alt", [nodes]) | ("rep", node, m, n or None)
Node = tuple


class _RegexParser(_Reader):
    """The regex syntax, into the tree above.

    Anchors: words are matched whole, so ``^`` holds wherever nothing can come before it and
    ``$`` wherever nothing can come after it, and there they change nothing. ``^`` is taken
    at the start of the regex and at the start of every branch of a group that stands first
    (``(^RE|UN)DO``); ``$`` at the end of the regex and at the end of every branch of a group
    that nothing follows (``RE(DO$|DID)``). Anywhere else an anchor could never hold (``A^B``,
    ``(A$)B``, ``(^A)+``): an error at its column, not a regex that silently matches nothing.
    """

    def parse(self) -> Node:
        #: The positions of the anchors read so far (``^`` and ``$``), each a claim that
        #: nothing comes before (after) it, checked against what follows its group.
        self.carets: list[int] = []
        self.dollars: list[int] = []
        node = self.alternation(at_start=True)
        if self.peek() == ")":
            raise self.error("unbalanced parenthesis )")
        if self.peek() is not None:  # pragma: no cover - alternation stops only at ) or the end
            raise self.error(f"unexpected {self.peek()!r}")
        return node

    def alternation(self, at_start: bool) -> Node:
        branches = [self.concatenation(at_start)]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.concatenation(at_start))
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concatenation(self, at_start: bool) -> Node:
        items: list[Node] = []
        if at_start and self.peek() == "^":
            self.carets.append(self.pos)
            self.pos += 1
        while (char := self.peek()) is not None and char not in "|)":
            if char == "$":
                if self.text[self.pos + 1 : self.pos + 2] not in ("", "|", ")"):
                    raise self.error("$ only at the end")
                self.dollars.append(self.pos)
                self.pos += 1
                continue
            dollars = len(self.dollars)
            items.append(self.repetition(at_start and not items))
            following = self.peek()
            if len(self.dollars) > dollars and following is not None and following not in "|)$":
                raise self.error("$ only at the end", self.dollars[dollars])
        return items[0] if len(items) == 1 else ("cat", items)

    def repetition(self, at_start: bool = False) -> Node:
        carets, dollars = len(self.carets), len(self.dollars)
        node = self.atom(at_start)
        while (char := self.peek()) is not None and char in "*+?{":
            start = self.pos
            self.pos += 1
            if char == "*":
                node = ("rep", node, 0, None)
            elif char == "+":
                node = ("rep", node, 1, None)
            elif char == "?":
                node = ("rep", node, 0, 1)
            else:
                low, high = self.bounds(start)
                node = ("rep", node, low, high)
            if node[3] != 1:  # a second time round, what the anchor claims no longer holds
                if len(self.carets) > carets:
                    raise self.error("^ only at the start", self.carets[carets])
                if len(self.dollars) > dollars:
                    raise self.error("$ only at the end", self.dollars[dollars])
        return node

    def bounds(self, start: int) -> tuple[int, int | None]:
        close = self.text.find("}", self.pos)
        if close < 0:
            raise self.error("unterminated repetition {", start)
        body = self.text[self.pos : close]
        low_text, comma, high_text = body.partition(",")
        if not low_text.isdigit() or (high_text and not high_text.isdigit()):
            raise self.error(f"bad repetition {{{body}}}", start)
        low = int(low_text)
        high = int(high_text) if high_text else (None if comma else low)
        if high is not None and high < low:
            raise self.error(f"bad repetition {{{body}}}: {high} < {low}", start)
        if max(low, high or 0) > MAX_REPEAT:
            raise self.error(f"repetition {{{body}}} over {MAX_REPEAT}", start)
        self.pos = close + 1
        return low, high

    def atom(self, at_start: bool = False) -> Node:
        start = self.pos
        char = self.text[start]
        self.pos += 1
        if char == "(":
            if self.text.startswith("?:", self.pos):
                self.pos += 2
            elif self.peek() == "?":
                raise self.error("unsupported group (?", start)
            node = self.alternation(at_start)
            if self.peek() != ")":
                raise self.error("unbalanced parenthesis (", start)
            self.pos += 1
            return node
        if char == ".":
            return ("set", ANY)
        if char == "[":
            return ("set", self.bracket("^"))
        if char in "*+?{":
            raise self.error(f"nothing to repeat before {char}", start)
        if char == "]" or char == "}":
            raise self.error(f"unmatched {char}", start)
        if char == "^":
            raise self.error("^ only at the start", start)
        letters = self.escaped(start) if char == "\\" else self.letters(char, start)
        if len(letters) == 1:
            return ("set", Letters(letters))
        return ("cat", [("set", Letters(letter)) for letter in letters])


class Regex:
    """A regular expression over whole words, as a Thompson NFA read through sets of states.

    A state of this automaton is the frozenset of NFA states reached (letter-reading states
    and the final one); :class:`LazyDFA` numbers them as the search meets them, so a regex
    costs only the DFA states the dictionary actually visits, never the full (possibly
    exponential) determinization.
    """

    def __init__(self, text: str, normalize: Normalizer) -> None:
        parser = _RegexParser("regex", text, normalize)
        tree = parser.parse()
        self.text = parser.text
        # NFA: edge[i] is the letter set a state reads (None: an epsilon state), out[i] where
        # it goes on a letter, eps[i] where it goes for free. State 0 is the final state.
        self.edge: list[Letters | None] = [None]
        self.out: list[int] = [-1]
        self.eps: list[list[int]] = [[]]
        self.initial = self._compile(tree, 0)
        self._live = self._live_states()

    def _new(self, edge: Letters | None, out: int = -1, eps: list[int] | None = None) -> int:
        if len(self.edge) >= MAX_NFA_STATES:
            raise QueryError(f"bad regex {self.text!r}: too large (over {MAX_NFA_STATES:,} automaton states)")
        self.edge.append(edge)
        self.out.append(out)
        self.eps.append(eps if eps is not None else [])
        return len(self.edge) - 1

    def _compile(self, node: Node, after: int) -> int:
        # Compiled back to front: each node gets the state that follows it and returns its entry.
        kind = node[0]
        if kind == "set":
            return self._new(node[1], after)
        if kind == "cat":
            for item in reversed(node[1]):
                after = self._compile(item, after)
            return after
        if kind == "alt":
            return self._new(None, eps=[self._compile(branch, after) for branch in node[1]])
        _, body, low, high = node
        entry = after
        if high is None:
            loop = self._new(None)
            self.eps[loop] = [self._compile(body, loop), after]
            entry = loop
        else:
            for _ in range(high - low):
                entry = self._new(None, eps=[self._compile(body, entry), after])
        for _ in range(low):
            entry = self._compile(body, entry)
        return entry

    def _live_states(self) -> frozenset[int]:
        # States from which the final state can be reached: the search prunes the others.
        back: list[list[int]] = [[] for _ in self.edge]
        for i, edge in enumerate(self.edge):
            if edge is not None and not edge.empty():
                back[self.out[i]].append(i)
            for target in self.eps[i]:
                back[target].append(i)
        live, todo = {0}, [0]
        while todo:
            for source in back[todo.pop()]:
                if source not in live:
                    live.add(source)
                    todo.append(source)
        return frozenset(live)

    def _closure(self, states: set[int]) -> frozenset[int]:
        seen: set[int] = set()
        todo = list(states)
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            todo.extend(self.eps[state])
        # Only reading states and the final state tell states apart; dead ones never matter.
        return frozenset(s for s in seen if (s == 0 or self.edge[s] is not None) and s in self._live)

    def start(self) -> frozenset[int]:
        return self._closure({self.initial})

    def step(self, state: frozenset[int], letter: str) -> frozenset[int] | None:
        targets = {self.out[s] for s in state if s and letter in self.edge[s]}  # type: ignore[operator]
        return self._closure(targets) if targets else None

    def is_match(self, state: frozenset[int]) -> bool:
        return 0 in state

    def can_match(self, state: frozenset[int]) -> bool:
        return bool(state)
