"""Compact storage (``CFRSolver(compact=True)``): per decision node its own actions × its rows, against [I, A]."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval.best_response import exploitability
from subgame.games import load_game
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.ranges import Range, parse_cards
from subgame.resolving.spots import holdem_problem
from subgame.solve.cfr import CFR_PLUS, DCFR, PCFR_PLUS, POSTFLOP_DCFR, CFRSolver
from subgame.solve.checkpoint import read_checkpoint
from subgame.tree import kernels
from subgame.tree.compile import compile_game
from subgame.tree.poker_layout import SUMS, Source, root_values
from subgame.tree.threads import set_threads
from tests.tree import test_live_rows
from tests.tree.test_kernels import POKER, REQUIRED, poker_tree
from tests.tree.test_poker_layout import isomorphic_tree, narrow_spot, roots

everywhere = test_live_rows.everywhere  # the passes on trees of any size, children shared among threads

pytestmark = pytest.mark.skipif(not kernels.available() and not REQUIRED,
                                reason="the compiled extension was not built (no C compiler at install)")


def check_same(padded: CFRSolver, compact: CFRSolver) -> None:
    """The compact arrays laid out as [I, A] are the padded solver's, bit for bit."""
    for p in (0, 1):
        for a, b in ((padded.regrets[p], compact.regrets[p]), (padded.strategy_sum[p], compact.strategy_sum[p])):
            assert b.ndim == 1 and b.size < a.size or b.size == np.count_nonzero(padded.tree.players[p].legal)
            assert compact.padded(p, b).tobytes() == a.tobytes()


@pytest.mark.parametrize("key", [*POKER, "isomorphic"])
@pytest.mark.parametrize("config", [CFR_PLUS, DCFR, PCFR_PLUS, POSTFLOP_DCFR], ids=["cfr+", "dcfr", "pcfr+", "dcfr-postflop"])
def test_compact_storage_gives_the_padded_arrays_bit_for_bit(everywhere, key, config):
    tree = isomorphic_tree() if key == "isomorphic" else poker_tree(key)
    assert tree.players[0].legal.shape[1] < 8
    check_same(CFRSolver(tree, config).run(7), CFRSolver(tree, config, compact=True).run(7))
    if key.startswith("leduc"):  # payoff-matrix boards keep every row
        return
    reach = roots(tree, 4)
    padded = CFRSolver(tree, config, root_reach=reach, drop_zero_weight=True, dtype="float32").run(7)
    compact = CFRSolver(tree, config, root_reach=reach, drop_zero_weight=True, dtype="float32", compact=True).run(7)
    check_same(padded, compact)
    assert all(c.size < p.size for c, p in zip(compact.regrets, padded.regrets))  # the dropped rows take no slots
    a, b = (exploitability(tree, s.average_strategy(), root_reach=reach) for s in (padded, compact))
    assert a == b


@pytest.mark.parametrize("threads", [1, 2])
def test_compact_kept_rows_are_bitwise_on_any_thread_count(everywhere, threads):
    tree = poker_tree("all_in_runout")
    reach = roots(tree, 7)
    old = set_threads(threads)
    try:
        compact = CFRSolver(tree, DCFR, root_reach=reach, drop_zero_weight=True, compact=True).run(8)
    finally:
        set_threads(old)
    check_same(CFRSolver(tree, DCFR, root_reach=reach, drop_zero_weight=True).run(8), compact)


@pytest.fixture(scope="module")
def turn():
    """A 52-card turn whose ranges hold about a third of the hands."""
    return narrow_spot("Ts 6h Ah 7c", 4780, 2000, "allin", 3, 0.35)


def test_a_turn_spot_reads_its_exploitability_from_the_compact_kept_rows(turn):
    padded = turn.solver(DCFR, drop_zero_weight=True).run(5)
    compact = turn.solver(DCFR, drop_zero_weight=True, compact=True).run(5)
    check_same(padded, compact)
    assert compact.average_sources()[0].compact is compact.sources_layout.compact[0]
    assert turn.exploitability(compact) == turn.exploitability(padded)


