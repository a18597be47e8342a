"""A four-round card abstraction for decks too big for exact features (the 52-card game): fitted on a sample, cached per board.

Per round, as in :mod:`subgame.blueprint.card_abstraction` but sized for hold'em:

* preflop: lossless, one bucket per class of suit-isomorphic hands (169 on 52 cards).
* the last round: 1-D k-means on the hand's strength (its exact probability of beating a
  uniform opponent hand, ties one half, with card removal).
* earlier rounds: k-medians under the earth mover's distance (L1 between cumulative
  histograms, ``bins`` equal-width bins) on the hand's *strength distribution* over the
  boards still to come (Johanson et al. 2013, distribution-aware abstraction).

Two documented approximations make the 52-card game fit a 2-core machine (the first optional):

1. *Sampled futures* (``rollouts > 0``). A board's strength distribution is the histogram
   over ``rollouts`` completions drawn uniformly (seeded by the board itself, so every run
   draws the same), not over all of them (1,081 turn and river cards after a flop).
   :func:`feature_error` measures what that costs against the exact distribution on sampled
   boards. With ``rollouts = 0`` the histogram is exact, over every completion (the
   52-card deck's compiled showdowns, :func:`~subgame.games.poker.showdown.strength_cdfs`:
   70 ms a flop, 3 ms a turn), and this approximation is gone.
2. *Centres fitted on a sample.* The k-means/k-medians centres are fitted on the pairs of
   ``fit_boards`` boards of each round drawn uniformly; every other pair goes to its nearest
   centre. Buckets are numbered by their centres' mean strength (bucket 0 weakest).

Any board's buckets are its canonical board's (suit isomorphism, with the hands renamed by
the permutation; hands that the canonical board's own suit symmetries exchange take the
bucket of the least of them, since sampled futures are not symmetric), computed the first time the board is met and kept in a table per round
indexed by the canonical board's colex rank: later lookups are a few array reads for a
whole batch. The abstraction is a pure function of its :class:`Buckets4Config` (the cache
only saves time), so a resumed run buckets the same, and the file stores the config, the
centres and the filled tables.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GameDefinitionError
from ..files import read_npz, write_npz
from ..games.poker import showdown
from ..games.poker.showdown import cumulative_histograms
from ..games.poker.spec import PokerSpec
from ..tree.poker_operators import colex_rank, strength_keys
from .clustering import _nearest_l1, _weighted_medians, emd_kmedians, kmeans_l2
from .hand_features import SuitIsomorphism, colex_subsets

BUCKETS4_FORMAT = "subgame-card-buckets4"
BUCKETS4_VERSION = 1
#: Points the earlier rounds' k-medians are fitted on (a uniform subsample of the fitted boards' pairs).
FIT_POINTS = 6000


@dataclass(frozen=True)
class Buckets4Config:
    """What defines a four-round abstraction.

    Attributes:
        num_ranks, num_suits, hole_cards, board_cards: the deck and deal.
        num_buckets: [R] buckets per round; the first is ignored (lossless preflop classes).
        bins: histogram bins of the strength distribution.
        rollouts: sampled completions per board on earlier rounds; 0: every completion (exact).
        fit_boards: boards sampled per round to fit the centres.
        seed: seeds the fit and (with each board) the rollouts.
    """

    num_ranks: int
    num_suits: int
    hole_cards: int
    board_cards: tuple[int, ...]
    num_buckets: tuple[int, ...]
    bins: int = 10
    rollouts: int = 0
    fit_boards: int = 60
    seed: int = 0

    def __post_init__(self) -> None:
        if len(self.num_buckets) != len(self.board_cards) or min(self.num_buckets) < 1:
            raise GameDefinitionError(f"buckets: give one count >= 1 per round ({len(self.board_cards)}), got "
                                      f"{list(self.num_buckets)}")
        if self.hole_cards not in (1, 2):
            raise GameDefinitionError(f"buckets: four-round buckets are for one or two hole cards, got {self.hole_cards}")
        if max(self.num_buckets) > 2**15 - 1 or self.bins < 2 or self.rollouts < 0 or self.fit_boards < 1:
            raise GameDefinitionError("buckets: counts up to 32,767, bins >= 2, rollouts >= 0 (0: exact) and "
                                      "fit_boards >= 1")

    @staticmethod
    def of(spec: PokerSpec, num_buckets: tuple[int, ...], **options: int) -> Buckets4Config:
        return Buckets4Config(spec.num_ranks, spec.num_suits, spec.hole_cards, tuple(spec.board_cards), num_buckets,
                              **options)

    @staticmethod
    def of_json(fields: dict[str, Any]) -> Buckets4Config:
        """The config :func:`dataclasses.asdict` wrote to a file's JSON header."""
        args: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
        return Buckets4Config(**args)

    @property
    def deck_size(self) -> int:
        return self.num_ranks * self.num_suits

    def board_size(self, rnd: int) -> int:
        return int(sum(self.board_cards[: rnd + 1]))


