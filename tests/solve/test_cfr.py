"""The CFR engine: convergence to known values, update rules, checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subgame.errors import StrategyFileError
from subgame.eval import expected_value, exploitability
from subgame.solve.cfr import CFR, CFR_PLUS, DCFR, LINEAR_CFR, PRESETS, CFRConfig, CFRSolver
from subgame.tree.sweep import regret_matching
from tests.conftest import compiled

KUHN_VALUE = -1 / 18
LEDUC_VALUE = -0.085606424078  # OpenSpiel's sequence_form_lp_test.py


def test_kuhn_cfr_plus_converges(kuhn_tree):
    avg = CFRSolver(kuhn_tree, CFR_PLUS).run(1000).average_strategy()
    assert exploitability(kuhn_tree, avg).exploitability < 1e-3
    assert expected_value(kuhn_tree, avg) == pytest.approx(KUHN_VALUE, abs=1e-3)


def test_leduc_cfr_plus_value(leduc_tree):
    avg = CFRSolver(leduc_tree, CFR_PLUS).run(1000).average_strategy()
    assert exploitability(leduc_tree, avg).exploitability < 1e-3
    assert expected_value(leduc_tree, avg) == pytest.approx(LEDUC_VALUE, abs=5e-4)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("alternating", [True, False])
def test_every_preset_converges_on_kuhn(kuhn_tree, name, alternating):
    cfg = CFRConfig(**{**PRESETS[name].__dict__, "alternating": alternating})
    solver = CFRSolver(kuhn_tree, cfg)
    first = exploitability(kuhn_tree, solver.run(10).average_strategy()).exploitability
    last = exploitability(kuhn_tree, solver.run(990).average_strategy()).exploitability
    assert last < 0.01
    assert last < first


def test_rps_plus_equilibrium():
    tree = compiled("rps_plus")
    avg = CFRSolver(tree, DCFR).run(3000).average_strategy()
    for p in (0, 1):
        np.testing.assert_allclose(avg.probs[p][0], [0.4, 0.4, 0.2], atol=5e-3)


def test_linear_and_discounted_beat_vanilla_on_leduc(leduc_tree):
    """Brown & Sandholm 2019: LCFR and DCFR converge faster than vanilla CFR."""
    e = {
        name: exploitability(leduc_tree, CFRSolver(leduc_tree, cfg).run(300).average_strategy()).exploitability
        for name, cfg in [("cfr", CFR), ("lcfr", LINEAR_CFR), ("dcfr", DCFR)]
    }
    assert e["dcfr"] < e["cfr"]
    assert e["lcfr"] < e["cfr"]


def test_checkpoint_resume_is_exact(kuhn_tree, tmp_path):
    straight = CFRSolver(kuhn_tree, DCFR).run(60)
    first = CFRSolver(kuhn_tree, DCFR).run(25)
    path = first.save_checkpoint(tmp_path / "ckpt.npz")
    resumed = CFRSolver.load_checkpoint(path, kuhn_tree).run(35)
    assert resumed.iteration == 60
    for p in (0, 1):
        np.testing.assert_array_equal(resumed.regrets[p], straight.regrets[p])
        np.testing.assert_array_equal(resumed.strategy_sum[p], straight.strategy_sum[p])


def test_checkpoint_for_another_game_is_refused(kuhn_tree, leduc_tree, tmp_path):
    path = CFRSolver(kuhn_tree).run(2).save_checkpoint(tmp_path / "k.npz")
    with pytest.raises(StrategyFileError, match="checkpoint is for game"):
        CFRSolver.load_checkpoint(path, leduc_tree)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(StrategyFileError, match="not a CFR checkpoint"):
        CFRSolver.load_checkpoint(junk, kuhn_tree)


def test_strategies_are_distributions_over_legal_actions(leduc_tree):
    solver = CFRSolver(leduc_tree, CFR).run(5)
    for s in (solver.current_strategy(), solver.average_strategy()):
        s.check(leduc_tree)


@settings(max_examples=50, deadline=None)
@given(
    regrets=st.lists(st.floats(-10, 10, allow_nan=False), min_size=6, max_size=6),
    mask=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_regret_matching_properties(regrets, mask):
    legal = np.array(mask).reshape(2, 3)
    legal[:, 0] = True
    r = np.where(legal, np.array(regrets).reshape(2, 3), 0.0)
    s = regret_matching(r, legal)
    assert np.all(s >= 0)
    np.testing.assert_allclose(s.sum(axis=1), 1.0)
    assert np.all(s[~legal] == 0)
    for i in range(2):
        if not np.any(r[i] > 0):
            np.testing.assert_allclose(s[i][legal[i]], 1.0 / legal[i].sum())


# -- float32 solver state ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_river():
    """A fixed-board river of a 24-card deck with two hole cards: 171 hands a node, no chance."""
    from subgame.games.poker import PokerGame, PokerSpec
    from subgame.tree.poker_compile import compile_poker

    spec = PokerSpec(num_ranks=6, num_suits=4, hole_cards=2, board_cards=(5,), betting="nolimit", ante=5, stack=100,
                     bet_fractions=(0.5, 1.0), all_in=True, first_player=(0,))
    return compile_poker(PokerGame(spec, "small river"), board=(0, 5, 10, 15, 23))


@pytest.mark.parametrize("config", [CFR_PLUS, DCFR], ids=["cfr+", "dcfr"])
def test_float32_state_gives_the_float64_exploitability_to_the_reported_digits(small_river, config):
    """Regrets and strategy sums in float32 take half the bytes; the exploitability after the same
    iterations agrees with float64's to six significant digits (reports give four)."""
    wide, narrow = CFRSolver(small_river, config), CFRSolver(small_river, config, dtype="float32")
    assert {a.dtype for a in narrow.regrets + narrow.strategy_sum} == {np.dtype(np.float32)}
    assert sum(a.nbytes for a in narrow.regrets) * 2 == sum(a.nbytes for a in wide.regrets)
    for iterations in (10, 40):
        e64, e32 = (exploitability(small_river, s.run(iterations - s.iteration).average_strategy()).exploitability
                    for s in (wide, narrow))
        assert e32 == pytest.approx(e64, rel=1e-6)
        assert f"{e32:.4g}" == f"{e64:.4g}"
    assert not np.array_equal(wide.regrets[0], narrow.regrets[0])  # the float32 run did round


