"""Depth-limited solving with multi-valued states (Brown, Sandholm & Amos 2018, §3–4, Appendix A).

* :class:`MultiValuedLeaf` / :class:`LeafValues` — the leaf plug-in: the opponent picks one
  of K continuations per leaf information set; values as K sparse bilinear operators.
* :class:`ExactValues`, :class:`RolloutValues`, :class:`TableValues` (:class:`LeafValueTable`)
  — leaf values behind one interface (:class:`LeafValueSource`); :class:`NetworkValues`, a
  small numpy value network trained on exact values, with a held-out error.
* :func:`bias_continuations`, :func:`self_generative_continuations`,
  :func:`local_pure_continuations` — continuation sets.
* :func:`depth_limited_tree` (:func:`depth_limited_part`: as a part of the full tree), :func:`solve_depth_limited`.
* :func:`weaken` — §4's correction of generated continuations.
* :func:`depth_limited_resolve` / :class:`DepthLimitedSpec` — both players re-solved at the
  game's start or at given public states, as ``subgame resolve --depth-limit`` runs it.
"""

from .blueprint_resolve import CONTINUATIONS, DepthLimitedResult, DepthLimitedSpec, depth_limited_resolve
from .continuations import action_classes, bias_continuations, biased, local_pure_continuations
from .leaf import LeafValues, MultiValuedLeaf
from .network import NetworkReport, NetworkValues
from .solving import (
    DepthLimitedSolution,
    depth_limited_part,
    depth_limited_tree,
    self_generative_continuations,
    solve_depth_limited,
)
from .values import (
    Continuations,
    ExactValues,
    LeafValueSource,
    LeafValueTable,
    RolloutValues,
    TableValues,
    load_leaf_tables,
    save_leaf_tables,
)
from .weakening import leaf_chance, weaken

__all__ = [
    "CONTINUATIONS", "DepthLimitedResult", "DepthLimitedSpec", "depth_limited_resolve",
    "Continuations", "DepthLimitedSolution", "ExactValues", "LeafValueSource", "LeafValueTable", "LeafValues",
    "MultiValuedLeaf", "NetworkReport", "NetworkValues", "RolloutValues", "TableValues", "action_classes", "bias_continuations", "biased",
    "depth_limited_part", "depth_limited_tree", "local_pure_continuations", "self_generative_continuations",
    "leaf_chance", "load_leaf_tables", "save_leaf_tables", "solve_depth_limited", "weaken",
]
