"""Gambit extensive-form game files (``.efg``) as games.

The file format and its writer are in :mod:`subgame.games.efg_file`, the reader in
:mod:`subgame.games.efg_reader` (their names are exported here too). :class:`EFGGame` plays such a file: two players, zero-sum
(payoffs summing to one constant at every terminal; player 0's payoff is the utility),
perfect recall. A ``.efg`` file holds information sets, not observations, so the public
and private observations the compiler needs are derived from them, one depth at a time
(:func:`_derive_observations`): what a player knows at a node is her information set where
she acts there and her own last move elsewhere. Nodes a player cannot tell apart share a
public state (closed transitively: the common-knowledge partition); a move's public
observation names the public state it leads to, and a player's private observation is her
new information set (or move) where the public state and what she knew do not already
determine it. This needs the acting player to be common knowledge and every information
set to lie at one depth; files where that fails are refused with a message saying so.

Every pass over the tree is a loop over nodes in file order or over depths, never a
recursion, and sequences of moves are numbered (one integer per sequence), so a game as
deep as its file is long builds in time linear in the file.
"""

from __future__ import annotations

import hashlib
import math
import os
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from .base import CHANCE, TERMINAL, Game
from .efg_file import EFGFile, EFGInfoset, EFGNode, EFGOutcome, efg_error, write_efg
from .efg_reader import parse_efg, read_efg_file
from .public_states import linked_groups, unique_name


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
        # the text of the first writer (infosets and fractions written once), so that fingerprints stay those of older files
        self._digest = hashlib.sha256(write_efg(efg, repeat_infosets=False, decimals=False).encode()).hexdigest()[:16]
        self._chance = {key: _normalized(inf.probs) for key, inf in efg.infosets.items() if key[0] == 0}
        self._utility = _utilities(efg, source)
        sequences = _own_sequences(efg)
        _check_perfect_recall(efg, source, sequences[0])
        self._obs = _derive_observations(efg, source, sequences)

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
        n = self.efg.nodes[state]
        return self._chance[(n.player, n.infoset)]

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


def _normalized(probs: tuple[Fraction, ...]) -> tuple[tuple[int, float], ...]:
    """``(action, probability)`` pairs, divided by their sum where it is 1 only up to rounding."""
    total = sum(probs, Fraction(0))
    return tuple((a, float(p / total)) for a, p in enumerate(probs))


