"""Re-solve a blueprint by depth-limited solving with multi-valued states, for both players.

:func:`depth_limited_resolve` is what ``subgame resolve --depth-limit`` and the
``depth-limited-values`` experiment run: at the game's start (or at each given public
state), for each player in turn, the depth-limited tree is solved against the other
player's K continuations, and her re-solved strategy replaces the blueprint's inside the
tree (2018 §4; the re-solver's own strategy below the depth limit stays the blueprint's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..errors import SubgameError
from ..games.base import Game
from ..resolving.solving import BlueprintValues, blueprint_values
from ..solve.cfr import CFR_PLUS, CFRConfig
from ..strategy import Strategy
from ..tree.part import Part, placed
from ..tree.public_tree import PublicKey, PublicTree
from .continuations import bias_continuations
from .leaf import LeafValues
from .solving import DepthLimitedSolution, RootGadgetKind, depth_limited_part, self_generative_continuations, solve_depth_limited
from .values import ExactValues, LeafValueSource, LeafValueTable, RolloutValues, TableValues
from .weakening import weaken

ContinuationKind = Literal["bias", "self-generative"]
CONTINUATIONS: tuple[str, ...] = ("bias", "self-generative")
VALUE_SOURCES: tuple[str, ...] = ("exact", "rollouts")


@dataclass(frozen=True)
class DepthLimitedSpec:
    """How to re-solve.

    Attributes:
        depth_limit: public depth of the cut below each root, or
        chance_limit: cut after this many public chance events (1: Leduc's second round).
        num_values: K, the opponent's continuations per leaf state.
        continuations: ``"bias"`` (blueprint, then biased toward each action class) or
            ``"self-generative"``.
        leaf_values: ``"exact"`` or ``"rollouts"`` (ignored when tables are given).
        rollouts: rollouts per leaf history and continuation.
        seed: of the rollouts.
        gadget: the root gadget at a root after the game's start.
        iterations: CFR iterations of each depth-limited solve.
        generation_iterations: of each solve of the self-generative loop (default ``iterations``).
        bias_factor: the bias approach's multiplier (10 in the paper).
        weaken: weaken continuations 1..K-1 to do no better than the blueprint against the
            re-solver's blueprint (§4; :func:`~.weakening.weaken`).
        config: the CFR update rule.
    """

    depth_limit: int | None = None
    chance_limit: int | None = None
    num_values: int = 4
    continuations: ContinuationKind = "bias"
    leaf_values: Literal["exact", "rollouts"] = "exact"
    rollouts: int = 3
    seed: int = 0
    gadget: RootGadgetKind = "resolve"
    iterations: int = 1000
    generation_iterations: int | None = None
    bias_factor: float = 10.0
    weaken: bool = False
    config: CFRConfig = CFR_PLUS

    def __post_init__(self) -> None:
        k = self.num_values
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise SubgameError(f"the number of values K must be a whole number >= 1, got {k!r}")
        if self.continuations not in CONTINUATIONS:
            raise SubgameError(f"unknown continuation set {self.continuations!r}; choose one of {', '.join(CONTINUATIONS)}")
        if self.leaf_values not in VALUE_SOURCES:
            raise SubgameError(f"unknown leaf values {self.leaf_values!r}; choose one of {', '.join(VALUE_SOURCES)}")
        if self.gadget not in ("resolve", "unsafe"):
            raise SubgameError(f"the depth-limited root gadget must be 'resolve' or 'unsafe', got {self.gadget!r}")


@dataclass(frozen=True, eq=False)
class DepthLimitedResult:
    """Both players re-solved in every depth-limited tree, combined with the blueprint elsewhere.

    Attributes:
        strategy: the combined strategy on the full tree.
        roots: the public state of each depth-limited tree (``()`` for the game's start).
        solutions: per root, player 0's then player 1's solution.
        tables: per re-solver, the leaf values used (all roots merged): a file of them
            (:func:`~.values.save_leaf_tables`) can replace the computation next time.
    """

    strategy: Strategy
    roots: tuple[PublicKey, ...]
    solutions: tuple[DepthLimitedSolution, ...]
    tables: tuple[LeafValueTable, ...]


def depth_limited_resolve(
    game: Game,
    full_tree: PublicTree,
    blueprint: Strategy,
    spec: DepthLimitedSpec,
    *,
    roots: Sequence[PublicKey] | None = None,
    tables: TableValues | None = None,
    on_solve: Callable[[int], None] | None = None,
) -> DepthLimitedResult:
    """Re-solve ``blueprint`` at the game's start (``roots=None``) or at each public state of ``roots``.

    Args:
        tables: stored leaf values to use instead of computing them (their first K
            values; the continuation set is then the table's).
        on_solve: called with the number of depth-limited solves done (progress).
    """
    blueprint.check(full_tree)
    bv = blueprint_values(full_tree, blueprint)
    source: LeafValueSource
    if spec.leaf_values == "rollouts":
        source = RolloutValues(game, full_tree, blueprint, spec.rollouts, spec.seed)
    else:
        source = ExactValues(game, full_tree, blueprint)
    starts: list[PublicKey | None] = [None] if roots is None else [tuple(r) for r in roots]
    out = blueprint
    sols: list[DepthLimitedSolution] = []
    used: list[list[LeafValueTable]] = [[], []]
    for key in starts:
        part = depth_limited_part(game, full_tree, public_state=key, depth_limit=spec.depth_limit,
                                  chance_limit=spec.chance_limit,
                                  leaf_histories=(spec.leaf_values == "rollouts" or spec.weaken) and tables is None)
        tree = part.tree
        for p in (0, 1):
            values = _values(full_tree, bv, part, p, spec, source, tables)
            if spec.weaken and tables is None:
                values = weaken(tree, values, blueprint_reach_in(full_tree, bv, part, p))
            sol = solve_depth_limited(part, values, blueprint=bv, gadget=spec.gadget, iterations=spec.iterations,
                                      config=spec.config)
            out = sol.into(full_tree, out)
            sols.append(sol)
            used[p].append(LeafValueTable.from_leaf_values(tree, values))
            if on_solve is not None:
                on_solve(len(sols))
    return DepthLimitedResult(
        Strategy(full_tree.game_id, out.probs, blueprint.meta),
        tuple(() if k is None else k for k in starts), tuple(sols),
        tuple(LeafValueTable.merge(u) for u in used),
    )


def blueprint_reach_in(full_tree: PublicTree, bv: BlueprintValues, tree: PublicTree | Part, player: int) -> np.ndarray:
    """[G_player] her blueprint reach (from the game's start) at each private state of ``tree`` (a part of ``full_tree``)."""
    return placed(full_tree, tree).restrict(bv.reach[player], player, axis="states")


def _values(full_tree: PublicTree, bv: BlueprintValues, part: Part, player: int, spec: DepthLimitedSpec,
            source: LeafValueSource, tables: TableValues | None) -> LeafValues:
    """The K leaf values for re-solver ``player`` in the depth-limited ``part``: stored, or of the spec's continuation set."""
    tree = part.tree
    if tables is not None:
        return tables.stored(tree, player, spec.num_values)
    if spec.continuations == "bias":
        conts = bias_continuations(full_tree, bv.blueprint, 1 - player, spec.num_values, factor=spec.bias_factor)
    else:
        conts = self_generative_continuations(
            full_tree, bv, part, player, source, spec.num_values,
            iterations=spec.generation_iterations or spec.iterations, config=spec.config, gadget=spec.gadget,
        )
    return source.leaf_values(tree, conts)
