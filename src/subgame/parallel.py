"""Running independent tasks in parallel: in-process, a process pool, or a Ray cluster.

The tasks are the subgame solves of one CFR-D iteration (and the re-solves of a
reconstruction), which do not depend on each other (Burch et al. 2014, "Generating a Trunk
Strategy using CFR-D": "one subgame at a time"), the sampled streams of one MCCFR pass, and
the deals of a match. An executor maps a module-level function over task objects and
returns the results in task order; each task is computed by the same code whatever the
executor, so the results are bitwise those of the serial run.

A task must be pure: the same task gives the same result, bitwise, wherever and however
often it runs. That is what lets :class:`RayExecutor` run a task again when the worker
computing it dies (a killed process, a lost node) without changing the iteration's values.

Every executor records the peak resident memory of each process that ran its tasks
(:meth:`worker_memory`): each task reports ``getrusage``'s maximum resident set size of
the process it ran in, and the executor keeps the largest per worker.

Ray is an optional extra (``pip install 'subgame[ray]'``); it is imported only when a
:class:`RayExecutor` is made.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
import socket
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, Protocol, TypeVar

from .allocator import keep_freed_memory
from .errors import SubgameError

T = TypeVar("T")
R = TypeVar("R")
Backend = Literal["serial", "process", "ray"]


@dataclass(frozen=True)
class WorkerMemory:
    """The peak resident memory of one process that ran tasks.

    Attributes:
        node: the machine (host name) or, on Ray, the node's id.
        pid: the process id on that node.
        tasks: tasks whose results came from this process.
        peak_rss: the process's maximum resident set size so far, in bytes (``getrusage``).
    """

    node: str
    pid: int
    tasks: int
    peak_rss: int


def peak_rss_bytes() -> int:
    """This process's peak resident set size in bytes (``ru_maxrss``: KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


@dataclass(frozen=True)
class _Measured:
    """A task's result with the node, process and peak memory it was computed in."""

    result: Any
    node: str
    pid: int
    peak_rss: int


def _measured_call(fn: Callable[[T], R], task: T) -> _Measured:
    """Run one task and report where it ran and that process's peak memory after it."""
    result = fn(task)
    return _Measured(result, socket.gethostname(), os.getpid(), peak_rss_bytes())


def _ray_measured_call(fn: Callable[[T], R], task: T) -> _Measured:
    """:func:`_measured_call` in a Ray worker: the node is Ray's node id (several nodes may share a host)."""
    import ray

    result = fn(task)
    return _Measured(result, ray.get_runtime_context().get_node_id(), os.getpid(), peak_rss_bytes())


class _MemoryLog:
    """Per (node, pid): tasks run and the largest peak RSS reported."""

    def __init__(self) -> None:
        self._workers: dict[tuple[str, int], tuple[int, int]] = {}

    def unwrap(self, measured: Iterable[_Measured]) -> list[Any]:
        out = []
        for m in measured:
            tasks, peak = self._workers.get((m.node, m.pid), (0, 0))
            self._workers[(m.node, m.pid)] = (tasks + 1, max(peak, m.peak_rss))
            out.append(m.result)
        return out

    def workers(self) -> list[WorkerMemory]:
        return [WorkerMemory(node, pid, tasks, peak) for (node, pid), (tasks, peak) in sorted(self._workers.items())]


class Executor(Protocol):
    """Maps a picklable module-level function over tasks, results in task order."""

    workers: int

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]: ...

    def worker_memory(self) -> list[WorkerMemory]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Every task in this process, one after the other."""

    workers = 1

    def __init__(self) -> None:
        self._log = _MemoryLog()

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        return self._log.unwrap(_measured_call(fn, t) for t in tasks)

    def worker_memory(self) -> list[WorkerMemory]:
        """This process, if it ran any task."""
        return self._log.workers()

    def close(self) -> None:
        return None

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _start_worker() -> None:
    """A worker ignores Ctrl-C (the parent finishes its iteration, checkpoints and stops the pool) and keeps the memory
    it frees for its next task (:func:`keep_freed_memory`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    keep_freed_memory()


class ProcessExecutor:
    """A pool of ``workers`` processes on this machine (:mod:`concurrent.futures`).

    Args:
        workers: number of processes.
        start_method: ``"fork"``, ``"spawn"`` or ``"forkserver"``; ``None`` is the
            platform's default.
    """

    def __init__(self, workers: int = 2, start_method: str | None = None) -> None:
        if workers < 1:
            raise SubgameError(f"a process pool needs at least one worker, got workers={workers}")
        self.workers = workers
        self._context = multiprocessing.get_context(start_method)
        self._pool: ProcessPoolExecutor | None = None
        self._log = _MemoryLog()

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self._context, initializer=_start_worker)
        return self._log.unwrap(self._pool.map(partial(_measured_call, fn), tasks))

    def worker_memory(self) -> list[WorkerMemory]:
        """Every pool process that ran a task, with its peak RSS."""
        return self._log.workers()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self) -> ProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise SubgameError(
            "the Ray backend needs the optional dependency ray: pip install 'subgame[ray]' (or pip install ray)"
        ) from None
    return ray


