"""Exact exploitability by a pass over boards: the trunk plus one batch of boards in memory.

A game too big to compile whole (no-limit flop hold'em, Brown & Sandholm 2017 §7) is cut
where CFR-D cuts it (Burch, Johanson & Bowling 2014, "Decomposition into Subgames"): at the
first public deal. A best response composes over that cut: the best responder's
counterfactual best-response value at a hand of a deal's chance node is the sum over the
boards of her values at the subgames below it, and those depend only on the opponent's
reach of the chance node (fixed by the strategy) and on the strategy below, never on her
own choices above it. So:

1. compile the trunk down to the first deal, keeping one board only (the compiler's
   ``board=`` restriction: one leaf per betting sequence, never one per board), give it the
   strategy's rows and compute both players' reaches;
2. for each batch of boards, compile the forest of every subgame dealt one of those boards
   (all the betting sequences that reach the deal), give it the strategy's rows, push the
   opponent's reach of the chance node down the forest, add the best responder's
   counterfactual best-response values at its roots
   (:func:`~subgame.eval.best_response.best_response_to_reach`) to the chance node's hands,
   and drop the forest;
3. one best-response pass over the trunk with those values fixed at its chance nodes.

The result is the whole tree's ``exploitability(tree, strategy)`` to rounding. The strategy
comes as a :data:`RowSource`, a function giving a player's rows [I, A] in any tree compiled
from the game, so it never needs to be held as whole-game arrays either: an abstracted
blueprint gives each information set its bucket's row (:func:`bucket_rows`), an explicit
strategy its own row (:func:`strategy_rows`).

With ``isomorphic=True`` only one board per class of suit-isomorphic boards is compiled
(Gilpin & Sandholm 2007, "Lossless abstraction of imperfect information games": suit
symmetry; 1,755 classes of the 22,100 flops of a 52-card deck). If a suit permutation ``π`` fixing
the game maps a board ``F`` onto its class's compiled board ``F* = π(F)``, and the strategy
is suit-symmetric (its rows at ``F`` are its rows at ``F*`` with hands renamed by ``π``, and
so are both players' reaches of the chance node), the best responder's counterfactual
value of hand ``h`` after ``F`` is her value of ``π(h)`` after ``F*``. So the chance node's
hand ``h`` gets, per permutation ``π_q``, the values of ``π_q(h)`` summed over the compiled
boards, each weighted by how many boards of its class ``π_q`` maps onto it: one matrix
product per batch and one gather per permutation at the end, never a loop per hand. The
symmetry is the caller's promise, which the pass checks by default on the trunk (every
reach of every chance node against its images) and on a few boards compiled besides their
class's board (:func:`check_board_symmetry`). Suit-symmetric are the uniform strategy and
a blueprint whose buckets are suit-invariant (isomorphic information sets share one row,
so exactly). CFR's iterates on the whole tree are symmetric in exact arithmetic only:
isomorphic hands' values differ by rounding, regret matching turns a tie at zero into a
different row, and on the 9-card deck (3 ranks, 3 suits) CFR+'s average strategy differs
between isomorphic hands by 1e-4 after three iterations, which the check reports. A class
holding the board the trunk keeps (its showdown after an all-in is the trunk's, its
images' are not) is compiled whole: 1,758 flops at 52 cards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import Game
from ..games.poker import PokerGame
from ..strategy import Strategy
from ..tree.board_cut import BoardCut
from ..tree.isomorphism import canonical_deals, suit_classes
from ..tree.part import place
from ..tree.poker_compile import deal_hands
from ..tree.poker_operators import colex_rank
from ..tree.public_tree import PublicTree
from ..tree.size import tree_bytes
from ..tree.sweep import forward_reach, transition_weights
from .best_response import Exploitability, best_response_to_reach

#: ``rows(tree, player) -> [I, A]``: the strategy's rows at ``player``'s information sets of
#: ``tree`` (a trunk or a forest compiled from the game), action slots as in ``tree``.
RowSource = Callable[[PublicTree, int], np.ndarray]


#: How far (absolute; values relative to the board's largest, floored at 1) a suit image may
#: differ from the original before the strategy counts as not suit-symmetric.
SYMMETRY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class BoardPassResult:
    """The exploitability found by :func:`board_pass_exploitability`, and what the pass held."""

    exploitability: Exploitability
    boards: int  #: distinct boards dealt at the cut
    compiled: int  #: boards whose subgames were compiled: all of them, or one per suit-isomorphism class
    checked: int  #: boards compiled besides their class's board to check the strategy's suit symmetry
    batches: int  #: forests compiled, one per batch of boards
    trunk_bytes: int  #: the trunk's arrays
    largest_batch_bytes: int  #: the largest forest's arrays
    seconds: float


@dataclass(frozen=True, eq=False)
class BoardClasses:
    """The boards of a cut grouped by suit isomorphism: which are compiled, and what each stands for.

    ``π_q`` are the card maps of the suit permutations that fix the game (its preset board);
    every board ``F`` has one compiled board ``F* = π_q(F)`` with ``q = perm[F]``.
    """

    perms: np.ndarray  #: [Q, D] the card maps π_q, identity first
    hand_perm: np.ndarray  #: [Q, H] the hand index (deal order) of π_q(h) for every hand h
    compiled: np.ndarray  #: [R] deal indices of the compiled boards, ascending
    weight: np.ndarray  #: [R, Q] how many boards π_q maps onto each compiled board (itself: q = 0)
    representative: np.ndarray  #: [N] per deal, the row of its compiled board in ``compiled``
    perm: np.ndarray  #: [N] per deal, the q with π_q(deal) = its compiled board

    @staticmethod
    def of(cut: BoardCut, isomorphic: bool) -> BoardClasses:
        """Every board compiled (``isomorphic=False``) or one per class of suit-isomorphic boards.

        A class is compiled whole where its boards do not all leave their subgames to the
        trunk at the same chance nodes (:meth:`~subgame.tree.board_cut.BoardCut.trunk_holds`:
        the trunk keeps one board's showdown after an all-in, not its images').
        """
        spec = cut.game.spec
        n = len(cut.deals)
        hands = deal_hands(cut.game)
        if not isomorphic:
            perms = np.arange(spec.deck_size, dtype=np.int64)[None, :]
            return BoardClasses(perms, np.arange(len(hands), dtype=np.int64)[None, :], np.arange(n, dtype=np.int64),
                                np.ones((n, 1)), np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64))
        classes = suit_classes(spec.num_ranks, spec.num_suits, spec.board)
        perms = classes.refine(spec.board).card_perms()
        q_of = {row.tobytes(): q for q, row in enumerate(perms)}
        folds = canonical_deals(classes, spec.board, cut.deals)
        rep = np.array([j for j, _ in folds], dtype=np.int64)
        perm = np.array([0 if pi is None else q_of[pi.tobytes()] for _, pi in folds], dtype=np.int64)
        held = np.stack([cut.trunk_holds(d) for d in cut.deals]) if cut.chance.size else np.zeros((n, 0), dtype=bool)
        mixed = np.flatnonzero((held != held[rep]).any(axis=1))
        whole = np.isin(rep, rep[mixed])  # every board of such a class is its own compiled board
        rep[whole] = np.flatnonzero(whole)
        perm[whole] = 0
        compiled, row = np.unique(rep, return_inverse=True)
        weight = np.zeros((compiled.size, perms.shape[0]))
        np.add.at(weight, (row, perm), 1.0)
        hand_perm = np.stack([colex_rank(np.sort(pi[hands], axis=1)) for pi in perms])
        return BoardClasses(perms, hand_perm, compiled, weight, row, perm)


def strategy_rows(full_tree: PublicTree, strategy: Strategy) -> RowSource:
    """Rows of an explicit whole-game ``strategy``, each forest placed in the whole game's tree.

    Needs the whole game's tree (a test oracle and small games); a blueprint too big for
    that gives its rows by :func:`bucket_rows`.
    """
    strategy.check(full_tree)

    def rows(tree: PublicTree, player: int) -> np.ndarray:
        return place(full_tree, tree).restrict(strategy.probs[player], player)

    return rows


def board_pass_exploitability(
    game: Game, rows: RowSource, *, batch: int = 8, isomorphic: bool = False, check_symmetry: int = 2, seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> BoardPassResult:
    """Both players' best-response values against ``rows``' strategy, one batch of boards at a time.

    See the module docstring. The trunk's values below each public chance node of the
    first deal come from the forests: at every one of the node's private states (a hand)
    the sum over the boards of the forest roots' counterfactual best-response values, which
    the trunk's best-response pass adds to what it holds there itself (its terminals after
    an all-in, whose boards are then left out of the forests). ``batch`` boards share one
    compiled forest (fewer, larger numpy calls for more memory; 8 was the fastest measured on
    the 52-card deck, larger forests slower again); ``progress(done, total)`` is called after
    each batch.

    Args:
        isomorphic: compile one board per class of suit-isomorphic boards and rename hands
            for the others (module docstring); exact for a suit-symmetric strategy only.
        check_symmetry: with ``isomorphic``, how many boards (drawn with ``seed`` among
            those not compiled) to compile besides their class's board and compare
            (:func:`check_board_symmetry`), after checking the trunk's reaches of every
            chance node against their suit images; 0 skips both checks (the caller
            guarantees the symmetry).

    Raises:
        GameDefinitionError: not a poker game, no public deal to cut at, ``batch`` < 1,
            ``check_symmetry`` < 0, or (with ``isomorphic``) a strategy found not to be
            suit-symmetric.
    """
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise GameDefinitionError(f"batch (boards per forest) must be a whole number >= 1, got {batch!r}")
    if isinstance(check_symmetry, bool) or not isinstance(check_symmetry, (int, np.integer)) or check_symmetry < 0:
        raise GameDefinitionError(f"check_symmetry (boards compiled to check) must be a whole number >= 0, got {check_symmetry!r}")
    if not isinstance(game, PokerGame):
        raise GameDefinitionError(f"{game.name}: the board pass is for the poker family; evaluate it whole with exploitability()")
    if sum(game.spec.board_cards) == len(game.spec.board):
        raise GameDefinitionError(f"{game.name}: no public chance event to cut at; evaluate it whole with exploitability()")
    started = time.perf_counter()
    cut = BoardCut.of(game)
    trunk = cut.trunk
    classes = BoardClasses.of(cut, isomorphic)
    reach = (forward_reach(trunk, 0, transition_weights(trunk, 0, rows(trunk, 0))),
             forward_reach(trunk, 1, transition_weights(trunk, 1, rows(trunk, 1))))
    checked = 0
    if isomorphic and check_symmetry:
        check_reach_symmetry(cut, classes, reach)
        checked = check_board_symmetry(cut, classes, rows, reach, int(check_symmetry), seed)
    C, H = cut.state_at[0].shape
    per_q = [np.zeros((classes.perms.shape[0], C * H)) for _ in (0, 1)]  # [Q, C·H] per player
    num_batches = -(-classes.compiled.size // int(batch))
    largest = 0
    for k in range(num_batches):
        part = classes.compiled[k * int(batch) : (k + 1) * int(batch)]
        values, size = _board_values(cut, [cut.deals[i] for i in part.tolist()], rows, reach)
        largest = max(largest, size)
        weight = classes.weight[k * int(batch) : (k + 1) * int(batch)]
        for p in (0, 1):
            per_q[p] += weight.T @ values[p]
        if progress is not None:
            progress(k + 1, num_batches)
    leaf_cfv = [_chance_values(cut, classes, p, per_q[p]) for p in (0, 1)]
    br = tuple(best_response_to_reach(trunk, p, reach[1 - p], leaf_cfv=leaf_cfv[p], want_policy=False).value for p in (0, 1))
    return BoardPassResult(Exploitability((br[0], br[1])), len(cut.deals), int(classes.compiled.size), checked, num_batches,
                           tree_bytes(trunk), largest, time.perf_counter() - started)


def _board_values(cut: BoardCut, boards: list[tuple[int, ...]], rows: RowSource, reach: tuple[np.ndarray, np.ndarray],
                  measure: bool = True) -> tuple[tuple[np.ndarray, np.ndarray], int]:
    """Per player [B, C·H] the best responder's values at each board's forest roots, by (chance node, hand); the forest's
    bytes where ``measure`` (0 otherwise: counting them walks the forest's Python objects, about 20 ms a batch of flops).

    Zero where a board leaves no subgame below a chance node (the trunk holds it) and at
    hands the board blocks.
    """
    C, H = cut.state_at[0].shape
    out = (np.zeros((len(boards), C * H)), np.zeros((len(boards), C * H)))
    part = cut.forest(boards)
    if part is None:
        return out, 0
    forest = part.tree
    slot = {cut.game.cards_str(b): i for i, b in enumerate(boards)}
    roots = np.flatnonzero(forest.parent < 0)
    board_of_node = np.full(forest.kind.size, -1, dtype=np.int64)
    board_of_node[roots] = [slot[forest.public_key[n][-1]] for n in roots.tolist()]
    sws = [transition_weights(forest, p, rows(forest, p)) for p in (0, 1)]
    for p in (0, 1):
        o = 1 - p
        reach_o = forward_reach(forest, o, sws[o], reach[o][part.gather[o]])
        cbv = best_response_to_reach(forest, p, reach_o, want_policy=False).cbv
        rs = forest.root_slice[p]
        cell = cut.cells[p][part.gather[p]]
        at = board_of_node[forest.players[p].node[rs]] * (C * H) + cell
        out[p][:] = np.bincount(at, weights=cbv[rs], minlength=len(boards) * C * H).reshape(len(boards), C * H)
    return out, tree_bytes(forest) if measure else 0


def _chance_values(cut: BoardCut, classes: BoardClasses, p: int, per_q: np.ndarray) -> np.ndarray:
    """[G_p] of the trunk: at each chance node's hand h, the sum over q of ``per_q[q]`` at (node, π_q(h))."""
    C, H = cut.state_at[p].shape
    total = np.zeros((C, H))
    for q in range(classes.perms.shape[0]):
        total += per_q[q].reshape(C, H)[:, classes.hand_perm[q]]
    out = np.zeros(cut.trunk.players[p].num_states)
    valid = cut.state_at[p] >= 0
    out[cut.state_at[p][valid]] = total[valid]
    return out


def check_reach_symmetry(cut: BoardCut, classes: BoardClasses, reach: tuple[np.ndarray, np.ndarray]) -> None:
    """Raise unless both players' reaches of every chance node of the cut are fixed by every suit permutation.

    Raises:
        GameDefinitionError: a hand whose reach differs from its image's by more than
            :data:`SYMMETRY_TOLERANCE`.
    """
    hands = deal_hands(cut.game)
    for p in (0, 1):
        table = cut.state_at[p]
        at = np.where(table >= 0, reach[p][np.maximum(table, 0)], 0.0)  # [C, H]
        for q in range(1, classes.perms.shape[0]):
            gap = np.abs(at[:, classes.hand_perm[q]] - at)
            if gap.max(initial=0.0) > SYMMETRY_TOLERANCE:
                c, h = np.unravel_index(int(gap.argmax()), gap.shape)
                image = hands[classes.hand_perm[q][h]]
                raise GameDefinitionError(
                    f"{cut.game.name}: the strategy is not suit-symmetric: player {p}'s reach of "
                    f"{cut.game.cards_str(hands[h].tolist())} at the deal after {list(cut.trunk.public_key[cut.chance[c]])} "
                    f"is {at[c, h]:.12g}, of its suit image {cut.game.cards_str(image.tolist())} {at[c, classes.hand_perm[q][h]]:.12g}; "
                    "evaluate it with isomorphic=False")


def check_board_symmetry(cut: BoardCut, classes: BoardClasses, rows: RowSource, reach: tuple[np.ndarray, np.ndarray],
                         count: int, seed: int = 0) -> int:
    """Compile ``count`` boards (drawn with ``seed`` among those not compiled) beside their class's boards and compare.

    A board ``F`` with ``π_q(F) = F*`` must give the best responder at hand ``h`` the value
    of ``π_q(h)`` at ``F*`` (both players, every chance node), to :data:`SYMMETRY_TOLERANCE`
    times the largest value there (at least 1). Returns the boards checked.

    Raises:
        GameDefinitionError: a value that differs from its image's.
    """
    others = np.flatnonzero(classes.perm != 0)
    if others.size == 0 or count == 0:
        return 0
    picked = np.sort(np.random.default_rng(seed).choice(others, size=min(count, others.size), replace=False))
    own = classes.compiled[classes.representative[picked]]
    boards = sorted(set(picked.tolist()) | set(own.tolist()))
    where = {d: i for i, d in enumerate(boards)}
    values, _ = _board_values(cut, [cut.deals[d] for d in boards], rows, reach, measure=False)
    C, H = cut.state_at[0].shape
    for p in (0, 1):
        for f, g in zip(picked.tolist(), own.tolist()):
            mine = values[p][where[f]].reshape(C, H)
            image = values[p][where[g]].reshape(C, H)[:, classes.hand_perm[classes.perm[f]]]
            gap = np.abs(mine - image)
            if gap.max(initial=0.0) > SYMMETRY_TOLERANCE * max(1.0, float(np.abs(image).max(initial=0.0))):
                raise GameDefinitionError(
                    f"{cut.game.name}: the strategy is not suit-symmetric: player {p}'s best-response values after board "
                    f"{cut.game.cards_str(cut.deals[f])} differ from those after its suit image "
                    f"{cut.game.cards_str(cut.deals[g])} by up to {gap.max():.3g}; evaluate it with isomorphic=False")
    return int(picked.size)
