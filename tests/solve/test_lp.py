"""The sequence-form LP against known game values, hand-derived equilibria and itself."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from subgame.errors import GameDefinitionError
from subgame.eval import expected_value, exploitability
from subgame.games import load_game
from subgame.games.base import TERMINAL, Game
from subgame.solve.lp import payoff_matrix, realization_plan, sequence_form, solve_lp
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from subgame.tree.sweep import forward_reach, transition_weights
from tests.conftest import compiled
from tests.toy_games import RandomGame, Solitaire


def _row(tree, player: int, label: str) -> int:
    """The information set of ``player`` whose private state has ``label``."""
    pa = tree.players[player]
    (hits,) = np.nonzero(np.array([pa.label[g] for g in pa.infoset_priv]) == label)
    assert hits.size == 1, f"label {label!r} names {hits.size} information sets"
    return int(hits[0])


# -- known values ------------------------------------------------------------------------


def test_kuhn_value_and_equilibrium(kuhn_tree):
    result = solve_lp(kuhn_tree)
    assert result.value == pytest.approx(-1.0 / 18.0, abs=1e-9)  # Kuhn 1950
    ex = exploitability(kuhn_tree, result.strategy)
    assert ex.exploitability < 1e-9
    assert ex.game_value == pytest.approx(result.value, abs=1e-9)


@pytest.fixture(scope="module")
def leduc_result(leduc_tree):
    return solve_lp(leduc_tree)


def test_leduc_value_and_equilibrium(leduc_tree, leduc_result):
    result = leduc_result
    assert result.value == pytest.approx(-0.085606424078, abs=1e-8)  # OpenSpiel sequence_form_lp_test.py
    assert exploitability(leduc_tree, result.strategy).exploitability < 1e-8
    result.strategy.check(leduc_tree)


def test_rps_plus_unique_equilibrium():
    # Depth-limited paper §2: the unique equilibrium of RPS+ is (0.4, 0.4, 0.2) for both.
    tree = compiled("rps_plus")
    result = solve_lp(tree)
    assert result.value == pytest.approx(0.0, abs=1e-12)
    for p in (0, 1):
        np.testing.assert_allclose(result.strategy.probs[p], [[0.4, 0.4, 0.2]], atol=1e-8)


def test_rps_uniform():
    tree = compiled("rps")
    result = solve_lp(tree)
    assert result.value == pytest.approx(0.0, abs=1e-12)
    for p in (0, 1):
        np.testing.assert_allclose(result.strategy.probs[p], np.full((1, 3), 1.0 / 3.0), atol=1e-8)


def test_coin_toss_play_subgame():
    # Safe-and-nested paper §2. Player 0's Play values are 1 - 2h on Heads and 1 - 2t on
    # Tails; against Sell (+1/2, -1/2) the game value 0 is reached only if h >= 1/4 and
    # t >= 3/4, so h = 1/4, t = 3/4, Forfeit 0 is player 1's unique optimal strategy.
    tree = compiled("coin_toss")
    result = solve_lp(tree)
    assert result.value == pytest.approx(0.0, abs=1e-12)
    pa = tree.players[1]
    (play,) = [i for i, names in enumerate(pa.action_names) if names == ("Heads", "Tails", "Forfeit")]
    np.testing.assert_allclose(result.strategy.probs[1][play], [0.25, 0.75, 0.0], atol=1e-9)
    assert exploitability(tree, result.strategy).exploitability < 1e-12


def test_matching_pennies_choice():
    # Continual-responses paper §2. If player 0 plays H with probability a, player 1's best
    # payoff is max(2a, 1 - a, 2 - a, 3a - 1), minimized at a = 2/3 with value 4/3 to her.
    # Only (p, h) and (q, h) are best responses there, and mixing them with weight w on p
    # keeps a = 2/3 optimal only if 2w - (1 - w) = 0: q with 2/3, then heads. Both unique.
    tree = compiled("matching_pennies")
    result = solve_lp(tree)
    assert result.value == pytest.approx(-4.0 / 3.0, abs=1e-9)
    np.testing.assert_allclose(result.strategy.probs[0], [[2.0 / 3.0, 1.0 / 3.0]], atol=1e-8)
    probs1 = result.strategy.probs[1]
    np.testing.assert_allclose(probs1[_row(tree, 1, "")], [1.0 / 3.0, 2.0 / 3.0], atol=1e-8)
    np.testing.assert_allclose(probs1[_row(tree, 1, "p")], [1.0, 0.0], atol=1e-8)
    np.testing.assert_allclose(probs1[_row(tree, 1, "q")], [1.0, 0.0], atol=1e-8)


def test_second_lp_matches_dual_plan(kuhn_tree):
    from_duals = solve_lp(kuhn_tree)
    two_lps = solve_lp(kuhn_tree, dual_plan=False)
    assert from_duals.strategy.meta["linear_programs"] == 1
    assert two_lps.strategy.meta["linear_programs"] == 2
    assert two_lps.value == pytest.approx(from_duals.value, abs=1e-12)
    assert exploitability(kuhn_tree, two_lps.strategy).exploitability < 1e-9


# -- the sequence form itself ------------------------------------------------------------


def test_kuhn_sequence_counts(kuhn_tree):
    for p in (0, 1):
        sf = sequence_form(kuhn_tree, p)
        assert sf.num_sequences == 13  # the empty sequence + 6 information sets x 2 actions
        assert sf.E.shape == (7, 13)
        assert sf.e.tolist() == [1.0] + [0.0] * 6


@pytest.mark.parametrize("player", [0, 1])
def test_realization_plan_gives_reaches(leduc_tree, rng, player):
    probs = Strategy.random(leduc_tree, rng).probs[player]
    sf = sequence_form(leduc_tree, player)
    x = realization_plan(leduc_tree, player, probs)
    np.testing.assert_allclose(sf.E @ x, sf.e, atol=1e-12)
    reach = forward_reach(leduc_tree, player, transition_weights(leduc_tree, player, probs))
    np.testing.assert_allclose(sf.state_map @ x, reach, atol=1e-12)
    # Every information set is reached by a fully mixed strategy, so the round trip is exact.
    np.testing.assert_allclose(sf.behaviour(x), probs, atol=1e-12)


def test_payoff_matrix_is_expected_value(leduc_tree, rng):
    strategy = Strategy.random(leduc_tree, rng)
    x, y = (realization_plan(leduc_tree, p, strategy.probs[p]) for p in (0, 1))
    assert x @ (payoff_matrix(leduc_tree) @ y) == pytest.approx(expected_value(leduc_tree, strategy), abs=1e-12)


def test_realization_plans_are_feasible_and_optimal(leduc_tree, leduc_result):
    result = leduc_result
    x, y = result.realization
    for p, plan in enumerate(result.realization):
        sf = sequence_form(leduc_tree, p)
        assert plan.min() >= 0.0
        np.testing.assert_allclose(sf.E @ plan, sf.e, atol=1e-9)
    assert x @ (payoff_matrix(leduc_tree) @ y) == pytest.approx(result.value, abs=1e-9)


def test_unreached_information_sets_are_uniform(kuhn_tree):
    sf = sequence_form(kuhn_tree, 0)
    x = np.zeros(sf.num_sequences)
    x[0] = 1.0
    probs = sf.behaviour(x)
    np.testing.assert_array_equal(probs, np.full_like(probs, 0.5))


def test_player_without_information_sets():
    tree = compile_game(Solitaire())
    assert tree.players[1].num_infosets == 0
    result = solve_lp(tree)
    assert result.value == pytest.approx(2.0, abs=1e-12)  # first 2, then 0
    assert result.realization[1].tolist() == [1.0]
    assert exploitability(tree, result.strategy).exploitability == pytest.approx(0.0, abs=1e-12)


# -- refusals -----------------------------------------------------------------------------


def test_refuses_depth_limited_tree():
    tree = compile_game(load_game("kuhn"), depth_limit=1)
    with pytest.raises(GameDefinitionError, match="depth-limit"):
        solve_lp(tree)


def test_refuses_too_many_sequences(kuhn_tree):
    with pytest.raises(GameDefinitionError, match="max_size=20"):
        solve_lp(kuhn_tree, max_size=20)


def test_refuses_terminal_operator_without_matrix(kuhn_tree):
    class Opaque:
        def cfv(self, player, reach):
            return np.zeros(kuhn_tree.players[player].num_states)

    tree = dataclasses.replace(kuhn_tree, terminals=(Opaque(),))
    with pytest.raises(GameDefinitionError, match="Opaque"):
        solve_lp(tree)


def test_refuses_bad_player(kuhn_tree):
    with pytest.raises(GameDefinitionError, match="player"):
        sequence_form(kuhn_tree, 2)


# -- random games -------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), hidden=st.booleans())
@pytest.mark.slow
def test_random_games_solved_exactly(seed, hidden):
    tree = compile_game(RandomGame(seed, hidden))
    result = solve_lp(tree)
    ex = exploitability(tree, result.strategy)
    assert ex.exploitability < 1e-8
    assert ex.game_value == pytest.approx(result.value, abs=1e-8)


def _matrix_game_value(M: np.ndarray) -> float:
    """The row player's value of a matrix game: max v subject to Mᵀp >= v, p in the simplex."""
    m, n = M.shape
    res = linprog(
        np.r_[np.zeros(m), -1.0],
        A_ub=np.c_[-M.T, np.ones(n)],
        b_ub=np.zeros(n),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    return -res.fun


class MatrixGame(Game):
    """A matrix game played sequentially, player 0's choice hidden from player 1."""

    name = "matrix"

    def __init__(self, M: np.ndarray):
        self.M = M

    @property
    def params(self):
        return {"M": self.M.tolist()}

    def root(self):
        return ()

    def actor(self, s):
        return len(s) if len(s) < 2 else TERMINAL

    def legal_actions(self, s):
        return tuple(range(self.M.shape[len(s)]))

    def next_state(self, s, a):
        return s + (a,)

    def observations(self, s, a):
        return ("p0 moved", f"r{a}", "") if len(s) == 0 else (f"c{a}", "", "")

    def utility(self, s):
        return float(self.M[s])


@pytest.mark.parametrize("seed", range(5))
def test_matrix_games_match_direct_lp(seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=tuple(rng.integers(2, 6, size=2)))
    tree = compile_game(MatrixGame(M))
    result = solve_lp(tree)
    assert result.value == pytest.approx(_matrix_game_value(M), abs=1e-9)
    assert exploitability(tree, result.strategy).exploitability < 1e-9
