"""Depth-limited solving with multi-valued states: the leaf, its values, continuation sets, the papers' claims."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.depthlimited import (
    Continuations,
    DepthLimitedSpec,
    ExactValues,
    LeafValues,
    LeafValueTable,
    MultiValuedLeaf,
    RolloutValues,
    TableValues,
    action_classes,
    bias_continuations,
    depth_limited_part,
    depth_limited_resolve,
    depth_limited_tree,
    load_leaf_tables,
    local_pure_continuations,
    save_leaf_tables,
    self_generative_continuations,
    solve_depth_limited,
)
from subgame.depthlimited.blueprint_resolve import blueprint_reach_in
from subgame.depthlimited.weakening import weaken
from subgame.errors import StrategyFileError, SubgameError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.resolving import blueprint_values
from subgame.solve.cfr import CFRConfig, CFRSolver
from subgame.solve.lp import solve_lp
from subgame.strategy import Strategy
from subgame.tree.part import place
from tests.conftest import compiled

RPS_EQ = np.array([[0.4, 0.4, 0.2]])


@pytest.fixture(scope="module")
def rps_plus():
    game, full = load_game("rps_plus"), compiled("rps_plus")
    eq = Strategy(full.game_id, (RPS_EQ.copy(), RPS_EQ.copy()))
    return game, full, eq, depth_limited_tree(game, depth_limit=1)


@pytest.fixture(scope="module")
def leduc():
    """Leduc with its exact equilibrium as the blueprint, cut at the start of the second round."""
    game, full = load_game("leduc"), compiled("leduc")
    lp = solve_lp(full)
    dl = depth_limited_tree(game, chance_limit=1, leaf_histories=True)
    return game, full, lp, blueprint_values(full, lp.strategy), ExactValues(game, full, lp.strategy), dl


# -- RPS+ (depth-limited paper §3, Fig. 1a) ------------------------------------------------


def test_rps_plus_one_value_per_state_misses_the_equilibrium(rps_plus):
    """With the equilibrium's own state values every P1 action is worth 0: nothing singles out (0.4, 0.4, 0.2)."""
    game, full, eq, dl = rps_plus
    values = ExactValues(game, full, eq).leaf_values(dl, bias_continuations(full, eq, 1, 1))
    assert np.allclose(values.matrices[0].toarray(), 0.0)
    sol = solve_depth_limited(dl, values, iterations=500)
    assert np.abs(sol.probs - RPS_EQ).max() > 0.1
    assert exploitability(full, sol.into(full, eq)).br_values[1] > 0.05


def test_rps_plus_three_pure_continuations_find_the_equilibrium(rps_plus):
    game, full, eq, dl = rps_plus
    conts = local_pure_continuations(full, dl, eq.probs[1], 1)
    assert conts.num_values == 3
    sol = solve_depth_limited(dl, ExactValues(game, full, eq).leaf_values(dl, conts), iterations=2000)
    np.testing.assert_allclose(sol.probs, RPS_EQ, atol=2e-3)
    assert abs(sol.value) <= sol.nash_conv + 1e-12  # the game's value 0 lies in [value, value + nash_conv]
    assert sol.nash_conv < 1e-2


# -- K = 1 against frozen-blueprint CFR, and game values ------------------------------------


@pytest.mark.parametrize("rho", [0, 1])
def test_one_blueprint_value_is_ordinary_depth_limited_solving(leduc, rho):
    """K = 1 with the blueprint continuation = CFR on the full game with the blueprint frozen below the limit."""
    game, full, lp, bv, exact, dl = leduc
    values = exact.leaf_values(dl, bias_continuations(full, lp.strategy, 1 - rho, 1))
    cfg = CFRConfig(regret="rm+", gamma=1.0, alternating=False)
    iters = 30
    sol = solve_depth_limited(dl, values, iterations=iters, config=cfg)
    # The oracle: the full tree, whose infosets below the limit are reset to the blueprint every iteration.
    frozen = [np.setdiff1d(np.arange(full.players[p].num_infosets), place(full, dl).infosets[p]) for p in (0, 1)]
    solver = CFRSolver(full, cfg)
    for _ in range(iters):
        for p in (0, 1):
            solver.regrets[p][frozen[p]] = lp.strategy.probs[p][frozen[p]]
        solver.step()
    oracle = solver.average_strategy().probs[rho][place(full, dl).infosets[rho]]
    np.testing.assert_allclose(sol.probs, oracle[:, : sol.probs.shape[1]], atol=1e-10)


