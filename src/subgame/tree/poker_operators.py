"""Fold and showdown operators for the poker family, with card removal in O(n log n).

At a poker terminal every pair of hands that shares no card (with each other or with the
board) has the same chance probability ``c`` (one over the number of ordered ways to deal
both players' hole cards and the board so far), so player 0's chance-weighted payoff is

    fold:      U[h, h'] = c · payoff                       for disjoint h, h'
    showdown:  U[h, h'] = c · (win if s(h) > s(h'), lose if s(h) < s(h'), 0 on a tie)

with ``s`` the hand's strength with the board, ``win`` what player 1 put in and ``lose``
minus what player 0 put in (:meth:`~subgame.games.poker.PokerGame.utility`). Products with
``U`` never form it: the opponent's reach summed over the hands disjoint from ``h`` is,
by inclusion–exclusion over the subsets ``J`` of ``h``'s cards,

    Σ_{h' ∩ h = ∅} r(h') = Σ_{J ⊆ h} (-1)^|J| Σ_{h' ⊇ J} r(h'),

(for two-card hands: the total, minus the sums over hands holding either card, plus
``r(h)``), and each inner sum restricted to hands weaker (or stronger) than ``h`` is a
difference of prefix sums over the hands holding ``J`` sorted by strength. Sorting is done
once per board at compile time; an evaluation costs O(n · 2^k) for ``n`` hands of ``k``
cards, for all terminal nodes that share a board in one batch of numpy calls.

Hands that conflict with the board are not private states of the compiled tree (no
history reaches them), so every hand an operator sees is disjoint from its board.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

import numpy as np

from ..errors import GameDefinitionError
from ..games.poker import showdown
from ..games.poker.evaluator import MAX_CARDS, MIN_CARDS, RANKS, SUITS
from ..games.poker.hands import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
)
from . import kernels
from .threads import MIN_THREAD_ENTRIES, run_pieces, thread_count

if TYPE_CHECKING:  # scipy.sparse is imported where used: about 22 MB that a hold'em spot never needs
    import scipy.sparse as sp


# -- hand strength, vectorized ---------------------------------------------------------------
def strength_keys(cards: np.ndarray, num_ranks: int, num_suits: int) -> np.ndarray:
    """Integer keys that order hands exactly like :func:`~subgame.games.poker.hands.hand_strength`.

    Args:
        cards: [M, c] distinct cards of each hand (``rank * num_suits + suit``), 1 <= c.
    Returns:
        [M] int64; ``key[a] > key[b]`` iff hand ``a`` beats hand ``b`` (equal keys tie).
        Keys of hands with different numbers of cards are not comparable. Five to seven
        cards of the 52-card deck are valued by :func:`~subgame.games.poker.showdown.values` (the compiled
        evaluator, which builds no lookup tables: a river spot's peak memory), other hands here.
    """
    cards = np.asarray(cards, dtype=np.int64)
    if cards.ndim != 2 or cards.shape[1] < 1:
        raise GameDefinitionError(f"poker: hands must be a [hands, cards] array of at least one card, got {cards.shape}")
    if 9 * num_ranks**5 >= 2**62:
        raise GameDefinitionError(f"poker: {num_ranks} ranks are too many for integer hand-strength keys")
    m, c = cards.shape
    if (num_ranks, num_suits) == (RANKS, SUITS) and MIN_CARDS <= c <= MAX_CARDS:
        return showdown.values(cards)
    if c <= 5:
        return _five_card_keys(cards // num_suits, cards % num_suits, num_ranks)
    pick = np.array(list(combinations(range(c), 5)), dtype=np.int64)  # [S, 5]
    sub = cards[:, pick].reshape(-1, 5)
    best: np.ndarray = _five_card_keys(sub // num_suits, sub % num_suits, num_ranks).reshape(m, -1).max(axis=1)
    return best


def _five_card_keys(ranks: np.ndarray, suits: np.ndarray, num_ranks: int) -> np.ndarray:
    """Keys of hands of at most five cards; ``ranks`` and ``suits`` are [M, m], m <= 5."""
    M, m = ranks.shape
    count = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)  # [M, m] copies of each card's rank
    order = np.argsort(-(count * num_ranks + ranks), axis=1, kind="stable")
    ordered = np.take_along_axis(ranks, order, axis=1)  # by (count, rank), highest first
    top = count.max(axis=1)
    paired = (count == 2).sum(axis=1)  # cards that belong to a pair
    straight_high = np.full(M, -1, dtype=np.int64)
    flush = np.zeros(M, dtype=bool)
    if m == 5:
        flush = (suits == suits[:, :1]).all(axis=1)
        if num_ranks >= 5:
            srt = np.sort(ranks, axis=1)
            distinct = (np.diff(srt, axis=1) != 0).all(axis=1)
            straight_high = np.where(distinct & (srt[:, 4] - srt[:, 0] == 4), srt[:, 4], -1)
            if num_ranks == 13:  # the wheel A-2-3-4-5 is five-high
                wheel = (srt == np.array([0, 1, 2, 3, 12])).all(axis=1)
                straight_high = np.where(wheel, 3, straight_high)
    straight = straight_high >= 0
    # Later assignments take precedence, in the order of hands._five_card's checks.
    cat = np.full(M, HIGH_CARD, dtype=np.int64)
    cat[top == 2] = PAIR
    cat[(top == 2) & (paired >= 4)] = TWO_PAIR
    cat[top == 3] = TRIPS
    cat[straight] = STRAIGHT
    cat[flush] = FLUSH
    cat[(top == 3) & (paired >= 2)] = FULL_HOUSE
    cat[top == 4] = QUADS
    cat[straight & flush] = STRAIGHT_FLUSH
    values = np.zeros((M, 5), dtype=np.int64)
    values[:, :m] = ordered
    values[straight, 0] = straight_high[straight]
    values[straight, 1:] = 0
    weights = num_ranks ** np.arange(4, -1, -1, dtype=np.int64)
    return cat * num_ranks**5 + values @ weights


# -- card removal ----------------------------------------------------------------------------
def colex_rank(cards: np.ndarray) -> np.ndarray:
    """[...] rank of each sorted card set [..., j] among all j-card sets in colex order.

    Colex order is the order of :class:`~subgame.games.poker.PokerGame`'s deal action ids
    (``sum(card_i * deck_size**i)`` over sorted cards), so the rank of a hand is its
    position among the deal's outcomes.
    """
    cards = np.asarray(cards, dtype=np.int64)
    out = np.zeros(cards.shape[:-1], dtype=np.int64)
    for i in range(cards.shape[-1]):
        c = cards[..., i]
        # C(c, i + 1) for every entry, exact in integers
        table = np.array([comb(x, i + 1) for x in range(int(c.max(initial=0)) + 1)], dtype=np.int64)
        out += table[c]
    return out


class RemovalLevels(NamedTuple):
    """:class:`CardRemoval`'s index arrays, per level ``j`` of card sets."""

    held_sets: tuple[np.ndarray, ...]  #: per j >= 1: [n, C(k, j)] the j-card sets each hand holds, numbered 0 .. m_j - 1
    entry_hand: tuple[np.ndarray, ...]  #: per j: [n·C(k,j)] the hand of each entry
    group_lo: tuple[np.ndarray, ...]  #: per j: [C(k,j), n] the first entry of the group of each j-subset of each hand
    group_hi: tuple[np.ndarray, ...]  #: per j: [C(k,j), n] one past the last entry of that group
    weaker_hi: tuple[np.ndarray, ...]  #: per j: [C(k,j), n] one past the group's last entry weaker than the hand
    stronger_lo: tuple[np.ndarray, ...]  #: per j: [C(k,j), n] the group's first entry stronger than the hand


@dataclass(frozen=True, eq=False)
class CardRemoval:
    """Index arrays that sum a reach over the hands sharing no card with each hand, on one board.

    Level ``j`` (``0 <= j < k``) lists every pair (``J``, ``h``) of a ``j``-card set ``J`` and
    a hand ``h ⊇ J`` as one entry, grouped by ``J`` and sorted by strength inside a group,
    so that prefix sums over the entries give, for each hand and each of its ``j``-subsets,
    the reach of the hands holding that subset that are weaker or stronger. Reaches are
    ``[n, T]`` arrays: one column per terminal node sharing the board.
    """

    hand_cards: np.ndarray  #: [n, k] the cards of each hand, ascending (uint8, as the compiled loops read them)
    strength: np.ndarray  #: [n] int32 dense strength rank with the board (all zero where unused)

    @staticmethod
    def build(hand_cards: np.ndarray, strength: np.ndarray | None = None) -> CardRemoval:
        """The hands and their dense strength ranks (``strength`` [n]: any integer key, higher is better); the levels'
        index arrays are sorted (O(n log n)) the first time a sum asks for them, which the compiled loops never do.

        Cards are kept as uint8 where every card is below 256 (int64 otherwise) and ranks as int32: a flop spot holds
        one of these per board, 21 MiB of them in int64."""
        hand_cards = np.asarray(hand_cards)
        small = hand_cards.size == 0 or (int(hand_cards.min()) >= 0 and int(hand_cards.max()) < 256)
        hand_cards = np.ascontiguousarray(hand_cards, dtype=np.uint8 if small else np.int64)
        n = hand_cards.shape[0]
        if strength is None:
            dense = np.zeros(n, dtype=np.int32)
        else:
            dense = np.unique(np.asarray(strength), return_inverse=True)[1].reshape(n).astype(np.int32)
        return CardRemoval(hand_cards, dense)

    @cached_property
    def levels(self) -> RemovalLevels:
        """The levels' index arrays (:class:`RemovalLevels`), sorted on first use."""
        hand_cards, dense = self.hand_cards, self.strength
        n, k = hand_cards.shape
        span = int(dense.max(initial=0)) + 1
        parts: list[tuple[np.ndarray, ...]] = []
        held_sets = []
        for j in range(k):
            subsets = list(combinations(range(k), j))
            pick = np.array(subsets, dtype=np.int64).reshape(len(subsets), j)
            subset = colex_rank(hand_cards[:, pick]) if j else np.zeros((n, 1), dtype=np.int64)  # [n, C(k,j)]
            if j:
                held_sets.append(np.unique(subset.ravel(), return_inverse=True)[1].reshape(n, len(subsets)))
            key = subset * span + dense[:, None]
            flat = key.ravel()
            order = np.argsort(flat, kind="stable")
            srt = flat[order]
            parts.append((
                (order // len(subsets)).astype(np.intp),
                np.ascontiguousarray(np.searchsorted(srt, subset * span, side="left").T),
                np.ascontiguousarray(np.searchsorted(srt, subset * span + span, side="left").T),
                np.ascontiguousarray(np.searchsorted(srt, key, side="left").T),
                np.ascontiguousarray(np.searchsorted(srt, key, side="right").T),
            ))
        return RemovalLevels(tuple(held_sets), *(tuple(x) for x in zip(*parts)))

    @property
    def num_hands(self) -> int:
        return int(self.hand_cards.shape[0])

    @cached_property
    def holders(self) -> tuple[sp.csr_matrix, ...]:
        """Per level j >= 1: [m_j, n] 1 where hand i holds j-card set m (made on first use: the depth-first passes
        never ask, and scipy.sparse is not imported for them)."""
        import scipy.sparse as sp

        n = self.num_hands
        return tuple(sp.csr_matrix((np.ones(sets.size), (sets.ravel(), np.repeat(np.arange(n), sets.shape[1]))),
                                   shape=(int(sets.max(initial=-1)) + 1, n)) for sets in self.levels.held_sets)

    @cached_property
    def ladder(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`ladder_arrays`, kept for the compiled showdown loop of the sweeps."""
        return self.ladder_arrays()

    def ladder_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The hands in ascending strength: ``(order [n], cards [n, k], ties [L+1])``.

        ``order`` lists the hands from the weakest, ``cards`` their cards in that order, and
        the ``L`` groups of tied hands start at ``ties[:-1]`` (``ties[-1] == n``). Made anew
        each call: a layout copies them into its own arrays and keeps none per board.
        """
        order = np.argsort(self.strength, kind="stable")
        s = self.strength[order]
        ties = np.flatnonzero(np.r_[True, s[1:] != s[:-1], True]).astype(np.int64)
        return order, np.ascontiguousarray(self.hand_cards[order]), ties

    @property
    def compiled(self) -> bool:
        """Whether the compiled operator loops handle these hands (one or two cards each)."""
        return self.hand_cards.shape[1] <= kernels.MAX_HAND_CARDS and self.hand_cards.flags.c_contiguous

    def disjoint_sum(self, reach: np.ndarray) -> np.ndarray:
        """[n, T] for each hand, the sum of ``reach`` [n, T] over the hands disjoint from it."""
        k = self.hand_cards.shape[1]
        out: np.ndarray = reach * (-1.0) ** k  # J = h: the only hand holding all of h's cards is h
        out += reach.sum(axis=0)
        for j, held in enumerate(self.holders, start=1):
            out += (-1.0) ** j * (held.T @ (held @ reach))
        return out

    def weaker_stronger(self, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """[n, T] twice: the reach of disjoint hands strictly weaker, and strictly stronger, than each hand."""
        n, T = reach.shape
        cs = self._prefix(0, reach)
        weaker = np.take(cs, self.levels.weaker_hi[0][0], axis=0)
        stronger = cs[-1] - np.take(cs, self.levels.stronger_lo[0][0], axis=0)
        for j in range(1, self.hand_cards.shape[1]):
            cs = self._prefix(j, reach)
            add = np.add if j % 2 == 0 else np.subtract  # the sign (-1)^j of inclusion–exclusion

            def total(index: np.ndarray, cs: np.ndarray = cs) -> np.ndarray:
                """[n, T] ``cs`` at each hand's entries summed over its j-subsets, row by row (no [C, n, T] temporary)."""
                out: np.ndarray = np.take(cs, index[0], axis=0)
                for r in index[1:]:
                    out += np.take(cs, r, axis=0)
                return out

            add(weaker, np.subtract(total(self.levels.weaker_hi[j]), total(self.levels.group_lo[j])), out=weaker)
            add(stronger, np.subtract(total(self.levels.group_hi[j]), total(self.levels.stronger_lo[j])), out=stronger)
        return weaker, stronger

    def _prefix(self, j: int, reach: np.ndarray) -> np.ndarray:
        """[L_j + 1, T] prefix sums of the reach of the level-j entries, from a zero row."""
        vals = np.take(reach, self.levels.entry_hand[j], axis=0)
        out = np.empty((vals.shape[0] + 1, vals.shape[1]))
        out[0] = 0.0
        np.cumsum(vals, axis=0, out=out[1:])
        return out

    def disjoint_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """See :func:`disjoint_pairs`."""
        return disjoint_pairs(self.hand_cards)


def disjoint_pairs(hand_cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs ``(i, j)`` of hands [n, k] without a common card, ascending: an explicit O(n²) listing."""
    n = hand_cards.shape[0]
    has = np.zeros((n, int(hand_cards.max(initial=0)) + 1), dtype=np.int64)
    has[np.arange(n)[:, None], hand_cards] = 1
    i, j = np.nonzero((has @ has.T) == 0)
    return i, j


# -- both cores ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class StateGrid:
    """[n, T] the private state of hand ``i`` at terminal ``t``, ``local[i] + start[t]``, computed when indexed.

    Every terminal node of a board lists the board's hands in one order, so the grid is
    an outer sum and costs ``n + T`` integers instead of ``n · T``.
    """

    local: np.ndarray  #: [n] integers, the hand's position in the node's block of private states
    start: np.ndarray  #: [T] intp, the first private state of each terminal node

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.local.size), int(self.start.size))

    @property
    def size(self) -> int:
        return int(self.local.size * self.start.size)

    def __getitem__(self, key: Any) -> np.ndarray:
        rows, cols = key if isinstance(key, tuple) else (key, slice(None))
        r, c = self.local[rows], self.start[cols]
        if np.ndim(r) == 0 or np.ndim(c) == 0:  # one hand or one terminal: a row or a column
            return np.asarray(r + c)
        out: np.ndarray = r[:, None] + c[None, :]
        return out

    def columns(self, cols: np.ndarray) -> StateGrid:
        """The grid of the terminals ``cols`` only."""
        return StateGrid(self.local, self.start[cols])


class _Group(Protocol):
    @property
    def states(self) -> tuple[StateGrid, StateGrid]: ...


G = TypeVar("G", bound=_Group)

def run_split(fn: Callable[[G, slice], None], groups: Sequence[G], workers: int | None = None) -> None:
    """Call ``fn(group, columns)`` over every group's terminal columns, split over threads where it pays.

    Each group's ``T`` columns (its terminal nodes) are independent and every column goes
    through the same numpy calls whichever piece holds it, so the result is bitwise the same
    for any split. The pieces (whole groups, or column ranges of a large group, of at
    least :data:`MIN_THREAD_ENTRIES` entries) run on a pool of ``workers`` threads (the
    count :func:`~.threads.set_threads` set); numpy releases the GIL inside its array loops, so the cores
    work at once. ``fn`` must write only its own columns' private states.
    """
    workers = thread_count() if workers is None else workers
    total = sum(g.states[0].size for g in groups)
    if workers < 2 or total < 2 * MIN_THREAD_ENTRIES:
        for g in groups:
            fn(g, slice(None))
        return
    pieces: list[tuple[G, slice]] = []
    target = max(total // (4 * workers), MIN_THREAD_ENTRIES)  # a few pieces a worker, to balance
    for g in groups:
        n, T = g.states[0].shape
        step = max(1, target // max(n, 1))
        pieces.extend((g, slice(lo, min(lo + step, T))) for lo in range(0, T, step))
    run_pieces([partial(fn, g, cols) for g, cols in pieces], workers)


# -- operators ---------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FoldGroup:
    """The fold terminals of one board: ``T`` public nodes sharing ``n`` hands."""

    removal: CardRemoval
    states: tuple[StateGrid, StateGrid]  #: per player [n, T] private state of hand i at terminal t
    value: np.ndarray  #: [T] chance probability × player 0's payoff, for every disjoint pair

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(g0, g1, U)`` of every nonzero payoff, as a sparse operator stores them."""
        i, j = self.removal.disjoint_pairs()
        v = np.broadcast_to(self.value, (i.size, self.value.size))
        return self.states[0][i].ravel(), self.states[1][j].ravel(), v.ravel()


@dataclass(frozen=True, eq=False)
class ShowdownGroup:
    """The showdown terminals of one board: ``T`` public nodes sharing ``n`` hands."""

    removal: CardRemoval  #: built with the hands' strengths on this board
    states: tuple[StateGrid, StateGrid]  #: per player [n, T] private state of hand i at terminal t
    win: np.ndarray  #: [T] chance probability × player 0's payoff when her hand is stronger
    lose: np.ndarray  #: [T] chance probability × player 0's payoff when her hand is weaker

    @cached_property
    def ladder_local(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player [n] int64, the private-state position of each hand in ascending strength (the compiled loop's order)."""
        order = self.removal.ladder[0]
        return (np.ascontiguousarray(self.states[0].local[order], dtype=np.int64),
                np.ascontiguousarray(self.states[1].local[order], dtype=np.int64))

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(g0, g1, U)`` of every decided (non-tied) pair of disjoint hands."""
        i, j = self.removal.disjoint_pairs()
        s = self.removal.strength
        keep = s[i] != s[j]
        i, j = i[keep], j[keep]
        v = np.where((s[i] > s[j])[:, None], self.win, self.lose)
        return self.states[0][i].ravel(), self.states[1][j].ravel(), v.ravel()


def _entries_matrix(groups: Sequence[FoldGroup | ShowdownGroup], num_states: tuple[int, int]) -> sp.csr_matrix:
    import scipy.sparse as sp
    parts = [g.entries() for g in groups]
    if not parts:
        return sp.csr_matrix(num_states)
    g0, g1, v = (np.concatenate(x) for x in zip(*parts))
    u = sp.csr_matrix((v, (g0, g1)), shape=num_states)
    u.sum_duplicates()
    return u


class _BoardTerminal:
    """What the fold and showdown operators share: values from ``cfv_into`` and the explicit matrix."""

    groups: Sequence[FoldGroup | ShowdownGroup]
    num_states: tuple[int, int]

    def cfv_into(self, player: int, reach: tuple[np.ndarray, np.ndarray], out: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def cfv(self, player: int, reach: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        return self.cfv_into(player, reach, np.zeros(self.num_states[player]))

    def matrix(self) -> sp.csr_matrix:
        """[G0, G1] the explicit payoff matrix (O(n²) per terminal; for small games and tests)."""
        return _entries_matrix(self.groups, self.num_states)


@dataclass(frozen=True, eq=False)
class FoldTerminal(_BoardTerminal):
    """Counterfactual values at the fold terminals of a poker tree, one batch per board.

    ``cfv_0[h] = value · Σ_{h' disjoint from h} reach_1[h']`` and ``cfv_1`` symmetrically,
    by inclusion–exclusion over the cards of ``h`` (see the module docstring).
    """

    groups: tuple[FoldGroup, ...]
    num_states: tuple[int, int]  #: (G0, G1), the sizes of the value arrays

    def cfv_into(self, player: int, reach: tuple[np.ndarray, np.ndarray], out: np.ndarray) -> np.ndarray:
        """Write the values at this operator's states into ``out`` [G_player] (other states untouched)."""
        opp = reach[1 - player]
        sign = 1.0 if player == 0 else -1.0
        compiled = kernels.active(self.num_states[player]) and kernels.takes_values(opp, out)

        def one(g: FoldGroup, cols: slice) -> None:
            if compiled and g.removal.compiled:
                me, them = g.states[player], g.states[1 - player]
                kernels.fold_values(opp, out, (me.local, me.start), (them.local, them.start), sign * g.value,
                                    g.removal.hand_cards, range(*cols.indices(me.start.size)))
                return
            mass = g.removal.disjoint_sum(np.take(opp, g.states[1 - player][:, cols]))
            mass *= sign * g.value[cols]
            mass += 0.0  # no negative zeros: the values read as if added to a zero array
            np.put(out, g.states[player][:, cols], mass)

        run_split(one, self.groups)
        return out


@dataclass(frozen=True, eq=False)
class ShowdownTerminal(_BoardTerminal):
    """Counterfactual values at the showdown terminals of a poker tree, one batch per board.

    ``cfv_0[h] = win · (reach_1 of disjoint weaker hands) + lose · (reach_1 of disjoint
    stronger hands)``; tied hands split the pot and add nothing. Player 1's values are the
    negated transpose. Each board costs O(n · 2^k) per terminal after a sort at compile time.
    """

    groups: tuple[ShowdownGroup, ...]
    num_states: tuple[int, int]  #: (G0, G1), the sizes of the value arrays

    def cfv_into(self, player: int, reach: tuple[np.ndarray, np.ndarray], out: np.ndarray) -> np.ndarray:
        """Write the values at this operator's states into ``out`` [G_player] (other states untouched)."""
        opp = reach[1 - player]
        compiled = kernels.active(self.num_states[player]) and kernels.takes_values(opp, out)

        def one(g: ShowdownGroup, cols: slice) -> None:
            if compiled and g.removal.compiled:
                me, them = g.states[player], g.states[1 - player]
                _, cards, ties = g.removal.ladder
                local = g.ladder_local
                kernels.showdown_values(opp, out, (local[player], me.start), (local[1 - player], them.start), g.win, g.lose,
                                        cards, ties, player, range(*cols.indices(me.start.size)))
                return
            weaker, stronger = g.removal.weaker_stronger(np.take(opp, g.states[1 - player][:, cols]))
            if player == 0:
                weaker *= g.win[cols]
                stronger *= g.lose[cols]
            else:  # player 1's hand wins against weaker hands of player 0, where player 0 gets `lose`
                weaker *= g.lose[cols]
                stronger *= g.win[cols]
            value = np.add(weaker, stronger, out=weaker) if player == 0 else np.add(stronger, weaker, out=weaker)
            if player == 1:
                np.negative(value, out=value)
            value += 0.0  # no negative zeros: the values read as if added to a zero array
            np.put(out, g.states[player][:, cols], value)

        run_split(one, self.groups)
        return out
