"""The compiled pass of outcome-sampling MCCFR (``_sampling.c``), bitwise the numpy pass of :mod:`.mccfr`.

Lanctot et al. (2009), outcome sampling, over the whole compiled tree: the opponent's sampled pure
strategy and reach, then the updating player's ε-exploring sampled path and its backward update, each
in one C call; numpy keeps only the public chance sample, the uniform draws (so the random stream is
the numpy pass's) and the terminal operators. On a tree of one sparse payoff matrix (Kuhn, Leduc) with
one random stream, :class:`WholeIteration` runs a whole iteration in one call, the public chance sample,
the payoff matrix's products, the regret matching and the updates included, drawing the numpy pass's
uniforms from the generator's own bit generator; so do external and public chance sampling. Optional: without the build, :func:`available` is false
and :class:`~subgame.solve.mccfr.MCCFRSolver` refuses ``engine="compiled"`` with a message.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from ..native import address, load_library
from ..tree.public_tree import PublicTree
from ..tree.sweep import leaf_values


def _load_library() -> ctypes.CDLL | None:
    p, i64, d = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
    return load_library(f"{__package__}._sampling", 3, {
        "os_opponent": ([p, p, p, p, i64, i64, p, p, i64, i64, p, p, p, p, p], None),
        "os_traverser": ([p, p, p, p, i64, p, i64, p, p, p, p, i64, i64, d, p, p, p, p, p, p, p, p], None),
        "os_iteration": ([p, p, p, p, p, p, p, p, d, i64, d, d, d, d, d, p, i64], None),
    })


_LIB = _load_library()


def available() -> bool:
    """Whether the compiled pass was built (``python3 setup.py build_ext --inplace`` or ``pip install``)."""
    return _LIB is not None


@dataclass(frozen=True, eq=False)
class PlayerLayout:
    """One player's arrays as the C pass reads them (contiguous, fixed dtypes)."""

    parent: np.ndarray  #: [G] int32, -1 at the roots
    child_seq: np.ndarray  #: [G] int32 slot of the own action leading to a state, -1 if none
    infoset_priv: np.ndarray  #: [I] int64 the private state of each information set
    node: np.ndarray  #: [G] int32 public node of each state
    level_bounds: np.ndarray  #: [L + 1] int64 first state of each level
    legal: np.ndarray  #: [I, A] uint8
    uniform: np.ndarray  #: [I, A] uniform strategy over legal slots (ε-exploration)
    widest: int  #: states in the widest level of parents
    ones: np.ndarray  #: [G] ones: the updating player's reach given to the terminal operators
    reach: np.ndarray  #: [G] scratch: the player's 0/1 sampled reach as the opponent, q(z[h]) as the updating player
    q: np.ndarray  #: [I, A] scratch: the ε-exploring strategy
    picked: np.ndarray  #: [I] int64 scratch: the sampled slots
    sums: np.ndarray  #: [widest] scratch of the backward sweep
    cum: np.ndarray  #: [A] scratch of one draw
    draws: np.ndarray  #: [I] the uniform draws of a pass, one per information set
    result: np.ndarray  #: [I, A] what a pass returns for the player: her sampled regrets, or her average's increment
    pointers: tuple[int, ...]  #: addresses of parent, child_seq, infoset_priv, node (the C calls' first arguments)
    scratch: tuple[int, ...]  #: addresses of q, picked, reach, sums, cum
    tables: tuple[int, ...]  #: addresses of level_bounds, legal, uniform
    outputs: tuple[int, ...]  #: addresses of draws, result


