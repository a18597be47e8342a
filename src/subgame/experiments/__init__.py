"""Experiments: seeded runs that write markdown tables and PNG plots."""

from .convergence import (
    CurvePoint,
    exploitability_record,
    iter_convergence,
    log_spaced,
    markdown_table,
    plot_curve,
)

__all__ = ["CurvePoint", "exploitability_record", "iter_convergence", "log_spaced", "markdown_table", "plot_curve"]
