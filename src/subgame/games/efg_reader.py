"""The reader of Gambit ``.efg`` files (the format: :mod:`subgame.games.efg_file`).

A node written on one line, with names free of escapes, is read by one regular-expression
match (the form every writer we know produces); anything else, and every error, goes
through the token-by-token reader, whose messages name the file and the line. The tree
is read with a stack of the nodes whose children are still to come, never by recursion.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..errors import GameDefinitionError
from ..files import read_text_file
from .efg_file import EFGFile, EFGInfoset, EFGNode, EFGOutcome, efg_error

#: Chance probabilities written as decimals may sum to 1 up to this much (rounding of
#: ``1/6`` written ``0.16666666666666666``); the game then divides them by their sum.
PROB_SUM_TOLERANCE = 1e-9

# One token, with the whitespace before it: a quoted string (quotes kept, so that "" is
# not an empty group), a brace, a comma, a word, or a quote that is never closed.
_TOKEN = re.compile(r'(\s*)(?:("(?:[^"\\]|\\.)*")|([{}])|(,)|([^\s{}",]+)|("))', re.DOTALL)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE]([+-]?\d+))?(/\d+)?")
#: Payoffs and probabilities are used as float64; an exponent beyond this is refused before
#: an exact fraction of it (a number with that many digits) is built.
_MAX_EXPONENT = 400

# The one-line form of a node: fields apart by spaces, names without escapes or line breaks.
_SP = r"[ \t]+"
_NAME = r'"([^"\\\n]*)"'
_OUTCOME = _SP + r"(\d+)(?:" + _SP + _NAME + r'[ \t]*\{([^{}"\n]*)\})?(?=\s|$)(?!\s*")'
_ACTION = r'"([^"\\\n]*)"'
_CHANCE_ACTION = r'[ \t,]*"[^"\\\n]*"[ \t,]*[^\s{}",]+'


def _infoset(action: str) -> str:
    return r"(\d+)(?:" + _SP + _NAME + r"(?:[ \t]*\{((?:" + action + r")*)[ \t,]*\})?)?"


_FAST = {
    "t": re.compile(r"(\s*)t" + _SP + _NAME + _OUTCOME),
    "p": re.compile(r"(\s*)p" + _SP + _NAME + _SP + r"([12])" + _SP + _infoset(r'[ \t]*"[^"\\\n]*"') + _OUTCOME),
    "c": re.compile(r"(\s*)c" + _SP + _NAME + _SP + _infoset(_CHANCE_ACTION) + _OUTCOME),
}
_FAST_ACTIONS = re.compile(_ACTION)
_SPACE = re.compile(r"\s*")
_FAST_CHANCE_ACTIONS = re.compile(r'"([^"\\\n]*)"[ \t,]*([^\s{}",]+)')
_FAST_PAYOFF = re.compile(r"[^\s,]+")


@dataclass(frozen=True)
class _Token:
    kind: str  # "str", "{", "}", "word" (a comma is the word ","), "end", "unclosed"
    text: str
    line: int


#: A node without its children: kind, name, player, information set, outcome, line.
_Head = tuple[str, str, int, int, int, int]


class _Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.text = text
        self.pos = 0  # where the next token's whitespace starts
        self.line = 1  # the line at pos
        self.last = _Token("end", "", 1)  # the token read last
        self.numbers: dict[str, Fraction] = {}
        self.infosets: dict[tuple[int, int], EFGInfoset] = {}
        self.infoset_line: dict[tuple[int, int], int] = {}
        self.outcomes: dict[int, EFGOutcome] = {}
        self.rounded: list[tuple[int, Fraction]] = []  # (line, sum) of chance probabilities summing to 1 up to rounding

    # -- tokens --------------------------------------------------------------------------
    def err(self, tok: _Token, message: str) -> GameDefinitionError:
        return efg_error(self.source, tok.line, message)

    def _match(self) -> tuple[_Token, int]:
        """The next token and where it ends."""
        m = _TOKEN.match(self.text, self.pos)
        if m is None:
            return _Token("end", "", self.line + self.text.count("\n", self.pos)), len(self.text)
        ws, quoted, brace, comma, word, unclosed = m.groups()
        line = self.line + ws.count("\n")
        if word or comma:
            return _Token("word", word or comma, line), m.end()
        if quoted:
            body = quoted[1:-1]
            return _Token("str", re.sub(r"\\(.)", r"\1", body) if "\\" in body else body, line), m.end()
        return (_Token(brace, brace, line) if brace else _Token("unclosed", unclosed, line)), m.end()

    def peek(self) -> _Token:
        return self._match()[0]

    def advance(self, end: int) -> None:
        self.line += self.text.count("\n", self.pos, end)
        self.pos = end

    def next(self, what: str) -> _Token:
        tok, end = self._match()
        if tok.kind == "end":
            raise self.err(tok, f"the file ends where {what} was expected; it is cut short")
        if tok.kind == "unclosed":
            raise self.err(tok, "a string opened here is never closed; add the closing '\"'")
        self.advance(end)
        self.last = tok
        return tok

    def string(self, what: str, lines: bool = False) -> str:
        """A quoted string; only the title and the comment may run over several lines."""
        tok = self.next(what)
        if tok.kind != "str":
            raise self.err(tok, f"expected {what} as a quoted string, found {tok.text!r}")
        if "\n" in tok.text and not lines:
            raise self.err(tok, f"{what} opened here runs over {tok.text.count(chr(10)) + 1} lines; "
                           "is its closing '\"' missing?")
        return tok.text

    def integer(self, what: str, low: int = 0) -> int:
        tok = self.next(what)
        if tok.kind != "word" or not tok.text.isdigit():
            raise self.err(tok, f"expected {what} (a whole number), found {tok.text!r}")
        value = int(tok.text)
        if value < low:
            raise self.err(tok, f"{what} must be at least {low}, got {value}")
        return value

    def number(self, what: str) -> Fraction:
        tok = self.next(what)
        value = self.to_number(tok.text, tok.line) if tok.kind == "word" else None
        if value is None:
            raise self.err(tok, f"expected {what} (a number such as 1, -2.5 or 1/3), found {tok.text!r}")
        return value

    def to_number(self, text: str, line: int) -> Fraction | None:
        """``text`` as an exact number; None if it is not one (the caller says what was expected)."""
        known = self.numbers.get(text)
        if known is not None:
            return known
        match = _NUMBER.fullmatch(text)
        if match is None:
            return None
        too_big = efg_error(self.source, line, f"the number {text} is beyond the float64 numbers this library computes "
                            f"with (magnitudes up to {sys.float_info.max:.3g}); rescale the game")
        if match.group(4) is not None and abs(int(match.group(4))) > _MAX_EXPONENT:
            raise too_big
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise efg_error(self.source, line, f"{text!r} is not a number (a fraction needs a non-zero denominator)") from None
        if value.numerator.bit_length() - value.denominator.bit_length() > 1022 and abs(value) > sys.float_info.max:
            raise too_big
        self.numbers[text] = value
        return value

    def expect(self, kind: str, what: str) -> _Token:
        tok = self.next(what)
        if tok.kind != kind:
            raise self.err(tok, f"expected {what}, found {tok.text!r}")
        return tok

    def skip_commas(self) -> None:
        while self.peek().kind == "word" and self.peek().text == ",":
            self.next("','")

    # -- the file --------------------------------------------------------------------------
    def parse(self) -> EFGFile:
        head = self.next("the header 'EFG 2 R'")
        if head.text != "EFG":
            raise self.err(head, f"not a Gambit .efg file: it must start with 'EFG 2 R', found {head.text!r}")
        version = self.next("the format version 2")
        if version.text != "2":
            raise self.err(version, f"only version 2 of the .efg format is read, found {version.text!r}")
        kind = self.next("R or D")
        if kind.text not in ("R", "D"):
            raise self.err(kind, f"expected R (rational) or D (decimal) after 'EFG 2', found {kind.text!r}")
        title = self.string("the game's title", lines=True)
        brace = self.expect("{", "'{' opening the list of players")
        players = []
        while self.peek().kind == "str":
            players.append(self.string("a player's name"))
        self.expect("}", "'}' closing the list of players")
        if len(players) != 2:
            raise self.err(brace, f"the game has {len(players)} players; only two-player games are supported")
        comment = self.string("the comment", lines=True) if self.peek().kind == "str" else ""
        if self.peek().kind == "end":
            raise self.err(self.peek(), "the file has no nodes; add the game tree after the header")
        nodes = self.tree()
        extra = self.peek()
        if extra.kind != "end":
            raise self.err(extra, f"text after the last node of the tree: {extra.text!r}; a file holds one tree")
        if self.rounded:
            line, total = self.rounded[0]
            warnings.warn(f"{self.source}: the chance probabilities of {len(self.rounded)} information set(s) sum to 1 "
                          f"only up to rounding (line {line}: {readable_sum(total)}); they are divided by their sum",
                          stacklevel=4)
        return EFGFile(title, (players[0], players[1]), comment, nodes, dict(self.infosets), dict(self.outcomes))

    def tree(self) -> tuple[EFGNode, ...]:
        """All nodes in depth-first order, read with a stack of the nodes whose children are still to come."""
        nodes: list[EFGNode | None] = []
        open_nodes: list[tuple[int, _Head, list[int], int]] = []  # (index, the node's own part, children, how many)
        while True:
            index = len(nodes)
            nodes.append(None)
            if open_nodes:
                open_nodes[-1][2].append(index)
            head, arity = self.fast_node() or self.node()
            if arity:
                open_nodes.append((index, head, [], arity))
                continue
            nodes[index] = EFGNode(*head[:5], (), head[5])
            while open_nodes and len(open_nodes[-1][2]) == open_nodes[-1][3]:
                at, head, children, _ = open_nodes.pop()
                nodes[at] = EFGNode(*head[:5], tuple(children), head[5])
            if not open_nodes:
                return tuple(n for n in nodes if n is not None)

    def fast_node(self) -> tuple[_Head, int] | None:
        """A node in the one-line form, or None (nothing read) for :meth:`node` to read it."""
        first = _SPACE.match(self.text, self.pos)
        start = self.text[first.end():first.end() + 1] if first is not None else ""
        pattern = _FAST.get(start)
        m = pattern.match(self.text, self.pos) if pattern is not None else None
        if m is None:
            return None
        line = self.line + m.group(1).count("\n")
        g = m.groups()[1:]
        if start == "t":
            outcome = self.fast_outcome(g[1:], line)
            if outcome is None:
                return None
            self.advance(m.end())
            return ("t", g[0], 0, 0, outcome, line), 0
        player = int(g[1]) if start == "p" else 0
        rest = g[2:] if start == "p" else g[1:]
        number, name, actions = int(rest[0]), rest[1], rest[2]
        if number < 1:
            return None
        key = (player, number)
        if actions is None:
            if key not in self.infosets:
                return None
            infoset = self.infosets[key] if name is None else self.use_infoset(key, name, line)
        else:
            probs: list[Fraction] = []
            if player:
                found = _FAST_ACTIONS.findall(actions)
            else:
                pairs = _FAST_CHANCE_ACTIONS.findall(actions)
                found = [a for a, _ in pairs]
                for _, text in pairs:
                    value = self.to_number(text, line)
                    if value is None or value < 0:
                        return None
                    probs.append(value)
            infoset = self.declare_infoset(key, name, found, probs, line)
        outcome = self.fast_outcome(rest[3:], line)
        if outcome is None:
            return None
        self.advance(m.end())
        return (start, g[0], player, number, outcome, line), len(infoset.actions)

    def fast_outcome(self, groups: tuple[str | None, ...], line: int) -> int | None:
        number, name, payoffs = groups[0], groups[1], groups[2]
        if number is None:  # the pattern requires it
            return None
        if name is None or payoffs is None:
            return int(number) if int(number) == 0 or int(number) in self.outcomes else None
        values = [self.to_number(p, line) for p in _FAST_PAYOFF.findall(payoffs)]
        if len(values) != 2 or values[0] is None or values[1] is None:
            return None
        return self.declare_outcome(int(number), name, (values[0], values[1]), line)

    def node(self) -> tuple[_Head, int]:
        """One node's own part (children left empty) and its number of children."""
        tok = self.next("a node ('c', 'p' or 't')")
        if tok.kind != "word" or tok.text not in ("c", "p", "t"):
            raise self.err(tok, f"expected a node: 'c' (chance), 'p' (player) or 't' (terminal), found {tok.text!r}")
        name = self.string("the node's name")
        if tok.text == "t":
            return ("t", name, 0, 0, self.outcome(), tok.line), 0
        player = 0 if tok.text == "c" else self.integer("the player (1 or 2)", low=1)
        if player > 2:
            raise self.err(tok, f"player {player} does not exist; the game has players 1 and 2")
        number = self.integer("the information set's number", low=1)
        infoset = self.infoset((player, number))
        outcome = self.outcome()
        return (tok.text, name, player, number, outcome, tok.line), len(infoset.actions)

    def infoset(self, key: tuple[int, int]) -> EFGInfoset:
        who = "chance" if key[0] == 0 else f"player {key[0]}"
        if self.peek().kind != "str":  # a repeated information set may leave out its name and actions
            if key not in self.infosets:
                raise self.err(self.peek(), f"information set {key[1]} of {who} appears here for the first time "
                               "without its name and actions; give them")
            return self.infosets[key]
        start = self.peek()
        name = self.string("the information set's name")
        if self.peek().kind != "{":
            if key not in self.infosets:
                raise self.err(self.peek(), f"information set {key[1]} of {who} needs its actions in '{{ }}' "
                               "where it first appears")
            return self.use_infoset(key, name, start.line)
        self.expect("{", "'{' opening the actions")
        actions: list[str] = []
        probs: list[Fraction] = []
        while self.peek().kind == "str":
            actions.append(self.string("an action's name"))
            if key[0] == 0:
                self.skip_commas()
                p = self.number("the action's probability")
                if p < 0:
                    raise self.err(self.last, f"chance probability {p} is negative")
                probs.append(p)
            self.skip_commas()
        self.expect("}", "'}' closing the actions (each action a quoted name" + (" and a probability)" if key[0] == 0 else ")"))
        return self.declare_infoset(key, name, actions, probs, start.line)

    def use_infoset(self, key: tuple[int, int], name: str, line: int) -> EFGInfoset:
        """A known information set named again without its actions."""
        known = self.infosets[key]
        if name != known.name:
            who = "chance" if key[0] == 0 else f"player {key[0]}"
            raise efg_error(self.source, line, f"information set {key[1]} of {who} is named {name!r} here but "
                            f"{known.name!r} on line {self.infoset_line[key]}")
        return known

    def declare_infoset(self, key: tuple[int, int], name: str, actions: list[str], probs: list[Fraction],
                        line: int) -> EFGInfoset:
        """An information set with its actions: new, or the same as where it first appeared."""
        who = "chance" if key[0] == 0 else f"player {key[0]}"
        if not actions:
            raise efg_error(self.source, line, f"information set {key[1]} of {who} has no actions")
        if len(set(actions)) != len(actions):
            raise efg_error(self.source, line, f"information set {key[1]} of {who} names an action twice: {actions}")
        infoset = EFGInfoset(name, tuple(actions), tuple(probs))
        known = self.infosets.get(key)
        if known is not None:
            if known != infoset:
                raise efg_error(self.source, line, f"information set {key[1]} of {who} has other actions here than "
                                f"on line {self.infoset_line[key]} ({list(known.actions)})")
            return known
        if key[0] == 0:
            self.check_sum(probs, line)
        self.infosets[key] = infoset
        self.infoset_line[key] = line
        return infoset

    def check_sum(self, probs: list[Fraction], line: int) -> None:
        """Probabilities sum to 1 exactly, or up to rounding (noted, for one warning per file)."""
        total = sum(probs, Fraction(0))
        if total == 1:
            return
        if abs(total - 1) <= PROB_SUM_TOLERANCE:
            self.rounded.append((line, total))
            return
        hint = ("; write rounded decimals with all their digits (0.16666666666666666) or as fractions (1/6)"
                if abs(total - 1) < Fraction(1, 10_000) else "")
        raise efg_error(self.source, line, f"chance probabilities sum to {readable_sum(total)}, not 1{hint}")

    def outcome(self) -> int:
        number = self.integer("the outcome's number (0 for none)")
        at = self.last
        if self.peek().kind != "str":
            if number and number not in self.outcomes:
                raise self.err(at, f"outcome {number} is used before it is defined; give its name and payoffs here")
            return number
        name = self.string("the outcome's name")
        self.expect("{", "'{' opening the outcome's payoffs")
        payoffs: list[Fraction] = []
        self.skip_commas()
        while self.peek().kind == "word":
            payoffs.append(self.number("a payoff"))
            self.skip_commas()
        self.expect("}", "'}' closing the payoffs")
        if len(payoffs) != 2:
            raise self.err(at, f"outcome {number} has {len(payoffs)} payoffs; give one per player (two)")
        return self.declare_outcome(number, name, (payoffs[0], payoffs[1]), at.line)

    def declare_outcome(self, number: int, name: str, payoffs: tuple[Fraction, Fraction], line: int) -> int:
        if number == 0:
            if any(payoffs):
                raise efg_error(self.source, line, "outcome 0 means 'no outcome' and cannot have payoffs; give it a number")
            return 0
        known = self.outcomes.get(number)
        if known is None:
            self.outcomes[number] = EFGOutcome(name, payoffs)
        elif known.payoffs != payoffs:
            raise efg_error(self.source, line, f"outcome {number} has payoffs {[str(p) for p in payoffs]} here but "
                            f"{[str(p) for p in known.payoffs]} where it was first defined")
        return number