def _utilities(efg: EFGFile, source: str) -> dict[int, float]:
    """Player 0's payoff at every terminal (outcomes summed along the path); checks zero (constant) sum.

    Sums are exact, in integers: payoffs times the common denominator of all of them.
    """
    scale = math.lcm(*{p.denominator for o in efg.outcomes.values() for p in o.payoffs})
    scaled = {k: (o.payoffs[0].numerator * (scale // o.payoffs[0].denominator),
                  o.payoffs[1].numerator * (scale // o.payoffs[1].denominator)) for k, o in efg.outcomes.items()}
    out: dict[int, float] = {}
    total: int | None = None
    acc = [(0, 0)] * len(efg.nodes)
    for i, n in enumerate(efg.nodes):  # depth-first order: parents first
        a = acc[i]
        if n.outcome:
            pay = scaled[n.outcome]
            a = (a[0] + pay[0], a[1] + pay[1])
        if n.kind != "t":
            for c in n.children:
                acc[c] = a
            continue
        if total is None:
            total = a[0] + a[1]
        elif a[0] + a[1] != total:
            u, v, t = Fraction(a[0], scale), Fraction(a[1], scale), Fraction(total, scale)
            raise efg_error(source, n.line, f"payoffs {u}, {v} sum to {u + v}, but to {t} elsewhere; only zero-sum "
                            "(or constant-sum) games are supported")
        try:
            out[i] = a[0] / scale  # int / int: the float nearest the exact quotient
        except OverflowError:
            raise efg_error(source, n.line, "the payoffs on the path to this terminal add up to more than float64 "
                            f"holds ({sys.float_info.max:.3g}); rescale the game's payoffs") from None
    return out


def _paths(efg: EFGFile) -> tuple[list[int], list[int], list[int]]:
    """Parent, depth and the action (child position) leading to every node."""
    parent, depth, via = [-1] * len(efg.nodes), [0] * len(efg.nodes), [-1] * len(efg.nodes)
    for i, n in enumerate(efg.nodes):
        for a, c in enumerate(n.children):
            parent[c], depth[c], via[c] = i, depth[i] + 1, a
    return parent, depth, via


#: Per node, each player's own moves before it as a sequence number (0: none yet).
_SequenceIds = list[tuple[int, int]]


def _own_sequences(efg: EFGFile) -> tuple[_SequenceIds, list[tuple[int, int] | None]]:
    """Per node, each player's own (information set, action) moves on the path to it, as
    sequence numbers (equal numbers, equal sequences), and the last move of every sequence."""
    number: dict[tuple[int, int, int, int], int] = {}
    last: list[tuple[int, int] | None] = [None]
    seqs: _SequenceIds = [(0, 0)] * len(efg.nodes)
    for i, n in enumerate(efg.nodes):  # depth-first order: parents first
        for a, c in enumerate(n.children):
            s = seqs[i]
            if n.kind == "p":
                p = n.player - 1
                key = (p, s[p], n.infoset, a)
                k = number.get(key)
                if k is None:
                    k = number[key] = len(last)
                    last.append((n.infoset, a))
                s = (k, s[1]) if p == 0 else (s[0], k)
            seqs[c] = s
    return seqs, last


def _check_perfect_recall(efg: EFGFile, source: str, seqs: _SequenceIds) -> None:
    """Every node of an information set has the same own moves before it (``seqs``: :func:`_own_sequences`)
    and the same depth."""
    _, depth, _ = _paths(efg)
    first: dict[tuple[int, int], int] = {}
    for i, n in enumerate(efg.nodes):
        if n.kind != "p":
            continue
        key = (n.player, n.infoset)
        j = first.setdefault(key, i)
        name = efg.infosets[key].name
        if seqs[j][n.player - 1] != seqs[i][n.player - 1]:
            raise efg_error(source, n.line, f"player {n.player}'s information set {n.infoset} ({name!r}) is reached "
                         f"here after other own moves than on line {efg.nodes[j].line}: the game does not have "
                         "perfect recall, which this library needs")
        if depth[j] != depth[i]:
            raise efg_error(source, n.line, f"player {n.player}'s information set {n.infoset} ({name!r}) has nodes "
                         f"at depths {depth[j]} (line {efg.nodes[j].line}) and {depth[i]} (here); this library needs "
                         "every information set at one depth of the tree")


def _infoset_names(efg: EFGFile) -> dict[tuple[int, int], str]:
    """``(player, infoset) -> name``: the file's name where it is unique among her sets, else ``player:number``."""
    named: dict[tuple[int, int], str] = {}
    for p in (1, 2):
        mine = [(k, inf.name) for k, inf in efg.infosets.items() if k[0] == p]
        counts: dict[str, int] = {}
        for _, name in mine:
            counts[name] = counts.get(name, 0) + 1
        named.update({k: name if name and counts[name] == 1 else f"{p}:{k[1]}" for k, name in mine})
    return named


def _check_public_state(nodes: Sequence[EFGNode], source: str, children: list[int], parents: set[int]) -> None:
    """Raise unless the ``children`` grouped into one public state share their parent's public state and actor."""
    actors = {(nodes[c].kind, nodes[c].player) for c in children}
    if len(parents) > 1 or len(actors) > 1:
        lines = sorted({nodes[c].line for c in children})[:4]
        shown = ", ".join(map(str, lines))
        if len(parents) > 1:
            raise efg_error(source, lines[-1], f"a player cannot tell apart the nodes on lines {shown} though "
                            "she could tell their parents apart (the game does not have perfect recall)")
        raise efg_error(source, lines[-1], f"nodes on lines {shown} lie in one public state (a player cannot "
                        "tell them apart) but different players act there; this library needs whose turn it "
                        "is to be known to both players")


def _derive_observations(efg: EFGFile, source: str, sequences: tuple[_SequenceIds, list[tuple[int, int] | None]]
                         ) -> dict[tuple[int, int], tuple[str, str, str]]:
    """``(node, action) -> (public, private_0, private_1)`` from information sets (module docstring).

    Runs one depth at a time: children a player cannot tell apart are linked (union-find)
    into public states; terminal children are grouped by parent public state and action.
    ``sequences``: :func:`_own_sequences`.
    """
    nodes = efg.nodes
    seqs, last_move = sequences

    def what_she_knows(i: int, p: int) -> tuple[Any, ...]:
        n = nodes[i]
        if n.kind == "p" and n.player == p + 1:
            return ("set", n.infoset)
        last = last_move[seqs[i][p]]
        return ("move",) if last is None else ("move", last)

    known = [(what_she_knows(i, 0), what_she_knows(i, 1)) for i in range(len(nodes))]

    def knows(i: int, p: int) -> tuple[Any, ...]:
        return known[i][p]

    named = _infoset_names(efg)

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
        comp = [0] * len(kids)
        taken: dict[int, set[str]] = {}
        ends_or_knows = [[("end", public_of[i], a)] if nodes[c].kind == "t" else [(p, knows(c, p)) for p in (0, 1)]
                         for i, a, c in kids]
        for js in linked_groups(ends_or_knows):
            parents = {public_of[kids[j][0]] for j in js}
            _check_public_state(nodes, source, [kids[j][2] for j in js], parents)
            i0, a0, _ = kids[js[0]]
            parent = nodes[i0]
            names = {efg.infosets[(nodes[kids[j][0]].player, nodes[kids[j][0]].infoset)].actions[kids[j][1]] for j in js}
            if len(names) == 1 and len({nodes[kids[j][0]].kind for j in js}) == 1:
                base = names.pop() or f"#{a0}"
            else:
                base = "" if parent.kind == "c" else f"p{parent.player}"
            name = unique_name(base, taken.setdefault(parents.pop(), set()))
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


def _check_infosets(efg: EFGFile, source: str, obs: Mapping[tuple[int, int], tuple[str, str, str]]) -> None:
    """Every information set is exactly one private state of one public state under ``obs``.

    Observation sequences are numbered as they appear (one number per distinct sequence), so
    that comparing two costs one integer comparison whatever the depth.
    """
    number: dict[tuple[int, int, str], int] = {}  # (whose: 0 public, 1, 2 private; parent sequence, observation)

    def extend(whose: int, seq: int, observation: str) -> int:
        return number.setdefault((whose, seq, observation), len(number) + 1)

    place_of: dict[tuple[int, int], tuple[int, int, int]] = {}
    infoset_at: dict[tuple[int, int, int], tuple[int, int]] = {}
    stack: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)]  # node, public, player 1's and player 2's private sequence
    while stack:
        i, public, private1, private2 = stack.pop()
        n = efg.nodes[i]
        if n.kind == "p":
            key, place = (n.player, n.infoset), (n.player, public, private1 if n.player == 1 else private2)
            if place_of.setdefault(key, place) != place or infoset_at.setdefault(place, key) != key:
                raise efg_error(source, n.line, f"player {n.player}'s information set {n.infoset} cannot be told apart "
                                "from the others by what the players observe; this library cannot represent this game")
        for a, c in enumerate(n.children):
            pub, o0, o1 = obs[(i, a)]
            stack.append((c, extend(0, public, pub), extend(1, private1, o0), extend(2, private2, o1)))


def efg_path(name: str) -> str:
    """The path in an ``efg:PATH`` (or bare ``PATH.efg``) game name."""
    return name[4:] if name.startswith("efg:") else name


__all__ = ["EFGFile", "EFGGame", "EFGInfoset", "EFGNode", "EFGOutcome", "efg_path", "load_efg_game", "parse_efg",
           "read_efg_file", "write_efg"]
