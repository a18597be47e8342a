"""Sampling CFR: unbiased regrets, convergence to the LP value, seeds and bitwise resume."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval import expected_value, exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR, CFR_PLUS, LINEAR_CFR, CFRSolver
from subgame.solve.lp import solve_lp
from subgame.solve.mccfr import (
    EXTERNAL_SAMPLING,
    OUTCOME_SAMPLING,
    PUBLIC_CHANCE_SAMPLING,
    SCHEMES,
    MCCFRSolver,
    PublicChanceSampler,
    SamplingScheme,
    sample_actions,
)
from subgame.tree.compile import compile_game
from subgame.tree.poker_compile import compile_poker


def _mean_first_regrets(tree, scheme, samples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Player 0's regrets after one iteration from the uniform strategy: mean and standard error over samples."""
    solver = MCCFRSolver(tree, scheme, CFR, seed=seed)
    draws = []
    for _ in range(samples):
        solver.iteration = 0
        solver.regrets = [np.zeros_like(r) for r in solver.regrets]
        solver.step()
        draws.append(solver.regrets[0].copy())
    d = np.array(draws)
    return d.mean(axis=0), d.std(axis=0) / np.sqrt(samples)


@pytest.mark.parametrize(
    ("game", "scheme"),
    # outcome sampling on Leduc is left out: its regrets at deep information sets are rare, large
    # draws (importance weights up to 3^4), so a few thousand samples give no reliable standard error
    [("kuhn", "mccfr-es"), ("kuhn", "mccfr-os"), ("kuhn", "pcs"), ("leduc", "mccfr-es"), ("leduc", "pcs")],
)
@pytest.mark.slow
def test_sampled_regrets_are_unbiased(game, scheme, request):
    """Lanctot et al. 2009, Theorem 1's premise: the sampled regret's expectation is CFR's."""
    tree = request.getfixturevalue(f"{game}_tree")
    exact = CFRSolver(tree, CFR).run(1).regrets[0]
    mean, se = _mean_first_regrets(tree, SCHEMES[scheme], 1500, seed=7)
    assert np.all(np.abs(mean - exact) <= 5 * se + 1e-9)
    assert np.abs(exact).max() > 0.01  # the check is not vacuous


@pytest.fixture(scope="module")
def poker_operator_trees():
    """Leduc, and a two-hole-card variant, with the poker fold/showdown operators instead of sparse matrices."""
    return {
        "leduc": compile_poker(load_game("leduc"), sparse_threshold=0),
        "two-cards": compile_poker(load_game("leduc", num_ranks=4, hole_cards=2), sparse_threshold=0),
    }


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
@pytest.mark.parametrize("operators", ["sparse", "leduc", "two-cards"])
@pytest.mark.slow
def test_walking_only_the_sample_gives_the_whole_sweeps_estimates(leduc_tree, poker_operator_trees, scheme, operators):
    """Restricted to the sampled public nodes, the sweeps compute what the whole-tree sweeps do (zeros aside)."""
    tree = leduc_tree if operators == "sparse" else poker_operator_trees[operators]
    if operators != "sparse":
        assert {type(op).__name__ for op in tree.terminals} == {"FoldTerminal", "ShowdownTerminal"}
    part = MCCFRSolver(tree, SCHEMES[scheme], CFR_PLUS, seed=2, restrict=True)
    whole = MCCFRSolver(tree, SCHEMES[scheme], CFR_PLUS, seed=2, restrict=False)
    assert part.walk.restrict and not whole.walk.restrict
    for _ in range(6):
        part.step()
        whole.step()
    for a, b in zip(part.regrets + part.strategy_sum, whole.regrets + whole.strategy_sum):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    assert np.abs(part.regrets[0]).max() > 0


def test_public_chance_weights_are_unbiased(leduc_tree):
    sampler = PublicChanceSampler.of(leduc_tree)
    rng = np.random.default_rng(3)
    w = np.array([sampler.weights(rng) for _ in range(4000)])
    assert set(np.unique(w)) <= {0.0, 1.0, 6.0}
    assert np.all(np.abs(w.mean(axis=0) - 1.0) <= 5 * w.std(axis=0) / np.sqrt(len(w)) + 1e-12)


