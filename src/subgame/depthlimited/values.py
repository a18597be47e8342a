"""Leaf values v^(σ̂_ρ, σ_oᵏ)(h) behind one interface (depth-limited paper §4, "Calculating state values").

A :class:`LeafValueSource` turns a depth-limited tree and a set of opponent continuations
into :class:`~.leaf.LeafValues`. Three sources:

* :class:`ExactValues` — a full traversal below every leaf: the part of the game below
  the leaves is compiled as one forest, and for each continuation the value matrix is
  ``R_0 · U · R_1ᵀ`` (``U`` the forest's terminal operator, ``R_q`` player q's reach from
  each root private state to each private state below it under her strategy there): one
  forward sweep per player and two sparse products, no walk per history.
* :class:`RolloutValues` — seeded Monte Carlo rollouts from each leaf history through
  the game's rules, several per history and continuation (Appendix A used three).
* :class:`TableValues` — a stored :class:`LeafValueTable` (save/load in the library's
  file format; a table of another game is refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import StrategyFileError, SubgameError
from ..files import read_npz, write_npz
from ..games.base import CHANCE, TERMINAL, Game, game_fingerprint
from ..strategy import Strategy
from ..tree.enumeration import enumerate_game
from ..tree.lookup import InfosetLookup, label_array, lookups, states_named
from ..tree.operators import SparseTerminal
from ..tree.part import Part, place
from ..tree.public_tree import LEAF, PublicKey, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .leaf import LeafValues

if TYPE_CHECKING:  # scipy.sparse is imported where used: about 22 MB that a hold'em spot never needs
    import scipy.sparse as sp

TABLE_FORMAT = "subgame-leaf-values"


@dataclass(frozen=True, eq=False)
class Continuations:
    """K strategies the opponent may continue with below the depth limit.

    Attributes:
        player: the opponent who plays them.
        probs: K × [I, A] her behaviour strategies over the full game tree's information sets.
        names: [K] a name for each.
    """

    player: int
    probs: tuple[np.ndarray, ...]
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.player not in (0, 1):
            raise SubgameError(f"the continuations' player must be 0 or 1, got {self.player!r}")
        if not self.probs:
            raise SubgameError("a continuation set needs at least one strategy (K >= 1), got K = 0")
        if len(self.names) != len(self.probs):
            raise SubgameError(f"{len(self.names)} names for {len(self.probs)} continuations")

    @property
    def num_values(self) -> int:
        return len(self.probs)

    def add(self, probs: np.ndarray, name: str) -> Continuations:
        return Continuations(self.player, (*self.probs, probs), (*self.names, name))

    def first(self, k: int) -> Continuations:
        return Continuations(self.player, self.probs[:k], self.names[:k])


class LeafValueSource(Protocol):
    """Values of every leaf history of ``tree`` for each continuation (the re-solver plays her blueprint)."""

    def leaf_values(self, tree: PublicTree, continuations: Continuations) -> LeafValues: ...


def _leaf_keys(tree: PublicTree) -> list[PublicKey]:
    nodes = np.flatnonzero(tree.kind == LEAF)
    if nodes.size == 0:
        raise SubgameError("the tree has no depth-limit leaf: nothing to value (is the depth limit beyond the game?)")
    return [tree.public_key[n] for n in nodes]


@dataclass(eq=False)
class ExactValues:
    """Exact leaf values: the game below the leaves traversed under (σ̂_ρ, σ_oᵏ).

    Args:
        game: the rules.
        full_tree: the full game's tree, whose information sets ``blueprint`` and the
            continuations are indexed by.
        blueprint: σ̂; the re-solver's part is played below the leaves.
    """

    game: Game
    full_tree: PublicTree
    blueprint: Strategy
    _forests: dict[tuple[PublicKey, ...], Part] = field(default_factory=dict, repr=False)

    def forest(self, tree: PublicTree) -> PublicTree:
        """The game below ``tree``'s leaves, one subgame per leaf node (compiled once per set of leaves)."""
        return self._below(tree).tree

    def _below(self, tree: PublicTree) -> Part:
        """:meth:`forest` as a part of the full tree."""
        keys = tuple(_leaf_keys(tree))
        if keys not in self._forests:
            self._forests[keys] = place(self.full_tree, enumerate_game(self.game, public_states=keys))
        return self._forests[keys]

    def leaf_values(self, tree: PublicTree, continuations: Continuations) -> LeafValues:
        import scipy.sparse as sp
        _check_game(tree, self.full_tree)
        part = self._below(tree)
        below = part.tree
        rho, opp = 1 - continuations.player, continuations.player
        term = below.terminals[0]
        if len(below.terminals) != 1 or not isinstance(term, SparseTerminal):
            raise SubgameError("exact leaf values need the enumerated game's sparse terminal operator")
        to_dl = place(tree, below).root_states  # per player, the leaf state of ``tree`` at each root state below
        reach_rho = self._reach_matrix(part, rho, self.blueprint.probs[rho])
        u_rho = reach_rho @ (term.u if rho == 0 else term.ut)  # [R_ρ, G_o]
        shape = (tree.players[0].num_states, tree.players[1].num_states)
        mats = []
        for probs in continuations.probs:
            m = (u_rho @ self._reach_matrix(part, opp, probs).T).tocoo()  # [R_ρ, R_o]
            r, c = (m.row, m.col) if rho == 0 else (m.col, m.row)
            g = sp.csr_matrix((m.data, (to_dl[0][r], to_dl[1][c])), shape=shape)
            g.sum_duplicates()
            mats.append(g)
        return LeafValues(tree.game_id, rho, tuple(mats), continuations.names)

    def _reach_matrix(self, part: Part, player: int, probs: np.ndarray) -> sp.csr_matrix:
        """[R, G] player's own reach from each root private state of the part below the leaves to each private state under it."""
        import scipy.sparse as sp
        below = part.tree
        sigma = np.ascontiguousarray(part.restrict(probs, player))
        reach = forward_reach(below, player, transition_weights(below, player, sigma))
        anc = _root_ancestor(below, player)
        rs = below.root_slice[player]
        return sp.csr_matrix((reach, (anc, np.arange(reach.size))), shape=(rs.stop - rs.start, reach.size))


