"""Multi-valued leaves at the end of a poker game's first betting round, before the flop is dealt
(Brown, Sandholm & Amos 2018, App. A: an off-tree preflop size added to the abstraction and the
whole preflop solved again).

A preflop subgame compiled with ``chance_limit=1, before_deal=True`` has a leaf where each
betting sequence reaches the flop's deal. Below it the blueprint plays every later round: the
re-solver ρ her blueprint, the opponent one of K continuations (the bias approach of
:mod:`.poker_leaf`), the leaf mapped to the blueprint node of the most similar sequence and
valued as a fraction of the pot. A pair of hands meets every board below, so its value is an
average over boards of the blueprint's play at the hands' bucket sequences
(:func:`~.poker_leaf.sequence_tables`): :class:`PreflopTable` keeps, per blueprint node, that
average for each pair of the blueprint's first-round buckets (the 169 lossless classes in
hold'em; each hand where the cards are exact), over every board of a small deck or a seeded
sample of boards with one pair of hands per bucket pair on each (the paper's rollouts sample
too). The products of a leaf never form the hands' pair matrix: the opponent's reach summed
per bucket and per card gives, by inclusion and exclusion, each hand's sum over the hands
that do not share a card with it (:func:`blocked_products`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np

from ..blueprint.actions import DECISION, TERMINAL
from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import DealAbstraction
from ..errors import SubgameError
from ..games.poker.game import PokerGame
from ..tree.poker_compile import board_hands, deal_hands
from ..tree.poker_operators import strength_keys
from ..tree.poker_states import public_root
from ..tree.public_tree import LEAF, PublicTree
from .leaf import BoundValues
from .poker_leaf import CONTINUATIONS, _pot_scale, sequence_tables

#: hand pairs over all boards above which :meth:`PreflopTable.build` refuses to enumerate (give ``boards``)
MAX_ENUMERATED = 20_000_000


@dataclass(frozen=True, eq=False)
class _Deals:
    """The (hand, hand, board) deals a table averages over: each one's bucket pair and bucket sequences."""

    classes: np.ndarray  #: [H] each hand's first-round bucket (:func:`~subgame.tree.poker_compile.deal_hands` order)
    pair: np.ndarray  #: [N] c0 · C + c1, the first-round buckets
    seq: tuple[np.ndarray, np.ndarray]  #: per player [N] the row of her bucket sequence in ``cover``
    outcome: np.ndarray  #: [N] 1 player 0 wins the showdown, 2 player 1 wins, 3 a tie (the tables' index)
    count: np.ndarray  #: [C · C] deals per bucket pair
    cover: np.ndarray  #: [U, R] every bucket sequence (rounds 1 to the last) a deal has


def _boards(game: PokerGame, boards: int | None, seed: int) -> list[tuple[int, ...]]:
    """Every full board in dealing order (one ordering per round's cards), or ``boards`` of them drawn uniformly."""
    spec = game.spec
    deck = spec.deck_size
    if boards is not None:
        rng = np.random.default_rng(seed)
        drawn = [rng.permutation(deck)[: sum(spec.board_cards)] for _ in range(boards)]
        out: list[tuple[int, ...]] = []
        for cards in drawn:
            at, board = 0, tuple[int, ...]()
            for n in spec.board_cards:
                board += tuple(sorted(int(c) for c in cards[at : at + n]))
                at += n
            out.append(board)
        return out
    out = [tuple[int, ...]()]
    for n in spec.board_cards:
        out = [b + c for b in out for c in combinations([x for x in range(deck) if x not in b], n)]
    return out


#: bytes a deal takes in :class:`_Deals` (its pair, both sequences' rows, its outcome) and while it is made
DEAL_BYTES = 48


