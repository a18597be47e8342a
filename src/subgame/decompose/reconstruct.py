"""Run-time re-solving from what CFR-D kept (Burch, Johanson & Bowling 2014).

"Subgame Strategy Re-Solving" (Fig. 2): to recover player p's strategy in a subgame, the
opponent may, at each of her root information sets I, terminate for the stored value
v_opp(I) or follow into the subgame; p's root range is her trunk average reach. CFR on
that game (here CFR+ with :class:`~subgame.resolving.gadgets.ResolveGadget`) gives p a
subgame strategy whose opponent counterfactual best-response values do not exceed the
stored ones by more than the re-solving error. Counterfactual values here count chance
from the game's root, so the paper's normalization constant k cancels: the terminate
payoff is the stored value itself.

The stored values produce a :class:`~subgame.resolving.SubgameProblem`
(:func:`stored_value_problem`) solved by the one re-solver,
:func:`~subgame.resolving.resolve_subgame`, which also reports the terms of the appendix's
Theorem 3: the opponent's root information sets and an upper bound ε_R on the
re-solved strategy's exploitability in the re-solving game
(:attr:`~subgame.resolving.SubgameSolution.recovery_gap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..errors import GameDefinitionError
from ..eval.best_response import Exploitability, best_response, best_response_to_reach, exploitability
from ..games.base import Game
from ..parallel import Executor, SerialExecutor
from ..resolving.gadgets import gadget_value
from ..resolving.problem import GadgetSpec, SubgameProblem, SubgameSolution, resolve_subgame
from ..solve.cfr import CFR_PLUS, CFRConfig
from ..strategy import Strategy
from ..tree.compile import compile_game
from ..tree.part import Part, assemble, place
from ..tree.public_tree import LEAF, PublicKey, PublicTree
from .cfr_d import CFRDSolution
from .split import Decomposition, StructureCache, compile_chunk


def stored_value_problem(solution: CFRDSolution, forest: Part, player: int) -> SubgameProblem:
    """The problem of re-solving ``player`` in ``forest`` (subgames below the trunk, a part of it) from what CFR-D stored.

    Her root range is her trunk average reach; the opponent's terminate payoffs are her
    stored average root values, both read at the trunk's leaf states (:meth:`Part.at_roots`).
    """
    if player not in (0, 1):
        raise GameDefinitionError(f"player must be 0 or 1, got {player!r}")
    return SubgameProblem(forest, player, forest.at_roots(solution.average_reach[player], player),
                          forest.at_roots(solution.root_values[1 - player], 1 - player), GadgetSpec("resolve"))


@dataclass(frozen=True, eq=False)
class ResolveTask:
    """One re-solve, as sent to a worker (which compiles the chunk)."""

    game: Game
    keys: tuple[PublicKey, ...]
    player: int
    root_reach: np.ndarray
    alt: np.ndarray
    iterations: int
    config: CFRConfig

    def problem(self, forest: Part) -> SubgameProblem:
        return SubgameProblem(forest, self.player, self.root_reach, self.alt, GadgetSpec("resolve"))


def run_resolve_task(task: ResolveTask) -> SubgameSolution:
    """Compile the chunk and re-solve it: the function parallel executors map.

    A worker holds no trunk: the forest comes back as a whole (:meth:`Part.whole`), placed
    in the full tree by whoever combines the re-solves.
    """
    forest = Part.whole(compile_chunk(task.game, task.keys))
    return resolve_subgame(task.problem(forest), iterations=task.iterations, config=task.config)


def _tasks(solution: CFRDSolution, d: Decomposition, players: Sequence[int], iterations: int, config: CFRConfig) -> list[ResolveTask]:
    reach = solution.average_reach
    return [
        ResolveTask(solution.game, c.keys, p, reach[p][c.trunk_states[p]],
                    solution.root_values[1 - p][c.trunk_states[1 - p]], iterations, config)
        for c in d.chunks for p in players
    ]


def _run(tasks: list[ResolveTask], d: Decomposition, executor: Executor | None) -> list[SubgameSolution]:
    if executor is None or isinstance(executor, SerialExecutor):
        return [
            resolve_subgame(t.problem(place(d.trunk, d.cache.get(t.keys, partial(compile_chunk, t.game, t.keys)))),
                            iterations=t.iterations, config=t.config)
            for t in tasks
        ]
    return executor.map(run_resolve_task, tasks)


def chunk_at(solution: CFRDSolution, key: Sequence[str]) -> Part:
    """The compiled subgame rooted at trunk leaf ``key``, a part of the trunk.

    This is all an agent needs on reaching that subgame at run time, with the trunk
    average strategy and the stored values (:func:`stored_value_problem`).
    """
    node = solution.trunk.node_of_key.get(tuple(key))
    if node is None:
        raise GameDefinitionError(f"{solution.game.name}: {list(key)!r} is not a public state of the trunk")
    d = Decomposition.build(solution.game, solution.split, trunk=solution.trunk, leaf_nodes=[node], cache=StructureCache(1))
    return d.chunk_part(d.chunks[0])


@dataclass(frozen=True, eq=False)
class Reconstruction:
    """A full-game strategy: CFR-D's trunk average plus every subgame re-solved for both players."""

    tree: PublicTree
    strategy: Strategy
    chunks: tuple[SubgameSolution, ...]  #: per chunk and re-solving player
    iterations: int

    def exploitability(self) -> Exploitability:
        return exploitability(self.tree, self.strategy)


