"""Hand-strength card abstraction: features against brute force, clustering, suit isomorphism, files, quality."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest

from subgame.blueprint.card_abstraction import (
    CanonicalBoards,
    CardBuckets,
    SuitIsomorphism,
    emd_kmedians,
    final_strengths,
    kmeans_l2,
    round_features,
)
from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.compile import compile_game

NLFH_5x3 = {"num_ranks": 5, "num_suits": 3}
SMALL = {"num_ranks": 4, "num_suits": 2, "hole_cards": 1, "board_cards": (0, 1, 1), "raise_sizes": (2, 4, 4),
         "max_raises": (1, 1, 1), "first_player": (0, 0, 0)}  # two board rounds


@pytest.fixture(scope="module")
def leduc():
    return load_game("leduc")


def _brute_strength(game, board: tuple[int, ...], hand: tuple[int, ...]) -> float:
    """Win probability (ties one half) against every disjoint opponent hand, with the game's own evaluator."""
    deck = [c for c in range(game.spec.deck_size) if c not in board and c not in hand]
    mine = game.strength(hand + board)
    scores = []
    for other in combinations(deck, game.spec.hole_cards):
        theirs = game.strength(other + board)
        scores.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
    return float(np.mean(scores))


@pytest.mark.parametrize("params", [{}, SMALL])
def test_features_match_brute_force(params):
    game = load_game("leduc", **params)
    feats = round_features(game, bins=4)
    total = sum(game.spec.board_cards)
    for f in feats:
        for i, board in enumerate(f.boards):
            for j, hand in enumerate(f.hands):
                if set(board) & set(hand):
                    assert not f.valid[i, j]
                    continue
                rest = [c for c in range(game.spec.deck_size) if c not in board and c not in hand]
                finals = [_brute_strength(game, tuple(sorted((*board, *fut))), tuple(hand))
                          for fut in combinations(rest, total - len(board))]
                assert f.valid[i, j]
                assert f.ehs[i, j] == pytest.approx(np.mean(finals), abs=1e-12)
                assert f.ehs2[i, j] == pytest.approx(np.mean(np.square(finals)), abs=1e-12)
                assert f.histogram[i, j].sum() == pytest.approx(1.0)


def test_emd_kmedians_separates_groups_and_keeps_duplicates_together():
    rng = np.random.default_rng(0)
    low = np.cumsum(np.tile([[0.7, 0.2, 0.1, 0.0]], (5, 1)), axis=1)
    high = np.cumsum(np.tile([[0.0, 0.1, 0.2, 0.7]], (5, 1)), axis=1)
    mid = np.cumsum([[0.25, 0.25, 0.25, 0.25]], axis=1)
    labels = emd_kmedians(np.vstack([low, high, mid]), 3, rng)
    assert len(set(labels[:5])) == 1 and len(set(labels[5:10])) == 1
    assert len({labels[0], labels[5], labels[10]}) == 3
    assert len(set(emd_kmedians(np.vstack([low, low]), 4, rng))) == 1  # identical points, one cluster


def test_buckets_respect_suit_isomorphism():
    game = load_game("leduc", **SMALL)
    cb = CardBuckets.build(game, [3, 4, 5], bins=5, seed=2)
    swap = lambda c: c - c % 2 + (1 - c % 2)  # noqa: E731 (the suit permutation of a 2-suit deck)
    for boards, buckets in zip(cb.boards, cb.buckets):
        for i, board in enumerate(boards):
            for j, hand in enumerate(cb.hands):
                if buckets[i, j] >= 0:
                    assert cb.bucket([swap(c) for c in board], [swap(c) for c in hand]) == buckets[i, j]
    assert [int(b.max()) + 1 for b in cb.buckets] == [3, 4, 5]


def test_bucket_file_round_trip_and_refusals(leduc, tmp_path, kuhn_tree):
    cb = CardBuckets.build(leduc, [2, 3], seed=1)
    loaded = CardBuckets.load(cb.save(tmp_path / "b.npz"))
    assert loaded.game_id == cb.game_id and loaded.num_buckets == (2, 3) and loaded.bins == cb.bins
    assert all(np.array_equal(a, b) for a, b in zip(cb.buckets, loaded.buckets))
    path = CFRSolver(kuhn_tree).run(1).save_checkpoint(tmp_path / "ckpt.npz")
    with pytest.raises(StrategyFileError):
        CardBuckets.load(path)
    with pytest.raises(GameDefinitionError, match="not"):
        loaded.abstraction(load_game("kuhn"), kuhn_tree)
    with pytest.raises(GameDefinitionError, match="one bucket count"):
        CardBuckets.build(leduc, [3])


@pytest.mark.slow
def test_more_buckets_give_a_less_exploitable_blueprint(leduc, leduc_tree):
    """The decomposition paper's Fig. 5 measure: the abstract equilibrium's exploitability in the real game."""
    def exploit(counts: list[int]) -> float:
        abstraction = CardBuckets.build(leduc, counts, seed=0).abstraction(leduc, leduc_tree)
        avg = CFRSolver(leduc_tree, CFR_PLUS, abstraction=abstraction).run(300).average_strategy()
        return exploitability(leduc_tree, avg).exploitability

    coarse, middle, fine = exploit([1, 1]), exploit([2, 2]), exploit([3, 3])
    assert fine < middle < coarse
    assert compile_game(leduc).game_id == leduc_tree.game_id


