"""Compile a :class:`~subgame.games.base.Game` into a :class:`PublicTree` by enumerating its histories.

The compiler walks every history once, groups histories into public states by their
public observation sequence and into private states by each player's private observation
sequence, checks perfect recall and that the acting player is public, and folds chance
probabilities into one sparse terminal operator. This Python walk runs once per game;
everything after it (CFR, best response) is vectorized over the resulting arrays.

Chance nodes whose outcomes are all private (dealing hole cards) produce no public node:
their outcomes only refine the players' private states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import GameDefinitionError
from ..games.base import CHANCE, TERMINAL, Game, State, game_fingerprint
from .operators import SparseTerminal
from .public_tree import CHANCE_NODE, DECISION, LEAF, TERMINAL_NODE, HistoryAtNode, LeafHistories, PlayerArrays, PublicTree, StateIndex, index_dtype
from .size import ENUMERATED_BYTES_PER_PRIVATE_STATE, SizeBudget


@dataclass
class _History:
    state: State
    prob: float
    public: tuple[str, ...]
    private: tuple[tuple[str, ...], tuple[str, ...]]
    parent: tuple[int, int]  # private states at the parent public node
    seq: tuple[tuple[int, int] | None, tuple[int, int] | None]  # (infoset, slot) of own last action
    priv_index: tuple[int, int] = (-1, -1)  # private states at its own public node, once placed there


def enumerate_game(
    game: Game,
    *,
    public_state: Sequence[str] | None = None,
    public_states: Sequence[Sequence[str]] | None = None,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_histories: bool = False,
    max_bytes: int | None = None,
) -> PublicTree:
    """Compile ``game``, or its part below one or several public states, by walking every history.

    Args:
        game: the rules.
        public_state: a public observation sequence; the tree is then rooted there, its
            root private states being the players' information sets in that public state
            (their labels are the full private observation sequences, so they map back to
            the full game's private states, and chance probabilities count from the game's
            root, so counterfactual values agree with the full game's).
        public_states: several public states: the tree is a forest with one root each, in
            the given order. Disjoint subgames solved together share no information set,
            so one solve of the forest is one independent solve of each subgame.
        depth_limit: public depth (relative to the root) at which non-terminal nodes
            become leaves.
        chance_limit: non-terminal nodes below this many public chance nodes become
            leaves: ``chance_limit=1`` cuts Leduc into its first betting round (the trunk)
            and one leaf per second-round subgame.
        leaf_histories: keep every history of every leaf in ``tree.leaf_data`` (one
            record per history: as many as the whole cut-off part of the game has at
            its leaves, so only for leaf values computed by walking histories).
        max_bytes: refuse a tree whose private states alone would need more (see
            :class:`~subgame.tree.size.SizeBudget`); ``None``: the memory available now.
    """
    if public_state is not None and public_states is not None:
        raise GameDefinitionError("give either public_state or public_states, not both")
    if public_state is not None:
        public_states = [public_state]
    if public_states is None:
        roots = [_History(game.root(), 1.0, (), ((), ()), (-1, -1), (None, None))]
    else:
        keys = [tuple(k) for k in public_states]
        found = _histories_at(game, set(keys))
        missing = [k for k in keys if k not in found]
        if missing:
            raise GameDefinitionError(f"{game.name}: no history has the public observations {list(missing[0])!r}")
        roots = [h for k in keys for h in found[k]]
    budget = SizeBudget.of(game.name, max_bytes, ENUMERATED_BYTES_PER_PRIVATE_STATE)
    return _Compiler(game, depth_limit, chance_limit, leaf_histories, budget).run(roots)


def _expand_chance(game: Game, h: _History) -> list[_History]:
    out = []
    for a, p in game.chance_outcomes(h.state):
        pub, o0, o1 = game.observations(h.state, a)
        out.append(
            _History(
                game.next_state(h.state, a), h.prob * p, h.public + (pub,),
                (h.private[0] + (o0,), h.private[1] + (o1,)), h.parent, h.seq,
            )
        )
    return out


def _histories_at(game: Game, keys: set[tuple[str, ...]]) -> dict[tuple[str, ...], list[_History]]:
    """The histories of each public state in ``keys``, found in one walk of the game."""
    prefixes = {k[:i] for k in keys for i in range(len(k) + 1)}
    found: dict[tuple[str, ...], list[_History]] = {}
    stack = [_History(game.root(), 1.0, (), ((), ()), (-1, -1), (None, None))]
    while stack:
        h = stack.pop()
        if h.public in keys:
            found.setdefault(h.public, []).append(h)
            continue
        who = game.actor(h.state)
        if who == TERMINAL:
            continue
        moves = game.chance_outcomes(h.state) if who == CHANCE else [(a, 1.0) for a in game.legal_actions(h.state)]
        for a, p in reversed(list(moves)):
            pub, o0, o1 = game.observations(h.state, a)
            if h.public + (pub,) in prefixes:
                stack.append(
                    _History(game.next_state(h.state, a), h.prob * p, h.public + (pub,),
                             (h.private[0] + (o0,), h.private[1] + (o1,)), (-1, -1), (None, None))
                )
    return found


class _Compiler:
    def __init__(self, game: Game, depth_limit: int | None, chance_limit: int | None = None, leaf_histories: bool = False,
                 budget: SizeBudget | None = None):
        self.game = game
        self.budget = budget
        self.leaf_histories = leaf_histories
        self.depth_limit = depth_limit
        self.chance_limit = chance_limit
        self.chance_count: list[int] = []  # public chance nodes above each node
        self.kind: list[int] = []
        self.actor: list[int] = []
        self.parent: list[int] = []
        self.depth: list[int] = []
        self.keys: list[tuple[str, ...]] = []
        # per player, per private state
        self.p_node: list[list[int]] = [[], []]
        self.p_parent: list[list[int]] = [[], []]
        self.p_label: list[list[str]] = [[], []]
        self.p_seq: list[list[tuple[int, int] | None]] = [[], []]
        self.level_bounds: list[list[int]] = [[0], [0]]
        # per player, per infoset
        self.inf_priv: list[list[int]] = [[], []]
        self.inf_actions: list[list[tuple[int, ...]]] = [[], []]
        self.inf_names: list[list[tuple[str, ...]]] = [[], []]
        self.term: tuple[list[int], list[int], list[float]] = ([], [], [])
        self.leaf_data: dict[int, tuple[HistoryAtNode, ...]] = {}

    def run(self, roots: list[_History]) -> PublicTree:
        game = self.game
        level = [(roots, -1)]  # groups of histories per public node, with the parent node
        depth = 0
        while level:
            nxt: list[tuple[list[_History], int]] = []
            node_hists: list[tuple[int, list[_History]]] = []
            # 1. create the nodes of this depth and their private states
            for hists, parent_node in level:
                for group in self._group_public(hists):
                    n = self._add_node(group, parent_node, depth)
                    node_hists.append((n, group))
            for p in range(2):
                self.level_bounds[p].append(len(self.p_node[p]))
            # 2. expand them
            for n, group in node_hists:
                kind = self.kind[n]
                if kind == TERMINAL_NODE:
                    for h in group:
                        g = h.priv_index
                        self.term[0].append(g[0])
                        self.term[1].append(g[1])
                        self.term[2].append(h.prob * game.utility(h.state))
                elif kind == LEAF:
                    if self.leaf_histories:
                        self.leaf_data[n] = tuple(HistoryAtNode(h.state, h.prob, h.priv_index) for h in group)
                else:
                    nxt.append((self._children(n, group), n))
            level = nxt
            depth += 1
        return self._finish()

    def _group_public(self, hists: list[_History]) -> list[list[_History]]:
        """Split histories into public nodes, passing through all-private chance moves."""
        game = self.game
        groups: dict[tuple[str, ...], list[_History]] = {}
        for h in hists:
            groups.setdefault(h.public, []).append(h)
        out = []
        for group in groups.values():
            while True:
                who = {game.actor(h.state) for h in group}
                if who != {CHANCE}:
                    break
                expanded = [c for h in group for c in _expand_chance(game, h)]
                if len({c.public[-1] for c in expanded}) != 1:
                    break
                group = expanded
            out.append(group)
        return out

    def _add_node(self, group: list[_History], parent_node: int, depth: int) -> int:
        game = self.game
        actors = {game.actor(h.state) for h in group}
        if len(actors) != 1:
            raise GameDefinitionError(
                f"{game.name}: public state {list(group[0].public)!r} mixes acting players {sorted(actors)}; "
                "the acting player must be publicly observable"
            )
        who = actors.pop()
        n = len(self.kind)
        chances = 0 if parent_node < 0 else self.chance_count[parent_node] + (self.kind[parent_node] == CHANCE_NODE)
        self.chance_count.append(chances)
        if who == TERMINAL:
            kind = TERMINAL_NODE
        elif (self.depth_limit is not None and depth >= self.depth_limit) or (
            self.chance_limit is not None and chances >= self.chance_limit
        ):
            kind = LEAF
        else:
            kind = CHANCE_NODE if who == CHANCE else DECISION
        self.kind.append(kind)
        self.actor.append(who if kind == DECISION else -1)
        self.parent.append(parent_node)
        self.depth.append(depth)
        self.keys.append(group[0].public)
        for p in range(2):
            index: dict[tuple[str, ...], int] = {}
            for h in group:
                key = h.private[p]
                g = index.get(key)
                if g is None:
                    g = len(self.p_node[p])
                    index[key] = g
                    self.p_node[p].append(n)
                    self.p_parent[p].append(h.parent[p])
                    self.p_label[p].append("/".join(o for o in key if o))
                    self.p_seq[p].append(h.seq[p])
                elif self.p_parent[p][g] != h.parent[p] or self.p_seq[p][g] != h.seq[p]:
                    raise GameDefinitionError(
                        f"{game.name}: player {p} forgets what she knew or did at private state "
                        f"{self.p_label[p][g]!r} in public state {list(group[0].public)!r} (perfect recall is required)"
                    )
                if p == 0:
                    h.priv_index = (g, -1)
                else:
                    h.priv_index = (h.priv_index[0], g)
        if self.budget is not None:
            self.budget.check_states(len(self.p_node[0]) + len(self.p_node[1]), n + 1)
        return n

    def _children(self, n: int, group: list[_History]) -> list[_History]:
        game = self.game
        out: list[_History] = []
        if self.kind[n] == CHANCE_NODE:
            for h in group:
                for c in _expand_chance(game, h):
                    c.parent = h.priv_index
                    c.seq = (None, None)
                    out.append(c)
            return out
        p = self.actor[n]
        infoset_of: dict[int, int] = {}
        for h in group:
            g = h.priv_index[p]
            legal = tuple(game.legal_actions(h.state))
            inf = infoset_of.get(g)
            if inf is None:
                if not legal:
                    raise GameDefinitionError(f"{game.name}: a non-terminal state has no legal action")
                inf = len(self.inf_priv[p])
                infoset_of[g] = inf
                self.inf_priv[p].append(g)
                self.inf_actions[p].append(legal)
                self.inf_names[p].append(tuple(game.action_name(h.state, a) for a in legal))
            elif self.inf_actions[p][inf] != legal:
                raise GameDefinitionError(
                    f"{game.name}: information set {self.p_label[p][g]!r} of player {p} has histories with "
                    f"different legal actions {self.inf_actions[p][inf]} and {legal}"
                )
            for k, a in enumerate(legal):
                pub, o0, o1 = game.observations(h.state, a)
                own = (inf, k)
                seq = (own, None) if p == 0 else (None, own)
                out.append(
                    _History(game.next_state(h.state, a), h.prob, h.public + (pub,),
                             (h.private[0] + (o0,), h.private[1] + (o1,)), h.priv_index, seq)
                )
        return out

    def _finish(self) -> PublicTree:
        game = self.game
        players = []
        for p in range(2):
            n_inf = len(self.inf_priv[p])
            A = max((len(a) for a in self.inf_actions[p]), default=1)
            legal = np.zeros((n_inf, A), dtype=bool)
            ids = np.full((n_inf, A), -1, dtype=np.int64)
            for i, acts in enumerate(self.inf_actions[p]):
                legal[i, : len(acts)] = True
                ids[i, : len(acts)] = acts
            index = index_dtype(len(self.p_node[p]), n_inf * A, len(self.kind))  # int32 where it fits, as the poker compiler's
            seq = np.array([-1 if s is None else s[0] * A + s[1] for s in self.p_seq[p]], dtype=index)
            players.append(
                PlayerArrays(
                    states=StateIndex.of(np.asarray(self.p_node[p], dtype=index), np.asarray(self.p_parent[p], dtype=index),
                                         seq, np.asarray(self.inf_priv[p], dtype=np.int64)),
                    label=tuple(self.p_label[p]),
                    level_bounds=np.asarray(self.level_bounds[p], dtype=np.int64),
                    stored_legal=legal,
                    action_rows=ids,
                    action_names=tuple(self.inf_names[p]),
                )
            )
        shape = (players[0].num_states, players[1].num_states)
        term = SparseTerminal.from_entries(
            np.asarray(self.term[0], dtype=np.int64), np.asarray(self.term[1], dtype=np.int64),
            np.asarray(self.term[2], dtype=np.float64), shape,
        )
        return PublicTree(
            game_id=game_fingerprint(game),
            game_name=game.name,
            kind=np.asarray(self.kind, dtype=np.int8),
            actor=np.asarray(self.actor, dtype=np.int8),
            parent=np.asarray(self.parent, dtype=np.int64),
            depth=np.asarray(self.depth, dtype=np.int64),
            public_key=tuple(self.keys),
            players=(players[0], players[1]),
            terminals=(term,),
            utility_bound=float(game.utility_bound()),
            leaf_data=LeafHistories(self.leaf_data),
        )
