"""Strategies to and from OpenSpiel policies: round trips, translated actions, refusals."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402

from subgame.errors import GameDefinitionError, InvalidRangeError  # noqa: E402
from subgame.games import load_game  # noqa: E402
from subgame.interop.openspiel import from_tabular_policy, to_tabular_policy  # noqa: E402
from subgame.strategy import Strategy  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402

POKER = ["kuhn", "leduc", "openspiel:kuhn_poker", "openspiel:leduc_poker"]
GOOFSPIEL = ("openspiel:goofspiel", (("num_cards", 3), ("imp_info", True)))


@cache
def setup(name: str, params: tuple = ()):
    game = load_game(name, **dict(params))
    return game, compile_game(game)


@pytest.mark.parametrize("name", POKER + ["goofspiel"])
@pytest.mark.slow
def test_policy_round_trip(name):
    case = GOOFSPIEL if name == "goofspiel" else (name,)
    game, tree = setup(*case)
    strategy = Strategy.random(tree, np.random.default_rng(7))
    back = from_tabular_policy(game, tree, to_tabular_policy(game, tree, strategy))
    assert back.game_id == tree.game_id
    for p in (0, 1):
        np.testing.assert_array_equal(back.probs[p], strategy.probs[p])


@pytest.mark.slow
def test_round_trip_through_a_fresh_adapter_replays_histories():
    game, tree = setup("openspiel:leduc_poker")
    fresh = load_game("openspiel:leduc_poker")  # has expanded nothing: every infoset is found by replay
    strategy = Strategy.random(tree, np.random.default_rng(3))
    policy = to_tabular_policy(fresh, tree, strategy)
    np.testing.assert_array_equal(from_tabular_policy(game, tree, policy).probs[1], strategy.probs[1])


@pytest.mark.parametrize("name", ["kuhn", "openspiel:kuhn_poker"])
def test_openspiel_policies_convert_to_our_strategies(name):
    game, tree = setup(name)
    os_game = to_tabular_policy(game, tree, Strategy.uniform(tree)).game
    uniform = Strategy.uniform(tree)
    for policy in (os_policy.TabularPolicy(os_game), os_policy.UniformRandomPolicy(os_game)):
        s = from_tabular_policy(game, tree, policy)
        for p in (0, 1):
            np.testing.assert_allclose(s.probs[p], uniform.probs[p])


def test_kuhn_actions_translate_between_pass_bet_and_check_fold_call_raise():
    game, tree = setup("kuhn")
    always_bet = os_policy.TabularPolicy(pyspiel.load_game("kuhn_poker"))
    always_bet.action_probability_array[:] = [0.0, 1.0]  # Bet: raise when unopposed, call when facing a bet
    s = from_tabular_policy(game, tree, always_bet)
    for p in (0, 1):
        pa = tree.players[p]
        chosen = pa.action_ids[np.arange(pa.num_infosets), s.probs[p].argmax(axis=1)]
        facing_bet = pa.action_ids[:, 0] == 0  # fold is legal
        assert np.all(chosen[facing_bet] == 1) and np.all(chosen[~facing_bet] == 2)


def test_policy_that_does_not_sum_to_one_is_rejected():
    game, tree = setup("openspiel:kuhn_poker")
    policy = to_tabular_policy(game, tree, Strategy.uniform(tree))
    policy.action_probability_array[3] *= 0.5
    with pytest.raises(InvalidRangeError, match="do not sum to 1"):
        from_tabular_policy(game, tree, policy)


def test_mismatched_games_are_rejected():
    kuhn, kuhn_tree = setup("kuhn")
    leduc_os = pyspiel.load_game("leduc_poker")
    with pytest.raises(GameDefinitionError, match="kuhn_poker"):
        to_tabular_policy(kuhn, kuhn_tree, Strategy.uniform(kuhn_tree), os_game=leduc_os)
    with pytest.raises(GameDefinitionError, match="no OpenSpiel counterpart"):
        variant = load_game("kuhn", ante=2)
        variant_tree = compile_game(variant)
        to_tabular_policy(variant, variant_tree, Strategy.uniform(variant_tree))
    adapter, adapter_tree = setup("openspiel:kuhn_poker")
    with pytest.raises(GameDefinitionError, match="compiled from"):
        to_tabular_policy(adapter, kuhn_tree, Strategy.uniform(kuhn_tree))
    with pytest.raises(GameDefinitionError, match="wraps"):
        to_tabular_policy(adapter, adapter_tree, Strategy.uniform(adapter_tree), os_game=leduc_os)
    # a subtree lacks most of the game's information sets
    sub = compile_game(adapter, public_state=adapter_tree.public_key[2])
    with pytest.raises(GameDefinitionError, match="no counterpart in the tree"):
        to_tabular_policy(adapter, sub, Strategy.uniform(sub))