def _deals(game: PokerGame, abstraction: DealAbstraction, boards: int | None, seed: int,
           max_bytes: int | None) -> _Deals:
    spec = game.spec
    hands = deal_hands(game)
    H, k = hands.shape
    classes = np.asarray(abstraction.buckets(0, hands, np.zeros((H, 0), np.int64)), np.int64)
    C = int(abstraction.num_buckets[0])
    if boards is None:
        rest = spec.deck_size - sum(spec.board_cards)
        total = int(np.prod([comb(spec.deck_size - sum(spec.board_cards[:r]), n) for r, n in
                             enumerate(spec.board_cards)])) * comb(rest, k) * comb(rest - k, k)
        if total > MAX_ENUMERATED:
            raise SubgameError(f"{game.name}: every board with every pair of hands is {total:,} deals; sample boards")
    else:
        total = boards * C * C
    if max_bytes is not None and total * DEAL_BYTES > max_bytes:
        raise SubgameError(f"{game.name}: {total:,} deals of the preflop's leaves would take about "
                           f"{total * DEAL_BYTES / 2**20:,.0f} MiB, more than {max_bytes / 2**20:,.0f} MiB; sample fewer "
                           "boards")
    rng = np.random.default_rng((seed, 1))
    members = [np.flatnonzero(classes == c) for c in range(C)]
    width = max(m.size for m in members)
    table = np.stack([np.resize(m, width) for m in members])  # [C, width] a class's hands, repeated to the width
    sizes = np.array([m.size for m in members])
    dealt = np.cumsum(spec.board_cards)

    def apart(h0: np.ndarray, h1: np.ndarray) -> np.ndarray:
        return ~(hands[h0][:, :, None] == hands[h1][:, None, :]).reshape(h0.size, -1).any(axis=1)

    if boards is None:  # every pair of hands that share no card, the same on every board
        h0, h1 = np.divmod(np.arange(H * H), H)
        keep = apart(h0, h1)
        every = (h0[keep], h1[keep])
    pair: list[np.ndarray] = []
    outcome: list[np.ndarray] = []
    seqs: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for board in _boards(game, boards, seed):
        if boards is None:  # every pair of hands off the board
            h0, h1 = every
        else:  # one pair of hands a bucket pair, drawn uniformly (those that share a card are dropped)
            c0, c1 = np.divmod(np.arange(C * C), C)
            h0 = table[c0, (rng.random(c0.size) * sizes[c0]).astype(np.int64)]
            h1 = table[c1, (rng.random(c1.size) * sizes[c1]).astype(np.int64)]
            keep = apart(h0, h1)
            h0, h1 = h0[keep], h1[keep]
        b = np.array(board, np.int64)
        off: np.ndarray = np.logical_not(np.isin(hands, b).any(axis=1))
        ok = off[h0] & off[h1]
        h0, h1 = h0[ok], h1[ok]
        free = np.flatnonzero(off)
        seq = np.stack([abstraction.buckets(r, hands[free], np.broadcast_to(b[: dealt[r]], (free.size, int(dealt[r]))))
                        for r in range(1, spec.num_rounds)], axis=1)
        strength = strength_keys(np.concatenate([hands[free], np.broadcast_to(b, (free.size, b.size))], 1),
                                 spec.num_ranks, spec.num_suits)
        at = np.full(H, -1)
        at[free] = np.arange(free.size)
        s0, s1 = strength[at[h0]], strength[at[h1]]
        pair.append((classes[h0] * C + classes[h1]).astype(np.int32))
        seqs[0].append(seq[at[h0]])
        seqs[1].append(seq[at[h1]])
        outcome.append(np.where(s0 > s1, 1, np.where(s0 < s1, 2, 3)).astype(np.int8))
    dims = tuple(int(b) for b in abstraction.num_buckets[1:])
    codes = [np.ravel_multi_index(tuple(np.concatenate(s).T), dims) for s in seqs]  # a sequence as one integer
    present, index = np.unique(np.concatenate(codes), return_inverse=True)
    index = index.astype(np.int32)
    cover = np.stack(np.unravel_index(present, dims), axis=1)
    pairs = np.concatenate(pair)
    return _Deals(classes, pairs, (index[: codes[0].size], index[codes[0].size :]), np.concatenate(outcome),
                  np.bincount(pairs, minlength=C * C), cover)


