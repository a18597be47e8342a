"""The action abstraction of a no-limit blueprint, as data, and the abstract betting tree it spans.

An :class:`ActionAbstraction` says which bets the blueprint may make: per betting round and
per *raise depth* (0: the round's first bet or raise, 1: a raise of it, ...; the last list
repeats for deeper raises) a list of sizes as fractions of the pot after calling, the
minimum raise and all-in, and a cap on the bets and raises of a round. Fold and call are
always there. Sizes follow the rules of :func:`subgame.games.poker.game._betting_actions`
(a size below the minimum raise becomes the minimum raise, one at or above the stack is
dropped in favour of all-in, a size equal to an earlier one is dropped), so an abstraction
with one size list per round and one cap is exactly the betting of a no-limit
:class:`~subgame.games.poker.spec.PokerSpec` (:meth:`ActionAbstraction.of_spec`), which is
what makes the reduced-deck checks exact.

Written as text (``--actions``): rounds separated by ``;``, raise depths by ``/``, sizes by
``,`` in percent of the pot (``50``, ``100``), ``min`` or ``allin``, and ``:N`` after a round
for its cap, e.g. ``"50,100,allin/100,allin:3; 50,100,allin:2"`` (a round not written repeats
the last one). As a TOML file::

    [[round]]
    sizes = [[0.5, 1.0, "allin"], [1.0, "allin"]]   # pot fractions per raise depth
    cap = 3

:data:`DEFAULT_ACTIONS` is a small version of the sizes of prior top agents: the
depth-limited paper's agent (Brown, Sandholm & Amos 2018, App. A) used a few pot fractions
and all-in per decision, more on the first raise of a round than on later ones.

The abstract betting tree (:class:`BettingTree`) is the tree of betting sequences alone:
no cards, chance folded into the deal that a sampled iteration draws up front. Its size
(:meth:`BettingTree.count`) is known before any table is allocated.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import tomllib

from ..errors import GameDefinitionError
from ..games.poker.spec import PokerSpec

ALL_IN, MIN_RAISE = "allin", "min"
Size = float | str  #: a pot fraction, ``"min"`` or ``"allin"``

#: Default sizes: preflop open 50/100/200 % and all-in, raises 100 % and all-in; later rounds
#: 50/100 % and all-in, raises 100 % and all-in; at most 3 bets and raises a round.
DEFAULT_ACTIONS = "50,100,200,allin/100,allin:3; 50,100,allin/100,allin:3"

DECISION, TERMINAL = 0, 1


@dataclass(frozen=True)
class ActionAbstraction:
    """Bet sizes per round and raise depth, and a raise cap per round.

    Attributes:
        sizes: ``sizes[r][d]`` the sizes at raise depth ``d`` of round ``r`` (the last depth
            repeats), each a pot fraction > 0, :data:`MIN_RAISE` or :data:`ALL_IN`.
        caps: ``caps[r]`` the most bets and raises in round ``r`` (0: no cap).
    """

    sizes: tuple[tuple[tuple[Size, ...], ...], ...]
    caps: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.sizes or len(self.caps) != len(self.sizes):
            raise GameDefinitionError(f"actions: give sizes and a cap for every round, got {len(self.sizes)} size lists "
                                      f"and {len(self.caps)} caps")
        for r, depths in enumerate(self.sizes):
            if not depths or any(not d for d in depths):
                raise GameDefinitionError(f"actions: round {r} needs at least one size per raise depth (e.g. 'allin')")
            for s in (s for d in depths for s in d):
                if isinstance(s, str) and s not in (ALL_IN, MIN_RAISE) or not isinstance(s, str) and not s > 0:
                    raise GameDefinitionError(f"actions: size {s!r} of round {r} is not a positive pot fraction, "
                                              f"{MIN_RAISE!r} or {ALL_IN!r}")
        if any(c < 0 for c in self.caps):
            raise GameDefinitionError(f"actions: raise caps must be >= 0 (0: no cap), got {list(self.caps)}")

    def for_rounds(self, rounds: int) -> ActionAbstraction:
        """The abstraction with one entry per round of a game of ``rounds`` rounds (the last written repeats)."""
        if len(self.sizes) > rounds:
            raise GameDefinitionError(f"actions: {len(self.sizes)} rounds written for a game of {rounds}")
        pad = rounds - len(self.sizes)
        return ActionAbstraction(self.sizes + (self.sizes[-1],) * pad, self.caps + (self.caps[-1],) * pad)

    def at(self, rnd: int, depth: int) -> tuple[Size, ...]:
        depths = self.sizes[rnd]
        return depths[min(depth, len(depths) - 1)]

    @staticmethod
    def of_spec(spec: PokerSpec) -> ActionAbstraction:
        """The betting of a no-limit spec as an abstraction (its fractions every round, its cap, all-in if it has it)."""
        if spec.betting != "nolimit":
            raise GameDefinitionError("actions: an action abstraction is for no-limit games")
        rounds = []
        for r in range(spec.num_rounds):
            sizes: tuple[Size, ...] = tuple(spec.fractions(r)) + ((ALL_IN,) if spec.all_in else ())
            rounds.append((sizes,))
        return ActionAbstraction(tuple(rounds), tuple(spec.cap(r) for r in range(spec.num_rounds)))

    def text(self) -> str:
        """The abstraction in the ``--actions`` form (:func:`parse_actions` reads it back)."""
        def size(s: Size) -> str:
            return s if isinstance(s, str) else f"{100 * s:g}"
        return "; ".join("/".join(",".join(size(s) for s in d) for d in depths) + f":{c}"
                         for depths, c in zip(self.sizes, self.caps))


def _size(token: str, where: str) -> Size:
    t = token.strip().lower()
    if t in (ALL_IN, MIN_RAISE):
        return t
    if t in ("f", "fold", "c", "call", "check"):
        raise GameDefinitionError(f"actions: {where}: fold and call are always in the abstraction; list bet sizes only")
    try:
        value = float(t.rstrip("%"))
    except ValueError:
        raise GameDefinitionError(f"actions: {where}: {token!r} is not a size (percent of the pot such as 50, "
                                  f"{MIN_RAISE!r} or {ALL_IN!r})") from None
    return value / 100.0


def parse_actions(text: str) -> ActionAbstraction:
    """An abstraction from its ``--actions`` text or from a ``.toml`` file's path (see the module docstring).

    Raises:
        GameDefinitionError: text or a file that does not parse, naming the bad piece.
    """
    if text.strip().endswith(".toml"):
        return _from_toml(Path(text.strip()))
    sizes, caps = [], []
    for r, part in enumerate(p for p in text.split(";") if p.strip()):
        body, _, cap = part.partition(":")
        try:
            caps.append(int(cap) if cap.strip() else 0)
        except ValueError:
            raise GameDefinitionError(f"actions: round {r}: cap {cap.strip()!r} is not a whole number") from None
        sizes.append(tuple(tuple(_size(t, f"round {r}") for t in d.split(",") if t.strip()) for d in body.split("/")))
    if not sizes:
        raise GameDefinitionError(f"actions: no round in {text!r}; write e.g. {DEFAULT_ACTIONS!r}")
    return ActionAbstraction(tuple(sizes), tuple(caps))


def _from_toml(path: Path) -> ActionAbstraction:
    from ..files import read_text_file

    try:
        doc = tomllib.loads(read_text_file(path, "action abstraction", GameDefinitionError))
    except tomllib.TOMLDecodeError as exc:
        raise GameDefinitionError(f"actions: {path} does not parse as TOML: {exc}") from None
    rounds = doc.get("round")
    if not isinstance(rounds, list) or not rounds:
        raise GameDefinitionError(f"actions: {path} needs [[round]] tables with 'sizes' (lists per raise depth)")
    if doc.get("fold", True) is not True or doc.get("call", True) is not True:
        raise GameDefinitionError(f"actions: {path}: an abstraction without fold or call is not a poker game; remove "
                                  "'fold'/'call' or set them true")
    sizes, caps = [], []
    for r, rd in enumerate(rounds):
        depths = rd.get("sizes") if isinstance(rd, dict) else None
        if not isinstance(depths, list) or not all(isinstance(d, list) for d in depths):
            raise GameDefinitionError(f"actions: {path}: round {r} needs sizes = [[...], ...], one list per raise depth")
        sizes.append(tuple(tuple(_size(str(100 * s) if isinstance(s, (int, float)) else str(s), f"{path} round {r}")
                                 for s in d) for d in depths))
        cap = rd.get("cap", 0)
        if not isinstance(cap, int):
            raise GameDefinitionError(f"actions: {path}: round {r}: cap must be a whole number, got {cap!r}")
        caps.append(cap)
    return ActionAbstraction(tuple(sizes), tuple(caps))


@dataclass(frozen=True)
class _State:
    rnd: int
    contrib: tuple[int, int]
    raises: int
    acted: int
    to_act: int
    last_raise: int


@dataclass(frozen=True, eq=False)
class BettingTree:
    """The abstract betting tree of a no-limit game: one row per betting sequence, nodes in depth-first order.

    Attributes:
        kind: [N] int8 :data:`DECISION` or :data:`TERMINAL`.
        player: [N] int8 the player to act (-1 at terminals).
        round: [N] int8 the betting round.
        contrib: [N, 2] int64 chips each player has put in.
        folded: [N] int8 the player who folded at a terminal, -1 otherwise (a showdown).
        first_child: [N] int64 index into ``children`` of a decision node's first child.
        num_actions: [N] int32 actions at a decision node (0 at terminals).
        children: [E] int32 the child of every action, by node.
        action_names: [E] the actions as the poker rules name them (``f``, ``c``, ``r<to>``).
        payoff: [N, 3] float64 player 0's utility at a terminal if player 0 wins, loses, ties.
        stack: each player's chips.
    """

    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    contrib: np.ndarray
    folded: np.ndarray
    first_child: np.ndarray
    num_actions: np.ndarray
    children: np.ndarray
    action_names: tuple[str, ...]
    payoff: np.ndarray
    stack: int

    @property
    def num_nodes(self) -> int:
        return int(self.kind.size)

    def decision_nodes(self, rnd: int | None = None) -> np.ndarray:
        keep = self.kind == DECISION if rnd is None else (self.kind == DECISION) & (self.round == rnd)
        return np.flatnonzero(keep)

    def child(self, node: int, name: str) -> int:
        """The child of ``node`` by action name, -1 if the abstraction lacks that action."""
        lo = int(self.first_child[node])
        for k in range(int(self.num_actions[node])):
            if self.action_names[lo + k] == name:
                return int(self.children[lo + k])
        return -1

    def actions_of(self, node: int) -> tuple[str, ...]:
        lo = int(self.first_child[node])
        return self.action_names[lo : lo + int(self.num_actions[node])]

    @staticmethod
    def count(spec: PokerSpec, actions: ActionAbstraction) -> tuple[int, ...]:
        """[R] the decision nodes of each round, without building the tree (counted on betting states, memoized)."""
        actions = actions.for_rounds(spec.num_rounds)

        @cache
        def walk(st: _State) -> tuple[int, ...]:
            out = [0] * spec.num_rounds
            out[st.rnd] += 1
            for _, nxt in _moves(spec, actions, st):
                if isinstance(nxt, _State):
                    out = [a + b for a, b in zip(out, walk(nxt))]
            return tuple(out)

        return walk(_root(spec))

    @staticmethod
    def build(spec: PokerSpec, actions: ActionAbstraction) -> BettingTree:
        """Every betting sequence of ``actions`` under the rules of ``spec`` (stack, blinds, rounds, who acts first)."""
        actions = actions.for_rounds(spec.num_rounds)
        kind: list[int] = []
        player: list[int] = []
        rnd: list[int] = []
        folded: list[int] = []
        first: list[int] = []
        num: list[int] = []
        contrib: list[tuple[int, int]] = []
        payoff: list[tuple[float, float, float]] = []
        children: list[int] = []
        names: list[str] = []

        def add(k: int, p: int, r: int, c: tuple[int, int], f: int) -> int:
            for column, x in ((kind, k), (player, p), (rnd, r), (folded, f), (first, 0), (num, 0)):
                column.append(x)
            contrib.append(c)
            if k == TERMINAL:
                payoff.append((-float(c[0]),) * 3 if f == 0 else (float(c[1]),) * 3 if f == 1
                              else (float(c[1]), -float(c[0]), 0.0))
            else:
                payoff.append((0.0, 0.0, 0.0))
            return len(kind) - 1

        def walk(st: _State) -> int:
            node = add(DECISION, st.to_act, st.rnd, st.contrib, -1)
            moves = _moves(spec, actions, st)
            first[node], num[node] = len(children), len(moves)
            slots = list(range(len(children), len(children) + len(moves)))
            children.extend([0] * len(moves))
            names.extend(name for name, _ in moves)
            for slot, (_, nxt) in zip(slots, moves):
                if isinstance(nxt, _State):
                    children[slot] = walk(nxt)
                else:
                    children[slot] = add(TERMINAL, -1, st.rnd, nxt[0], nxt[1])
            return node

        walk(_root(spec))
        return BettingTree(np.array(kind, np.int8), np.array(player, np.int8), np.array(rnd, np.int8),
                           np.array(contrib, np.int64).reshape(-1, 2), np.array(folded, np.int8),
                           np.array(first, np.int64), np.array(num, np.int32), np.array(children, np.int32),
                           tuple(names), np.array(payoff, np.float64).reshape(-1, 3), spec.stack)


def _root(spec: PokerSpec) -> _State:
    if spec.betting != "nolimit":
        raise GameDefinitionError("actions: a betting tree of an action abstraction needs a no-limit game")
    return _State(0, (spec.ante + spec.blinds[0], spec.ante + spec.blinds[1]), 0, 0, spec.first_player[0], max(spec.blinds))


def _moves(spec: PokerSpec, actions: ActionAbstraction, st: _State) -> list[tuple[str, _State | tuple[tuple[int, int], int]]]:
    """The actions at ``st``: (name, next state) or (name, (contributions, folded player)) at a terminal (-1: showdown).

    The amounts follow :func:`subgame.games.poker.game._betting_actions` with the abstraction's sizes.
    """
    p, c = st.to_act, st.contrib
    top = max(c)
    to_call = top - c[p]
    out: list[tuple[str, _State | tuple[tuple[int, int], int]]] = []
    if to_call > 0:
        out.append(("f", (c, p)))
    called = (top, c[1]) if p == 0 else (c[0], top)
    closes = st.acted + 1 >= 2 or (c[0] != c[1] and st.acted >= 1)
    if not closes:
        out.append(("c", _State(st.rnd, called, st.raises, st.acted + 1, 1 - p, st.last_raise)))
    elif st.rnd + 1 >= spec.num_rounds or top >= spec.stack:
        out.append(("c", (called, -1)))
    else:
        nxt = st.rnd + 1
        out.append(("c", _State(nxt, called, 0, 0, spec.first_player[nxt], max(spec.blinds))))
    cap = actions.caps[st.rnd]
    if top >= spec.stack or (cap and st.raises >= cap):
        return out
    pot = c[0] + c[1]
    min_to = top + max(st.last_raise, 1)
    seen: set[int] = set()
    for s in actions.at(st.rnd, st.raises):
        if s == ALL_IN:
            continue
        amount = min_to if s == MIN_RAISE else max(min_to, int(round(top + float(s) * (pot + to_call))))
        if amount >= spec.stack or amount in seen:
            continue
        seen.add(amount)
        out.append((f"r{amount}", _raise(st, p, amount, top)))
    if ALL_IN in actions.at(st.rnd, st.raises):
        out.append((f"r{spec.stack}", _raise(st, p, spec.stack, top)))
    return out


def _raise(st: _State, p: int, amount: int, top: int) -> _State:
    contrib = (amount, st.contrib[1]) if p == 0 else (st.contrib[0], amount)
    return _State(st.rnd, contrib, st.raises + 1, st.acted + 1, 1 - p, max(st.last_raise, amount - top))
