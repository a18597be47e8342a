"""Update rules as values: PCFR+, DCFR+ and postflop-solver's DCFR against hand computations, on every engine, resumed
bitwise."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.blueprint.board_sampling import BoardSamplingPCS
from subgame.blueprint.card_abstraction import CardBuckets
from subgame.errors import GameDefinitionError, StrategyFileError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.games.poker import PokerGame
from subgame.games.poker.holdem import BetSizing, HoldemSpot
from subgame.games.poker.ranges import parse_board, parse_range
from subgame.resolving.gadgets import ResolveGadget
from subgame.resolving.spots import holdem_problem
from subgame.solve import PRESET_HELP, preset
from subgame.solve.abstraction import pool_rows, pool_touched
from subgame.solve.cfr import CFR_PLUS, DCFR_PLUS, PCFR_PLUS, POSTFLOP_DCFR, POSTFLOP_DCFR_PLUS, PRESETS, CFRConfig, CFRSolver
from subgame.solve.checkpoint import read_checkpoint
from subgame.solve.mccfr import EXTERNAL_SAMPLING, MCCFRSolver
from subgame.solve.rules import accumulate_regrets, add_average, update_rule
from subgame.tree import kernels
from subgame.tree.compile import compile_game

NEW = [PCFR_PLUS, POSTFLOP_DCFR, DCFR_PLUS, POSTFLOP_DCFR_PLUS]
NEW_IDS = ["pcfr+", "dcfr-postflop", "dcfr+", "dcfr+-postflop"]
#: RPS+ (depth-limited paper, Fig. 1a), player 0's payoffs; rows and columns rock, paper, scissors.
RPS_PLUS = np.array([[0.0, -1.0, 2.0], [1.0, 0.0, -2.0], [-2.0, 2.0, 0.0]])


def _matching(q: np.ndarray) -> np.ndarray:
    pos = np.maximum(q, 0.0)
    return pos / pos.sum() if pos.sum() > 0 else np.full(q.shape, 1.0 / q.size)


def _pcfr_plus_by_hand(iterations: int) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Alternating PCFR+ on RPS+ written from the paper: x_t ∝ [R_{t-1} + m_t]^+, R_t = [R_{t-1} + r_t]^+, m_{t+1} = r_t,
    the average weighted by t²."""
    r, m, s = [np.zeros(3), np.zeros(3)], [np.zeros(3), np.zeros(3)], [np.zeros(3), np.zeros(3)]
    for t in range(1, iterations + 1):
        x, y = _matching(r[0] + m[0]), _matching(r[1] + m[1])
        u0 = RPS_PLUS @ y
        inst0 = u0 - x @ u0
        r[0], m[0] = np.maximum(r[0] + inst0, 0.0), inst0
        s[0] = s[0] + t**2 * x
        u1 = -(_matching(r[0] + m[0]) @ RPS_PLUS)  # player 1 meets player 0's new strategy
        inst1 = u1 - y @ u1
        r[1], m[1] = np.maximum(r[1] + inst1, 0.0), inst1
        s[1] = s[1] + t**2 * y
    return r, [r[p] + m[p] for p in (0, 1)], s


