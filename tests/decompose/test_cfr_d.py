"""CFR-D (decomposition paper, "Generating a Trunk Strategy using CFR-D"): split, leaf operator, convergence."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.decompose import (
    CFRDConfig,
    CFRDSolver,
    Decomposition,
    TrunkSplit,
    compile_chunk,
    reconstruct,
    solve_chunk,
    stored_value_exploitability,
)
from subgame.errors import GameDefinitionError
from subgame.eval import best_response, exploitability
from subgame.games import load_game
from subgame.solve.cfr import CFR, CFR_PLUS, MODICUM, POSTFLOP_DCFR, CFRConfig, CFRSolver
from subgame.strategy import Strategy
from subgame.tree.public_tree import LEAF
from subgame.tree.sweep import forward_reach, transition_weights
from tests.conftest import compiled

from .conftest import TRUNK_ITERATIONS


def test_leduc_split_after_first_round_has_the_papers_subgames():
    d = Decomposition.build(load_game("leduc"), TrunkSplit(rounds=1), batch=1)
    # five first-round sequences that reach the second round, times six board cards
    assert d.num_subgames == 30 and len(d.chunks) == 30
    trunk = d.trunk
    assert not trunk.leaf_data  # no per-history data is kept
    for chunk in d.chunks[:4]:
        forest = compile_chunk(d.game, chunk.keys)
        for p in (0, 1):
            rs = forest.plan.root_slice[p]
            labels = forest.players[p].label[rs.start : rs.stop]
            assert labels == tuple(trunk.players[p].label[g] for g in chunk.trunk_states[p])
            assert set(trunk.players[p].node[chunk.trunk_states[p]]) == set(chunk.leaf_nodes)


@pytest.mark.slow
def test_split_by_public_depth_and_bad_splits():
    game = load_game("leduc")
    d = Decomposition.build(game, TrunkSplit(depth=2), batch=4)
    assert d.num_subgames == int(np.sum(d.trunk.kind == LEAF)) == 4  # cc, cr, rc, rr: the non-terminal states after two moves
    solver = CFRDSolver(game, TrunkSplit(depth=2), CFRDConfig(20, batch=4)).run(20)
    full = compiled("leduc")
    got = reconstruct(solver.solution(), iterations=200, full_tree=full).exploitability().exploitability
    assert got < 0.5 * exploitability(full, Strategy.uniform(full)).exploitability
    with pytest.raises(GameDefinitionError, match="exactly one"):
        TrunkSplit()
    with pytest.raises(GameDefinitionError, match="positive"):
        TrunkSplit(rounds=0)
    with pytest.raises(GameDefinitionError, match="no subgame"):
        TrunkSplit(depth=40).compile(game)
    with pytest.raises(GameDefinitionError, match="subgame_iterations"):
        CFRDConfig(subgame_iterations=0)


def test_leaf_values_are_counterfactual_best_responses_in_the_full_game():
    """The operator's root values equal full-game CBVs against the inner-solve strategy.

    Independent check of the label mapping, the root ranges and the chance weights: with
    the uniform trunk strategy and each subgame playing the inner solve's average
    strategy, a best response on the full tree gives the same values at the subgame roots.
    """
    game, full = load_game("leduc"), compiled("leduc")
    d = Decomposition.build(game, TrunkSplit(rounds=1), batch=30)
    trunk, chunk = d.trunk, d.chunks[0]
    uniform = Strategy.uniform(trunk)
    reach = tuple(forward_reach(trunk, p, transition_weights(trunk, p, uniform.probs[p])) for p in (0, 1))
    forest = compile_chunk(game, chunk.keys)
    roots = tuple(reach[p][chunk.trunk_states[p]] for p in (0, 1))
    res = solve_chunk(forest, roots, 30, CFR_PLUS, record=True)
    probs = []
    full_uniform = Strategy.uniform(full)
    index = [{(full.public_key[pa.node[g]], pa.label[g]): i for i, g in enumerate(pa.infoset_priv)} for pa in full.players]
    for p in (0, 1):
        real = res.realization[p]
        sub = real / real.sum(axis=1, keepdims=True)
        pa = forest.players[p]
        rows = np.array([index[p][(forest.public_key[pa.node[g]], pa.label[g])] for g in pa.infoset_priv])
        out = full_uniform.probs[p].copy()
        out[rows] = 0.0
        out[rows, : sub.shape[1]] = sub
        probs.append(out)
    strategy = Strategy(full.game_id, (probs[0], probs[1]))
    for p in (0, 1):
        cbv = best_response(full, strategy, p).cbv
        pa = full.players[p]
        where = {(full.public_key[pa.node[g]], pa.label[g]): g for g in range(pa.num_states)}
        tp = trunk.players[p]
        g_full = [where[(trunk.public_key[tp.node[g]], tp.label[g])] for g in chunk.trunk_states[p]]
        np.testing.assert_allclose(res.values[p], cbv[g_full], rtol=0, atol=1e-12)


@pytest.mark.slow
def test_batching_subgames_into_one_forest_changes_nothing():
    game = load_game("leduc")
    runs = [CFRDSolver(game, TrunkSplit(rounds=1), CFRDConfig(8, batch=b, cached_chunks=c)).run(4) for b, c in ((1, 0), (7, 2), (30, None))]
    ref = runs[0].solution()
    for other in runs[1:]:
        sol = other.solution()
        for p in (0, 1):
            np.testing.assert_allclose(sol.average.probs[p], ref.average.probs[p], rtol=0, atol=1e-13)
            np.testing.assert_allclose(sol.root_values[p], ref.root_values[p], rtol=0, atol=1e-13)


@pytest.mark.slow
def test_memory_is_the_trunk_and_the_root_values():
    """What CFR-D keeps between iterations: trunk regrets and sums, root value sums; no subgame."""
    game = load_game("leduc")
    solver = CFRDSolver(game, TrunkSplit(rounds=1), CFRDConfig(5, batch=1, cached_chunks=0)).run(2)
    assert len(solver.decomposition.cache) == 0 and solver.decomposition.cache.compiles == 30 * (1 + 2 * 2)
    trunk = solver.decomposition.trunk
    expected = sum(2 * pa.legal.size * 8 + pa.num_states * 8 for pa in trunk.players)
    assert solver.state_bytes() == expected
    full = CFRSolver(compiled("leduc"), CFR_PLUS)
    full_bytes = sum(a.nbytes for a in (*full.regrets, *full.strategy_sum))
    assert solver.state_bytes() < full_bytes / 4
    assert solver.solution().stored_bytes() < full_bytes / 8


def test_second_players_subgames_are_solved_for_the_updated_trunk_strategy():
    """Alternating updates: player 1's values come from solves with player 0's new trunk strategy."""
    game = load_game("leduc")
    solver = CFRDSolver(game, TrunkSplit(rounds=1), CFRDConfig(5, batch=30)).run(3)
    op, trunk = solver.operator, solver.decomposition.trunk
    seen: list[tuple[int, np.ndarray]] = []
    original = op.values

    def spy(player, reach, iteration):
        seen.append((player, reach[0].copy()))
        return original(player, reach, iteration)

    op.values = spy  # type: ignore[method-assign]
    before = transition_weights(trunk, 0, solver.trunk_solver.current_strategy().probs[0])
    solves = op.chunk_solves
    solver.step()
    after = transition_weights(trunk, 0, solver.trunk_solver.current_strategy().probs[0])
    assert [p for p, _ in seen] == [0, 1] and op.chunk_solves - solves == 2
    np.testing.assert_allclose(seen[0][1], forward_reach(trunk, 0, before))
    np.testing.assert_allclose(seen[1][1], forward_reach(trunk, 0, after))
    assert not np.allclose(seen[0][1], seen[1][1])

    simultaneous = CFRDSolver(game, TrunkSplit(rounds=1), CFRDConfig(5, trunk=CFRConfig(regret="rm+", gamma=1.0, alternating=False), batch=30))
    simultaneous.run(3)
    assert simultaneous.operator.chunk_solves == 3  # the second call reuses the first solve


@pytest.mark.slow
def test_stored_values_bound_the_cbv_of_cfr_ds_average(leduc_run):
    """A maximum of averages is at most the average of maxima: stored values >= CBV of the average."""
    run = leduc_run
    trunk, full = run.solution.trunk, run.full
    for p in (0, 1):
        cbv = best_response(full, run.explicit, p).cbv
        pa, tp = full.players[p], trunk.players[p]
        where = {(full.public_key[pa.node[g]], pa.label[g]): g for g in range(pa.num_states)}
        leaf = np.flatnonzero(trunk.kind[tp.node] == LEAF)
        g_full = [where[(trunk.public_key[tp.node[g]], tp.label[g])] for g in leaf]
        assert np.all(run.solution.root_values[p][leaf] >= cbv[g_full] - 1e-12)
        assert np.all(run.solution.root_values[p][trunk.kind[tp.node] != LEAF] == 0)
    stored = stored_value_exploitability(run.solution)
    actual = exploitability(full, run.explicit)
    for p in (0, 1):
        assert stored.br_values[p] >= actual.br_values[p] - 1e-12


@pytest.mark.slow
def test_cfr_d_reaches_full_cfr_plus_within_tolerance(leduc_run):
    """CFR-D (T = 60 trunk, K = 50 inner CFR+ iterations) against full-game CFR+ with T = 60.

    Tolerance 0.035 chips/hand (35 mbb/hand). CFR-D's regret is its trunk regret plus
    T·N_S·ε_S (Theorem 2); with K = 50 inner CFR+ iterations ε_S is small, so what is left
    is the trunk's convergence. The trunk's leaf values are subgame equilibrium values,
    which change non-linearly with the trunk reaches, so CFR-D's trunk converges at CFR's
    guaranteed rate, not at the much faster empirical rate alternating CFR+ reaches on the
    whole tree (measured: 0.052 vs 0.025 at T = 60, 0.0155 vs 0.0012 at T = 400; the
    re-solving error adds at most 0.0007/2 here). So we also require CFR-D to do at least as well as full-game CFR with T iterations, and to
    improve on the same run with far fewer inner iterations.
    """
    run = leduc_run
    full = run.full
    cfr_d = reconstruct(run.solution, iterations=1000, full_tree=full).exploitability().exploitability
    cfr_plus = exploitability(full, CFRSolver(full, CFR_PLUS).run(TRUNK_ITERATIONS).average_strategy()).exploitability
    cfr = exploitability(full, CFRSolver(full, CFR).run(TRUNK_ITERATIONS).average_strategy()).exploitability
    assert cfr_d <= cfr_plus + 0.035
    assert cfr_d <= cfr
    coarse = CFRDSolver(load_game("leduc"), TrunkSplit(rounds=1), CFRDConfig(3, batch=30)).run(TRUNK_ITERATIONS)
    rough = reconstruct(coarse.solution(), iterations=1000, full_tree=full).exploitability().exploitability
    assert cfr_d < rough / 2


@pytest.mark.slow
def test_checkpoint_resume_continues_the_same_run(tmp_path):
    from subgame.decompose import CFRDConfig, CFRDSolver, TrunkSplit
    from subgame.games import load_game

    game = load_game("leduc")
    config = CFRDConfig(10)
    straight = CFRDSolver(game, TrunkSplit(rounds=1), config).run(4).solution()
    first = CFRDSolver(game, TrunkSplit(rounds=1), config).run(2)
    path = first.save_checkpoint(tmp_path / "cfrd.ckpt")
    resumed = CFRDSolver.load_checkpoint(path, game).run(2)
    assert resumed.iteration == 4
    again = resumed.solution()
    for p in (0, 1):
        np.testing.assert_array_equal(again.average.probs[p], straight.average.probs[p])
        np.testing.assert_array_equal(again.root_values[p], straight.root_values[p])


def test_plain_cfr_checkpoint_is_not_a_cfr_d_one(tmp_path):
    from subgame.decompose import CFRDSolver
    from subgame.errors import StrategyFileError
    from subgame.games import load_game
    from subgame.solve.cfr import CFRSolver
    from subgame.tree.compile import compile_game

    game = load_game("leduc")
    path = CFRSolver(compile_game(game)).run(1).save_checkpoint(tmp_path / "plain.ckpt")
    with pytest.raises(StrategyFileError, match="not of CFR-D"):
        CFRDSolver.load_checkpoint(path, game)


@pytest.mark.slow
def test_a_trunk_costs_no_more_than_the_whole_tree():
    """Regression: the trunk compile kept one record per history at its leaves, as many as the
    whole cut-off game has (12.8 GB for 8 ranks, 4 suits, 2 hole cards against 206 MB for the
    whole tree). Peak Python allocations are compared, not times."""
    import tracemalloc

    from subgame.tree.compile import compile_game

    game = load_game("leduc", num_ranks=5, num_suits=4, hole_cards=2)
    peaks = []
    # the whole tree with its index arrays made, as a trunk (which has leaves, so no depth-first passes) holds them
    for build in (lambda: [pa.node for pa in compile_game(game).players], lambda: TrunkSplit(rounds=1).compile(game)):
        tracemalloc.start()
        build()
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    whole, trunk = peaks
    assert trunk < whole / 4, (trunk, whole)


@pytest.mark.parametrize("trunk, why", [(MODICUM, "average_skip"), (POSTFLOP_DCFR, "schedule 'postflop'")])
def test_a_trunk_whose_average_the_stored_values_cannot_follow_is_refused(trunk, why):
    with pytest.raises(GameDefinitionError, match=f"CFR-D averages its stored root values.*{why}"):
        CFRDConfig(4, trunk=trunk)
