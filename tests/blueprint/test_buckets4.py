"""Four-round buckets: exact strengths with card removal, lossless preflop, suit isomorphism, determinism, files."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets, feature_error
from subgame.blueprint.deal_abstraction import load_deal_abstraction
from subgame.errors import GameDefinitionError
from subgame.games.poker.spec import PokerSpec
from subgame.tree.poker_operators import CardRemoval, strength_keys

SPEC = PokerSpec(num_ranks=5, num_suits=3, hole_cards=2, board_cards=(0, 3, 1, 1), betting="nolimit", ante=0,
                 blinds=(2, 1), stack=20, first_player=(1, 0, 0, 0))


@pytest.fixture(scope="module")
def buckets() -> FourRoundBuckets:
    return FourRoundBuckets.build(Buckets4Config.of(SPEC, (1, 6, 6, 8), rollouts=6, fit_boards=12))


@pytest.mark.parametrize("ranks, suits", [(5, 3), (13, 4)])
def test_strengths_match_card_removal_sums(ranks, suits):
    b = FourRoundBuckets(Buckets4Config(ranks, suits, 2, (0, 3, 1, 1), (1, 2, 2, 2)), (np.zeros((0, 1)),) * 4)
    boards = np.argsort(np.random.default_rng(1).random((4, ranks * suits)), axis=1)[:, :5]
    fast = b.strengths(boards)
    for i, board in enumerate(boards):  # the reference: the card-removal sums of the poker operators
        ok = ~np.isin(b.iso.hands, board).any(axis=1)
        h = b.iso.hands[ok]
        removal = CardRemoval.build(h, strength_keys(np.hstack([h, np.broadcast_to(board, (h.shape[0], 5))]), ranks, suits))
        ones = np.ones((h.shape[0], 1))
        weaker, stronger = (x[:, 0] for x in removal.weaker_stronger(ones))
        total = removal.disjoint_sum(ones)[:, 0]
        assert np.allclose(fast[i, ok], (weaker + 0.5 * (total - weaker - stronger)) / total, rtol=0, atol=1e-12)
        assert np.isnan(fast[i, ~ok]).all()


def test_preflop_is_lossless_suit_classes():
    b = FourRoundBuckets(Buckets4Config(13, 4, 2, (0, 3, 1, 1), (1, 2, 2, 2)), (np.zeros((0, 1)),) * 4)
    assert int(b.preflop.max()) + 1 == 169
    aces = b.iso.hand_rows(np.array([[48, 49], [50, 51]]))  # two pairs of aces, other suits
    assert b.preflop[aces[0]] == b.preflop[aces[1]]


def test_lookup_is_suit_invariant_and_deterministic(buckets):
    assert buckets.num_buckets == (25, 6, 6, 8)  # 5 ranks, 3 suits: 5 pairs, 10 suited, 10 offsuit
    rng = np.random.default_rng(3)
    cards = np.argsort(rng.random((120, 15)), axis=1)[:, :7]
    swap = np.array([3 * (c // 3) + [1, 0, 2][c % 3] for c in range(15)])  # exchange suits 0 and 1
    again = FourRoundBuckets.build(buckets.config)
    for r, b in ((1, 3), (2, 4), (3, 5)):
        x = buckets.buckets(r, cards[:, :2], cards[:, 2 : 2 + b])
        assert x.min() >= 0 and x.max() < buckets.num_buckets[r]
        assert np.array_equal(x, buckets.buckets(r, swap[cards[:, :2]], swap[cards[:, 2 : 2 + b]]))
        # bucketing boards in another order gives the same buckets
        assert np.array_equal(x[::-1], again.buckets(r, cards[::-1, :2], cards[::-1, 2 : 2 + b]))


def test_buckets_ordered_by_strength(buckets):
    boards = np.sort(np.argsort(np.random.default_rng(5).random((40, 15)), axis=1)[:, :5], axis=1)
    strength = buckets.strengths(boards)
    river = buckets.assign(3, np.nan_to_num(strength).reshape(-1, 1)).reshape(strength.shape)
    ok = ~np.isnan(strength)
    means = [strength[ok & (river == k)].mean() for k in range(8) if (ok & (river == k)).any()]
    assert np.all(np.diff(means) > 0)


def test_file_round_trip_keeps_the_cache(tmp_path, buckets):
    cards = np.argsort(np.random.default_rng(7).random((50, 15)), axis=1)[:, :5]
    x = buckets.buckets(1, cards[:, :2], cards[:, 2:5])
    loaded = load_deal_abstraction(str(buckets.save(tmp_path / "b4.npz")), SPEC)
    assert isinstance(loaded, FourRoundBuckets) and loaded.name == buckets.name
    assert loaded.boards_seen()[1] == buckets.boards_seen()[1] > 0
    assert np.array_equal(loaded.buckets(1, cards[:, :2], cards[:, 2:5]), x)
    other = PokerSpec(num_ranks=6, num_suits=3, hole_cards=2, board_cards=(0, 3, 1, 1), betting="nolimit", ante=0,
                      blinds=(2, 1), stack=20, first_player=(1, 0, 0, 0))
    with pytest.raises(GameDefinitionError, match="another deck"):
        load_deal_abstraction(str(tmp_path / "b4.npz"), other)


def test_sampled_futures_error_is_measured(buckets):
    emd, moved = feature_error(buckets, 2, boards=3)
    assert 0.0 < emd < 0.2 and 0.0 <= moved < 1.0
    finer = FourRoundBuckets(Buckets4Config.of(SPEC, (1, 6, 6, 8), rollouts=60, fit_boards=12), buckets.centres)
    assert feature_error(finer, 2, boards=3)[0] < emd  # more sampled futures, closer to the exact distribution


def test_bad_config():
    with pytest.raises(GameDefinitionError, match="one count >= 1 per round"):
        Buckets4Config.of(SPEC, (1, 6, 6))
    with pytest.raises(GameDefinitionError, match="hole cards"):
        Buckets4Config(5, 3, 3, (0, 3, 1, 1), (1, 2, 2, 2))


def test_exact_futures_are_every_completion(buckets):
    """rollouts = 0: a board's histogram is over every completion, so it is suit-symmetric by itself and the sampled
    futures' error against it is zero."""
    exact = FourRoundBuckets(Buckets4Config.of(SPEC, (1, 6, 6, 8), rollouts=0, fit_boards=12), buckets.centres)
    assert exact.name.endswith(":exact:fit12:seed0") and exact.name != buckets.name
    assert feature_error(exact, 2, boards=3) == (0.0, 0.0)
    board = np.array([0, 4, 8, 13])
    swap = np.array([3 * (c // 3) + [1, 0, 2][c % 3] for c in range(15)])
    f, g = exact.features(2, board[None, :])[0], exact.features(2, np.sort(swap[board])[None, :])[0]
    rows = exact.iso.hand_rows(np.sort(swap[exact.iso.hands], axis=1))
    np.testing.assert_array_equal(f, g[rows])  # the same histograms, hands renamed


def test_compiled_exact_histograms_equal_enumeration(monkeypatch):
    """On the 52-card deck the compiled histograms are the numpy enumeration's, bit for bit."""
    b = FourRoundBuckets(Buckets4Config(13, 4, 2, (0, 3, 1, 1), (1, 2, 2, 2)), (np.zeros((0, 1)),) * 4)
    if not b._compiled:
        pytest.skip("the compiled showdowns were not built")
    board = np.array([3, 17, 30, 44])
    compiled = b.exact_cdfs(board)
    monkeypatch.setattr(FourRoundBuckets, "_compiled", False)
    np.testing.assert_array_equal(FourRoundBuckets(b.config, b.centres).exact_cdfs(board), compiled)


def test_boards_of_another_round_refused_and_nothing_kept(buckets):
    """A board of two cards asked as a turn board is refused before anything is bucketed (it would be kept as the turn
    board of the same colex rank and answer later lookups of that board)."""
    cards = np.argsort(np.random.default_rng(3).random((4, 15)), axis=1)[:, :6]
    seen = buckets.boards_seen()
    with pytest.raises(GameDefinitionError, match="round 2 has boards of 4 cards"):
        buckets.buckets(2, cards[:, :2], cards[:, 2:5])
    assert buckets.boards_seen() == seen