def reconstruct(
    solution: CFRDSolution,
    *,
    iterations: int = 1000,
    config: CFRConfig = CFR_PLUS,
    full_tree: PublicTree | None = None,
    batch: int | None = None,
    executor: Executor | None = None,
) -> Reconstruction:
    """Re-solve every subgame for both players and combine with the trunk average strategy.

    Args:
        iterations: CFR iterations per re-solving game.
        full_tree: the compiled game (compiled here if not given).
        batch: subgames per re-solve (default: all in one forest).
        executor: runs the re-solves (serial when ``None``).
    """
    if iterations < 1:
        raise GameDefinitionError(f"iterations must be >= 1, got {iterations}")
    game = solution.game
    tree = full_tree if full_tree is not None else compile_game(game)
    if tree.game_id != solution.trunk.game_id:
        raise GameDefinitionError(f"the full tree is of game {tree.game_id!r}, the CFR-D solution of {solution.trunk.game_id!r}")
    n_leaves = int(np.sum(solution.trunk.kind == LEAF))
    d = Decomposition.build(game, solution.split, trunk=solution.trunk, batch=batch or max(1, n_leaves),
                            cache=StructureCache(0 if executor is not None else None))
    resolved = _run(_tasks(solution, d, (0, 1), iterations, config), d, executor)
    probs = []
    for p in (0, 1):
        parts = [(place(tree, solution.trunk), solution.average.probs[p], None)]
        parts += [(place(tree, r.tree), r.probs, None) for r in resolved if r.player == p]
        probs.append(assemble(tree, p, parts, "CFR-D reconstruction"))
    strategy = Strategy(tree.game_id, (probs[0], probs[1]),
                        {"algo": "cfr-d", "iterations": solution.iterations, "resolve_iterations": iterations})
    return Reconstruction(tree, strategy, tuple(resolved), iterations)


def stored_value_exploitability(solution: CFRDSolution) -> Exploitability:
    """Best-response values against the trunk average when each subgame pays its stored values.

    Player b's best response in the trunk, with her value at a leaf private state taken to
    be her stored average root value: what CFR-D's stored data certifies. It bounds her
    best-response value against CFR-D's implicit average strategy from above (the stored
    values bound its counterfactual best-response values), and a re-solved strategy
    whose opponent root values stay within the stored ones does no worse (Theorem 1).
    """
    trunk, reach = solution.trunk, solution.average_reach
    br = [best_response_to_reach(trunk, b, reach[1 - b], leaf_cfv=solution.root_values[b], want_policy=False).value for b in (0, 1)]
    return Exploitability((br[0], br[1]))


