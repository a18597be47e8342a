"""Terminal value operators.

A terminal operator holds ``U`` with ``U[g0, g1]`` the sum, over the histories whose
private states are ``g0`` and ``g1``, of chance probability times player 0's utility.
Then player 0's counterfactual values are ``U @ reach_1`` and player 1's are
``-(Uᵀ @ reach_0)``. One sparse matrix covers every terminal of a tree, so all terminals
are evaluated in a single sparse product per player.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy.sparse is imported where used: about 22 MB that a hold'em spot never needs
    import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class SparseTerminal:
    """All terminal payoffs of an enumerated game as one sparse bilinear operator."""

    u: sp.csr_matrix  #: [G0, G1] chance-weighted payoff of player 0
    ut: sp.csr_matrix  #: [G1, G0] the transpose, stored for a fast product

    @staticmethod
    def from_entries(g0: np.ndarray, g1: np.ndarray, value: np.ndarray, shape: tuple[int, int]) -> SparseTerminal:
        import scipy.sparse as sp
        u = sp.csr_matrix((value, (g0, g1)), shape=shape)
        u.sum_duplicates()
        return SparseTerminal(u, u.T.tocsr())

    def cfv(self, player: int, reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        values: np.ndarray = self.u @ reach[1] if player == 0 else -(self.ut @ reach[0])
        return values

    def matrix(self) -> sp.csr_matrix:
        return self.u
