"""A part of a public tree that knows its place in its parent.

Every decomposition technique solves a part of a bigger tree: the subgames below public
states (safe-and-nested §4–6), CFR-D's trunk and the subgames below it (Burch, Johanson &
Bowling 2014, "Decomposition into Subgames"), the game above or below a depth limit
(depth-limited paper §3–4; Milec et al. §3). A :class:`Part` is such a part compiled once,
with integer maps of its public nodes, private states and information sets onto its
parent's, so moving arrays between the two is one numpy gather or scatter:
:meth:`Part.restrict`, :meth:`Part.embed`, :meth:`Part.at_roots`. :func:`compile_part`
makes one (:func:`place` places a tree of the same game compiled apart, :func:`placed`
either); nothing else matches trees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import Game
from .compile import compile_game
from .lookup import label_array, states_named
from .public_tree import BlockSequence, PublicTree, index_dtype, root_subgame

Axis = Literal["states", "infosets"]


@dataclass(frozen=True, eq=False)
class Part:
    """A compiled part of a parent tree, and where each of its objects sits in the parent.

    ``N`` is the part's number of public nodes, ``G_p`` and ``I_p`` player p's private
    states and information sets in the part, ``S`` its roots. A map holds -1 where the
    part has an object the parent lacks (the subgames below a trunk's leaves).
    """

    tree: PublicTree  #: the compiled part
    roots: np.ndarray  #: [S] the parent's public node at each root of the part (in the part's root order)
    node: np.ndarray  #: [N] the parent's public node of each part node, -1 where the parent has none
    states: tuple[np.ndarray, np.ndarray]  #: per player [G_p] the parent's private state, -1 where none
    infosets: tuple[np.ndarray, np.ndarray]  #: per player [I_p] the parent's information set, -1 where none

    @staticmethod
    def whole(tree: PublicTree) -> Part:
        """``tree`` as the whole of itself (identity maps): a subgame compiled alone, e.g. a spot from its ranges."""
        node = np.arange(tree.num_nodes, dtype=np.int64)
        states = tuple(np.arange(pa.num_states, dtype=index_dtype(pa.num_states)) for pa in tree.players)
        infosets = tuple(np.arange(pa.num_infosets, dtype=index_dtype(pa.num_infosets)) for pa in tree.players)
        return Part(tree, node[tree.parent < 0], node, (states[0], states[1]), (infosets[0], infosets[1]))

    def restrict(self, parent_array: np.ndarray, player: int, axis: Axis = "infosets") -> np.ndarray:
        """The rows of ``parent_array`` (over ``player``'s parent states or information sets) at the part's.

        ``axis="infosets"`` arrays ([I_parent, A], a strategy) come back [I_p, A_part]: the
        part's action slots, which are the parent's first ones.
        """
        rows = self._rows(player, axis)
        out = np.asarray(parent_array)[rows]
        if axis == "infosets" and out.ndim == 2:
            out = out[:, : self.tree.players[player].max_actions]
        return out

    def embed(self, parent_probs: np.ndarray, part_probs: np.ndarray, player: int, only: np.ndarray | None = None) -> np.ndarray:
        """A copy of ``parent_probs`` [I_parent, A] with ``player``'s rows in the part replaced by ``part_probs`` [I_p, A_part].

        Action slots are aligned from the left, the parent's extra slots set to zero.
        ``only``: [I_p] bool, replace these rows only.
        """
        rows = self._rows(player, "infosets")
        if only is not None:
            rows, part_probs = rows[only], part_probs[only]
        out = np.asarray(parent_probs).copy()
        width = part_probs.shape[1]
        out[rows, :width] = part_probs
        out[rows, width:] = 0.0
        return out

    def at_roots(self, parent_array: np.ndarray, player: int) -> np.ndarray:
        """[R_p] ``parent_array`` (over ``player``'s parent private states) at the part's root private states."""
        return np.asarray(parent_array)[self.root_states[player]]

    @cached_property
    def root_states(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, [R_p] the parent's private state of each root private state of the part."""
        rs = self.tree.root_slice
        out = (self.states[0][rs[0]], self.states[1][rs[1]])
        if (out[0] < 0).any() or (out[1] < 0).any():
            raise GameDefinitionError(f"{self.tree.game_name}: a root private state of the part has no parent state")
        return out

    def root_subgame(self, player: int) -> np.ndarray:
        """[R_p] the root (subgame, in root order) each of ``player``'s root private states is in."""
        return root_subgame(self.tree, player)

    def _rows(self, player: int, axis: Axis) -> np.ndarray:
        rows = self._checked[player] if axis == "infosets" else self.states[player]
        if axis == "states" and (rows < 0).any():
            raise GameDefinitionError(f"{self.tree.game_name}: the part has private states of player {player} "
                                      "its parent lacks; restrict states at the roots (at_roots) instead")
        return rows

    @cached_property
    def _checked(self) -> tuple[np.ndarray, np.ndarray]:
        for p in (0, 1):
            if (self.infosets[p] < 0).any():
                raise GameDefinitionError(f"{self.tree.game_name}: the part has information sets of player {p} its "
                                          "parent lacks (it reaches below the parent's leaves)")
        return self.infosets


def assemble(tree: PublicTree, player: int, parts: Sequence[tuple[Part, np.ndarray, np.ndarray | None]], what: str) -> np.ndarray:
    """[I, A] ``player``'s rows in ``tree`` put together from parts of it, their rows [I_part, A_part] and which of
    them to take ([I_part] bool, ``None``: all), in order (a later part overwrites an earlier one).

    Every information set of ``tree`` must be in some part (a trunk and its subgames);
    action slots are aligned from the left, the rest are zero.

    Raises:
        GameDefinitionError: an information set no part covers.
    """
    pa = tree.players[player]
    out = np.zeros(pa.legal.shape)
    covered = np.zeros(pa.num_infosets, dtype=bool)
    for part, x, only in parts:
        rows = part._rows(player, "infosets")
        if only is not None:
            rows, x = rows[only], x[only]
        out[rows, : x.shape[1]] = x
        covered[rows] = True
    if not covered.all():
        missing = pa.label[pa.infoset_priv[int(np.flatnonzero(~covered)[0])]]
        raise GameDefinitionError(f"{what}: information set {missing!r} of player {player} is in neither the trunk nor a subgame")
    return out


def at_or_below(tree: PublicTree, nodes: Sequence[int] | np.ndarray) -> np.ndarray:
    """[N] bool: the public nodes of ``tree`` at or below one of ``nodes`` (one numpy call per depth)."""
    out = np.zeros(tree.num_nodes, dtype=bool)
    out[np.asarray(nodes, dtype=np.int64)] = True
    for d in range(1, tree.max_depth + 1):
        at_d = np.flatnonzero(tree.depth == d)
        out[at_d] |= out[tree.parent[at_d]]
    return out


def compile_part(
    game: Game,
    parent: PublicTree,
    roots: Sequence[int] | np.ndarray | None = None,
    *,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_histories: bool = False,
    max_bytes: int | None = None,
) -> Part:
    """Compile the part of ``game`` below public nodes ``roots`` of ``parent`` (default: from the game's start), placed in ``parent``.

    The arguments after ``roots`` are those of :func:`~subgame.tree.compile.compile_game`
    (a depth or chance limit cuts the part with leaves). The part may reach below the
    parent's leaves: its objects there map to -1.

    Raises:
        GameDefinitionError: ``parent`` is of another game, a root is not a node of it, or
            the compiler refuses the arguments.
    """
    roots = None if roots is None else [int(n) for n in roots]
    if roots is not None and any(not 0 <= n < parent.num_nodes for n in roots):
        raise GameDefinitionError(f"{game.name}: roots {roots} are not all public nodes of the parent tree "
                                  f"({parent.num_nodes} nodes)")
    tree = compile_game(game, public_states=None if roots is None else [parent.public_key[n] for n in roots],
                        depth_limit=depth_limit, chance_limit=chance_limit, leaf_histories=leaf_histories,
                        max_bytes=max_bytes)
    return place(parent, tree)


def placed(parent: PublicTree, tree: PublicTree | Part) -> Part:
    """``tree`` as a part of ``parent``: a :class:`Part` as it came from :func:`compile_part`, a bare tree placed now."""
    return tree if isinstance(tree, Part) else place(parent, tree)


def place(parent: PublicTree, tree: PublicTree, *, abstraction: bool = False) -> Part:
    """The maps of ``tree``, compiled from the same game as ``parent`` by :func:`compile_part`, onto ``parent``.

    ``abstraction=True``: ``tree`` is of a bet abstraction of ``parent``'s game (the same
    rules with fewer bet sizes). Public states name bets by chip amounts and private
    states by cards, so its nodes and states are those of the real tree where only
    abstract bets were made, and it is placed the same way.

    A node is its public state, the same in every tree of a game; within a node the
    private states are put in the parent's order by their private observations, one
    vectorized join per player (poker trees order the hands of a board alike in every
    tree: there it is an offset).

    Raises:
        GameDefinitionError: the trees are of different games or suit-isomorphic.
    """
    if tree.game_id != parent.game_id and not abstraction:
        raise GameDefinitionError(f"a part of {tree.game_name} ({tree.game_id}) cannot be placed in a tree of "
                                  f"{parent.game_name} ({parent.game_id})")
    if tree.mirrors is not None or parent.mirrors is not None:
        raise GameDefinitionError(f"{tree.game_name}: parts of suit-isomorphic trees are not supported; compile them plain")
    node_of = parent.node_of_key
    node = np.fromiter((node_of.get(k, -1) for k in tree.public_key), dtype=np.int64, count=tree.num_nodes)
    states = (_states(parent, tree, node, 0), _states(parent, tree, node, 1))
    infosets = []
    for p in (0, 1):
        pa = parent.players[p]
        infoset_of = np.full(pa.num_states + 1, -1, dtype=np.int64)  # the last entry for -1
        infoset_of[pa.infoset_priv] = np.arange(pa.num_infosets)
        infosets.append(infoset_of[states[p][tree.players[p].infoset_priv]])
    roots = node[tree.parent < 0]
    if (roots < 0).any():
        raise GameDefinitionError(f"{tree.game_name}: a root of the part is not a public state of the parent tree")
    return Part(tree, roots, node, states, (infosets[0], infosets[1]))


def _states(parent: PublicTree, tree: PublicTree, node: np.ndarray, player: int) -> np.ndarray:
    """[G_p] the parent's private state of each of ``player``'s states in ``tree`` (-1 at nodes the parent lacks)."""
    qa = tree.players[player]
    p_start = _node_starts(parent, player)
    q_start = _node_starts(tree, player)
    q_size, p_size = np.diff(q_start), np.diff(p_start)
    q_node = np.asarray(qa.node, dtype=np.int64)
    mapped = node[q_node]
    out = np.full(qa.num_states, -1, dtype=np.int64)
    here = mapped >= 0
    if not here.any():
        return out
    pos = np.arange(qa.num_states) - q_start[q_node]  # position within the node
    if _same_order(parent, tree):
        if np.any(q_size[node >= 0] != p_size[node[node >= 0]]):
            raise GameDefinitionError(f"{tree.game_name}: a node of the part has other private states than the parent's")
        out[here] = p_start[mapped[here]] + pos[here]
        return out
    q_take = np.flatnonzero(here)
    found = states_named(parent, player, mapped[q_take], label_array(qa.label, q_take))
    if (found < 0).any():
        bad = int(q_take[np.flatnonzero(found < 0)[0]])
        raise GameDefinitionError(f"{tree.game_name}: private state {qa.label[bad]!r} of player {player} at public state "
                                  f"{list(tree.public_key[int(q_node[bad])])!r} has no match in the parent tree")
    out[q_take] = found
    return out


def _node_starts(tree: PublicTree, player: int) -> np.ndarray:
    """[N+1] ``player``'s private states of node n are starts[n]:starts[n+1] (each node's states are one block)."""
    node = tree.players[player].node
    return np.searchsorted(node, np.arange(tree.num_nodes + 1)).astype(np.int64)


def _same_order(parent: PublicTree, tree: PublicTree) -> bool:
    """Whether a node's private states come in the same order in both trees (poker: by the board alone)."""
    return isinstance(parent.players[0].label, BlockSequence) and isinstance(tree.players[0].label, BlockSequence)
