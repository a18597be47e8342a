"""The compiled outcome-sampling pass: the numpy pass's random stream and bits, and its refusals."""

from __future__ import annotations

import os

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.parallel import SerialExecutor
from subgame.solve.cfr import CFR_PLUS, DCFR, LINEAR_CFR
from subgame.solve.compiled_sampling import WholeIteration, available
from subgame.solve.mccfr import EXTERNAL_SAMPLING, OUTCOME_SAMPLING, PUBLIC_CHANCE_SAMPLING, MCCFRSolver, SamplingScheme
from subgame.tree import kernels
from subgame.tree.poker_compile import compile_poker

#: CI has a C compiler: there the compiled pass must have been built (as the sweep kernels must).
REQUIRED = os.environ.get("SUBGAME_REQUIRE_KERNELS") == "1"
needs_pass = pytest.mark.skipif(not available() and not REQUIRED,
                                reason="the compiled outcome-sampling pass was not built (no C compiler at install)")


def test_the_pass_is_built_where_required():
    assert available() or not REQUIRED


def _same_run(tree, iterations: int, **options) -> None:
    numpy_run = MCCFRSolver(tree, restrict=False, engine="numpy", **options)
    compiled_run = MCCFRSolver(tree, restrict=False, engine="compiled", **options)
    for _ in range(iterations):
        numpy_run.step()
        compiled_run.step()
    for a, b in zip(numpy_run.regrets + numpy_run.strategy_sum, compiled_run.regrets + compiled_run.strategy_sum):
        assert np.array_equal(a, b)
    assert np.abs(compiled_run.regrets[0]).max() > 0 and compiled_run.strategy_sum[1].sum() > 0
    assert [g.bit_generator.state for g in numpy_run.streams] == [g.bit_generator.state for g in compiled_run.streams]


@needs_pass
@pytest.mark.parametrize("game", ["kuhn_tree", "leduc_tree"])
@pytest.mark.parametrize("sweeps", ["numpy", "compiled"])
def test_regrets_and_strategy_sums_are_the_numpy_passes_bits(game, sweeps, request, monkeypatch):
    """For one seed, N iterations of either engine leave the same regrets, strategy sums and generator state."""
    if sweeps == "compiled":
        monkeypatch.setattr(kernels, "MIN_STATES", 0)
    _same_run(request.getfixturevalue(game), 150, scheme=OUTCOME_SAMPLING, config=LINEAR_CFR, seed=7)


@needs_pass
def test_bits_with_poker_operators_other_exploration_and_streams():
    tree = compile_poker(load_game("leduc"), sparse_threshold=0)
    assert {type(op).__name__ for op in tree.terminals} == {"FoldTerminal", "ShowdownTerminal"}
    _same_run(tree, 40, scheme=SamplingScheme("os-eps", "sampled", "sampled", epsilon=0.3), config=CFR_PLUS, seed=3, streams=2)


@needs_pass
def test_compiled_outcome_sampling_converges(kuhn_tree):
    solver = MCCFRSolver(kuhn_tree, OUTCOME_SAMPLING, seed=1, engine="compiled")
    for _ in range(3000):
        solver.step()
    assert exploitability(kuhn_tree, solver.average_strategy()).exploitability < 0.05


@needs_pass
def test_bad_engine_choices_are_refused(kuhn_tree):
    with pytest.raises(GameDefinitionError, match="engine must be one of"):
        MCCFRSolver(kuhn_tree, OUTCOME_SAMPLING, engine="gpu")
    with pytest.raises(GameDefinitionError, match="engine='compiled' runs mccfr-es, mccfr-os, pcs, not odd"):
        MCCFRSolver(kuhn_tree, SamplingScheme("odd", "exact", "sampled"), engine="compiled")
    with pytest.raises(GameDefinitionError, match="executor=None"):
        MCCFRSolver(kuhn_tree, OUTCOME_SAMPLING, engine="compiled", executor=SerialExecutor())


@needs_pass
@pytest.mark.parametrize("game", ["kuhn_tree", "leduc_tree"])
@pytest.mark.parametrize("config", [LINEAR_CFR, CFR_PLUS, DCFR])
@pytest.mark.parametrize("scheme", [OUTCOME_SAMPLING, EXTERNAL_SAMPLING, PUBLIC_CHANCE_SAMPLING], ids=["os", "es", "pcs"])
def test_a_whole_iteration_in_one_call_is_the_numpy_steps_bits(game, config, scheme, request, tmp_path):
    """One stream on a tree of one sparse payoff matrix: each step is one C call (regret matching, the chance sample,
    both passes and updates, the uniforms from the generator's own bit generator), bitwise numpy's steps, and a
    checkpoint taken after it resumes bitwise."""
    tree = request.getfixturevalue(game)
    compiled = MCCFRSolver(tree, scheme, config, seed=11, engine="compiled")
    assert WholeIteration.takes(tree, compiled.regrets, compiled.strategy_sum)
    _same_run(tree, 120, scheme=scheme, config=config, seed=11)
    for _ in range(60):
        compiled.step()
    path = compiled.save_checkpoint(tmp_path / "os.ckpt")
    resumed = MCCFRSolver.load_checkpoint(path, tree)  # the default engine
    for _ in range(60):
        compiled.step()
        resumed.step()
    for a, b in zip(compiled.regrets + compiled.strategy_sum, resumed.regrets + resumed.strategy_sum):
        assert np.array_equal(a, b)


@needs_pass
def test_the_default_engine_is_compiled_where_it_gives_numpys_bits(kuhn_tree, leduc_tree):
    """``engine="auto"``: compiled in this process on a walk of the whole tree; numpy with an executor, for a scheme
    the C code does not run, and where the numpy walk is restricted to the sample's public nodes."""
    assert MCCFRSolver(kuhn_tree, OUTCOME_SAMPLING).layout is not None
    assert MCCFRSolver(leduc_tree, EXTERNAL_SAMPLING).layout is not None
    assert MCCFRSolver(leduc_tree, PUBLIC_CHANCE_SAMPLING).layout is not None
    assert MCCFRSolver(leduc_tree, SamplingScheme("odd", "exact", "sampled")).layout is None
    assert MCCFRSolver(leduc_tree, EXTERNAL_SAMPLING, executor=SerialExecutor()).layout is None
    assert MCCFRSolver(leduc_tree, OUTCOME_SAMPLING, restrict=True).layout is None


@needs_pass
@pytest.mark.parametrize("scheme", [OUTCOME_SAMPLING, EXTERNAL_SAMPLING], ids=["os", "es"])
def test_a_copied_or_unpickled_compiled_solver_runs_on_its_own_buffers(leduc_tree, scheme):
    """The compiled engine's buffers are addressed by pointers: a deep copy and an unpickled solver make their own,
    and go on bitwise as the original does."""
    import copy
    import pickle

    solver = MCCFRSolver(leduc_tree, scheme, seed=5, engine="compiled")
    for _ in range(20):
        solver.step()
    twins = [copy.deepcopy(solver), pickle.loads(pickle.dumps(solver))]
    for _ in range(30):
        solver.step()
        for twin in twins:
            twin.step()
    for twin in twins:
        assert twin.layout is not None and twin.layout is not solver.layout
        for a, b in zip(solver.regrets + solver.strategy_sum, twin.regrets + twin.strategy_sum):
            assert np.array_equal(a, b)
