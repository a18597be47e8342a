"""The multi-valued leaf of depth-limited solving (Brown, Sandholm & Amos 2018, §4).

At a depth limit the re-solving player ρ is assumed to play her blueprint σ̂_ρ for the
rest of the game, while the opponent picks, at each of her *leaf information sets* (her
private state at a leaf public node: one choice shared by every history she cannot tell
apart), which of K continuation strategies σ_o¹..σ_oᴷ she plays from there on. Choosing k
pays each history h the value v^(σ̂_ρ, σ_oᵏ)(h) (Proposition 1).

The values are stored like the terminal operators: for each continuation k a sparse
matrix ``G_k[g0, g1]``, the sum over the leaf histories whose private states are ``g0``
and ``g1`` of chance probability × player 0's value. The K matrices are stacked into one
sparse operator, so a call of :meth:`MultiValuedLeaf.values` is one sparse product and a
few array operations over the opponent's leaf states: no Python loop per history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

from ..errors import SubgameError
from ..tree.public_tree import LEAF, PublicTree

if TYPE_CHECKING:  # scipy.sparse is imported where used: about 22 MB that a hold'em spot never needs
    import scipy.sparse as sp


class LeafProduct(Protocol):
    """One of the two products of :data:`BoundValues`; ``iteration``: the CFR iteration asking (``None``: an
    evaluation), which a sampled source may use to draw its sample (exact when ``None``)."""

    def __call__(self, x: np.ndarray, iteration: int | None = None, /) -> np.ndarray: ...


def every_row(receiver: int, iteration: int | None, /) -> None:
    """The rows of a source without samples: every one of the L leaf states, always."""
    return None


@dataclass(frozen=True, eq=False)
class BoundValues:
    """The products of :class:`ContinuationValues` over one tree.

    Attributes:
        opponent_values: ``opponent_values(reach_rho)`` [L', K] the opponent's counterfactual value of each
            continuation at her leaf states given ρ's reach [G_ρ].
        player_values: ``player_values(split)`` [G_ρ] ρ's values given [L', K] the opponent's reach at her leaf
            states split by her pick.
        rows: ``rows(receiver, iteration)`` the leaf states (indices into the L) that the product giving
            ``receiver`` her values reads or fills at ``iteration``, in the order of its L' rows; ``None``: all L
            in order. A sampled source values a few of them in an iteration, and the leaf's own work then
            touches those alone.
    """

    opponent_values: LeafProduct
    player_values: LeafProduct
    rows: Callable[[int, int | None], np.ndarray | None] = every_row


class ContinuationValues(Protocol):
    """K continuation values at the leaves of one depth-limited tree, as :class:`MultiValuedLeaf` uses them.

    :class:`LeafValues` stores them as sparse matrices; a source with more structure (the
    poker leaves of :mod:`.poker_leaf`) computes the same products without forming them.
    """

    @property
    def player(self) -> int: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    def bind(self, tree: PublicTree, states: np.ndarray) -> BoundValues:
        """The two products over ``tree`` with the opponent's leaf states ``states`` [L]; raises
        :class:`~subgame.errors.SubgameError` where the values are not of this tree."""
        ...


@dataclass(frozen=True, eq=False)
class LeafValues:
    """K value operators over the leaves of one depth-limited tree.

    Attributes:
        game_id: fingerprint of the game the tree was compiled from.
        player: ρ, the player whose blueprint is played below the leaves (the re-solver);
            the other player chooses among the continuations.
        matrices: K × [G0, G1] sparse, ``G_k[g0, g1]`` = Σ over leaf histories with
            private states (g0, g1) of chance probability × player 0's value when ρ plays
            her blueprint and the opponent continuation k below the leaf.
        names: [K] a name for each continuation.
    """

    game_id: str
    player: int
    matrices: tuple[sp.csr_matrix, ...]
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.player not in (0, 1):
            raise SubgameError(f"the re-solving player must be 0 or 1, got {self.player!r}")
        if not self.matrices:
            raise SubgameError("a multi-valued leaf needs at least one continuation (K >= 1), got K = 0")
        if len(self.names) != len(self.matrices):
            raise SubgameError(f"{len(self.names)} names for {len(self.matrices)} continuations")
        shapes = {m.shape for m in self.matrices}
        if len(shapes) != 1:
            raise SubgameError(f"the continuations' value matrices differ in shape: {sorted(shapes)}")

    @property
    def num_values(self) -> int:
        """K."""
        return len(self.matrices)

    @property
    def opponent(self) -> int:
        return 1 - self.player

    def select(self, ks: list[int] | range) -> LeafValues:
        """The values of continuations ``ks`` only."""
        return LeafValues(self.game_id, self.player, tuple(self.matrices[k] for k in ks), tuple(self.names[k] for k in ks))

    def bind(self, tree: PublicTree, states: np.ndarray) -> BoundValues:
        """The products of :class:`ContinuationValues` as two stacked sparse operators."""
        import scipy.sparse as sp
        if self.game_id != tree.game_id:
            raise SubgameError(f"the leaf values are of game {self.game_id!r}, the tree is {tree.game_id!r}")
        shape = (tree.players[0].num_states, tree.players[1].num_states)
        if self.matrices[0].shape != shape:
            raise SubgameError(f"the leaf value matrices have shape {self.matrices[0].shape}; this tree needs {shape}")
        opp = self.opponent
        K, L = self.num_values, states.size
        # row k·L + l: the opponent's signed value at leaf state l under continuation k
        to_opponent = sp.vstack([(m if opp == 0 else -m.T.tocsr())[states] for m in self.matrices]).tocsr()
        to_player = (-to_opponent.T).tocsr()

        def opponent_values(reach_player: np.ndarray, iteration: int | None = None, /) -> np.ndarray:
            return np.asarray(to_opponent @ reach_player).reshape(K, L).T

        def player_values(split: np.ndarray, iteration: int | None = None, /) -> np.ndarray:
            return np.asarray(to_player @ split.T.ravel())

        return BoundValues(opponent_values, player_values)


@dataclass(eq=False)
class MultiValuedLeaf:
    """A :class:`~subgame.solve.plugins.Leaf`: the opponent picks a continuation per leaf state.

    The opponent's pick at each of her L leaf private states is a regret minimizer over
    the K continuations (regret matching+, as the CFR+ engine; the paper is silent on
    this choice). Its regrets change only in a solver iteration (``iteration`` given) and
    only from the opponent's own values; the re-solver's values at an iteration use the
    opponent's current pick. On an evaluation (``iteration is None``) nothing changes,
    and the opponent's pick is ``evaluation``: ``"best"`` (she best-responds at each leaf
    state to the re-solver's reach, so root best-response values are those of the
    depth-limited game), ``"current"`` or ``"average"`` (her reach-weighted average pick
    with linear weights t, matching the averaging of CFR+).

    Attributes:
        tree: the depth-limited tree.
        leaf_values: the K value operators (:class:`LeafValues`).
        evaluation: the opponent's pick on an evaluation.
        states: [L] the opponent's private states at leaf nodes.
        regrets: [L, K] cumulative regrets of her pick.
        choice_sum: [L, K] Σ_t t · her reach · her pick.
    """

    tree: PublicTree
    leaf_values: ContinuationValues
    evaluation: Literal["best", "current", "average"] = "best"
    states: np.ndarray = field(init=False)
    regrets: np.ndarray = field(init=False)
    choice_sum: np.ndarray = field(init=False)
    _bound: BoundValues = field(init=False, repr=False)

    def __post_init__(self) -> None:
        lv, tree = self.leaf_values, self.tree
        if self.evaluation not in ("best", "current", "average"):
            raise SubgameError(f"evaluation must be 'best', 'current' or 'average', got {self.evaluation!r}")
        pa = tree.players[1 - lv.player]
        self.states = np.flatnonzero(tree.kind[pa.node] == LEAF)
        self._bound = lv.bind(tree, self.states)
        K, L = len(lv.names), self.states.size
        self.regrets = np.zeros((L, K))
        self.choice_sum = np.zeros((L, K))

    @property
    def player(self) -> int:
        """ρ, the re-solving player."""
        return self.leaf_values.player

    def choice(self, rows: np.ndarray | None = None) -> np.ndarray:
        """[L, K] the opponent's current pick (regret matching+; uniform where no regret is positive); ``rows``: at
        those leaf states only."""
        pos = self.regrets if rows is None else self.regrets[rows]  # floored at zero after every update
        tot = pos.sum(axis=1, keepdims=True)
        none = tot <= 0.0
        return (pos + none) / np.where(none, pos.shape[1], tot)

    def average_choice(self) -> np.ndarray:
        """[L, K] her reach-weighted average pick (the current one where she never reached a leaf)."""
        tot = self.choice_sum.sum(axis=1, keepdims=True)
        return np.where(tot > 0, self.choice_sum / np.where(tot > 0, tot, 1.0), self.choice())

    def continuation_values(self, reach_player: np.ndarray) -> np.ndarray:
        """[L, K] the opponent's counterfactual value of each continuation at each leaf state (every state, exact)."""
        return self._bound.opponent_values(reach_player)

    def pick(self, reach_player: np.ndarray, how: Literal["best", "current", "average"]) -> np.ndarray:
        """[L, K] the opponent's pick on an evaluation: see the class docstring."""
        if how == "current":
            return self.choice()
        if how == "average":
            return self.average_choice()
        w = self.continuation_values(reach_player)
        out = np.zeros_like(w)
        out[np.arange(w.shape[0]), w.argmax(axis=1)] = 1.0  # ties: lowest continuation index
        return out

    def evaluate(self, player: int, reach: tuple[np.ndarray, np.ndarray],
                 how: Literal["best", "current", "average"]) -> np.ndarray:
        """[G_player] the leaf's values with the opponent's pick ``how``; changes nothing."""
        return self._values(player, reach, self.pick(reach[self.player], how), None)

    # Leaf
    def values(self, player: int, reach: tuple[np.ndarray, np.ndarray], iteration: int | None) -> np.ndarray:
        if iteration is None:
            return self.evaluate(player, reach, self.evaluation)
        rows = self._bound.rows(player, iteration)
        return self._values(player, reach, self.choice(rows), iteration, rows)

    def _values(self, player: int, reach: tuple[np.ndarray, np.ndarray], x: np.ndarray, iteration: int | None,
                rows: np.ndarray | None = None) -> np.ndarray:
        """``x`` [L', K]: the opponent's pick at the leaf states ``rows`` (:class:`BoundValues`; ``None``: all L)."""
        rho, opp = self.player, 1 - self.player
        at = slice(None) if rows is None else rows
        states = self.states[at]
        if player == opp:
            out = np.zeros(self.tree.players[player].num_states)
            w = self._bound.opponent_values(reach[rho], iteration)
            v = (w * x).sum(axis=1)
            out[states] = v
            if iteration is not None:  # her regrets and average pick change at the states valued, as chance-sampled CFR's
                self.choice_sum[at] += float(iteration) * reach[opp][states][:, None] * x
                self.regrets[at] = np.maximum(self.regrets[at] + (w - v[:, None]), 0.0)
            return out
        return self._bound.player_values(reach[opp][states][:, None] * x, iteration)

    def end_iteration(self, t: int) -> None:
        return None
