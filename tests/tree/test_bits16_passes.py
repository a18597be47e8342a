"""16-bit storage of the regrets and strategy sums (``CFRSolver(..., compress=True)``): postflop-solver's compression."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.solve.cfr import DCFR, PCFR_PLUS, POSTFLOP_DCFR, CFRSolver
from subgame.solve.checkpoint import read_checkpoint
from subgame.tree.threads import set_threads
from tests.tree import test_live_rows, test_single_passes
from tests.tree.test_kernels import poker_tree
from tests.tree.test_poker_layout import roots

everywhere = test_live_rows.everywhere  # the passes on trees of any size, children shared among threads
turn = test_single_passes.turn  # a 52-card turn whose ranges hold about a third of the hands
pytestmark = test_single_passes.pytestmark  # the compiled passes, built


def compressed(problem, iterations: int, config=POSTFLOP_DCFR) -> CFRSolver:
    return problem.solver(config, "float32", True, True, "float32", compress=True).run(iterations)


def test_sixteen_bits_take_half_the_memory_of_float32_and_are_as_exploitable(turn):
    """The same rule stored in float32 and in 16 bits: the stores halve, and after a run the exploitability (evaluated
    in float64 from the 16-bit sums) is within a few percent of float32's, as postflop-solver's compression loses little."""
    full = turn.solver(POSTFLOP_DCFR, "float32", True, True, "float32").run(30)
    small = compressed(turn, 30)
    assert [a.dtype for a in small.regrets + small.strategy_sum] == [np.int16, np.int16, np.uint16, np.uint16]
    for a, b in zip(full.regrets + full.strategy_sum, small.regrets + small.strategy_sum):
        assert a.shape == b.shape and b.nbytes * 2 == a.nbytes
    want, got = turn.exploitability(full).pct_pot, turn.exploitability(small).pct_pot
    assert got == pytest.approx(want, rel=0.05)
    assert turn.exploitability(small).pct_pot < turn.exploitability(compressed(turn, 3)).pct_pot / 2  # it converges


def test_each_node_is_scaled_to_the_full_range_of_its_type(turn):
    """After an update a node's largest stored magnitude is the type's largest (or the node is all zero), and its unit
    decodes the stored integers into numbers of float32's order (the average made from them is a distribution)."""
    solver = compressed(turn, 4)
    layout = solver.sources_layout
    for p in (0, 1):
        nodes = layout.compact[p].nodes(layout, p)
        assert nodes.shape == solver.regrets[p].shape
        for kind, (stored, top) in enumerate(((solver.regrets[p], 32767), (solver.strategy_sum[p], 65535))):
            largest = np.zeros(layout.node.shape[0], dtype=np.int64)
            np.maximum.at(largest, nodes, np.abs(stored.astype(np.int64)))
            used = np.unique(nodes)
            assert set(np.unique(largest[used])) <= {0, top}
            assert (solver.scales[p][kind][largest == 0] == 0).all()
    probs = solver.average_strategy().probs
    for p in (0, 1):
        np.testing.assert_allclose(probs[p].sum(axis=1), 1.0, rtol=1e-9)


@pytest.mark.parametrize("threads", [1, 2])
def test_sixteen_bit_passes_are_bitwise_on_any_thread_count_and_one_step_at_a_time(everywhere, threads):
    tree = poker_tree("all_in_runout")
    reach = roots(tree, 7)

    def solver() -> CFRSolver:
        return CFRSolver(tree, POSTFLOP_DCFR, root_reach=reach, drop_zero_weight=True, compact=True, dtype="float32",
                         compute="float32", compress=True)

    def run(count: int) -> CFRSolver:
        old = set_threads(count)
        try:
            return solver().run(8)
        finally:
            set_threads(old)

    one, many = run(1), run(threads)
    step = solver()
    for _ in range(8):  # one iteration at a time (cfr_pass) is the batched call (poker_iterations) bit for bit
        step.step()
    for other in (many, step):
        for p in (0, 1):
            assert one.regrets[p].tobytes() == other.regrets[p].tobytes()
            assert one.strategy_sum[p].tobytes() == other.strategy_sum[p].tobytes()
            assert one.scales[p].tobytes() == other.scales[p].tobytes()


def test_a_sixteen_bit_checkpoint_resumes_bitwise_and_only_as_sixteen_bits(tmp_path, turn):
    straight = compressed(turn, 6)
    path = compressed(turn, 3).save_checkpoint(tmp_path / "bits16.npz")
    resumed = turn.solver(POSTFLOP_DCFR, "float32", True, True, "float32", compress=True).restore(*read_checkpoint(path))
    resumed.run(3)
    for a, b in zip(straight.regrets + straight.strategy_sum + straight.scales,
                    resumed.regrets + resumed.strategy_sum + resumed.scales):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    with pytest.raises(StrategyFileError, match="with 16-bit storage"):
        turn.solver(POSTFLOP_DCFR, "float32", True, True, "float32").restore(*read_checkpoint(path))
    plain = turn.solver(POSTFLOP_DCFR, "float32", True, True, "float32").run(1).save_checkpoint(tmp_path / "f32.npz")
    with pytest.raises(StrategyFileError, match="without 16-bit storage"):
        turn.solver(POSTFLOP_DCFR, "float32", True, True, "float32", compress=True).restore(*read_checkpoint(plain))


def test_sixteen_bits_are_refused_where_they_cannot_serve(turn):
    with pytest.raises(GameDefinitionError, match="compute='float32'"):
        turn.solver(POSTFLOP_DCFR, "float32", True, True, "float64", compress=True)
    with pytest.raises(GameDefinitionError, match="reach_average=False"):  # a node's one unit rounds small reaches away
        turn.solver(DCFR, "float32", True, True, "float32", compress=True)
    with pytest.raises(GameDefinitionError, match="predictive"):
        turn.solver(dataclasses.replace(PCFR_PLUS, reach_average=False), "float32", True, True, "float32", compress=True)
