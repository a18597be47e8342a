"""CFRSolver.run and step() through one compiled call per run of iterations: bitwise the per-step loops they replace."""

from __future__ import annotations

import numpy as np
import pytest

from subgame.games import load_game
from subgame.solve.cfr import CFRConfig, CFRSolver
from subgame.solve.mccfr import MCCFRSolver
from subgame.solve.rules import PRESETS, rule_fields, update_rule
from subgame.tree import kernels, whole
from subgame.tree.compile import compile_game
from subgame.tree.enumeration import enumerate_game

pytestmark = pytest.mark.skipif(not whole.iterations_built(), reason="the compiled whole-iteration loops are not built")

PRESET_NAMES = ("cfr+", "dcfr", "pcfr+", "lcfr", "cfr", "modicum", "dcfr-postflop")
_TREES: dict[str, object] = {}


def tree_of(name: str):
    if name not in _TREES:
        _TREES[name] = enumerate_game(load_game("kuhn")) if name == "kuhn_enumerated" else compile_game(load_game(name))
    return _TREES[name]


def state(solver: CFRSolver) -> list[bytes]:
    return [a.tobytes() for a in (*solver.regrets, *solver.strategy_sum, *(solver.predicted or []))]


def per_step(monkeypatch, make):
    """A solver from ``make()`` whose iterations run as before: one Python step at a time, no whole-iteration call."""
    with monkeypatch.context() as m:
        m.setattr(whole, "iterations_built", lambda: False)
        solver = make()
        assert solver._whole_call() is None
    return solver