@dataclass(frozen=True, eq=False)
class OutcomeLayout:
    """Both players' :class:`PlayerLayout` of one tree, built once per solver."""

    tree: PublicTree
    players: tuple[PlayerLayout, PlayerLayout]

    @staticmethod
    def of(tree: PublicTree) -> OutcomeLayout:
        def layout(p: int) -> PlayerLayout:
            pa = tree.players[p]
            bounds = np.ascontiguousarray(pa.level_bounds, dtype=np.int64)
            legal = np.ascontiguousarray(pa.legal, dtype=np.uint8)
            index = (np.ascontiguousarray(pa.parent, dtype=np.int32), np.ascontiguousarray(pa.child_seq, dtype=np.int32),
                     np.ascontiguousarray(pa.infoset_priv, dtype=np.int64), np.ascontiguousarray(pa.node, dtype=np.int32))
            widest = max(int(np.diff(bounds).max(initial=0)), 1)
            return PlayerLayout(
                *index, bounds, legal, np.ascontiguousarray(pa.legal / pa.legal.sum(axis=1, keepdims=True), dtype=np.float64),
                widest, np.ones(pa.num_states), np.empty(pa.num_states), np.empty(legal.shape), np.empty(legal.shape[0], dtype=np.int64),
                np.empty(widest), np.empty(legal.shape[1]), np.empty(legal.shape[0]), np.empty(legal.shape),
                tuple(address(x) for x in index), (), (), (),
            )
        with_scratch = []
        for pl in (layout(0), layout(1)):
            with_scratch.append(replace(pl, scratch=tuple(address(x) for x in (pl.q, pl.picked, pl.reach, pl.sums, pl.cum)),
                                        tables=tuple(address(x) for x in (pl.level_bounds, pl.legal, pl.uniform)),
                                        outputs=(address(pl.draws), address(pl.result))))
        return OutcomeLayout(tree, (with_scratch[0], with_scratch[1]))


