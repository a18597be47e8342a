"""Hand-strength card abstraction for the poker family: features, clustering, bucket files.

A hand's *strength* on a complete board is its probability of beating a uniformly random
opponent hand that shares no card with it or the board (ties count one half). On an earlier
round the strength still to come is a random variable over the board cards not yet dealt;
its mean is the *expected hand strength* (EHS), its second moment EHS², and its histogram
over ``bins`` equal-width bins the *hand-strength distribution* of Johanson et al. 2013
("Evaluating State-Space Abstractions in Extensive-Form Games", distribution-aware
abstraction). Per betting round, every (board, hand) pair gets a bucket:

* on the last round, by 1-D k-means on the strength itself;
* on earlier rounds, by clustering the histograms under the earth mover's distance. In one
  dimension the EMD between two histograms is the L1 distance between their cumulative
  distributions (times the bin width), so Lloyd's alternation runs on the cumulative
  vectors with L1 assignments and, as the L1 centre of a cluster, its coordinate-wise
  median (a valid cumulative distribution again): k-medians on CDFs, which minimizes the
  clusters' summed EMD. This is the documented simpler variant of Johanson et al.'s EMD
  k-means (theirs uses an approximate EMD between bucket-based histograms); the seeds are
  chosen by k-means++ under the same distance.

Buckets have imperfect recall (a bucket forgets the earlier rounds' buckets); an information
set's abstract key is its betting sequence, its round and its bucket. Suit isomorphism:
isomorphic (board, hand) pairs have identical features, so the deterministic clustering (ties
to the lowest centre) gives them one bucket; features are computed for every pair, which is
what limits this module to small decks (the strengths are vectorized per board with
:func:`~subgame.tree.poker_operators.strength_keys` and the card-removal sums of the poker
operators). The buckets are saved to and loaded from a versioned file
(:meth:`CardBuckets.save`, :meth:`CardBuckets.load`) and turn into an
:class:`~subgame.solve.abstraction.Abstraction` of a compiled tree.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..files import read_npz, write_npz
from ..games.base import game_fingerprint
from ..games.poker.game import PokerGame
from ..tree.poker_compile import deal_hands, state_hands
from ..tree.poker_operators import CardRemoval, strength_keys
from ..tree.public_tree import PublicTree
from .abstraction import Abstraction, _card_index, _hole, _split_public

BUCKETS_FORMAT = "subgame-card-buckets"
#: (board, hand) pairs above this many per round are refused before any work (features are exact).
MAX_PAIRS = 5_000_000


@dataclass(frozen=True, eq=False)
class RoundFeatures:
    """Features of every (board, hand) pair of one betting round.

    ``B`` boards of ``b`` cards dealt so far, ``H`` hands of ``k`` hole cards; pairs that
    share a card are invalid.
    """

    boards: np.ndarray  #: [B, b] the boards, cards ascending
    hands: np.ndarray  #: [H, k] the hands, cards ascending
    valid: np.ndarray  #: [B, H] bool, the hand shares no card with the board
    ehs: np.ndarray  #: [B, H] expected final hand strength (0 where invalid)
    ehs2: np.ndarray  #: [B, H] its second moment
    histogram: np.ndarray  #: [B, H, bins] probability of each strength bin (last round: one-hot)


def _subsets(cards: Sequence[int] | np.ndarray, size: int) -> np.ndarray:
    """[C, size] every ``size``-subset of ``cards``, ascending (one empty row for size 0)."""
    if size == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.array(list(combinations(cards, size)), dtype=np.int64).reshape(-1, size)


def final_strengths(game: PokerGame, boards: np.ndarray, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[B, H] strength of every hand on every complete board, and [B, H] validity.

    Per board the hands disjoint from it are ordered with
    :func:`~subgame.tree.poker_operators.strength_keys` and the opponent hands weaker,
    stronger and disjoint are counted with :class:`~subgame.tree.poker_operators.CardRemoval`
    (card removal between the two hands included).
    """
    s = game.spec
    out = np.zeros((boards.shape[0], hands.shape[0]))
    valid = np.zeros(out.shape, dtype=bool)
    for i, board in enumerate(boards):
        ok = ~np.isin(hands, board).any(axis=1)
        h = hands[ok]
        full = np.hstack([h, np.broadcast_to(board, (h.shape[0], board.size))])
        removal = CardRemoval.build(h, strength_keys(full, s.num_ranks, s.num_suits))
        ones = np.ones((h.shape[0], 1))
        weaker, stronger = (x[:, 0] for x in removal.weaker_stronger(ones))
        total = removal.disjoint_sum(ones)[:, 0]
        out[i, ok] = np.divide(weaker + 0.5 * (total - weaker - stronger), total, out=np.full(total.shape, 0.5),
                               where=total > 0)
        valid[i, ok] = True
    return out, valid