def test_all_pure_continuations_reach_the_game_value_on_kuhn():
    game, full = load_game("kuhn"), compiled("kuhn")
    lp = solve_lp(full)
    exact = ExactValues(game, full, lp.strategy)
    for rho, depth in ((0, 1), (1, 2)):
        dl = depth_limited_tree(game, depth_limit=depth)
        conts = local_pure_continuations(full, dl, lp.strategy.probs[1 - rho], 1 - rho)
        assert conts.num_values == 2
        v_star = lp.value if rho == 0 else -lp.value
        gaps = []
        for iters in (100, 800):
            sol = solve_depth_limited(dl, exact.leaf_values(dl, conts), iterations=iters)
            assert sol.nash_conv is not None
            assert sol.value - 1e-12 <= v_star <= sol.value + sol.nash_conv + 1e-12
            gaps.append(sol.nash_conv)
        assert gaps[1] < gaps[0] / 4  # the tolerance shrinks with the iterations


@pytest.mark.parametrize("rho", [0, 1])
def test_self_generated_continuations_reach_the_game_value_on_leduc(leduc, rho):
    game, full, lp, bv, exact, dl = leduc
    v_star = lp.value if rho == 0 else -lp.value
    conts = self_generative_continuations(full, bv, dl, rho, exact, 4, iterations=200)
    assert conts.num_values == 4 and conts.names[0] == "blueprint"
    sol = solve_depth_limited(dl, exact.leaf_values(dl, conts), blueprint=bv, iterations=400)
    assert sol.nash_conv is not None and sol.nash_conv < 3e-3
    assert abs(sol.value - v_star) <= sol.nash_conv + 1e-9
    # One value per state lets the re-solver exploit the frozen continuation (§3): the value is off.
    one = solve_depth_limited(dl, exact.leaf_values(dl, conts.first(1)), blueprint=bv, iterations=400)
    combined = exploitability(full, one.into(full, lp.strategy)).br_values[1 - rho]
    assert combined + v_star > 0.05


# -- the leaf operator --------------------------------------------------------------------


def test_leaf_values_are_the_bilinear_forms_and_evaluations_change_nothing(leduc, rng):
    game, full, lp, bv, exact, dl = leduc
    conts = bias_continuations(full, lp.strategy, 1, 4)
    values = exact.leaf_values(dl, conts)
    leaf = MultiValuedLeaf(dl, values)
    leaf.regrets[:] = rng.random(leaf.regrets.shape)
    reach = (rng.random(dl.players[0].num_states), rng.random(dl.players[1].num_states))
    x = leaf.choice()
    x_full = np.zeros((dl.players[1].num_states, 4))
    x_full[leaf.states] = x
    want0 = sum(m @ (reach[1] * x_full[:, k]) for k, m in enumerate(values.matrices))
    before = leaf.regrets.copy()
    np.testing.assert_allclose(leaf.evaluate(0, reach, "current"), want0, atol=1e-12)
    w = np.stack([-(m.T @ reach[0]) for m in values.matrices], axis=1)[leaf.states]
    np.testing.assert_allclose(leaf.evaluate(1, reach, "best")[leaf.states], w.max(axis=1), atol=1e-12)
    leaf.values(1, reach, None)
    np.testing.assert_array_equal(leaf.regrets, before)
    leaf.values(1, reach, 3)
    assert not np.array_equal(leaf.regrets, before)
    assert leaf.regrets.min() >= 0.0


def test_bad_leaf_values_are_refused(leduc):
    game, full, lp, bv, exact, dl = leduc
    with pytest.raises(SubgameError, match="K >= 1"):
        LeafValues(dl.game_id, 0, (), ())
    with pytest.raises(SubgameError, match="K >= 1"):
        Continuations(1, (), ())
    with pytest.raises(SubgameError, match="K must be"):
        bias_continuations(full, lp.strategy, 1, 0)
    with pytest.raises(SubgameError, match="at most 4"):
        bias_continuations(full, lp.strategy, 1, 5)
    kuhn_dl = depth_limited_tree(load_game("kuhn"), depth_limit=1)
    with pytest.raises(SubgameError, match="game"):
        MultiValuedLeaf(kuhn_dl, exact.leaf_values(dl, bias_continuations(full, lp.strategy, 1, 1)))


