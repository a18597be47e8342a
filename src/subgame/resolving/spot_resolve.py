"""Safe re-solving of a hold'em spot against a coarser blueprint (Brown & Sandholm 2017, §3–5).

Libratus re-solved its turn and river endgames in a finer action abstraction than its
blueprint's, with the blueprint's reaches as the players' ranges and the blueprint's values
as the opponent's alternative payoffs at the root. Here the blueprint of a spot is a solve of
the same spot in a coarser bet abstraction (``coarse``, e.g. bets of 1 pot and all-in); the
alternative payoff of each opponent hand is her counterfactual best-response value against
that blueprint *in the coarse abstraction* (the C̃BV the nested-solving paper's inexpensive
method uses, §6). Each player is then re-solved in the fine abstraction:

* ``unsafe``: the opponent's range fixed to her reach (what :func:`solve_spot` does);
* ``resolve``: the follow/terminate gadget (Burch et al. 2014; safe-and-nested §4);
* ``maxmargin``: the max-margin gadget (Moravčík et al. 2016; safe-and-nested §4).

The re-solves of the two players make one profile of the fine spot, evaluated exactly under
the spot's ranges. Margins ``alt − CBV_new`` per opponent hand say whether the re-solved
strategy gives any opponent hand more than the blueprint did (in the coarse abstraction a
negative margin is an unsafe step; the fine abstraction gives the opponent more bets, so the
re-solver must hold her to the blueprint's values with them).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import GameDefinitionError
from ..eval.best_response import best_response_to_reach
from ..games.poker.holdem import BetSizing
from ..solve.cfr import CFR_PLUS, CFRConfig
from ..strategy import Strategy
from ..tree.sweep import forward_reach, transition_weights
from .problem import GadgetKind, GadgetSpec, SubgameProblem, resolve_subgame
from .spots import (
    HoldemProblem,
    SpotExploitability,
    deal_probability,
    disjoint_mass,
    holdem_problem,
    root_hands,
    solve_spot,
)

#: The methods a spot is re-solved with, in table order.
SPOT_METHODS: tuple[GadgetKind, ...] = ("unsafe", "resolve", "maxmargin")


@dataclass(frozen=True)
class SpotBlueprint:
    """A spot solved in a coarse bet abstraction, and what re-solving takes from it.

    Attributes:
        problem: the spot in the coarse abstraction.
        strategy: its solution (average strategy).
        exploitability: of ``strategy`` in the coarse spot, under the ranges.
        alt: per player [R_p] her counterfactual best-response value at each root hand
            against the other's blueprint strategy, in the coarse abstraction.
        seconds: the coarse solve's wall time.
    """

    problem: HoldemProblem
    strategy: Strategy
    exploitability: SpotExploitability
    alt: tuple[np.ndarray, np.ndarray]
    seconds: float


@dataclass(frozen=True)
class SpotResolve:
    """Both players re-solved in the fine abstraction with one method.

    Attributes:
        method: ``unsafe``, ``resolve`` or ``maxmargin``.
        strategy: the profile of the two re-solves in the fine spot.
        exploitability: of ``strategy`` in the fine spot, under the ranges.
        value_change: per re-solver q, the opponent's best-response value against q under
            her range, re-solved minus blueprint (chips per deal; negative: she gains less).
        worst_rise: per re-solver q, the largest rise of one opponent hand's best-response
            value over the blueprint's alternative payoff, in % of the pot per deal of that hand
            (a negative margin; ``<= 0``: no hand gains).
        hands_above: per re-solver q, opponent hands whose value rose by more than
            :data:`RISE_TOLERANCE_PCT_POT` % of the pot.
        seconds: wall time of the two re-solves.
    """

    method: str
    strategy: Strategy
    exploitability: SpotExploitability
    value_change: tuple[float, float]
    worst_rise: tuple[float, float]
    hands_above: tuple[int, int]
    seconds: float


#: A rise of an opponent hand's value above the blueprint's smaller than this (% of the pot) is not counted.
RISE_TOLERANCE_PCT_POT = 0.1


def spot_blueprint(coarse: HoldemProblem, config: CFRConfig = CFR_PLUS, *, target_pct_pot: float = 0.5,
                   iterations: int = 10_000) -> SpotBlueprint:
    """Solve ``coarse`` to ``target_pct_pot`` % of the pot and take each player's root C̃BVs against it."""
    solved = solve_spot(coarse, config, target_pct_pot=target_pct_pot, iterations=iterations)
    tree, probs = coarse.tree, solved.strategy.probs
    alt = []
    for p in (0, 1):
        o = 1 - p
        reach_o = forward_reach(tree, o, transition_weights(tree, o, probs[o]), coarse.root_reach[o])
        alt.append(best_response_to_reach(tree, p, reach_o, want_policy=False).cbv[tree.root_slice[p]])
    return SpotBlueprint(coarse, solved.strategy, solved.final, (alt[0], alt[1]), solved.seconds)


