"""Showdowns for every hand at once (compiled pass and numpy stand-in) against treys and the numpy strengths."""

from __future__ import annotations

import os

import numpy as np
import pytest

from subgame.blueprint.buckets4 import Buckets4Config, FourRoundBuckets
from subgame.errors import GameDefinitionError
from subgame.games.poker import showdown
from subgame.games.poker.evaluator import hand_values

REQUIRED = os.environ.get("SUBGAME_REQUIRE_KERNELS") == "1"
RANKS, SUITS = "23456789TJQKA", "shdc"


def _deal(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    return np.argsort(rng.random((m, 52)), axis=1)[:, :n]


@pytest.fixture(params=["compiled", "numpy"])
def engine(request, monkeypatch):
    if request.param == "compiled":
        if not showdown.available():
            assert not REQUIRED, "the compiled showdowns were not built"
            pytest.skip("the compiled showdowns were not built (no C compiler at install)")
    else:
        monkeypatch.setattr(showdown, "_LIB", None)
    return request.param


def test_built_where_required():
    assert showdown.available() or not REQUIRED


@pytest.mark.parametrize("n", [5, 6, 7])
def test_values_equal_the_table_evaluator(engine, n):
    hands = _deal(np.random.default_rng(n), 3000, n)
    np.testing.assert_array_equal(showdown.values(hands), hand_values(hands))


def test_equity_against_treys_brute_force(engine):
    """Each hand's equity on a river board against random weights, by one treys evaluation per opponent hand."""
    treys = pytest.importorskip("treys")
    evaluator = treys.Evaluator()
    rng = np.random.default_rng(7)
    board = _deal(rng, 1, 5)[0]
    weights = rng.random(len(showdown.HANDS))
    got = showdown.equity(board, weights)

    def card(c: int) -> int:
        return treys.Card.new(RANKS[c // 4] + SUITS[c % 4])

    tboard = [card(c) for c in board.tolist()]
    rank = {tuple(h): evaluator.evaluate([card(c) for c in h], tboard)
            for h in showdown.HANDS.tolist() if not set(h) & set(board.tolist())}
    for i in rng.choice(np.flatnonzero(~np.isnan(got)), 4, replace=False).tolist():
        mine = tuple(showdown.HANDS[i].tolist())
        num = den = 0.0
        for o, r in rank.items():
            if set(o) & set(mine):
                continue
            w = weights[showdown.HANDS.tolist().index(list(o))]
            num += w * (1.0 if rank[mine] < r else 0.5 if rank[mine] == r else 0.0)  # treys: lower is better
            den += w
        assert got[i] == pytest.approx(num / den, abs=1e-12)
    assert np.isnan(got[np.isin(showdown.HANDS, board).any(axis=1)]).all()


def test_compiled_equals_numpy_on_turn_and_river():
    if not showdown.available():
        pytest.skip("the compiled showdowns were not built")
    rng = np.random.default_rng(3)
    weights = rng.random(len(showdown.HANDS)) * (rng.random(len(showdown.HANDS)) < 0.3)
    lib = showdown._LIB
    for size in (5, 4):
        board = _deal(rng, 1, size)[0]
        compiled = showdown.equity(board, weights)
        showdown._LIB = None
        try:
            dense = showdown.equity(board, weights)
            cdf = showdown.strength_cdfs(board[:4], 8)
        finally:
            showdown._LIB = lib
        np.testing.assert_allclose(compiled, dense, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(np.isnan(compiled), np.isnan(dense))
        np.testing.assert_array_equal(showdown.strength_cdfs(board[:4], 8), cdf)  # integer counts: bitwise


def test_strengths_bitwise_the_four_round_buckets(engine):
    """The uniform-opponent strength is the numpy inclusion-exclusion of the four-round buckets, bit for bit."""
    shell = FourRoundBuckets(Buckets4Config(13, 4, 2, (0, 3, 1, 1), (169, 2, 2, 2)), tuple(np.zeros((0, 1)) for _ in range(4)))
    boards = np.sort(_deal(np.random.default_rng(11), 6, 5), axis=1)
    np.testing.assert_array_equal(showdown.strengths(boards, hands=shell.iso.hands), shell.strengths(boards))


def test_flop_sums_are_the_turn_sums(engine):
    """A flop's completions are the turn boards' completions, each unordered (turn, river) pair met twice: the flop's
    sums are half the turns' summed over every turn card, so its equity is their ratio."""
    if engine == "numpy":
        pytest.skip("a flop by the dense stand-in takes minutes")
    rng = np.random.default_rng(5)
    flop = _deal(rng, 1, 3)[0]
    weights = rng.random(len(showdown.HANDS))
    hands = showdown._hands(None)
    num, den = np.zeros(len(hands)), np.zeros(len(hands))
    for turn in sorted(set(range(52)) - set(flop.tolist())):  # one pass per turn card
        n, d = showdown._equity_sums(hands, showdown._board(np.append(flop, turn)), weights)
        num, den = num + n, den + d
    flop_num, flop_den = showdown._equity_sums(hands, showdown._board(flop), weights)
    np.testing.assert_allclose(2 * flop_num, num, rtol=1e-12)
    np.testing.assert_allclose(2 * flop_den, den, rtol=1e-12)


@pytest.mark.parametrize("size", [5, 4, 3])
def test_one_hands_scores_give_its_equity_against_any_range(engine, size):
    """w @ hand_scores / (the weight it can meet) is the hand's row of equity(board, w), for several ranges at once."""
    if engine == "numpy" and size == 3:
        pytest.skip("a flop by the dense stand-in takes minutes")
    rng = np.random.default_rng(size)
    cards = rng.permutation(52)[: size + 2]
    board, mine = cards[:size], cards[size:]
    scores = showdown.hand_scores(board, mine)
    free = ~np.isin(showdown.HANDS, cards).any(axis=1)
    assert (scores[~free] == 0).all()
    row = int(np.flatnonzero((np.sort(showdown.HANDS, axis=1) == np.sort(mine)).all(axis=1))[0])
    for w in rng.random((3, len(showdown.HANDS))):
        assert w @ scores / w[free].sum() == pytest.approx(showdown.equity(board, w)[row], abs=1e-12)


def test_bad_input_is_refused():
    with pytest.raises(GameDefinitionError, match="board"):
        showdown.equity(np.array([1, 1, 2]))
    with pytest.raises(GameDefinitionError, match="weights"):
        showdown.equity(np.array([1, 2, 3]), np.ones(5))
    with pytest.raises(GameDefinitionError, match="weights"):
        showdown.equity(np.array([1, 2, 3]), -np.ones(1326))
    with pytest.raises(GameDefinitionError, match="hands"):
        showdown.equity(np.array([1, 2, 3]), hands=np.array([[0, 0]]))
    with pytest.raises(GameDefinitionError, match="a hand is two"):
        showdown.hand_scores(np.array([1, 2, 3]), np.array([3, 4]))
    with pytest.raises(GameDefinitionError, match="bins"):
        showdown.strength_cdfs(np.array([1, 2, 3]), 1)
