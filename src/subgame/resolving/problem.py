"""One subgame problem and the one function that re-solves it.

Re-solving is the same computation wherever its inputs come from (safe-and-nested §4–5;
decomposition paper, "Subgame Strategy Re-Solving", Fig. 2): a forest of subgames, the
re-solving player's reach at their roots, the opponent's alternative payoff at each of her
root private states, and a root gadget built from them. A blueprint's values
(:func:`~subgame.resolving.solving.blueprint_problem`) and CFR-D's stored values
(:func:`~subgame.decompose.reconstruct.stored_value_problem`) both produce a
:class:`SubgameProblem`; :func:`resolve_subgame` solves it with CFR and reports the
margins and, for the follow/terminate gadget, the re-solving error of the decomposition
paper's Theorem 3.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..errors import SubgameError
from ..eval.best_response import best_response_to_reach
from ..solve.cfr import CFR_PLUS, CFRConfig, CFRSolver
from ..solve.driver import Budget, run
from ..solve.plan import checked_iterations
from ..solve.plugins import Leaf, RootGadget, plug_in_values
from ..tree.part import Part
from ..tree.public_tree import PublicKey, PublicTree
from ..tree.sweep import forward_reach, transition_weights
from .gadgets import DistributionalGadget, FixedRange, MaxMarginGadget, ResolveGadget, gadget_value

GadgetKind = Literal["unsafe", "resolve", "maxmargin", "distributional"]


@dataclass(frozen=True)
class GadgetSpec:
    """Which root gadget a problem is solved with, and its parameters.

    Attributes:
        kind: a key of :data:`GADGETS`.
        spread, step: of the distributional gadget (see
            :class:`~subgame.resolving.gadgets.DistributionalGadget`).
    """

    kind: GadgetKind
    spread: float = 0.5
    step: float = 0.1

    def __post_init__(self) -> None:
        if self.kind not in GADGETS:
            raise SubgameError(f"unknown gadget {self.kind!r}; gadgets are: {', '.join(GADGETS)}")


@dataclass(frozen=True, eq=False)
class SubgameProblem:
    """Re-solve ``player``'s strategy in a forest of subgames against a gadget opponent.

    Root arrays are over the forest's root private states of one player (``R_p``).

    Attributes:
        part: the compiled forest (one root per subgame; one subgame is a forest of one)
            and its place in the tree it was cut from (:meth:`Part.whole` for a tree that
            stands alone).
        player: the re-solving player; the other one is the gadget player.
        root_reach: [R_player] her reach at the roots (blueprint or trunk average).
        alt: [R_opp] the opponent's alternative payoff at each root private state, as a
            counterfactual value (chance from the game's root included).
        gadget: the root gadget.
        opponent_reach: [R_opp] the opponent's blueprint reach (unsafe solving only).
        alt_upper: [R_opp] the opponent's counterfactual best-response value against the
            blueprint, the upper end of a distributional alternative payoff.
    """

    part: Part
    player: int
    root_reach: np.ndarray
    alt: np.ndarray
    gadget: GadgetSpec
    opponent_reach: np.ndarray | None = None
    alt_upper: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.player not in (0, 1):
            raise SubgameError(f"the re-solving player must be 0 or 1, got {self.player!r}")
        rs = self.tree.root_slice
        sizes = {"root_reach": rs[self.player], "alt": rs[self.opponent], "opponent_reach": rs[self.opponent],
                 "alt_upper": rs[self.opponent]}
        for name, where in sizes.items():
            x = getattr(self, name)
            if x is not None and np.shape(x) != (where.stop - where.start,):
                raise SubgameError(f"{name} has shape {np.shape(x)}; the forest has {where.stop - where.start} root states there")
        needs = {"unsafe": "opponent_reach", "distributional": "alt_upper"}.get(self.gadget.kind)
        if needs is not None and getattr(self, needs) is None:
            raise SubgameError(f"the {self.gadget.kind} gadget needs {needs}")

    @property
    def tree(self) -> PublicTree:
        """The compiled forest."""
        return self.part.tree

    @property
    def opponent(self) -> int:
        return 1 - self.player

    @property
    def root_keys(self) -> tuple[PublicKey, ...]:
        """[S] the public state of each subgame root."""
        return tuple(self.tree.public_key[n] for n in np.flatnonzero(self.tree.parent < 0))

    def build_gadget(self) -> RootGadget:
        return GADGETS[self.gadget.kind](self)


#: How each gadget kind is built from a problem.
GADGETS: dict[str, Callable[[SubgameProblem], RootGadget]] = {
    "unsafe": lambda pr: FixedRange(pr.opponent, np.asarray(pr.opponent_reach, dtype=np.float64)),
    "resolve": lambda pr: ResolveGadget(pr.opponent, pr.alt),
    "maxmargin": lambda pr: MaxMarginGadget(pr.opponent, pr.alt, pr.part.root_subgame(pr.opponent)),
    "distributional": lambda pr: DistributionalGadget(
        pr.opponent, pr.alt, np.asarray(pr.alt_upper), pr.gadget.spread, pr.gadget.step
    ),
}


@dataclass(frozen=True, eq=False)
class SubgameSolution:
    """The re-solved strategy of ``problem.player`` in the problem's forest, with its guarantees.

    Attributes:
        problem: what was solved.
        probs: [I_sub, A] the re-solver's average strategy at the forest's information sets.
        root_range: [R_opp] the gadget player's average root range (her average follow
            probability for the follow/terminate gadget).
        root_cbv: [R_opp] the opponent's counterfactual best-response values at the roots
            against the re-solved strategy; ``alt − root_cbv`` are the margins.
        recovery_gap: [S] for the follow/terminate gadget, an upper bound on ε_R, the
            re-solved strategy's exploitability in each re-solving game: the opponent's
            best-response value there, Σ_I max(alt(I), root_cbv(I)), minus her value when
            the re-solver best-responds to her average strategy (``root_range``, her
            subgame strategy); the game value lies between. ``None`` for other gadgets.
        iterations: CFR iterations run.
        opponent_probs: [I_sub_opp, A] the gadget player's average strategy in the forest
            (what unsafe nested solving assumes she plays, for its Bayesian belief updates).
    """

    problem: SubgameProblem
    probs: np.ndarray
    root_range: np.ndarray
    root_cbv: np.ndarray
    recovery_gap: np.ndarray | None
    iterations: int
    opponent_probs: np.ndarray | None = None

    @property
    def part(self) -> Part:
        return self.problem.part

    @property
    def tree(self) -> PublicTree:
        return self.problem.tree

    @property
    def player(self) -> int:
        return self.problem.player

    @property
    def alt(self) -> np.ndarray:
        return self.problem.alt

    @property
    def margins(self) -> np.ndarray:
        return self.problem.alt - self.root_cbv

    @property
    def keys(self) -> tuple[PublicKey, ...]:
        return self.problem.root_keys

    @property
    def root_subgame(self) -> np.ndarray:
        """[R_opp] the subgame of each opponent root state."""
        return self.part.root_subgame(self.problem.opponent)

    def into(self, parent_probs: np.ndarray) -> np.ndarray:
        """A copy of the re-solver's ``parent_probs`` [I_parent, A] with her re-solved rows in place."""
        return self.part.embed(parent_probs, self.probs, self.player)

    @property
    def root_infosets(self) -> np.ndarray:
        """[S] the opponent's root information sets per subgame, |I^R_S|."""
        return np.bincount(self.root_subgame, minlength=len(self.keys))


