"""The compiled public tree: a game as flat arrays over public nodes and private states.

Every public node holds, for each player, a contiguous block of that player's private
states (her information sets in that public state). Private states are numbered globally
per player in breadth-first order of their public nodes, so the private states of one
public depth form one slice and a sweep of the tree is one numpy call per depth, never a
Python loop per history or per private state. Chance probabilities and card removal are
folded into the terminal operators, so reaches carry only the players' own probabilities.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import State

DECISION, CHANCE_NODE, TERMINAL_NODE, LEAF = 0, 1, 2, 3
PublicKey = tuple[str, ...]
KIND_NAMES = {DECISION: "decision", CHANCE_NODE: "chance", TERMINAL_NODE: "terminal", LEAF: "leaf"}


class ValueOperator(Protocol):
    """Counterfactual values at terminal private states.

    ``cfv(player, reach)`` returns an array over all of ``player``'s private states holding
    her counterfactual value at the states the operator covers and zero elsewhere, given
    both players' reaches ``reach = (reach_0, reach_1)`` (own probabilities only).
    Terminal operators are bilinear: ``cfv_0 = U @ reach_1`` and ``cfv_1 = -(Uᵀ @ reach_0)``.
    """

    def cfv(self, player: int, reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray: ...


@dataclass(frozen=True, eq=False)
class PlayerArrays:
    """One player's view of the public tree.

    ``G`` is the number of her private states over all public nodes, ``I`` the number of
    her information sets (private states at public nodes where she acts), ``A`` the most
    actions at any of them, ``D`` the depth of the public tree.
    """

    node: np.ndarray  #: [G] public node of each private state
    parent: np.ndarray  #: [G] private state at the parent public node (-1 at the root)
    label: tuple[str, ...]  #: [G] her private observations leading there
    level_bounds: np.ndarray  #: [D+2] private states of depth d are level_bounds[d]:level_bounds[d+1]
    child_seq: np.ndarray  #: [G] own action leading here as flat index I*A + k, -1 if she did not act
    infoset_priv: np.ndarray  #: [I] private state of each information set
    legal: np.ndarray  #: [I, A] bool, action slot k legal at infoset I
    action_ids: np.ndarray  #: [I, A] the game's action id of each slot, -1 where illegal
    action_names: tuple[tuple[str, ...], ...]  #: [I][k] names of the legal actions

    @property
    def num_states(self) -> int:
        return int(self.node.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_priv.shape[0])

    @property
    def max_actions(self) -> int:
        return int(self.legal.shape[1])


@dataclass(frozen=True)
class HistoryAtNode:
    """A history of a depth-limit leaf: what a leaf operator needs to value it."""

    state: State  #: the game's state
    chance_prob: float  #: chance's probability of reaching it, from the game's root
    private_state: tuple[int, int]  #: each player's private state at the leaf


@dataclass(frozen=True, eq=False)
class LeafHistories(Mapping[int, tuple[HistoryAtNode, ...]]):
    """The histories of each depth-limit leaf, for leaf operators that value histories.

    A read-only mapping ``leaf node -> its histories``, in the order the generic compiler
    meets them. Empty where the compiler was asked not to keep them (they cost one Python
    object per history) or the tree has no leaf.
    """

    by_node: Mapping[int, tuple[HistoryAtNode, ...]] = field(default_factory=dict)  #: [leaf node] -> histories

    def __getitem__(self, node: int) -> tuple[HistoryAtNode, ...]:
        return self.by_node[node]

    def __iter__(self) -> Iterator[int]:
        return iter(self.by_node)

    def __len__(self) -> int:
        return len(self.by_node)


@dataclass(frozen=True, eq=False)
class PublicTree:
    """A game (or a part of one) compiled to arrays; see the module docstring.

    Node arrays have shape ``[N]`` over public nodes in breadth-first order.
    """

    game_id: str  #: fingerprint of the game this tree was compiled from
    game_name: str
    kind: np.ndarray  #: [N] DECISION, CHANCE_NODE, TERMINAL_NODE or LEAF
    actor: np.ndarray  #: [N] acting player at decision nodes, -1 elsewhere
    parent: np.ndarray  #: [N] parent public node, -1 at the root
    depth: np.ndarray  #: [N]
    public_key: tuple[tuple[str, ...], ...]  #: [N] public observation sequence of each node
    players: tuple[PlayerArrays, PlayerArrays]
    terminals: tuple[ValueOperator, ...]  #: operators giving values at terminal states
    utility_bound: float = 1.0
    leaf_data: LeafHistories = field(default_factory=LeafHistories)  #: per leaf node, what a leaf plug-in needs

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    @cached_property
    def node_of_key(self) -> dict[tuple[str, ...], int]:
        return {k: i for i, k in enumerate(self.public_key)}

    @cached_property
    def plan(self) -> SweepPlan:
        return SweepPlan.build(self)

    def summary(self) -> dict[str, int]:
        return {
            "public_nodes": self.num_nodes,
            "terminal_nodes": int(np.sum(self.kind == TERMINAL_NODE)),
            "leaf_nodes": int(np.sum(self.kind == LEAF)),
            "depth": self.max_depth,
            "infosets_p0": self.players[0].num_infosets,
            "infosets_p1": self.players[1].num_infosets,
            "private_states_p0": self.players[0].num_states,
            "private_states_p1": self.players[1].num_states,
        }


@dataclass(frozen=True, eq=False)
class LevelPlan:
    """Index arrays of one player for one depth d >= 1 (children at d, parents at d-1)."""

    lo: int
    hi: int
    plo: int
    phi: int
    parent_local: np.ndarray  #: [hi-lo] parent index minus plo
    actor_local: np.ndarray  #: positions (within lo:hi) reached by the player's own action
    other_local: np.ndarray  #: positions not reached by her own action
    actor_seq: np.ndarray  #: flat sequence index of each actor position, minus ilo*A
    ilo: int  #: infosets at depth d-1 are ilo:ihi
    ihi: int
    best_target: np.ndarray  #: [hi-lo] parent_local for other positions, phi-plo + actor_seq for actor ones
    illegal_penalty: np.ndarray  #: [ihi-ilo, A] 0 where legal, -inf where not
    infoset_priv: np.ndarray  #: [ihi-ilo] private state of each infoset at depth d-1


@dataclass(frozen=True, eq=False)
class SweepPlan:
    """Precomputed per-depth index arrays for forward (reach) and backward (value) sweeps."""

    levels: tuple[tuple[LevelPlan, ...], tuple[LevelPlan, ...]]
    actor_idx: tuple[np.ndarray, np.ndarray]  #: private states reached by own action
    actor_seq: tuple[np.ndarray, np.ndarray]  #: their flat sequence index
    root_slice: tuple[slice, slice]

    @staticmethod
    def build(tree: PublicTree) -> SweepPlan:
        levels: list[tuple[LevelPlan, ...]] = []
        actor_idx: list[np.ndarray] = []
        actor_seq: list[np.ndarray] = []
        roots: list[slice] = []
        for p in range(2):
            pa = tree.players[p]
            A = pa.max_actions
            lb = pa.level_bounds
            inf_depth = tree.depth[pa.node[pa.infoset_priv]] if pa.num_infosets else np.zeros(0, int)
            inf_bounds = np.searchsorted(inf_depth, np.arange(len(lb)), side="left")
            plist = []
            for d in range(1, len(lb) - 1):
                lo, hi, plo, phi = int(lb[d]), int(lb[d + 1]), int(lb[d - 1]), int(lb[d])
                cs = pa.child_seq[lo:hi]
                act, other = np.flatnonzero(cs >= 0), np.flatnonzero(cs < 0)
                ilo, ihi = int(inf_bounds[d - 1]), int(inf_bounds[d])
                parent_local = (pa.parent[lo:hi] - plo).astype(np.intp)
                plist.append(
                    LevelPlan(
                        lo, hi, plo, phi,
                        parent_local=parent_local,
                        actor_local=act,
                        other_local=other,
                        actor_seq=(cs[act] - ilo * A).astype(np.intp),
                        ilo=ilo, ihi=ihi,
                        best_target=np.where(cs >= 0, (phi - plo) + cs - ilo * A, parent_local).astype(np.intp),
                        illegal_penalty=np.where(pa.legal[ilo:ihi], 0.0, -np.inf),
                        infoset_priv=pa.infoset_priv[ilo:ihi].astype(np.intp),
                    )
                )
            levels.append(tuple(plist))
            idx = np.flatnonzero(pa.child_seq >= 0)
            actor_idx.append(idx)
            actor_seq.append(pa.child_seq[idx].astype(np.intp))
            roots.append(slice(int(lb[0]), int(lb[1])))
        return SweepPlan(
            (levels[0], levels[1]), (actor_idx[0], actor_idx[1]), (actor_seq[0], actor_seq[1]), (roots[0], roots[1])
        )


# -- matching information sets across trees ------------------------------------------------
# A subgame, trunk or forest compiled apart from the full game keeps the full game's public
# keys and private labels, so (public key, label) names an information set in every tree.


def infoset_index(tree: PublicTree, player: int) -> dict[tuple[PublicKey, str], int]:
    """``(public key, private label) -> information set`` of ``player`` in ``tree``."""
    pa = tree.players[player]
    return {(tree.public_key[pa.node[g]], pa.label[g]): i for i, g in enumerate(pa.infoset_priv)}


def infoset_keys(tree: PublicTree, player: int) -> tuple[tuple[PublicKey, str], ...]:
    """[I] ``(public key, private label)`` of each of ``player``'s information sets."""
    pa = tree.players[player]
    return tuple((tree.public_key[pa.node[g]], pa.label[g]) for g in pa.infoset_priv)


def rows_in(index: dict[tuple[PublicKey, str], int], keys: Sequence[tuple[PublicKey, str]], what: str) -> np.ndarray:
    """[len(keys)] the information set of ``index`` matching each key."""
    try:
        return np.fromiter((index[k] for k in keys), dtype=np.int64, count=len(keys))
    except KeyError as exc:
        raise GameDefinitionError(f"{what}: information set {exc.args[0]!r} has no match in the full game") from None


def root_subgame(tree: PublicTree, player: int) -> np.ndarray:
    """[R] which root node (subgame of a forest, in root order) each root private state is in."""
    rs = tree.plan.root_slice[player]
    return np.searchsorted(np.flatnonzero(tree.parent < 0), tree.players[player].node[rs]).astype(np.int64)
