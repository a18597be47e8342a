"""Re-solving from CFR-D's stored values ("Subgame Strategy Re-Solving"; appendix Theorem 3) and CFR-D files."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.decompose import (
    Decomposition,
    StructureCache,
    chunk_at,
    is_cfr_d_file,
    load_cfr_d,
    reconstruct,
    save_cfr_d,
    stored_value_exploitability,
    stored_value_problem,
    theorem3_bound,
)
from subgame.errors import StrategyFileError
from subgame.eval import counterfactual_values, exploitability
from subgame.games import load_game
from subgame.resolving import GadgetSpec, SubgameProblem, resolve_subgame
from subgame.strategy import Strategy

RESOLVE_ITERATIONS = 1000


def _resolve_all(run, player, alt_of):
    """Re-solve every subgame for ``player`` with terminate payoffs ``alt_of(chunk)``."""
    sol = run.solution
    d = Decomposition.build(sol.game, sol.split, trunk=sol.trunk, batch=30, cache=StructureCache(None))
    out = []
    for c in d.chunks:
        problem = SubgameProblem(d.chunk_part(c), player, sol.average_reach[player][c.trunk_states[player]],
                                 alt_of(c), GadgetSpec("resolve"))
        out.append(resolve_subgame(problem, iterations=RESOLVE_ITERATIONS))
    return out


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.slow
def test_theorem_3_as_stated(leduc_run, player):
    """Appendix Theorem 3 with every term computed, on the strategy CFR-D computed.

    σ is CFR-D's average profile made explicit; the terminate payoffs are p2's
    counterfactual values under σ, v_2^σ(I); ε_S is p2's largest counterfactual regret
    at a root information set; ε_R bounds the re-solved strategy's exploitability in each
    re-solving game. Then p2's best-response value may rise by at most
    Σ_S (|I_2^R| − 1) ε_S + ε_R.
    """
    run = leduc_run
    opp = 1 - player
    trunk, full = run.solution.trunk, run.full
    cfv = counterfactual_values(full, run.explicit)[opp]
    pa, tp = full.players[opp], trunk.players[opp]
    where = {(full.public_key[pa.node[g]], pa.label[g]): g for g in range(pa.num_states)}

    def alt(chunk):
        return cfv[[where[(trunk.public_key[tp.node[g]], tp.label[g])] for g in chunk.trunk_states[opp]]]

    b = theorem3_bound(run.solution, full, run.explicit, _resolve_all(run, player, alt))
    assert b.base == pytest.approx(b.br_original, abs=1e-12)  # alt = v^σ <= CBV: the stated form
    assert np.all(b.eps_s >= 0) and np.all(b.eps_r >= 0) and np.all(b.root_infosets == 5)
    assert b.eps_s.max() > 0  # σ is not an equilibrium: the regret term is really there
    assert b.br_after <= b.bound + 1e-12


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.slow
def test_theorem_3_with_cfr_ds_stored_values(leduc_run, player):
    """Re-solving from what CFR-D stored: ε_S = 0, and the bound's base is the stored-value one.

    CFR-D's stored values are averages of counterfactual best-response values, so p2's
    counterfactual regret at every root information set, CBV(I) − alt(I), is at most 0
    (ε_S = 0). The theorem's last step then pays alt(I) rather than CBV(I): its base is
    p2's best-response value with the stored values at the trunk's leaves.
    """
    run = leduc_run
    opp = 1 - player
    resolved = _resolve_all(run, player, lambda c: run.solution.root_values[opp][c.trunk_states[opp]])
    b = theorem3_bound(run.solution, run.full, run.explicit, resolved)
    assert np.all(b.eps_s <= 1e-12)  # zero up to rounding
    assert b.base == pytest.approx(stored_value_exploitability(run.solution).br_values[opp], abs=1e-12)
    assert b.base >= b.br_original - 1e-12
    assert b.br_after <= b.bound + 1e-12
    assert b.eps_r.sum() < 5e-3
    margins = np.concatenate([r.margins for r in resolved])
    assert margins.min() > -b.eps_r.sum()  # re-solved CBVs stay within the stored values (Theorem 1), up to ε_R


@pytest.mark.slow
def test_reconstruction_is_close_to_cfr_ds_average_and_within_the_stored_bound(leduc_run):
    run = leduc_run
    rec = reconstruct(run.solution, iterations=RESOLVE_ITERATIONS, full_tree=run.full)
    rec.strategy.check(run.full)
    got = rec.exploitability()
    eps_r = sum(float(r.recovery_gap.sum()) for r in rec.chunks)
    stored = stored_value_exploitability(run.solution)
    assert got.exploitability <= stored.exploitability + eps_r / 2 + 1e-12
    assert abs(got.exploitability - exploitability(run.full, run.explicit).exploitability) < 5e-3


@pytest.mark.slow
def test_re_solving_error_shrinks_with_iterations(leduc_run):
    sol = leduc_run.solution
    gaps = []
    for iterations in (30, 300):
        rec = reconstruct(sol, iterations=iterations, full_tree=leduc_run.full)
        gaps.append(sum(float(r.recovery_gap.sum()) for r in rec.chunks))
        assert all(np.all(r.recovery_gap >= -1e-12) for r in rec.chunks)
    assert gaps[1] < gaps[0] / 5


@pytest.mark.slow
def test_one_subgame_at_run_time_equals_the_forest_solve(leduc_run):
    sol = leduc_run.solution
    key = sol.trunk.public_key[int(np.flatnonzero(sol.trunk.kind == 3)[7])]
    one = resolve_subgame(stored_value_problem(sol, chunk_at(sol, key), 1), iterations=200)
    rec = reconstruct(sol, iterations=200, full_tree=leduc_run.full)
    forest = next(r for r in rec.chunks if r.player == 1)
    names = [[(t.public_key[pa.node[g]], pa.label[g]) for g in pa.infoset_priv] for t in (forest.tree, one.tree)
             for pa in (t.players[1],)]
    rows = [names[0].index(k) for k in names[1]]
    np.testing.assert_allclose(one.probs, forest.probs[rows], rtol=0, atol=1e-12)
    assert one.keys == (key,) and one.root_infosets.tolist() == [5]
    with pytest.raises(Exception, match="not a public state"):
        chunk_at(sol, ("nowhere",))


@pytest.mark.slow
def test_cfr_d_file_round_trip(leduc_run, tmp_path):
    sol = leduc_run.solution
    path = save_cfr_d(tmp_path / "leduc.cfrd.npz", sol, seed=3)
    assert is_cfr_d_file(path)
    loaded = load_cfr_d(path)  # the game is rebuilt from the file
    assert loaded.trunk.game_id == sol.trunk.game_id and loaded.iterations == sol.iterations
    assert loaded.config == sol.config and loaded.split == sol.split and loaded.meta["seed"] == 3
    for p in (0, 1):
        np.testing.assert_array_equal(loaded.average.probs[p], sol.average.probs[p])
        np.testing.assert_array_equal(loaded.root_values[p], sol.root_values[p])
    a = reconstruct(sol, iterations=50, full_tree=leduc_run.full).strategy
    b = reconstruct(loaded, iterations=50, full_tree=leduc_run.full).strategy
    for p in (0, 1):
        np.testing.assert_array_equal(a.probs[p], b.probs[p])


def test_cfr_d_file_errors(leduc_run, tmp_path):
    sol = leduc_run.solution
    strategy_file = Strategy.uniform(leduc_run.full).save(tmp_path / "s.npz")
    assert not is_cfr_d_file(strategy_file)
    with pytest.raises(StrategyFileError, match="not a CFR-D file"):
        load_cfr_d(strategy_file)
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(StrategyFileError, match="not a CFR-D file"):
        load_cfr_d(tmp_path / "junk.npz")
    with pytest.raises(StrategyFileError, match="no such"):
        load_cfr_d(tmp_path / "missing.npz")
    path = save_cfr_d(tmp_path / "x.npz", sol)
    with pytest.raises(StrategyFileError, match="is for game"):
        load_cfr_d(path, load_game("leduc", num_ranks=4))
