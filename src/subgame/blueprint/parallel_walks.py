"""One batch of implicit external-sampling MCCFR walked by several processes, deterministically.

Pluribus trained its blueprint with many threads updating shared tables without locks; the
result then depends on timing. Here a batch of ``B`` iterations is split into ``W`` parts
(``workers`` in :class:`~subgame.blueprint.implicit_mccfr.ImplicitConfig`). Part ``j``
draws its deals from a generator seeded by the batch's seed and ``j``, reads its strategies
from the regrets as they were at the batch's start (shared memory, never written during the
batch) and writes its regret and average increments into its own zeroed delta tables; the
parent then adds the deltas to the tables in part order. So a batch is a pure function of
the tables, its seed and ``W``: a run resumes bitwise and gives the same tables whichever
process walks which part. Within a batch the walks do not see each other's updates, as
in any batched or parallel MCCFR; batches of thousands of iterations over millions of
information sets change little by that.

The tables and deltas are anonymous shared memory mapped before the worker processes fork,
so nothing large is pickled; the workers inherit the solver (and its card abstraction) as
it was when they started. Boards a worker buckets for the first time stay in that worker
(the same buckets: they are a pure function of the abstraction), so fill the boards first
(``subgame blueprint --fill``) to save each worker that work.
"""

from __future__ import annotations

import mmap
import multiprocessing
from typing import Any

import numpy as np

from ..errors import SubgameError

_SOLVER: Any = None  #: the solver, set in the parent just before the workers fork
_DELTAS: list[tuple[np.ndarray, np.ndarray]] = []  #: per part, its regret and average deltas (shared)


def _shared(size: int, values: np.ndarray | None = None) -> np.ndarray:
    """A float32 array of ``size`` in anonymous shared memory: zeros (as mapped), or ``values``."""
    out = np.frombuffer(mmap.mmap(-1, max(4 * size, 1)), dtype=np.float32, count=size)
    if values is not None:
        out[:] = values
    return out


def _walk_part(task: tuple[int, int, int, bool]) -> float:
    """Part ``j`` of a batch (in a worker): ``iterations`` iterations dealt from ``(seed, j)``, into part ``j``'s deltas."""
    j, seed, iterations, pruning = task
    regret_out, average_out = _DELTAS[j]
    regret_out[:] = 0.0
    average_out[:] = 0.0
    return float(_SOLVER.walk(iterations, np.random.default_rng([seed, j]), regret_out, average_out,
                             pruning=pruning))


class ParallelWalks:
    """The worker processes and shared tables of one :class:`~subgame.blueprint.implicit_mccfr.ImplicitMCCFR`.

    Making it moves the solver's regret and average tables into shared memory (same values).
    """

    def __init__(self, solver: Any) -> None:
        global _SOLVER, _DELTAS
        if "fork" not in multiprocessing.get_all_start_methods():
            raise SubgameError("implicit MCCFR with workers needs processes started by fork (Linux, macOS); use "
                               "workers = 1 here")
        self.solver = solver
        self.workers = int(solver.config.workers)
        n = solver.regrets.size
        solver.regrets = _shared(n, solver.regrets)
        solver.average = _shared(n, solver.average)
        self.deltas = [(_shared(n), _shared(n)) for _ in range(self.workers)]
        _SOLVER, _DELTAS = solver, self.deltas
        self.pool = multiprocessing.get_context("fork").Pool(self.workers)

    def batch(self, seed: int, pruning: bool) -> float:
        """Walk one batch of ``solver.config.batch`` iterations; returns player 0's sampled values summed."""
        total, w = int(self.solver.config.batch), self.workers
        sizes = [total // w + (1 if j < total % w else 0) for j in range(w)]
        values = self.pool.map(_walk_part, [(j, seed, sizes[j], pruning) for j in range(w)], chunksize=1)
        for regret_out, average_out in self.deltas:  # in part order: the same sums whoever walked which part
            self.solver.regrets += regret_out
            self.solver.average += average_out
        return float(sum(values))

    def close(self) -> None:
        self.pool.terminate()
        self.pool.join()
