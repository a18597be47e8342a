"""Hand values for the 52-card deck, for many five- to seven-card hands in one numpy pass.

A hand's best five cards are either a flush (five or more cards of one suit) or decided by
its ranks alone. With at most seven cards the two never compete: five cards of one suit
leave at most two others, too few for a full house or four of a kind beside them. So two
tables, built once per process from rank counts (no five-card subsets enumerated), value
every hand:

* ``plain[m]``: the best non-flush hand of each rank multiset ``m`` of ``n`` cards (at most
  four of a rank), found by ``searchsorted`` on the multiset's base-5 code
  ``Σ 5^rank`` (49,205 multisets for seven cards);
* ``flush[mask]``: the best hand of the cards of one suit, indexed by their 13-bit rank mask.

A value is ``category · 13^5 + Σ_i d_i · 13^(4-i)`` with the categories of :mod:`.hands`
(high card 0 … straight flush 8) and ``d`` the ranks that decide within the category
(the straight's top card; the quads' rank and kicker; …). Higher values are better hands
and equal values tie, as :func:`~subgame.games.poker.hands.hand_strength` orders them; the
ace plays low in the wheel, which is five-high. Values of hands with different numbers of
cards are not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import chain, combinations_with_replacement

import numpy as np

from ...errors import GameDefinitionError
from .hands import FLUSH, FULL_HOUSE, HIGH_CARD, PAIR, QUADS, STRAIGHT, STRAIGHT_FLUSH, TRIPS, TWO_PAIR

RANKS, SUITS = 13, 4
DECK = RANKS * SUITS
MIN_CARDS, MAX_CARDS = 5, 7
_DIGIT = RANKS ** np.arange(4, -1, -1, dtype=np.int64)  # [5] place value of each deciding rank
_BLOCK = 4096  #: rank multisets valued at once while the tables are built


@dataclass(frozen=True, eq=False)
class _Tables:
    """The lookup tables for hands of ``n`` cards."""

    codes: np.ndarray  #: [M] sorted base-5 codes of every rank multiset of n cards (at most 4 of a rank)
    plain: np.ndarray  #: [M] value of the best non-flush hand of each multiset
    flush: np.ndarray  #: [2^13] value of the best hand of one suit's rank mask (5+ ranks), -1 below 5


def _top(mask: np.ndarray, k: int) -> np.ndarray:
    """[M, k] the ``k`` highest ranks where ``mask`` [M, 13] holds, highest first (0 past the last)."""
    desc = mask[:, ::-1]  # column j is rank 12 - j
    pick = np.argsort(~desc, axis=1, kind="stable")[:, :k]
    held = np.take_along_axis(desc, pick, axis=1)
    return np.where(held, RANKS - 1 - pick, 0)


def _highest(mask: np.ndarray) -> np.ndarray:
    """[M] the highest rank where ``mask`` [M, 13] holds, -1 where none does."""
    return np.where(mask.any(axis=1), RANKS - 1 - np.argmax(mask[:, ::-1], axis=1), -1)


def _straight_high(present: np.ndarray) -> np.ndarray:
    """[M] the top rank of the best straight among the ranks ``present`` [M, 13], -1 if none."""
    windows = np.lib.stride_tricks.sliding_window_view(present, 5, axis=1).all(axis=2)  # [M, 9]: tops 4..12
    high = _highest(np.pad(windows, ((0, 0), (4, 0))))
    wheel = present[:, [12, 0, 1, 2, 3]].all(axis=1)
    return np.where((high < 0) & wheel, 3, high)


def _value(category: int, digits: np.ndarray) -> np.ndarray:
    padded = np.zeros((digits.shape[0], 5), dtype=np.int64)
    padded[:, : digits.shape[1]] = digits
    return category * RANKS**5 + padded @ _DIGIT


def _plain_values(counts: np.ndarray) -> np.ndarray:
    """[M] the best hand, flushes aside, of each rank-count row [M, 13]."""
    ranks = np.arange(RANKS)
    present, pairs = counts >= 1, counts >= 2
    quad, trip, pair = _highest(counts >= 4), _highest(counts >= 3), _highest(pairs)
    other = lambda r: ranks[None, :] != r[:, None]  # noqa: E731  (ranks other than r, per row)
    fh_pair = _highest(pairs & other(trip))
    straight = _straight_high(present)
    two = _top(pairs, 2)
    cases = [
        (quad >= 0, _value(QUADS, np.column_stack([quad, _top(present & other(quad), 1)]))),
        ((trip >= 0) & (fh_pair >= 0), _value(FULL_HOUSE, np.column_stack([trip, fh_pair]))),
        (straight >= 0, _value(STRAIGHT, straight[:, None])),
        (trip >= 0, _value(TRIPS, np.column_stack([trip, _top(present & other(trip), 2)]))),
        (pairs.sum(axis=1) >= 2,
         _value(TWO_PAIR, np.column_stack([two, _top(present & other(two[:, 0]) & other(two[:, 1]), 1)]))),
        (pair >= 0, _value(PAIR, np.column_stack([pair, _top(present & other(pair), 3)]))),
    ]
    out: np.ndarray = np.select([c for c, _ in cases], [v for _, v in cases], _value(HIGH_CARD, _top(present, 5)))
    return out


def _flush_values() -> np.ndarray:
    """[2^13] the best hand made of one suit's ranks (the mask's bits), -1 for fewer than five."""
    masks = np.arange(2**RANKS)
    present = ((masks[:, None] >> np.arange(RANKS)) & 1).astype(bool)
    straight = _straight_high(present)
    out = np.where(straight >= 0, _value(STRAIGHT_FLUSH, straight[:, None]), _value(FLUSH, _top(present, 5)))
    return np.where(present.sum(axis=1) >= 5, out, -1)


@cache
def _tables(n: int) -> _Tables:
    multisets = np.fromiter(chain.from_iterable(combinations_with_replacement(range(RANKS), n)), dtype=np.int8)
    multisets = multisets.reshape(-1, n)  # [M', n]
    counts = np.zeros((multisets.shape[0], RANKS), dtype=np.int8)
    np.add.at(counts, (np.arange(multisets.shape[0])[:, None], multisets), 1)
    counts = counts[counts.max(axis=1) <= SUITS]
    codes = counts.astype(np.int64) @ (5 ** np.arange(RANKS, dtype=np.int64))
    order = np.argsort(codes)
    # a block of rows at a time: the cases' [rows, 13] temporaries of all 49,205 seven-card multisets at once took
    # some 30 MB, most of a small spot's peak memory
    plain = np.concatenate([_plain_values(counts[order[i : i + _BLOCK]]) for i in range(0, order.size, _BLOCK)])
    return _Tables(codes[order], plain, _flush_values())


def checked_hands(cards: np.ndarray) -> np.ndarray:
    """``cards`` as an array, checked to be [M, n] distinct cards 0..51 per row with 5 <= n <= 7.

    Raises:
        GameDefinitionError: anything else.
    """
    cards = np.asarray(cards)
    if cards.ndim != 2 or not MIN_CARDS <= cards.shape[1] <= MAX_CARDS or not np.issubdtype(cards.dtype, np.integer):
        raise GameDefinitionError(
            f"hand_values needs an integer [hands, cards] array of {MIN_CARDS} to {MAX_CARDS} cards, got shape {cards.shape}"
        )
    if cards.size and (cards.min() < 0 or cards.max() >= DECK):
        raise GameDefinitionError(f"hand_values: cards must be 0..{DECK - 1}, got {int(cards.min())}..{int(cards.max())}")
    if (np.diff(np.sort(cards, axis=1), axis=1) == 0).any():
        raise GameDefinitionError("hand_values: a hand holds the same card twice")
    return cards


def hand_values(cards: np.ndarray) -> np.ndarray:
    """Values of hands of the 52-card deck (card ``rank * 4 + suit``, rank 0 the deuce).

    Args:
        cards: [M, n] distinct cards of each hand, 5 <= n <= 7 (any order within a row).
    Returns:
        [M] int64; ``value[a] > value[b]`` iff hand ``a`` beats hand ``b``, equal on a tie.

    Raises:
        GameDefinitionError: not an [M, n] array of distinct cards 0..51 with 5 <= n <= 7.
    """
    cards = checked_hands(cards).astype(np.int64)
    table = _tables(cards.shape[1])
    ranks, suits = cards // SUITS, cards % SUITS
    plain = table.plain[np.searchsorted(table.codes, (5**ranks).sum(axis=1))]
    suited = suits[:, :, None] == np.arange(SUITS)  # [M, n, 4]
    flush_suit = suited.sum(axis=1).argmax(axis=1)  # with 5+ cards of a suit, that suit
    mask = np.where(suits == flush_suit[:, None], 1 << ranks, 0).sum(axis=1)
    flush = table.flush[mask]
    out: np.ndarray = np.where(flush >= 0, flush, plain)
    return out


def board_values(board: np.ndarray, hands: np.ndarray) -> np.ndarray:
    """[H] the value of each hand [H, k] together with the ``board`` [b] (5 <= k + b <= 7)."""
    board = np.asarray(board, dtype=np.int64).reshape(1, -1)
    hands = np.asarray(hands, dtype=np.int64)
    return hand_values(np.hstack([hands, np.broadcast_to(board, (hands.shape[0], board.shape[1]))]))