def _postflop_by_hand(iterations: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """postflop-solver's DCFR on RPS+ from its description, its iterations counted from 0: regrets R·(α_t or 1/2) + r,
    α_t = s^1.5/(s^1.5+1) with s = max(t-1, 0); strategy sums S·γ_t + σ, γ_t = (u/(u+1))³ with u = t less the
    largest power of 4 not above it (u = 0 at t = 0)."""
    r, s = [np.zeros(3), np.zeros(3)], [np.zeros(3), np.zeros(3)]
    for t in range(iterations):
        a = max(t - 1, 0) ** 1.5
        power = 0 if t == 0 else max(4**k for k in range(16) if 4**k <= t)
        gamma = ((t - power) / (t - power + 1)) ** 3
        x, y = _matching(r[0]), _matching(r[1])
        u0 = RPS_PLUS @ y
        r[0] = r[0] * np.where(r[0] > 0, a / (a + 1), 0.5) + (u0 - x @ u0)
        s[0] = s[0] * gamma + x
        u1 = -(_matching(r[0]) @ RPS_PLUS)
        r[1] = r[1] * np.where(r[1] > 0, a / (a + 1), 0.5) + (u1 - y @ u1)
        s[1] = s[1] * gamma + y
    return r, s


def _dcfr_plus_by_hand(iterations: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Alternating DCFR+ on RPS+ in Xu et al.'s form: R_t = [R_{t-1} (t-1)^1.5/((t-1)^1.5+1) + r_t]^+, x_{t+1} ∝ R_t,
    the average weighted by t^4 (in a one-shot game every reach is 1, so both averages are this one)."""
    r, s = [np.zeros(3), np.zeros(3)], [np.zeros(3), np.zeros(3)]
    for t in range(1, iterations + 1):
        d = (t - 1) ** 1.5 / ((t - 1) ** 1.5 + 1)
        x, y = _matching(r[0]), _matching(r[1])
        u0 = RPS_PLUS @ y
        r[0] = np.maximum(r[0] * d + (u0 - x @ u0), 0.0)
        s[0] = s[0] + t**4 * x
        u1 = -(_matching(r[0]) @ RPS_PLUS)
        r[1] = np.maximum(r[1] * d + (u1 - y @ u1), 0.0)
        s[1] = s[1] + t**4 * y
    return r, s


@pytest.fixture(scope="module")
def rps_plus():
    return compile_game(load_game("rps_plus"))


@pytest.fixture(scope="module")
def leduc():
    return compile_game(load_game("leduc"))


@pytest.mark.parametrize("iterations", [1, 2, 3, 6])
def test_pcfr_plus_iterates_are_the_papers_on_rps_plus(rps_plus, iterations):
    solver = CFRSolver(rps_plus, PCFR_PLUS).run(iterations)
    regrets, predicted, sums = _pcfr_plus_by_hand(iterations)
    assert np.abs(predicted[0] - regrets[0]).max() > 0.1  # the prediction is not zero: the check can fail
    for p in (0, 1):
        np.testing.assert_allclose(solver.regrets[p][0], regrets[p], rtol=0, atol=1e-14)
        np.testing.assert_allclose(solver.predicted[p][0], predicted[p], rtol=0, atol=1e-14)
        np.testing.assert_allclose(solver.strategy_sum[p][0], sums[p], rtol=0, atol=1e-13)


@pytest.mark.parametrize("iterations", [1, 2, 3, 5, 6])
def test_postflop_dcfr_iterates_are_postflop_solvers_on_rps_plus(rps_plus, iterations):
    solver = CFRSolver(rps_plus, POSTFLOP_DCFR).run(iterations)
    regrets, sums = _postflop_by_hand(iterations)
    for p in (0, 1):
        np.testing.assert_allclose(solver.regrets[p][0], regrets[p], rtol=0, atol=1e-14)
        np.testing.assert_allclose(solver.strategy_sum[p][0], sums[p], rtol=0, atol=1e-13)


@pytest.mark.parametrize("config", [DCFR_PLUS, POSTFLOP_DCFR_PLUS], ids=["dcfr+", "dcfr+-postflop"])
@pytest.mark.parametrize("iterations", [1, 2, 3, 6, 20])
def test_dcfr_plus_iterates_are_the_papers_on_rps_plus(rps_plus, config, iterations):
    """The solver discounts after the update by t^1.5/(t^1.5+1), the paper before the next one by the same factor: its
    regrets are the paper's times that factor, so every strategy (matched from them) is the paper's."""
    solver = CFRSolver(rps_plus, config).run(iterations)
    regrets, sums = _dcfr_plus_by_hand(iterations)
    factor = iterations**1.5 / (iterations**1.5 + 1)
    assert np.abs(regrets[0]).max() > 0.1  # regrets left after the floor: the check can fail
    for p in (0, 1):
        np.testing.assert_allclose(solver.regrets[p][0], regrets[p] * factor, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(solver.strategy_sum[p][0], sums[p], rtol=1e-12, atol=0)
        np.testing.assert_allclose(_matching(solver.regrets[p][0]), _matching(regrets[p]), rtol=0, atol=1e-12)


def test_postflop_schedule_restarts_the_average_at_powers_of_four():
    restarts = [t for t in range(1, 70) if update_rule(POSTFLOP_DCFR, t).sum_discount == 0.0]
    assert restarts == [1, 2, 5, 17, 65]
    assert [update_rule(POSTFLOP_DCFR, t).before[0] for t in (1, 2)] == [0.0, 0.0]  # type: ignore[index]
    assert update_rule(POSTFLOP_DCFR, 3).before == (0.5, 0.5)
    assert update_rule(POSTFLOP_DCFR, 3).after is None and update_rule(POSTFLOP_DCFR, 3).weight == 1.0


@pytest.mark.parametrize("config", NEW, ids=NEW_IDS)
def test_numpy_compiled_and_passes_agree_on_leduc(leduc, config):
    """The compiled sweeps are bitwise numpy; the passes value Leduc's small boards by other loops (equal to rounding)."""
    runs = {engine: CFRSolver(leduc, config, engine=engine).run(15) for engine in ("numpy", "compiled", "passes")}
    for engine, solver in runs.items():
        assert solver.loops == engine
    state = {e: [*s.regrets, *s.strategy_sum, *(s.predicted or [])] for e, s in runs.items()}
    for a, b in zip(state["numpy"], state["compiled"]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(state["compiled"], state["passes"]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(b).max()))


@pytest.fixture(scope="module")
def river():
    """A river spot with boards of more than 64 hands, where the passes value terminals by the sweeps' loops."""
    board = parse_board("Js Ks 5c Qs 7d")
    spot = HoldemSpot(board, pot=3750, stack=18125, bets=BetSizing.parse("1,allin", raise_cap=2))
    return holdem_problem(spot, (parse_range("22+,A2s+,K9s+,QTs+,JTs,ATo+,KJo+", board),
                                 parse_range("77+,A8s+,KTs+,QJs,AJo+,KQo", board)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("config", NEW, ids=NEW_IDS)
def test_passes_are_bitwise_the_compiled_sweeps_on_a_river(river, config, dtype):
    runs = [CFRSolver(river.tree, config, root_reach=river.root_reach, engine=e, dtype=dtype).run(6)
            for e in ("compiled", "passes")]
    assert runs[0].regrets[0].dtype == np.dtype(dtype)
    for a, b in zip(*([*s.regrets, *s.strategy_sum, *(s.predicted or [])] for s in runs)):
        np.testing.assert_array_equal(a, b)
    auto = river.solver(config)
    assert auto.loops == "passes"
    with kernels.compiled(False):
        assert auto.loops == "numpy"


@pytest.mark.parametrize("engine", ["numpy", "passes"])
@pytest.mark.parametrize("config", NEW, ids=NEW_IDS)
def test_checkpoint_resumes_bitwise(leduc, config, engine, tmp_path):
    straight = CFRSolver(leduc, config, engine=engine).plan(12).run(12)
    first = CFRSolver(leduc, config, engine=engine).plan(12).run(5)
    first.save_checkpoint(tmp_path / "c.npz")
    header, arrays = read_checkpoint(tmp_path / "c.npz")
    resumed = CFRSolver(leduc, CFRConfig(**header["config"]), engine=engine).restore(header, arrays).plan(12).run(7)
    assert resumed.config == config
    for a, b in zip([*straight.regrets, *straight.strategy_sum, *(straight.predicted or [])],
                    [*resumed.regrets, *resumed.strategy_sum, *(resumed.predicted or [])]):
        np.testing.assert_array_equal(a, b)
    assert CFRSolver.load_checkpoint(tmp_path / "c.npz", leduc).config == config


def test_predictive_checkpoint_without_its_prediction_is_refused(leduc, tmp_path):
    CFRSolver(leduc, CFR_PLUS).run(2).save_checkpoint(tmp_path / "plain.npz")
    header, arrays = read_checkpoint(tmp_path / "plain.npz")
    with pytest.raises(StrategyFileError, match="without predicted regrets"):
        CFRSolver(leduc, PCFR_PLUS).restore(header, arrays)


@pytest.mark.parametrize("config", NEW, ids=NEW_IDS)
def test_new_presets_converge_on_leduc(leduc, config):
    solver = CFRSolver(leduc, config).run(300)
    assert exploitability(leduc, solver.average_strategy()).exploitability < 0.01  # chips per game


def test_mccfr_runs_pcfr_plus_and_refuses_postflop_averaging(leduc, tmp_path):
    kuhn = compile_game(load_game("kuhn"))
    straight = MCCFRSolver(kuhn, EXTERNAL_SAMPLING, PCFR_PLUS, seed=3).run(8)
    assert straight.predicted is not None and np.abs(straight.predicted[0] - straight.regrets[0]).max() > 0
    first = MCCFRSolver(kuhn, EXTERNAL_SAMPLING, PCFR_PLUS, seed=3).run(3)
    first.save_checkpoint(tmp_path / "m.npz")
    resumed = MCCFRSolver.load_checkpoint(tmp_path / "m.npz", kuhn).run(5)
    for a, b in zip([*straight.regrets, *straight.predicted], [*resumed.regrets, *(resumed.predicted or [])]):
        np.testing.assert_array_equal(a, b)
    assert straight.loops in ("numpy", "compiled")
    with pytest.raises(GameDefinitionError, match="sampling CFR.*averaging without reach weights.*dcfr-postflop"):
        MCCFRSolver(kuhn, EXTERNAL_SAMPLING, POSTFLOP_DCFR)


@pytest.mark.parametrize("config, part", [(PCFR_PLUS, "prediction 'last'"), (POSTFLOP_DCFR, "without reach weights"),
                                          (POSTFLOP_DCFR_PLUS, "without reach weights")],
                         ids=["pcfr+", "dcfr-postflop", "dcfr+-postflop"])
def test_board_sampling_refuses_what_it_cannot_run(config, part):
    game = load_game("nlfh", num_ranks=4, num_suits=2)
    assert isinstance(game, PokerGame)
    with pytest.raises(GameDefinitionError, match=f"board sampling.*{part}"):
        BoardSamplingPCS(game, CardBuckets.build(game, [5, 6]), config)


def test_engine_choice_is_checked_and_reported(leduc, rps_plus):
    # the passes sum Leduc's small boards in the order of the sweeps' sparse payoff matrix: "auto" takes them
    assert CFRSolver(leduc, PCFR_PLUS).loops == "passes"
    assert CFRSolver(leduc, PCFR_PLUS, engine="compiled").loops == "compiled"
    with pytest.raises(GameDefinitionError, match="engine must be one of auto, numpy, compiled, passes"):
        CFRSolver(leduc, PCFR_PLUS, engine="gpu")  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="'passes' cannot run this solver.*simultaneous updates"):
        CFRSolver(leduc, CFRConfig(alternating=False), engine="passes")
    with pytest.raises(GameDefinitionError, match="no poker layout"):
        CFRSolver(rps_plus, PCFR_PLUS, engine="passes")
    tree = compile_game(load_game("kuhn"))
    gadget = ResolveGadget(1, np.zeros(tree.root_slice[1].stop - tree.root_slice[1].start))
    assert CFRSolver(tree, CFR_PLUS, gadget=gadget, engine="passes").loops == "passes"  # a root gadget runs on them too


def test_presets_registry_and_config_checks():
    assert list(PRESETS) == list(PRESET_HELP) and all(PRESET_HELP.values())
    assert preset("pcfr+") is PCFR_PLUS and preset("dcfr-postflop") is POSTFLOP_DCFR
    with pytest.raises(GameDefinitionError, match="no CFR preset 'pcfr'; the presets are cfr: "):
        preset("pcfr")
    with pytest.raises(GameDefinitionError, match="prediction must be one of 'none', 'last'"):
        CFRConfig(prediction="next")  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="schedule must be one of"):
        CFRConfig(schedule="libratus")  # type: ignore[arg-type]
    with pytest.raises(GameDefinitionError, match="gamma must be a finite number"):
        CFRConfig(gamma=-1.0)


@pytest.mark.parametrize("name", ["cfr+", "dcfr", "lcfr", "dcfr-postflop", "dcfr+"])
@pytest.mark.parametrize("t", [1, 2, 7])
def test_an_update_of_some_rows_is_the_whole_tables_with_zeros_elsewhere(name, t):
    """Board sampling updates only the abstract rows a pass reached; every other row is discounted alike, bit for bit."""
    rng = np.random.default_rng(t)
    rule = update_rule(PRESETS[name], t, 10)
    regrets, sums = rng.normal(size=(40, 4)), rng.random((40, 4))
    regrets[rng.random((40, 4)) < 0.2] = 0.0
    rows = np.sort(rng.choice(40, size=9, replace=False))
    inst, increment = rng.normal(size=(9, 4)), rng.random((9, 4))
    dense_inst, dense_increment = np.zeros((40, 4)), np.zeros((40, 4))
    dense_inst[rows], dense_increment[rows] = inst, increment
    whole_r, whole_s, some_r, some_s = regrets.copy(), sums.copy(), regrets.copy(), sums.copy()
    accumulate_regrets(rule, whole_r, dense_inst)
    add_average(rule, whole_s, dense_increment)
    accumulate_regrets(rule, some_r, inst, rows=rows)
    add_average(rule, some_s, increment, rows=rows)
    assert whole_r.tobytes() == some_r.tobytes() and whole_s.tobytes() == some_s.tobytes()
    assert not np.array_equal(whole_r, regrets)  # the update did something


def test_a_predictive_rule_takes_the_whole_tables_regrets_only():
    rule = update_rule(PRESETS["pcfr+"], 3, 10)
    with pytest.raises(GameDefinitionError, match="whole table"):
        accumulate_regrets(rule, np.zeros((5, 2)), np.ones((2, 2)), np.zeros((5, 2)), rows=np.array([0, 3]))


def test_pooled_touched_rows_are_the_dense_pools_row_for_row():
    rng = np.random.default_rng(3)
    parts = [(rng.integers(0, 50, size=30), rng.normal(size=(30, 3))), (rng.integers(40, 70, size=25), rng.normal(size=(25, 5)))]
    rows, sums = pool_touched(parts, 5)
    dense = np.zeros((70, 5))
    for ids, x in parts:
        dense += pool_rows(ids, x, (70, 5))
    assert np.array_equal(rows, np.unique(np.concatenate([ids for ids, _ in parts])))  # the parts overlap on 40..49
    assert sums.tobytes() == dense[rows].tobytes()
    assert not dense[np.setdiff1d(np.arange(70), rows)].any()
