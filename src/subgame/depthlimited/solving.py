"""Depth-limited solving with multi-valued states (Brown, Sandholm & Amos 2018, §4).

The re-solver ρ's strategy is computed in a depth-limited tree whose leaves are a
:class:`~.leaf.MultiValuedLeaf`: below the depth limit she plays her blueprint and the
opponent picks one of K continuations per leaf information set. At the game's start the
tree is solved as it is; rooted at a later public state the opponent's root range is set
by a root gadget of :mod:`subgame.resolving` (``"resolve"``: the constraint of Proposition 1,
her root values may not exceed those of a best response to the blueprint; ``"unsafe"``:
her blueprint range).

* :func:`depth_limited_tree` — compile the tree (root and depth limit), one clear error
  for a depth limit beyond the game; :func:`depth_limited_part` — the same tree as a part
  of the full game's tree, its maps carried from there.
* :func:`solve_depth_limited` — one solve for one re-solver.
* :func:`self_generative_continuations` — §4's self-generative continuation set.
* :meth:`DepthLimitedSolution.into` — a solution in place of the blueprint's rows; both
  players re-solved: :func:`~.resolve.depth_limited_resolve`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..errors import SubgameError
from ..eval.best_response import best_response, best_response_to_reach
from ..games.base import Game
from ..resolving.problem import SubgameSolution, resolve_subgame
from ..resolving.solving import BlueprintValues, blueprint_problem
from ..solve.cfr import CFR_PLUS, CFRConfig, CFRSolver
from ..strategy import Strategy
from ..tree.compile import compile_game
from ..tree.part import Part, compile_part, placed
from ..tree.public_tree import LEAF, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .leaf import LeafValues, MultiValuedLeaf
from .values import Continuations, LeafValueSource

RootGadgetKind = Literal["resolve", "unsafe"]


def depth_limited_tree(
    game: Game,
    *,
    public_state: Sequence[str] | None = None,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_histories: bool = False,
) -> PublicTree:
    """The depth-limited tree of ``game`` rooted at ``public_state`` (default: the start).

    Args:
        depth_limit: public depth below the root at which the tree is cut.
        chance_limit: or cut after this many public chance nodes below the root (1 from
            the game's start: at the start of Leduc's second round).
        leaf_histories: keep the leaf histories (for :class:`~.values.RolloutValues`).

    Raises:
        SubgameError: neither limit is given, or the limit leaves no leaf (it is beyond the game).
    """
    _check_limits(depth_limit, chance_limit)
    tree = compile_game(game, public_state=public_state, depth_limit=depth_limit, chance_limit=chance_limit,
                        leaf_histories=leaf_histories)
    _check_cut(game, tree, public_state, depth_limit, chance_limit)
    return tree


def depth_limited_part(
    game: Game,
    full_tree: PublicTree,
    *,
    public_state: Sequence[str] | None = None,
    depth_limit: int | None = None,
    chance_limit: int | None = None,
    leaf_histories: bool = False,
) -> Part:
    """:func:`depth_limited_tree` compiled as a part of ``full_tree`` (:func:`~subgame.tree.part.compile_part`):
    its maps into the full tree are made once and carried to every use.

    Raises:
        SubgameError: as :func:`depth_limited_tree`, or ``public_state`` is not a public state of ``full_tree``.
    """
    _check_limits(depth_limit, chance_limit)
    roots = None
    if public_state is not None:
        node = full_tree.node_of_key.get(tuple(public_state))
        if node is None:
            raise SubgameError(f"public state {list(public_state)!r} is not in the full tree of {game.name}")
        roots = [node]
    part = compile_part(game, full_tree, roots, depth_limit=depth_limit, chance_limit=chance_limit,
                        leaf_histories=leaf_histories)
    _check_cut(game, part.tree, public_state, depth_limit, chance_limit)
    return part


def _check_limits(depth_limit: int | None, chance_limit: int | None) -> None:
    if depth_limit is None and chance_limit is None:
        raise SubgameError("give a depth limit (depth_limit or chance_limit) for depth-limited solving")
    for name, x in (("depth_limit", depth_limit), ("chance_limit", chance_limit)):
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1):
            raise SubgameError(f"{name} must be a whole number >= 1, got {x!r}")


def _check_cut(game: Game, tree: PublicTree, public_state: Sequence[str] | None, depth_limit: int | None,
               chance_limit: int | None) -> None:
    if not np.any(tree.kind == LEAF):
        limit = f"depth limit {depth_limit}" if depth_limit is not None else f"chance limit {chance_limit}"
        raise SubgameError(f"{limit} is beyond the game: {game.name} below {list(public_state or [])!r} ends at "
                           f"public depth {tree.max_depth}, so nothing is cut off")


@dataclass(frozen=True, eq=False)
class DepthLimitedSolution:
    """The re-solver's strategy in a depth-limited tree.

    Attributes:
        tree: the depth-limited tree.
        part: ``tree`` as a part of the full tree, where it was compiled as one
            (:func:`depth_limited_part`; ``None``: placed where needed).
        player: ρ, the re-solver.
        probs: [I_dl, A] her average strategy at the tree's information sets.
        leaf: the multi-valued leaf after the solve (the opponent's picks).
        value: ρ's value in the depth-limited game when the opponent best-responds to
            ``probs`` (leaf picks included): minus the opponent's root best-response
            values, summed (at a later root, the gadget's alternatives are not counted).
        subgame: the re-solving record when the tree is rooted after the game's start.
        iterations: CFR iterations run.
        nash_conv: at the game's start, the gap of the solve in the depth-limited game:
            the opponent's best-response value against ``probs`` plus the re-solver's
            against the opponent's average strategy and average leaf picks, so the
            depth-limited game's value V for ρ has ``value <= V <= value + nash_conv``.
            ``None`` at a later root.
    """

    tree: PublicTree
    player: int
    probs: np.ndarray
    leaf: MultiValuedLeaf
    value: float
    subgame: SubgameSolution | None
    iterations: int
    nash_conv: float | None = None
    part: Part | None = None

    def into(self, full_tree: PublicTree, strategy: Strategy) -> Strategy:
        """``strategy`` (on the full tree) with the re-solver's rows replaced by this solution."""
        part = placed(full_tree, self.tree if self.part is None else self.part)
        return strategy.with_player(self.player, part.embed(strategy.probs[self.player], self.probs, self.player))


def _at_game_start(tree: PublicTree, blueprint: BlueprintValues | None) -> bool:
    roots = np.flatnonzero(tree.parent < 0)
    if blueprint is None:
        return True
    return roots.size == 1 and tree.public_key[roots[0]] == blueprint.tree.public_key[0]


def solve_depth_limited(
    tree: PublicTree | Part,
    values: LeafValues,
    *,
    blueprint: BlueprintValues | None = None,
    gadget: RootGadgetKind = "resolve",
    iterations: int = 1000,
    config: CFRConfig = CFR_PLUS,
) -> DepthLimitedSolution:
    """Solve the depth-limited tree for ``values.player`` against the multi-valued leaf.

    Args:
        tree: from :func:`depth_limited_tree`, or :func:`depth_limited_part` (its maps then serve the gadget
            and :meth:`DepthLimitedSolution.into`).
        values: the K leaf value operators (their ``player`` is the re-solver).
        blueprint: the blueprint's values on the full tree; needed when the tree is rooted
            after the game's start (her root range, the gadget's alternative payoffs).
            Without it the tree is solved as it is, both root reaches one.
        gadget: ``"resolve"`` or ``"unsafe"`` at a later root.
    """
    if gadget not in ("resolve", "unsafe"):
        raise SubgameError(f"the depth-limited root gadget must be 'resolve' or 'unsafe', got {gadget!r}")
    part, tree = (tree, tree.tree) if isinstance(tree, Part) else (None, tree)
    player, opp = values.player, values.opponent
    leaf = MultiValuedLeaf(tree, values)
    if _at_game_start(tree, blueprint):
        solver = CFRSolver(tree, config, leaves=(leaf,)).run(iterations)
        probs = solver.average_strategy().probs
        reach_p = forward_reach(tree, player, transition_weights(tree, player, probs[player]))
        both = [reach_p, reach_p]
        both[opp] = np.zeros(tree.players[opp].num_states)  # her leaf values read only the re-solver's reach
        cfv = leaf.values(opp, (both[0], both[1]), None)
        br = best_response_to_reach(tree, opp, reach_p, leaf_cfv=cfv, want_policy=False)
        reach_o = forward_reach(tree, opp, transition_weights(tree, opp, probs[opp]))
        both = [reach_o, reach_o]
        both[player] = reach_p
        mine = best_response_to_reach(tree, player, reach_o, leaf_cfv=leaf.evaluate(player, (both[0], both[1]), "average"),
                                      want_policy=False)
        return DepthLimitedSolution(tree, player, probs[player], leaf, -br.value, None, solver.iteration,
                                    br.value + mine.value, part)
    assert blueprint is not None  # for the type checker: _at_game_start is true without it
    problem = blueprint_problem(blueprint, placed(blueprint.tree, tree if part is None else part), player, gadget)
    sol = resolve_subgame(problem, iterations=iterations, config=config, leaves=(leaf,))
    return DepthLimitedSolution(tree, player, sol.probs, leaf, -float(sol.root_cbv.sum()), sol, iterations, part=part)


def self_generative_continuations(
    full_tree: PublicTree,
    blueprint: BlueprintValues,
    tree: PublicTree | Part,
    player: int,
    source: LeafValueSource,
    num_values: int,
    *,
    iterations: int = 500,
    config: CFRConfig = CFR_PLUS,
    gadget: RootGadgetKind = "resolve",
    on_round: Callable[[int], None] | None = None,
) -> Continuations:
    """The self-generative continuation set of the opponent of ``player`` (§4).

    It starts with the opponent's blueprint; then, until it holds ``num_values``
    strategies, the depth-limited tree is solved for ``player`` with the current set and
    the opponent's exact best response (in the full game, to ``player``'s depth-limited
    solution inside the tree and her blueprint elsewhere) is added. The paper approximates
    that best response; on games whose tree fits we compute it exactly.
    """
    if isinstance(num_values, bool) or not isinstance(num_values, (int, np.integer)) or num_values < 1:
        raise SubgameError(f"the number of values K must be a whole number >= 1, got {num_values!r}")
    opp = 1 - player
    bp = blueprint.blueprint
    cut = tree.tree if isinstance(tree, Part) else tree
    conts = Continuations(opp, (bp.probs[opp],), ("blueprint",))
    while conts.num_values < num_values:
        sol = solve_depth_limited(tree, source.leaf_values(cut, conts), blueprint=blueprint, gadget=gadget,
                                  iterations=iterations, config=config)
        br = best_response(full_tree, sol.into(full_tree, bp), opp)
        conts = conts.add(br.policy, f"best response {conts.num_values}")
        if on_round is not None:
            on_round(conts.num_values)
    return conts
