"""Sweeps over a sampled part of the public tree: only the public nodes a sample keeps.

Sampling CFR (Johanson et al. 2012: public chance sampling walks one sampled public chance
outcome) touches only the public nodes consistent with its sample of public chance. This module
gives the sweeps of :mod:`.sweep` restricted to a set of *kept* public nodes closed under
taking parents: the private states of every kept node, per player and depth, found from the
nodes' contiguous blocks of private states, and forward, backward, sequence-value and terminal
sweeps that read and write those states only. Arrays stay full-size (one per player's private
states, zero outside the part), so results can be compared with the full sweeps, but the work
of a sweep is proportional to the part's size, not the tree's (up to one allocation per array).
Each function also takes ``part=None`` for the whole tree (the sweeps of :mod:`.sweep`): on a
small tree the whole sweep's few numpy calls cost less than finding a part's states.

Terminal operators are restricted by type: the sparse operator of enumerated games takes the
rows of the kept terminal states; the poker fold and showdown operators keep, per board, the
columns of the kept terminal nodes. Any other operator is evaluated whole (correct, not faster).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import GameDefinitionError
from .operators import SparseTerminal
from .poker_operators import FoldGroup, FoldTerminal, ShowdownGroup, ShowdownTerminal
from .public_tree import TERMINAL_NODE, PublicTree, ValueOperator
from .sweep import backward_expected, forward_reach, leaf_values, sequence_values, transition_weights


@dataclass(frozen=True, eq=False)
class PartIndex:
    """What is precomputed once per tree to find a part's private states quickly.

    ``D`` is the tree's depth; nodes of depth d are ``depth_nodes[d]``; each player's private
    states of node n are ``lo[p][n]:hi[p][n]`` (contiguous, as the compilers number them).
    """

    depth_nodes: tuple[np.ndarray, ...]  #: [D+1] the nodes of each depth
    depth: np.ndarray  #: [N] each node's depth (non-decreasing: nodes are numbered breadth-first)
    lo: tuple[np.ndarray, np.ndarray]  #: per player [N] first private state of each node
    hi: tuple[np.ndarray, np.ndarray]  #: per player [N] one past its last
    terminal: np.ndarray  #: [N] bool, terminal nodes
    group_nodes: tuple[tuple[np.ndarray, ...], ...]  #: per terminal operator, per poker group: [T] its terminal nodes

    @staticmethod
    def of(tree: PublicTree) -> PartIndex:
        lo, hi = [], []
        for pa in tree.players:
            if np.any(np.diff(pa.node) < 0) or np.any(np.diff(tree.depth) < 0):
                raise GameDefinitionError(
                    f"{tree.game_name}: private states are not numbered by public node, so a part of the tree cannot be "
                    "walked alone; compile the game with compile_game"
                )
            nodes = np.arange(tree.num_nodes)
            lo.append(np.searchsorted(pa.node, nodes, side="left"))
            hi.append(np.searchsorted(pa.node, nodes, side="right"))
        groups = []
        for op in tree.terminals:
            if isinstance(op, (FoldTerminal, ShowdownTerminal)):
                groups.append(tuple(tree.players[0].node[g.states[0][0]] if g.states[0].shape[0] else
                                    np.zeros(0, np.int64) for g in op.groups))
            else:
                groups.append(())
        return PartIndex(
            tuple(np.flatnonzero(tree.depth == d) for d in range(tree.max_depth + 1)), tree.depth,
            (lo[0], lo[1]), (hi[0], hi[1]), tree.kind == TERMINAL_NODE, tuple(groups),
        )


@dataclass(frozen=True, eq=False)
class TreePart:
    """The kept public nodes of one sample and, per player, their private states by depth (ascending)."""

    kept: np.ndarray  #: [N] bool
    states: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]  #: per player, per depth: kept private states
    all_states: tuple[np.ndarray, np.ndarray]  #: per player: every kept private state, ascending
    terminal_states: tuple[np.ndarray, np.ndarray]  #: per player: the kept terminal private states


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(lo[i], hi[i])`` over i, without a Python loop."""
    lengths = hi - lo
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return starts + np.arange(total)


def tree_part(index: PartIndex, kept: np.ndarray) -> TreePart:
    """The private states of the ``kept`` public nodes (a set closed under parents).

    Nodes are numbered breadth-first, so the kept nodes in order are sorted by depth and
    their blocks of private states, concatenated, split into depths at the depth bounds.
    """
    kept_nodes = np.flatnonzero(kept)
    depth_bounds = np.searchsorted(index.depth[kept_nodes], np.arange(len(index.depth_nodes) + 1))
    term_nodes = kept_nodes[index.terminal[kept_nodes]]
    states: list[tuple[np.ndarray, ...]] = []
    alls, terms = [], []
    for p in range(2):
        lo, hi = index.lo[p][kept_nodes], index.hi[p][kept_nodes]
        every = _ranges(lo, hi)
        state_bounds = np.concatenate(([0], np.cumsum(hi - lo)))[depth_bounds]
        states.append(tuple(np.split(every, state_bounds[1:-1])))
        alls.append(every)
        terms.append(_ranges(index.lo[p][term_nodes], index.hi[p][term_nodes]))
    return TreePart(kept, (states[0], states[1]), (alls[0], alls[1]), (terms[0], terms[1]))


