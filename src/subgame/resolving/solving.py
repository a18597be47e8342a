"""Subgame solving: re-solve a blueprint below public states with a safe or unsafe gadget.

Methods (``method=``), with the paper and section each comes from:

=============================  ==============================================================
``unsafe``                     opponent's root range fixed to the blueprint's (safe-and-nested §4.1)
``resolve``                    follow/terminate gadget, terminate worth the opponent's
                               counterfactual best-response value (CBV) against the blueprint
                               (§4.2; decomposition paper, "Subgame Strategy Re-Solving")
``maxmargin``                  maximize the minimum margin CBV − new CBV (§4.2, Moravčík et al. 2016)
``reach-resolve``,             as above with alternative payoffs raised by the gifts of eq. (1),
``reach-maxmargin``            split over the subgames that share them (§5)
``*-nosplit``                  gifts not split: every descendant root infoset gets the whole gift,
                               or ``gift_scale`` × its split share (§5, Table 1 "no split")
``estimate``                   max-margin gadget with the blueprint's own counterfactual value as
                               the alternative payoff (§5 last paragraph, Appendix C)
``distributional``             estimate with a random alternative payoff, see
                               :class:`~subgame.resolving.gadgets.DistributionalGadget`
``reach-estimate-distributional[-nosplit]``  the two combined with gifts (Table 1)
=============================  ==============================================================

All subgames rooted at the given public states are compiled into one forest and solved
together: they share no information set, so this is exactly one independent solve per
subgame, at the cost of one vectorized CFR run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

import numpy as np

from ..errors import SubgameError
from ..eval.best_response import best_response_to_reach, checked_root_reach, counterfactual_values, profile_reaches
from ..games.base import Game
from ..solve.cfr import CFR_PLUS, CFRConfig
from ..strategy import Strategy
from ..tree.part import Part, compile_part
from ..tree.public_tree import CHANCE_NODE, TERMINAL_NODE, PublicTree
from ..tree.sweep import sequence_values
from .problem import GadgetKind, GadgetSpec, SubgameProblem, SubgameSolution, resolve_subgame


@dataclass(frozen=True)
class Method:
    """A subgame-solving method of the safe-and-nested paper as data.

    Attributes:
        gadget: the root gadget kind (:data:`~subgame.resolving.problem.GADGETS`).
        alt: which blueprint value the opponent's alternative payoff starts from: her
            counterfactual best-response value (``"cbv"``) or her counterfactual value
            under the blueprint (``"cfv"``, the estimate of §5).
        gifts: raise the alternative payoffs by the gifts of eq. (1), ``"split"`` over the
            subgames that share them or given ``"whole"`` to each (§5, Table 1 "no split").
        safe: whether the paper proves it never raises exploitability.
    """

    gadget: GadgetKind
    alt: Literal["cbv", "cfv"] = "cbv"
    gifts: Literal["none", "split", "whole"] = "none"
    safe: bool = False


METHODS: dict[str, Method] = {
    "unsafe": Method("unsafe"),
    "resolve": Method("resolve", safe=True),
    "maxmargin": Method("maxmargin", safe=True),
    "reach-resolve": Method("resolve", gifts="split", safe=True),
    "reach-maxmargin": Method("maxmargin", gifts="split", safe=True),
    "reach-resolve-nosplit": Method("resolve", gifts="whole"),
    "reach-maxmargin-nosplit": Method("maxmargin", gifts="whole"),
    "estimate": Method("maxmargin", alt="cfv"),
    "distributional": Method("distributional", alt="cfv"),
    "reach-estimate-distributional": Method("distributional", alt="cfv", gifts="split"),
    "reach-estimate-distributional-nosplit": Method("distributional", alt="cfv", gifts="whole"),
}
SAFE_METHODS = tuple(name for name, m in METHODS.items() if m.safe)


@dataclass(frozen=True)
class SubgameParams:
    """Tunable details the papers leave open.

    Attributes:
        gift_scale: for ``*-nosplit`` methods: ``None`` gives every descendant root
            infoset the whole gift; a number multiplies the split share instead.
        spread, step: of the distributional gadget (see its docstring).
    """

    gift_scale: float | None = None
    spread: float = 0.5
    step: float = 0.1


def subgame_roots(tree: PublicTree) -> list[int]:
    """Public nodes that start a betting round: non-terminal children of public chance nodes."""
    parent_kind = np.where(tree.parent >= 0, tree.kind[np.maximum(tree.parent, 0)], -1)
    return [int(n) for n in np.flatnonzero((parent_kind == CHANCE_NODE) & (tree.kind != TERMINAL_NODE))]


def subgame_forest(game: Game, tree: PublicTree, roots: Sequence[int] | None = None) -> Part:
    """The subgames rooted at public nodes ``roots`` of ``tree`` (default :func:`subgame_roots`), compiled as one forest, a part of ``tree``."""
    return compile_part(game, tree, subgame_roots(tree) if roots is None else roots)


@dataclass(frozen=True, eq=False)
class BlueprintValues:
    """What every gadget needs from the blueprint on the full tree, computed once.

    Arrays are over each player's private states [G_p] of the full tree. The reaches and
    best-response values are computed at once; the blueprint's own counterfactual values and
    the gifts only when a method asks (estimate reads the first, reach methods the second).
    """

    tree: PublicTree
    blueprint: Strategy
    reach: tuple[np.ndarray, np.ndarray]  #: own reach under the blueprint
    cbv: tuple[np.ndarray, np.ndarray]  #: counterfactual best-response values against it
    root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)  #: each player's reach of the root states

    @cached_property
    def cfv(self) -> tuple[np.ndarray, np.ndarray]:
        """Counterfactual values under the blueprint."""
        return counterfactual_values(self.tree, self.blueprint, root_reach=self.root_reach)

    @cached_property
    def gift(self) -> tuple[np.ndarray, np.ndarray]:
        """[I, A] per player the lower bound of each action's gift, §5 (:func:`action_gifts`)."""
        return action_gifts(self.tree, 0, self.cbv[0]), action_gifts(self.tree, 1, self.cbv[1])


