"""Run-time re-solving from what CFR-D kept (Burch, Johanson & Bowling 2014).

"Subgame Strategy Re-Solving" (Fig. 2): to recover player p's strategy in a subgame, the
opponent may, at each of her root information sets I, terminate for the stored value
v_opp(I) or follow into the subgame; p's root range is her trunk average reach. CFR on
that game (here CFR+ with :class:`~subgame.subgame.gadgets.ResolveGadget`) gives p a
subgame strategy whose opponent counterfactual best-response values do not exceed the
stored ones by more than the re-solving error. Counterfactual values here count chance
from the game's root, so the paper's normalization constant k cancels: the terminate
payoff is the stored value itself.

Each re-solve also reports the terms of the appendix's Theorem 3: the number of the
opponent's root information sets and an upper bound ε_R on the exploitability of the
re-solved strategy in the re-solving game (its NashConv there, see :class:`ResolvedChunk`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import GameDefinitionError
from ..eval.best_response import Exploitability, best_response, exploitability
from ..games.base import Game
from ..solve.cfr import CFR_PLUS, CFRConfig, CFRSolver
from ..strategy import Strategy
from ..subgame.gadgets import ResolveGadget
from ..tree.compile import compile_game
from ..tree.public_tree import LEAF, PublicKey, PublicTree, infoset_index, infoset_keys, root_subgame, rows_in
from ..tree.sweep import backward_best, forward_reach, leaf_values, transition_weights
from .cfr_d import CFRDSolution
from .parallel import Executor, SerialExecutor
from .split import Decomposition, StructureCache, compile_chunk


@dataclass
class AveragingResolveGadget(ResolveGadget):
    """:class:`ResolveGadget` that also averages the follow probabilities it plays.

    The average uses the solver's averaging weights t^γ and the follow probability each
    iteration's reaches were computed with, so (average follow, the solver's average
    subgame strategy) is the gadget player's average strategy in the re-solving game.
    """

    gamma: float = 1.0
    follow_sum: np.ndarray = field(init=False)  #: [R]
    weight_sum: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.follow_sum = np.zeros(self.alt.shape[0])

    def __call__(self, solver: CFRSolver, player: int, cfv: np.ndarray) -> None:
        if player == self.player:
            w = float(solver.iteration) ** self.gamma
            self.follow_sum += w * solver.root_reach[player]
            self.weight_sum += w
        super().__call__(solver, player, cfv)

    def average_follow(self) -> np.ndarray:
        return self.follow_sum / self.weight_sum if self.weight_sum > 0 else self.follow()


@dataclass(frozen=True, eq=False)
class ResolvedChunk:
    """Player ``player``'s re-solved strategy in a forest of subgames, with its guarantees.

    Root arrays are over the forest's root private states; ``S`` is the number of subgames.

    Attributes:
        keys: [S] public state of each subgame root.
        probs: [I_sub, A] the re-solved average strategy at the forest's infosets.
        infoset_keys: [I_sub] (public key, label) of each infoset, to place it in the full game.
        alt: [R_opp] the stored opponent values (terminate payoffs).
        follow: [R_opp] the opponent's average follow probability in the re-solving game.
        root_cbv: [R_opp] the opponent's counterfactual best-response values against the
            re-solved strategy (``alt - root_cbv`` are the margins).
        root_subgame: [R_opp] subgame of each opponent root state.
        root_labels: [R_opp] private label of each opponent root state.
        root_infosets: [S] |I^R|: the opponent's root information sets per subgame.
        recovery_gap: [S] an upper bound on ε_R, the re-solved strategy's exploitability
            in each re-solving game: the opponent's best-response value there,
            Σ_I max(alt(I), root_cbv(I)), minus her value when the re-solver best-responds
            to her average strategy (follow, subgame strategy); the game value lies between.
    """

    keys: tuple[PublicKey, ...]
    player: int
    probs: np.ndarray
    infoset_keys: tuple[tuple[PublicKey, str], ...]
    alt: np.ndarray
    follow: np.ndarray
    root_cbv: np.ndarray
    root_subgame: np.ndarray
    root_labels: tuple[str, ...]
    root_infosets: np.ndarray
    recovery_gap: np.ndarray
    iterations: int

    @property
    def margins(self) -> np.ndarray:
        return self.alt - self.root_cbv


def _cbv(tree: PublicTree, player: int, reach_opp: np.ndarray) -> np.ndarray:
    v, _ = backward_best(tree, player, leaf_values(tree, player, (reach_opp, reach_opp)), want_policy=False)
    return v


def resolve_forest(
    tree: PublicTree,
    keys: tuple[PublicKey, ...],
    player: int,
    root_reach: np.ndarray,
    alt: np.ndarray,
    iterations: int,
    config: CFRConfig = CFR_PLUS,
) -> ResolvedChunk:
    """Re-solve ``player``'s strategy in every subgame of a compiled forest.

    Args:
        root_reach: [R_player] her trunk average reach at the root private states.
        alt: [R_opp] the opponent's stored root values.
    """
    opp = 1 - player
    solver = CFRSolver(tree, config)
    solver.root_reach[player] = np.array(root_reach, dtype=np.float64)
    gadget = AveragingResolveGadget(opp, np.array(alt, dtype=np.float64), gamma=config.gamma)
    gadget.install(solver)
    solver.hooks = [gadget]
    solver.run(iterations)
    avg = solver.average_strategy().probs
    follow = gadget.average_follow()
    rs = tree.plan.root_slice
    reach_p = forward_reach(tree, player, transition_weights(tree, player, avg[player]), solver.root_reach[player])
    root_cbv = _cbv(tree, opp, reach_p)[rs[opp]]
    reach_o = forward_reach(tree, opp, transition_weights(tree, opp, avg[opp]), follow)
    resolver_cbv = _cbv(tree, player, reach_o)[rs[player]]
    sub_o, sub_p = root_subgame(tree, opp), root_subgame(tree, player)
    n = len(keys)
    best_vs_resolved = np.bincount(sub_o, weights=np.maximum(alt, root_cbv), minlength=n)
    value_vs_average = (np.bincount(sub_o, weights=(1.0 - follow) * alt, minlength=n)
                        - np.bincount(sub_p, weights=solver.root_reach[player] * resolver_cbv, minlength=n))
    labels = tree.players[opp].label[rs[opp].start : rs[opp].stop]
    return ResolvedChunk(
        keys, player, avg[player], infoset_keys(tree, player), np.array(alt, dtype=np.float64), follow, root_cbv,
        sub_o, tuple(labels), np.bincount(sub_o, minlength=n), best_vs_resolved - value_vs_average, iterations,
    )


@dataclass(frozen=True, eq=False)
class ResolveTask:
    """One re-solve, as sent to a worker."""

    game: Game
    keys: tuple[PublicKey, ...]
    player: int
    root_reach: np.ndarray
    alt: np.ndarray
    iterations: int
    config: CFRConfig


def run_resolve_task(task: ResolveTask) -> ResolvedChunk:
    """Compile the chunk and re-solve it: the function parallel executors map."""
    tree = compile_chunk(task.game, task.keys)
    return resolve_forest(tree, task.keys, task.player, task.root_reach, task.alt, task.iterations, task.config)


def _tasks(solution: CFRDSolution, d: Decomposition, players: Sequence[int], iterations: int, config: CFRConfig):
    reach = solution.average_reach
    return [
        ResolveTask(solution.game, c.keys, p, reach[p][c.trunk_states[p]],
                    solution.root_values[1 - p][c.trunk_states[1 - p]], iterations, config)
        for c in d.chunks for p in players
    ]


def _run(tasks: list[ResolveTask], d: Decomposition, executor: Executor | None) -> list[ResolvedChunk]:
    if executor is None or isinstance(executor, SerialExecutor):
        return [
            resolve_forest(d.cache.get(t.keys, lambda t=t: compile_chunk(t.game, t.keys)), t.keys, t.player,
                           t.root_reach, t.alt, t.iterations, t.config)
            for t in tasks
        ]
    return executor.map(run_resolve_task, tasks)


def resolve_subgame(
    solution: CFRDSolution,
    key: Sequence[str],
    player: int,
    *,
    iterations: int = 1000,
    config: CFRConfig = CFR_PLUS,
) -> ResolvedChunk:
    """Re-solve ``player``'s strategy in the one subgame rooted at public state ``key``.

    This is what an agent does at run time on reaching that subgame: it needs only the
    trunk average strategy, the stored values and the subgame's structure.
    """
    node = solution.trunk.node_of_key.get(tuple(key))
    if node is None:
        raise GameDefinitionError(f"{solution.game.name}: {list(key)!r} is not a public state of the trunk")
    if player not in (0, 1):
        raise GameDefinitionError(f"player must be 0 or 1, got {player!r}")
    d = Decomposition.build(solution.game, solution.split, trunk=solution.trunk, leaf_nodes=[node], cache=StructureCache(1))
    return _run(_tasks(solution, d, [player], iterations, config), d, None)[0]


@dataclass(frozen=True, eq=False)
class Reconstruction:
    """A full-game strategy: CFR-D's trunk average plus every subgame re-solved for both players."""

    tree: PublicTree
    strategy: Strategy
    chunks: tuple[ResolvedChunk, ...]  #: per chunk and re-solving player
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
        index = infoset_index(tree, p)
        pa = tree.players[p]
        out = np.zeros(pa.legal.shape)
        covered = np.zeros(pa.num_infosets, dtype=bool)
        parts = [(infoset_keys(solution.trunk, p), solution.average.probs[p])]
        parts += [(r.infoset_keys, r.probs) for r in resolved if r.player == p]
        for keys, x in parts:
            rows = rows_in(index, keys, "CFR-D reconstruction")
            out[rows, : x.shape[1]] = x
            covered[rows] = True
        if not covered.all():
            missing = pa.label[pa.infoset_priv[int(np.flatnonzero(~covered)[0])]]
            raise GameDefinitionError(f"{game.name}: information set {missing!r} of player {p} is in neither the trunk nor a subgame")
        probs.append(out)
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
    br = []
    for b in (0, 1):
        v = leaf_values(trunk, b, (reach[1 - b], reach[1 - b])) + solution.root_values[b]
        v, _ = backward_best(trunk, b, v, want_policy=False)
        br.append(float(v[trunk.plan.root_slice[b]].sum()))
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
            (an upper bound: :attr:`ResolvedChunk.recovery_gap`).
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
    solution: CFRDSolution, tree: PublicTree, original: Strategy, resolved: Sequence[ResolvedChunk]
) -> ResolveBound:
    """Compute every term of Theorem 3 for the re-solves ``resolved`` of one player.

    Args:
        solution: the CFR-D solution whose trunk the original strategy plays.
        tree: the full game.
        original: a full-game strategy that agrees with ``solution.average`` in the trunk
            (CFR-D's explicit average, :meth:`CFRDSolver.explicit_average`); its subgame
            strategies are what the re-solves replace.
        resolved: re-solves of one player (each from :func:`resolve_forest`).
    """
    players = {r.player for r in resolved}
    if len(players) != 1:
        raise GameDefinitionError(f"theorem3_bound takes the re-solves of one player, got players {sorted(players)}")
    q = players.pop()
    opp = 1 - q
    trunk = solution.trunk
    original.check(tree)
    trunk_rows = rows_in(infoset_index(tree, q), infoset_keys(trunk, q), "trunk")
    if not np.allclose(original.probs[q][trunk_rows, : trunk.players[q].max_actions], solution.average.probs[q], atol=1e-9):
        raise GameDefinitionError("the original strategy does not play the CFR-D trunk average in the trunk")
    br = best_response(tree, original, opp)
    pa, ta = tree.players[opp], trunk.players[opp]
    leaf_states = np.flatnonzero(trunk.kind[ta.node] == LEAF)
    full_state = {(tree.public_key[pa.node[g]], pa.label[g]): g for g in range(pa.num_states)}
    trunk_state = {(trunk.public_key[ta.node[g]], ta.label[g]): g for g in leaf_states}
    pay = np.zeros(ta.num_states)
    pay[leaf_states] = br.cbv[[full_state[(trunk.public_key[ta.node[g]], ta.label[g])] for g in leaf_states]]
    combined = original.probs[q].copy()
    index = infoset_index(tree, q)
    infosets, eps_s, eps_r = [], [], []
    for r in resolved:
        keys = [(r.keys[s], lab) for s, lab in zip(r.root_subgame, r.root_labels)]
        cbv = br.cbv[[full_state[k] for k in keys]]
        regret = np.full(len(r.keys), -np.inf)
        np.maximum.at(regret, r.root_subgame, cbv - r.alt)
        eps_s.append(np.maximum(regret, 0.0))
        eps_r.append(r.recovery_gap)
        infosets.append(r.root_infosets)
        pay[[trunk_state[k] for k in keys]] = np.maximum(r.alt, cbv)
        rows = rows_in(index, r.infoset_keys, "re-solved subgame")
        combined[rows] = 0.0
        combined[rows, : r.probs.shape[1]] = r.probs
    after = best_response(tree, original.with_player(q, combined), opp).value
    reach = solution.average_reach[q]
    v, _ = backward_best(trunk, opp, leaf_values(trunk, opp, (reach, reach)) + pay, want_policy=False)
    base = float(v[trunk.plan.root_slice[opp]].sum())
    return ResolveBound(q, after, br.value, base, np.concatenate(infosets), np.concatenate(eps_s), np.concatenate(eps_r))
