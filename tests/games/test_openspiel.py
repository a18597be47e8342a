"""The OpenSpiel adapter, and OpenSpiel as an oracle: same games, same exploitability.

Every strategy is converted to an OpenSpiel ``TabularPolicy`` and evaluated by OpenSpiel's
own exploitability code; our public-tree best response must agree to 1e-9.
"""

from __future__ import annotations

import sys
from functools import cache

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402

from subgame.errors import GameDefinitionError, IllegalActionError  # noqa: E402
from subgame.eval import expected_value, exploitability  # noqa: E402
from subgame.games import load_game  # noqa: E402
from subgame.games.openspiel import OpenSpielGame  # noqa: E402
from subgame.interop.openspiel import to_tabular_policy  # noqa: E402
from subgame.solve.cfr import CFR_PLUS, CFRSolver  # noqa: E402
from subgame.strategy import Strategy  # noqa: E402
from subgame.tree.compile import compile_game  # noqa: E402

POKER = ["kuhn", "leduc", "openspiel:kuhn_poker", "openspiel:leduc_poker"]
LIARS_DICE = ("openspiel:liars_dice", (("dice_sides", 4),))
GOOFSPIEL = ("openspiel:goofspiel", (("num_cards", 3), ("imp_info", True)))


@cache
def setup(name: str, params: tuple = ()):
    game = load_game(name, **dict(params))
    return game, compile_game(game)


@cache
def cfr_plus(name: str, params: tuple = ()) -> Strategy:
    return CFRSolver(setup(name, params)[1], CFR_PLUS).run(100).average_strategy()


def strategy_for(kind: str, name: str, params: tuple = ()) -> Strategy:
    tree = setup(name, params)[1]
    if kind == "uniform":
        return Strategy.uniform(tree)
    if kind == "cfr+":
        return cfr_plus(name, params)
    return Strategy.random(tree, np.random.default_rng(int(kind.removeprefix("random"))))


def openspiel_exploitability(policy: os_policy.TabularPolicy) -> float:
    return pyspiel.exploitability(policy.game, os_policy.python_policy_to_pyspiel_policy(policy))


# -- exploitability against OpenSpiel's -------------------------------------------------


@pytest.mark.parametrize("kind", ["uniform", "random1", "random2", "random3", "cfr+"])
@pytest.mark.parametrize("name", POKER)
@pytest.mark.slow
def test_exploitability_matches_openspiel(name, kind):
    game, tree = setup(name)
    strategy = strategy_for(kind, name)
    ours = exploitability(tree, strategy).exploitability
    theirs = openspiel_exploitability(to_tabular_policy(game, tree, strategy))
    assert ours == pytest.approx(theirs, abs=1e-9)
    if kind == "cfr+":
        assert ours < 0.02  # a real solve, not a degenerate strategy
    else:
        assert ours > 0.1


@pytest.mark.parametrize("kind", ["uniform", "random4", "cfr+"])
@pytest.mark.parametrize("case", [LIARS_DICE, GOOFSPIEL], ids=["liars_dice", "goofspiel"])
@pytest.mark.slow
def test_derived_observation_games_match_openspiel(case, kind):
    game, tree = setup(*case)
    strategy = strategy_for(kind, *case)
    policy = to_tabular_policy(game, tree, strategy)
    for p in (0, 1):
        assert tree.players[p].num_infosets == len(policy.states_per_player[p])
    assert exploitability(tree, strategy).exploitability == pytest.approx(openspiel_exploitability(policy), abs=1e-9)


@pytest.mark.parametrize("name", ["kuhn", "openspiel:kuhn_poker", "leduc", "openspiel:leduc_poker"])
def test_uniform_nash_conv_reference_values(name):
    # OpenSpiel's exploitability_test.py: Kuhn 11/12, Leduc 4.747222222222222.
    expected = 11 / 12 if "kuhn" in name else 4.747222222222222
    tree = setup(name)[1]
    assert exploitability(tree, Strategy.uniform(tree)).nash_conv == pytest.approx(expected, abs=1e-12)


def test_cfr_plus_on_the_adapter_approaches_kuhn_value():
    tree = setup("openspiel:kuhn_poker")[1]
    strategy = CFRSolver(tree, CFR_PLUS).run(300).average_strategy()
    assert expected_value(tree, strategy) == pytest.approx(-1 / 18, abs=2e-3)


# -- compiled structure ---------------------------------------------------------------------