def run_per_step(monkeypatch, solver: CFRSolver, n: int) -> CFRSolver:
    with monkeypatch.context() as m:
        m.setattr(whole, "iterations_built", lambda: False)
        for _ in range(n):
            solver.step()
    return solver


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("game", ["kuhn", "leduc", "goofspiel", "kuhn_enumerated"])
def test_run_is_bitwise_the_steps(monkeypatch, game, preset):
    tree = tree_of(game)
    config = PRESETS[preset]
    n = 40 if game == "leduc" else 150
    fast = CFRSolver(tree, config).plan(n)
    slow = per_step(monkeypatch, lambda: CFRSolver(tree, config).plan(n))
    fast.run(n // 3)
    for _ in range(5):
        fast.step()
    fast.run(n - n // 3 - 5)
    assert fast._whole is not None, "the whole-iteration call ran"
    run_per_step(monkeypatch, slow, n)
    assert fast.iteration == slow.iteration == n
    assert state(fast) == state(slow)
    from subgame.eval import exploitability

    a, b = exploitability(tree, fast.average_strategy()), exploitability(tree, slow.average_strategy())
    assert a == b


def test_the_loops_each_game_takes():
    assert CFRSolver(tree_of("kuhn"), PRESETS["cfr+"]).loops == "passes"
    goof = CFRSolver(tree_of("goofspiel"), PRESETS["cfr+"])
    assert goof.loops == "compiled" and isinstance(goof._whole_call(), whole.SweepIterations)
    with kernels.compiled(False):
        assert goof.loops == "numpy" and goof._whole_call() is None
    numpy_engine = CFRSolver(tree_of("goofspiel"), PRESETS["cfr+"], engine="numpy")
    assert numpy_engine.loops == "numpy" and numpy_engine._whole_call() is None


@pytest.mark.parametrize("engine", ["auto", "numpy", "compiled"])
def test_goofspiel_engines_agree_bitwise(engine):
    """On one sparse payoff matrix the compiled sweeps are numpy's: every engine gives the same bits, in one call or not."""
    tree = tree_of("goofspiel")
    ref = CFRSolver(tree, PRESETS["dcfr"], engine="numpy").run(60)
    assert state(CFRSolver(tree, PRESETS["dcfr"], engine=engine).run(60)) == state(ref)


def test_simultaneous_updates_and_a_root_reach(monkeypatch):
    tree = tree_of("goofspiel")
    config = CFRConfig(regret="rm+", gamma=1.0, alternating=False)
    reach = (np.linspace(0.25, 1.0, tree.root_slice[0].stop - tree.root_slice[0].start), None)
    fast = CFRSolver(tree, config, root_reach=reach).run(80)
    slow = run_per_step(monkeypatch, per_step(monkeypatch, lambda: CFRSolver(tree, config, root_reach=reach)), 80)
    assert state(fast) == state(slow)


def test_live_rows_of_a_zero_weight_root(monkeypatch):
    from subgame.tree.poker_compile import compile_poker

    tree = compile_poker(load_game("leduc"), sparse_threshold=0)  # card-removal terminals: rows can be dropped
    rs = tree.root_slice[1]
    reach = (None, np.where(np.arange(rs.stop - rs.start) % 3 == 0, 0.0, 1.0))

    def make():
        return CFRSolver(tree, PRESETS["cfr+"], root_reach=reach, drop_zero_weight=True)

    fast = make().run(30)
    slow = run_per_step(monkeypatch, per_step(monkeypatch, make), 30)
    assert fast._whole is not None and state(fast) == state(slow)


def test_a_restored_checkpoint_gets_a_new_call(monkeypatch, tmp_path):
    """The prepared call points into the solver's arrays: a restore replaces them, and the next run prepares anew."""
    for game in ("kuhn", "goofspiel"):
        tree = tree_of(game)
        first = CFRSolver(tree, PRESETS["pcfr+"]).run(20)
        path = first.save_checkpoint(tmp_path / f"{game}.npz")
        first.run(20)
        resumed = CFRSolver.load_checkpoint(path, tree).run(20)
        straight = run_per_step(monkeypatch, per_step(monkeypatch, lambda tree=tree: CFRSolver(tree, PRESETS["pcfr+"])), 40)
        assert state(first) == state(straight) == state(resumed)


def test_float32_passes(monkeypatch):
    tree = tree_of("leduc")
    fast = CFRSolver(tree, PRESETS["dcfr"], dtype="float32").run(25)
    slow = run_per_step(monkeypatch, per_step(monkeypatch, lambda: CFRSolver(tree, PRESETS["dcfr"], dtype="float32")), 25)
    assert fast.regrets[0].dtype == np.float32 and state(fast) == state(slow)


def test_sampling_cfr_keeps_its_own_steps():
    """A subclass with its own step() (sampling CFR) never runs the full iterations of the compiled call."""
    solver = MCCFRSolver(tree_of("goofspiel"), config=PRESETS["cfr+"], game=load_game("goofspiel"))
    assert solver._whole_call() is None
    solver.run(3)
    assert solver.iteration == 3 and solver._whole is None


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_rule_fields_are_the_update_rule(preset):
    config = PRESETS[preset]
    for t in (1, 2, 3, 5, 17, 30, 31, 64, 65, 1000):
        for horizon in (None, 100, 2000):
            rule = update_rule(config, t, horizon)
            assert kernels.params_of(*rule_fields(config, t, horizon)) == kernels.update_params(rule)


def test_runs_in_several_calls(monkeypatch):
    """A run longer than one call's share (RUN_CHUNK iterations, RUN_CALL_STATES states) is several calls, bitwise one."""
    from subgame.solve import cfr

    tree = tree_of("goofspiel")
    whole = CFRSolver(tree, PRESETS["modicum"]).run(50)
    monkeypatch.setattr(cfr, "RUN_CHUNK", 7)
    assert state(CFRSolver(tree, PRESETS["modicum"]).run(50)) == state(whole)
    monkeypatch.setattr(cfr, "RUN_CALL_STATES", 1)
    assert state(CFRSolver(tree, PRESETS["modicum"]).run(50)) == state(whole)


@pytest.mark.parametrize("game", ["kuhn", "goofspiel"])
def test_a_solver_pickles_and_copies_after_running(monkeypatch, game):
    """The prepared call (pointers into the solver's arrays) is left out: a copy or an unpickled solver prepares its
    own, continues bitwise, and never writes into the original's arrays."""
    import copy
    import pickle

    tree = tree_of(game)
    solver = CFRSolver(tree, PRESETS["cfr+"]).run(10)
    assert solver._whole is not None
    before = state(solver)
    copied, loaded = copy.deepcopy(solver).run(10), pickle.loads(pickle.dumps(solver)).run(10)
    assert state(solver) == before
    straight = run_per_step(monkeypatch, per_step(monkeypatch, lambda: CFRSolver(tree, PRESETS["cfr+"])), 20)
    assert state(copied) == state(loaded) == state(straight)