def blueprint_values(tree: PublicTree, blueprint: Strategy,
                     root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None)) -> BlueprintValues:
    """The blueprint's reaches and values on ``tree``; on a part of a game (a forest), from each player's
    ``root_reach`` of its root private states (the reaches and chance above it)."""
    blueprint.check(tree)
    root_reach = checked_root_reach(tree, root_reach)
    _, reach = profile_reaches(tree, blueprint, root_reach)
    cbv = (best_response_to_reach(tree, 0, reach[1], want_policy=False).cbv,
           best_response_to_reach(tree, 1, reach[0], want_policy=False).cbv)
    return BlueprintValues(tree, blueprint, reach, cbv, root_reach)


def action_gifts(tree: PublicTree, player: int, cbv: np.ndarray) -> np.ndarray:
    """[I, A] a lower bound of the gift of each of ``player``'s actions (§5): what her best action into a terminal
    node is worth above it, by her counterfactual best-response values ``cbv`` [G_player]."""
    pa = tree.players[player]
    action_cbv = sequence_values(tree, player, cbv)
    flat = np.zeros(pa.legal.size, dtype=bool)
    idx, seq = tree.plan.actor_idx[player], tree.plan.actor_seq[player]
    flat[seq] = tree.kind[pa.node[idx]] == TERMINAL_NODE
    to_terminal = flat.reshape(pa.legal.shape)
    best_terminal = np.where(to_terminal & pa.legal, action_cbv, -np.inf).max(axis=1, keepdims=True)
    return np.where(pa.legal, np.maximum(best_terminal, action_cbv) - action_cbv, 0.0)


def gift_totals(bv: BlueprintValues, player: int, roots: Sequence[int] | np.ndarray, split: bool, scale: float | None) -> np.ndarray:
    """[G_player] sum of the gifts on the path to each private state (eq. 1 of §5): :func:`path_gifts` of ``bv``."""
    return path_gifts(bv.tree, bv.gift[player], player, roots, split, scale)


def path_gifts(tree: PublicTree, gift: np.ndarray, player: int, roots: Sequence[int] | np.ndarray, split: bool,
               scale: float | None, per_root: float = 1.0) -> np.ndarray:
    """[G_player] sum of the gifts ``gift`` [I, A] (:func:`action_gifts`) on the path to each private state.

    With ``split`` the gift of an earlier action is shared equally among the root
    information sets (of all ``roots``) that descend from it, so the raised alternative
    payoffs can never add up to more than the gift; without it each descendant gets the
    whole gift (or ``scale`` times its share). ``per_root``: root information sets each
    private state at a root stands for (a trunk's chance-node state stands for one per board).
    """
    pa = tree.players[player]
    plan = tree.plan
    at_root = per_root * np.isin(pa.node, np.asarray(roots)).astype(float)
    below = at_root.copy()
    for lv in reversed(plan.levels[player]):
        below[lv.plo : lv.phi] += np.bincount(lv.parent_local, weights=below[lv.lo : lv.hi], minlength=lv.phi - lv.plo)
    count = np.bincount(plan.actor_seq[player], weights=below[plan.actor_idx[player]], minlength=pa.legal.size)
    gift = gift.ravel()
    share = np.divide(gift, count, out=np.zeros_like(gift), where=count > 0)
    if not split:
        share = gift.copy() if scale is None else share * scale
    total = np.zeros(pa.num_states)
    step = np.zeros(pa.num_states)
    step[plan.actor_idx[player]] = share[plan.actor_seq[player]]
    for lv in plan.levels[player]:
        total[lv.lo : lv.hi] = total[pa.parent[lv.lo : lv.hi]] + step[lv.lo : lv.hi]
    return total


