"""Suit isomorphism and hand-strength features of poker boards (the exact features of :mod:`.card_abstraction`).

Canonical boards (the least of each class of boards equal under suit permutations), every
hand's strength on every canonical complete board in half-wins, and per earlier round the
hand-strength distribution (histogram), EHS and EHS² of every (canonical board, hand) pair;
see :mod:`subgame.blueprint.card_abstraction` for the definitions and papers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from ..errors import GameDefinitionError
from ..games.poker.game import PokerGame
from ..tree.isomorphism import SuitClasses
from ..tree.poker_operators import CardRemoval, colex_rank, strength_keys

#: Canonical (board, hand) pairs above this many per round are refused before any work.
MAX_PAIRS = 5_000_000

def _subsets(cards: Sequence[int] | np.ndarray, size: int) -> np.ndarray:
    """[C, size] every ``size``-subset of ``cards``, ascending (one empty row for size 0)."""
    if size == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.array(list(combinations(cards, size)), dtype=np.int64).reshape(-1, size)


def colex_subsets(deck_size: int, size: int) -> np.ndarray:
    """[C(deck_size, size), size] every ``size``-subset of the deck, cards ascending, row ``i`` of colex rank ``i``."""
    sets = _subsets(range(deck_size), size)
    out: np.ndarray = sets[np.argsort(colex_rank(sets), kind="stable")]
    return out


# -- suit isomorphism ----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SuitIsomorphism:
    """Every permutation of a deck's suits, acting on its boards and hands.

    Attributes:
        num_suits: suits of the deck (cards are ``rank * num_suits + suit``).
        perms: [P, D] each permutation as a map of cards, the identity first.
        hands: [H, k] every hand, cards ascending, in lexicographic order.
        hand_perm: [P, H] the row of :attr:`hands` holding ``π_p(h)`` for each hand ``h``.
    """

    num_suits: int
    perms: np.ndarray
    hands: np.ndarray
    hand_perm: np.ndarray
    row_of_colex: np.ndarray  #: [H] the row of :attr:`hands` of each colex rank

    @staticmethod
    def of(num_ranks: int, num_suits: int, hole_cards: int, *, identity_only: bool = False) -> SuitIsomorphism:
        """The group of every suit permutation (with ``identity_only``, the trivial group: every board canonical)."""
        perms = SuitClasses(num_ranks, (tuple(range(num_suits)),)).card_perms()[: 1 if identity_only else None]
        hands = _subsets(range(num_ranks * num_suits), hole_cards)
        row_of_colex = np.empty(hands.shape[0], dtype=np.int64)
        row_of_colex[colex_rank(hands)] = np.arange(hands.shape[0])
        hand_perm = row_of_colex[colex_rank(np.sort(perms[:, hands], axis=2))]
        return SuitIsomorphism(num_suits, perms, hands, hand_perm, row_of_colex)

    def hand_rows(self, cards: np.ndarray) -> np.ndarray:
        """[...] the row of :attr:`hands` of each hand [..., k] (cards ascending)."""
        out: np.ndarray = self.row_of_colex[colex_rank(cards)]
        return out

    def canonical(self, boards: np.ndarray, chunk: int = 1 << 16) -> tuple[np.ndarray, np.ndarray]:
        """For boards [n, b] (cards ascending): [n] the colex rank of each one's canonical board, and [n] a
        permutation ``p`` with ``π_p(board)`` canonical (the lowest such ``p``; 0, the identity, on a canonical board)."""
        boards = np.asarray(boards, dtype=np.int64)
        rank = np.empty(boards.shape[0], dtype=np.int64)
        perm = np.empty(boards.shape[0], dtype=np.int64)
        for lo in range(0, boards.shape[0], chunk):
            images = colex_rank(np.sort(self.perms[:, boards[lo : lo + chunk]], axis=2))  # [P, n]
            perm[lo : lo + chunk] = images.argmin(axis=0)
            rank[lo : lo + chunk] = images.min(axis=0)
        return rank, perm


@dataclass(frozen=True, eq=False)
class CanonicalBoards:
    """The classes of ``b``-card boards under suit permutations, and the classes of hands on each.

    A *point* is one (canonical board, hand) pair per class of pairs: a hand that is the
    least (lowest row) of its class under the permutations that fix the board.
    """

    boards: np.ndarray  #: [C, b] the canonical boards, cards ascending, in colex order
    rank: np.ndarray  #: [C] their colex ranks, ascending
    size: np.ndarray  #: [C] boards in each one's class
    hand_rep: np.ndarray  #: [C, H] the least hand of each hand's class on the board (-1: the hand overlaps it)

    @staticmethod
    def of(iso: SuitIsomorphism, b: int, chunk: int = 64) -> CanonicalBoards:
        deck = iso.perms.shape[1]
        every = colex_subsets(deck, b)
        canon_rank, _ = iso.canonical(every)
        own = np.arange(every.shape[0])
        canonical = canon_rank == own
        boards, rank = every[canonical], own[canonical]
        size = np.bincount(np.searchsorted(rank, canon_rank), minlength=rank.size)
        H = iso.hands.shape[0]
        hand_rep = np.empty((rank.size, H), dtype=np.int64)
        for lo in range(0, rank.size, chunk):
            part = boards[lo : lo + chunk]
            fixes = colex_rank(np.sort(iso.perms[:, part], axis=2)) == rank[lo : lo + chunk]  # [P, c]
            rep = np.where(fixes[:, :, None], iso.hand_perm[:, None, :], H).min(axis=0)  # [c, H]
            overlap = (iso.hands[None, :, :, None] == part[:, None, None, :]).any(axis=(2, 3))
            hand_rep[lo : lo + chunk] = np.where(overlap, -1, rep)
        return CanonicalBoards(boards, rank, size, hand_rep)

    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """[N] board and [N] hand of every point, and [N] the (board, hand) pairs each stands for."""
        C, H = self.hand_rep.shape
        board, hand = np.nonzero(self.hand_rep == np.arange(H))
        valid = self.hand_rep >= 0
        per_rep = np.bincount((np.nonzero(valid)[0] * H + self.hand_rep[valid]), minlength=C * H)
        weight = per_rep[board * H + hand] * self.size[board]
        return board, hand, weight

    def point_index(self, board: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """[C, H] the point of every (canonical board, hand) pair (-1 where the hand overlaps the board)."""
        index = np.full(self.hand_rep.shape, -1, dtype=np.int64)
        index[board, hand] = np.arange(board.size)
        out: np.ndarray = np.where(self.hand_rep >= 0, index[np.arange(self.hand_rep.shape[0])[:, None],
                                                             np.maximum(self.hand_rep, 0)], -1)
        return out


# -- features ---------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FinalStrengths:
    """Every hand's strength on every canonical complete board, in half-wins.

    ``halfwins = 2·wins + ties`` against the ``opponents`` hands disjoint from the hand and
    the board (the same count for every pair), so the strength is ``halfwins / (2·opponents)``.
    """

    iso: SuitIsomorphism
    final: CanonicalBoards
    halfwins: np.ndarray  #: [C, H] int64 (-1 where the hand overlaps the board)
    keys: np.ndarray  #: [C, H] int64 dense strength rank of each hand with the board (-1 where it overlaps)
    opponents: int

    @staticmethod
    def build(game: PokerGame, iso: SuitIsomorphism, final: CanonicalBoards) -> FinalStrengths:
        """Order the hands on each canonical board and count the disjoint opponent hands weaker and stronger."""
        s = game.spec
        hands = iso.hands
        C, H = final.hand_rep.shape
        halfwins = np.full((C, H), -1, dtype=np.int64)
        keys = np.full((C, H), -1, dtype=np.int64)
        for i, board in enumerate(final.boards):  # one per canonical board
            ok = final.hand_rep[i] >= 0
            h = hands[ok]
            full = np.hstack([h, np.broadcast_to(board, (h.shape[0], board.size))])
            removal = CardRemoval.build(h, strength_keys(full, s.num_ranks, s.num_suits))
            ones = np.ones((h.shape[0], 1))
            weaker, stronger = (x[:, 0] for x in removal.weaker_stronger(ones))
            total = removal.disjoint_sum(ones)[:, 0]
            halfwins[i, ok] = np.rint(weaker - stronger + total).astype(np.int64)
            keys[i, ok] = removal.strength
        opponents = comb(s.deck_size - final.boards.shape[1] - s.hole_cards, s.hole_cards)
        return FinalStrengths(iso, final, halfwins, keys, opponents)

    def lookup(self, boards: np.ndarray) -> np.ndarray:
        """[n, H] the half-wins of every hand on each complete board [n, T] (any board, cards ascending)."""
        rank, perm = self.iso.canonical(boards)
        row = np.searchsorted(self.final.rank, rank)
        out: np.ndarray = self.halfwins[row[:, None], self.iso.hand_perm[perm]]
        return out

    def ochs(self, cluster: np.ndarray, board: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """[N, K] the strength of each point (canonical board, hand) against each opponent cluster.

        ``cluster`` [H] gives every hand's opponent cluster (0..K-1). The opponent hands of each
        cluster weaker and stronger than the hand come from the card-removal sums with one
        indicator column per cluster instead of a reach; a cluster without a disjoint hand
        counts one half.
        """
        K = int(cluster.max()) + 1
        out = np.empty((board.size, K))
        hands = self.iso.hands
        starts = np.searchsorted(board, np.arange(self.final.rank.size + 1))
        for i in np.unique(board).tolist():  # one per canonical board
            ok = self.final.hand_rep[i] >= 0
            indicator = (cluster[ok][:, None] == np.arange(K)).astype(np.float64)
            removal = CardRemoval.build(hands[ok], self.keys[i, ok])
            weaker, stronger = removal.weaker_stronger(indicator)
            total = removal.disjoint_sum(indicator)
            col = np.cumsum(ok) - 1
            rows = col[hand[starts[i] : starts[i + 1]]]
            w, t = weaker[rows], total[rows]
            out[starts[i] : starts[i + 1]] = np.divide(2 * w + (t - w - stronger[rows]), 2 * t, out=np.full(t.shape, 0.5),
                                                       where=t > 0)
        return out


@dataclass(frozen=True, eq=False)
class RoundFeatures:
    """Features of the (board, hand) pairs of some boards of one betting round.

    ``B`` boards of ``b`` cards dealt so far, ``H`` hands of ``k`` hole cards; pairs that
    share a card are invalid.
    """

    boards: np.ndarray  #: [B, b] the boards, cards ascending
    hands: np.ndarray  #: [H, k] the hands, cards ascending
    valid: np.ndarray  #: [B, H] bool, the hand shares no card with the board
    ehs: np.ndarray  #: [B, H] expected final hand strength (0 where invalid)
    ehs2: np.ndarray  #: [B, H] its second moment
    histogram: np.ndarray  #: [B, H, bins] probability of each strength bin (last round: one-hot)


def board_features(strengths: FinalStrengths, boards: np.ndarray, bins: int, chunk: int = 1 << 22) -> RoundFeatures:
    """The features of every hand on each board [B, b] (any boards of one size, cards ascending).

    A board's completions to a complete board are enumerated and each one's half-wins looked
    up on its canonical board; the sums are whole numbers until the final division.
    """
    iso, two = strengths.iso, 2 * strengths.opponents
    H = iso.hands.shape[0]
    deck = np.arange(iso.perms.shape[1])
    missing = strengths.final.boards.shape[1] - boards.shape[1]
    B = boards.shape[0]
    valid = np.zeros((B, H), dtype=bool)
    ehs, ehs2 = np.zeros((B, H)), np.zeros((B, H))
    hist = np.zeros((B, H, bins))
    for i, board in enumerate(boards):  # one per board
        rest = np.setdiff1d(deck, board)
        fill = rest[_subsets(range(rest.size), missing)]  # [M, missing]
        step = max(1, chunk // H)
        n = np.zeros(H, dtype=np.int64)
        total = np.zeros(H, dtype=np.int64)
        square = np.zeros(H, dtype=np.int64)
        count = np.zeros(H * bins, dtype=np.int64)
        for lo in range(0, fill.shape[0], step):
            part = fill[lo : lo + step]
            full = np.sort(np.hstack([np.broadcast_to(board, (part.shape[0], board.size)), part]), axis=1)
            x = strengths.lookup(full)  # [m, H]
            ok = x >= 0
            xv = np.where(ok, x, 0)
            n += ok.sum(axis=0)
            total += xv.sum(axis=0)
            square += (xv * xv).sum(axis=0)
            idx = np.minimum(xv * bins // two, bins - 1)
            count += np.bincount((np.arange(H) * bins + idx)[ok], minlength=H * bins)
        valid[i] = n > 0
        safe = np.maximum(n, 1)
        ehs[i] = total / (safe * two)
        ehs2[i] = square / (safe * two * two)
        hist[i] = count.reshape(H, bins) / safe[:, None]
    return RoundFeatures(boards, iso.hands, valid, ehs, ehs2, hist)


def final_strengths(game: PokerGame, boards: np.ndarray, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[B, H] strength of every hand of ``hands`` (every hand of the deck, any order) on every complete board, and validity."""
    iso, final = _iso_rounds(game)
    strengths = FinalStrengths.build(game, iso, final[-1])
    x = strengths.lookup(np.sort(np.asarray(boards, dtype=np.int64), axis=1))[:, iso.hand_rows(np.sort(hands, axis=1))]
    return np.where(x >= 0, x / (2 * strengths.opponents), 0.0), x >= 0


