"""Multi-valued leaves before the flop's deal (the preflop re-solve of the depth-limited paper, App. A): the products
equal a brute-force walk of the blueprint over every board, the card removal equals the pair matrix's, sampled boards
converge to the exact table."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.blueprint.deal_abstraction import ExactCards
from subgame.blueprint.implicit_mccfr import available
from subgame.depthlimited.leaf import MultiValuedLeaf
from subgame.depthlimited.preflop_leaf import PreflopTable, PreflopValues, blocked_products
from subgame.errors import GameDefinitionError, SubgameError
from subgame.tree.poker_compile import compile_poker, deal_hands
from subgame.tree.public_state import subgame_at
from subgame.tree.public_tree import CHANCE_NODE, LEAF
from tests.agents.test_hunl_search import _blueprint, _game
from tests.depthlimited.test_poker_leaf import _brute, _mapping

pytestmark = pytest.mark.skipif(not available(), reason="the compiled loop of implicit MCCFR is not built")


@pytest.mark.parametrize("player", [0, 1])
def test_preflop_leaf_products_equal_the_brute_force(player):
    game, bp = _game(), _blueprint()
    sub = subgame_at(game, None, chance_limit=1, before_deal=True, leaf_histories=True)
    tree = sub.tree
    assert (tree.kind == LEAF).sum() >= 3 and not (tree.kind == CHANCE_NODE).any()
    mapping = _mapping(bp, tree, dealt=False)
    table = PreflopTable.build(game, bp, ExactCards(game.spec), 1 - player, 4)
    values = PreflopValues.build(game, tree, table, mapping)
    assert values.player == player
    opp = 1 - player
    states = np.flatnonzero(tree.kind[tree.players[opp].node] == LEAF)
    bound = values.bind(tree, states)
    G = _brute(game, tree, bp, mapping, player, 4, dealt=False)
    rng = np.random.default_rng(3)
    reach = rng.random(tree.players[player].num_states)
    split = rng.random((states.size, 4))
    signed = G if opp == 0 else -G.transpose(0, 2, 1)
    want_opp = np.stack([signed[k][states] @ reach for k in range(4)], axis=1)
    np.testing.assert_allclose(bound.opponent_values(reach), want_opp, rtol=1e-10, atol=1e-12)
    to_rho = -signed.transpose(0, 2, 1)
    want_rho = sum(to_rho[k][:, states] @ split[:, k] for k in range(4))
    np.testing.assert_allclose(bound.player_values(split), want_rho, rtol=1e-10, atol=1e-12)
    assert np.abs(want_opp).max() > 0 and not np.allclose(want_opp[:, 0], want_opp[:, 1])
    leaf = MultiValuedLeaf(tree, values)
    assert leaf.values(opp, (reach, np.ones(tree.players[1].num_states)) if player == 0 else
                       (np.ones(tree.players[0].num_states), reach), 1).shape == (tree.players[opp].num_states,)


@pytest.mark.parametrize("hole", [1, 2])
def test_card_removal_by_bucket_and_card_equals_the_pair_matrix(hole):
    """Each receiver hand's sum over the giver's hands disjoint from it, by inclusion and exclusion over the giver's
    sums per bucket and card, against the dense [hands × hands] matrix with the blocked pairs zeroed."""
    game = _game(num_ranks=4, num_suits=2, hole_cards=hole)
    hands = deal_hands(game)
    rng = np.random.default_rng(hole)
    H, C, J = hands.shape[0], 5, 3
    classes = (rng.integers(0, C, H), rng.integers(0, C, H))
    tables = rng.normal(size=(J, C, C))
    disjoint = ~(hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    dense = tables[:, classes[0][:, None], classes[1][None, :]] * disjoint  # [J, H, H]
    sides = ((classes[0], hands), (classes[1], hands))
    reach = rng.random((2, H))  # two leaves, the second with twice the first's tables
    both = np.stack([tables, 2 * tables])
    got = blocked_products(both, sides[0], sides[1], reach, game.spec.deck_size)
    for t in range(2):
        np.testing.assert_allclose(got[t], (1 + t) * np.einsum("jrg,g->rj", dense, reach[t]), rtol=1e-12)
    split = rng.random((2, H, J))
    got = blocked_products(both, sides[0], sides[1], split, game.spec.deck_size)
    for t in range(2):
        np.testing.assert_allclose(got[t], (1 + t) * np.einsum("jrg,gj->r", dense, split[t]), rtol=1e-12)


def test_sampled_boards_approach_the_exact_table():
    """One pair of hands a bucket pair on each of N boards drawn uniformly: the mean error falls as N grows, and the
    same seed gives the same table."""
    game, bp = _game(), _blueprint()
    node = bp.tree.child(bp.tree.child(0, "c"), "c")
    exact = PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2).values(node)
    errors = []
    for boards in (30, 3000):
        sampled = PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2, boards=boards, seed=5).values(node)
        errors.append(np.abs(sampled - exact).mean())
    assert errors[1] < errors[0] / 3 and errors[1] < 0.05 * np.abs(exact).mean()
    again = PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2, boards=30, seed=5).values(node)
    np.testing.assert_array_equal(again, PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2, boards=30,
                                                            seed=5).values(node))


def test_leaves_before_the_deal_compile_as_estimated_and_bad_input_is_refused():
    game = _game(bet_fractions=(0.5, 1.0, 2.0), raise_cap=2)
    from subgame.tree.estimate import estimate_size
    tree = compile_poker(game, chance_limit=1, before_deal=True)
    est = estimate_size(game, chance_limit=1, before_deal=True)
    assert est.public_nodes == tree.num_nodes and est.private_states[0] == tree.players[0].num_states
    assert all(k[-1][-1:] not in "shdc" or len(k[-1]) != 2 for k in (tree.public_key[int(n)] for n in
                                                                     np.flatnonzero(tree.kind == LEAF)))
    for bad in ({}, {"chance_limit": 0}, {"chance_limit": 1, "leaf_cards": (0,)}):
        with pytest.raises(GameDefinitionError, match="before_deal"):
            compile_poker(game, before_deal=True, **bad)
    bp = _blueprint()
    with pytest.raises(SubgameError, match="boards"):
        PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2, boards=0)
    with pytest.raises(SubgameError, match="MiB"):
        PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2, boards=50, max_bytes=1000)
    with pytest.raises(SubgameError, match="bucket sequences"):
        PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2, max_bytes=40_000).values(
            bp.tree.child(bp.tree.child(0, "c"), "c"))
    with pytest.raises(SubgameError, match="neither"):
        PreflopTable.build(game, bp, ExactCards(game.spec), 1, 2).values(0)
