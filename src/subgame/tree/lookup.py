"""Where an agent's observations find an information set of a compiled tree.

A player's observations name a public state (the public observations so far) and her
private label; play, rollouts and stored files arrive in these words. An
:class:`InfosetLookup` turns them into integers once: the public state into the tree's
node (its own ``node_of_key``), and the label into the information set among the private
states of that node, one table per node asked. Parts of one tree are never matched this
way: they carry integer maps (:class:`~subgame.tree.part.Part`). Many names at once (a
stored table, the states of a tree compiled apart) are found by :func:`states_named`, one
vectorized join.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .public_tree import BlockSequence, PublicKey, PublicTree


@dataclass(eq=False)
class InfosetLookup:
    """``player``'s information sets of ``tree`` by public node and private label."""

    tree: PublicTree
    player: int
    _labels: dict[int, dict[str, int]] = field(default_factory=dict, repr=False)

    @cached_property
    def of_state(self) -> np.ndarray:
        """[G] the information set of each private state (-1 where she does not act)."""
        pa = self.tree.players[self.player]
        out = np.full(pa.num_states, -1, dtype=np.int64)
        out[pa.infoset_priv] = np.arange(pa.num_infosets)
        return out

    def block(self, node: int) -> tuple[int, int]:
        """The player's private states at public ``node`` are ``lo:hi``."""
        lo, hi = np.searchsorted(self.tree.players[self.player].node, [node, node + 1])
        return int(lo), int(hi)

    def at(self, node: int, label: str) -> int:
        """The information set with private label ``label`` at public ``node`` (-1 if none)."""
        table = self._labels.get(node)
        if table is None:  # one table per node asked, built once
            lo, hi = self.block(node)
            table = dict(zip(self.tree.players[self.player].label[lo:hi], self.of_state[lo:hi].tolist()))
            self._labels[node] = table
        return table.get(label, -1)

    def __call__(self, public_key: PublicKey, label: str) -> int:
        """The information set at public state ``public_key`` with private label ``label`` (-1 if none)."""
        node = self.tree.node_of_key.get(public_key)
        return -1 if node is None else self.at(node, label)


def lookups(tree: PublicTree) -> tuple[InfosetLookup, InfosetLookup]:
    """Both players' :class:`InfosetLookup` of ``tree``."""
    return InfosetLookup(tree, 0), InfosetLookup(tree, 1)


def states_named(tree: PublicTree, player: int, nodes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """[E] ``player``'s private state of ``tree`` with private label ``labels[e]`` at public node ``nodes[e]``
    (-1 where there is none, or ``nodes[e] < 0``): one vectorized join of (node, label) pairs."""
    pa = tree.players[player]
    out = np.full(nodes.size, -1, dtype=np.int64)
    ask = np.flatnonzero(nodes >= 0)
    take = np.flatnonzero(np.isin(pa.node, np.unique(nodes[ask])))
    if not take.size:
        return out
    names, code = np.unique(np.concatenate([label_array(pa.label, take), labels[ask]]), return_inverse=True)
    have = np.asarray(pa.node[take], dtype=np.int64) * names.size + code[: take.size]
    want = np.asarray(nodes[ask], dtype=np.int64) * names.size + code[take.size :]
    order = np.argsort(have, kind="stable")
    at = np.minimum(np.searchsorted(have[order], want), have.size - 1)
    out[ask] = np.where(have[order][at] == want, take[order[at]], -1)
    return out


def label_array(labels: Sequence[str], take: np.ndarray) -> np.ndarray:
    """[len(take)] the labels at ``take`` as one numpy string array."""
    if not take.size:
        return np.zeros(0, dtype=str)
    if isinstance(labels, tuple):
        return np.asarray(labels, dtype=str)[take]
    if isinstance(labels, BlockSequence):
        return labels.take(take).astype(str)
    return np.asarray([labels[g] for g in take.tolist()], dtype=str)