class RayExecutor:
    """Tasks as Ray remote calls, on a local instance or an existing cluster.

    Args:
        address: a running cluster's address (``"HOST:PORT"`` of its head, ``"auto"`` to
            find one); ``None`` starts a local instance unless Ray is already initialized.
        num_cpus: CPUs of a local instance started here (``None``: all).
        max_retries: times a task is run again when the worker running it dies (Ray's
            ``max_retries``; system failures only, an exception raised by the task is not
            retried). Tasks are pure, so a retried task returns what the first attempt
            would have. Ray's default is 3; the paper is silent, this is a choice.
        timeout: seconds one :meth:`map` may wait for all its results (``None``: no limit).
        scheduling_strategy: Ray's placement of the tasks. ``"SPREAD"`` (the default here)
            spreads the tasks of one call over the nodes; Ray's ``"DEFAULT"`` fills the
            driver's node first and reuses one worker for many short tasks, so a second
            node may get only a few of one iteration's subgames.
        **init_kwargs: passed to ``ray.init`` when this executor starts Ray.

    The instance is shut down by :meth:`close` only if this executor started it (or
    joined the cluster at ``address``: then only this driver disconnects).
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, *, max_retries: int = 3,
                 timeout: float | None = None, scheduling_strategy: str = "SPREAD", **init_kwargs: Any) -> None:
        if max_retries < 0:
            raise SubgameError(f"max_retries must be >= 0, got {max_retries}")
        ray = _import_ray()
        self._ray = ray
        self._owns = False
        self.max_retries = max_retries
        self.timeout = timeout
        self._log = _MemoryLog()
        if not ray.is_initialized():
            kwargs = {"include_dashboard": False, "log_to_driver": False, **init_kwargs}
            if address is None and num_cpus is not None:
                kwargs["num_cpus"] = num_cpus
            ray.init(address=address, **kwargs)
            self._owns = True
        self.workers = int(ray.cluster_resources().get("CPU", 1))
        self._remote = ray.remote(max_retries=max_retries, scheduling_strategy=scheduling_strategy)(_ray_measured_call)

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        """Submit every task, wait for all; a task whose worker died is run again (``max_retries``)."""
        refs = [self._remote.remote(fn, t) for t in tasks]
        try:
            measured = self._ray.get(refs, timeout=self.timeout)
        except self._ray.exceptions.GetTimeoutError as e:
            for ref in refs:
                self._ray.cancel(ref, force=True)
            raise SubgameError(f"Ray tasks not done after {self.timeout} s") from e
        except (self._ray.exceptions.WorkerCrashedError, self._ray.exceptions.NodeDiedError) as e:
            raise SubgameError(f"a Ray worker died {self.max_retries + 1} times running one task; "
                               f"raise max_retries or check the workers' logs ({type(e).__name__})") from e
        return self._log.unwrap(measured)

    def worker_memory(self) -> list[WorkerMemory]:
        """Every Ray worker process that returned a result (by node id and pid), with its peak RSS."""
        return self._log.workers()

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_executor(backend: Backend = "serial", workers: int = 1, **options: Any) -> Executor:
    """An executor by name: ``"serial"``, ``"process"`` (``workers`` processes) or ``"ray"``.

    For Ray, ``workers`` is the number of CPUs of a local instance started here;
    ``address=HOST:PORT`` joins a running cluster instead.
    """
    if backend == "serial":
        return SerialExecutor()
    if backend == "process":
        return ProcessExecutor(workers, **options)
    if backend == "ray":
        if options.get("address") is not None:
            return RayExecutor(**options)
        return RayExecutor(num_cpus=workers, **options)
    raise SubgameError(f"unknown parallel backend {backend!r}; backends are: serial, process, ray")