def round_features(game: PokerGame, bins: int = 10) -> tuple[RoundFeatures, ...]:
    """The features of every betting round's (board, hand) pairs (see the module docstring).

    Raises:
        GameDefinitionError: a round has more than :data:`MAX_PAIRS` pairs.
    """
    if bins < 1:
        raise GameDefinitionError(f"the strength histogram needs at least one bin, got bins={bins}")
    s = game.spec
    deck = np.arange(s.deck_size)
    dealt = np.cumsum(s.board_cards)
    total = int(dealt[-1])
    hands = _subsets(deck, s.hole_cards)
    for b in dealt:
        pairs = comb(s.deck_size, int(b)) * hands.shape[0]
        if pairs > MAX_PAIRS:
            raise GameDefinitionError(
                f"{game.name}: {pairs} (board, hand) pairs on a round with {b} board cards; this abstraction computes "
                f"exact features and is limited to {MAX_PAIRS} (a smaller deck)"
            )
    final_boards = _subsets(deck, total)
    hs, hs_valid = final_strengths(game, final_boards, hands)
    final_index = {tuple(x): i for i, x in enumerate(final_boards)}
    rounds = []
    for b in dict.fromkeys(int(x) for x in dealt):  # rounds that deal no card share the previous round's boards
        boards = _subsets(deck, b)
        valid = ~(hands[None, :, :, None] == boards[:, None, None, :]).any(axis=(2, 3))  # [B, H]
        ehs = np.zeros(valid.shape)
        ehs2 = np.zeros(valid.shape)
        hist = np.zeros((*valid.shape, bins))
        for i, board in enumerate(boards):
            rest = np.setdiff1d(deck, board)
            rows = np.array([final_index[tuple(sorted((*board, *f)))] for f in _subsets(rest, total - b)], dtype=np.int64)
            v = hs_valid[rows]  # [C, H] completions disjoint from each hand
            x = hs[rows]
            n = v.sum(axis=0)
            safe = np.maximum(n, 1)
            ehs[i] = (x * v).sum(axis=0) / safe
            ehs2[i] = (x * x * v).sum(axis=0) / safe
            idx = np.minimum((x * bins).astype(np.int64), bins - 1)
            onehot = (idx[:, :, None] == np.arange(bins)) & v[:, :, None]
            hist[i] = onehot.sum(axis=0) / safe[:, None]
        rounds.append(RoundFeatures(boards, hands, valid, np.where(valid, ehs, 0.0), np.where(valid, ehs2, 0.0),
                                    np.where(valid[:, :, None], hist, 0.0)))
    return tuple(rounds)


def emd_kmedians(cdfs: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 100) -> np.ndarray:
    """[M] cluster of each cumulative distribution [M, bins] minimizing the summed L1 (1-D EMD) distance.

    k-means++ seeding under L1, then Lloyd's alternation with coordinate-wise medians as
    centres until the assignment stops changing (or ``iterations``); ties go to the lowest
    centre. Empty clusters keep their centre. Fewer distinct points than ``k`` give fewer
    clusters (the ids stay below ``k``).
    """
    m = cdfs.shape[0]
    k = min(k, m)
    centres = np.empty((k, cdfs.shape[1]))
    centres[0] = cdfs[rng.integers(m)]
    dist = np.abs(cdfs - centres[0]).sum(axis=1)
    for j in range(1, k):
        total = dist.sum()
        pick = rng.integers(m) if total <= 0 else int(np.searchsorted(np.cumsum(dist), rng.random() * total, side="right"))
        centres[j] = cdfs[min(pick, m - 1)]
        dist = np.minimum(dist, np.abs(cdfs - centres[j]).sum(axis=1))
    assign = np.full(m, -1, dtype=np.int64)
    for _ in range(iterations):
        new = np.abs(cdfs[:, None, :] - centres[None, :, :]).sum(axis=2).argmin(axis=1)
        if np.array_equal(new, assign):
            break
        assign = new
        for j in range(k):
            members = cdfs[assign == j]
            if members.shape[0]:
                centres[j] = np.median(members, axis=0)
    return assign


