"""Vectorized sweeps over a public tree: reaches forward, values backward.

Each sweep is one loop over public depths; within a depth every private state of every
public node is handled by one numpy call. These functions are shared by the CFR engine
(:mod:`subgame.solve`) and the evaluation code (:mod:`subgame.eval`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import kernels
from .public_tree import BEST_PLAN_CACHED_STATES, BestLevel, LevelPlan, PublicTree, SweepPlan


def regret_matching(regrets: np.ndarray, legal: np.ndarray, uniform: np.ndarray | None = None, *,
                    out: np.ndarray | None = None) -> np.ndarray:
    """Strategy proportional to positive regret; uniform over legal actions if none is positive.

    Args:
        regrets: [I, A] cumulative regrets (zero at illegal slots); float32 regrets are
            matched in float64.
        legal: [I, A] bool.
        uniform: [I, A] the uniform strategy over legal actions, if the caller keeps it.
        out: [I, A] float64, where to write the strategy (a solver's buffer kept between
            iterations); a new array if ``None``.
    Returns:
        [I, A] behaviour strategy, zero at illegal slots (``out`` where given).
    """
    if (kernels.active(regrets.size) and regrets.dtype in (np.float64, np.float32) and legal.dtype == np.bool_
            and regrets.shape[1] < 16 and kernels.takes(regrets, legal)):
        return kernels.regret_matching(regrets, legal, out)
    pos = np.maximum(regrets.astype(np.float64, copy=False), 0.0)
    total = pos.sum(axis=1, keepdims=True) if pos.size < ROW_SUM_COLUMNS_FROM else row_sums(pos)[:, None]
    none = ~(total[:, 0] > 0.0)
    total[none] = 1.0  # rows without positive regret are all zero here and become uniform below
    pos /= total
    if none.any():
        pos[none] = (legal[none] / legal[none].sum(axis=1, keepdims=True)) if uniform is None else uniform[none]
    return pos if out is None else _into(out, pos)


def _into(out: np.ndarray, x: np.ndarray | float) -> np.ndarray:
    out[...] = x
    return out


#: Entries from which :func:`row_sums` adds columns (below it one reduction costs less than A calls) and
#: :func:`transition_weights` gathers without wrapping.
ROW_SUM_COLUMNS_FROM = 1 << 14


def row_sums(x: np.ndarray) -> np.ndarray:
    """[I] the sums of the rows of ``x`` [I, A], bitwise as ``x.sum(axis=1)`` and several times faster for small A.

    numpy adds a short contiguous row in order when it has fewer than 8 entries and as
    ``((x0+x1)+(x2+x3))+((x4+x5)+(x6+x7))`` followed by the rest in order when it has 8 to
    15 (its pairwise summation); adding whole columns in that order gives the same sums
    without a reduction per row.
    """
    A = x.shape[1]
    if A == 0 or A >= 16 or x.size < ROW_SUM_COLUMNS_FROM:
        out: np.ndarray = x.sum(axis=1)
        return out
    if A < 8:
        out = x[:, 0] + 0.0
        for k in range(1, A):
            out += x[:, k]
        return out
    c = [x[:, k] for k in range(8)]
    out = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]))
    for k in range(8, A):
        out += x[:, k]
    return out


def transition_weights(tree: PublicTree, player: int, probs: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
    """[G] probability of the player's own action leading to each private state (1 if none); into ``out`` if given."""
    seq = tree.players[player].child_seq  # -1 where she did not act
    if kernels.active(seq.size) and seq.dtype == np.int32 and kernels.takes(seq):
        return kernels.transition_weights(seq, np.ascontiguousarray(probs, dtype=np.float64).reshape(-1), out)
    if seq.size < ROW_SUM_COLUMNS_FROM:  # -1 wraps to the 1 appended after the strategy (fewer calls on small trees)
        small: np.ndarray = np.concatenate((probs.reshape(-1), (1.0,))).take(seq, mode="wrap")
        return small if out is None else _into(out, small)
    sw: np.ndarray = np.take(probs.reshape(-1), seq, mode="clip", out=out)  # 3 to 4 times faster than wrapping on large ones
    sw[seq < 0] = 1.0
    return sw


