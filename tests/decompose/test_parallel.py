"""Parallel subgame solves give the serial run's results bitwise: process pool and Ray."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from subgame.decompose import (
    CFRDConfig,
    CFRDSolver,
    ProcessExecutor,
    RayExecutor,
    SerialExecutor,
    TrunkSplit,
    make_executor,
    reconstruct,
)
from subgame.errors import SubgameError
from subgame.games import load_game
from tests.conftest import compiled

CONFIG = CFRDConfig(12, batch=5, cached_chunks=2)  # six chunks of five subgames


def _run(executor):
    solver = CFRDSolver(load_game("leduc"), TrunkSplit(rounds=1), CONFIG, executor=executor).run(3)
    solution = solver.solution()
    rec = reconstruct(solution, iterations=40, full_tree=compiled("leduc"), batch=10, executor=executor)
    return solution, rec


def _assert_same(a, b):
    (sa, ra), (sb, rb) = a, b
    for p in (0, 1):
        np.testing.assert_array_equal(sa.average.probs[p], sb.average.probs[p])
        np.testing.assert_array_equal(sa.root_values[p], sb.root_values[p])
        np.testing.assert_array_equal(ra.strategy.probs[p], rb.strategy.probs[p])
    assert [r.recovery_gap.tolist() for r in ra.chunks] == [r.recovery_gap.tolist() for r in rb.chunks]


@pytest.fixture(scope="module")
def serial():
    return _run(SerialExecutor())


def test_process_pool_equals_serial(serial):
    with ProcessExecutor(workers=2) as pool:
        parallel = _run(pool)
    _assert_same(serial, parallel)


def test_ray_equals_serial(serial):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with RayExecutor() as executor:
            assert executor.workers == 2
            parallel = _run(executor)
    finally:
        ray.shutdown()
    _assert_same(serial, parallel)


def test_executor_errors(monkeypatch):
    with pytest.raises(SubgameError, match="unknown parallel backend"):
        make_executor("threads")  # type: ignore[arg-type]
    with pytest.raises(SubgameError, match="at least one worker"):
        ProcessExecutor(workers=0)
    assert isinstance(make_executor("serial"), SerialExecutor)
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(SubgameError, match=r"pip install 'subgame\[ray\]'"):
        RayExecutor()


def test_worker_cache_is_keyed_by_game():
    """Regression: two games with the same public keys must not share a cached subgame in a worker."""
    from subgame.decompose.cfr_d import ChunkTask, run_chunk_task
    from subgame.solve.cfr import CFR_PLUS

    key = (("", "", "c", "c", "Qs"),)
    values = []
    for ranks in (3, 4):
        game = load_game("leduc", num_ranks=ranks)
        n = 2 * ranks - 1  # hands left beside the board card
        task = ChunkTask(game, key, (np.ones(n), np.ones(n)), 3, CFR_PLUS, None, False)
        values.append(run_chunk_task(task).values[0])
    assert values[0].shape == (5,) and values[1].shape == (7,)