@dataclass(frozen=True, eq=False)
class CardBuckets:
    """The bucket of every (board, hand) pair of every betting round of one poker game.

    Attributes:
        game_id: fingerprint of the game (:func:`~subgame.games.base.game_fingerprint`).
        board_sizes: [R] board cards dealt by round r (rounds that deal none repeat the size).
        boards: per distinct board size, [B, b] the boards.
        hands: [H, k] the hands.
        buckets: per distinct board size, [B, H] the bucket (-1 for invalid pairs).
        num_buckets: per distinct board size, the buckets asked for.
        bins: histogram bins of the strength distribution.
    """

    game_id: str
    board_sizes: tuple[int, ...]
    boards: tuple[np.ndarray, ...]
    hands: np.ndarray
    buckets: tuple[np.ndarray, ...]
    num_buckets: tuple[int, ...]
    bins: int

    @staticmethod
    def build(game: PokerGame, num_buckets: Sequence[int], *, bins: int = 10, seed: int = 0) -> CardBuckets:
        """Cluster every round's pairs into ``num_buckets[r]`` buckets (one count per distinct board size)."""
        if not isinstance(game, PokerGame):
            raise GameDefinitionError(f"card abstraction is defined for the poker family, not {type(game).__name__}")
        feats = round_features(game, bins)
        if len(num_buckets) != len(feats) or any(int(n) < 1 for n in num_buckets):
            raise GameDefinitionError(
                f"{game.name}: give one bucket count >= 1 per round with a new board ({len(feats)}: boards of "
                f"{', '.join(str(f.boards.shape[1]) for f in feats)} cards), got {list(num_buckets)}"
            )
        rng = np.random.default_rng(seed)
        out = []
        for r, (f, k) in enumerate(zip(feats, num_buckets)):
            last = r == len(feats) - 1
            points = f.ehs[f.valid][:, None] if last else np.cumsum(f.histogram[f.valid], axis=1)
            labels = emd_kmedians(points, int(k), rng)
            # renumber by the clusters' mean EHS, so that bucket 0 is the weakest
            count = np.bincount(labels, minlength=int(k))
            mean = np.bincount(labels, weights=f.ehs[f.valid], minlength=int(k)) / np.maximum(count, 1)
            rank = np.empty(int(k), dtype=np.int64)
            rank[np.argsort(np.where(count > 0, mean, np.inf), kind="stable")] = np.arange(int(k))
            labels = rank[labels]
            b = np.full(f.valid.shape, -1, dtype=np.int64)
            b[f.valid] = labels
            out.append(b)
        return CardBuckets(game_fingerprint(game), tuple(int(x) for x in np.cumsum(game.spec.board_cards)),
                           tuple(f.boards for f in feats), feats[0].hands, tuple(out), tuple(int(n) for n in num_buckets),
                           bins)

    def bucket(self, board: Sequence[int], hand: Sequence[int]) -> int:
        """The bucket of one (board, hand) pair (cards in any order)."""
        return int(self.hand_buckets(board)[self._col(tuple(sorted(hand)))])

    def hand_buckets(self, board: Sequence[int]) -> np.ndarray:
        """[H] the bucket of every hand of :attr:`hands` on ``board`` (cards in any order; -1 where they overlap)."""
        r = [b.shape[1] for b in self.boards].index(len(board))
        return self.buckets[r][self._row(r, tuple(sorted(int(c) for c in board)))]

    @cached_property
    def _row_of(self) -> list[dict[tuple[int, ...], int]]:
        return [{tuple(int(c) for c in x): i for i, x in enumerate(b)} for b in self.boards]

    @cached_property
    def _col_of(self) -> dict[tuple[int, ...], int]:
        return {tuple(int(c) for c in x): i for i, x in enumerate(self.hands)}

    def _row(self, r: int, board: tuple[int, ...]) -> int:
        return self._row_of[r][board]

    def _col(self, hand: tuple[int, ...]) -> int:
        return self._col_of[hand]

    def abstraction(self, game: PokerGame, tree: PublicTree) -> Abstraction:
        """The tree's information sets bucketed by (betting sequence, round, bucket): imperfect recall."""
        if game_fingerprint(game) != self.game_id or tree.game_id != self.game_id:
            raise GameDefinitionError(f"these buckets are for game {self.game_id!r}, not {tree.game_id!r}")
        cap = tuple(self.num_buckets)

        def key(player: int, public_key: tuple[str, ...], label: str) -> Hashable:
            return self.infoset_key(game, public_key, label)

        return Abstraction.from_keys(tree, key, f"card-buckets-{'-'.join(map(str, cap))}")

    def infoset_key(self, game: PokerGame, public_key: tuple[str, ...], label: str) -> tuple[tuple[str, ...], int, int]:
        """The abstract information set of one information set: (betting sequence, board size, bucket)."""
        betting, board = _split_public(game, public_key)
        return (betting, len(board), self.bucket(board, _hole(game, label)))

    # -- files ----------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the buckets to a versioned ``.npz`` file (atomically)."""
        header = {"format": BUCKETS_FORMAT, "version": 1, "game_id": self.game_id, "board_sizes": list(self.board_sizes),
                  "num_buckets": list(self.num_buckets), "bins": self.bins}
        arrays = {"hands": self.hands}
        for r, (b, k) in enumerate(zip(self.boards, self.buckets)):
            arrays[f"boards_{r}"] = b
            arrays[f"buckets_{r}"] = k
        return write_npz(path, header, arrays)

    @staticmethod
    def load(path: str | Path) -> CardBuckets:
        """Read a file written by :meth:`save`; a clear error for any other file."""
        header, arrays = read_npz(path, format=BUCKETS_FORMAT, version=1, kind="card-buckets",
                                  expected="a card abstraction (subgame abstract ... --out FILE)")
        n = len(header["num_buckets"])
        try:
            boards = tuple(arrays[f"boards_{r}"] for r in range(n))
            buckets = tuple(arrays[f"buckets_{r}"] for r in range(n))
            hands = arrays["hands"]
        except KeyError as exc:
            raise StrategyFileError(f"{path}: card-bucket file without its array {exc.args[0]!r}") from None
        return CardBuckets(header["game_id"], tuple(header["board_sizes"]), boards, hands, buckets,
                           tuple(header["num_buckets"]), int(header["bins"]))