def outcome_pass(
    layout: OutcomeLayout, player: int, epsilon: float, sigma: tuple[np.ndarray, np.ndarray], w: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~subgame.solve.mccfr.sampled_pass` of outcome sampling on the whole tree, in C.

    Args:
        sigma: both players' current strategies [I_p, A].
        w: [N] the public chance sample's importance weights, already drawn from ``rng``.
    Returns:
        ``(regrets, average)`` as the numpy pass: [I_p, A] sampled regrets (0 at illegal slots),
        [I_o, A] the opponent's 0/1 sampled reach times his strategy; both the layout's buffers,
        overwritten by the next pass.
    """
    if _LIB is None:
        raise RuntimeError("the compiled outcome-sampling pass was not built")
    o = 1 - player
    lp, lo = layout.players[player], layout.players[o]
    sig_o = np.ascontiguousarray(sigma[o], dtype=np.float64)
    sig_p = np.ascontiguousarray(sigma[player], dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    wp = address(w)
    rng.random(out=lo.draws)
    _LIB.os_opponent(*lo.pointers, lo.parent.size, int(lo.level_bounds[1]), address(sig_o), lo.outputs[0], sig_o.shape[0],
                     sig_o.shape[1], wp, lo.scratch[1], lo.scratch[2], lo.outputs[1], lo.scratch[4])
    v = np.ascontiguousarray(leaf_values(layout.tree, player, (lp.ones, lo.reach) if player == 0 else (lo.reach, lp.ones)),
                             dtype=np.float64)
    rng.random(out=lp.draws)
    _LIB.os_traverser(*lp.pointers, lp.parent.size, lp.tables[0], lp.level_bounds.size - 1, lp.tables[1],
                      lp.tables[2], address(sig_p), lp.outputs[0], sig_p.shape[0], sig_p.shape[1], float(epsilon), wp,
                      address(v), lp.outputs[1], *lp.scratch)
    return lp.result, lo.result


class _Player(ctypes.Structure):
    """``OSPlayer`` of ``_sampling.c``."""

    _fields_ = [(name, ctypes.c_void_p) for name in ("parent", "seq", "node", "infoset_priv", "bounds")] + [
        (name, ctypes.c_int64) for name in ("g", "ni", "a", "levels")] + [
        (name, ctypes.c_void_p) for name in ("legal", "uniform", "regrets", "sums", "sigma", "draws", "result", "q",
                                             "reach", "level_sums", "cum", "v", "picked")]


class _Chance(ctypes.Structure):
    """``OSChance`` of ``_sampling.c``."""

    _fields_ = [(name, ctypes.c_int64) for name in ("nodes", "count", "width")] + [
        (name, ctypes.c_void_p) for name in ("num_children", "chance_parent", "sibling_rank", "ancestors", "full_weight",
                                             "w", "u", "choice", "keep")]


class ChanceSample(Protocol):
    """The public chance sample's tables, as :class:`~subgame.solve.mccfr.PublicChanceSampler` holds them."""

    @property
    def chance_nodes(self) -> np.ndarray: ...
    @property
    def num_children(self) -> np.ndarray: ...
    @property
    def chance_parent(self) -> np.ndarray: ...
    @property
    def sibling_rank(self) -> np.ndarray: ...
    @property
    def ancestors(self) -> np.ndarray: ...
    @property
    def full_weight(self) -> np.ndarray: ...


#: The schemes ``os_iteration`` runs, by their opponent and traverser (:class:`~subgame.solve.mccfr.SamplingScheme`):
#: external sampling, outcome sampling and public chance sampling.
WHOLE_SCHEMES = {("sampled", "enumerate"): 0, ("sampled", "sampled"): 1, ("exact", "enumerate"): 2}


class WholeIteration:
    """:meth:`MCCFRSolver.step <subgame.solve.mccfr.MCCFRSolver.step>` of a sampling scheme of :data:`WHOLE_SCHEMES`
    (``scheme``, its number there) in one C call
    (``os_iteration``), bitwise the step's passes, on a tree whose terminals are one sparse payoff matrix (Kuhn,
    Leduc), one random stream and the solver's float64 regrets and sums without abstraction or restriction; its
    uniforms are drawn from the stream's own bit generator, in the numpy pass's order.
    """

    def __init__(self, layout: OutcomeLayout, chance: ChanceSample, regrets: list[np.ndarray],
                 sums: list[np.ndarray], scheme: int) -> None:
        from ..tree.operators import SparseTerminal

        op = layout.tree.terminals[0]
        if not isinstance(op, SparseTerminal):
            raise TypeError("WholeIteration runs a tree of one sparse payoff matrix (WholeIteration.takes)")
        self.regrets, self.sums = regrets, sums
        keep: list[np.ndarray] = []

        def ptr(a: np.ndarray) -> int:
            keep.append(a)
            return address(a)

        players = []
        for p, pl in enumerate(layout.players):
            ni, a = pl.legal.shape
            players.append(_Player(
                pl.pointers[0], pl.pointers[1], pl.pointers[3], pl.pointers[2], pl.tables[0], pl.parent.size, ni, a,
                pl.level_bounds.size - 1, pl.tables[1], pl.tables[2], ptr(regrets[p]), ptr(sums[p]), ptr(np.empty((ni, a))),
                pl.outputs[0], pl.outputs[1], pl.scratch[0], pl.scratch[2], pl.scratch[3], pl.scratch[4],
                ptr(np.empty(pl.parent.size)), pl.scratch[1]))
        self._players = (_Player * 2)(*players)
        n, c = chance.chance_parent.shape[0], chance.chance_nodes.size
        tables = [np.ascontiguousarray(x, dtype=np.int64) for x in (chance.num_children, chance.chance_parent,
                                                                     chance.sibling_rank, chance.ancestors)]
        self._chance = _Chance(n, c, chance.ancestors.shape[1], *(ptr(x) for x in tables),
                               ptr(np.ascontiguousarray(chance.full_weight, dtype=np.float64)), ptr(np.empty(n)),
                               ptr(np.empty(max(c, 1))), ptr(np.empty(max(c, 1), dtype=np.int64)),
                               ptr(np.empty(n + 1, dtype=np.uint8)))
        self._csr = tuple(ptr(x) for m in (op.u, op.ut) for x in (m.indptr, m.indices, m.data))
        self._keep = (keep, layout)
        self._rng: tuple[Any, int] | None = None
        self._scheme = scheme

    @staticmethod
    def takes(tree: PublicTree, regrets: list[np.ndarray], sums: list[np.ndarray]) -> bool:
        """Whether the call runs these: one sparse payoff matrix of int32 indices, contiguous float64 regrets and sums
        of the tree's shapes, rows of fewer than 16 actions."""
        from ..tree.operators import SparseTerminal

        if not (len(tree.terminals) == 1 and isinstance(tree.terminals[0], SparseTerminal)):
            return False
        op = tree.terminals[0]
        return (all(m.indptr.dtype == np.int32 and m.indices.dtype == np.int32 and m.data.dtype == np.float64
                    for m in (op.u, op.ut))
                and all(x.dtype == np.float64 and x.flags.c_contiguous and x.shape == pa.legal.shape and x.shape[1] < 16
                        for pair in (regrets, sums) for x, pa in zip(pair, tree.players)))

    def run(self, epsilon: float, params: tuple[int, float, float, float, float, float], rng: np.random.Generator) -> None:
        """One iteration under the update rule ``params`` (:func:`~subgame.tree.kernels.update_params`), drawing from
        ``rng`` (its state advanced as the numpy pass advances it)."""
        if self._rng is None or self._rng[0] is not rng:
            self._rng = (rng, int(rng.bit_generator.ctypes.bit_generator.value))
        assert _LIB is not None
        _LIB.os_iteration(self._players, ctypes.byref(self._chance), *self._csr, epsilon, *params, self._rng[1],
                          self._scheme)
