"""Hand-strength card abstraction for the poker family: suit isomorphism, features, clustering, bucket files.

A hand's *strength* on a complete board is its probability of beating a uniformly random
opponent hand that shares no card with it or the board (ties count one half). On an earlier
round the strength still to come is a random variable over the board cards not yet dealt;
its mean is the *expected hand strength* (EHS), its second moment EHS², and its histogram
over ``bins`` equal-width bins the *hand-strength distribution* of Johanson, Burch,
Valenzano & Bowling 2013 ("Evaluating State-Space Abstractions in Extensive-Form Games",
AAMAS; distribution-aware abstraction). Per betting round every (board, hand) pair gets a bucket:

* on the last round, by k-means under L2 on the *opponent-cluster hand strength* (OCHS, same
  paper): the hand's strength against each of a few clusters of opponent hands (eight
  there), the opponent hands being clustered by their strength distribution over every
  complete board (as earlier rounds are, below). Lloyd's algorithm fits the centres on a
  weighted subsample seeded by k-means++, then every point goes to its nearest centre (a
  k-d tree); a cluster left empty takes the point farthest from its centre, so that every
  bucket asked is used whenever there are that many distinct points. One opponent cluster
  is 1-D k-means on the strength itself.
* on earlier rounds, by clustering the histograms under the earth mover's distance. In one
  dimension the EMD between two histograms is the L1 distance between their cumulative
  distributions (times the bin width), so Lloyd's alternation runs on the cumulative
  vectors with L1 assignments and, as the L1 centre of a cluster, its coordinate-wise
  weighted median (a valid cumulative distribution again): k-medians on CDFs, which
  minimizes the clusters' summed EMD. This is the documented simpler variant of Johanson et
  al.'s EMD k-means (theirs uses an approximate EMD between bucket-based histograms); the
  seeds are chosen by k-means++ under the same distance.
* *losslessly* on a round asked at least as many buckets as it has classes of
  suit-isomorphic (board, hand) pairs: each class is its own bucket, no clustering. Preflop
  that is 169 buckets on the 52-card deck (13 pairs, 78 suited and 78 offsuit hands; 25 on
  5 ranks × 3 suits), the lossless preflop of Brown & Sandholm 2017 §7.

Suit isomorphism (Gilpin & Sandholm 2007, "Lossless abstraction of imperfect information
games", J. ACM 54(5)): renaming the suits maps every (board, hand) pair onto one with the
same features. Features are computed on *canonical boards* only (in each class of boards
equal under suit permutations, the least in colex order: 1,755 of the 22,100 flops), and
there for one hand per class of hands that the board's own symmetries make equal; the
clustering weighs each such point by the (board, hand) pairs it stands for, so it solves
the problem of clustering every pair. Any board's buckets are its canonical board's with
the hands renamed by the permutation (:meth:`CardBuckets.hand_buckets`), and only canonical
boards are stored. Strengths are whole numbers of half-wins, so the features of equal
pairs are equal to the last bit.

Buckets have imperfect recall (a bucket forgets the earlier rounds' buckets); an information
set's abstract key is its betting sequence, its round and its bucket. The buckets are saved
to and loaded from a versioned file (:meth:`CardBuckets.save`, :meth:`CardBuckets.load`)
and turn into an :class:`~subgame.solve.abstraction.Abstraction` of a compiled tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..files import read_npz, write_npz
from ..games.base import game_fingerprint
from ..games.poker.game import PokerGame
from ..solve.abstraction import Abstraction, _card_index, _hole, _split_public
from ..tree.isomorphism import SuitClasses
from ..tree.poker_compile import deal_hands, state_hands
from ..tree.poker_operators import CardRemoval, colex_rank, strength_keys
from ..tree.public_tree import PublicTree

BUCKETS_FORMAT = "subgame-card-buckets"
#: Version 2 stores canonical boards only (version 1 stored every board).
BUCKETS_VERSION = 2
#: Canonical (board, hand) pairs above this many per round are refused before any work.
MAX_PAIRS = 5_000_000
#: Strengths looked up to sum the distributions of earlier rounds (canonical board × completion × hand).
MAX_LOOKUPS = 1_000_000_000
#: Opponent clusters of the last round's OCHS (Johanson et al. 2013 use eight).
OPPONENT_CLUSTERS = 8
#: Points on which the last round's k-means fits its centres (every point is then assigned).
KMEANS_SAMPLE = 100_000


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


# -- clustering -------------------------------------------------------------------------------------
def _distinct(points: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows [U, d] of ``points`` (lexicographic order), their summed weights [U], and [M] each point's row."""
    m = points.shape[0]
    order = np.lexsort(points.T[::-1]) if points.shape[1] else np.arange(m)
    srt = points[order]
    new = np.ones(m, dtype=bool)
    new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    inverse = np.empty(m, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    return srt[new], np.bincount(inverse, weights=w, minlength=int(new.sum())), inverse


def _fill_empty(labels: np.ndarray, dist: np.ndarray, k: int) -> np.ndarray:
    """Give every empty cluster of ``labels`` [U] (distinct points) the point farthest from its centre
    whose cluster keeps another point; ``k`` <= U clusters are then all used."""
    count = np.bincount(labels, minlength=k)
    empty = np.flatnonzero(count == 0)
    if not empty.size:
        return labels
    labels = labels.copy()
    order = iter(np.argsort(-dist, kind="stable").tolist())
    for j in empty.tolist():  # one per empty cluster; the points are visited once in all
        for i in order:
            if count[labels[i]] > 1:
                count[labels[i]] -= 1
                labels[i], count[j] = j, 1
                break
    return labels


def _seed(points: np.ndarray, weights: np.ndarray, k: int, rng: np.random.Generator, power: int) -> np.ndarray:
    """[k, d] k-means++ seeds: each next one drawn with probability ∝ weight × distance**power (L1 for 1, L2² for 2)."""
    m = points.shape[0]
    centres = np.empty((k, points.shape[1]))
    centres[0] = points[int(rng.choice(m, p=weights / weights.sum()))]

    def dist(c: np.ndarray) -> np.ndarray:
        diff = np.abs(points - c)
        out: np.ndarray = diff.sum(axis=1) if power == 1 else (diff * diff).sum(axis=1)
        return out

    d = dist(centres[0])
    for j in range(1, k):
        score = np.cumsum(d * weights)
        pick = rng.integers(m) if score[-1] <= 0 else int(np.searchsorted(score, rng.random() * score[-1], side="right"))
        centres[j] = points[min(pick, m - 1)]
        d = np.minimum(d, dist(centres[j]))
    return centres


def emd_kmedians(cdfs: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 100,
                 weights: np.ndarray | None = None) -> np.ndarray:
    """[M] cluster of each cumulative distribution [M, bins] minimizing the weighted summed L1 (1-D EMD) distance.

    The distinct points are clustered with their summed weights: k-means++ seeding under
    L1, then Lloyd's alternation with coordinate-wise weighted (lower) medians as centres
    until the assignment stops changing (or ``iterations``); ties go to the lowest centre,
    and an empty cluster takes the point farthest from its centre. ``min(k, distinct
    points)`` clusters are used.
    """
    x, w, inverse = _distinct(np.asarray(cdfs, dtype=np.float64), weights)
    m = x.shape[0]
    k = min(k, m)
    centres = _seed(x, w, k, rng, power=1)
    assign = np.full(m, -1, dtype=np.int64)
    dist = np.zeros(m)
    for _ in range(iterations):
        new, dist = _nearest_l1(x, centres)
        if np.array_equal(new, assign):
            break
        assign = new
        centres = _weighted_medians(x, w, assign, k, centres)
    labels = _fill_empty(assign, dist, k)
    out: np.ndarray = labels[inverse]
    return out


def _nearest_l1(x: np.ndarray, centres: np.ndarray, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """[M] the nearest centre under L1 (ties to the lowest) and [M] the distance to it."""
    step = max(1, chunk // max(1, centres.size))
    label = np.empty(x.shape[0], dtype=np.int64)
    dist = np.empty(x.shape[0])
    for lo in range(0, x.shape[0], step):
        d = np.abs(x[lo : lo + step, None, :] - centres[None, :, :]).sum(axis=2)
        label[lo : lo + step] = d.argmin(axis=1)
        dist[lo : lo + step] = d.min(axis=1)
    return label, dist


def _weighted_medians(x: np.ndarray, w: np.ndarray, labels: np.ndarray, k: int, old: np.ndarray) -> np.ndarray:
    """[k, d] per cluster and coordinate the lower weighted median (an empty cluster keeps ``old``)."""
    out = old.copy()
    groups = np.arange(k)
    for j in range(x.shape[1]):  # one per coordinate
        order = np.lexsort((x[:, j], labels))
        lab, cw = labels[order], np.cumsum(w[order])
        lo, hi = np.searchsorted(lab, groups, side="left"), np.searchsorted(lab, groups, side="right")
        used = hi > lo
        base = np.where(lo > 0, cw[np.maximum(lo - 1, 0)], 0.0)
        half = base + (cw[np.maximum(hi - 1, 0)] - base) / 2
        at = np.minimum(np.searchsorted(cw, half, side="left"), hi - 1)
        out[used, j] = x[order[at[used]], j]
    return out


def kmeans_l2(points: np.ndarray, k: int, rng: np.random.Generator, weights: np.ndarray | None = None, *,
              sample: int = KMEANS_SAMPLE, iterations: int = 50) -> np.ndarray:
    """[M] cluster of each point [M, d] under L2 (weighted k-means), fit on a subsample, every point assigned.

    The distinct points with their summed weights: up to ``max(sample, 4k)`` of them (drawn
    uniformly) fit the centres, seeded by weighted k-means++ (or, where that would cost more
    than 4·10⁸ distance terms, by a weighted draw of distinct points) and refined by Lloyd's
    iterations until the assignment stops changing; then every point goes to its nearest
    centre and an empty cluster takes the point farthest from its centre, so ``min(k,
    distinct points)`` clusters are used.
    """
    from scipy.spatial import cKDTree  # imported where used: scipy.spatial costs ~25 MB to commands that never cluster

    x, w, inverse = _distinct(np.asarray(points, dtype=np.float64), weights)
    m = x.shape[0]
    k = min(k, m)
    size = min(m, max(sample, 4 * k))
    fit = np.sort(rng.choice(m, size=size, replace=False)) if size < m else np.arange(m)
    xs, ws = x[fit], w[fit]
    if k * size * x.shape[1] <= 400_000_000:
        centres = _seed(xs, ws, k, rng, power=2)
    else:
        centres = xs[np.sort(rng.choice(size, size=k, replace=False, p=ws / ws.sum()))]
    assign = np.full(size, -1, dtype=np.int64)
    for _ in range(iterations):
        new = cKDTree(centres).query(xs)[1]
        if np.array_equal(new, assign):
            break
        assign = new
        mass = np.bincount(assign, weights=ws, minlength=k)
        used = mass > 0
        for j in range(x.shape[1]):  # one per coordinate
            centres[used, j] = np.bincount(assign, weights=ws * xs[:, j], minlength=k)[used] / mass[used]
    dist, labels = cKDTree(centres).query(x)
    out: np.ndarray = _fill_empty(np.asarray(labels, dtype=np.int64), dist, k)[inverse]
    return out


def _by_strength(labels: np.ndarray, ehs: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``labels`` renumbered by their clusters' weighted mean EHS, so that bucket 0 is the weakest (ties by label).

    The means are summed over the distinct (label, EHS) values in sorted order with whole
    weights, so points that stand for the same pairs give the same means to the last bit.
    """
    k = int(labels.max()) + 1
    values, mass, _ = _distinct(np.column_stack([labels, ehs]), weight)
    label = values[:, 0].astype(np.int64)
    mean = np.bincount(label, weights=mass * values[:, 1], minlength=k) / np.maximum(np.bincount(label, mass, k), 1e-300)
    rank = np.empty(k, dtype=np.int64)
    rank[np.lexsort((np.arange(k), mean))] = np.arange(k)
    out: np.ndarray = rank[labels]
    return out


# -- buckets -----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CardBuckets:
    """The bucket of every (board, hand) pair of every betting round of one poker game.

    Only canonical boards are stored (see the module docstring); :meth:`hand_buckets` gives
    any board's.

    Attributes:
        game_id: fingerprint of the game (:func:`~subgame.games.base.game_fingerprint`).
        board_sizes: [R] board cards dealt by round r (rounds that deal none repeat the size).
        boards: per distinct board size, [C, b] the canonical boards (cards ascending, colex order).
        hands: [H, k] the hands (cards ascending, lexicographic order).
        buckets: per distinct board size, [C, H] the bucket of each hand on each canonical
            board (-1 where they share a card); bucket 0 is the weakest.
        num_buckets: per distinct board size, the buckets asked for.
        bins: histogram bins of the strength distribution.
        num_suits: suits of the deck.
        opponent_cluster: [H] each hand's opponent cluster in the last round's OCHS (-1 where
            it was not clustered).
    """

    game_id: str
    board_sizes: tuple[int, ...]
    boards: tuple[np.ndarray, ...]
    hands: np.ndarray
    buckets: tuple[np.ndarray, ...]
    num_buckets: tuple[int, ...]
    bins: int
    num_suits: int
    opponent_cluster: np.ndarray

    @staticmethod
    def build(game: PokerGame, num_buckets: Sequence[int], *, bins: int = 10, seed: int = 0,
              opponent_clusters: int = OPPONENT_CLUSTERS, isomorphism: bool = True) -> CardBuckets:
        """Bucket every round's pairs: ``num_buckets[r]`` buckets per distinct board size (see the module docstring).

        ``isomorphism=False`` computes the features on every board instead of canonical
        ones (a check for small decks): the buckets are the same wherever no round is
        lossless, since every pair is then its own class.

        Raises:
            GameDefinitionError: not a poker game, a count that is not a whole number >= 1,
                more buckets than the round has (board, hand) pairs, a wrong number of
                counts, a round too large for exact features, or ``bins`` or
                ``opponent_clusters`` below 1.
        """
        if not isinstance(game, PokerGame):
            raise GameDefinitionError(f"card abstraction is defined for the poker family, not {type(game).__name__}")
        if bins < 1:
            raise GameDefinitionError(f"the strength histogram needs at least one bin, got bins={bins}")
        if opponent_clusters < 1:
            raise GameDefinitionError(f"OCHS needs at least one opponent cluster, got opponent_clusters={opponent_clusters}")
        counts = _bucket_counts(game, num_buckets, isomorphism)
        s = game.spec
        iso = SuitIsomorphism.of(s.num_ranks, s.num_suits, s.hole_cards, identity_only=not isomorphism)
        rounds = [CanonicalBoards.of(iso, b) for b in _board_sizes(game)]
        strengths = FinalStrengths.build(game, iso, rounds[-1])
        rng = np.random.default_rng(seed)
        features: dict[int, RoundFeatures] = {}

        def earlier(r: int) -> RoundFeatures:
            if r not in features:
                features[r] = board_features(strengths, rounds[r].boards, bins)
            return features[r]

        opponent = np.full(iso.hands.shape[0], -1, dtype=np.int64)
        out = []
        for r, (cb, k) in enumerate(zip(rounds, counts)):
            board, hand, weight = cb.points()
            last = r == len(rounds) - 1
            ehs = strengths.halfwins[board, hand] / (2 * strengths.opponents) if last else earlier(r).ehs[board, hand]
            if k >= board.size:  # lossless: every class of isomorphic pairs its own bucket
                labels = np.arange(board.size)
            elif last:
                if opponent_clusters > 1:
                    preflop = rounds[0].boards.shape[1] == 0
                    empty = rounds[0] if preflop else CanonicalBoards.of(iso, 0)
                    hist = (earlier(0) if preflop else board_features(strengths, empty.boards, bins)).histogram
                    opponent = _opponent_clusters(empty, hist, opponent_clusters, rng)
                    points = strengths.ochs(opponent, board, hand)
                else:
                    points = ehs[:, None]
                labels = kmeans_l2(points, k, rng, weight)
            else:
                labels = emd_kmedians(np.cumsum(earlier(r).histogram[board, hand], axis=1), k, rng, weights=weight)
            labels = _by_strength(labels, ehs, weight).astype(np.int16 if k < 2**15 else np.int32)
            index = cb.point_index(board, hand)
            out.append(np.where(index >= 0, labels[np.maximum(index, 0)], -1).astype(labels.dtype))
        return CardBuckets(game_fingerprint(game), tuple(int(x) for x in np.cumsum(s.board_cards)),
                           tuple(cb.boards for cb in rounds), iso.hands, tuple(out), tuple(counts), bins, s.num_suits,
                           opponent)

    # -- lookups ---------------------------------------------------------------------------------
    def hand_buckets(self, board: Sequence[int]) -> np.ndarray:
        """[H] the bucket of every hand of :attr:`hands` on ``board`` (cards in any order; -1 where they overlap)."""
        key = tuple(sorted(int(c) for c in board))
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) >= 4096:
                self._cache.clear()
            got = self.boards_buckets(np.array([key], dtype=np.int64).reshape(1, len(key)))[0]
            got.flags.writeable = False  # shared by every later call with this board
            self._cache[key] = got
        return got

    def boards_buckets(self, boards: np.ndarray) -> np.ndarray:
        """[n, H] :meth:`hand_buckets` of each board [n, b] of one size at once (cards in any order).

        Each board's canonical board and a suit permutation ``π`` onto it are found; the bucket
        of hand ``h`` is that of ``π(h)`` on the canonical board.

        Raises:
            GameDefinitionError: no round has boards of ``b`` cards, or a board holds a card
                twice or a card outside the deck.
        """
        try:
            cards = np.sort(np.asarray(boards, dtype=np.int64).reshape(len(boards), -1), axis=1)
        except (TypeError, ValueError):
            raise GameDefinitionError("boards must be a [boards, cards] array of whole numbers, one size for all") from None
        sizes = [b.shape[1] for b in self.boards]
        if cards.shape[1] not in sizes:
            raise GameDefinitionError(f"no round of these buckets has a board of {cards.shape[1]} cards (rounds: {sizes})")
        deck = self._iso.perms.shape[1]
        if cards.size and (cards.min() < 0 or cards.max() >= deck or (np.diff(cards, axis=1) == 0).any()):
            raise GameDefinitionError(f"boards must hold distinct cards of the {deck}-card deck, got {cards.tolist()[:3]}")
        r = sizes.index(cards.shape[1])
        rank, perm = self._iso.canonical(cards)
        row = np.searchsorted(self._ranks[r], rank)
        out: np.ndarray = self.buckets[r][row[:, None], self._iso.hand_perm[perm]].astype(np.int64)
        return out

    def bucket(self, board: Sequence[int], hand: Sequence[int]) -> int:
        """The bucket of one (board, hand) pair (cards in any order)."""
        return int(self.hand_buckets(board)[self._col(tuple(sorted(hand)))])

    def pairs(self) -> list[int]:
        """Per distinct board size, the (board, hand) pairs of every board (not only canonical ones)."""
        deck, k = self._iso.perms.shape[1], self.hands.shape[1]
        return [comb(deck, b.shape[1]) * comb(deck - b.shape[1], k) for b in self.boards]

    @cached_property
    def _cache(self) -> dict[tuple[int, ...], np.ndarray]:
        return {}

    @cached_property
    def _iso(self) -> SuitIsomorphism:
        deck = int(self.hands.max()) + 1
        return SuitIsomorphism.of(deck // self.num_suits, self.num_suits, int(self.hands.shape[1]))

    @cached_property
    def _ranks(self) -> list[np.ndarray]:
        return [colex_rank(b) for b in self.boards]

    @cached_property
    def _col_of(self) -> dict[tuple[int, ...], int]:
        return {tuple(int(c) for c in x): i for i, x in enumerate(self.hands)}

    def _col(self, hand: tuple[int, ...]) -> int:
        try:
            return self._col_of[tuple(int(c) for c in hand)]
        except KeyError:
            raise GameDefinitionError(f"{list(hand)} is not a hand of these buckets' deck") from None

    def abstraction(self, game: PokerGame, tree: PublicTree) -> Abstraction:
        """The tree's information sets bucketed by (betting sequence, round, bucket): imperfect recall.

        The buckets are those of ``Abstraction.from_keys`` with :meth:`infoset_key`, numbered
        by first appearance, found with one lookup per public node instead of one per
        information set.

        Raises:
            GameDefinitionError: the tree is of another game, or one bucket would hold
                information sets with different legal actions.
        """
        if game_fingerprint(game) != self.game_id or tree.game_id != self.game_id:
            raise GameDefinitionError(f"these buckets are for game {self.game_id!r}, not {tree.game_id!r}")
        name = f"card-buckets-{'-'.join(map(str, self.num_buckets))}"
        deal_rows = self._iso.hand_rows(deal_hands(game))
        out = []
        for p, pa in enumerate(tree.players):
            nodes, node_of = np.unique(pa.node[pa.infoset_priv], return_inverse=True)
            hand = deal_rows[state_hands(game, tree, p)[pa.infoset_priv]]
            sequences: dict[tuple[tuple[str, ...], int], int] = {}
            sequence = np.empty(nodes.size, dtype=np.int64)
            hand_bucket = np.empty((nodes.size, self.hands.shape[0]), dtype=np.int64)
            for u, n in enumerate(nodes.tolist()):  # one per public node, never per information set
                betting, board = _split_public(game, tree.public_key[n])
                sequence[u] = sequences.setdefault((betting, len(board)), len(sequences))
                hand_bucket[u] = self.hand_buckets(board)
            key = sequence[node_of] * (int(hand_bucket.max(initial=0)) + 1) + hand_bucket[node_of, hand]
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            order = np.empty(first.size, dtype=np.int64)
            order[np.argsort(first)] = np.arange(first.size)
            rep = first[inverse.reshape(-1)]
            clash = np.flatnonzero((pa.action_ids != pa.action_ids[rep]).any(axis=1))
            if clash.size:
                i = int(clash[0])
                raise GameDefinitionError(
                    f"abstraction {name!r} puts information sets with different legal actions in one bucket "
                    f"({pa.label[pa.infoset_priv[rep[i]]]!r} and {pa.label[pa.infoset_priv[i]]!r} of player {p})")
            out.append(order[inverse.reshape(-1)])
        return Abstraction((out[0], out[1]), name)

    def infoset_key(self, game: PokerGame, public_key: tuple[str, ...], label: str) -> tuple[tuple[str, ...], int, int]:
        """The abstract information set of one information set: (betting sequence, board size, bucket)."""
        betting, board = _split_public(game, public_key)
        return (betting, len(board), self.bucket(board, _hole(game, label)))

    # -- files ----------------------------------------------------------------------------
    def _header(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "board_sizes": list(self.board_sizes), "num_buckets": list(self.num_buckets),
                "bins": self.bins, "num_suits": self.num_suits}

    def _arrays(self) -> dict[str, np.ndarray]:
        arrays = {"hands": self.hands, "opponent_cluster": self.opponent_cluster}
        for r, (b, k) in enumerate(zip(self.boards, self.buckets)):
            arrays[f"boards_{r}"] = b
            arrays[f"buckets_{r}"] = k
        return arrays

    @staticmethod
    def _of(path: str | Path, header: dict[str, Any], arrays: dict[str, np.ndarray], kind: str) -> CardBuckets:
        n = len(header["num_buckets"])
        try:
            return CardBuckets(header["game_id"], tuple(header["board_sizes"]),
                               tuple(arrays[f"boards_{r}"] for r in range(n)), arrays["hands"],
                               tuple(arrays[f"buckets_{r}"] for r in range(n)), tuple(header["num_buckets"]),
                               int(header["bins"]), int(header["num_suits"]), arrays["opponent_cluster"])
        except KeyError as exc:
            raise StrategyFileError(f"{path}: {kind} file without its entry {exc.args[0]!r}") from None

    def save(self, path: str | Path) -> Path:
        """Write the buckets to a versioned ``.npz`` file (atomically)."""
        return write_npz(path, {"format": BUCKETS_FORMAT, "version": BUCKETS_VERSION, **self._header()}, self._arrays())

    @staticmethod
    def load(path: str | Path) -> CardBuckets:
        """Read a file written by :meth:`save`; a clear error for any other file (version 1 files included:
        rebuild them with ``subgame abstract``)."""
        header, arrays = read_npz(path, format=BUCKETS_FORMAT, version=BUCKETS_VERSION, kind="card-buckets",
                                  expected="a card abstraction (subgame abstract ... --out FILE)")
        return CardBuckets._of(path, header, arrays, "card-bucket")


def _bucket_counts(game: PokerGame, num_buckets: Sequence[int], isomorphism: bool) -> list[int]:
    """The bucket counts, checked: one whole number >= 1 per distinct board size, at most the round's pairs,
    and every round small enough for exact features (:data:`MAX_PAIRS`, :data:`MAX_LOOKUPS`)."""
    s = game.spec
    sizes = _board_sizes(game)
    shape = ", ".join(str(b) for b in sizes)
    try:
        counts = [int(n) for n in num_buckets]
    except (TypeError, ValueError):
        counts = []
    if len(counts) != len(sizes) or any(c != n for c, n in zip(counts, num_buckets)):
        raise GameDefinitionError(f"{game.name}: give one bucket count per round with a new board ({len(sizes)}: boards of "
                                  f"{shape} cards), got {list(num_buckets)}")
    perms = int(np.prod(np.arange(1, s.num_suits + 1))) if isomorphism else 1
    total = sizes[-1]
    for b, k in zip(sizes, counts):
        pairs = comb(s.deck_size, b) * comb(s.deck_size - b, s.hole_cards)
        if k < 1:
            raise GameDefinitionError(f"{game.name}: give one bucket count >= 1 per round, got {k} for the round with "
                                      f"{b} board cards")
        if k > pairs:
            raise GameDefinitionError(f"{game.name}: {k} buckets asked for the round with {b} board cards, which has only "
                                      f"{pairs} (board, hand) pairs")
        canonical = max(1, comb(s.deck_size, b) // perms) * comb(s.deck_size - b, s.hole_cards)
        if canonical > MAX_PAIRS:
            raise GameDefinitionError(f"{game.name}: about {canonical} canonical (board, hand) pairs on the round with {b} "
                                      f"board cards; exact features are limited to {MAX_PAIRS} (a smaller deck)")
        lookups = max(1, comb(s.deck_size, b) // perms) * comb(s.deck_size - b, total - b) * comb(s.deck_size, s.hole_cards)
        if b < total and lookups > MAX_LOOKUPS:
            raise GameDefinitionError(f"{game.name}: about {lookups} strengths to sum for the round with {b} board cards; "
                                      f"exact features are limited to {MAX_LOOKUPS} (a smaller deck)")
    return counts


def _opponent_clusters(empty: CanonicalBoards, histogram: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """[H] each hand's opponent cluster: its strength distribution [1, H, bins] over every complete board
    (from the empty board) clustered under the EMD (:func:`emd_kmedians`), one point per class of hands."""
    board, hand, weight = empty.points()
    labels = emd_kmedians(np.cumsum(histogram[board, hand], axis=1), k, rng, weights=weight)
    out: np.ndarray = labels[empty.point_index(board, hand)[0]]
    return out


BUCKET_STRATEGY_FORMAT = "subgame-bucket-strategy"
#: Version 2 embeds version-2 buckets (canonical boards only).
BUCKET_STRATEGY_VERSION = 2


@dataclass(frozen=True, eq=False)
class BucketStrategy:
    """A card-abstracted blueprint stored per abstract information set, never per real one.

    Each player's strategy is one row per (betting sequence, board size, bucket) key of
    :meth:`CardBuckets.infoset_key`; a real information set plays its key's row. This is
    the form a blueprint of a game too big to compile takes (Brown & Sandholm 2017 §7 solve
    NLFH's flop in buckets): :meth:`rows` gives the rows of any tree compiled from the game,
    a trunk or a forest of boards, which is what the board pass of
    :mod:`subgame.eval.board_pass` reads.

    Attributes:
        buckets: the card abstraction.
        keys: per player, [K_p] the abstract information sets.
        probs: per player, [K_p, A_p] the strategy of each.
    """

    buckets: CardBuckets
    keys: tuple[tuple[tuple[tuple[str, ...], int, int], ...], tuple[tuple[tuple[str, ...], int, int], ...]]
    probs: tuple[np.ndarray, np.ndarray]

    @staticmethod
    def of(game: PokerGame, buckets: CardBuckets, tree: PublicTree, abstraction: Abstraction,
           probs: Sequence[np.ndarray]) -> BucketStrategy:
        """The blueprint of a solve in ``abstraction`` (``buckets.abstraction(game, tree)``): one row per bucket."""
        keys, rows = [], []
        for p, pa in enumerate(tree.players):
            b = abstraction.buckets[p]
            first = np.unique(b, return_index=True)[1]  # one information set per bucket, in bucket order
            keys.append(tuple(buckets.infoset_key(game, tree.public_key[pa.node[pa.infoset_priv[i]]],
                                                  pa.label[pa.infoset_priv[i]]) for i in first))
            rows.append(np.asarray(probs[p])[first])
        return BucketStrategy(buckets, (keys[0], keys[1]), (rows[0], rows[1]))

    @property
    def game_id(self) -> str:
        return self.buckets.game_id

    def rows(self, game: PokerGame, tree: PublicTree, player: int) -> np.ndarray:
        """[I, A] the rows of ``player``'s information sets of ``tree`` (compiled from ``game``).

        Raises:
            GameDefinitionError: the tree is of another game, or an information set whose
                key the blueprint lacks.
        """
        if tree.game_id != self.game_id:
            raise GameDefinitionError(f"this blueprint is for game {self.game_id!r}, not {tree.game_id!r}")
        pa, cb = tree.players[player], self.buckets
        sequences, node_of, bucket = abstract_infosets(game, cb, tree, player)
        row_of = np.full((len(sequences), max(cb.num_buckets)), -1, dtype=np.int64)  # [U, B] row of each bucket at a node
        index = self._index[player]
        for u, (betting, size) in enumerate(sequences):
            count = cb.num_buckets[[b.shape[1] for b in cb.boards].index(size)]
            row_of[u, :count] = [index.get((betting, size, b), -1) for b in range(count)]
        at = row_of[node_of, bucket]
        if np.any(at < 0):
            i = int(np.flatnonzero(at < 0)[0])
            raise GameDefinitionError(f"the blueprint has no row for information set {pa.label[pa.infoset_priv[i]]!r} "
                                      f"at {list(tree.public_key[pa.node[pa.infoset_priv[i]]])!r} of player {player}")
        return self.probs[player][at, : pa.max_actions]

    @cached_property
    def _index(self) -> tuple[dict[tuple[tuple[str, ...], int, int], int], ...]:
        return tuple({k: i for i, k in enumerate(ks)} for ks in self.keys)

    def save(self, path: str | Path, **meta: object) -> Path:
        """Write the blueprint with its buckets to one versioned ``.npz`` file (atomically)."""
        b = self.buckets
        header = {"format": BUCKET_STRATEGY_FORMAT, "version": BUCKET_STRATEGY_VERSION, **b._header(), "meta": meta,
                  "keys": [[[list(k[0]), k[1], k[2]] for k in ks] for ks in self.keys]}
        return write_npz(path, header, {**b._arrays(), "probs_0": self.probs[0], "probs_1": self.probs[1]})

    @staticmethod
    def load(path: str | Path) -> tuple[BucketStrategy, dict[str, object]]:
        """Read a file written by :meth:`save`: the blueprint and the ``meta`` it records."""
        header, arrays = read_npz(path, format=BUCKET_STRATEGY_FORMAT, version=BUCKET_STRATEGY_VERSION,
                                  kind="bucket-strategy", expected="a card-abstracted blueprint (BucketStrategy.save)")
        buckets = CardBuckets._of(path, header, arrays, "bucket-strategy")
        try:
            probs = (arrays["probs_0"], arrays["probs_1"])
        except KeyError as exc:
            raise StrategyFileError(f"{path}: bucket-strategy file without its array {exc.args[0]!r}") from None
        keys = tuple(tuple((tuple(k[0]), int(k[1]), int(k[2])) for k in ks) for ks in header["keys"])
        return BucketStrategy(buckets, (keys[0], keys[1]), probs), dict(header.get("meta", {}))


def abstract_infosets(
    game: PokerGame, buckets: CardBuckets, tree: PublicTree, player: int, columns: np.ndarray | None = None
) -> tuple[list[tuple[tuple[str, ...], int]], np.ndarray, np.ndarray]:
    """Where each of ``player``'s information sets of ``tree`` falls in the card abstraction.

    The abstract key of an information set (:meth:`CardBuckets.infoset_key`) is its public
    node's (betting sequence, board size) and its hand's bucket on the node's board; this
    computes both for every information set with one Python step per public node, never
    per private state. ``columns`` [G] gives the hand of every private state as its row of
    :attr:`CardBuckets.hands` where the caller knows it without reading labels (default:
    from :func:`~subgame.tree.poker_compile.state_hands` and :func:`hand_columns`).

    Returns:
        ``(sequences, node_of, bucket)``: [U] the (betting sequence, board size) of each
        public node holding ``player``'s information sets, [I] the index into it of each
        information set, [I] the bucket of each (-1 never occurs in a tree of the game).
    """
    pa = tree.players[player]
    nodes, node_of = np.unique(pa.node[pa.infoset_priv], return_inverse=True)
    if columns is None:
        columns = hand_columns(game, buckets)[state_hands(game, tree, player)]
    hand = columns[pa.infoset_priv]
    hand_bucket = np.empty((nodes.size, buckets.hands.shape[0]), dtype=np.int64)  # [U, H] bucket of each hand at a node
    sequences = []
    cards = _card_index(game)
    for u, n in enumerate(nodes.tolist()):  # one per public node
        betting, board = _split_public(game, tree.public_key[n], cards)
        hand_bucket[u] = buckets.hand_buckets(board)
        sequences.append((betting, len(board)))
    return sequences, node_of.reshape(-1), hand_bucket[node_of, hand]


def hand_columns(game: PokerGame, buckets: CardBuckets) -> np.ndarray:
    """[H] the row of :attr:`CardBuckets.hands` of each hand of :func:`~subgame.tree.poker_compile.deal_hands`."""
    out: np.ndarray = buckets._iso.hand_rows(deal_hands(game))
    return out


def is_bucket_strategy_file(path: str | Path) -> bool:
    """Whether ``path`` is a file written by :meth:`BucketStrategy.save`."""
    try:
        BucketStrategy.load(path)
    except StrategyFileError:
        return False
    return True