def _root_ancestor(tree: PublicTree, player: int) -> np.ndarray:
    """[G] the root private state (index within the root slice) above each private state."""
    pa, plan = tree.players[player], tree.plan
    anc = np.empty(pa.num_states, dtype=np.int64)
    rs = plan.root_slice[player]
    anc[rs] = np.arange(rs.stop - rs.start)
    for lv in plan.levels[player]:
        anc[lv.lo : lv.hi] = anc[pa.parent[lv.lo : lv.hi]]
    return anc


def _check_game(tree: PublicTree, full: PublicTree) -> None:
    if tree.game_id != full.game_id:
        raise SubgameError(f"the depth-limited tree is of game {tree.game_id!r}, the blueprint's tree of {full.game_id!r}")


@dataclass(eq=False)
class RolloutValues:
    """Monte Carlo leaf values: ``rollouts`` sampled plays below each leaf history per continuation.

    From a leaf history the rules are played out (chance by its probabilities, the
    re-solver by her blueprint, the opponent by continuation k) and the mean utility is the
    history's value; Appendix A of the paper did three rollouts per leaf. Seeded: the same
    ``seed`` gives the same values. Needs the depth-limited tree compiled with
    ``leaf_histories=True``.

    Where we differ from the paper: the samples are drawn once, when the leaf values are
    built, and the solve then treats them as exact; the paper's agent rolled out afresh
    whenever a leaf was reached. The opponent's pick is then a maximum over noisy values
    (a winner's curse) and the re-solver fits the noise: on Leduc cut at the second round
    (CFR+ 300-iteration blueprint, bias K = 2, both players re-solved with 300 iterations)
    the combined strategy's exploitability is 0.58, 0.39 and 0.20 chips/hand with 20, 100
    and 400 rollouts per history, falling like 1/sqrt(rollouts), against 0.0125 with exact
    values. Use exact values where the game allows.
    """

    game: Game
    full_tree: PublicTree
    blueprint: Strategy
    rollouts: int = 3
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.rollouts, bool) or not isinstance(self.rollouts, (int, np.integer)) or self.rollouts < 1:
            raise SubgameError(f"rollouts must be a whole number >= 1, got {self.rollouts!r}")

    def leaf_values(self, tree: PublicTree, continuations: Continuations) -> LeafValues:
        import scipy.sparse as sp
        _check_game(tree, self.full_tree)
        keys = _leaf_keys(tree)
        leaf_nodes = [int(n) for n in np.flatnonzero(tree.kind == LEAF)]
        if not all(n in tree.leaf_data for n in leaf_nodes):
            raise SubgameError(f"rollouts need the leaf histories: compile the tree with leaf_histories=True ({len(keys)} leaves)")
        rng = np.random.default_rng(self.seed)
        opp = continuations.player
        index = lookups(self.full_tree)
        shape = (tree.players[0].num_states, tree.players[1].num_states)
        hist = [h for n in leaf_nodes for h in tree.leaf_data[n]]
        nodes = [n for n in leaf_nodes for _ in tree.leaf_data[n]]
        g0 = np.fromiter((h.private_state[0] for h in hist), dtype=np.int64, count=len(hist))
        g1 = np.fromiter((h.private_state[1] for h in hist), dtype=np.int64, count=len(hist))
        prob = np.fromiter((h.chance_prob for h in hist), dtype=np.float64, count=len(hist))
        mats = []
        for probs in continuations.probs:
            strategies = [self.blueprint.probs[0], self.blueprint.probs[1]]
            strategies[opp] = probs
            mean = np.empty(len(hist))
            for i, (h, n) in enumerate(zip(hist, nodes)):  # a walk per history: this is the sampling method itself
                start = (tree.public_key[n], (tree.players[0].label[h.private_state[0]], tree.players[1].label[h.private_state[1]]))
                mean[i] = np.mean([self._play(h.state, start, strategies, index, rng) for _ in range(self.rollouts)])
            g = sp.csr_matrix((prob * mean, (g0, g1)), shape=shape)
            g.sum_duplicates()
            mats.append(g)
        return LeafValues(tree.game_id, 1 - opp, tuple(mats), continuations.names)

    def _play(self, state: object, start: tuple[PublicKey, tuple[str, str]], strategies: Sequence[np.ndarray],
              index: tuple[InfosetLookup, InfosetLookup],
              rng: np.random.Generator) -> float:
        game, full = self.game, self.full_tree
        public, labels = start[0], [start[1][0], start[1][1]]
        while True:
            who = game.actor(state)
            if who == TERMINAL:
                return float(game.utility(state))
            if who == CHANCE:
                outcomes = game.chance_outcomes(state)
                cum = np.cumsum([p for _, p in outcomes])
                a = outcomes[min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")), len(outcomes) - 1)][0]
            else:
                inf = index[who](public, labels[who])
                if inf < 0:
                    raise SubgameError(f"{game.name}: the full tree has no information set of player {who} at {list(public)!r}")
                row = strategies[who][inf]
                cum = np.cumsum(row)
                slot = min(int(np.searchsorted(cum, rng.random() * cum[-1], side="right")), row.size - 1)
                a = int(full.players[who].action_ids[inf, slot])
            pub, o0, o1 = game.observations(state, a)
            public = public + (pub,)
            for p, o in ((0, o0), (1, o1)):
                if o:
                    labels[p] = f"{labels[p]}/{o}" if labels[p] else o
            state = game.next_state(state, a)


@dataclass(frozen=True, eq=False)
class LeafValueTable:
    """Stored leaf values: one entry per pair of leaf private states (a leaf history in poker).

    Attributes:
        game_id: fingerprint of the game.
        player: the re-solver ρ whose blueprint the values assume.
        names: [K] the continuations.
        keys: the leaf public states the entries refer to.
        node: [E] index into ``keys`` of each entry.
        labels: per player [E] her private label at the entry.
        values: [K, E] chance-weighted value of player 0 (as in :class:`~.leaf.LeafValues`).
    """

    game_id: str
    player: int
    names: tuple[str, ...]
    keys: tuple[PublicKey, ...]
    node: np.ndarray
    labels: tuple[np.ndarray, np.ndarray]
    values: np.ndarray

    @staticmethod
    def from_leaf_values(tree: PublicTree, lv: LeafValues) -> LeafValueTable:
        """The table of ``lv``'s values at ``tree``'s leaves."""
        import scipy.sparse as sp
        pattern = sum((abs(m) for m in lv.matrices), sp.csr_matrix(lv.matrices[0].shape)).tocoo()
        r, c = pattern.row, pattern.col
        values = np.stack([np.asarray(m[r, c]).ravel() for m in lv.matrices])
        leaf_nodes = np.flatnonzero(tree.kind == LEAF)
        keys = tuple(tree.public_key[n] for n in leaf_nodes)
        node = np.searchsorted(leaf_nodes, tree.players[0].node[r])
        labels = (label_array(tree.players[0].label, r), label_array(tree.players[1].label, c))
        return LeafValueTable(lv.game_id, lv.player, lv.names, keys, node, labels, values)

    def leaf_values(self, tree: PublicTree) -> LeafValues:
        """The table's values as operators over ``tree`` (every leaf of the tree must be in the table)."""
        import scipy.sparse as sp
        if tree.game_id != self.game_id:
            raise StrategyFileError(f"the leaf value table is for game {self.game_id!r}, not this tree's {tree.game_id!r}")
        have = set(self.keys)
        missing = [k for k in _leaf_keys(tree) if k not in have]
        if missing:
            raise SubgameError(f"the leaf value table has no values for leaf {list(missing[0])!r} ({len(missing)} leaves missing)")
        at = np.fromiter((tree.node_of_key.get(k, -1) for k in self.keys), dtype=np.int64, count=len(self.keys))
        at[tree.kind[at] != LEAF] = -1  # entries at public states that are not leaves of this tree are left out
        g = [states_named(tree, p, at[self.node], self.labels[p]) for p in (0, 1)]
        keep = (g[0] >= 0) & (g[1] >= 0)
        shape = (tree.players[0].num_states, tree.players[1].num_states)
        mats = tuple(sp.csr_matrix((v[keep], (g[0][keep], g[1][keep])), shape=shape) for v in self.values)
        return LeafValues(tree.game_id, self.player, mats, self.names)

    @staticmethod
    def merge(tables: Sequence[LeafValueTable]) -> LeafValueTable:
        """One table holding the entries of several (same game, re-solver and continuation names)."""
        first = tables[0]
        if any((t.game_id, t.player, t.names) != (first.game_id, first.player, first.names) for t in tables):
            raise SubgameError("only tables of one game, re-solver and continuation set can be merged")
        keys: list[PublicKey] = []
        nodes = []
        for t in tables:
            nodes.append(t.node + len(keys))
            keys.extend(t.keys)
        return LeafValueTable(first.game_id, first.player, first.names, tuple(keys), np.concatenate(nodes),
                              (np.concatenate([t.labels[0] for t in tables]), np.concatenate([t.labels[1] for t in tables])),
                              np.concatenate([t.values for t in tables], axis=1))


def save_leaf_tables(path: str | Path, tables: Sequence[LeafValueTable]) -> Path:
    """Write one or more tables (e.g. one per re-solver) to one file of the library's format."""
    if not tables:
        raise SubgameError("no leaf value table to save")
    if len({t.game_id for t in tables}) != 1:
        raise SubgameError("the tables of one file must be of one game")
    header = {"format": TABLE_FORMAT, "version": 1, "game_id": tables[0].game_id,
              "tables": [{"player": t.player, "names": list(t.names), "keys": [list(k) for k in t.keys]} for t in tables]}
    arrays: dict[str, np.ndarray] = {}
    for i, t in enumerate(tables):
        arrays.update({f"node{i}": t.node, f"labels0_{i}": t.labels[0], f"labels1_{i}": t.labels[1], f"values{i}": t.values})
    return write_npz(path, header, arrays)


def load_leaf_tables(path: str | Path, game: Game | None = None) -> tuple[LeafValueTable, ...]:
    """The tables of a file written by :func:`save_leaf_tables`; with ``game``, a file of another game is refused."""
    header, arrays = read_npz(path, format=TABLE_FORMAT, version=1, kind="leaf value table", expected="a leaf value table")
    if game is not None and header["game_id"] != game_fingerprint(game):
        raise StrategyFileError(f"{path}: the leaf value table is for game {header['game_id']!r}, "
                                f"not {game.name} ({game_fingerprint(game)!r})")
    try:
        tables = tuple(
            LeafValueTable(header["game_id"], int(t["player"]), tuple(t["names"]), tuple(tuple(k) for k in t["keys"]),
                           arrays[f"node{i}"], (arrays[f"labels0_{i}"], arrays[f"labels1_{i}"]), arrays[f"values{i}"])
            for i, t in enumerate(header["tables"])
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StrategyFileError(f"{path}: a damaged leaf value table ({exc!r} missing)") from None
    for i, t in enumerate(tables):
        _check_table(path, i, t)
    return tables


def _check_table(path: str | Path, i: int, t: LeafValueTable) -> None:
    """Refuse a loaded table whose arrays do not fit together or hold values that are not finite numbers."""
    problem = None
    entries = t.node.shape[0] if t.node.ndim == 1 else -1
    if t.player not in (0, 1):
        problem = f"re-solver {t.player} is not player 0 or 1"
    elif entries < 0 or t.node.dtype.kind not in "iu" or (entries and (t.node.min() < 0 or t.node.max() >= len(t.keys))):
        problem = "its entries point to leaf public states it does not list"
    elif any(lab.shape != (entries,) for lab in t.labels):
        problem = "its private-state labels do not match its entries"
    elif t.values.dtype.kind != "f" or t.values.shape != (len(t.names), entries):
        problem = f"its values have shape {t.values.shape}, not (continuations, entries) = {(len(t.names), entries)}"
    elif not np.isfinite(t.values).all():
        problem = "some values are NaN or infinite"
    if problem:
        raise StrategyFileError(f"{path}: leaf value table {i} is damaged: {problem}")


@dataclass(frozen=True, eq=False)
class TableValues:
    """A :class:`LeafValueSource` reading stored :class:`LeafValueTable` s (one per re-solver at most).

    The continuations asked for must be the first K of a table's, by name: a table keeps
    values, not the strategies that produced them.
    """

    tables: tuple[LeafValueTable, ...]

    def table_for(self, player: int) -> LeafValueTable:
        """The table for re-solver ``player``."""
        for t in self.tables:
            if t.player == player:
                return t
        raise SubgameError(f"the leaf value tables hold values for re-solver(s) {sorted(t.player for t in self.tables)}, "
                           f"not {player}")

    def leaf_values(self, tree: PublicTree, continuations: Continuations) -> LeafValues:
        t = self.table_for(1 - continuations.player)
        if continuations.names != t.names[: continuations.num_values]:
            raise SubgameError(f"the table holds values of continuations {list(t.names)} for re-solver {t.player}, "
                               f"not {list(continuations.names)}")
        return t.leaf_values(tree).select(range(continuations.num_values))

    def stored(self, tree: PublicTree, player: int, num_values: int) -> LeafValues:
        """The first ``num_values`` stored values for re-solver ``player`` (no continuation strategies needed)."""
        t = self.table_for(player)
        if num_values > len(t.names):
            raise SubgameError(f"K = {num_values} is more than the table holds ({len(t.names)} values)")
        return t.leaf_values(tree).select(range(num_values))
