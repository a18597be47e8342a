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
from dataclasses import dataclass, replace
from functools import cached_property
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..files import read_npz, write_npz
from ..games.base import game_fingerprint
from ..games.poker.game import PokerGame
from ..solve.abstraction import Abstraction, _card_index, _hole, _split_public
from ..tree.poker_compile import deal_hands, state_hands
from ..tree.poker_operators import colex_rank
from ..tree.public_tree import PublicTree
from .clustering import KMEANS_SAMPLE, _by_strength, _nearest_l1, _weighted_medians, emd_kmedians, kmeans_l2
from .hand_features import (
    MAX_PAIRS,
    CanonicalBoards,
    FinalStrengths,
    RoundFeatures,
    SuitIsomorphism,
    _board_sizes,
    board_features,
    colex_subsets,
    final_strengths,
    round_features,
)

__all__ = [
    "KMEANS_SAMPLE", "MAX_PAIRS", "BucketStrategy", "CanonicalBoards", "CardBuckets", "FinalStrengths", "RoundFeatures",
    "SuitIsomorphism", "_nearest_l1", "_weighted_medians", "abstract_infosets", "board_features", "colex_rank",
    "colex_subsets", "emd_kmedians", "final_strengths", "hand_columns", "is_bucket_strategy_file", "kmeans_l2",
    "round_features",
]

BUCKETS_FORMAT = "subgame-card-buckets"
#: Version 2 stores canonical boards only (version 1 stored every board).
BUCKETS_VERSION = 2
#: Strengths looked up to sum the distributions of earlier rounds (canonical board × completion × hand).
MAX_LOOKUPS = 1_000_000_000
#: Opponent clusters of the last round's OCHS (Johanson et al. 2013 use eight).
OPPONENT_CLUSTERS = 8


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

    def for_game(self, game: PokerGame) -> CardBuckets:
        """These buckets for another game with the same deck and deals (other bet sizes, a ``start``): the buckets are
        the cards', so a re-solve of a part of the game uses its blueprint's.

        Raises:
            GameDefinitionError: ``game`` deals other cards (deck, hole cards, board sizes or a known board).
        """
        s = game.spec
        same = (isinstance(game, PokerGame) and s.num_suits == self.num_suits and not s.board
                and tuple(int(x) for x in np.cumsum(s.board_cards)) == self.board_sizes
                and self.hands.shape == (comb(s.deck_size, s.hole_cards), s.hole_cards) and int(self.hands.max()) < s.deck_size)
        if not same:
            raise GameDefinitionError(f"{game.name}: its deck or deals are not those these buckets were built for; "
                                      "build buckets for it (CardBuckets.build)")
        return replace(self, game_id=game_fingerprint(game))

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
        for u, key in enumerate(sequences):
            rows = index.get(key)
            if rows is not None:
                row_of[u, : rows.size] = rows
        at = row_of[node_of, bucket]
        if np.any(at < 0):
            i = int(np.flatnonzero(at < 0)[0])
            raise GameDefinitionError(f"the blueprint has no row for information set {pa.label[pa.infoset_priv[i]]!r} "
                                      f"at {list(tree.public_key[pa.node[pa.infoset_priv[i]]])!r} of player {player}")
        return self.probs[player][at, : pa.max_actions]

    @cached_property
    def _index(self) -> tuple[dict[tuple[tuple[str, ...], int], np.ndarray], ...]:
        """Per player, per (betting sequence, board size): the row of each bucket there (-1 where none), made once, so
        that :meth:`rows` does no Python work per bucket (30,000 flop buckets a sequence)."""
        count = dict(zip((x.shape[1] for x in self.buckets.boards), self.buckets.num_buckets))  # buckets by board size
        out = []
        for ks in self.keys:
            by: dict[tuple[tuple[str, ...], int], list[tuple[int, int]]] = {}
            for i, (betting, size, b) in enumerate(ks):
                by.setdefault((betting, size), []).append((b, i))
            tables = {}
            for key, pairs in by.items():
                table = np.full(count[key[1]], -1, dtype=np.int64)
                b, i = np.array(pairs, dtype=np.int64).T
                table[b] = i
                tables[key] = table
            out.append(tables)
        return tuple(out)

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
    sequences = []
    boards: dict[tuple[int, ...], int] = {}  # each distinct board's row (a forest's nodes share a few boards)
    board_of = np.empty(nodes.size, dtype=np.int64)
    cards = _card_index(game)
    for u, n in enumerate(nodes.tolist()):  # one per public node
        betting, board = _split_public(game, tree.public_key[n], cards)
        board_of[u] = boards.setdefault(board, len(boards))
        sequences.append((betting, len(board)))
    hand_bucket = np.empty((len(boards), buckets.hands.shape[0]), dtype=np.int64)  # [B, H] bucket of each hand on a board
    for b, board in enumerate(boards):
        hand_bucket[b] = buckets.hand_buckets(board)
    node_of = node_of.reshape(-1)
    return sequences, node_of, hand_bucket[board_of[node_of], hand]


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
