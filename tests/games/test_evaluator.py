"""The table-driven hand evaluator against independent evaluators and hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.games.poker.evaluator import board_values, hand_values
from subgame.games.poker.hands import hand_strength
from subgame.games.poker.ranges import parse_cards


def _sign(x: np.ndarray) -> np.ndarray:
    return np.sign(x).astype(int)


def _random_hands(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    return np.argsort(rng.random((m, 52)), axis=1)[:, :n]


@pytest.mark.slow
def test_seven_card_order_matches_treys_on_random_hands():
    treys = pytest.importorskip("treys")
    rng = np.random.default_rng(20261124)
    hands = _random_hands(rng, 4000, 7)
    ours = hand_values(hands)
    evaluator = treys.Evaluator()

    def card(c: int) -> int:
        return treys.Card.new("23456789TJQKA"[c // 4] + "shdc"[c % 4])

    theirs = np.array([evaluator.evaluate([card(c) for c in h[:2]], [card(c) for c in h[2:]]) for h in hands.tolist()])
    i, j = rng.integers(0, len(hands), (2, 40000))
    np.testing.assert_array_equal(_sign(ours[i] - ours[j]), _sign(theirs[j] - theirs[i]))  # treys: lower is better
    assert len(np.unique(ours)) == len(np.unique(theirs))  # the same classes of equal hands


@pytest.mark.parametrize("n", [5, 6, 7])
@pytest.mark.slow
def test_order_matches_the_slow_evaluator(n):
    rng = np.random.default_rng(n)
    hands = _random_hands(rng, 1500, n)
    ours = hand_values(hands)
    slow = [hand_strength(tuple(h), 13, 4) for h in hands.tolist()]
    i, j = rng.integers(0, len(hands), (2, 3000))
    expected = [int(slow[a] > slow[b]) - int(slow[a] < slow[b]) for a, b in zip(i, j)]
    np.testing.assert_array_equal(_sign(ours[i] - ours[j]), expected)


@pytest.mark.parametrize(("better", "worse"), [
    ("As Ks Qs Js Ts 2c 2d", "9h 9c 9d 9s Ah Kc Qd"),  # royal flush over quads
    ("6h 5h 4h 3h 2h Kc Kd", "Ah Ac Ad Kh Ks Qc Qd"),  # six-high straight flush over aces full
    ("Ah Ac Ad Kh Ks Qc Qd", "Kh Kc Kd Ah As Qc Qd"),  # aces full of kings over kings full of aces
    ("Kh Kc Kd 3h 3s 3c Ad", "Kh Kc Kd 2h 2s Ac Qd"),  # two trips: kings full of threes over kings full of deuces
    ("2h 7h 9h Jh Kh Ac Ad", "Ts Jd Qc Kh Ac Ad Ah"),  # a flush over a straight
    ("6c 5d 4h 3s 2c Kd Kh", "5c 4d 3h 2s Ac Kd Qh"),  # six-high straight over the wheel
    ("5c 4d 3h 2s Ac Kd Qh", "Ac Ad Ah 9s 8c 2d 3h"),  # the wheel over trips
    ("Ac Ad Kh Kc 2s 3c 4d", "Ac Ad Qh Qc Js Jc 9d"),  # two pair: the higher second pair, not a third pair
    ("Ac Ad Kh Kc Qs 2c 3d", "Ac Ad Kh Kc Js Jc Td"),  # aces and kings: the kicker queen beats the jack
])
def test_known_comparisons(better, worse):
    a, b = hand_values(np.array([parse_cards(better), parse_cards(worse)]))
    assert a > b


def test_equal_hands_tie_whatever_their_suits():
    a, b = hand_values(np.array([parse_cards("Ac Kd Qh Js 9c 3d 2h"), parse_cards("Ad Kh Qs Jc 9h 3s 2c")]))
    assert a == b


def test_board_values_pair_each_hand_with_the_board():
    board = parse_cards("Js Ks 5c Qs 7d")
    hands = np.array([parse_cards("As Ts"), parse_cards("Ah Tc"), parse_cards("2c 3c")])
    v = board_values(np.array(board), hands)
    assert v[0] > v[1] > v[2]  # royal flush, broadway, king high


@pytest.mark.parametrize("bad", [np.zeros((2, 4), int), np.zeros((2, 8), int), np.array([[0, 1, 2, 3, 52]]),
                                 np.array([[0, 1, 2, 3, 3]]), np.zeros((2, 5))])
def test_bad_hands_are_refused(bad):
    with pytest.raises(GameDefinitionError):
        hand_values(bad)
