"""A game's size counted without compiling it: public nodes, private states, bytes.

Two walks, one per compiler, count what :func:`~subgame.tree.compile.compile_game` would
allocate and allocate none of it:

* poker family: the betting tree is walked once along a single fixed board (the
  compiler's ``board=`` restriction) and every node is multiplied by the number of
  boards dealt so far; a node with ``b`` board cards holds ``C(deck - b, hole)`` private
  states per player. This costs one walk of the betting tree, whatever the deck.
* any other game: its histories are walked depth first and the public keys and private
  observation sequences counted, as the generic compiler groups them (chance moves whose
  outcomes all look alike publicly are passed through). The walk stops after
  ``max_histories`` histories and then reports a lower bound.

Both count a part of the game as the compilers build it too: below a public state
(``public_state=``), cut at a depth or chance limit (its leaves counted as nodes with
their private states, nothing below them).

Bytes follow from the counts with per-item costs measured on compiled trees
(:data:`~subgame.tree.size.BYTES_PER_PRIVATE_STATE` and its neighbours): the tree's arrays
and the CFR solver's state (regrets, strategy sums and legal masks:
:data:`SOLVER_BYTES_PER_INFOSET_ACTION` per information set and action slot), and the
buffers an iteration or an evaluation sweeps (:data:`SWEEP_BYTES_PER_PRIVATE_STATE`): what a
solve peaks at, for callers to compare with the memory they have. A poker game's counts
become bytes in :func:`poker_estimate` only, whoever counted them (the hold'em spot's
suit-isomorphic count too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

from ..errors import GameDefinitionError
from ..games.base import CHANCE, TERMINAL, Game
from ..games.poker import PokerGame
from . import kernels
from .enumeration import _histories_at
from .operators import SparseTerminal
from .poker_operators import FoldTerminal, ShowdownTerminal
from .poker_states import deal_size, public_children, public_root
from .size import (
    BYTES_PER_HAND,
    BYTES_PER_SPARSE_ENTRY,
    ENUMERATED_BYTES_PER_PRIVATE_STATE,
    ENUMERATED_BYTES_PER_PUBLIC_NODE,
    ENUMERATED_BYTES_PER_TERMINAL_HISTORY,
    ENUMERATED_LABEL_CHARS,
    POKER_BYTES_PER_PRIVATE_STATE,
    POKER_BYTES_PER_PUBLIC_NODE,
    POKER_INDEX_BYTES_PER_PRIVATE_STATE,
)

if TYPE_CHECKING:
    from .public_tree import PublicTree

#: Bytes of CFR solver state per information set and action slot: regrets and strategy sums
#: (float64 each) and the legal mask (bool).
SOLVER_BYTES_PER_INFOSET_ACTION = 17
#: Bytes per private state of the arrays a CFR iteration or an exploitability evaluation
#: allocates while it runs (reaches, transition weights, values, operator temporaries): 38
#: measured on a hold'em turn of 10.4 million private states and 41 on a 32-card two-round
#: game (peak resident memory less the interpreter, the tree and the solver state).
SWEEP_BYTES_PER_PRIVATE_STATE = 48
#: Bytes of a CFR solver's state whatever the game's size (its lists of per-player arrays).
SOLVER_BYTES_FIXED = 408
#: Histories the generic walk visits before it stops and reports a lower bound.
MAX_HISTORIES = 2_000_000
#: Boards at most this many hands per player get explicit sparse terminals (as :func:`compile_poker`).
SPARSE_THRESHOLD = 64


@dataclass(frozen=True)
class SizeEstimate:
    """What compiling a game would allocate, counted without compiling it.

    Attributes:
        game: the game's one-line description.
        public_nodes: nodes of the public tree (decision, chance and terminal).
        private_states: per player, private states summed over public nodes.
        infoset_actions: per player, information sets times the widest action count.
        terminal_entries: nonzero entries of explicit (sparse) terminal payoff matrices.
        tree_bytes: estimated bytes of the compiled tree's arrays.
        solver_bytes: estimated bytes of a CFR solver's state on top of the tree.
        exact: whether the counts are exact (``False``: the walk stopped early, they are lower bounds).
        method: how the counts were obtained (``"betting tree × boards"`` or ``"histories"``).
        sweep_bytes: estimated bytes of the buffers an iteration or an evaluation allocates.
        passes_bytes: estimated peak of a CFR solve by depth-first passes over a poker tree's
            layout (:mod:`~subgame.tree.poker_layout`): the tree without its per-state index
            arrays and the solver's state; no sweep buffers (0 where the passes do not apply).
    """

    game: str
    public_nodes: int
    private_states: tuple[int, int]
    infoset_actions: tuple[int, int]
    terminal_entries: int
    tree_bytes: int
    solver_bytes: int
    exact: bool
    method: str
    sweep_bytes: int = 0
    passes_bytes: int = 0

    @property
    def total_bytes(self) -> int:
        """Tree and solver state together: what a solve keeps between iterations."""
        return self.tree_bytes + self.solver_bytes

    @property
    def peak_bytes(self) -> int:
        """Tree, solver state and sweep buffers: what a solve with evaluations peaks at."""
        return self.total_bytes + self.sweep_bytes

    @property
    def solve_bytes(self) -> int:
        """What a CFR solve peaks at here: by depth-first passes where they apply and the compiled loops run, else :attr:`peak_bytes`."""
        return self.passes_bytes if self.passes_bytes and kernels.active(min(self.private_states)) else self.peak_bytes


@dataclass(frozen=True)
class _Limits:
    """Where the compiler would cut: public depth and public chance nodes above a node, relative to the root."""

    depth: int | None = None
    chance: int | None = None
    before_deal: bool = False  #: the chance node of the limit is the leaf (:func:`~.poker_compile.compile_poker`)

    def cut(self, depth: int, chances: int, deal: bool = False) -> bool:
        return (self.depth is not None and depth >= self.depth) or (
            self.chance is not None and chances + (self.before_deal and deal) >= self.chance)


def estimate_size(game: Game, *, public_state: Sequence[str] | None = None, depth_limit: int | None = None,
                  chance_limit: int | None = None, max_histories: int = MAX_HISTORIES,
                  before_deal: bool = False) -> SizeEstimate:
    """Count ``game``'s compiled size without building its tree (see the module docstring).

    ``public_state``, ``depth_limit`` and ``chance_limit`` are those of
    :func:`~subgame.tree.compile.compile_game`: the count is then of that part of the game;
    ``before_deal`` that of :func:`~subgame.tree.poker_compile.compile_poker` (poker only).

    Raises:
        GameDefinitionError: no history has the public observations ``public_state``.
    """
    limits = _Limits(depth_limit, chance_limit, before_deal)
    key = None if public_state is None else tuple(public_state)
    if game.tree_compiler == "poker" and isinstance(game, PokerGame):
        return _poker_size(game, key or (), limits)
    if before_deal:
        raise GameDefinitionError(f"{game.name}: before_deal is for poker games")
    return _enumerated_size(game, max_histories, key, limits)


def _poker_size(game: PokerGame, key: tuple[str, ...] = (), limits: _Limits = _Limits()) -> SizeEstimate:
    """The betting tree along one board, each node weighted by the boards that reach it."""
    spec = game.spec
    deck, hole = spec.deck_size, spec.hole_cards
    root, _, _ = public_root(game, key, None)
    # one representative board: the cards known at the root, then the lowest others
    rest = (c for c in range(deck) if c not in root.board)
    fixed = root.board + tuple(next(rest) for _ in range(sum(spec.board_cards) - len(root.board)))
    nodes = states = sparse = 0
    infoset_nodes = [0, 0]
    widest = [1, 1]
    stack = [(root, 1, 0, 0)]
    while stack:
        st, boards, depth, chances = stack.pop()
        hands = comb(deck - len(st.board), hole)
        nodes += boards
        states += boards * hands
        who = game.actor(st)
        if who == TERMINAL:
            if hands <= SPARSE_THRESHOLD:
                sparse += boards * hands * comb(deck - len(st.board) - hole, hole)
            continue
        if limits.cut(depth, chances, who == CHANCE):
            continue
        kids = public_children(game, st, fixed)
        if who == CHANCE:
            deals = comb(deck - len(st.board), deal_size(game, st))
            stack.extend((c, boards * deals, depth + 1, chances + 1) for c, _, _ in kids)
            continue
        infoset_nodes[who] += boards * hands
        widest[who] = max(widest[who], len(kids))
        stack.extend((c, boards, depth + 1, chances) for c, _, _ in kids)
    infoset_actions = (infoset_nodes[0] * widest[0], infoset_nodes[1] * widest[1])
    return poker_estimate(game, nodes, (states, states), infoset_actions, sparse, True, "betting tree × boards")


def poker_estimate(game: PokerGame, public_nodes: int, private_states: tuple[int, int], infoset_actions: tuple[int, int],
                   sparse_entries: int, exact: bool, method: str) -> SizeEstimate:
    """Bytes of a poker tree, its CFR solver and its sweeps from counts, by the one set of per-item costs.

    Every count of a poker game's size turns into bytes here: :func:`estimate_size`'s walk
    along one board and the hold'em spot's walk with suit-isomorphic first deals
    (:func:`subgame.resolving.spots.estimate_size`) alike.
    """
    deck, hole = game.spec.deck_size, game.spec.hole_cards
    tree = (
        sum(private_states) * POKER_BYTES_PER_PRIVATE_STATE + sparse_entries * BYTES_PER_SPARSE_ENTRY
        + public_nodes * POKER_BYTES_PER_PUBLIC_NODE + comb(deck, hole) * (BYTES_PER_HAND + deck)
    )
    solver = SOLVER_BYTES_PER_INFOSET_ACTION * sum(infoset_actions) + SOLVER_BYTES_FIXED
    passes = tree - sum(private_states) * POKER_INDEX_BYTES_PER_PRIVATE_STATE + solver if hole <= kernels.MAX_HAND_CARDS else 0
    return SizeEstimate(
        game.describe(), public_nodes, private_states, infoset_actions, sparse_entries, tree, solver, exact, method,
        sum(private_states) * SWEEP_BYTES_PER_PRIVATE_STATE, passes,
    )


def poker_state_bytes(private_states: int, passes: bool = False) -> int:
    """A lower bound on :func:`poker_estimate`'s peak bytes from private states alone (both players).

    The tree's arrays and the sweeps' buffers per private state (``passes``: the tree's
    arrays without the index arrays, as a solve by depth-first passes keeps them); a walk
    that has counted this many states so far can stop as soon as this exceeds the memory it may use.
    """
    if passes:
        return private_states * (POKER_BYTES_PER_PRIVATE_STATE - POKER_INDEX_BYTES_PER_PRIVATE_STATE)
    return private_states * (POKER_BYTES_PER_PRIVATE_STATE + SWEEP_BYTES_PER_PRIVATE_STATE)


def _enumerated_size(game: Game, max_histories: int, key: tuple[str, ...] | None = None,
                     limits: _Limits = _Limits()) -> SizeEstimate:
    """Public keys and private observation sequences of every history, as the generic compiler groups them.

    A public depth counts every move but those of chance whose outcomes all look alike
    publicly (the compiler passes through them); a public chance node is any other chance move.
    """
    actors: dict[tuple[str, ...], set[int]] = {}
    chance_public: dict[tuple[str, ...], set[str]] = {}
    private: tuple[set[tuple[tuple[str, ...], tuple[str, ...]]], ...] = (set(), set())
    infosets: tuple[set[tuple[tuple[str, ...], tuple[str, ...]]], ...] = (set(), set())
    widest = [1, 1]
    terminals = visited = 0
    Stack = list[tuple[object, tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]], int, int]]
    if key is None:
        stack: Stack = [(game.root(), (), ((), ()), 0, 0)]
    else:
        found = _histories_at(game, {key}).get(key)
        if not found:
            raise GameDefinitionError(f"{game.name}: no history has the public observations {list(key)!r}")
        stack = [(h.state, h.public, h.private, 0, 0) for h in reversed(found)]
    while stack and visited < max_histories:
        state, public, priv, depth, chances = stack.pop()
        visited += 1
        who = game.actor(state)
        actors.setdefault(public, set()).add(who)
        for p in (0, 1):
            private[p].add((public, priv[p]))
        if who == TERMINAL:
            terminals += 1
            continue
        if who == CHANCE:
            moves = [(a, game.observations(state, a)) for a, _ in game.chance_outcomes(state)]
            pubs = {obs[0] for _, obs in moves}
            chance_public.setdefault(public, set()).update(pubs)
            public_chance = len(pubs) > 1
        else:
            public_chance = False
            if limits.cut(depth, chances):
                continue
            moves = [(a, game.observations(state, a)) for a in game.legal_actions(state)]
            infosets[who].add((public, priv[who]))
            widest[who] = max(widest[who], len(moves))
        if public_chance and limits.cut(depth, chances):
            continue
        step = 0 if who == CHANCE and not public_chance else 1
        for a, (pub, o0, o1) in moves:
            stack.append((game.next_state(state, a), public + (pub,), (priv[0] + (o0,), priv[1] + (o1,)),
                          depth + step, chances + public_chance))
    exact = not stack
    passed = {k for k, who in actors.items() if who == {CHANCE} and len(chance_public.get(k, ())) == 1}
    nodes = len(actors) - len(passed)
    states = (
        sum(1 for k, _ in private[0] if k not in passed),
        sum(1 for k, _ in private[1] if k not in passed),
    )
    infoset_actions = (len(infosets[0]) * widest[0], len(infosets[1]) * widest[1])
    long_labels = sum(max(0, len("/".join(o for o in obs if o)) - ENUMERATED_LABEL_CHARS)
                      for p in (0, 1) for k, obs in private[p] if k not in passed)
    tree = (
        sum(states) * ENUMERATED_BYTES_PER_PRIVATE_STATE + terminals * ENUMERATED_BYTES_PER_TERMINAL_HISTORY
        + nodes * ENUMERATED_BYTES_PER_PUBLIC_NODE + long_labels
    )
    return SizeEstimate(
        game.describe(), nodes, states, infoset_actions, terminals, tree,
        SOLVER_BYTES_PER_INFOSET_ACTION * sum(infoset_actions) + SOLVER_BYTES_FIXED, exact, "histories",
        sum(states) * SWEEP_BYTES_PER_PRIVATE_STATE,
    )


#: Bytes the sequence-form LP (:func:`~subgame.solve.lp.solve_lp`) holds per nonzero of the terminals' explicit
#: payoff matrix: the matrix summed over terminals, the sequence-form product and HiGHS's copy; 250 to 310 measured
#: (peak resident memory less that before the solve) on Leduc with 9 and 11 ranks.
LP_BYTES_PER_PAYOFF_ENTRY = 300


def payoff_entries(tree: PublicTree) -> int:
    """An upper bound on the nonzeros of ``tree``'s terminal payoffs written as one explicit matrix (the LP's).

    A sparse terminal counts its entries; a poker fold or showdown group every pair of its
    hands at each of its terminal nodes (pairs that share a card included).
    """
    entries = 0
    for op in tree.terminals:
        if isinstance(op, SparseTerminal):
            entries += int(op.u.nnz)
        elif isinstance(op, (FoldTerminal, ShowdownTerminal)):
            for group in op.groups:
                (hands0, nodes), (hands1, _) = group.states[0].shape, group.states[1].shape
                entries += hands0 * hands1 * nodes
    return entries


def lp_bytes(tree: PublicTree) -> int:
    """What the sequence-form LP of ``tree`` peaks at beyond the tree, estimated before building its matrix."""
    return LP_BYTES_PER_PAYOFF_ENTRY * payoff_entries(tree)


def cfr_bytes(tree: PublicTree) -> int:
    """What a CFR solver on the compiled ``tree`` adds to it: its state and the buffers an iteration sweeps."""
    states = sum(int(p.num_states) for p in tree.players)
    slots = sum(int(p.legal.size) for p in tree.players)
    return SOLVER_BYTES_PER_INFOSET_ACTION * slots + SOLVER_BYTES_FIXED + SWEEP_BYTES_PER_PRIVATE_STATE * states
