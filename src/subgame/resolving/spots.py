"""Solving a hold'em spot with given ranges: the ranges as root reach, exploitability in % of the pot.

A subgame that starts at a public state with known ranges is the game of the spot
(:meth:`~subgame.games.poker.holdem.HoldemSpot.game`) solved with each player's range as
her reach at the root private states (``CFRSolver(..., root_reach=...)``): the pair of
hands ``(h0, h1)`` that share no card with each other or the board is then reached with
probability proportional to ``c · r0(h0) · r1(h1)``, ``c`` the chance probability of dealing
one such pair, which is how a range pair weighs the deals in the real game (the subgame
re-solving of Brown & Sandholm 2017, §3, and of Burch et al. 2014, with the opponent's
range fixed). Values in the tree are chance-weighted chips; dividing by the total weight
``m = c · Σ r0(h0) r1(h1)`` over those pairs gives chips per deal of the spot, reported
as a percentage of the pot, as postflop solvers report exploitability.

The size of the compiled tree and its solve is estimated from the betting tree alone
(:func:`estimate_size`) and a spot that does not fit is refused before anything is built.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from math import comb

import numpy as np

from ..errors import GameDefinitionError
from ..eval.best_response import exploitability, profile_value
from ..games.base import CHANCE, TERMINAL
from ..games.poker import PokerGame, PokerState
from ..games.poker.holdem import HoldemSpot
from ..games.poker.ranges import HANDS, NUM_CARDS, Range, hand_index, parse_cards
from ..solve import driver
from ..solve.cfr import CFR_PLUS, CFRConfig, CFRSolver
from ..solve.rules import average_restarts
from ..strategy import Strategy
from ..tree import kernels
from ..tree.compile import compile_game
from ..tree.estimate import SPARSE_THRESHOLD, SizeEstimate, poker_estimate, poker_state_bytes
from ..tree.isomorphism import SuitClasses, canonical_deals, suit_classes
from ..tree.poker_compile import compile_poker
from ..tree.public_state import PublicStateSubgame
from ..tree.public_tree import PublicTree
from ..tree.size import available_bytes, gib
from ..tree.sweep import forward_reach, transition_weights


@dataclass(frozen=True)
class SpotSize:
    """The size of a spot's public tree, counted on its betting tree before anything is built.

    The bytes come from :func:`~subgame.tree.estimate.poker_estimate`, the one estimate of
    a poker tree's memory (tree, solver state, sweep buffers) that ``solve`` and ``games
    --size`` use too; only the count differs (suit-isomorphic first deals, a limit).
    """

    estimate: SizeEstimate  #: the counts per player and the bytes (lower bounds unless ``exact``)

    @property
    def public_nodes(self) -> int:
        return self.estimate.public_nodes

    @property
    def private_states(self) -> int:
        """Both players together."""
        return sum(self.estimate.private_states)

    @property
    def bytes(self) -> int:
        """Estimated peak memory of the compiled tree and its CFR solve (by depth-first passes where they run)."""
        return self.estimate.solve_bytes

    @property
    def complete(self) -> bool:
        """False: the count stopped at a limit, the tree is at least this large."""
        return self.estimate.exact


class _Exceeded(Exception):
    """The count passed its limit."""


def estimate_size(game: PokerGame, limit: int | None = None, *, first_deals: int | None = None) -> SpotSize:
    """Count the public nodes and private states of a hold'em game without compiling it.

    The betting tree is walked once per distinct betting state; a chance node counts its
    subtree once per card it can deal; a node whose board has ``b`` cards has
    ``C(52 - b, 2)`` private states per player. With a ``limit`` (bytes) the count stops as
    soon as the tree is known to exceed it (every distinct state is at least one node), so
    an abstraction with a huge tree is refused quickly; the result then has ``complete``
    false and is a lower bound. ``first_deals``: the children of the first chance nodes
    (the canonical deals of a suit-isomorphic tree there; the chance nodes below count
    every deal, so the count stays an upper bound where isomorphism folds them too).
    """
    deck, hole = game.spec.deck_size, game.spec.hole_cards
    needed = np.cumsum(game.spec.board_cards)  # board cards on the table in each round
    passes = kernels.active(kernels.MIN_STATES) and hole <= kernels.MAX_HAND_CARDS  # solved by depth-first passes
    memo: dict[PokerState, tuple[int, ...]] = {}
    seen = [0, 0]  # lower bounds on public nodes and private states (distinct states first, then subtrees)
    widest = [1, 1]

    def count(st: PokerState) -> tuple[int, ...]:
        """Public nodes, private states (both players), each player's states where she acts, sparse entries."""
        got = memo.get(st)
        if got is not None:
            return got
        who = game.actor(st)
        b = len(st.board)
        hands = comb(deck - b, hole)
        out = [1, 2 * hands, 0, 0, 0]
        seen[0] += 1
        seen[1] += 2 * hands
        if limit is not None and poker_state_bytes(seen[1], passes) > limit:
            raise _Exceeded
        if who == CHANCE:
            k = int(needed[np.searchsorted(needed, b, side="right")]) - b  # the next round's board cards
            sub = count(st._replace(board=st.board + (-1,) * k))
            deals = first_deals if first_deals is not None and b == len(game.spec.board) else comb(deck - b, k)
            out = [x + deals * y for x, y in zip(out, sub)]
        elif who == TERMINAL:
            if hands <= SPARSE_THRESHOLD:
                out[4] = hands * comb(deck - b - hole, hole)
        else:
            out[2 + who] = hands
            actions = game.legal_actions(st)
            widest[who] = max(widest[who], len(actions))
            for a in actions:
                out = [x + y for x, y in zip(out, count(game.next_state(st, a)))]
        if limit is not None and poker_state_bytes(out[1], passes) > limit:
            seen[0], seen[1] = max(seen[0], out[0]), max(seen[1], out[1])
            raise _Exceeded
        memo[st] = tuple(out)
        return memo[st]

    root = game.root()._replace(hole=((), ()), board=(-1,) * len(game.spec.board))
    try:
        nodes, states, acting0, acting1, sparse = count(root)
    except _Exceeded:
        half = seen[1] // 2
        return SpotSize(poker_estimate(game, seen[0], (half, half), (0, 0), 0, False, "betting tree, stopped at the limit"))
    return SpotSize(poker_estimate(game, nodes, (states // 2, states // 2), (acting0 * widest[0], acting1 * widest[1]),
                                   sparse, True, "betting tree, suit-isomorphic first deals"))


@dataclass(frozen=True, eq=False)
class HoldemProblem:
    """A compiled hold'em spot with both players' ranges: a subgame from the spot's public state.

    Attributes:
        spot: the public state and the bets.
        ranges: player 0's (first to act) and player 1's (the button's).
        game: the spot's game.
        subgame: its public tree (:attr:`tree`) and each player's range at her root private
            states in tree order (:attr:`root_reach`), with the size counted before building it.
        mass: ``c · Σ r0(h0) r1(h1)`` over the pairs of hands that can be dealt together:
            the tree's chance-weighted chips divided by this are chips per deal of the spot.
        suits: the interchangeable suits the tree was compiled with (suit isomorphism,
            :mod:`~subgame.tree.isomorphism`), or ``None``: the plain tree.
    """

    spot: HoldemSpot
    ranges: tuple[Range, Range]
    game: PokerGame
    subgame: PublicStateSubgame
    mass: float
    suits: SuitClasses | None = None

    @property
    def tree(self) -> PublicTree:
        return self.subgame.tree

    @property
    def root_reach(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player [R_p] her range at her root private states, in tree order."""
        return self.subgame.root_reach

    def solver(self, config: CFRConfig = CFR_PLUS, dtype: str = "float64", drop_zero_weight: bool | None = False,
               compact: bool | None = False, compute: str = "float64", compress: bool = False) -> CFRSolver:
        """A CFR solver of the spot, the ranges as root reach, its regrets and average in ``dtype`` (``drop_zero_weight``,
        ``compact``, ``compute`` and ``compress``: :class:`~subgame.solve.cfr.CFRSolver`'s options)."""
        return CFRSolver(self.tree, config, root_reach=self.root_reach, dtype=dtype, drop_zero_weight=drop_zero_weight,
                         compact=compact, compute=compute, compress=compress)

    def exploitability(self, strategy: Strategy | CFRSolver, value: bool = True) -> SpotExploitability:
        """NashConv / 2 of ``strategy`` (or of a solver's average strategy) under the ranges, in chips per deal and in %
        of the pot; ``value=False`` leaves the game value out where that saves a pass (``None`` then)."""
        ex = exploitability(self.tree, strategy, root_reach=self.root_reach, value=value)
        chips = ex.exploitability / self.mass
        return SpotExploitability(
            chips, 100.0 * chips / self.spot.pot, (ex.br_values[0] / self.mass, ex.br_values[1] / self.mass),
            None if ex.game_value is None else ex.game_value / self.mass,
        )


@dataclass(frozen=True)
class SpotExploitability:
    """Exploitability of a strategy profile of a spot, per deal of the spot (chips) and in % of the pot."""

    chips: float  #: NashConv / 2
    pct_pot: float  #: 100 × chips / pot
    br_values: tuple[float, float]  #: each player's best-response value against the other, chips
    game_value: float | None  #: player 0's value of the profile, chips (None: not computed)


def root_hands(tree: PublicTree, player: int) -> np.ndarray:
    """[R] the :data:`~subgame.games.poker.ranges.HANDS` row of each of ``player``'s root private states."""
    rs = tree.root_slice[player]
    labels = tree.players[player].label[rs]
    return hand_index(np.array([parse_cards(label) for label in labels], dtype=np.int64).reshape(-1, 2))


def disjoint_mass(r1: np.ndarray) -> np.ndarray:
    """[1326] ``Σ r1(h1)`` over the hands h1 without a card of each hand h0 (inclusion–exclusion over h0's cards)."""
    by_card = np.zeros(NUM_CARDS)
    np.add.at(by_card, HANDS[:, 0], r1)
    np.add.at(by_card, HANDS[:, 1], r1)
    return np.asarray(r1.sum() - by_card[HANDS[:, 0]] - by_card[HANDS[:, 1]] + r1)


def pair_mass(r0: np.ndarray, r1: np.ndarray) -> float:
    """``Σ r0(h0) r1(h1)`` over pairs of hands [1326] without a common card."""
    return float(np.dot(r0, disjoint_mass(r1)))


def deal_probability(game: PokerGame) -> float:
    """The chance probability of one deal of both players' hole cards in ``game``."""
    root = game.root()
    first = game.chance_outcomes(root)
    second = game.chance_outcomes(game.next_state(root, first[0][0]))
    return float(first[0][1] * second[0][1])


def holdem_problem(spot: HoldemSpot, ranges: tuple[Range, Range], *, max_bytes: int | None = None,
                   isomorphism: bool = True) -> HoldemProblem:
    """Check the ranges against the board, refuse a spot too large for memory, compile it.

    Args:
        spot: the public state and bets.
        ranges: player 0's and player 1's ranges (see :class:`HoldemProblem`).
        max_bytes: the memory the compiled tree and its solve may take (``None``: the
            memory available now).
        isomorphism: compile turn and river cards that are equivalent under suit
            permutations fixing the board and both ranges once (:mod:`~subgame.tree.isomorphism`);
            where no two suits are interchangeable the plain tree is compiled.

    Raises:
        InvalidRangeError: a range weighs a hand that holds a board card, or is empty.
        GameDefinitionError: the spot's estimated size exceeds the memory allowed.
    """
    for p, r in enumerate(ranges):
        r.check_board(spot.board, f"player {p}'s range")
    game = spot.game()
    limit = max_bytes if max_bytes is not None else available_bytes()
    suits = spot_suits(spot, ranges) if isomorphism else None
    size = estimate_size(game, limit, first_deals=None if suits is None else canonical_deal_count(suits, spot))
    if not size.complete or (limit is not None and size.bytes > limit):
        raise GameDefinitionError(
            f"{spot.describe()}: the tree would take more than the {gib(limit or 0)} "
            f"{'allowed' if max_bytes is not None else 'available'} (counted before building it: at least "
            f"{size.public_nodes:,} public nodes and {size.private_states:,} private states, {gib(size.bytes)} compiled "
            "and solved); use fewer bet sizes, a lower raise cap, "
            "or start on a later street"
        )
    tree = compile_game(game, max_bytes=max_bytes) if suits is None else compile_poker(game, max_bytes=max_bytes, suits=suits)
    reach = tuple(np.asarray(r.weights)[root_hands(tree, p)] for p, r in enumerate(ranges))
    mass = deal_probability(game) * pair_mass(ranges[0].weights, ranges[1].weights)
    if mass <= 0:
        raise GameDefinitionError("the two ranges share no pair of hands that can be dealt together (every pair "
                                  "holds a common card); widen one of them")
    subgame = PublicStateSubgame(tree.public_key[0], tree, (reach[0], reach[1]), size.estimate)
    return HoldemProblem(spot, (ranges[0], ranges[1]), game, subgame, mass, suits)


def canonical_deal_count(suits: SuitClasses, spot: HoldemSpot) -> int:
    """How many of the next street's cards a suit-isomorphic tree of ``spot`` keeps."""
    left = [(c,) for c in range(NUM_CARDS) if c not in spot.board]
    return sum(perm is None for _, perm in canonical_deals(suits, spot.board, left))


def spot_suits(spot: HoldemSpot, ranges: tuple[Range, Range]) -> SuitClasses | None:
    """The suits interchangeable in ``spot`` under both ranges, or ``None`` if no two are."""
    classes = suit_classes(13, 4, spot.board, [(HANDS, r.weights) for r in ranges])
    return None if classes.trivial else classes


@dataclass(frozen=True)
class SpotPoint:
    """One evaluation during a solve."""

    iteration: int
    seconds: float  #: since the solve started, evaluations included
    exploitability: SpotExploitability


@dataclass(frozen=True, eq=False)
class SpotSolve:
    """How a solve of a spot ended."""

    solver: CFRSolver  #: the solver as it stopped
    iterations: int
    seconds: float  #: the solve's wall-clock time, evaluations included
    stopped: driver.StopReason
    curve: tuple[SpotPoint, ...]
    problem: HoldemProblem  #: the spot solved

    @cached_property
    def final(self) -> SpotExploitability:
        """The last evaluation, with the game value (which the checks against a target leave out: one pass of the
        values, when first asked, after the solve's clock stopped)."""
        last = self.curve[-1].exploitability
        if last.game_value is not None:
            return last
        value = profile_value(self.problem.tree, self.solver, self.problem.root_reach) / self.problem.mass
        return replace(last, game_value=value)

    @cached_property
    def strategy(self) -> Strategy:
        """The average strategy (made when first asked: [I, A] float64 per player)."""
        return self.solver.average_strategy()


def solve_spot(
    problem: HoldemProblem,
    config: CFRConfig = CFR_PLUS,
    *,
    target_pct_pot: float | None = None,
    iterations: int = 100_000,
    seconds: float | None = None,
    evaluate_every: int = 10,
    progress: Callable[[SpotPoint], None] | None = None,
    dtype: str = "float64",
    drop_zero_weight: bool | None = None,
    compact: bool | None = None,
    compute: str = "float64",
    compress: bool = False,
) -> SpotSolve:
    """Run CFR (``config``) on the spot until its exploitability is at most ``target_pct_pot`` % of the pot.

    Without a target the average strategy is evaluated every ``evaluate_every`` iterations;
    with one, first after ``evaluate_every`` iterations and then where the curve so far
    predicts the target, at least ``evaluate_every`` iterations apart
    (:class:`~subgame.solve.driver.TargetSchedule`: a check costs about an iteration). It
    is evaluated at the end too. The run stops at the target, after ``iterations`` or after
    ``seconds``, whichever comes first, or cleanly on Ctrl-C (:func:`~subgame.solve.driver.run`).
    ``dtype`` is the precision of the stored regrets and average (``"float32"``: half the memory);
    ``drop_zero_weight`` keeps only the hands of the ranges in the passes' rows (the same average strategy);
    ``compact`` stores per node only its own actions (and kept rows) (:class:`~subgame.solve.cfr.CFRSolver`).
    ``None``, the default of both: wherever the solver can (:class:`~subgame.solve.cfr.CFRSolver`), as
    postflop-solver does and ``subgame solve`` by default. ``compute="float32"`` runs the passes in float32, as
    postflop-solver does (with ``dtype="float32"``; other iterates, the exploitability evaluated in float64);
    ``compress`` stores them in 16 bits as postflop-solver's compression does (with ``compute="float32"`` and
    :data:`~subgame.solve.rules.POSTFLOP_DCFR`'s average of the strategy alone).
    """
    if evaluate_every < 1:
        raise GameDefinitionError(f"evaluate_every must be at least 1, got {evaluate_every}")
    if target_pct_pot is not None and not target_pct_pot > 0:
        raise GameDefinitionError(f"the target must be a positive percentage of the pot, got {target_pct_pot}")
    solver = problem.solver(config, dtype, drop_zero_weight, compact, compute, compress).plan(iterations)
    started = time.perf_counter()
    schedule = None if target_pct_pot is None else driver.TargetSchedule(
        target_pct_pot, evaluate_every, restarts=average_restarts(config, iterations))

    def evaluate(s: CFRSolver) -> SpotPoint:
        point = SpotPoint(s.iteration, time.perf_counter() - started, problem.exploitability(s, value=False))
        if schedule is not None:
            schedule.record(point.iteration, point.exploitability.pct_pot)
        if progress is not None:
            progress(point)
        return point

    result = driver.run(
        solver, driver.Budget(iterations=iterations, seconds=seconds),
        evaluate_at=range(evaluate_every, iterations + 1, evaluate_every) if schedule is None else schedule,
        on_evaluation=evaluate,
        until=None if target_pct_pot is None else (lambda p: p.exploitability.pct_pot <= target_pct_pot),
    )
    return SpotSolve(solver, solver.iteration, time.perf_counter() - started, result.stopped,
                     result.evaluations, problem)


# -- the strategy at a node as a 13 × 13 hand grid ------------------------------------------------
@dataclass(frozen=True)
class HandGrid:
    """A strategy at one decision node as poker solvers draw it: one cell per hand class.

    Cell ``(i, j)`` of the 13 × 13 grid has ranks ``A`` (0) down to ``2`` (12) on both axes:
    pairs on the diagonal, suited hands above it (row rank high), offsuit below it.

    Attributes:
        title: the node and who acts.
        actions: the actions' names at the node.
        probs: [13, 13, A] the class's action probabilities, averaged over its hands
            weighted by the actor's reach (NaN where the class has no reach).
        weight: [13, 13] the actor's reach summed over the class's hands.
    """

    title: str
    actions: tuple[str, ...]
    probs: np.ndarray
    weight: np.ndarray


def _grid_cell(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of each hand [n] of :data:`HANDS` in the grid."""
    low, high = HANDS[hands, 0], HANDS[hands, 1]
    r_low, r_high = 12 - low // 4, 12 - high // 4  # grid index: the ace first
    suited = low % 4 == high % 4
    return np.where(suited, r_high, r_low), np.where(suited, r_low, r_high)


def hand_grid(problem: HoldemProblem, strategy: Strategy, node: int = 0) -> HandGrid:
    """The strategy of the player acting at public ``node`` (default: the root) as a :class:`HandGrid`."""
    tree = problem.tree
    if not 0 <= node < tree.num_nodes or tree.actor[node] < 0:
        raise GameDefinitionError(f"node {node} is not a decision node of the spot's tree (0..{tree.num_nodes - 1})")
    p = int(tree.actor[node])
    pa = tree.players[p]
    infosets = np.flatnonzero(pa.node[pa.infoset_priv] == node)
    priv = pa.infoset_priv[infosets]
    reach = forward_reach(tree, p, transition_weights(tree, p, strategy.probs[p]), problem.root_reach[p])[priv]
    hands = hand_index(np.array([parse_cards(pa.label[g]) for g in priv], dtype=np.int64).reshape(-1, 2))
    legal = pa.legal[infosets[0]]
    probs = strategy.probs[p][infosets][:, legal]
    row, col = _grid_cell(hands)
    weight = np.zeros((13, 13))
    np.add.at(weight, (row, col), reach)
    mixed = np.zeros((13, 13, probs.shape[1]))
    np.add.at(mixed, (row, col), reach[:, None] * probs)
    with np.errstate(invalid="ignore", divide="ignore"):
        mixed = np.where(weight[:, :, None] > 0, mixed / weight[:, :, None], np.nan)
    names = tuple(pa.action_names[infosets[0]])
    history = " ".join(tree.public_key[node][2:]) or "the first action"
    return HandGrid(f"player {p} at {history} ({problem.spot.describe()})", names, mixed, weight)