def _iso_rounds(game: PokerGame) -> tuple[SuitIsomorphism, list[CanonicalBoards]]:
    s = game.spec
    iso = SuitIsomorphism.of(s.num_ranks, s.num_suits, s.hole_cards)
    return iso, [CanonicalBoards.of(iso, b) for b in _board_sizes(game)]


def _board_sizes(game: PokerGame) -> list[int]:
    """The distinct board sizes of the rounds (rounds that deal no card share the previous round's boards)."""
    return list(dict.fromkeys(int(x) for x in np.cumsum(game.spec.board_cards)))


def round_features(game: PokerGame, bins: int = 10) -> tuple[RoundFeatures, ...]:
    """The features of every betting round's (board, hand) pairs on every board (for small decks and checks).

    Raises:
        GameDefinitionError: a round has more than :data:`MAX_PAIRS` pairs.
    """
    if bins < 1:
        raise GameDefinitionError(f"the strength histogram needs at least one bin, got bins={bins}")
    s = game.spec
    hands = comb(s.deck_size, s.hole_cards)
    for b in _board_sizes(game):
        if comb(s.deck_size, b) * hands > MAX_PAIRS:
            raise GameDefinitionError(f"{game.name}: {comb(s.deck_size, b) * hands} (board, hand) pairs on a round with "
                                      f"{b} board cards; features of every board are limited to {MAX_PAIRS}")
    iso, rounds = _iso_rounds(game)
    strengths = FinalStrengths.build(game, iso, rounds[-1])
    return tuple(board_features(strengths, _subsets(range(s.deck_size), b), bins) for b in _board_sizes(game))
