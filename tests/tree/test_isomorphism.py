"""Suit isomorphism: the folded tree gives the plain tree's values, best responses and CFR iterates."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.eval.best_response import counterfactual_values, exploitability
from subgame.games.poker import PokerGame
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.ranges import HANDS, Range, parse_board
from subgame.resolving.spots import canonical_deal_count, estimate_size, holdem_problem, spot_suits
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.solve.lp import solve_lp
from subgame.solve.mccfr import MCCFRSolver
from subgame.strategy import Strategy
from subgame.tree.isomorphism import suit_classes
from subgame.tree.poker_compile import compile_poker, deal_hands, state_hands
from subgame.tree.public_tree import CHANCE_NODE, PublicTree, infoset_index
from tests.toy_games import MONOTONE, TWO_ABSENT, R, S, card, small_holdem


def restricted(plain: PublicTree, iso: PublicTree, strategy: Strategy) -> Strategy:
    """``strategy`` of the plain tree at the isomorphic tree's information sets (the same public keys and labels)."""
    probs = []
    for p in range(2):
        index = infoset_index(plain, p)
        rows = [index[key] for key in infoset_index(iso, p)]  # in the isomorphic tree's infoset order
        probs.append(strategy.probs[p][rows])
    return Strategy(iso.game_id, (probs[0], probs[1]))


