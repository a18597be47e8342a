"""Bucketing every canonical board of chosen rounds ahead of training, as a resumable job.

A four-round abstraction (:mod:`.buckets4`) buckets a board the first time a deal meets it,
which on the 52-card game spreads the cost of 1,755 flops and 16,432 turns (canonical under
suit permutations) over the first hours of training. :class:`BoardFill` does them all at
once instead: a solver of the run driver (:func:`~subgame.solve.driver.run`) whose
iteration count is the boards bucketed, ``chunk`` boards per step on an executor's workers
(:mod:`subgame.parallel`: each chunk is a pure task, so any number of workers gives the same
tables), whose checkpoint is the bucket file itself. An interrupted fill keeps what it has;
given that file back it does only the boards still missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import SubgameError
from ..parallel import Executor, SerialExecutor
from ..strategy import Strategy
from .buckets4 import Buckets4Config, FourRoundBuckets


@dataclass(frozen=True)
class _Chunk:
    """One task: the rows of some canonical boards of one round."""

    config: Buckets4Config
    centres: tuple[np.ndarray, ...]
    rnd: int
    boards: np.ndarray  #: [m, b]


_SHELLS: dict[tuple[Buckets4Config, tuple[bytes, ...]], FourRoundBuckets] = {}


def _rows(task: _Chunk) -> np.ndarray:
    """[m, H] int16 the buckets of one chunk (the worker keeps one abstraction per config and centres)."""
    key = (task.config, tuple(c.tobytes() for c in task.centres))
    if key not in _SHELLS:
        _SHELLS[key] = FourRoundBuckets(task.config, task.centres)
    return _SHELLS[key].board_rows(task.rnd, task.boards)


class BoardFill:
    """Buckets every canonical board of ``rounds`` that ``buckets`` has not bucketed yet.

    Args:
        buckets: the abstraction whose tables are filled in place.
        rounds: the rounds to fill (boards of the preflop round have nothing to fill).
        chunk: boards per task.
        executor: runs the tasks (one step maps one task per worker); serial by default.
        workers: tasks per step.
    """

    def __init__(self, buckets: FourRoundBuckets, rounds: tuple[int, ...], *, chunk: int = 32,
                 executor: Executor | None = None, workers: int = 1) -> None:
        if chunk < 1 or workers < 1:
            raise SubgameError(f"board fill: chunk and workers must be >= 1, got {chunk} and {workers}")
        c = buckets.config
        bad = [r for r in rounds if not 0 <= r < len(c.board_cards)]
        if bad:
            raise SubgameError(f"board fill: rounds {bad} are not rounds of this deal (0..{len(c.board_cards) - 1})")
        self.buckets, self.chunk, self.workers = buckets, chunk, workers
        self.executor = executor if executor is not None else SerialExecutor()
        plan = [(r, *buckets.canonical_boards(r)) for r in sorted(set(rounds)) if c.board_size(r) > 0]
        self._todo = [(r, ranks[lo : lo + chunk], boards[lo : lo + chunk])
                      for r, ranks, boards in plan for lo in range(0, ranks.size, chunk)]
        self.total = sum(int(ranks.size) for _, ranks, _ in self._todo)  #: boards this fill buckets
        self._done = 0
        self._at = 0

    @property
    def iteration(self) -> int:
        """Boards bucketed so far by this fill."""
        return self._done

    @property
    def finished(self) -> bool:
        return self._at >= len(self._todo)

    def step(self) -> None:
        """Bucket the next ``workers`` chunks (nothing once finished)."""
        batch = self._todo[self._at : self._at + self.workers]
        b = self.buckets
        rows = self.executor.map(_rows, [_Chunk(b.config, b.centres, r, boards) for r, _, boards in batch])
        for (r, ranks, _), part in zip(batch, rows):
            b.insert(r, ranks, part)
            self._done += int(ranks.size)
        self._at += len(batch)

    def average_strategy(self) -> Strategy:
        raise SubgameError("a board fill has no strategy")

    def save_checkpoint(self, path: Path, /) -> Path:
        """The bucket file with every board bucketed so far (``--buckets FILE`` continues from it)."""
        return self.buckets.save(path)
