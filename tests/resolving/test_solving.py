"""Subgame solving on the papers' examples and the safety guarantees as property tests."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subgame.errors import SubgameError
from subgame.eval import best_response, exploitability
from subgame.games import load_game
from subgame.resolving import METHODS, blueprint_values, public_node, resolve_all, solve_subgames, subgame_roots
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.strategy import Strategy
from tests.conftest import compiled
from tests.toy_games import coin_toss_blueprint


@pytest.fixture(scope="module")
def coin_toss():
    """Coin Toss with the blueprint of safe-and-nested Fig. 2."""
    game, tree = load_game("coin_toss"), compiled("coin_toss")
    blueprint = coin_toss_blueprint(tree)
    play = tree.node_of_key[("", "Play")]
    return game, tree, blueprint_values(tree, blueprint), play


def solve(coin_toss, method, iterations=4000):
    game, _, bv, play = coin_toss
    return solve_subgames(game, bv, [play], 1, method, iterations=iterations)


def test_coin_toss_unsafe_always_heads(coin_toss):
    """§4.1: P2's belief in Heads is 0.6, so unsafe solving guesses Heads."""
    _, tree, bv, play = coin_toss
    r = bv.reach[0][tree.players[0].node == play]
    assert r[0] * 0.5 / (r @ [0.5, 0.5]) == pytest.approx(0.6)
    np.testing.assert_allclose(solve(coin_toss, "unsafe").probs[0], [1, 0, 0], atol=1e-3)


@pytest.mark.slow
def test_coin_toss_resolve_alternative_payoffs_and_blueprint_solution(coin_toss):
    """§4.2: alternative payoffs are P1's Play values 0 (Heads) and 1/2 (Tails), chance-weighted."""
    _, tree, bv, play = coin_toss
    sol = solve(coin_toss, "resolve")
    np.testing.assert_allclose(sol.alt, [0.0, 0.5 * 0.5])
    # the blueprint itself attains every alternative payoff: it solves the gadget
    root = tree.players[0].node == play
    np.testing.assert_allclose(bv.cbv[0][root], sol.alt)
    assert np.all(sol.margins >= -1e-3)


@pytest.mark.slow
def test_coin_toss_maxmargin(coin_toss):
    sol = solve(coin_toss, "maxmargin")
    np.testing.assert_allclose(sol.probs[0], [5 / 8, 3 / 8, 0], atol=2e-3)
    np.testing.assert_allclose(sol.margins / 0.5, [1 / 4, 1 / 4], atol=2e-3)  # in chips, chance 1/2 removed


@pytest.mark.slow
def test_coin_toss_reach_maxmargin(coin_toss):
    """§5, eq. (1): the gift of 1/2 from Sell at Heads raises Heads' alternative payoff."""
    sol = solve(coin_toss, "reach-maxmargin")
    np.testing.assert_allclose(sol.alt / 0.5, [0.5, 0.5])
    np.testing.assert_allclose(sol.probs[0], [0.5, 0.5, 0], atol=2e-3)
    np.testing.assert_allclose(sol.margins / 0.5, [0.5, 0.5], atol=2e-3)


@pytest.mark.slow
def test_coin_toss_full_game_values(coin_toss):
    """P1's full-game value is 3/8 after maxmargin and 1/4 after reach-maxmargin (§5)."""
    _, tree, bv, _ = coin_toss
    for method, value in [("maxmargin", 3 / 8), ("reach-maxmargin", 1 / 4)]:
        sol = solve(coin_toss, method)
        p1 = sol.into(bv.blueprint.probs[1])
        assert best_response(tree, bv.blueprint.with_player(1, p1), 0).value == pytest.approx(value, abs=3e-3)


def test_rps_unsafe_admits_exploitable_solution_resolve_does_not():
    """Decomposition paper, Fig. 1: from an equilibrium trunk, unsafe re-solving accepts 'always Rock'."""
    game, tree = load_game("rps"), compiled("rps")
    blueprint = Strategy.uniform(tree)
    bv = blueprint_values(tree, blueprint)
    sub = tree.node_of_key[("p0 moved",)]
    rock = blueprint.with_player(1, np.array([[1.0, 0.0, 0.0]]))
    # always-Rock is optimal in the unsafe subgame (every action has value 0 against 1/3 each) ...
    from subgame.eval import counterfactual_values

    v1 = counterfactual_values(tree, rock)[1]
    assert v1[tree.players[1].node == sub].sum() == pytest.approx(0.0)
    # ... but exploitable in the full game, and the resolve gadget refuses it:
    assert exploitability(tree, rock).br_values[0] == pytest.approx(1.0)
    cbv_rock = best_response(tree, rock, 0).cbv[tree.players[0].node == sub]
    alt = bv.cbv[0][tree.players[0].node == sub]
    assert np.max(cbv_rock - alt) > 0.3  # Paper beats the alternative payoff: not a gadget solution
    sol = solve_subgames(game, bv, [sub], 1, "resolve", iterations=2000)
    assert np.max(-sol.margins) < 5e-3
    assert best_response(tree, rock.with_player(1, sol.probs), 0).value < 5e-3


def _violation(sol) -> float:
    """How far the solve is from meeting its gadget's constraints (the solver's own tolerance)."""
    return float(np.maximum(-sol.margins, 0.0).sum())


def _first_move_roots(tree):
    return [n for n in range(tree.num_nodes) if tree.depth[n] == 1 and tree.kind[n] == 0]


