"""The compiled public tree: a game as flat arrays over public nodes and private states.

Every public node holds, for each player, a contiguous block of that player's private
states (her information sets in that public state). Private states are numbered globally
per player in breadth-first order of their public nodes, so the private states of one
public depth form one slice and a sweep of the tree is one numpy call per depth, never a
Python loop per history or per private state. Chance probabilities and card removal are
folded into the terminal operators, so reaches carry only the players' own probabilities.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol, SupportsIndex, TypeVar, overload

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import State
from .isomorphism import MirrorEdges
from .lazy import MadeOnFirstUse

if TYPE_CHECKING:
    from .poker_layout import PokerLayout

DECISION, CHANCE_NODE, TERMINAL_NODE, LEAF = 0, 1, 2, 3
#: Trees with at most this many private states (both players) keep their best-response arrays.
BEST_PLAN_CACHED_STATES = 1 << 20
PublicKey = tuple[str, ...]
KIND_NAMES = {DECISION: "decision", CHANCE_NODE: "chance", TERMINAL_NODE: "terminal", LEAF: "leaf"}


T = TypeVar("T")


def index_dtype(*bounds: int) -> type[np.signedinteger[Any]]:
    """``int32`` for index arrays whose values stay below every bound given, else ``int64``.

    Stored per-private-state index arrays use it to halve their size; the sweeps' hot
    index arrays (:class:`SweepPlan`) stay ``intp``, which numpy gathers fastest.
    """
    return np.int32 if max(bounds, default=0) < 2**31 - 1 else np.int64


class Repeat(Sequence[T]):
    """``count`` copies of one value, without storing them."""

    def __init__(self, value: T, count: int) -> None:
        self.value, self.size = value, int(count)

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, i: SupportsIndex) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> T | tuple[T, ...]:
        if isinstance(i, slice):
            return (self.value,) * len(range(*i.indices(self.size)))
        if not -self.size <= int(i) < self.size:
            raise IndexError(i)
        return self.value


class Taken(Sequence[T]):
    """``values[index]`` without storing the items taken: a small integer per item instead of a reference (a board's
    hand names, taken from the deck's)."""

    def __init__(self, values: np.ndarray, index: np.ndarray) -> None:
        self.values: np.ndarray = values  #: [V] the items
        #: [n] the item of each position (int16 where the values are fewer than 2^15)
        self.at = index.astype(np.int16 if values.shape[0] < 2**15 else np.int32)

    def __len__(self) -> int:
        return int(self.at.shape[0])

    @overload
    def __getitem__(self, i: SupportsIndex) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> T | tuple[T, ...]:
        if isinstance(i, slice):
            return tuple(self.values[self.at[i]])
        item: T = self.values[self.at[i]]
        return item

    def __iter__(self) -> Iterator[T]:
        return iter(self.values[self.at])

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        out = self.values[self.at]
        return out if dtype is None else out.astype(dtype)


class BlockSequence(Sequence[T]):
    """A read-only sequence stored as consecutive blocks that share their contents.

    Block ``b`` covers items ``starts[b]:starts[b+1]`` and reads them from the start of
    ``contents[content_of[b]]``. A poker tree's private-state labels are such a sequence:
    one block per public node, whose items are the names of its board's hands, shared by
    every node with that board; an item is computed from its index on demand instead of
    one string reference stored per private state. Equal (``==``) to any sequence with
    the same items, a tuple included.
    """

    def __init__(self, starts: Sequence[int], content_of: Sequence[int], contents: Sequence[Sequence[T]]) -> None:
        self._starts = np.asarray(starts, dtype=np.int64)  # [B+1]
        self._content_of = np.asarray(content_of, dtype=np.int64)  # [B]
        self._contents = tuple(contents)
        bounds = self._starts.tolist()
        if len(bounds) != len(self._content_of) + 1 or any(
            len(self._contents[c]) < hi - lo for c, lo, hi in zip(self._content_of.tolist(), bounds, bounds[1:])
        ):
            raise GameDefinitionError("BlockSequence: every block needs a start and contents at least as long as itself")

    def __len__(self) -> int:
        return int(self._starts[-1])

    def mapped(self, f: Callable[[Sequence[T]], np.ndarray]) -> np.ndarray:
        """``f`` (items to an array of one entry per item) over the whole sequence, called once per content the blocks
        read instead of once per item: the concatenation of ``f(items of block b)`` over the blocks."""
        used = np.unique(self._content_of).tolist()
        done = dict(zip(used, (np.asarray(f(self._contents[c])) for c in used)))
        bounds = self._starts.tolist()
        parts = [done[c][: hi - lo] for c, lo, hi in zip(self._content_of.tolist(), bounds, bounds[1:])]
        return np.concatenate(parts) if parts else np.asarray(f(()))

    def take(self, index: np.ndarray) -> np.ndarray:
        """[len(index)] the items at ``index`` as one numpy array: one conversion per content the blocks read, not
        one lookup per item."""
        index = np.asarray(index, dtype=np.int64)
        if index.size and (index.min() < 0 or index.max() >= len(self)):
            raise IndexError(f"indices out of range for {len(self)} items")
        block = np.searchsorted(self._starts, index, side="right") - 1
        content = self._content_of[block]
        offset = index - self._starts[block]
        used = np.unique(content).tolist()
        parts = {c: np.asarray(self._contents[c]) for c in used}
        out = np.empty(index.size, dtype=np.result_type(*parts.values()) if parts else np.asarray(()).dtype)
        for c, items in parts.items():
            mine = content == c
            out[mine] = items[offset[mine]]
        return out

    @overload
    def __getitem__(self, i: SupportsIndex) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> T | tuple[T, ...]:
        n = len(self)
        if isinstance(i, slice):
            lo, hi, step = i.indices(n)
            if step != 1:
                return tuple(self[j] for j in range(lo, hi, step))
            return tuple(self._items(lo, hi))
        i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"index {i} out of range for {n} items")
        b = int(np.searchsorted(self._starts, i, side="right")) - 1
        return self._contents[int(self._content_of[b])][i - int(self._starts[b])]

    def _items(self, lo: int, hi: int) -> Iterator[T]:
        b = max(int(np.searchsorted(self._starts, lo, side="right")) - 1, 0)
        while lo < hi:
            start = int(self._starts[b])
            end = min(int(self._starts[b + 1]), hi)
            content = self._contents[int(self._content_of[b])]
            yield from islice(content, lo - start, end - start)
            lo, b = end, b + 1

    def __iter__(self) -> Iterator[T]:
        return self._items(0, len(self))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"BlockSequence({len(self)} items in {len(self._content_of)} blocks)"


