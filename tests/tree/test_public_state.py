"""A subgame from a public state and two ranges, against the same part cut out of the whole compiled game."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, InvalidRangeError
from subgame.eval.best_response import best_response_to_reach
from subgame.games import load_game
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.ranges import parse_board, parse_range
from subgame.resolving.spots import holdem_problem
from subgame.tree.estimate import estimate_size
from subgame.tree.part import place
from subgame.tree.public_state import LabeledValues, subgame_at
from subgame.tree.public_tree import CHANCE_NODE, DECISION, LEAF, PublicTree
from subgame.tree.sweep import backward_expected, forward_reach, leaf_values, transition_weights
from tests.conftest import compiled

NOLIMIT = {"num_ranks": 4, "betting": "nolimit", "stack": 8, "bet_fractions": (1.0,), "max_raises": (1, 1)}
GAMES = [("leduc", {}), ("poker", NOLIMIT), ("liars_dice", {"dice_sides": 3})]


def _random_profile(tree: PublicTree, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for pa in tree.players:
        x = rng.random(pa.legal.shape) * pa.legal
        out.append(x / x.sum(axis=1, keepdims=True))
    return out


def _values(tree: PublicTree, probs: list[np.ndarray], root: tuple[np.ndarray | None, np.ndarray | None]):
    """Both players' reaches and counterfactual values [G_p] under ``probs`` from the root reaches ``root``."""
    sws = [transition_weights(tree, p, probs[p]) for p in (0, 1)]
    reach = (forward_reach(tree, 0, sws[0], root[0]), forward_reach(tree, 1, sws[1], root[1]))
    return reach, [backward_expected(tree, p, leaf_values(tree, p, reach), sws[p]) for p in (0, 1)]


def _nodes(tree: PublicTree) -> list[int]:
    """A decision node after each public chance node's first child, and a deep decision node of the first round."""
    after_chance = [int(n) for n in np.flatnonzero(tree.kind == DECISION) if tree.kind[tree.parent[n]] == CHANCE_NODE]
    first_round = [int(n) for n in np.flatnonzero(tree.kind == DECISION) if tree.depth[n] >= 2]
    return sorted(set(after_chance[:2] + first_round[:1] + first_round[-1:]))


@pytest.mark.parametrize(("name", "params"), GAMES, ids=[n for n, _ in GAMES])
def test_a_subgame_from_a_public_state_has_the_whole_games_values_there(name, params):
    game, full = load_game(name, **params), compiled(name, **params)
    probs = _random_profile(full, 7)
    reach, cfv = _values(full, probs, (None, None))
    cbv = [best_response_to_reach(full, p, reach[1 - p], want_policy=False).cbv for p in (0, 1)]
    for n in _nodes(full):
        ranges = (LabeledValues.block(full, 0, n, reach[0]), LabeledValues.block(full, 1, n, reach[1]))
        sub = subgame_at(game, full.public_key[n], ranges)
        assert sub.public_state == full.public_key[n] and sub.tree.parent[0] < 0 and sub.tree.public_key[0] == sub.public_state
        assert sub.estimate.exact and sub.estimate.public_nodes == sub.tree.num_nodes
        assert sub.part.tree is sub.tree and sub.part.roots.tolist() == [0]
        part = place(full, sub.tree)
        below = [part.restrict(probs[p], p) for p in (0, 1)]
        _, sub_cfv = _values(sub.tree, below, sub.root_reach)
        for p in (0, 1):
            rs, labels = sub.tree.root_slice[p], sub.root_labels(p)
            np.testing.assert_array_equal(sub.root_reach[p], ranges[p].at(labels, "test"))
            want = LabeledValues.block(full, p, n, cfv[p]).at(labels, "test")
            np.testing.assert_allclose(sub_cfv[p][rs], want, rtol=0, atol=1e-12)
            sub_cbv = best_response_to_reach(sub.tree, p, _opp_reach(sub, 1 - p, below), want_policy=False).cbv
            want_cbv = LabeledValues.block(full, p, n, cbv[p]).at(labels, "test")
            np.testing.assert_allclose(sub_cbv[rs], want_cbv, rtol=0, atol=1e-12)
            assert np.abs(want).max() > 0  # the comparison is not of zeros


def _opp_reach(sub, player, probs):
    return forward_reach(sub.tree, player, transition_weights(sub.tree, player, probs[player]), sub.root_reach[player])


def test_a_depth_or_chance_limit_cuts_the_subgame_with_leaves():
    game = load_game("poker", **NOLIMIT)
    full = compiled("poker", **NOLIMIT)
    n = int(np.flatnonzero(full.depth == 1)[0])  # the first round goes on below it
    cut = subgame_at(game, full.public_key[n], chance_limit=1)
    assert cut.tree.num_nodes < subgame_at(game, full.public_key[n]).tree.num_nodes
    assert np.any(cut.tree.kind == LEAF) and cut.estimate.public_nodes == cut.tree.num_nodes
    assert all(np.all(r == 1.0) for r in cut.root_reach)  # no range: every private state 1
    at_start = subgame_at(game, None, depth_limit=2)
    assert at_start.public_state == full.public_key[0] and at_start.tree.max_depth == 2


def test_a_subgame_too_large_is_refused_before_it_is_built(monkeypatch):
    game = load_game("leduc")
    key = compiled("leduc").public_key[1]
    built = []
    monkeypatch.setattr("subgame.tree.public_state.compile_game", lambda *a, **k: built.append(a))
    need = estimate_size(game, public_state=key).solve_bytes
    with pytest.raises(GameDefinitionError, match="estimated before building it"):
        subgame_at(game, key, max_bytes=need - 1)
    assert not built


def test_bad_ranges_and_public_states_are_one_clear_error():
    game = load_game("leduc")
    key = compiled("leduc").public_key[1]
    with pytest.raises(InvalidRangeError, match="not one of"):
        subgame_at(game, key, ({"Zz": 1.0}, None))
    with pytest.raises(InvalidRangeError, match="non-negative"):
        subgame_at(game, key, ({"Ks": -1.0}, None))
    with pytest.raises(GameDefinitionError, match="no history"):
        subgame_at(game, (*key, "nowhere"))
    some = subgame_at(game, key, ({"Ks": 0.5, "Zz": 0.0}, None))
    labels = list(some.root_labels(0))
    assert some.root_reach[0][labels.index("Ks")] == 0.5 and some.root_reach[0].sum() == 0.5


def test_a_holdem_spot_is_the_subgame_from_its_public_state_with_its_ranges():
    spot = HoldemSpot(parse_board("Js Ks 5c Qs 7d"), 200, 400, BetSizing.parse("1,allin"))
    ranges = (parse_range("AA,AKs,AKo:0.5,T9s", spot.board), parse_range("QQ+", spot.board))
    problem = holdem_problem(spot, ranges, isomorphism=False)
    sub = subgame_at(spot.game(), None, ranges)
    assert problem.subgame.public_state == sub.public_state and problem.tree.num_nodes == sub.tree.num_nodes
    assert problem.subgame.estimate.public_nodes == sub.estimate.public_nodes == sub.tree.num_nodes
    for p in (0, 1):
        assert sub.root_reach[p].sum() == ranges[p].weights.sum() > 0
        np.testing.assert_array_equal(sub.root_reach[p], problem.root_reach[p])
    with pytest.raises(InvalidRangeError, match="52 cards"):
        subgame_at(load_game("leduc"), None, ranges)