@pytest.fixture(scope="module")
def nlfh_5x3():
    return load_game("nlfh", **NLFH_5x3)


def test_final_strengths_on_every_board_match_brute_force():
    """Strengths looked up through the canonical board (three suits) against the game's own evaluator."""
    game = load_game("nlfh", num_ranks=4, num_suits=3)
    hands = np.array(list(combinations(range(12), 2)))
    boards = np.array(list(combinations(range(12), 3)))[::7]
    x, valid = final_strengths(game, boards, hands)
    for i, board in enumerate(boards):
        for j, hand in enumerate(hands):
            if set(board) & set(hand):
                assert not valid[i, j]
            else:
                assert x[i, j] == pytest.approx(_brute_strength(game, tuple(board), tuple(hand)), abs=1e-12)


@pytest.mark.parametrize("name, params, counts", [
    ("nlfh", NLFH_5x3, [12, 40]),
    ("nlfh", {"num_ranks": 4, "num_suits": 4}, [8, 150]),
    ("leduc", SMALL, [3, 4, 5]),
])
@pytest.mark.slow
def test_canonical_boards_give_the_buckets_of_features_on_every_board(name, params, counts):
    """Features on canonical boards only, mapped by the suit permutation, bucket every pair as features on every board do."""
    game = load_game(name, **params)
    iso = CardBuckets.build(game, counts, seed=3)
    plain = CardBuckets.build(game, counts, seed=3, isomorphism=False)
    assert [b.shape[0] for b in plain.boards] == [comb(game.spec.deck_size, b.shape[1]) for b in plain.boards]
    assert sum(b.shape[0] for b in iso.boards) < sum(b.shape[0] for b in plain.boards)
    np.testing.assert_array_equal(iso.opponent_cluster, plain.opponent_cluster)
    for r, every in enumerate(plain.boards):
        np.testing.assert_array_equal(iso.boards_buckets(every), plain.buckets[r])
        assert int(iso.buckets[r].max()) + 1 == min(counts[r], int(plain.buckets[r].max()) + 1)


def test_lossless_preflop_buckets_are_the_suit_isomorphism_classes(nlfh_5x3):
    cb = CardBuckets.build(nlfh_5x3, [105, 30], seed=0)
    pre = cb.hand_buckets([])
    ranks, suits = cb.hands // 3, cb.hands % 3
    classes = {(int(a), int(b), bool(s == t)) for (a, b), (s, t) in zip(ranks, suits)}
    assert len(classes) == 25 == len(set(pre.tolist())) == int(pre.max()) + 1  # 5 pairs, 10 suited, 10 offsuit
    key = ranks[:, 0] * 100 + ranks[:, 1] * 2 + (suits[:, 0] == suits[:, 1])
    same_class = key[:, None] == key[None, :]
    np.testing.assert_array_equal(pre[:, None] == pre[None, :], same_class)
    assert pre[np.flatnonzero(key == 4 * 100 + 4 * 2)[0]] == 24  # a pair of the top rank is the strongest class
    fewer = CardBuckets.build(nlfh_5x3, [10, 30], seed=0).hand_buckets([])
    assert int(fewer.max()) + 1 == 10  # fewer buckets than classes: clustered, every bucket used


@pytest.mark.slow
def test_the_last_round_uses_every_bucket_asked(nlfh_5x3):
    for k in (7, 300):
        cb = CardBuckets.build(nlfh_5x3, [25, k], seed=1)
        assert len(np.unique(cb.buckets[1][cb.buckets[1] >= 0])) == k
    classes = CanonicalBoards.of(SuitIsomorphism.of(5, 3, 2), 3).points()[0].size
    lossless = CardBuckets.build(nlfh_5x3, [25, classes], seed=1)
    assert len(np.unique(lossless.buckets[1][lossless.buckets[1] >= 0])) == classes
    # one opponent cluster is plain EHS, with few distinct values (whole numbers of half-wins against 45 hands)
    x, valid = final_strengths(nlfh_5x3, np.array(list(combinations(range(15), 3))), lossless.hands)
    ehs = CardBuckets.build(nlfh_5x3, [25, 300], seed=1, opponent_clusters=1)
    distinct = len(np.unique(x[valid]))
    assert distinct < 300 and (ehs.opponent_cluster == -1).all()
    assert len(np.unique(ehs.buckets[1][ehs.buckets[1] >= 0])) == distinct
    assert len(np.unique(CardBuckets.build(nlfh_5x3, [25, 30], seed=1, opponent_clusters=1).buckets[1])) == 30 + 1


