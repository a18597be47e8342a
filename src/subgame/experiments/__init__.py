"""Experiments: seeded runs that write markdown tables and PNG plots."""

from collections.abc import Callable

from .cdbr_hunl import cdbr_hunl
from .cfr_d import cfr_d_experiment
from .convergence import (
    CURVE_HEADERS,
    CurvePoint,
    curve_markdown,
    curve_point,
    curve_rows,
    exploitability_record,
    log_spaced,
    plot_curve,
)
from .depth_limited import depth_limited_values
from .exploit import cdbr_table, cdbr_vs_lbr, cdrnr_tradeoff
from .gadgets import gadget_tradeoff, gift_scaling
from .modicum import modicum_vs_cfr_plus
from .modicum_table import modicum_table
from .nested_flops import table_2
from .offtree import offtree_values
from .report import ExperimentResult, Series
from .search_agent import agent_exploitability_experiment
from .technique_table import resolve_convergence, resolve_vs_blueprint, technique_table

#: Every experiment by the name ``subgame reproduce NAME`` takes; each is called as
#: ``run(full=..., seed=...)`` and returns an :class:`ExperimentResult`.
EXPERIMENTS: dict[str, Callable[..., ExperimentResult]] = {
    "resolve-convergence": resolve_convergence,
    "technique-table": technique_table,
    "resolve-vs-blueprint": resolve_vs_blueprint,
    "cfr-d": cfr_d_experiment,
    "cdbr-table": cdbr_table,
    "cdrnr-tradeoff": cdrnr_tradeoff,
    "cdbr-vs-lbr": cdbr_vs_lbr,
    "gadget-tradeoff": gadget_tradeoff,
    "nested-table": table_2,
    "gift-scaling": gift_scaling,
    "modicum": modicum_vs_cfr_plus,
    "depth-limited-values": depth_limited_values,
    "agent-exploitability": agent_exploitability_experiment,
    "modicum-table": modicum_table,
    "offtree-values": offtree_values,
    "cdbr-hunl": cdbr_hunl,
}

__all__ = [
    "EXPERIMENTS",
    "ExperimentResult",
    "Series",
    "CURVE_HEADERS",
    "CurvePoint",
    "curve_markdown",
    "curve_point",
    "curve_rows",
    "exploitability_record",
    "log_spaced",
    "plot_curve",
]