def test_a_depth_limit_beyond_the_game_is_one_clear_error():
    with pytest.raises(SubgameError, match="beyond the game"):
        depth_limited_tree(load_game("kuhn"), depth_limit=3)
    with pytest.raises(SubgameError, match="beyond the game"):
        depth_limited_tree(load_game("leduc"), chance_limit=2)
    with pytest.raises(SubgameError, match=">= 1"):
        depth_limited_tree(load_game("kuhn"), depth_limit=0)


# -- leaf values: rollouts and tables against exact ------------------------------------------


def test_rollouts_of_pure_strategies_are_exact(leduc):
    """Below Leduc's second-round start no chance is left: with pure strategies one rollout is exact."""
    game, full, lp, bv, exact, dl = leduc
    pure = Strategy.first_action(full)
    conts = Continuations(1, (pure.probs[1], np.roll(pure.probs[1], 1, axis=1) * full.players[1].legal), ("a", "b"))
    conts = Continuations(1, tuple(p / p.sum(axis=1, keepdims=True) for p in conts.probs), conts.names)
    want = ExactValues(game, full, pure).leaf_values(dl, conts)
    got = RolloutValues(game, full, pure, rollouts=1, seed=3).leaf_values(dl, conts)
    for a, b in zip(want.matrices, got.matrices):
        np.testing.assert_allclose(a.toarray(), b.toarray(), atol=1e-12)


def test_rollouts_of_mixed_strategies_agree_with_exact_and_are_seeded():
    game, full = load_game("kuhn"), compiled("kuhn")
    blueprint = CFRSolver(full).run(50).average_strategy()
    dl = depth_limited_tree(game, depth_limit=1, leaf_histories=True)
    conts = bias_continuations(full, blueprint, 1, 3)
    want = ExactValues(game, full, blueprint).leaf_values(dl, conts)
    n = 400
    got = RolloutValues(game, full, blueprint, rollouts=n, seed=7).leaf_values(dl, conts)
    chance = 1.0 / 6.0  # every Kuhn deal
    # Kuhn payoffs lie in [-2, 2]: a mean of n rollouts is within 5 standard deviations (2/sqrt(n)) of the value.
    for a, b in zip(want.matrices, got.matrices):
        assert np.abs(a - b).max() / chance <= 5 * 2 / np.sqrt(n)
    again = RolloutValues(game, full, blueprint, rollouts=n, seed=7).leaf_values(dl, conts)
    other = RolloutValues(game, full, blueprint, rollouts=n, seed=8).leaf_values(dl, conts)
    assert all((a != b).nnz == 0 for a, b in zip(got.matrices, again.matrices))
    assert any((a != b).nnz > 0 for a, b in zip(got.matrices, other.matrices))
    with pytest.raises(SubgameError, match="leaf_histories=True"):
        RolloutValues(game, full, blueprint).leaf_values(depth_limited_tree(game, depth_limit=1), conts)


def test_a_stored_table_gives_the_exact_values_and_refuses_another_game(leduc, tmp_path):
    game, full, lp, bv, exact, dl = leduc
    conts = bias_continuations(full, lp.strategy, 1, 4)
    values = exact.leaf_values(dl, conts)
    path = save_leaf_tables(tmp_path / "values.npz", [LeafValueTable.from_leaf_values(dl, values)])
    (table,) = load_leaf_tables(path, game)
    got = TableValues((table,)).leaf_values(dl, conts)
    assert got.names == values.names and got.player == 0
    for a, b in zip(values.matrices, got.matrices):
        np.testing.assert_allclose(a.toarray(), b.toarray(), atol=1e-15)
    np.testing.assert_allclose(TableValues((table,)).leaf_values(dl, conts.first(2)).matrices[1].toarray(),
                               values.matrices[1].toarray())
    with pytest.raises(StrategyFileError, match="for game"):
        load_leaf_tables(path, load_game("kuhn"))
    with pytest.raises(StrategyFileError, match="for game"):
        table.leaf_values(depth_limited_tree(load_game("leduc_nolimit"), chance_limit=1))
    with pytest.raises(SubgameError, match="re-solver"):
        TableValues((table,)).leaf_values(dl, Continuations(0, conts.probs, conts.names))
    with pytest.raises(SubgameError, match="continuations"):
        TableValues((table,)).leaf_values(dl, Continuations(1, conts.probs[:1], ("other",)))
    with pytest.raises(StrategyFileError, match="not a leaf value table"):
        load_leaf_tables(Strategy.uniform(full).save(tmp_path / "s.npz", full))