def forward_reach(tree: PublicTree, player: int, sw: np.ndarray | None, root: np.ndarray | None = None, *,
                  out: np.ndarray | None = None, probs: np.ndarray | None = None) -> np.ndarray:
    """[G] the player's own reach probability of every private state.

    Args:
        sw: transition weights from :func:`transition_weights`, or ``None`` with ``probs``.
        root: the player's reach at the root private states (ones if ``None``), for
            subgames whose root range comes from a trunk or a gadget.
        out: [G] where to write the reach (a new array if ``None``).
        probs: [I, A] the player's strategy, in place of ``sw``: the compiled loop reads each
            weight from it and no [G] array of weights is made.
    """
    plan = tree.plan
    pa = tree.players[player]
    reach = np.empty(pa.num_states) if out is None else out
    rs = plan.root_slice[player]
    reach[rs] = 1.0 if root is None else root
    if (kernels.active(reach.size) and pa.parent.dtype == np.int32 and pa.child_seq.dtype == np.int32
            and kernels.takes(pa.parent, pa.child_seq) and kernels.takes_values(reach, sw)):
        kernels.forward_reach(pa.parent, sw, reach, rs.stop, pa.child_seq, _flat_probs(probs) if sw is None else None)
        return reach
    sw = transition_weights(tree, player, _given(probs)) if sw is None else sw
    for lv in plan.levels[player]:
        np.multiply(np.take(reach, lv.parent), sw[lv.lo : lv.hi], out=reach[lv.lo : lv.hi])
    return reach


def _flat_probs(probs: np.ndarray | None) -> np.ndarray:
    """The strategy [I, A] as the contiguous float64 rows the compiled loops index with ``child_seq``."""
    return np.ascontiguousarray(_given(probs), dtype=np.float64).reshape(-1)


def _given(probs: np.ndarray | None) -> np.ndarray:
    """``probs``, given where ``sw`` is not."""
    if probs is None:
        raise TypeError("the sweeps need the transition weights sw or the strategy probs")
    return probs


def leaf_values(tree: PublicTree, player: int, reach: tuple[np.ndarray, np.ndarray], *,
                out: np.ndarray | None = None) -> np.ndarray:
    """[G] counterfactual values given by the terminal operators (zero elsewhere, leaves included), into ``out`` if given."""
    ops = tree.terminals
    if len(ops) > 1:  # operators that write their own states into one array (poker's): no array per operator
        writers = [w for op in ops if (w := getattr(op, "cfv_into", None)) is not None]
        if len(writers) == len(ops):
            v = np.zeros(tree.players[player].num_states) if out is None else _into(out, 0.0)
            for write in writers:
                write(player, reach, v)
            return v
    v = np.array(ops[0].cfv(player, reach), dtype=np.float64, copy=True)
    for op in ops[1:]:
        v += op.cfv(player, reach)
    return v if out is None else _into(out, v)


def backward_expected(tree: PublicTree, player: int, v: np.ndarray, sw: np.ndarray | None, *,
                      probs: np.ndarray | None = None) -> np.ndarray:
    """Fill ``v`` (in place) with counterfactual values under the player's own strategy.

    ``v`` enters holding values at terminal/leaf private states and leaves holding the
    counterfactual value of every private state. The weights are ``sw`` or, with ``sw``
    ``None``, read from the strategy ``probs`` as in :func:`forward_reach`.
    """
    pa = tree.players[player]
    compiled = (kernels.active(v.size) and pa.parent.dtype == np.int32 and pa.child_seq.dtype == np.int32
                and kernels.takes(pa.parent, pa.child_seq) and kernels.takes_values(v, sw))
    flat = _flat_probs(probs) if compiled and sw is None else None
    if compiled and tree.mirrors is None:
        kernels.backward_expected(pa.parent, sw, v, pa.level_bounds, pa.child_seq, flat)
        return v
    if compiled:  # level by level, the chance children a suit-isomorphic tree leaves out added after each
        for lv in reversed(tree.plan.levels[player]):
            kernels.backward_expected(pa.parent, sw, v, np.array([lv.plo, lv.lo, lv.hi]), pa.child_seq, flat)
            if lv.mirror is not None:
                edge = lv.lo + lv.mirror[0]
                seq = pa.child_seq[edge]
                weights = sw[edge] if sw is not None else np.where(seq >= 0, _given(flat)[np.maximum(seq, 0)], 1.0)
                v[lv.plo : lv.phi] += np.bincount(lv.mirror[1], weights=v[edge] * weights, minlength=lv.phi - lv.plo)
        return v
    weights_of = transition_weights(tree, player, _given(probs)) if sw is None else sw
    for lv in reversed(tree.plan.levels[player]):
        w = v[lv.lo : lv.hi] * weights_of[lv.lo : lv.hi]
        v[lv.plo : lv.phi] += np.bincount(lv.parent_local, weights=w, minlength=lv.phi - lv.plo)
        if lv.mirror is not None:  # suit isomorphism: the chance children left out (tree.isomorphism)
            v[lv.plo : lv.phi] += np.bincount(lv.mirror[1], weights=w[lv.mirror[0]], minlength=lv.phi - lv.plo)
    return v


