"""Hand-strength card abstraction: features against brute force, EMD clustering, suit isomorphism, files, quality."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.solve.card_abstraction import CardBuckets, emd_kmedians, round_features
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.tree.compile import compile_game

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


def test_more_buckets_give_a_less_exploitable_blueprint(leduc, leduc_tree):
    """The decomposition paper's Fig. 5 measure: the abstract equilibrium's exploitability in the real game."""
    def exploit(counts: list[int]) -> float:
        abstraction = CardBuckets.build(leduc, counts, seed=0).abstraction(leduc, leduc_tree)
        avg = CFRSolver(leduc_tree, CFR_PLUS, abstraction=abstraction).run(300).average_strategy()
        return exploitability(leduc_tree, avg).exploitability

    coarse, middle, fine = exploit([1, 1]), exploit([2, 2]), exploit([3, 3])
    assert fine < middle < coarse
    assert compile_game(leduc).game_id == leduc_tree.game_id