def problem_key(problem: SubgameProblem) -> tuple[object, ...]:
    """What fixes a re-solve's strategy on one part (the iterations and the rule being the caller's): the player, the
    gadget and the root arrays' bytes. Two problems with one key are solved to the same bits."""
    arrays = (problem.root_reach, problem.alt, problem.opponent_reach, problem.alt_upper)
    return (problem.player, problem.gadget, *(None if a is None else (a.dtype.str, a.tobytes()) for a in arrays))


def resolve_subgame(
    problem: SubgameProblem,
    *,
    iterations: int = 1000,
    config: CFRConfig = CFR_PLUS,
    gadget: RootGadget | None = None,
    leaves: Sequence[Leaf] = (),
    budget: Budget | None = None,
) -> SubgameSolution:
    """Solve ``problem`` with ``iterations`` of CFR (``config``) against its root gadget.

    Args:
        budget: run for this budget (iterations and/or seconds, under the run driver)
            instead of ``iterations``; an agent's budget per decision.
        gadget: a root gadget to use instead of the one ``problem.gadget`` names (any
            :class:`~subgame.solve.plugins.RootGadget` of the opponent).
        leaves: leaf plug-ins of a depth-limited forest (depth-limited paper §4). The
            opponent's root best-response values then count the leaves' evaluation at the
            average strategies; ``recovery_gap`` is not computed (``None``).
    """
    if budget is None:
        budget = Budget(iterations=checked_iterations(iterations, minimum=1))
    tree, player, opp = problem.tree, problem.player, problem.opponent
    gadget = gadget if gadget is not None else problem.build_gadget()
    if gadget.player != opp:
        raise SubgameError(f"the gadget plays for player {gadget.player}, but the opponent of the re-solver is {opp}")
    reach: list[np.ndarray | None] = [None, None]
    reach[player] = problem.root_reach
    solver = CFRSolver(tree, config, leaves=leaves, gadget=gadget, root_reach=(reach[0], reach[1]), compact=None)
    if budget.iterations is not None:
        solver.plan(budget.iterations)
    iterations = run(solver, budget).iteration
    avg = solver.average_strategy().probs
    follow = solver.average_root_range()
    rs = tree.root_slice
    root_reach = np.asarray(problem.root_reach, dtype=np.float64)
    reach_p = forward_reach(tree, player, transition_weights(tree, player, avg[player]), root_reach)
    leaf_cfv = None
    if leaves:
        reach_o = forward_reach(tree, opp, transition_weights(tree, opp, avg[opp]), follow)
        both = (reach_p, reach_o) if player == 0 else (reach_o, reach_p)
        leaf_cfv = plug_in_values(opp, both, leaves, None)
    root_cbv = best_response_to_reach(tree, opp, reach_p, leaf_cfv=leaf_cfv, want_policy=False).cbv[rs[opp]]
    gap = None
    if problem.gadget.kind == "resolve" and not leaves:
        reach_o = forward_reach(tree, opp, transition_weights(tree, opp, avg[opp]), follow)
        resolver_cbv = best_response_to_reach(tree, player, reach_o, want_policy=False).cbv[rs[player]]
        sub_o, sub_p, n = problem.part.root_subgame(opp), problem.part.root_subgame(player), problem.part.roots.size
        alt = problem.alt
        best_vs_resolved = gadget_value("resolve", alt, root_cbv, sub_o, n, per_subgame=True)
        value_vs_average = (np.bincount(sub_o, weights=(1.0 - follow) * alt, minlength=n)
                            - np.bincount(sub_p, weights=root_reach * resolver_cbv, minlength=n))
        gap = best_vs_resolved - value_vs_average
    return SubgameSolution(problem, avg[player], follow, root_cbv, gap, iterations, avg[opp])