BUCKET_STRATEGY_FORMAT = "subgame-bucket-strategy"


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
        header = {"format": BUCKET_STRATEGY_FORMAT, "version": 1, "game_id": b.game_id, "board_sizes": list(b.board_sizes),
                  "num_buckets": list(b.num_buckets), "bins": b.bins, "meta": meta,
                  "keys": [[[list(k[0]), k[1], k[2]] for k in ks] for ks in self.keys]}
        arrays = {"hands": b.hands, "probs_0": self.probs[0], "probs_1": self.probs[1]}
        for r, (boards, bk) in enumerate(zip(b.boards, b.buckets)):
            arrays[f"boards_{r}"] = boards
            arrays[f"buckets_{r}"] = bk
        return write_npz(path, header, arrays)

    @staticmethod
    def load(path: str | Path) -> tuple[BucketStrategy, dict[str, object]]:
        """Read a file written by :meth:`save`: the blueprint and the ``meta`` it records."""
        header, arrays = read_npz(path, format=BUCKET_STRATEGY_FORMAT, version=1, kind="bucket-strategy",
                                  expected="a card-abstracted blueprint (BucketStrategy.save)")
        n = len(header["num_buckets"])
        try:
            buckets = CardBuckets(header["game_id"], tuple(header["board_sizes"]),
                                  tuple(arrays[f"boards_{r}"] for r in range(n)), arrays["hands"],
                                  tuple(arrays[f"buckets_{r}"] for r in range(n)), tuple(header["num_buckets"]),
                                  int(header["bins"]))
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
    return np.fromiter((buckets._col(tuple(int(c) for c in h)) for h in deal_hands(game)), dtype=np.int64)


def is_bucket_strategy_file(path: str | Path) -> bool:
    """Whether ``path`` is a file written by :meth:`BucketStrategy.save`."""
    try:
        BucketStrategy.load(path)
    except StrategyFileError:
        return False
    return True
