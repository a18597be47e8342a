"""Compile a poker game into a :class:`PublicTree` by walking its public tree only.

The generic compiler (:func:`~subgame.tree.enumeration.enumerate_game`) enumerates every history,
which a hold'em river (1326 × 1225 hole-card pairs per public node) makes infeasible. Here
the walk visits betting sequences × public board cards; the private states of a public node
are all hole-card combinations disjoint from its board, in one array per board, and the
terminals get the fold and showdown operators of :mod:`.poker_operators`.

The result has exactly the layout ``enumerate_game`` gives where both run: the same nodes in
the same order, public keys, private-state labels and order, information sets and action
slots, so strategies, checkpoints and values are interchangeable. That layout is the order
in which the generic compiler first meets each object while it walks histories in the
order of the deal (player 0's hand, then player 1's, each in ascending deal action id):

* hands holding a board card are absent from a node (no history reaches them);
* player 0's hands are in deal order; player 1's hand ``h`` comes at the position of its
  first history, i.e. sorted by (the lowest hand of player 0 disjoint from ``h`` and the
  board, ``h``), which is deal order rotated, not deal order;
* a chance node's children come in the order of their first histories: by (the lowest
  pair of hands disjoint from the new board, the deal's action id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from ..allocator import release_freed_memory
from ..errors import GameDefinitionError
from ..games.base import CHANCE, TERMINAL, game_fingerprint
from ..games.poker import PokerGame, PokerState
from ..games.poker.spec import PokerSpec
from . import kernels
from . import poker_layout as pl
from .estimate import estimate_size
from .isomorphism import MirrorEdges, SuitClasses, canonical_deals, inverse_hands
from .operators import SparseTerminal
from .poker_layout import PokerLayout
from .poker_operators import (
    CardRemoval,
    FoldGroup,
    FoldTerminal,
    ShowdownGroup,
    ShowdownTerminal,
    StateGrid,
    colex_rank,
    disjoint_pairs,
    strength_keys,
)
from .poker_states import public_children, public_root
from .public_tree import (
    CHANCE_NODE,
    DECISION,
    LEAF,
    TERMINAL_NODE,
    BlockSequence,
    HistoryAtNode,
    LeafHistories,
    PlayerArrays,
    PublicTree,
    Repeat,
    StateIndex,
    Taken,
    ValueOperator,
    index_dtype,
)
from .size import SizeBudget

#: Private states from which a compiled tree hands its builder's freed memory back (:func:`release_freed_memory`).
TRIM_STATES = 1 << 16


def compile_poker(
    game: PokerGame,
    *,
    sparse_threshold: int = 64,
    public_state: Sequence[str] | None = None,
    public_states: Sequence[Sequence[str]] | None = None,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_cards: Sequence[int] | None = None,
    board: Sequence[int] | None = None,
    leaf_histories: bool = False,
    max_bytes: int | None = None,
    suits: SuitClasses | None = None,
    before_deal: bool = False,
) -> PublicTree:
    """Compile ``game`` (or a part of it) into a public tree without enumerating histories.

    Args:
        game: a game of the poker family.
        sparse_threshold: boards with at most this many hands per player get their
            terminals as entries of one :class:`SparseTerminal` (faster for small ``n``);
            larger boards get the O(n log n) fold and showdown operators.
        public_state: root the tree at this public observation sequence, as
            :func:`~subgame.tree.enumeration.enumerate_game` does.
        public_states: several roots: a forest of subgames, one root each, in this order.
        depth_limit: public depth (relative to the root) at which non-terminal nodes
            become leaves.
        chance_limit: non-terminal nodes below this many public chance nodes become leaves.
        before_deal: with ``chance_limit``: the public chance node that would deal the limit's cards is the leaf
            itself (its private states are the hands before that deal), not each of its children.
        leaf_cards: with ``chance_limit``: the chance nodes whose children are leaves keep only
            the deals of these cards (a sample of the next round's cards, as depth-limited
            leaf values sum them); chance probabilities stay those of the full game.
        board: keep only the chance outcomes that deal these cards, in dealing order (any
            order within one round); a prefix of the board restricts the first deals
            only. Chance probabilities stay those of the full game, so values are the
            board's share of the game's value. This is how a hold'em river subgame with
            one fixed board is compiled.
        max_bytes: refuse, before allocating, a tree estimated to need more (at
            :data:`~subgame.tree.size.BYTES_PER_PRIVATE_STATE` per private state, checked
            as the public states are walked); ``None``: the memory available now.
        leaf_histories: store the histories of each depth-limit leaf in ``leaf_data``
            (one Python object per history at the leaves, as costly as the whole cut-off
            part of the game: off unless leaf values are computed by walking histories).
        suits: interchangeable suits (:func:`~subgame.tree.isomorphism.suit_classes`, which
            checks the board and the ranges): each chance node keeps one child per class of
            suit-equivalent deals (:mod:`~subgame.tree.isomorphism`). The tree then differs
            from the generic compiler's and is valid for suit-symmetric strategies and root
            reaches only. ``None`` or trivial classes: the plain tree.

    Raises:
        GameDefinitionError: not a poker game, a bad argument, or a public state or board
            that no history reaches.
    """
    if not isinstance(game, PokerGame):
        raise GameDefinitionError(f"compile_poker needs a PokerGame, got {type(game).__name__} (use compile_game)")
    if sparse_threshold < 0:
        raise GameDefinitionError(f"sparse_threshold must be non-negative, got {sparse_threshold}")
    if depth_limit is not None and depth_limit < 0:
        raise GameDefinitionError(f"depth_limit must be non-negative, got {depth_limit}")
    if public_state is not None and public_states is not None:
        raise GameDefinitionError("give either public_state or public_states, not both")
    keys = [tuple(k) for k in public_states] if public_states is not None else [tuple(public_state or ())]
    budget = SizeBudget.of(game.name, max_bytes)
    budget.check_hands(comb(game.spec.deck_size, game.spec.hole_cards), game.spec.deck_size)
    if public_state is None and public_states is None and board is None and depth_limit is None and chance_limit is None:
        est = estimate_size(game)  # the whole game: its size is known before the walk
        budget.check_estimate(est.public_nodes, sum(est.private_states), est.tree_bytes)
    deck = _Deck.of(game)
    fixed = _check_board(game, board)
    if leaf_cards is not None and chance_limit is None:
        raise GameDefinitionError("leaf_cards restricts the deal at a chance limit: give chance_limit too")
    if before_deal and (chance_limit is None or chance_limit < 1 or leaf_cards is not None):
        raise GameDefinitionError("before_deal puts the leaves at the chance node of a chance limit >= 1: give "
                                  "chance_limit, and no leaf_cards (no card of that deal is dealt)")
    roots = [public_root(game, key, fixed) for key in keys]
    builder = _Builder(game, deck, depth_limit, fixed, leaf_histories, sparse_threshold, chance_limit, budget,
                       None if suits is None or suits.trivial or fixed is not None else suits,
                       None if leaf_cards is None else frozenset(int(c) for c in leaf_cards), before_deal)
    tree = builder.run(roots)
    del builder  # with its records of every node and board, which the tree does not keep
    if sum(p.num_states for p in tree.players) >= TRIM_STATES:  # a search's small trees: not worth a trim each
        release_freed_memory()
    return tree


# -- hands and boards ------------------------------------------------------------------------
def deal_hands(game: PokerGame) -> np.ndarray:
    """[H, k] every hole-card combination of the deck, ascending cards, in the deal's action order."""
    return _Deck.of(game).cards


