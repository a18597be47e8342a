"""Exact exploitability by a pass over boards: the trunk plus one batch of boards in memory.

A game too big to compile whole (no-limit flop hold'em, Brown & Sandholm 2017 §7) is cut
where CFR-D cuts it (Burch, Johanson & Bowling 2014, "Decomposition into Subgames"): the
trunk is the public tree down to the first public chance event (``TrunkSplit(rounds=1)``),
and each trunk leaf (a first-round betting sequence and the board dealt after it) roots a
subgame. A best response composes over that cut: the best responder's counterfactual
best-response value at a trunk leaf private state depends only on the opponent's reach of
the leaf (fixed by the strategy) and on the strategy below it, never on her own choices
above it. So:

1. compile the trunk, give it the strategy's rows and compute both players' reaches;
2. for each batch of boards, compile the forest of every subgame dealt one of those boards
   (all the betting sequences that reach it), give it the strategy's rows, push the
   opponent's trunk-leaf reach down the forest, take the best responder's counterfactual
   best-response values at its roots (:func:`~subgame.eval.best_response.best_response_to_reach`)
   and drop the forest;
3. one best-response pass over the trunk with those values fixed at its leaves.

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
from ..strategy import Strategy
from ..tree.compile import compile_game
from ..tree.public_tree import LEAF, PublicTree, infoset_index, infoset_keys, rows_in
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


def _leaf_starts(tree: PublicTree, player: int, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each node's private states start in ``tree``, and how many there are (states are numbered by node)."""
    node = tree.players[player].node
    lo = np.searchsorted(node, nodes, side="left")
    hi = np.searchsorted(node, nodes, side="right")
    return lo, hi - lo


def _gather(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + c)`` over the pairs, without a Python loop."""
    total = int(counts.sum())
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return offsets + np.arange(total)


def board_pass_exploitability(
    game: Game, rows: RowSource, *, batch: int = 1, trunk: PublicTree | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BoardPassResult:
    """Both players' best-response values against ``rows``' strategy, one batch of boards at a time.

    See the module docstring. ``batch`` boards share one compiled forest (fewer, larger
    numpy calls for more memory); ``progress(done, total)`` is called after each batch.

    Raises:
        GameDefinitionError: the game has no public chance event to cut at, ``batch`` < 1,
            or a forest's root states do not match the trunk's leaf states.
    """
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise GameDefinitionError(f"batch (boards per forest) must be a whole number >= 1, got {batch!r}")
    started = time.perf_counter()
    if trunk is None:
        trunk = compile_game(game, chance_limit=1)
    leaves = np.flatnonzero(trunk.kind == LEAF)
    if leaves.size == 0:
        raise GameDefinitionError(f"{game.name}: no public chance event to cut at; evaluate it whole with exploitability()")
    reach = tuple(forward_reach(trunk, p, transition_weights(trunk, p, rows(trunk, p))) for p in (0, 1))
    leaf_cfv = [np.zeros(trunk.players[p].num_states) for p in (0, 1)]
    board_of = [trunk.public_key[n][-1] for n in leaves]
    boards = list(dict.fromkeys(board_of))
    group = {b: i for i, b in enumerate(boards)}
    batch_of = np.fromiter((group[b] // int(batch) for b in board_of), dtype=np.int64, count=leaves.size)
    order = np.argsort(batch_of, kind="stable")
    bounds = np.searchsorted(batch_of[order], np.arange(batch_of.max() + 2))
    largest = 0
    num_batches = len(bounds) - 1
    for k in range(num_batches):
        nodes = leaves[order[bounds[k] : bounds[k + 1]]]
        forest = compile_game(game, public_states=[trunk.public_key[n] for n in nodes])
        largest = max(largest, tree_bytes(forest))
        gathers = []
        for p in (0, 1):
            lo, cnt = _leaf_starts(trunk, p, nodes)
            rs = forest.plan.root_slice[p]
            if int(cnt.sum()) != rs.stop - rs.start:
                raise GameDefinitionError(f"{game.name}: the forest of boards {k} has {rs.stop - rs.start} root states "
                                          f"of player {p}, the trunk {int(cnt.sum())}")
            gathers.append(_gather(lo, cnt))
        sws = [transition_weights(forest, p, rows(forest, p)) for p in (0, 1)]
        for p in (0, 1):
            o = 1 - p
            reach_o = forward_reach(forest, o, sws[o], reach[o][gathers[o]])
            cbv = best_response_to_reach(forest, p, reach_o, want_policy=False).cbv
            leaf_cfv[p][gathers[p]] = cbv[forest.plan.root_slice[p]]
        del forest, sws
        if progress is not None:
            progress(k + 1, num_batches)
    br = tuple(best_response_to_reach(trunk, p, reach[1 - p], leaf_cfv=leaf_cfv[p], want_policy=False).value for p in (0, 1))
    return BoardPassResult(Exploitability((br[0], br[1])), len(boards), num_batches, tree_bytes(trunk), largest,
                           time.perf_counter() - started)
