"""Running independent subgame solves in parallel: in-process, a process pool, or a Ray cluster.

The subgame solves of one CFR-D iteration (and the re-solves of a reconstruction) do not
depend on each other (Burch et al. 2014, "Generating a Trunk Strategy using CFR-D": "one
subgame at a time"). An executor maps a module-level function over task objects and
returns the results in task order; each task is computed by the same code whatever the
executor, so the results are bitwise those of the serial run.

Ray is an optional extra (``pip install 'subgame[ray]'``); it is imported only when a
:class:`RayExecutor` is made.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Literal, Protocol, TypeVar

from ..errors import SubgameError

T = TypeVar("T")
R = TypeVar("R")
Backend = Literal["serial", "process", "ray"]


class Executor(Protocol):
    """Maps a picklable module-level function over tasks, results in task order."""

    workers: int

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Every task in this process, one after the other."""

    workers = 1

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        return [fn(t) for t in tasks]

    def close(self) -> None:
        return None

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _leave_interrupts_to_parent() -> None:
    """A worker ignores Ctrl-C: the parent finishes its iteration, checkpoints and stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self._context, initializer=_leave_interrupts_to_parent)
        return list(self._pool.map(fn, tasks))

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
        address: a running cluster's address (``"auto"`` to find one); ``None`` starts
            a local instance unless Ray is already initialized.
        num_cpus: CPUs of a local instance started here (``None``: all).
        **init_kwargs: passed to ``ray.init`` when this executor starts Ray.

    The instance is shut down by :meth:`close` only if this executor started it.
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, **init_kwargs: Any) -> None:
        ray = _import_ray()
        self._ray = ray
        self._owns = False
        if not ray.is_initialized():
            kwargs = {"include_dashboard": False, "log_to_driver": False, **init_kwargs}
            if address is None and num_cpus is not None:
                kwargs["num_cpus"] = num_cpus
            ray.init(address=address, **kwargs)
            self._owns = True
        self.workers = int(ray.cluster_resources().get("CPU", 1))
        self._remote: dict[Callable[..., Any], Any] = {}

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> list[R]:
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self._ray.remote(fn)
        return list(self._ray.get([remote.remote(t) for t in tasks]))

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

    For Ray, ``workers`` is the number of CPUs of a local instance started here.
    """
    if backend == "serial":
        return SerialExecutor()
    if backend == "process":
        return ProcessExecutor(workers, **options)
    if backend == "ray":
        return RayExecutor(num_cpus=workers, **options)
    raise SubgameError(f"unknown parallel backend {backend!r}; backends are: serial, process, ray")