def resolve_spot(fine: HoldemProblem, blueprint: SpotBlueprint, method: GadgetKind, *, iterations: int = 200,
                 config: CFRConfig = CFR_PLUS) -> SpotResolve:
    """Re-solve both players of ``fine`` against ``blueprint``'s alternative payoffs with ``method``."""
    coarse = blueprint.problem
    if replace(fine.spot, bets=coarse.spot.bets) != coarse.spot:
        raise GameDefinitionError("the blueprint is of another spot (board, pot or stack differ); solve the blueprint on "
                                  "the same spot with coarser bets")
    for p in (0, 1):
        if not np.array_equal(root_hands(fine.tree, p), root_hands(coarse.tree, p)) or not np.array_equal(
                fine.root_reach[p], coarse.root_reach[p]):
            raise GameDefinitionError(f"player {p}'s range differs between the spot and its blueprint; use the same ranges")
    started = time.perf_counter()
    probs: list[np.ndarray] = [np.empty(0), np.empty(0)]
    change, worst, above = [0.0, 0.0], [0.0, 0.0], [0, 0]
    c = deal_probability(fine.game)
    whole = fine.subgame.part
    for q in (0, 1):
        o = 1 - q
        problem = SubgameProblem(whole, q, fine.root_reach[q], blueprint.alt[o], GadgetSpec(method),
                                 opponent_reach=fine.root_reach[o])
        solution = resolve_subgame(problem, iterations=iterations, config=config)
        probs[q] = solution.probs
        margins = blueprint.alt[o] - solution.root_cbv
        change[q] = float(np.dot(fine.root_reach[o], -margins)) / fine.mass
        facing = c * disjoint_mass(fine.ranges[q].weights)[root_hands(fine.tree, o)]
        seen = facing > 0
        rise_pct = 100.0 * -margins[seen] / facing[seen] / fine.spot.pot
        worst[q] = float(rise_pct.max(initial=0.0))
        above[q] = int(np.count_nonzero(rise_pct > RISE_TOLERANCE_PCT_POT))
    strategy = Strategy(fine.tree.game_id, (probs[0], probs[1]))
    seconds = time.perf_counter() - started
    return SpotResolve(method, strategy, fine.exploitability(strategy), (change[0], change[1]), (worst[0], worst[1]),
                       (above[0], above[1]), seconds)


def resolve_endgame(fine: HoldemProblem, coarse_bets: BetSizing, methods: Sequence[GadgetKind] = SPOT_METHODS, *,
                    iterations: int = 200, config: CFRConfig = CFR_PLUS,
                    blueprint_target: float = 0.5) -> tuple[SpotBlueprint, list[SpotResolve]]:
    """The blueprint of ``fine``'s spot in ``coarse_bets`` and the re-solves of ``fine`` against it, one per method."""
    coarse = holdem_problem(replace(fine.spot, bets=coarse_bets), fine.ranges, isomorphism=fine.suits is not None)
    blueprint = spot_blueprint(coarse, config, target_pct_pot=blueprint_target)
    return blueprint, [resolve_spot(fine, blueprint, m, iterations=iterations, config=config) for m in methods]