def sequence_values(tree: PublicTree, player: int, v: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
    """[I, A] counterfactual value of taking each action at each of the player's infosets, into ``out`` if given."""
    pa = tree.players[player]
    if kernels.active(v.size) and pa.child_seq.dtype == np.int32 and kernels.takes(pa.child_seq) and kernels.takes_values(v):
        return kernels.sequence_values(pa.child_seq, v, pa.legal.shape, out)
    # Shifted by one, the states where she did not act fall in bin 0, which is dropped.
    flat = np.bincount(pa.child_seq + 1, weights=v, minlength=pa.legal.size + 1)[1:]
    return flat.reshape(pa.legal.shape) if out is None else _into(out, flat.reshape(pa.legal.shape))


def backward_best(tree: PublicTree, player: int, v: np.ndarray, *, want_policy: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Fill ``v`` (in place) with counterfactual best-response values; return ``(v, best_action)``.

    At each of the player's infosets the value is the maximum over actions of the action's
    counterfactual value; ``best_action`` [I] is the first maximizing action slot (ties
    broken by lowest action index), or ``None`` without ``want_policy``.
    """
    pa = tree.players[player]
    A = pa.max_actions
    best_action = np.zeros(pa.num_infosets, dtype=np.int64) if want_policy else None
    levels = tree.plan.levels[player]
    if (kernels.active(v.size) and pa.parent.dtype == np.int32 and pa.child_seq.dtype == np.int32
            and pa.infoset_priv.dtype == np.int64 and kernels.takes(pa.parent, pa.child_seq, pa.legal, pa.infoset_priv)
            and kernels.takes_values(v)):
        for lv in reversed(levels):
            kernels.best_level(pa.parent, pa.child_seq, v, (lv.plo, lv.lo, lv.hi, lv.ilo, lv.ihi), pa.legal, pa.infoset_priv,
                               best_action)
            if lv.mirror is not None:  # suit isomorphism: the chance children left out (tree.isomorphism)
                v[lv.plo : lv.phi] += np.bincount(lv.mirror[1], weights=v[lv.lo : lv.hi][lv.mirror[0]], minlength=lv.phi - lv.plo)
        return v, best_action
    if tree.num_private_states <= BEST_PLAN_CACHED_STATES:
        pairs: Iterable[tuple[LevelPlan, BestLevel]] = zip(reversed(levels), reversed(tree.best_plan[player]))
    else:  # a large tree keeps nothing: each level's arrays are built when it is swept
        pairs = ((lv, SweepPlan.best_level(tree, player, lv)) for lv in reversed(levels))
    for lv, bl in pairs:
        # One bincount sums children into their parents (opponent and chance moves) and
        # into the action slots of the player's own infosets at the same time.
        n_par, n = lv.phi - lv.plo, lv.ihi - lv.ilo
        sums = np.bincount(bl.best_target, weights=v[lv.lo : lv.hi], minlength=n_par + n * A)
        v[lv.plo : lv.phi] += sums[:n_par]
        if lv.mirror is not None:  # suit isomorphism: the chance children left out (tree.isomorphism)
            v[lv.plo : lv.phi] += np.bincount(lv.mirror[1], weights=v[lv.lo : lv.hi][lv.mirror[0]], minlength=n_par)
        if n:
            sv = sums[n_par:].reshape(n, A) + bl.illegal_penalty
            v[bl.infoset_priv] = sv.max(axis=1)
            if best_action is not None:
                best_action[lv.ilo : lv.ihi] = sv.argmax(axis=1)
    return v, best_action
