"""Sampling CFR with several random streams on workers: bitwise the serial run, checkpoints included."""

from __future__ import annotations

import os
import signal
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import pytest

from subgame.errors import GameDefinitionError
from subgame.eval import exploitability
from subgame.games import load_game
from subgame.parallel import ProcessExecutor, RayExecutor, SerialExecutor
from subgame.solve.mccfr import EXTERNAL_SAMPLING, OUTCOME_SAMPLING, PUBLIC_CHANCE_SAMPLING, MCCFRSolver

ITERATIONS = 6


def _state(solver: MCCFRSolver) -> list[np.ndarray]:
    return solver.regrets + solver.strategy_sum


def _run(tree, scheme, executor=None, streams=3, game=None, iterations=ITERATIONS) -> MCCFRSolver:
    solver = MCCFRSolver(tree, scheme, seed=9, streams=streams, executor=executor, game=game)
    for _ in range(iterations):
        solver.step()
    return solver


def _same(a: MCCFRSolver, b: MCCFRSolver) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(_state(a), _state(b)))


@pytest.mark.parametrize("scheme", [EXTERNAL_SAMPLING, OUTCOME_SAMPLING, PUBLIC_CHANCE_SAMPLING])
def test_process_pool_equals_serial(leduc_tree, scheme):
    serial = _run(leduc_tree, scheme)
    with ProcessExecutor(2) as pool:
        parallel = _run(leduc_tree, scheme, pool)
    assert _same(serial, parallel)
    assert _same(serial, _run(leduc_tree, scheme, SerialExecutor()))


@pytest.mark.slow
def test_spawned_workers_compile_the_game_themselves(leduc_tree):
    with ProcessExecutor(2, start_method="spawn") as pool:
        parallel = _run(leduc_tree, EXTERNAL_SAMPLING, pool, game=load_game("leduc"), iterations=2)
    assert _same(_run(leduc_tree, EXTERNAL_SAMPLING, iterations=2), parallel)


def test_streams_are_a_mini_batch_that_lowers_the_variance(leduc_tree):
    """Averaging more samples per pass gives a less exploitable strategy after the same iterations."""
    single = _run(leduc_tree, EXTERNAL_SAMPLING, streams=1, iterations=60)
    batched = _run(leduc_tree, EXTERNAL_SAMPLING, streams=8, iterations=60)
    e1 = exploitability(leduc_tree, single.average_strategy()).exploitability
    e8 = exploitability(leduc_tree, batched.average_strategy()).exploitability
    assert e8 < e1


def test_resume_with_streams_on_another_executor_is_bitwise(leduc_tree, tmp_path):
    straight = _run(leduc_tree, OUTCOME_SAMPLING, iterations=8)
    half = _run(leduc_tree, OUTCOME_SAMPLING, iterations=3)
    path = half.save_checkpoint(tmp_path / "streams.npz")
    with ProcessExecutor(2) as pool:
        resumed = MCCFRSolver.load_checkpoint(path, leduc_tree, executor=pool)
        assert len(resumed.streams) == 3
        for _ in range(5):
            resumed.step()
    assert _same(straight, resumed)


def test_a_killed_worker_loses_no_checkpointed_iteration(leduc_tree, tmp_path):
    """The pool breaks, the iteration it cut is lost, the checkpoint before it resumes the run bitwise."""
    straight = _run(leduc_tree, EXTERNAL_SAMPLING, iterations=7)
    path = tmp_path / "run.npz"
    with ProcessExecutor(2) as pool:
        solver = _run(leduc_tree, EXTERNAL_SAMPLING, pool, iterations=4)
        solver.save_checkpoint(path)
        for worker in pool.worker_memory():
            os.kill(worker.pid, signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            solver.step()
    with ProcessExecutor(2) as pool:
        resumed = MCCFRSolver.load_checkpoint(path, leduc_tree, executor=pool)
        assert resumed.iteration == 4
        for _ in range(3):
            resumed.step()
    assert _same(straight, resumed)


def test_bad_stream_counts_are_refused(kuhn_tree):
    with pytest.raises(GameDefinitionError, match="streams"):
        MCCFRSolver(kuhn_tree, streams=0)


@pytest.fixture(scope="module")
def ray_executor():
    pytest.importorskip("ray")
    executor = RayExecutor(num_cpus=2)
    try:
        yield executor
    finally:
        executor.close()


@pytest.mark.slow
def test_ray_equals_serial(leduc_tree, ray_executor):
    parallel = _run(leduc_tree, EXTERNAL_SAMPLING, ray_executor, game=load_game("leduc"), iterations=3)
    assert _same(_run(leduc_tree, EXTERNAL_SAMPLING, iterations=3), parallel)


class _FirstAttemptDies:
    """An executor whose first task of the first pass kills its worker process on its first attempt."""

    def __init__(self, inner, marker):
        self.inner, self.marker, self.workers, self.calls = inner, marker, inner.workers, 0

    def map(self, fn, tasks):
        self.calls += 1
        first_pass, marker = self.calls == 1, self.marker

        def die_once(indexed):
            i, task = indexed
            if first_pass and i == 0 and not marker.exists():
                marker.write_text(str(os.getpid()))
                os._exit(1)
            return fn(task)

        return self.inner.map(die_once, list(enumerate(tasks)))

    def worker_memory(self):
        return self.inner.worker_memory()

    def close(self):
        return None


@pytest.mark.slow
def test_ray_reruns_a_pass_whose_worker_dies_with_the_same_result(leduc_tree, ray_executor, tmp_path):
    """A task carries its stream's generator, so Ray's retry of a killed worker's task computes the same sample."""
    marker = tmp_path / "died"
    dying = _FirstAttemptDies(ray_executor, marker)
    parallel = _run(leduc_tree, EXTERNAL_SAMPLING, dying, game=load_game("leduc"), iterations=2)
    assert marker.exists() and int(marker.read_text()) > 0
    assert _same(_run(leduc_tree, EXTERNAL_SAMPLING, iterations=2), parallel)
