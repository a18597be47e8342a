"""Gambit extensive-form game files (``.efg``): a reader, a writer, and the game they describe.

The format (Gambit's "extensive form game file", version 2) lists the nodes of a game tree
in depth-first order after a header ``EFG 2 R "title" { "Player 1" "Player 2" } "comment"``:

* ``c "node" INFOSET "infoset" { "action" PROB ... } OUTCOME`` — a chance node; PROB a
  fraction (``1/3``) or a decimal (``0.25``);
* ``p "node" PLAYER INFOSET "infoset" { "action" ... } OUTCOME`` — player 1's or 2's move;
* ``t "node" OUTCOME "outcome" { PAYOFF PAYOFF }`` — a terminal node.

An OUTCOME is a number (0: none) followed, where it first appears, by its name and one
payoff per player; payoffs of the outcomes on a path add up. An information set's name and
actions may be left out where it appears again. :func:`parse_efg` reads this with exact
fractions and refuses anything else with the file and line; :func:`write_efg` writes it
back so that reading the result gives the same :class:`EFGFile`.

:class:`EFGGame` plays such a file: two players, zero-sum (payoffs summing to one constant
at every terminal; player 0's payoff is the utility), perfect recall. A ``.efg`` file holds
information sets, not observations, so the public and private observations the compiler
needs are derived from them, one depth at a time (:func:`_derive_observations`): what a
player knows at a node is her information set where she acts there and her own last move
elsewhere. Nodes a player cannot tell apart share a public state (closed transitively: the
common-knowledge partition); a move's public observation names the public state it leads
to, and a player's private observation is her new information set (or move) where the
public state and what she knew do not already determine it. This needs the acting player
to be common knowledge and every information set to lie at one depth; files where that
fails are refused with a message saying so.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import GameDefinitionError
from ..files import read_text_file
from .base import CHANCE, TERMINAL, Game


# -- the file ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EFGNode:
    """One node of an ``.efg`` tree.

    Attributes:
        kind: ``"c"`` (chance), ``"p"`` (a player's move) or ``"t"`` (terminal).
        name: the node's name (often empty).
        player: 1 or 2 at ``"p"`` nodes, 0 otherwise.
        infoset: the information set's number (per player; per chance for ``"c"``), 0 at terminals.
        outcome: the outcome's number, 0 for none.
        children: indices of the child nodes, one per action of the information set.
        line: the line the node starts on (not part of equality: a written file may lay out lines otherwise).
    """

    kind: str
    name: str
    player: int
    infoset: int
    outcome: int
    children: tuple[int, ...]
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class EFGInfoset:
    """An information set: its name, action names and, for chance, the action probabilities."""

    name: str
    actions: tuple[str, ...]
    probs: tuple[Fraction, ...] = ()


@dataclass(frozen=True)
class EFGOutcome:
    """A named outcome: one payoff per player."""

    name: str
    payoffs: tuple[Fraction, Fraction]


@dataclass(frozen=True)
class EFGFile:
    """The content of an ``.efg`` file, nodes in depth-first order (node 0 is the root).

    ``infosets`` is keyed by ``(player, number)`` with player 0 for chance and 1, 2 for the
    players, as the file numbers them; ``outcomes`` by outcome number.
    """

    title: str
    players: tuple[str, str]
    comment: str
    nodes: tuple[EFGNode, ...]
    infosets: Mapping[tuple[int, int], EFGInfoset]
    outcomes: Mapping[int, EFGOutcome]


_TOKEN = re.compile(r'\s+|"((?:[^"\\]|\\.)*)"|([{}])|(,)|([^\s{}",]+)|(")', re.DOTALL)


@dataclass(frozen=True)
class _Token:
    kind: str  # "str", "{", "}", "word", "end", "unclosed"
    text: str
    line: int


def _tokens(text: str, source: str) -> list[_Token]:
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.group(5) is not None:  # reported when the parser gets there
            out.append(_Token("unclosed", '"', line))
            break
        if m.group(1) is not None:
            out.append(_Token("str", re.sub(r"\\(.)", r"\1", m.group(1)), line))
        elif m.group(2) is not None:
            out.append(_Token(m.group(2), m.group(2), line))
        elif m.group(4) is not None:
            out.append(_Token("word", m.group(4), line))
        line += m.group(0).count("\n")
        pos = m.end()
    out.append(_Token("end", "", line))
    return out


def _error(source: str, line: int | None, message: str) -> GameDefinitionError:
    where = source if line is None else f"{source}, line {line}"
    return GameDefinitionError(f"{where}: {message}")


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(/\d+)?")


class _Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.toks = _tokens(text, source)
        self.i = 0
        self.nodes: list[EFGNode | None] = []
        self.infosets: dict[tuple[int, int], EFGInfoset] = {}
        self.infoset_line: dict[tuple[int, int], int] = {}
        self.outcomes: dict[int, EFGOutcome] = {}

    def err(self, tok: _Token, message: str) -> GameDefinitionError:
        return _error(self.source, tok.line, message)

    def next(self, what: str) -> _Token:
        tok = self.toks[self.i]
        if tok.kind == "end":
            raise self.err(tok, f"the file ends where {what} was expected; it is cut short")
        if tok.kind == "unclosed":
            raise self.err(tok, "a string opened here is never closed; add the closing '\"'")
        self.i += 1
        return tok

    def peek(self) -> _Token:
        return self.toks[self.i]

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
        if tok.kind != "word" or not _NUMBER.fullmatch(tok.text):
            raise self.err(tok, f"expected {what} (a number such as 1, -2.5 or 1/3), found {tok.text!r}")
        try:
            return Fraction(tok.text)
        except (ValueError, ZeroDivisionError):
            raise self.err(tok, f"{what} {tok.text!r} is not a number (a fraction needs a non-zero denominator)") from None

    def expect(self, kind: str, what: str) -> _Token:
        tok = self.next(what)
        if tok.kind != kind:
            raise self.err(tok, f"expected {what}, found {tok.text!r}")
        return tok

    def skip_commas(self) -> None:
        while self.peek().kind == "word" and self.peek().text == ",":
            self.i += 1

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
        self.node()
        extra = self.peek()
        if extra.kind != "end":
            raise self.err(extra, f"text after the last node of the tree: {extra.text!r}; a file holds one tree")
        nodes = tuple(n for n in self.nodes if n is not None)
        return EFGFile(title, (players[0], players[1]), comment, nodes, dict(self.infosets), dict(self.outcomes))

    def node(self) -> int:
        """Parse one node and its subtree; return its index."""
        tok = self.next("a node ('c', 'p' or 't')")
        if tok.kind != "word" or tok.text not in ("c", "p", "t"):
            raise self.err(tok, f"expected a node: 'c' (chance), 'p' (player) or 't' (terminal), found {tok.text!r}")
        index = len(self.nodes)
        self.nodes.append(None)
        name = self.string("the node's name")
        if tok.text == "t":
            outcome = self.outcome(required=True)
            self.nodes[index] = EFGNode("t", name, 0, 0, outcome, (), tok.line)
            return index
        player = 0 if tok.text == "c" else self.integer("the player (1 or 2)", low=1)
        if player > 2:
            raise self.err(tok, f"player {player} does not exist; the game has players 1 and 2")
        number = self.integer("the information set's number", low=1)
        key = (player, number)
        infoset = self.infoset(key, chance=player == 0)
        outcome = self.outcome(required=False)
        children = tuple(self.node() for _ in infoset.actions)
        self.nodes[index] = EFGNode(tok.text, name, player, number, outcome, children, tok.line)
        return index

    def infoset(self, key: tuple[int, int], chance: bool) -> EFGInfoset:
        known = self.infosets.get(key)
        who = "chance" if chance else f"player {key[0]}"
        if self.peek().kind != "str":  # a repeated information set may leave out its name and actions
            if known is None:
                raise self.err(self.peek(), f"information set {key[1]} of {who} appears here for the first time "
                               "without its name and actions; give them")
            return known
        start = self.peek()
        name = self.string("the information set's name")
        if self.peek().kind != "{":
            if known is None:
                raise self.err(self.peek(), f"information set {key[1]} of {who} needs its actions in '{{ }}' "
                               "where it first appears")
            if name != known.name:
                raise self.err(start, f"information set {key[1]} of {who} is named {name!r} here but "
                               f"{known.name!r} on line {self.infoset_line[key]}")
            return known
        self.expect("{", "'{' opening the actions")
        actions: list[str] = []
        probs: list[Fraction] = []
        while self.peek().kind == "str":
            actions.append(self.string("an action's name"))
            if chance:
                self.skip_commas()
                p = self.number("the action's probability")
                if p < 0:
                    raise self.err(self.toks[self.i - 1], f"chance probability {p} is negative")
                probs.append(p)
            self.skip_commas()
        self.expect("}", "'}' closing the actions (each action a quoted name" + (" and a probability)" if chance else ")"))
        if not actions:
            raise self.err(start, f"information set {key[1]} of {who} has no actions")
        if len(set(actions)) != len(actions):
            raise self.err(start, f"information set {key[1]} of {who} names an action twice: {actions}")
        if chance and sum(probs) != 1:
            if abs(float(sum(probs)) - 1) < 1e-4:
                raise self.err(start, f"chance probabilities sum to {float(sum(probs))!r}, not 1; write rounded "
                               "decimals as fractions (1/3, not 0.333333)")
            raise self.err(start, f"chance probabilities {[str(p) for p in probs]} sum to {sum(probs)}, not 1")
        infoset = EFGInfoset(name, tuple(actions), tuple(probs))
        if known is not None and known != infoset:
            raise self.err(start, f"information set {key[1]} of {who} has other actions here than on line "
                           f"{self.infoset_line[key]} ({list(known.actions)})")
        self.infosets.setdefault(key, infoset)
        self.infoset_line.setdefault(key, start.line)
        return infoset

    def outcome(self, required: bool) -> int:
        number = self.integer("the outcome's number (0 for none)")
        at = self.toks[self.i - 1]
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
        if number == 0:
            if any(payoffs):
                raise self.err(at, "outcome 0 means 'no outcome' and cannot have payoffs; give it a number")
            return 0
        out = EFGOutcome(name, (payoffs[0], payoffs[1]))
        known = self.outcomes.setdefault(number, out)
        if known.payoffs != out.payoffs:
            raise self.err(at, f"outcome {number} has payoffs {[str(p) for p in out.payoffs]} here but "
                           f"{[str(p) for p in known.payoffs]} where it was first defined")
        return number


def parse_efg(text: str, source: str = "<efg>") -> EFGFile:
    """Read the text of a Gambit ``.efg`` file (see the module docstring).

    Raises:
        GameDefinitionError: the text is not a valid two-player ``.efg`` file; the message
            names ``source`` and the line.
    """
    return _Parser(text, source).parse()


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_efg(efg: EFGFile) -> str:
    """``efg`` as the text of a ``.efg`` file that :func:`parse_efg` reads back to an equal :class:`EFGFile`.

    Every information set and outcome is written in full where it first appears;
    probabilities and payoffs are exact fractions.
    """
    lines = [f"EFG 2 R {_quote(efg.title)} {{ {_quote(efg.players[0])} {_quote(efg.players[1])} }}",
             _quote(efg.comment), ""]
    seen_infosets: set[tuple[int, int]] = set()
    seen_outcomes: set[int] = set()

    def outcome(number: int) -> str:
        if number == 0 or number in seen_outcomes:
            return str(number)
        seen_outcomes.add(number)
        o = efg.outcomes[number]
        return f"{number} {_quote(o.name)} {{ {' '.join(str(p) for p in o.payoffs)} }}"

    def write(index: int, depth: int) -> None:
        n = efg.nodes[index]
        pad = "  " * depth
        if n.kind == "t":
            lines.append(f"{pad}t {_quote(n.name)} {outcome(n.outcome)}")
            return
        key = (n.player, n.infoset)
        head = f"{pad}{n.kind} {_quote(n.name)} " + (f"{n.player} " if n.kind == "p" else "") + str(n.infoset)
        if key not in seen_infosets:
            seen_infosets.add(key)
            inf = efg.infosets[key]
            if n.kind == "c":
                acts = " ".join(f"{_quote(a)} {p}" for a, p in zip(inf.actions, inf.probs))
            else:
                acts = " ".join(_quote(a) for a in inf.actions)
            head += f" {_quote(inf.name)} {{ {acts} }}"
        lines.append(f"{head} {outcome(n.outcome)}")
        for c in n.children:
            write(c, depth + 1)

    write(0, 0)
    return "\n".join(lines) + "\n"


def read_efg_file(path: str | os.PathLike[str]) -> EFGFile:
    """Read and parse the ``.efg`` file at ``path``.

    Raises:
        GameDefinitionError: the file cannot be read or is not a valid ``.efg`` file.
    """
    file = Path(path)
    text = read_text_file(file, ".efg", GameDefinitionError)
    return parse_efg(text, str(file))


# -- the game -------------------------------------------------------------------------------------
class EFGGame(Game[int]):
    """The game of an :class:`EFGFile`; a state is a node's index.

    Actions are the indices of an information set's actions (their names are the file's).
    Construction checks two players, zero (or constant) sum, perfect recall, and derives
    the observations (module docstring).
    """

    def __init__(self, efg: EFGFile, source: str = "<efg>", name: str | None = None):
        self.efg = efg
        self.source = source
        self.name = name or f"efg:{source}"
        self._digest = hashlib.sha256(write_efg(efg).encode()).hexdigest()[:16]
        self._utility = _utilities(efg, source)
        _check_perfect_recall(efg, source)
        self._obs = _derive_observations(efg, source)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> EFGGame:
        """Read the ``.efg`` file at ``path`` (the game is named ``efg:PATH``)."""
        return cls(read_efg_file(path), str(path))

    @property
    def params(self) -> Mapping[str, Any]:
        return {"sha256": self._digest}

    def root(self) -> int:
        return 0

    def actor(self, state: int) -> int:
        n = self.efg.nodes[state]
        return TERMINAL if n.kind == "t" else (CHANCE if n.kind == "c" else n.player - 1)

    def _infoset(self, state: int) -> EFGInfoset:
        n = self.efg.nodes[state]
        return self.efg.infosets[(n.player, n.infoset)]

    def legal_actions(self, state: int) -> tuple[int, ...]:
        return tuple(range(len(self.efg.nodes[state].children)))

    def chance_outcomes(self, state: int) -> tuple[tuple[int, float], ...]:
        return tuple((a, float(p)) for a, p in enumerate(self._infoset(state).probs))

    def next_state(self, state: int, action: int) -> int:
        return self.efg.nodes[state].children[action]

    def observations(self, state: int, action: int) -> tuple[str, str, str]:
        return self._obs[(state, action)]

    def utility(self, state: int) -> float:
        return self._utility[state]

    def action_name(self, state: int, action: int) -> str:
        return self._infoset(state).actions[action] or str(action)

    def utility_bound(self) -> float:
        return max((abs(u) for u in self._utility.values()), default=1.0) or 1.0

    def describe(self) -> str:
        return self.name


def load_efg_game(path: str | os.PathLike[str]) -> EFGGame:
    """The game of the ``.efg`` file at ``path`` (see :class:`EFGGame`)."""
    return EFGGame.load(path)


def _utilities(efg: EFGFile, source: str) -> dict[int, float]:
    """Player 0's payoff at every terminal (outcomes summed along the path); checks zero (constant) sum."""
    out: dict[int, float] = {}
    total: Fraction | None = None
    stack: list[tuple[int, tuple[Fraction, Fraction]]] = [(0, (Fraction(0), Fraction(0)))]
    while stack:
        i, acc = stack.pop()
        n = efg.nodes[i]
        if n.outcome:
            pay = efg.outcomes[n.outcome].payoffs
            acc = (acc[0] + pay[0], acc[1] + pay[1])
        if n.kind != "t":
            stack.extend((c, acc) for c in n.children)
            continue
        if total is None:
            total = acc[0] + acc[1]
        elif acc[0] + acc[1] != total:
            raise _error(source, n.line, f"payoffs {acc[0]}, {acc[1]} sum to {acc[0] + acc[1]}, but to {total} "
                         "elsewhere; only zero-sum (or constant-sum) games are supported")
        out[i] = float(acc[0])
    return out


