"""The compiled pass of outcome-sampling MCCFR (``_sampling.c``), bitwise the numpy pass of :mod:`.mccfr`.

Lanctot et al. (2009), outcome sampling, over the whole compiled tree: the opponent's sampled pure
strategy and reach, then the updating player's ε-exploring sampled path and its backward update, each
in one C call; numpy keeps only the public chance sample, the uniform draws (so the random stream is
the numpy pass's) and the terminal operators. Optional: without the build, :func:`available` is false
and :class:`~subgame.solve.mccfr.MCCFRSolver` refuses ``engine="compiled"`` with a message.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from ..tree.public_tree import PublicTree
from ..tree.sweep import leaf_values


def _load_library() -> ctypes.CDLL | None:
    try:
        from . import _sampling  # type: ignore[attr-defined]
    except ImportError:
        return None
    lib = ctypes.CDLL(_sampling.__file__)
    lib.sampling_abi.restype = ctypes.c_int64
    if int(lib.sampling_abi()) != 1:
        return None
    p, i64 = ctypes.c_void_p, ctypes.c_int64
    lib.os_opponent.argtypes = [p, p, p, p, i64, i64, p, p, i64, i64, p, p, p, p, p]
    lib.os_opponent.restype = None
    lib.os_traverser.argtypes = [p, p, p, p, i64, p, i64, p, p, p, p, i64, i64, ctypes.c_double, p, p, p, p, p, p, p, p]
    lib.os_traverser.restype = None
    return lib


_LIB = _load_library()


def available() -> bool:
    """Whether the compiled pass was built (``python3 setup.py build_ext --inplace`` or ``pip install``)."""
    return _LIB is not None


def _ptr(a: np.ndarray) -> int:
    return int(a.ctypes.data)


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
            return PlayerLayout(
                np.ascontiguousarray(pa.parent, dtype=np.int32), np.ascontiguousarray(pa.child_seq, dtype=np.int32),
                np.ascontiguousarray(pa.infoset_priv, dtype=np.int64), np.ascontiguousarray(pa.node, dtype=np.int32),
                bounds, legal, np.ascontiguousarray(pa.legal / pa.legal.sum(axis=1, keepdims=True), dtype=np.float64),
                max(int(np.diff(bounds).max(initial=0)), 1),
            )
        return OutcomeLayout(tree, (layout(0), layout(1)))


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
        [I_o, A] the opponent's 0/1 sampled reach times his strategy.
    """
    if _LIB is None:
        raise RuntimeError("the compiled outcome-sampling pass was not built")
    o = 1 - player
    lp, lo = layout.players[player], layout.players[o]
    sig_o = np.ascontiguousarray(sigma[o], dtype=np.float64)
    sig_p = np.ascontiguousarray(sigma[player], dtype=np.float64)
    ni_o, a = sig_o.shape
    ni_p = sig_p.shape[0]
    w = np.ascontiguousarray(w, dtype=np.float64)
    cum = np.empty(max(a, sig_p.shape[1]))
    u_o = rng.random(ni_o)
    reach_o = np.empty(lo.parent.size)
    avg = np.empty((ni_o, a))
    picked = np.empty(max(ni_o, ni_p), dtype=np.int64)
    _LIB.os_opponent(_ptr(lo.parent), _ptr(lo.child_seq), _ptr(lo.infoset_priv), _ptr(lo.node), lo.parent.size,
                     int(lo.level_bounds[1]), _ptr(sig_o), _ptr(u_o), ni_o, a, _ptr(w), _ptr(picked), _ptr(reach_o),
                     _ptr(avg), _ptr(cum))
    ones = np.ones(lp.parent.size)
    v = np.ascontiguousarray(leaf_values(layout.tree, player, (ones, reach_o) if player == 0 else (reach_o, ones)),
                             dtype=np.float64)
    u_p = rng.random(ni_p)
    inst = np.empty(sig_p.shape)
    q = np.empty(sig_p.shape)
    q_path = np.empty(lp.parent.size)
    sums = np.empty(lp.widest)
    _LIB.os_traverser(_ptr(lp.parent), _ptr(lp.child_seq), _ptr(lp.infoset_priv), _ptr(lp.node), lp.parent.size,
                      _ptr(lp.level_bounds), lp.level_bounds.size - 1, _ptr(lp.legal), _ptr(lp.uniform), _ptr(sig_p),
                      _ptr(u_p), ni_p, sig_p.shape[1], float(epsilon), _ptr(w), _ptr(v), _ptr(inst), _ptr(q),
                      _ptr(picked), _ptr(q_path), _ptr(sums), _ptr(cum))
    return inst, avg