def test_float32_checkpoints_keep_their_precision(kuhn_tree, tmp_path):
    solver = CFRSolver(kuhn_tree, CFR_PLUS, dtype=np.float32).run(7)
    back = CFRSolver.load_checkpoint(solver.save_checkpoint(tmp_path / "c.npz"), kuhn_tree)
    assert back.dtype == np.float32 and back.regrets[0].dtype == np.float32
    np.testing.assert_array_equal(back.run(3).regrets[1], solver.run(3).regrets[1])


def test_other_dtypes_are_refused(kuhn_tree):
    from subgame.errors import GameDefinitionError

    with pytest.raises(GameDefinitionError, match="float64 or float32"):
        CFRSolver(kuhn_tree, CFR_PLUS, dtype="float16")


@pytest.mark.parametrize("preset", ["cfr+", "pcfr+"])
def test_the_solver_state_is_carved_from_one_allocation_aligned_zeroed_and_apart(leduc_tree, preset):
    """Regrets, strategy sums and predictions: views of one zeroed allocation, each on a 64-byte boundary, none
    overlapping another, so writing one leaves the others as they were; the iterates are what separate arrays give."""
    solver = CFRSolver(leduc_tree, PRESETS[preset])
    state = [*solver.regrets, *solver.strategy_sum, *(solver.predicted or [])]
    assert len(state) == (6 if preset == "pcfr+" else 4)
    owner = state[0]
    while owner.base is not None:
        owner = owner.base
    for i, a in enumerate(state):
        assert a.flags.c_contiguous and a.flags.writeable and a.ctypes.data % 64 == 0 and not a.any()
        assert np.shares_memory(a, owner)
        assert not any(np.shares_memory(a, b) for b in state[i + 1 :])
    solver.run(5)
    alone = CFRSolver(leduc_tree, PRESETS[preset])
    alone.regrets = [np.zeros_like(r) for r in alone.regrets]  # separate arrays, the same iterates
    alone.strategy_sum = [np.zeros_like(s) for s in alone.strategy_sum]
    if alone.predicted is not None:
        alone.predicted = [np.zeros_like(x) for x in alone.predicted]
    alone.run(5)
    for a, b in zip(state, [*alone.regrets, *alone.strategy_sum, *(alone.predicted or [])]):
        np.testing.assert_array_equal(a, b)
