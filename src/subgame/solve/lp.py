"""The exact sequence-form linear program of a two-player zero-sum game.

A player's pure and mixed strategies are replaced by her *realization plan*: one
probability per sequence of her own actions, constrained by linear equations that say
probability flows from a sequence into the actions of the information set it leads to.
The equilibrium of the game is then one linear program whose size is linear in the size
of the game tree (Koller, Megiddo & von Stengel 1994; von Stengel 1996).

Sequences of player ``p`` are numbered compactly: sequence 0 is the empty sequence, and
the legal action slots ``(I, k)`` of her information sets follow in row-major order of her
``legal`` array, so sequence ``1 + r`` is the ``r``-th legal slot. Every private state's
reach under a realization plan is the plan's value at the *last own sequence* of that
state, which is what maps the tree's terminal operator onto sequence pairs.

HiGHS (through :func:`scipy.optimize.linprog`) solves the LP; the equilibrium is used as
the exact oracle against which CFR and the subgame-solving methods are checked.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..errors import GameDefinitionError, InvalidRangeError
from ..strategy import Strategy, StrategyMeta
from ..tree.public_tree import LEAF, PublicTree, refuse_isomorphic
from ..tree.sweep import forward_reach, transition_weights

if TYPE_CHECKING:  # scipy.sparse is imported where used: about 22 MB that a hold'em spot never needs
    import scipy.sparse as sp

#: Default bound on the number of sequences of both players together. Solve time grows
#: faster than linearly: Leduc (2,186 sequences) takes a tenth of a second, a 13-rank
#: Leduc (45,866 sequences, 689,000 payoff entries) several minutes.
DEFAULT_MAX_SIZE = 100_000

#: Realization below which an information set counts as unreachable (its strategy is uniform).
_UNREACHED = 1e-12


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """One player's sequences and the constraints ``E x = e, x >= 0`` on her realization plans.

    ``S`` is her number of sequences, ``I`` of information sets, ``A`` the most actions at
    any of them, ``G`` the number of her private states (see the module docstring for how
    sequences are numbered).
    """

    player: int
    slot_seq: np.ndarray  #: [I, A] sequence of each action slot, -1 at illegal slots
    parent_seq: np.ndarray  #: [I] sequence that leads to each information set (0: the empty one)
    last_seq: np.ndarray  #: [G] last own sequence on the way to each private state
    E: sp.csr_matrix  #: [1 + I, S] row 0: x[empty] = 1; row 1 + i: sum_k x[i, k] - x[parent_seq[i]] = 0
    e: np.ndarray  #: [1 + I] the right-hand side, (1, 0, ..., 0)

    @property
    def num_sequences(self) -> int:
        return int(self.E.shape[1])

    @cached_property
    def state_map(self) -> sp.csr_matrix:
        """[G, S] 0/1 matrix mapping each private state to its last own sequence."""
        import scipy.sparse as sp
        G, S = self.last_seq.shape[0], self.num_sequences
        return sp.csr_matrix((np.ones(G), (np.arange(G), self.last_seq)), shape=(G, S))

    def behaviour(self, x: np.ndarray) -> np.ndarray:
        """[I, A] the behaviour strategy of realization plan ``x`` [S].

        The probability of slot ``k`` at ``I`` is ``x[I, k] / x[parent(I)]``; the
        denominator is taken as the sum of the children, equal to ``x[parent(I)]`` for a
        feasible plan, so rows sum to one exactly. Information sets the plan does not reach
        get the uniform strategy.
        """
        legal = self.slot_seq >= 0
        child = np.where(legal, np.maximum(x[np.maximum(self.slot_seq, 0)], 0.0), 0.0)
        total = child.sum(axis=1, keepdims=True)
        uniform = legal / legal.sum(axis=1, keepdims=True)
        reached = total > _UNREACHED
        return np.where(reached, child / np.where(reached, total, 1.0), uniform)


@dataclass(frozen=True, eq=False)
class LPResult:
    """An exact equilibrium found by the sequence-form LP."""

    value: float  #: player 0's game value
    strategy: Strategy  #: an equilibrium profile (behaviour strategies, uniform at unreachable infosets)
    realization: tuple[np.ndarray, np.ndarray]  #: [S_p] each player's realization plan
    solve_seconds: float = 0.0  #: wall time of the LP solve(s)


def sequence_form(tree: PublicTree, player: int) -> SequenceForm:
    """Player ``player``'s sequences, realization-plan constraints and state-to-sequence map.

    The last own sequence of every private state is built one public depth at a time from
    ``child_seq``: a state reached by the player's own action ends with that action's
    sequence, any other state inherits its parent's; root states have the empty sequence.
    """
    import scipy.sparse as sp
    if player not in (0, 1):
        raise GameDefinitionError(f"player must be 0 or 1, got {player!r}")
    pa = tree.players[player]
    n_inf = pa.num_infosets
    legal_flat = pa.legal.ravel()
    flat_to_seq = np.where(legal_flat, np.cumsum(legal_flat), -1).astype(np.int64)
    slot_seq = flat_to_seq.reshape(pa.legal.shape)
    n_seq = 1 + int(legal_flat.sum())

    last = np.zeros(pa.num_states, dtype=np.int64)
    lb = pa.level_bounds
    for d in range(1, len(lb) - 1):
        lo, hi = int(lb[d]), int(lb[d + 1])
        cs = pa.child_seq[lo:hi]
        level = last[pa.parent[lo:hi]]
        own = cs >= 0
        level[own] = flat_to_seq[cs[own]]
        last[lo:hi] = level
    parent_seq = last[pa.infoset_priv]

    inf_rows, inf_cols = np.nonzero(pa.legal)
    rows = np.concatenate([[0], 1 + inf_rows, 1 + np.arange(n_inf)])
    cols = np.concatenate([[0], slot_seq[inf_rows, inf_cols], parent_seq])
    vals = np.concatenate([[1.0], np.ones(inf_rows.size), -np.ones(n_inf)])
    E = sp.csr_matrix((vals, (rows, cols)), shape=(1 + n_inf, n_seq))
    e = np.zeros(1 + n_inf)
    e[0] = 1.0
    return SequenceForm(player, slot_seq, parent_seq, last, E, e)


def realization_plan(tree: PublicTree, player: int, probs: np.ndarray) -> np.ndarray:
    """[S] the realization plan of ``player``'s behaviour strategy ``probs`` [I, A].

    The realization of sequence ``(I, k)`` is the player's own reach of ``I`` times the
    probability of ``k`` there (von Stengel 1996, §3); reaches come from one forward sweep.
    """
    sf = sequence_form(tree, player)
    pa = tree.players[player]
    if probs.shape != pa.legal.shape:
        raise InvalidRangeError(f"player {player}: strategy has shape {probs.shape}, the game needs {pa.legal.shape}")
    reach = forward_reach(tree, player, transition_weights(tree, player, probs))
    x = np.zeros(sf.num_sequences)
    x[0] = 1.0
    rows, cols = np.nonzero(pa.legal)
    x[sf.slot_seq[rows, cols]] = reach[pa.infoset_priv[rows]] * probs[rows, cols]
    return x


def terminal_matrix(tree: PublicTree) -> sp.csr_matrix:
    """[G0, G1] the chance-weighted payoff of player 0 summed over all terminal operators."""
    import scipy.sparse as sp
    shape = (tree.players[0].num_states, tree.players[1].num_states)
    U = sp.csr_matrix(shape)
    for op in tree.terminals:
        matrix = getattr(op, "matrix", None)
        if matrix is None:
            raise GameDefinitionError(
                f"{tree.game_name}: the sequence-form LP needs every terminal operator as an explicit matrix, "
                f"and {type(op).__name__} has no matrix() (solve this tree with CFR instead)"
            )
        U = U + sp.csr_matrix(matrix())
    return U


def payoff_matrix(tree: PublicTree) -> sp.csr_matrix:
    """[S0, S1] sequence-form payoff matrix ``A`` of player 0: her expected utility is ``x0ᵀ A x1``.

    ``A = M0ᵀ U M1`` where ``U`` [G0, G1] is the terminal operator and ``M_p`` [G_p, S_p]
    maps private states to their last own sequences (:attr:`SequenceForm.state_map`).
    """
    return _payoff_matrix(tree, sequence_form(tree, 0), sequence_form(tree, 1))


def _payoff_matrix(tree: PublicTree, sf0: SequenceForm, sf1: SequenceForm) -> sp.csr_matrix:
    A = (sf0.state_map.T @ terminal_matrix(tree) @ sf1.state_map).tocsr()
    A.sum_duplicates()
    return A


def _solve_side(A: sp.csr_matrix, sf_max: SequenceForm, sf_min: SequenceForm) -> tuple[float, np.ndarray, np.ndarray]:
    """``max_x min_y xᵀ A y`` over realization plans.

    The inner minimization is replaced by its LP dual (von Stengel 1996, §4): with ``v``
    free, maximize ``fᵀ v`` subject to ``Fᵀ v <= Aᵀ x``, ``E x = e``, ``x >= 0``. The
    multipliers of the ``Fᵀ v <= Aᵀ x`` rows form an optimal plan of the minimizer.

    Returns:
        The value, the maximizer's plan ``x`` and the minimizer's plan ``y`` read from the duals.
    """
    import scipy.sparse as sp
    E, F = sf_max.E, sf_min.E
    nx, nv = E.shape[1], F.shape[0]
    c = np.concatenate([np.zeros(nx), -sf_min.e])
    A_ub = sp.hstack([-A.T, F.T], format="csr")
    A_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], nv))], format="csr")
    bounds = [(0.0, None)] * nx + [(None, None)] * nv
    from scipy.optimize import linprog  # imported where used: scipy.optimize costs ~25 MB and most commands never solve an LP

    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=sf_max.e, bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS could not solve the sequence-form LP of player {sf_max.player}: {res.message}")
    # linprog minimizes -fᵀv and reports d(-fᵀv)/d(b_ub) <= 0: the multipliers y >= 0 negated.
    return -float(res.fun), np.asarray(res.x[:nx]), -np.asarray(res.ineqlin.marginals)


def _is_plan(sf: SequenceForm, y: np.ndarray, tol: float = 1e-9) -> bool:
    """Whether ``y`` satisfies ``F y = f, y >= 0`` to ``tol``."""
    return bool(y.min(initial=0.0) >= -tol and np.abs(sf.E @ y - sf.e).max() <= tol)


def solve_lp(tree: PublicTree, *, max_size: int = DEFAULT_MAX_SIZE, dual_plan: bool = True) -> LPResult:
    """An exact Nash equilibrium and the game value by the sequence-form LP.

    Solves ``max_x min_y xᵀ A y`` over the players' realization plans (Koller, Megiddo &
    von Stengel 1994; von Stengel 1996). Player 1's plan is read from the LP's duals; if
    HiGHS's duals are not a feasible plan to 1e-9 (or ``dual_plan`` is false) her own LP
    ``max_y min_x -xᵀ A y`` is solved as well. Root private states are reached with
    probability one by both players, as in a CFR solve of the tree with default root reaches.

    Args:
        tree: a compiled tree without depth-limit leaves whose terminal operators expose
            ``matrix()`` (every enumerated game does).
        max_size: the most sequences (both players together) to accept.
        dual_plan: read player 1's plan from the duals instead of solving a second LP.

    Raises:
        GameDefinitionError: the tree has depth-limit leaves, a terminal operator without
            an explicit matrix, more than ``max_size`` sequences, or is suit-isomorphic.
    """
    refuse_isomorphic(tree, "the sequence-form LP")
    if np.any(tree.kind == LEAF):
        raise GameDefinitionError(
            f"{tree.game_name}: the sequence-form LP solves complete games only; this tree has depth-limit "
            "leaves (compile it without depth_limit, or solve it with CFR and a leaf operator)"
        )
    sf = (sequence_form(tree, 0), sequence_form(tree, 1))
    size = sf[0].num_sequences + sf[1].num_sequences
    if size > max_size:
        raise GameDefinitionError(
            f"{tree.game_name}: {size} sequences exceed the LP size limit max_size={max_size}; "
            "solve this game with CFR, or raise max_size"
        )
    A = _payoff_matrix(tree, sf[0], sf[1])
    start = time.perf_counter()
    value, x, y = _solve_side(A, sf[0], sf[1])
    lps = 1
    if not (dual_plan and _is_plan(sf[1], y)):
        _, y, _ = _solve_side((-A.T).tocsr(), sf[1], sf[0])
        lps = 2
    seconds = time.perf_counter() - start
    x, y = np.maximum(x, 0.0), np.maximum(y, 0.0)
    probs = (sf[0].behaviour(x), sf[1].behaviour(y))
    meta = StrategyMeta(extra={"solver": "sequence-form LP (HiGHS)", "value": value, "linear_programs": lps})
    return LPResult(value, Strategy(tree.game_id, probs, meta), (x, y), seconds)