def state_hands(game: PokerGame, tree: PublicTree, player: int) -> np.ndarray:
    """[G] the row of :func:`deal_hands` holding each of ``player``'s private states' hole cards, from their labels
    (any tree of ``game``, from either compiler: a label names the hole cards, poker's only private observation)."""
    index = {name: i for i, name in enumerate(_Deck.of(game).names)}

    def rows(labels: Sequence[str]) -> np.ndarray:
        return np.array([index[label.split("/")[0]] for label in labels], dtype=np.int64)

    labels = tree.players[player].label
    try:
        return labels.mapped(rows) if isinstance(labels, BlockSequence) else rows(labels)  # a block: one board's hands
    except KeyError as exc:
        raise GameDefinitionError(f"{game.name}: private state {exc.args[0]!r} is not a hand of this game") from None


def board_hands(game: PokerGame, boards: Sequence[Sequence[int]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per board, per player [n] the :func:`deal_hands` row of each private state at a public node with that board
    (without labels: a node's private states come in an order its board alone fixes, in every tree of ``game``)."""
    deck = _Deck.of(game)
    return [(b.hands[b.order[0]], b.hands[b.order[1]]) for b in (_Board.of(deck, tuple(sorted(int(c) for c in cards))) for cards in boards)]


@dataclass(frozen=True, eq=False)
class _Deck:
    """Every hole-card combination of the deck, in the deal's action-id (colex) order."""

    size: int
    hole: int
    cards: np.ndarray  #: [H, k] cards of each hand, ascending
    has: np.ndarray  #: [H, D] bool, hand holds card
    names: np.ndarray  #: [H] object, the hand's name (its private-state label)
    identity: np.ndarray  #: [H] intp 0 .. H - 1, read-only: every board's player-0 order is a view of it

    @staticmethod
    def of(game: PokerGame) -> _Deck:
        """The game's deck, made once per deck (board sampling compiles a forest of flops every pass)."""
        deck = _DECKS.get(game.spec)
        if deck is None:
            deck = _DECKS[game.spec] = _Deck._make(game)
        return deck

    @staticmethod
    def _make(game: PokerGame) -> _Deck:
        D, k = game.spec.deck_size, game.spec.hole_cards
        lex = np.array(list(combinations(range(D), k)), dtype=np.int64).reshape(-1, k)
        cards = np.empty_like(lex)
        cards[colex_rank(lex)] = lex
        has = np.zeros((len(cards), D), dtype=bool)
        has[np.arange(len(cards))[:, None], cards] = True
        names = np.array([game.cards_str(tuple(int(c) for c in h)) for h in cards], dtype=object)
        identity = np.arange(len(cards), dtype=np.intp)
        for shared in (cards, has, names, identity):  # every tree of the deck reads them
            shared.flags.writeable = False
        return _Deck(D, k, cards, has, names, identity)


#: The decks made so far, by the game's spec (its cards' names included).
_DECKS: dict[PokerSpec, _Deck] = {}


def _lowest(avail: np.ndarray, count: int) -> np.ndarray:
    """[M, count] the ``count`` lowest cards of each row's available cards [M, D] (bool)."""
    sel = avail & (np.cumsum(avail, axis=1) <= count)
    return np.nonzero(sel)[1].reshape(-1, count)


#: Boards a deck keeps, with their card removal, across compiles: a search compiles thousands of small trees on the
#: same few boards (a river board of the 52-card deck holds about 25 KB of them).
BOARD_CACHE = 256


@dataclass(frozen=True, eq=False)
class _Board:
    """The hands of one board and their order at each player's private states."""

    cards: tuple[int, ...]  #: the board, sorted
    hands: np.ndarray  #: [n] hands disjoint from the board, ascending (the canonical order)
    order: tuple[np.ndarray, np.ndarray]  #: per player [n] canonical positions in private-state order
    local: tuple[np.ndarray, np.ndarray]  #: per player [n] private-state position of each canonical hand
    labels: tuple[Taken[str], Taken[str]]  #: per player, labels in private-state order (the deck's names, taken)

    @staticmethod
    @lru_cache(maxsize=BOARD_CACHE)
    def of(deck: _Deck, cards: tuple[int, ...]) -> _Board:
        """The board's hands (read-only: a deck's recent boards are shared by the trees compiled on them)."""
        on_board = np.zeros(deck.size, dtype=bool)
        on_board[list(cards)] = True
        hands = np.flatnonzero(~deck.has[:, on_board].any(axis=1))
        first_opponent = colex_rank(_lowest(~(deck.has[hands] | on_board), deck.hole))
        order1 = np.lexsort((hands, first_opponent))
        order0 = deck.identity[: hands.size]  # player 0's private states come in canonical order
        local1 = np.empty(order1.size, dtype=pl.row_dtype(order1.size))  # a flop spot keeps one per board
        local1[order1] = np.arange(order1.size)
        labels: tuple[Taken[str], Taken[str]] = (Taken(deck.names, hands[order0]), Taken(deck.names, hands[order1]))
        for shared in (hands, order1, local1):
            shared.flags.writeable = False
        return _Board(cards, hands, (order0, order1), (order0, local1), labels)


@lru_cache(maxsize=BOARD_CACHE)
def _removal_of(spec: PokerSpec, deck: _Deck, cards: tuple[int, ...], showdown: bool) -> CardRemoval:
    """The card-removal structure of a board's hands, with their strengths where it has a showdown."""
    hands = _Board.of(deck, cards).hands
    hand_cards = deck.cards[hands]
    strength = None
    if showdown:
        board = np.broadcast_to(np.array(cards, dtype=np.int64), (hands.size, len(cards)))
        strength = strength_keys(np.hstack([hand_cards, board]), spec.num_ranks, spec.num_suits)
    removal = CardRemoval.build(hand_cards, strength)
    for shared in (removal.hand_cards, removal.strength):
        shared.flags.writeable = False
    return removal


def _joined(parts: Sequence[np.ndarray], k: int | None = None, dtype: type[np.integer[Any]] = np.int64) -> np.ndarray:
    """The parts one after the other as one contiguous array of ``dtype`` ([0] or [0, k] where there are none)."""
    out = np.concatenate(parts) if parts else np.zeros((0,) if k is None else (0, k))
    return np.ascontiguousarray(out, dtype=dtype)


def _rows(parts: Sequence[np.ndarray], hands: int) -> np.ndarray:
    """Rows of nodes or hands of boards (each below a board's hand count, at most ``hands``) one after the other, as
    the passes read them (:func:`~.poker_layout.row_dtype`)."""
    return _joined(parts, dtype=pl.row_dtype(hands))


def _check_board(game: PokerGame, board: Sequence[int] | None) -> tuple[int, ...] | None:
    if board is None:
        return None
    spec = game.spec
    cards = tuple(int(c) for c in board)
    if len(set(cards)) != len(cards) or any(not 0 <= c < spec.deck_size for c in cards):
        raise GameDefinitionError(f"{game.name}: board {list(board)} must be distinct cards in 0..{spec.deck_size - 1}")
    if len(cards) > sum(spec.board_cards):
        raise GameDefinitionError(
            f"{game.name}: board {list(board)} has {len(cards)} cards but the game deals only {sum(spec.board_cards)}"
        )
    return cards


@dataclass
class _Node:
    state: PokerState
    key: tuple[str, ...]
    prob: float  # chance probability of every history of the node
    parent: int
    slot: int  # the parent actor's action slot leading here, -1 after chance
    board: _Board
    start: tuple[int, int] = (0, 0)  # first private state of each player
    inf_start: int = -1  # first information set, at decision nodes
    chances: int = 0  # public chance nodes above this one
    actions: tuple[int, ...] = ()
    names: tuple[str, ...] = ()


class _Builder:
    """The breadth-first walk over public states and the arrays it fills."""

    def __init__(self, game: PokerGame, deck: _Deck, depth_limit: int | None, fixed: tuple[int, ...] | None,
                 leaf_histories: bool, sparse_threshold: int, chance_limit: int | None = None,
                 budget: SizeBudget | None = None, suits: SuitClasses | None = None, leaf_cards: frozenset[int] | None = None,
                 before_deal: bool = False):
        self.game = game
        self.before_deal = before_deal
        self.leaf_cards = leaf_cards
        self.suits = suits
        self.folded: list[tuple[int, _Node, np.ndarray]] = []  # (chance node, canonical child, card map onto it)
        self.budget = budget
        self.sparse_entries = 0  # payoff-matrix entries of terminals small enough to be one sparse matrix
        self.deck = deck
        self.depth_limit = depth_limit
        self.chance_limit = chance_limit
        self.fixed = fixed
        self.leaf_histories = leaf_histories
        self.sparse_threshold = sparse_threshold
        self.boards: dict[tuple[int, ...], _Board] = {}
        self.nodes: list[_Node] = []
        self.kind: list[int] = []
        self.actor: list[int] = []
        self.depth: list[int] = []
        self.count = [0, 0]
        self.infosets = [0, 0]
        self.level_bounds: list[list[int]] = [[0], [0]]
        self.removals: dict[tuple[int, ...], CardRemoval] = {}  # per board with terminals, filled by _terminals

    def _board(self, cards: tuple[int, ...]) -> _Board:
        key = tuple(sorted(cards))
        b = self.boards.get(key)
        if b is None:
            b = self.boards[key] = _Board.of(self.deck, key)
        return b

    def run(self, roots: list[tuple[PokerState, tuple[str, ...], float]]) -> PublicTree:
        level = [_Node(root, key, prob, -1, -1, self._board(root.board)) for root, key, prob in roots]
        depth = 0
        while level:
            first = len(self.nodes)
            for node in level:
                self._add(node, depth)
            for p in range(2):
                self.level_bounds[p].append(self.count[p])
            nxt: list[_Node] = []
            for n in range(first, len(self.nodes)):
                if self.kind[n] in (DECISION, CHANCE_NODE):
                    nxt.extend(self._children(n))
            level = nxt
            depth += 1
        return self._finish()

    def _add(self, node: _Node, depth: int) -> None:
        game = self.game
        who = game.actor(node.state)
        if who == TERMINAL:
            kind = TERMINAL_NODE
        elif (self.depth_limit is not None and depth >= self.depth_limit) or (
                self.chance_limit is not None and node.chances + (self.before_deal and who == CHANCE) >= self.chance_limit):
            kind = LEAF
        else:
            kind = CHANCE_NODE if who == CHANCE else DECISION
        node.start = (self.count[0], self.count[1])
        for p in range(2):
            self.count[p] += node.board.hands.size
        if kind == TERMINAL_NODE and node.board.hands.size <= self.sparse_threshold:
            left = self.deck.size - len(node.board.cards)  # each hand meets the opponent's hands disjoint from it
            self.sparse_entries += node.board.hands.size * comb(left - self.deck.hole, self.deck.hole)
        if self.budget is not None:
            self.budget.check_states(self.count[0] + self.count[1], len(self.nodes) + 1, self.sparse_entries)
        if kind == DECISION:
            node.inf_start = self.infosets[who]
            self.infosets[who] += node.board.hands.size
            node.actions = tuple(game.legal_actions(node.state))
            if not node.actions:
                raise GameDefinitionError(f"{game.name}: a non-terminal state has no legal action")
            node.names = tuple(game.action_name(node.state, a) for a in node.actions)
        self.nodes.append(node)
        self.kind.append(kind)
        self.actor.append(who if kind == DECISION else -1)
        self.depth.append(depth)

    def _children(self, n: int) -> list[_Node]:
        node = self.nodes[n]
        kids = public_children(self.game, node.state, self.fixed)
        if self.kind[n] == DECISION:
            if len({o for _, o, _ in kids}) != len(kids):
                raise GameDefinitionError(f"{self.game.name}: two actions at public state {list(node.key)!r} have the same name")
            return [_Node(c, node.key + (o,), node.prob, n, slot, node.board, chances=node.chances)
                    for slot, (c, o, _) in enumerate(kids)]
        # chance: children in the order of their first history (see the module docstring)
        if self.leaf_cards is not None and self.chance_limit is not None and node.chances + 1 >= self.chance_limit:
            old = len(node.state.board)
            kids = [kid for kid in kids if self.leaf_cards.issuperset(kid[0].board[old:])]
        k = self.deck.hole
        taken = np.zeros((len(kids), self.deck.size), dtype=bool)
        for i, (c, _, _) in enumerate(kids):
            taken[i, list(c.board)] = True
        low = _lowest(~taken, 2 * k)
        order = np.lexsort((np.arange(len(kids)), colex_rank(low[:, k:]), colex_rank(low[:, :k])))
        out = [
            _Node(kids[i][0], node.key + (kids[i][1],), node.prob * kids[i][2], n, -1, self._board(kids[i][0].board),
                  chances=node.chances + 1)
            for i in order
        ]
        return out if self.suits is None else self._fold_isomorphic(n, out, self.suits)

    def _fold_isomorphic(self, n: int, kids: list[_Node], suits: SuitClasses) -> list[_Node]:
        """The canonical children only; the others are remembered as (node, canonical child, card map)."""
        board = self.nodes[n].state.board
        deals = [kid.state.board[len(board):] for kid in kids]
        folds = canonical_deals(suits, board, deals)
        self.folded.extend((n, kids[j], perm) for j, perm in folds if perm is not None)
        return [kid for kid, (_, perm) in zip(kids, folds) if perm is None]

    # -- arrays ------------------------------------------------------------------------------
    def _finish(self) -> PublicTree:
        game = self.game
        nodes = self.nodes
        terminals = self._terminals((self.count[0], self.count[1]))
        layout = self._layout()
        passes = LEAF not in self.kind and self.deck.hole <= kernels.MAX_HAND_CARDS
        players = [self._player(p, layout, lazy=passes) for p in range(2)]
        leaf_data = LeafHistories()
        if self.leaf_histories:
            leaf_data = LeafHistories({n: self._histories(n) for n, kind in enumerate(self.kind) if kind == LEAF})
        return PublicTree(
            game_id=game_fingerprint(game),
            game_name=game.name,
            kind=np.asarray(self.kind, dtype=np.int8),
            actor=np.asarray(self.actor, dtype=np.int8),
            parent=np.asarray([nd.parent for nd in nodes], dtype=np.int64),
            depth=np.asarray(self.depth, dtype=np.int64),
            public_key=tuple(nd.key for nd in nodes),
            players=(players[0], players[1]),
            terminals=terminals,
            utility_bound=float(game.utility_bound()),
            leaf_data=leaf_data,
            mirrors=self._mirror_edges(layout, lazy=passes) if self.folded else None,
            layout=layout if passes else None,
        )

    def _layout(self) -> PokerLayout:
        """The tree as betting nodes × hand rows (:mod:`.poker_layout`); its passes need no leaves and hands of at most two cards."""
        nodes = self.nodes
        boards = {cards: i for i, cards in enumerate(self.removals)}
        first_row = np.cumsum([0] + [r.num_hands for r in self.removals.values()])
        ladders = [r.ladder_arrays() for r in self.removals.values()]
        ties_at = np.cumsum([0] + [ladder[2].size for ladder in ladders])
        table = np.full((len(nodes), pl.COLUMNS), -1, dtype=np.int64)
        table[:, pl.KIND] = self.kind
        table[:, pl.ACTOR] = self.actor
        table[:, pl.SIZE] = [nd.board.hands.size for nd in nodes]
        table[:, pl.INFOSET] = [nd.inf_start for nd in nodes]
        table[:, pl.PARENT] = [nd.parent for nd in nodes]
        parent = table[:, pl.PARENT]
        child = np.flatnonzero(parent >= 0)  # breadth-first: each node's children are consecutive
        first, last = np.full(len(nodes), len(nodes)), np.zeros(len(nodes), dtype=np.int64)
        np.minimum.at(first, parent[child], child)
        np.maximum.at(last, parent[child], child + 1)
        table[:, pl.CHILD_LO], table[:, pl.CHILD_HI] = np.minimum(first, last), last
        maps: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
        at: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        size = 0
        term: list[int] = []
        for n, nd in enumerate(nodes):
            if nd.parent >= 0 and nd.slot < 0:  # after chance: the parent's row of each of the node's rows
                up = nodes[nd.parent].board
                key = (up.cards, nd.board.cards)
                if key not in at:
                    at[key] = size
                    pos = np.searchsorted(up.hands, nd.board.hands)
                    for p in range(2):
                        maps[p].append(up.local[p][pos[nd.board.order[p]]])
                    size += nd.board.hands.size
                table[n, pl.MAP] = at[key]
            if self.kind[n] == TERMINAL_NODE:
                table[n, pl.TERMINAL], table[n, pl.BOARD] = len(term), boards[nd.board.cards]
                table[n, pl.SHOWDOWN] = int(nd.state.folded < 0)
                term.append(n)
        rows = table[:, pl.SIZE].copy()  # in each node's subtree
        for n in range(len(nodes) - 1, 0, -1):  # children come after their parents
            if parent[n] >= 0:
                rows[parent[n]] += rows[n]
        table[:, pl.ROWS] = rows
        mirror = self._mirror_entries(table, maps, size)
        term_value = np.zeros((len(term), 2))
        folds = [i for i, n in enumerate(term) if nodes[n].state.folded >= 0]
        shows = [i for i, n in enumerate(term) if nodes[n].state.folded < 0]
        if folds:  # as FoldGroup and ShowdownGroup have them
            payoff = np.array([self.game.utility(nodes[term[i]].state) for i in folds], dtype=np.float64)
            term_value[folds, 0] = self._chance([term[i] for i in folds]) * payoff
        if shows:
            contrib = np.array([nodes[term[i]].state.contrib for i in shows], dtype=np.float64)
            c = self._chance([term[i] for i in shows])
            term_value[shows, 0], term_value[shows, 1] = c * contrib[:, 1], c * -contrib[:, 0]
        removal = list(self.removals.values())
        local = [[self.boards[cards].local[p] for cards in self.removals] for p in range(2)]
        by_matrix = [int(self.boards[cards].hands.size <= self.sparse_threshold) for cards in self.removals]  # as _terminals
        k, most = self.deck.hole, max((r.num_hands for r in removal), default=0)
        return PokerLayout(
            node=table,
            board=np.array([[r.num_hands, first_row[i], ties_at[i], ladders[i][2].size - 1, by_matrix[i]]
                            for i, r in enumerate(removal)], dtype=np.int64).reshape(-1, 5),
            hand_cards=_joined([r.hand_cards for r in removal], k, np.uint8),
            ladder_cards=_joined([ladder[1] for ladder in ladders], k, np.uint8),
            local=np.stack([_rows(local[p], most) for p in range(2)]),
            ladder_local=np.stack([_rows([loc[ladder[0]] for loc, ladder in zip(local[p], ladders)], most) for p in range(2)]),
            hand_of_row=np.stack([_rows([np.argsort(loc) for loc in local[p]], most) for p in range(2)]),
            rank=_rows([r.strength for r in removal], most),
            ties=_joined([ladder[2] for ladder in ladders]),
            maps=np.stack([_rows(maps[p], most) for p in range(2)]),
            mirror=mirror,
            term=term_value,
            cards=self.deck.size,
            roots=int(np.sum(parent < 0)),
        )

    def _mirror_entries(self, table: np.ndarray, maps: tuple[list[np.ndarray], list[np.ndarray]], size: int) -> np.ndarray:
        """[E, 2] per deal left out by suit isomorphism (in :meth:`_mirrors`' order): its canonical child and the offset
        in ``maps`` (extended here) of the chance node's row that each of the child's rows adds to; the node's
        ``MIRROR_LO``/``MIRROR_HI`` columns set."""
        index = {id(nd): i for i, nd in enumerate(self.nodes)}
        at: dict[tuple[tuple[int, ...], tuple[int, ...], bytes], int] = {}
        out = np.zeros((len(self.folded), 2), dtype=np.int64)
        table[:, pl.MIRROR_LO] = table[:, pl.MIRROR_HI] = 0
        for e, (n, kid, perm) in enumerate(self.folded):
            up, b = self.nodes[n].board, kid.board
            key = (up.cards, b.cards, perm.tobytes())
            if key not in at:
                at[key] = size
                pos = np.searchsorted(up.hands, inverse_hands(perm, self.deck.cards[b.hands]))
                for p in range(2):
                    rows = np.empty(b.hands.size, dtype=np.int64)
                    rows[b.local[p]] = up.local[p][pos]
                    maps[p].append(rows)
                size += b.hands.size
            out[e] = index[id(kid)], at[key]
            if table[n, pl.MIRROR_LO] == table[n, pl.MIRROR_HI]:
                table[n, pl.MIRROR_LO] = e
            table[n, pl.MIRROR_HI] = e + 1
        return out

    @staticmethod
    def _mirror_edges(layout: PokerLayout, lazy: bool) -> tuple[MirrorEdges, MirrorEdges]:
        """Each player's value edges from canonical children to the hands they stand for, now or (``lazy``) when first used."""
        edges = []
        for p in range(2):
            make = partial(pl.mirror_edges, layout, p)
            edges.append(MirrorEdges(make=make) if lazy else MirrorEdges(make()))
        return edges[0], edges[1]

    def _player(self, p: int, layout: PokerLayout, lazy: bool) -> PlayerArrays:
        """Player ``p``'s arrays; the per-state index arrays come from the layout, now or (``lazy``) when first used.

        Labels and action names are not stored per private state or information set: a
        :class:`BlockSequence` computes them from the node's board and position on demand.
        """
        nodes = self.nodes
        acting = [n for n, a in enumerate(self.actor) if a == p]
        A = max((len(nodes[n].actions) for n in acting), default=1)
        G, n_inf = self.count[p], self.infosets[p]
        make = partial(pl.state_arrays, layout, p, A, index_dtype(G, len(nodes), n_inf * A), n_inf)
        states = StateIndex(G, make=make) if lazy else StateIndex(G, arrays=make())
        board_id = {cards: i for i, cards in enumerate(self.boards)}
        # the action ids are the same at every information set of a public node: one row per acting node
        ids = np.full((len(acting), A), -1, dtype=index_dtype(max((max(nodes[n].actions) for n in acting), default=0) + 1))
        for r, n in enumerate(acting):
            nd = nodes[n]
            ids[r, : len(nd.actions)] = nd.actions
        boards = list(self.boards.values())
        rows = [(nodes[n].names, nodes[n].board.hands.size) for n in acting]  # the action names at each acting node's rows
        names = {key: i for i, key in enumerate(dict.fromkeys(rows))}  # each distinct one once, numbered
        return PlayerArrays(
            states=states,
            label=BlockSequence([nd.start[p] for nd in nodes] + [G], [board_id[nd.board.cards] for nd in nodes],
                                [b.labels[p] for b in boards]),
            level_bounds=np.asarray(self.level_bounds[p], dtype=np.int64),
            stored_legal=None,  # ids >= 0 row by row, expanded when first asked
            action_rows=ids,
            action_names=BlockSequence([nodes[n].inf_start for n in acting] + [n_inf], [names[r] for r in rows],
                                       [Repeat(*key) for key in names]),
            action_row_bounds=np.asarray([nodes[n].inf_start for n in acting] + [n_inf], dtype=np.int64),
        )

    def _removal(self, b: _Board, showdown: bool) -> CardRemoval:
        """The board's card-removal structure, with the hands' strengths if it has a showdown."""
        return _removal_of(self.game.spec, self.deck, b.cards, showdown)

    def _terminals(self, num_states: tuple[int, int]) -> tuple[ValueOperator, ...]:
        by_board: dict[tuple[int, ...], tuple[list[int], list[int]]] = {}  # fold nodes, showdown nodes
        for n, kind in enumerate(self.kind):
            if kind == TERMINAL_NODE:
                nd = self.nodes[n]
                fold_nodes, show_nodes = by_board.setdefault(nd.board.cards, ([], []))
                (fold_nodes if nd.state.folded >= 0 else show_nodes).append(n)
        small: list[FoldGroup | ShowdownGroup] = []
        folds: list[FoldGroup] = []
        shows: list[ShowdownGroup] = []
        for cards, (fold_nodes, show_nodes) in by_board.items():
            b = self.boards[cards]
            removal = self.removals[cards] = self._removal(b, bool(show_nodes))
            sparse = b.hands.size <= self.sparse_threshold
            if fold_nodes:
                payoff = np.array([self.game.utility(self.nodes[n].state) for n in fold_nodes], dtype=np.float64)
                fold = FoldGroup(removal, self._states(fold_nodes, b), self._chance(fold_nodes) * payoff)
                (small if sparse else folds).append(fold)
            if show_nodes:
                contrib = np.array([self.nodes[n].state.contrib for n in show_nodes], dtype=np.float64)
                c = self._chance(show_nodes)
                # PokerGame.utility: the stronger hand wins the other player's contribution
                show = ShowdownGroup(removal, self._states(show_nodes, b), c * contrib[:, 1], c * -contrib[:, 0])
                (small if sparse else shows).append(show)
        ops: list[ValueOperator] = []
        if small or not (folds or shows):  # the sweeps need at least one operator
            parts = [g.entries() for g in small] or [(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))]
            g0, g1, v = (np.concatenate(x) for x in zip(*parts))
            ops.append(SparseTerminal.from_entries(g0, g1, v, num_states))
        if folds:
            ops.append(FoldTerminal(tuple(folds), num_states))
        if shows:
            ops.append(ShowdownTerminal(tuple(shows), num_states))
        return tuple(ops)

    def _chance(self, nodes: list[int]) -> np.ndarray:
        return np.array([self.nodes[n].prob for n in nodes], dtype=np.float64)

    def _states(self, nodes: list[int], b: _Board) -> tuple[StateGrid, StateGrid]:
        """Per player [n, T]: the private state of canonical hand i at each node."""
        starts = np.array([self.nodes[n].start for n in nodes], dtype=np.intp)
        return StateGrid(b.local[0], starts[:, 0].copy()), StateGrid(b.local[1], starts[:, 1].copy())

    def _histories(self, n: int) -> tuple[HistoryAtNode, ...]:
        """The node's histories in the generic compiler's order: player 0's hand, then player 1's."""
        nd = self.nodes[n]
        b, deck = nd.board, self.deck
        cards = deck.cards[b.hands]
        i, j = disjoint_pairs(cards)  # ascending (i, j): player 0's hand first
        hole = [tuple(int(c) for c in h) for h in cards]
        return tuple(
            HistoryAtNode(nd.state._replace(hole=(hole[a], hole[c])), nd.prob,
                          (nd.start[0] + int(a), nd.start[1] + int(b.local[1][c])))
            for a, c in zip(i.tolist(), j.tolist())
        )
