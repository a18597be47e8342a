"""Weakening generated continuations (depth-limited paper §4, last paragraph).

The blueprint σ̂ is not an exact equilibrium, so a generated continuation σ_oᵏ may do
better than the opponent's blueprint σ̂_o against σ̂_ρ, and the re-solver would then play
too conservatively. The correction: at each opponent leaf information set I where
v_o^(σ̂_ρ, σ_oᵏ)(I) > v_o^(σ̂_ρ, σ̂_o)(I), every history h ∈ I has its opponent value
lowered by the difference, uniformly. v(I) is the paper's belief-weighted value: the
histories of I weighted by chance and the re-solver's blueprint reach.

In operator form, with ``C[g0, g1]`` the chance probability of the leaf histories with
private states (g0, g1) and r the re-solver's blueprint reach, the opponent's
counterfactual value at I under k is ``w_k(I)`` and her belief weight is
``n(I) = Σ_g C r``; the shift is ``d(I) = max(0, w_k(I) − w_0(I)) / n(I)`` and ``G_k``
moves by ``d(I) · C`` in the columns (rows, if the opponent is player 0) of I, so that her
counterfactual value at I under k becomes exactly ``min(w_k(I), w_0(I))``. Continuation 0
must be the blueprint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import SubgameError
from ..tree.public_tree import LEAF, PublicTree
from .leaf import LeafValues

if TYPE_CHECKING:  # scipy.sparse is imported where used: about 22 MB that a hold'em spot never needs
    import scipy.sparse as sp


def leaf_chance(tree: PublicTree) -> sp.csr_matrix:
    """[G0, G1] chance probability of the leaf histories at each pair of private states (needs ``leaf_histories=True``)."""
    import scipy.sparse as sp
    nodes = [int(n) for n in np.flatnonzero(tree.kind == LEAF)]
    if not all(n in tree.leaf_data for n in nodes):
        raise SubgameError("weakening needs the leaf histories: compile the depth-limited tree with leaf_histories=True")
    hist = [h for n in nodes for h in tree.leaf_data[n]]
    g0 = np.fromiter((h.private_state[0] for h in hist), dtype=np.int64, count=len(hist))
    g1 = np.fromiter((h.private_state[1] for h in hist), dtype=np.int64, count=len(hist))
    prob = np.fromiter((h.chance_prob for h in hist), dtype=np.float64, count=len(hist))
    c = sp.csr_matrix((prob, (g0, g1)), shape=(tree.players[0].num_states, tree.players[1].num_states))
    c.sum_duplicates()
    return c


def weaken(tree: PublicTree, values: LeafValues, reach_player: np.ndarray, chance: sp.csr_matrix | None = None) -> LeafValues:
    """``values`` with continuations 1..K-1 weakened to do no better than continuation 0 against σ̂_ρ.

    Args:
        tree: the depth-limited tree.
        values: the leaf values; continuation 0 is the opponent's blueprint.
        reach_player: [G_ρ] the re-solver's blueprint reach at the tree's private states
            (only her leaf states are read).
        chance: :func:`leaf_chance` of the tree, if already at hand.
    """
    import scipy.sparse as sp
    c = leaf_chance(tree) if chance is None else chance
    opp = values.opponent
    states = np.flatnonzero(tree.kind[tree.players[opp].node] == LEAF)
    # the opponent's signed value operator, [G_o, G_ρ], and her belief weights n(I)
    signed = [(m if opp == 0 else -m.T.tocsr()) for m in values.matrices]
    cw = c if opp == 0 else c.T.tocsr()
    norm = np.asarray(cw @ reach_player)
    w0 = signed[0] @ reach_player
    out = [values.matrices[0]]
    for m, s in zip(values.matrices[1:], signed[1:]):
        excess = np.zeros(norm.shape)
        excess[states] = np.maximum(np.asarray(s @ reach_player)[states] - w0[states], 0.0)
        d = np.divide(excess, norm, out=np.zeros_like(excess), where=norm > 0)
        shift = sp.diags(d)
        out.append((m + (c @ shift) if opp == 1 else m - (shift @ c)).tocsr())
    return LeafValues(values.game_id, values.player, tuple(out), values.names)
