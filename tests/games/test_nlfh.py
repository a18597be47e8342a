"""No-limit flop hold'em: the rules as a parameter set of the poker family, and its size counted without building it."""

from __future__ import annotations

import numpy as np
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


_TABLE_2 = {"num_ranks": 4, "num_suits": 2, "preflop_fractions": (0.5, 0.75, 1.0), "flop_fractions": (0.5, 0.75, 1.0),
            "all_in": False, "round_raise_caps": (1, 3)}


def test_a_game_with_start_betting_is_the_part_of_the_game_after_it():
    """``start`` makes the subgame after a preflop bet a game of its own: the same tree as the part compiled below
    that public state of the whole game, node for node and state for state, and CFR solves both alike."""
    from subgame.solve.cfr import CFR_PLUS, CFRSolver
    from subgame.tree.part import compile_part

    whole = load_game("nlfh", **_TABLE_2)
    after = load_game("nlfh", start=(3,), **_TABLE_2)  # the small blind's 0.75-pot open
    assert after.start_names == ("r250",)
    assert after.root().contrib == (100, 250) and after.root().to_act == 0
    tree = compile_game(after)
    part = compile_part(whole, compile_game(whole), [compile_game(whole).node_of_key[("", "", "r250")]]).tree
    assert [k[:2] + ("r250",) + k[2:] for k in tree.public_key] == list(part.public_key)
    for a, b in zip(tree.players, part.players):
        assert (a.num_states, a.num_infosets) == (b.num_states, b.num_infosets)
        assert np.array_equal(a.legal, b.legal)
    solvers = [CFRSolver(t, CFR_PLUS) for t in (tree, part)]
    for s in solvers:
        for _ in range(5):
            s.step()
    for p in (0, 1):
        assert np.array_equal(solvers[0].average_strategy().probs[p], solvers[1].average_strategy().probs[p])
    est = estimate_size(after)
    assert est.public_nodes == tree.num_nodes
    assert est.private_states == (tree.players[0].num_states, tree.players[1].num_states)


def test_start_betting_is_checked_and_leaves_older_fingerprints_alone():
    assert "start" not in load_game("nlfh", **_TABLE_2).params  # files of games without it keep their ids
    with pytest.raises(GameDefinitionError, match="start action 2 .* not a check, call or bet where 1 .c. are"):
        load_game("nlfh", start=(3, 3), **_TABLE_2)  # one bet preflop: after the open only a call
    with pytest.raises(GameDefinitionError, match="after the first round's betting"):
        load_game("nlfh", start=(1, 1, 1), **_TABLE_2)  # limp, check: the flop comes next
    with pytest.raises(GameDefinitionError, match="start must be betting action ids"):
        load_game("nlfh", start=(0,), **_TABLE_2)