# -- continuation sets ----------------------------------------------------------------------


def test_bias_multiplies_one_action_class_by_ten(leduc):
    game, full, lp, bv, exact, dl = leduc
    assert action_classes(full, 1) == ("fold", "check/call", "bet/raise")
    assert action_classes(compiled("rps_plus"), 1) == ("Rock", "Paper", "Scissors")
    conts = bias_continuations(full, lp.strategy, 1, 4)
    assert conts.names == ("blueprint", "fold x10", "check/call x10", "bet/raise x10")
    base = lp.strategy.probs[1]
    names = full.players[1].action_names
    for k, first in ((1, "f"), (2, "c"), (3, "r")):
        p = conts.probs[k]
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
        for i, row in enumerate(names):
            cls = [j for j, n in enumerate(row) if n[0] == first]
            rest = [j for j, n in enumerate(row) if n[0] != first]
            if cls and rest and base[i, cls].sum() > 0 and base[i, rest].sum() > 0:
                ratio = p[i, cls].sum() / p[i, rest].sum()
                assert ratio == pytest.approx(10 * base[i, cls].sum() / base[i, rest].sum())


# -- a later root: the resolve gadget with the blueprint's values (Proposition 1) ----------------


def test_a_later_root_gets_the_resolve_gadget_or_the_unsafe_root(leduc):
    game, full, lp, bv, exact, dl = leduc
    sub = depth_limited_tree(game, public_state=("", "", "c"), chance_limit=1)
    assert sub.players[1].num_infosets > 0
    conts = bias_continuations(full, lp.strategy, 0, 4)
    values = exact.leaf_values(sub, conts)
    safe = solve_depth_limited(sub, values, blueprint=bv, gadget="resolve", iterations=300)
    assert safe.subgame is not None and safe.nash_conv is None
    # The opponent's root best-response values stay (up to the solve's tolerance) below her blueprint CBVs.
    assert safe.subgame.margins.min() > -5e-3
    unsafe = solve_depth_limited(sub, values, blueprint=bv, gadget="unsafe", iterations=300)
    assert unsafe.subgame is not None and unsafe.subgame.problem.gadget.kind == "unsafe"
    both = depth_limited_resolve(game, full, lp.strategy, DepthLimitedSpec(chance_limit=1, num_values=4, iterations=300),
                                 roots=[("", "", "c")])
    assert exploitability(full, both.strategy).exploitability < 5e-3
    assert [s.player for s in both.solutions] == [0, 1] and both.roots == (("", "", "c"),)
    with pytest.raises(SubgameError, match="resolve"):
        solve_depth_limited(sub, values, blueprint=bv, gadget="maxmargin", iterations=10)  # type: ignore[arg-type]


def test_dl_rows_match_infosets(leduc):
    game, full, lp, bv, exact, dl = leduc
    rows = place(full, dl).infosets[0]
    pa, da = full.players[0], dl.players[0]
    index = {(full.public_key[pa.node[g]], pa.label[g]): i for i, g in enumerate(pa.infoset_priv)}
    assert [index[(dl.public_key[da.node[g]], da.label[g])] for g in da.infoset_priv] == list(rows)


