"""The operators' thread pool in a process forked after the parent used it (a flop job's worker processes)."""

from __future__ import annotations

import multiprocessing

from subgame.tree.threads import run_pieces


def _pieces_in_child(queue) -> None:
    got: list[int] = []
    run_pieces([lambda: got.append(1), lambda: got.append(2), lambda: got.append(3)], workers=2)
    queue.put(sorted(got))


def test_a_forked_child_runs_pieces_on_threads_of_its_own():
    run_pieces([lambda: None, lambda: None], workers=2)  # the parent's pool exists now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_pieces_in_child, args=(queue,))
    child.start()
    try:
        assert queue.get(timeout=30) == [1, 2, 3]  # before the fix the child waited forever on the parent's dead threads
    finally:
        child.join(timeout=5)
        if child.is_alive():
            child.kill()
