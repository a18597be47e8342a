"""Nested subgame solving for off-tree actions (Brown & Sandholm 2017, §6).

A blueprint is computed in a bet abstraction (:mod:`.translation`). When the opponent takes
an action ``a`` outside it at public state ``h``, the responder builds a subgame of the real
game and re-solves it through the one re-solver (:class:`~.problem.SubgameProblem`,
:func:`~.problem.resolve_subgame`):

* **inexpensive**: the subgame rooted right after the off-tree action, ``h·a``; the
  opponent's alternative payoff at ``I·a`` is ``C̃BV(I)``, her counterfactual best-response
  value at ``I`` (at ``h``, before ``a``) against the current strategy while she is
  constrained to the current abstraction (which lacks ``a``; footnote 4 of §6 explains why
  ``I`` and not ``I·a``). Unsafe solving does not combine with it (§6).
* **expensive**: the subgame rooted at ``h`` itself, with all of her actions there (``a``
  added), and the same alternative payoffs; any gadget, unsafe included (her root range is
  then her reach under the current strategy at ``h``).

The subgame's own abstraction has no further off-tree actions; the solution joins the
current strategy (the "expanded abstraction" now contains ``a`` at ``h``) and the process
repeats when she goes off-tree again below. As in play, a re-solve is used only after the
off-tree action it answers: the expensive solve's strategy for her other actions at ``h``
is discarded. :func:`nested_strategy` meets every off-tree public state this way, level by
level (a level's subgames are disjoint and do not see each other, as in play), and returns
the responder's full strategy of the real game, so its exploitability is exact.

Reach methods raise the alternative payoffs by the opponent's gifts on the path to ``h``
(§5), split over all subgames solved at one level.

Guarantees: with C̃BV the paper relaxes safety (§6): exploitability depends on how well
C̃BV approximates the opponent's value against an equilibrium. What remains is checked by
:attr:`NestedResult.slack`: where every re-solve keeps its margins non-negative, the
opponent's best response in the real game is worth no more than hers in the abstraction.
Nothing guarantees a result below translation's; the experiment measures it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from ..errors import IllegalActionError, SubgameError
from ..games.base import Game
from ..solve.cfr import CFR_PLUS, CFRConfig
from ..strategy import Strategy
from ..tree.part import Part, at_or_below, compile_part
from ..tree.public_tree import CHANCE_NODE, DECISION, PublicKey, PublicTree
from .problem import GadgetKind, GadgetSpec, SubgameProblem, SubgameSolution, problem_key, resolve_subgame
from .solving import METHODS, BlueprintValues, blueprint_values, gift_totals
from .translation import BetAbstraction, node_actions, node_actions_legal, restrict

Root = Literal["inexpensive", "expensive"]

#: The subgame-solving methods nested solving takes (those of :data:`~.solving.METHODS` whose
#: alternative payoff is a counterfactual best-response value).
NESTED_METHODS: tuple[str, ...] = ("unsafe", "resolve", "maxmargin", "reach-resolve", "reach-maxmargin")


@dataclass(frozen=True)
class NestedResult:
    """The responder's real-game strategy after nested solving.

    Attributes:
        probs: [I, A] the responder's strategy over the real tree's information sets.
        subgames: number of subgames solved (one per off-tree public state).
        levels: nesting depth reached (how many off-tree actions in a row were answered).
        slack: Σ over the solves' root information sets of max(0, −margin), in chips
            (counterfactual; 0 for unsafe, which has no alternative payoffs): how much more
            than her alternative payoffs the opponent can get after off-tree actions. Her
            best-response value in the real game exceeds her best-response value against
            the blueprint in the abstraction by at most this (plus the gifts of the reach
            methods), by induction over the levels: the guarantee §6 keeps with C̃BV.
        cut_short: a stop signal ended a re-solve before its iterations (the strategy is not the one asked for).
    """

    probs: np.ndarray
    subgames: int
    levels: int
    slack: float = 0.0
    cut_short: bool = False


def reachable(tree: PublicTree) -> np.ndarray:
    """[N] bool: public nodes reachable from the root through legal actions of ``tree``."""
    acts, legal = node_actions(tree), node_actions_legal(tree)
    ok = np.zeros(tree.num_nodes, dtype=bool)
    ok[tree.parent < 0] = True
    node_of = tree.node_of_key
    for n in range(tree.num_nodes):
        if not ok[n]:
            continue
        if tree.kind[n] == CHANCE_NODE:
            ok[tree.parent == n] = True
        elif tree.kind[n] == DECISION and acts[n] is not None:
            names = acts[n][1]  # type: ignore[index]
            for k in np.flatnonzero(legal[n]):
                ok[node_of[tree.public_key[n] + (names[k],)]] = True
    return ok


def off_tree_points(real: PublicTree, current: PublicTree, opponent: int) -> list[tuple[int, list[int]]]:
    """``(h, [children h·a])`` for each opponent decision node reachable in ``current`` where
    the real game has actions ``current`` lacks, in breadth-first order."""
    live = reachable(current)
    acts, real_legal, cur_legal = node_actions(real), node_actions_legal(real), node_actions_legal(current)
    out = []
    for n in map(int, np.flatnonzero(live & (real.kind == DECISION) & (real.actor == opponent))):
        extra = np.flatnonzero(real_legal[n] & ~cur_legal[n])
        if extra.size:
            names = acts[n][1]  # type: ignore[index]
            out.append((n, [real.node_of_key[real.public_key[n] + (names[k],)] for k in extra]))
    return out


@dataclass(frozen=True, eq=False)
class WaveSolution:
    """What nested solving keeps of the re-solve at one wave of off-tree points: the responder's strategy there, the
    sum of its margins' shortfalls, and for unsafe the opponent's mirror strategy (not the forests: a flop's many
    re-solves would hold memory that the next one could reuse)."""

    probs: np.ndarray
    shortfall: float
    iterations: int
    mirror: np.ndarray | None = None


#: Re-solves made on one tree by :func:`nested_strategy`, by problem.
WaveSolutions = dict[tuple[object, ...], WaveSolution]


def nested_strategy(
    game: Game,
    tree: PublicTree,
    abstraction: BetAbstraction,
    blueprint: Strategy,
    responder: int,
    method: str,
    *,
    root: Root = "inexpensive",
    iterations: int = 500,
    config: CFRConfig = CFR_PLUS,
    root_reach: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
    solved: WaveSolutions | None = None,
) -> NestedResult:
    """The real-game strategy of ``responder`` who answers every off-tree action by nested solving.

    Args:
        game, tree: the real game and its compiled tree, or a part of it (a forest: each
            flop's subgames of a game cut at the flop) with each player's ``root_reach`` of
            its root private states under the blueprint above it.
        abstraction: the bet abstraction ``blueprint`` was solved in.
        blueprint: a strategy on ``tree`` playing only abstract actions (both players).
        responder: the player who uses the abstraction and re-solves.
        method: one of :data:`NESTED_METHODS`.
        root: ``"inexpensive"`` (subgame after the off-tree action) or ``"expensive"``
            (subgame at the state before it); ``unsafe`` needs ``"expensive"`` (§6).
        iterations, config: of each re-solve.
        solved: re-solves made on this ``tree`` before (filled in): a problem met again, at the
            same off-tree points with the same gadget and root arrays, is not solved again; so
            reach-maxmargin where every gift is zero takes maxmargin's solutions, bit for bit.

    Raises:
        SubgameError: an unknown method or root, unsafe with the inexpensive root, a
            blueprint that plays an off-tree action.
    """
    _check(method, root)
    if responder not in (0, 1):
        raise SubgameError(f"the responder must be player 0 or 1, got {responder!r}")
    spec = METHODS[method]
    opp = 1 - responder
    base = restrict(game, tree, abstraction)
    blueprint.check(base)
    sigma = [blueprint.probs[0].copy(), blueprint.probs[1].copy()]
    opened: set[PublicKey] = set()
    count, level, slack, ran = 0, 0, 0.0, iterations
    while True:
        current = restrict(game, tree, abstraction, open_at=opened)
        points = off_tree_points(tree, current, opp)
        if not points:
            break
        level += 1
        bv = blueprint_values(current, Strategy(tree.game_id, (sigma[0], sigma[1])), root_reach)
        waves = [points] if root == "inexpensive" else _antichains(tree, points)
        gifts = None
        if spec.gifts != "none":
            gifts = gift_totals(bv, opp, [h for h, _ in points], split=spec.gifts == "split", scale=None)
        for wave in waves:
            problem = _wave_problem(game, tree, abstraction, bv, gifts, wave, opened, responder, spec.gadget, root)
            key = (root, iterations, config, tuple(sorted(opened)), tuple((h, tuple(cs)) for h, cs in wave),
                   problem_key(problem))
            wave_solution = None if solved is None else solved.get(key)
            if wave_solution is None:
                wave_solution = _solve_wave(problem, iterations, config)
                if solved is not None and wave_solution.iterations == iterations:
                    solved[key] = wave_solution  # a re-solve a stop signal cut short is not one to take again
            ran = min(ran, wave_solution.iterations)
            slack += wave_solution.shortfall
            below = [c for _, cs in wave for c in cs]
            _write(sigma, responder, wave_solution.probs, problem.part, below, [])
            if wave_solution.mirror is not None:
                _write(sigma, opp, wave_solution.mirror, problem.part, below, [h for h, _ in wave])
            count += len(wave)
        opened |= {tree.public_key[h] for h, _ in points}
    return NestedResult(sigma[responder], count, level, slack, ran < iterations)


def _solve_wave(problem: SubgameProblem, iterations: int, config: CFRConfig) -> WaveSolution:
    """The re-solve of one wave; for unsafe also the opponent's strategy there, which decides her reach at deeper
    off-tree points. Unsafe fixes both root ranges, so its one run is her re-solve too: her average strategy is the
    one a re-solve of hers would give, bit for bit (``tests/resolving/test_nested.py``)."""
    sol = resolve_subgame(problem, iterations=iterations, config=config)
    if problem.gadget.kind != "unsafe":
        return WaveSolution(sol.probs, float(np.maximum(0.0, -sol.margins).sum()), sol.iterations)
    return WaveSolution(sol.probs, 0.0, sol.iterations, sol.opponent_probs)


def _wave_problem(
    game: Game, tree: PublicTree, abstraction: BetAbstraction, bv: BlueprintValues, gifts: np.ndarray | None,
    wave: Sequence[tuple[int, list[int]]], opened: set[PublicKey], responder: int, gadget: GadgetKind, root: Root,
) -> SubgameProblem:
    """The re-solving problem at the off-tree points of ``wave`` (disjoint subgames, one forest)."""
    opp = 1 - responder
    inexpensive = root == "inexpensive"
    roots = [c for _, cs in wave for c in cs] if inexpensive else [h for h, _ in wave]
    open_here = opened | {tree.public_key[h] for h, _ in wave}
    forest = compile_part(game, tree, roots)
    forest = replace(forest, tree=restrict(game, forest.tree, abstraction, open_at=open_here))
    # the inexpensive root reads C̃BV and the reaches before the off-tree action: the public
    # action leaves a private state's observations as they were, so that is the root state's parent
    at = [tree.players[q].parent[g] if inexpensive else g for q, g in enumerate(forest.root_states)]
    alt = bv.cbv[opp][at[opp]] + (0.0 if gifts is None else gifts[at[opp]])
    return SubgameProblem(
        forest, responder, bv.reach[responder][at[responder]],
        np.full(len(at[opp]), np.nan) if gadget == "unsafe" else alt,
        GadgetSpec(gadget), opponent_reach=bv.reach[opp][at[opp]], alt_upper=alt,
    )


def solve_off_tree(
    game: Game,
    tree: PublicTree,
    abstraction: BetAbstraction,
    blueprint: Strategy,
    public_state: Sequence[str],
    action: str,
    method: str,
    *,
    root: Root = "inexpensive",
    iterations: int = 500,
    config: CFRConfig = CFR_PLUS,
) -> SubgameSolution:
    """Answer one off-tree action ``action`` (its public name, e.g. ``r5``) taken at ``public_state``.

    The responder is the player who does not act there; the current strategy is
    ``blueprint`` (first-level nested solving, §6). The expensive root opens every real
    action of hers at ``public_state``.

    Raises:
        SubgameError: ``public_state`` is not a decision node of the abstraction, the
            action is in the abstraction, or the method/root is unknown or incompatible.
        IllegalActionError: ``action`` is not legal there in the real game.
    """
    _check(method, root)
    node = tree.node_of_key.get(tuple(public_state), -1)
    if node < 0 or tree.kind[node] != DECISION:
        raise SubgameError(f"no decision node at public state {list(public_state)!r}")
    names = node_actions(tree)[node][1]  # type: ignore[index]
    if action not in names:
        raise IllegalActionError(f"{action!r} is not legal at public state {list(public_state)!r}; legal: {', '.join(names)}")
    base = restrict(game, tree, abstraction)
    if not reachable(base)[node]:
        raise SubgameError(f"public state {list(public_state)!r} is not in the abstraction; answer the off-tree action before it first")
    if node_actions_legal(base)[node][names.index(action)]:
        raise SubgameError(f"{action!r} at {list(public_state)!r} is in the abstraction: there is nothing to answer")
    blueprint.check(base)
    opp = int(tree.actor[node])
    spec = METHODS[method]
    bv = blueprint_values(base, blueprint)
    gifts = gift_totals(bv, opp, [node], split=spec.gifts == "split", scale=None) if spec.gifts != "none" else None
    child = tree.node_of_key[tuple(public_state) + (action,)]
    problem = _wave_problem(game, tree, abstraction, bv, gifts, [(node, [child])], set(), 1 - opp, spec.gadget, root)
    return resolve_subgame(problem, iterations=iterations, config=config)


def _check(method: str, root: str) -> None:
    if method not in NESTED_METHODS:
        raise SubgameError(f"unknown nested-solving method {method!r}; methods are: {', '.join(NESTED_METHODS)}")
    if root not in ("inexpensive", "expensive"):
        raise SubgameError(f"root must be 'inexpensive' or 'expensive', got {root!r}")
    if method == "unsafe" and root == "inexpensive":
        raise SubgameError("unsafe solving needs the expensive root: the blueprint never reaches an off-tree action (§6)")


def _write(sigma: list[np.ndarray], player: int, probs: np.ndarray, part: Part, below: Sequence[int], at: Sequence[int]) -> None:
    """Copy the rows of ``probs`` (over ``part``'s information sets) whose public node is at or under one of the parent's
    nodes ``below`` (or is one of ``at``)."""
    tree = part.tree
    under = at_or_below(tree, np.flatnonzero(np.isin(part.node, np.asarray(below, dtype=np.int64))))
    under |= np.isin(part.node, np.asarray(at, dtype=np.int64))
    pa = tree.players[player]
    take = under[pa.node[pa.infoset_priv]]
    if take.any():
        sigma[player] = part.embed(sigma[player], probs, player, only=take)


def _antichains(tree: PublicTree, points: list[tuple[int, list[int]]]) -> list[list[tuple[int, list[int]]]]:
    """Split off-tree points into waves in which no point lies below another (their subgames are disjoint)."""
    left = list(points)
    waves = []
    while left:
        keys = [tree.public_key[h] for h, _ in left]
        top = [pt for pt, k in zip(left, keys) if not any(len(o) < len(k) and k[: len(o)] == o for o in keys)]
        waves.append(top)
        left = [pt for pt in left if pt not in top]
    return waves