def test_a_depth_limited_part_carries_the_maps_and_solves_as_the_tree_compiled_apart(leduc):
    """depth_limited_part: the tree of depth_limited_tree, placed once; the solve reads its maps, the results are equal."""
    game, full, lp, bv, exact, dl = leduc
    key = ("", "", "c")
    part = depth_limited_part(game, full, public_state=key, chance_limit=1)
    apart = depth_limited_tree(game, public_state=key, chance_limit=1)
    assert part.tree.public_key == apart.public_key
    again = place(full, apart)
    for a, b in ((part.node, again.node), *zip(part.states, again.states), *zip(part.infosets, again.infosets)):
        np.testing.assert_array_equal(a, b)
    values = exact.leaf_values(apart, bias_continuations(full, lp.strategy, 0, 2))
    with_part = solve_depth_limited(part, values, blueprint=bv, iterations=50)
    with_tree = solve_depth_limited(apart, values, blueprint=bv, iterations=50)
    assert with_part.part is part and with_tree.part is None
    np.testing.assert_array_equal(with_part.probs, with_tree.probs)
    for p in (0, 1):
        np.testing.assert_array_equal(with_part.into(full, lp.strategy).probs[p], with_tree.into(full, lp.strategy).probs[p])
    with pytest.raises(SubgameError, match="not in the full tree"):
        depth_limited_part(game, full, public_state=("", "", "x"), chance_limit=1)
    with pytest.raises(SubgameError, match="beyond the game"):
        depth_limited_part(game, full, depth_limit=99)


def test_depth_limited_resolve_with_rollouts_is_seeded(leduc):
    game, full, lp, bv, exact, dl = leduc
    spec = DepthLimitedSpec(chance_limit=1, num_values=2, leaf_values="rollouts", rollouts=2, seed=5, iterations=100)
    first = depth_limited_resolve(game, full, lp.strategy, spec)
    again = depth_limited_resolve(game, full, lp.strategy, spec)
    assert all(np.array_equal(a, b) for a, b in zip(first.strategy.probs, again.strategy.probs))
    assert [t.player for t in first.tables] == [0, 1] and first.roots == ((),)
    other = depth_limited_resolve(game, full, lp.strategy, DepthLimitedSpec(
        chance_limit=1, num_values=2, leaf_values="rollouts", rollouts=2, seed=6, iterations=100))
    assert not all(np.array_equal(a, b) for a, b in zip(first.strategy.probs, other.strategy.probs))
    with pytest.raises(SubgameError, match="unknown leaf values"):
        DepthLimitedSpec(chance_limit=1, leaf_values="net")  # type: ignore[arg-type]


def test_weakening_caps_each_continuation_at_the_blueprints_value(leduc):
    """§4: against the re-solver's blueprint, a weakened continuation does no better than the blueprint at any leaf infoset."""
    game, full, lp, bv, exact, dl = leduc
    coarse = CFRSolver(full).run(30).average_strategy()
    cbv = blueprint_values(full, coarse)
    source = ExactValues(game, full, coarse)
    conts = self_generative_continuations(full, cbv, dl, 0, source, 3, iterations=100)
    values = source.leaf_values(dl, conts)
    reach = blueprint_reach_in(full, cbv, dl, 0)
    weak = weaken(dl, values, reach)
    leaf, weak_leaf = MultiValuedLeaf(dl, values), MultiValuedLeaf(dl, weak)
    w, ww = leaf.continuation_values(reach), weak_leaf.continuation_values(reach)
    assert (w[:, 1:] > w[:, :1] + 1e-9).any()  # the generated best responses beat the coarse blueprint somewhere
    np.testing.assert_allclose(ww, np.minimum(w, w[:, :1]), atol=1e-12)
    np.testing.assert_array_equal(weak.matrices[0].toarray(), values.matrices[0].toarray())
    with pytest.raises(SubgameError, match="leaf_histories"):
        weaken(depth_limited_tree(game, chance_limit=1), values, reach)


def test_a_value_network_learns_held_out_leaf_values(leduc):
    from subgame.depthlimited import NetworkValues, leaf_chance

    game, full, lp, bv, exact, dl = leduc
    conts = bias_continuations(full, lp.strategy, 1, 2)
    net = NetworkValues(game, full, lp.strategy, hidden=32, epochs=300, seed=1)
    values = net.leaf_values(dl, conts)
    report = net.report
    assert report is not None and report.holdout_examples == 120 and report.train_examples == 480
    # Held-out histories are predicted far better than by their mean, though worse than the training ones.
    assert report.holdout_rmse < 0.6 * report.target_std
    assert report.train_rmse < report.holdout_rmse
    want = exact.leaf_values(dl, conts)
    assert values.names == want.names and values.matrices[0].shape == want.matrices[0].shape
    assert values.matrices[1].nnz == leaf_chance(dl).nnz == 600  # one predicted value per leaf history
    with pytest.raises(SubgameError, match="holdout"):
        NetworkValues(game, full, lp.strategy, holdout=1.0)
