"""What every iterative solver shares: planning a run's iterations, and the average strategy's rows."""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from ..errors import GameDefinitionError
from ..tree.sweep import row_sums

__all__ = ["IterationPlan", "average_rows", "checked_iterations"]

PlannedSolver = TypeVar("PlannedSolver", bound="IterationPlan")


class IterationPlan:
    """:meth:`plan` and :meth:`run` of a solver whose ``step()`` is one iteration.

    The plan (``horizon``, the run's total iterations) is what ``config.average_skip``
    counts from; without one, the end of the first :meth:`run` is the plan and later runs
    keep it.
    """

    iteration: int
    horizon: int | None

    def step(self) -> None:
        raise NotImplementedError

    def plan(self: PlannedSolver, total_iterations: int) -> PlannedSolver:
        """Say how many iterations the run will have in all; replaces an earlier plan."""
        self.horizon = checked_iterations(total_iterations)
        return self

    def run(self: PlannedSolver, iterations: int) -> PlannedSolver:
        """Run ``iterations`` more iterations (budgets in seconds, evaluations, checkpoints: :func:`.driver.run`)."""
        iterations = checked_iterations(iterations)
        if self.horizon is None:
            self.plan(self.iteration + iterations)
        for _ in range(iterations):
            self.step()
        return self


def average_rows(strategy_sum: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """[I, A] the normalized rows of a strategy sum; uniform over the legal actions where a row's sum is zero."""
    s = strategy_sum.astype(np.float64, copy=False)
    tot = row_sums(s)[:, None]
    unreached = ~(tot[:, 0] > 0)
    avg: np.ndarray = s / np.where(unreached[:, None], 1.0, tot)
    avg[unreached] = legal[unreached] / legal[unreached].sum(axis=1, keepdims=True)
    return avg


def checked_iterations(iterations: int, minimum: int = 0) -> int:
    """``iterations`` as an int, or one clear error if it is not a whole number >= ``minimum``."""
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < minimum:
        raise GameDefinitionError(f"iterations must be a whole number >= {minimum}, got {iterations!r}")
    return int(iterations)
