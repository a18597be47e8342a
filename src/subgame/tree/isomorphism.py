"""Suit isomorphism: deal each class of suit-equivalent cards once and weigh it by the class.

A suit permutation ``π`` that leaves the board (as a set of cards) and both players' root
ranges unchanged maps the game onto itself: payoffs depend on suits only through which
cards share one, and every deal is equally likely. So if chance deals ``c`` at a public
node and ``π(c) = c'`` with ``c'`` the canonical card of ``c``'s class, the subtree after
``c`` is the subtree after ``c'`` with every hand renamed by ``π``, and under a strategy
that is itself suit-symmetric (CFR's iterates from a symmetric start are; so is the best
response to one) player ``p``'s counterfactual value of hand ``h`` after ``c`` is her value
of ``π(h)`` after ``c'``. The compiled tree keeps the canonical children only; a chance
node's value of hand ``h`` gathers its canonical children's values of ``h`` and, for every
card ``c`` left out, the canonical child's value of ``π(h)``; the reach into a canonical
child is the parent's (Gilpin & Sandholm 2007, "Lossless abstraction of imperfect
information games", J. ACM 54(5), where suit symmetry is the simplest of the isomorphisms
found; postflop-solver folds turn and river cards the same way).

The permutations used are those of suits that are pairwise interchangeable: two suits
are if swapping them fixes the board and both ranges, which is an equivalence (the swaps
of ``a, b`` and ``b, c`` give that of ``a, c``), so the group is the product of the
symmetric groups of its classes. At each chance node below the root the classes are
split further by the board dealt so far.

What sums values from children into parents through :mod:`.sweep` (CFR, best responses,
expected values) handles the folded tree; what sums them itself (sampling CFR, the
sequence-form LP) refuses it (:func:`~subgame.tree.public_tree.refuse_isomorphic`). Regret matching is discontinuous
where an information set's regrets tie at zero, and the folded tree adds chance children in
another order than the plain one, so long CFR+ runs on the two trees can part in the last
digits (rounding noise settles a tie differently); each is a CFR run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations, product

import numpy as np

from .lazy import MadeOnFirstUse
from .poker_operators import colex_rank


@dataclass(frozen=True)
class SuitClasses:
    """Classes of interchangeable suits.

    Attributes:
        num_ranks: ranks of the deck (cards are ``rank * num_suits + suit``).
        classes: a partition of ``range(num_suits)``, each class ascending, classes by
            their lowest suit.
    """

    num_ranks: int
    classes: tuple[tuple[int, ...], ...]

    @property
    def num_suits(self) -> int:
        return sum(len(c) for c in self.classes)

    @property
    def trivial(self) -> bool:
        """Whether no two suits are interchangeable (the isomorphic tree is the plain one)."""
        return all(len(c) == 1 for c in self.classes)

    def refine(self, board: Sequence[int]) -> SuitClasses:
        """The classes whose suits also hold the same ranks of ``board``."""
        ranks = _board_ranks(board, self.num_suits)
        out: list[tuple[int, ...]] = []
        for cls in self.classes:
            by_ranks: dict[frozenset[int], list[int]] = {}
            for s in cls:
                by_ranks.setdefault(ranks[s], []).append(s)
            out.extend(tuple(v) for v in by_ranks.values())
        return SuitClasses(self.num_ranks, tuple(sorted(out)))

    def card_perms(self) -> np.ndarray:
        """[P, D] every permutation of the group as a map of cards, the identity first."""
        S = self.num_suits
        suit_perms = []
        for images in product(*(permutations(c) for c in self.classes)):
            perm = np.empty(S, dtype=np.int64)
            for cls, img in zip(self.classes, images):
                perm[list(cls)] = img
            suit_perms.append(perm)
        cards = np.arange(self.num_ranks * S)
        return np.stack([(cards // S) * S + p[cards % S] for p in suit_perms])


def _board_ranks(board: Sequence[int], num_suits: int) -> list[frozenset[int]]:
    return [frozenset(int(c) // num_suits for c in board if int(c) % num_suits == s) for s in range(num_suits)]


def suit_classes(num_ranks: int, num_suits: int, board: Sequence[int],
                 ranges: Sequence[tuple[np.ndarray, np.ndarray]] = ()) -> SuitClasses:
    """The interchangeable suits of a spot: a swap must fix the board and every range.

    Args:
        board: the cards dealt so far.
        ranges: ``(hand_cards [H, k], weights [H])`` pairs; a range fixed by a swap gives
            every hand the weight of its swapped hand (exactly). ``hand_cards`` must hold
            every swapped hand too (all hands of the deck, or of the deck without the
            board: a swap that fixes the board maps those onto themselves).
    """
    ranks = _board_ranks(board, num_suits)
    parent = list(range(num_suits))
    for a in range(num_suits):
        for b in range(a + 1, num_suits):
            if parent[b] != b or ranks[a] != ranks[b]:
                continue
            if all(_swap_fixes(cards, weights, a, b, num_ranks * num_suits, num_suits) for cards, weights in ranges):
                parent[b] = parent[a]
    classes: dict[int, list[int]] = {}
    for s in range(num_suits):
        classes.setdefault(parent[s], []).append(s)
    return SuitClasses(num_ranks, tuple(tuple(c) for c in sorted(classes.values())))


def _swap_fixes(cards: np.ndarray, weights: np.ndarray, a: int, b: int, deck: int, num_suits: int) -> bool:
    cards = np.asarray(cards, dtype=np.int64)
    suit = cards % num_suits
    swapped = np.where(suit == a, cards + (b - a), np.where(suit == b, cards - (b - a), cards))
    keys = np.sort(cards, axis=1) @ (deck ** np.arange(cards.shape[1]))
    skeys = np.sort(swapped, axis=1) @ (deck ** np.arange(cards.shape[1]))
    order = np.argsort(keys)
    pos = np.searchsorted(keys, skeys, sorter=order)
    pos = np.minimum(pos, keys.size - 1)
    found = keys[order[pos]] == skeys
    w = np.asarray(weights, dtype=np.float64)
    return bool(found.all() and np.array_equal(w, w[order[pos]]))


def canonical_deals(classes: SuitClasses, board: Sequence[int], deals: Sequence[Sequence[int]]
                    ) -> list[tuple[int, np.ndarray | None]]:
    """For each deal of a chance node, its canonical deal and the card map onto it.

    Args:
        classes: the interchangeable suits at the root (refined here by ``board``).
        board: the board before the deal.
        deals: the cards each chance outcome adds to the board.
    Returns:
        per deal ``(j, π)``: ``deals[j]`` is its canonical deal (the least image under the
        group, in colex order) and ``π`` [D] a card map of the group with
        ``π(deal) = deals[j]``; ``π`` is ``None`` for a canonical deal (``j`` is itself).
    """
    perms = classes.refine(board).card_perms()  # [P, D]
    cards = np.array([sorted(d) for d in deals], dtype=np.int64)  # [K, m]
    own = colex_rank(cards)
    images = colex_rank(np.sort(perms[:, cards], axis=2))  # [P, K]
    best = images.argmin(axis=0)
    least = images[best, np.arange(len(deals))]
    where = {int(r): i for i, r in enumerate(own)}
    out: list[tuple[int, np.ndarray | None]] = []
    for i in range(len(deals)):
        j = where.get(int(least[i]), i)  # an image that is not an outcome here (a restricted board): kept as dealt
        out.append((i, None) if j == i else (j, perms[best[i]]))
    return out


def inverse_hands(perm: np.ndarray, hand_cards: np.ndarray) -> np.ndarray:
    """[n] the colex rank (the deal's hand index) of ``π⁻¹(h)`` for each hand [n, k] ascending."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    return colex_rank(np.sort(inv[hand_cards], axis=1))


class MirrorEdges(MadeOnFirstUse[tuple[np.ndarray, np.ndarray]]):
    """One player's extra value edges of an isomorphic tree.

    The value of private state ``child[e]`` (a hand of a canonical chance child) also
    adds to private state ``parent[e]`` (the permuted hand at the chance node) in every
    backward sweep; reaches go forward along ``PlayerArrays.parent`` alone. Stored (the
    arrays ``(child, parent)``), or made by ``make`` when first used (a tree solved by
    depth-first passes keeps them per chance node in its layout instead and never needs them).
    """

    @property
    def child(self) -> np.ndarray:
        """[E] private state in a canonical child of a chance node."""
        return self.made()[0]

    @property
    def parent(self) -> np.ndarray:
        """[E] private state at the chance node it adds to."""
        return self.made()[1]

    def level(self, lo: int, hi: int, plo: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The edges of the children ``lo:hi``, as (child - lo, parent - plo), or ``None`` if none."""
        sel = (self.child >= lo) & (self.child < hi)
        if not sel.any():
            return None
        return (self.child[sel] - lo).astype(np.intp), (self.parent[sel] - plo).astype(np.intp)