class FourRoundBuckets:
    """The buckets of every round (see the module docstring); a :class:`~subgame.blueprint.deal_abstraction.DealAbstraction`."""

    def __init__(self, config: Buckets4Config, centres: tuple[np.ndarray, ...]) -> None:
        self.config = config
        self.centres = centres  #: per round, [k, bins] cumulative histograms or [k, 1] strengths (empty preflop)
        c = config
        self._slot: list[np.ndarray] = [np.full(comb(c.deck_size, c.board_size(r)), -1, np.int32)
                                        for r in range(len(c.board_cards))]  #: [C(deck, b)] table row of a canonical board
        self._table: list[np.ndarray] = [np.zeros((0, self.iso.hands.shape[0]), np.int16) for _ in c.board_cards]
        self._rows = [0] * len(c.board_cards)

    # -- the DealAbstraction face -------------------------------------------------------------
    @property
    def name(self) -> str:
        c = self.config
        futures = f"rollouts{c.rollouts}" if c.rollouts else "exact"
        return (f"buckets4:{c.num_ranks}x{c.num_suits}:{'-'.join(map(str, self.num_buckets))}:bins{c.bins}:"
                f"{futures}:fit{c.fit_boards}:seed{c.seed}")

    @property
    def num_buckets(self) -> tuple[int, ...]:
        return tuple(int(self.preflop.max()) + 1 if self.config.board_size(r) == 0 else int(k.shape[0])
                     for r, k in enumerate(self.centres))

    def buckets(self, rnd: int, hands: np.ndarray, boards: np.ndarray) -> np.ndarray:
        """[n] bucket of each hand [n, k] on its board [n, b]; boards met for the first time are bucketed first.

        Raises:
            GameDefinitionError: boards of another size than round ``rnd``'s (they would be bucketed, and kept, as
                boards of that round).
        """
        if np.ndim(boards) != 2 or np.shape(boards)[1] != self.config.board_size(rnd):
            raise GameDefinitionError(f"round {rnd} has boards of {self.config.board_size(rnd)} cards; got boards of "
                                      f"shape {np.shape(boards)}")
        rows = self.iso.hand_rows(np.sort(np.asarray(hands, np.int64), axis=1))
        if self.config.board_size(rnd) == 0:
            out: np.ndarray = self.preflop[rows]
            return out
        cards = np.sort(np.asarray(boards, np.int64), axis=1)
        rank, perm = self._canonical(rnd, cards)
        new, first = np.unique(rank[self._slot[rnd][rank] < 0], return_index=True)
        if new.size:
            at = np.flatnonzero(self._slot[rnd][rank] < 0)[first]
            canon = np.sort(self.iso.perms[perm[at][:, None], cards[at]], axis=1)
            self._add(rnd, new, canon)
        out = self._table[rnd][self._slot[rnd][rank], self.iso.hand_perm[perm, rows]].astype(np.int64)
        return out

    def _canonical(self, rnd: int, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`SuitIsomorphism.canonical` of boards [n, b] (cards ascending), remembered per board met."""
        raw = colex_rank(cards)
        canon, perm = self._raw[rnd]
        unknown = canon[raw] < 0
        if unknown.any():
            canon[raw[unknown]], perm[raw[unknown]] = self.iso.canonical(cards[unknown])
        return canon[raw].astype(np.int64), perm[raw].astype(np.int64)

    @cached_property
    def _raw(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per round: [C(deck, b)] the canonical colex rank of each board met so far (-1: not yet) and [C(deck, b)]
        its permutation to it."""
        c = self.config
        return [(np.full(comb(c.deck_size, c.board_size(r)), -1, np.int32),
                 np.zeros(comb(c.deck_size, c.board_size(r)), np.int8)) for r in range(len(c.board_cards))]

    # -- building -------------------------------------------------------------------------------
    @cached_property
    def iso(self) -> SuitIsomorphism:
        c = self.config
        return SuitIsomorphism.of(c.num_ranks, c.num_suits, c.hole_cards)

    @cached_property
    def preflop(self) -> np.ndarray:
        """[H] the class of each hand under suit permutations (dense ids in colex order of the canonical hands)."""
        rank, _ = self.iso.canonical(self.iso.hands)
        out: np.ndarray = np.unique(rank, return_inverse=True)[1].reshape(-1)
        return out

    @staticmethod
    def build(config: Buckets4Config) -> FourRoundBuckets:
        """Fit every round's centres on ``config.fit_boards`` sampled boards (module docstring, approximation 2)."""
        rng = np.random.default_rng(config.seed)
        shell = FourRoundBuckets(config, tuple(np.zeros((0, 1)) for _ in config.board_cards))
        centres = []
        last = len(config.board_cards) - 1
        for r, k in enumerate(config.num_buckets):
            b = config.board_size(r)
            if b == 0:
                centres.append(np.zeros((0, 1)))
                continue
            boards = np.sort(np.argsort(rng.random((config.fit_boards, config.deck_size)), axis=1)[:, :b], axis=1)
            f = shell.features(r, boards)
            feats = f[~np.isnan(f[..., 0])]
            if r == last:
                labels = kmeans_l2(feats, k, rng)
                centre = np.array([feats[labels == j].mean(axis=0) for j in range(int(labels.max()) + 1)])
            else:
                pick = rng.choice(feats.shape[0], size=min(FIT_POINTS, feats.shape[0]), replace=False)
                x = feats[np.sort(pick)]
                labels = emd_kmedians(x, k, rng, iterations=30)
                used = int(labels.max()) + 1
                centre = _weighted_medians(x, np.ones(x.shape[0]), labels, used, np.zeros((used, x.shape[1])))
            strength = centre[:, 0] if r == last else (1.0 - centre).sum(axis=1)  # mean of the CDF's distribution
            centres.append(centre[np.lexsort((np.arange(centre.shape[0]), strength))])
        return FourRoundBuckets(config, tuple(centres))

    def features(self, rnd: int, boards: np.ndarray, chunk: int = 64) -> np.ndarray:
        """[m, H, d] every hand's features on each board [m, b] (NaN rows where a hand overlaps it): the strength on the
        last round, the cumulative histogram of sampled future strengths before (module docstring, approximation 1)."""
        c = self.config
        boards = np.asarray(boards, np.int64).reshape(len(boards), -1)
        total = c.board_size(len(c.board_cards) - 1)
        if boards.shape[1] == total:
            return np.concatenate([self.strengths(boards[lo : lo + chunk]) for lo in range(0, len(boards), chunk)])[..., None]
        if c.rollouts == 0:
            return np.stack([self.exact_cdfs(board) for board in boards])  # one per board
        futures = np.concatenate([self._futures(rnd, board) for board in boards])  # [m * rollouts, T], one per board
        values = np.concatenate([self.strengths(futures[lo : lo + chunk]) for lo in range(0, len(futures), chunk)])
        values = values.reshape(len(boards), c.rollouts, -1)
        out = cumulative_histograms(values, c.bins)
        short = np.isnan(out[..., 0]) & ~self._overlap(boards)  # hands every sampled future collided with
        for i in np.flatnonzero(short.any(axis=1)).tolist():  # rare: one per such board
            more, extra = values[i], 0
            while np.isnan(cumulative_histograms(more, c.bins)[..., 0])[short[i]].any():
                extra += 1
                more = np.concatenate([more, self.strengths(self._futures(rnd, boards[i], extra))])
            out[i] = cumulative_histograms(more, c.bins)
        return out

    def exact_cdfs(self, board: np.ndarray) -> np.ndarray:
        """[H, bins] every hand's cumulative histogram of its strength over every completion of ``board`` (NaN rows
        where a hand overlaps it): compiled on the 52-card deck, by enumeration elsewhere."""
        c = self.config
        if self._compiled:
            return showdown.strength_cdfs(board, c.bins, hands=self.iso.hands)
        total = c.board_size(len(c.board_cards) - 1)
        rest = np.setdiff1d(np.arange(c.deck_size), board)
        futures = np.array(list(combinations(rest.tolist(), total - board.size)), np.int64)
        full = np.hstack([np.broadcast_to(board, (len(futures), board.size)), futures])
        values = np.concatenate([self.strengths(full[lo : lo + 256]) for lo in range(0, len(full), 256)])
        return cumulative_histograms(values, c.bins)

    @cached_property
    def _compiled(self) -> bool:
        """Whether the compiled 52-card showdowns serve this deck (two hole cards, five board cards)."""
        c = self.config
        return (showdown.available() and (c.num_ranks, c.num_suits, c.hole_cards) == (13, 4, 2)
                and c.board_size(len(c.board_cards) - 1) == 5)

    def _overlap(self, boards: np.ndarray) -> np.ndarray:
        """[m, H] whether each hand shares a card with each board."""
        return (self.iso.hands[None, :, :, None] == boards[:, None, None, :]).any(axis=(2, 3))

    def _futures(self, rnd: int, board: np.ndarray, extra: int = 0) -> np.ndarray:
        """[rollouts, T] complete boards drawn uniformly after ``board``, seeded by the config and the board (and
        ``extra``: further draws for hands that every earlier one collided with)."""
        c = self.config
        total = c.board_size(len(c.board_cards) - 1)
        rest = np.setdiff1d(np.arange(c.deck_size), board)
        seed = [c.seed, rnd, int(colex_rank(np.sort(board)[None, :])[0]), extra]
        draws = np.random.default_rng(seed).random((c.rollouts, rest.size)).argsort(axis=1)[:, : total - len(board)]
        return np.hstack([np.broadcast_to(board, (c.rollouts, len(board))), rest[draws]])

    def strengths(self, boards: np.ndarray) -> np.ndarray:
        """[n, H] each hand's probability of beating a uniform opponent hand on each complete board [n, T] (NaN on overlap).

        With ``L(h)`` the valid hands (disjoint from the board) weaker than ``h`` and ``L_c(h)``
        those of them holding card ``c``, the opponents weaker than ``h`` that share no card
        with it are ``L(h) - Σ_{c∈h} L_c(h)`` (inclusion-exclusion; no other hand holds both
        cards of a two-card ``h``); ties and the opponents in all likewise, ``h`` itself added
        back once where it was removed twice.
        """
        c = self.config
        if self._compiled:
            return showdown.strengths(boards, hands=self.iso.hands)  # the same arithmetic, compiled
        hands = self.iso.hands
        n, k = boards.shape[0], hands.shape[1]
        overlap = self._overlap(boards)
        full = np.concatenate([np.broadcast_to(hands, (n, *hands.shape)),
                               np.broadcast_to(boards[:, None, :], (n, hands.shape[0], boards.shape[1]))], axis=2)
        big = np.iinfo(np.int64).max // 4
        keys = np.full(overlap.shape, big, np.int64)
        keys[~overlap] = strength_keys(full[~overlap], c.num_ranks, c.num_suits)
        below, ties, valid = _below_equal(keys, big)
        if k == 2:
            holders = self._holders  # [deck, deck-1] the hands holding each card
            b_c, e_c, v_c = _below_equal(keys[:, holders], big)  # [n, deck, deck-1] within each card's holders
            at = self._holder_slot  # [H, 2] each hand's place among the holders of its cards
            for j in range(k):
                card = hands[:, j]
                below = below - b_c[:, card, at[:, j]]
                ties = ties - e_c[:, card, at[:, j]]
                valid = valid - v_c[:, card, at[:, j]]
            ties, valid = ties + 1, valid + 1  # the hand itself: removed twice, added back once
        else:
            ties, valid = ties - 1, valid - 1  # the hand itself
        out = np.divide(below + 0.5 * ties, valid, out=np.full(keys.shape, 0.5), where=valid > 0)
        out[overlap] = np.nan
        return out

    @cached_property
    def _holder_slot(self) -> np.ndarray:
        """[H, k] the column of each hand in :attr:`_holders` of each of its cards."""
        hands = self.iso.hands
        rows = np.arange(hands.shape[0])
        return np.stack([np.argmax(self._holders[hands[:, j]] == rows[:, None], axis=1) for j in range(hands.shape[1])],
                        axis=1)

    @cached_property
    def _holders(self) -> np.ndarray:
        """[deck, m] the rows of :attr:`iso.hands` holding each card."""
        hands = self.iso.hands
        return np.stack([np.flatnonzero((hands == card).any(axis=1)) for card in range(self.config.deck_size)])

    def assign(self, rnd: int, feats: np.ndarray) -> np.ndarray:
        """[M] the bucket of each feature row [M, d] (nearest centre; ties to the weaker bucket)."""
        centre = self.centres[rnd]
        if rnd == len(self.config.board_cards) - 1:
            mid = (centre[1:, 0] + centre[:-1, 0]) / 2
            out: np.ndarray = np.searchsorted(mid, feats[:, 0], side="left")
            return out
        return _nearest_l1(feats, centre)[0]

    def _add(self, rnd: int, ranks: np.ndarray, boards: np.ndarray) -> None:
        """Bucket every hand on new canonical boards and append them to the round's table."""
        self.insert(rnd, ranks, self.board_rows(rnd, boards))

    def board_rows(self, rnd: int, boards: np.ndarray) -> np.ndarray:
        """[m, H] int16 the bucket of every hand on each canonical board [m, b] (-1 where it overlaps the board); a
        pure function of the config and centres (so any process computes the same rows)."""
        f = self.features(rnd, boards)  # [m, H, d]
        ok = ~np.isnan(f[..., 0])
        rows = np.full(ok.shape, -1, np.int16)
        rows[ok] = self.assign(rnd, f[ok])
        # hands a board's own suit symmetries exchange share a bucket: the least of them
        fixes = (np.sort(self.iso.perms[:, boards], axis=2) == boards[None]).all(axis=2)  # [P, m]
        sym = np.flatnonzero(fixes[1:].any(axis=0))  # boards fixed by more than the identity (few)
        least = np.where(fixes[:, sym, None], self.iso.hand_perm[:, None, :], rows.shape[1]).min(axis=0)  # [s, H]
        rows[sym] = np.take_along_axis(rows[sym], least, axis=1)
        return rows

    def insert(self, rnd: int, ranks: np.ndarray, rows: np.ndarray) -> None:
        """Append the rows [m, H] of canonical boards with colex ranks [m] (not bucketed yet) to the round's table."""
        need = self._rows[rnd] + ranks.size
        table = self._table[rnd]
        if need > table.shape[0]:
            grown = np.zeros((max(need, 2 * table.shape[0], 64), table.shape[1]), np.int16)
            grown[: table.shape[0]] = table
            self._table[rnd] = table = grown
        table[self._rows[rnd] : need] = rows
        self._slot[rnd][ranks] = np.arange(self._rows[rnd], need, dtype=np.int32)
        self._rows[rnd] = need

    def canonical_boards(self, rnd: int) -> tuple[np.ndarray, np.ndarray]:
        """Every canonical board of round ``rnd`` not bucketed yet: [m] colex ranks (ascending) and [m, b] boards."""
        every = colex_subsets(self.config.deck_size, self.config.board_size(rnd))
        own = np.arange(every.shape[0])
        canonical = (self.iso.canonical(every)[0] == own) & (self._slot[rnd] < 0)
        return own[canonical], every[canonical]

    def boards_seen(self) -> tuple[int, ...]:
        """[R] canonical boards bucketed so far per round."""
        return tuple(self._rows)

    # -- files -----------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the config, the centres and the boards bucketed so far to a versioned ``.npz`` file (atomically)."""
        header = {"format": BUCKETS4_FORMAT, "version": BUCKETS4_VERSION, "config": asdict(self.config)}
        arrays = {}
        for r in range(len(self.centres)):
            arrays[f"centres_{r}"] = self.centres[r]
            arrays[f"ranks_{r}"] = np.flatnonzero(self._slot[r] >= 0)
            arrays[f"table_{r}"] = self._table[r][self._slot[r][arrays[f"ranks_{r}"]]]
        return write_npz(path, header, arrays)

    @staticmethod
    def load(path: str | Path) -> FourRoundBuckets:
        """Read a file written by :meth:`save`."""
        header, arrays = read_npz(path, format=BUCKETS4_FORMAT, version=BUCKETS4_VERSION, kind="card-buckets4",
                                  expected="a four-round card abstraction (subgame blueprint --buckets-out)")
        config = Buckets4Config.of_json(header["config"])
        out = FourRoundBuckets(config, tuple(arrays[f"centres_{r}"] for r in range(len(config.board_cards))))
        for r in range(len(config.board_cards)):
            ranks, table = arrays[f"ranks_{r}"], arrays[f"table_{r}"]
            out._table[r] = table.astype(np.int16)
            out._slot[r][ranks] = np.arange(ranks.size, dtype=np.int32)
            out._rows[r] = int(ranks.size)
        return out


def feature_error(buckets: FourRoundBuckets, rnd: int, boards: int, seed: int = 0) -> tuple[float, float]:
    """What sampled futures cost on ``boards`` random boards of an earlier round: the mean EMD (in strength units)
    between sampled and exact strength distributions, and the share of pairs whose bucket changes."""
    c = buckets.config
    rng = np.random.default_rng(seed)
    emd, moved, pairs = 0.0, 0, 0
    for _ in range(boards):  # one per board
        board = np.sort(rng.permutation(c.deck_size)[: c.board_size(rnd)])
        sampled = buckets.features(rnd, board[None, :])[0]
        ok = ~np.isnan(sampled[:, 0])
        cdf = buckets.exact_cdfs(board)[ok]
        emd += float(np.abs(cdf - sampled[ok]).sum(axis=1).mean()) / c.bins
        moved += int((buckets.assign(rnd, cdf) != buckets.assign(rnd, sampled[ok])).sum())
        pairs += int(ok.sum())
    return emd / boards, moved / max(pairs, 1)


def _below_equal(keys: np.ndarray, big: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For keys [..., m]: per entry the entries of its row that are valid (< ``big``) and below it, equal to it
    (itself included), and valid in all; by one sort per row and tie groups found by running maxima."""
    order = np.argsort(keys, axis=-1, kind="stable")
    srt = np.take_along_axis(keys, order, axis=-1)
    m = keys.shape[-1]
    pos = np.broadcast_to(np.arange(m), keys.shape)
    new = np.ones(keys.shape, bool)
    new[..., 1:] = srt[..., 1:] != srt[..., :-1]
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=-1)
    last = np.ones(keys.shape, bool)
    last[..., :-1] = new[..., 1:]
    end = m - 1 - np.maximum.accumulate(np.where(last, m - 1 - pos, 0)[..., ::-1], axis=-1)[..., ::-1]
    below = np.empty(keys.shape, np.int64)
    equal = np.empty(keys.shape, np.int64)
    np.put_along_axis(below, order, start, axis=-1)
    np.put_along_axis(equal, order, end - start + 1, axis=-1)
    valid = np.broadcast_to((keys < big).sum(axis=-1, keepdims=True), keys.shape)
    return below, equal, valid