def test_a_permuted_board_gives_the_permuted_buckets(nlfh_5x3):
    cb = CardBuckets.build(nlfh_5x3, [25, 60], seed=0)
    iso = SuitIsomorphism.of(5, 3, 2)
    rng = np.random.default_rng(4)
    for _ in range(30):
        board = rng.choice(15, size=3, replace=False)
        p = int(rng.integers(iso.perms.shape[0]))
        mine, theirs = cb.hand_buckets(board), cb.hand_buckets(iso.perms[p][board][::-1])  # any card order
        np.testing.assert_array_equal(theirs[iso.hand_perm[p]], mine)
        assert (mine < 0).sum() == 105 - 66 and all(mine[i] < 0 for i, h in enumerate(cb.hands) if set(h) & set(board))
        h = int(np.flatnonzero(mine >= 0)[0])
        assert cb.bucket(list(board), list(cb.hands[h][::-1])) == mine[h]
    with pytest.raises(GameDefinitionError, match="distinct cards"):
        cb.hand_buckets([0, 0, 1])
    with pytest.raises(GameDefinitionError, match="no round"):
        cb.hand_buckets([0, 1])
    with pytest.raises(GameDefinitionError, match="not a hand"):
        cb.bucket([0, 1, 2], [3, 99])


@pytest.mark.slow
def test_the_full_deck_has_1755_canonical_flops_and_1286792_flop_classes():
    """The counts of Waugh 2013 ("A fast and optimal hand isomorphism algorithm") for the flop."""
    flops = CanonicalBoards.of(SuitIsomorphism.of(13, 4, 2), 3)
    assert flops.boards.shape[0] == 1755 and flops.size.sum() == comb(52, 3)
    board, hand, weight = flops.points()
    assert board.size == 1_286_792 and weight.sum() == comb(52, 3) * comb(49, 2)


def test_kmeans_separates_groups_and_fills_empty_clusters():
    rng = np.random.default_rng(0)
    groups = np.vstack([np.full((50, 2), 0.0), np.full((50, 2), 1.0), [[0.0, 0.01]], [[5.0, 5.0]]])
    labels = kmeans_l2(groups, 4, rng)
    assert len(set(labels[:50])) == 1 and len(set(labels[50:100])) == 1 and len(set(labels)) == 4
    assert len(set(kmeans_l2(np.zeros((10, 3)), 4, rng))) == 1  # identical points, one cluster
    spread = rng.random((5000, 3))
    assert len(set(kmeans_l2(spread, 500, rng, sample=600).tolist())) == 500


def test_bucket_counts_are_checked(nlfh_5x3, tmp_path):
    with pytest.raises(GameDefinitionError, match=">= 1"):
        CardBuckets.build(nlfh_5x3, [25, 0])
    with pytest.raises(GameDefinitionError, match="only 30030"):
        CardBuckets.build(nlfh_5x3, [25, 30031])
    with pytest.raises(GameDefinitionError, match="one bucket count per round"):
        CardBuckets.build(nlfh_5x3, [25, 2.5])
    with pytest.raises(GameDefinitionError, match="poker family"):
        CardBuckets.build(load_game("goofspiel"), [1])
    with pytest.raises(GameDefinitionError, match="opponent cluster"):
        CardBuckets.build(nlfh_5x3, [25, 30], opponent_clusters=0)
    turn = load_game("leduc", num_ranks=13, num_suits=4, hole_cards=2, board_cards=(0, 4))
    with pytest.raises(GameDefinitionError, match="limited to"):  # refused before any work
        CardBuckets.build(turn, [5, 5])
    cb = CardBuckets.build(nlfh_5x3, [25, 30], seed=0)
    with pytest.raises(GameDefinitionError, match="not"):
        cb.abstraction(load_game("leduc"), compile_game(load_game("leduc")))


def test_version_1_bucket_files_are_refused_clearly(nlfh_5x3, tmp_path):
    from subgame.files import write_npz
    cb = CardBuckets.build(nlfh_5x3, [25, 30], seed=0)
    loaded = CardBuckets.load(cb.save(tmp_path / "b.npz"))
    for b in range(2):
        np.testing.assert_array_equal(loaded.buckets[b], cb.buckets[b])
    board = [14, 3, 7]
    np.testing.assert_array_equal(loaded.hand_buckets(board), cb.hand_buckets(board))
    old = write_npz(tmp_path / "old.npz", {"format": "subgame-card-buckets", "version": 1, "game_id": cb.game_id}, {})
    with pytest.raises(StrategyFileError, match="version 1 is not supported"):
        CardBuckets.load(old)


@pytest.mark.slow
def test_the_abstraction_numbers_buckets_like_infoset_keys():
    from subgame.solve.abstraction import Abstraction
    game = load_game("nlfh", num_ranks=4, num_suits=2)
    tree = compile_game(game)
    cb = CardBuckets.build(game, [16, 6], seed=0)
    fast = cb.abstraction(game, tree)
    slow = Abstraction.from_keys(tree, lambda p, public, label: cb.infoset_key(game, public, label))
    for p in (0, 1):
        np.testing.assert_array_equal(fast.buckets[p], slow.buckets[p])
        assert fast.num_buckets(p) > 6
