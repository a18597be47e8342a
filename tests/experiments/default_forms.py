"""Each experiment's default form (``subgame reproduce NAME``), run once per test session.

Several tests read one default table: the README's figures for it (``test_readme_figures.py``) and
the paper's shape (the experiment's own test file). Running it once keeps the suite within its
time; a test that wants the same table twice runs it (or a part of it) again itself.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from multiprocessing import get_context
from typing import TypeVar

from subgame.experiments import EXPERIMENTS, ExperimentResult

R = TypeVar("R")


@cache
def default_form(name: str) -> ExperimentResult:
    """``EXPERIMENTS[name](full=False, seed=0)``, computed on the first call (the result is shared: do not change it)."""
    return EXPERIMENTS[name](full=False, seed=0)


def twice(run: Callable[..., R], **kwargs: object) -> tuple[R, R]:
    """``run(**kwargs)`` here and, at the same time, in a fresh interpreter: two results that must be one table.

    The second run shares nothing with the first (no cache, no state of this process), and the two take one run's time
    where two cores are free. ``run`` must be a module-level function, its result picklable.
    """
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        other = pool.submit(run, **kwargs)
        return run(**kwargs), other.result()
