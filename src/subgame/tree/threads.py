"""The threads the heavy loops of an iteration share: the poker operators and the compiled row loops.

numpy releases the GIL inside its array loops and ctypes around a compiled call, so work
split into independent pieces runs on several cores from plain Python threads. Every piece
computes the same values whichever thread runs it, so results are bitwise the same for any
thread count.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache

from ..errors import GameDefinitionError


def usable_cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


_threads = [usable_cores()]


def set_threads(workers: int | None) -> int:
    """Threads for the operators and compiled loops from now on (``None``: the usable cores); returns the old count.

    The usable cores by default: on a quiet 2-core machine two threads took a 52-card river
    from 23 to 17.5 ms an iteration (``benchmarks/bench_holdem.py``); on one loaded by other
    work they did not pay, and one thread may be better there.
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise GameDefinitionError(f"threads must be a whole number >= 1 or None, got {workers!r}")
    old = _threads[0]
    _threads[0] = usable_cores() if workers is None else workers
    return old


def thread_count() -> int:
    """The count :func:`set_threads` set."""
    return _threads[0]


@cache
def _pool(workers: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="subgame-worker")


# A process forked from one that had used the pool inherits the pool without its threads: a piece submitted there would
# wait forever (a flop job's workers hung so). The child makes its own on first use.
os.register_at_fork(after_in_child=_pool.cache_clear)


#: Array entries below which a piece of work is not worth a thread: handing it over costs more than it saves.
MIN_THREAD_ENTRIES = 1 << 16


def run_pieces(pieces: Sequence[Callable[[], None]], workers: int | None = None, entries: int | None = None) -> None:
    """Run independent pieces of work on the pool (the last one in the calling thread) and wait for all.

    ``entries``: the array entries all pieces touch together; under ``2 * MIN_THREAD_ENTRIES`` they run in the
    calling thread (the same values: each piece computes alike wherever it runs).
    """
    workers = _threads[0] if workers is None else workers
    if workers < 2 or len(pieces) < 2 or (entries is not None and entries < 2 * MIN_THREAD_ENTRIES):
        for piece in pieces:
            piece()
        return
    futures = [_pool(workers).submit(piece) for piece in pieces[:-1]]
    pieces[-1]()
    for f in futures:
        f.result()