@pytest.mark.parametrize("name, infosets", [("kuhn", 12), ("leduc", 936)])
def test_infoset_counts_equal_openspiel(name, infosets):
    native = setup(name)[1]
    adapter = setup({"kuhn": "openspiel:kuhn_poker", "leduc": "openspiel:leduc_poker"}[name])[1]
    os_game = pyspiel.load_game(f"{name}_poker")
    table = os_policy.TabularPolicy(os_game)
    for tree in (native, adapter):
        assert tree.players[0].num_infosets + tree.players[1].num_infosets == infosets == len(table.state_lookup)
    # the derived public states are the game's true public states: same public tree as ours
    assert adapter.num_nodes == native.num_nodes
    assert adapter.summary() == native.summary()


def test_factored_observations_are_used_when_provided():
    tree = setup("openspiel:kuhn_poker")[1]
    labels = {tree.players[0].label[g] for g in tree.players[0].infoset_priv}
    assert labels == {"Received card 0", "Received card 1", "Received card 2"}


def test_openspiel_infoset_keys_cover_openspiel_infosets():
    game, tree = setup("openspiel:leduc_poker")
    table = os_policy.TabularPolicy(game.os_game)
    for p in (0, 1):
        pa = tree.players[p]
        keys = [game.openspiel_infoset_key(p, tree.public_key[pa.node[g]], pa.label[g]) for g in pa.infoset_priv]
        assert len(set(keys)) == pa.num_infosets
        assert set(keys) == set(table.states_per_player[p])
    with pytest.raises(GameDefinitionError, match="no information set"):
        game.openspiel_infoset_key(0, ("nowhere",), "nothing")


def test_liars_dice_default_rules_compile_small_variant_exactly():
    game, tree = setup(*LIARS_DICE)
    # 1 die of 4 sides each: 4 rolls × 2^(2*4-1) bid sequences per player
    assert tree.players[0].num_infosets == tree.players[1].num_infosets == 4 * 2 ** 7
    assert game.utility_bound() == 1.0


def test_hidden_moves_of_turn_based_goofspiel_are_not_public():
    game, tree = setup(*GOOFSPIEL)
    # player 0's bid is hidden from player 1, so it never appears in a public observation
    first_bids = {key[1] for key in tree.public_key if len(key) > 1}
    assert first_bids == {"p0"}


# -- states -------------------------------------------------------------------------------


def test_next_state_does_not_mutate_and_states_compare_by_history():
    game = setup("openspiel:leduc_poker")[0]
    root = game.root()
    child = game.next_state(root, 2)
    assert root.history == () and root.state.history() == []
    assert child.history == (2,)
    assert child == game.state_of([2]) and hash(child) == hash(game.state_of([2]))
    assert child != root
    with pytest.raises(IllegalActionError):
        game.state_of([2, 2])  # the same card cannot be dealt twice


# -- loading ---------------------------------------------------------------------------------


def test_command_line_strings_are_converted():
    game = load_game("openspiel:goofspiel", num_cards="3", imp_info="true", points_order="descending")
    assert game.params == {"num_cards": 3, "imp_info": True, "points_order": "descending"}
    assert game.describe() == "openspiel:goofspiel(num_cards=3, imp_info=True, points_order=descending)"
    assert load_game("openspiel:liars_dice", dice_sides="3").os_game.get_parameters()["dice_sides"] == 3


def test_wrapping_a_loaded_game_directly():
    game = OpenSpielGame(pyspiel.load_game("liars_dice", {"dice_sides": 3}))
    assert game.name == "openspiel:liars_dice" and game.params["dice_sides"] == 3
    assert compile_game(game).players[0].num_infosets == 3 * 2**5


@pytest.mark.parametrize(
    "name, params, message",
    [
        ("kuhn_poker", {"players": "3"}, "3 players"),
        ("tiny_hanabi", {}, "not zero-sum"),
        ("first_sealed_auction", {}, "not zero-sum"),
        ("kuhn_pokr", {}, "did you mean kuhn_poker"),
        ("liars_dice", {"dice_sides": "six"}, "dice_sides='six' is not a valid int"),
        ("liars_dice", {"bogus": "1"}, "Unknown parameter 'bogus'"),
        ("goofspiel(num_cards=3)", {"imp_info": "true"}, "not both"),
    ],
)
def test_unsupported_or_invalid_games_are_refused(name, params, message):
    with pytest.raises(GameDefinitionError, match=message):
        load_game(f"openspiel:{name}", **params)


def test_imperfect_recall_is_refused():
    with pytest.raises(GameDefinitionError, match="perfect recall"):
        compile_game(load_game("openspiel:liars_dice_ir", dice_sides=3))


def test_missing_pyspiel_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    with pytest.raises(GameDefinitionError, match=r"pip install 'subgame\[openspiel\]'"):
        load_game("openspiel:kuhn_poker")
