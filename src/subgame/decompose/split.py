"""Cutting a game into a trunk and subgames (Burch, Johanson & Bowling 2014, "Decomposition into Subgames").

The trunk is the public tree down to a cut; each of its depth-limit leaves is the root
of one subgame, compiled on demand from the leaf's public state. The subgame's root
private states carry the same labels as the trunk's leaf private states, and its chance
probabilities count from the game's root, so its counterfactual values are the full
game's. Subgames are grouped in *chunks*: a chunk is compiled as one forest and solved by
one vectorized CFR run, which is exactly one independent solve per subgame (they share no
information set). A chunk of one subgame gives the paper's memory bound (trunk plus one
subgame); larger chunks trade memory for fewer, larger numpy calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import Game
from ..tree.compile import compile_game
from ..tree.part import Part, place
from ..tree.public_tree import LEAF, PublicKey, PublicTree
from ..tree.size import tree_bytes


@dataclass(frozen=True)
class TrunkSplit:
    """Where the trunk ends: after ``rounds`` public chance events, or at a public depth.

    ``TrunkSplit(rounds=1)`` cuts Leduc hold'em after its first betting round (the
    paper's split: one subgame per first-round betting sequence and board card);
    ``TrunkSplit(depth=d)`` makes every non-terminal public node of depth ``d`` a leaf.
    """

    rounds: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        if (self.rounds is None) == (self.depth is None):
            raise GameDefinitionError(f"a trunk split needs exactly one of rounds= or depth=, got {self}")
        for name, v in (("rounds", self.rounds), ("depth", self.depth)):
            if v is not None and (not isinstance(v, (int, np.integer)) or v < 1):
                raise GameDefinitionError(f"trunk split {name}={v!r}: must be a positive integer")

    def compile(self, game: Game) -> PublicTree:
        """The trunk tree (no per-history leaf data: its cost would be the whole cut-off game's)."""
        if self.rounds is not None:
            trunk = compile_game(game, chance_limit=int(self.rounds))
        else:
            trunk = compile_game(game, depth_limit=int(self.depth))  # type: ignore[arg-type]
        if not np.any(trunk.kind == LEAF):
            raise GameDefinitionError(f"{game.name}: the split {self} leaves no subgame (the game ends before it)")
        return trunk

    def to_json(self) -> dict[str, int | None]:
        return {"rounds": self.rounds, "depth": self.depth}


def compile_chunk(game: Game, keys: Sequence[PublicKey]) -> PublicTree:
    """The forest of subgames rooted at the public states ``keys`` (in that order)."""
    return compile_game(game, public_states=[tuple(k) for k in keys])


class StructureCache:
    """Compiled subgame structures (never solver state), at most ``capacity`` of them.

    Chunks are visited in the same cyclic order every iteration, so the cache keeps the
    first ``capacity`` chunks it sees and compiles the others each time (least-recently
    used eviction would miss on every access of a cyclic scan). ``capacity=None`` keeps
    every chunk, which holds the whole game's structure; ``0`` keeps none (trunk plus one
    chunk in memory).
    """

    def __init__(self, capacity: int | None = 0) -> None:
        if capacity is not None and capacity < 0:
            raise GameDefinitionError(f"structure cache capacity must be >= 0 or None, got {capacity}")
        self.capacity = capacity
        self._trees: dict[Hashable, PublicTree] = {}
        self.compiles = 0
        self.compile_seconds = 0.0

    def get(self, key: Hashable, build: Callable[[], PublicTree]) -> PublicTree:
        """The structure stored under ``key``, or ``build()`` (kept if there is room)."""
        tree = self._trees.get(key)
        if tree is None:
            started = time.perf_counter()
            tree = build()
            _ = tree.plan  # the sweep index arrays are part of the structure
            self.compile_seconds += time.perf_counter() - started
            self.compiles += 1
            if self.capacity is None or len(self._trees) < self.capacity:
                self._trees[key] = tree
        return tree

    def __len__(self) -> int:
        return len(self._trees)


@dataclass(frozen=True, eq=False)
class Chunk:
    """Subgames solved together, and where their root private states sit in the trunk."""

    keys: tuple[PublicKey, ...]  #: [S] public state of each subgame root
    leaf_nodes: np.ndarray  #: [S] trunk leaf node of each subgame
    trunk_states: tuple[np.ndarray, np.ndarray]  #: per player [R_p] trunk private state of each forest root state
    root_subgame: tuple[np.ndarray, np.ndarray]  #: per player [R_p] subgame (0..S-1) of each forest root state


@dataclass(frozen=True, eq=False)
class Decomposition:
    """A trunk and its subgames, grouped into chunks; see the module docstring.

    Only index arrays over the trunk's leaf private states are kept per chunk, never a
    compiled subgame (unless ``cache`` holds it).
    """

    game: Game
    split: TrunkSplit
    trunk: PublicTree
    chunks: tuple[Chunk, ...]
    cache: StructureCache
    build_seconds: float  #: trunk compile plus one compile of every chunk

    @staticmethod
    def build(
        game: Game,
        split: TrunkSplit,
        *,
        batch: int = 1,
        cache: StructureCache | None = None,
        trunk: PublicTree | None = None,
        leaf_nodes: Sequence[int] | None = None,
    ) -> Decomposition:
        """Compile the trunk, then each chunk once to place its root states in the trunk.

        Args:
            batch: subgames per chunk (in trunk leaf order).
            cache: where compiled chunks are kept (default: none kept).
            trunk: the trunk, if already compiled with ``split``.
            leaf_nodes: only these trunk leaves (default: all).
        """
        if batch < 1:
            raise GameDefinitionError(f"batch (subgames per solve) must be >= 1, got {batch}")
        started = time.perf_counter()
        trunk = split.compile(game) if trunk is None else trunk
        cache = cache if cache is not None else StructureCache(0)
        leaves = np.flatnonzero(trunk.kind == LEAF)
        if leaf_nodes is not None:
            wanted = np.asarray(leaf_nodes, dtype=np.int64)
            if not np.all(np.isin(wanted, leaves)):
                raise GameDefinitionError(f"{game.name}: nodes {sorted(set(wanted.tolist()) - set(leaves.tolist()))} are not trunk leaves")
            leaves = wanted
        chunks = []
        for lo in range(0, leaves.size, batch):
            nodes = leaves[lo : lo + batch]
            keys = tuple(trunk.public_key[n] for n in nodes)
            part = place(trunk, cache.get(keys, partial(compile_chunk, game, keys)))
            states, subgame = part.root_states, (part.root_subgame(0), part.root_subgame(1))
            for p in (0, 1):
                if states[p].size != int(np.sum(np.isin(trunk.players[p].node, nodes))):
                    raise GameDefinitionError(f"{game.name}: subgames {keys} do not cover their trunk leaf states")
            chunks.append(Chunk(keys, nodes.astype(np.int64), (states[0], states[1]), (subgame[0], subgame[1])))
        return Decomposition(game, split, trunk, tuple(chunks), cache, time.perf_counter() - started)

    @property
    def num_subgames(self) -> int:
        return int(sum(len(c.keys) for c in self.chunks))

    def chunk_tree(self, chunk: Chunk) -> PublicTree:
        """The compiled forest of ``chunk`` (from the cache, or compiled now)."""
        return self.cache.get(chunk.keys, lambda: compile_chunk(self.game, chunk.keys))

    def chunk_part(self, chunk: Chunk) -> Part:
        """The compiled forest of ``chunk`` as a part of the trunk (its root states at the trunk's leaf states)."""
        return place(self.trunk, self.chunk_tree(chunk))

    def chunk_of_key(self, key: Sequence[str]) -> Chunk:
        """The chunk holding the subgame rooted at public state ``key``."""
        key = tuple(key)
        for c in self.chunks:
            if key in c.keys:
                return c
        raise GameDefinitionError(f"{self.game.name}: {list(key)!r} is not the root of a subgame of the split {self.split}")




def whole_tree_bytes(d: Decomposition) -> int:
    """The compiled whole game's size, estimated without building it.

    The trunk's arrays plus every subgame's, each subgame compiled alone and dropped
    before the next (so this holds the trunk and one subgame, and takes about one
    compile of the whole game in time). It counts the trunk's leaf states twice, so it
    is an upper estimate.
    """
    total = tree_bytes(d.trunk)
    for chunk in d.chunks:
        for key in chunk.keys:
            total += tree_bytes(compile_chunk(d.game, (key,)))
    return total
