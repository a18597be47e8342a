"""AIVAT without a tree (the cards' value): every correction has mean zero, the estimate is unbiased and narrower."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from subgame.agents.aivat_poker import CardValues
from subgame.agents.baselines import CallAgent, RandomAgent
from subgame.agents.match import play_match
from subgame.games import load_game
from subgame.games.base import CHANCE
from subgame.games.poker import showdown
from subgame.games.poker.acpc import load_acpc_game
from subgame.games.poker.game import PokerGame
from subgame.tree.compile import compile_game
from tests.blueprint.conftest import REDUCED


def _deal(game: PokerGame, st, cards):
    """The state after dealing ``cards`` one chance move at a time (each a whole deal of its step)."""
    for c in cards:
        outcome = next(a for a, _ in game.chance_outcomes(st) if game.decode_deal(a, len(c)) == c)
        st = game.next_state(st, outcome)
    return st


def _zero_mean_at_every_deal_and_decision(game: PokerGame, st) -> None:
    values = CardValues(game)
    while game.actor(st) == CHANCE:
        outcomes = game.chance_outcomes(st)
        mean = sum(p * values.chance((), st, outcomes, a) for a, p in outcomes)
        assert mean == pytest.approx(0.0, abs=1e-12)
        st = game.next_state(st, outcomes[0][0])
    probs = dict(zip(game.legal_actions(st), np.random.default_rng(0).dirichlet(np.ones(len(game.legal_actions(st))))))
    assert sum(p * values.decision((), st, probs, a) for a, p in probs.items()) == pytest.approx(0.0, abs=1e-12)


def test_every_board_deal_and_decision_has_mean_zero_on_the_reduced_deck():
    """Every board card of a hand where both check to the river: its correction averages to zero over its outcomes
    (the equity before a card is the mean of the equities after it), and so does a decision's."""
    game = load_game("poker", **REDUCED)
    assert isinstance(game, PokerGame)
    st = _deal(game, game.root(), [(0,), (3,)])  # both hole cards
    for _ in range(3):
        while game.actor(st) != CHANCE:
            _zero_mean_at_every_deal_and_decision(game, st)
            st = game.next_state(st, 1)  # check / call
        _zero_mean_at_every_deal_and_decision(game, st)
        st = game.next_state(st, game.chance_outcomes(st)[0][0])


def test_hold_em_turn_and_river_deals_have_mean_zero_with_the_compiled_equity():
    if not showdown.available():
        pytest.skip("the compiled showdown pass was not built")
    game = load_acpc_game("tests/data/acpc/holdem_nolimit.game")
    values = CardValues(game)
    st = game.root()._replace(hole=((0, 13), (25, 51)), board=(2, 17, 30), round=1)
    for board in ((2, 17, 30), (2, 17, 30, 44)):
        st = st._replace(board=board, round=len(board) - 2, acted=0, to_act=0)
        assert game.actor(st) == 0
        dealt = st._replace(contrib=(300, 300), round=len(board) - 1)  # both checked: the next card is due
        outcomes = game.chance_outcomes(dealt)
        assert len(outcomes) == 52 - 4 - len(board)
        mean = sum(p * values.chance((), dealt, outcomes, a) for a, p in outcomes)
        assert mean == pytest.approx(0.0, abs=1e-9)
    # the equity against a brute force on the turn
    turn = (2, 17, 30, 44)
    rest = [c for c in range(52) if c not in turn + (0, 13, 25, 51)]
    wins = sum((a > b) + 0.5 * (a == b) for r in rest
               for a, b in [(game.strength((0, 13) + turn + (r,)), game.strength((25, 51) + turn + (r,)))])
    assert values.equity((0, 13), (25, 51), turn) == pytest.approx(wins / len(rest), abs=1e-12)


def test_without_a_tree_aivat_is_unbiased_and_narrower_on_the_reduced_deck():
    """Random against call, no tree: AIVAT's interval holds the exact value and is narrower than the duplicate mean's."""
    game = load_game("poker", **REDUCED)
    exact = play_match(game, compile_game(game), (RandomAgent(), CallAgent()), 1, seed=0).exact
    result = play_match(game, None, (RandomAgent(), CallAgent()), 400, seed=5)
    assert result.has_aivat and result.exact is None and "cards' value" in (result.values or "")
    aivat, plain = result.estimate("aivat"), result.estimate("plain")
    assert exact is not None and aivat.contains(result.scale * exact)
    assert aivat.std < 0.8 * plain.std
    again = play_match(game, None, (RandomAgent(), CallAgent()), 400, seed=5)
    np.testing.assert_array_equal(again.per_deal, result.per_deal)


def test_the_luck_of_an_all_in_is_its_equity():
    """Both all-in before the last card: the hand's chance corrections leave the pot times the equity then."""
    game = load_game("poker", **REDUCED)
    assert isinstance(game, PokerGame)
    values = CardValues(game)
    st = _deal(game, game.root(), [(0,), (3,)])
    v0 = values.value(st)
    total, hist = 0.0, ()
    while game.actor(st) != -2:
        if game.actor(st) == CHANCE:
            outcomes = game.chance_outcomes(st)
            total += values.chance(hist, st, outcomes, outcomes[-1][0])
            st = game.next_state(st, outcomes[-1][0])
        else:
            st = game.next_state(st, max(game.legal_actions(st)))  # shove, then call
            if game.actor(st) not in (CHANCE, -2):
                st = game.next_state(st, 1)
            v0 = values.value(st) if game.actor(st) == CHANCE else v0
    assert game.utility(st) - total == pytest.approx(v0, abs=1e-12)
    assert list(combinations(range(3), 2))  # the deck is small enough to enumerate
