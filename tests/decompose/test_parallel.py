"""Parallel subgame solves give the serial run's results bitwise: process pool and Ray; a dead worker's task is retried."""

from __future__ import annotations

import builtins
import json
import multiprocessing
import os
import platform
import socket
import sys

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


@pytest.fixture(scope="module")
def ray_local():
    """One local Ray instance with two CPUs for the Ray tests of this module."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _check_memory(workers, tasks, nodes):
    assert sum(w.tasks for w in workers) == tasks
    assert {w.node for w in workers} <= nodes
    assert len({(w.node, w.pid) for w in workers}) == len(workers) >= 1
    assert all(50 * 2**20 < w.peak_rss < 4 * 2**30 for w in workers)  # a Python process with numpy loaded


@pytest.mark.slow
def test_process_pool_equals_serial(serial):
    with ProcessExecutor(workers=2) as pool:
        parallel = _run(pool)
        workers = pool.worker_memory()
    _assert_same(serial, parallel)
    # 3 iterations x 2 players x 6 chunks, then 30 subgames re-solved in batches of 10 for each player
    _check_memory(workers, 3 * 2 * 6 + 2 * 3, {socket.gethostname()})
    assert os.getpid() not in {w.pid for w in workers}


@pytest.mark.slow
def test_ray_equals_serial(serial, ray_local):
    with RayExecutor() as executor:
        assert executor.workers == 2
        parallel = _run(executor)
        workers = executor.worker_memory()
    _assert_same(serial, parallel)
    _check_memory(workers, 3 * 2 * 6 + 2 * 3, {n["NodeID"] for n in ray_local.nodes()})


@pytest.mark.slow
def test_ray_retries_a_task_whose_worker_dies(ray_local, tmp_path):
    """The first attempt of every task kills its own worker process; Ray runs it again elsewhere."""

    def die_once(i: int) -> tuple[int, int]:
        marker = tmp_path / f"attempt{i}"
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)
        return i * i, os.getpid()

    with RayExecutor(max_retries=2) as executor:
        results = executor.map(die_once, [1, 2, 3])
    assert [r for r, _ in results] == [1, 4, 9]
    for i, (_, pid) in zip((1, 2, 3), results):
        assert int((tmp_path / f"attempt{i}").read_text()) != pid  # computed by another process
    for f in tmp_path.iterdir():
        f.unlink()
    with RayExecutor(max_retries=0) as executor, pytest.raises(SubgameError, match="died 1 times running one task"):
        executor.map(die_once, [4])


@pytest.mark.slow
def test_cli_reports_each_ray_worker(ray_local, tmp_path):
    from tests.cli.test_cli import invoke

    address = ray_local.get_runtime_context().gcs_address
    result = invoke("solve", "leduc", "--algo", "cfr-d", "-n", "2", "--subgame-iterations", "5", "--subgame-batch", "10",
                    "--ray-address", address, "--json", "--out", tmp_path / "r.npz")
    assert result.exit_code == 0, result.output
    # the command's JSON is one line: Ray's driver (this test process) may print, at any time and on either stream,
    # a line about the workers an earlier test killed on purpose
    workers = json.loads(next(line for line in reversed(result.stdout.splitlines()) if line.startswith("{")))["workers"]
    assert sum(w["tasks"] for w in workers) == 2 * 2 * 3 and all(w["peak_rss"] > 0 for w in workers)
    assert {w["node"] for w in workers} <= {n["NodeID"] for n in ray_local.nodes()}
    text = invoke("solve", "leduc", "--algo", "cfr-d", "-n", "1", "--subgame-iterations", "5", "--subgame-batch", "10",
                  "--backend", "ray", "--out", tmp_path / "s.npz")
    assert text.exit_code == 0 and "subgame solves per worker (ray)" in text.output and "peak RSS (MiB)" in text.output


def test_ray_address_needs_cfr_d_and_ray(tmp_path):
    from tests.cli.test_cli import invoke

    plain = invoke("solve", "kuhn", "--ray-address", "127.0.0.1:1", "--out", tmp_path / "a.npz")
    assert plain.exit_code == 2 and "--ray-address applies to --algo cfr-d, mccfr-es, mccfr-os or pcs only" in plain.output
    mixed = invoke("solve", "kuhn", "--algo", "cfr-d", "--backend", "process", "--ray-address", "127.0.0.1:1",
                   "--out", tmp_path / "b.npz")
    assert mixed.exit_code == 2 and "does not go with --backend process" in mixed.output


def test_chunk_tasks_are_pure():
    """A task gives the same values, bitwise, with a cold or a warm worker cache and run again: a retry changes nothing."""
    from subgame.decompose import cfr_d
    from subgame.decompose.cfr_d import ChunkTask, run_chunk_task
    from subgame.solve.cfr import CFR_PLUS

    solver = CFRDSolver(load_game("leduc"), TrunkSplit(rounds=1), CONFIG)
    chunk = solver.decomposition.chunks[2]
    rng = np.random.default_rng(0)
    reach = tuple(rng.random(len(chunk.trunk_states[p])) for p in (0, 1))
    task = ChunkTask(solver.game, chunk.keys, reach, 15, CFR_PLUS, 1, True)
    cfr_d._WORKER_CACHE = None
    cold = run_chunk_task(task)
    warm = run_chunk_task(task)
    cfr_d._WORKER_CACHE = None
    again = run_chunk_task(task)
    for other in (warm, again):
        for p in (0, 1):
            np.testing.assert_array_equal(cold.values[p], other.values[p])
            np.testing.assert_array_equal(cold.realization[p], other.realization[p])
    assert np.abs(cold.values[0]).max() > 0


def test_executor_errors(monkeypatch):
    with pytest.raises(SubgameError, match="unknown parallel backend"):
        make_executor("threads")  # type: ignore[arg-type]
    with pytest.raises(SubgameError, match="at least one worker"):
        ProcessExecutor(workers=0)
    with pytest.raises(SubgameError, match="max_retries must be >= 0"):
        RayExecutor(max_retries=-1)
    assert isinstance(make_executor("serial"), SerialExecutor)
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(SubgameError, match=r"pip install 'subgame\[ray\]'"):
        RayExecutor()


@pytest.mark.slow
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


def test_a_pool_workers_start_loads_no_engine_module():
    """Every worker process imports the executors' module before its first task: it stays light (a spawned pool of
    two took 0.5 s instead of 0.15 while it loaded the tree package)."""
    from tests.cli.test_main import _imported_by

    assert _imported_by("import subgame.parallel") == []


def _held_then_freed(_: int) -> tuple[float, float]:
    """This process's resident MiB with a 16 MiB array written, and after the array is freed and the freed memory
    released as a poker tree's making releases it (release_freed_memory)."""
    from subgame.allocator import release_freed_memory

    def rss() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    x = np.ones(2 * 2**20)
    held = rss()
    del x
    release_freed_memory()
    return held, rss()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="keeping freed memory asks glibc's allocator (mallopt)")
def test_a_pool_worker_keeps_what_it_frees_for_its_next_task():
    """A fresh process gives a freed 16 MiB block back to the kernel (its next task would take fresh, zeroed pages);
    a pool's worker keeps it (keep_freed_memory), through the release a poker tree's making asks too."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as plain:
        held, freed = plain.submit(_held_then_freed, 0).result()
    assert freed < held - 12
    with ProcessExecutor(1, start_method="spawn") as pool:
        [(held, freed)] = pool.map(_held_then_freed, [0])
    assert freed > held - 4
