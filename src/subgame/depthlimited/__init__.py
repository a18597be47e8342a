"""Depth-limited solving with multi-valued states (Brown, Sandholm & Amos 2018, §3–4, Appendix A).

* :class:`MultiValuedLeaf` / :class:`LeafValues` — the leaf plug-in: the opponent picks one
  of K continuations per leaf information set; values as K sparse bilinear operators.
* :class:`ExactValues`, :class:`RolloutValues`, :class:`TableValues` (:class:`LeafValueTable`)
  — leaf values behind one interface (:class:`LeafValueSource`).
* :func:`bias_continuations`, :func:`self_generative_continuations`,
  :func:`local_pure_continuations` — continuation sets.
* :func:`depth_limited_tree`, :func:`solve_depth_limited`, :func:`resolve_depth_limited`.
"""

from .continuations import action_classes, bias_continuations, biased, local_pure_continuations
from .leaf import LeafValues, MultiValuedLeaf
from .solving import (
    DepthLimitedSolution,
    depth_limited_tree,
    resolve_depth_limited,
    self_generative_continuations,
    solve_depth_limited,
)
from .values import Continuations, ExactValues, LeafValueSource, LeafValueTable, RolloutValues, TableValues

__all__ = [
    "Continuations", "DepthLimitedSolution", "ExactValues", "LeafValueSource", "LeafValueTable", "LeafValues",
    "MultiValuedLeaf", "RolloutValues", "TableValues", "action_classes", "bias_continuations", "biased",
    "depth_limited_tree", "local_pure_continuations", "resolve_depth_limited", "self_generative_continuations",
    "solve_depth_limited",
]
