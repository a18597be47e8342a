"""Best response and exploitability against known values and a brute-force oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subgame.eval import best_response, counterfactual_values, expected_value, exploitability
from subgame.games import load_game
from subgame.strategy import Strategy
from tests import oracle
from tests.conftest import compiled


def policy_of(tree, strategy):
    """Adapt a compiled strategy to the oracle's ``policy(player, infoset_key, legal)``."""
    index = {}
    for p, pa in enumerate(tree.players):
        for i, g in enumerate(pa.infoset_priv):
            index[(p, tree.public_key[pa.node[g]], pa.label[g])] = i

    def policy(player, key, legal):
        public = tuple(pub for pub, _ in key)
        label = "/".join(o for _, o in key if o)
        pa = tree.players[player]
        i = index[(player, public, label)]
        return {a: float(strategy.probs[player][i, k]) for k, a in enumerate(pa.action_ids[i]) if a >= 0}

    return policy


# Values from OpenSpiel's exploitability_test.py (see REFERENCE-VALUES.md).
@pytest.mark.parametrize(
    "game, make, nash_conv",
    [
        ("kuhn", Strategy.uniform, 11 / 12),
        ("kuhn", Strategy.first_action, 2.0),
        ("leduc", Strategy.uniform, 4.747222222222222),
    ],
)
def test_known_nash_conv(game, make, nash_conv):
    tree = compiled(game)
    assert exploitability(tree, make(tree)).nash_conv == pytest.approx(nash_conv, abs=1e-12)


@pytest.mark.parametrize("game", ["kuhn", "coin_toss", "rps_plus", "matching_pennies"])
def test_best_response_matches_brute_force(game, rng):
    g = load_game(game)
    tree = compiled(game)
    for _ in range(3):
        s = Strategy.random(tree, rng)
        pol = policy_of(tree, s)
        assert expected_value(tree, s) == pytest.approx(oracle.expected_value(g, pol), abs=1e-12)
        for p in (0, 1):
            assert best_response(tree, s, p).value == pytest.approx(
                oracle.brute_force_best_response_value(g, pol, p), abs=1e-12
            )


def test_best_response_policy_attains_its_value(leduc_tree, rng):
    s = Strategy.random(leduc_tree, rng)
    for p in (0, 1):
        br = best_response(leduc_tree, s, p)
        profile = s.with_player(p, br.policy)
        sign = 1.0 if p == 0 else -1.0
        assert sign * expected_value(leduc_tree, profile) == pytest.approx(br.value, abs=1e-12)


def test_counterfactual_values_sum_to_expected_value(leduc_tree, rng):
    s = Strategy.random(leduc_tree, rng)
    v0, v1 = counterfactual_values(leduc_tree, s)
    root0, root1 = leduc_tree.plan.root_slice
    ev = expected_value(leduc_tree, s)
    assert v0[root0].sum() == pytest.approx(ev, abs=1e-12)
    assert v1[root1].sum() == pytest.approx(-ev, abs=1e-12)


def test_cbv_at_least_counterfactual_value(leduc_tree, rng):
    s = Strategy.random(leduc_tree, rng)
    v = counterfactual_values(leduc_tree, s)
    for p in (0, 1):
        cbv = best_response(leduc_tree, s, p).cbv
        assert np.all(cbv >= v[p] - 1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(["kuhn", "leduc", "coin_toss", "matching_pennies"]))
def test_nash_conv_non_negative(seed, game):
    tree = compiled(game)
    s = Strategy.random(tree, np.random.default_rng(seed))
    e = exploitability(tree, s)
    assert e.nash_conv >= -1e-12
    assert e.br_values[0] >= e.game_value - 1e-12
    assert e.br_values[1] >= -e.game_value - 1e-12


def test_evaluation_refuses_what_it_cannot_evaluate(kuhn_tree, leduc_tree):
    """One clear error each, never a silent number."""
    from subgame.errors import SubgameError

    leduc_strategy = Strategy.uniform(leduc_tree)
    with pytest.raises(SubgameError, match="strategy is of game 'leduc"):
        exploitability(kuhn_tree, leduc_strategy)
    with pytest.raises(SubgameError, match="player must be 0 or 1, got 2"):
        best_response(leduc_tree, leduc_strategy, player=2)
    with pytest.raises(SubgameError, match="has shape"):
        exploitability(leduc_tree, Strategy(leduc_tree.game_id, (leduc_strategy.probs[0][:3], leduc_strategy.probs[1])))
    with pytest.raises(SubgameError, match="expected a compiled PublicTree"):
        exploitability("leduc", leduc_strategy)  # type: ignore[arg-type]