@dataclass(frozen=True, eq=False)
class ResolveBound:
    """The terms of the appendix's Theorem 3 for re-solving one player in some subgames.

    With p2 the opponent of the re-solving player (``player``), the theorem bounds her
    best-response value against the re-solved strategy:
    ``br_after <= base + Σ_S ((|I^R_S| - 1) ε_S + ε_R)``.

    Attributes:
        br_after: p2's best-response value against the original strategy with the
            subgames replaced by the re-solved ones.
        br_original: p2's best-response value against the original strategy, u_2^<σ1,BR(σ1)>.
        base: p2's best-response value in the trunk when each re-solved subgame's root
            information set I pays her max(alt(I), CBV(I)) (CBV against the original):
            the last step of the theorem's proof. It equals ``br_original`` when every
            alternative payoff is at most the CBV, as with the theorem's alt = v_2^σ(I);
            with CFR-D's stored values (at least the CBV) it is the stored-value bound.
        root_infosets: [S] |I^R_S|, p2's root information sets per subgame.
        eps_s: [S] ε_S, the largest p2 counterfactual regret at a root information set,
            CBV(I) - alt(I), floored at 0.
        eps_r: [S] ε_R, the re-solved strategy's exploitability in the re-solving game
            (an upper bound: :attr:`~subgame.resolving.SubgameSolution.recovery_gap`).
    """

    player: int
    br_after: float
    br_original: float
    base: float
    root_infosets: np.ndarray
    eps_s: np.ndarray
    eps_r: np.ndarray

    @property
    def bound(self) -> float:
        return self.base + float(np.sum((self.root_infosets - 1) * self.eps_s + self.eps_r))


def theorem3_bound(
    solution: CFRDSolution, tree: PublicTree, original: Strategy, resolved: Sequence[SubgameSolution]
) -> ResolveBound:
    """Compute every term of Theorem 3 for the re-solves ``resolved`` of one player.

    Args:
        solution: the CFR-D solution whose trunk the original strategy plays.
        tree: the full game.
        original: a full-game strategy that agrees with ``solution.average`` in the trunk
            (CFR-D's explicit average, :meth:`CFRDSolver.explicit_average`); its subgame
            strategies are what the re-solves replace.
        resolved: re-solves of one player (:func:`~subgame.resolving.resolve_subgame` of
            :func:`stored_value_problem`).
    """
    players = {r.player for r in resolved}
    if len(players) != 1:
        raise GameDefinitionError(f"theorem3_bound takes the re-solves of one player, got players {sorted(players)}")
    q = players.pop()
    opp = 1 - q
    trunk = solution.trunk
    original.check(tree)
    in_full = place(tree, trunk)
    if not np.allclose(in_full.restrict(original.probs[q], q), solution.average.probs[q], atol=1e-9):
        raise GameDefinitionError("the original strategy does not play the CFR-D trunk average in the trunk")
    br = best_response(tree, original, opp)
    ta = trunk.players[opp]
    leaf_states = np.flatnonzero(trunk.kind[ta.node] == LEAF)
    pay = np.zeros(ta.num_states)
    pay[leaf_states] = br.cbv[in_full.states[opp][leaf_states]]
    combined = original.probs[q]
    infosets, eps_s, eps_r = [], [], []
    for r in resolved:
        forest = place(tree, r.tree)
        cbv = forest.at_roots(br.cbv, opp)
        regret = gadget_value("maxmargin", r.alt, cbv, r.root_subgame, len(r.keys), per_subgame=True)
        eps_s.append(np.maximum(regret, 0.0))
        if r.recovery_gap is None:
            raise GameDefinitionError("theorem3_bound needs re-solves with the follow/terminate (resolve) gadget")
        eps_r.append(r.recovery_gap)
        infosets.append(r.root_infosets)
        pay[place(trunk, r.tree).root_states[opp]] = np.maximum(r.alt, cbv)
        combined = forest.embed(combined, r.probs, q)
    after = best_response(tree, original.with_player(q, combined), opp).value
    base = best_response_to_reach(trunk, opp, solution.average_reach[q], leaf_cfv=pay, want_policy=False).value
    return ResolveBound(q, after, br.value, base, np.concatenate(infosets), np.concatenate(eps_s), np.concatenate(eps_r))
