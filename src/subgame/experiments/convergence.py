"""Convergence curves: exploitability of a solver's average strategy against iterations.

A curve is measured at log-spaced iteration counts, so that a run of 10⁴ iterations costs
a few dozen exact best responses, and is reported as a markdown table and a log-log PNG.
The run driver measures it::

    run(solver, Budget(iterations=n), evaluate_at=log_spaced(n, 20), on_evaluation=curve_point).evaluations

The points are those of a fresh run of ``n`` iterations, so a run resumed from a
checkpoint reports the same iterations after its start as one never interrupted.
Exploitability is NashConv / 2 (the mean of both players' best-response gains) in game
units (chips for poker) and in mbb/g (1000 × chips, i.e. per 1-chip big blind).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..eval.best_response import Exploitability, exploitability
from ..files import write_atomic
from ..solve.cfr import CFRSolver
from .report import markdown_table

MBB_PER_CHIP = 1000.0


@dataclass(frozen=True)
class CurvePoint:
    """The exploitability of the average strategy after ``iteration`` iterations."""

    iteration: int
    result: Exploitability

    @property
    def exploitability_chips(self) -> float:
        return self.result.exploitability

    @property
    def exploitability_mbb_per_game(self) -> float:
        return MBB_PER_CHIP * self.result.exploitability

    def to_json(self) -> dict[str, Any]:
        return {"iteration": self.iteration, **exploitability_record(self.result)}


def exploitability_record(result: Exploitability) -> dict[str, Any]:
    """A JSON-ready dict of an evaluation: exploitability (chips, mbb/g), NashConv, best-response values."""
    return {
        "exploitability": result.exploitability,
        "exploitability_mbb_per_game": MBB_PER_CHIP * result.exploitability,
        "nash_conv": result.nash_conv,
        "br_values": list(result.br_values),
        "game_value": result.game_value,
    }


def log_spaced(total: int, count: int) -> list[int]:
    """Up to ``count`` distinct iteration counts in [1, total], log-spaced, always ending at ``total``.

    >>> log_spaced(1000, 4)
    [1, 10, 100, 1000]
    """
    if total < 1 or count < 1:
        raise ValueError(f"log_spaced needs total >= 1 and count >= 1, got total={total}, count={count}")
    points = np.unique(np.rint(np.geomspace(1, total, num=count)).astype(int))
    return [int(t) for t in points]


def curve_point(solver: CFRSolver) -> CurvePoint:
    """The exploitability of ``solver``'s average strategy now (a :class:`~subgame.solve.cfr.CFRSolver`'s read from
    its strategy sums)."""
    average = solver if isinstance(solver, CFRSolver) else solver.average_strategy()
    return CurvePoint(solver.iteration, exploitability(solver.tree, average))


CURVE_HEADERS = (
    "iteration",
    "exploitability (chips)",
    "exploitability (mbb/g)",
    "BR value P0 (chips)",
    "BR value P1 (chips)",
)


def curve_rows(curve: list[CurvePoint]) -> list[tuple[int, float, float, float, float]]:
    """One row per point, in the order of :data:`CURVE_HEADERS`."""
    return [
        (p.iteration, p.exploitability_chips, p.exploitability_mbb_per_game, *p.result.br_values) for p in curve
    ]


def curve_markdown(curve: list[CurvePoint], title: str) -> str:
    """The curve as a titled markdown table with a note on the units."""
    note = "Exploitability is NashConv / 2 of the average strategy; mbb/g = 1000 × chips."
    return f"### {title}\n\n{markdown_table(CURVE_HEADERS, curve_rows(curve))}\n{note}\n"


def plot_curve(curve: list[CurvePoint], path: str | Path, title: str) -> Path:
    """Write a log-log plot of exploitability (chips on the left axis, mbb/g on the right) to a PNG.

    Non-positive values (a profile exact to rounding) cannot be drawn on a log axis and are
    left out of the line.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    iterations = [p.iteration for p in curve]
    chips = [p.exploitability_chips if p.exploitability_chips > 0 else np.nan for p in curve]
    ax.plot(iterations, chips, marker="o", markersize=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability (chips)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    mbb = ax.secondary_yaxis("right", functions=(_chips_to_mbb, _mbb_to_chips))
    mbb.set_ylabel("exploitability (mbb/g)")
    return write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=120))


def _chips_to_mbb(chips: Any) -> Any:
    return chips * MBB_PER_CHIP


def _mbb_to_chips(mbb: Any) -> Any:
    return mbb / MBB_PER_CHIP