class ValueOperator(Protocol):
    """Counterfactual values at terminal private states.

    ``cfv(player, reach)`` returns an array over all of ``player``'s private states holding
    her counterfactual value at the states the operator covers and zero elsewhere, given
    both players' reaches ``reach = (reach_0, reach_1)`` (own probabilities only).
    Terminal operators are bilinear: ``cfv_0 = U @ reach_1`` and ``cfv_1 = -(Uᵀ @ reach_0)``.
    """

    def cfv(self, player: int, reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray: ...


#: A player's index arrays: [G] public node, [G] parent private state, [G] own action, [I] information sets' states.
Index = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class StateIndex(MadeOnFirstUse[Index]):
    """One player's index arrays: per private state its public node, its parent private state and the own action
    leading to it; per information set its private state.

    Stored, or made on first use by ``make`` and kept from then on: a poker tree with a
    layout (:mod:`.poker_layout`) solved by depth-first passes never needs them, and they
    are about 16 bytes a private state.
    """

    def __init__(self, count: int, arrays: Index | None = None, make: Callable[[], Index] | None = None) -> None:
        super().__init__(arrays, make)
        self.count = int(count)

    @classmethod
    def of(cls, node: np.ndarray, parent: np.ndarray, child_seq: np.ndarray, infoset_priv: np.ndarray) -> StateIndex:
        return cls(int(node.shape[0]), arrays=(node, parent, child_seq, infoset_priv))

    @property
    def arrays(self) -> Index:
        return self.made()


@dataclass(frozen=True, eq=False)
class PlayerArrays:
    """One player's view of the public tree.

    ``G`` is the number of her private states over all public nodes, ``I`` the number of
    her information sets (private states at public nodes where she acts), ``A`` the most
    actions at any of them, ``D`` the depth of the public tree.
    """

    states: StateIndex  #: node, parent and own action of each private state, state of each infoset (stored or made when first used)
    label: tuple[str, ...] | BlockSequence[str]  #: [G] her private observations leading there (stored or computed on demand)
    level_bounds: np.ndarray  #: [D+2] private states of depth d are level_bounds[d]:level_bounds[d+1]
    #: [I, A] bool, action slot k legal at infoset I; ``None`` where it is ``action_rows >= 0`` row by row (a poker
    #: tree: :attr:`legal` expands it when first asked, which the depth-first passes over compact storage never do)
    stored_legal: np.ndarray | None
    action_rows: np.ndarray  #: [R, A] the game's action ids of the slots of each row, -1 where illegal
    action_names: tuple[tuple[str, ...], ...] | BlockSequence[tuple[str, ...]]  #: [I][k] names of the legal actions
    #: [R+1] information sets action_row_bounds[r]:action_row_bounds[r+1] share row r of ``action_rows``
    #: (a poker tree: one row per acting public node); ``None``: one row per information set
    action_row_bounds: np.ndarray | None = None

    @property
    def node(self) -> np.ndarray:
        """[G] public node of each private state."""
        return self.states.arrays[0]

    @property
    def parent(self) -> np.ndarray:
        """[G] private state at the parent public node (-1 at the root)."""
        return self.states.arrays[1]

    @property
    def child_seq(self) -> np.ndarray:
        """[G] own action leading here as flat index I*A + k, -1 if she did not act."""
        return self.states.arrays[2]

    @property
    def infoset_priv(self) -> np.ndarray:
        """[I] private state of each information set."""
        return self.states.arrays[3]

    @cached_property
    def legal(self) -> np.ndarray:
        """[I, A] bool, action slot k legal at information set I."""
        if self.stored_legal is not None:
            return self.stored_legal
        out: np.ndarray = self.action_ids >= 0 if self.action_row_bounds is None else np.repeat(
            self.action_rows >= 0, np.diff(self.action_row_bounds), axis=0)
        return out

    @cached_property
    def action_ids(self) -> np.ndarray:
        """[I, A] the game's action id of each slot, -1 where illegal (expanded from the rows when first asked)."""
        if self.action_row_bounds is None:
            return self.action_rows
        out: np.ndarray = np.repeat(self.action_rows, np.diff(self.action_row_bounds), axis=0)
        return out

    @property
    def num_states(self) -> int:
        return self.states.count

    @property
    def num_infosets(self) -> int:
        if self.stored_legal is None and self.action_row_bounds is not None:
            return int(self.action_row_bounds[-1])
        return int(self.legal.shape[0])

    @property
    def max_actions(self) -> int:
        return int(self.action_rows.shape[1])


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
    mirrors: tuple[MirrorEdges, MirrorEdges] | None = None  #: per player, suit isomorphism's value edges (tree.isomorphism)
    layout: PokerLayout | None = None  #: a poker tree as betting nodes × hand rows, for depth-first passes (tree.poker_layout)

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @cached_property
    def num_private_states(self) -> int:
        """Private states of both players."""
        return self.players[0].num_states + self.players[1].num_states

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    @cached_property
    def node_of_key(self) -> dict[tuple[str, ...], int]:
        return {k: i for i, k in enumerate(self.public_key)}

    @cached_property
    def root_slice(self) -> tuple[slice, slice]:
        """Per player, her private states at the root nodes."""
        lb = [pa.level_bounds for pa in self.players]
        return slice(int(lb[0][0]), int(lb[0][1])), slice(int(lb[1][0]), int(lb[1][1]))

    @cached_property
    def plan(self) -> SweepPlan:
        return SweepPlan.build(self)

    @cached_property
    def best_plan(self) -> tuple[tuple[BestLevel, ...], tuple[BestLevel, ...]]:
        """Per player, one :class:`BestLevel` per entry of ``plan.levels``, kept once built.

        Best responses use it on trees of at most :data:`BEST_PLAN_CACHED_STATES` private
        states; on larger ones they build one level at a time and keep nothing (about 10
        bytes per private state saved, for one more pass over each level).
        """
        return SweepPlan.build_best(self)

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
    parent: np.ndarray  #: [hi-lo] a view of the player's parent array: each child's parent, a global index
    ilo: int  #: infosets at depth d-1 are ilo:ihi
    ihi: int
    mirror: tuple[np.ndarray, np.ndarray] | None = None  #: suit isomorphism: [E] child minus lo, [E] parent minus plo

    @property
    def parent_local(self) -> np.ndarray:
        """[hi-lo] intp, parent index minus plo (computed when asked: the sweeps use :attr:`parent`)."""
        out: np.ndarray = self.parent.astype(np.intp)
        out -= self.plo
        return out


@dataclass(frozen=True, eq=False)
class BestLevel:
    """What a best-response sweep adds to a :class:`LevelPlan` (built only when one is asked for)."""

    best_target: np.ndarray  #: [hi-lo] parent_local for other positions, phi-plo + sequence index for actor ones
    illegal_penalty: np.ndarray  #: [ihi-ilo, A] 0 where legal, -inf where not
    infoset_priv: np.ndarray  #: [ihi-ilo] private state of each infoset at depth d-1


@dataclass(frozen=True, eq=False)
class SweepPlan:
    """Per-depth bounds for forward (reach) and backward (value) sweeps.

    A level keeps a view of the player's ``parent`` array, not a copy, so the plan costs
    no memory per private state; the best-response arrays are a separate, lazily built
    :meth:`best`.
    """

    levels: tuple[tuple[LevelPlan, ...], tuple[LevelPlan, ...]]
    child_seq: tuple[np.ndarray, np.ndarray]  #: per player, the tree's [G] own action leading to each state
    root_slice: tuple[slice, slice]

    @property
    def actor_idx(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, the private states reached by her own action (computed when asked)."""
        return (np.flatnonzero(self.child_seq[0] >= 0), np.flatnonzero(self.child_seq[1] >= 0))

    @property
    def actor_seq(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, the flat sequence index of each state of :attr:`actor_idx` (computed when asked)."""
        return tuple(cs[cs >= 0].astype(np.intp) for cs in self.child_seq)  # type: ignore[return-value]

    @staticmethod
    def build(tree: PublicTree) -> SweepPlan:
        levels: list[tuple[LevelPlan, ...]] = []
        for p in range(2):
            pa = tree.players[p]
            lb = pa.level_bounds
            inf_bounds = _infoset_bounds(tree, p)
            plist = []
            for d in range(1, len(lb) - 1):
                lo, hi, plo, phi = int(lb[d]), int(lb[d + 1]), int(lb[d - 1]), int(lb[d])
                mirror = None if tree.mirrors is None else tree.mirrors[p].level(lo, hi, plo)
                plist.append(LevelPlan(lo, hi, plo, phi, pa.parent[lo:hi], int(inf_bounds[d - 1]), int(inf_bounds[d]),
                                       mirror))
            levels.append(tuple(plist))
        return SweepPlan((levels[0], levels[1]), (tree.players[0].child_seq, tree.players[1].child_seq), tree.root_slice)

    @staticmethod
    def build_best(tree: PublicTree) -> tuple[tuple[BestLevel, ...], tuple[BestLevel, ...]]:
        """Per player and depth, the best-response sweep's index arrays (see :attr:`PublicTree.best_plan`)."""
        levels = tree.plan.levels
        return (tuple(SweepPlan.best_level(tree, 0, lv) for lv in levels[0]),
                tuple(SweepPlan.best_level(tree, 1, lv) for lv in levels[1]))

    @staticmethod
    def best_level(tree: PublicTree, player: int, lv: LevelPlan) -> BestLevel:
        """The best-response arrays of one level of ``player``."""
        pa = tree.players[player]
        cs = pa.child_seq[lv.lo : lv.hi]
        target = np.where(cs >= 0, cs.astype(np.intp) + ((lv.phi - lv.plo) - lv.ilo * pa.max_actions), lv.parent_local)
        return BestLevel(
            best_target=target.astype(np.intp, copy=False),
            illegal_penalty=np.where(pa.legal[lv.ilo : lv.ihi], 0.0, -np.inf),
            infoset_priv=pa.infoset_priv[lv.ilo : lv.ihi].astype(np.intp),
        )


def _infoset_bounds(tree: PublicTree, player: int) -> np.ndarray:
    """[D+2] the player's information sets at depth d are bounds[d]:bounds[d+1]."""
    pa = tree.players[player]
    inf_depth = tree.depth[pa.node[pa.infoset_priv]] if pa.num_infosets else np.zeros(0, int)
    return np.searchsorted(inf_depth, np.arange(len(pa.level_bounds)), side="left")


# -- naming information sets ----------------------------------------------------------------
# (public key, private label) names an information set in every tree of a game, as a
# player's observations do. Code finds information sets by integers instead: a part of a tree
# by its maps (tree.part.Part), observations by tree.lookup.InfosetLookup; these names are
# for reports and for tests that check the integer maps against them.


def infoset_index(tree: PublicTree, player: int) -> dict[tuple[PublicKey, str], int]:
    """``(public key, private label) -> information set`` of ``player`` in ``tree``."""
    pa = tree.players[player]
    return {(tree.public_key[pa.node[g]], pa.label[g]): i for i, g in enumerate(pa.infoset_priv)}


def infoset_keys(tree: PublicTree, player: int) -> tuple[tuple[PublicKey, str], ...]:
    """[I] ``(public key, private label)`` of each of ``player``'s information sets."""
    pa = tree.players[player]
    return tuple((tree.public_key[pa.node[g]], pa.label[g]) for g in pa.infoset_priv)


def root_subgame(tree: PublicTree, player: int) -> np.ndarray:
    """[R] which root node (subgame of a forest, in root order) each root private state is in."""
    rs = tree.root_slice[player]
    return np.searchsorted(np.flatnonzero(tree.parent < 0), tree.players[player].node[rs]).astype(np.int64)


def refuse_isomorphic(tree: PublicTree, what: str) -> None:
    """A :class:`GameDefinitionError` if ``tree`` is suit-isomorphic and ``what`` sums children itself."""
    if tree.mirrors is not None:
        raise GameDefinitionError(
            f"{tree.game_name}: {what} does not handle a suit-isomorphic tree (its chance nodes leave equivalent "
            "cards out); compile the plain tree (compile_poker without suits, holdem_problem(..., isomorphism=False))"
        )