@dataclass(frozen=True, eq=False)
class PreflopTable:
    """The blueprint's value to player 0 of each pair of first-round buckets below its nodes where the flop is dealt.

    Attributes:
        blueprint: the implicit blueprint.
        opponent: the player whose K continuations vary below the nodes (the re-solver's opponent).
        num_values: K.
        factor: the bias of the continuations.
        deals: the deals averaged over (every one of a small deck, or sampled boards).
    """

    blueprint: Blueprint
    opponent: int
    num_values: int
    factor: float
    deals: _Deals
    max_bytes: int | None = None
    _values: dict[int, np.ndarray] = field(default_factory=dict, repr=False)

    @staticmethod
    def build(game: PokerGame, blueprint: Blueprint, abstraction: DealAbstraction, opponent: int, num_values: int, *,
              factor: float = 10.0, boards: int | None = None, seed: int = 0,
              max_bytes: int | None = None) -> PreflopTable:
        """The deals of ``game`` (every board with every pair of hands, or ``boards`` boards drawn with ``seed``, each
        with one pair of hands per bucket pair) bucketed by ``abstraction``; values are made per node when asked.

        ``max_bytes``: the memory the deals, and a node's tables over both players' bucket sequences, may take
        (checked before either is made).

        Raises:
            SubgameError: every deal of a large deck asked for, ``boards`` below 1, or deals over ``max_bytes``.
        """
        if boards is not None and (isinstance(boards, bool) or not isinstance(boards, int) or boards < 1):
            raise SubgameError(f"boards must be >= 1 or None, got {boards!r}")
        if opponent not in (0, 1):
            raise SubgameError(f"the opponent must be 0 or 1, got {opponent!r}")
        blueprint.check(abstraction)
        deals = _deals(game, abstraction, boards, seed, max_bytes)
        return PreflopTable(blueprint, opponent, num_values, factor, deals, max_bytes)

    @property
    def num_classes(self) -> int:
        return int(self.blueprint.num_buckets[0])

    def values(self, node: int) -> np.ndarray:
        """[K, C, C] player 0's mean value of each bucket pair's deals below blueprint node ``node`` (a decision of the
        second round or a showdown terminal), in the blueprint's chips; 0 where no deal has the pair."""
        got = self._values.get(node)
        if got is not None:
            return got
        bt = self.blueprint.tree
        if not ((bt.kind[node] == DECISION and int(bt.round[node]) == 1) or
                (bt.kind[node] == TERMINAL and bt.folded[node] < 0)):
            raise SubgameError(f"blueprint node {node} is neither a decision of the second round nor a showdown")
        d, C = self.deals, self.num_classes
        need = 8 * self.num_values * 4 * len(d.cover) ** 2
        if self.max_bytes is not None and need > self.max_bytes:
            raise SubgameError(f"the tables below a flop node over {len(d.cover):,} bucket sequences a player would take "
                               f"{need / 2**20:,.0f} MiB, more than {self.max_bytes / 2**20:,.0f} MiB; use a coarser "
                               "abstraction of the later rounds or fewer continuations")
        cover = (d.cover, d.cover)
        tables = sequence_tables(self.blueprint, node, self.opponent, self.num_values, self.factor, cover, 1)
        out = np.empty((self.num_values, C, C))
        for k in range(self.num_values):
            v = tables[k, 0][d.seq[0], d.seq[1]] + tables[k][d.outcome, d.seq[0], d.seq[1]]
            out[k] = (np.bincount(d.pair, v, C * C) / np.maximum(d.count, 1)).reshape(C, C)
        out.setflags(write=False)
        self._values[node] = out
        return out


