"""Gambit extensive-form game files (``.efg``): their content and the writer.

The format (Gambit's "extensive form game file", version 2) lists the nodes of a game tree
in depth-first order after a header ``EFG 2 R "title" { "Player 1" "Player 2" } "comment"``:

* ``c "node" INFOSET "infoset" { "action" PROB ... } OUTCOME`` — a chance node; PROB a
  fraction (``1/3``) or a decimal (``0.25``);
* ``p "node" PLAYER INFOSET "infoset" { "action" ... } OUTCOME`` — player 1's or 2's move;
* ``t "node" OUTCOME "outcome" { PAYOFF PAYOFF }`` — a terminal node.

An OUTCOME is a number (0: none) followed, where it first appears, by its name and one
payoff per player; payoffs of the outcomes on a path add up. An information set's name and
actions may be left out where it appears again. :func:`~subgame.games.efg_reader.parse_efg`
reads this with exact fractions and refuses anything else with the file and line;
:func:`write_efg` writes it back so that reading the result gives the same :class:`EFGFile`.
Both walk the tree with an explicit stack, so a file as deep as it is long reads and
writes in time linear in its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import GameDefinitionError


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
    """An information set: its name, action names and, for chance, the action probabilities.

    ``probs`` are the file's, exactly; where decimals sum to 1 only up to rounding
    (:data:`~subgame.games.efg_reader.PROB_SUM_TOLERANCE`) the game divides them by their sum.
    """

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


def efg_error(source: str, line: int | None, message: str) -> GameDefinitionError:
    """The error for a bad ``.efg`` file, naming the file and, where known, the line."""
    where = source if line is None else f"{source}, line {line}"
    return GameDefinitionError(f"{where}: {message}")


# -- writing ----------------------------------------------------------------------------------------
#: Indentation shows the depth up to here, so that a deep tree's file stays linear in its size.
_MAX_INDENT = 16
#: OpenSpiel reads a fraction only where numerator and denominator are 32-bit integers.
_SMALL_INT = 2**31


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _exact_number(x: Fraction) -> str:
    """``x`` exactly: an integer, a finite decimal where the denominator allows one (OpenSpiel
    reads those, not fractions of big integers), else a fraction."""
    if x.denominator == 1 or (abs(x.numerator) < _SMALL_INT and x.denominator < _SMALL_INT):
        return str(x)
    d, twos, fives = x.denominator, 0, 0
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        return str(x)
    digits = max(twos, fives)
    scaled = abs(x.numerator) * 10**digits // x.denominator
    sign = "-" if x < 0 else ""
    whole, frac = divmod(scaled, 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}".rstrip("0")


def write_efg(efg: EFGFile, *, repeat_infosets: bool = True, decimals: bool = True) -> str:
    """``efg`` as the text of a ``.efg`` file that :func:`parse_efg` reads back to an equal :class:`EFGFile`.

    Every outcome is written in full where it first appears; probabilities and payoffs
    exactly (integers, fractions or finite decimals). Every node names its information
    set's actions (OpenSpiel's ``efg_game`` reads only such files); with
    ``repeat_infosets=False`` they are written only where the information set first
    appears, which Gambit allows. ``decimals=False`` writes every number as a fraction.
    """
    text_of = _exact_number if decimals else str
    lines = [f"EFG 2 R {_quote(efg.title)} {{ {_quote(efg.players[0])} {_quote(efg.players[1])} }}",
             _quote(efg.comment), ""]
    seen_infosets: set[tuple[int, int]] = set()
    seen_outcomes: set[int] = set()

    def outcome(number: int) -> str:
        if number == 0 or number in seen_outcomes:
            return str(number)
        seen_outcomes.add(number)
        o = efg.outcomes[number]
        return f"{number} {_quote(o.name)} {{ {' '.join(text_of(p) for p in o.payoffs)} }}"

    stack = [(0, 0)]
    while stack:
        index, depth = stack.pop()
        n = efg.nodes[index]
        pad = "  " * min(depth, _MAX_INDENT)
        if n.kind == "t":
            lines.append(f"{pad}t {_quote(n.name)} {outcome(n.outcome)}")
            continue
        key = (n.player, n.infoset)
        head = f"{pad}{n.kind} {_quote(n.name)} " + (f"{n.player} " if n.kind == "p" else "") + str(n.infoset)
        if repeat_infosets or key not in seen_infosets:
            seen_infosets.add(key)
            inf = efg.infosets[key]
            if n.kind == "c":
                acts = " ".join(f"{_quote(a)} {text_of(p)}" for a, p in zip(inf.actions, inf.probs))
            else:
                acts = " ".join(_quote(a) for a in inf.actions)
            head += f" {_quote(inf.name)} {{ {acts} }}"
        lines.append(f"{head} {outcome(n.outcome)}")
        stack.extend((c, depth + 1) for c in reversed(n.children))
    return "\n".join(lines) + "\n"