def _paths(efg: EFGFile) -> tuple[list[int], list[int], list[int]]:
    """Parent, depth and the action (child position) leading to every node."""
    parent, depth, via = [-1] * len(efg.nodes), [0] * len(efg.nodes), [-1] * len(efg.nodes)
    for i, n in enumerate(efg.nodes):
        for a, c in enumerate(n.children):
            parent[c], depth[c], via[c] = i, depth[i] + 1, a
    return parent, depth, via


def _own_sequences(efg: EFGFile) -> list[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]:
    """Per node, each player's own (information set, action) moves on the path to it."""
    seqs: list[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = [((), ())] * len(efg.nodes)
    for i, n in enumerate(efg.nodes):  # depth-first order: parents first
        for a, c in enumerate(n.children):
            s = list(seqs[i])
            if n.kind == "p":
                s[n.player - 1] = s[n.player - 1] + ((n.infoset, a),)
            seqs[c] = (s[0], s[1])
    return seqs


def _check_perfect_recall(efg: EFGFile, source: str) -> None:
    """Every node of an information set has the same own moves before it and the same depth."""
    seqs = _own_sequences(efg)
    _, depth, _ = _paths(efg)
    first: dict[tuple[int, int], int] = {}
    for i, n in enumerate(efg.nodes):
        if n.kind != "p":
            continue
        key = (n.player, n.infoset)
        j = first.setdefault(key, i)
        name = efg.infosets[key].name
        if seqs[j][n.player - 1] != seqs[i][n.player - 1]:
            raise _error(source, n.line, f"player {n.player}'s information set {n.infoset} ({name!r}) is reached "
                         f"here after other own moves than on line {efg.nodes[j].line}: the game does not have "
                         "perfect recall, which this library needs")
        if depth[j] != depth[i]:
            raise _error(source, n.line, f"player {n.player}'s information set {n.infoset} ({name!r}) has nodes "
                         f"at depths {depth[j]} (line {efg.nodes[j].line}) and {depth[i]} (here); this library needs "
                         "every information set at one depth of the tree")


def _derive_observations(efg: EFGFile, source: str) -> dict[tuple[int, int], tuple[str, str, str]]:
    """``(node, action) -> (public, private_0, private_1)`` from information sets (module docstring).

    Runs one depth at a time: children a player cannot tell apart are linked (union-find)
    into public states; terminal children are grouped by parent public state and action.
    """
    nodes = efg.nodes
    seqs = _own_sequences(efg)

    def knows(i: int, p: int) -> tuple[Any, ...]:
        n = nodes[i]
        if n.kind == "p" and n.player == p + 1:
            return ("set", n.infoset)
        last = seqs[i][p][-1:]
        return ("move",) + last

    named: dict[tuple[int, int], str] = {}
    for p in (1, 2):
        mine = [(k, inf.name) for k, inf in efg.infosets.items() if k[0] == p]
        counts: dict[str, int] = {}
        for _, name in mine:
            counts[name] = counts.get(name, 0) + 1
        named.update({k: name if name and counts[name] == 1 else f"{p}:{k[1]}" for k, name in mine})

    def render(i: int, p: int) -> str:
        k = knows(i, p)
        if k[0] == "set":
            return named[(p + 1, k[1])]
        if len(k) == 1:
            return "-"
        infoset, action = k[1]
        return "=" + (efg.infosets[(p + 1, infoset)].actions[action] or f"#{action}")

    out: dict[tuple[int, int], tuple[str, str, str]] = {}
    level, public_of = [0], {0: 0}
    n_public = 1
    while level:
        kids = [(i, a, c) for i in level for a, c in enumerate(nodes[i].children)]
        link = list(range(len(kids)))
        holders: dict[Any, int] = {}
        for j, (i, a, c) in enumerate(kids):
            keys: list[Any] = [("end", public_of[i], a)] if nodes[c].kind == "t" else [(p, knows(c, p)) for p in (0, 1)]
            for key in keys:
                r = holders.setdefault(key, j)
                if r != j:
                    link[_find(link, j)] = _find(link, r)
        members: dict[int, list[int]] = {}
        for j in range(len(kids)):
            members.setdefault(_find(link, j), []).append(j)
        comp = [0] * len(kids)
        taken: dict[int, set[str]] = {}
        for js in members.values():
            parents = {public_of[kids[j][0]] for j in js}
            lines = sorted({nodes[kids[j][2]].line for j in js})[:4]
            if len(parents) > 1:
                raise _error(source, lines[-1], f"a player cannot tell apart the nodes on lines {', '.join(map(str, lines))} "
                             "though she could tell their parents apart (the game does not have perfect recall)")
            actors = {(nodes[kids[j][2]].kind, nodes[kids[j][2]].player) for j in js}
            if len(actors) > 1:
                raise _error(source, lines[-1], f"nodes on lines {', '.join(map(str, lines))} lie in one public state "
                             "(a player cannot tell them apart) but different players act there; this library "
                             "needs whose turn it is to be known to both players")
            i0, a0, _ = kids[js[0]]
            parent = nodes[i0]
            names = {efg.infosets[(nodes[kids[j][0]].player, nodes[kids[j][0]].infoset)].actions[kids[j][1]] for j in js}
            if len(names) == 1 and len({nodes[kids[j][0]].kind for j in js}) == 1:
                base = names.pop() or f"#{a0}"
            else:
                base = "" if parent.kind == "c" else f"p{parent.player}"
            used = taken.setdefault(parents.pop(), set())
            name, k = base, 1
            while name in used:
                k += 1
                name = f"{base}#{k}"
            used.add(name)
            for j in js:
                comp[j] = n_public
            n_public += 1
            for j in js:
                public_of[kids[j][2]] = comp[j]
            for j in js:
                out[(kids[j][0], kids[j][1])] = (name, "", "")
        # a private observation where what she knew and the public state do not fix what she knows now
        after: dict[tuple[int, Any, int], set[Any]] = {}
        for j, (i, _, c) in enumerate(kids):
            if nodes[c].kind != "t":
                for p in (0, 1):
                    after.setdefault((p, knows(i, p), comp[j]), set()).add(knows(c, p))
        nxt = []
        for j, (i, a, c) in enumerate(kids):
            if nodes[c].kind == "t":
                continue
            priv = ["" if len(after[(p, knows(i, p), comp[j])]) == 1 else render(c, p) for p in (0, 1)]
            out[(i, a)] = (out[(i, a)][0], priv[0], priv[1])
            nxt.append(c)
        level = nxt
    _check_infosets(efg, source, out)
    return out


def _find(link: list[int], x: int) -> int:
    """The representative of ``x`` in the union-find forest ``link`` (paths halved on the way)."""
    while link[x] != x:
        link[x] = link[link[x]]
        x = link[x]
    return x


def _check_infosets(efg: EFGFile, source: str, obs: Mapping[tuple[int, int], tuple[str, str, str]]) -> None:
    """Every information set is exactly one private state of one public state under ``obs``."""
    place_of: dict[tuple[int, int], tuple[Any, ...]] = {}
    infoset_at: dict[tuple[Any, ...], tuple[int, int]] = {}
    stack: list[tuple[int, tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]]] = [(0, (), ((), ()))]
    while stack:
        i, public, private = stack.pop()
        n = efg.nodes[i]
        if n.kind == "p":
            key, place = (n.player, n.infoset), (n.player, public, private[n.player - 1])
            if place_of.setdefault(key, place) != place or infoset_at.setdefault(place, key) != key:
                raise _error(source, n.line, f"player {n.player}'s information set {n.infoset} cannot be told apart "
                             "from the others by what the players observe; this library cannot represent this game")
        for a, c in enumerate(n.children):
            pub, o0, o1 = obs[(i, a)]
            stack.append((c, public + (pub,), (private[0] + (o0,), private[1] + (o1,))))


def efg_path(name: str) -> str:
    """The path in an ``efg:PATH`` (or bare ``PATH.efg``) game name."""
    return name[4:] if name.startswith("efg:") else name


__all__ = ["EFGFile", "EFGGame", "EFGInfoset", "EFGNode", "EFGOutcome", "efg_path", "load_efg_game", "parse_efg",
           "read_efg_file", "write_efg"]