def test_pcs_without_public_chance_is_cfr(kuhn_tree):
    """Kuhn has no public chance, so public chance sampling samples nothing: it is CFR, bitwise."""
    assert PublicChanceSampler.of(kuhn_tree).chance_nodes.size == 0
    pcs = MCCFRSolver(kuhn_tree, PUBLIC_CHANCE_SAMPLING, LINEAR_CFR, seed=5)
    for _ in range(50):
        pcs.step()
    cfr = CFRSolver(kuhn_tree, LINEAR_CFR).run(50)
    assert all(np.array_equal(a, b) for a, b in zip(pcs.regrets + pcs.strategy_sum, cfr.regrets + cfr.strategy_sum))


@pytest.mark.parametrize(
    ("game", "scheme", "iterations", "tolerance", "value_tolerance"),
    [
        ("kuhn", "mccfr-es", 1500, 0.015, 0.003),
        ("kuhn", "mccfr-os", 3000, 0.05, 0.01),
        ("kuhn", "pcs", 500, 0.002, 1e-4),
        ("leduc", "mccfr-es", 1500, 0.35, 0.08),
        ("leduc", "mccfr-os", 1500, 1.5, 0.25),
        ("leduc", "pcs", 1500, 0.35, 0.05),
    ],
)
@pytest.mark.slow
def test_converges_toward_the_lp_value(game, scheme, iterations, tolerance, value_tolerance, request):
    """Exploitability falls and the average strategy's value nears the LP's (tolerances: about 2x a seed's spread)."""
    tree = request.getfixturevalue(f"{game}_tree")
    lp_value = solve_lp(tree).value
    solver = MCCFRSolver(tree, SCHEMES[scheme], seed=11)
    for _ in range(30):
        solver.step()
    early = exploitability(tree, solver.average_strategy()).exploitability
    while solver.iteration < iterations:
        solver.step()
    avg = solver.average_strategy()
    late = exploitability(tree, avg).exploitability
    assert late < tolerance
    assert late < early / 2
    assert expected_value(tree, avg) == pytest.approx(lp_value, abs=value_tolerance)


def test_same_seed_same_run_other_seed_other_run(leduc_tree):
    def regrets(seed: int) -> np.ndarray:
        s = MCCFRSolver(leduc_tree, EXTERNAL_SAMPLING, seed=seed)
        for _ in range(5):
            s.step()
        return s.regrets[0]

    assert np.array_equal(regrets(1), regrets(1))
    assert not np.array_equal(regrets(1), regrets(2))


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_checkpoint_resume_is_bitwise(leduc_tree, tmp_path, scheme):
    straight = MCCFRSolver(leduc_tree, SCHEMES[scheme], CFR_PLUS, seed=4)
    for _ in range(12):
        straight.step()
    first = MCCFRSolver(leduc_tree, SCHEMES[scheme], CFR_PLUS, seed=4)
    for _ in range(5):
        first.step()
    path = first.save_checkpoint(tmp_path / "ckpt.npz")
    resumed = MCCFRSolver.load_checkpoint(path, leduc_tree)
    assert resumed.scheme == SCHEMES[scheme] and resumed.config == CFR_PLUS and resumed.iteration == 5
    for _ in range(7):
        resumed.step()
    for a, b in zip(straight.regrets + straight.strategy_sum, resumed.regrets + resumed.strategy_sum):
        assert np.array_equal(a, b)


def test_a_plain_cfr_checkpoint_is_refused(kuhn_tree, tmp_path):
    path = CFRSolver(kuhn_tree).run(2).save_checkpoint(tmp_path / "cfr.npz")
    with pytest.raises(StrategyFileError, match="without sampling state"):
        MCCFRSolver.load_checkpoint(path, kuhn_tree)


def test_sample_actions_never_draws_a_zero_probability_slot():
    probs = np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5], [0.0, 0.0, 1.0]])
    rng = np.random.default_rng(0)
    drawn = np.array([sample_actions(probs, rng) for _ in range(500)])
    assert np.all(probs[np.arange(3), drawn] > 0)
    assert 0.4 < np.mean(drawn[:, 1] == 0) < 0.6


def test_bad_arguments_are_refused(kuhn_tree):
    with pytest.raises(GameDefinitionError, match="epsilon"):
        SamplingScheme("x", opponent="sampled", traverser="sampled", epsilon=0.0)
    with pytest.raises(GameDefinitionError, match="SamplingScheme"):
        MCCFRSolver(kuhn_tree, "mccfr-es")  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="seed"):
        MCCFRSolver(kuhn_tree, OUTCOME_SAMPLING, seed=-1)
    with pytest.raises(GameDefinitionError, match="depth-limit leaves"):
        MCCFRSolver(compile_game(load_game("leduc"), chance_limit=1), EXTERNAL_SAMPLING)