def part_transition_weights(tree: PublicTree, player: int, part: TreePart | None, probs: np.ndarray) -> np.ndarray:
    """[G] like :func:`.sweep.transition_weights`, filled at the part's states only (1 elsewhere; ``None``: the whole tree)."""
    if part is None:
        return transition_weights(tree, player, probs)
    pa = tree.players[player]
    sw = np.ones(pa.num_states)
    idx = part.all_states[player]
    cs = pa.child_seq[idx]
    own = cs >= 0
    sw[idx[own]] = probs.ravel()[cs[own]]
    return sw


def part_forward_reach(tree: PublicTree, player: int, part: TreePart | None, sw: np.ndarray) -> np.ndarray:
    """[G] the player's own reach at the part's states (0 elsewhere); ones at its root states."""
    if part is None:
        return forward_reach(tree, player, sw)
    reach = np.zeros(tree.players[player].num_states)
    levels = part.states[player]
    reach[levels[0]] = 1.0
    parent = tree.players[player].parent
    for idx in levels[1:]:
        reach[idx] = reach[parent[idx]] * sw[idx]
    return reach


def part_backward_expected(tree: PublicTree, player: int, part: TreePart | None, v: np.ndarray, sw: np.ndarray) -> np.ndarray:
    """Like :func:`.sweep.backward_expected` (in place), over the part's states only."""
    if part is None:
        return backward_expected(tree, player, v, sw)
    levels = part.states[player]
    parent = tree.players[player].parent
    for d in range(len(levels) - 1, 0, -1):
        idx, pidx = levels[d], levels[d - 1]
        if idx.size == 0:
            continue
        pos = np.searchsorted(pidx, parent[idx])
        v[pidx] += np.bincount(pos, weights=v[idx] * sw[idx], minlength=pidx.size)
    return v


def part_sequence_values(tree: PublicTree, player: int, part: TreePart | None, v: np.ndarray) -> np.ndarray:
    """[I, A] like :func:`.sweep.sequence_values`, from the part's states (0 at information sets outside it)."""
    if part is None:
        return sequence_values(tree, player, v)
    pa = tree.players[player]
    idx = part.all_states[player]
    cs = pa.child_seq[idx]
    own = cs >= 0
    return np.bincount(cs[own], weights=v[idx[own]], minlength=pa.legal.size).reshape(pa.legal.shape)


def part_terminal_values(
    tree: PublicTree, player: int, part: TreePart | None, index: PartIndex, reach: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """[G] the terminal operators' values at the part's terminal states (0 or unspecified outside the part)."""
    if part is None:
        return leaf_values(tree, player, reach)
    out = np.zeros(tree.players[player].num_states)
    for op, groups in zip(tree.terminals, index.group_nodes):
        out += _restricted(op, groups, player, part, reach)
    return out


def _restricted(op: ValueOperator, group_nodes: tuple[np.ndarray, ...], player: int, part: TreePart,
                reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    if isinstance(op, SparseTerminal):  # the kept rows' entries, summed per row in the order a CSR product does
        rows = part.terminal_states[player]
        m = op.u if player == 0 else op.ut
        starts, ends = m.indptr[rows], m.indptr[rows + 1]
        entries = _ranges(starts, ends)
        products = m.data[entries] * reach[1 - player][m.indices[entries]]
        out = np.bincount(np.repeat(rows, ends - starts), weights=products, minlength=m.shape[0])
        return out if player == 0 else -out
    if isinstance(op, FoldTerminal):
        folds = []
        for g, nodes in zip(op.groups, group_nodes):
            cols = np.flatnonzero(part.kept[nodes])
            if cols.size:
                folds.append(FoldGroup(g.removal, (g.states[0].columns(cols), g.states[1].columns(cols)), g.value[cols]))
        return FoldTerminal(tuple(folds), op.num_states).cfv(player, reach)
    if isinstance(op, ShowdownTerminal):
        shows = []
        for sg, nodes in zip(op.groups, group_nodes):
            cols = np.flatnonzero(part.kept[nodes])
            if cols.size:
                shows.append(ShowdownGroup(sg.removal, (sg.states[0].columns(cols), sg.states[1].columns(cols)), sg.win[cols], sg.lose[cols]))
        return ShowdownTerminal(tuple(shows), op.num_states).cfv(player, reach)
    return op.cfv(player, reach)