def symmetric_strategy(game: PokerGame, tree: PublicTree) -> Strategy:
    """A strategy fixed by every suit permutation that fixes the board.

    Each information set's action weights hash the betting so far and what such a
    permutation cannot change: each hole card's rank with the ranks of the board cards of
    its suit (as a bit mask), the two in rank order, and whether the hole cards share a suit.
    """
    names = {game.cards_str((c,)): c for c in range(game.spec.deck_size)}
    S, R = game.spec.num_suits, game.spec.num_ranks
    probs = []
    for p in range(2):
        pa = tree.players[p]
        hole = deal_hands(game)[state_hands(game, tree, p)[pa.infoset_priv]]  # [I, 2] ascending cards
        node = pa.node[pa.infoset_priv]
        masks = np.zeros((tree.num_nodes, S), dtype=np.int64)  # per node and suit: the board ranks, one bit each
        betting = np.zeros(tree.num_nodes, dtype=np.int64)
        for n in np.unique(node):
            key = tree.public_key[n]
            for b in list(game.spec.board) + [names[k] for k in key if k in names]:
                masks[n, b % S] |= 1 << (b // S)
            betting[n] = zlib.crc32(" ".join(k for k in key if k not in names).encode()) % 1_000_003
        card = (hole // S) * 2**R + masks[node[:, None], hole % S]  # [I, 2] rank and same-suit board ranks
        lo, hi = card.min(axis=1), card.max(axis=1)
        shape = ((betting[node] * 7919 + lo) * 2**(R + 4) + hi) * 2 + (hole[:, 0] % S == hole[:, 1] % S)
        slots = np.arange(pa.legal.shape[1])
        weights = 0.1 + np.abs(np.sin((shape[:, None] % 1_000_003) * 12.9898 + slots * 78.233)) * pa.legal
        weights *= pa.legal
        probs.append(weights / weights.sum(axis=1, keepdims=True))
    return Strategy(tree.game_id, (probs[0], probs[1]))


def assert_same_values(plain: PublicTree, iso: PublicTree, strategy: Strategy,
                       root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> None:
    """A suit-symmetric strategy of the plain tree has the same root values and best responses on the isomorphic one."""
    mine = restricted(plain, iso, strategy)
    want, got = exploitability(plain, strategy, root_reach=root_reach), exploitability(iso, mine, root_reach=root_reach)
    assert want.exploitability > 1e-3
    np.testing.assert_allclose(got.br_values, want.br_values, rtol=0, atol=1e-9)
    assert got.game_value == pytest.approx(want.game_value, abs=1e-9)
    for p in range(2):  # every root hand's counterfactual value (the root is not folded: same states, same order)
        rs = plain.plan.root_slice[p]
        np.testing.assert_allclose(counterfactual_values(iso, mine)[p][rs], counterfactual_values(plain, strategy)[p][rs],
                                   rtol=0, atol=1e-12)


def assert_same_run(plain: PublicTree, iso: PublicTree, iterations: int) -> None:
    """CFR+ on both trees: the same average strategy and exploitability after ``iterations``.

    A few iterations only: regret matching is discontinuous where an information set's
    regrets all round to zero, and the trees sum chance children in different orders, so
    rounding noise (1e-17) can choose another of two equally good actions and long runs
    part ways (each a CFR run; the symmetric evaluation above holds for any strategy).
    """
    a, b = CFRSolver(plain, CFR_PLUS).run(iterations), CFRSolver(iso, CFR_PLUS).run(iterations)
    want, got = exploitability(plain, a.average_strategy()), exploitability(iso, b.average_strategy())
    np.testing.assert_allclose(got.br_values, want.br_values, rtol=0, atol=1e-9)
    assert got.game_value == pytest.approx(want.game_value, abs=1e-9)
    for p in range(2):
        np.testing.assert_allclose(b.average_strategy().probs[p], restricted(plain, iso, a.average_strategy()).probs[p],
                                   rtol=0, atol=1e-9)


def chance_children(tree: PublicTree) -> np.ndarray:
    """[chance nodes] the number of children of each public chance node."""
    chance = np.flatnonzero(tree.kind == CHANCE_NODE)
    return np.array([np.count_nonzero(tree.parent == n) for n in chance])


@pytest.mark.parametrize(("board", "classes", "kept"), [
    (TWO_ABSENT, ((0,), (1,), (2, 3)), 2 * R - 4 + R),  # suits 0, 1 less the board, one of suits 2 and 3
    (MONOTONE, ((0,), (1, 2, 3)), R - 4 + R),  # suit 0 less the board, one of the other three
])
@pytest.mark.slow
def test_turn_spot_cfr_and_exploitability_match_the_plain_tree(board, classes, kept):
    game = small_holdem(board, (4, 1))
    suits = suit_classes(R, S, board)
    assert suits.classes == classes
    plain, iso = compile_poker(game), compile_poker(game, suits=suits)
    assert set(chance_children(plain)) == {R * S - 4} and set(chance_children(iso)) == {kept}
    assert iso.num_private_states < plain.num_private_states
    for strategy in (Strategy.uniform(plain), symmetric_strategy(game, plain)):
        assert_same_values(plain, iso, strategy)
    assert_same_run(plain, iso, 2)


@pytest.mark.slow
def test_flop_spot_evaluates_a_symmetric_strategy_like_the_plain_tree():
    """Two chance nodes deep (turn, then river with the classes split by the turn card)."""
    board = (card(0, 0), card(2, 0), card(3, 1))  # four ranks: suits 2 and 3 absent
    game = small_holdem(board, (3, 1, 1), raise_cap=1, num_ranks=4)
    plain, iso = compile_poker(game), compile_poker(game, suits=suit_classes(4, S, board))
    assert iso.mirrors is not None and iso.num_nodes < plain.num_nodes
    for strategy in (Strategy.uniform(plain), symmetric_strategy(game, plain)):
        assert_same_values(plain, iso, strategy)
    assert_same_run(plain, iso, 2)


def test_a_range_that_tells_suits_apart_leaves_them_apart():
    board = TWO_ABSENT
    hands = deal_hands(small_holdem(board, (4, 1)))
    weights = np.ones(len(hands))
    assert suit_classes(R, S, board, [(hands, weights)] * 2).classes == ((0,), (1,), (2, 3))
    weights[np.flatnonzero((hands % S == 2).all(axis=1))[0]] = 0.5  # one hand of two suit-2 cards
    assert suit_classes(R, S, board, [(hands, np.ones(len(hands))), (hands, weights)]).trivial


SPOT = HoldemSpot(parse_board("Ks 7s 2h 5h"), 100, 100, BetSizing.parse("allin", 1))


@pytest.mark.slow
def test_holdem_turn_spot_solves_like_the_plain_tree():
    ranges = (Range.uniform(SPOT.board), Range.uniform(SPOT.board))
    plain, iso = (holdem_problem(SPOT, ranges, isomorphism=flag) for flag in (False, True))
    assert plain.suits is None and iso.suits is not None and iso.suits.classes == ((0,), (1,), (2, 3))
    assert set(chance_children(plain.tree)) == {48} and set(chance_children(iso.tree)) == {48 - 13}
    assert iso.tree.num_private_states < 0.75 * plain.tree.num_private_states
    assert_same_values(plain.tree, iso.tree, symmetric_strategy(plain.game, plain.tree), plain.root_reach)
    a = plain.exploitability(plain.solver(CFR_PLUS).run(10).average_strategy())
    b = iso.exploitability(iso.solver(CFR_PLUS).run(10).average_strategy())
    assert a.chips > 0.1 and b.chips == pytest.approx(a.chips, abs=1e-9)
    assert b.game_value == pytest.approx(a.game_value, abs=1e-9)


@pytest.mark.slow
def test_holdem_range_without_suit_symmetry_falls_back_to_the_plain_tree():
    board = SPOT.board
    uniform = Range.uniform(board)
    lopsided = Range.parse("AdKd,AcKc:0.5,QQ", board)  # diamonds and clubs weighed differently
    problem = holdem_problem(SPOT, (uniform, lopsided))
    assert problem.suits is None and problem.tree.mirrors is None
    assert problem.tree.num_nodes == holdem_problem(SPOT, (uniform, lopsided), isomorphism=False).tree.num_nodes
    symmetric = Range.parse("AdKd,AcKc,QQ", board)
    assert holdem_problem(SPOT, (uniform, symmetric)).suits is not None


@pytest.mark.slow
def test_holdem_ranges_that_keep_the_symmetry_value_like_the_plain_tree():
    ranges = (Range.parse("QQ+,AK,A5s-A2s,T9s:0.5", SPOT.board), Range.parse("JJ-88,AQs,KdQd,KcQc,76s:0.25", SPOT.board))
    plain, iso = (holdem_problem(SPOT, ranges, isomorphism=flag) for flag in (False, True))
    assert iso.suits is not None and iso.suits.classes == ((0,), (1,), (2, 3))
    for p in range(2):
        np.testing.assert_array_equal(iso.root_reach[p], plain.root_reach[p])
    assert_same_values(plain.tree, iso.tree, symmetric_strategy(plain.game, plain.tree), plain.root_reach)
    assert HANDS.shape == (1326, 2)


@pytest.mark.slow
def test_the_size_estimate_counts_the_isomorphic_tree_of_a_turn():
    spot = HoldemSpot(parse_board("Js Ks 5c Qs"), 100, 50, BetSizing.parse("allin", raise_cap=1))
    ranges = (Range.uniform(spot.board), Range.uniform(spot.board))
    suits = spot_suits(spot, ranges)
    assert suits is not None and canonical_deal_count(suits, spot) == 48 - 13  # hearts and diamonds interchangeable
    size = estimate_size(spot.game(), first_deals=canonical_deal_count(suits, spot))
    tree = holdem_problem(spot, ranges).tree
    assert (size.public_nodes, size.private_states) == (tree.num_nodes, tree.num_private_states)


def test_solvers_that_sum_children_themselves_refuse_an_isomorphic_tree():
    game = small_holdem(MONOTONE, (4, 1), raise_cap=1)
    iso = compile_poker(game, suits=suit_classes(R, S, MONOTONE))
    for solve in (lambda: MCCFRSolver(iso), lambda: solve_lp(iso)):
        with pytest.raises(GameDefinitionError, match="suit-isomorphic tree .* isomorphism=False"):
            solve()


def test_a_turn_too_large_even_folded_is_refused_before_it_is_built():
    ranges = (Range.uniform(SPOT.board), Range.uniform(SPOT.board))
    with pytest.raises(GameDefinitionError, match="would take more than the 0.01 GiB allowed .* use fewer bet sizes"):
        holdem_problem(SPOT, ranges, max_bytes=10 * 2**20)