def same_hands(receiver: np.ndarray, giver: np.ndarray) -> np.ndarray:
    """[n_r] the giver's hand holding exactly the cards of each receiver hand (cards [n, k] ascending; -1: none)."""
    deck = int(max(receiver.max(initial=0), giver.max(initial=0))) + 1
    code = [np.ravel_multi_index(tuple(h.T), (deck,) * h.shape[1]) for h in (receiver, giver)]
    order = np.argsort(code[1])
    at = np.minimum(np.searchsorted(code[1][order], code[0]), order.size - 1)
    return np.where(code[1][order][at] == code[0], order[at], -1)


def _sums(index: np.ndarray, size: int, w: np.ndarray) -> np.ndarray:
    """[T, size, W] the sums of ``w`` [T, n, W] over the rows of each index (``index`` [n] below ``size``)."""
    order = np.argsort(index, kind="stable")
    keys = index[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    out = np.zeros((w.shape[0], size, w.shape[2]))
    out[:, keys[starts]] = np.add.reduceat(w[:, order], starts, axis=1)
    return out


def blocked_products(tables: np.ndarray, receiver: tuple[np.ndarray, np.ndarray], giver: tuple[np.ndarray, np.ndarray],
                     reach: np.ndarray, deck: int, same: np.ndarray | None = None) -> np.ndarray:
    """At each of T leaves, each receiver hand's sum over the giver's hands that share no card with it of reach times
    table entry.

    Args:
        tables: [T, J, C_r, C_g] per leaf a value for each pair of the receiver's and the giver's classes.
        receiver, giver: per side the class [n] and the cards [n, k] of each hand (one or two cards).
        reach: [T, n_g] the giver's reach (the result is [T, n_r, J], one column per table) or [T, n_g, J] one reach
            per table (the result is [T, n_r], summed over the tables).
        deck: the number of cards.
        same: :func:`same_hands` of the two sides (made here when ``None``).
    """
    (rc, rcards), (gc, gcards) = receiver, giver
    if rcards.shape[1] > 2:
        raise SubgameError(f"hands of {rcards.shape[1]} cards: the card removal here is for one or two hole cards")
    T, J, Cr, Cg = tables.shape
    one = reach.ndim == 2
    w = reach[:, :, None] if one else reach
    total = _sums(gc, Cg, w)  # [T, C_g, W]
    card = np.sum([_sums(gc * deck + gcards[:, i], Cg * deck, w) for i in range(gcards.shape[1])], axis=0)
    card = card.reshape(T, Cg, deck, -1)  # [T, C_g, deck, W] the giver's reach by class and card
    if one:
        base = np.matmul(tables, total[:, None, :, :])[..., 0]  # [T, J, C_r]
        per_card = np.matmul(tables, card[:, None, :, :, 0])  # [T, J, C_r, deck]
        out = (base[:, :, rc] - sum(per_card[:, :, rc, rcards[:, i]] for i in range(rcards.shape[1]))).transpose(0, 2, 1)
    else:
        base = np.einsum("tjrc,tcj->tr", tables, total)
        per_card = np.matmul(tables, card.transpose(0, 3, 1, 2)).sum(axis=1)  # [T, C_r, deck]
        out = base[:, rc] - sum(per_card[:, rc, rcards[:, i]] for i in range(rcards.shape[1]))
    if rcards.shape[1] == 2:  # the hand holding both cards was taken away twice: its own cards, if the giver has it
        same = same_hands(rcards, gcards) if same is None else same
        has = same >= 0
        g = same[has]
        both = tables[:, :, rc[has], gc[g]].transpose(0, 2, 1) * w[:, g, :]  # [T, m, J]
        out[:, has] += both if one else both.sum(axis=2)
    return out


@dataclass(frozen=True, eq=False)
class PreflopValues:
    """:class:`~.leaf.ContinuationValues` at the leaves of a preflop subgame, before the flop's deal; see the module
    docstring.

    Attributes:
        player: ρ, the re-solver.
        names: the K continuations of the opponent.
        tables: [T, K, C, C] player 0's value of each bucket pair at each leaf node, scaled to its pot.
        nodes: [T] the leaf nodes.
        classes: [H] each hand's first-round bucket; ``cards`` [H, k] its cards; ``rows`` per player [H] the hand of
            each private state at a leaf node.
    """

    player: int
    names: tuple[str, ...]
    tables: np.ndarray
    nodes: np.ndarray
    classes: np.ndarray
    cards: np.ndarray
    rows: tuple[np.ndarray, np.ndarray]
    deck: int
    game_id: str

    @staticmethod
    def build(game: PokerGame, tree: PublicTree, table: PreflopTable,
              blueprint_node: Mapping[tuple[str, ...], int]) -> PreflopValues:
        """The values at every leaf of ``tree`` (``game`` compiled with ``chance_limit=1, before_deal=True``).

        Args:
            table: the blueprint's values by bucket pair; its opponent is the re-solver's.
            blueprint_node: the blueprint's node for each leaf's public key: a decision of the second round or a
                showdown (an all-in called).

        Raises:
            SubgameError: a leaf without a blueprint node, or one after a card was dealt.
        """
        leaves = np.flatnonzero(tree.kind == LEAF)
        if not leaves.size:
            raise SubgameError(f"{game.name}: the tree has no leaf to value")
        keys = [tree.public_key[int(n)] for n in leaves]
        missing = [list(k) for k in keys if k not in blueprint_node]
        if missing:
            raise SubgameError(f"no blueprint node for the leaf sequences {missing[:3]}")
        bt = table.blueprint.tree
        tables = []
        for key in keys:
            node = blueprint_node[key]
            st, _, prob = public_root(game, key, None)
            if st.board:
                raise SubgameError(f"the leaf {list(key)} follows a deal: compile the preflop with before_deal=True")
            tables.append(table.values(node) * _pot_scale(st, prob, float(bt.contrib[node, 0])))
        rows = board_hands(game, [()])[0]
        return PreflopValues(1 - table.opponent, CONTINUATIONS[: table.num_values], np.stack(tables), leaves,
                             table.deals.classes, deal_hands(game), rows, game.spec.deck_size, tree.game_id)

    @property
    def num_values(self) -> int:
        return len(self.names)

    def bind(self, tree: PublicTree, states: np.ndarray) -> BoundValues:
        if tree.game_id != self.game_id:
            raise SubgameError(f"the leaf values are of game {self.game_id!r}, the tree is {tree.game_id!r}")
        rho, opp = self.player, 1 - self.player
        start = [np.searchsorted(tree.players[p].node, self.nodes) for p in (0, 1)]
        n = self.rows[0].size
        side = [(self.classes[r], self.cards[r]) for r in self.rows]
        # each player's signed tables, oriented [K, her class, the other's class]
        oriented = [self.tables, -self.tables.transpose(0, 1, 3, 2)]
        K, G = self.num_values, tree.players[rho].num_states
        at = np.searchsorted(states, start[opp])
        same = [same_hands(side[p][1], side[1 - p][1]) if self.cards.shape[1] == 2 else None for p in (0, 1)]

        hand = np.arange(n)
        mine = start[rho][:, None] + hand  # [T, n] ρ's private states at each leaf
        theirs = at[:, None] + hand  # [T, n] the opponent's, as rows of ``states``

        def opponent_values(reach_player: np.ndarray, iteration: int | None = None, /) -> np.ndarray:
            out = np.zeros((states.size, K))
            out[theirs] = blocked_products(oriented[opp], side[opp], side[rho], reach_player[mine], self.deck, same[opp])
            return out

        def player_values(split: np.ndarray, iteration: int | None = None, /) -> np.ndarray:
            out = np.zeros(G)
            out[mine] = blocked_products(oriented[rho], side[rho], side[opp], split[theirs], self.deck, same[rho])
            return out

        return BoundValues(opponent_values, player_values)
