"""No-limit flop hold'em: the rules as a parameter set of the poker family, and its size counted without building it."""

from __future__ import annotations

import pytest

from subgame.errors import GameDefinitionError
from subgame.games import load_game
from subgame.games.base import CHANCE
from subgame.games.poker.game import CALL
from subgame.tree.compile import compile_game
from subgame.tree.estimate import estimate_size


def _after_deal(game):
    st = game.root()
    while game.actor(st) == CHANCE:
        st = game.next_state(st, game.chance_outcomes(st)[0][0])
    return st


def test_nlfh_deals_two_hole_cards_and_a_three_card_flop():
    game = load_game("nlfh", num_ranks=4, num_suits=2)
    s = game.spec
    assert (s.hole_cards, s.board_cards, s.betting) == (2, (0, 3), "nolimit")
    st = _after_deal(game)
    assert [len(h) for h in st.hole] == [2, 2]
    # the small blind (player 1, the button) acts first preflop; after call and check the flop is dealt
    assert st.contrib == (100, 50) and game.actor(st) == 1
    st = game.next_state(st, CALL)
    st = game.next_state(st, CALL)
    assert game.actor(st) == CHANCE
    deal = game.chance_outcomes(st)
    st = game.next_state(st, deal[0][0])
    assert len(st.board) == 3 and game.actor(st) == 0  # the big blind acts first on the flop


def test_nlfh_bet_sizes_per_round_come_from_its_parameters():
    game = load_game("nlfh", num_ranks=4, num_suits=2, preflop_fractions="0.5", flop_fractions="0.5,1,2", raise_cap=1)
    assert game.spec.round_bet_fractions == ((0.5,), (0.5, 1.0, 2.0))
    st = _after_deal(game)
    assert len(game.legal_actions(st)) == 4  # fold, call, half pot, all-in


@pytest.mark.parametrize("params", [{"num_ranks": 4, "num_suits": 2}, {"num_ranks": 3, "num_suits": 3, "raise_cap": 1}])
@pytest.mark.slow
def test_the_size_estimate_counts_the_compiled_nlfh_tree(params):
    game = load_game("nlfh", **params)
    est = estimate_size(game)
    tree = compile_game(game)
    assert est.exact
    assert est.public_nodes == tree.num_nodes
    assert est.private_states == (tree.players[0].num_states, tree.players[1].num_states)
    infosets = [pa.num_infosets for pa in tree.players]
    assert est.infoset_actions == tuple(n * pa.max_actions for n, pa in zip(infosets, tree.players))


def test_the_full_deck_is_counted_without_building_it():
    est = estimate_size(load_game("nlfh"))
    # every public node at the flop holds C(47, 2) hands per player, so the count is far beyond a compile
    assert est.exact and est.private_states[0] > 10**9


def test_nlfh_refuses_a_deck_too_small_for_its_deal():
    with pytest.raises(GameDefinitionError, match="the deal needs 7 cards"):
        load_game("nlfh", num_ranks=3, num_suits=2)


def test_nlfh_refuses_a_small_blind_above_the_big_blind():
    with pytest.raises(GameDefinitionError, match="small blind"):
        load_game("nlfh", small_blind=200)