def blueprint_problem(
    bv: BlueprintValues,
    forest: Part,
    player: int,
    method: str,
    params: SubgameParams = SubgameParams(),
    gifts_above: np.ndarray | None = None,
) -> SubgameProblem:
    """The problem of re-solving ``player``'s blueprint in ``forest`` (subgames of the blueprint's tree, :func:`subgame_forest`).

    Her root range is her blueprint reach; the opponent's alternative payoffs are her
    blueprint values that ``method`` names (with the gifts of §5 when it says so).
    ``gifts_above`` [R_opp]: where ``bv`` is of a part of a game (a flop's forest), the gifts
    of the opponent's actions above it (a trunk's, :func:`path_gifts`), added where the method takes gifts.
    """
    spec = METHODS.get(method)
    if spec is None:
        raise SubgameError(f"unknown subgame-solving method {method!r}; methods are: {', '.join(METHODS)}")
    if player not in (0, 1):
        raise SubgameError(f"the re-solving player must be 0 or 1, got {player!r}")
    opp = 1 - player
    cbv, est = forest.at_roots(bv.cbv[opp], opp), forest.at_roots(bv.cfv[opp], opp)
    if spec.gifts != "none":
        gifts = forest.at_roots(gift_totals(bv, opp, forest.roots, split=spec.gifts == "split", scale=params.gift_scale), opp)
        if gifts_above is not None:
            gifts = gifts + gifts_above
        cbv, est = cbv + gifts, est + gifts
    alt = est if spec.alt == "cfv" else cbv
    return SubgameProblem(
        forest, player, forest.at_roots(bv.reach[player], player),
        np.full(len(cbv), np.nan) if spec.gadget == "unsafe" else alt,
        GadgetSpec(spec.gadget, params.spread, params.step),
        opponent_reach=forest.at_roots(bv.reach[opp], opp), alt_upper=cbv,
    )


def solve_subgames(
    game: Game,
    bv: BlueprintValues,
    roots: Sequence[int],
    player: int,
    method: str,
    *,
    iterations: int = 1000,
    config: CFRConfig = CFR_PLUS,
    params: SubgameParams = SubgameParams(),
    forest: Part | None = None,
) -> SubgameSolution:
    """Re-solve ``player``'s blueprint strategy in the subgames rooted at public nodes ``roots``.

    Args:
        game: the game ``bv.tree`` was compiled from.
        bv: blueprint values from :func:`blueprint_values`.
        roots: public nodes of ``bv.tree`` (one independent subgame each).
        player: the re-solving player; the other one is the gadget player.
        method: one of :data:`METHODS`.
        forest: the compiled forest, if already at hand (it depends only on ``roots``).
    """
    if method not in METHODS:
        raise SubgameError(f"unknown subgame-solving method {method!r}; methods are: {', '.join(METHODS)}")
    forest = forest or subgame_forest(game, bv.tree, roots)
    return resolve_subgame(blueprint_problem(bv, forest, player, method, params), iterations=iterations, config=config)


def public_node(tree: PublicTree, public_state: Sequence[str] | int) -> int:
    """The non-terminal public node of ``tree`` named by a public observation sequence or a node index."""
    if isinstance(public_state, (int, np.integer)):
        node = int(public_state)
        if not 0 <= node < tree.num_nodes:
            raise SubgameError(f"public node {node} is not in the tree (it has {tree.num_nodes} nodes)")
    else:
        node = tree.node_of_key.get(tuple(public_state), -1)
        if node < 0:
            raise SubgameError(f"no public state {list(public_state)!r} in the tree")
    if tree.kind[node] == TERMINAL_NODE:
        raise SubgameError(f"public state {list(tree.public_key[node])!r} is terminal: there is nothing to re-solve")
    return node


def resolve_all(
    game: Game,
    tree: PublicTree,
    blueprint: Strategy,
    method: str,
    *,
    roots: Sequence[int] | None = None,
    iterations: int = 1000,
    config: CFRConfig = CFR_PLUS,
    params: SubgameParams = SubgameParams(),
    values: BlueprintValues | None = None,
    forest: Part | None = None,
) -> Strategy:
    """Apply ``method`` independently to every subgame at ``roots`` for both players.

    Each player's strategy inside the subgames comes from the solve in which she is the
    re-solver; outside them the blueprint is kept. This combined strategy is what the
    papers' exploitability tables measure. ``values`` (of this blueprint) and ``forest``
    (of these roots) may be passed in when several methods are applied to one blueprint.
    """
    roots = subgame_roots(tree) if roots is None else list(roots)
    if not roots:
        raise SubgameError(f"{tree.game_name}: no subgame to re-solve (no public state starts a betting round after a "
                           "public chance event); give the roots, e.g. the public nodes of one depth")
    bv = values if values is not None else blueprint_values(tree, blueprint)
    if bv.blueprint is not blueprint:
        raise SubgameError("the blueprint values given were computed for another blueprint")
    forest = forest or subgame_forest(game, tree, roots)
    out = blueprint
    for p in (0, 1):
        sol = solve_subgames(game, bv, roots, p, method, iterations=iterations, config=config, params=params, forest=forest)
        out = out.with_player(p, sol.into(out.probs[p]))
    return Strategy(tree.game_id, out.probs, replace(blueprint.meta, resolved=method, subgame_iterations=iterations))