def test_from_eight_actions_on_compact_storage_is_equal_to_rounding():
    """A river of eight bet sizes: the padded rows are summed in numpy's order over ten slots, the compact ones left to
    right over a node's own actions, so the two agree to rounding, not bit for bit."""
    board = parse_cards("Ts 6h Ah 7c 2d")
    sizes = BetSizing.parse("0.25,0.33,0.5,0.75,1,1.5,2,3,allin", 1)
    problem = holdem_problem(HoldemSpot(board, 1000, 5000, sizes), (Range.uniform(board), Range.uniform(board)))
    assert problem.tree.players[0].legal.shape[1] >= 8
    padded, compact = problem.solver(DCFR).run(20), problem.solver(DCFR, compact=True).run(20)
    for p in (0, 1):
        np.testing.assert_allclose(compact.padded(p, compact.strategy_sum[p]), padded.strategy_sum[p], rtol=1e-9, atol=1e-12)
    assert problem.exploitability(compact).chips == pytest.approx(problem.exploitability(padded).chips, rel=1e-9)


def test_checkpoints_resume_bitwise_and_say_which_storage_they_hold(tmp_path, turn):
    straight = turn.solver(DCFR, drop_zero_weight=True, compact=True).run(6)
    first = turn.solver(DCFR, drop_zero_weight=True, compact=True).run(3)
    path = first.save_checkpoint(tmp_path / "compact.npz")
    resumed = turn.solver(DCFR, drop_zero_weight=True, compact=True).restore(*read_checkpoint(path)).run(3)
    assert all(np.array_equal(a, b) for a, b in zip(straight.regrets + straight.strategy_sum,
                                                    resumed.regrets + resumed.strategy_sum))
    with pytest.raises(StrategyFileError, match="compact storage"):
        turn.solver(DCFR).restore(*read_checkpoint(path))
    # one written before compact storage was laid out action by action holds the same arrays in another order
    header, arrays = read_checkpoint(path)
    del header["compact"]
    with pytest.raises(StrategyFileError, match="earlier order of compact storage"):
        turn.solver(DCFR, drop_zero_weight=True, compact=True).restore(header, arrays)
    # one written in [I, A] goes on in compact storage
    padded = turn.solver(DCFR, drop_zero_weight=True).run(3)
    moved = turn.solver(DCFR, drop_zero_weight=True, compact=True).restore(
        *read_checkpoint(padded.save_checkpoint(tmp_path / "padded.npz"))).run(3)
    check_same(turn.solver(DCFR, drop_zero_weight=True).run(6), moved)


def test_compact_storage_is_refused_where_the_passes_cannot_run():
    leduc = compile_game(load_game("leduc"))
    with pytest.raises(GameDefinitionError, match="compact storage needs the depth-first passes.*simultaneous"):
        CFRSolver(leduc, replace(CFR_PLUS, alternating=False), compact=True)
    with pytest.raises(GameDefinitionError, match="engine 'numpy' cannot run compact storage"):
        CFRSolver(leduc, CFR_PLUS, compact=True, engine="numpy")


def test_a_pass_refuses_compact_storage_of_another_layout(turn):
    kept = turn.solver(DCFR, drop_zero_weight=True, compact=True)
    sums = kept.average_sources()
    assert sums is not None and turn.tree.layout is not None
    with pytest.raises(GameDefinitionError, match="compact storage of another layout"):
        root_values(turn.tree.layout, 0, 1, sums, turn.root_reach)  # the kept rows' storage on the all-rows layout
    flat = Source(SUMS, sums[0].data, sums[0].legal)
    with pytest.raises(GameDefinitionError, match="one dimension is compact storage"):
        root_values(kept.sources_layout, 0, 1, (flat, sums[1]), turn.root_reach)


@pytest.mark.parametrize("compute,config", [("float64", DCFR), ("float32", POSTFLOP_DCFR)])
def test_compact_storage_keeps_no_legal_mask_where_every_slot_is_legal(turn, compute, config):
    """A poker tree's own actions are legal at every row, so compact storage keeps no mask of a byte a slot (the passes
    read a block of ones): the same regrets, sums and best responses, bit for bit, as with every slot's mask given."""
    dtype = "float32" if compute == "float32" else "float64"
    lean = turn.solver(config, dtype, True, True, compute)
    assert lean._legal == [None, None]
    masked = turn.solver(config, dtype, True, True, compute)
    masked._legal = [np.ones(masked.regrets[p].shape, dtype=bool) for p in (0, 1)]
    lean.run(4), masked.run(4)
    for p in (0, 1):
        assert lean.regrets[p].tobytes() == masked.regrets[p].tobytes()
        assert lean.strategy_sum[p].tobytes() == masked.strategy_sum[p].tobytes()
    assert exploitability(turn.tree, lean, root_reach=turn.root_reach) == exploitability(
        turn.tree, masked, root_reach=turn.root_reach)
