"""Hand ranking for any deck (ranks × suits) and any hand size from 1 to 7 cards.

A card is ``rank * num_suits + suit`` with rank 0 the lowest. A hand's strength is a
tuple that compares like poker hands: the best five-card (or, for smaller hands, the
whole-hand) category, then its kickers. Categories, from high to low: straight flush,
four of a kind, full house, flush, straight, three of a kind, two pair, pair, high card.
Straights and flushes need five cards (and a deck with at least five ranks / cards of a
suit); the ace (top rank) also plays low in the wheel when the deck has 13 ranks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

RANK_CHARS_13 = "23456789TJQKA"
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


def rank_names(num_ranks: int) -> str:
    """One character per rank, lowest first: 2..A for a full deck, else the ranks up to K.

    Kuhn and Leduc (3 ranks) are J, Q, K; a Leduc with 5 ranks is 9, T, J, Q, K.
    """
    if num_ranks > 13:
        return "".join(chr(ord("a") + i) for i in range(num_ranks))
    if num_ranks == 13:
        return RANK_CHARS_13
    return RANK_CHARS_13[12 - num_ranks : 12]


def card_name(card: int, num_ranks: int, num_suits: int) -> str:
    suits = "shdc" if num_suits <= 4 else "abcdefghijklmnopqrstuvwxyz"
    r, s = divmod(card, num_suits)
    return rank_names(num_ranks)[r] + (suits[s] if num_suits > 1 else "")


def _five_card(ranks: Sequence[int], suits: Sequence[int], num_ranks: int) -> tuple[int, ...]:
    counts = Counter(ranks)
    by_count = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    ordered = [r for r, c in by_count for _ in range(c)]
    n = len(ranks)
    flush = n == 5 and len(set(suits)) == 1
    straight_high = -1
    if n == 5 and len(counts) == 5 and num_ranks >= 5:
        hi, lo = max(ranks), min(ranks)
        if hi - lo == 4:
            straight_high = hi
        elif num_ranks == 13 and sorted(ranks) == [0, 1, 2, 3, 12]:
            straight_high = 3  # the wheel: five-high
    if straight_high >= 0 and flush:
        return (STRAIGHT_FLUSH, straight_high)
    shape = [c for _, c in by_count]
    if shape[0] == 4:
        return (QUADS, *ordered)
    if shape[:2] == [3, 2]:
        return (FULL_HOUSE, *ordered)
    if flush:
        return (FLUSH, *sorted(ranks, reverse=True))
    if straight_high >= 0:
        return (STRAIGHT, straight_high)
    if shape[0] == 3:
        return (TRIPS, *ordered)
    if shape[:2] == [2, 2]:
        return (TWO_PAIR, *ordered)
    if shape[0] == 2:
        return (PAIR, *ordered)
    return (HIGH_CARD, *ordered)


def hand_strength(cards: Sequence[int], num_ranks: int, num_suits: int) -> tuple[int, ...]:
    """The strength of the best hand of at most five cards made from ``cards``."""
    ranks = [c // num_suits for c in cards]
    suits = [c % num_suits for c in cards]
    if len(cards) <= 5:
        return _five_card(ranks, suits, num_ranks)
    return max(
        _five_card([ranks[i] for i in idx], [suits[i] for i in idx], num_ranks)
        for idx in combinations(range(len(cards)), 5)
    )
