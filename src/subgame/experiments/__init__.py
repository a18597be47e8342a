"""Experiments: seeded runs that write markdown tables and PNG plots."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .report import ExperimentResult

#: Where each public name lives: an experiment's module is imported when it is first asked for, so that a command
#: that needs one experiment's helpers (``subgame solve``: the convergence curve) does not import them all.
_WHERE = {
    "CURVE_HEADERS": "convergence", "CurvePoint": "convergence", "curve_markdown": "convergence",
    "curve_point": "convergence", "curve_rows": "convergence", "exploitability_record": "convergence",
    "log_spaced": "convergence", "plot_curve": "convergence", "ExperimentResult": "report", "Series": "report",
}

#: Each experiment by the name ``subgame reproduce NAME`` takes: its module and function.
_EXPERIMENTS = {
    "resolve-convergence": ("technique_table", "resolve_convergence"),
    "technique-table": ("technique_table", "technique_table"),
    "resolve-vs-blueprint": ("technique_table", "resolve_vs_blueprint"),
    "cfr-d": ("cfr_d", "cfr_d_experiment"),
    "cdbr-table": ("exploit", "cdbr_table"),
    "cdrnr-tradeoff": ("exploit", "cdrnr_tradeoff"),
    "cdbr-vs-lbr": ("exploit", "cdbr_vs_lbr"),
    "gadget-tradeoff": ("gadgets", "gadget_tradeoff"),
    "nested-table": ("nested_flops", "table_2"),
    "gift-scaling": ("gadgets", "gift_scaling"),
    "modicum": ("modicum", "modicum_vs_cfr_plus"),
    "depth-limited-values": ("depth_limited", "depth_limited_values"),
    "agent-exploitability": ("search_agent", "agent_exploitability_experiment"),
    "modicum-table": ("modicum_table", "modicum_table"),
    "offtree-values": ("offtree", "offtree_values"),
    "cdbr-hunl": ("cdbr_hunl", "cdbr_hunl"),
}


class _Experiments(Mapping[str, "Callable[..., ExperimentResult]"]):
    """The experiments by name, each module imported when its experiment is asked for."""

    def __getitem__(self, name: str) -> Callable[..., ExperimentResult]:
        module, function = _EXPERIMENTS[name]
        run: Callable[..., ExperimentResult] = getattr(import_module(f".{module}", __name__), function)
        return run

    def __iter__(self) -> Iterator[str]:
        return iter(_EXPERIMENTS)

    def __len__(self) -> int:
        return len(_EXPERIMENTS)


#: Every experiment by the name ``subgame reproduce NAME`` takes; each is called as
#: ``run(full=..., seed=...)`` and returns an :class:`ExperimentResult`.
EXPERIMENTS: Mapping[str, Callable[..., ExperimentResult]] = _Experiments()


def __getattr__(name: str) -> Any:
    """A public name of the package (PEP 562), its module imported on first use; the experiments themselves are
    :data:`EXPERIMENTS`' (or their modules')."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{where}", __name__), name)


__all__ = ["EXPERIMENTS", *_WHERE]