def readable_sum(total: Fraction) -> str:
    """A sum of probabilities as a reader takes it in: ``5/6``, ``1 - 1e-06`` or ``0.9``."""
    if total.denominator <= 1000:
        return str(total)
    gap = total - 1
    if abs(gap) < Fraction(1, 1000):
        return f"1 {'+' if gap > 0 else '-'} {float(abs(gap)):.2g}"
    return f"{float(total):.6g}"


def parse_efg(text: str, source: str = "<efg>") -> EFGFile:
    """Read the text of a Gambit ``.efg`` file (see :mod:`subgame.games.efg_file`).

    Chance probabilities summing to 1 only up to :data:`PROB_SUM_TOLERANCE` (decimals
    that OpenSpiel and Python scripts write) are kept as written, with one warning.

    Raises:
        GameDefinitionError: the text is not a valid two-player ``.efg`` file; the message
            names ``source`` and the line.
    """
    return _Parser(text, source).parse()


def read_efg_file(path: str | os.PathLike[str]) -> EFGFile:
    """Read and parse the ``.efg`` file at ``path``.

    Raises:
        GameDefinitionError: the file cannot be read or is not a valid ``.efg`` file.
    """
    file = Path(path)
    text = read_text_file(file, ".efg", GameDefinitionError)
    return parse_efg(text, str(file))
