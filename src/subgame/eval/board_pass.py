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
from ..tree.public_tree import PublicTree, infoset_index, infoset_keys, rows_in
from ..tree.size import tree_bytes
from ..tree.sweep import forward_reach, transition_weights
from .best_response import Exploitability, best_response_to_reach

#: ``rows(tree, player) -> [I, A]``: the strategy's rows at ``player``'s information sets of
#: ``tree`` (a trunk or a forest compiled from the game), action slots as in ``tree``.
RowSource = Callable[[PublicTree, int], np.ndarray]


@dataclass(frozen=True)
class BoardPassResult:
    """The exploitability found by :func:`board_pass_exploitability`, and what the pass held."""

    exploitability: Exploitability
    boards: int  #: distinct boards dealt at the cut
    batches: int  #: forests compiled, one per batch of boards
    trunk_bytes: int  #: the trunk's arrays
    largest_batch_bytes: int  #: the largest forest's arrays
    seconds: float


def strategy_rows(full_tree: PublicTree, strategy: Strategy) -> RowSource:
    """Rows of an explicit whole-game ``strategy``, matched by (public key, private label).

    Needs the whole game's tree for the matching (a test oracle and small games); a
    blueprint too big for that gives its rows by :func:`bucket_rows`.
    """
    strategy.check(full_tree)
    index = (infoset_index(full_tree, 0), infoset_index(full_tree, 1))

    def rows(tree: PublicTree, player: int) -> np.ndarray:
        x = strategy.probs[player][rows_in(index[player], infoset_keys(tree, player), "board pass")]
        width = tree.players[player].max_actions
        return x[:, :width]

    return rows


def board_pass_exploitability(
    game: Game, rows: RowSource, *, batch: int = 1, progress: Callable[[int, int], None] | None = None,
) -> BoardPassResult:
    """Both players' best-response values against ``rows``' strategy, one batch of boards at a time.

    See the module docstring. The trunk's values below each public chance node of the
    first deal come from the forests: at every one of the node's private states (a hand)
    the sum over the boards of the forest roots' counterfactual best-response values, which
    the trunk's best-response pass adds to what it holds there itself (its terminals after
    an all-in, whose boards are then left out of the forests). ``batch`` boards share one
    compiled forest (fewer, larger numpy calls for more memory); ``progress(done, total)``
    is called after each batch.

    Raises:
        GameDefinitionError: not a poker game, no public deal to cut at, or ``batch`` < 1.
    """
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise GameDefinitionError(f"batch (boards per forest) must be a whole number >= 1, got {batch!r}")
    if not isinstance(game, PokerGame):
        raise GameDefinitionError(f"{game.name}: the board pass is for the poker family; evaluate it whole with exploitability()")
    if sum(game.spec.board_cards) == len(game.spec.board):
        raise GameDefinitionError(f"{game.name}: no public chance event to cut at; evaluate it whole with exploitability()")
    started = time.perf_counter()
    cut = BoardCut.of(game)
    trunk = cut.trunk
    reach = tuple(forward_reach(trunk, p, transition_weights(trunk, p, rows(trunk, p))) for p in (0, 1))
    leaf_cfv = [np.zeros(trunk.players[p].num_states) for p in (0, 1)]
    num_batches = -(-len(cut.deals) // int(batch))
    largest = 0
    for k in range(num_batches):
        part = cut.forest(cut.deals[k * int(batch) : (k + 1) * int(batch)])
        if part is not None:
            forest = part.tree
            largest = max(largest, tree_bytes(forest))
            sws = [transition_weights(forest, p, rows(forest, p)) for p in (0, 1)]
            for p in (0, 1):
                o = 1 - p
                reach_o = forward_reach(forest, o, sws[o], reach[o][part.gather[o]])
                cbv = best_response_to_reach(forest, p, reach_o, want_policy=False).cbv
                np.add.at(leaf_cfv[p], part.gather[p], cbv[forest.plan.root_slice[p]])
            del forest, sws, part
        if progress is not None:
            progress(k + 1, num_batches)
    br = tuple(best_response_to_reach(trunk, p, reach[1 - p], leaf_cfv=leaf_cfv[p], want_policy=False).value for p in (0, 1))
    return BoardPassResult(Exploitability((br[0], br[1])), len(cut.deals), num_batches, tree_bytes(trunk), largest,
                           time.perf_counter() - started)
