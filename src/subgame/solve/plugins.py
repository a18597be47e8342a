"""The two plug-ins the CFR engine owns: leaves below a depth limit and a gadget at the root.

A *leaf* gives counterfactual values at the private states of a tree's depth-limit leaf
nodes: an inner solver of the subgames below (CFR-D, decomposition paper), a multi-valued
state (depth-limited paper §4), a value network or rollouts. A *root gadget* sets one
player's range at the root of a subgame from her root counterfactual values (safe-and-nested
§4–5; decomposition paper, Fig. 2). The solver calls both; neither ever sees the solver, and
only the solver writes its reaches.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..tree.public_tree import PublicTree
from ..tree.sweep import leaf_values
from .rules import UpdateRule


class Leaf(Protocol):
    """Counterfactual values at depth-limit leaf private states.

    ``values(player, reach, iteration)`` returns [G_player]: the player's counterfactual
    value at the private states the leaf covers and zero elsewhere, given both players'
    own reaches ``reach = (reach_0, reach_1)`` over their private states. ``iteration`` is
    the solver iteration t the call belongs to, or ``None`` for an evaluation, which must
    not change the leaf's state. After both players' updates of iteration t the solver
    calls ``end_iteration(t)``.
    """

    def values(self, player: int, reach: tuple[np.ndarray, np.ndarray], iteration: int | None) -> np.ndarray: ...

    def end_iteration(self, t: int) -> None: ...


class RootGadget(Protocol):
    """A small regret minimizer that sets ``player``'s range at the subgame roots.

    Before each pass the solver reads ``root_range()`` [R] (her reach at the root private
    states); after computing a player's counterfactual values it calls
    ``update(player, root_cfv, t)`` with that player's root values [R_player], so the
    gadget learns from its own player's values and may ignore the other's.
    """

    @property
    def player(self) -> int: ...

    def root_range(self) -> np.ndarray: ...

    def update(self, player: int, root_cfv: np.ndarray, t: int) -> None: ...


def sets_range(gadget: RootGadget | None, q: int) -> bool:
    """Whether player ``q``'s root range comes from ``gadget``."""
    return gadget is not None and gadget.player == q


def root_range(gadget: RootGadget | None, q: int, given: np.ndarray | None) -> np.ndarray | None:
    """[R_q] player ``q``'s reach at the root private states: the gadget's where it sets hers, else ``given``
    (``None``: ones)."""
    return gadget.root_range() if gadget is not None and sets_range(gadget, q) else given


@dataclass(eq=False)
class RootRangeAverage:
    """A root gadget's range averaged like the strategies (each iteration's weight and discount of the update rule):
    with the re-solver's average strategy, the gadget player's average strategy in the re-solving game."""

    total: np.ndarray  #: [R] the weighted sum of her root ranges
    weight: float = 0.0  #: the sum of the weights

    def add(self, rule: UpdateRule, root_range: np.ndarray) -> None:
        """Add iteration's ``root_range`` [R] with ``rule``'s weight, after its discount of the sum."""
        if rule.sum_discount is not None:
            self.total *= rule.sum_discount
            self.weight *= rule.sum_discount
        self.total += rule.weight * root_range
        self.weight += rule.weight

    def mean(self, gadget: RootGadget) -> np.ndarray:
        """[R] the average, or the gadget's range where nothing was added yet."""
        return self.total / self.weight if self.weight > 0 else gadget.root_range()


def counterfactual_leaf_values(
    tree: PublicTree, player: int, reach: tuple[np.ndarray, np.ndarray], leaves: Sequence[Leaf], iteration: int | None,
    *, out: np.ndarray | None = None,
) -> np.ndarray:
    """[G_player] the values of the terminal operators plus those of every leaf plug-in (into ``out`` if given)."""
    v = leaf_values(tree, player, reach, out=out)
    for leaf in leaves:
        v += leaf.values(player, reach, iteration)
    return v


def plug_in_values(
    player: int, reach: tuple[np.ndarray, np.ndarray], leaves: Sequence[Leaf], iteration: int | None
) -> np.ndarray | None:
    """[G_player] what the leaf plug-ins alone give (``None`` without leaves)."""
    if not leaves:
        return None
    v = np.array(leaves[0].values(player, reach, iteration), dtype=np.float64, copy=True)
    for leaf in leaves[1:]:
        v += leaf.values(player, reach, iteration)
    return v
