"""The depth-first passes computed in float32 (``CFRSolver(..., compute="float32")``, ``poker_pass_single``)."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.solve.cfr import CFR_PLUS, DCFR, PCFR_PLUS, POSTFLOP_DCFR, CFRSolver
from subgame.solve.checkpoint import read_checkpoint
from subgame.tree import kernels
from subgame.tree.poker_layout import VALUES, regret_sources, root_values
from subgame.tree.threads import set_threads
from tests.tree import test_live_rows
from tests.tree.test_kernels import REQUIRED, poker_tree
from tests.tree.test_poker_layout import narrow_spot, roots

everywhere = test_live_rows.everywhere  # the passes on trees of any size, children shared among threads

pytestmark = pytest.mark.skipif(not kernels.available() and not REQUIRED,
                                reason="the compiled extension was not built (no C compiler at install)")


@pytest.fixture(scope="module")
def turn():
    """A 52-card turn whose ranges hold about a third of the hands."""
    return narrow_spot("Ts 6h Ah 7c", 4780, 2000, "allin", 3, 0.35)


def single(problem, config, iterations: int, compute: str = "float32") -> CFRSolver:
    return problem.solver(config, "float32", True, True, compute).run(iterations)


@pytest.mark.parametrize("config", [CFR_PLUS, DCFR, PCFR_PLUS, POSTFLOP_DCFR], ids=["cfr+", "dcfr", "pcfr+", "dcfr-postflop"])
def test_float32_passes_follow_the_float64_iterates(turn, config):
    """Another arithmetic, so not the same bits: the same iterates to float32's rounding at first (later RM+'s clipping
    at zero carries the rounding into another trajectory), and as exploitable after a run (evaluated in float64)."""
    exact, fast = single(turn, config, 2, compute="float64"), single(turn, config, 2)
    assert fast.compute == "float32" and fast.loops == "passes"
    assert not all(np.array_equal(exact.regrets[p], fast.regrets[p]) for p in (0, 1))  # computed otherwise
    for p in (0, 1):
        for a, b in ((exact.regrets[p], fast.regrets[p]), (exact.strategy_sum[p], fast.strategy_sum[p])):
            np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5 * float(np.abs(a).max()))
    exact, fast = exact.run(28), fast.run(28)
    want, got = turn.exploitability(exact).pct_pot, turn.exploitability(fast).pct_pot
    assert got == pytest.approx(want, rel=0.05)


@pytest.mark.parametrize("threads", [1, 2])
def test_float32_passes_are_bitwise_on_any_thread_count(everywhere, threads):
    tree = poker_tree("all_in_runout")
    reach = roots(tree, 7)

    def run(count: int) -> CFRSolver:
        old = set_threads(count)
        try:
            return CFRSolver(tree, DCFR, root_reach=reach, drop_zero_weight=True, compact=True, dtype="float32",
                             compute="float32").run(8)
        finally:
            set_threads(old)

    one, many = run(1), run(threads)
    for p in (0, 1):
        assert one.regrets[p].tobytes() == many.regrets[p].tobytes()
        assert one.strategy_sum[p].tobytes() == many.strategy_sum[p].tobytes()
    step = CFRSolver(tree, DCFR, root_reach=reach, drop_zero_weight=True, compact=True, dtype="float32",
                     compute="float32")
    for _ in range(8):  # one iteration at a time (cfr_pass) is the batched call (poker_iterations) bit for bit
        step.step()
    assert all(step.strategy_sum[p].tobytes() == one.strategy_sum[p].tobytes() for p in (0, 1))


def test_float32_passes_need_float32_compact_storage(turn):
    with pytest.raises(GameDefinitionError, match="dtype='float32' and compact=True"):
        turn.solver(DCFR, "float64", True, True, "float32")
    with pytest.raises(GameDefinitionError, match="dtype='float32' and compact=True"):
        turn.solver(DCFR, "float32", True, False, "float32")
    with pytest.raises(GameDefinitionError, match="'float64' or 'float32'"):
        turn.solver(DCFR, "float32", True, True, "half")


def test_a_checkpoint_resumes_only_in_the_precision_it_was_computed_in(tmp_path, turn):
    straight = single(turn, DCFR, 6)
    path = single(turn, DCFR, 3).save_checkpoint(tmp_path / "single.npz")
    resumed = turn.solver(DCFR, "float32", True, True, "float32").restore(*read_checkpoint(path)).run(3)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(straight.regrets + straight.strategy_sum,
                                                          resumed.regrets + resumed.strategy_sum))
    with pytest.raises(StrategyFileError, match="computed in float32"):
        turn.solver(DCFR, "float32", True, True).restore(*read_checkpoint(path))


@pytest.mark.parametrize("dtype,compute", [("float64", "float64"), ("float32", "float32")])
def test_the_avx2_passes_give_the_baseline_bits(turn, dtype, compute):
    """``_passes_avx2.c`` compiles the passes again for AVX2 and runs where the processor has it: the same operations in
    the same order, so the same regrets, sums and exploitability to the bit as the baseline compilation."""
    def run(loops: str) -> tuple[CFRSolver, float]:
        with kernels.passes_compiled_for(loops) as ran:
            assert ran == loops or (loops == "avx2" and ran == "baseline")
            solver = turn.solver(POSTFLOP_DCFR if compute == "float32" else DCFR, dtype, True, True, compute).run(6)
            return solver, turn.exploitability(solver).pct_pot

    (base, base_x), (wide, wide_x) = run("baseline"), run("avx2")
    for p in (0, 1):
        assert base.regrets[p].tobytes() == wide.regrets[p].tobytes()
        assert base.strategy_sum[p].tobytes() == wide.strategy_sum[p].tobytes()
    assert base_x == wide_x
    assert kernels.pass_loops() in ("avx2", "baseline")  # the setting before the blocks is back


def test_an_unknown_passes_compilation_is_refused():
    with pytest.raises(GameDefinitionError, match="choose one of best, baseline, avx2"):
        with kernels.passes_compiled_for("sse9"):
            pass


def test_float32_passes_sum_a_chance_nodes_children_in_float64():
    """A river's 44 cards are summed in float64 and rounded once, as postflop-solver sums them: the float32 values at a
    deep-stacked turn's roots (subgame1's board, pot and stacks) lie within 1.5 float32 steps of the largest value of
    the same pass computed in float64 (summed in float32 they lay 1.9 to 2.7 steps off, and that solve reached 0.575 %
    of the pot after 250 iterations where float64 reaches 0.489 %)."""
    spot = narrow_spot("7s 9h 9c Tc", 500, 19750, "1,allin", 5, 0.2)
    solver = spot.solver(POSTFLOP_DCFR, "float32", True, True, "float32").run(5)
    layout, reach = solver.sources_layout, (solver._root_rows(0), solver._root_rows(1))
    for p in (0, 1):
        exact, single = (root_values(layout, p, VALUES, regret_sources(layout, tuple(solver.regrets), tuple(solver._legal),
                                                                       True, computed), reach) for computed in (False, True))
        step = float(np.spacing(np.float32(np.abs(exact).max())))
        assert 0 < np.abs(single - exact).max() <= 1.5 * step