@pytest.mark.parametrize("game_name, examples", [("kuhn", 25), ("leduc", 10)])
@pytest.mark.parametrize("method", ["resolve", "reach-maxmargin"])
@pytest.mark.slow
def test_safe_methods_never_increase_exploitability(game_name, examples, method):
    """Theorems of §4–5: each player's best-response value against the re-solved strategy is at
    most the blueprint's, up to the gadget's unmet margins, which the test measures."""
    game, tree = load_game(game_name), compiled(game_name)
    roots = subgame_roots(tree) if game_name == "leduc" else _first_move_roots(tree)

    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(seed=st.integers(0, 2**32 - 1))
    def check(seed):
        blueprint = Strategy.random(tree, np.random.default_rng(seed))
        bv = blueprint_values(tree, blueprint)
        for p in (0, 1):
            sol = solve_subgames(game, bv, roots, p, method, iterations=300)
            resolved = blueprint.with_player(p, sol.into(blueprint.probs[p]))
            before = best_response(tree, blueprint, 1 - p).value
            after = best_response(tree, resolved, 1 - p).value
            assert after <= before + _violation(sol) + 1e-9, (seed, p, before, after)

    check()


@pytest.mark.slow
def test_unsafe_can_increase_exploitability():
    game, tree = load_game("kuhn"), compiled("kuhn")
    roots = _first_move_roots(tree)
    worse = 0
    for seed in range(10):
        blueprint = CFRSolver(tree, CFR_PLUS).run(3 + seed).average_strategy()
        resolved = resolve_all(game, tree, blueprint, "unsafe", roots=roots, iterations=300)
        worse += exploitability(tree, resolved).exploitability > exploitability(tree, blueprint).exploitability + 1e-6
    assert worse > 0


@pytest.mark.slow
def test_every_method_runs_on_leduc():
    game, tree = load_game("leduc"), compiled("leduc")
    blueprint = CFRSolver(tree, CFR_PLUS).run(30).average_strategy()
    for method in METHODS:
        resolved = resolve_all(game, tree, blueprint, method, iterations=50)
        resolved.check(tree)


def test_unknown_method():
    game, tree = load_game("kuhn"), compiled("kuhn")
    bv = blueprint_values(tree, Strategy.uniform(tree))
    with pytest.raises(SubgameError, match="unknown subgame-solving method 'magic'"):
        solve_subgames(game, bv, [1], 1, "magic")


@pytest.mark.slow
def test_no_limit_subgames_with_all_ins_before_them():
    """No-limit Leduc: a first-round all-in runs the board out to a showdown, so it opens no
    subgame; every second-round subgame is a decision node, and safety holds there too."""
    game, tree = load_game("leduc_nolimit"), compiled("leduc_nolimit")
    roots = subgame_roots(tree)
    assert all(tree.kind[n] == 0 for n in roots)
    assert len(roots) < int(np.sum(tree.kind[tree.parent[tree.parent >= 0]] == 1))
    blueprint = CFRSolver(tree, CFR_PLUS).run(20).average_strategy()
    bv = blueprint_values(tree, blueprint)
    for p in (0, 1):
        sol = solve_subgames(game, bv, roots, p, "resolve", iterations=200)
        resolved = blueprint.with_player(p, sol.into(blueprint.probs[p]))
        assert best_response(tree, resolved, 1 - p).value <= best_response(tree, blueprint, 1 - p).value + _violation(sol) + 1e-9


@pytest.mark.slow
def test_one_subgame_by_public_state():
    game, tree = load_game("coin_toss"), compiled("coin_toss")
    blueprint = Strategy(tree.game_id, (np.array([[0.25, 0.75], [0.5, 0.5]]), np.array([[0.5, 0.25, 0.25]])))
    bv = blueprint_values(tree, blueprint)
    sol = solve_subgames(game, bv, [public_node(tree, ("", "Play"))], 1, "maxmargin", iterations=4000)
    np.testing.assert_allclose(sol.probs[0], [5 / 8, 3 / 8, 0], atol=2e-3)
    assert sol.keys == (("", "Play"),)
    with pytest.raises(SubgameError, match="no public state"):
        public_node(tree, ("", "Dance"))
    with pytest.raises(SubgameError, match="is terminal"):
        public_node(tree, ("", "Sell"))
    with pytest.raises(SubgameError, match="not in the tree"):
        public_node(tree, 999)


def test_the_gadget_value_is_follow_or_terminate_per_root_state_and_one_pick_per_subgame():
    """Σ_I max(alt, CBV) for the resolving gadget; max_I (CBV − alt) per subgame for max-margin (§4.2)."""
    from subgame.resolving.gadgets import gadget_value

    alt, cbv, segment = np.array([1.0, -2.0, 0.5, 3.0]), np.array([0.5, -1.0, 2.0, 1.0]), np.array([0, 0, 1, 1])
    np.testing.assert_array_equal(gadget_value("resolve", alt, cbv, segment, 2, per_subgame=True), [1.0 - 1.0, 2.0 + 3.0])
    assert gadget_value("resolve", alt, cbv, segment, 2) == 5.0
    np.testing.assert_array_equal(gadget_value("maxmargin", alt, cbv, segment, 2, per_subgame=True), [1.0, 1.5])
    assert gadget_value("maxmargin", alt, cbv, segment, 2) == 2.5
